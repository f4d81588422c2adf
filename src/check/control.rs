//! Control characters in a game's files (`term::is_control`): inside a string they would reach
//! a terminal as a sequence it acts on (colours, a screen clear, the window title, a clipboard
//! write), and a bidirectional override reorders what a reader sees of a name. One diagnostic
//! per file, at the first; the terminal writers escape them anyway (`term`).

use crate::diag::{Diag, Sources, Span};

/// A warning for the first C0/C1 control or DEL of each file (tab and line ends are text), or
/// else for its first bidirectional override or isolate. A warning, not an error: the game
/// still plays, its text escaped on every terminal.
pub fn report(diags: &mut Vec<Diag>, sources: &Sources) {
    for (i, f) in sources.files.iter().enumerate() {
        let Ok(file) = u32::try_from(i) else { break };
        let is_hard = |c: char| crate::term::is_control(c) && !crate::term::is_bidi_control(c);
        let hard = f
            .text
            .char_indices()
            .filter(|&(_, c)| is_hard(c) && c != '\r');
        if let Some(d) = one(file, hard, "a control character", true) {
            diags.push(d);
            continue;
        }
        let bidi = f
            .text
            .char_indices()
            .filter(|&(_, c)| crate::term::is_bidi_control(c));
        if let Some(d) = one(file, bidi, "a bidirectional override", false) {
            diags.push(d);
        }
    }
}

fn one(
    file: u32,
    mut found: impl Iterator<Item = (usize, char)>,
    what: &str,
    hard: bool,
) -> Option<Diag> {
    let (at, c) = found.next()?;
    let more = found.count();
    let also = match more {
        0 => String::new(),
        1 => " (and 1 more in this file)".to_string(),
        n => format!(" (and {n} more in this file)"),
    };
    let span = Span::new(file, at, at + c.len_utf8());
    let message = format!("{what}, U+{:04X}, in the game's text{also}", u32::from(c));
    Some(if hard {
        Diag::warning("check::control_char", message)
            .label(span, "here")
            .help("a terminal acts on it (colours, clearing the screen, the clipboard) instead of showing it: remove it")
    } else {
        Diag::warning("check::bidi_control", message)
            .label(span, "here")
            .help("it reorders the text after it as a reader sees it: remove it, or write the text in the order it is read")
    })
}
