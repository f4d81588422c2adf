//! The answers to the editor's requests, from a game's last check: hover, go to definition,
//! references, completion, document symbols and formatting. Each is linear in the documents it
//! reads (positions come from `Analysis::range`, logarithmic each).

use super::game::{Analysis, Workspace};
use super::index::{Def, DefKind, Use};
use super::text;
use crate::diag::{Sources, Span};
use lsp_types::{
    CompletionItem, CompletionItemKind, CompletionParams, DocumentSymbol, DocumentSymbolParams,
    GotoDefinitionParams, Hover, HoverContents, HoverParams, Location, MarkupContent, MarkupKind,
    ReferenceParams, SymbolKind, Uri,
};
use std::collections::BTreeMap;

impl Workspace {
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
        // (When none is found, `how` stays as written: a builtin's name is a plain name.)
        for other in [Use::Card, Use::Field] {
            if defs.is_empty() {
                defs = a.index.defs_of(&name, other).cloned().collect();
                if !defs.is_empty() {
                    how = other;
                }
            }
        }
        Some((a, name, how, defs))
    }

    pub fn hover(&mut self, p: HoverParams) -> Option<Hover> {
        let pos = p.text_document_position_params;
        let (a, name, how, defs) = self.lookup(&pos.text_document.uri, pos.position)?;
        let Some(d) = defs.first() else {
            // A builtin: its signature and what it returns, from its one declaration.
            let b = crate::builtins::find(&name).filter(|_| how == Use::Name)?;
            return Some(Hover {
                contents: HoverContents::Markup(MarkupContent {
                    kind: MarkupKind::Markdown,
                    value: format!("builtin `{}`\n\n{}", b.signature(), b.returns),
                }),
                range: None,
            });
        };
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
        // What the `##` lines above the declaration say about it.
        let doc = match d.kind {
            DefKind::Kind | DefKind::Fn | DefKind::Phase | DefKind::Option | DefKind::Bot => a
                .sources
                .get(d.at.file)
                .and_then(|f| {
                    let line = f.line_of(d.at.start as usize);
                    let start = f.line_starts.get(line).copied()?;
                    crate::parser::doc_above(&f.text, start)
                })
                .map(|t| format!("\n\n{t}"))
                .unwrap_or_default(),
            _ => String::new(),
        };
        Some(Hover {
            contents: HoverContents::Markup(MarkupContent {
                kind: MarkupKind::Markdown,
                value: format!("{} `{}`{owner}{more}{doc}{code}", d.kind.word(), d.name),
            }),
            range: None,
        })
    }

    pub fn definition(&mut self, p: GotoDefinitionParams) -> Option<Vec<Location>> {
        let pos = p.text_document_position_params;
        let (a, _, _, defs) = self.lookup(&pos.text_document.uri, pos.position)?;
        let locs: Vec<Location> = defs.iter().filter_map(|d| a.location(d.at)).collect();
        (!locs.is_empty()).then_some(locs)
    }

    pub fn references(&mut self, p: ReferenceParams) -> Option<Vec<Location>> {
        let pos = p.text_document_position;
        let (a, name, how, defs) = self.lookup(&pos.text_document.uri, pos.position)?;
        if defs.is_empty() {
            return None;
        }
        // Sorted, so leaving the declarations out stays linear in the uses (a name may be
        // declared many times over in a file being typed).
        let key = |s: &Span| (s.file, s.start, s.end);
        let mut decls: Vec<(u32, u32, u32)> = defs.iter().map(|d| key(&d.at)).collect();
        decls.sort_unstable();
        let locs = a
            .index
            .uses(&a.sources, &name, how)
            .into_iter()
            .filter(|s| p.context.include_declaration || decls.binary_search(&key(s)).is_err())
            .filter_map(|s| a.location(s))
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
            // A bot is named to `--agent`, never in the rules.
            _ => !matches!(d.kind, DefKind::Card | DefKind::Field | DefKind::Bot),
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
        let place = self
            .place(&p.text_document.uri)
            .ok_or("not a `file:///` URI")?;
        let limits = self.limits;
        let path = place.path;
        let current = match (self.docs.get(&path), place.root) {
            (Some(t), _) => t.clone(),
            (None, Some(_)) => {
                crate::files::read_text(&path, limits.max_file_bytes).map_err(|e| e.to_string())?
            }
            (None, None) => {
                return Err(format!(
                    "`{}` is outside the workspace folders and not open, so it is not read",
                    path.display()
                ))
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
        let range = |s: Span| a.range(s).unwrap_or_default();
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
    "to", "from", "per", "public", "owner", "hidden", "internal", "list", "of", "table",
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
        DefKind::Bot => CompletionItemKind::CLASS,
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
        DefKind::Bot => SymbolKind::OBJECT,
    }
}
