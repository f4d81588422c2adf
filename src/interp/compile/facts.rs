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
//! has put an element there.
//!
//! A `let` gives a fact too: `let soc = top(society_under[row])`, or a call of a function whose
//! body is such a `top`, is a card of the zone's kind or `none`, known for the statements of its
//! block after it when none of them binds or sets the local (`Lets`). On the branch of an `if`
//! where `soc == none` is false (or `soc != none` true, also as the left of an `and`), it is a
//! card of that kind (`branch`): in `if soc == none { return true }` made a branch by the
//! inliner, the rest of the body reads `soc.restricted` knowing it is there. Facts come only from sources that hold no loop of their own (a zone
//! whose keys are locals or constants, a kind's cards, a list of an enum's values written out, a
//! range of numbers written out or named constants), so no other loop can use the slot while
//! the fact is known.

use crate::ast::BinOp;
use crate::program::walk::Node;
use crate::program::*;
use crate::value::Value;
use std::cell::RefCell;

/// What is certain of the values a slot holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fact {
    /// A card of this kind.
    Card(Id),
    /// A card of this kind, or `none`.
    CardOrNone(Id),
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
    /// Per function: the kind of the cards it gives (or `none`), when its body is only the top
    /// card of a zone of a kind.
    tops: Vec<Option<Id>>,
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
        tops: Vec::new(),
    };
    let tops = (prog.fns.iter())
        .map(|f| match top_of(&known, &f.body) {
            Some(Fact::CardOrNone(k)) => Some(k),
            _ => None,
        })
        .collect();
    let known = Known { tops, ..known };
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

/// What the value of `e` is certain to be: the top card of a zone of a kind is a card of that
/// kind or `none` (a move refuses a card of another kind there).
fn top_of(k: &Known, e: &Expr) -> Option<Fact> {
    let ExprKind::Builtin(def, args) = &e.kind else {
        return None;
    };
    let (true, [zone]) = (def.name == "top", &args[..]) else {
        return None;
    };
    let ExprKind::Zone(id, _) = zone.kind else {
        return None;
    };
    k.zones.get(id as usize)?.0.map(Fact::CardOrNone)
}

/// What the value a `let` binds is certain to be: `top_of` its expression, or of the body of
/// the function it calls.
fn of_value(e: &Expr) -> Option<Fact> {
    KNOWN.with(|k| {
        let k = k.borrow();
        let k = k.as_ref()?;
        match &e.kind {
            ExprKind::Call(f, _) => k
                .tops
                .get(*f as usize)
                .copied()
                .flatten()
                .map(Fact::CardOrNone),
            _ => top_of(k, e),
        }
    })
}

/// The facts a block's `let`s give the statements after them, for as long as the block is
/// compiled (dropped when it is).
pub(super) struct Lets {
    pushed: usize,
}

/// The first `n` statements of a block (`all`), each compiled by `f` in order, every `let`
/// among them known for the statements after it (`Lets::after`); those facts stay known while
/// the `Lets` returned lives (so the block's last statement can be compiled with them).
pub(super) fn in_order<T>(all: &[Stmt], n: usize, mut f: impl FnMut(&Stmt) -> T) -> (Vec<T>, Lets) {
    let mut lets = Lets { pushed: 0 };
    let compiled = (all.iter().take(n).enumerate())
        .map(|(i, s)| {
            let c = f(s);
            lets.after(all, i);
            c
        })
        .collect();
    (compiled, lets)
}

impl Lets {
    /// Once `stmts[i]` is compiled: if it is `let x = e` with `e` certain to be a card of a kind
    /// or `none`, and no statement after it binds or sets `x`, that is known of `x` while the
    /// rest of the block is compiled.
    fn after(&mut self, stmts: &[Stmt], i: usize) {
        let Some(Stmt {
            kind: StmtKind::Let(slot, e),
            ..
        }) = stmts.get(i)
        else {
            return;
        };
        let rest = stmts.get(i.saturating_add(1)..).unwrap_or(&[]);
        if rest
            .iter()
            .any(|s| super::inline::binds_in(Node::Stmt(s), *slot))
        {
            return;
        }
        if let Some(fact) = of_value(e) {
            FACTS.with(|fs| fs.borrow_mut().push((*slot, fact)));
            self.pushed = self.pushed.saturating_add(1);
        }
    }
}

impl Drop for Lets {
    fn drop(&mut self) {
        FACTS.with(|fs| {
            let mut fs = fs.borrow_mut();
            let keep = fs.len().saturating_sub(self.pushed);
            fs.truncate(keep);
        });
    }
}

/// Compile `f`, the branch of `if c` taken when `c` is `holds`, knowing what that makes
/// certain: where `x == none` is false (`x != none` true, or true as the left or right of an
/// `and` that is), a local `x` that is a card of a kind or `none` is a card of that kind.
pub(super) fn branch<T>(c: &Expr, holds: bool, f: impl FnOnce() -> T) -> T {
    let mut found = Vec::new();
    not_none(c, holds, &mut found);
    let facts: Vec<(u32, Fact)> = (found.into_iter())
        .filter_map(|slot| match fact(slot) {
            Some(Fact::CardOrNone(k)) => Some((slot, Fact::Card(k))),
            _ => None,
        })
        .collect();
    if facts.is_empty() {
        return f();
    }
    let n = facts.len();
    FACTS.with(|fs| fs.borrow_mut().extend(facts));
    let r = f();
    FACTS.with(|fs| {
        let mut fs = fs.borrow_mut();
        let keep = fs.len().saturating_sub(n);
        fs.truncate(keep);
    });
    r
}

/// The locals that `c` being `holds` shows are not `none`.
fn not_none(c: &Expr, holds: bool, out: &mut Vec<u32>) {
    match &c.kind {
        ExprKind::Binary(op @ (BinOp::Eq | BinOp::Ne), a, b) => {
            let local = match (&a.kind, &b.kind) {
                (ExprKind::Local(x), ExprKind::Const(Value::None))
                | (ExprKind::Const(Value::None), ExprKind::Local(x)) => *x,
                _ => return,
            };
            // `x == none` false, or `x != none` true.
            if holds == (*op == BinOp::Ne) {
                out.push(local);
            }
        }
        ExprKind::Binary(BinOp::And, a, b) if holds => {
            not_none(a, true, out);
            not_none(b, true, out);
        }
        _ => {}
    }
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
