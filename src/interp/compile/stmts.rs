//! Statements and blocks compiled. Every statement charges its step first, as the walk does;
//! the ones that change the game refuse to run inside a `say` or a choice's labels.

use super::aggs::CSource;
use super::conds::cond;
use super::exprs::{cexpr, expr, Opnd};
use super::keys::VarPlace;
use super::{code, Code};
use crate::ast::BinOp;
use crate::interp::exprs::Source;
use crate::interp::{signal, Interp, BREAK_CODE, CONTINUE_CODE, R, RETURN_CODE};
use crate::program::*;
use crate::value::Value;

/// A compiled statement, run for its effect: nothing to hand back but an error or a signal, so
/// it returns in a register and its caller has no value to look at or drop.
pub(in crate::interp) type SCode = Box<dyn for<'a> Fn(&mut Interp<'a>) -> R<()>>;

/// Box a closure as `SCode`.
fn scode<F>(f: F) -> SCode
where
    F: for<'a> Fn(&mut Interp<'a>) -> R<()> + 'static,
{
    Box::new(f)
}

/// A block's statements but the last, for their effect, and the last, for the block's value
/// (`none` for an empty block).
pub(super) fn block_parts(b: &Block) -> (Vec<SCode>, Code) {
    let Some((last, rest)) = b.stmts.split_last() else {
        return (Vec::new(), code(|_| Ok(Value::None)));
    };
    let (rest, _lets) = super::facts::in_order(&b.stmts, rest.len(), stmt);
    (rest, value_stmt(last))
}

/// A block for its value: every statement but the last for its effect, the last for the value.
pub(in crate::interp) fn block(b: &Block) -> Code {
    if b.stmts.is_empty() {
        return code(|_| Ok(Value::None));
    }
    let (rest, last) = block_parts(b);
    if rest.is_empty() {
        return last;
    }
    code(move |me| {
        for s in &rest {
            s(me)?;
        }
        last(me)
    })
}

/// A block for its effect (a loop's body, a branch of an `if` statement).
pub(in crate::interp) fn sblock(b: &Block) -> SCode {
    let (mut stmts, lets) = super::facts::in_order(&b.stmts, b.stmts.len(), stmt);
    drop(lets);
    if stmts.len() <= 1 {
        return match stmts.pop() {
            Some(s) => s,
            None => scode(|_| Ok(())),
        };
    }
    scode(move |me| {
        for s in &stmts {
            s(me)?;
        }
        Ok(())
    })
}

/// The last statement of a block, for its value: an expression's, or `none`.
fn value_stmt(s: &Stmt) -> Code {
    let span = s.span;
    match &s.kind {
        // A block's last value is often a constant or a local (`{ true }`, `{ n }`): no closure
        // of its own.
        StmtKind::Expr(Expr {
            kind: ExprKind::Const(v),
            ..
        }) if v.depth() == 0 => {
            let v = v.clone();
            code(move |me| {
                me.tick(span)?;
                Ok(v.clone())
            })
        }
        StmtKind::Expr(Expr {
            kind: ExprKind::Local(slot),
            ..
        }) => {
            let slot = *slot;
            code(move |me| {
                me.tick(span)?;
                Ok(me.local(slot))
            })
        }
        StmtKind::Expr(e) => super::exprs::ticked(e, span),
        _ => {
            let s = stmt(s);
            code(move |me| {
                s(me)?;
                Ok(Value::None)
            })
        }
    }
}

/// An expression run for its effect, as a statement is (an `if` without its value, a block):
/// branches are blocks for their effect.
fn effect(e: &Expr) -> SCode {
    match &e.kind {
        ExprKind::Block(b) => sblock(b),
        ExprKind::If(c, then, els) => {
            let test = cond(c);
            let then = super::facts::branch(c, true, || sblock(then));
            let els = super::facts::branch(c, false, || els.as_deref().map(effect));
            let c = test;
            match els {
                Some(els) => scode(move |me| if c.holds(me)? { then(me) } else { els(me) }),
                None => scode(move |me| if c.holds(me)? { then(me) } else { Ok(()) }),
            }
        }
        _ => {
            let e = expr(e);
            scode(move |me| {
                e(me)?;
                Ok(())
            })
        }
    }
}

/// Refuse a change to the game while displaying.
macro_rules! changes {
    ($me:ident, $span:ident) => {
        if $me.displaying > 0 {
            return Err($me.not_while_displaying($span));
        }
    };
}

pub(super) fn stmt(s: &Stmt) -> SCode {
    let span = s.span;
    match &s.kind {
        StmtKind::Let(slot, e) => {
            // Of an inlined call: the call runs in the `let`'s closure.
            if let ExprKind::Call(f, args) = &e.kind {
                if let Some(call) = super::calls::inlined(*f, args, e.span) {
                    return call.let_local(*slot, e.span, span);
                }
            }
            let (slot, at, e) = (*slot, e.span, expr(e));
            scode(move |me| {
                me.tick(span)?;
                let v = e(me)?;
                me.set_local(slot, v);
                me.set_origin(slot, at);
                Ok(())
            })
        }
        StmtKind::Assign(Place::Local(slot), op, e) => {
            let (slot, op, e) = (*slot, *op, expr(e));
            scode(move |me| {
                me.tick(span)?;
                let v = e(me)?;
                me.assign_local(slot, op, v, span)?;
                Ok(())
            })
        }
        StmtKind::Assign(Place::Var(id, keys), op, e) => {
            let (id, place, op, e) = (*id, VarPlace::new(*id, keys, span), *op, expr(e));
            scode(move |me| {
                me.tick(span)?;
                changes!(me, span);
                let v = e(me)?;
                let slot = place.slot(me)?;
                me.assign_var(id, slot, op, v, span)?;
                Ok(())
            })
        }
        StmtKind::Assign(Place::Field(card, sym), op, e) => {
            let (card, sym, op, e) = (cexpr(card), *sym, *op, expr(e));
            scode(move |me| {
                me.tick(span)?;
                changes!(me, span);
                let v = e(me)?;
                let c = me.card_place(&card)?;
                me.assign_field(c, sym, op, v, span)?;
                Ok(())
            })
        }
        StmtKind::Move(what, to, pos, Some(up)) => {
            let (ws, pos, up) = (what.span, *pos, *up);
            let (what, to) = (Opnd::new(what), cexpr(to));
            scode(move |me| {
                me.tick(span)?;
                changes!(me, span);
                let v = what.ev(me)?;
                let dest = me.zone_slot(&to)?;
                me.move_faced(v, ws, dest, pos, up, to.span)?;
                Ok(())
            })
        }
        StmtKind::Move(what, to, pos, None) => {
            let (ws, pos) = (what.span, *pos);
            // To a zone slot with compiled keys (`supporters[row, side]`): the slot worked out
            // directly, no zone value made.
            if let ExprKind::Zone(id, keys) = &to.kind {
                if let Some(place) = super::keys::ZonePlace::new(*id, keys) {
                    let (what, at) = (Opnd::new(what), to.span);
                    return scode(move |me| {
                        me.tick(span)?;
                        changes!(me, span);
                        let v = what.ev(me)?;
                        let dest = place.slot(me)?;
                        me.move_value(v, ws, dest, pos, at)?;
                        Ok(())
                    });
                }
            }
            let (what, to) = (Opnd::new(what), cexpr(to));
            scode(move |me| {
                me.tick(span)?;
                changes!(me, span);
                let v = what.ev(me)?;
                let dest = me.zone_slot(&to)?;
                me.move_value(v, ws, dest, pos, to.span)?;
                Ok(())
            })
        }
        StmtKind::For(
            slot,
            Expr {
                kind: ExprKind::Binary(BinOp::Range, lo, hi),
                ..
            },
            body,
        ) => {
            // Over a range: the numbers themselves, no source.
            let (slot, lo, hi, body) = (*slot, cexpr(lo), cexpr(hi), sblock(body));
            scode(move |me| {
                me.tick(span)?;
                let (lo, hi) = (me.int(&lo)?, me.int(&hi)?);
                let mut n = lo;
                while n <= hi {
                    me.tick(span)?;
                    me.set_local(slot, Value::Int(n));
                    if let Err(d) = body(me) {
                        if me.caught(d)? {
                            break;
                        }
                    }
                    n = match n.checked_add(1) {
                        Some(n) => n,
                        None => break,
                    };
                }
                Ok(())
            })
        }
        StmtKind::For(slot, src, body) => {
            let (slot, src, body) = (*slot, CSource::new(src), sblock(body));
            scode(move |me| {
                me.tick(span)?;
                // `for` walks a snapshot: the body may move the cards it iterates over.
                let items = match src.eval(me)? {
                    Source::Zone(z) => {
                        Source::Cards(me.state.zones.get(z as usize).cloned().unwrap_or_default())
                    }
                    other => other,
                };
                for i in 0..items.len(&me.state) {
                    let Some(item) = items.get(&me.state, i) else {
                        break;
                    };
                    me.tick(span)?;
                    me.set_local(slot, item);
                    if let Err(d) = body(me) {
                        if me.caught(d)? {
                            break;
                        }
                    }
                }
                me.recycle_source(items);
                Ok(())
            })
        }
        StmtKind::Repeat(n, body) => {
            let (n, body) = (cexpr(n), sblock(body));
            scode(move |me| {
                me.tick(span)?;
                let n = me.int(&n)?;
                for _ in 0..n.max(0) {
                    me.tick(span)?;
                    if let Err(d) = body(me) {
                        if me.caught(d)? {
                            break;
                        }
                    }
                }
                Ok(())
            })
        }
        StmtKind::RepeatUntil(n, until, body) => {
            let (n, until, body) = (cexpr(n), cond(until), sblock(body));
            scode(move |me| {
                me.tick(span)?;
                let n = me.int(&n)?;
                for _ in 0..n.max(0) {
                    me.tick(span)?;
                    if until.holds(me)? {
                        break;
                    }
                    if let Err(d) = body(me) {
                        if me.caught(d)? {
                            break;
                        }
                    }
                }
                Ok(())
            })
        }
        StmtKind::Break => scode(move |me| {
            me.tick(span)?;
            Err(me.jump(BREAK_CODE))
        }),
        StmtKind::Continue => scode(move |me| {
            me.tick(span)?;
            Err(me.jump(CONTINUE_CODE))
        }),
        StmtKind::Say(e) => {
            // The tree too: each player's view of the line is worked out from it.
            let tree = e.clone();
            let e = expr(e);
            scode(move |me| {
                me.tick(span)?;
                // Only evaluated when something shows it, so it may not change the game.
                if me.record {
                    me.displaying += 1;
                    let v = e(me);
                    me.displaying -= 1;
                    me.record_say(&v?, &tree);
                }
                Ok(())
            })
        }
        StmtKind::Return(e) => {
            let e = e.as_ref().map(expr);
            scode(move |me| {
                me.tick(span)?;
                let v = match &e {
                    Some(e) => e(me)?,
                    None => Value::None,
                };
                me.returning = Some(v);
                // The signal carries no text: the call catches it by its code.
                Err(me
                    .spare_return
                    .take()
                    .unwrap_or_else(|| signal(RETURN_CODE)))
            })
        }
        // An expression for its effect (a call, an `if`): its value is dropped.
        StmtKind::Expr(e) => {
            let e = effect(e);
            scode(move |me| {
                me.tick(span)?;
                e(me)
            })
        }
        StmtKind::Secretly(b) => {
            let body = sblock(b);
            scode(move |me| {
                me.tick(span)?;
                me.secret_depth += 1;
                let r = body(me);
                me.secret_depth -= 1;
                r?;
                Ok(())
            })
        }
        StmtKind::Step(name, b) => {
            let (name, body) = (name.clone(), sblock(b));
            scode(move |me| {
                me.tick(span)?;
                me.emit(|_| crate::events::Event::Step { step: name.clone() });
                body(me)?;
                Ok(())
            })
        }
        StmtKind::Draw(n, from, to) => {
            let (n, from, to) = (cexpr(n), cexpr(from), cexpr(to));
            scode(move |me| {
                me.tick(span)?;
                changes!(me, span);
                me.draw(&n, &from, &to)?;
                Ok(())
            })
        }
        StmtKind::Shuffle(z) => {
            let z = cexpr(z);
            scode(move |me| {
                me.tick(span)?;
                changes!(me, span);
                me.shuffle(&z)?;
                Ok(())
            })
        }
        StmtKind::Flip(what, dir) => {
            let (ws, what, dir) = (what.span, Opnd::new(what), *dir);
            scode(move |me| {
                me.tick(span)?;
                changes!(me, span);
                let v = what.ev(me)?;
                me.flip(v, dir, ws)?;
                Ok(())
            })
        }
        // The rare statements walk their own subtree.
        StmtKind::Reveal(..) | StmtKind::EndGame | StmtKind::Eliminate(_) | StmtKind::Emit(..) => {
            let s = s.clone();
            scode(move |me| me.exec(&s).map(drop))
        }
    }
}
