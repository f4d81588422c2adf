//! Expressions compiled: one closure per node, with closures of their own for the shapes games
//! use most (a local's field or tuple element, arithmetic and comparisons on numbers, a
//! comparison with a constant).

use super::conds::cond;
use super::{aggs, calls, forms, keys, stmts};
use super::{code, CExpr, Code, Ev, Origin};
use crate::ast::{BinOp, UnOp};
use crate::builtins::Effect;
use crate::diag::Span;
use crate::interp::builtins::pair_work;
use crate::interp::exprs::pat_matches;
use crate::interp::state::FieldSlot;
use crate::interp::{Interp, R};
use crate::program::*;
use crate::value::{Items, Packed, Value, INLINE};
use std::cell::Cell;
use std::rc::Rc;

pub(in crate::interp) fn cexpr(e: &Expr) -> CExpr {
    CExpr {
        code: expr(e),
        span: e.span,
        origin: Origin::of(e),
    }
}

pub(super) fn cexprs(es: &[Expr]) -> Vec<CExpr> {
    es.iter().map(cexpr).collect()
}

pub(in crate::interp) fn expr(e: &Expr) -> Code {
    let c = expr_unchecked(e);
    if e.ty != Sort::Any && super::sorts_checked() {
        return sort_checked(c, e.ty, e.span);
    }
    c
}

/// `c`, whose value the checker typed `sort`, checked against it (`CodeCache::check_sorts`).
fn sort_checked(c: Code, sort: Sort, span: Span) -> Code {
    code(move |me| {
        let v = c(me)?;
        if !sort.holds(&v, me.prog) {
            return Err(Box::new(
                crate::diag::Diag::error(
                    "run::internal",
                    format!(
                        "internal: the checker typed this {sort:?}, and it gave {}",
                        v.type_name()
                    ),
                )
                .label(span, "this value"),
            ));
        }
        Ok(v)
    })
}

fn expr_unchecked(e: &Expr) -> Code {
    let span = e.span;
    match &e.kind {
        ExprKind::Const(v) => constant(v.clone()),
        ExprKind::Local(slot) => {
            let slot = *slot;
            code(move |me| Ok(me.local(slot)))
        }
        ExprKind::Field(base, sym) => field(base, *sym, span),
        ExprKind::Call(f, args) => calls::call(*f, args, span),
        ExprKind::CallField(base, sym, args) => calls::call_field(base, *sym, args, span),
        ExprKind::Builtin(b, args) => builtin(b, args, span),
        ExprKind::Binary(op, a, b) => binary(*op, a, b, span),
        ExprKind::ConstRef(c) => {
            let c = *c as usize;
            code(move |me| Ok(me.state.consts.get(c).cloned().unwrap_or(Value::None)))
        }
        ExprKind::Var(id, keys) => keys::var(*id, keys, span),
        ExprKind::Zone(id, keys) => keys::zone(*id, keys, span),
        ExprKind::Agg {
            kind,
            slot,
            source,
            filter,
            map,
        } => aggs::agg(
            *kind,
            *slot,
            source,
            filter.as_deref(),
            map.as_deref(),
            span,
        ),
        ExprKind::If(c, then, els) => if_else::<false>(c, then, els.as_deref(), span),
        ExprKind::Match(scrut, arms) if EnumArms::new(arms).is_some() => {
            enum_match::<false>(scrut, arms, span, span)
        }
        ExprKind::Match(scrut, arms) => {
            let scrut = expr(scrut);
            let arms: Vec<(Vec<Pat>, Code)> =
                arms.iter().map(|(p, b)| (p.clone(), expr(b))).collect();
            code(move |me| {
                let v = scrut(me)?;
                for (pats, body) in &arms {
                    if pats.iter().any(|p| pat_matches(p, &v)) {
                        return body(me);
                    }
                }
                Err(me.no_arm(&v, span))
            })
        }
        ExprKind::Block(b) => stmts::block(b),
        ExprKind::Special(s) => {
            let s = *s;
            code(move |me| Ok(me.special(s)))
        }
        ExprKind::TupleIndex(base, i) => tuple_index(base, *i, span),
        ExprKind::Unary(UnOp::Not, x) => {
            if let ExprKind::Call(f, es) = &x.kind {
                if let Some(inl) = calls::inlined(*f, es, x.span) {
                    return inl.negated();
                }
            }
            let x = cond(x);
            code(move |me| Ok(Value::Bool(!x.holds(me)?)))
        }
        ExprKind::Index(base, idx) => {
            let (b, i) = (cexpr(base), cexpr(idx));
            code(move |me| {
                let v = b.ev(me)?;
                let n = me.int(&i)?;
                me.index(&v, n, b.span, i.span)
            })
        }
        ExprKind::List(items) | ExprKind::Tuple(items) if constant_value(e).is_some() => {
            // Made once. Past this game's depth limit (a limit set lower than the checker's),
            // built as written, so the error is reported where it was.
            let v = constant_value(e).unwrap_or(Value::None);
            let is_list = matches!(e.kind, ExprKind::List(_));
            let items: Vec<Code> = items.iter().map(expr).collect();
            code(move |me| {
                if v.depth() as usize <= me.limits.max_depth {
                    return Ok(v.clone());
                }
                let mut out = Vec::with_capacity(items.len());
                for i in &items {
                    out.push(i(me)?);
                }
                let built = if is_list {
                    Value::list(out)
                } else {
                    Value::tuple(out)
                };
                me.nest(built, span)
            })
        }
        ExprKind::List(items) => literal(items, true, span),
        ExprKind::Tuple(items) => literal(items, false, span),
        ExprKind::Unary(UnOp::Neg, x) => forms::neg(x, span),
        ExprKind::Text(parts) => forms::text(parts, span),
        ExprKind::InBounds(x, lo, hi) => forms::in_bounds(x, *lo, *hi),
        ExprKind::Option(o) => forms::option(*o),
        ExprKind::KindCards(_) => {
            // Every card of a kind: the same list in every game of this program (the code is
            // compiled per program), so it is made once, on first use.
            let (e, made) = (e.clone(), std::cell::OnceCell::new());
            code(move |me| {
                if let Some(v) = made.get() {
                    return Ok(Value::clone(v));
                }
                let v = me.eval_slow(&e)?;
                Ok(made.get_or_init(|| v).clone())
            })
        }
        ExprKind::CardBuiltinField(base, f) => forms::card_builtin_field(base, *f, span),
        ExprKind::Table(t, key) => forms::table(*t, key, span),
    }
}

/// `e` as a statement whose value is kept (a block's last): the statement's step, then `e`. An
/// `if`, an enum `match` or an inlined call takes the step in its own closure.
pub(super) fn ticked(e: &Expr, tick: Span) -> Code {
    match &e.kind {
        ExprKind::If(c, then, els) => if_else::<true>(c, then, els.as_deref(), tick),
        ExprKind::Match(scrut, arms) if EnumArms::new(arms).is_some() => {
            enum_match::<true>(scrut, arms, e.span, tick)
        }
        ExprKind::Call(f, args) => match super::calls::inlined(*f, args, e.span) {
            Some(call) => call.ticked(tick),
            None => {
                let e = expr(e);
                code(move |me| {
                    me.tick(tick)?;
                    e(me)
                })
            }
        },
        _ => {
            let e = expr(e);
            code(move |me| {
                me.tick(tick)?;
                e(me)
            })
        }
    }
}

/// The step of the statement an expression stands for, when `TICK` (see `ticked`).
#[inline(always)]
fn step<const TICK: bool>(me: &mut Interp<'_>, tick: Span) -> R<()> {
    if TICK {
        me.tick(tick)
    } else {
        Ok(())
    }
}

/// `if c { then } else { els }`; with `TICK`, a statement's step first (`ticked`).
fn if_else<const TICK: bool>(c: &Expr, then: &Block, els: Option<&Expr>, tick: Span) -> Code {
    let test = EqTest::of(c);
    let holds = cond(c);
    let then = super::facts::branch(c, true, || Branch::block(then));
    let els = super::facts::branch(c, false, || els.map(Branch::expr));
    let c = holds;
    match els {
        // `if soc == none { ... } else { ... }`: the test answered in place when it can be.
        Some(els) if test.is_some() => code(move |me| {
            step::<TICK>(me, tick)?;
            let yes = match test.as_ref().and_then(|t| t.in_place(me)) {
                Some(yes) => yes,
                None => c.holds(me)?,
            };
            if yes {
                then.run(me)
            } else {
                els.run(me)
            }
        }),
        Some(els) => code(move |me| {
            step::<TICK>(me, tick)?;
            if c.holds(me)? {
                then.run(me)
            } else {
                els.run(me)
            }
        }),
        None => code(move |me| {
            step::<TICK>(me, tick)?;
            if c.holds(me)? {
                then.run(me)
            } else {
                Ok(Value::None)
            }
        }),
    }
}

/// A condition `x == k` or `x != k` of a local or a local's field and a plain constant, which
/// can be answered where the value lies, as `binary`'s closure for it answers it: with nothing
/// to charge, no call and no copy. When it cannot (the value is not plain, or not in place),
/// the condition's own code runs.
pub(super) struct EqTest {
    a: Opnd,
    k: Value,
    eq: bool,
}

impl EqTest {
    pub(super) fn of(c: &Expr) -> Option<EqTest> {
        let ExprKind::Binary(op @ (BinOp::Eq | BinOp::Ne), a, b) = &c.kind else {
            return None;
        };
        let ExprKind::Const(k) = &b.kind else {
            return None;
        };
        let a = Opnd::new(a);
        (k.depth() == 0 && a.peekable()).then(|| EqTest {
            a,
            k: k.clone(),
            eq: *op == BinOp::Eq,
        })
    }

    /// The answer, if the operand is a plain value in place. A number constant is compared
    /// only with a number (anything else is the operator's error).
    #[inline(always)]
    pub(super) fn in_place(&self, me: &Interp<'_>) -> Option<bool> {
        let x = self.a.peek(me)?;
        let same = match (x, &self.k) {
            (Value::Int(p), Value::Int(q)) => p == q,
            (_, Value::Int(_)) => return None,
            _ => plain_eq(me, x, &self.k)?,
        };
        Some(same == self.eq)
    }
}

/// A `match` whose patterns are all values of one enum (or `_`): the arm is looked up by
/// variant. With `TICK`, a statement's step first (`ticked`).
fn enum_match<const TICK: bool>(
    scrut: &Expr,
    arms: &[(Vec<Pat>, Expr)],
    span: Span,
    tick: Span,
) -> Code {
    let table = EnumArms::new(arms);
    let scrut = Opnd::new(scrut);
    let bodies: Vec<Branch> = arms.iter().map(|(_, b)| Branch::expr(b)).collect();
    code(move |me| {
        step::<TICK>(me, tick)?;
        // Looked at in place when it can be; read first out of line.
        let arm = scrut.peek(me).and_then(|v| table.as_ref()?.arm(v));
        if let Some(body) = arm.and_then(|a| bodies.get(a as usize)) {
            return body.run(me);
        }
        match_read(me, &scrut, table.as_ref(), &bodies, span)
    })
}

/// An enum `match` whose scrutinee could not be looked at in place: read, then its arm run.
#[inline(never)]
fn match_read(
    me: &mut Interp<'_>,
    scrut: &Opnd,
    table: Option<&EnumArms>,
    bodies: &[Branch],
    span: Span,
) -> R<Value> {
    let v = scrut.ev(me)?;
    let arm = table.and_then(|t| t.arm(&v));
    match arm.and_then(|a| bodies.get(a as usize)) {
        Some(body) => body.run(me),
        None => Err(me.no_arm(&v, span)),
    }
}

/// The arms of a `match` whose patterns are all values of one enum or `_`, by variant.
pub(super) struct EnumArms {
    enum_id: Id,
    /// For each variant up to the largest named, the first arm that takes it.
    by_variant: Vec<Option<u32>>,
    /// The first `_` arm: it takes the variants not named before it.
    wildcard: Option<u32>,
}

impl EnumArms {
    pub(super) fn new(arms: &[(Vec<Pat>, Expr)]) -> Option<EnumArms> {
        let mut enum_id = None;
        let mut top = 0usize;
        for p in arms.iter().flat_map(|(pats, _)| pats) {
            match p {
                Pat::Wildcard => {}
                Pat::Value(Value::Enum(id, x)) if enum_id.is_none_or(|e| e == *id) => {
                    enum_id = Some(*id);
                    top = top.max(*x as usize + 1);
                }
                _ => return None,
            }
        }
        let mut t = EnumArms {
            enum_id: enum_id?,
            by_variant: vec![None; top],
            wildcard: None,
        };
        for (i, (pats, _)) in arms.iter().enumerate() {
            let i = u32::try_from(i).ok()?;
            for p in pats {
                match p {
                    Pat::Value(Value::Enum(_, x)) => {
                        if let Some(slot @ None) = t.by_variant.get_mut(*x as usize) {
                            if t.wildcard.is_none() {
                                *slot = Some(i);
                            }
                        }
                    }
                    _ => {
                        t.wildcard = t.wildcard.or(Some(i));
                    }
                }
            }
        }
        Some(t)
    }

    /// The arm that takes `v`, if any.
    #[inline(always)]
    pub(super) fn arm(&self, v: &Value) -> Option<u32> {
        match v {
            Value::Enum(e, x) if *e == self.enum_id => self
                .by_variant
                .get(*x as usize)
                .copied()
                .unwrap_or(self.wildcard)
                .or(self.wildcard),
            _ => self.wildcard,
        }
    }
}

/// A builtin call. Without arguments shown only (the common case), the arguments go straight
/// into an array of their number.
fn builtin(b: &'static crate::builtins::BuiltinDef, args: &[Expr], span: Span) -> Code {
    let b = crate::interp::builtins::own(b);
    let spans: Vec<Span> = args.iter().map(|a| a.span).collect();
    if b.effect == Effect::Pure && b.shown_only.is_empty() {
        // Common reads on a zone or a list, answered in place; the same charges as
        // `builtin_vals` (a zone is one step's work: nothing), every other case through it.
        match (b.name, args) {
            ("top" | "len", [a]) => {
                let top = b.name == "top";
                // Of a zone slot with compiled keys: the slot worked out and read, no zone value
                // made.
                if let ExprKind::Zone(id, keys) = &a.kind {
                    if let Some(place) = keys::ZonePlace::new(*id, keys) {
                        return code(move |me| {
                            let z = place.slot(me)?;
                            Ok(if top {
                                me.zone_top(z)
                            } else {
                                Value::Int(me.zone_len(z) as i64)
                            })
                        });
                    }
                }
                let a = Opnd::new(a);
                return code(move |me| {
                    let v = a.ev(me)?;
                    if let Value::Zone(z) = v {
                        return Ok(if top {
                            me.zone_top(z)
                        } else {
                            Value::Int(me.zone_len(z) as i64)
                        });
                    }
                    me.builtin_vals(b, &[v], &spans, span)
                });
            }
            ("contains", [a, c]) => {
                let (a, c) = (Opnd::new(a), Opnd::new(c));
                // Two locals or locals' fields (`contains(pair, x.realm)`): looked at in place,
                // neither copied nor dropped; reading them does nothing else, so the order does
                // not matter. The same charge, then the same answer.
                if a.peekable() && c.peekable() {
                    return code(move |me| {
                        if me.observer.is_none() {
                            if let (Some(x @ Value::List(l)), Some(y)) = (a.peek(me), c.peek(me)) {
                                let (work, found) = (pair_work(x, y), list_contains(l, y));
                                me.charge_work(work, span)?;
                                return Ok(Value::Bool(found));
                            }
                        }
                        let x = a.ev(me)?;
                        let y = c.ev(me)?;
                        if let (Value::List(l), None) = (&x, me.observer) {
                            me.charge_pair(&x, &y, span)?;
                            return Ok(Value::Bool(list_contains(l, &y)));
                        }
                        me.builtin_vals(b, &[x, y], &spans, span)
                    });
                }
                return code(move |me| {
                    let x = a.ev(me)?;
                    let y = c.ev(me)?;
                    if let (Value::List(l), None) = (&x, me.observer) {
                        // `charge_args` for these two, and a search with the needle's variant
                        // matched once, not at every element.
                        me.charge_pair(&x, &y, span)?;
                        return Ok(Value::Bool(list_contains(l, &y)));
                    }
                    me.builtin_vals(b, &[x, y], &spans, span)
                });
            }
            _ => {}
        }
    }
    // A builtin with a value straight from plain arguments (`seat(p)`, `max(a, b)`): the
    // arguments' charge (`charge_args`, nothing for one plain value), then that value; any other
    // arguments go through `builtin_vals`, which gives the error.
    if let (Some(plain), Effect::Pure, []) = (b.plain, b.effect, b.shown_only) {
        match args {
            [a] => {
                let a = Opnd::new(a);
                return code(move |me| {
                    let v = [a.ev(me)?];
                    match plain(&v) {
                        Some(r) => {
                            me.charge_args(&v, span)?;
                            Ok(r)
                        }
                        None => me.builtin_vals(b, &v, &spans, span),
                    }
                });
            }
            [a, c] => {
                let (a, c) = (Opnd::new(a), Opnd::new(c));
                return code(move |me| {
                    let x = a.ev(me)?;
                    let v = [x, c.ev(me)?];
                    match plain(&v) {
                        Some(r) => {
                            me.charge_args(&v, span)?;
                            Ok(r)
                        }
                        None => me.builtin_vals(b, &v, &spans, span),
                    }
                });
            }
            _ => {}
        }
    }
    if b.shown_only.is_empty() {
        match args {
            [] => return code(move |me| me.builtin_vals(b, &[], &[], span)),
            [a] => {
                let a = Opnd::new(a);
                return code(move |me| {
                    let v = [a.ev(me)?];
                    me.builtin_vals(b, &v, &spans, span)
                });
            }
            [a, c] => {
                let (a, c) = (Opnd::new(a), Opnd::new(c));
                return code(move |me| {
                    let x = a.ev(me)?;
                    let v = [x, c.ev(me)?];
                    me.builtin_vals(b, &v, &spans, span)
                });
            }
            [a, c, d] => {
                let (a, c, d) = (Opnd::new(a), Opnd::new(c), Opnd::new(d));
                return code(move |me| {
                    let x = a.ev(me)?;
                    let y = c.ev(me)?;
                    let v = [x, y, d.ev(me)?];
                    me.builtin_vals(b, &v, &spans, span)
                });
            }
            _ => {}
        }
    }
    // Two plain arguments, then only ones shown (`choose(p, options, prompt, labels)`): with
    // nothing shown, the two go straight into an array, as `Interp::builtin` gives them (it
    // works out none of the rest).
    // A silent run works out the shown arguments too, for their errors, unless they are
    // constants (which cannot fail) and no labels need counting.
    let rest_shown = (2..args.len()).all(|i| b.shown_only.contains(&i));
    let rest_fixed = args
        .iter()
        .skip(2)
        .all(|a| matches!(a.kind, ExprKind::Const(_)))
        && crate::builtins::labels_arg(b).is_none_or(|i| args.len() <= i);
    if b.shown_only.iter().min() == Some(&2) && rest_shown && rest_fixed {
        if let [a, c, ..] = args {
            let (a, c) = (Opnd::new(a), Opnd::new(c));
            let args = cexprs(args);
            return code(move |me| {
                if me.record {
                    return me.builtin(b, &args, span, None);
                }
                let x = a.ev(me)?;
                let v = [x, c.ev(me)?];
                me.builtin_vals(b, &v, &spans, span)
            });
        }
    }
    let site = (!b.shown_only.is_empty()).then(super::next_site);
    // Two plain arguments, then texts for showing that are not constants (`choose(p, options,
    // prompt, labels)`): the two worked out in place, and the texts only where `builtin` would.
    if b.shown_only.iter().min() == Some(&2) && rest_shown {
        if let [a, c, ..] = args {
            let (a, c) = (Opnd::new(a), Opnd::new(c));
            let args = cexprs(args);
            return code(move |me| {
                let x = a.ev(me)?;
                let first = [x, c.ev(me)?];
                me.builtin_after_two(b, &args, span, site, first)
            });
        }
    }
    let args = cexprs(args);
    code(move |me| me.builtin(b, &args, span, site))
}

/// Whether `l` holds `y`, as `l.contains(y)`.
#[inline]
pub(super) fn list_contains(l: &[Value], y: &Value) -> bool {
    match *y {
        Value::Enum(e, x) => l
            .iter()
            .any(|v| matches!(*v, Value::Enum(e2, x2) if e2 == e && x2 == x)),
        Value::Card(c) => l.iter().any(|v| matches!(*v, Value::Card(c2) if c2 == c)),
        Value::Player(p) => l.iter().any(|v| matches!(*v, Value::Player(p2) if p2 == p)),
        Value::Int(n) => l.iter().any(|v| matches!(*v, Value::Int(n2) if n2 == n)),
        _ => l.contains(y),
    }
}

/// A branch of an `if`. A block of one plain constant (`{ Right }`) is run in place: its
/// statement's step, then the value, without a closure of its own.
enum Branch {
    Const(Value, Span),
    /// A plain constant written as an expression (a `match` arm's `true`): no step.
    Value(Value),
    Code(Code),
}

impl Branch {
    fn block(b: &Block) -> Branch {
        match &b.stmts[..] {
            [Stmt {
                kind:
                    StmtKind::Expr(Expr {
                        kind: ExprKind::Const(v),
                        ..
                    }),
                span,
            }] if v.depth() == 0 => Branch::Const(v.clone(), *span),
            _ => Branch::Code(stmts::block(b)),
        }
    }

    fn expr(e: &Expr) -> Branch {
        match &e.kind {
            ExprKind::Block(b) => Branch::block(b),
            ExprKind::Const(v) if v.depth() == 0 => Branch::Value(v.clone()),
            _ => Branch::Code(expr(e)),
        }
    }

    #[inline(always)]
    fn run(&self, me: &mut Interp<'_>) -> R<Value> {
        match self {
            Branch::Const(v, span) => {
                me.tick(*span)?;
                Ok(v.clone())
            }
            Branch::Value(v) => Ok(v.clone()),
            Branch::Code(c) => c(me),
        }
    }
}

/// A list or tuple written out, `[a, b]` or `(a, b)`; a small one is built in place (one
/// allocation, or none for a tuple of plain values: `value::Packed`).
fn literal(items: &[Expr], list: bool, span: Span) -> Code {
    let items: Vec<Opnd> = items.iter().map(Opnd::new).collect();
    // Inlined into each closure below (a closure of its own would take the items by copy).
    #[inline(always)]
    fn wrap(list: bool, n: usize, arr: [Value; INLINE]) -> Value {
        if list {
            Value::List(Rc::new(Items::inline(n, arr)))
        } else {
            Value::tuple_inline(n, arr)
        }
    }
    // Three locals (`(c, row, side)`): read without a dispatch on each item's shape.
    if let [Opnd::Local(a), Opnd::Local(b), Opnd::Local(c)] = items[..] {
        return code(move |me| three_locals(me, [a, b, c], list, span));
    }
    // Two and three items, the common tuples, evaluated straight into place.
    let items = match <[Opnd; 2]>::try_from(items) {
        Ok([a, b]) => {
            return code(move |me| {
                let x = a.ev(me)?;
                let arr = [x, b.ev(me)?, Value::None];
                me.nest(wrap(list, 2, arr), span)
            })
        }
        Err(items) => items,
    };
    let items = match <[Opnd; 3]>::try_from(items) {
        Ok([a, b, c]) => {
            return code(move |me| {
                let x = a.ev(me)?;
                let y = b.ev(me)?;
                let arr = [x, y, c.ev(me)?];
                me.nest(wrap(list, 3, arr), span)
            })
        }
        Err(items) => items,
    };
    // Four items (Statecraft's manoeuvres, `(2, s, none, none)`): a tuple packed when its
    // values fit (`Packed`), else shared, as the general way below makes it.
    let items = match <[Opnd; 4]>::try_from(items) {
        Ok([a, b, c, d]) => {
            return code(move |me| {
                let x = a.ev(me)?;
                let y = b.ev(me)?;
                let z = c.ev(me)?;
                let arr = [x, y, z, d.ev(me)?];
                if !list {
                    if let Some(p) = Packed::new(&arr) {
                        me.check_nest(1, span)?;
                        return Ok(Value::Packed(p));
                    }
                }
                let v = if list {
                    Value::list(arr.to_vec())
                } else {
                    Value::tuple(arr.to_vec())
                };
                me.nest(v, span)
            })
        }
        Err(items) => items,
    };
    if items.len() <= INLINE {
        return code(move |me| {
            let mut arr: [Value; INLINE] = Default::default();
            for (slot, i) in arr.iter_mut().zip(&items) {
                *slot = i.ev(me)?;
            }
            me.nest(wrap(list, items.len(), arr), span)
        });
    }
    code(move |me| {
        let mut out = Vec::with_capacity(items.len());
        for i in &items {
            out.push(i.ev(me)?);
        }
        let v = if list {
            Value::list(out)
        } else {
            Value::tuple(out)
        };
        me.nest(v, span)
    })
}

/// A tuple of three locals that are plain values, packed where they lie without a copy (with
/// the depth check a tuple's making does); `None` for a list, or a value that is not plain.
#[inline(always)]
pub(super) fn three_packed(
    me: &Interp<'_>,
    [a, b, c]: [u32; 3],
    list: bool,
    span: Span,
) -> R<Option<Packed>> {
    if list {
        return Ok(None);
    }
    if let (Some(x), Some(y), Some(z)) = (me.local_ref(a), me.local_ref(b), me.local_ref(c)) {
        if let Some(p) = Packed::of3(x, y, z) {
            me.check_nest(1, span)?;
            return Ok(Some(p));
        }
    }
    Ok(None)
}

/// A list or tuple of three locals (`(c, row, side)`), written at `span`.
#[inline(always)]
pub(super) fn three_locals(
    me: &Interp<'_>,
    [a, b, c]: [u32; 3],
    list: bool,
    span: Span,
) -> R<Value> {
    if let Some(p) = three_packed(me, [a, b, c], list, span)? {
        return Ok(Value::Packed(p));
    }
    let arr = [me.local(a), me.local(b), me.local(c)];
    let v = if list {
        Value::List(Rc::new(Items::inline(3, arr)))
    } else {
        Value::tuple_inline(3, arr)
    };
    me.nest(v, span)
}

/// A list or tuple written with constants only (at any depth), as a value.
fn constant_value(e: &Expr) -> Option<Value> {
    match &e.kind {
        ExprKind::Const(v) => Some(v.clone()),
        ExprKind::List(items) => items
            .iter()
            .map(constant_value)
            .collect::<Option<Vec<_>>>()
            .map(Value::list),
        ExprKind::Tuple(items) => items
            .iter()
            .map(constant_value)
            .collect::<Option<Vec<_>>>()
            .map(Value::tuple),
        _ => None,
    }
}

fn constant(v: Value) -> Code {
    match v {
        Value::Int(n) => code(move |_| Ok(Value::Int(n))),
        Value::Bool(b) => code(move |_| Ok(Value::Bool(b))),
        Value::None => code(|_| Ok(Value::None)),
        v => code(move |_| Ok(v.clone())),
    }
}

/// `base.field`; on a local, read in place (no copy of the local). Each site remembers where
/// the field lies in the kind of card it read last (`Interp::field_cached`).
fn field(base: &Expr, sym: Id, span: Span) -> Code {
    let b = cexpr(base);
    let cache = Cell::new(FieldSlot::default());
    if let ExprKind::Local(slot) = base.kind {
        return code(move |me| match me.local_ref(slot) {
            Some(&Value::Card(c)) => me.field_cached(c, sym, &cache, span),
            _ => {
                let v = me.local(slot);
                Err(me.not_a_card(&b, &v, sym))
            }
        });
    }
    code(move |me| match b.ev(me)? {
        Value::Card(c) => me.field_cached(c, sym, &cache, span),
        other => Err(me.not_a_card(&b, &other, sym)),
    })
}

/// `base.i`; on a local, read in place.
fn tuple_index(base: &Expr, i: usize, span: Span) -> Code {
    let b = cexpr(base);
    if let ExprKind::Local(slot) = base.kind {
        return code(move |me| match me.local_ref(slot) {
            Some(Value::Packed(p)) => match p.get(i) {
                Some(v) => Ok(v),
                None => Err(no_element(span, i)),
            },
            Some(Value::Tuple(items)) => match items.get(i) {
                Some(v) => Ok(v.clone()),
                None => Err(no_element(span, i)),
            },
            _ => {
                let v = me.local(slot);
                Err(not_a_tuple(&b, &v))
            }
        });
    }
    code(move |me| match b.ev(me)? {
        Value::Packed(p) => match p.get(i) {
            Some(v) => Ok(v),
            None => Err(no_element(span, i)),
        },
        Value::Tuple(items) => match items.get(i) {
            Some(v) => Ok(v.clone()),
            None => Err(no_element(span, i)),
        },
        other => Err(not_a_tuple(&b, &other)),
    })
}

#[cold]
fn no_element(span: Span, i: usize) -> Box<crate::diag::Diag> {
    crate::interp::rt(span, format!("this tuple has no element {i}"))
}

#[cold]
fn not_a_tuple(b: &CExpr, v: &Value) -> Box<crate::diag::Diag> {
    crate::interp::rt(b.span, format!("expected a tuple, found {}", v.type_name()))
}

/// An operator on two numbers, or `None` for the general path (its errors, other types).
macro_rules! int_ops {
    ($op:expr, $mk:ident, $($args:expr),*) => {
        match $op {
            BinOp::Add => $mk($($args,)* |p: i64, q: i64| p.checked_add(q).map(Value::Int)),
            BinOp::Sub => $mk($($args,)* |p: i64, q: i64| p.checked_sub(q).map(Value::Int)),
            BinOp::Mul => $mk($($args,)* |p: i64, q: i64| p.checked_mul(q).map(Value::Int)),
            BinOp::Eq => $mk($($args,)* |p: i64, q: i64| Some(Value::Bool(p == q))),
            BinOp::Ne => $mk($($args,)* |p: i64, q: i64| Some(Value::Bool(p != q))),
            BinOp::Lt => $mk($($args,)* |p: i64, q: i64| Some(Value::Bool(p < q))),
            BinOp::Le => $mk($($args,)* |p: i64, q: i64| Some(Value::Bool(p <= q))),
            BinOp::Gt => $mk($($args,)* |p: i64, q: i64| Some(Value::Bool(p > q))),
            BinOp::Ge => $mk($($args,)* |p: i64, q: i64| Some(Value::Bool(p >= q))),
            _ => $mk($($args,)* |_: i64, _: i64| None),
        }
    };
}

fn binary(op: BinOp, a: &Expr, b: &Expr, span: Span) -> Code {
    match op {
        BinOp::And => {
            let (a, b) = (cond(a), cond(b));
            return code(move |me| Ok(Value::Bool(a.holds(me)? && b.holds(me)?)));
        }
        BinOp::Or => {
            let (a, b) = (cond(a), cond(b));
            return code(move |me| Ok(Value::Bool(a.holds(me)? || b.holds(me)?)));
        }
        _ => {}
    }
    let (sa, sb) = (a.span, b.span);
    if let ExprKind::Const(k) = &b.kind {
        // A comparison with a plain constant: nothing to charge; nothing to hide without an
        // observer.
        if matches!(op, BinOp::Eq | BinOp::Ne) && k.depth() == 0 && !matches!(k, Value::Int(_)) {
            let (a, k, eq) = (Opnd::new(a), k.clone(), op == BinOp::Eq);
            // A local or a local's field compared in place (`side == Left`, `soc == none`,
            // `c.owner == none`): neither copied nor dropped.
            if a.peekable() {
                // The common answer (a plain value in place) calls nothing, so it is quick to
                // enter and leave; anything else is worked out out of line.
                return code(move |me| {
                    if let Some(same) = a.peek(me).and_then(|x| plain_eq(me, x, &k)) {
                        return Ok(Value::Bool(same == eq));
                    }
                    eq_const(me, &a, &k, eq, (op, sa, sb, span))
                });
            }
            return code(move |me| {
                let x = a.ev(me)?;
                if let Some(same) = quick_eq(me, &x, &k) {
                    return Ok(Value::Bool(same == eq));
                }
                me.binary_vals(op, x, k.clone(), sa, sb, span)
            });
        }
        if let Value::Int(q) = k {
            return int_ops!(op, with_int, op, Opnd::new(a), *q, sa, sb, span);
        }
    }
    if matches!(op, BinOp::Eq | BinOp::Ne) {
        let (a, b, eq) = (Opnd::new(a), Opnd::new(b), op == BinOp::Eq);
        // Two locals or locals' fields (`x.realm != realm`, `d.realm == c.realm`) compared in
        // place; reading them has no effect, so the order does not matter.
        if a.peekable() && b.peekable() {
            // Plain values in place are answered without a call, other values in place out of
            // line, and anything that must be read first out of line too.
            return code(move |me| {
                if let (Some(x), Some(y)) = (a.peek(me), b.peek(me)) {
                    if let Some(same) = plain_eq(me, x, y).or_else(|| quick_eq_apart(me, x, y)) {
                        return Ok(Value::Bool(same == eq));
                    }
                }
                eq_read(me, &a, &b, eq, (op, sa, sb, span))
            });
        }
        // A local on the right is read in place (after the left, as before), neither copied
        // nor dropped.
        if let Opnd::Local(slot) = b {
            return code(move |me| {
                let x = a.ev(me)?;
                if let Some(same) = me.local_ref(slot).and_then(|y| quick_eq(me, &x, y)) {
                    return Ok(Value::Bool(same == eq));
                }
                let y = me.local(slot);
                me.binary_vals(op, x, y, sa, sb, span)
            });
        }
        return code(move |me| {
            let x = a.ev(me)?;
            let y = b.ev(me)?;
            if let Some(same) = quick_eq(me, &x, &y) {
                return Ok(Value::Bool(same == eq));
            }
            me.binary_vals(op, x, y, sa, sb, span)
        });
    }
    int_ops!(op, with_ints, op, Opnd::new(a), Opnd::new(b), sa, sb, span)
}

/// `a == k` (or `!=`, `eq` false) for an operand and a plain constant, in full: what
/// `binary`'s closure for it does when the operand is not a plain value in place.
#[inline(never)]
pub(super) fn eq_const(
    me: &mut Interp<'_>,
    a: &Opnd,
    k: &Value,
    eq: bool,
    (op, sa, sb, span): (BinOp, Span, Span, Span),
) -> R<Value> {
    if let Some(same) = a.peek(me).and_then(|x| quick_eq(me, x, k)) {
        return Ok(Value::Bool(same == eq));
    }
    let x = a.ev(me)?;
    if let Some(same) = quick_eq(me, &x, k) {
        return Ok(Value::Bool(same == eq));
    }
    me.binary_vals(op, x, k.clone(), sa, sb, span)
}

/// `quick_eq`, out of line (it may compare texts or lists).
#[inline(never)]
pub(super) fn quick_eq_apart(me: &Interp<'_>, x: &Value, y: &Value) -> Option<bool> {
    quick_eq(me, x, y)
}

/// `a == b` (or `!=`, `eq` false) for two locals or locals' fields read as values: what
/// `binary`'s closure for them does when they cannot be compared in place.
#[inline(never)]
pub(super) fn eq_read(
    me: &mut Interp<'_>,
    a: &Opnd,
    b: &Opnd,
    eq: bool,
    (op, sa, sb, span): (BinOp, Span, Span, Span),
) -> R<Value> {
    let x = a.ev(me)?;
    let y = b.ev(me)?;
    if let Some(same) = quick_eq(me, &x, &y) {
        return Ok(Value::Bool(same == eq));
    }
    me.binary_vals(op, x, y, sa, sb, span)
}

/// `quick_eq` for values compared without a call: numbers, enum values, players, cards and
/// `none` (`None` for anything else, and with an observer for all but numbers).
#[inline(always)]
pub(super) fn plain_eq(me: &Interp<'_>, x: &Value, y: &Value) -> Option<bool> {
    match (x, y) {
        (Value::Int(p), Value::Int(q)) => Some(p == q),
        _ if me.observer.is_some() => None,
        (Value::Enum(e, p), Value::Enum(f, q)) => Some(e == f && p == q),
        (Value::Player(p), Value::Player(q)) | (Value::Card(p), Value::Card(q)) => Some(p == q),
        (Value::None, _) | (_, Value::None) => Some(matches!((x, y), (Value::None, Value::None))),
        _ => None,
    }
}

/// `x == y` where no card is hidden from anyone and nothing needs charging: numbers always;
/// without an observer, any two values one of which holds no list or tuple.
#[inline(always)]
fn quick_eq(me: &Interp<'_>, x: &Value, y: &Value) -> Option<bool> {
    if let Some(same) = plain_eq(me, x, y) {
        return Some(same);
    }
    if me.observer.is_some() {
        return None;
    }
    (x.depth() == 0 || y.depth() == 0).then(|| x == y)
}

/// An operand of an operator or a builtin: a local, or a field of a local (`c.realm`), is read
/// without a closure of its own.
pub(super) enum Opnd {
    Local(u32),
    Field(Box<LocalField>),
    Code(Code),
}

/// `x.field` where `x` is a local, read as `field` reads it.
pub(super) struct LocalField {
    slot: u32,
    sym: Id,
    cache: Cell<FieldSlot>,
    span: Span,
    base: CExpr,
}

impl LocalField {
    /// `e` when it is a field of a local.
    pub(super) fn of(e: &Expr) -> Option<Box<LocalField>> {
        match &e.kind {
            ExprKind::Field(base, sym) => match base.kind {
                ExprKind::Local(slot) => Some(Box::new(LocalField {
                    slot,
                    sym: *sym,
                    cache: Cell::new(FieldSlot::default()),
                    span: e.span,
                    base: cexpr(base),
                })),
                _ => None,
            },
            _ => None,
        }
    }

    #[inline(always)]
    pub(super) fn ev(&self, me: &mut Interp<'_>) -> R<Value> {
        match me.local_ref(self.slot) {
            Some(&Value::Card(c)) => me.field_cached(c, self.sym, &self.cache, self.span),
            _ => {
                let v = me.local(self.slot);
                Err(me.not_a_card(&self.base, &v, self.sym))
            }
        }
    }

    /// The field in place, when the local is a card whose field this site has read before and
    /// nothing observes (`Interp::field_in_place`); else `None` (then `ev` reads it).
    #[inline(always)]
    pub(super) fn in_place<'a>(&self, me: &'a Interp<'_>) -> Option<&'a Value> {
        match me.local_ref(self.slot) {
            Some(&Value::Card(c)) => me.field_in_place(c, &self.cache),
            _ => None,
        }
    }

    pub(super) fn span(&self) -> Span {
        self.span
    }

    /// The local it reads a field of.
    pub(super) fn slot(&self) -> u32 {
        self.slot
    }
}

impl Opnd {
    pub(super) fn new(e: &Expr) -> Opnd {
        if let ExprKind::Local(slot) = e.kind {
            return Opnd::Local(slot);
        }
        match LocalField::of(e) {
            Some(f) => Opnd::Field(f),
            None => Opnd::Code(expr(e)),
        }
    }

    #[inline(always)]
    pub(super) fn ev(&self, me: &mut Interp<'_>) -> R<Value> {
        match self {
            Opnd::Local(slot) => Ok(me.local(*slot)),
            Opnd::Field(f) => f.ev(me),
            Opnd::Code(c) => c(me),
        }
    }

    /// Whether the operand can be looked at in place (`peek`).
    pub(super) fn peekable(&self) -> bool {
        !matches!(self, Opnd::Code(_))
    }

    /// The operand's value in place, when it is a local, or a field of one that the site has
    /// read before (no observer); `None` otherwise (then `ev` reads it, errors included).
    #[inline(always)]
    pub(super) fn peek<'a>(&self, me: &'a Interp<'_>) -> Option<&'a Value> {
        match self {
            Opnd::Local(slot) => me.local_ref(*slot),
            Opnd::Field(f) => f.in_place(me),
            Opnd::Code(_) => None,
        }
    }
}

fn with_ints<F>(op: BinOp, a: Opnd, b: Opnd, sa: Span, sb: Span, span: Span, f: F) -> Code
where
    F: Fn(i64, i64) -> Option<Value> + 'static,
{
    // A number in a local on the right is read in place, after the left (as before).
    if let Opnd::Local(slot) = b {
        return code(move |me| {
            let x = a.ev(me)?;
            if let (Value::Int(p), Some(&Value::Int(q))) = (&x, me.local_ref(slot)) {
                if let Some(v) = f(*p, q) {
                    return Ok(v);
                }
            }
            int_slow(me, x, me.local(slot), (op, sa, sb, span))
        });
    }
    code(move |me| {
        let x = a.ev(me)?;
        let y = b.ev(me)?;
        if let (Value::Int(p), Value::Int(q)) = (&x, &y) {
            if let Some(v) = f(*p, *q) {
                return Ok(v);
            }
        }
        int_slow(me, x, y, (op, sa, sb, span))
    })
}

fn with_int<F>(op: BinOp, a: Opnd, q: i64, sa: Span, sb: Span, span: Span, f: F) -> Code
where
    F: Fn(i64, i64) -> Option<Value> + 'static,
{
    // A number in a local is read in place, neither copied nor dropped.
    if let Opnd::Local(slot) = a {
        return code(move |me| {
            if let Some(&Value::Int(p)) = me.local_ref(slot) {
                if let Some(v) = f(p, q) {
                    return Ok(v);
                }
            }
            int_slow(me, me.local(slot), Value::Int(q), (op, sa, sb, span))
        });
    }
    code(move |me| {
        let x = a.ev(me)?;
        if let Value::Int(p) = x {
            if let Some(v) = f(p, q) {
                return Ok(v);
            }
        }
        int_slow(me, x, Value::Int(q), (op, sa, sb, span))
    })
}

/// An operator on values that are not two numbers it can answer in place (an overflow, a
/// wrong value): the general way, out of line, so the callers' quick answers call nothing.
#[inline(never)]
pub(super) fn int_slow(
    me: &mut Interp<'_>,
    x: Value,
    y: Value,
    (op, sa, sb, span): (BinOp, Span, Span, Span),
) -> R<Value> {
    me.binary_vals(op, x, y, sa, sb, span)
}
