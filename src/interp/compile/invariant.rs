//! A loop's condition that starts with a value none of its elements changes. In
//! `filter(side in Side where allowed(c, row, side))`, the inlined `allowed` begins
//! `let soc = restriction_on(row)`: the same value for every `side`, as nothing in the loop
//! changes the game or `row`. Such a condition works that `let` out for the first element only;
//! for the others it sets the local to the value kept and charges the steps the first took
//! (`Kept`). So the values, the steps and the errors are those of working it out each time,
//! except that a game whose budget runs out inside that `let` for a later element is stopped at
//! the `let`, as a remembered call is stopped at the call (`memo`).
//!
//! What it takes, decided on the tree:
//! - the condition is a call that is inlined, whose arguments are all put in its body (locals
//!   of the caller or constants: nothing to copy) and whose body has no `return` left;
//! - the body begins with `let x = e` and goes on after it;
//! - the body, and every function it calls, changes nothing but its own locals (`pure_fns`): so
//!   the game is the same for every element;
//! - `e` reads no local but parameters given locals that are not the loop's, and locals it binds
//!   itself.
//!
//! With an observer (a player's view), the `let` is worked out every time.

use super::inline::{self, InlineCall};
use crate::builtins::Effect;
use crate::diag::Span;
use crate::interp::{Interp, R};
use crate::program::walk::{walk, Node};
use crate::program::*;
use crate::value::Value;

/// The value of the first `let`, and the steps it took, once worked out in a run of the loop.
pub(super) type Kept = Option<(Value, u64)>;

/// A condition whose first `let` is worked out once per run of its loop.
pub(super) struct CachedCall {
    call: InlineCall,
    /// The body may run code that checks the call depth.
    nests: bool,
    /// The local the first `let` sets, where its value was written, and the `let`.
    slot: u32,
    at: Span,
    span: Span,
    /// Nothing after the first `let` binds or sets its local: from the second element on, the
    /// local still holds the value kept (nothing else writes it between elements: the loop's
    /// value reads locals only, `aggs::map_of_filter`, and calls in the body take slots above
    /// the callee's), so it is not written again.
    stays: bool,
}

/// `cond` as a `CachedCall`, if it is one (see the module's comment); `loop_slots` are the
/// locals the loop sets for each element.
pub(super) fn cached_call(cond: &Expr, loop_slots: &[u32]) -> Option<CachedCall> {
    let ExprKind::Call(f, es) = &cond.kind else {
        return None;
    };
    if super::memo::remembers(*f) {
        return None;
    }
    let (slot, at, span, stays) =
        inline::with_callee(*f, |shape| first_invariant(&shape, es, loop_slots))??;
    // The body compiled for its truth, as an inlined condition's is (`truth`).
    let (call, nests, base) = super::calls::inlined_word(*f, es, cond.span)?.without_copies()?;
    call.word_block().filter(|(rest, _)| !rest.is_empty())?;
    Some(CachedCall {
        call,
        nests,
        slot: base.saturating_add(slot),
        at,
        span,
        stays,
    })
}

/// The first `let` of a callee (its slot in the callee's frame, its value's span, its span,
/// and whether nothing after it binds or sets its local), if the call may keep it.
fn first_invariant(
    shape: &inline::Shape<'_>,
    es: &[Expr],
    loop_slots: &[u32],
) -> Option<(u32, Span, Span, bool)> {
    let all_put = es.len() == shape.params as usize
        && es
            .iter()
            .zip(shape.fixed)
            .all(|(e, fixed)| *fixed && matches!(e.kind, ExprKind::Local(_) | ExprKind::Const(_)));
    if shape.returns || !all_put {
        return None;
    }
    let ExprKind::Block(b) = &shape.body.kind else {
        return None;
    };
    let [first, _, ..] = &b.stmts[..] else {
        return None;
    };
    let StmtKind::Let(slot, e) = &first.kind else {
        return None;
    };
    if !pure_tree(shape.body) {
        return None;
    }
    let mut reads_outside = true;
    walk(Node::Expr(e), &mut |n| {
        if let Node::Expr(Expr {
            kind: ExprKind::Local(x),
            ..
        }) = n
        {
            reads_outside &= if *x < shape.params {
                match es.get(*x as usize).map(|a| &a.kind) {
                    Some(ExprKind::Local(y)) => !loop_slots.contains(y),
                    Some(ExprKind::Const(_)) => true,
                    _ => false,
                }
            } else {
                *x != *slot && inline::binds(e, *x)
            };
        }
    });
    let stays = !b
        .stmts
        .iter()
        .skip(1)
        .any(|s| inline::binds_in(Node::Stmt(s), *slot));
    reads_outside.then_some((*slot, e.span, first.span, stays))
}

impl CachedCall {
    /// Whether the condition holds for this element; `kept` lives as long as the loop's run.
    #[inline(always)]
    pub(super) fn holds(&self, me: &mut Interp<'_>, kept: &mut Kept) -> R<bool> {
        // A value that is not true or false is refused by the body's last word (`truth::Leaf`),
        // as the condition would refuse it.
        let w = if self.nests {
            self.run::<true>(me, kept)?
        } else {
            self.run::<false>(me, kept)?
        };
        Ok(w != 0)
    }

    /// What the inlined call does (`InlineCall::run`, with no argument to copy and no `return`
    /// to catch), its first `let` kept.
    #[inline(always)]
    fn run<const NESTS: bool>(&self, me: &mut Interp<'_>, kept: &mut Kept) -> R<u64> {
        let span = self.call.span();
        me.tick(span)?;
        me.check_call_depth(span)?;
        if NESTS {
            // Below the depth limit here (`check_call_depth`), so neither step wraps.
            me.call_depth = me.call_depth.wrapping_add(1);
        }
        let r = self.body(me, kept);
        if NESTS {
            me.call_depth = me.call_depth.wrapping_sub(1);
        }
        r
    }

    #[inline(always)]
    fn body(&self, me: &mut Interp<'_>, kept: &mut Kept) -> R<u64> {
        // Never `None`: only a body with statements before its value is kept (`cached_call`).
        let Some((rest, last)) = self.call.word_block() else {
            return Ok(0);
        };
        let mut stmts = rest.iter();
        match kept {
            Some((v, steps)) if me.observer.is_none() => {
                me.charge(*steps, self.span)?;
                if !self.stays {
                    me.set_local(self.slot, v.clone());
                    me.set_origin(self.slot, self.at);
                }
                stmts.next();
            }
            _ => {
                if let Some(first) = stmts.next() {
                    let before = me.state.steps();
                    first(me)?;
                    if me.observer.is_none() {
                        let steps = me.state.steps().saturating_sub(before);
                        *kept = Some((me.local(self.slot), steps));
                    }
                }
            }
        }
        for s in stmts {
            s(me)?;
        }
        last(me)
    }
}

/// Per function of `prog`, whether it changes nothing but its own locals: no builtin but pure
/// ones, no card's code, no statement but `let`, `set` of a local, `for`, `return` and
/// expressions, and no call of a function that does otherwise. Worked out without recursion
/// over the calls: a function that does otherwise makes each of its callers do otherwise.
pub(super) fn pure_fns(prog: &Program) -> Vec<bool> {
    let n = prog.fns.len();
    let mut callers: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut pure = vec![true; n];
    let mut impure = Vec::new();
    for (f, fd) in prog.fns.iter().enumerate() {
        let mut ok = true;
        walk(Node::Expr(&fd.body), &mut |node| {
            ok &= effect_free(node);
            if let Node::Expr(Expr {
                kind: ExprKind::Call(g, _),
                ..
            }) = node
            {
                match callers.get_mut(*g as usize) {
                    Some(c) => c.push(f),
                    None => ok = false,
                }
            }
        });
        if !ok {
            if let Some(p) = pure.get_mut(f) {
                *p = false;
            }
            impure.push(f);
        }
    }
    while let Some(g) = impure.pop() {
        for &f in callers.get(g).map_or(&[][..], |c| &c[..]) {
            if let Some(p) = pure.get_mut(f).filter(|p| **p) {
                *p = false;
                impure.push(f);
            }
        }
    }
    pure
}

/// Whether a node, by itself, changes nothing but locals (calls are looked at by their callee).
fn effect_free(n: Node<'_>) -> bool {
    match n {
        Node::Expr(e) => match &e.kind {
            ExprKind::Builtin(b, _) => b.effect == Effect::Pure,
            ExprKind::CallField(..) => false,
            _ => true,
        },
        Node::Stmt(s) => sets_only_locals(s),
    }
}

/// Whether a statement, by itself, changes nothing but locals: `let`, `set` of a local, `for`,
/// `return`, `break`, `continue` and expressions (what they run is looked at on its own). `memo` asks the same of a
/// remembered function's statements.
pub(super) fn sets_only_locals(s: &Stmt) -> bool {
    matches!(
        s.kind,
        StmtKind::Let(..)
            | StmtKind::Assign(Place::Local(_), _, _)
            | StmtKind::For(..)
            | StmtKind::Return(_)
            | StmtKind::Break
            | StmtKind::Continue
            | StmtKind::Expr(_)
    )
}

/// Whether a tree changes nothing but its own locals, the functions it calls included.
fn pure_tree(e: &Expr) -> bool {
    let mut ok = true;
    walk(Node::Expr(e), &mut |n| {
        ok &= effect_free(n)
            && match n {
                Node::Expr(Expr {
                    kind: ExprKind::Call(g, _),
                    ..
                }) => inline::pure_fn(*g),
                _ => true,
            };
    });
    ok
}
