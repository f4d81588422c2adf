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

/// The `.rules` files under `path` (itself when it is a file), in name order. Symbolic links
/// are not followed; only regular files are listed.
pub fn rules_files(path: &Path, out: &mut Vec<PathBuf>) {
    walk(path, 0, true, out);
}

fn walk(path: &Path, depth: usize, named: bool, out: &mut Vec<PathBuf>) {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return;
    };
    if meta.is_file() {
        if named || path.extension().is_some_and(|e| e == "rules") {
            out.push(path.to_path_buf());
        }
    } else if meta.is_dir() && depth < MAX_FOLDER_DEPTH {
        let Ok(rd) = std::fs::read_dir(path) else {
            return;
        };
        let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
        entries.sort();
        for e in entries {
            walk(&e, depth + 1, false, out);
        }
    }
}

/// Format `files`: rewrite each one that changes, or with `check` only list it.
pub fn format_files(files: &[PathBuf], check: bool, limits: &Limits, color: bool) -> Report {
    let mut report = Report::default();
    for f in files {
        let name = f.display().to_string();
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
