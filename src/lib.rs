//! `rules`: a declarative card-and-rules language with a checker and an interpreter.
//! See `src/README.md` for a map of the modules and `grammar/README.md` for the language.

// pest is built without its `std` feature (see Cargo.toml); its derived parser names `alloc`.
extern crate alloc;

pub mod agent;
pub mod allocator;
pub mod ast;
pub mod builtins;
pub mod cards;
pub mod check;
pub mod diag;
pub mod events;
pub mod explain;
pub mod files;
pub mod fmt;
pub mod interp;
pub mod limits;
pub mod loader;
pub mod lsp;
pub mod options;
pub mod parser;
pub mod print;
pub mod program;
pub mod repl;
pub mod rng;
pub mod scale;
pub mod seed;
pub mod serve;
pub mod session;
pub mod simulate;
pub mod term;
pub mod value;
pub mod view;

use diag::{Diag, Sources};
use limits::Limits;
use program::Program;
use std::path::Path;

/// The result of loading and checking a game.
pub struct Checked {
    pub program: Option<Program>,
    pub diags: Vec<Diag>,
    pub sources: Sources,
}

impl Checked {
    pub fn errors(&self) -> usize {
        self.diags.iter().filter(|d| d.is_error()).count()
    }
    /// Every diagnostic rendered without colour, in order.
    pub fn render(&self) -> String {
        self.diags.iter().map(|d| d.render(&self.sources)).collect()
    }
}

/// Load a game from a file or folder and check it.
pub fn check_path(path: &Path, limits: &Limits) -> Checked {
    finish(loader::load(path, limits), limits)
}

/// Check loaded files, then run the game's own `check` / `warn` rules.
fn finish(loaded: loader::Loaded, limits: &Limits) -> Checked {
    let allows = check::allow::collect(&loaded.files);
    let (program, diags, sources) = check::check(loaded);
    let looked = check::allow::Looked {
        checker: !check::unparsed(&diags),
        card_rules: program.is_some(),
    };
    let mut c = with_rules(
        Checked {
            program,
            diags,
            sources,
        },
        limits,
    );
    check::allow::apply(&mut c.diags, &allows, looked);
    // The game's own rules add diagnostics: the cap holds for all of them together.
    check::cap_diags(&mut c.diags, limits.max_diags);
    c
}

/// Work out the cards' `describe` lines and run the game's own `check` / `warn` rules once the
/// program checks clean.
fn with_rules(mut c: Checked, limits: &Limits) -> Checked {
    if let Some(prog) = &mut c.program {
        let (lines, mut found) = interp::card_lines(prog, *limits);
        prog.card_lines = lines;
        if found.is_empty() {
            found = interp::run_checks(prog, *limits);
        }
        if found.iter().any(|d| d.is_error()) {
            c.program = None;
        }
        c.diags.extend(found);
    }
    c
}

/// Load and check a game where some files are read from memory (an editor's unsaved buffers,
/// by canonical path).
pub fn check_path_overlay(
    path: &Path,
    overlay: Vec<(std::path::PathBuf, String)>,
    limits: &Limits,
) -> Checked {
    finish(loader::load_with_overlay(path, overlay, limits), limits)
}

/// Load a game plus extra in-memory files (scenarios) and check them together.
pub fn check_path_with(path: &Path, extra: &[(String, String)], limits: &Limits) -> Checked {
    finish(loader::load_with_extra(path, extra, limits), limits)
}

/// Check a game held in memory (tests).
pub fn check_text(name: &str, text: &str, limits: &Limits) -> Checked {
    finish(loader::load_text(name, text, limits), limits)
}

/// The games in a folder of games: each `.rules` file with a `game` block, and each subfolder
/// holding one (unless it is the card-set folder of a sibling `NAME.rules`). A folder that is
/// itself one game (or holds fewer than two) gives back just itself.
pub fn games_in(dir: &Path) -> Vec<std::path::PathBuf> {
    // Symbolic links are not followed, only regular files are read (with the file-size cap),
    // and at most `max_imports` entries are looked at in all: the walk is linear in that.
    let limits = Limits::default();
    let mut budget = limits.max_imports.saturating_mul(4);
    fn declares_game(path: &Path, depth: usize, limits: &Limits, budget: &mut usize) -> bool {
        if *budget == 0 {
            return false;
        }
        *budget -= 1;
        let Ok(meta) = std::fs::symlink_metadata(path) else {
            return false;
        };
        if meta.is_dir() {
            return depth < 4
                && std::fs::read_dir(path)
                    .map(|rd| {
                        rd.flatten()
                            .take(limits.max_imports)
                            .any(|e| declares_game(&e.path(), depth + 1, limits, budget))
                    })
                    .unwrap_or(false);
        }
        meta.is_file()
            && path.extension().is_some_and(|x| x == "rules")
            && files::read_text(path, limits.max_file_bytes)
                .map(|t| t.lines().any(|l| l.trim_start().starts_with("game \"")))
                .unwrap_or(false)
    }
    let mut found = Vec::new();
    if let Ok(rd) = std::fs::read_dir(dir) {
        let mut entries: Vec<_> = rd
            .flatten()
            .take(limits.max_imports)
            .map(|e| e.path())
            .collect();
        entries.sort();
        for p in entries {
            let sibling = p.is_dir() && p.with_extension("rules").exists();
            if !sibling && declares_game(&p, 0, &limits, &mut budget) {
                found.push(p);
            }
        }
    }
    if found.len() < 2 {
        vec![dir.to_path_buf()]
    } else {
        found
    }
}

/// The number of players used when none is given: the game's `default_players`, else 4 if the
/// game allows it, else its minimum.
pub fn default_players(p: &Program) -> u32 {
    if let Some(d) = p.game.default_players {
        return d;
    }
    if p.game.min_players <= 4 && 4 <= p.game.max_players {
        4
    } else {
        p.game.min_players.max(1)
    }
}
