//! Conditions compiled to their truth (issue 45 item 3, booleans unboxed): an `if`'s test, a
//! `where`, the operands of `and`, `or` and `not`. A comparison (of values in place, or of
//! numbers), a `contains`, an `and`, an `or` or a `not` gives its answer as a word, 0 or 1, never a `Value::Bool` that the condition then
//! unpacks: a `R<u64>` comes back in two registers, where a `R<Value>` (and a `R<bool>`) is
//! written to memory and read back. Any other condition (a call, a local, a field) is the
//! expression's own code, tested as `Interp::boolean` tests it, so it pays no closure more.
//!
//! The answers, the steps charged and the errors are those of the value-making closures in
//! `exprs.rs`, which share the helpers used here (`plain_eq`, `eq_const`, `eq_read`,
//! `list_contains`, `int_slow`).

use super::exprs::{
    cexpr, eq_const, eq_read, int_slow, list_contains, plain_eq, quick_eq_apart, Opnd,
};
use super::keys::VarRead;
use super::{CExpr, Ev};
use crate::ast::{BinOp, UnOp};
use crate::builtins::Effect;
use crate::diag::Span;
use crate::interp::builtins::pair_work;
use crate::interp::{Interp, R};
use crate::program::*;
use crate::value::Value;

/// A condition's truth as a word (0 or 1).
pub(super) type WCode = Box<dyn for<'a> Fn(&mut Interp<'a>) -> R<u64>>;

fn wcode<F>(f: F) -> WCode
where
    F: for<'a> Fn(&mut Interp<'a>) -> R<u64> + 'static,
{
    Box::new(f)
}

/// A compiled condition.
pub(crate) enum CCond {
    /// A form whose answer is true or false by construction, as a word.
    Word(WCode),
    /// Any other expression: its value, which must be true or false.
    Value(CExpr),
}

impl CCond {
    /// Whether the condition holds (an error when its value is not true or false).
    #[inline(always)]
    pub(crate) fn holds(&self, me: &mut Interp<'_>) -> R<bool> {
        match self {
            CCond::Word(w) => Ok(w(me)? != 0),
            CCond::Value(c) => me.boolean(c),
        }
    }

    #[inline(always)]
    fn word(&self, me: &mut Interp<'_>) -> R<u64> {
        match self {
            CCond::Word(w) => w(me),
            CCond::Value(c) => me.boolean(c).map(u64::from),
        }
    }
}

/// A `Value::Bool` that a shared helper gave, as a word (it gives nothing else).
#[inline(always)]
fn truth(v: Value) -> u64 {
    u64::from(matches!(v, Value::Bool(true)))
}

/// `e` compiled as a condition.
pub(crate) fn cond(e: &Expr) -> CCond {
    let span = e.span;
    match &e.kind {
        ExprKind::Const(Value::Bool(b)) => {
            let w = u64::from(*b);
            CCond::Word(wcode(move |_| Ok(w)))
        }
        ExprKind::Binary(BinOp::And, a, b) => {
            let (a, b) = (cond(a), cond(b));
            CCond::Word(wcode(
                move |me| {
                    if a.holds(me)? {
                        b.word(me)
                    } else {
                        Ok(0)
                    }
                },
            ))
        }
        ExprKind::Binary(BinOp::Or, a, b) => {
            let (a, b) = (cond(a), cond(b));
            CCond::Word(wcode(
                move |me| {
                    if a.holds(me)? {
                        Ok(1)
                    } else {
                        b.word(me)
                    }
                },
            ))
        }
        ExprKind::Unary(UnOp::Not, x) => {
            if let ExprKind::Call(f, es) = &x.kind {
                if let Some(inl) = super::calls::inlined_word(*f, es, x.span) {
                    return CCond::Word(inl.negated_word());
                }
            }
            let x = cond(x);
            CCond::Word(wcode(move |me| Ok(x.word(me)? ^ 1)))
        }
        // Numbers compared: `a < b`, and `a == 3` with a number written out.
        ExprKind::Binary(op @ (BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge), a, b) => {
            CCond::Word(order(*op, a, b, span))
        }
        ExprKind::Binary(op @ (BinOp::Eq | BinOp::Ne), a, b)
            if matches!(b.kind, ExprKind::Const(Value::Int(_))) =>
        {
            CCond::Word(order(*op, a, b, span))
        }
        ExprKind::Binary(op @ (BinOp::Eq | BinOp::Ne), a, b) => {
            match var_eq(e).or_else(|| eq(*op, a, b, span)) {
                Some(w) => CCond::Word(w),
                None => CCond::Value(cexpr(e)),
            }
        }
        // A call inlined: its body for its truth (`truth`); not one whose values are kept
        // per argument (`finite`), which runs no body.
        ExprKind::Call(f, es) if super::finite::keeps(*f, es) => CCond::Value(cexpr(e)),
        ExprKind::Call(f, es) => match super::calls::inlined_word(*f, es, span) {
            Some(inl) => CCond::Word(inl.word()),
            None => CCond::Value(cexpr(e)),
        },
        ExprKind::Builtin(b, args) if b.name == "contains" => match contains(b, args, span) {
            Some(w) => CCond::Word(w),
            None => CCond::Value(cexpr(e)),
        },
        _ => CCond::Value(cexpr(e)),
    }
}

/// A comparison of numbers (`<`, `<=`, `>`, `>=`, or `==` and `!=` with a number written out), as
/// `exprs::binary` compiles it (`with_int`, `with_ints`): a number in a local read in place, the
/// left operand first; anything but two numbers the general way (`int_slow`, its errors).
fn order(op: BinOp, a: &Expr, b: &Expr, span: Span) -> WCode {
    match op {
        BinOp::Lt => order_with(op, a, b, span, |p, q| p < q),
        BinOp::Le => order_with(op, a, b, span, |p, q| p <= q),
        BinOp::Gt => order_with(op, a, b, span, |p, q| p > q),
        BinOp::Ge => order_with(op, a, b, span, |p, q| p >= q),
        BinOp::Eq => order_with(op, a, b, span, |p, q| p == q),
        _ => order_with(op, a, b, span, |p, q| p != q),
    }
}

fn order_with<F>(op: BinOp, a: &Expr, b: &Expr, span: Span, f: F) -> WCode
where
    F: Fn(i64, i64) -> bool + Clone + 'static,
{
    let at = (op, a.span, b.span, span);
    if let Some(w) = order_var(a, b, at, &f) {
        return w;
    }
    let a = Opnd::new(a);
    if let ExprKind::Const(Value::Int(q)) = b.kind {
        if let Opnd::Local(slot) = a {
            return wcode(move |me| {
                if let Some(&Value::Int(p)) = me.local_ref(slot) {
                    return Ok(u64::from(f(p, q)));
                }
                int_slow(me, me.local(slot), Value::Int(q), at).map(truth)
            });
        }
        return wcode(move |me| {
            let x = a.ev(me)?;
            if let Value::Int(p) = x {
                return Ok(u64::from(f(p, q)));
            }
            int_slow(me, x, Value::Int(q), at).map(truth)
        });
    }
    let b = Opnd::new(b);
    if let Opnd::Local(slot) = b {
        return wcode(move |me| {
            let x = a.ev(me)?;
            if let (Value::Int(p), Some(&Value::Int(q))) = (&x, me.local_ref(slot)) {
                return Ok(u64::from(f(*p, q)));
            }
            int_slow(me, x, me.local(slot), at).map(truth)
        });
    }
    wcode(move |me| {
        let x = a.ev(me)?;
        let y = b.ev(me)?;
        if let (Value::Int(p), Value::Int(q)) = (&x, &y) {
            return Ok(u64::from(f(*p, *q)));
        }
        int_slow(me, x, y, at).map(truth)
    })
}

/// A number comparison with a var whose keys are locals on either side (`currency[p] >= cost`,
/// `n < held[p, q]`): its number looked at in place (`keys::VarRead`), the left operand first.
fn order_var<F>(a: &Expr, b: &Expr, at: (BinOp, Span, Span, Span), f: &F) -> Option<WCode>
where
    F: Fn(i64, i64) -> bool + Clone + 'static,
{
    let var = |e: &Expr| match &e.kind {
        ExprKind::Var(id, keys) => VarRead::new(*id, keys, e.span),
        _ => None,
    };
    let f = f.clone();
    if let Some(v) = var(a) {
        if let ExprKind::Const(Value::Int(q)) = b.kind {
            return Some(wcode(move |me| {
                if let Some(&Value::Int(p)) = v.peek(me) {
                    return Ok(u64::from(f(p, q)));
                }
                let x = v.ev(me)?;
                int_slow(me, x, Value::Int(q), at).map(truth)
            }));
        }
        let b = cexpr(b);
        return Some(wcode(move |me| {
            let x = match v.peek(me) {
                Some(&Value::Int(p)) => Value::Int(p),
                _ => v.ev(me)?,
            };
            let y = b.ev(me)?;
            if let (Value::Int(p), Value::Int(q)) = (&x, &y) {
                return Ok(u64::from(f(*p, *q)));
            }
            int_slow(me, x, y, at).map(truth)
        }));
    }
    let v = var(b)?;
    let a = Opnd::new(a);
    Some(wcode(move |me| {
        let x = a.ev(me)?;
        if let (Value::Int(p), Some(&Value::Int(q))) = (&x, v.peek(me)) {
            return Ok(u64::from(f(*p, q)));
        }
        let y = v.ev(me)?;
        int_slow(me, x, y, at).map(truth)
    }))
}

/// `a == b` or `a != b` whose operands are looked at in place (a local or a local's field, the
/// other one of those or a plain constant), as `exprs::binary` compiles them.
fn eq(op: BinOp, a: &Expr, b: &Expr, span: Span) -> Option<WCode> {
    let (sa, sb, want) = (a.span, b.span, op == BinOp::Eq);
    let at = (op, sa, sb, span);
    if let ExprKind::Const(k) = &b.kind {
        if k.depth() != 0 || matches!(k, Value::Int(_)) {
            return None;
        }
        let (a, k) = (Opnd::new(a), k.clone());
        if !a.peekable() {
            return None;
        }
        return Some(wcode(move |me| {
            if let Some(same) = a.peek(me).and_then(|x| plain_eq(me, x, &k)) {
                return Ok(u64::from(same == want));
            }
            eq_const(me, &a, &k, want, at).map(truth)
        }));
    }
    let (a, b) = (Opnd::new(a), Opnd::new(b));
    if !(a.peekable() && b.peekable()) {
        return None;
    }
    Some(wcode(move |me| {
        if let (Some(x), Some(y)) = (a.peek(me), b.peek(me)) {
            if let Some(same) = plain_eq(me, x, y).or_else(|| quick_eq_apart(me, x, y)) {
                return Ok(u64::from(same == want));
            }
        }
        eq_read(me, &a, &b, want, at).map(truth)
    }))
}

/// `v[keys] == k` or `!=` for a var whose keys are locals and a plain constant (`open_pact[p, q]
/// != none`): the var looked at in place (`keys::VarRead`), as `eq` answers a local.
/// Where it cannot, the comparison's own code runs (`exprs::binary`, its errors).
fn var_eq(e: &Expr) -> Option<WCode> {
    let ExprKind::Binary(op @ (BinOp::Eq | BinOp::Ne), a, b) = &e.kind else {
        return None;
    };
    let (ExprKind::Var(id, keys), ExprKind::Const(k)) = (&a.kind, &b.kind) else {
        return None;
    };
    if k.depth() != 0 || matches!(k, Value::Int(_)) {
        return None;
    }
    let (v, k) = (VarRead::new(*id, keys, a.span)?, k.clone());
    let (want, whole) = (*op == BinOp::Eq, cexpr(e));
    Some(wcode(move |me| {
        if let Some(same) = v.peek(me).and_then(|x| plain_eq(me, x, &k)) {
            return Ok(u64::from(same == want));
        }
        me.boolean(&whole).map(u64::from)
    }))
}

/// `contains(l, x)` of two locals or locals' fields, looked at in place, as `exprs::builtin`
/// compiles it: the same charge, then the same answer; anything else through the builtin. (The
/// two closures spell the same steps out: one helper called by both, even inlined, cost The
/// Establishment 0.3% more instructions per game, measured 2026-12-06.)
fn contains(b: &'static crate::builtins::BuiltinDef, args: &[Expr], span: Span) -> Option<WCode> {
    let [a, c] = args else {
        return None;
    };
    let spans = [a.span, c.span];
    let b = crate::interp::builtins::own(b);
    if b.effect != Effect::Pure || !b.shown_only.is_empty() {
        return None;
    }
    let (a, c) = (Opnd::new(a), Opnd::new(c));
    if !(a.peekable() && c.peekable()) {
        return None;
    }
    Some(wcode(move |me| {
        if me.observer.is_none() {
            if let (Some(x @ Value::List(l)), Some(y)) = (a.peek(me), c.peek(me)) {
                let (work, found) = (pair_work(x, y), list_contains(l, y));
                me.charge_work(work, span)?;
                return Ok(u64::from(found));
            }
        }
        contains_worked_out(me, (&a, &c), b, &spans, span)
    }))
}

/// `contains` when its operands are not looked at in place (an observer, or not a list): worked
/// out and called as the builtin is. Out of line, so the closure's own path keeps few registers.
#[inline(never)]
fn contains_worked_out(
    me: &mut Interp<'_>,
    (a, c): (&Opnd, &Opnd),
    b: &'static crate::interp::builtins::Builtin,
    spans: &[Span; 2],
    span: Span,
) -> R<u64> {
    let x = a.ev(me)?;
    let y = c.ev(me)?;
    if let (Value::List(l), None) = (&x, me.observer) {
        me.charge_pair(&x, &y, span)?;
        return Ok(u64::from(list_contains(l, &y)));
    }
    me.builtin_vals(b, &[x, y], spans, span).map(truth)
}
