//! An aggregate over every card of a kind whose condition starts with equalities on printed
//! fields, `first(s in Stage where s.project == j and s.level == level)`: the cards whose fields
//! match are looked up in an index made once per program, not found by testing every card.
//!
//! What the walk does is kept, step for step: it ticks once per card it passes and tests the
//! condition of each card; a card whose printed fields differ from the keys fails the leading
//! equalities, which neither charge nor fail (plain values compared without an observer), so the
//! lookup charges the ticks of the cards it skips at once and tests the whole condition on the
//! cards that match only. The same steps in the same order, the same answer, the same errors.
//!
//! It applies only where that holds, and otherwise the aggregate walks as it always does: the
//! fields are printed (not `var`), every card's value of them is plain (no list or tuple), each
//! key is a constant, a local the condition never sets or a printed field of a card in one
//! (`c.faction == f.faction`), its value at run time is plain, and no observer is set (a seat's
//! view checks every card it reads).

use super::conds::CCond;
use crate::ast::{AggKind, BinOp};
use crate::diag::Span;
use crate::interp::{Interp, R};
use crate::program::*;
use crate::value::Value;
use std::cell::OnceCell;
use std::cmp::Ordering;

/// At most this many leading equalities are looked up (the rest of the condition is tested).
const MAX_KEYS: usize = 4;

/// What a key of the lookup is compared with.
enum Key {
    Local(u32),
    Const(Value),
    /// A printed field of a card in a local (`c.faction == f.faction`): read where it lies;
    /// anything else there (not a card, a `var` field, no such field) leaves the walk to run.
    Field(u32, Id),
}

/// The cards whose fields have some values, as (place in the kind's list, card).
type Matching = Vec<(u32, u32)>;

/// The cards of a kind by the values of some printed fields.
struct Index {
    /// How many cards the kind has in this program (the walk's length).
    len: u32,
    /// (the fields' values, the matching cards as (place in the kind's list, card)), sorted by
    /// the values.
    entries: Vec<(Vec<Value>, Matching)>,
}

/// An aggregate's lookup: the kind, the fields and their keys.
pub(super) struct Lookup {
    kind: Id,
    fields: Vec<Id>,
    keys: Vec<Key>,
    /// Made on first use (from the program the code was compiled for); `None` when the fields
    /// cannot be looked up (a `var` field, a value that is not plain).
    index: OnceCell<Option<Index>>,
    span: Span,
}

impl Lookup {
    /// `agg(x in Kind where x.f == k and ...)` with `x` in `slot`, when it can be looked up.
    pub(super) fn new(
        slot: u32,
        source: &Expr,
        filter: Option<&Expr>,
        span: Span,
    ) -> Option<Lookup> {
        let ExprKind::KindCards(kind) = source.kind else {
            return None;
        };
        let test = filter?;
        let mut conjuncts = Vec::new();
        flatten_and(test, &mut conjuncts);
        let (mut fields, mut keys) = (Vec::new(), Vec::new());
        for c in conjuncts.into_iter().take(MAX_KEYS) {
            let Some((field, key)) = equality(c, slot, test) else {
                break;
            };
            fields.push(field);
            keys.push(key);
        }
        if fields.is_empty() {
            return None;
        }
        Some(Lookup {
            kind,
            fields,
            keys,
            index: OnceCell::new(),
            span,
        })
    }

    /// The kind's length and the cards whose fields match the keys, in the kind's order; `None`
    /// where the aggregate must walk.
    #[inline]
    fn matches<'s>(&'s self, me: &Interp<'_>) -> Option<(u32, &'s [(u32, u32)])> {
        if me.observer.is_some() {
            return None;
        }
        let index = self.index.get_or_init(|| self.make(me.prog)).as_ref()?;
        let mut vals: [&Value; MAX_KEYS] = [&Value::None; MAX_KEYS];
        for (v, key) in vals.iter_mut().zip(&self.keys) {
            let x = match key {
                Key::Local(s) => me.local_ref(*s)?,
                Key::Const(c) => c,
                Key::Field(s, sym) => match me.local_ref(*s)? {
                    Value::Card(c) => printed(me.prog, *c, *sym)?,
                    _ => return None,
                },
            };
            if x.depth() != 0 {
                return None;
            }
            *v = x;
        }
        let vals = vals.get(..self.keys.len())?;
        let found = index
            .entries
            .binary_search_by(|(k, _)| compare(k, vals))
            .ok()
            .and_then(|i| index.entries.get(i));
        Some((index.len, found.map_or(&[][..], |(_, cards)| &cards[..])))
    }

    fn make(&self, prog: &Program) -> Option<Index> {
        let kd = prog.kinds.get(self.kind as usize)?;
        let mut at = Vec::with_capacity(self.fields.len());
        for f in &self.fields {
            match kd.slot_of.get(*f as usize).copied().flatten() {
                Some((false, i)) => at.push(i as usize),
                _ => return None,
            }
        }
        let mut by_key: std::collections::BTreeMap<Vec<Value>, Matching> = Default::default();
        let mut len = 0u32;
        for (place, card) in prog.cards_of_kind(self.kind).enumerate() {
            let cd = prog.cards.get(card as usize)?;
            let mut key = Vec::with_capacity(at.len());
            for &i in &at {
                let v = cd.fields.get(i)?;
                if v.depth() != 0 {
                    return None;
                }
                key.push(v.clone());
            }
            by_key
                .entry(key)
                .or_default()
                .push((u32::try_from(place).ok()?, card));
            len = len.checked_add(1)?;
        }
        Some(Index {
            len,
            entries: by_key.into_iter().collect(),
        })
    }

    /// Charge the ticks of the cards before `place` not yet passed (`passed` of them).
    #[inline(always)]
    fn pass(&self, me: &mut Interp<'_>, passed: &mut u32, place: u32) -> R<()> {
        let n = place.saturating_sub(*passed);
        *passed = place;
        me.charge(u64::from(n), self.span)
    }
}

/// The operands of `a and b and c`, in the order they are tested.
fn flatten_and<'a>(e: &'a Expr, out: &mut Vec<&'a Expr>) {
    match &e.kind {
        ExprKind::Binary(BinOp::And, a, b) => {
            flatten_and(a, out);
            flatten_and(b, out);
        }
        _ => out.push(e),
    }
}

/// `x.f == k` or `k == x.f`, with `x` the element's local and `k` a plain constant, another
/// local that the condition `test` never sets, or a field of one.
fn equality(e: &Expr, slot: u32, test: &Expr) -> Option<(Id, Key)> {
    let ExprKind::Binary(BinOp::Eq, a, b) = &e.kind else {
        return None;
    };
    let field = |x: &Expr| match &x.kind {
        ExprKind::Field(base, f) if matches!(base.kind, ExprKind::Local(s) if s == slot) => {
            Some(*f)
        }
        _ => None,
    };
    let fixed = |s: u32| s != slot && !super::inline::binds(test, s);
    let key = |x: &Expr| match &x.kind {
        ExprKind::Local(s) if fixed(*s) => Some(Key::Local(*s)),
        ExprKind::Const(v) if v.depth() == 0 => Some(Key::Const(v.clone())),
        ExprKind::Field(base, sym) => match base.kind {
            ExprKind::Local(s) if fixed(s) => Some(Key::Field(s, *sym)),
            _ => None,
        },
        _ => None,
    };
    match (field(a), field(b)) {
        (Some(f), None) => Some((f, key(b)?)),
        (None, Some(f)) => Some((f, key(a)?)),
        _ => None,
    }
}

/// The printed (not `var`) field `sym` of card `c`, if it has one: a value that never changes,
/// which reading charges nothing and cannot fail.
fn printed(prog: &Program, c: u32, sym: Id) -> Option<&Value> {
    let cd = prog.cards.get(c as usize)?;
    let kd = prog.kinds.get(cd.kind as usize)?;
    match kd.slot_of.get(sym as usize).copied().flatten()? {
        (false, i) => cd.fields.get(i as usize),
        _ => None,
    }
}

/// Keys compared value by value (`Value`'s order agrees with `==` on plain values).
fn compare(k: &[Value], vals: &[&Value]) -> Ordering {
    for (a, b) in k.iter().zip(vals) {
        match a.cmp(b) {
            Ordering::Equal => {}
            other => return other,
        }
    }
    k.len().cmp(&vals.len())
}

/// `first`, `any` and `count` (with no `=> value`) over the matching cards, or `None` where
/// the lookup does not apply: the caller's walk `walked` then runs.
pub(super) fn agg(
    kind: AggKind,
    slot: u32,
    source: &Expr,
    filter: Option<&Expr>,
    map: Option<&Expr>,
    span: Span,
    walked: super::Code,
) -> super::Code {
    if map.is_some() || !matches!(kind, AggKind::First | AggKind::Any | AggKind::Count) {
        return walked;
    }
    let (Some(lookup), Some(test)) = (Lookup::new(slot, source, filter, span), filter) else {
        return walked;
    };
    let test: CCond = super::conds::cond(test);
    super::code(move |me| {
        let Some((len, cards)) = lookup.matches(me) else {
            return walked(me);
        };
        let (mut passed, mut count) = (0u32, 0i64);
        for &(place, card) in cards {
            lookup.pass(me, &mut passed, place.saturating_add(1))?;
            me.set_local(slot, Value::Card(card));
            if test.holds(me)? {
                match kind {
                    AggKind::First => return Ok(Value::Card(card)),
                    AggKind::Any => return Ok(Value::Bool(true)),
                    _ => count += 1,
                }
            }
        }
        lookup.pass(me, &mut passed, len)?;
        Ok(match kind {
            AggKind::First => Value::None,
            AggKind::Any => Value::Bool(false),
            _ => Value::Int(count),
        })
    })
}

/// `filter(x in Kind where x.f == k and ...)`: the matching cards that pass, or the walk
/// `walked` where the lookup does not apply.
pub(super) fn fill(
    slot: u32,
    source: &Expr,
    filter: Option<&Expr>,
    span: Span,
    walked: super::aggs::Fill,
) -> super::aggs::Fill {
    let (Some(lookup), Some(test)) = (Lookup::new(slot, source, filter, span), filter) else {
        return walked;
    };
    let test: CCond = super::conds::cond(test);
    Box::new(move |me, out| {
        let Some((len, cards)) = lookup.matches(me) else {
            return walked(me, out);
        };
        let mut passed = 0u32;
        for &(place, card) in cards {
            lookup.pass(me, &mut passed, place.saturating_add(1))?;
            me.set_local(slot, Value::Card(card));
            if test.holds(me)? {
                out.push(Value::Card(card));
            }
        }
        lookup.pass(me, &mut passed, len)?;
        // Cards hold no list: the elements' depth.
        Ok(0)
    })
}
