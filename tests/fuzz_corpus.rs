//! Replays what the fuzz targets in `fuzz/` run, on the stable toolchain: the seed corpus (every
//! `.rules` file in `games/`, `stdlib/` and `tests/`, the REPL scripts, the raw language-server
//! sessions of `tests/lsp/raw/`) and every crash case the fuzzers found, kept in
//! `fuzz/regressions/<target>/`. Each must finish without a panic.

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

fn replay(target: &str, seeds: &[(&str, Option<&str>)], f: fn(&[u8])) -> usize {
    let mut files = Vec::new();
    for (dir, ext) in seeds {
        files_under(Path::new(dir), *ext, &mut files);
    }
    files_under(
        &Path::new("fuzz/regressions").join(target),
        None,
        &mut files,
    );
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
