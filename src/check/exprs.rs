//! Expressions: lowering with names resolved to slots, and their types; patterns; calls.

use super::*;
use crate::ast::{self, AggKind, BinOp, UnOp};
use crate::diag::{did_you_mean, Diag, Span};
use crate::program::*;
use crate::value::Value;

impl Checker {
    // ================================================================ expressions

    /// `e` lowered, with its type, which the lowered node keeps as its `Sort` for the
    /// compiler.
    pub fn expr(&mut self, e: &ast::Expr) -> (Expr, Ty) {
        let (mut x, t) = self.expr_lowered(e);
        x.ty = Sort::of(&t);
        (x, t)
    }

    fn expr_lowered(&mut self, e: &ast::Expr) -> (Expr, Ty) {
        use ast::ExprKind as E;
        // In a loop's body, only the blocks of an `if`, a `match` or a block may `break`.
        match self.jump {
            loops::Jump::Loop if !matches!(e.kind, E::If(..) | E::Match(..) | E::Block(_)) => {
                return self.in_value(matches!(e.kind, E::Agg { .. }), |me| me.expr(e));
            }
            loops::Jump::Value if matches!(e.kind, E::Agg { .. }) => {
                return self.in_value(true, |me| me.expr(e));
            }
            _ => {}
        }
        let span = e.span;
        let mk = |kind| Expr::new(kind, span);
        match &e.kind {
            E::Int(n) => (mk(ExprKind::Const(Value::Int(*n))), Ty::Int),
            E::Bool(b) => (mk(ExprKind::Const(Value::Bool(*b))), Ty::Bool),
            E::None => (mk(ExprKind::Const(Value::None)), Ty::None),
            E::Text(..) => self.expr_text(e),
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
            E::List(..) => self.expr_list(e),
            E::Tuple(..) => self.expr_tuple(e),
            E::Unary(..) => self.expr_unary(e),
            E::Binary(..) => self.expr_binary(e),
            E::Field(..) => self.expr_field(e),
            E::Index(..) => self.expr_index(e),
            E::Call(callee, args) => self.call(callee, args, span),
            E::FnLit(..) => {
                self.err(
                    Diag::error(
                        "check::fn_value",
                        "a `fn(...)` value is written only as a card's field",
                    )
                    .label(span, "code here")
                    .help("declare the field in the kind as `effect: fn(p: player)` and write the code in each card; in rules, write a named `fn`"),
                );
                (mk(ExprKind::Const(Value::None)), Ty::Any)
            }
            E::If(..) => self.expr_if_expr(e),
            E::Match(..) => self.expr_match_expr(e),
            E::Agg { .. } => self.expr_aggregate(e),
            E::Block(b) => {
                let (bx, t) = self.block_expr(b);
                (mk(ExprKind::Block(bx)), t)
            }
            E::TableLit(..) => self.expr_table_lit(e),
        }
    }

    #[inline(never)]
    fn expr_text(&mut self, e: &ast::Expr) -> (Expr, Ty) {
        use ast::ExprKind as E;
        let span = e.span;
        let mk = |kind| Expr::new(kind, span);
        let E::Text(parts) = &e.kind else {
            return (mk(ExprKind::Const(Value::None)), Ty::Any);
        };
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

    #[inline(never)]
    fn expr_list(&mut self, e: &ast::Expr) -> (Expr, Ty) {
        use ast::ExprKind as E;
        let span = e.span;
        let mk = |kind| Expr::new(kind, span);
        let E::List(items) = &e.kind else {
            return (mk(ExprKind::Const(Value::None)), Ty::Any);
        };
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

    #[inline(never)]
    fn expr_tuple(&mut self, e: &ast::Expr) -> (Expr, Ty) {
        use ast::ExprKind as E;
        let span = e.span;
        let mk = |kind| Expr::new(kind, span);
        let E::Tuple(items) = &e.kind else {
            return (mk(ExprKind::Const(Value::None)), Ty::Any);
        };
        let mut out = Vec::new();
        let mut tys = Vec::new();
        for it in items {
            let (x, t) = self.expr(it);
            out.push(x);
            tys.push(t);
        }
        (mk(ExprKind::Tuple(out)), Ty::Tuple(tys))
    }

    #[inline(never)]
    fn expr_unary(&mut self, e: &ast::Expr) -> (Expr, Ty) {
        use ast::ExprKind as E;
        let span = e.span;
        let mk = |kind| Expr::new(kind, span);
        let E::Unary(op, inner) = &e.kind else {
            return (mk(ExprKind::Const(Value::None)), Ty::Any);
        };
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

    #[inline(never)]
    fn expr_binary(&mut self, e: &ast::Expr) -> (Expr, Ty) {
        use ast::ExprKind as E;
        let span = e.span;
        let mk = |kind| Expr::new(kind, span);
        let E::Binary(op, a, b) = &e.kind else {
            return (mk(ExprKind::Const(Value::None)), Ty::Any);
        };
        let (x, ta) = self.expr(a);
        // The right of `and` runs only when the left is true, of `or` only when it is false.
        let n = match op {
            BinOp::And => Some(self.narrow(a, true, narrow::Region::Expr(b))),
            BinOp::Or => Some(self.narrow(a, false, narrow::Region::Expr(b))),
            _ => None,
        };
        let (y, tb) = self.expr(b);
        if let Some(n) = n {
            self.widen(n);
        }
        let ty = match op {
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Rem => {
                let what = format!("the operands of `{}`", op.symbol());
                let help = match (&ta, &tb) {
                    (Ty::List(_), Ty::List(_)) if *op == BinOp::Add => {
                        Some("to join two lists, write `concat(a, b)`".to_string())
                    }
                    (Ty::Text, _) | (_, Ty::Text) if *op == BinOp::Add => {
                        Some("to join texts, write them into one: `\"{a}{b}\"`".to_string())
                    }
                    _ => None,
                };
                // One mistake, one error: a sum of wrong operands is of no known type, so
                // what reads it is not blamed as well.
                if self.expect_operands(&Ty::Int, (&ta, a.span), (&tb, b.span), &what, help) {
                    Ty::Int
                } else {
                    Ty::Any
                }
            }
            BinOp::Range => {
                let what = "a range's bounds";
                if self.expect_operands(&Ty::Int, (&ta, a.span), (&tb, b.span), what, None) {
                    Ty::List(Box::new(Ty::Int))
                } else {
                    Ty::Any
                }
            }
            BinOp::And | BinOp::Or => {
                let what = format!("the operands of `{}`", op.symbol());
                self.expect_operands(&Ty::Bool, (&ta, a.span), (&tb, b.span), &what, None);
                Ty::Bool
            }
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                if !compatible(&ta, &tb) && !compatible(&tb, &ta) {
                    let (l, r) = (self.ty_name(&ta), self.ty_name(&tb));
                    let help = match (&ta, &tb) {
                        (t, Ty::None) | (Ty::None, t) => Some(format!(
                            "{} is never `none`: there is nothing to compare",
                            if *t == Ty::Int { "an int" } else { "a bool" }
                        )),
                        _ => None,
                    };
                    self.err(
                        Diag::error("check::compare", format!("cannot compare {l} with {r}"))
                            .label(a.span, l)
                            .label(b.span, r)
                            .maybe_help(help),
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

    #[inline(never)]
    fn expr_field(&mut self, e: &ast::Expr) -> (Expr, Ty) {
        use ast::ExprKind as E;
        let span = e.span;
        let mk = |kind| Expr::new(kind, span);
        let E::Field(base, name) = &e.kind else {
            return (mk(ExprKind::Const(Value::None)), Ty::Any);
        };
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
                    .filter_map(|k| k.fields.iter().find(|f| f.sym == sym).map(|f| f.ty.clone()))
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

    #[inline(never)]
    fn expr_index(&mut self, e: &ast::Expr) -> (Expr, Ty) {
        use ast::ExprKind as E;
        let span = e.span;
        let mk = |kind| Expr::new(kind, span);
        let E::Index(base, keys) = &e.kind else {
            return (mk(ExprKind::Const(Value::None)), Ty::Any);
        };
        if let E::Name(n) = &base.kind {
            if self.lookup_local(n).is_none() {
                match self.globals.get(n).copied() {
                    Some((Global::Zone(z), _)) => {
                        let ks = self.keys(z, keys, span, true);
                        let zd = &self.prog.zones[z as usize];
                        // Wrong keys were reported: the result is unknown, not a zone, so what
                        // follows is not reported again.
                        let ty = if zd.keys.len() == keys.len() {
                            Ty::Zone(zd.kind)
                        } else {
                            Ty::Any
                        };
                        return (mk(ExprKind::Zone(z, ks)), ty);
                    }
                    // A var without keys that holds a list is indexed as a list (`xs[0]`).
                    Some((Global::Var(v), _)) if keys.len() == 1 && self.is_list_var(v) => {}
                    Some((Global::Var(v), _)) => {
                        let ks = self.keys(v, keys, span, false);
                        // Wrong keys were reported: the result is unknown, so what follows is
                        // not reported again.
                        let t = match self.prog.vars.get(v as usize) {
                            Some(vd) if vd.keys.len() == keys.len() => vd.ty.clone(),
                            _ => Ty::Any,
                        };
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
                        let ty = self.prog.tables[t as usize].ty.clone();
                        return (mk(ExprKind::Table(t, Box::new(k))), ty);
                    }
                    _ => {}
                }
            }
        }
        let before = self.diags.len();
        let (b, bt) = self.expr(base);
        // A base that was just reported (an unknown name) is not a list: its keys are not
        // checked against one, which would only report the same mistake again.
        let reported = bt == Ty::Any && self.diags.len() > before;
        if keys.len() != 1 && !reported {
            self.err(Diag::error("check::keys", "a list takes one index").label(span, "here"));
        }
        let Some(k) = keys.first() else {
            return (mk(ExprKind::Const(Value::None)), Ty::Any);
        };
        let (kx, kt) = self.expr(k);
        if !reported {
            self.expect_ty(&Ty::Int, &kt, k.span, "a list index");
        }
        if !matches!(bt, Ty::Any | Ty::List(_) | Ty::Zone(_)) {
            let g = self.ty_name(&bt);
            self.err(
                Diag::error("check::type", format!("{g} cannot be indexed"))
                    .label(base.span, format!("this is {g}")),
            );
        }
        (mk(ExprKind::Index(Box::new(b), Box::new(kx))), bt.elem())
    }

    #[inline(never)]
    fn expr_if_expr(&mut self, e: &ast::Expr) -> (Expr, Ty) {
        use ast::ExprKind as E;
        let span = e.span;
        let mk = |kind| Expr::new(kind, span);
        let E::If(c, then, els) = &e.kind else {
            return (mk(ExprKind::Const(Value::None)), Ty::Any);
        };
        let (cx, ct) = self.expr(c);
        self.expect_ty(&Ty::Bool, &ct, c.span, "an `if` condition");
        let n = self.narrow(c, true, narrow::Region::Block(then));
        let (tb, tt) = self.block_expr(then);
        self.widen(n);
        let (ex, et) = match els {
            Some(x) => {
                let n = self.narrow(c, false, narrow::Region::Expr(x));
                let (x, t) = self.expr(x);
                self.widen(n);
                (Some(Box::new(x)), t)
            }
            None => (None, Ty::None),
        };
        let else_span = els.as_ref().map(|x| x.span).unwrap_or(span);
        let ty = self.join(tt, et, (then.span, else_span), "`if`");
        (mk(ExprKind::If(Box::new(cx), tb, ex)), ty)
    }

    #[inline(never)]
    fn expr_match_expr(&mut self, e: &ast::Expr) -> (Expr, Ty) {
        use ast::ExprKind as E;
        let span = e.span;
        let mk = |kind| Expr::new(kind, span);
        let E::Match(scrut, arms) = &e.kind else {
            return (mk(ExprKind::Const(Value::None)), Ty::Any);
        };
        let (sx, st) = self.expr(scrut);
        let mut out = Vec::new();
        let mut ty: Option<(Ty, Span)> = None;
        for arm in arms {
            let pats: Vec<Pat> = arm.patterns.iter().map(|p| self.pattern(p, &st)).collect();
            let (bx, bt) = self.expr(&arm.body);
            ty = Some(match ty {
                None => (bt, arm.body.span),
                Some((t, first)) => (self.join(t, bt, (first, arm.body.span), "`match`"), first),
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
            ty.map(|t| t.0).unwrap_or(Ty::Any),
        )
    }

    #[inline(never)]
    fn expr_aggregate(&mut self, e: &ast::Expr) -> (Expr, Ty) {
        use ast::ExprKind as E;
        let span = e.span;
        let mk = |kind| Expr::new(kind, span);
        let E::Agg {
            kind,
            var,
            source,
            filter,
            map,
        } = &e.kind
        else {
            return (mk(ExprKind::Const(Value::None)), Ty::Any);
        };
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
        self.statement_word(var, "a loop variable");
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
                let n = filter
                    .as_ref()
                    .map(|f| self.narrow(f, true, narrow::Region::Expr(m)));
                let (x, t) = self.expr(m);
                if let Some(n) = n {
                    self.widen(n);
                }
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
                if f.is_none() && self.never_empty(&src) {
                    Ty::Int
                } else {
                    Ty::Int.or_none()
                }
            }
            AggKind::Filter | AggKind::Sort => Ty::List(Box::new(elem.clone())),
            AggKind::Map => Ty::List(Box::new(mt)),
            AggKind::Best | AggKind::First => {
                if f.is_none() && self.never_empty(&src) {
                    elem
                } else {
                    elem.or_none()
                }
            }
            AggKind::FlatMap => Ty::List(Box::new(mt.elem())),
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

    #[inline(never)]
    fn expr_table_lit(&mut self, e: &ast::Expr) -> (Expr, Ty) {
        use ast::ExprKind as E;
        let span = e.span;
        let mk = |kind| Expr::new(kind, span);
        let E::TableLit(entries) = &e.kind else {
            return (mk(ExprKind::Const(Value::None)), Ty::Any);
        };
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
                ty: Sort::Any,
            });
        }
        (
            mk(ExprKind::List(out)),
            Ty::List(Box::new(Ty::Tuple(vec![Ty::Int, Ty::Int, elem]))),
        )
    }

    pub(super) fn name(&mut self, n: &str, span: Span) -> (Expr, Ty) {
        let mk = |kind| Expr::new(kind, span);
        if let Some((slot, ty)) = self.lookup_local(n) {
            // `let x = none` says nothing of what `x` will hold until a `set` does: until
            // then it reads as any value (checked when used). `let x: T = none` says it.
            let ty = if ty == Ty::None { Ty::Any } else { ty };
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
            "all_players" => {
                return (
                    mk(ExprKind::Special(Special::AllPlayers)),
                    Ty::List(Box::new(Ty::Player)),
                )
            }
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
            Some((Global::Option(o), _)) => (
                mk(ExprKind::Option(o)),
                self.prog.options[o as usize].ty.clone(),
            ),
            Some((Global::Const(c), _)) => {
                if let Some(cur) = self.cur_const {
                    self.const_refs[cur as usize].push(c);
                }
                let ty = self.prog.consts[c as usize].ty.clone();
                (mk(ExprKind::ConstRef(c)), ty)
            }
            Some((
                g @ (Global::Fn(_) | Global::Phase(_) | Global::Table(_) | Global::Event(_)),
                _,
            )) => {
                let help = match g {
                    Global::Fn(_) => format!("call it: `{n}(...)`"),
                    Global::Table(_) => format!("look a key up: `{n}[key]`"),
                    Global::Event(_) => format!("fire it with `emit {n}(...)`"),
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

    pub(super) fn call(
        &mut self,
        callee: &ast::Expr,
        args: &[ast::Expr],
        span: Span,
    ) -> (Expr, Ty) {
        let mk = |kind| Expr::new(kind, span);
        if let ast::ExprKind::Field(base, name) = &callee.kind {
            let lowered: Vec<(Expr, Ty, Span)> = args
                .iter()
                .map(|a| {
                    let (x, t) = self.expr(a);
                    (x, t, a.span)
                })
                .collect();
            return self.call_field(base, name, lowered, span);
        }
        let ast::ExprKind::Name(n) = &callee.kind else {
            self.err(
                Diag::error(
                    "check::call",
                    "only named functions and cards' code can be called",
                )
                .label(callee.span, "not a function name")
                .help("call a `fn` by name, `f(x)`, or a card's `fn` field, `c.effect(p)`"),
            );
            return (mk(ExprKind::Const(Value::None)), Ty::Any);
        };
        let mut lowered: Vec<(Expr, Ty, Span)> = args
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
            // With the wrong number of arguments, which argument is which is a guess: the
            // arity error is the one error.
            let matched = if params.len() == lowered.len() {
                params.len()
            } else {
                0
            };
            for ((pname, pty), (_, aty, aspan)) in params.iter().zip(lowered.iter()).take(matched) {
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
        if n == "fits" && self.lookup_local(n).is_none() {
            return self.fits(args, span);
        }
        if self.lookup_local(n).is_none() && !self.globals.contains_key(n) {
            if let Some(sig) = crate::builtins::find(n) {
                if lowered.len() < sig.min_args || lowered.len() > sig.params.len() {
                    let want = if sig.min_args == sig.params.len() {
                        format!("{}", sig.min_args)
                    } else {
                        format!("{} to {}", sig.min_args, sig.params.len())
                    };
                    // `min(list)`: the aggregate is what was meant.
                    let over_list = matches!(n.as_str(), "min" | "max")
                        && matches!(lowered.as_slice(), [(_, Ty::List(_), _)]);
                    let help = if over_list {
                        format!(
                            "`{}`: {}; the {} of a list is `{n}(x in list => x)` (`int or \
                             none`: `none` when the list is empty)",
                            sig.signature(),
                            sig.returns,
                            if n == "min" { "least" } else { "greatest" }
                        )
                    } else {
                        format!("`{}`: {}", sig.signature(), sig.returns)
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
                        .help(help),
                    );
                    // One mistake, one error: the arguments are not judged one by one, and the
                    // call's value is unknown rather than a guess that fails further on.
                    return (mk(ExprKind::Const(Value::None)), Ty::Any);
                }
                for (i, (_, aty, aspan)) in lowered.iter().enumerate() {
                    let want = sig.params.get(i).map(|p| p.1.ty()).unwrap_or(Ty::Any);
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
                if sig.name == "finish_game" {
                    self.calls_finish = true;
                }
                self.label_count(sig, &lowered);
                let tys: Vec<Ty> = lowered.iter().map(|l| l.1.clone()).collect();
                let ret = (sig.ret)(&tys);
                if let Some(fused) = fuse_flatten_map(sig, &mut lowered, span) {
                    return (fused, ret);
                }
                return (
                    mk(ExprKind::Builtin(
                        sig,
                        lowered.into_iter().map(|l| l.0).collect(),
                    )),
                    ret,
                );
            }
        }
        if self.redeclared.iter().any(|r| r == n) {
            // Declared twice: the duplicate's error is the one.
            return (mk(ExprKind::Const(Value::None)), Ty::Any);
        }
        let help = if self.suggesting() {
            let mut names: Vec<&str> = self.prog.fns.iter().map(|f| f.name.as_str()).collect();
            names.extend(crate::builtins::all().map(|b| b.name));
            did_you_mean(n, names.iter().copied())
        } else {
            None
        };
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
    pub(super) fn pattern(&mut self, p: &ast::Spanned<ast::Pattern>, scrut: &Ty) -> Pat {
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

    /// The type of a value that is one of two branches' (`if`/`else`, `match` arms). A branch
    /// that gives nothing makes the value possibly `none`; branches of unrelated types are an
    /// error.
    pub(super) fn join(&mut self, a: Ty, b: Ty, spans: (Span, Span), what: &str) -> Ty {
        match (&a, &b) {
            (Ty::None, Ty::None) => Ty::None,
            (t, Ty::None) | (Ty::None, t) => {
                if allows_none(t) {
                    t.clone()
                } else {
                    Ty::Opt(Box::new(t.clone()))
                }
            }
            // One branch may give `none` where the other gives an int: so may the whole.
            (Ty::Opt(x), y) | (y, Ty::Opt(x)) if compatible(x, y) || compatible(y, x) => {
                Ty::Opt(x.clone())
            }
            _ if compatible(&a, &b) => match (&a, &b) {
                (Ty::Any, _) | (Ty::Card(None), _) | (Ty::Zone(None), _) => a,
                _ => b,
            },
            _ => {
                let (x, y) = (self.ty_name(&a), self.ty_name(&b));
                self.err(
                    Diag::error(
                        "check::branches",
                        format!("the branches of this {what} give {x} and {y}"),
                    )
                    .label(spans.0, format!("this gives {x}"))
                    .label(spans.1, format!("this gives {y}"))
                    .help("give every branch the same type of value, or end a branch with a statement"),
                );
                Ty::Any
            }
        }
    }

    /// `fits(place, value)`: lowered with the place's bounds, known here, so legal-option
    /// helpers can ask whether a `set` would be refused (or clamped) before offering it.
    fn fits(&mut self, args: &[ast::Expr], span: Span) -> (Expr, Ty) {
        let mk = |kind| Expr::new(kind, span);
        let [place, value] = args else {
            self.err(
                Diag::error(
                    "check::arity",
                    format!("`fits` takes 2 arguments, found {}", args.len()),
                )
                .label(span, "wrong number of arguments")
                .help("`fits(place, value)`: whether `value` lies within the bounds of the var or field `place`"),
            );
            return (mk(ExprKind::Const(Value::Bool(false))), Ty::Bool);
        };
        let (vx, vt) = self.expr(value);
        self.expect_ty(&Ty::Int, &vt, value.span, "the value `fits` tests");
        let Some((_, info)) = self.place(place) else {
            return (mk(ExprKind::Const(Value::Bool(false))), Ty::Bool);
        };
        match info.bounds {
            Some((lo, hi)) => (mk(ExprKind::InBounds(Box::new(vx), lo, hi)), Ty::Bool),
            None => {
                self.err(
                    Diag::error("check::fits", format!("{} has no bounds", info.what))
                        .label(place.span, "every value fits")
                        .maybe_label(info.decl, "declared without `in lo..hi` here")
                        .help("declare bounds, like `in 0..7` or `in -5..5 refuse`, or leave out the test"),
                );
                (mk(ExprKind::Const(Value::Bool(true))), Ty::Bool)
            }
        }
    }
}

/// `flatten(map(x in l => v))` becomes one aggregate that joins the lists `v` gives as it goes,
/// so the list of lists is never built. The order of evaluation is unchanged.
fn fuse_flatten_map(
    sig: &crate::builtins::BuiltinDef,
    args: &mut Vec<(Expr, Ty, Span)>,
    span: Span,
) -> Option<Expr> {
    if sig.name != "flatten" || args.len() != 1 {
        return None;
    }
    let (arg, _, _) = args.pop()?;
    match arg.kind {
        ExprKind::Agg {
            kind: AggKind::Map,
            slot,
            source,
            filter,
            map,
        } => Some(Expr {
            kind: ExprKind::Agg {
                kind: AggKind::FlatMap,
                slot,
                source,
                filter,
                map,
            },
            span,
            ty: Sort::Any,
        }),
        other => {
            args.push((
                Expr {
                    kind: other,
                    span: arg.span,
                    ty: Sort::Any,
                },
                Ty::Any,
                arg.span,
            ));
            None
        }
    }
}

impl Checker {
    /// Whether a source's list is known to have an element whatever the game's state: an enum's
    /// values, every card of a kind that has cards, a list written out with something in it, a
    /// range whose bounds are written as numbers (`1..6`). `min`, `max`, `best` and `first` over
    /// such a list, without `where`, are never `none`.
    fn never_empty(&self, src: &Expr) -> bool {
        match &src.kind {
            ExprKind::Const(Value::List(l)) => !l.is_empty(),
            ExprKind::List(items) => !items.is_empty(),
            ExprKind::KindCards(k) => self.prog.cards.iter().any(|c| c.kind == *k),
            ExprKind::Binary(BinOp::Range, a, b) => matches!(
                (&a.kind, &b.kind),
                (ExprKind::Const(Value::Int(lo)), ExprKind::Const(Value::Int(hi))) if lo <= hi
            ),
            _ => false,
        }
    }
}
