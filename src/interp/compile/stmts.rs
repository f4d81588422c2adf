//! Statements and blocks compiled. Every statement charges its step first, as the walk does;
//! the ones that change the game refuse to run inside a `say` or a choice's labels.

use super::aggs::CSource;
use super::exprs::{cexpr, expr};
use super::keys::VarPlace;
use super::{code, Code};
use crate::ast::BinOp;
use crate::interp::exprs::Source;
use crate::interp::{signal, RETURN_CODE};
use crate::program::*;
use crate::value::Value;

pub(in crate::interp) fn block(b: &Block) -> Code {
    let mut stmts: Vec<Code> = b.stmts.iter().map(stmt).collect();
    if stmts.len() <= 1 {
        return match stmts.pop() {
            Some(s) => s,
            None => code(|_| Ok(Value::None)),
        };
    }
    // All but the last for their effect; the last gives the block's value.
    let last = stmts.pop();
    code(move |me| {
        for s in &stmts {
            s(me)?;
        }
        match &last {
            Some(s) => s(me),
            None => Ok(Value::None),
        }
    })
}

/// Refuse a change to the game while displaying.
macro_rules! changes {
    ($me:ident, $span:ident) => {
        if $me.displaying > 0 {
            return Err($me.not_while_displaying($span));
        }
    };
}

fn stmt(s: &Stmt) -> Code {
    let span = s.span;
    match &s.kind {
        StmtKind::Let(slot, e) => {
            let (slot, at, e) = (*slot, e.span, expr(e));
            code(move |me| {
                me.tick(span)?;
                let v = e(me)?;
                me.set_local(slot, v);
                me.set_origin(slot, at);
                Ok(Value::None)
            })
        }
        StmtKind::Assign(Place::Local(slot), op, e) => {
            let (slot, op, e) = (*slot, *op, expr(e));
            code(move |me| {
                me.tick(span)?;
                let v = e(me)?;
                me.assign_local(slot, op, v, span)?;
                Ok(Value::None)
            })
        }
        StmtKind::Assign(Place::Var(id, keys), op, e) => {
            let (id, place, op, e) = (*id, VarPlace::new(*id, keys, span), *op, expr(e));
            code(move |me| {
                me.tick(span)?;
                changes!(me, span);
                let v = e(me)?;
                let slot = place.slot(me)?;
                me.assign_var(id, slot, op, v, span)?;
                Ok(Value::None)
            })
        }
        StmtKind::Assign(Place::Field(card, sym), op, e) => {
            let (card, sym, op, e) = (cexpr(card), *sym, *op, expr(e));
            code(move |me| {
                me.tick(span)?;
                changes!(me, span);
                let v = e(me)?;
                let c = me.card_place(&card)?;
                me.assign_field(c, sym, op, v, span)?;
                Ok(Value::None)
            })
        }
        StmtKind::Move(what, to, pos) => {
            let (ws, pos) = (what.span, *pos);
            let (what, to) = (expr(what), cexpr(to));
            code(move |me| {
                me.tick(span)?;
                changes!(me, span);
                let v = what(me)?;
                let dest = me.zone_slot(&to)?;
                me.move_value(v, ws, dest, pos, to.span)?;
                Ok(Value::None)
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
            let (slot, lo, hi, body) = (*slot, cexpr(lo), cexpr(hi), block(body));
            code(move |me| {
                me.tick(span)?;
                let (lo, hi) = (me.int(&lo)?, me.int(&hi)?);
                let mut n = lo;
                while n <= hi {
                    me.tick(span)?;
                    me.set_local(slot, Value::Int(n));
                    body(me)?;
                    n = match n.checked_add(1) {
                        Some(n) => n,
                        None => break,
                    };
                }
                Ok(Value::None)
            })
        }
        StmtKind::For(slot, src, body) => {
            let (slot, src, body) = (*slot, CSource::new(src), block(body));
            code(move |me| {
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
                    body(me)?;
                }
                me.recycle_source(items);
                Ok(Value::None)
            })
        }
        StmtKind::Repeat(n, body) => {
            let (n, body) = (cexpr(n), block(body));
            code(move |me| {
                me.tick(span)?;
                let n = me.int(&n)?;
                for _ in 0..n.max(0) {
                    me.tick(span)?;
                    body(me)?;
                }
                Ok(Value::None)
            })
        }
        StmtKind::RepeatUntil(n, cond, body) => {
            let (n, cond, body) = (cexpr(n), cexpr(cond), block(body));
            code(move |me| {
                me.tick(span)?;
                let n = me.int(&n)?;
                for _ in 0..n.max(0) {
                    me.tick(span)?;
                    if me.boolean(&cond)? {
                        break;
                    }
                    body(me)?;
                }
                Ok(Value::None)
            })
        }
        StmtKind::Say(e) => {
            // The tree too: each player's view of the line is worked out from it.
            let tree = e.clone();
            let e = expr(e);
            code(move |me| {
                me.tick(span)?;
                // Only evaluated when something shows it, so it may not change the game.
                if me.record {
                    me.displaying += 1;
                    let v = e(me);
                    me.displaying -= 1;
                    me.record_say(&v?, &tree);
                }
                Ok(Value::None)
            })
        }
        StmtKind::Return(e) => {
            let e = e.as_ref().map(expr);
            code(move |me| {
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
        StmtKind::Expr(e) => {
            let e = expr(e);
            code(move |me| {
                me.tick(span)?;
                e(me)
            })
        }
        StmtKind::Secretly(b) => {
            let body = block(b);
            code(move |me| {
                me.tick(span)?;
                me.secret_depth += 1;
                let r = body(me);
                me.secret_depth -= 1;
                r?;
                Ok(Value::None)
            })
        }
        StmtKind::Step(name, b) => {
            let (name, body) = (name.clone(), block(b));
            code(move |me| {
                me.tick(span)?;
                me.emit(|_| crate::events::Event::Step { step: name.clone() });
                body(me)?;
                Ok(Value::None)
            })
        }
        StmtKind::Draw(n, from, to) => {
            let (n, from, to) = (cexpr(n), cexpr(from), cexpr(to));
            code(move |me| {
                me.tick(span)?;
                changes!(me, span);
                me.draw(&n, &from, &to)?;
                Ok(Value::None)
            })
        }
        StmtKind::Shuffle(z) => {
            let z = cexpr(z);
            code(move |me| {
                me.tick(span)?;
                changes!(me, span);
                me.shuffle(&z)?;
                Ok(Value::None)
            })
        }
        StmtKind::Flip(what, dir) => {
            let (ws, what, dir) = (what.span, expr(what), *dir);
            code(move |me| {
                me.tick(span)?;
                changes!(me, span);
                let v = what(me)?;
                me.flip(v, dir, ws)?;
                Ok(Value::None)
            })
        }
        // The rare statements walk their own subtree.
        StmtKind::Reveal(..) | StmtKind::EndGame | StmtKind::Eliminate(_) | StmtKind::Emit(..) => {
            let s = s.clone();
            code(move |me| me.exec(&s))
        }
    }
}
