//! `rules fmt PATH...`: which files to format, and formatting them in place or checking them.

use crate::diag::Sources;
use crate::limits::Limits;
use std::path::{Path, PathBuf};

/// Deepest folder nesting followed when looking for `.rules` files.
const MAX_FOLDER_DEPTH: usize = 32;

/// What one run did.
#[derive(Default)]
pub struct Report {
    /// Files that would change (`--check`) or were rewritten.
    pub changed: Vec<PathBuf>,
    /// Files refused: a syntax error, or one that could not be read or written, with its
    /// rendered message.
    pub refused: Vec<String>,
}

/// The `.rules` files under `path` (itself when it is not a folder), in name order. Symbolic
/// links are not followed. Every `.rules` entry that is not a folder is listed, a regular file
/// or not: `format_files` refuses the others, saying what they are.
pub fn rules_files(path: &Path, out: &mut Vec<PathBuf>) {
    walk(path, 0, true, out);
}

fn walk(path: &Path, depth: usize, named: bool, out: &mut Vec<PathBuf>) {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        if named {
            out.push(path.to_path_buf());
        }
        return;
    };
    if meta.is_dir() {
        if depth >= MAX_FOLDER_DEPTH {
            return;
        }
        let Ok(rd) = std::fs::read_dir(path) else {
            return;
        };
        let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
        entries.sort();
        for e in entries {
            walk(&e, depth + 1, false, out);
        }
    } else if named || path.extension().is_some_and(|e| e == "rules") {
        out.push(path.to_path_buf());
    }
}

/// Why `path` is not a file `rules fmt` reads (it never follows a symbolic link: rewriting one
/// would change the file it points to, wherever that is), or `None` for a regular file.
fn not_regular(path: &Path) -> Option<String> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) => return Some(e.to_string()),
    };
    let t = meta.file_type();
    if t.is_file() {
        return None;
    }
    let what = if t.is_symlink() {
        "a symbolic link (links are not followed)"
    } else if t.is_dir() {
        "a folder"
    } else {
        special_kind(&t)
    };
    Some(format!("it is {what}, not a regular file"))
}

#[cfg(unix)]
fn special_kind(t: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if t.is_fifo() {
        "a FIFO"
    } else if t.is_char_device() || t.is_block_device() {
        "a device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "a special file"
    }
}

#[cfg(not(unix))]
fn special_kind(_: &std::fs::FileType) -> &'static str {
    "a special file"
}

/// Format `files`: rewrite each one that changes, or with `check` only list it.
pub fn format_files(files: &[PathBuf], check: bool, limits: &Limits, color: bool) -> Report {
    let mut report = Report::default();
    for f in files {
        // A file's name is written as it may be shown (`refused` may go to a terminal as it is).
        let name = crate::term::escape(&f.display().to_string()).into_owned();
        if let Some(why) = not_regular(f) {
            report
                .refused
                .push(format!("error: cannot format {name}: {why}\n"));
            continue;
        }
        let text = match crate::files::read_text(f, limits.max_file_bytes) {
            Ok(t) => t,
            Err(e) => {
                report
                    .refused
                    .push(format!("error: cannot read {name}: {e}\n"));
                continue;
            }
        };
        match super::format_source(&name, &text, limits) {
            Ok(out) if out == text => {}
            Ok(out) => {
                if !check {
                    if let Err(e) = std::fs::write(f, out) {
                        report
                            .refused
                            .push(format!("error: cannot write {name}: {e}\n"));
                        continue;
                    }
                }
                report.changed.push(f.clone());
            }
            Err(d) => {
                let mut sources = Sources::default();
                sources.add(name, text);
                report.refused.push(d.render_with(&sources, color));
            }
        }
    }
    report
}
