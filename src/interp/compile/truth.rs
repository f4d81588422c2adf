//! The body of a small function inlined where its value is a condition (`where allowed(c, row,
//! side)`, `not clash(...)`, `if playable(p, c)`), compiled to its truth as a word (issue 45
//! item 3, booleans unboxed): its `if`s and enum `match`es choose between branches that are
//! themselves conditions (`conds`), so no `Value::Bool` is made at each level and unpacked at
//! the next, and no `R<Value>` goes through memory on the way up.
//!
//! Everything else is what the body's value-making code does (`exprs::ticked`, `if_else`,
//! `enum_match`, `Branch`, `stmts::value_stmt`): the same statements tick in the same order, the
//! same values are worked out. A body that gives something other than true or false gives, where
//! it does, the error its call's condition would have given on receiving it (`Leaf`): nothing
//! runs between the two, so the game is the same.

use super::conds::{cond, CCond, WCode};
use super::exprs::{cexpr, EnumArms, EqTest, Opnd};
use super::stmts::{stmt, SCode};
use super::{Ev, Origin};
use crate::diag::Span;
use crate::interp::{Interp, R};
use crate::program::*;
use crate::value::Value;

/// Where a value that is not true or false is reported: the call whose value it would have
/// been, and the function called (`Interp::boolean` on the call, `not`'s check of it).
#[derive(Clone, Copy)]
pub(super) struct Leaf {
    pub span: Span,
    pub f: Id,
}

impl Leaf {
    /// `v` as a word, or the error the call's condition gives on receiving it.
    #[inline(always)]
    pub(super) fn word(self, me: &Interp<'_>, v: Value) -> R<u64> {
        match v {
            Value::Bool(b) => Ok(u64::from(b)),
            other => Err(self.refuse(me, &other)),
        }
    }

    #[cold]
    #[inline(never)]
    fn refuse(self, me: &Interp<'_>, v: &Value) -> Box<crate::diag::Diag> {
        me.not_a_at(self.span, Origin::Call(self.f), v, "true or false")
    }
}

/// An inlined body for its truth: its statements before its value, then its value as a word.
pub(super) struct WBody {
    pub rest: Vec<SCode>,
    pub last: WCode,
}

impl WBody {
    /// `body` (with its slots already moved into the caller's frame) for its truth.
    pub(super) fn new(body: &Expr, leaf: Leaf) -> WBody {
        match &body.kind {
            ExprKind::Block(b) if !b.stmts.is_empty() => {
                let (rest, last) = block_parts(b, leaf);
                WBody { rest, last }
            }
            _ => WBody {
                rest: Vec::new(),
                last: word(body, None, leaf),
            },
        }
    }

    #[inline(always)]
    pub(super) fn run(&self, me: &mut Interp<'_>) -> R<u64> {
        for s in &self.rest {
            s(me)?;
        }
        (self.last)(me)
    }
}

/// A block's statements before its last, and its last for its truth (`stmts::block_parts`).
fn block_parts(b: &Block, leaf: Leaf) -> (Vec<SCode>, WCode) {
    let Some((last, rest)) = b.stmts.split_last() else {
        return (Vec::new(), Box::new(move |me| leaf.word(me, Value::None)));
    };
    let (rest, _lets) = super::facts::in_order(&b.stmts, rest.len(), stmt);
    (rest, last_stmt(last, leaf))
}

/// A block for its truth (`stmts::block`).
fn block(b: &Block, leaf: Leaf) -> WCode {
    let (rest, last) = block_parts(b, leaf);
    if rest.is_empty() {
        return last;
    }
    Box::new(move |me| {
        for s in &rest {
            s(me)?;
        }
        last(me)
    })
}

/// The last statement of a block for its truth (`stmts::value_stmt`): an expression's value,
/// after the statement's step, or `none` after any other statement.
fn last_stmt(s: &Stmt, leaf: Leaf) -> WCode {
    let span = s.span;
    match &s.kind {
        StmtKind::Expr(e) => word(e, Some(span), leaf),
        _ => {
            let s = stmt(s);
            Box::new(move |me| {
                s(me)?;
                leaf.word(me, Value::None)
            })
        }
    }
}

/// A branch of an `if` or an arm of a `match` for its truth (`exprs::Branch::expr`): a block, a
/// constant written out (no step), or an expression.
fn branch(e: &Expr, leaf: Leaf) -> WCode {
    match &e.kind {
        ExprKind::Block(b) => block(b, leaf),
        _ => word(e, None, leaf),
    }
}

/// `e` for its truth; with `tick`, the step of the statement it is the value of first
/// (`exprs::ticked`).
fn word(e: &Expr, tick: Option<Span>, leaf: Leaf) -> WCode {
    match (&e.kind, tick) {
        (ExprKind::If(c, then, els), _) => if_word(c, then, els.as_deref(), tick, leaf),
        (ExprKind::Match(scrut, arms), _) if EnumArms::new(arms).is_some() => {
            match_word(scrut, arms, e.span, tick, leaf)
        }
        (ExprKind::Const(v), None) => {
            let w = match v {
                Value::Bool(b) => Some(u64::from(*b)),
                _ => None,
            };
            let v = v.clone();
            Box::new(move |me| match w {
                Some(w) => Ok(w),
                None => leaf.word(me, v.clone()),
            })
        }
        (ExprKind::Const(v), Some(span)) => {
            let v = v.clone();
            Box::new(move |me| {
                me.tick(span)?;
                leaf.word(me, v.clone())
            })
        }
        (_, None) => truth(e, leaf),
        (_, Some(span)) => {
            let w = truth(e, leaf);
            Box::new(move |me| {
                me.tick(span)?;
                w(me)
            })
        }
    }
}

/// Any other expression for its truth: a condition's word, or its value checked. A call
/// inlined here gives the body's value, so a value of its that is not true or false is reported
/// as the body's (`leaf`), not as its own.
fn truth(e: &Expr, leaf: Leaf) -> WCode {
    if let ExprKind::Call(f, es) = &e.kind {
        if !super::finite::keeps(*f, es) {
            if let Some(inl) = super::calls::inlined_word_for(*f, es, e.span, leaf) {
                return inl.word();
            }
        }
    }
    match cond(e) {
        CCond::Word(w) => w,
        CCond::Value(_) => {
            let c = cexpr(e);
            Box::new(move |me| {
                let v = c.ev(me)?;
                leaf.word(me, v)
            })
        }
    }
}

/// `if c { then } else { els }` for its truth (`exprs::if_else`).
fn if_word(c: &Expr, then: &Block, els: Option<&Expr>, tick: Option<Span>, leaf: Leaf) -> WCode {
    let test = EqTest::of(c);
    let holds = cond(c);
    let then = super::facts::branch(c, true, || block(then, leaf));
    let els = match els {
        Some(e) => super::facts::branch(c, false, || branch(e, leaf)),
        None => Box::new(move |me: &mut Interp<'_>| leaf.word(me, Value::None)),
    };
    let c = holds;
    Box::new(move |me| {
        if let Some(span) = tick {
            me.tick(span)?;
        }
        let yes = match test.as_ref().and_then(|t| t.in_place(me)) {
            Some(yes) => yes,
            None => c.holds(me)?,
        };
        if yes {
            then(me)
        } else {
            els(me)
        }
    })
}

/// A `match` on an enum's values for its truth (`exprs::enum_match`).
fn match_word(
    scrut: &Expr,
    arms: &[(Vec<Pat>, Expr)],
    span: Span,
    tick: Option<Span>,
    leaf: Leaf,
) -> WCode {
    let table = EnumArms::new(arms);
    let scrut = Opnd::new(scrut);
    let bodies: Vec<WCode> = arms.iter().map(|(_, b)| branch(b, leaf)).collect();
    Box::new(move |me| {
        if let Some(span) = tick {
            me.tick(span)?;
        }
        let arm = scrut.peek(me).and_then(|v| table.as_ref()?.arm(v));
        if let Some(body) = arm.and_then(|a| bodies.get(a as usize)) {
            return body(me);
        }
        let v = scrut.ev(me)?;
        match table.as_ref().and_then(|t| t.arm(&v)) {
            Some(a) => match bodies.get(a as usize) {
                Some(body) => body(me),
                None => Err(me.no_arm(&v, span)),
            },
            None => Err(me.no_arm(&v, span)),
        }
    })
}
