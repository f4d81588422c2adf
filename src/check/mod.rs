//! Name resolution and checking: syntax tree to `Program`, reporting every problem found.
//!
//! The checker is split by the language's concerns: `decls` (kinds, types, triggers, the game
//! block), `cards` (card values, tables and their coverage), `types` (type names and
//! compatibility), `stmts` and `exprs` (lowering with every name resolved to a slot), `flow`
//! (options, custom events, `end game`, `eliminate`, `repeat up to`), `narrow` (tests that rule
//! `none` out), `purity` (what may change
//! the game) and `repl` (lines typed at the REPL).

pub mod allow;
mod bots;
mod cards;
mod control;
mod decls;
mod describe;
mod effects;
mod exprs;
mod faces;
mod flow;
mod game_end;
mod imports;
mod labels;
mod loops;
mod narrow;
mod printed;
mod purity;
mod reach;
mod repl;
mod screen;
mod secrets;
mod stmts;
mod types;

pub use repl::ReplLine;
pub use types::{allows_none, compatible, maybe_none};
use types::{show_bounds, within};

use crate::ast::{self, CardId, Item};
use crate::diag::{Diag, Sources, Span};
use crate::loader::Loaded;
use crate::program::*;
use crate::value::Value;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Names to what they name, hashed cheaply (a name is looked up for every card and every cell
/// that names a variant or a card). Deterministic; never iterated where order matters (the
/// "did you mean" lists are sorted first).
type NameMap<V> = HashMap<String, V, BuildHasherDefault<NameHasher>>;

/// The Fx hash (rustc's): a multiply and a rotate per 8 bytes. Names come from the game's own
/// files, so flooding is not a concern here.
#[derive(Default)]
struct NameHasher(u64);

impl Hasher for NameHasher {
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(K);
        }
        for &b in chunks.remainder() {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(K);
        }
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Global {
    Enum(Id),
    Variant(Id, u32),
    Kind(Id),
    Zone(Id),
    Var(Id),
    Const(Id),
    Fn(Id),
    Phase(Id),
    Table(Id),
    Option(Id),
    Event(Id),
}

impl Global {
    fn what(self) -> &'static str {
        match self {
            Global::Enum(_) => "an enum",
            Global::Variant(..) => "an enum variant",
            Global::Kind(_) => "a card kind",
            Global::Zone(_) => "a zone",
            Global::Var(_) => "a var",
            Global::Const(_) => "a const",
            Global::Fn(_) => "a function",
            Global::Phase(_) => "a phase",
            Global::Table(_) => "a table",
            Global::Option(_) => "a game option",
            Global::Event(_) => "an event",
        }
    }
}

struct Local {
    name: String,
    slot: u32,
    ty: Ty,
}

/// What the checker knows about the code it is lowering.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ctx {
    Fn(Id),
    /// The code in a card's `fn` field (an index into `card_fns`).
    CardFn(Id),
    Other,
}

pub struct Checker {
    pub prog: Program,
    pub limits: crate::limits::Limits,
    pub diags: Vec<Diag>,
    /// Zones (`true`) and vars whose keys did not resolve: their uses are not checked for the
    /// number of keys, which would only repeat the declaration's error at every use.
    broken_keys: Vec<(bool, usize)>,
    globals: NameMap<(Global, Span)>,
    card_index: NameMap<Id>,
    scopes: Vec<Vec<Local>>,
    next_local: u32,
    max_local: u32,
    ctx: Ctx,
    calls: Vec<Vec<(Id, Span)>>,
    const_refs: Vec<Vec<Id>>,
    cur_const: Option<Id>,
    referenced_phases: Vec<bool>,
    /// Whether any rule calls `finish_game()` or says `end game`, a way for a game to end.
    calls_finish: bool,
    /// Statement keywords the game tried to use as names (reported at the declaration).
    shadowed_words: Vec<String>,
    /// Names declared twice: the second declaration is dropped, so a use of the name that
    /// meant it gives no further error (`check::duplicate_name` is the one).
    redeclared: Vec<String>,
    /// The `game` block plays no phase (reported once): no phase is reported as never run.
    no_round: bool,
    /// Card code (`fn` field values) waiting to be lowered once constants have their types.
    pending_card_fns: Vec<effects::PendingFn>,
    /// Values written where a card's code belongs, their helps finished once every card is read.
    code_helps: Vec<effects::CodeHelp>,
    /// Whether a `break` or `continue` here has a loop to leave.
    jump: loops::Jump,
    /// Cards missing required fields, reported together once every card is read.
    missing_fields: Vec<cards::MissingFields>,
    /// Per function: what its body gives (its declared result where it declares one), for the
    /// game block's checks of a score's or a figure's function.
    fn_gives: Vec<Ty>,
}

/// Check a loaded game. Returns the program when there were no errors.
pub fn check(loaded: Loaded) -> (Option<Program>, Vec<Diag>, Sources) {
    let Loaded {
        sources,
        files,
        mut diags,
        limits,
        root,
        read,
    } = loaded;
    crate::diag::reset_suggest_budget();
    let mut c = Checker::new(sources.clone());
    c.limits = limits;
    // A file that could not be parsed at all is missing from the game: checking the rest would
    // report every name it declares as unknown, a cascade from one mistake. Its syntax error is
    // the root cause, and the only thing reported.
    if !unparsed(&diags) {
        control::report(&mut diags, &sources);
        c.run(&files);
    } else {
        printed::name_printed_words(&mut diags, &files, &sources);
    }
    diags.append(&mut c.diags);
    // Cards that can never enter play, once the program is whole.
    if !diags.iter().any(|d| d.is_error()) && !unparsed(&diags) {
        reach::warn(&c.prog, &mut diags);
    }
    imports::report(&mut diags, &c.prog.sources, root.as_deref(), &read, &limits);
    dedup(&mut diags);
    cap_diags(&mut diags, limits.max_diags);
    let ok = !diags.iter().any(|d| d.is_error());
    let sources = c.prog.sources.clone();
    (ok.then_some(c.prog), diags, sources)
}

/// Whether a file of the game could not be parsed: then it is missing from the game, which is
/// not checked (and its warnings are not looked for).
pub fn unparsed(diags: &[Diag]) -> bool {
    diags.iter().any(|d| {
        matches!(
            d.code,
            "parse::syntax" | "parse::unexpected_end" | "parse::empty" | "limit::nesting"
        )
    })
}

/// The same problem reported from many places (a table row each) is shown once.
fn dedup(diags: &mut Vec<Diag>) {
    let mut seen: std::collections::HashSet<(String, Vec<(Span, String)>)> =
        std::collections::HashSet::new();
    diags.retain(|d| {
        let key = (
            d.message.clone(),
            d.labels.iter().map(|l| (l.span, l.text.clone())).collect(),
        );
        seen.insert(key)
    });
}

/// At most `max` diagnostics, then one that counts the rest ("and N more").
pub fn cap_diags(diags: &mut Vec<Diag>, max: usize) {
    let capped = diags.last().is_some_and(|d| d.code == "limit::diagnostics");
    if diags.len() <= max || (capped && diags.len() == max + 1) {
        return;
    }
    let rest = diags.split_off(max);
    let errors = rest.iter().filter(|d| d.is_error()).count();
    let d = if errors > 0 {
        Diag::error
    } else {
        Diag::warning
    };
    diags.push(
        d(
            "limit::diagnostics",
            format!(
                "and {} more problem{} ({errors} error{})",
                rest.len(),
                if rest.len() == 1 { "" } else { "s" },
                if errors == 1 { "" } else { "s" }
            ),
        )
        .help("fix the problems above first; the rest are often caused by them"),
    );
}

fn card_key(id: &CardId) -> String {
    match id {
        CardId::Name(s) => s.clone(),
        CardId::Num(n) => n.to_string(),
    }
}

impl Checker {
    pub fn new(sources: Sources) -> Self {
        Checker {
            prog: Program {
                sources,
                ..Program::default()
            },
            limits: crate::limits::Limits::default(),
            diags: Vec::new(),
            broken_keys: Vec::new(),
            globals: NameMap::default(),
            card_index: NameMap::default(),
            scopes: Vec::new(),
            next_local: 0,
            max_local: 0,
            ctx: Ctx::Other,
            calls: Vec::new(),
            const_refs: Vec::new(),
            cur_const: None,
            referenced_phases: Vec::new(),
            calls_finish: false,
            pending_card_fns: Vec::new(),
            code_helps: Vec::new(),
            shadowed_words: Vec::new(),
            redeclared: Vec::new(),
            no_round: false,
            jump: loops::Jump::Outside,
            missing_fields: Vec::new(),
            fn_gives: Vec::new(),
        }
    }

    fn err(&mut self, d: Diag) {
        self.diags.push(d);
    }

    /// Whether "did you mean" is still worth its work: past `max_diags` problems the rest are
    /// not shown, so gathering the names in scope for each would only make `check` quadratic.
    fn suggesting(&self) -> bool {
        self.diags.len() < self.limits.max_diags
    }

    /// A name that begins a statement (`eliminate`, `emit`, `step`, `end`) cannot also name a
    /// game's function, var, constant, parameter or local: `eliminate(P1)` at the start of a
    /// statement would run the statement while the same call inside an expression ran the
    /// game's function. Reported once, at the declaration.
    fn statement_word(&mut self, name: &ast::Ident, what: &str) -> bool {
        let n = name.node.as_str();
        if !STATEMENT_WORDS.contains(&n) {
            return false;
        }
        let example = match n {
            "eliminate" => "`eliminate P2` removes a player from the game",
            "emit" => "`emit Event(...)` announces a game event",
            "step" => "`step name { ... }` marks a step of a phase",
            _ => "`end game` ends the game",
        };
        self.err(
            Diag::error(
                "check::statement_word",
                format!("`{n}` begins a statement, so it cannot name {what}"),
            )
            .label(name.span, "a statement keyword")
            .help(format!(
                "{example}; at the start of a line `{n}(...)` would run that statement: choose \
                 another name"
            )),
        );
        if !self.shadowed_words.iter().any(|w| w == n) {
            self.shadowed_words.push(n.to_string());
        }
        true
    }

    fn declare(&mut self, name: &ast::Ident, g: Global) {
        if name.node.is_empty() {
            return;
        }
        if self.statement_word(name, g.what()) {
            return;
        }
        if let Some((prev, prev_span)) = self.globals.get(&name.node).copied() {
            self.err(
                Diag::error(
                    "check::duplicate_name",
                    format!("`{}` is declared twice", name.node),
                )
                .label(name.span, format!("declared again here as {}", g.what()))
                .label(prev_span, format!("first declared here as {}", prev.what()))
                .help("rename one of them; names of enums, variants, kinds, zones, vars, functions and phases share one namespace"),
            );
            if !self.redeclared.contains(&name.node) {
                self.redeclared.push(name.node.clone());
            }
            return;
        }
        if is_reserved_global(&name.node) {
            self.err(
                Diag::error(
                    "check::reserved_name",
                    format!("`{}` is a built-in name", name.node),
                )
                .label(name.span, "choose another name"),
            );
            // A phase is still known by its name, so the `round:` list that names it and the
            // phase itself give no further errors (one mistake, one error). Other built-in
            // names stay the built-ins' (a call of `len` is still the builtin).
            if matches!(g, Global::Phase(..)) {
                self.globals.insert(name.node.clone(), (g, name.span));
            }
            return;
        }
        self.globals.insert(name.node.clone(), (g, name.span));
    }

    fn symbol(&mut self, name: &str) -> Id {
        if let Some(i) = self.prog.symbols.iter().position(|s| s == name) {
            return i as Id;
        }
        self.prog.symbols.push(name.to_string());
        (self.prog.symbols.len() - 1) as Id
    }

    // ================================================================ passes

    fn run(&mut self, files: &[(u32, ast::File)]) {
        let items: Vec<&Item> = files.iter().flat_map(|(_, f)| f.items.iter()).collect();
        // Pass 1: names.
        for item in &items {
            match item {
                Item::Enum(e) => {
                    let id = self.prog.enums.len() as Id;
                    self.declare(&e.name, Global::Enum(id));
                    let mut variants: Vec<String> = Vec::new();
                    let mut shown: Vec<String> = Vec::new();
                    for (i, v) in e.variants.iter().enumerate() {
                        if variants.contains(&v.node) {
                            self.err(
                                Diag::error(
                                    "check::duplicate_variant",
                                    format!("`{}` is listed twice in `{}`", v.node, e.name.node),
                                )
                                .label(v.span, "listed again here"),
                            );
                            continue;
                        }
                        self.declare(v, Global::Variant(id, i as u32));
                        variants.push(v.node.clone());
                        shown.push(
                            e.shown
                                .get(i)
                                .cloned()
                                .flatten()
                                .unwrap_or_else(|| crate::program::words(&v.node)),
                        );
                    }
                    self.prog.enums.push(EnumDef {
                        name: e.name.node.clone(),
                        variants,
                        shown,
                        span: e.name.span,
                    });
                }
                Item::Kind(k) => {
                    let id = self.prog.kinds.len() as Id;
                    self.declare(&k.name, Global::Kind(id));
                    self.prog.kinds.push(KindDef {
                        name: k.name.node.clone(),
                        fields: vec![],
                        slot_of: vec![],
                        var_count: 0,
                        span: k.name.span,
                        text_field: None,
                        describe: None,
                        doc: k.doc.clone(),
                    });
                }
                Item::Zone(z) => {
                    let id = self.prog.zones.len() as Id;
                    self.declare(&z.name, Global::Zone(id));
                    self.prog.zones.push(ZoneDef {
                        name: z.name.node.clone(),
                        kind: None,
                        keys: vec![],
                        visibility: z.visibility,
                        span: z.name.span,
                    });
                }
                Item::Var(v) => {
                    let id = self.prog.vars.len() as Id;
                    self.declare(&v.name, Global::Var(id));
                    self.prog.vars.push(VarDef {
                        name: v.name.node.clone(),
                        ty: Ty::Any,
                        bounds: None,
                        refuse: false,
                        keys: vec![],
                        visibility: v.visibility,
                        internal: v.internal,
                        init: const_expr(Value::None, v.name.span),
                        locals: 0,
                        span: v.name.span,
                    });
                }
                Item::Const(k) => {
                    let id = self.prog.consts.len() as Id;
                    self.declare(&k.name, Global::Const(id));
                    self.prog.consts.push(ConstDef {
                        name: k.name.node.clone(),
                        value: const_expr(Value::None, k.name.span),
                        ty: Ty::Any,
                        locals: 0,
                        span: k.name.span,
                    });
                    self.const_refs.push(vec![]);
                }
                Item::Fn(f) => {
                    let id = self.prog.fns.len() as Id;
                    self.declare(&f.name, Global::Fn(id));
                    self.prog.fns.push(FnDef {
                        name: f.name.node.clone(),
                        params: vec![],
                        ret: Ty::Any,
                        body: const_expr(Value::None, f.name.span),
                        locals: 0,
                        span: f.name.span,
                        doc: f.doc.clone(),
                    });
                    self.calls.push(vec![]);
                }
                Item::Phase(p) => {
                    let id = self.prog.phases.len() as Id;
                    self.declare(&p.name, Global::Phase(id));
                    self.prog.phases.push(PhaseDef {
                        name: p.name.node.clone(),
                        each: None,
                        body: Block::default(),
                        locals: 0,
                        span: p.name.span,
                        doc: p.doc.clone(),
                    });
                    self.referenced_phases.push(false);
                }
                Item::Table(t) => {
                    let id = self.prog.tables.len() as Id;
                    self.declare(&t.name, Global::Table(id));
                    self.prog.tables.push(TableDef {
                        name: t.name.node.clone(),
                        ty: Ty::Any,
                        entries: vec![],
                        locals: 0,
                        span: t.name.span,
                    });
                }
                Item::Card(c) => {
                    let key = card_key(&c.id.node);
                    if let Some(&prev) = self.card_index.get(&key) {
                        let prev_span = self.prog.cards[prev as usize].span;
                        self.err(
                            Diag::error(
                                "check::duplicate_card",
                                format!("card id `{key}` is used twice"),
                            )
                            .label(c.id.span, "used again here")
                            .label(prev_span, "first used here")
                            .help("card ids must be unique across the whole game"),
                        );
                        continue;
                    }
                    let id = self.prog.cards.len() as Id;
                    self.card_index.insert(key, id);
                    self.prog.cards.push(CardDef {
                        id: c.id.node.clone(),
                        kind: u32::MAX,
                        fields: vec![],
                        vars: vec![],
                        field_spans: vec![],
                        span: c.id.span,
                        copy: c.copy.clone(),
                    });
                }
                Item::Option(o) => {
                    let id = self.prog.options.len() as Id;
                    self.declare(&o.name, Global::Option(id));
                    self.prog.options.push(OptionDef {
                        name: o.name.node.clone(),
                        ty: Ty::Any,
                        bounds: None,
                        default: Value::None,
                        span: o.name.span,
                        doc: o.doc.clone(),
                    });
                }
                Item::Event(e) => {
                    let id = self.prog.events.len() as Id;
                    self.declare(&e.name, Global::Event(id));
                    self.prog.events.push(EventDef {
                        name: e.name.node.clone(),
                        params: vec![],
                        span: e.name.span,
                    });
                }
                _ => {}
            }
        }
        // Pass 2: kind fields, zone and var types, function signatures.
        let mut kind_id = 0;
        let mut zone_id = 0;
        let mut var_id = 0;
        let mut fn_id = 0;
        let mut table_id = 0;
        let (mut option_id, mut event_id) = (0, 0);
        for item in &items {
            match item {
                Item::Table(t) => {
                    let ty = self.resolve_type(&t.val_ty);
                    self.prog.tables[table_id].ty = ty;
                    table_id += 1;
                }
                Item::Option(o) => {
                    self.option_decl(option_id, o);
                    option_id += 1;
                }
                Item::Event(e) => {
                    self.event_decl(event_id, e);
                    event_id += 1;
                }
                Item::Kind(k) => {
                    self.kind_fields(kind_id, k);
                    kind_id += 1;
                }
                Item::Zone(z) => {
                    let kind = z.kind.as_ref().and_then(|k| self.resolve_kind(k));
                    let before = self.diags.len();
                    let keys = self.key_domains(&z.per);
                    if self.diags.len() > before {
                        self.broken_keys.push((true, zone_id));
                    }
                    let zd = &mut self.prog.zones[zone_id];
                    zd.kind = kind;
                    zd.keys = keys;
                    if z.visibility == ast::Visibility::Owner
                        && !zd.keys.contains(&KeyDomain::Player)
                    {
                        let span = z.name.span;
                        self.err(
                            Diag::error(
                                "check::owner_zone",
                                "an `owner` zone must be kept `per player`",
                            )
                            .label(span, "this zone has no owner")
                            .help("write `per player owner`, or make it `public` or `hidden`"),
                        );
                    }
                    zone_id += 1;
                }
                Item::Var(v) => {
                    let ty = self.resolve_type(&v.ty);
                    let before = self.diags.len();
                    let keys = self.key_domains(&v.per);
                    if self.diags.len() > before {
                        self.broken_keys.push((false, var_id));
                    }
                    let refuse = v.bounds.is_some_and(|b| b.refuse);
                    let bounds = v.bounds.map(|ast::Bounds { lo, hi, span, .. }| {
                        let hi = hi.unwrap_or(i64::MAX);
                        if lo > hi {
                            self.err(
                                Diag::error("check::bounds", "the lower bound is above the upper")
                                    .label(span, format!("{lo} > {hi}"))
                                    .help(format!(
                                        "write the smaller bound first: `in {hi}..{lo}`"
                                    )),
                            );
                        }
                        (lo, hi)
                    });
                    if bounds.is_some() && !matches!(ty, Ty::Int | Ty::Any) {
                        self.err(
                            Diag::error("check::bounds", "only `int` vars can have bounds")
                                .label(v.ty.span, "not an int"),
                        );
                    }
                    if v.visibility == ast::Visibility::Owner && !keys.contains(&KeyDomain::Player)
                    {
                        self.err(
                            Diag::error(
                                "check::owner_var",
                                "an `owner` var must be kept `per player`",
                            )
                            .label(v.name.span, "this var has no owner")
                            .help("write `per player owner`, or make it `public` or `hidden`"),
                        );
                    }
                    let vd = &mut self.prog.vars[var_id];
                    vd.ty = ty;
                    vd.keys = keys;
                    vd.bounds = bounds;
                    vd.refuse = refuse;
                    var_id += 1;
                }
                Item::Fn(f) => {
                    let mut params = Vec::new();
                    for p in &f.params {
                        self.statement_word(&p.name, "a parameter");
                        let ty =
                            p.ty.as_ref()
                                .map(|t| self.resolve_type(t))
                                .unwrap_or(Ty::Any);
                        if params.iter().any(|(n, _): &(String, Ty)| *n == p.name.node) {
                            self.err(
                                Diag::error(
                                    "check::duplicate_param",
                                    format!("parameter `{}` is listed twice", p.name.node),
                                )
                                .label(p.name.span, "again here"),
                            );
                        }
                        params.push((p.name.node.clone(), ty));
                    }
                    let ret = f
                        .ret
                        .as_ref()
                        .map(|t| self.resolve_type(t))
                        .unwrap_or(Ty::Any);
                    let fd = &mut self.prog.fns[fn_id];
                    fd.params = params;
                    fd.ret = ret;
                    fn_id += 1;
                }
                _ => {}
            }
        }
        // Pass 3: cards.
        let mut card_id = 0u32;
        let kinds: Vec<std::rc::Rc<KindDef>> = self
            .prog
            .kinds
            .iter()
            .map(|k| std::rc::Rc::new(k.clone()))
            .collect();
        for item in &items {
            if let Item::Card(c) = item {
                let key = card_key(&c.id.node);
                match self.card_index.get(&key) {
                    Some(&id) if self.prog.cards[id as usize].span == c.id.span => {
                        self.card(id, c, &kinds);
                        card_id += 1;
                    }
                    _ => {}
                }
            }
        }
        let _ = card_id;
        self.report_missing_fields();
        if !self.code_helps.is_empty() {
            self.code_helps(&items);
        }
        // Pass 4: constants first, so the bodies that use them know their types.
        let mut const_id = 0;
        for item in &items {
            if let Item::Const(k) = item {
                self.begin(Ctx::Other);
                self.cur_const = Some(const_id as Id);
                let (value, ty) = self.expr(&k.value);
                self.cur_const = None;
                let locals = self.end();
                let cd = &mut self.prog.consts[const_id];
                cd.value = value;
                cd.ty = ty;
                cd.locals = locals;
                const_id += 1;
            }
        }
        self.lower_card_fns();
        // Pass 5: bodies.
        let (mut var_id, mut fn_id, mut phase_id, mut table_id) = (0, 0, 0, 0);
        let mut kind_id = 0;
        let mut game_seen: Option<Span> = None;
        let mut game_decl: Option<&ast::GameDecl> = None;
        for item in &items {
            match item {
                Item::Var(v) => {
                    self.begin(Ctx::Other);
                    let (init, ty) = self.expr(&v.init);
                    let want = self.prog.vars[var_id].ty.clone();
                    let what = format!("the starting value of `{}`", v.name.node);
                    self.expect_assign(&want, &ty, v.init.span, &what, Some(v.ty.span));
                    if let (Some(b), Some(x)) = (v.bounds, const_int(&v.init)) {
                        let hi = b.hi.unwrap_or(i64::MAX);
                        if b.lo <= hi && (x < b.lo || x > hi) {
                            self.err(
                                Diag::error(
                                    "check::var_bounds",
                                    format!(
                                        "`{}` starts at {x}, outside its bounds {}",
                                        v.name.node,
                                        show_bounds(b.lo, hi)
                                    ),
                                )
                                .label(v.init.span, format!("{x} is out of bounds"))
                                .label(b.span, "the bounds are declared here")
                                .help(format!("start it at a value {}", within(b.lo, hi))),
                            );
                        }
                    }
                    let locals = self.end();
                    let vd = &mut self.prog.vars[var_id];
                    vd.init = init;
                    vd.locals = locals;
                    var_id += 1;
                }
                Item::Fn(f) => {
                    self.begin(Ctx::Fn(fn_id as Id));
                    let params = self.prog.fns[fn_id].params.clone();
                    for (name, ty) in params {
                        self.bind(&name, ty);
                    }
                    let (body, ty) = self.expr(&f.body);
                    let ret = self.prog.fns[fn_id].ret.clone();
                    let decl = f.ret.as_ref().map(|r| r.span);
                    if self.fn_gives.len() <= fn_id {
                        self.fn_gives.resize(fn_id + 1, Ty::Any);
                    }
                    if let Some(g) = self.fn_gives.get_mut(fn_id) {
                        // A body that returns early gives what its returns give: unknown here.
                        let early =
                            matches!(&f.body.kind, ast::ExprKind::Block(b) if ends_in_return(b));
                        *g = match (&ret, early) {
                            (Ty::Any, true) => Ty::Any,
                            (Ty::Any, false) => ty.clone(),
                            _ => ret.clone(),
                        };
                    }
                    match &f.body.kind {
                        // A body that ends in `return` has said what it returns.
                        ast::ExprKind::Block(b) if ends_in_return(b) => {}
                        ast::ExprKind::Block(b) if ty == Ty::None && !allows_none(&ret) => {
                            let w = self.ty_name(&ret);
                            let end = b.stmts.last().map(|s| s.span).unwrap_or(b.span);
                            self.err(
                                Diag::error(
                                    "check::type",
                                    format!("`{}` can end without giving its {w}", f.name.node),
                                )
                                .label(end, "the body ends here without a value")
                                .maybe_label(decl, format!("declared to give {w}"))
                                .help("end the body with the value, or `return` it on every path"),
                            );
                        }
                        _ => {
                            let what = format!("the result of `{}`", f.name.node);
                            self.expect_assign(&ret, &ty, f.body.span, &what, decl);
                        }
                    }
                    let locals = self.end();
                    let fd = &mut self.prog.fns[fn_id];
                    fd.body = body;
                    fd.locals = locals;
                    fn_id += 1;
                }
                Item::Phase(p) => {
                    self.begin(Ctx::Other);
                    let (each, body) = self.phase_body(p);
                    let locals = self.end();
                    let pd = &mut self.prog.phases[phase_id];
                    pd.each = each;
                    pd.body = body;
                    pd.locals = locals;
                    phase_id += 1;
                }
                Item::Table(t) => {
                    self.table(table_id, t);
                    table_id += 1;
                }
                Item::Setup(b) => {
                    self.begin(Ctx::Other);
                    let body = self.block(b);
                    let locals = self.end();
                    self.prog.setup.push((body, locals));
                }
                Item::Trigger(t) => self.trigger(t),
                Item::Check(c) => self.check_item(c),
                Item::Face(f) => self.face_item(f),
                Item::Screen(sc) => self.screen_item(sc),
                Item::Bot(b) => self.bot_item(b),
                Item::Kind(k) => {
                    self.kind_describe(kind_id, k);
                    kind_id += 1;
                }
                Item::Game(g) => {
                    if let Some(prev) = game_seen {
                        self.err(
                            Diag::error("check::two_games", "there are two `game` blocks")
                                .label(g.name.span, "second `game` block")
                                .label(prev, "first `game` block")
                                .help("a game has exactly one `game` block; card-set files leave it out"),
                        );
                    } else {
                        game_seen = Some(g.name.span);
                        game_decl = Some(g);
                    }
                }
                _ => {}
            }
        }
        if let Some(g) = game_decl {
            self.game(g);
            for (i, used) in self.referenced_phases.clone().iter().enumerate() {
                // Without a `round:` list, that one error names every phase.
                let twice = self
                    .prog
                    .phases
                    .get(i)
                    .is_some_and(|p| self.redeclared.contains(&p.name));
                // A phase whose name is declared twice was reported as such.
                if !used && !self.no_round && !twice {
                    let p = &self.prog.phases[i];
                    let (name, span) = (p.name.clone(), p.span);
                    self.err(
                        Diag::error(
                            "check::unreachable_phase",
                            format!("phase `{name}` is never run"),
                        )
                        .label(span, "no `round:` or `finish:` entry names this phase")
                        .help(format!(
                            "add `{name}` to the game's `round: [...]` list, or remove it"
                        )),
                    );
                }
            }
        }
        self.check_recursion();
        self.check_purity();
        self.check_faces();
        // Only a game without errors: a text's secrets are followed through a whole program.
        if !self.diags.iter().any(|d| d.is_error()) {
            self.check_secrets();
        }
        self.check_printed();
        self.order_consts();
        self.check_unique();
    }

    // ================================================================ scopes

    fn begin(&mut self, ctx: Ctx) {
        self.scopes = vec![vec![]];
        self.next_local = 0;
        self.max_local = 0;
        self.ctx = ctx;
        self.jump = loops::Jump::Outside;
    }

    fn end(&mut self) -> u32 {
        self.scopes.clear();
        self.ctx = Ctx::Other;
        self.max_local
    }

    fn bind(&mut self, name: &str, ty: Ty) -> u32 {
        let slot = self.next_local;
        self.next_local += 1;
        self.max_local = self.max_local.max(self.next_local);
        if let Some(s) = self.scopes.last_mut() {
            s.push(Local {
                name: name.to_string(),
                slot,
                ty,
            });
        }
        slot
    }

    fn push_scope(&mut self) {
        self.scopes.push(vec![]);
    }

    fn pop_scope(&mut self) {
        if let Some(s) = self.scopes.pop() {
            self.next_local -= s.len() as u32;
        }
    }

    /// Give a local that started as `none` the type of what is first put in it.
    fn refine_local(&mut self, slot: u32, ty: Ty) {
        for s in self.scopes.iter_mut().rev() {
            for l in s.iter_mut().rev() {
                if l.slot == slot {
                    l.ty = ty;
                    return;
                }
            }
        }
    }

    fn lookup_local(&self, name: &str) -> Option<(u32, Ty)> {
        for s in self.scopes.iter().rev() {
            for l in s.iter().rev() {
                if l.name == name {
                    return Some((l.slot, l.ty.clone()));
                }
            }
        }
        None
    }
}

/// The words that begin a statement but are not reserved by the grammar (it reads them as names
/// elsewhere).
const STATEMENT_WORDS: [&str; 4] = ["eliminate", "emit", "step", "end"];

fn is_reserved_global(n: &str) -> bool {
    [
        "players",
        "player_count",
        "round",
        "player",
        "int",
        "bool",
        "text",
        "card",
        "zone",
        "any",
        "list",
        "fits",
        "all_players",
    ]
    .contains(&n)
        || crate::builtins::find(n).is_some()
}

fn const_expr(v: Value, span: Span) -> Expr {
    Expr {
        kind: ExprKind::Const(v),
        span,
        ty: Sort::Any,
    }
}

/// Whether a block's last statement is a `return` (or an `if`/`else` whose every branch ends in
/// one), so the block never falls off its end.
fn ends_in_return(b: &ast::Block) -> bool {
    match b.stmts.last().map(|s| &s.kind) {
        Some(ast::StmtKind::Return(_)) => true,
        Some(ast::StmtKind::Expr(e)) => expr_returns(e),
        _ => false,
    }
}

fn expr_returns(e: &ast::Expr) -> bool {
    match &e.kind {
        ast::ExprKind::If(_, then, Some(els)) => ends_in_return(then) && expr_returns(els),
        ast::ExprKind::Block(b) => ends_in_return(b),
        _ => false,
    }
}

/// An integer written as a literal (`3`, `-2`).
fn const_int(e: &ast::Expr) -> Option<i64> {
    match &e.kind {
        ast::ExprKind::Int(n) => Some(*n),
        ast::ExprKind::Unary(ast::UnOp::Neg, inner) => const_int(inner)?.checked_neg(),
        _ => None,
    }
}
