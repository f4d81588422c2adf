//! Name resolution and checking: syntax tree to `Program`, reporting every problem found.

use crate::ast::{self, AggKind, BinOp, CardId, EventKind, Item, UnOp};
use crate::diag::{did_you_mean, Diag, Sources, Span};
use crate::loader::Loaded;
use crate::program::*;
use crate::value::Value;
use std::collections::HashMap;

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
    Other,
}

pub struct Checker {
    pub prog: Program,
    pub diags: Vec<Diag>,
    globals: HashMap<String, (Global, Span)>,
    card_index: HashMap<String, Id>,
    scopes: Vec<Vec<Local>>,
    next_local: u32,
    max_local: u32,
    ctx: Ctx,
    calls: Vec<Vec<(Id, Span)>>,
    const_refs: Vec<Vec<Id>>,
    cur_const: Option<Id>,
    referenced_phases: Vec<bool>,
    /// Whether any rule calls `finish_game()`, a way for a game to end.
    calls_finish: bool,
}

/// Check a loaded game. Returns the program when there were no errors.
pub fn check(loaded: Loaded) -> (Option<Program>, Vec<Diag>, Sources) {
    let Loaded {
        sources,
        files,
        mut diags,
    } = loaded;
    let mut c = Checker::new(sources.clone());
    c.run(&files);
    diags.append(&mut c.diags);
    dedup(&mut diags);
    let ok = !diags.iter().any(|d| d.is_error());
    let sources = c.prog.sources.clone();
    (ok.then_some(c.prog), diags, sources)
}

/// The same problem reported from many places (a table row each) is shown once.
fn dedup(diags: &mut Vec<Diag>) {
    let mut seen: Vec<(String, Vec<(Span, String)>)> = Vec::new();
    diags.retain(|d| {
        let key = (
            d.message.clone(),
            d.labels.iter().map(|l| (l.span, l.text.clone())).collect(),
        );
        if seen.contains(&key) {
            false
        } else {
            seen.push(key);
            true
        }
    });
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
            diags: Vec::new(),
            globals: HashMap::new(),
            card_index: HashMap::new(),
            scopes: Vec::new(),
            next_local: 0,
            max_local: 0,
            ctx: Ctx::Other,
            calls: Vec::new(),
            const_refs: Vec::new(),
            cur_const: None,
            referenced_phases: Vec::new(),
            calls_finish: false,
        }
    }

    fn err(&mut self, d: Diag) {
        self.diags.push(d);
    }

    fn declare(&mut self, name: &ast::Ident, g: Global) {
        if name.node.is_empty() {
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
                    }
                    self.prog.enums.push(EnumDef {
                        name: e.name.node.clone(),
                        variants,
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
                        keys: vec![],
                        visibility: v.visibility,
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
                    });
                    self.calls.push(vec![]);
                }
                Item::Phase(p) => {
                    let id = self.prog.phases.len() as Id;
                    self.declare(&p.name, Global::Phase(id));
                    self.prog.phases.push(PhaseDef {
                        name: p.name.node.clone(),
                        body: Block::default(),
                        locals: 0,
                        span: p.name.span,
                    });
                    self.referenced_phases.push(false);
                }
                Item::Table(t) => {
                    let id = self.prog.tables.len() as Id;
                    self.declare(&t.name, Global::Table(id));
                    self.prog.tables.push(TableDef {
                        name: t.name.node.clone(),
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
        for item in &items {
            match item {
                Item::Kind(k) => {
                    self.kind_fields(kind_id, k);
                    kind_id += 1;
                }
                Item::Zone(z) => {
                    let kind = z.kind.as_ref().and_then(|k| self.resolve_kind(k));
                    let keys = self.key_domains(&z.per);
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
                    let keys = self.key_domains(&v.per);
                    let bounds = v.bounds.map(|(lo, hi, span)| {
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
                    var_id += 1;
                }
                Item::Fn(f) => {
                    let mut params = Vec::new();
                    for p in &f.params {
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
        for item in &items {
            if let Item::Card(c) = item {
                let key = card_key(&c.id.node);
                match self.card_index.get(&key) {
                    Some(&id) if self.prog.cards[id as usize].span == c.id.span => {
                        self.card(id, c);
                        card_id += 1;
                    }
                    _ => {}
                }
            }
        }
        let _ = card_id;
        // Pass 4: bodies.
        let (mut var_id, mut const_id, mut fn_id, mut phase_id, mut table_id) = (0, 0, 0, 0, 0);
        let mut game_seen: Option<Span> = None;
        let mut game_decl: Option<&ast::GameDecl> = None;
        for item in &items {
            match item {
                Item::Var(v) => {
                    self.begin(Ctx::Other);
                    let (init, ty) = self.expr(&v.init);
                    let want = self.prog.vars[var_id].ty.clone();
                    self.expect_ty(&want, &ty, v.init.span, "this var's initial value");
                    let locals = self.end();
                    let vd = &mut self.prog.vars[var_id];
                    vd.init = init;
                    vd.locals = locals;
                    var_id += 1;
                }
                Item::Const(k) => {
                    self.begin(Ctx::Other);
                    self.cur_const = Some(const_id as Id);
                    let (value, _) = self.expr(&k.value);
                    self.cur_const = None;
                    let locals = self.end();
                    let cd = &mut self.prog.consts[const_id];
                    cd.value = value;
                    cd.locals = locals;
                    const_id += 1;
                }
                Item::Fn(f) => {
                    self.begin(Ctx::Fn(fn_id as Id));
                    let params = self.prog.fns[fn_id].params.clone();
                    for (name, ty) in params {
                        self.bind(&name, ty);
                    }
                    let (body, ty) = self.expr(&f.body);
                    let ret = self.prog.fns[fn_id].ret.clone();
                    if !matches!(f.body.kind, ast::ExprKind::Block(_)) {
                        self.expect_ty(&ret, &ty, f.body.span, "this function's result");
                    }
                    let locals = self.end();
                    let fd = &mut self.prog.fns[fn_id];
                    fd.body = body;
                    fd.locals = locals;
                    fn_id += 1;
                }
                Item::Phase(p) => {
                    self.begin(Ctx::Other);
                    let body = self.block(&p.body);
                    let locals = self.end();
                    let pd = &mut self.prog.phases[phase_id];
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
                if !used {
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
        self.order_consts();
        self.check_unique();
    }

    fn check_item(&mut self, c: &ast::CheckDecl) {
        self.begin(Ctx::Other);
        let (source, st) = self.expr(&c.source);
        if !matches!(st, Ty::Any | Ty::List(_) | Ty::Zone(_)) {
            let g = self.ty_name(&st);
            self.err(
                Diag::error(
                    "check::type",
                    format!("`check` walks a list of cards, found {g}"),
                )
                .label(c.source.span, format!("this is {g}"))
                .help("write `check c in KindName ...`"),
            );
        }
        let elem = st.elem();
        let slot = self.bind(&c.var.node, elem.clone());
        let filter = c.filter.as_ref().map(|f| {
            let (x, t) = self.expr(f);
            self.expect_ty(&Ty::Bool, &t, f.span, "a `where` condition");
            x
        });
        let (require, rt) = self.expr(&c.require);
        self.expect_ty(&Ty::Bool, &rt, c.require.span, "a `require` condition");
        let (message, _) = self.expr(&c.message);
        let help = c.help.as_ref().map(|h| self.expr(h).0);
        let at = match &c.at {
            Some(name) => self.field_sym(&elem, name, false),
            None => None,
        };
        let locals = self.end();
        self.prog.checks.push(CheckDef {
            warn: c.warn,
            slot,
            source,
            filter,
            require,
            message,
            at,
            help,
            locals,
            span: c.span,
        });
    }

    // ================================================================ declarations

    fn resolve_kind(&mut self, name: &ast::Ident) -> Option<Id> {
        match self.globals.get(&name.node) {
            Some((Global::Kind(k), _)) => Some(*k),
            Some((g, _)) => {
                let what = g.what();
                self.err(
                    Diag::error(
                        "check::not_a_kind",
                        format!("`{}` is {what}, not a card kind", name.node),
                    )
                    .label(name.span, "a card kind is expected here"),
                );
                None
            }
            None => {
                let help =
                    did_you_mean(&name.node, self.prog.kinds.iter().map(|k| k.name.as_str()));
                self.err(
                    Diag::error(
                        "check::unknown_kind",
                        format!("unknown card kind `{}`", name.node),
                    )
                    .label(name.span, "no `kind` has this name")
                    .maybe_help(help),
                );
                None
            }
        }
    }

    fn resolve_type(&mut self, t: &ast::Spanned<ast::TypeExpr>) -> Ty {
        match &t.node {
            ast::TypeExpr::List(inner) => Ty::List(Box::new(self.resolve_type(inner))),
            ast::TypeExpr::Table(lo, hi, inner) => {
                if lo > hi {
                    self.err(
                        Diag::error("check::key_range", "this table's key range is empty")
                            .label(t.span, format!("{lo} > {hi}")),
                    );
                }
                // A table value is a list of (first key, last key, value) entries.
                Ty::List(Box::new(Ty::Tuple(vec![
                    Ty::Int,
                    Ty::Int,
                    self.resolve_type(inner),
                ])))
            }
            ast::TypeExpr::Named(n) => match n.node.as_str() {
                "int" => Ty::Int,
                "bool" => Ty::Bool,
                "text" => Ty::Text,
                "player" => Ty::Player,
                "card" => Ty::Card(None),
                "zone" => Ty::Zone(None),
                "any" => Ty::Any,
                "list" => Ty::List(Box::new(Ty::Any)),
                other => match self.globals.get(other) {
                    Some((Global::Enum(e), _)) => Ty::Enum(*e),
                    Some((Global::Kind(k), _)) => Ty::Card(Some(*k)),
                    _ => {
                        let mut names: Vec<String> = [
                            "int", "bool", "text", "player", "card", "zone", "any", "list",
                        ]
                        .iter()
                        .map(|s| s.to_string())
                        .collect();
                        names.extend(self.prog.enums.iter().map(|e| e.name.clone()));
                        names.extend(self.prog.kinds.iter().map(|k| k.name.clone()));
                        let alias = match other {
                            "integer" | "number" | "i64" | "usize" => Some("int"),
                            "string" | "str" | "String" => Some("text"),
                            "boolean" => Some("bool"),
                            "Player" => Some("player"),
                            _ => None,
                        };
                        let help = alias
                            .map(|a| format!("did you mean `{a}`?"))
                            .or_else(|| did_you_mean(other, names.iter().map(|s| s.as_str())));
                        self.err(
                            Diag::error("check::unknown_type", format!("unknown type `{other}`"))
                                .label(n.span, "not a type")
                                .maybe_help(help.or(Some(
                                    "types are int, bool, text, player, card, zone, any, list of T, an enum or a kind".into(),
                                ))),
                        );
                        Ty::Any
                    }
                },
            },
        }
    }

    fn key_domains(&mut self, keys: &[ast::KeyType]) -> Vec<KeyDomain> {
        let mut out = Vec::new();
        for k in keys {
            match k {
                ast::KeyType::Range(lo, hi, span) => {
                    if lo > hi || hi - lo > 10_000 {
                        self.err(
                            Diag::error("check::key_range", "this key range is empty or too large")
                                .label(*span, "here"),
                        );
                        continue;
                    }
                    out.push(KeyDomain::Range(*lo, *hi));
                }
                ast::KeyType::Named(n) if n.node == "player" => out.push(KeyDomain::Player),
                ast::KeyType::Named(n) => match self.globals.get(&n.node) {
                    Some((Global::Enum(e), _)) => out.push(KeyDomain::Enum(*e)),
                    _ => {
                        let mut names = vec!["player".to_string()];
                        names.extend(self.prog.enums.iter().map(|e| e.name.clone()));
                        let help = did_you_mean(&n.node, names.iter().map(|s| s.as_str()));
                        self.err(
                            Diag::error(
                                "check::unknown_key",
                                format!("`{}` cannot key a zone or var", n.node),
                            )
                            .label(n.span, "keys are `player`, an enum or a range like `1..3`")
                            .maybe_help(help),
                        );
                    }
                },
            }
        }
        out
    }

    fn kind_fields(&mut self, id: usize, k: &ast::KindDecl) {
        let mut fields: Vec<FieldDef> = Vec::new();
        for f in &k.fields {
            if fields.iter().any(|x| x.name == f.name.node) {
                self.err(
                    Diag::error(
                        "check::duplicate_field",
                        format!("field `{}` is declared twice", f.name.node),
                    )
                    .label(f.name.span, "again here"),
                );
                continue;
            }
            if ["id", "face_up", "kind"].contains(&f.name.node.as_str()) {
                self.err(
                    Diag::error(
                        "check::builtin_field",
                        format!("`{}` is a built-in field of every card", f.name.node),
                    )
                    .label(f.name.span, "choose another name"),
                );
                continue;
            }
            let ty = self.resolve_type(&f.ty);
            let default = f.default.as_ref().map(|e| {
                let v = self.const_value(e);
                if let Some(v) = &v {
                    self.check_value_ty(v, &ty, e.span, &f.name.node);
                }
                v.unwrap_or(Value::None)
            });
            let sym = self.symbol(&f.name.node);
            let cover = match &f.ty.node {
                ast::TypeExpr::Table(lo, hi, _) => Some((*lo, *hi)),
                _ => None,
            };
            let bounds = f.bounds.map(|(lo, hi, span)| {
                let hi = hi.unwrap_or(i64::MAX);
                if lo > hi {
                    self.err(
                        Diag::error("check::bounds", "the lower bound is above the upper")
                            .label(span, format!("{lo} > {hi}")),
                    );
                }
                if !matches!(ty, Ty::Int) {
                    self.err(
                        Diag::error("check::bounds", "only `int` fields can have bounds")
                            .label(span, "bounds on a field that is not an int"),
                    );
                }
                (lo, hi)
            });
            fields.push(FieldDef {
                name: f.name.node.clone(),
                sym,
                ty,
                mutable: f.mutable,
                bounds,
                unique: f.unique,
                cover,
                default,
                span: f.name.span,
            });
        }
        let mut slot_of = vec![None; self.prog.symbols.len()];
        let (mut s, mut v) = (0u32, 0u32);
        for f in &fields {
            if f.mutable {
                slot_of[f.sym as usize] = Some((true, v));
                v += 1;
            } else {
                slot_of[f.sym as usize] = Some((false, s));
                s += 1;
            }
        }
        let kd = &mut self.prog.kinds[id];
        kd.fields = fields;
        kd.slot_of = slot_of;
        kd.var_count = v;
    }

    fn card(&mut self, id: Id, c: &ast::CardDecl) {
        let Some(kind) = self.resolve_kind(&c.kind) else {
            return;
        };
        let kd = self.prog.kinds[kind as usize].clone();
        let mut statics: Vec<Option<Value>> =
            vec![None; kd.fields.iter().filter(|f| !f.mutable).count()];
        let mut vars: Vec<Option<Value>> = vec![None; kd.var_count as usize];
        let mut seen: Vec<&str> = Vec::new();
        let mut field_spans = Vec::new();
        for (name, e) in &c.fields {
            if seen.contains(&name.node.as_str()) {
                self.err(
                    Diag::error(
                        "check::duplicate_field",
                        format!("field `{}` is given twice", name.node),
                    )
                    .label(name.span, "again here"),
                );
                continue;
            }
            seen.push(&name.node);
            let Some(fd) = kd.fields.iter().find(|f| f.name == name.node) else {
                let help = did_you_mean(&name.node, kd.fields.iter().map(|f| f.name.as_str()));
                self.err(
                    Diag::error(
                        "check::unknown_field",
                        format!("kind `{}` has no field `{}`", kd.name, name.node),
                    )
                    .label(name.span, "unknown field")
                    .maybe_help(help.or_else(|| {
                        Some(format!(
                            "the fields of `{}` are: {}",
                            kd.name,
                            kd.fields
                                .iter()
                                .map(|f| f.name.as_str())
                                .collect::<Vec<_>>()
                                .join(", ")
                        ))
                    })),
                );
                continue;
            };
            // A bad value is reported once; the field still counts as given.
            let v = self.const_value(e).unwrap_or(Value::None);
            self.check_value_ty(&v, &fd.ty, e.span, &fd.name);
            field_spans.push((fd.sym, e.span));
            if let (Some((lo, hi)), Value::Int(x)) = (fd.bounds, &v) {
                if *x < lo || *x > hi {
                    let range = if hi == i64::MAX {
                        format!("at least {lo}")
                    } else {
                        format!("within {lo}..{hi}")
                    };
                    self.err(
                        Diag::error(
                            "check::field_bounds",
                            format!("field `{}` must be {range}, found {x}", fd.name),
                        )
                        .label(e.span, format!("{x} is out of bounds"))
                        .label(
                            fd.span,
                            format!("`{}` is declared with bounds here", fd.name),
                        )
                        .help(if *x < 0 && lo >= 0 {
                            "costs and thresholds cannot be negative".to_string()
                        } else {
                            format!("use a value {range}")
                        }),
                    );
                }
            }
            let mut v = v;
            if let Some((lo, hi)) = fd.cover {
                // Entries that lose rank 1 to an `A` entry start at 2 in the stored table.
                for i in self.coverage(e, lo, hi, &fd.name) {
                    if let Value::List(items) = &mut v {
                        if let Some(Value::Tuple(t)) = std::rc::Rc::make_mut(items).get_mut(i) {
                            if let Some(first) = std::rc::Rc::make_mut(t).first_mut() {
                                *first = Value::Int(2);
                            }
                        }
                    }
                }
            }
            if let Some(Some((m, slot))) = kd.slot_of.get(fd.sym as usize) {
                if *m {
                    vars[*slot as usize] = Some(v);
                } else {
                    statics[*slot as usize] = Some(v);
                }
            }
        }
        let mut missing = Vec::new();
        for fd in &kd.fields {
            let Some(Some((m, slot))) = kd.slot_of.get(fd.sym as usize).copied() else {
                continue;
            };
            let cell = if m {
                &mut vars[slot as usize]
            } else {
                &mut statics[slot as usize]
            };
            if cell.is_none() {
                match &fd.default {
                    Some(d) => *cell = Some(d.clone()),
                    None if m => *cell = Some(Value::None),
                    None => missing.push(fd.name.clone()),
                }
            }
        }
        if !missing.is_empty() {
            let list = missing
                .iter()
                .map(|m| format!("`{m}`"))
                .collect::<Vec<_>>()
                .join(", ");
            self.err(
                Diag::error(
                    "check::missing_field",
                    format!(
                        "card `{}` is missing required field{} {list}",
                        c.id.node,
                        if missing.len() > 1 { "s" } else { "" }
                    ),
                )
                .label(c.id.span, format!("this `{}` card", kd.name))
                .help(format!(
                    "add {} or give the field a default in `kind {}`",
                    list, kd.name
                )),
            );
        }
        let cd = &mut self.prog.cards[id as usize];
        cd.field_spans = field_spans;
        cd.kind = kind;
        cd.fields = statics
            .into_iter()
            .map(|v| v.unwrap_or(Value::None))
            .collect();
        cd.vars = vars.into_iter().map(|v| v.unwrap_or(Value::None)).collect();
    }

    /// The keys a table entry covers. In tables over card ranks 1..13, `A`, `J`, `Q` and `K`
    /// name 1, 11, 12 and 13. `_` is every key no other entry covers.
    fn table_key(
        &mut self,
        p: &ast::Spanned<ast::Pattern>,
        domain: (i64, i64),
    ) -> Option<(i64, i64)> {
        match &p.node {
            ast::Pattern::Int(n) => Some((*n, *n)),
            ast::Pattern::Range(a, b) => {
                if a > b {
                    self.err(
                        Diag::error("check::table_key", "this key range is empty")
                            .label(p.span, format!("{a} > {b}")),
                    );
                    return None;
                }
                Some((*a, *b))
            }
            ast::Pattern::Wildcard => None,
            ast::Pattern::Name(n) if domain == (1, 13) && rank(n).is_some() => {
                rank(n).map(|k| (k, k))
            }
            ast::Pattern::NamedRange(a, b)
                if domain == (1, 13) && rank(a).is_some() && rank(b).is_some() =>
            {
                let (x, y) = (rank(a).unwrap_or(0), rank(b).unwrap_or(0));
                if x > y {
                    self.err(
                        Diag::error("check::table_key", "this key range is empty")
                            .label(p.span, format!("{a} > {b}")),
                    );
                    return None;
                }
                Some((x, y))
            }
            _ => {
                let help = if domain == (1, 13) {
                    "keys are numbers, ranges like `2..10`, the ranks `A`, `J`, `Q`, `K`, or `_` for the rest"
                } else {
                    "keys are numbers, ranges like `2..4`, or `_` for the rest"
                };
                self.err(
                    Diag::error("check::table_key", "this is not a table key")
                        .label(p.span, "not a key")
                        .help(help),
                );
                None
            }
        }
    }

    /// A table literal given for a `table lo..hi of T` field must cover every key exactly once.
    /// Over card ranks, an entry written `A` wins rank 1 over a number range starting at 1 (as in
    /// rulebooks that list "1-2" and "A"): returns the indexes of entries whose first key moves
    /// from 1 to 2, after a warning that says so.
    fn coverage(&mut self, e: &ast::Expr, lo: i64, hi: i64, field: &str) -> Vec<usize> {
        let ast::ExprKind::TableLit(entries) = &e.kind else {
            return Vec::new();
        };
        let rank_table = (lo, hi) == (1, 13);
        let written_ace = |p: &ast::Pattern| {
            matches!(p, ast::Pattern::Name(n) if n == "A")
                || matches!(p, ast::Pattern::NamedRange(n, _) if n == "A")
        };
        let ace_entry = entries
            .iter()
            .find(|(p, _)| written_ace(&p.node))
            .map(|(p, _)| p.span);
        let mut shifted = Vec::new();
        let mut covered: Vec<(i64, i64, Span)> = Vec::new();
        let mut wildcard = false;
        for (i, (pat, _)) in entries.iter().enumerate() {
            if matches!(pat.node, ast::Pattern::Wildcard) {
                wildcard = true;
                continue;
            }
            let Some((mut a, mut b)) = self.table_key(pat, (lo, hi)) else {
                continue;
            };
            if a < lo || b > hi {
                self.err(
                    Diag::error(
                        "check::table_key",
                        format!(
                            "field `{field}` is a table over {lo}..{hi}; this key is outside it"
                        ),
                    )
                    .label(
                        pat.span,
                        format!(
                            "{} is not in {lo}..{hi}",
                            if a == b {
                                a.to_string()
                            } else {
                                format!("{a}..{b}")
                            }
                        ),
                    )
                    .help(if (lo, hi) == (1, 6) {
                        "a die has faces 1 to 6".to_string()
                    } else {
                        format!("keys run from {lo} to {hi}")
                    }),
                );
                // What lies inside the range still counts, so one mistake gives one error.
                a = a.max(lo);
                b = b.min(hi);
                if a > b {
                    continue;
                }
            }
            if let (true, Some(ace), false, 1) = (rank_table, ace_entry, written_ace(&pat.node), a)
            {
                let rest = if b > 1 {
                    format!("2..{b}")
                } else {
                    "nothing".to_string()
                };
                self.err(
                    Diag::warning("check::ace", "this table lists both `1` and `A`")
                        .label(ace, "`A` is the Ace: rank 1")
                        .label(pat.span, format!("so this entry covers {rest}"))
                        .help("the checker reads `A` as rank 1 and lets the `A` entry win it over a number range that starts at 1; write the range from 2 to say so and silence this warning"),
                );
                shifted.push(i);
                a = 2;
                if a > b {
                    continue;
                }
            }
            for (x, y, span) in covered.clone() {
                if a <= y && x <= b {
                    let (p, q) = (a.max(x), b.min(y));
                    let keys = if p == q {
                        format!("key {p} is")
                    } else {
                        format!("keys {p}..{q} are")
                    };
                    self.err(
                        Diag::error(
                            "check::table_overlap",
                            format!("in field `{field}`, {keys} covered twice"),
                        )
                        .label(pat.span, "this entry")
                        .label(span, "overlaps this one")
                        .help("every key must be covered exactly once"),
                    );
                }
            }
            covered.push((a, b, pat.span));
        }
        if wildcard {
            return shifted;
        }
        let mut missing: Vec<String> = Vec::new();
        let mut k = lo;
        while k <= hi {
            if covered.iter().any(|(a, b, _)| *a <= k && k <= *b) {
                k += 1;
                continue;
            }
            let start = k;
            while k <= hi && !covered.iter().any(|(a, b, _)| *a <= k && k <= *b) {
                k += 1;
            }
            let name = |n: i64| -> String {
                match (rank_table, n) {
                    (true, 1) => "A".into(),
                    (true, 11) => "J".into(),
                    (true, 12) => "Q".into(),
                    (true, 13) => "K".into(),
                    _ => n.to_string(),
                }
            };
            missing.push(if start == k - 1 {
                name(start)
            } else {
                format!("{}..{}", name(start), name(k - 1))
            });
            if missing.len() > 8 {
                break;
            }
        }
        if !missing.is_empty() {
            let what = match (lo, hi) {
                (1, 6) => "die faces",
                (1, 13) => "ranks",
                _ => "keys",
            };
            self.err(
                Diag::error(
                    "check::table_gap",
                    format!(
                        "field `{field}` does not cover {what} {}",
                        missing.join(", ")
                    ),
                )
                .label(
                    e.span,
                    format!("this table must cover {lo}..{hi} exactly once"),
                )
                .help(format!(
                    "add entries for {}, or `_: ...` for every key not listed",
                    missing.join(", ")
                )),
            );
        }
        shifted
    }

    /// `unique` fields: no two cards of a kind may share a value.
    fn check_unique(&mut self) {
        for (k, kd) in self.prog.kinds.clone().iter().enumerate() {
            for fd in kd.fields.iter().filter(|f| f.unique && !f.mutable) {
                let Some(Some((false, slot))) = kd.slot_of.get(fd.sym as usize).copied() else {
                    continue;
                };
                let mut seen: Vec<(Value, Span)> = Vec::new();
                for cd in self.prog.cards.iter().filter(|c| c.kind == k as Id) {
                    let Some(v) = cd.fields.get(slot as usize) else {
                        continue;
                    };
                    if *v == Value::None {
                        continue;
                    }
                    let span = cd
                        .field_spans
                        .iter()
                        .find(|(s, _)| *s == fd.sym)
                        .map(|(_, sp)| *sp)
                        .unwrap_or(cd.span);
                    if let Some((_, first)) = seen.iter().find(|(x, _)| x == v) {
                        let shown = match v {
                            Value::Text(t) => format!("\"{t}\""),
                            Value::Int(n) => n.to_string(),
                            _ => "this value".into(),
                        };
                        self.diags.push(
                            Diag::error(
                                "check::duplicate_value",
                                format!("two `{}` cards have the {} {shown}", kd.name, fd.name),
                            )
                            .label(span, "again here")
                            .label(*first, "first here")
                            .help(format!(
                                "`{}` is declared `unique` in `kind {}`",
                                fd.name, kd.name
                            )),
                        );
                    } else {
                        seen.push((v.clone(), span));
                    }
                }
            }
        }
    }

    /// Card field values are constant: literals, variants, card references, lists, tuples.
    fn const_value(&mut self, e: &ast::Expr) -> Option<Value> {
        use ast::ExprKind as E;
        Some(match &e.kind {
            E::Int(n) => Value::Int(*n),
            E::Bool(b) => Value::Bool(*b),
            E::None => Value::None,
            E::Text(parts) => {
                let mut s = String::new();
                for p in parts {
                    match p {
                        ast::StrPart::Text(t) => s.push_str(t),
                        ast::StrPart::Expr(x) => {
                            self.err(
                                Diag::error(
                                    "check::not_constant",
                                    "card fields cannot interpolate",
                                )
                                .label(x.span, "a constant text is expected"),
                            );
                            return None;
                        }
                    }
                }
                Value::text(&s)
            }
            E::Unary(UnOp::Neg, inner) => match self.const_value(inner)? {
                Value::Int(n) => Value::Int(n.checked_neg().unwrap_or(i64::MAX)),
                _ => {
                    self.err(
                        Diag::error("check::type", "only numbers can be negated")
                            .label(e.span, "here"),
                    );
                    return None;
                }
            },
            E::CardRef(id) => Value::Card(self.card_ref(id, e.span)?),
            E::Name(n) => match self.globals.get(n) {
                Some((Global::Variant(en, v), _)) => Value::Enum(*en, *v),
                _ => {
                    let names: Vec<String> = self
                        .prog
                        .enums
                        .iter()
                        .flat_map(|en| en.variants.iter().cloned())
                        .collect();
                    let help = did_you_mean(n, names.iter().map(|s| s.as_str()));
                    self.err(
                        Diag::error("check::unknown_name", format!("unknown name `{n}`"))
                            .label(e.span, "not an enum variant")
                            .maybe_help(help),
                    );
                    return None;
                }
            },
            E::List(items) => {
                let mut out = Vec::new();
                for i in items {
                    out.push(self.const_value(i)?);
                }
                Value::list(out)
            }
            E::Tuple(items) => {
                let mut out = Vec::new();
                for i in items {
                    out.push(self.const_value(i)?);
                }
                Value::tuple(out)
            }
            E::TableLit(entries) => {
                let mut out = Vec::new();
                for (pat, v) in entries {
                    let (a, b) = match &pat.node {
                        ast::Pattern::Wildcard => (i64::MIN, i64::MAX),
                        _ => self.table_key(pat, (1, 13)).unwrap_or((i64::MIN, i64::MIN)),
                    };
                    let v = self.const_value(v)?;
                    out.push(Value::tuple(vec![Value::Int(a), Value::Int(b), v]));
                }
                Value::list(out)
            }
            _ => {
                self.err(
                    Diag::error("check::not_constant", "a card field must be a constant")
                        .label(e.span, "not a constant")
                        .help("use numbers, text, enum variants, card references like `@12`, or lists of those"),
                );
                return None;
            }
        })
    }

    fn card_ref(&mut self, id: &CardId, span: Span) -> Option<Id> {
        let key = card_key(id);
        match self.card_index.get(&key) {
            Some(&c) => Some(c),
            None => {
                let mut help = did_you_mean(&key, self.card_index.keys().map(|s| s.as_str()));
                if let CardId::Num(n) = id {
                    let mut nums: Vec<i64> = self
                        .prog
                        .cards
                        .iter()
                        .filter_map(|c| match c.id {
                            CardId::Num(n) => Some(n),
                            _ => None,
                        })
                        .collect();
                    nums.sort();
                    if let (Some(lo), Some(hi)) = (nums.first(), nums.last()) {
                        help = Some(format!(
                            "numbered cards run from {lo} to {hi}; there is no card {n}"
                        ));
                    }
                }
                self.err(
                    Diag::error("check::unknown_card", format!("there is no card `@{key}`"))
                        .label(span, "this card does not exist")
                        .maybe_help(help),
                );
                None
            }
        }
    }

    pub fn value_type(&self, v: &Value) -> Ty {
        self.value_ty(v)
    }

    fn ty_name(&self, t: &Ty) -> String {
        match t {
            Ty::Any => "any".into(),
            Ty::Int => "int".into(),
            Ty::Bool => "bool".into(),
            Ty::Text => "text".into(),
            Ty::Player => "player".into(),
            Ty::None => "none".into(),
            Ty::Enum(e) => self
                .prog
                .enums
                .get(*e as usize)
                .map(|e| e.name.clone())
                .unwrap_or_default(),
            Ty::Card(Some(k)) => self
                .prog
                .kinds
                .get(*k as usize)
                .map(|k| k.name.clone())
                .unwrap_or_default(),
            Ty::Card(None) => "card".into(),
            Ty::Zone(Some(k)) => format!(
                "zone of {}",
                self.prog
                    .kinds
                    .get(*k as usize)
                    .map(|k| k.name.as_str())
                    .unwrap_or("")
            ),
            Ty::Zone(None) => "zone".into(),
            Ty::List(t) => format!("list of {}", self.ty_name(t)),
            Ty::Tuple(ts) => format!(
                "({})",
                ts.iter()
                    .map(|t| self.ty_name(t))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }

    fn value_ty(&self, v: &Value) -> Ty {
        match v {
            Value::None => Ty::None,
            Value::Int(_) => Ty::Int,
            Value::Bool(_) => Ty::Bool,
            Value::Text(_) => Ty::Text,
            Value::Enum(e, _) => Ty::Enum(*e),
            Value::Card(c) => Ty::Card(
                self.prog
                    .cards
                    .get(*c as usize)
                    .map(|c| c.kind)
                    .filter(|k| *k != u32::MAX),
            ),
            Value::Player(_) => Ty::Player,
            Value::Zone(_) => Ty::Zone(None),
            Value::List(items) => Ty::List(Box::new(
                items.first().map(|i| self.value_ty(i)).unwrap_or(Ty::Any),
            )),
            Value::Tuple(items) => Ty::Tuple(items.iter().map(|i| self.value_ty(i)).collect()),
        }
    }

    fn check_value_ty(&mut self, v: &Value, want: &Ty, span: Span, field: &str) {
        if let (Value::List(items), Ty::List(elem)) = (v, want) {
            for i in items.iter() {
                self.check_value_ty(i, elem, span, field);
            }
            return;
        }
        let got = self.value_ty(v);
        if !compatible(want, &got) {
            let (w, g) = (self.ty_name(want), self.ty_name(&got));
            let help = match (want, v) {
                (Ty::Card(_), Value::Int(n)) => Some(format!("write a card reference: `@{n}`")),
                (Ty::Enum(e), _) => Some(format!(
                    "`{}` is one of: {}",
                    self.prog.enums[*e as usize].name,
                    self.prog.enums[*e as usize].variants.join(", ")
                )),
                _ => None,
            };
            self.err(
                Diag::error(
                    "check::field_type",
                    format!("field `{field}` must be {w}, found {g}"),
                )
                .label(span, format!("this is {g}"))
                .maybe_help(help),
            );
        }
    }

    fn table(&mut self, id: usize, t: &ast::TableDecl) {
        let key_ty = self.resolve_type(&t.key_ty);
        let val_ty = self.resolve_type(&t.val_ty);
        self.begin(Ctx::Other);
        let mut entries = Vec::new();
        let mut covered: Vec<(i64, i64, Span)> = Vec::new();
        for (pat, e) in &t.entries {
            let p = self.pattern(pat, &key_ty);
            if let Pat::Int(n) = p {
                covered.push((n, n, pat.span));
            }
            if let Pat::Range(a, b) = p {
                covered.push((a, b, pat.span));
            }
            let (x, ty) = self.expr(e);
            self.expect_ty(&val_ty, &ty, e.span, "this table value");
            entries.push((p, x, pat.span));
        }
        // Overlapping integer keys are always a mistake.
        covered.sort_by_key(|c| c.0);
        for w in covered.windows(2) {
            if let [a, b] = w {
                if b.0 <= a.1 {
                    self.err(
                        Diag::error(
                            "check::table_overlap",
                            format!("table `{}` covers key {} twice", t.name.node, b.0),
                        )
                        .label(b.2, "this entry")
                        .label(a.2, "overlaps this one"),
                    );
                }
            }
        }
        let locals = self.end();
        let td = &mut self.prog.tables[id];
        td.entries = entries;
        td.locals = locals;
    }

    fn pattern(&mut self, p: &ast::Spanned<ast::Pattern>, scrut: &Ty) -> Pat {
        match &p.node {
            ast::Pattern::Wildcard => Pat::Wildcard,
            ast::Pattern::Int(n) => Pat::Int(*n),
            ast::Pattern::Range(a, b) => {
                if a > b {
                    self.err(
                        Diag::error("check::pattern", "this range is empty").label(p.span, "here"),
                    );
                }
                Pat::Range(*a, *b)
            }
            ast::Pattern::Text(s) => Pat::Value(Value::text(s)),
            ast::Pattern::NamedRange(..) => {
                self.err(
                    Diag::error(
                        "check::pattern",
                        "a range of names is only for table keys over card ranks",
                    )
                    .label(p.span, "here")
                    .help("write the numbers, like `2..10`"),
                );
                Pat::Wildcard
            }
            ast::Pattern::Name(n) => match self.globals.get(n).copied() {
                Some((Global::Variant(e, v), _)) => {
                    let (e, v) = (&e, &v);
                    if let Ty::Enum(want) = scrut {
                        if want != e {
                            let (w, g) = (
                                self.prog.enums[*want as usize].name.clone(),
                                self.prog.enums[*e as usize].name.clone(),
                            );
                            let help = did_you_mean(
                                n,
                                self.prog.enums[*want as usize]
                                    .variants
                                    .iter()
                                    .map(|s| s.as_str()),
                            );
                            self.err(
                                Diag::error(
                                    "check::pattern",
                                    format!("`{n}` is a `{g}`, but this matches a `{w}`"),
                                )
                                .label(p.span, "wrong enum")
                                .maybe_help(help),
                            );
                        }
                    }
                    Pat::Value(Value::Enum(*e, *v))
                }
                _ => {
                    let names: Vec<String> = match scrut {
                        Ty::Enum(e) => self.prog.enums[*e as usize].variants.clone(),
                        _ => self
                            .prog
                            .enums
                            .iter()
                            .flat_map(|e| e.variants.iter().cloned())
                            .collect(),
                    };
                    let help = did_you_mean(n, names.iter().map(|s| s.as_str()));
                    self.err(
                        Diag::error("check::unknown_name", format!("unknown variant `{n}`"))
                            .label(p.span, "not an enum variant")
                            .maybe_help(help),
                    );
                    Pat::Wildcard
                }
            },
        }
    }

    fn trigger(&mut self, t: &ast::TriggerDecl) {
        self.begin(Ctx::Other);
        let mut target = None;
        let mut bind_ty = Ty::Any;
        match t.event.node {
            EventKind::Enter => match &t.target {
                Some(z) => match self.globals.get(&z.node) {
                    Some((Global::Zone(id), _)) => {
                        target = Some(*id);
                        bind_ty = Ty::Card(self.prog.zones[*id as usize].kind);
                    }
                    _ => {
                        let help =
                            did_you_mean(&z.node, self.prog.zones.iter().map(|z| z.name.as_str()));
                        self.err(
                            Diag::error(
                                "check::unknown_zone",
                                format!("unknown zone `{}`", z.node),
                            )
                            .label(z.span, "not a zone")
                            .maybe_help(help),
                        );
                    }
                },
                None => self.err(
                    Diag::error(
                        "check::trigger",
                        "`on enter` needs a zone: `on enter ZONE as c`",
                    )
                    .label(t.event.span, "which zone?"),
                ),
            },
            EventKind::PhaseStart | EventKind::PhaseEnd => match &t.target {
                Some(p) => match self.globals.get(&p.node) {
                    Some((Global::Phase(id), _)) => target = Some(*id),
                    _ => {
                        let help =
                            did_you_mean(&p.node, self.prog.phases.iter().map(|z| z.name.as_str()));
                        self.err(
                            Diag::error(
                                "check::unknown_phase",
                                format!("unknown phase `{}`", p.node),
                            )
                            .label(p.span, "not a phase")
                            .maybe_help(help),
                        );
                    }
                },
                None => self.err(
                    Diag::error("check::trigger", "this event needs a phase name")
                        .label(t.event.span, "which phase?"),
                ),
            },
            EventKind::Flip => bind_ty = Ty::Card(None),
            EventKind::RoundStart | EventKind::RoundEnd => {
                if let Some(x) = &t.target {
                    self.err(
                        Diag::error("check::trigger", "round events take no target")
                            .label(x.span, "remove this"),
                    );
                }
            }
        }
        let binding = match &t.binding {
            Some(b) => {
                if matches!(t.event.node, EventKind::Enter | EventKind::Flip) {
                    Some(self.bind(&b.node, bind_ty))
                } else {
                    self.err(
                        Diag::error(
                            "check::trigger",
                            "only `enter` and `flip` events bind a card",
                        )
                        .label(b.span, "nothing to bind"),
                    );
                    None
                }
            }
            None => None,
        };
        let condition = t.condition.as_ref().map(|c| {
            let (x, ty) = self.expr(c);
            self.expect_ty(&Ty::Bool, &ty, c.span, "a trigger condition");
            x
        });
        let body = self.block(&t.body);
        let locals = self.end();
        self.prog.triggers.push(TriggerDef {
            event: t.event.node,
            target,
            binding,
            condition,
            body,
            locals,
            span: t.event.span,
        });
    }

    fn game(&mut self, g: &ast::GameDecl) {
        let mut info = GameInfo {
            name: g.name.node.clone(),
            ..GameInfo::default()
        };
        let mut have_players = false;
        let keys = [
            "players", "rounds", "round", "end_when", "finish", "score", "tiebreak",
        ];
        for (k, e) in &g.entries {
            match k.node.as_str() {
                "players" => {
                    have_players = true;
                    match self.const_int_range(e) {
                        Some((lo, hi)) if lo >= 1 && hi <= 64 && lo <= hi => {
                            info.min_players = lo as u32;
                            info.max_players = hi as u32;
                        }
                        _ => self.err(
                            Diag::error(
                                "check::players",
                                "`players` must be a count or a range within 1..64",
                            )
                            .label(e.span, "like `3..5`"),
                        ),
                    }
                }
                "default_players" => match self.const_int_range(e) {
                    Some((n, m)) if n == m && n >= 1 => info.default_players = Some(n as u32),
                    _ => self.err(
                        Diag::error("check::players", "`default_players` must be one number")
                            .label(e.span, "like `15`"),
                    ),
                },
                "rounds" => match self.const_int_range(e) {
                    Some((n, m)) if n == m && n >= 1 => info.rounds = Some(n),
                    _ => self.err(
                        Diag::error("check::rounds", "`rounds` must be a positive number")
                            .label(e.span, "like `4`"),
                    ),
                },
                "round" => {
                    let names = self.name_list(e);
                    for (n, span) in names {
                        if let Some(p) = self.phase_named(&n, span) {
                            info.round_phases.push(p);
                        }
                    }
                }
                "finish" => {
                    if let Some((n, span)) = self.name_list(e).into_iter().next() {
                        info.finish = self.phase_named(&n, span);
                    }
                }
                "score" => {
                    if let Some((n, span)) = self.name_list(e).into_iter().next() {
                        info.score = self.fn_named(&n, span, 1);
                    }
                }
                "tiebreak" => {
                    for (n, span) in self.name_list(e) {
                        if let Some(f) = self.fn_named(&n, span, 1) {
                            info.tiebreaks.push(f);
                        }
                    }
                }
                "end_when" => {
                    self.begin(Ctx::Other);
                    let (x, ty) = self.expr(e);
                    self.expect_ty(&Ty::Bool, &ty, e.span, "`end_when`");
                    let locals = self.end();
                    info.end_when = Some((x, locals));
                }
                other => {
                    let help = did_you_mean(other, keys.iter().copied());
                    self.err(
                        Diag::error(
                            "check::game_entry",
                            format!("unknown game setting `{other}`"),
                        )
                        .label(k.span, "not a game setting")
                        .maybe_help(
                            help.or(Some(format!("the settings are: {}", keys.join(", ")))),
                        ),
                    );
                }
            }
        }
        if !have_players {
            self.err(
                Diag::error(
                    "check::players",
                    "the game does not say how many players it takes",
                )
                .label(g.name.span, "this game")
                .help("add `players: 3..5` (or one number) to the `game` block"),
            );
        }
        if let Some(d) = info.default_players {
            if have_players && (d < info.min_players || d > info.max_players) {
                self.err(
                    Diag::error(
                        "check::players",
                        format!(
                            "`default_players: {d}` is outside `players: {}..{}`",
                            info.min_players, info.max_players
                        ),
                    )
                    .label(g.name.span, "this game"),
                );
            }
        }
        if info.round_phases.is_empty() {
            self.err(
                Diag::error("check::round", "the game has no phases to play")
                    .label(g.name.span, "this game")
                    .help("add `round: [phase_a, phase_b]` to the `game` block"),
            );
        }
        if info.rounds.is_none() && info.end_when.is_none() && !self.calls_finish {
            self.err(
                Diag::error("check::endless", "the game never ends")
                    .label(g.name.span, "this game")
                    .help("add `rounds: N` or `end_when: condition` to the `game` block, or call `finish_game()` from a rule"),
            );
        }
        self.prog.game = info;
    }

    fn const_int_range(&mut self, e: &ast::Expr) -> Option<(i64, i64)> {
        match &e.kind {
            ast::ExprKind::Int(n) => Some((*n, *n)),
            ast::ExprKind::Binary(BinOp::Range, a, b) => match (&a.kind, &b.kind) {
                (ast::ExprKind::Int(x), ast::ExprKind::Int(y)) => Some((*x, *y)),
                _ => None,
            },
            _ => None,
        }
    }

    fn name_list(&mut self, e: &ast::Expr) -> Vec<(String, Span)> {
        match &e.kind {
            ast::ExprKind::Name(n) => vec![(n.clone(), e.span)],
            ast::ExprKind::List(items) => items.iter().flat_map(|i| self.name_list(i)).collect(),
            _ => {
                self.err(
                    Diag::error("check::game_entry", "expected a name or a list of names")
                        .label(e.span, "here"),
                );
                vec![]
            }
        }
    }

    fn phase_named(&mut self, n: &str, span: Span) -> Option<Id> {
        match self.globals.get(n) {
            Some((Global::Phase(p), _)) => {
                self.referenced_phases[*p as usize] = true;
                Some(*p)
            }
            _ => {
                let help = did_you_mean(n, self.prog.phases.iter().map(|p| p.name.as_str()));
                self.err(
                    Diag::error("check::unknown_phase", format!("unknown phase `{n}`"))
                        .label(span, "no `phase` has this name")
                        .maybe_help(help),
                );
                None
            }
        }
    }

    fn fn_named(&mut self, n: &str, span: Span, arity: usize) -> Option<Id> {
        match self.globals.get(n).copied() {
            Some((Global::Fn(f), _)) => {
                let f = &f;
                let got = self.prog.fns[*f as usize].params.len();
                if got != arity {
                    self.err(
                        Diag::error(
                            "check::arity",
                            format!("`{n}` must take {arity} argument (a player), it takes {got}"),
                        )
                        .label(span, "here"),
                    );
                }
                Some(*f)
            }
            _ => {
                let help = did_you_mean(n, self.prog.fns.iter().map(|p| p.name.as_str()));
                self.err(
                    Diag::error("check::unknown_fn", format!("unknown function `{n}`"))
                        .label(span, "no `fn` has this name")
                        .maybe_help(help),
                );
                None
            }
        }
    }

    fn check_recursion(&mut self) {
        // Depth-first search for a cycle in the call graph.
        let n = self.calls.len();
        let mut state = vec![0u8; n];
        for start in 0..n {
            if state[start] != 0 {
                continue;
            }
            let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
            state[start] = 1;
            while let Some((f, i)) = stack.pop() {
                if let Some(&(g, span)) = self.calls[f].get(i) {
                    stack.push((f, i + 1));
                    let g = g as usize;
                    if state[g] == 1 {
                        let (fname, gname) =
                            (self.prog.fns[f].name.clone(), self.prog.fns[g].name.clone());
                        let msg = if f == g {
                            format!("function `{fname}` calls itself")
                        } else {
                            format!("functions `{gname}` and `{fname}` call each other")
                        };
                        self.err(
                            Diag::error("check::recursion", msg)
                                .label(span, "this call closes the loop")
                                .help("recursion is not allowed: loop over a collection or a fixed count instead"),
                        );
                        state[g] = 2;
                    } else if state[g] == 0 {
                        state[g] = 1;
                        stack.push((g, 0));
                    }
                } else {
                    state[f] = 2;
                }
            }
        }
    }

    fn order_consts(&mut self) {
        let n = self.prog.consts.len();
        let mut state = vec![0u8; n];
        let mut order = Vec::new();
        fn visit(
            c: usize,
            refs: &[Vec<Id>],
            state: &mut [u8],
            order: &mut Vec<Id>,
            cyc: &mut Option<usize>,
        ) {
            if state[c] == 2 {
                return;
            }
            if state[c] == 1 {
                *cyc = Some(c);
                return;
            }
            state[c] = 1;
            for &d in &refs[c] {
                if (d as usize) < state.len() {
                    visit(d as usize, refs, state, order, cyc);
                }
            }
            state[c] = 2;
            order.push(c as Id);
        }
        let mut cyc = None;
        for c in 0..n {
            visit(c, &self.const_refs, &mut state, &mut order, &mut cyc);
        }
        if let Some(c) = cyc {
            let (name, span) = (self.prog.consts[c].name.clone(), self.prog.consts[c].span);
            self.err(
                Diag::error(
                    "check::const_cycle",
                    format!("constant `{name}` depends on itself"),
                )
                .label(span, "here"),
            );
        }
        self.prog.const_order = order;
    }

    // ================================================================ scopes

    fn begin(&mut self, ctx: Ctx) {
        self.scopes = vec![vec![]];
        self.next_local = 0;
        self.max_local = 0;
        self.ctx = ctx;
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

    // ================================================================ types

    fn expect_ty(&mut self, want: &Ty, got: &Ty, span: Span, what: &str) {
        if !compatible(want, got) {
            let (w, g) = (self.ty_name(want), self.ty_name(got));
            self.err(
                Diag::error("check::type", format!("{what} must be {w}, found {g}"))
                    .label(span, format!("this is {g}")),
            );
        }
    }

    // ================================================================ statements

    pub fn block(&mut self, b: &ast::Block) -> Block {
        self.push_scope();
        let stmts = b.stmts.iter().filter_map(|s| self.stmt(s)).collect();
        self.pop_scope();
        Block {
            stmts,
            span: b.span,
        }
    }

    /// The block's value type: its last statement's, when that is an expression.
    fn block_expr(&mut self, b: &ast::Block) -> (Block, Ty) {
        self.push_scope();
        let mut stmts = Vec::new();
        let mut ty = Ty::None;
        for (i, s) in b.stmts.iter().enumerate() {
            let last = i + 1 == b.stmts.len();
            if last {
                if let ast::StmtKind::Expr(e) = &s.kind {
                    let (x, t) = self.expr(e);
                    ty = t;
                    stmts.push(Stmt {
                        kind: StmtKind::Expr(x),
                        span: s.span,
                    });
                    continue;
                }
            }
            if let Some(st) = self.stmt(s) {
                stmts.push(st);
            }
        }
        self.pop_scope();
        (
            Block {
                stmts,
                span: b.span,
            },
            ty,
        )
    }

    fn stmt(&mut self, s: &ast::Stmt) -> Option<Stmt> {
        use ast::StmtKind as S;
        let kind = match &s.kind {
            S::Let(name, e) => {
                let (x, ty) = self.expr(e);
                let slot = self.bind(&name.node, ty);
                StmtKind::Let(slot, x)
            }
            S::Set(target, op, e) => {
                let place = self.place(target)?;
                let (x, ty) = self.expr(e);
                if *op != ast::AssignOp::Set {
                    self.expect_ty(&Ty::Int, &ty, e.span, "the amount");
                }
                StmtKind::Assign(place, *op, x)
            }
            S::Move(what, to, pos) => {
                let (w, wt) = self.expr(what);
                if !matches!(
                    wt,
                    Ty::Any | Ty::Card(_) | Ty::List(_) | Ty::Zone(_) | Ty::None
                ) {
                    let g = self.ty_name(&wt);
                    self.err(
                        Diag::error("check::type", format!("`move` moves cards, found {g}"))
                            .label(what.span, format!("this is {g}")),
                    );
                }
                let (t, tt) = self.expr(to);
                self.expect_zone(&tt, to.span);
                StmtKind::Move(w, t, *pos)
            }
            S::Draw(n, from, to) => {
                let (nx, nt) = self.expr(n);
                self.expect_ty(&Ty::Int, &nt, n.span, "the number of cards");
                let (f, ft) = self.expr(from);
                self.expect_zone(&ft, from.span);
                let (t, tt) = self.expr(to);
                self.expect_zone(&tt, to.span);
                StmtKind::Draw(nx, f, t)
            }
            S::Shuffle(z) => {
                let (x, t) = self.expr(z);
                self.expect_zone(&t, z.span);
                StmtKind::Shuffle(x)
            }
            S::Flip(e, dir) => {
                let (x, t) = self.expr(e);
                if !matches!(t, Ty::Any | Ty::Card(_) | Ty::List(_) | Ty::Zone(_)) {
                    let g = self.ty_name(&t);
                    self.err(
                        Diag::error("check::type", format!("`flip` turns cards over, found {g}"))
                            .label(e.span, format!("this is {g}")),
                    );
                }
                StmtKind::Flip(x, *dir)
            }
            S::Reveal(e) => StmtKind::Reveal(self.expr(e).0),
            S::For(var, src, body) => {
                let (x, t) = self.expr(src);
                if !matches!(t, Ty::Any | Ty::List(_) | Ty::Zone(_)) {
                    let g = self.ty_name(&t);
                    self.err(
                        Diag::error(
                            "check::type",
                            format!("`for` needs a list, a zone or a range, found {g}"),
                        )
                        .label(src.span, format!("this is {g}")),
                    );
                }
                self.push_scope();
                let slot = self.bind(&var.node, t.elem());
                let b = self.block(body);
                self.pop_scope();
                StmtKind::For(slot, x, b)
            }
            S::Repeat(n, body) => {
                let (x, t) = self.expr(n);
                self.expect_ty(&Ty::Int, &t, n.span, "`repeat`'s count");
                StmtKind::Repeat(x, self.block(body))
            }
            S::Say(e) => StmtKind::Say(self.expr(e).0),
            S::Return(e) => {
                if self.ctx == Ctx::Other {
                    self.err(
                        Diag::error("check::return", "`return` outside a function")
                            .label(s.span, "only a `fn` body can return"),
                    );
                }
                StmtKind::Return(e.as_ref().map(|e| self.expr(e).0))
            }
            S::Secretly(b) => StmtKind::Secretly(self.block(b)),
            S::Step(name, b) => StmtKind::Step(name.node.clone(), self.block(b)),
            S::Expr(e) => {
                if matches!(
                    e.kind,
                    ast::ExprKind::Name(_)
                        | ast::ExprKind::Int(_)
                        | ast::ExprKind::Text(_)
                        | ast::ExprKind::CardRef(_)
                ) {
                    self.err(
                        Diag::warning("check::no_effect", "this statement does nothing")
                            .label(e.span, "a value on its own, not an action")
                            .help("did you mean a statement such as `shuffle ...`, `move ... to ...` or a call `name(...)`?"),
                    );
                }
                StmtKind::Expr(self.expr(e).0)
            }
        };
        Some(Stmt { kind, span: s.span })
    }

    fn expect_zone(&mut self, t: &Ty, span: Span) {
        if !matches!(t, Ty::Any | Ty::Zone(_)) {
            let g = self.ty_name(t);
            self.err(
                Diag::error("check::type", format!("expected a zone, found {g}"))
                    .label(span, format!("this is {g}")),
            );
        }
    }

    fn place(&mut self, target: &ast::Expr) -> Option<Place> {
        use ast::ExprKind as E;
        match &target.kind {
            E::Name(n) => {
                if let Some((slot, _)) = self.lookup_local(n) {
                    return Some(Place::Local(slot));
                }
                match self.globals.get(n).copied() {
                    Some((Global::Var(v), _)) => {
                        if !self.prog.vars[v as usize].keys.is_empty() {
                            let k = self.prog.vars[v as usize].keys.len();
                            self.err(
                                Diag::error("check::keys", format!("`{n}` is kept per key; say which: `{n}[...]` with {k} key(s)"))
                                    .label(target.span, "which one?"),
                            );
                            return None;
                        }
                        Some(Place::Var(v, vec![]))
                    }
                    Some((g, _)) => {
                        self.err(
                            Diag::error(
                                "check::assign",
                                format!(
                                    "`{n}` is {}; only vars, var fields and locals can be set",
                                    g.what()
                                ),
                            )
                            .label(target.span, "cannot be set"),
                        );
                        None
                    }
                    None => {
                        self.unknown_name(n, target.span);
                        None
                    }
                }
            }
            E::Index(base, keys) => {
                if let E::Name(n) = &base.kind {
                    match self.globals.get(n).copied() {
                        Some((Global::Var(v), _)) => {
                            let ks = self.keys(v, keys, target.span, false);
                            return Some(Place::Var(v, ks));
                        }
                        None if self.lookup_local(n).is_none() => {
                            self.unknown_name(n, base.span);
                            return None;
                        }
                        _ => {}
                    }
                }
                self.err(
                    Diag::error(
                        "check::assign",
                        "only vars, var fields and locals can be set",
                    )
                    .label(target.span, "cannot be set"),
                );
                None
            }
            E::Field(base, name) => {
                let (b, bt) = self.expr(base);
                let sym = self.field_sym(&bt, name, true)?;
                Some(Place::Field(b, sym))
            }
            _ => {
                self.err(
                    Diag::error("check::assign", "this cannot be set")
                        .label(target.span, "not a var, a var field or a local")
                        .help("write `set name = value`, `set counter[key] += 1` or `set card.field = value`"),
                );
                None
            }
        }
    }

    /// Resolve a field name on a value of type `t`; `mutating` requires a `var` field.
    fn field_sym(&mut self, t: &Ty, name: &ast::Ident, mutating: bool) -> Option<Id> {
        let kinds: Vec<Id> = match t {
            Ty::Card(Some(k)) => vec![*k],
            _ => (0..self.prog.kinds.len() as Id).collect(),
        };
        let mut found = None;
        for k in &kinds {
            if let Some(f) = self.prog.kinds[*k as usize]
                .fields
                .iter()
                .find(|f| f.name == name.node)
            {
                found = Some((f.sym, f.mutable, *k));
                if !mutating || f.mutable {
                    break;
                }
            }
        }
        match found {
            Some((sym, m, k)) => {
                if mutating && !m {
                    let kname = self.prog.kinds[k as usize].name.clone();
                    self.err(
                        Diag::error(
                            "check::not_var",
                            format!("field `{}` of `{kname}` cannot change", name.node),
                        )
                        .label(name.span, "not a `var` field")
                        .help(format!(
                            "declare it as `var {}: ...` in `kind {kname}` if rules may change it",
                            name.node
                        )),
                    );
                    return None;
                }
                Some(sym)
            }
            None => {
                let candidates: Vec<String> = kinds
                    .iter()
                    .flat_map(|k| {
                        self.prog.kinds[*k as usize]
                            .fields
                            .iter()
                            .map(|f| f.name.clone())
                    })
                    .chain(["id", "face_up", "kind"].iter().map(|s| s.to_string()))
                    .collect();
                let help = did_you_mean(&name.node, candidates.iter().map(|s| s.as_str()));
                let msg = match t {
                    Ty::Card(Some(k)) => format!(
                        "kind `{}` has no field `{}`",
                        self.prog.kinds[*k as usize].name, name.node
                    ),
                    _ => format!("no card kind has a field `{}`", name.node),
                };
                self.err(
                    Diag::error("check::unknown_field", msg)
                        .label(name.span, "unknown field")
                        .maybe_help(help),
                );
                None
            }
        }
    }

    fn keys(&mut self, _id: Id, keys: &[ast::Expr], span: Span, zone: bool) -> Vec<Expr> {
        let (domains, name) = if zone {
            let z = &self.prog.zones[_id as usize];
            (z.keys.clone(), z.name.clone())
        } else {
            let v = &self.prog.vars[_id as usize];
            (v.keys.clone(), v.name.clone())
        };
        if keys.len() != domains.len() {
            let want = domains.len();
            self.err(
                Diag::error(
                    "check::keys",
                    format!(
                        "`{name}` takes {want} key{}, found {}",
                        if want == 1 { "" } else { "s" },
                        keys.len()
                    ),
                )
                .label(span, "wrong number of keys")
                .help(format!(
                    "`{name}` is kept per {}",
                    domains
                        .iter()
                        .map(|d| self.domain_name(d))
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
            );
        }
        let mut out = Vec::new();
        for (i, k) in keys.iter().enumerate() {
            let (x, t) = self.expr(k);
            if let Some(d) = domains.get(i) {
                let want = match d {
                    KeyDomain::Player => Ty::Player,
                    KeyDomain::Enum(e) => Ty::Enum(*e),
                    KeyDomain::Range(..) => Ty::Int,
                };
                self.expect_ty(&want, &t, k.span, "this key");
            }
            out.push(x);
        }
        out
    }

    fn domain_name(&self, d: &KeyDomain) -> String {
        match d {
            KeyDomain::Player => "player".into(),
            KeyDomain::Enum(e) => self.prog.enums[*e as usize].name.clone(),
            KeyDomain::Range(a, b) => format!("{a}..{b}"),
        }
    }

    fn unknown_name(&mut self, n: &str, span: Span) {
        let mut names: Vec<String> = self.globals.keys().cloned().collect();
        names.sort();
        for s in &self.scopes {
            for l in s {
                names.push(l.name.clone());
            }
        }
        names.extend(
            ["players", "player_count", "round"]
                .iter()
                .map(|s| s.to_string()),
        );
        // A misspelt statement keyword reads as an unknown name: offer the keywords too.
        names.extend(
            [
                "let", "set", "move", "draw", "shuffle", "flip", "reveal", "for", "repeat", "say",
                "return", "secretly", "step", "match",
            ]
            .iter()
            .map(|s| s.to_string()),
        );
        let help = did_you_mean(n, names.iter().map(|s| s.as_str()));
        self.err(
            Diag::error("check::unknown_name", format!("unknown name `{n}`"))
                .label(span, "not declared anywhere")
                .maybe_help(help),
        );
    }

    // ================================================================ expressions

    pub fn expr(&mut self, e: &ast::Expr) -> (Expr, Ty) {
        use ast::ExprKind as E;
        let span = e.span;
        let mk = |kind| Expr { kind, span };
        match &e.kind {
            E::Int(n) => (mk(ExprKind::Const(Value::Int(*n))), Ty::Int),
            E::Bool(b) => (mk(ExprKind::Const(Value::Bool(*b))), Ty::Bool),
            E::None => (mk(ExprKind::Const(Value::None)), Ty::None),
            E::Text(parts) => {
                let mut out = Vec::new();
                let mut all_lit = true;
                for p in parts {
                    match p {
                        ast::StrPart::Text(t) => out.push(TextPart::Lit(t.clone())),
                        ast::StrPart::Expr(x) => {
                            all_lit = false;
                            out.push(TextPart::Expr(self.expr(x).0));
                        }
                    }
                }
                if all_lit {
                    let s: String = out
                        .iter()
                        .map(|p| match p {
                            TextPart::Lit(t) => t.as_str(),
                            TextPart::Expr(_) => "",
                        })
                        .collect();
                    return (mk(ExprKind::Const(Value::text(&s))), Ty::Text);
                }
                (mk(ExprKind::Text(out)), Ty::Text)
            }
            E::CardRef(id) => match self.card_ref(id, span) {
                Some(c) => {
                    let k = self.prog.cards[c as usize].kind;
                    (
                        mk(ExprKind::Const(Value::Card(c))),
                        Ty::Card((k != u32::MAX).then_some(k)),
                    )
                }
                None => (mk(ExprKind::Const(Value::None)), Ty::Any),
            },
            E::Name(n) => self.name(n, span),
            E::List(items) => {
                let mut out = Vec::new();
                let mut elem = Ty::Any;
                let mut first = true;
                for it in items {
                    let (x, t) = self.expr(it);
                    // `none` fits any element type, so it does not decide the list's.
                    if t != Ty::None {
                        if first {
                            elem = t;
                            first = false;
                        } else if !compatible(&elem, &t) {
                            elem = Ty::Any;
                        }
                    }
                    out.push(x);
                }
                (mk(ExprKind::List(out)), Ty::List(Box::new(elem)))
            }
            E::Tuple(items) => {
                let mut out = Vec::new();
                let mut tys = Vec::new();
                for it in items {
                    let (x, t) = self.expr(it);
                    out.push(x);
                    tys.push(t);
                }
                (mk(ExprKind::Tuple(out)), Ty::Tuple(tys))
            }
            E::Unary(op, inner) => {
                let (x, t) = self.expr(inner);
                let want = if *op == UnOp::Neg { Ty::Int } else { Ty::Bool };
                let what = if *op == UnOp::Neg {
                    "`-`'s operand"
                } else {
                    "`not`'s operand"
                };
                self.expect_ty(&want, &t, inner.span, what);
                (mk(ExprKind::Unary(*op, Box::new(x))), want)
            }
            E::Binary(op, a, b) => {
                let (x, ta) = self.expr(a);
                let (y, tb) = self.expr(b);
                let ty = match op {
                    BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Rem => {
                        let what = format!("the operands of `{}`", op.symbol());
                        self.expect_ty(&Ty::Int, &ta, a.span, &what);
                        self.expect_ty(&Ty::Int, &tb, b.span, &what);
                        Ty::Int
                    }
                    BinOp::Range => {
                        self.expect_ty(&Ty::Int, &ta, a.span, "a range's bounds");
                        self.expect_ty(&Ty::Int, &tb, b.span, "a range's bounds");
                        Ty::List(Box::new(Ty::Int))
                    }
                    BinOp::And | BinOp::Or => {
                        let what = format!("the operands of `{}`", op.symbol());
                        self.expect_ty(&Ty::Bool, &ta, a.span, &what);
                        self.expect_ty(&Ty::Bool, &tb, b.span, &what);
                        Ty::Bool
                    }
                    BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                        if !compatible(&ta, &tb) && !compatible(&tb, &ta) {
                            let (l, r) = (self.ty_name(&ta), self.ty_name(&tb));
                            self.err(
                                Diag::error(
                                    "check::compare",
                                    format!("cannot compare {l} with {r}"),
                                )
                                .label(a.span, l)
                                .label(b.span, r),
                            );
                        }
                        if !matches!(op, BinOp::Eq | BinOp::Ne) {
                            self.expect_ty(
                                &Ty::Int,
                                &ta,
                                a.span,
                                &format!("the operands of `{}`", op.symbol()),
                            );
                        }
                        Ty::Bool
                    }
                };
                (mk(ExprKind::Binary(*op, Box::new(x), Box::new(y))), ty)
            }
            E::Field(base, name) => {
                let (b, bt) = self.expr(base);
                if let Ok(i) = name.node.parse::<usize>() {
                    let t = match &bt {
                        Ty::Tuple(ts) => match ts.get(i) {
                            Some(t) => t.clone(),
                            None => {
                                self.err(
                                    Diag::error(
                                        "check::tuple",
                                        format!("this tuple has {} elements", ts.len()),
                                    )
                                    .label(name.span, "no such element"),
                                );
                                Ty::Any
                            }
                        },
                        _ => Ty::Any,
                    };
                    return (mk(ExprKind::TupleIndex(Box::new(b), i)), t);
                }
                match name.node.as_str() {
                    "id" => {
                        return (
                            mk(ExprKind::CardBuiltinField(Box::new(b), CardField::Id)),
                            Ty::Text,
                        )
                    }
                    "face_up" => {
                        return (
                            mk(ExprKind::CardBuiltinField(Box::new(b), CardField::FaceUp)),
                            Ty::Bool,
                        )
                    }
                    "kind" => {
                        return (
                            mk(ExprKind::CardBuiltinField(Box::new(b), CardField::Kind)),
                            Ty::Text,
                        )
                    }
                    _ => {}
                }
                if !matches!(bt, Ty::Any | Ty::Card(_)) {
                    let g = self.ty_name(&bt);
                    self.err(
                        Diag::error("check::field", format!("{g} has no fields"))
                            .label(base.span, format!("this is {g}"))
                            .label(name.span, "field asked for here"),
                    );
                    return (mk(ExprKind::Const(Value::None)), Ty::Any);
                }
                let Some(sym) = self.field_sym(&bt, name, false) else {
                    return (mk(ExprKind::Const(Value::None)), Ty::Any);
                };
                let ty = match &bt {
                    Ty::Card(Some(k)) => self.prog.kinds[*k as usize]
                        .fields
                        .iter()
                        .find(|f| f.sym == sym)
                        .map(|f| f.ty.clone())
                        .unwrap_or(Ty::Any),
                    _ => {
                        // Same type in every kind that has it? Then we know it.
                        let tys: Vec<Ty> = self
                            .prog
                            .kinds
                            .iter()
                            .filter_map(|k| {
                                k.fields.iter().find(|f| f.sym == sym).map(|f| f.ty.clone())
                            })
                            .collect();
                        if tys.windows(2).all(|w| w[0] == w[1]) {
                            tys.into_iter().next().unwrap_or(Ty::Any)
                        } else {
                            Ty::Any
                        }
                    }
                };
                (mk(ExprKind::Field(Box::new(b), sym)), ty)
            }
            E::Index(base, keys) => {
                if let E::Name(n) = &base.kind {
                    if self.lookup_local(n).is_none() {
                        match self.globals.get(n).copied() {
                            Some((Global::Zone(z), _)) => {
                                let ks = self.keys(z, keys, span, true);
                                let k = self.prog.zones[z as usize].kind;
                                return (mk(ExprKind::Zone(z, ks)), Ty::Zone(k));
                            }
                            Some((Global::Var(v), _)) => {
                                let ks = self.keys(v, keys, span, false);
                                let t = self.prog.vars[v as usize].ty.clone();
                                return (mk(ExprKind::Var(v, ks)), t);
                            }
                            Some((Global::Table(t), _)) => {
                                if keys.len() != 1 {
                                    self.err(
                                        Diag::error("check::keys", "a table takes one key")
                                            .label(span, "here"),
                                    );
                                }
                                let k = keys
                                    .first()
                                    .map(|k| self.expr(k).0)
                                    .unwrap_or(const_expr(Value::None, span));
                                return (mk(ExprKind::Table(t, Box::new(k))), Ty::Any);
                            }
                            _ => {}
                        }
                    }
                }
                let (b, bt) = self.expr(base);
                if keys.len() != 1 {
                    self.err(
                        Diag::error("check::keys", "a list takes one index").label(span, "here"),
                    );
                }
                let Some(k) = keys.first() else {
                    return (mk(ExprKind::Const(Value::None)), Ty::Any);
                };
                let (kx, kt) = self.expr(k);
                self.expect_ty(&Ty::Int, &kt, k.span, "a list index");
                if !matches!(bt, Ty::Any | Ty::List(_) | Ty::Zone(_)) {
                    let g = self.ty_name(&bt);
                    self.err(
                        Diag::error("check::type", format!("{g} cannot be indexed"))
                            .label(base.span, format!("this is {g}")),
                    );
                }
                (mk(ExprKind::Index(Box::new(b), Box::new(kx))), bt.elem())
            }
            E::Call(callee, args) => self.call(callee, args, span),
            E::If(c, then, els) => {
                let (cx, ct) = self.expr(c);
                self.expect_ty(&Ty::Bool, &ct, c.span, "an `if` condition");
                let (tb, tt) = self.block_expr(then);
                let (ex, et) = match els {
                    Some(x) => {
                        let (x, t) = self.expr(x);
                        (Some(Box::new(x)), t)
                    }
                    None => (None, Ty::None),
                };
                let ty = if compatible(&tt, &et) && tt != Ty::None {
                    tt
                } else if et != Ty::None && compatible(&et, &tt) {
                    et
                } else {
                    Ty::Any
                };
                (mk(ExprKind::If(Box::new(cx), tb, ex)), ty)
            }
            E::Match(scrut, arms) => {
                let (sx, st) = self.expr(scrut);
                let mut out = Vec::new();
                let mut ty: Option<Ty> = None;
                for arm in arms {
                    let pats: Vec<Pat> =
                        arm.patterns.iter().map(|p| self.pattern(p, &st)).collect();
                    let (bx, bt) = self.expr(&arm.body);
                    ty = Some(match ty {
                        None => bt,
                        Some(t) if compatible(&t, &bt) => t,
                        Some(_) => Ty::Any,
                    });
                    out.push((pats, bx));
                }
                // A `match` on an enum without `_` must name every variant.
                if let Ty::Enum(en) = st {
                    let has_wild = out
                        .iter()
                        .any(|(ps, _)| ps.iter().any(|p| matches!(p, Pat::Wildcard)));
                    if !has_wild {
                        let mut covered: Vec<u32> = Vec::new();
                        for (ps, _) in &out {
                            for p in ps {
                                if let Pat::Value(Value::Enum(e2, v)) = p {
                                    if *e2 == en {
                                        covered.push(*v);
                                    }
                                }
                            }
                        }
                        let missing: Vec<String> = self.prog.enums[en as usize]
                            .variants
                            .iter()
                            .enumerate()
                            .filter(|(i, _)| !covered.contains(&(*i as u32)))
                            .map(|(_, v)| format!("`{v}`"))
                            .collect();
                        if !missing.is_empty() {
                            self.err(
                                Diag::error(
                                    "check::match",
                                    format!("this `match` does not cover {}", missing.join(", ")),
                                )
                                .label(
                                    scrut.span,
                                    format!("a `{}`", self.prog.enums[en as usize].name),
                                )
                                .help("add an arm for each, or a last arm `_ => ...`"),
                            );
                        }
                    }
                }
                (
                    mk(ExprKind::Match(Box::new(sx), out)),
                    ty.unwrap_or(Ty::Any),
                )
            }
            E::Agg {
                kind,
                var,
                source,
                filter,
                map,
            } => {
                let (src, st) = self.expr(source);
                if !matches!(st, Ty::Any | Ty::List(_) | Ty::Zone(_)) {
                    let g = self.ty_name(&st);
                    self.err(
                        Diag::error(
                            "check::type",
                            format!(
                                "`{}` needs a list, a zone or a range, found {g}",
                                kind.name()
                            ),
                        )
                        .label(source.span, format!("this is {g}")),
                    );
                }
                self.push_scope();
                let elem = st.elem();
                let slot = self.bind(&var.node, elem.clone());
                let f = filter.as_ref().map(|f| {
                    let (x, t) = self.expr(f);
                    self.expect_ty(&Ty::Bool, &t, f.span, "a `where` condition");
                    Box::new(x)
                });
                let (m, mt) = match map {
                    Some(m) => {
                        let (x, t) = self.expr(m);
                        (Some(Box::new(x)), t)
                    }
                    None => (None, elem.clone()),
                };
                self.pop_scope();
                let ty = match kind {
                    AggKind::Count => Ty::Int,
                    AggKind::Any | AggKind::All => Ty::Bool,
                    AggKind::Sum => {
                        self.expect_ty(
                            &Ty::Int,
                            &mt,
                            map.as_ref().map(|m| m.span).unwrap_or(span),
                            "`sum`'s values",
                        );
                        Ty::Int
                    }
                    AggKind::Min | AggKind::Max => {
                        self.expect_ty(
                            &Ty::Int,
                            &mt,
                            map.as_ref().map(|m| m.span).unwrap_or(span),
                            "the values compared",
                        );
                        Ty::Int
                    }
                    AggKind::Filter | AggKind::Sort => Ty::List(Box::new(elem.clone())),
                    AggKind::Map => Ty::List(Box::new(mt)),
                    AggKind::Best | AggKind::First => elem,
                };
                if matches!(
                    kind,
                    AggKind::Count | AggKind::Any | AggKind::All | AggKind::Filter | AggKind::First
                ) && map.is_some()
                {
                    self.err(
                        Diag::error(
                            "check::aggregate",
                            format!("`{}` takes no `=>` value", kind.name()),
                        )
                        .label(map.as_ref().map(|m| m.span).unwrap_or(span), "remove this"),
                    );
                }
                if matches!(kind, AggKind::Map | AggKind::Sort | AggKind::Best) && map.is_none() {
                    self.err(
                        Diag::error(
                            "check::aggregate",
                            format!("`{}` needs a `=> value`", kind.name()),
                        )
                        .label(span, "add `=> ...`"),
                    );
                }
                (
                    mk(ExprKind::Agg {
                        kind: *kind,
                        slot,
                        source: Box::new(src),
                        filter: f,
                        map: m,
                    }),
                    ty,
                )
            }
            E::Block(b) => {
                let (bx, t) = self.block_expr(b);
                (mk(ExprKind::Block(bx)), t)
            }
            E::TableLit(entries) => {
                let mut out = Vec::new();
                let mut elem = Ty::Any;
                for (pat, v) in entries {
                    let (a, b) = match &pat.node {
                        ast::Pattern::Wildcard => (i64::MIN, i64::MAX),
                        _ => self.table_key(pat, (1, 13)).unwrap_or((i64::MIN, i64::MIN)),
                    };
                    let (x, t) = self.expr(v);
                    elem = t;
                    out.push(Expr {
                        kind: ExprKind::Tuple(vec![
                            const_expr(Value::Int(a), pat.span),
                            const_expr(Value::Int(b), pat.span),
                            x,
                        ]),
                        span: pat.span,
                    });
                }
                (
                    mk(ExprKind::List(out)),
                    Ty::List(Box::new(Ty::Tuple(vec![Ty::Int, Ty::Int, elem]))),
                )
            }
        }
    }

    fn name(&mut self, n: &str, span: Span) -> (Expr, Ty) {
        let mk = |kind| Expr { kind, span };
        if let Some((slot, ty)) = self.lookup_local(n) {
            return (mk(ExprKind::Local(slot)), ty);
        }
        match n {
            "players" => {
                return (
                    mk(ExprKind::Special(Special::Players)),
                    Ty::List(Box::new(Ty::Player)),
                )
            }
            "player_count" => return (mk(ExprKind::Special(Special::PlayerCount)), Ty::Int),
            "round" => return (mk(ExprKind::Special(Special::Round)), Ty::Int),
            _ => {}
        }
        match self.globals.get(n).copied() {
            Some((Global::Variant(e, v), _)) => {
                (mk(ExprKind::Const(Value::Enum(e, v))), Ty::Enum(e))
            }
            Some((Global::Enum(e), _)) => {
                let vs = (0..self.prog.enums[e as usize].variants.len() as u32)
                    .map(|v| Value::Enum(e, v))
                    .collect();
                (
                    mk(ExprKind::Const(Value::list(vs))),
                    Ty::List(Box::new(Ty::Enum(e))),
                )
            }
            Some((Global::Kind(k), _)) => (
                mk(ExprKind::KindCards(k)),
                Ty::List(Box::new(Ty::Card(Some(k)))),
            ),
            Some((Global::Var(v), _)) => {
                if !self.prog.vars[v as usize].keys.is_empty() {
                    self.err(
                        Diag::error(
                            "check::keys",
                            format!("`{n}` is kept per key; say which: `{n}[...]`"),
                        )
                        .label(span, "which one?"),
                    );
                }
                (
                    mk(ExprKind::Var(v, vec![])),
                    self.prog.vars[v as usize].ty.clone(),
                )
            }
            Some((Global::Zone(z), _)) => {
                if !self.prog.zones[z as usize].keys.is_empty() {
                    let help = format!(
                        "`{n}` is kept per {}",
                        self.prog.zones[z as usize]
                            .keys
                            .iter()
                            .map(|d| self.domain_name(d))
                            .collect::<Vec<_>>()
                            .join(", ")
                    );
                    self.err(
                        Diag::error(
                            "check::keys",
                            format!("`{n}` is one zone per key; say which: `{n}[...]`"),
                        )
                        .label(span, "which one?")
                        .help(help),
                    );
                }
                (
                    mk(ExprKind::Zone(z, vec![])),
                    Ty::Zone(self.prog.zones[z as usize].kind),
                )
            }
            Some((Global::Const(c), _)) => {
                if let Some(cur) = self.cur_const {
                    self.const_refs[cur as usize].push(c);
                }
                (mk(ExprKind::ConstRef(c)), Ty::Any)
            }
            Some((g @ (Global::Fn(_) | Global::Phase(_) | Global::Table(_)), _)) => {
                let help = match g {
                    Global::Fn(_) => format!("call it: `{n}(...)`"),
                    Global::Table(_) => format!("look a key up: `{n}[key]`"),
                    _ => "phases run from the `game` block's `round:` list".to_string(),
                };
                self.err(
                    Diag::error(
                        "check::not_a_value",
                        format!("`{n}` is {}, not a value", g.what()),
                    )
                    .label(span, "used as a value here")
                    .help(help),
                );
                (mk(ExprKind::Const(Value::None)), Ty::Any)
            }
            None => {
                // `P1`, `P2`, ... name the players by seat (unless a declaration uses the name).
                if let Some(k) = n.strip_prefix('P').and_then(|d| d.parse::<u32>().ok()) {
                    if (1..=64).contains(&k) && !n[1..].starts_with('0') {
                        return (mk(ExprKind::Const(Value::Player(k - 1))), Ty::Player);
                    }
                }
                self.unknown_name(n, span);
                (mk(ExprKind::Const(Value::None)), Ty::Any)
            }
        }
    }

    fn call(&mut self, callee: &ast::Expr, args: &[ast::Expr], span: Span) -> (Expr, Ty) {
        let mk = |kind| Expr { kind, span };
        let ast::ExprKind::Name(n) = &callee.kind else {
            self.err(
                Diag::error("check::call", "only named functions can be called")
                    .label(callee.span, "not a function name"),
            );
            return (mk(ExprKind::Const(Value::None)), Ty::Any);
        };
        let lowered: Vec<(Expr, Ty, Span)> = args
            .iter()
            .map(|a| {
                let (x, t) = self.expr(a);
                (x, t, a.span)
            })
            .collect();
        if let Some((Global::Fn(f), _)) = self.globals.get(n).copied() {
            if let Ctx::Fn(cur) = self.ctx {
                self.calls[cur as usize].push((f, callee.span));
            }
            let params = self.prog.fns[f as usize].params.clone();
            if params.len() != lowered.len() {
                let sig = params
                    .iter()
                    .map(|(p, t)| format!("{p}: {}", self.ty_name(t)))
                    .collect::<Vec<_>>()
                    .join(", ");
                self.err(
                    Diag::error(
                        "check::arity",
                        format!(
                            "`{n}` takes {} argument{}, found {}",
                            params.len(),
                            if params.len() == 1 { "" } else { "s" },
                            lowered.len()
                        ),
                    )
                    .label(span, "wrong number of arguments")
                    .label(self.prog.fns[f as usize].span, "declared here")
                    .help(format!("`{n}({sig})`")),
                );
            }
            for ((pname, pty), (_, aty, aspan)) in params.iter().zip(lowered.iter()) {
                if !compatible(pty, aty) {
                    let (w, g) = (self.ty_name(pty), self.ty_name(aty));
                    self.err(
                        Diag::error(
                            "check::arg_type",
                            format!("argument `{pname}` of `{n}` must be {w}, found {g}"),
                        )
                        .label(*aspan, format!("this is {g}")),
                    );
                }
            }
            let ret = self.prog.fns[f as usize].ret.clone();
            return (
                mk(ExprKind::Call(
                    f,
                    lowered.into_iter().map(|l| l.0).collect(),
                )),
                ret,
            );
        }
        if self.lookup_local(n).is_none() && !self.globals.contains_key(n) {
            if let Some(sig) = BUILTINS.iter().find(|b| b.name == n) {
                if lowered.len() < sig.min_args || lowered.len() > sig.params.len() {
                    let want = if sig.min_args == sig.params.len() {
                        format!("{}", sig.min_args)
                    } else {
                        format!("{} to {}", sig.min_args, sig.params.len())
                    };
                    self.err(
                        Diag::error(
                            "check::arity",
                            format!(
                                "`{n}` takes {want} argument{}, found {}",
                                if want == "1" { "" } else { "s" },
                                lowered.len()
                            ),
                        )
                        .label(span, "wrong number of arguments")
                        .help(format!("`{n}({})`", sig.params.join(", "))),
                    );
                }
                for (i, (_, aty, aspan)) in lowered.iter().enumerate() {
                    let want = match sig.params.get(i) {
                        Some(&"int") => Ty::Int,
                        Some(&"player") => Ty::Player,
                        Some(&"text") => Ty::Text,
                        Some(&"card") => Ty::Card(None),
                        Some(&"list") => Ty::List(Box::new(Ty::Any)),
                        _ => Ty::Any,
                    };
                    if !compatible(&want, aty) {
                        let (w, g) = (self.ty_name(&want), self.ty_name(aty));
                        self.err(
                            Diag::error(
                                "check::arg_type",
                                format!("argument {} of `{n}` must be {w}, found {g}", i + 1),
                            )
                            .label(*aspan, format!("this is {g}")),
                        );
                    }
                }
                if sig.builtin == Builtin::FinishGame {
                    self.calls_finish = true;
                }
                let tys: Vec<Ty> = lowered.iter().map(|l| l.1.clone()).collect();
                let ret = builtin_ret(sig.builtin, &tys);
                return (
                    mk(ExprKind::Builtin(
                        sig.builtin,
                        lowered.into_iter().map(|l| l.0).collect(),
                    )),
                    ret,
                );
            }
        }
        let mut names: Vec<&str> = self.prog.fns.iter().map(|f| f.name.as_str()).collect();
        names.extend(BUILTINS.iter().map(|b| b.name));
        let help = did_you_mean(n, names.iter().copied());
        let msg = match self.globals.get(n) {
            Some((g, _)) => format!("`{n}` is {}, not a function", g.what()),
            None => format!("unknown function `{n}`"),
        };
        self.err(
            Diag::error("check::unknown_fn", msg)
                .label(callee.span, "cannot be called")
                .maybe_help(help),
        );
        (mk(ExprKind::Const(Value::None)), Ty::Any)
    }
}

/// A REPL line lowered: its block, its number of locals, and the slot of each top-level `let`.
pub type ReplLine = (Block, u32, Vec<(String, u32)>);

impl Checker {
    /// A checker that knows every name of an already checked program (for REPL lines).
    pub fn from_program(prog: &Program) -> Checker {
        let mut c = Checker::new(prog.sources.clone());
        c.prog = prog.clone();
        let put = |c: &mut Checker, name: &str, g: Global, span: Span| {
            c.globals.insert(name.to_string(), (g, span));
        };
        for (i, e) in prog.enums.iter().enumerate() {
            put(&mut c, &e.name, Global::Enum(i as Id), e.span);
            for (v, name) in e.variants.iter().enumerate() {
                put(&mut c, name, Global::Variant(i as Id, v as u32), e.span);
            }
        }
        for (i, k) in prog.kinds.iter().enumerate() {
            put(&mut c, &k.name, Global::Kind(i as Id), k.span);
        }
        for (i, z) in prog.zones.iter().enumerate() {
            put(&mut c, &z.name, Global::Zone(i as Id), z.span);
        }
        for (i, v) in prog.vars.iter().enumerate() {
            put(&mut c, &v.name, Global::Var(i as Id), v.span);
        }
        for (i, k) in prog.consts.iter().enumerate() {
            put(&mut c, &k.name, Global::Const(i as Id), k.span);
        }
        for (i, f) in prog.fns.iter().enumerate() {
            put(&mut c, &f.name, Global::Fn(i as Id), f.span);
        }
        for (i, p) in prog.phases.iter().enumerate() {
            put(&mut c, &p.name, Global::Phase(i as Id), p.span);
        }
        for (i, t) in prog.tables.iter().enumerate() {
            put(&mut c, &t.name, Global::Table(i as Id), t.span);
        }
        for (i, card) in prog.cards.iter().enumerate() {
            c.card_index.insert(card_key(&card.id), i as Id);
        }
        c.calls = vec![Vec::new(); prog.fns.len()];
        c.const_refs = vec![Vec::new(); prog.consts.len()];
        c.referenced_phases = vec![true; prog.phases.len()];
        c
    }

    /// Lower statements typed at the REPL. Names bound by earlier lines (`env`) are the first
    /// locals; returns the block, its number of locals, and the slot of each top-level `let`.
    pub fn lower_repl(
        &mut self,
        block: &ast::Block,
        env: &[(String, Ty)],
    ) -> Result<ReplLine, Vec<Diag>> {
        self.begin(Ctx::Other);
        for (name, ty) in env {
            self.bind(name, ty.clone());
        }
        // The line's statements share the environment's scope, so its `let`s outlive it.
        let mut stmts = Vec::new();
        let mut lets = Vec::new();
        for (i, st) in block.stmts.iter().enumerate() {
            if i + 1 == block.stmts.len() {
                if let ast::StmtKind::Expr(e) = &st.kind {
                    let (x, _) = self.expr(e);
                    stmts.push(Stmt {
                        kind: StmtKind::Expr(x),
                        span: st.span,
                    });
                    continue;
                }
            }
            if let Some(lowered) = self.stmt(st) {
                if let (StmtKind::Let(slot, _), ast::StmtKind::Let(name, _)) =
                    (&lowered.kind, &st.kind)
                {
                    lets.push((name.node.clone(), *slot));
                }
                stmts.push(lowered);
            }
        }
        let b = Block {
            stmts,
            span: block.span,
        };
        let locals = self.end();
        let errors: Vec<Diag> = self.diags.drain(..).filter(|d| d.is_error()).collect();
        if errors.is_empty() {
            Ok((b, locals, lets))
        } else {
            Err(errors)
        }
    }
}

fn builtin_ret(b: Builtin, args: &[Ty]) -> Ty {
    let a0 = args.first().cloned().unwrap_or(Ty::Any);
    match b {
        Builtin::Len
        | Builtin::Abs
        | Builtin::Min2
        | Builtin::Max2
        | Builtin::Clamp
        | Builtin::Roll
        | Builtin::RollDice
        | Builtin::Seat
        | Builtin::ChooseNumber => Ty::Int,
        Builtin::Top | Builtin::PickRandom => a0.elem(),
        Builtin::Reverse | Builtin::Rotate | Builtin::Take | Builtin::Drop | Builtin::Shuffled => {
            match a0 {
                Ty::Zone(k) => Ty::List(Box::new(Ty::Card(k))),
                t => t,
            }
        }
        Builtin::Concat => match (a0.elem(), args.get(1).map(|t| t.elem())) {
            (Ty::Any | Ty::None, Some(b)) => Ty::List(Box::new(b)),
            (a, _) => Ty::List(Box::new(a)),
        },
        Builtin::Flatten => a0.elem(),
        Builtin::Contains | Builtin::Ask => Ty::Bool,
        Builtin::IndexOf => Ty::Any,
        Builtin::ZoneOf => Ty::Zone(None),
        Builtin::Text => Ty::Text,
        Builtin::Next | Builtin::ChoosePlayer => Ty::Player,
        Builtin::FinishGame => Ty::None,
        Builtin::Choose => args.get(1).map(|t| t.elem()).unwrap_or(Ty::Any),
        Builtin::ChooseMany => match args.get(1) {
            Some(Ty::Zone(k)) => Ty::List(Box::new(Ty::Card(*k))),
            Some(t) => t.clone(),
            None => Ty::Any,
        },
        Builtin::Allocate => Ty::List(Box::new(Ty::Int)),
        Builtin::Lookup => match a0.elem() {
            Ty::Tuple(ts) => ts.get(2).cloned().unwrap_or(Ty::Any),
            _ => Ty::Any,
        },
    }
}

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
    ]
    .contains(&n)
        || BUILTINS.iter().any(|b| b.name == n)
}

fn const_expr(v: Value, span: Span) -> Expr {
    Expr {
        kind: ExprKind::Const(v),
        span,
    }
}

/// A card rank written in a table key: a number, or `A`, `J`, `Q`, `K`.
fn rank(s: &str) -> Option<i64> {
    match s {
        "A" => Some(1),
        "J" => Some(11),
        "Q" => Some(12),
        "K" => Some(13),
        n => n.parse().ok(),
    }
}

/// Whether a value of type `got` may stand where `want` is expected.
pub fn compatible(want: &Ty, got: &Ty) -> bool {
    match (want, got) {
        (Ty::Any, _) | (_, Ty::Any) | (_, Ty::None) | (Ty::None, _) => true,
        (Ty::Card(a), Ty::Card(b)) => a.is_none() || b.is_none() || a == b,
        (Ty::Zone(a), Ty::Zone(b)) => a.is_none() || b.is_none() || a == b,
        (Ty::List(a), Ty::List(b)) => compatible(a, b),
        (Ty::List(a), Ty::Zone(k)) => compatible(a, &Ty::Card(*k)),
        (Ty::Tuple(a), Ty::Tuple(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| compatible(x, y))
        }
        (a, b) => a == b,
    }
}
