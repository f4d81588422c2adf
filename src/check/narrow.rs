//! Tests that rule `none` out. A local of type `int or none` (from `index_of`, or `min`/`max`
//! over a list that may be empty) is an `int` where a test has shown it is not `none`:
//! - in the `then` block of `if x != none` (and the `else` of `if x == none`);
//! - on the right of `x != none and ...` (and of `x == none or ...`);
//! - in the `=>` value of an aggregate whose `where` says `x != none`;
//! - after `if x == none { return ... }` (a branch that always returns, breaks or continues), to
//!   the block's end.
//!
//! `not`, `and` and `or` combine tests as they would at run time. A region that sets the local
//! again keeps its `or none`: the test no longer holds there.

use super::*;
use crate::ast::{self, BinOp, UnOp};

/// A local narrowed for a while: its name, its slot, and its type before.
pub(super) struct Narrowed(Vec<(String, u32, Ty)>);

impl Checker {
    /// Narrow the locals that `cond` having the value `truth` shows are not `none`, except those
    /// `region` sets. Undo with `widen`.
    pub(super) fn narrow(&mut self, cond: &ast::Expr, truth: bool, region: Region) -> Narrowed {
        let mut names = Vec::new();
        facts(cond, truth, &mut names);
        let mut saved = Vec::new();
        for name in names {
            if region.sets(&name) || saved.iter().any(|(n, _, _)| *n == name) {
                continue;
            }
            let found = self
                .scopes
                .iter_mut()
                .rev()
                .flat_map(|s| s.iter_mut().rev())
                .find(|l| l.name == name);
            if let Some(l) = found {
                if let Ty::Opt(inner) = &l.ty {
                    let inner = (**inner).clone();
                    saved.push((name, l.slot, std::mem::replace(&mut l.ty, inner)));
                }
            }
        }
        Narrowed(saved)
    }

    /// Give narrowed locals their types back.
    pub(super) fn widen(&mut self, n: Narrowed) {
        for (name, slot, ty) in n.0 {
            let found = self
                .scopes
                .iter_mut()
                .rev()
                .flat_map(|s| s.iter_mut().rev())
                .find(|l| l.name == name && l.slot == slot);
            if let Some(l) = found {
                l.ty = ty;
            }
        }
    }
}

/// The code a narrowing holds for: what it may set.
#[derive(Clone, Copy)]
pub(super) enum Region<'a> {
    Expr(&'a ast::Expr),
    Block(&'a ast::Block),
    /// The statements after an `if` that returns, to the end of their block.
    Rest(&'a [ast::Stmt]),
}

impl Region<'_> {
    fn sets(self, name: &str) -> bool {
        match self {
            Region::Expr(e) => expr_sets(e, name),
            Region::Block(b) => block_sets(b, name),
            Region::Rest(ss) => ss.iter().any(|s| stmt_sets(s, name)),
        }
    }
}

/// The locals that `cond` evaluating to `truth` shows are not `none`.
fn facts(cond: &ast::Expr, truth: bool, out: &mut Vec<String>) {
    use ast::ExprKind as E;
    match &cond.kind {
        E::Unary(UnOp::Not, inner) => facts(inner, !truth, out),
        // `x != none` is true, or `x == none` false, exactly when `x` is not `none`.
        E::Binary(op @ (BinOp::Eq | BinOp::Ne), a, b) if truth == (*op == BinOp::Ne) => {
            match (&a.kind, &b.kind) {
                (E::Name(x), E::None) | (E::None, E::Name(x)) => out.push(x.clone()),
                _ => {}
            }
        }
        // Both sides hold when `and` is true; neither when `or` is false.
        E::Binary(BinOp::And, a, b) if truth => {
            facts(a, true, out);
            facts(b, true, out);
        }
        E::Binary(BinOp::Or, a, b) if !truth => {
            facts(a, false, out);
            facts(b, false, out);
        }
        E::Block(b) if b.stmts.len() == 1 => {
            if let Some(ast::StmtKind::Expr(e)) = b.stmts.first().map(|s| &s.kind) {
                facts(e, truth, out);
            }
        }
        _ => {}
    }
}

/// Whether a statement always ends its block early: a `return`, `break` or `continue`, or an
/// `if` whose every branch does.
fn always_returns(s: &ast::Stmt) -> bool {
    match &s.kind {
        ast::StmtKind::Return(_) | ast::StmtKind::Break | ast::StmtKind::Continue => true,
        ast::StmtKind::Expr(e) => expr_always_returns(e),
        _ => false,
    }
}

pub(super) fn block_always_returns(b: &ast::Block) -> bool {
    b.stmts.iter().any(always_returns)
}

pub(super) fn expr_always_returns(e: &ast::Expr) -> bool {
    match &e.kind {
        ast::ExprKind::If(_, then, Some(els)) => {
            block_always_returns(then) && expr_always_returns(els)
        }
        ast::ExprKind::Block(b) => block_always_returns(b),
        _ => false,
    }
}

fn block_sets(b: &ast::Block, name: &str) -> bool {
    b.stmts.iter().any(|s| stmt_sets(s, name))
}

fn stmt_sets(s: &ast::Stmt, name: &str) -> bool {
    use ast::StmtKind as S;
    match &s.kind {
        S::Set(target, _, e) => {
            matches!(&target.kind, ast::ExprKind::Name(n) if n == name)
                || expr_sets(target, name)
                || expr_sets(e, name)
        }
        S::Let(_, _, e) | S::Shuffle(e) | S::Flip(e, _) | S::Say(e) | S::Eliminate(e) => {
            expr_sets(e, name)
        }
        S::Move(a, b, ..) => expr_sets(a, name) || expr_sets(b, name),
        S::Draw(a, b, c) => expr_sets(a, name) || expr_sets(b, name) || expr_sets(c, name),
        S::Reveal(a, b) => expr_sets(a, name) || b.as_ref().is_some_and(|b| expr_sets(b, name)),
        S::For(_, e, b) | S::Repeat(e, b) => expr_sets(e, name) || block_sets(b, name),
        S::RepeatUntil(n, c, b) => {
            expr_sets(n, name)
                || c.as_ref().is_some_and(|c| expr_sets(c, name))
                || block_sets(b, name)
        }
        S::Return(e) => e.as_ref().is_some_and(|e| expr_sets(e, name)),
        S::Secretly(b) | S::Step(_, b) => block_sets(b, name),
        S::Emit(_, args) => args.iter().any(|a| expr_sets(a, name)),
        S::Expr(e) => expr_sets(e, name),
        #[allow(unreachable_patterns)]
        _ => false,
    }
}

fn expr_sets(e: &ast::Expr, name: &str) -> bool {
    use ast::ExprKind as E;
    match &e.kind {
        E::If(c, then, els) => {
            expr_sets(c, name)
                || block_sets(then, name)
                || els.as_ref().is_some_and(|x| expr_sets(x, name))
        }
        E::Block(b) => block_sets(b, name),
        E::Match(s, arms) => expr_sets(s, name) || arms.iter().any(|a| expr_sets(&a.body, name)),
        E::Unary(_, x) | E::Field(x, _) => expr_sets(x, name),
        E::Binary(_, a, b) => expr_sets(a, name) || expr_sets(b, name),
        E::Index(x, keys) | E::Call(x, keys) => {
            expr_sets(x, name) || keys.iter().any(|k| expr_sets(k, name))
        }
        E::List(xs) | E::Tuple(xs) => xs.iter().any(|x| expr_sets(x, name)),
        E::Agg {
            source,
            filter,
            map,
            ..
        } => {
            expr_sets(source, name)
                || filter.as_ref().is_some_and(|f| expr_sets(f, name))
                || map.as_ref().is_some_and(|m| expr_sets(m, name))
        }
        // Card code runs in a frame of its own: it cannot set the caller's locals.
        E::FnLit(..) | E::TableLit(..) => false,
        E::Text(parts) => parts.iter().any(|p| match p {
            ast::StrPart::Expr(x) => expr_sets(x, name),
            ast::StrPart::Text(_) => false,
        }),
        E::Int(_) | E::Bool(_) | E::None | E::CardRef(_) | E::Name(_) => false,
    }
}
