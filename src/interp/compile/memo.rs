//! Remembered calls. A function that loops (it has an aggregate) and reads nothing of the game
//! but vars and the list of players, like `members(f) = filter(p in players where
//! faction_of[p] == f)`, gives the same value for the same arguments until one of those vars is
//! set again or a player leaves. Such a call keeps its last few results (`Memo`, in the game
//! state) with the steps it took, and a call with the same plain arguments while nothing it
//! reads has changed gives the remembered value and charges the same steps. So a game, its
//! steps and its errors are what they would be without it; only a game that runs out of steps
//! inside a remembered call is stopped at the call instead of inside it.
//!
//! What may be remembered is decided on the tree (`Plan`), conservatively: the body and every
//! function it calls read only parameters, locals, constants written out, named constants, game
//! options, the cards of a kind (their identities), zones' cards, vars and card fields whose
//! values cannot hold a zone, and `players`, `player_count` or `round`; they use only builtins
//! that compute on values (and who is still in); they read no table, text, card's place or
//! face, and change nothing but locals. Writes are dated: a var's by its family
//! (`State::var_stamp`), a card's var field by the field's name (`State::field_stamp`; the
//! other fields never change), a change to a zone's cards or their order by the zone's family
//! (`State::zone_stamp`, kept only by programs with such a function). A result is used only if
//! nothing it read was written after it was made, no player has left since, and, if it reads
//! `round`, in the same round. A function that reads card fields is remembered only when it
//! walks every card of a kind (`boost(c) = count(x in Objective where x.under == c)`), or
//! walks a zone's cards and is large (`ZONE_WALK_MIN_SIZE`), where a lookup saves far more
//! than it costs; a smaller one is compiled in place of its calls instead (`inline`). Cards'
//! code called from a body (`t.bonus(p)`) is read like a function it calls: every code written
//! for that field, which is not a var. Arguments must be plain values, at most four (numbers, booleans,
//! enum values, players, cards, `none`; a function with a parameter of another type, a list or a
//! text, is not remembered at all: `keyable`), and results small, so comparing and keeping them
//! costs little. With an observer (a player's view), nothing is remembered: every read is
//! checked as it happens. A function whose results keep coming out too large to keep
//! (`TOO_LARGE_RUN` in a row) is no longer looked up in that game, as no lookup could find
//! anything; the count is part of the game state, like the results.

use super::calls::CArg;
use super::{code, Code};
use crate::builtins::Effect;
use crate::diag::Span;
use crate::interp::{Interp, R};
use crate::program::walk::{walk, Node};
use crate::program::*;
use crate::value::Value;
use std::cell::RefCell;
use std::rc::Rc;

/// Results remembered per function. Hegemony's are called with many arguments in turn (a role,
/// a faction, among 15 players): with 8, a game of it took 3.2% more instructions than with 32,
/// with 16 1.2% more, and 64 took no fewer; the other games, and searches (each copy of a game
/// carries its memo), are level (measured 2026-12-08).
const ENTRIES: usize = 32;

/// A function that reads card fields and walks a zone's cards (not a whole kind) is remembered
/// when its body and its callees' come to this many tree nodes (measured on the five games:
/// smaller ones are cheaper run again).
const ZONE_WALK_MIN_SIZE: usize = 40;

/// A function whose last this many results in a game were all too large to keep
/// (`MAX_RESULT`) is no longer looked up in that game: its calls run as plain calls, which give
/// the same values and steps. (The Establishment's `legal_placements(p)` is one.)
const TOO_LARGE_RUN: u32 = 8;

/// The largest result remembered (`Value::size`).
const MAX_RESULT: u64 = 64;

/// Why a function's calls may be remembered, and what they depend on.
#[derive(Debug, Clone, Default)]
pub(crate) struct Plan {
    /// The var families its body reads, directly or through the functions it calls.
    vars: Vec<Id>,
    /// The card fields (by name) it reads, likewise.
    fields: Vec<Id>,
    /// The zone families it reads the cards of, likewise.
    zones: Vec<Id>,
    /// Whether it reads `round`, likewise (if not, a remembered value holds from round to
    /// round).
    round: bool,
    /// How deeply calls nest inside its body (0: it calls nothing).
    depth: u32,
    /// Tree nodes of its body and of its callees' (each counted once per call).
    size: usize,
}

/// Calls with more arguments than this are not remembered.
const MAX_ARGS: usize = 4;

/// A call's plain arguments, each as (kind, payload): compared without a call per value.
#[derive(Clone, Copy)]
struct Key([u64; 2 * MAX_ARGS]);

impl PartialEq for Key {
    /// The first argument's payload first (where keys most often differ), then every word at
    /// once, without branches (a derived comparison calls `memcmp`).
    #[inline]
    fn eq(&self, other: &Key) -> bool {
        self.0.get(1) == other.0.get(1)
            && self
                .0
                .iter()
                .zip(&other.0)
                .fold(0, |diff, (a, b)| diff | (a ^ b))
                == 0
    }
}

impl Eq for Key {}

/// The key of these arguments, if they are few and all plain values (numbers, booleans, enum
/// values, players, cards, `none`).
fn key_of(args: &[Value]) -> Option<Key> {
    if args.len() > MAX_ARGS {
        return None;
    }
    let mut k = [0u64; 2 * MAX_ARGS];
    for (pair, v) in k.chunks_exact_mut(2).zip(args) {
        let (kind, payload) = match v {
            Value::None => (1, 0),
            Value::Int(n) => (2, *n as u64),
            Value::Bool(b) => (3, u64::from(*b)),
            Value::Enum(e, x) => (4, (u64::from(*e) << 32) | u64::from(*x)),
            Value::Card(c) => (5, u64::from(*c)),
            Value::Player(p) => (6, u64::from(*p)),
            _ => return None,
        };
        if let [a, b] = pair {
            *a = kind;
            *b = payload;
        }
    }
    Some(Key(k))
}

/// What `recall` learnt of the entry for a call's arguments when it gave no value.
#[derive(Clone, Copy)]
enum Slot {
    /// Not looked for (the call was too deep to use one).
    Unknown,
    /// There is none.
    Absent,
    /// It is out of date, at this index.
    Stale(usize),
}

/// One remembered call.
#[derive(Clone)]
struct Entry {
    key: Key,
    /// `State::var_clock` when it was made.
    at: u64,
    /// The round then (it matters only to a function that reads `round`).
    round: i64,
    /// Players out of the game then (they only ever leave).
    out: usize,
    /// The steps the body took.
    steps: u64,
    value: Value,
}

/// The remembered calls of a game, per function (part of `State`, so a snapshot or a copy of a
/// game carries the calls remembered in it, and nothing from another line of play).
#[derive(Clone, Default)]
pub struct Memo {
    fns: Vec<Vec<Entry>>,
    /// Per function, the entry to replace next once it has `ENTRIES`.
    next: Vec<usize>,
    /// Per function, how many results in a row were too large to keep (`TOO_LARGE_RUN`).
    too_large: Vec<u32>,
}

impl Memo {
    /// How many calls are remembered.
    pub fn calls(&self) -> usize {
        self.fns.iter().map(Vec::len).sum()
    }
}

impl std::fmt::Debug for Memo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Memo({} calls)", self.calls())
    }
}

thread_local! {
    static PLANS: RefCell<Vec<Option<Rc<Plan>>>> = const { RefCell::new(Vec::new()) };
}

/// Run `f` (a compilation of `prog`) with the plans of `prog`'s functions at hand.
pub(super) fn with_program<T>(prog: &Program, f: impl FnOnce() -> T) -> T {
    let old = PLANS.with(|p| p.replace(plans(prog)));
    let r = f();
    PLANS.with(|p| *p.borrow_mut() = old);
    r
}

/// Whether any remembered function of the program being compiled reads zones (if none does,
/// changes to zones need no dates).
pub(super) fn any_reads_zones() -> bool {
    PLANS.with(|p| {
        p.borrow()
            .iter()
            .flatten()
            .any(|plan| !plan.zones.is_empty())
    })
}

/// The names of `prog`'s functions whose calls are remembered, in declaration order.
pub fn remembered(prog: &Program) -> Vec<String> {
    (prog.fns.iter().zip(plans(prog)))
        .filter(|(_, plan)| plan.is_some())
        .map(|(fd, _)| fd.name.clone())
        .collect()
}

/// Whether calls of `f` are remembered (then they are never inlined).
pub(super) fn remembers(f: Id) -> bool {
    plan(f).is_some()
}

fn plan(f: Id) -> Option<Rc<Plan>> {
    PLANS.with(|p| p.borrow().get(f as usize).cloned().flatten())
}

/// What the plans know of one function's reads.
#[derive(Clone)]
enum Reads {
    /// Not looked at yet.
    Unknown,
    /// It reads something else, or is being looked at (a cycle is simply not remembered).
    No,
    /// Only what this plan lists.
    Only(Plan),
}

/// The plan of every function of `prog`: `None` for those whose calls are not remembered.
fn plans(prog: &Program) -> Vec<Option<Rc<Plan>>> {
    // Functions first, then cards' code (`c.effect(p)` calls it): `reads_of` numbers them so.
    let mut reads = vec![Reads::Unknown; prog.fns.len() + prog.card_fns.len()];
    for f in 0..prog.fns.len() {
        reads_of(prog, f, &mut reads);
    }
    // The fields that are vars of some kind: only those are ever dated (`State::field_stamp`).
    let var_fields: Vec<Id> = prog
        .kinds
        .iter()
        .flat_map(|k| &k.fields)
        .filter(|fd| fd.mutable)
        .map(|fd| fd.sym)
        .collect();
    prog.fns
        .iter()
        .zip(reads)
        .map(|(fd, r)| match r {
            // A function that reads card fields is remembered when it walks a whole kind of
            // card, or a zone's cards and does much besides: a lookup then saves more than it
            // costs. A smaller one is cheaper compiled in place of its calls (`inline`).
            Reads::Only(mut plan)
                if has_loop(&fd.body)
                    && keyable(fd)
                    && (plan.fields.is_empty()
                        || walks_a_kind(&fd.body)
                        || (walks_a_zone(&fd.body) && plan.size >= ZONE_WALK_MIN_SIZE)) =>
            {
                // A field that is no var never changes: a lookup need not look at its date.
                plan.fields.retain(|f| var_fields.contains(f));
                Some(Rc::new(plan))
            }
            _ => None,
        })
        .collect()
}

/// Whether calls of `fd` can make a key (`key_of`): at most `MAX_ARGS` parameters, none of a
/// type whose values are never plain (a list, a tuple, a text, a zone, code). Hegemony's
/// `raw(plan: list, r)` and `spent(plan: list)` were looked up at every call and never found
/// anything, as their list made no key.
fn keyable(fd: &FnDef) -> bool {
    fd.params.len() <= MAX_ARGS
        && fd.params.iter().all(|(_, t)| {
            matches!(
                t,
                Ty::Any | Ty::Int | Ty::Bool | Ty::Player | Ty::Enum(_) | Ty::Card(_) | Ty::None
            ) || matches!(t, Ty::Opt(inner) if matches!(**inner, Ty::Int | Ty::Bool))
        })
}

/// What function `f` reads (worked out once, callees first). `f` counts the program's
/// functions, then its cards' code (`f - fns.len()` in `Program::card_fns`).
fn reads_of(prog: &Program, f: usize, reads: &mut [Reads]) -> Reads {
    match reads.get(f) {
        Some(Reads::Unknown) => {}
        Some(known) => return known.clone(),
        None => return Reads::No,
    }
    let fd = match f.checked_sub(prog.fns.len()) {
        None => prog.fns.get(f),
        Some(i) => prog.card_fns.get(i),
    };
    let Some(fd) = fd else {
        return Reads::No;
    };
    if let Some(slot) = reads.get_mut(f) {
        *slot = Reads::No;
    }
    let mut ok = true;
    let mut plan = Plan::default();
    let mut callees: Vec<usize> = Vec::new();
    walk(Node::Expr(&fd.body), &mut |n| {
        plan.size = plan.size.saturating_add(1);
        ok &= match n {
            Node::Expr(e) => match &e.kind {
                ExprKind::Const(_)
                | ExprKind::Local(_)
                | ExprKind::Option(_)
                | ExprKind::KindCards(_)
                | ExprKind::TupleIndex(..)
                | ExprKind::Index(..)
                | ExprKind::Unary(..)
                | ExprKind::Binary(..)
                | ExprKind::If(..)
                | ExprKind::Match(..)
                | ExprKind::Agg { .. }
                | ExprKind::List(_)
                | ExprKind::Tuple(_)
                | ExprKind::Block(_) => true,
                // A zone's cards, dated by its family (`State::zone_stamp`). No zone reaches
                // a remembered call any other way: not as an argument (`key_of`), nor in a
                // var, field or constant (`plain_type`), nor from `zone_of`.
                ExprKind::Zone(id, _) => {
                    plan.zones.push(*id);
                    true
                }
                // A named constant: worked out once, when the game starts.
                ExprKind::ConstRef(id) => prog
                    .consts
                    .get(*id as usize)
                    .is_some_and(|c| plain_type(&c.ty)),
                ExprKind::Var(id, _) => {
                    plan.vars.push(*id);
                    prog.vars
                        .get(*id as usize)
                        .is_some_and(|v| plain_type(&v.ty))
                }
                // A card's field: its value now, dated by `State::field_stamp` when it is a
                // var of the card's kind (the other fields never change).
                ExprKind::Special(s) => {
                    plan.round |= *s == Special::Round;
                    true
                }
                ExprKind::Field(_, sym) => {
                    plan.fields.push(*sym);
                    plain_field(prog, *sym)
                }
                // A card's id and kind never change (whether it is face up does).
                ExprKind::CardBuiltinField(_, f) => *f != CardField::FaceUp,
                ExprKind::Call(g, _) => {
                    callees.push(*g as usize);
                    true
                }
                // A card's code, `c.effect(args)`: whichever card `c` is, a field that is not a
                // var holds code written for it in some card or kind (or nothing), each a
                // callee (`Program::card_fn_fields`). A var field may be set to anything.
                ExprKind::CallField(_, sym, _) => {
                    let n = prog.fns.len();
                    callees.extend(
                        prog.card_fn_fields
                            .iter()
                            .enumerate()
                            .filter(|(_, s)| **s == *sym)
                            .map(|(i, _)| n.saturating_add(i)),
                    );
                    !prog
                        .kinds
                        .iter()
                        .flat_map(|k| &k.fields)
                        .any(|fd| fd.sym == *sym && fd.mutable)
                }
                ExprKind::Builtin(b, _) => b.effect == Effect::Pure && b.values_only,
                _ => false,
            },
            Node::Stmt(s) => super::invariant::sets_only_locals(s),
        };
    });
    for g in callees {
        if !ok {
            break;
        }
        match reads_of(prog, g, reads) {
            Reads::Only(callee) => {
                plan.vars.extend(callee.vars);
                plan.fields.extend(callee.fields);
                plan.zones.extend(callee.zones);
                plan.round |= callee.round;
                plan.depth = plan.depth.max(callee.depth.saturating_add(1));
                plan.size = plan.size.saturating_add(callee.size);
            }
            _ => ok = false,
        }
    }
    let r = if ok {
        plan.vars.sort_unstable();
        plan.vars.dedup();
        plan.fields.sort_unstable();
        plan.fields.dedup();
        plan.zones.sort_unstable();
        plan.zones.dedup();
        Reads::Only(plan)
    } else {
        Reads::No
    };
    if let Some(slot) = reads.get_mut(f) {
        *slot = r.clone();
    }
    r
}

/// Whether values of this type can never hold a zone (nor code, nor anything untyped).
fn plain_type(t: &Ty) -> bool {
    match t {
        Ty::Int | Ty::Bool | Ty::Text | Ty::Player | Ty::Enum(_) | Ty::Card(_) | Ty::None => true,
        Ty::List(t) | Ty::Opt(t) => plain_type(t),
        Ty::Tuple(ts) => ts.iter().all(plain_type),
        Ty::Any | Ty::Zone(_) | Ty::Fn(..) => false,
    }
}

/// Whether every field of this name, on any kind, has a plain type (as `plain_type`).
fn plain_field(prog: &Program, sym: Id) -> bool {
    prog.kinds
        .iter()
        .flat_map(|k| &k.fields)
        .filter(|f| f.sym == sym)
        .all(|f| plain_type(&f.ty))
}

/// Whether a body has an aggregate (a call that does not loop is cheaper made than looked up).
fn has_loop(e: &Expr) -> bool {
    has_agg_over(e, |_| true)
}

/// Whether a body has an aggregate over every card of a kind (`c in Objective`).
fn walks_a_kind(e: &Expr) -> bool {
    has_agg_over(e, |source| matches!(source, ExprKind::KindCards(_)))
}

/// Whether a body has an aggregate over a zone's cards (`c in hand[p]`).
fn walks_a_zone(e: &Expr) -> bool {
    has_agg_over(e, |source| matches!(source, ExprKind::Zone(..)))
}

/// Whether a body has an aggregate whose source is of a form `over` accepts.
fn has_agg_over(e: &Expr, over: impl Fn(&ExprKind) -> bool) -> bool {
    let mut found = false;
    walk(Node::Expr(e), &mut |n| {
        if let Node::Expr(Expr {
            kind: ExprKind::Agg { source, .. },
            ..
        }) = n
        {
            found |= over(&source.kind);
        }
    });
    found
}

/// `f(args)` when `f`'s calls are remembered.
pub(super) fn call(f: Id, es: &[Expr], span: Span) -> Option<Code> {
    let plan = plan(f)?;
    let args: Vec<CArg> = es.iter().map(CArg::new).collect();
    Some(code(move |me| me.call_remembered(f, &plan, &args, span)))
}

impl Interp<'_> {
    /// A call of a function whose calls are remembered: as `call_compiled` (the call ticks,
    /// its depth is checked, its arguments are worked out into the new frame, in order), then
    /// the remembered value if there is one, or the body run and its value kept.
    fn call_remembered(&mut self, f: Id, plan: &Plan, args: &[CArg], span: Span) -> R<Value> {
        let code = self.code;
        let Some(cf) = code.fns.get(f as usize) else {
            return Err(crate::interp::rt(span, "this function is missing"));
        };
        let given_up = self
            .state
            .memo
            .too_large
            .get(f as usize)
            .is_some_and(|&n| n >= TOO_LARGE_RUN);
        if self.observer.is_some() || !self.remember || given_up {
            return self.call_compiled(cf, args, span);
        }
        self.tick(span)?;
        self.check_call_depth(span)?;
        let new_bp = self.enter_args(cf, args)?;
        let key = self
            .stack
            .get(new_bp..new_bp.saturating_add(args.len()))
            .and_then(key_of);
        // A remembered value stands for a run of the body that went no deeper than the limit.
        let fits = self
            .call_depth
            .saturating_add(plan.depth as usize)
            .saturating_add(1)
            < self.limits.max_call_depth;
        // Where an out-of-date entry for these arguments lies, if `recall` looked.
        let mut stale = Slot::Unknown;
        if let (Some(key), true) = (key, fits) {
            match self.recall(f, plan, key) {
                Ok((value, steps)) => {
                    self.sp = new_bp;
                    self.charge(steps, span)?;
                    return Ok(value);
                }
                Err(at) => stale = at,
            }
        }
        let before = self.state.steps();
        let value = self.run_body(cf, new_bp)?;
        if let Some(key) = key {
            let kept = value.size() <= MAX_RESULT;
            if kept {
                let steps = self.state.steps().saturating_sub(before);
                self.keep(f, key, steps, value.clone(), stale);
            }
            let runs = &mut self.state.memo.too_large;
            if runs.len() <= f as usize {
                runs.resize(f as usize + 1, 0);
            }
            if let Some(n) = runs.get_mut(f as usize) {
                *n = if kept { 0 } else { n.saturating_add(1) };
            }
        }
        Ok(value)
    }

    /// The remembered value of `f(args)` and the steps it took, if nothing it read has changed;
    /// else where the entry for these arguments lies, or that there is none (`keep` replaces it
    /// or adds one).
    fn recall(&self, f: Id, plan: &Plan, key: Key) -> Result<(Value, u64), Slot> {
        let st = &self.state;
        let entries = st.memo.fns.get(f as usize).ok_or(Slot::Absent)?;
        let at = entries
            .iter()
            .position(|e| e.key == key)
            .ok_or(Slot::Absent)?;
        let e = entries.get(at).ok_or(Slot::Absent)?;
        // Every write moves the clock on and dates its family with it: an entry made at the
        // clock's reading now has seen no write since, whatever it reads.
        let unwritten = e.at == st.var_clock;
        let fresh = (!plan.round || e.round == st.round)
            && e.out == st.out
            && (unwritten
                || (plan
                    .vars
                    .iter()
                    .all(|&v| st.var_stamp.get(v as usize).is_some_and(|&s| s <= e.at))
                    && plan
                        .fields
                        .iter()
                        .all(|&f| st.field_stamp.get(f as usize).is_some_and(|&s| s <= e.at))
                    && plan
                        .zones
                        .iter()
                        .all(|&z| st.zone_stamp.get(z as usize).is_some_and(|&s| s <= e.at))));
        if fresh {
            Ok((e.value.clone(), e.steps))
        } else {
            Err(Slot::Stale(at))
        }
    }

    /// Remember `f(key) = value`, made in `steps` steps, in place of the same call (at `stale`,
    /// when `recall` found it there) or the oldest entry.
    #[inline(always)]
    fn keep(&mut self, f: Id, key: Key, steps: u64, value: Value, stale: Slot) {
        let st = &mut self.state;
        let entry = Entry {
            key,
            at: st.var_clock,
            round: st.round,
            out: st.out,
            steps,
            value,
        };
        let f = f as usize;
        if st.memo.fns.len() <= f {
            st.memo.fns.resize_with(f + 1, Vec::new);
            st.memo.next.resize(f + 1, 0);
        }
        let (Some(entries), Some(next)) = (st.memo.fns.get_mut(f), st.memo.next.get_mut(f)) else {
            return;
        };
        // The entry `recall` found, if it is still there; none if `recall` looked and found
        // none (the body cannot have kept one for the same arguments: that would be a call of
        // itself with them in the same state, as it changes nothing but locals, which never
        // returns); else a search.
        let same = match stale {
            Slot::Stale(at) if entries.get(at).is_some_and(|e| e.key == entry.key) => Some(at),
            Slot::Absent => None,
            _ => entries.iter().position(|e| e.key == entry.key),
        };
        if let Some(old) = same.and_then(|at| entries.get_mut(at)) {
            *old = entry;
        } else if entries.len() < ENTRIES {
            entries.push(entry);
        } else if let Some(old) = entries.get_mut(*next) {
            *old = entry;
            *next = (*next + 1) % ENTRIES;
        }
    }
}
