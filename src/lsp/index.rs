//! What the server knows about a game's names: where each is declared (from the syntax trees
//! of the game's files) and where it is used (from the identifiers in the text). Uses are found
//! by name, so a local that shadows a global counts as a use of it: the index says where a
//! name is written, which is what "find references" needs in a language without shadowed
//! globals in practice.

use crate::ast::{File, Item};
use crate::diag::{Sources, Span};
use crate::limits::Limits;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DefKind {
    Kind,
    Field,
    Card,
    Enum,
    Variant,
    Zone,
    Var,
    Const,
    Fn,
    Phase,
    Table,
    Event,
    Option,
    /// A designer's own player (`bot Greedy(me) { ... }`), named to `--agent`.
    Bot,
}

impl DefKind {
    pub fn word(self) -> &'static str {
        match self {
            DefKind::Kind => "kind",
            DefKind::Field => "field",
            DefKind::Card => "card",
            DefKind::Enum => "enum",
            DefKind::Variant => "enum variant",
            DefKind::Zone => "zone",
            DefKind::Var => "var",
            DefKind::Const => "const",
            DefKind::Fn => "fn",
            DefKind::Phase => "phase",
            DefKind::Table => "table",
            DefKind::Event => "event",
            DefKind::Option => "option",
            DefKind::Bot => "bot",
        }
    }
}

/// One declaration: its name, what it is, where its name is written, the whole declaration,
/// and the kind or enum it belongs to.
#[derive(Debug, Clone)]
pub struct Def {
    pub name: String,
    pub kind: DefKind,
    pub at: Span,
    pub whole: Span,
    pub owner: Option<String>,
    /// A card's fields as written: name and the span of the value.
    pub fields: Vec<(String, Span)>,
}

/// One identifier written in a file: `@id`, `.field` or a plain name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Use {
    Card,
    Field,
    Name,
}

#[derive(Debug, Clone)]
pub struct Word {
    pub span: Span,
    pub how: Use,
}

#[derive(Debug, Default)]
pub struct Index {
    pub defs: Vec<Def>,
    /// Per file id, the identifiers written in it, in order.
    pub words: Vec<Vec<Word>>,
}

impl Index {
    /// The index of a game's files. A file that does not parse (being typed) keeps the
    /// declarations `previous` found in it (`previous(name)` gives them, with their old places
    /// in that file), so hover, completion and definition go on working.
    pub fn build(sources: &Sources, limits: &Limits, previous: impl Fn(&str) -> Vec<Def>) -> Index {
        let mut index = Index::default();
        for (id, f) in sources.files.iter().enumerate() {
            let id = u32::try_from(id).unwrap_or(u32::MAX);
            let parsed = crate::parser::parse_file(&f.text, id, limits);
            match parsed.value {
                Some(file) => index.declare(&file),
                None => index
                    .defs
                    .extend(previous(&f.name).into_iter().map(|mut d| {
                        d.at.file = id;
                        d.whole.file = id;
                        d
                    })),
            }
            index.words.push(words(&f.text, id));
        }
        index
    }

    fn declare(&mut self, file: &File) {
        let mut defs: Vec<Def> = Vec::new();
        let mut def = |name: &str, kind, at: Span, whole: Span, owner: Option<&str>| {
            defs.push(Def {
                name: name.to_string(),
                kind,
                at,
                whole,
                owner: owner.map(str::to_string),
                fields: Vec::new(),
            })
        };
        let mut card_fields: Vec<Vec<(String, Span)>> = Vec::new();
        for item in &file.items {
            match item {
                Item::Kind(k) => {
                    def(&k.name.node, DefKind::Kind, k.name.span, k.name.span, None);
                    for f in &k.fields {
                        let whole = f.name.span.to(f.ty.span);
                        def(
                            &f.name.node,
                            DefKind::Field,
                            f.name.span,
                            whole,
                            Some(&k.name.node),
                        );
                    }
                }
                Item::Enum(e) => {
                    def(&e.name.node, DefKind::Enum, e.name.span, e.name.span, None);
                    for v in &e.variants {
                        def(
                            &v.node,
                            DefKind::Variant,
                            v.span,
                            v.span,
                            Some(&e.name.node),
                        );
                    }
                }
                Item::Card(c) => {
                    def(
                        &c.id.node.to_string(),
                        DefKind::Card,
                        c.id.span,
                        c.span,
                        Some(&c.kind.node),
                    );
                    card_fields.push(
                        c.fields
                            .iter()
                            .map(|(n, e)| (n.node.clone(), e.span))
                            .collect(),
                    );
                }
                Item::Zone(z) => def(&z.name.node, DefKind::Zone, z.name.span, z.name.span, None),
                Item::Var(v) => def(&v.name.node, DefKind::Var, v.name.span, v.name.span, None),
                Item::Const(c) => def(&c.name.node, DefKind::Const, c.name.span, c.name.span, None),
                Item::Fn(f) => def(&f.name.node, DefKind::Fn, f.name.span, f.name.span, None),
                Item::Phase(p) => def(&p.name.node, DefKind::Phase, p.name.span, p.name.span, None),
                Item::Table(t) => def(&t.name.node, DefKind::Table, t.name.span, t.name.span, None),
                Item::Event(e) => def(&e.name.node, DefKind::Event, e.name.span, e.name.span, None),
                Item::Bot(b) => def(&b.name.node, DefKind::Bot, b.name.span, b.name.span, None),
                Item::Option(o) => def(
                    &o.name.node,
                    DefKind::Option,
                    o.name.span,
                    o.name.span,
                    None,
                ),
                _ => {}
            }
        }
        // Each card's fields, onto its declaration (one of each per card, in order).
        let cards = defs.iter_mut().filter(|d| d.kind == DefKind::Card);
        for (d, f) in cards.zip(card_fields) {
            d.fields = f;
        }
        self.defs.extend(defs);
    }

    /// The identifier at byte `at` of file `file`.
    pub fn word_at(&self, file: u32, at: usize) -> Option<&Word> {
        let words = self.words.get(file as usize)?;
        let i = words.partition_point(|w| (w.span.end as usize) < at);
        words
            .get(i)
            .filter(|w| (w.span.start as usize) <= at && at <= w.span.end as usize)
    }

    /// The declarations a word may name: cards for `@id`, fields for `.name`, else the others.
    pub fn defs_of<'a>(&'a self, name: &'a str, how: Use) -> impl Iterator<Item = &'a Def> + 'a {
        self.defs.iter().filter(move |d| {
            d.name == name
                && match how {
                    Use::Card => d.kind == DefKind::Card,
                    Use::Field => d.kind == DefKind::Field,
                    Use::Name => !matches!(d.kind, DefKind::Card | DefKind::Field),
                }
        })
    }

    /// Every place the name is written in the same way (`@id`, `.field` or plain), plus the
    /// declarations themselves.
    pub fn uses<'a>(&'a self, sources: &'a Sources, name: &'a str, how: Use) -> Vec<Span> {
        let mut out = Vec::new();
        for ws in &self.words {
            for w in ws {
                let same = w.how == how
                    || (how == Use::Field && w.how == Use::Name)
                    || (how == Use::Card && w.how == Use::Name);
                if same && sources.text_of(w.span) == name {
                    out.push(w.span);
                }
            }
        }
        out.sort_by_key(|s| (s.file, s.start));
        out.dedup();
        out
    }
}

/// The identifiers of a text, skipping comments and the words inside texts (but not the code
/// inside `{...}` of a text).
fn words(text: &str, file: u32) -> Vec<Word> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0usize;
    let mut in_text = false;
    let mut braces_in_text = 0usize;
    while let Some(&b) = bytes.get(i) {
        if in_text && braces_in_text == 0 {
            match b {
                b'\\' => i += 2,
                b'"' => {
                    in_text = false;
                    i += 1;
                }
                b'{' => {
                    braces_in_text = 1;
                    i += 1;
                }
                _ => i += 1,
            }
            continue;
        }
        match b {
            b'#' => {
                while bytes.get(i).is_some_and(|&c| c != b'\n') {
                    i += 1;
                }
            }
            b'"' if !in_text => {
                in_text = true;
                i += 1;
            }
            b'{' if in_text => {
                braces_in_text += 1;
                i += 1;
            }
            b'}' if in_text => {
                braces_in_text = braces_in_text.saturating_sub(1);
                i += 1;
            }
            c if c.is_ascii_alphabetic() || c == b'_' || c == b'@' => {
                let start = i;
                let how = if c == b'@' {
                    i += 1;
                    Use::Card
                } else if start > 0 && bytes.get(start - 1) == Some(&b'.') {
                    Use::Field
                } else {
                    Use::Name
                };
                let name_start = i;
                while bytes
                    .get(i)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
                {
                    i += 1;
                }
                if i > name_start {
                    let span = Span::new(file, name_start, i);
                    out.push(Word { span, how });
                }
            }
            c if c.is_ascii_digit() => {
                while bytes
                    .get(i)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
                {
                    i += 1;
                }
            }
            _ => i += 1,
        }
    }
    out
}
