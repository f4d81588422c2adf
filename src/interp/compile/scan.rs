//! An aggregate whose whole condition compares a field of the element with a key,
//! `filter(c in holdings[p] where c.group == g)`: each card's field is compared where it lies, in
//! the aggregate's own loop, with no closure for the condition and the element not stored in its
//! local.
//!
//! The walk's steps are kept (a tick per element, in the same order). An element the loop cannot
//! answer in place (not a card, a field the site has not read yet, a value that is not plain, an
//! observer's view) is tested by the condition's own code, as the walk tests it, errors
//! included. The key is a constant or a local the condition cannot change, so it is read once.
//! The element's local is left as it was for the elements answered in place: nothing reads it
//! after the aggregate, whose scope it belongs to.

use super::aggs::{walk, CSource, Fill};
use super::conds::{cond, CCond};
use super::exprs::plain_eq;
use super::{code, Code};
use crate::ast::{AggKind, BinOp};
use crate::diag::Span;
use crate::interp::exprs::Source;
use crate::interp::state::FieldSlot;
use crate::interp::{Interp, R};
use crate::program::*;
use crate::value::Value;
use std::cell::Cell;

/// What the field is compared with.
enum Key {
    Local(u32),
    Const(Value),
}

/// `x.f == k` (or `!=`) with `x` the element.
struct FieldEq {
    sym: Id,
    key: Key,
    /// `==` (else `!=`).
    want: bool,
    /// Where the field lies in the kind of the last card read.
    cache: Cell<FieldSlot>,
    /// The field's span (`x.f`), for reading it to fill the cache.
    at: Span,
}

impl FieldEq {
    fn new(slot: u32, test: &Expr) -> Option<FieldEq> {
        let ExprKind::Binary(op @ (BinOp::Eq | BinOp::Ne), a, b) = &test.kind else {
            return None;
        };
        let field = |x: &Expr| match &x.kind {
            ExprKind::Field(base, f) if matches!(base.kind, ExprKind::Local(s) if s == slot) => {
                Some((*f, x.span))
            }
            _ => None,
        };
        let key = |x: &Expr| match &x.kind {
            ExprKind::Local(s) if *s != slot => Some(Key::Local(*s)),
            ExprKind::Const(v) if v.depth() == 0 => Some(Key::Const(v.clone())),
            _ => None,
        };
        let ((sym, at), key) = match (field(a), field(b)) {
            (Some(f), None) => (f, key(b)?),
            (None, Some(f)) => (f, key(a)?),
            _ => return None,
        };
        Some(FieldEq {
            sym,
            key,
            want: *op == BinOp::Eq,
            cache: Cell::new(FieldSlot::default()),
            at,
        })
    }

    /// The key's value for this run (`None`: test every element with the condition's code).
    #[inline(always)]
    fn key(&self, me: &Interp<'_>) -> Option<Value> {
        let k = match &self.key {
            Key::Local(s) => me.local_ref(*s)?,
            Key::Const(v) => v,
        };
        (k.depth() == 0).then(|| k.clone())
    }

    /// Whether card `c` passes, answered in place, or `None`.
    #[inline(always)]
    fn in_place(&self, me: &Interp<'_>, c: u32, key: &Value) -> Option<bool> {
        let v = me.field_in_place(c, &self.cache)?;
        plain_eq(me, v, key).map(|same| same == self.want)
    }

    /// Whether `item` passes: in place, or by the condition's code (then, for a card, the
    /// site's cache learns where the field lies in its kind).
    #[inline(always)]
    fn holds(
        &self,
        me: &mut Interp<'_>,
        slot: u32,
        test: &CCond,
        item: &Value,
        key: Option<&Value>,
    ) -> R<bool> {
        if let (Some(k), Value::Card(c)) = (key, item) {
            if let Some(yes) = self.in_place(me, *c, k) {
                return Ok(yes);
            }
        }
        me.set_local(slot, item.clone());
        let yes = test.holds(me)?;
        if let (Value::Card(c), None) = (item, me.observer) {
            // Reading a field without an observer changes nothing; an error here was the
            // condition's to give, and it gave none.
            let _ = me.field_cached(*c, self.sym, &self.cache, self.at);
        }
        Ok(yes)
    }
}

/// Walk `s` as `aggs::walk` does, a tick per element, calling `f` with each element and whether
/// it passes, until `f` says stop. A zone's cards are read by id where they lie (the condition,
/// a comparison, never changes the zone).
#[inline(always)]
fn scan<'a>(
    me: &mut Interp<'a>,
    s: Source,
    eq: &FieldEq,
    slot: u32,
    test: &CCond,
    span: Span,
    mut f: impl FnMut(Value) -> bool,
) -> R<()> {
    let key = eq.key(me);
    let Source::Zone(z) = s else {
        return walk(me, s, |me, item| {
            me.tick(span)?;
            let yes = eq.holds(me, slot, test, &item, key.as_ref())?;
            Ok(!yes || f(item))
        });
    };
    let n = me.state.zones.get(z as usize).map_or(0, Vec::len);
    for i in 0..n {
        let Some(&c) = me
            .state
            .zones
            .get(z as usize)
            .and_then(|cards| cards.get(i))
        else {
            break;
        };
        me.tick(span)?;
        let yes = match key.as_ref().and_then(|k| eq.in_place(me, c, k)) {
            Some(yes) => yes,
            None => eq.holds(me, slot, test, &Value::Card(c), None)?,
        };
        if yes && !f(Value::Card(c)) {
            break;
        }
    }
    Ok(())
}

/// `count`, `any` and `first` (no `=> value`) whose condition is `x.f == k`, scanned; `None`
/// for any other.
pub(super) fn agg(
    kind: AggKind,
    slot: u32,
    source: &Expr,
    filter: Option<&Expr>,
    map: Option<&Expr>,
    span: Span,
) -> Option<Code> {
    if map.is_some() || !matches!(kind, AggKind::Count | AggKind::Any | AggKind::First) {
        return None;
    }
    let test = filter?;
    let eq = FieldEq::new(slot, test)?;
    let (src, test) = (CSource::new(source), cond(test));
    Some(code(move |me| {
        let s = src.eval(me)?;
        let mut count = 0i64;
        let mut found = None;
        scan(me, s, &eq, slot, &test, span, |item| {
            count += 1;
            if kind == AggKind::Count {
                return true;
            }
            found = Some(item);
            false
        })?;
        Ok(match kind {
            AggKind::Count => Value::Int(count),
            AggKind::Any => Value::Bool(found.is_some()),
            _ => found.unwrap_or(Value::None),
        })
    }))
}

/// `filter(x in l where x.f == k)`, scanned; `None` for any other condition.
pub(super) fn fill(slot: u32, source: &Expr, filter: Option<&Expr>, span: Span) -> Option<Fill> {
    let test = filter?;
    let eq = FieldEq::new(slot, test)?;
    let (src, test) = (CSource::new(source), cond(test));
    Some(Box::new(move |me, out| {
        let s = src.eval(me)?;
        let mut depth = 0u32;
        scan(me, s, &eq, slot, &test, span, |item| {
            depth = depth.max(item.depth());
            out.push(item);
            true
        })?;
        Ok(depth)
    }))
}
