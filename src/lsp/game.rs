//! The open documents, the game each belongs to, and the answers the server gives from the
//! game's last check.

use super::index::{Def, DefKind, Index, Use};
use super::text;
use crate::diag::{Diag, Severity, Sources, Span};
use crate::limits::Limits;
use lsp_types::{
    CompletionItem, CompletionItemKind, CompletionParams, Diagnostic, DiagnosticRelatedInformation,
    DiagnosticSeverity, DocumentSymbol, DocumentSymbolParams, GotoDefinitionParams, Hover,
    HoverContents, HoverParams, Location, MarkupContent, MarkupKind, NumberOrString,
    PublishDiagnosticsParams, ReferenceParams, SymbolKind, Uri,
};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A game as last checked: its files and the index of its names.
struct Analysis {
    sources: Sources,
    index: Index,
    /// The files of the game on disk, by file id (`None` for the standard library).
    paths: Vec<Option<PathBuf>>,
}

#[derive(Default)]
pub struct Workspace {
    /// Open documents by path: the editor's text wins over the disk.
    docs: BTreeMap<PathBuf, String>,
    games: BTreeMap<PathBuf, Analysis>,
}

/// The game a file belongs to: the `NAME.rules` beside a card-set folder `NAME/`, the folder
/// when it is one game, else the file itself.
pub fn game_of(path: &Path) -> PathBuf {
    let Some(dir) = path.parent() else {
        return path.to_path_buf();
    };
    let beside = dir.with_extension("rules");
    if beside.is_file() {
        return beside;
    }
    let games = crate::games_in(dir);
    match games.as_slice() {
        [one] if one == dir => dir.to_path_buf(),
        _ => path.to_path_buf(),
    }
}

fn canonical(p: &Path) -> PathBuf {
    p.canonicalize().unwrap_or_else(|_| p.to_path_buf())
}

impl Workspace {
    pub fn open(&mut self, uri: Uri, text: String) -> Vec<PublishDiagnosticsParams> {
        let Some(path) = text::path_of(&uri) else {
            return Vec::new();
        };
        let path = canonical(&path);
        self.docs.insert(path.clone(), text);
        self.check(&path)
    }

    pub fn recheck(&mut self, uri: &Uri) -> Vec<PublishDiagnosticsParams> {
        match text::path_of(uri) {
            Some(p) => self.check(&canonical(&p)),
            None => Vec::new(),
        }
    }

    pub fn close(&mut self, uri: &Uri) -> Vec<PublishDiagnosticsParams> {
        let Some(path) = text::path_of(uri).map(|p| canonical(&p)) else {
            return Vec::new();
        };
        self.docs.remove(&path);
        self.check(&path)
    }

    /// Check the game of `path` and give every file of it its diagnostics (an empty list
    /// clears what an earlier check published).
    fn check(&mut self, path: &Path) -> Vec<PublishDiagnosticsParams> {
        let game = game_of(path);
        let overlay: Vec<(PathBuf, String)> = self
            .docs
            .iter()
            .map(|(p, t)| (p.clone(), t.clone()))
            .collect();
        let limits = Limits::default();
        let checked = crate::check_path_overlay(&game, overlay, &limits);
        let before = self.games.get(&game);
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
                .collect()
        });
        let paths: Vec<Option<PathBuf>> = checked
            .sources
            .files
            .iter()
            .map(|f| {
                let p = Path::new(&f.name);
                (!f.name.starts_with("std/") && p.exists()).then(|| canonical(p))
            })
            .collect();
        let mut by_file: BTreeMap<usize, Vec<Diagnostic>> = BTreeMap::new();
        for (i, p) in paths.iter().enumerate() {
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
                list.push(diagnostic(d, &checked.sources, &paths));
            }
        }
        // A file that failed to load (its own syntax error before any label) still hears of it.
        let unlabelled: Vec<&Diag> = checked
            .diags
            .iter()
            .filter(|d| d.labels.is_empty())
            .collect();
        let out = by_file
            .into_iter()
            .filter_map(|(i, mut diags)| {
                let p = paths.get(i)?.as_ref()?;
                if p == path {
                    for d in &unlabelled {
                        diags.push(diagnostic(d, &checked.sources, &paths));
                    }
                }
                Some(PublishDiagnosticsParams::new(text::uri_of(p)?, diags, None))
            })
            .collect();
        self.games.insert(
            game,
            Analysis {
                sources: checked.sources,
                index,
                paths,
            },
        );
        out
    }

    /// The analysis and file id of a document, checking its game first if needed.
    fn at(&mut self, uri: &Uri) -> Option<(&Analysis, u32)> {
        let path = canonical(&text::path_of(uri)?);
        let game = game_of(&path);
        if !self.games.contains_key(&game) {
            self.check(&path);
        }
        let a = self.games.get(&game)?;
        let id = a
            .paths
            .iter()
            .position(|p| p.as_deref() == Some(path.as_path()))?;
        Some((a, u32::try_from(id).ok()?))
    }

    fn location(a: &Analysis, span: Span) -> Option<Location> {
        let path = a.paths.get(span.file as usize)?.as_ref()?;
        let f = a.sources.get(span.file)?;
        Some(Location::new(
            text::uri_of(path)?,
            text::range(&f.text, span.start as usize, span.end as usize),
        ))
    }

    /// The word under the cursor and the declarations it may name.
    fn lookup(
        &mut self,
        uri: &Uri,
        pos: lsp_types::Position,
    ) -> Option<(&Analysis, String, Use, Vec<Def>)> {
        let (a, file) = self.at(uri)?;
        let f = a.sources.get(file)?;
        let at = text::offset(&f.text, pos);
        let w = a.index.word_at(file, at)?;
        let name = a.sources.text_of(w.span).to_string();
        let mut how = w.how;
        let mut defs: Vec<Def> = a.index.defs_of(&name, how).cloned().collect();
        // A card's id or a field's name where it is declared is written plainly.
        for other in [Use::Card, Use::Field] {
            if defs.is_empty() {
                defs = a.index.defs_of(&name, other).cloned().collect();
                how = other;
            }
        }
        Some((a, name, how, defs))
    }

    pub fn hover(&mut self, p: HoverParams) -> Option<Hover> {
        let pos = p.text_document_position_params;
        let (a, _, _, defs) = self.lookup(&pos.text_document.uri, pos.position)?;
        let d = defs.first()?;
        let shown = declaration_text(&a.sources, d);
        let owner = match (&d.owner, d.kind) {
            (Some(o), DefKind::Field) => format!(" of kind `{o}`"),
            (Some(o), DefKind::Variant) => format!(" of enum `{o}`"),
            (Some(o), DefKind::Card) => format!(" of kind `{o}`"),
            _ => String::new(),
        };
        let more = if defs.len() > 1 {
            format!(" (and {} more with this name)", defs.len() - 1)
        } else {
            String::new()
        };
        let code = if shown.trim().is_empty() {
            String::new()
        } else {
            format!("\n\n```rules\n{shown}\n```")
        };
        Some(Hover {
            contents: HoverContents::Markup(MarkupContent {
                kind: MarkupKind::Markdown,
                value: format!("{} `{}`{owner}{more}{code}", d.kind.word(), d.name),
            }),
            range: None,
        })
    }

    pub fn definition(&mut self, p: GotoDefinitionParams) -> Option<Vec<Location>> {
        let pos = p.text_document_position_params;
        let (a, _, _, defs) = self.lookup(&pos.text_document.uri, pos.position)?;
        let locs: Vec<Location> = defs
            .iter()
            .filter_map(|d| Self::location(a, d.at))
            .collect();
        (!locs.is_empty()).then_some(locs)
    }

    pub fn references(&mut self, p: ReferenceParams) -> Option<Vec<Location>> {
        let pos = p.text_document_position;
        let (a, name, how, defs) = self.lookup(&pos.text_document.uri, pos.position)?;
        if defs.is_empty() {
            return None;
        }
        let decls: Vec<Span> = defs.iter().map(|d| d.at).collect();
        let locs = a
            .index
            .uses(&a.sources, &name, how)
            .into_iter()
            .filter(|s| p.context.include_declaration || !decls.contains(s))
            .filter_map(|s| Self::location(a, s))
            .collect();
        Some(locs)
    }

    pub fn completion(&mut self, p: CompletionParams) -> Option<Vec<CompletionItem>> {
        let pos = p.text_document_position;
        let uri = pos.text_document.uri.clone();
        let (a, file) = self.at(&uri)?;
        let f = a.sources.get(file)?;
        let at = text::offset(&f.text, pos.position);
        let before = f.text.get(..at).unwrap_or("");
        let word_start = before
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .map_or(0, |i| i + 1);
        let prefix = before.get(word_start..).unwrap_or("");
        let trigger = before.get(..word_start).and_then(|b| b.chars().last());
        let mut items: BTreeMap<String, CompletionItemKind> = BTreeMap::new();
        let wanted = |d: &Def| match trigger {
            Some('@') => d.kind == DefKind::Card,
            Some('.') => d.kind == DefKind::Field,
            _ => !matches!(d.kind, DefKind::Card | DefKind::Field),
        };
        for d in a.index.defs.iter().filter(|d| wanted(d)) {
            items.entry(d.name.clone()).or_insert(item_kind(d.kind));
        }
        if !matches!(trigger, Some('@') | Some('.')) {
            for b in crate::builtins::all() {
                items
                    .entry(b.name.to_string())
                    .or_insert(CompletionItemKind::FUNCTION);
            }
            for k in KEYWORDS {
                items
                    .entry(k.to_string())
                    .or_insert(CompletionItemKind::KEYWORD);
            }
        }
        Some(
            items
                .into_iter()
                .filter(|(n, _)| n.starts_with(prefix))
                .map(|(label, kind)| CompletionItem {
                    label,
                    kind: Some(kind),
                    ..CompletionItem::default()
                })
                .collect(),
        )
    }

    /// The document in `rules fmt`'s layout, as one edit; a file that does not parse is
    /// refused with the syntax error (the editor keeps the text as it is).
    pub fn format(
        &mut self,
        p: lsp_types::DocumentFormattingParams,
    ) -> Result<Vec<lsp_types::TextEdit>, String> {
        let path = text::path_of(&p.text_document.uri)
            .map(|p| canonical(&p))
            .ok_or("not a file URI")?;
        let limits = Limits::default();
        let current = match self.docs.get(&path) {
            Some(t) => t.clone(),
            None => {
                crate::files::read_text(&path, limits.max_file_bytes).map_err(|e| e.to_string())?
            }
        };
        let name = path.display().to_string();
        let formatted = crate::fmt::format_source(&name, &current, &limits)
            .map_err(|d| format!("{}: {}", d.code, d.message))?;
        if formatted == current {
            return Ok(Vec::new());
        }
        Ok(vec![lsp_types::TextEdit::new(
            text::range(&current, 0, current.len()),
            formatted,
        )])
    }

    pub fn symbols(&mut self, p: DocumentSymbolParams) -> Option<Vec<DocumentSymbol>> {
        let (a, file) = self.at(&p.text_document.uri)?;
        let f = a.sources.get(file)?;
        let range = |s: Span| text::range(&f.text, s.start as usize, s.end as usize);
        let mut out: Vec<DocumentSymbol> = Vec::new();
        for d in a.index.defs.iter().filter(|d| d.at.file == file) {
            #[allow(deprecated)]
            let sym = DocumentSymbol {
                name: d.name.clone(),
                detail: d.owner.clone(),
                kind: symbol_kind(d.kind),
                tags: None,
                deprecated: None,
                range: range(d.whole.to(d.at)),
                selection_range: range(d.at),
                children: None,
            };
            let nested = matches!(d.kind, DefKind::Field | DefKind::Variant);
            match out.last_mut() {
                Some(parent) if nested && d.owner.as_deref() == Some(parent.name.as_str()) => {
                    parent.children.get_or_insert_with(Vec::new).push(sym);
                }
                _ => out.push(sym),
            }
        }
        Some(out)
    }
}

const KEYWORDS: &[&str] = &[
    "let", "set", "move", "draw", "shuffle", "flip", "reveal", "if", "else", "for", "in", "repeat",
    "say", "return", "true", "false", "none", "and", "or", "not", "match", "where", "secretly",
    "to", "from", "per", "public", "owner", "hidden", "list", "of", "table",
];

/// What hover shows of a declaration: the card or field as written, else its line.
fn declaration_text(sources: &Sources, d: &Def) -> String {
    const MAX: usize = 1200;
    let whole = match d.kind {
        DefKind::Card if !d.fields.is_empty() => {
            let mut s = format!("card {} {} {{\n", d.owner.as_deref().unwrap_or(""), d.name);
            for (name, at) in &d.fields {
                s.push_str(&format!("  {name}: {}\n", sources.text_of(*at).trim()));
            }
            s.push('}');
            s
        }
        DefKind::Card | DefKind::Field => sources.text_of(d.whole).to_string(),
        _ => {
            let f = sources.get(d.at.file);
            f.map(|f| {
                let line = f.line_of(d.at.start as usize);
                let start = f.line_starts.get(line).copied().unwrap_or(0);
                let end = f.line_starts.get(line + 1).copied().unwrap_or(f.text.len());
                f.text.get(start..end).unwrap_or("").trim_end().to_string()
            })
            .unwrap_or_default()
        }
    };
    if whole.len() > MAX {
        let mut cut = MAX;
        while !whole.is_char_boundary(cut) {
            cut -= 1;
        }
        format!("{} ...", whole.get(..cut).unwrap_or(""))
    } else {
        whole
    }
}

fn item_kind(k: DefKind) -> CompletionItemKind {
    match k {
        DefKind::Kind => CompletionItemKind::CLASS,
        DefKind::Field => CompletionItemKind::FIELD,
        DefKind::Card => CompletionItemKind::VALUE,
        DefKind::Enum => CompletionItemKind::ENUM,
        DefKind::Variant => CompletionItemKind::ENUM_MEMBER,
        DefKind::Zone | DefKind::Var | DefKind::Option => CompletionItemKind::VARIABLE,
        DefKind::Const => CompletionItemKind::CONSTANT,
        DefKind::Fn | DefKind::Table => CompletionItemKind::FUNCTION,
        DefKind::Phase => CompletionItemKind::MODULE,
        DefKind::Event => CompletionItemKind::EVENT,
    }
}

fn symbol_kind(k: DefKind) -> SymbolKind {
    match k {
        DefKind::Kind => SymbolKind::CLASS,
        DefKind::Field => SymbolKind::FIELD,
        DefKind::Card => SymbolKind::OBJECT,
        DefKind::Enum => SymbolKind::ENUM,
        DefKind::Variant => SymbolKind::ENUM_MEMBER,
        DefKind::Zone | DefKind::Var | DefKind::Option => SymbolKind::VARIABLE,
        DefKind::Const => SymbolKind::CONSTANT,
        DefKind::Fn | DefKind::Table => SymbolKind::FUNCTION,
        DefKind::Phase => SymbolKind::MODULE,
        DefKind::Event => SymbolKind::EVENT,
    }
}

/// A checker diagnostic as the editor shows it: at its first label, the other labels as
/// related locations, the help line after the message.
fn diagnostic(d: &Diag, sources: &Sources, paths: &[Option<PathBuf>]) -> Diagnostic {
    let range = d
        .labels
        .first()
        .and_then(|l| {
            let f = sources.get(l.span.file)?;
            Some(text::range(
                &f.text,
                l.span.start as usize,
                l.span.end as usize,
            ))
        })
        .unwrap_or_default();
    let related: Vec<DiagnosticRelatedInformation> = d
        .labels
        .iter()
        .skip(1)
        .filter_map(|l| {
            let f = sources.get(l.span.file)?;
            let path = paths.get(l.span.file as usize)?.as_ref()?;
            Some(DiagnosticRelatedInformation {
                location: Location::new(
                    text::uri_of(path)?,
                    text::range(&f.text, l.span.start as usize, l.span.end as usize),
                ),
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
