//! Declarations: kinds and their fields, types, key domains, triggers, `check` rules, the
//! `game` block, recursion and constant order.

use super::*;
use crate::ast::{self, BinOp, EventKind};
use crate::diag::{did_you_mean, Diag, Span};
use crate::program::*;
use crate::value::Value;

impl Checker {
    pub(super) fn check_item(&mut self, c: &ast::CheckDecl) {
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

    /// `face c in Kind { title: ..., show: [c.a, c.b] }`: each slot's value for card `c`;
    /// `show` lists the fields printed as rows, labelled with their names.
    pub(super) fn face_item(&mut self, f: &ast::FaceDecl) {
        let Some(kind) = self.resolve_kind(&f.kind) else {
            return;
        };
        if let Some(prev) = self.prog.faces.iter().find(|x| x.kind == kind) {
            let prev = prev.span;
            self.err(
                Diag::error(
                    "check::duplicate_face",
                    format!("`{}` has two faces", f.kind.node),
                )
                .label(f.kind.span, "a second face for this kind")
                .label(prev, "the first")
                .help("a kind's cards print one way: keep one `face`"),
            );
            return;
        }
        self.begin(Ctx::Other);
        let slot = self.bind(&f.var.node, Ty::Card(Some(kind)));
        let mut slots: Vec<(FaceSlot, Expr)> = Vec::new();
        let mut show = None;
        let mut seen: Vec<&str> = Vec::new();
        for (name, e) in &f.entries {
            if seen.contains(&name.node.as_str()) {
                self.err(
                    Diag::error(
                        "check::face",
                        format!("`{}` is given twice in this face", name.node),
                    )
                    .label(name.span, "given again here"),
                );
                continue;
            }
            seen.push(&name.node);
            if name.node == "show" {
                show = Some(self.face_show(&f.var.node, kind, e));
                continue;
            }
            let Some((_, s)) = FaceSlot::ALL.iter().find(|(n, _)| *n == name.node) else {
                let names = FaceSlot::ALL.iter().map(|(n, _)| *n).chain(["show"]);
                let help = did_you_mean(&name.node, names).unwrap_or_else(|| {
                    "a face has: title, subtitle, corner, band, text, show and back".into()
                });
                self.err(
                    Diag::error("check::face", format!("a face has no `{}`", name.node))
                        .label(name.span, "not a part of a face")
                        .help(help),
                );
                continue;
            };
            let (x, _) = self.expr(e);
            slots.push((*s, x));
        }
        let locals = self.end();
        self.prog.faces.push(FaceDef {
            kind,
            slot,
            locals,
            slots,
            show,
            span: f.span,
        });
    }

    /// `show: [c.needs, c.reward]`: fields of the face's card, each printed as `needs: ...`.
    fn face_show(&mut self, var: &str, kind: Id, e: &ast::Expr) -> Vec<(String, Expr)> {
        let ast::ExprKind::List(items) = &e.kind else {
            self.err(
                Diag::error("check::face", "`show` lists fields of the card")
                    .label(e.span, "not a list")
                    .help(format!("write `show: [{var}.name, {var}.cost]`")),
            );
            return Vec::new();
        };
        let mut out = Vec::new();
        for item in items {
            let label = match &item.kind {
                ast::ExprKind::Field(base, field) if matches!(&base.kind, ast::ExprKind::Name(n) if n == var) => {
                    field.node.replace('_', " ")
                }
                _ => {
                    self.err(
                        Diag::error("check::face", "`show` lists fields of the card")
                            .label(item.span, "not a field of the card")
                            .help(format!(
                                "write `{var}.field`; other values go in `text: \"...\"`"
                            )),
                    );
                    continue;
                }
            };
            let (x, _) = self.expr(item);
            let _ = kind;
            out.push((label, x));
        }
        out
    }

    // ================================================================ declarations

    pub(super) fn resolve_kind(&mut self, name: &ast::Ident) -> Option<Id> {
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

    pub(super) fn resolve_type(&mut self, t: &ast::Spanned<ast::TypeExpr>) -> Ty {
        match &t.node {
            ast::TypeExpr::List(inner) => Ty::List(Box::new(self.resolve_type(inner))),
            ast::TypeExpr::Tuple(elems) => {
                Ty::Tuple(elems.iter().map(|t| self.resolve_type(t)).collect())
            }
            ast::TypeExpr::Fn(params, ret) => {
                let ps = params.iter().map(|(_, t)| self.resolve_type(t)).collect();
                let r = ret
                    .as_ref()
                    .map(|r| self.resolve_type(r))
                    .unwrap_or(Ty::None);
                Ty::Fn(ps, Box::new(r))
            }
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

    pub(super) fn key_domains(&mut self, keys: &[ast::KeyType]) -> Vec<KeyDomain> {
        let mut out = Vec::new();
        // Slots the declaration allocates, at the most players any game allows.
        let mut slots: u64 = 1;
        let mut first_span = None;
        for k in keys {
            match k {
                ast::KeyType::Range(lo, hi, span) => {
                    first_span.get_or_insert(*span);
                    // In 128 bits: the width of `i64::MIN..i64::MAX` does not fit in 64.
                    let width = i128::from(*hi) - i128::from(*lo) + 1;
                    if width < 1 || width > i128::from(self.limits.max_key_range) {
                        self.err(
                            Diag::error(
                                "check::key_range",
                                format!(
                                    "this key range is empty or wider than {} keys",
                                    self.limits.max_key_range
                                ),
                            )
                            .label(*span, "here")
                            .help("key a zone or var by `player`, an enum or a short range like `1..6`"),
                        );
                        continue;
                    }
                    slots = slots.saturating_mul(u64::try_from(width).unwrap_or(u64::MAX));
                    out.push(KeyDomain::Range(*lo, *hi));
                }
                ast::KeyType::Named(n) if n.node == "player" => {
                    first_span.get_or_insert(n.span);
                    slots = slots.saturating_mul(64);
                    out.push(KeyDomain::Player)
                }
                ast::KeyType::Named(n) if n.node == "player" => out.push(KeyDomain::Player),
                ast::KeyType::Named(n) => match self.globals.get(&n.node) {
                    Some((Global::Enum(e), _)) => {
                        let e = *e;
                        first_span.get_or_insert(n.span);
                        let count = self
                            .prog
                            .enums
                            .get(e as usize)
                            .map_or(1, |d| d.variants.len());
                        slots = slots.saturating_mul(count.max(1) as u64);
                        out.push(KeyDomain::Enum(e))
                    }
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
        if slots > self.limits.max_slots {
            if let Some(span) = first_span {
                self.err(
                    Diag::error(
                        "limit::slots",
                        format!(
                            "these keys make {slots} slots (counting 64 players); the limit is {}",
                            self.limits.max_slots
                        ),
                    )
                    .label(span, "keyed here")
                    .help("use fewer or narrower keys, or keep a list in one slot instead"),
                );
            }
            return Vec::new();
        }
        out
    }

    pub(super) fn kind_fields(&mut self, id: usize, k: &ast::KindDecl) {
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
                if let Ty::Fn(..) = ty {
                    let owner = k.name.node.clone();
                    return self
                        .card_fn_value(&owner, &owner, None, &f.name.node, &ty, e)
                        .unwrap_or(Value::None);
                }
                let v = self.const_value(e);
                if let Some(v) = &v {
                    self.check_value_ty(v, &ty, e, &f.name.node);
                }
                v.unwrap_or(Value::None)
            });
            let sym = self.symbol(&f.name.node);
            let cover = match &f.ty.node {
                ast::TypeExpr::Table(lo, hi, _) => Some((*lo, *hi)),
                _ => None,
            };
            let bounds = f.bounds.map(|ast::Bounds { lo, hi, span, .. }| {
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
            if let (Some((lo, hi)), Some(Value::Int(x)), Some(e)) = (bounds, &default, &f.default) {
                if lo <= hi && (*x < lo || *x > hi) {
                    self.err(
                        Diag::error(
                            "check::field_bounds",
                            format!(
                                "the default of `{}` is {x}, outside its bounds {}",
                                f.name.node,
                                show_bounds(lo, hi)
                            ),
                        )
                        .label(e.span, format!("{x} is out of bounds"))
                        .maybe_label(f.bounds.map(|b| b.span), "the bounds are declared here")
                        .help(format!("use a default {}", within(lo, hi))),
                    );
                }
            }
            if f.mutable && default.is_none() && !allows_none(&ty) {
                let t = self.ty_name(&ty);
                self.err(
                    Diag::error(
                        "check::field_default",
                        format!("`var` field `{}` needs a starting value", f.name.node),
                    )
                    .label(
                        f.name.span,
                        format!("{t} has no `none`, so a card needs a value here"),
                    )
                    .help(format!(
                        "give it a default: `var {}: {t} = ...`",
                        f.name.node
                    )),
                );
            }
            fields.push(FieldDef {
                name: f.name.node.clone(),
                sym,
                ty,
                mutable: f.mutable,
                bounds,
                refuse: f.bounds.is_some_and(|b| b.refuse),
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
        // A field named `text` is the card's rules text: printed on it, in words.
        let mut text_field = None;
        if let Some(f) = fields.iter().find(|f| f.name == "text") {
            if f.mutable || f.ty != Ty::Text {
                let t = self.ty_name(&f.ty);
                self.err(
                    Diag::error(
                        "check::text_field",
                        "a field named `text` is the card's rules text: it must be `text: text`",
                    )
                    .label(
                        f.span,
                        if f.mutable {
                            "a `var` field here".to_string()
                        } else {
                            format!("{t} here")
                        },
                    )
                    .help("declare it `text: text` (printed on the card), or give the field another name"),
                );
            } else if let Some((false, i)) = slot_of.get(f.sym as usize).copied().flatten() {
                text_field = Some(i);
            }
        }
        let kd = &mut self.prog.kinds[id];
        kd.fields = fields;
        kd.slot_of = slot_of;
        kd.var_count = v;
        kd.text_field = text_field;
    }

    pub(super) fn trigger(&mut self, t: &ast::TriggerDecl) {
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
            EventKind::Custom => {}
            EventKind::RoundStart | EventKind::RoundEnd => {
                if let Some(x) = &t.target {
                    self.err(
                        Diag::error("check::trigger", "round events take no target")
                            .label(x.span, "remove this"),
                    );
                }
            }
        }
        let mut binds = Vec::new();
        if t.event.node == EventKind::Custom {
            let (e, b) = self.custom_trigger(t);
            target = e;
            binds = b;
        } else if !t.params.is_empty() && t.event.node != EventKind::Enter {
            let span = t.params.first().map(|p| p.span).unwrap_or(t.event.span);
            self.err(
                Diag::error(
                    "check::trigger",
                    "only `enter ZONE[...]` binds a zone's keys",
                )
                .label(span, "nothing to bind"),
            );
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
        if t.event.node != EventKind::Custom {
            binds.push(binding);
            if t.event.node == EventKind::Enter {
                let keys = self.enter_keys(target, t);
                binds.extend(keys);
            }
        }
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
            binds,
            condition,
            body,
            locals,
            span: t.event.span,
        });
    }

    pub(super) fn game(&mut self, g: &ast::GameDecl) {
        let mut info = GameInfo {
            name: g.name.node.clone(),
            ..GameInfo::default()
        };
        let mut have_players = false;
        let keys = [
            "players",
            "default_players",
            "rounds",
            "round",
            "end_when",
            "finish",
            "score",
            "tiebreak",
            "winner",
            "groups",
            "figures",
            "measures",
            "playouts",
            "goal",
            "summary",
        ];
        let (mut end_when, mut rounds_written) = (None, false);
        // Whether `round:` names anything (its names may all have been reported).
        let mut round_named = false;
        for ast::GameEntry {
            key: k,
            value: e,
            at_round_end,
            at,
        } in &g.entries
        {
            if let Some((when, span)) = at {
                if k.node == "groups" {
                    info.groups_at = *when;
                } else {
                    let said = match when {
                        ast::GroupsAt::Setup => "at setup",
                        _ => "at end",
                    };
                    self.err(
                        Diag::error(
                            "check::game_entry",
                            format!("`{said}` says when `rules simulate` reads `groups`, and belongs to it alone"),
                        )
                        .label(*span, format!("not a moment `{}` can be given", k.node))
                        .help(if k.node == "end_when" {
                            "to ask `end_when` once each round is over, write `at round end`"
                        } else {
                            "remove it"
                        }),
                    );
                }
            }
            if let (Some(at), false) = (at_round_end, k.node == "end_when") {
                self.err(
                    Diag::error(
                        "check::game_entry",
                        "`at round end` says when `end_when` is asked, and belongs to it alone",
                    )
                    .label(
                        *at,
                        format!("`{}` is not a condition that is asked", k.node),
                    )
                    .help("remove it"),
                );
            }
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
                    Some((n, m)) if n == m && (1..=64).contains(&n) => {
                        info.default_players = u32::try_from(n).ok()
                    }
                    _ => self.err(
                        Diag::error(
                            "check::players",
                            "`default_players` must be one number within 1..64",
                        )
                        .label(e.span, "like `15`"),
                    ),
                },
                "rounds" => {
                    info.rounds = self.rounds_entry(e);
                    rounds_written = true;
                }
                "round" => {
                    let names = self.name_list(e);
                    round_named |= !names.is_empty();
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
                        if let Some(f) = info.score {
                            self.fn_gives_int(f, span, "a score");
                        }
                    }
                }
                "tiebreak" => {
                    for (n, span) in self.name_list(e) {
                        if let Some(f) = self.fn_named(&n, span, 1) {
                            self.fn_gives_int(f, span, "a tiebreak");
                            info.tiebreaks.push(f);
                        }
                    }
                }
                "figures" => {
                    for (n, span) in self.name_list(e) {
                        if let Some(f) = self.fn_named(&n, span, 0) {
                            if self.figure_fn(f, span) {
                                info.figures.push(f);
                            }
                        }
                    }
                }
                "groups" => {
                    for (n, span) in self.name_list(e) {
                        if let Some(f) = self.fn_named(&n, span, 1) {
                            info.groups.push(f);
                        }
                    }
                }
                "measures" => {
                    for (n, span) in self.name_list(e) {
                        if let Some(f) = self.fn_named(&n, span, 1) {
                            if self.measure_fn(f, span) {
                                info.measures.push(f);
                            }
                        }
                    }
                }
                "playouts" => {
                    if let Some((n, span)) = self.name_list(e).into_iter().next() {
                        if self.prog.bots.iter().any(|b| b.name == n) {
                            info.playouts = Some(std::rc::Rc::from(n.as_str()));
                        } else {
                            let names: Vec<&str> =
                                self.prog.bots.iter().map(|b| b.name.as_str()).collect();
                            let guess = crate::diag::did_you_mean(&n, names.iter().copied());
                            self.err(
                                Diag::error(
                                    "check::game_entry",
                                    format!(
                                        "`playouts` names `{n}`, which is not a bot of the game"
                                    ),
                                )
                                .label(span, "no `bot` of this name")
                                .help(match guess {
                                    Some(g) => g,
                                    None if names.is_empty() => {
                                        "declare it: `bot Name(me) { prefer ... }`".to_string()
                                    }
                                    None => format!("the game's bots: {}", names.join(", ")),
                                }),
                            );
                        }
                    }
                }
                "winner" => match &e.kind {
                    ast::ExprKind::Name(n) if n == "lowest" => info.lowest_wins = true,
                    ast::ExprKind::Name(n) if n == "highest" => info.lowest_wins = false,
                    _ => self.err(
                        Diag::error("check::game_entry", "`winner` is `highest` or `lowest`")
                            .label(e.span, "not `highest` or `lowest`")
                            .help("write `winner: lowest` when the lowest score wins"),
                    ),
                },
                "goal" | "summary" => {
                    let text = match &e.kind {
                        ast::ExprKind::Text(parts) => parts
                            .iter()
                            .map(|p| match p {
                                ast::StrPart::Text(t) => Some(t.as_str()),
                                ast::StrPart::Expr(_) => None,
                            })
                            .collect::<Option<String>>(),
                        _ => None,
                    };
                    match text {
                        Some(t) if !t.trim().is_empty() => {
                            if k.node == "goal" {
                                info.goal = Some(t);
                            } else {
                                info.summary = Some(t);
                            }
                        }
                        _ => self.err(
                            Diag::error(
                                "check::game_entry",
                                format!("`{}` is a text written out, with no `{{...}}`", k.node),
                            )
                            .label(e.span, "not a plain text")
                            .help(if k.node == "goal" {
                                "like `goal: \"Hold the most currency when the game ends\"`"
                            } else {
                                "like `summary: \"Rival agencies bid for the world's crises.\"`"
                            }),
                        ),
                    }
                }
                "end_when" => {
                    info.end_when = Some(self.end_when_entry(e));
                    info.end_at_round_end = at_round_end.is_some();
                    end_when = Some(e);
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
        // A `round:` list whose names were all reported (unknown, or declared twice) is not
        // reported again as playing nothing.
        if info.round_phases.is_empty() && !round_named {
            // The phases declared, in order, make the help's list (they are not reported again
            // as never run: `Checker::no_round`).
            let declared: Vec<String> = self.prog.phases.iter().map(|p| p.name.clone()).collect();
            let help = if declared.is_empty() {
                "declare a phase (`phase turn { ... }`) and name it in the `game` block: \
                 `round: [turn]`"
                    .to_string()
            } else {
                format!(
                    "add `round: [{}]` to the `game` block (the phases declared, in the order a round should play them)",
                    declared.join(", ")
                )
            };
            self.err(
                Diag::error("check::round", "the game has no phases to play")
                    .label(g.name.span, "this game")
                    .help(help),
            );
            self.no_round = true;
        }
        if let Some(e) = end_when {
            self.warn_mid_round_end(&info, e);
        }
        if !rounds_written && info.end_when.is_none() && !self.calls_finish {
            self.err(
                Diag::error("check::endless", "the game never ends")
                    .label(g.name.span, "this game")
                    .help("add `rounds: N` or `end_when: condition` to the `game` block, or say `end game` in a rule"),
            );
        }
        info.ended_by_rules = self.calls_finish;
        self.prog.game = info;
    }

    pub(super) fn const_int_range(&mut self, e: &ast::Expr) -> Option<(i64, i64)> {
        match &e.kind {
            ast::ExprKind::Int(n) => Some((*n, *n)),
            ast::ExprKind::Binary(BinOp::Range, a, b) => match (&a.kind, &b.kind) {
                (ast::ExprKind::Int(x), ast::ExprKind::Int(y)) => Some((*x, *y)),
                _ => None,
            },
            _ => None,
        }
    }

    pub(super) fn name_list(&mut self, e: &ast::Expr) -> Vec<(String, Span)> {
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

    pub(super) fn phase_named(&mut self, n: &str, span: Span) -> Option<Id> {
        match self.globals.get(n) {
            Some((Global::Phase(p), _)) => {
                self.referenced_phases[*p as usize] = true;
                Some(*p)
            }
            // Declared twice: the duplicate's error is the one.
            _ if self.redeclared.iter().any(|r| r == n) => None,
            _ => {
                let help = did_you_mean(n, self.prog.phases.iter().map(|p| p.name.as_str()));
                // The phase suggested is the one meant: it is not reported again as never run.
                let meant =
                    crate::diag::suggest(n, self.prog.phases.iter().map(|p| p.name.as_str()))
                        .and_then(|s| self.prog.phases.iter().position(|p| p.name == s));
                if let Some(used) = meant.and_then(|i| self.referenced_phases.get_mut(i)) {
                    *used = true;
                }
                self.err(
                    Diag::error("check::unknown_phase", format!("unknown phase `{n}`"))
                        .label(span, "no `phase` has this name")
                        .maybe_help(help),
                );
                None
            }
        }
    }

    pub(super) fn fn_named(&mut self, n: &str, span: Span, arity: usize) -> Option<Id> {
        match self.globals.get(n).copied() {
            Some((Global::Fn(f), _)) => {
                let f = &f;
                let got = self.prog.fns[*f as usize].params.len();
                if got != arity {
                    let want = if arity == 0 {
                        "no argument".to_string()
                    } else {
                        format!("{arity} argument (a player)")
                    };
                    self.err(
                        Diag::error(
                            "check::arity",
                            format!("`{n}` must take {want}, it takes {got}"),
                        )
                        .label(span, "here"),
                    );
                }
                Some(*f)
            }
            // Declared twice: the duplicate's error is the one.
            _ if self.redeclared.iter().any(|r| r == n) => None,
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

    /// Function `f`'s name and where it is declared (`at`, for a function not found: its use).
    fn fn_declared(&self, f: Id, at: Span) -> (String, Span) {
        self.prog
            .fns
            .get(f as usize)
            .map_or((String::new(), at), |fd| (fd.name.clone(), fd.span))
    }

    /// A score or tiebreak function gives an int (never a value that may be `none`).
    fn fn_gives_int(&mut self, f: Id, span: Span, what: &str) {
        let gives = self.fn_gives.get(f as usize).cloned().unwrap_or(Ty::Any);
        if super::types::compatible(&Ty::Int, &gives) {
            return;
        }
        let (name, at) = self.fn_declared(f, span);
        let g = self.ty_name(&gives);
        self.err(
            Diag::error(
                "check::type",
                format!("{what} is a number, but `{name}` gives {g}"),
            )
            .label(span, format!("{what}: an int for each player"))
            .label(at, format!("gives {g}"))
            .help(if super::types::maybe_none(&gives) {
                format!("it is `none` when there is nothing to compare: in `{name}`, put the value in a `let` and give a number for `none` (`if m == none {{ 0 }} else {{ m }}`)")
            } else {
                format!("make `{name}` give an int (`fn {name}(p: player) -> int = ...`)")
            }),
        );
    }

    /// A figure's function gives an int (a count) or a pair of ints (`(met, faced)`: so many of
    /// so many).
    fn figure_fn(&mut self, f: Id, span: Span) -> bool {
        let gives = self.fn_gives.get(f as usize).cloned().unwrap_or(Ty::Any);
        let ok = match &gives {
            Ty::Int => true,
            Ty::Tuple(ts) => ts.len() == 2 && ts.iter().all(|t| *t == Ty::Int),
            _ => false,
        };
        if ok {
            return true;
        }
        let (name, at) = self.fn_declared(f, span);
        let g = self.ty_name(&gives);
        self.err(
            Diag::error(
                "check::type",
                format!("a figure is a count or a pair of counts, but `{name}` gives {g}"),
            )
            .label(span, "a figure: an int, or (int, int) for so many of so many")
            .label(at, format!("gives {g}"))
            .help(format!(
                "declare what it gives: `fn {name}() -> int = ...` or `fn {name}() -> (int, int) = (met, faced)`"
            )),
        );
        false
    }

    /// A measure gives an int or a bool for a player.
    fn measure_fn(&mut self, f: Id, span: Span) -> bool {
        let gives = self.fn_gives.get(f as usize).cloned().unwrap_or(Ty::Any);
        let first = (self.prog.fns.get(f as usize)).and_then(|fd| fd.params.first().cloned());
        if let Some((_, ty)) = first {
            if !matches!(ty, Ty::Player | Ty::Any) {
                let (name, at) = self.fn_declared(f, span);
                let t = self.ty_name(&ty);
                self.err(
                    Diag::error(
                        "check::type",
                        format!("a measure is read for each player, but `{name}` takes {t}"),
                    )
                    .label(span, "a measure: a function of a player")
                    .label(at, format!("takes {t}"))
                    .help(format!("write `fn {name}(p: player) -> bool = ...`")),
                );
                return false;
            }
        }
        if matches!(gives, Ty::Int | Ty::Bool) {
            return true;
        }
        let (name, at) = self.fn_declared(f, span);
        let g = self.ty_name(&gives);
        self.err(
            Diag::error(
                "check::type",
                format!("a measure is a number or a yes/no for a player, but `{name}` gives {g}"),
            )
            .label(span, "a measure: an int or a bool, for each player")
            .label(at, format!("gives {g}"))
            .help(format!(
                "declare what it gives: `fn {name}(p: player) -> bool = ...` or `-> int`"
            )),
        );
        false
    }

    pub(super) fn check_recursion(&mut self) {
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

    pub(super) fn order_consts(&mut self) {
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
}
