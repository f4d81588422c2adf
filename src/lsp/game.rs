//! The open documents, the folders the server may read, the games it keeps checked, and
//! checking a game with the editor's buffers overlaid on the files on disk.
//!
//! The server reads files only inside the workspace folders the editor names at `initialize`
//! (or, when it names none, the folders of the documents it opens). A document outside them is
//! checked on its own text, and nothing beside it is read. Memory is bounded: at most
//! `Limits::max_lsp_games` games are kept (the least recently used dropped first, and a game as
//! soon as none of its files is open), and at most `Limits::max_lsp_open_bytes` of documents.

use super::index::{Def, Index};
use super::text::{self, Positions};
use crate::diag::{Diag, Severity, Sources, Span};
use crate::limits::Limits;
use lsp_types::{
    Diagnostic, DiagnosticRelatedInformation, DiagnosticSeverity, Location, NumberOrString,
    PublishDiagnosticsParams, Uri,
};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A game as last checked: its files and the index of its names.
pub(super) struct Analysis {
    pub sources: Sources,
    pub index: Index,
    /// The files of the game the editor knows, by file id (`None` for the standard library).
    pub paths: Vec<Option<PathBuf>>,
    /// Byte offsets to LSP positions, by file id.
    pub positions: Vec<Positions>,
}

impl Analysis {
    /// The range of a span in its file.
    pub fn range(&self, span: Span) -> Option<lsp_types::Range> {
        let f = self.sources.get(span.file)?;
        let p = self.positions.get(span.file as usize)?;
        Some(p.range(&f.text, span.start as usize, span.end as usize))
    }

    pub fn location(&self, span: Span) -> Option<Location> {
        let path = self.paths.get(span.file as usize)?.as_ref()?;
        Some(Location::new(text::uri_of(path)?, self.range(span)?))
    }
}

/// A document's path as the server sees it, and the workspace folder it lies in (`None`: it is
/// outside them all, and only its open text may be read).
pub(super) struct Place {
    pub path: PathBuf,
    pub root: Option<PathBuf>,
}

/// What a document counts against `max_lsp_open_bytes` beyond its text: its path and the
/// map's own entry, so a flood of empty documents is bounded too.
const DOC_OVERHEAD: usize = 256;

pub struct Workspace {
    pub(super) limits: Limits,
    /// The folders the server may read (canonical).
    roots: BTreeSet<PathBuf>,
    /// Whether the editor named the workspace folders; if not, the folder of each open
    /// document is one while it is open.
    named_roots: bool,
    /// Those folders, with how many open documents each holds.
    doc_roots: BTreeMap<PathBuf, usize>,
    /// Open documents by path: the editor's text wins over the disk; and the folder each
    /// counts for in `doc_roots`.
    pub(super) docs: BTreeMap<PathBuf, String>,
    doc_dirs: BTreeMap<PathBuf, PathBuf>,
    /// What the open documents count against `max_lsp_open_bytes`.
    doc_bytes: usize,
    /// The games kept checked, by the game's path, the most recently used last.
    games: Vec<(PathBuf, Analysis)>,
}

/// The game a file inside `root` belongs to: the `NAME.rules` beside a card-set folder `NAME/`,
/// the folder when it is one game of a size a game can have, else the file itself; never a path
/// outside `root`. Looks at a bounded number of entries (`games_in`, `max_folder_entries`).
fn game_of(path: &Path, root: &Path, limits: &Limits) -> PathBuf {
    let Some(dir) = path.parent().filter(|d| d.starts_with(root)) else {
        return path.to_path_buf();
    };
    let beside = dir.with_extension("rules");
    if beside.starts_with(root) && beside.is_file() {
        return beside;
    }
    let games = crate::games_in(dir);
    let one_game = matches!(games.as_slice(), [one] if one == dir);
    if !one_game {
        return path.to_path_buf();
    }
    // A folder too large to be a game (a home folder, `/`) is not read as one.
    let mut found = Vec::new();
    let mut entries = limits.max_folder_entries.saturating_add(1);
    let most = limits.max_imports.saturating_add(1);
    crate::loader::collect_rules_files(dir, &mut found, 0, most, &mut entries);
    if entries == 0 || found.len() >= most {
        return path.to_path_buf();
    }
    dir.to_path_buf()
}

fn canonical(p: &Path) -> PathBuf {
    p.canonicalize().unwrap_or_else(|_| p.to_path_buf())
}

fn doc_cost(path: &Path, text: &str) -> usize {
    text.len()
        .saturating_add(path.as_os_str().len())
        .saturating_add(DOC_OVERHEAD)
}

/// One diagnostic at the top of a document, for what the server refuses to keep of it.
fn refusal(path: &Path, code: &str, message: String) -> Vec<PublishDiagnosticsParams> {
    let Some(uri) = text::uri_of(path) else {
        return Vec::new();
    };
    let d = Diagnostic {
        severity: Some(DiagnosticSeverity::ERROR),
        code: Some(NumberOrString::String(code.to_string())),
        source: Some("rules".into()),
        message,
        ..Diagnostic::default()
    };
    vec![PublishDiagnosticsParams::new(uri, vec![d], None)]
}

impl Workspace {
    pub fn new(limits: Limits) -> Workspace {
        Workspace {
            limits,
            roots: BTreeSet::new(),
            named_roots: false,
            doc_roots: BTreeMap::new(),
            docs: BTreeMap::new(),
            doc_dirs: BTreeMap::new(),
            doc_bytes: 0,
            games: Vec::new(),
        }
    }

    /// The workspace folders the editor named (absolute paths); none leaves each opened
    /// document's folder to count as one.
    /// Drop every checked game (after a handler panicked: one may be half updated); the next
    /// request checks its game again.
    pub fn forget_games(&mut self) {
        self.games.clear();
    }

    pub fn set_roots(&mut self, roots: Vec<PathBuf>) {
        self.named_roots = !roots.is_empty();
        self.roots = roots
            .iter()
            .filter_map(|r| text::normalize(r))
            .map(|r| canonical(&r))
            .collect();
    }

    /// The workspace folder `path` lies in (the deepest one).
    fn root_of(&self, path: &Path) -> Option<PathBuf> {
        path.ancestors()
            .find(|a| self.roots.contains(*a) || self.doc_roots.contains_key(*a))
            .map(Path::to_path_buf)
    }

    /// Keep a document's text (`dir`: the folder it makes a root while it is open).
    fn keep_doc(&mut self, path: PathBuf, text: String, dir: Option<PathBuf>) {
        self.drop_doc(&path);
        self.doc_bytes = self.doc_bytes.saturating_add(doc_cost(&path, &text));
        if let Some(dir) = dir {
            let n = self.doc_roots.entry(dir.clone()).or_insert(0);
            *n = n.saturating_add(1);
            self.doc_dirs.insert(path.clone(), dir);
        }
        self.docs.insert(path, text);
    }

    fn drop_doc(&mut self, path: &Path) {
        if let Some(old) = self.docs.remove(path) {
            self.doc_bytes = self.doc_bytes.saturating_sub(doc_cost(path, &old));
        }
        if let Some(dir) = self.doc_dirs.remove(path) {
            if let Some(n) = self.doc_roots.get_mut(&dir) {
                *n = n.saturating_sub(1);
                if *n == 0 {
                    self.doc_roots.remove(&dir);
                }
            }
        }
    }

    /// Where a URI points. A path inside a workspace folder is followed through symbolic links,
    /// and stays inside only if where they lead is inside too; a path outside is never looked at.
    pub(super) fn place(&self, uri: &Uri) -> Option<Place> {
        let path = text::normalize(&text::path_of(uri)?)?;
        if self.root_of(&path).is_none() {
            return Some(Place { path, root: None });
        }
        let canon = canonical(&path);
        Some(match self.root_of(&canon) {
            Some(root) => Place {
                path: canon,
                root: Some(root),
            },
            None => Place { path, root: None },
        })
    }

    /// The game a place belongs to, as the server keeps it.
    fn game(&self, place: &Place) -> PathBuf {
        match &place.root {
            Some(root) => game_of(&place.path, root, &self.limits),
            None => place.path.clone(),
        }
    }

    pub fn open(&mut self, uri: Uri, text: String) -> Vec<PublishDiagnosticsParams> {
        let Some(lexical) = text::path_of(&uri).and_then(|p| text::normalize(&p)) else {
            return Vec::new();
        };
        // Without named folders, a document's own folder may be read while it is open.
        let dir = (!self.named_roots)
            .then(|| lexical.parent().map(canonical))
            .flatten();
        if let Some(d) = &dir {
            self.doc_roots.entry(d.clone()).or_insert(0);
        }
        let place = self.place(&uri);
        if let Some(d) = &dir {
            if self.doc_roots.get(d) == Some(&0) {
                self.doc_roots.remove(d);
            }
        }
        let Some(place) = place else {
            return Vec::new();
        };
        self.drop_doc(&place.path);
        let cost = doc_cost(&place.path, &text);
        let problem = if text.len() > self.limits.max_file_bytes {
            Some((
                "limit::file_size",
                format!(
                    "this file holds {} bytes; a `.rules` file may hold at most {}, so it is not checked",
                    text.len(),
                    self.limits.max_file_bytes
                ),
            ))
        } else if self.doc_bytes.saturating_add(cost) > self.limits.max_lsp_open_bytes {
            Some((
                "limit::lsp_open_bytes",
                format!(
                    "the open files hold more than {} bytes, so this one is not checked; close some",
                    self.limits.max_lsp_open_bytes
                ),
            ))
        } else {
            None
        };
        if let Some((code, message)) = problem {
            // What was checked with its old text is out of date.
            let path = place.path.as_path();
            self.games
                .retain(|(_, a)| !a.paths.iter().any(|p| p.as_deref() == Some(path)));
            return refusal(path, code, message);
        }
        self.keep_doc(place.path.clone(), text, dir);
        let game = self.game(&place);
        self.check(&place, &game)
    }

    pub fn recheck(&mut self, uri: &Uri) -> Vec<PublishDiagnosticsParams> {
        let Some(place) = self.place(uri) else {
            return Vec::new();
        };
        if place.root.is_none() && !self.docs.contains_key(&place.path) {
            return Vec::new();
        }
        let game = self.game(&place);
        self.check(&place, &game)
    }

    /// The file's text is the disk's again: its game is checked anew (a file outside the
    /// workspace has its diagnostics cleared), and the games none of whose files is still open
    /// are dropped.
    pub fn close(&mut self, uri: &Uri) -> Vec<PublishDiagnosticsParams> {
        let Some(place) = self.place(uri) else {
            return Vec::new();
        };
        self.drop_doc(&place.path);
        // The document's folder may have stopped being one the server reads.
        let place = self.place(uri).unwrap_or(place);
        let out = if place.root.is_some() {
            let game = self.game(&place);
            self.check(&place, &game)
        } else {
            text::uri_of(&place.path)
                .map(|u| vec![PublishDiagnosticsParams::new(u, Vec::new(), None)])
                .unwrap_or_default()
        };
        let docs = &self.docs;
        self.games
            .retain(|(_, a)| a.paths.iter().flatten().any(|p| docs.contains_key(p)));
        out
    }

    /// The analysis and file id of a document, checking its game first if needed.
    pub(super) fn at(&mut self, uri: &Uri) -> Option<(&Analysis, u32)> {
        let place = self.place(uri)?;
        if place.root.is_none() && !self.docs.contains_key(&place.path) {
            return None;
        }
        // A game kept with this file answers (the most recently used first); else the file's
        // game is found and checked.
        let has = |a: &Analysis| a.paths.iter().any(|p| p.as_deref() == Some(&place.path));
        let i = match self.games.iter().rposition(|(_, a)| has(a)) {
            Some(i) => i,
            None => {
                let game = self.game(&place);
                if !self.games.iter().any(|(g, _)| *g == game) {
                    self.check(&place, &game);
                }
                self.games.iter().position(|(g, _)| *g == game)?
            }
        };
        // The most recently used goes last.
        let entry = self.games.remove(i);
        self.games.push(entry);
        let (_, a) = self.games.last()?;
        let id = a
            .paths
            .iter()
            .position(|p| p.as_deref() == Some(place.path.as_path()))?;
        Some((a, u32::try_from(id).ok()?))
    }

    /// Check the game of a document and give every file of it its diagnostics (an empty list
    /// clears what an earlier check published).
    fn check(&mut self, place: &Place, game: &Path) -> Vec<PublishDiagnosticsParams> {
        let limits = self.limits;
        let checked = if place.root.is_some() {
            // Only the buffers the game may read are handed over.
            let folder = if game.is_dir() {
                game
            } else {
                game.parent().unwrap_or(game)
            };
            let overlay: Vec<(PathBuf, String)> = self
                .docs
                .range(folder.to_path_buf()..)
                .take_while(|(p, _)| p.starts_with(folder))
                .map(|(p, t)| (p.clone(), t.clone()))
                .collect();
            crate::check_path_overlay(game, overlay, &limits)
        } else {
            let Some(text) = self.docs.get(&place.path) else {
                return Vec::new();
            };
            let mut c = crate::check_text(&place.path.display().to_string(), text, &limits);
            c.diags.insert(
                0,
                Diag::warning(
                    "lsp::outside_workspace",
                    "this file is outside the workspace folders: it is checked alone, and no file beside it is read",
                )
                .help("open the game's folder as the workspace"),
            );
            c
        };
        let before = self.games.iter().find(|(g, _)| g == game).map(|(_, a)| a);
        let index = Index::build(&checked.sources, &limits, |name| {
            let Some(a) = before else { return Vec::new() };
            let Some(id) = a.sources.files.iter().position(|f| f.name == name) else {
                return Vec::new();
            };
            a.index
                .defs
                .iter()
                .filter(|d| d.at.file as usize == id)
                .cloned()
                .collect::<Vec<Def>>()
        });
        let paths: Vec<Option<PathBuf>> = checked
            .sources
            .files
            .iter()
            .map(|f| {
                if f.name.starts_with("std/") {
                    return None;
                }
                let p = Path::new(&f.name);
                if self.docs.contains_key(p) {
                    return Some(p.to_path_buf());
                }
                place.root.as_ref()?;
                let c = canonical(p);
                (self.root_of(&c).is_some() && (self.docs.contains_key(&c) || c.exists()))
                    .then_some(c)
            })
            .collect();
        let positions: Vec<Positions> = checked
            .sources
            .files
            .iter()
            .map(|f| Positions::new(&f.text))
            .collect();
        let analysis = Analysis {
            sources: checked.sources,
            index,
            paths,
            positions,
        };
        let mut by_file: BTreeMap<usize, Vec<Diagnostic>> = BTreeMap::new();
        for (i, p) in analysis.paths.iter().enumerate() {
            if p.is_some() {
                by_file.insert(i, Vec::new());
            }
        }
        for d in &checked.diags {
            let file = d.labels.first().map(|l| l.span.file as usize);
            let Some(file) = file.filter(|f| by_file.contains_key(f)) else {
                continue;
            };
            if let Some(list) = by_file.get_mut(&file) {
                list.push(diagnostic(d, &analysis));
            }
        }
        // A file that failed to load (its own syntax error before any label) still hears of it.
        let unlabelled: Vec<&Diag> = checked
            .diags
            .iter()
            .filter(|d| d.labels.is_empty())
            .collect();
        let mut out: Vec<PublishDiagnosticsParams> = by_file
            .into_iter()
            .filter_map(|(i, mut diags)| {
                let p = analysis.paths.get(i)?.as_ref()?;
                if *p == place.path {
                    for d in &unlabelled {
                        diags.push(diagnostic(d, &analysis));
                    }
                }
                Some(PublishDiagnosticsParams::new(text::uri_of(p)?, diags, None))
            })
            .collect();
        // An open document the game did not read (its folder could not be) hears why.
        let read = analysis
            .paths
            .iter()
            .any(|p| p.as_ref() == Some(&place.path));
        if !read && self.docs.contains_key(&place.path) {
            if let Some(uri) = text::uri_of(&place.path) {
                let diags = unlabelled
                    .iter()
                    .map(|d| diagnostic(d, &analysis))
                    .collect();
                out.push(PublishDiagnosticsParams::new(uri, diags, None));
            }
        }
        self.games.retain(|(g, _)| g != game);
        self.games.push((game.to_path_buf(), analysis));
        let over = self
            .games
            .len()
            .saturating_sub(self.limits.max_lsp_games.max(1));
        self.games.drain(..over);
        out
    }
}

/// A checker diagnostic as the editor shows it: at its first label, the other labels as
/// related locations, the help line after the message.
fn diagnostic(d: &Diag, a: &Analysis) -> Diagnostic {
    let range = d
        .labels
        .first()
        .and_then(|l| a.range(l.span))
        .unwrap_or_default();
    let related: Vec<DiagnosticRelatedInformation> = d
        .labels
        .iter()
        .skip(1)
        .filter_map(|l| {
            Some(DiagnosticRelatedInformation {
                location: a.location(l.span)?,
                message: l.text.clone(),
            })
        })
        .collect();
    let mut message = d.message.clone();
    if let Some(first) = d
        .labels
        .first()
        .filter(|l| !l.text.is_empty() && !d.message.contains(&l.text))
    {
        message.push_str(&format!(": {}", first.text));
    }
    if let Some(h) = &d.help {
        message.push_str(&format!("\nhelp: {h}"));
    }
    Diagnostic {
        range,
        severity: Some(match d.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
        }),
        code: Some(NumberOrString::String(d.code.to_string())),
        source: Some("rules".into()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        ..Diagnostic::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GAME: &str =
        "game \"G\" {\n  players: 2\n  rounds: 1\n  round: [play]\n}\nphase play { say \"x\" }\n";

    /// `n` games, each alone in its folder, under a fresh temporary folder.
    fn games(name: &str, n: usize) -> (PathBuf, Vec<Uri>) {
        let dir = std::env::temp_dir().join(format!("rules-lsp-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut uris = Vec::new();
        for i in 0..n {
            let sub = dir.join(format!("g{i}"));
            std::fs::create_dir_all(&sub).expect("mkdir");
            let file = sub.join("game.rules");
            std::fs::write(&file, GAME).expect("write");
            uris.push(text::uri_of(&canonical(&file)).expect("uri"));
        }
        (canonical(&dir), uris)
    }

    #[test]
    fn games_are_bounded_and_dropped_when_their_files_close() {
        let (dir, uris) = games("kept", 12);
        let limits = Limits {
            max_lsp_games: 3,
            ..Limits::default()
        };
        let mut ws = Workspace::new(limits);
        ws.set_roots(vec![dir.clone()]);
        for u in &uris {
            let published = ws.open(u.clone(), GAME.to_string());
            assert_eq!(published.len(), 1);
            assert!(ws.games.len() <= 3);
        }
        assert_eq!(ws.games.len(), 3);
        // The least recently used went first: the last three opened are kept.
        let kept: Vec<&PathBuf> = ws.games.iter().map(|(g, _)| g).collect();
        assert_eq!(
            kept,
            [dir.join("g9"), dir.join("g10"), dir.join("g11")]
                .iter()
                .collect::<Vec<_>>()
        );
        // Asking about an open file whose game was dropped checks it again.
        assert!(ws.at(&uris[0]).is_some());
        assert_eq!(ws.games.len(), 3);
        for u in &uris {
            ws.close(u);
        }
        assert_eq!(ws.games.len(), 0);
        assert_eq!(ws.docs.len(), 0);
        assert_eq!(ws.doc_bytes, 0);
        // A file never opened is answered from a game kept only in the bounded list.
        assert!(ws.at(&uris[5]).is_some());
        assert_eq!(ws.games.len(), 1);
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn open_documents_are_bounded() {
        let (dir, uris) = games("docs", 3);
        let limits = Limits {
            max_lsp_open_bytes: 2 * (GAME.len() + 400),
            max_file_bytes: 1000,
            ..Limits::default()
        };
        let mut ws = Workspace::new(limits);
        ws.set_roots(vec![dir.clone()]);
        let code = |p: &[PublishDiagnosticsParams]| {
            p.first()
                .and_then(|p| p.diagnostics.first())
                .and_then(|d| d.code.clone())
        };
        let big = "#".repeat(1001);
        let refused = ws.open(uris[0].clone(), big);
        assert_eq!(
            code(&refused),
            Some(NumberOrString::String("limit::file_size".into()))
        );
        assert!(ws.docs.is_empty());
        assert_eq!(code(&ws.open(uris[0].clone(), GAME.into())), None);
        assert_eq!(code(&ws.open(uris[1].clone(), GAME.into())), None);
        let refused = ws.open(uris[2].clone(), GAME.into());
        assert_eq!(
            code(&refused),
            Some(NumberOrString::String("limit::lsp_open_bytes".into()))
        );
        assert_eq!(ws.docs.len(), 2);
        ws.close(&uris[0]);
        assert_eq!(code(&ws.open(uris[2].clone(), GAME.into())), None);
        std::fs::remove_dir_all(&dir).ok();
    }
}
