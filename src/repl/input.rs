//! Input that is not a terminal: plain lines with the prompt and input echoed, so a piped
//! session reads as a transcript; and whether text typed so far is unfinished, which both this
//! mode and the line editor ask.

use super::Repl;
use crate::limits::Limits;
use std::io::{BufRead, Write};

/// Longest multi-line input the parser re-reads to decide whether it is finished.
const CONFIRM_BYTES: usize = 4096;

/// Whether a line ends in something that cannot end a statement: an operator, a comma, `=`,
/// `->`, or a word like `and`, `else`, `in`, `to`. Linear in the line.
fn ends_unfinished(line: &str) -> bool {
    // Drop a trailing comment (a `#` outside quotes).
    let mut in_text = false;
    let mut end = line.len();
    for (i, c) in line.char_indices() {
        match c {
            '"' => in_text = !in_text,
            '#' if !in_text => {
                end = i;
                break;
            }
            _ => {}
        }
    }
    let t = line.get(..end).unwrap_or(line).trim_end();
    let Some(last) = t.chars().last() else {
        return false;
    };
    if "+-*/%=<>,.:([{|&!".contains(last) {
        return true;
    }
    let word_start = t
        .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
        .map_or(0, |i| i + 1);
    let word = t.get(word_start..).unwrap_or("");
    matches!(
        word,
        "and"
            | "or"
            | "not"
            | "in"
            | "to"
            | "from"
            | "where"
            | "of"
            | "if"
            | "else"
            | "let"
            | "set"
            | "move"
            | "draw"
            | "for"
            | "repeat"
            | "match"
            | "say"
            | "shuffle"
            | "flip"
            | "reveal"
            | "secretly"
            | "emit"
            | "eliminate"
            | "until"
            | "up"
            | "per"
    )
}

/// Whether the last line, with no comment or text in quotes on it, ends in an infix operator
/// or a comma, which no complete input does.
fn ends_in_operator(text: &str) -> bool {
    let last = text.trim_end().rsplit('\n').next().unwrap_or("");
    if last.contains('#') || last.contains('"') {
        return false;
    }
    let last = last.trim_end();
    let word = last
        .rsplit(|c: char| !(c.is_alphanumeric() || c == '_'))
        .next()
        .unwrap_or("");
    [
        "+", "-", "*", "/", "%", ",", "==", "!=", "<", ">", "<=", ">=", "=>", "=",
    ]
    .iter()
    .any(|op| last.ends_with(op))
        || matches!(word, "and" | "or" | "not")
}

/// Whether text typed so far is unfinished: the real parser ends with "unexpected end".
pub fn incomplete(text: &str) -> bool {
    if text.trim_start().starts_with(':') || text.len() > Limits::default().max_line_bytes {
        return false;
    }
    // An open bracket cannot be complete: say so without running the parser (linear).
    if crate::parser::open_brackets(text) > 0 {
        return true;
    }
    // A line ending in an infix operator asks for more: say so from the line alone, so a long
    // run of `1 +` lines is not parsed again at every line (quadratic).
    if ends_in_operator(text) {
        return true;
    }
    let parsed = crate::parser::parse_repl_line(text, 0, &Limits::default());
    parsed
        .diags
        .iter()
        .any(|d| d.code == "parse::unexpected_end")
}

/// Most lines one unfinished input may span at the REPL.
const MAX_PENDING_LINES: usize = 1000;

/// The plain line mode: each input run as it ends (an unclosed bracket, or a line ending in an
/// operator or a word that needs more, goes on to the next line).
pub(super) fn plain(repl: &mut Repl, out: &mut impl Write) -> std::io::Result<()> {
    let stdin = std::io::stdin();
    let mut buffer = String::new();
    let mut open = 0usize;
    let mut pending_lines = 0usize;
    let max_bytes = Limits::default().max_line_bytes;
    for line in stdin.lock().lines() {
        let line = line?;
        let prompt = if buffer.is_empty() {
            repl.prompt()
        } else {
            "... ".to_string()
        };
        writeln!(out, "{prompt}{line}")?;
        if !buffer.is_empty() {
            buffer.push('\n');
        }
        buffer.push_str(&line);
        pending_lines += 1;
        // Brackets are counted line by line, so an unclosed `[` does not make every later
        // line parse everything again. At depth 0 the input goes on only when the line ends
        // in something that needs more (an operator, `else`, `in`...); the parser confirms
        // that while the input is short, so a long input is never parsed once per line.
        open = crate::parser::open_brackets_from(open, &line);
        let capped = buffer.len() > max_bytes || pending_lines > MAX_PENDING_LINES;
        let more = open > 0
            || (ends_unfinished(&line) && (buffer.len() > CONFIRM_BYTES || incomplete(&buffer)));
        if !capped && more {
            continue;
        }
        open = 0;
        pending_lines = 0;
        let (keep, lines) = repl.handle(&buffer);
        buffer.clear();
        for l in lines {
            writeln!(out, "{l}")?;
        }
        if !keep {
            return Ok(());
        }
    }
    if !buffer.is_empty() {
        let (_, lines) = repl.handle(&buffer);
        for l in lines {
            writeln!(out, "{l}")?;
        }
    }
    Ok(())
}
