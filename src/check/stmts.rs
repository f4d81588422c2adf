//! Statements: blocks, assignments and their places, zone and var keys.

use super::*;
use crate::ast::{self};
use crate::diag::{did_you_mean, Diag, Span};
use crate::program::*;

impl Checker {
    // ================================================================ statements

    pub fn block(&mut self, b: &ast::Block) -> Block {
        self.push_scope();
        let mut stmts = Vec::new();
        let mut narrowed = Vec::new();
        for (i, s) in b.stmts.iter().enumerate() {
            if let Some(st) = self.stmt(s) {
                stmts.push(st);
            }
            narrowed.extend(self.narrow_after(s, b.stmts.get(i + 1..).unwrap_or(&[])));
        }
        for n in narrowed.into_iter().rev() {
            self.widen(n);
        }
        self.pop_scope();
        Block {
            stmts,
            span: b.span,
        }
    }

    /// After `if x == none { return ... }`, `x` is not `none` for the rest of the block (and
    /// after an `if`/`else` one of whose branches always returns, what the other's test shows).
    fn narrow_after(&mut self, s: &ast::Stmt, rest: &[ast::Stmt]) -> Option<narrow::Narrowed> {
        let ast::StmtKind::Expr(e) = &s.kind else {
            return None;
        };
        let ast::ExprKind::If(c, then, els) = &e.kind else {
            return None;
        };
        let then_returns = narrow::block_always_returns(then);
        let else_returns = els.as_ref().is_some_and(|x| narrow::expr_always_returns(x));
        match (then_returns, else_returns) {
            (true, false) => Some(self.narrow(c, false, narrow::Region::Rest(rest))),
            (false, true) => Some(self.narrow(c, true, narrow::Region::Rest(rest))),
            _ => None,
        }
    }

    /// The block's value type: its last statement's, when that is an expression.
    pub(super) fn block_expr(&mut self, b: &ast::Block) -> (Block, Ty) {
        self.push_scope();
        let mut stmts = Vec::new();
        let mut narrowed = Vec::new();
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
            narrowed.extend(self.narrow_after(s, b.stmts.get(i + 1..).unwrap_or(&[])));
        }
        for n in narrowed.into_iter().rev() {
            self.widen(n);
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

    pub(super) fn stmt(&mut self, s: &ast::Stmt) -> Option<Stmt> {
        use ast::StmtKind as S;
        if self.jump == loops::Jump::Loop && !loops::keeps_jumps(&s.kind) {
            return self.in_value(false, |me| me.stmt(s));
        }
        if let Some(k) = self.flow_stmt(s) {
            return k.map(|kind| Stmt { kind, span: s.span });
        }
        let kind = match &s.kind {
            S::Let(name, declared, e) => {
                let (x, ty) = self.expr(e);
                let ty = match declared {
                    Some(d) => {
                        let want = self.resolve_type(d);
                        self.expect_assign(
                            &want,
                            &ty,
                            e.span,
                            &format!("`{}`", name.node),
                            Some(d.span),
                        );
                        want
                    }
                    None => ty,
                };
                self.statement_word(name, "a local");
                let slot = self.bind(&name.node, ty);
                StmtKind::Let(slot, x)
            }
            S::Set(target, op, e) => {
                let (place, info) = self.place(target)?;
                let (x, ty) = self.expr(e);
                if *op != ast::AssignOp::Set {
                    self.expect_ty(&Ty::Int, &ty, e.span, "the amount");
                    if !compatible(&Ty::Int, &info.ty) {
                        let t = self.ty_name(&info.ty);
                        let sym = if *op == ast::AssignOp::Add {
                            "+="
                        } else {
                            "-="
                        };
                        self.err(
                            Diag::error(
                                "check::type",
                                format!("`{sym}` counts numbers, but {} is {t}", info.what),
                            )
                            .label(target.span, format!("this is {t}"))
                            .maybe_label(info.decl, format!("declared as {t} here"))
                            .help("use `set ... = ...` to replace the value"),
                        );
                    }
                } else if let (Place::Local(slot), Ty::None) = (&place, &info.ty) {
                    // A local that started as `none` takes the type of what is first put in it.
                    self.refine_local(*slot, ty);
                } else {
                    self.expect_assign(&info.ty, &ty, e.span, &info.what, info.decl);
                }
                StmtKind::Assign(place, *op, x)
            }
            S::Move(what, to, pos, face) => {
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
                StmtKind::Move(w, t, *pos, *face)
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
            S::Reveal(e, to) => self.reveal(e, to.as_ref()),
            S::For(var, src, body) => {
                let (x, t) = self.loop_source(src, "`for` needs", None);
                self.statement_word(var, "a loop variable");
                self.push_scope();
                let slot = self.bind(&var.node, t.elem());
                let b = self.loop_body(body);
                self.pop_scope();
                StmtKind::For(slot, x, b)
            }
            S::Repeat(n, body) => {
                let (x, t) = self.expr(n);
                self.expect_ty(&Ty::Int, &t, n.span, "`repeat`'s count");
                StmtKind::Repeat(x, self.loop_body(body))
            }
            S::Say(e) => StmtKind::Say(self.expr(e).0),
            S::Return(e) => {
                if self.ctx == Ctx::Other {
                    self.err(
                        Diag::error("check::return", "`return` outside a function")
                            .label(s.span, "only a `fn` body can return"),
                    );
                }
                let lowered = e.as_ref().map(|e| self.expr(e));
                let def = match self.ctx {
                    Ctx::Fn(f) => self.prog.fns.get(f as usize),
                    Ctx::CardFn(f) => self.prog.card_fns.get(f as usize),
                    Ctx::Other => None,
                };
                if let Some(fd) = def {
                    let (ret, decl, fname) = (fd.ret.clone(), fd.span, fd.name.clone());
                    let (got, span) = match (&lowered, e) {
                        (Some((_, t)), Some(e)) => (t.clone(), e.span),
                        _ => (Ty::None, s.span),
                    };
                    let what = format!("the result of `{fname}`");
                    self.expect_assign(&ret, &got, span, &what, Some(decl));
                }
                StmtKind::Return(lowered.map(|l| l.0))
            }
            S::Secretly(b) => StmtKind::Secretly(self.block(b)),
            S::Break | S::Continue => self.loop_jump(s),
            S::EndGame | S::Eliminate(_) | S::RepeatUntil(..) | S::Emit(..) => return None,
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

    pub(super) fn expect_zone(&mut self, t: &Ty, span: Span) {
        if !matches!(t, Ty::Any | Ty::Zone(_)) {
            let g = self.ty_name(t);
            self.err(
                Diag::error("check::type", format!("expected a zone, found {g}"))
                    .label(span, format!("this is {g}")),
            );
        }
    }

    /// What may be put in a place: its declared type, bounds and declaration.
    pub(super) fn place(&mut self, target: &ast::Expr) -> Option<(Place, PlaceInfo)> {
        use ast::ExprKind as E;
        match &target.kind {
            E::Name(n) => {
                if let Some((slot, ty)) = self.lookup_local(n) {
                    let info = PlaceInfo::of(ty, format!("`{n}`"), None);
                    return Some((Place::Local(slot), info));
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
                        let info = self.var_info(v);
                        Some((Place::Var(v, vec![]), info))
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
                        // An element of a list a var holds: a list is one value, set whole.
                        Some((Global::Var(v), _)) if keys.len() == 1 && self.is_list_var(v) => {
                            self.err(
                                Diag::error(
                                    "check::assign",
                                    format!(
                                        "an element of the list in `{n}` cannot be set on its own"
                                    ),
                                )
                                .label(target.span, "one element of a list")
                                .help(format!(
                                    "a list is one value: set `{n}` whole, for instance with the \
                                     element at `i` replaced: `set {n} = concat(take({n}, i), \
                                     concat([value], drop({n}, i + 1)))`"
                                )),
                            );
                            return None;
                        }
                        Some((Global::Var(v), _)) => {
                            let ks = self.keys(v, keys, target.span, false);
                            if self.var_keys(v) != keys.len() {
                                // Wrong keys were reported: the value set is not checked
                                // against the var's type again.
                                return None;
                            }
                            let info = self.var_info(v);
                            return Some((Place::Var(v, ks), info));
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
                let info = self.field_info(&bt, sym, &name.node);
                Some((Place::Field(b, sym), info))
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

    /// Whether var `v` has no keys and holds a list (so `v[i]` indexes the list).
    pub(super) fn is_list_var(&self, v: Id) -> bool {
        self.prog
            .vars
            .get(v as usize)
            .is_some_and(|vd| vd.keys.is_empty() && matches!(vd.ty, Ty::List(_)))
    }

    /// How many keys var `v` takes (0 for a var the program does not have).
    pub(super) fn var_keys(&self, v: Id) -> usize {
        self.prog.vars.get(v as usize).map_or(0, |vd| vd.keys.len())
    }

    fn var_info(&self, v: Id) -> PlaceInfo {
        let vd = &self.prog.vars[v as usize];
        PlaceInfo {
            ty: vd.ty.clone(),
            bounds: vd.bounds,
            what: format!("var `{}`", vd.name),
            decl: Some(vd.span),
        }
    }

    /// A field's declared type and bounds; when the card's kind is not known, what every kind
    /// with the field agrees on.
    pub(super) fn field_info(&self, base: &Ty, sym: Id, name: &str) -> PlaceInfo {
        let defs: Vec<&FieldDef> = match base {
            Ty::Card(Some(k)) => self.prog.kinds[*k as usize]
                .fields
                .iter()
                .filter(|f| f.sym == sym)
                .collect(),
            _ => self
                .prog
                .kinds
                .iter()
                .flat_map(|k| k.fields.iter().filter(|f| f.sym == sym && f.mutable))
                .collect(),
        };
        let first = defs.first();
        let agree = defs.windows(2).all(|w| w[0].ty == w[1].ty);
        let same_bounds = defs.windows(2).all(|w| w[0].bounds == w[1].bounds);
        PlaceInfo {
            ty: match first {
                Some(f) if agree => f.ty.clone(),
                _ => Ty::Any,
            },
            bounds: first.filter(|_| same_bounds).and_then(|f| f.bounds),
            what: format!("field `{name}`"),
            decl: first.map(|f| f.span),
        }
    }

    /// `got` must fit `want` for an assignment, a `let` with a type, or a `return`.
    pub(super) fn expect_assign(
        &mut self,
        want: &Ty,
        got: &Ty,
        span: Span,
        what: &str,
        decl: Option<Span>,
    ) {
        if compatible(want, got) {
            return;
        }
        let (w, g) = (self.ty_name(want), self.ty_name(got));
        let help = match (want, got) {
            (Ty::Int | Ty::Bool, Ty::None) => Some(format!(
                "{w} has no `none`; use a value such as {}",
                if *want == Ty::Int { "`0`" } else { "`false`" }
            )),
            (Ty::Int, Ty::Text) => Some("to count something, use a number; to show a number, use text interpolation: \"{n} more\"".to_string()),
            (Ty::Text, Ty::Int) => Some("turn it into text with `text(...)` or \"{...}\"".to_string()),
            (Ty::Int, Ty::Bool) => Some("write `if cond { 1 } else { 0 }` to count a condition".to_string()),
            _ => None,
        };
        self.err(
            Diag::error("check::type", format!("{what} must be {w}, found {g}"))
                .label(span, format!("this is {g}"))
                .maybe_label(decl, format!("declared as {w} here"))
                .maybe_help(help),
        );
    }
    /// Resolve a field name on a value of type `t`; `mutating` requires a `var` field.
    pub(super) fn field_sym(&mut self, t: &Ty, name: &ast::Ident, mutating: bool) -> Option<Id> {
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

    pub(super) fn keys(
        &mut self,
        _id: Id,
        keys: &[ast::Expr],
        span: Span,
        zone: bool,
    ) -> Vec<Expr> {
        let (domains, name) = if zone {
            let z = &self.prog.zones[_id as usize];
            (z.keys.clone(), z.name.clone())
        } else {
            let v = &self.prog.vars[_id as usize];
            (v.keys.clone(), v.name.clone())
        };
        let broken = self.broken_keys.contains(&(zone, _id as usize));
        if keys.len() != domains.len() && !broken {
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
                .help(if domains.is_empty() {
                    if zone {
                        format!("`{name}` is one zone with no keys: write `{name}`; for its cards by position, `top({name})` or `{name}` in `for`/`filter`, or a list: `take({name}, 1)`")
                    } else {
                        format!("`{name}` is one var with no keys: write `{name}`")
                    }
                } else {
                    format!(
                        "`{name}` is kept per {}",
                        domains
                            .iter()
                            .map(|d| self.domain_name(d))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                }),
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

    /// `reveal e [to players]`: `e` is cards (a card, a list of cards or a zone), the target a
    /// player or a list of players.
    fn reveal(&mut self, e: &ast::Expr, to: Option<&ast::Expr>) -> StmtKind {
        let (x, t) = self.expr(e);
        let cards = match &t {
            Ty::Any | Ty::Card(_) | Ty::Zone(_) | Ty::None => true,
            Ty::List(el) => matches!(**el, Ty::Any | Ty::Card(_) | Ty::None),
            _ => false,
        };
        if !cards {
            let g = self.ty_name(&t);
            self.err(
                Diag::error("check::type", format!("`reveal` shows cards, found {g}"))
                    .label(e.span, format!("this is {g}"))
                    .help("reveal a card, a list of cards or a zone: `reveal c to P1`"),
            );
        }
        let target = to.map(|to| {
            let (y, tt) = self.expr(to);
            let players = match &tt {
                Ty::Any | Ty::Player => true,
                Ty::List(el) => matches!(**el, Ty::Any | Ty::Player),
                _ => false,
            };
            if !players {
                let g = self.ty_name(&tt);
                self.err(
                    Diag::error(
                        "check::type",
                        format!("`reveal ... to` names players, found {g}"),
                    )
                    .label(to.span, format!("this is {g}"))
                    .help("reveal to a player or a list of players: `reveal c to [P1, P2]`"),
                );
            }
            y
        });
        StmtKind::Reveal(x, target)
    }

    pub(super) fn domain_name(&self, d: &KeyDomain) -> String {
        match d {
            KeyDomain::Player => "player".into(),
            KeyDomain::Enum(e) => self.prog.enums[*e as usize].name.clone(),
            KeyDomain::Range(a, b) => format!("{a}..{b}"),
        }
    }

    pub(super) fn unknown_name(&mut self, n: &str, span: Span) {
        if !self.suggesting() {
            self.err(
                Diag::error("check::unknown_name", format!("unknown name `{n}`"))
                    .label(span, "not declared anywhere"),
            );
            return;
        }
        let mut names: Vec<String> = self.globals.keys().cloned().collect();
        names.sort();
        for s in &self.scopes {
            for l in s {
                names.push(l.name.clone());
            }
        }
        names.extend(
            ["players", "player_count", "round", "all_players"]
                .iter()
                .map(|s| s.to_string()),
        );
        // A misspelt statement keyword reads as an unknown name: offer the keywords too (and
        // `match`, which starts an expression written as a statement).
        names.extend(
            crate::parser::STATEMENT_KEYWORDS
                .iter()
                .chain(&["match"])
                .map(|s| s.to_string()),
        );
        let help = did_you_mean(n, names.iter().map(|s| s.as_str()));
        self.err(
            Diag::error("check::unknown_name", format!("unknown name `{n}`"))
                .label(span, "not declared anywhere")
                .maybe_help(help),
        );
    }
}

/// What the checker knows about a place a `set` writes.
pub(super) struct PlaceInfo {
    pub ty: Ty,
    pub bounds: Option<(i64, i64)>,
    /// `var `x``, `field `x``, or `` `x` `` for a local.
    pub what: String,
    pub decl: Option<Span>,
}

impl PlaceInfo {
    fn of(ty: Ty, what: String, decl: Option<Span>) -> PlaceInfo {
        PlaceInfo {
            ty,
            bounds: None,
            what,
            decl,
        }
    }
}
