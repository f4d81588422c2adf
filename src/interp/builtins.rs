//! Built-in functions.

use super::*;
use crate::diag::Span;
use crate::program::*;
use crate::rng;
use crate::value::{Items, Value};
use std::rc::Rc;

impl<'p> Interp<'p> {
    pub(super) fn builtin(&mut self, b: Builtin, args: &[Expr], span: Span) -> R<Value> {
        // Fast paths that need no list: the size or top of a zone.
        if let (Builtin::Len | Builtin::Top, [arg]) = (b, args) {
            match self.eval(arg)? {
                Value::Zone(z) => {
                    let zone = &self.state.zones[z as usize];
                    return Ok(if b == Builtin::Len {
                        Value::Int(zone.len() as i64)
                    } else {
                        zone.first().map(|&c| Value::Card(c)).unwrap_or(Value::None)
                    });
                }
                other => {
                    let l = self.as_list(&other, arg.span)?;
                    return Ok(if b == Builtin::Len {
                        Value::Int(l.len() as i64)
                    } else {
                        l.first().cloned().unwrap_or(Value::None)
                    });
                }
            }
        }
        // Builtins take at most four arguments (checked), so they fit on the stack.
        let mut buf: [Value; 4] = [Value::None, Value::None, Value::None, Value::None];
        for (i, a) in args.iter().enumerate().take(4) {
            if b == Builtin::Choose && i == 3 {
                // Labels are for showing: evaluated only when something shows them, and they
                // may not change the game.
                if self.record {
                    self.displaying += 1;
                    let v = self.eval(a);
                    self.displaying -= 1;
                    buf[i] = v?;
                }
                continue;
            }
            buf[i] = self.eval(a)?;
        }
        if self.displaying > 0 && changes_the_game(b) {
            return Err(self.not_while_displaying(span));
        }
        let given = if b == Builtin::Choose && !self.record {
            args.len().min(3)
        } else {
            args.len()
        };
        let vals = &buf[..given.min(4)];
        let arg_span = |i: usize| args.get(i).map(|a| a.span).unwrap_or(span);
        let int_at = |vals: &[Value], i: usize| -> R<i64> {
            match vals.get(i) {
                Some(Value::Int(n)) => Ok(*n),
                Some(other) => Err(rt(
                    arg_span(i),
                    format!("expected a number, found {}", other.type_name()),
                )),
                None => Err(rt(span, "missing argument")),
            }
        };
        let player_at = |vals: &[Value], i: usize| -> R<u32> {
            match vals.get(i) {
                Some(Value::Player(p)) => Ok(*p),
                Some(other) => Err(rt(
                    arg_span(i),
                    format!("expected a player, found {}", other.type_name()),
                )),
                None => Err(rt(span, "missing argument")),
            }
        };
        let text_at = |me: &Self, vals: &[Value], i: usize, default: &str| -> String {
            match vals.get(i) {
                Some(v) => me.show(v),
                None => default.to_string(),
            }
        };
        let list_at = |me: &Self, vals: &[Value], i: usize| -> R<Rc<Items>> {
            match vals.get(i) {
                Some(v) => me.as_list(v, arg_span(i)),
                None => Err(rt(span, "missing argument")),
            }
        };
        Ok(match b {
            Builtin::Len => Value::Int(list_at(self, vals, 0)?.len() as i64),
            Builtin::Top => list_at(self, vals, 0)?
                .first()
                .cloned()
                .unwrap_or(Value::None),
            Builtin::Reverse => {
                let mut l = list_at(self, vals, 0)?.to_vec();
                l.reverse();
                Value::list(l)
            }
            Builtin::Concat => {
                let mut l = list_at(self, vals, 0)?.to_vec();
                l.extend(list_at(self, vals, 1)?.iter().cloned());
                self.check_len(l.len(), span)?;
                Value::list(l)
            }
            Builtin::Flatten => {
                let mut out = Vec::new();
                for inner in list_at(self, vals, 0)?.iter() {
                    out.extend(self.as_list(inner, arg_span(0))?.iter().cloned());
                    self.check_len(out.len(), span)?;
                }
                Value::list(out)
            }
            Builtin::Rotate => {
                let mut l = list_at(self, vals, 0)?.to_vec();
                let k = int_at(vals, 1)?;
                if !l.is_empty() {
                    let k = k.rem_euclid(l.len() as i64) as usize;
                    l.rotate_left(k);
                }
                Value::list(l)
            }
            Builtin::Take | Builtin::Drop => {
                let l = list_at(self, vals, 0)?;
                let k = (int_at(vals, 1)?.max(0) as usize).min(l.len());
                Value::list(if b == Builtin::Take {
                    l[..k].to_vec()
                } else {
                    l[k..].to_vec()
                })
            }
            Builtin::Contains => {
                let l = list_at(self, vals, 0)?;
                Value::Bool(vals.get(1).is_some_and(|x| l.contains(x)))
            }
            Builtin::IndexOf => {
                let l = list_at(self, vals, 0)?;
                match vals.get(1).and_then(|x| l.iter().position(|y| y == x)) {
                    Some(i) => Value::Int(i as i64),
                    None => Value::None,
                }
            }
            Builtin::Abs => Value::Int(
                int_at(vals, 0)?
                    .checked_abs()
                    .ok_or_else(|| rt(span, "number overflow"))?,
            ),
            Builtin::Min2 => Value::Int(int_at(vals, 0)?.min(int_at(vals, 1)?)),
            Builtin::Max2 => Value::Int(int_at(vals, 0)?.max(int_at(vals, 1)?)),
            Builtin::Clamp => {
                let (x, lo, hi) = (int_at(vals, 0)?, int_at(vals, 1)?, int_at(vals, 2)?);
                if lo > hi {
                    return Err(rt(span, format!("clamp bounds {lo} > {hi}")));
                }
                Value::Int(x.clamp(lo, hi))
            }
            Builtin::Roll => {
                let n = int_at(vals, 0)?;
                if !(1..=1_000_000).contains(&n) {
                    return Err(rt(
                        arg_span(0),
                        format!("a die needs 1 to 1000000 sides, not {n}"),
                    ));
                }
                Value::Int(rng::below(&mut self.state.rng, n as u32) as i64 + 1)
            }
            Builtin::RollDice => {
                let (n, s) = (int_at(vals, 0)?, int_at(vals, 1)?);
                if !(0..=1000).contains(&n) || !(1..=1_000_000).contains(&s) {
                    return Err(rt(span, format!("cannot roll {n} dice of {s} sides")));
                }
                let mut t = 0;
                for _ in 0..n {
                    t += rng::below(&mut self.state.rng, s as u32) as i64 + 1;
                }
                Value::Int(t)
            }
            Builtin::Shuffled => {
                let mut l = list_at(self, vals, 0)?.to_vec();
                rng::shuffle(&mut self.state.rng, &mut l);
                Value::list(l)
            }
            Builtin::PickRandom => {
                let l = list_at(self, vals, 0)?;
                if l.is_empty() {
                    Value::None
                } else {
                    l[rng::below(&mut self.state.rng, l.len() as u32) as usize].clone()
                }
            }
            Builtin::ZoneOf => match vals.first() {
                Some(Value::Card(c)) => match self.state.card_zone[*c as usize] {
                    NOWHERE => Value::None,
                    z => Value::Zone(z),
                },
                _ => Value::None,
            },
            Builtin::Text => Value::text(&text_at(self, vals, 0, "")),
            Builtin::Seat => Value::Int(player_at(vals, 0)? as i64),
            Builtin::Next => Value::Player((player_at(vals, 0)? + 1) % self.state.n_players.max(1)),
            Builtin::FinishGame => {
                self.state.finished = true;
                Value::None
            }
            Builtin::Choose => {
                let p = player_at(vals, 0)?;
                let options = list_at(self, vals, 1)?;
                let prompt = text_at(self, vals, 2, "Choose");
                let labels = match vals.get(3) {
                    Some(v) => {
                        let l = self.as_list(v, arg_span(3))?;
                        if l.len() != options.len() {
                            return Err(rt(
                                arg_span(3),
                                format!("{} labels for {} options", l.len(), options.len()),
                            ));
                        }
                        Some(l)
                    }
                    None => None,
                };
                match self.decide_labelled(
                    p,
                    &options,
                    labels.as_deref().map(|l| l.as_slice()),
                    &prompt,
                    span,
                )? {
                    Some(i) => options[i].clone(),
                    None => Value::None,
                }
            }
            Builtin::ChooseMany => {
                let p = player_at(vals, 0)?;
                let mut options = list_at(self, vals, 1)?.to_vec();
                let k = int_at(vals, 2)?.max(0) as usize;
                let prompt = text_at(self, vals, 3, "Choose");
                let mut out = Vec::new();
                for n in 0..k.min(options.len()) {
                    let pr = format!("{prompt} ({} of {k})", n + 1);
                    match self.decide(p, &options, &pr, span)? {
                        Some(i) => out.push(options.remove(i)),
                        None => break,
                    }
                }
                Value::list(out)
            }
            Builtin::ChooseNumber => {
                let p = player_at(vals, 0)?;
                let (lo, hi) = (int_at(vals, 1)?, int_at(vals, 2)?);
                if hi < lo || (hi - lo) as u64 >= self.limits.max_options as u64 {
                    return Err(rt(span, format!("cannot offer the numbers {lo}..{hi}")));
                }
                let options: Vec<Value> = (lo..=hi).map(Value::Int).collect();
                let prompt = text_at(self, vals, 3, "Choose a number");
                match self.decide(p, &options, &prompt, span)? {
                    Some(i) => options[i].clone(),
                    None => Value::None,
                }
            }
            Builtin::Ask => {
                let p = player_at(vals, 0)?;
                let prompt = text_at(self, vals, 1, "Yes or no?");
                let options = [Value::Bool(true), Value::Bool(false)];
                Value::Bool(self.decide(p, &options, &prompt, span)? == Some(0))
            }
            Builtin::ChoosePlayer => {
                let p = player_at(vals, 0)?;
                let prompt = text_at(self, vals, 1, "Choose a player");
                let options: Vec<Value> = (0..self.state.n_players).map(Value::Player).collect();
                match self.decide(p, &options, &prompt, span)? {
                    Some(i) => options[i].clone(),
                    None => Value::None,
                }
            }
            Builtin::Lookup => {
                // A table value: a list of (first key, last key, value); the first entry
                // covering the key wins.
                let entries = list_at(self, vals, 0)?;
                let key = int_at(vals, 1)?;
                let mut found = Value::None;
                for e in entries.iter() {
                    if let Value::Tuple(t) = e {
                        if let (Some(Value::Int(a)), Some(Value::Int(b)), Some(v)) =
                            (t.first(), t.get(1), t.get(2))
                        {
                            if *a <= key && key <= *b {
                                found = v.clone();
                                break;
                            }
                        }
                    }
                }
                found
            }
            Builtin::Allocate => {
                let p = player_at(vals, 0)?;
                let total = int_at(vals, 1)?;
                let cats = list_at(self, vals, 2)?;
                let prompt = text_at(self, vals, 3, "Allocate");
                if total < 0 || total as u64 > self.limits.max_options as u64 {
                    return Err(rt(arg_span(1), format!("cannot allocate {total} points")));
                }
                let mut left = total;
                let mut out = Vec::new();
                for (i, c) in cats.iter().enumerate() {
                    if i + 1 == cats.len() {
                        out.push(Value::Int(left));
                        break;
                    }
                    let options: Vec<Value> = (0..=left).map(Value::Int).collect();
                    let pr = format!("{prompt}: how many to {} ({left} left)", self.show(c));
                    let n = match self.decide(p, &options, &pr, span)? {
                        Some(i) => i as i64,
                        None => 0,
                    };
                    left -= n;
                    out.push(Value::Int(n));
                }
                Value::list(out)
            }
        })
    }
}


/// Builtins that change the game: not allowed while working out text to show.
pub(super) fn changes_the_game(b: Builtin) -> bool {
    matches!(
        b,
        Builtin::Roll
            | Builtin::RollDice
            | Builtin::Shuffled
            | Builtin::PickRandom
            | Builtin::FinishGame
            | Builtin::Choose
            | Builtin::ChooseMany
            | Builtin::ChooseNumber
            | Builtin::Ask
            | Builtin::ChoosePlayer
            | Builtin::Allocate
    )
}
