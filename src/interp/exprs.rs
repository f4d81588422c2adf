//! Expressions: evaluation, calls, operators and aggregates.

use super::compile::{CFn, Ev};
use super::*;
use crate::ast::{AggKind, BinOp, UnOp};
use crate::diag::{Diag, Span};
use crate::program::*;
use crate::value::{Items, Value};
use std::rc::Rc;

impl<'p> Interp<'p> {
    // ================================================================ expressions

    /// A lean dispatcher: each form is worked out in a function of its own, so this frame stays
    /// small and the common reads (constants, locals) return at once.
    #[inline]
    pub fn eval(&mut self, e: &Expr) -> R<Value> {
        // Steps are counted on statements, loop iterations and calls: an expression without
        // those is bounded by its own size, so this still bounds every runaway.
        match &e.kind {
            ExprKind::Const(v) => Ok(v.clone()),
            ExprKind::Local(slot) => Ok(self.local(*slot)),
            _ => self.eval_node(e),
        }
    }

    #[inline(never)]
    fn eval_node(&mut self, e: &Expr) -> R<Value> {
        match &e.kind {
            ExprKind::Const(v) => Ok(v.clone()),
            ExprKind::Local(slot) => Ok(self.local(*slot)),
            ExprKind::Field(base, sym) => self.eval_field(base, *sym, e.span),
            ExprKind::Call(f, args) => self.call_with_args(*f, &args[..], e.span),
            ExprKind::Binary(op, a, b) => self.binary(*op, a, b, e.span),
            ExprKind::Builtin(b, args) => self.builtin(builtins::own(b), &args[..], e.span, None),
            ExprKind::ConstRef(c) => Ok(self.state.consts[*c as usize].clone()),
            ExprKind::Var(id, keys) => self.eval_var(*id, &keys[..], e.span),
            ExprKind::Zone(id, keys) => self.eval_zone(*id, &keys[..], e.span),
            ExprKind::Agg {
                kind,
                slot,
                source,
                filter,
                map,
            } => {
                let src = self.eval_source(source)?;
                self.aggregate(*kind, *slot, src, filter.as_deref(), map.as_deref(), e.span)
            }
            ExprKind::If(c, then, els) => self.eval_if(c, then, els.as_deref()),
            ExprKind::Match(scrut, arms) => self.eval_match(scrut, arms, e.span),
            ExprKind::Block(b) => self.exec_block(b),
            _ => self.eval_slow(e),
        }
    }

    #[inline(never)]
    fn eval_field(&mut self, base: &Expr, sym: Id, span: Span) -> R<Value> {
        match self.eval(base)? {
            Value::Card(c) => self.field(c, sym, span),
            other => Err(self.not_a_card(base, &other, sym)),
        }
    }

    #[inline(never)]
    fn eval_if(&mut self, c: &Expr, then: &Block, els: Option<&Expr>) -> R<Value> {
        if self.boolean(c)? {
            self.exec_block(then)
        } else if let Some(x) = els {
            self.eval(x)
        } else {
            Ok(Value::None)
        }
    }

    #[inline(never)]
    fn eval_match(&mut self, scrut: &Expr, arms: &[(Vec<Pat>, Expr)], span: Span) -> R<Value> {
        let v = self.eval(scrut)?;
        for (pats, body) in arms {
            if pats.iter().any(|p| pat_matches(p, &v)) {
                return self.eval(body);
            }
        }
        Err(self.no_arm(&v, span))
    }

    /// `players`, `player_count`, `round`, `all_players`.
    pub(super) fn special(&self, s: Special) -> Value {
        match s {
            Special::Players => Value::List(self.players_in()),
            Special::AllPlayers => Value::List(self.players.clone()),
            Special::PlayerCount => {
                let left = self.state.eliminated.len().saturating_sub(self.state.out);
                Value::Int(i64::try_from(left).unwrap_or(i64::MAX))
            }
            Special::Round => Value::Int(self.state.round),
        }
    }

    #[cold]
    pub(super) fn no_arm(&self, v: &Value, span: Span) -> Box<Diag> {
        rt(span, format!("no arm matches `{}`", self.show(v)))
    }

    pub(super) fn eval_var<E: Ev>(&mut self, id: Id, keys: &[E], span: Span) -> R<Value> {
        let slot = self.var_slot(id, keys, span)?;
        self.var_at(id, slot, span)
    }

    /// The value in slot `slot` of var family `id`.
    #[inline]
    pub(super) fn var_at(&self, id: Id, slot: usize, span: Span) -> R<Value> {
        if self.observer.is_some() {
            self.peek_var(id, slot, span)?;
        }
        match self.state.vars.get(slot) {
            Some(v) => Ok(v.clone()),
            None => Err(rt(span, "this var has no such slot")),
        }
    }

    pub(super) fn eval_zone<E: Ev>(&mut self, id: Id, keys: &[E], span: Span) -> R<Value> {
        let prog = self.prog;
        let (Some(zd), Some(&base)) = (
            prog.zones.get(id as usize),
            self.state.zone_base.get(id as usize),
        ) else {
            return Err(rt(span, "this zone is missing"));
        };
        if keys.is_empty() {
            return Ok(Value::Zone(base));
        }
        let off = self.flat_key(&zd.keys, (true, id), keys, span)?;
        // Within the zone slots, which fit in `u32` (`Layout::new`).
        Ok(Value::Zone(base.saturating_add(off)))
    }

    #[cold]
    pub(super) fn not_a_card<E: Ev + ?Sized>(&self, base: &E, v: &Value, sym: Id) -> Box<Diag> {
        match v {
            Value::None => self.with_origin(
                Box::new(
                    Diag::error(
                        "run::none",
                        format!("this is `none`, so it has no field `{}`", self.prog.symbols[sym as usize]),
                    )
                    .label(base.span(), "this is `none`")
                    .help("an empty zone's `top` or an empty choice gives `none`; check with `if x != none { ... }`"),
                ),
                base,
            ),
            other => self.with_origin(rt(base.span(), format!("expected a card, found {}", other.type_name())), base),
        }
    }

    /// The less frequent expression forms, kept out of `eval` so its frame stays small.
    #[inline(never)]
    pub(super) fn eval_slow(&mut self, e: &Expr) -> R<Value> {
        Ok(match &e.kind {
            ExprKind::Option(o) => self
                .state
                .options
                .get(*o as usize)
                .cloned()
                .unwrap_or(Value::None),
            ExprKind::KindCards(k) => {
                Value::list(self.prog.cards_of_kind(*k).map(Value::Card).collect())
            }
            ExprKind::Special(s) => self.special(*s),
            ExprKind::CardBuiltinField(base, f) => {
                let v = self.eval(base)?;
                self.card_builtin_field(v, base.span, *f, e.span, None)?
            }
            ExprKind::TupleIndex(base, i) => match self.eval(base)? {
                t @ (Value::Tuple(_) | Value::Packed(_)) => t
                    .tuple_items()
                    .and_then(|items| items.get(*i).cloned())
                    .ok_or_else(|| rt(e.span, format!("this tuple has no element {i}")))?,
                other => {
                    return Err(rt(
                        base.span,
                        format!("expected a tuple, found {}", other.type_name()),
                    ))
                }
            },
            ExprKind::Index(base, idx) => {
                let b = self.eval(base)?;
                let i = self.int(idx)?;
                self.index(&b, i, base.span, idx.span)?
            }
            ExprKind::Table(t, key) => {
                let k = self.eval(key)?;
                let (i, locals) = self.table_entry(*t, &k, e.span)?;
                let prog = self.prog;
                match prog
                    .tables
                    .get(*t as usize)
                    .and_then(|td| td.entries.get(i))
                {
                    Some((_, val, _)) => self.with_frame(locals, |me| me.eval(val))?,
                    None => return Err(rt(e.span, "this table is missing")),
                }
            }
            ExprKind::CallField(base, sym, args) => {
                self.call_field(&**base, *sym, &args[..], e.span)?
            }
            ExprKind::Unary(op, x) => match op {
                UnOp::Neg => Value::Int(
                    self.int(x)?
                        .checked_neg()
                        .ok_or_else(|| rt(e.span, "number overflow"))?,
                ),
                UnOp::Not => Value::Bool(!self.boolean(x)?),
            },
            ExprKind::List(items) => {
                let mut out = Vec::with_capacity(items.len());
                for i in items {
                    out.push(self.eval(i)?);
                }
                self.nest(Value::list(out), e.span)?
            }
            ExprKind::Tuple(items) => {
                let mut out = Vec::with_capacity(items.len());
                for i in items {
                    out.push(self.eval(i)?);
                }
                self.nest(Value::tuple_made(out), e.span)?
            }
            ExprKind::Text(parts) if self.sketching > 0 => {
                // Nobody reads it (a label in a silent run): its values only, for their errors.
                for p in parts {
                    if let TextPart::Expr(x) = p {
                        self.eval(x)?;
                    }
                }
                Value::Text(self.empty_text.clone())
            }
            ExprKind::Text(parts) => {
                let mut s = String::new();
                for p in parts {
                    match p {
                        TextPart::Lit(t) => s.push_str(t),
                        TextPart::Expr(x) => {
                            let v = self.eval(x)?;
                            self.show_into_text(&mut s, &v, x.span)?;
                        }
                    }
                    self.text_fits(&s, e.span)?;
                }
                Value::text(&s)
            }
            ExprKind::InBounds(x, lo, hi) => Value::Bool((*lo..=*hi).contains(&self.int(x)?)),
            // `eval_node` works these out by name (and sends only the forms above here), so no
            // form goes back and forth; a new form must be placed in one of the two.
            ExprKind::Const(_)
            | ExprKind::Local(_)
            | ExprKind::Field(..)
            | ExprKind::Call(..)
            | ExprKind::Binary(..)
            | ExprKind::Builtin(..)
            | ExprKind::ConstRef(_)
            | ExprKind::Var(..)
            | ExprKind::Zone(..)
            | ExprKind::Agg { .. }
            | ExprKind::If(..)
            | ExprKind::Match(..)
            | ExprKind::Block(_) => return self.eval_node(e),
        })
    }

    /// `list[i]`: a list's element, or a zone's card, read in place (no list built).
    pub(super) fn index(&self, b: &Value, i: i64, base: Span, idx: Span) -> R<Value> {
        let len = match b {
            Value::List(l) => {
                if let Some(v) = usize::try_from(i).ok().and_then(|i| l.get(i)) {
                    return Ok(v.clone());
                }
                l.len()
            }
            Value::Zone(z) => {
                let cards = self
                    .state
                    .zones
                    .get(*z as usize)
                    .map_or(&[][..], |c| &c[..]);
                if let Some(&c) = usize::try_from(i).ok().and_then(|i| cards.get(i)) {
                    return Ok(Value::Card(c));
                }
                cards.len()
            }
            other => self.as_list(other, base)?.len(),
        };
        Err(outside(i, len, idx))
    }

    /// One interpolated value of a text, shown and charged for.
    pub(super) fn show_into_text(&mut self, s: &mut String, v: &Value, at: Span) -> R<()> {
        self.charge(v.cost(), at)?;
        self.words_append(v, s);
        Ok(())
    }

    /// A text being built must stay under the text limit.
    pub(super) fn text_fits(&self, s: &str, span: Span) -> R<()> {
        if s.len() > self.limits.max_text_bytes {
            return Err(Box::new(
                Diag::error(
                    "limit::text",
                    format!("this text grew past {} bytes", self.limits.max_text_bytes),
                )
                .label(span, "built here")
                .help("a loop probably doubles a text each time round"),
            ));
        }
        Ok(())
    }

    #[inline]
    pub(super) fn check_call_depth(&self, span: Span) -> R<()> {
        if self.call_depth >= self.limits.max_call_depth {
            return Err(self.too_deep(span));
        }
        Ok(())
    }

    #[cold]
    fn too_deep(&self, span: Span) -> Box<Diag> {
        Box::new(
            Diag::error(
                "limit::calls",
                format!("calls nested more than {} deep", self.limits.max_call_depth),
            )
            .label(span, "this call"),
        )
    }

    /// Call a user function, evaluating its arguments straight into the new frame.
    pub(super) fn call_with_args<E: Ev>(&mut self, f: Id, args: &[E], span: Span) -> R<Value> {
        let code = self.code;
        match code.fns.get(f as usize) {
            Some(cf) => self.call_compiled(cf, args, span),
            None => Err(rt(span, "this function is missing")),
        }
    }

    /// `c.field(args)`: run the code in a card's `fn` field. A `none` effect does nothing.
    pub(super) fn call_field<E: Ev + ?Sized, A: Ev>(
        &mut self,
        base: &E,
        sym: Id,
        args: &[A],
        span: Span,
    ) -> R<Value> {
        let c = match base.ev(self)? {
            Value::Card(c) => c,
            other => return Err(self.not_a_card(base, &other, sym)),
        };
        let prog = self.prog;
        let code = self.code;
        match self.field(c, sym, span)? {
            Value::Fn(f) => match code.card_fns.get(f as usize) {
                Some(cf) => self.call_compiled(cf, args, span),
                None => Err(rt(span, "this card's code is missing")),
            },
            Value::None => {
                for a in args {
                    a.ev(self)?;
                }
                Ok(Value::None)
            }
            other => Err(rt(
                span,
                format!(
                    "field `{}` holds {}, not code",
                    prog.symbols[sym as usize],
                    other.type_name()
                ),
            )),
        }
    }

    /// `c.id`, `c.kind` or `c.face_up` of the card `v` (made at `at`), read at `span`. As for
    /// any field, an observer must see the card for its id or kind. `kind_names`: the kinds'
    /// names already made as text values, when the caller keeps them.
    pub(super) fn card_builtin_field(
        &self,
        v: Value,
        at: Span,
        f: CardField,
        span: Span,
        kind_names: Option<&[Value]>,
    ) -> R<Value> {
        let Value::Card(c) = v else {
            return Err(rt(at, format!("expected a card, found {}", v.type_name())));
        };
        if f != CardField::FaceUp && self.observer.is_some() {
            self.peek(c, span)?;
        }
        let prog = self.prog;
        let cd = prog.cards.get(c as usize);
        let v = match f {
            CardField::Id => cd.map(|cd| Value::text(&cd.id.to_string())),
            CardField::FaceUp => self.state.face_up.get(c as usize).map(|&u| Value::Bool(u)),
            CardField::Kind => cd.and_then(|cd| match kind_names {
                Some(names) => names.get(cd.kind as usize).cloned(),
                None => prog
                    .kinds
                    .get(cd.kind as usize)
                    .map(|k| Value::text(&k.name)),
            }),
        };
        v.ok_or_else(|| rt(span, "this card does not exist"))
    }

    /// The entry of table `t` whose pattern `k` matches first (its index), and the frame its
    /// value needs; or the error that names the key with no entry.
    pub(super) fn table_entry(&self, t: Id, k: &Value, span: Span) -> R<(usize, u32)> {
        let prog = self.prog;
        let Some(td) = prog.tables.get(t as usize) else {
            return Err(rt(span, "this table is missing"));
        };
        if let Some(i) = td
            .entries
            .iter()
            .position(|(pat, _, _)| pat_matches(pat, k))
        {
            return Ok((i, td.locals));
        }
        Err(Box::new(
            Diag::error(
                "run::table",
                format!("table `{}` has no entry for `{}`", td.name, self.show(k)),
            )
            .label(span, "looked up here")
            .label(td.span, "table declared here")
            .help(format!(
                "add an entry for `{}` to `{}`, or a catch-all `_: ...`",
                self.show(k),
                td.name
            )),
        ))
    }

    /// Call a compiled function body (a `fn` or a card's code), evaluating its arguments
    /// straight into the new frame.
    pub(super) fn call_compiled<E: Ev>(&mut self, cf: &CFn, args: &[E], span: Span) -> R<Value> {
        self.tick(span)?;
        self.check_call_depth(span)?;
        let new_bp = self.enter_args(cf, args)?;
        self.run_body(cf, new_bp)
    }

    /// A call's new frame, with its arguments worked out into it in order; returns where it
    /// starts (for `run_body`). On an error the frame is gone again.
    #[inline(always)]
    pub(super) fn enter_args<E: Ev>(&mut self, cf: &CFn, args: &[E]) -> R<usize> {
        let new_bp = self.push_frame(cf.locals.max(args.len()));
        for (i, a) in args.iter().enumerate() {
            // Arguments are evaluated in the caller's frame; nested calls push above ours.
            let v = match a.ev(self) {
                Ok(v) => v,
                Err(e) => {
                    self.sp = new_bp;
                    return Err(e);
                }
            };
            let origin = self.param_origin(a);
            self.store_param(new_bp + i, v, origin);
        }
        Ok(new_bp)
    }

    /// Run a function's body in the frame `enter_args` made at `new_bp`, then leave the frame.
    #[inline(always)]
    pub(super) fn run_body(&mut self, cf: &CFn, new_bp: usize) -> R<Value> {
        let old_bp = self.bp;
        self.bp = new_bp;
        // Below the depth limit here (`check_call_depth`), so neither step wraps.
        self.call_depth = self.call_depth.wrapping_add(1);
        let r = (cf.body)(self);
        let r = self.caught_return(r);
        self.call_depth = self.call_depth.wrapping_sub(1);
        self.sp = new_bp;
        self.bp = old_bp;
        r
    }

    pub fn call_fn(&mut self, f: Id, args: Vec<Value>, span: Span) -> R<Value> {
        self.check_call_depth(span)?;
        let code = self.code;
        let Some(cf) = code.fns.get(f as usize) else {
            return Err(rt(span, "this function is missing"));
        };
        self.call_depth += 1;
        let r = self.with_frame(cf.locals.max(args.len()) as u32, |me| {
            for (i, a) in args.into_iter().enumerate() {
                let at = me.bp + i;
                me.store_param(at, a, Span::default());
            }
            let r = (cf.body)(me);
            me.caught_return(r)
        });
        self.call_depth -= 1;
        r
    }

    pub(super) fn binary(&mut self, op: BinOp, a: &Expr, b: &Expr, span: Span) -> R<Value> {
        match op {
            BinOp::And => return Ok(Value::Bool(self.boolean(a)? && self.boolean(b)?)),
            BinOp::Or => return Ok(Value::Bool(self.boolean(a)? || self.boolean(b)?)),
            _ => {}
        }
        let x = self.eval(a)?;
        let y = self.eval(b)?;
        self.binary_vals(op, x, y, a.span, b.span, span)
    }

    /// A binary operator (not `and`, `or`) on its two values; `sa` and `sb` are where the
    /// operands were written.
    #[inline]
    pub(super) fn binary_vals(
        &mut self,
        op: BinOp,
        x: Value,
        y: Value,
        sa: Span,
        sb: Span,
        span: Span,
    ) -> R<Value> {
        // Numbers first: no card to hide, nothing to charge.
        if let (Value::Int(p), Value::Int(q)) = (&x, &y) {
            let (p, q) = (*p, *q);
            let r = match op {
                BinOp::Add => p.checked_add(q).map(Value::Int),
                BinOp::Sub => p.checked_sub(q).map(Value::Int),
                BinOp::Mul => p.checked_mul(q).map(Value::Int),
                BinOp::Eq => Some(Value::Bool(p == q)),
                BinOp::Ne => Some(Value::Bool(p != q)),
                BinOp::Lt => Some(Value::Bool(p < q)),
                BinOp::Le => Some(Value::Bool(p <= q)),
                BinOp::Gt => Some(Value::Bool(p > q)),
                BinOp::Ge => Some(Value::Bool(p >= q)),
                // Division, ranges and overflow take the general path (its errors and limits).
                _ => None,
            };
            if let Some(v) = r {
                return Ok(v);
            }
        }
        self.binary_slow(op, x, y, sa, sb, span)
    }

    #[inline(never)]
    fn binary_slow(
        &mut self,
        op: BinOp,
        x: Value,
        y: Value,
        sa: Span,
        sb: Span,
        span: Span,
    ) -> R<Value> {
        if self.observer.is_some() {
            // Comparing a card the viewer does not know would tell which card it is.
            self.peek_value(&x, sa)?;
            self.peek_value(&y, sb)?;
        }
        let ints = |x: &Value, y: &Value| -> R<(i64, i64)> {
            match (x, y) {
                (Value::Int(p), Value::Int(q)) => Ok((*p, *q)),
                _ => Err(rt(
                    span,
                    format!(
                        "`{}` needs two numbers, found {} and {}",
                        op.symbol(),
                        x.type_name(),
                        y.type_name()
                    ),
                )),
            }
        };
        let overflow = || rt(span, "number overflow");
        Ok(match op {
            BinOp::Add => {
                let (p, q) = ints(&x, &y)?;
                Value::Int(p.checked_add(q).ok_or_else(overflow)?)
            }
            BinOp::Sub => {
                let (p, q) = ints(&x, &y)?;
                Value::Int(p.checked_sub(q).ok_or_else(overflow)?)
            }
            BinOp::Mul => {
                let (p, q) = ints(&x, &y)?;
                Value::Int(p.checked_mul(q).ok_or_else(overflow)?)
            }
            BinOp::Div | BinOp::Rem => {
                let (p, q) = ints(&x, &y)?;
                if q == 0 {
                    return Err(Box::new(
                        Diag::error("run::div_zero", "division by zero").label(sb, "this is 0"),
                    ));
                }
                // The smallest int divided by -1 does not fit: an error, not a crash.
                let r = if op == BinOp::Div {
                    p.checked_div_euclid(q)
                } else {
                    p.checked_rem_euclid(q)
                };
                Value::Int(r.ok_or_else(overflow)?)
            }
            // Comparing costs at most the smaller value's size.
            BinOp::Eq | BinOp::Ne => {
                if x.depth() > 0 && y.depth() > 0 {
                    self.charge(x.cost().min(y.cost()), span)?;
                }
                Value::Bool((x == y) == (op == BinOp::Eq))
            }
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                let (p, q) = ints(&x, &y)?;
                Value::Bool(match op {
                    BinOp::Lt => p < q,
                    BinOp::Le => p <= q,
                    BinOp::Gt => p > q,
                    _ => p >= q,
                })
            }
            BinOp::Range => {
                let (p, q) = ints(&x, &y)?;
                if i128::from(q) - i128::from(p) >= self.limits.max_list_len as i128 {
                    return Err(Box::new(
                        Diag::error(
                            "limit::list",
                            format!(
                                "the range {p}..{q} is longer than {} elements",
                                self.limits.max_list_len
                            ),
                        )
                        .label(span, "this range"),
                    ));
                }
                self.charge((i128::from(q) - i128::from(p)).max(0) as u64, span)?;
                Value::list((p..=q).map(Value::Int).collect())
            }
            BinOp::And | BinOp::Or => Value::None,
        })
    }

    pub(super) fn aggregate<E: Ev>(
        &mut self,
        kind: AggKind,
        slot: u32,
        src: Source,
        filter: Option<&E>,
        map: Option<&E>,
        span: Span,
    ) -> R<Value> {
        let items = &src;
        let mut count = 0i64;
        let mut sum = 0i64;
        let mut extreme: Option<i64> = None;
        let mut out: Vec<Value> = Vec::new();
        let mut keyed: Vec<(Value, Value)> = Vec::new();
        let mut best: Option<(Value, Value)> = None;
        for i in 0..items.len(&self.state) {
            let Some(item) = items.get(&self.state, i) else {
                break;
            };
            self.tick(span)?;
            // Only the forms that keep or return the element need a copy of it.
            let keep = if matches!(
                kind,
                AggKind::First
                    | AggKind::Filter
                    | AggKind::Best
                    | AggKind::Sort
                    | AggKind::Sum
                    | AggKind::Min
                    | AggKind::Max
                    | AggKind::Map
            ) {
                Some(item.clone())
            } else {
                None
            };
            self.set_local(slot, item);
            let item = &keep.unwrap_or(Value::None);
            // `all(x in l where c)`: the condition once per element, up to the first that fails.
            if kind == AggKind::All {
                if let Some(f) = filter {
                    if !self.boolean(f)? {
                        return Ok(Value::Bool(false));
                    }
                }
                continue;
            }
            if let Some(f) = filter {
                if !self.boolean(f)? {
                    continue;
                }
            }
            match kind {
                AggKind::Count => count += 1,
                AggKind::Any => return Ok(Value::Bool(true)),
                AggKind::All => {}
                AggKind::First => return Ok(item.clone()),
                AggKind::Filter => out.push(item.clone()),
                AggKind::Sum | AggKind::Min | AggKind::Max => {
                    let v = match map {
                        Some(m) => self.int(m)?,
                        None => match item {
                            Value::Int(n) => *n,
                            other => {
                                return Err(rt(
                                    span,
                                    format!(
                                        "`{}` needs numbers, found {}",
                                        kind.name(),
                                        other.type_name()
                                    ),
                                ))
                            }
                        },
                    };
                    match kind {
                        AggKind::Sum => {
                            sum = sum
                                .checked_add(v)
                                .ok_or_else(|| rt(span, "number overflow"))?
                        }
                        AggKind::Min => extreme = Some(extreme.map_or(v, |e| e.min(v))),
                        _ => extreme = Some(extreme.map_or(v, |e| e.max(v))),
                    }
                }
                AggKind::Map => {
                    let v = match map {
                        Some(m) => m.ev(self)?,
                        None => item.clone(),
                    };
                    if out.len() >= self.limits.max_list_len {
                        return Err(rt(span, "this list grew past the list-length limit"));
                    }
                    out.push(v);
                }
                AggKind::FlatMap => {
                    let v = match map {
                        Some(m) => m.ev(self)?,
                        None => item.clone(),
                    };
                    // Joining costs the length of what is joined.
                    let l = match v {
                        Value::List(l) => l,
                        other => self.as_list(&other, span)?,
                    };
                    self.charge(l.len() as u64, span)?;
                    out.extend(l.iter().cloned());
                    self.check_len(out.len(), span)?;
                }
                AggKind::Sort | AggKind::Best => {
                    let k = match map {
                        Some(m) => m.ev(self)?,
                        None => item.clone(),
                    };
                    if kind == AggKind::Best {
                        let better = match &best {
                            None => true,
                            Some((bk, _)) => compare(&k, bk, span)? == std::cmp::Ordering::Greater,
                        };
                        if better {
                            best = Some((k, item.clone()));
                        }
                    } else {
                        keyed.push((k, item.clone()));
                    }
                }
            }
        }
        Ok(match kind {
            AggKind::Count => Value::Int(count),
            AggKind::Any => Value::Bool(false),
            AggKind::All => Value::Bool(true),
            AggKind::First => Value::None,
            AggKind::Filter => Value::list(out),
            AggKind::Map | AggKind::FlatMap => self.nest(Value::list(out), span)?,
            AggKind::Sum => Value::Int(sum),
            AggKind::Min | AggKind::Max => extreme.map(Value::Int).unwrap_or(Value::None),
            AggKind::Best => best.map(|(_, v)| v).unwrap_or(Value::None),
            AggKind::Sort => {
                // n log n comparisons, each at most the size of a key.
                let keys: u64 = keyed.iter().fold(0u64, |a, k| a.saturating_add(k.0.cost()));
                let log = u64::from(usize::BITS - keyed.len().leading_zeros());
                self.charge(keys.saturating_mul(log), span)?;
                let mut err = None;
                keyed.sort_by(|a, b| match compare(&a.0, &b.0, span) {
                    Ok(o) => o,
                    Err(e) => {
                        err = Some(e);
                        std::cmp::Ordering::Equal
                    }
                });
                if let Some(e) = err {
                    return Err(e);
                }
                Value::list(keyed.into_iter().map(|(_, v)| v).collect())
            }
        })
    }

    /// A list or tuple just built: refuse it if it nests deeper than the limit, so no value can
    /// make dropping, comparing or printing recurse without bound.
    pub(super) fn nest(&self, v: Value, span: Span) -> R<Value> {
        self.check_nest(v.depth(), span)?;
        Ok(v)
    }

    /// Refuse a list or tuple `depth` deep if that is past the limit (see `nest`).
    #[inline]
    pub(super) fn check_nest(&self, depth: u32, span: Span) -> R<()> {
        if depth as usize > self.limits.max_depth {
            return Err(self.too_nested(span));
        }
        Ok(())
    }

    #[cold]
    fn too_nested(&self, span: Span) -> Box<Diag> {
        Box::new(
            Diag::error(
                "limit::value_depth",
                format!(
                    "this builds lists nested more than {} deep",
                    self.limits.max_depth
                ),
            )
            .label(span, "nested once too often here")
            .help("a loop probably wraps a list in another list each time round"),
        )
    }

    #[inline]
    pub(crate) fn check_len(&self, n: usize, span: Span) -> R<()> {
        if n > self.limits.max_list_len {
            return Err(self.list_too_long(span));
        }
        Ok(())
    }

    #[cold]
    fn list_too_long(&self, span: Span) -> Box<Diag> {
        Box::new(
            Diag::error(
                "limit::list",
                format!("a list grew past {} elements", self.limits.max_list_len),
            )
            .label(span, "here"),
        )
    }
}

#[cold]
fn outside(i: i64, len: usize, idx: Span) -> Box<Diag> {
    Box::new(
        Diag::error(
            "run::index",
            format!("index {i} is outside a list of {len}"),
        )
        .label(idx, format!("this is {i}"))
        .help(if len == 0 {
            "the list is empty".to_string()
        } else {
            format!("lists count from 0: the indexes here are 0 to {}", len - 1)
        }),
    )
}

/// The elements an aggregate or a `for` loop walks.
pub(super) enum Source {
    List(Rc<Items>),
    /// The elements of a `filter`, gathered without making a list value (a pooled vector).
    Values(Vec<Value>),
    Zone(u32),
    Cards(Vec<u32>),
    Range(i64, i64),
}

impl Source {
    pub(super) fn len(&self, st: &State) -> usize {
        match self {
            Source::List(l) => l.len(),
            Source::Values(l) => l.len(),
            Source::Zone(z) => st.zones.get(*z as usize).map_or(0, |z| z.len()),
            Source::Cards(c) => c.len(),
            Source::Range(lo, hi) => {
                if hi < lo {
                    0
                } else {
                    usize::try_from(hi.saturating_sub(*lo).saturating_add(1)).unwrap_or(usize::MAX)
                }
            }
        }
    }
    #[inline(always)]
    pub(super) fn get(&self, st: &State, i: usize) -> Option<Value> {
        match self {
            Source::List(l) => l.get(i).cloned(),
            Source::Values(l) => l.get(i).cloned(),
            Source::Zone(z) => st.zones.get(*z as usize)?.get(i).map(|&c| Value::Card(c)),
            Source::Cards(c) => c.get(i).map(|&c| Value::Card(c)),
            // Within the range for every `i` below `len` (past it, saturated: never a panic).
            Source::Range(lo, _) => Some(Value::Int(range_item(*lo, i))),
        }
    }
}

/// Number `i` of a range from `lo` (from 0): exact for every `i` below the range's length,
/// saturated past it.
#[inline(always)]
fn range_item(lo: i64, i: usize) -> i64 {
    lo.saturating_add(i64::try_from(i).unwrap_or(i64::MAX))
}

impl Interp<'_> {
    /// Element `i` of `src` put in local `slot`, made there from its parts (as
    /// `Interp::set_local_from` puts a plain value: not made on the side and moved in whole, which
    /// the processor reads back from the pieces just stored only after a stall); `false` past
    /// the end. The same element as `Source::get` gives.
    #[inline(always)]
    pub(super) fn put_item(&mut self, src: &Source, i: usize, slot: u32) -> bool {
        match src {
            Source::List(l) => match l.get(i) {
                Some(v) => self.set_local_from(slot, v),
                None => return false,
            },
            Source::Values(l) => match l.get(i) {
                Some(v) => self.set_local_from(slot, v),
                None => return false,
            },
            Source::Zone(z) => match self.state.zones.get(*z as usize).and_then(|z| z.get(i)) {
                Some(&c) => self.set_local_card(slot, c),
                None => return false,
            },
            Source::Cards(cs) => match cs.get(i) {
                Some(&c) => self.set_local_card(slot, c),
                None => return false,
            },
            Source::Range(lo, _) => self.set_local_int(slot, range_item(*lo, i)),
        }
        true
    }
}

#[inline]
pub(super) fn pat_matches(p: &Pat, v: &Value) -> bool {
    match (p, v) {
        (Pat::Wildcard, _) => true,
        (Pat::Int(n), Value::Int(x)) => n == x,
        (Pat::Range(a, b), Value::Int(x)) => a <= x && x <= b,
        (Pat::Value(pv), v) => pv == v,
        _ => false,
    }
}

pub(super) fn compare(a: &Value, b: &Value, span: Span) -> R<std::cmp::Ordering> {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => Ok(x.cmp(y)),
        (Value::Tuple(_) | Value::Packed(_), Value::Tuple(_) | Value::Packed(_)) => {
            let (Some(x), Some(y)) = (a.tuple_items(), b.tuple_items()) else {
                return Ok(std::cmp::Ordering::Equal);
            };
            for (p, q) in x.iter().zip(y.iter()) {
                let o = compare(p, q, span)?;
                if o != std::cmp::Ordering::Equal {
                    return Ok(o);
                }
            }
            Ok(x.len().cmp(&y.len()))
        }
        (Value::Bool(x), Value::Bool(y)) => Ok(x.cmp(y)),
        (Value::Text(x), Value::Text(y)) => Ok(x.cmp(y)),
        (Value::Enum(_, x), Value::Enum(_, y)) => Ok(x.cmp(y)),
        _ => Err(rt(
            span,
            format!("cannot order {} against {}", a.type_name(), b.type_name()),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::Source;
    use crate::limits::Limits;
    use crate::value::{Items, Value};
    use std::rc::Rc;

    /// `Interp::put_item` puts in the slot what `Source::get` gives, element by element, for
    /// every kind of source (plain values and shared ones), and stops where it stops (a range
    /// is asked only below its length).
    #[test]
    fn an_item_put_in_its_slot_is_the_item() {
        let text = "game \"g\" { players: 2, rounds: 1, round: [p] }\n\
            kind C { name: text }\n\
            cards C (name) {\n  a: \"A\"\n  b: \"B\"\n}\n\
            zone pile: C\n\
            setup { move C to pile }\n\
            phase p { }\n";
        let c = crate::check_text("put.rules", text, &Limits::default());
        assert_eq!(c.errors(), 0, "{}", c.render());
        let prog = c.program.expect("program");
        let agents = crate::agent::make_agents("first", 2, 1).expect("agents");
        let mut me = super::Interp::new(&prog, 2, 1, agents, Limits::default()).expect("interp");
        me.run().expect("runs");
        let mixed = vec![
            Value::Enum(0, 1),
            Value::Int(-3),
            Value::Card(1),
            Value::Player(1),
            Value::None,
            Value::Bool(true),
            Value::text("t"),
            Value::list(vec![Value::Int(1)]),
        ];
        let sources = [
            Source::List(Rc::new(Items::new(mixed.clone()))),
            Source::Values(mixed),
            Source::Zone(0),
            Source::Cards(vec![1, 0]),
            Source::Range(-2, 3),
            Source::Range(i64::MAX - 1, i64::MAX),
        ];
        let mut put = 0;
        for src in &sources {
            let n = src.len(&me.state);
            let past = usize::from(!matches!(src, Source::Range(..)));
            for i in 0..n + past {
                me.set_local(0, Value::Int(99));
                let given = src.get(&me.state, i);
                assert_eq!(me.put_item(src, i, 0), given.is_some(), "{i} of {n}");
                if let Some(v) = given {
                    assert_eq!(me.local(0), v);
                    put += 1;
                }
            }
        }
        assert_eq!(put, 8 + 8 + 2 + 2 + 6 + 2);
    }
}
