//! Replays what the fuzz targets in `fuzz/` run, on the stable toolchain: the seed corpus (every
//! `.rules` file in `games/`, `stdlib/` and `tests/`, the REPL scripts, the raw language-server
//! sessions of `tests/lsp/raw/`, the web requests of `tests/serve_requests/`) and every crash
//! case the fuzzers found, kept in `fuzz/regressions/<target>/`. Each must finish without a
//! panic.

#[path = "../fuzz/common.rs"]
mod common;

use std::path::{Path, PathBuf};

fn files_under(dir: &Path, ext: Option<&str>, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            files_under(&p, ext, out);
        } else if ext.is_none_or(|x| p.extension().is_some_and(|e| e == x)) {
            out.push(p);
        }
    }
}

/// Run `f` on every seed (`seeds`: folders and the extension of their files) and every kept
/// input of `target` (`fuzz/regressions/<target>/`), giving how many ran. A folder with no
/// file fails the test: a replay that finds nothing tests nothing.
fn replay(target: &str, seeds: &[(&str, Option<&str>)], f: fn(&[u8])) -> usize {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let kept = format!("fuzz/regressions/{target}");
    let mut files = Vec::new();
    for (dir, ext) in seeds.iter().copied().chain([(kept.as_str(), None)]) {
        let before = files.len();
        files_under(&root.join(dir), ext, &mut files);
        assert!(files.len() > before, "{target}: no input found in {dir}/");
    }
    files.sort();
    for p in &files {
        let data = std::fs::read(p).expect("read");
        f(&data);
    }
    files.len()
}

const RULES: &[(&str, Option<&str>)] = &[
    ("games", Some("rules")),
    ("stdlib", Some("rules")),
    ("tests", Some("rules")),
];

#[test]
fn check_file_corpus() {
    assert!(replay("check_file", RULES, common::check_file) > 50);
}

#[test]
fn run_game_corpus() {
    assert!(replay("run_game", RULES, common::run_game) > 50);
}

#[test]
fn load_save_corpus() {
    assert!(common::game_checks(), "the saves' game is missing");
    replay("load_save", &[], common::load_save);
    // At least one kept save loads (the others are refused): without the game, or with saves
    // the session no longer reads, the replay would test only the JSON reader.
    let mut files = Vec::new();
    files_under(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions/load_save"),
        None,
        &mut files,
    );
    let loaded = files
        .iter()
        .filter(|p| common::load_save_loaded(&std::fs::read(p).expect("read")))
        .count();
    assert!(loaded > 0, "no kept save loads");
}

#[test]
fn repl_lines_corpus() {
    assert!(common::game_checks(), "the REPL's game is missing");
    assert!(
        replay(
            "repl_lines",
            &[("tests/repl", Some("txt"))],
            common::repl_lines
        ) > 0
    );
}

#[test]
fn lsp_messages_corpus() {
    assert!(
        replay(
            "lsp_messages",
            &[("tests/lsp/raw", Some("txt"))],
            common::lsp_messages
        ) > 5
    );
}

#[test]
fn fmt_roundtrip_corpus() {
    assert!(replay("fmt_roundtrip", RULES, common::fmt_roundtrip) > 50);
}

#[test]
fn serve_requests_corpus() {
    assert!(
        replay(
            "serve_requests",
            &[("tests/serve_requests", Some("txt"))],
            common::serve_requests
        ) > 5
    );
    // The seeds reach the routes: pages, states, an event stream that sees a change, answers
    // refused and passed on, strangers refused.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/serve_requests");
    let mut files = Vec::new();
    files_under(&dir, Some("txt"), &mut files);
    let mut got = String::new();
    for f in files {
        for (_, answer) in common::serve_exchange(&std::fs::read(f).expect("read")) {
            got.push_str(&String::from_utf8_lossy(&answer));
            got.push('\n');
        }
    }
    for seen in [
        "HTTP/1.1 200",
        "HTTP/1.1 400",
        "HTTP/1.1 404",
        "HTTP/1.1 409",
        "HTTP/1.1 503",
        "text/event-stream",
        "data: {\"version\":1,",
        "secret-of-spectators",
        "is no longer asked",
    ] {
        assert!(got.contains(seen), "no answer holds {seen:?}:\n{got}");
    }
}
