//! Reading a game's files: the entry file or folder, its imports and the standard library.
//! Imports read only `.rules` files under the game's folder and `stdlib/`.

use crate::ast;
use crate::diag::{Diag, Sources, Span};
use crate::limits::Limits;
use crate::parser;
use std::path::{Component, Path, PathBuf};

/// The standard library, compiled into the binary so `rules` works from any folder.
pub const STDLIB: &[(&str, &str)] = &[
    ("turns.rules", include_str!("../stdlib/turns.rules")),
    ("dice.rules", include_str!("../stdlib/dice.rules")),
    (
        "playing_cards.rules",
        include_str!("../stdlib/playing_cards.rules"),
    ),
    ("scoring.rules", include_str!("../stdlib/scoring.rules")),
    ("responses.rules", include_str!("../stdlib/responses.rules")),
    ("words.rules", include_str!("../stdlib/words.rules")),
];

pub struct Loaded {
    pub sources: Sources,
    /// Parsed files, imports before the files that import them.
    pub files: Vec<(u32, ast::File)>,
    pub diags: Vec<Diag>,
    /// The limits the game was loaded with; the checker applies them too.
    pub limits: Limits,
    /// The game's folder, when it was read from disk, and the files read (`std/NAME` and
    /// canonical paths): the checker looks for names in the files the game did not import.
    pub root: Option<PathBuf>,
    pub read: Vec<String>,
}

enum Origin {
    Disk(PathBuf),
    Std(String),
}

struct Loader<'a> {
    limits: &'a Limits,
    root: PathBuf,
    sources: Sources,
    files: Vec<(u32, ast::File)>,
    diags: Vec<Diag>,
    seen: std::collections::HashSet<String>,
    count: usize,
    /// Texts that replace files on disk (an editor's unsaved buffers), by canonical path.
    overlay: Vec<(PathBuf, String)>,
}

/// Load a game from a `.rules` file or a folder of them.
pub fn load(path: &Path, limits: &Limits) -> Loaded {
    load_with_overlay(path, Vec::new(), limits)
}

/// Load a game where some files are read from memory instead of disk (an editor's buffers,
/// by canonical path; the files must still lie inside the game's folder).
pub fn load_with_overlay(path: &Path, overlay: Vec<(PathBuf, String)>, limits: &Limits) -> Loaded {
    let mut l = Loader {
        limits,
        root: PathBuf::new(),
        sources: Sources::default(),
        files: Vec::new(),
        diags: Vec::new(),
        seen: std::collections::HashSet::new(),
        count: 0,
        overlay,
    };
    if path.is_dir() {
        l.root = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        let mut found = Vec::new();
        // One more than the limit is enough to say the folder is too large.
        let mut entries = limits.max_folder_entries.saturating_add(1);
        collect_rules_files(path, &mut found, 0, limits.max_imports + 1, &mut entries);
        found.sort();
        if entries == 0 {
            l.diags.push(
                Diag::error(
                    "limit::folder_entries",
                    format!(
                        "`{}` holds more than {} files and folders",
                        path.display(),
                        limits.max_folder_entries
                    ),
                )
                .help("a game's folder holds its `.rules` files; check the game's own folder"),
            );
            found.clear();
        } else if found.len() > limits.max_imports {
            l.diags.push(
                Diag::error(
                    "limit::imports",
                    format!(
                        "`{}` holds more than {} `.rules` files",
                        path.display(),
                        limits.max_imports
                    ),
                )
                .help("a game may read at most this many files; check a smaller folder"),
            );
            found.clear();
        } else if found.is_empty() {
            l.diags.push(Diag::error(
                "load::empty_folder",
                format!("`{}` holds no `.rules` files", path.display()),
            ));
        }
        for f in found {
            l.load_origin(Origin::Disk(f), None);
        }
    } else {
        let parent = path.parent().unwrap_or(Path::new("."));
        let parent = if parent.as_os_str().is_empty() {
            Path::new(".")
        } else {
            parent
        };
        l.root = parent
            .canonicalize()
            .unwrap_or_else(|_| parent.to_path_buf());
        if path.extension().and_then(|e| e.to_str()) != Some("rules") {
            l.diags.push(Diag::error(
                "load::not_rules",
                format!("`{}` is not a `.rules` file", path.display()),
            ));
        } else {
            l.load_origin(Origin::Disk(path.to_path_buf()), None);
        }
    }
    l.finish()
}

/// Load a game and then extra files held in memory (test scenarios), which see all its names.
pub fn load_with_extra(path: &Path, extra: &[(String, String)], limits: &Limits) -> Loaded {
    let mut loaded = load(path, limits);
    let mut l = Loader {
        limits,
        root: PathBuf::from("/nonexistent-root-for-text"),
        sources: std::mem::take(&mut loaded.sources),
        files: std::mem::take(&mut loaded.files),
        diags: std::mem::take(&mut loaded.diags),
        seen: std::collections::HashSet::new(),
        count: 0,
        overlay: Vec::new(),
    };
    for (name, text) in extra {
        l.load_source(name.clone(), text.clone(), None);
    }
    l.finish()
}

/// Load a game from text held in memory (tests, the REPL); imports may name only the stdlib.
pub fn load_text(name: &str, text: &str, limits: &Limits) -> Loaded {
    let mut l = Loader {
        limits,
        root: PathBuf::from("/nonexistent-root-for-text"),
        sources: Sources::default(),
        files: Vec::new(),
        diags: Vec::new(),
        seen: std::collections::HashSet::new(),
        count: 0,
        overlay: Vec::new(),
    };
    l.load_source(name.to_string(), text.to_string(), None);
    l.finish()
}

/// The `.rules` files under `dir` (symbolic links are never followed), stopping at `max` files
/// or when `entries` (the directory entries still to look at) runs out: it is 0 afterwards
/// when the walk was cut short. Linear in the entries looked at.
pub(crate) fn collect_rules_files(
    dir: &Path,
    out: &mut Vec<PathBuf>,
    depth: usize,
    max: usize,
    entries: &mut usize,
) {
    if depth > 8 || out.len() >= max || *entries == 0 {
        return;
    }
    let Ok(list) = std::fs::read_dir(dir) else {
        return;
    };
    for e in list.flatten() {
        if out.len() >= max || *entries == 0 {
            return;
        }
        *entries -= 1;
        let p = e.path();
        let Ok(ft) = e.file_type() else { continue };
        if ft.is_symlink() {
            continue;
        }
        if ft.is_dir() {
            collect_rules_files(&p, out, depth + 1, max, entries);
        } else if ft.is_file() && p.extension().and_then(|x| x.to_str()) == Some("rules") {
            out.push(p);
        }
    }
}

impl Loader<'_> {
    fn finish(self) -> Loaded {
        let disk = self.root.is_dir() && self.root.is_absolute();
        let mut read: Vec<String> = self.seen.into_iter().collect();
        read.sort();
        Loaded {
            sources: self.sources,
            files: self.files,
            diags: self.diags,
            limits: *self.limits,
            root: disk.then_some(self.root),
            read,
        }
    }

    fn load_origin(&mut self, origin: Origin, from: Option<Span>) {
        let (key, name, text) = match origin {
            Origin::Std(name) => {
                let key = format!("std/{name}");
                match STDLIB.iter().find(|(n, _)| *n == name) {
                    Some((_, t)) => (key.clone(), key, t.to_string()),
                    None => {
                        let mut d = Diag::error(
                            "import::unknown_std",
                            format!("the standard library has no `{key}`"),
                        )
                        .maybe_help(crate::diag::did_you_mean(
                            &name,
                            STDLIB.iter().map(|(n, _)| *n),
                        ));
                        if let Some(s) = from {
                            d = d.label(s, "imported here");
                        }
                        self.diags.push(d);
                        return;
                    }
                }
            }
            Origin::Disk(path) => {
                let canon = path.canonicalize().unwrap_or_else(|_| path.clone());
                let key = canon.display().to_string();
                if self.seen.contains(&key) {
                    return;
                }
                // A file reached through a symbolic link must still lie inside the game.
                if !canon.starts_with(&self.root) {
                    let mut d = Diag::error(
                        "import::escape",
                        format!("`{}` points outside the game's folder", path.display()),
                    )
                    .help("a game reads only `.rules` files under its folder and `std/`");
                    if let Some(s) = from {
                        d = d.label(s, "imported here");
                    }
                    self.diags.push(d);
                    return;
                }
                let buffer = self
                    .overlay
                    .iter()
                    .find(|(p, _)| *p == canon)
                    .map(|(_, t)| t.clone());
                let read = match buffer {
                    Some(t) if t.len() <= self.limits.max_file_bytes => Ok(t),
                    Some(_) => Err(crate::files::ReadError::TooLarge(
                        self.limits.max_file_bytes,
                    )),
                    None => crate::files::read_text(&path, self.limits.max_file_bytes),
                };
                match read {
                    Ok(t) => (key, display_path(&path), t),
                    Err(e) => {
                        let (code, help) = match e {
                            crate::files::ReadError::TooLarge(_) => (
                                "limit::file_size",
                                "split the card sets into several files and import them",
                            ),
                            crate::files::ReadError::NotText => {
                                ("load::utf8", "a `.rules` file is UTF-8 text")
                            }
                            crate::files::ReadError::NotAFile => (
                                "load::not_a_file",
                                "a game reads only regular files (no FIFOs or devices)",
                            ),
                            crate::files::ReadError::Io(_) => {
                                ("load::read", "check that the file exists and is readable")
                            }
                        };
                        let mut d =
                            Diag::error(code, format!("cannot read `{}`: {e}", path.display()))
                                .help(help);
                        if let Some(s) = from {
                            d = d.label(s, "imported here");
                        }
                        self.diags.push(d);
                        return;
                    }
                }
            }
        };
        if !self.seen.insert(key) {
            return;
        }
        self.load_source(name, text, from);
    }

    fn load_source(&mut self, name: String, text: String, from: Option<Span>) {
        self.count += 1;
        if self.count > self.limits.max_imports {
            let mut d = Diag::error(
                "limit::imports",
                format!("a game may read at most {} files", self.limits.max_imports),
            );
            if let Some(s) = from {
                d = d.label(s, "one import too many");
            }
            self.diags.push(d);
            return;
        }
        let dir = PathBuf::from(&name)
            .parent()
            .map(|p| p.to_path_buf())
            .unwrap_or_default();
        let is_std = name.starts_with("std/");
        let file_id = self.sources.add(name, text.clone());
        let parsed = parser::parse_file(&text, file_id, self.limits);
        self.diags.extend(parsed.diags);
        let Some(file) = parsed.value else { return };
        for item in &file.items {
            if let ast::Item::Import(path) = item {
                self.import(&path.node, path.span, &dir, is_std);
            }
        }
        self.files.push((file_id, file));
    }

    fn import(&mut self, path: &str, span: Span, dir: &Path, from_std: bool) {
        if let Some(std_name) = path.strip_prefix("std/") {
            if std_name.contains('/') || !std_name.ends_with(".rules") {
                self.diags.push(
                    Diag::error(
                        "import::path",
                        format!("`{path}` is not a standard library file"),
                    )
                    .label(span, "here"),
                );
                return;
            }
            self.load_origin(Origin::Std(std_name.to_string()), Some(span));
            return;
        }
        if from_std {
            self.diags.push(
                Diag::error(
                    "import::path",
                    "the standard library imports only `std/` files",
                )
                .label(span, "here"),
            );
            return;
        }
        let p = Path::new(path);
        let escapes = p.is_absolute()
            || p.components().any(|c| {
                matches!(
                    c,
                    Component::ParentDir | Component::RootDir | Component::Prefix(_)
                )
            });
        if escapes {
            self.diags.push(
                Diag::error(
                    "import::escape",
                    format!("`{path}` points outside the game's folder"),
                )
                .label(span, "this import leaves the game's folder")
                .help("imports may read only `.rules` files under the game's folder and `std/`"),
            );
            return;
        }
        if p.extension().and_then(|e| e.to_str()) != Some("rules") {
            self.diags.push(
                Diag::error(
                    "import::not_rules",
                    format!("`{path}` is not a `.rules` file"),
                )
                .label(span, "only `.rules` files can be imported"),
            );
            return;
        }
        let full = dir.join(p);
        // The target must resolve (after symbolic links) inside the game's folder.
        match full.canonicalize() {
            Ok(canon) if canon.starts_with(&self.root) => {
                self.load_origin(Origin::Disk(full), Some(span));
            }
            Ok(_) => self.diags.push(
                Diag::error(
                    "import::escape",
                    format!("`{path}` points outside the game's folder"),
                )
                .label(span, "this import leaves the game's folder")
                .help("imports may read only `.rules` files under the game's folder and `std/`"),
            ),
            Err(_) => {
                self.diags.push(
                    Diag::error("import::missing", format!("no file `{path}`"))
                        .label(span, format!("looked for `{}`", full.display())),
                );
            }
        }
    }
}

fn display_path(p: &Path) -> String {
    let s = p.display().to_string();
    s.strip_prefix("./").map(str::to_string).unwrap_or(s)
}

/// The span of an import of `std/...` or a file; helper for tests.
pub fn is_stdlib_name(name: &str) -> bool {
    name.starts_with("std/")
}
