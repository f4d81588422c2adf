//! What is certain of a loop's element while its loop's code is compiled (issue 45 item 3, a
//! first piece of static knowledge in the compiled code): the element of `c in hand[p]` is a
//! card of the zone's kind (a move of a card of another kind there is refused, `move_cards`),
//! of `row in 1..slots` a number from 1 to 3, of `side in Side` one of the enum's values.
//!
//! An inlined call checks an argument it reads in its body where the argument would have been
//! worked out (`inline::Check`): `c.realm` must be a field of a card, `supporters[row, side]`
//! must have its keys in their domains. Where these facts make the check one that cannot fail,
//! it is not run (`inline::Arg`), except under an observer, where reading a field is also a
//! question of what the observer may see.
//!
//! A fact holds for the loop's slot while the loop's condition and value are compiled, unless
//! they bind or set that slot themselves; the compiled code reads the slot only while the loop
//! has put an element there. Facts come only from sources that hold no loop of their own (a zone
//! whose keys are locals or constants, a kind's cards, a list of an enum's values written out, a
//! range of numbers written out or named constants), so no other loop can use the slot while
//! the fact is known.

use crate::ast::BinOp;
use crate::program::*;
use crate::value::Value;
use std::cell::RefCell;

/// What is certain of the values a slot holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fact {
    /// A card of this kind.
    Card(Id),
    /// A value of this enum.
    Enum(Id),
    /// A number from the first to the second.
    Ints(i64, i64),
}

/// What the facts are worked out from, per program.
struct Known {
    /// Per zone family: the kind of its cards, if it has one, and its keys' domains.
    zones: Vec<(Option<Id>, Vec<KeyDomain>)>,
    /// Per kind: the field symbols that every card of it has printed (not `var`).
    printed: Vec<Vec<Id>>,
    /// Per enum: how many values it has.
    enum_sizes: Vec<u32>,
    /// Per named constant: its number, if it is one written out.
    numbers: Vec<Option<i64>>,
}

thread_local! {
    static KNOWN: RefCell<Option<Known>> = const { RefCell::new(None) };
    /// The facts of the loops being compiled, innermost last.
    static FACTS: RefCell<Vec<(u32, Fact)>> = const { RefCell::new(Vec::new()) };
}

/// Run `f` (a compilation of `prog`) with what the facts are worked out from.
pub(super) fn with_program<T>(prog: &Program, f: impl FnOnce() -> T) -> T {
    let known = Known {
        zones: prog
            .zones
            .iter()
            .map(|z| (z.kind, z.keys.clone()))
            .collect(),
        printed: (0..prog.kinds.len()).map(|k| printed(prog, k)).collect(),
        enum_sizes: (prog.enums.iter())
            .map(|e| u32::try_from(e.variants.len()).unwrap_or(u32::MAX))
            .collect(),
        numbers: (prog.consts.iter())
            .map(|c| match c.value.kind {
                ExprKind::Const(Value::Int(n)) => Some(n),
                _ => None,
            })
            .collect(),
    };
    let old = KNOWN.with(|k| k.replace(Some(known)));
    let old_facts = FACTS.with(|f| std::mem::take(&mut *f.borrow_mut()));
    let r = f();
    KNOWN.with(|k| *k.borrow_mut() = old);
    FACTS.with(|f| *f.borrow_mut() = old_facts);
    r
}

/// The printed fields every card of kind `k` has a value for.
fn printed(prog: &Program, k: usize) -> Vec<Id> {
    let Some(kd) = prog.kinds.get(k) else {
        return Vec::new();
    };
    let cards: Vec<&CardDef> = (prog.cards.iter())
        .filter(|c| c.kind as usize == k)
        .collect();
    (kd.slot_of.iter().enumerate())
        .filter_map(|(sym, at)| match at {
            Some((false, i)) if cards.iter().all(|c| c.fields.len() > *i as usize) => {
                Id::try_from(sym).ok()
            }
            _ => None,
        })
        .collect()
}

/// Compile `f` (the code of a loop over `source` whose element is put in `slot`, with
/// `parts`, the loop's condition and value) knowing what the source's elements are, if that
/// is known and no part binds or sets the slot.
pub(super) fn within<T>(
    slot: u32,
    source: &Expr,
    parts: &[Option<&Expr>],
    f: impl FnOnce() -> T,
) -> T {
    let fact = of_source(source)
        .filter(|_| !(parts.iter().flatten()).any(|p| super::inline::binds(p, slot)));
    let Some(fact) = fact else {
        return f();
    };
    FACTS.with(|fs| fs.borrow_mut().push((slot, fact)));
    let r = f();
    FACTS.with(|fs| {
        fs.borrow_mut().pop();
    });
    r
}

/// What every element of `source` is, if that is certain.
fn of_source(source: &Expr) -> Option<Fact> {
    KNOWN.with(|k| {
        let k = k.borrow();
        let k = k.as_ref()?;
        match &source.kind {
            ExprKind::Zone(id, keys)
                if keys
                    .iter()
                    .all(|e| matches!(e.kind, ExprKind::Local(_) | ExprKind::Const(_))) =>
            {
                k.zones.get(*id as usize)?.0.map(Fact::Card)
            }
            ExprKind::KindCards(kind) => Some(Fact::Card(*kind)),
            ExprKind::Const(Value::List(items)) => {
                let Some(Value::Enum(e, _)) = items.first() else {
                    return None;
                };
                let n = *k.enum_sizes.get(*e as usize)?;
                items
                    .iter()
                    .all(|v| matches!(v, Value::Enum(e2, x) if e2 == e && *x < n))
                    .then_some(Fact::Enum(*e))
            }
            ExprKind::Binary(BinOp::Range, lo, hi) => {
                Some(Fact::Ints(number(k, lo)?, number(k, hi)?))
            }
            _ => None,
        }
    })
}

/// A number written out or a named constant's.
fn number(k: &Known, e: &Expr) -> Option<i64> {
    match e.kind {
        ExprKind::Const(Value::Int(n)) => Some(n),
        ExprKind::ConstRef(c) => k.numbers.get(c as usize).copied().flatten(),
        _ => None,
    }
}

/// The innermost fact known of `slot`.
fn fact(slot: u32) -> Option<Fact> {
    FACTS.with(|fs| {
        fs.borrow()
            .iter()
            .rev()
            .find(|(s, _)| *s == slot)
            .map(|(_, f)| *f)
    })
}

/// Whether `e.sym` of local `e` is certain to be read without an error where nothing observes:
/// the local holds a card of a kind whose cards all have that field printed.
pub(super) fn sure_field(base: &Expr, sym: Id) -> bool {
    let ExprKind::Local(slot) = base.kind else {
        return false;
    };
    let Some(Fact::Card(kind)) = fact(slot) else {
        return false;
    };
    KNOWN.with(|k| {
        k.borrow()
            .as_ref()
            .and_then(|k| k.printed.get(kind as usize))
            .is_some_and(|p| p.contains(&sym))
    })
}

/// Whether the keys of zone `id` (locals and constants) are certain to be within their
/// domains.
pub(super) fn sure_keys(id: Id, keys: &[Expr]) -> bool {
    KNOWN.with(|k| {
        let k = k.borrow();
        let Some((k, (_, domains))) = k
            .as_ref()
            .and_then(|k| Some((k, k.zones.get(id as usize)?)))
        else {
            return false;
        };
        domains.len() == keys.len()
            && keys.iter().zip(domains).all(|(e, d)| {
                let f = match &e.kind {
                    ExprKind::Local(slot) => fact(*slot),
                    ExprKind::Const(Value::Int(n)) => Some(Fact::Ints(*n, *n)),
                    ExprKind::Const(Value::Enum(en, x)) => k
                        .enum_sizes
                        .get(*en as usize)
                        .filter(|n| x < n)
                        .map(|_| Fact::Enum(*en)),
                    _ => None,
                };
                match (f, d) {
                    (Some(Fact::Enum(e)), KeyDomain::Enum(d)) => e == *d,
                    // Within the domain's `key_count`, which saturates at `u32::MAX`.
                    (Some(Fact::Ints(a, b)), KeyDomain::Range(lo, hi)) => {
                        a > b
                            || (*lo <= a
                                && b <= *hi
                                && i128::from(*hi) - i128::from(*lo) < i128::from(u32::MAX))
                    }
                    _ => false,
                }
            })
    })
}
