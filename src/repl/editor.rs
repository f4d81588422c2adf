//! The terminal's line editor (rustyline): Tab completion, multi-line input (the validator asks
//! the real parser whether input ended early) and the history kept between sessions.

use super::{incomplete, Repl};
use rustyline::completion::Completer;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::validate::{ValidationContext, ValidationResult, Validator};
use rustyline::{Context, Helper};
use std::io::Write;
use std::path::{Path, PathBuf};

struct RulesHelper {
    words: Vec<String>,
    /// What `:show` takes: zones, players, vars and cards.
    show_words: Vec<String>,
    players: u32,
}

impl Completer for RulesHelper {
    type Candidate = String;
    fn complete(
        &self,
        line: &str,
        pos: usize,
        _: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<String>)> {
        let upto = line.get(..pos).unwrap_or(line);
        Ok(super::complete(
            upto,
            &self.words,
            &self.show_words,
            self.players,
        ))
    }
}

impl Hinter for RulesHelper {
    type Hint = String;
}

impl Highlighter for RulesHelper {}

impl Validator for RulesHelper {
    fn validate(&self, ctx: &mut ValidationContext) -> rustyline::Result<ValidationResult> {
        if incomplete(ctx.input()) {
            Ok(ValidationResult::Incomplete)
        } else {
            Ok(ValidationResult::Valid(None))
        }
    }
}

impl Helper for RulesHelper {}

fn history_path() -> Option<PathBuf> {
    std::env::var_os("RULES_HISTORY")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".rules_history")))
}

/// Read lines with the editor until `:quit`, end of input or an input error.
pub(super) fn interactive(repl: &mut Repl, out: &mut impl Write) -> std::io::Result<()> {
    let config = rustyline::Config::builder()
        .auto_add_history(true)
        .max_history_size(1000)
        .map_err(std::io::Error::other)?
        .build();
    let mut editor: rustyline::Editor<RulesHelper, rustyline::history::DefaultHistory> =
        rustyline::Editor::with_config(config).map_err(std::io::Error::other)?;
    editor.set_helper(Some(RulesHelper {
        words: repl.words(),
        show_words: repl.show_words(),
        players: repl.session.players,
    }));
    let history = history_path();
    if let Some(h) = &history {
        let _ = editor.load_history(h);
    }
    loop {
        match editor.readline(&repl.prompt()) {
            Ok(line) => {
                let (keep, lines) = repl.handle(&line);
                for l in lines {
                    writeln!(out, "{l}")?;
                }
                // New rules or a loaded game may bring new names to complete.
                let t = line.trim_start();
                if t.starts_with(":reload") || t.starts_with(":load") {
                    editor.set_helper(Some(RulesHelper {
                        words: repl.words(),
                        show_words: repl.show_words(),
                        players: repl.session.players,
                    }));
                }
                if !keep {
                    break;
                }
                if let Some(h) = editor.helper_mut() {
                    h.words = repl.words();
                }
            }
            Err(rustyline::error::ReadlineError::Interrupted) => {
                writeln!(out, "(Ctrl-C: type :quit to leave)")?;
            }
            Err(rustyline::error::ReadlineError::Eof) => break,
            Err(e) => {
                writeln!(out, "input error: {e}")?;
                break;
            }
        }
    }
    if let Some(h) = &history {
        let _ = editor.save_history(h);
    }
    Ok(())
}
