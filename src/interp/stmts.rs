//! Statements: let, set, move, draw, shuffle, flip, reveal, loops, say, return.

use super::*;
use crate::ast::{AssignOp, EventKind, Position};
use crate::diag::Span;
use crate::events::Event;
use crate::program::*;
use crate::rng;
use crate::value::Value;

impl<'p> Interp<'p> {
    // ================================================================ statements

    pub(super) fn exec_block(&mut self, b: &Block) -> R<Value> {
        let mut last = Value::None;
        for s in &b.stmts {
            last = self.exec(s)?;
        }
        Ok(last)
    }

    pub(super) fn exec(&mut self, s: &Stmt) -> R<Value> {
        self.tick(s.span)?;
        if self.displaying > 0 {
            let changes = match &s.kind {
                StmtKind::Assign(Place::Local(_), _, _) => false,
                StmtKind::Assign(..)
                | StmtKind::Move(..)
                | StmtKind::Draw(..)
                | StmtKind::Shuffle(_)
                | StmtKind::Flip(..)
                | StmtKind::Reveal(_)
                | StmtKind::EndGame
                | StmtKind::Eliminate(_)
                | StmtKind::Emit(..) => true,
                _ => false,
            };
            if changes {
                return Err(self.not_while_displaying(s.span));
            }
        }
        match &s.kind {
            StmtKind::Let(slot, e) => {
                let v = self.eval(e)?;
                self.set_local(*slot, v);
                self.set_origin(*slot, e.span);
            }
            StmtKind::Assign(place, op, e) => {
                let v = self.eval(e)?;
                self.assign(place, *op, v, s.span)?;
            }
            StmtKind::Move(what, to, pos) => {
                let v = self.eval(what)?;
                let dest = self.zone_slot(to)?;
                if let Value::Card(c) = v {
                    self.move_cards(&[c], dest, *pos, to.span)?;
                } else {
                    let mut cards = Vec::new();
                    self.collect_cards(&v, &mut cards, what.span)?;
                    self.move_cards(&cards, dest, *pos, to.span)?;
                }
            }
            StmtKind::Draw(n, from, to) => {
                let n = self.int(n)?;
                let src = self.zone_slot(from)?;
                let dest = self.zone_slot(to)?;
                let take = (n.max(0) as usize).min(self.state.zones[src as usize].len());
                let cards: Vec<u32> = self.state.zones[src as usize][..take].to_vec();
                self.move_cards(&cards, dest, Position::Bottom, to.span)?;
            }
            StmtKind::Shuffle(z) => {
                let slot = self.zone_slot(z)?;
                let mut cards = std::mem::take(&mut self.state.zones[slot as usize]);
                rng::shuffle(&mut self.state.rng, &mut cards);
                self.state.zones[slot as usize] = cards;
                self.emit(|me| Event::Shuffle {
                    zone: me.zone_name(slot),
                });
            }
            StmtKind::Flip(what, dir) => {
                let cards = self.cards_of(what)?;
                for c in cards {
                    let now = match dir {
                        Some(up) => *up,
                        None => !self.state.face_up[c as usize],
                    };
                    self.state.face_up[c as usize] = now;
                    self.emit(|me| Event::Flip {
                        card: me.card_name(c),
                        face_up: now,
                    });
                    let prog = self.prog;
                    for t in &prog.triggers {
                        if t.event == EventKind::Flip {
                            self.run_trigger(t, &[Value::Card(c)])?;
                        }
                    }
                }
            }
            StmtKind::Reveal(what) => {
                let v = self.eval(what)?;
                let items = self.as_list(&v, what.span)?;
                self.emit(|me| Event::Reveal {
                    cards: items.iter().map(|v| me.show(v)).collect(),
                });
            }
            StmtKind::For(slot, src, body) => {
                // `for` walks a snapshot: the body may move the cards it iterates over.
                let items = match self.eval_source(src)? {
                    Source::Zone(z) => Source::Cards(self.state.zones[z as usize].clone()),
                    other => other,
                };
                for i in 0..items.len(&self.state) {
                    let Some(item) = items.get(&self.state, i) else {
                        break;
                    };
                    self.tick(s.span)?;
                    self.set_local(*slot, item);
                    self.exec_block(body)?;
                }
            }
            StmtKind::Repeat(n, body) => {
                let n = self.int(n)?;
                for _ in 0..n.max(0) {
                    self.tick(s.span)?;
                    self.exec_block(body)?;
                }
            }
            StmtKind::Say(e) => {
                // Only evaluated when something shows it, so it may not change the game.
                if self.record {
                    self.displaying += 1;
                    let v = self.eval(e);
                    self.displaying -= 1;
                    let text = self.show(&v?);
                    self.events.push(Event::Say { text });
                }
            }
            StmtKind::Return(e) => {
                let v = match e {
                    Some(e) => self.eval(e)?,
                    None => Value::None,
                };
                self.returning = Some(v);
                // The signal carries no text: `call_fn` catches it by its code.
                return Err(signal(RETURN_CODE));
            }
            StmtKind::RepeatUntil(n, cond, body) => {
                let n = self.int(n)?;
                for _ in 0..n.max(0) {
                    self.tick(s.span)?;
                    if self.boolean(cond)? {
                        break;
                    }
                    self.exec_block(body)?;
                }
            }
            StmtKind::EndGame => {
                self.state.finished = true;
                self.emit(|_| Event::GameEnded);
                return Err(signal(END_CODE));
            }
            StmtKind::Eliminate(p) => {
                let p = match self.eval(p)? {
                    Value::Player(p) => p,
                    other => {
                        return Err(rt(
                            s.span,
                            format!("`eliminate` needs a player, found {}", other.type_name()),
                        ))
                    }
                };
                if let Some(out) = self.state.eliminated.get_mut(p as usize) {
                    if !*out {
                        *out = true;
                        self.emit(|_| Event::Eliminated {
                            player: format!("P{}", p + 1),
                        });
                    }
                }
            }
            StmtKind::Emit(ev, args) => {
                let mut vals = Vec::with_capacity(args.len());
                for a in args {
                    vals.push(self.eval(a)?);
                }
                let prog = self.prog;
                for t in &prog.triggers {
                    if t.event == EventKind::Custom && t.target == Some(*ev) {
                        self.run_trigger(t, &vals)?;
                    }
                }
            }
            StmtKind::Secretly(b) => {
                self.secret_depth += 1;
                let r = self.exec_block(b);
                self.secret_depth -= 1;
                r?;
            }
            StmtKind::Step(name, b) => {
                let step = name.clone();
                self.emit(|_| Event::Step { step });
                self.exec_block(b)?;
            }
            StmtKind::Expr(e) => return self.eval(e),
        }
        Ok(Value::None)
    }

    pub(super) fn assign(&mut self, place: &Place, op: AssignOp, v: Value, span: Span) -> R<()> {
        let combine = |old: &Value, v: Value| -> R<Value> {
            match op {
                AssignOp::Set => Ok(v),
                AssignOp::Add | AssignOp::Sub => match (old, &v) {
                    (Value::Int(a), Value::Int(b)) => {
                        let r = if op == AssignOp::Add {
                            a.checked_add(*b)
                        } else {
                            a.checked_sub(*b)
                        };
                        r.map(Value::Int).ok_or_else(|| rt(span, "number overflow"))
                    }
                    _ => Err(rt(
                        span,
                        format!("cannot add {} to {}", v.type_name(), old.type_name()),
                    )),
                },
            }
        };
        match place {
            Place::Local(slot) => {
                let old = self.local(*slot);
                let nv = combine(&old, v)?;
                self.set_local(*slot, nv);
                self.set_origin(*slot, span);
            }
            Place::Var(id, keys) => {
                let slot = self.var_slot(*id, keys, span)?;
                let old = self.state.vars[slot].clone();
                let mut nv = combine(&old, v)?;
                if let (Some((lo, hi)), Value::Int(x)) = (self.prog.vars[*id as usize].bounds, &nv)
                {
                    nv = Value::Int((*x).clamp(lo, hi));
                }
                self.state.vars[slot] = nv;
            }
            Place::Field(card, sym) => {
                let c = match self.eval(card)? {
                    Value::Card(c) => c,
                    other => {
                        return Err(rt(
                            card.span,
                            format!("expected a card, found {}", other.type_name()),
                        ))
                    }
                };
                let prog = self.prog;
                let cd = &prog.cards[c as usize];
                let kd = &prog.kinds[cd.kind as usize];
                match kd.slot_of.get(*sym as usize).copied().flatten() {
                    Some((true, i)) => {
                        let idx = (self.state.card_var_base[c as usize] + i) as usize;
                        let old = self.state.card_vars[idx].clone();
                        self.state.card_vars[idx] = combine(&old, v)?;
                    }
                    _ => {
                        return Err(rt(
                            span,
                            format!(
                                "card `{}` ({}) has no var field `{}`",
                                cd.id, kd.name, prog.symbols[*sym as usize]
                            ),
                        ))
                    }
                }
            }
        }
        Ok(())
    }

    pub fn move_cards(&mut self, cards: &[u32], dest: u32, pos: Position, span: Span) -> R<()> {
        let prog = self.prog;
        let dest_def = self.zone_def_of_slot(dest);
        if let Some(kind) = prog.zones[dest_def as usize].kind {
            for &c in cards {
                if prog.cards[c as usize].kind != kind {
                    return Err(rt(
                        span,
                        format!(
                            "card `{}` is a {}, but zone `{}` holds only {} cards",
                            prog.cards[c as usize].id,
                            prog.kinds[prog.cards[c as usize].kind as usize].name,
                            prog.zones[dest_def as usize].name,
                            prog.kinds[kind as usize].name
                        ),
                    ));
                }
            }
        }
        for (i, &c) in cards.iter().enumerate() {
            let from = self.state.card_zone[c as usize];
            if from != NOWHERE {
                let z = &mut self.state.zones[from as usize];
                if let Some(p) = z.iter().position(|&x| x == c) {
                    z.remove(p);
                }
            }
            let z = &mut self.state.zones[dest as usize];
            match pos {
                Position::Bottom => z.push(c),
                Position::Top => z.insert(i.min(z.len()), c),
            }
            self.state.card_zone[c as usize] = dest;
        }
        if !cards.is_empty() {
            self.emit(|me| Event::Move {
                cards: cards.iter().map(|&c| me.card_name(c)).collect(),
                to: me.zone_name(dest),
            });
        }
        if !self.enter_triggers[dest_def as usize].is_empty() {
            let triggers = self.enter_triggers[dest_def as usize].clone();
            // The card, then the keys of the zone it entered (`on enter hand[p] as c`).
            let mut bound = vec![Value::None];
            bound.extend(self.view().zone_keys(dest));
            for &c in cards {
                bound[0] = Value::Card(c);
                for &t in &triggers {
                    let td = &prog.triggers[t];
                    self.run_trigger(td, &bound)?;
                }
            }
        }
        Ok(())
    }
}
