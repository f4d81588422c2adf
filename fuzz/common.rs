//! What each fuzz target does with one input, shared by `fuzz/fuzz_targets/` and the in-tree
//! replay test `tests/fuzz_corpus.rs`. Every function must return without a panic, an abort
//! or a hang for any input; the limits are tight so one input runs in milliseconds.

#![allow(dead_code)]

use rules::limits::Limits;
use std::path::Path;

/// Tight limits: small budgets make every input fast, so the fuzzer explores more.
pub fn limits() -> Limits {
    Limits {
        max_steps: 20_000,
        max_list_len: 1_000,
        max_options: 1_000,
        max_file_bytes: 64 << 10,
        max_text_bytes: 64 << 10,
        max_slots: 10_000,
        max_log_bytes: 64 << 10,
        max_line_bytes: 4 << 10,
        ..Limits::default()
    }
}

/// Parse and check one file, and render every diagnostic.
pub fn check_file(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let c = rules::check_text("fuzz.rules", &text, &limits());
    let _ = c.render();
}

/// Check one file and, when it is a playable game, run it with random agents (the seed comes
/// from the input's length).
pub fn run_game(data: &[u8]) {
    let limits = limits();
    let text = String::from_utf8_lossy(data);
    let c = rules::check_text("fuzz.rules", &text, &limits);
    let _ = c.render();
    let Some(prog) = c.program else { return };
    if prog.game.max_players == 0 || prog.game.round_phases.is_empty() {
        return;
    }
    let n = rules::default_players(&prog);
    let Ok(agents) = rules::agent::make_agents("random", n, data.len() as u64) else {
        return;
    };
    if let Ok(mut i) = rules::interp::Interp::new(&prog, n, 1, agents, limits) {
        if let Err(d) = i.run() {
            let _ = d.render(&c.sources);
        }
    }
}

/// The game the save and REPL targets play, from the repository.
fn game_path() -> &'static Path {
    Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../games/the-establishment.rules"
    ))
}

thread_local! {
    /// The Establishment, checked once per process: checking it for every input would make
    /// the save and REPL targets spend nearly all their time in the checker.
    static GAME: (Option<rules::program::Program>, rules::diag::Sources) = {
        let c = rules::check_path(game_path(), &limits());
        (c.program, c.sources)
    };
}

fn game() -> Option<rules::program::Program> {
    GAME.with(|g| g.0.clone())
}

fn fresh_repl() -> Option<rules::repl::Repl> {
    let limits = limits();
    let path = game_path();
    let prog = game()?;
    let n = rules::default_players(&prog);
    let s = rules::session::Session::with_options(prog, n, 1, Vec::new(), limits).ok()?;
    Some(rules::repl::Repl::new(s, path.to_path_buf()))
}

/// Read the input as a save file of the Establishment and replay it; then step back and forth
/// through what it loaded (the redo material a save leaves past where its replay stopped
/// included), and save it again.
pub fn load_save(data: &[u8]) {
    let Ok(save) = serde_json::from_slice::<rules::session::SaveFile>(data) else {
        return;
    };
    let Some(prog) = game() else { return };
    match rules::session::Session::load(prog, &save, limits()) {
        Ok((mut s, _)) => {
            let _ = s.where_now();
            s.undo(2);
            let _ = s.where_now();
            s.redo();
            s.redo();
            let again = s.save(&save.game);
            let _ = serde_json::to_string(&again);
        }
        Err(d) => GAME.with(|g| {
            let _ = d.render(&g.1);
        }),
    }
}

/// Type the input's lines at a REPL on the Establishment (at most 64 lines; no `:save`,
/// which would write files, and no `:load`, which `load_save` covers).
pub fn repl_lines(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let Some(mut repl) = fresh_repl() else { return };
    for line in text.lines().take(64) {
        let t = line.trim_start();
        if t.starts_with(":save") || t.starts_with(":load") || t.starts_with(":reload") {
            continue;
        }
        let (keep, _) = repl.handle(line);
        if !keep {
            break;
        }
    }
}
