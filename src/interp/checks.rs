//! Card rules (`check` / `warn`) run by `rules check`, each card's `describe` line, and the size
//! of a game state.

use super::*;
use crate::diag::Diag;
use crate::limits::Limits;
use crate::program::*;
use crate::value::Value;

/// Run the program's `check` / `warn` rules over its cards. Each failure is a diagnostic
/// labelled at the card field it names (`at field`), or at the card.
pub fn run_checks(prog: &Program, limits: Limits) -> Vec<Diag> {
    let mut out = Vec::new();
    if prog.checks.is_empty() {
        return out;
    }
    let n = prog.game.min_players.max(1);
    let mut interp = match Interp::new(prog, n, 0, Vec::new(), limits) {
        Ok(i) => i,
        Err(d) => return vec![*d],
    };
    interp.record = false;
    if let Err(d) = interp.init() {
        return vec![*d];
    }
    for c in &prog.checks {
        let r = interp.with_frame(c.locals, |me| {
            let src = me.eval(&c.source)?;
            let items = me.as_list(&src, c.source.span)?;
            for item in items.iter() {
                me.set_local(c.slot, item.clone());
                if let Some(f) = &c.filter {
                    if !me.boolean(f)? {
                        continue;
                    }
                }
                if me.boolean(&c.require)? {
                    continue;
                }
                let message = match me.eval(&c.message)? {
                    Value::Text(t) => t.to_string(),
                    other => me.words(&other),
                };
                let help = match &c.help {
                    Some(h) => {
                        let v = me.eval(h)?;
                        Some(me.words(&v))
                    }
                    None => None,
                };
                let (span, label) = match item {
                    Value::Card(card) => {
                        let cd = &prog.cards[*card as usize];
                        let at = c.at.and_then(|sym| {
                            cd.field_spans
                                .iter()
                                .find(|(s, _)| *s == sym)
                                .map(|(_, sp)| *sp)
                        });
                        match at {
                            Some(sp) => (sp, format!("on card `{}`", cd.id)),
                            None => (cd.span, format!("card `{}`", cd.id)),
                        }
                    }
                    other => (c.span, format!("for {}", me.show(other))),
                };
                let d = if c.warn {
                    Diag::warning("check::rule", message)
                } else {
                    Diag::error("check::rule", message)
                };
                let d = d
                    .label(span, label)
                    .label(c.require.span, "required by this rule")
                    .maybe_help(help);
                out.push(d);
            }
            Ok(Value::None)
        });
        if let Err(d) = r {
            out.push(*d);
        }
    }
    out
}

/// Each card's `describe` line (`None` where its kind has none), worked out once the program
/// checks clean, over the cards as declared. The checker has proved that a line reads only what
/// is printed on cards, so one text per card serves every game and every viewer. A line that
/// fails (a lookup no entry covers, a division by zero) is a diagnostic at the card.
pub fn card_lines(prog: &Program, limits: Limits) -> (Vec<Option<String>>, Vec<Diag>) {
    let mut lines = vec![None; prog.cards.len()];
    if prog.kinds.iter().all(|k| k.describe.is_none()) {
        return (lines, Vec::new());
    }
    let n = prog.game.min_players.max(1);
    let mut interp = match Interp::new(prog, n, 0, Vec::new(), limits) {
        Ok(i) => i,
        Err(d) => return (lines, vec![*d]),
    };
    interp.record = false;
    if let Err(d) = interp.init() {
        return (lines, vec![*d]);
    }
    let mut diags = Vec::new();
    interp.displaying += 1;
    for (c, cd) in prog.cards.iter().enumerate() {
        let Some(d) = prog
            .kinds
            .get(cd.kind as usize)
            .and_then(|k| k.describe.as_ref())
        else {
            continue;
        };
        let r = interp.with_frame(d.locals, |me| {
            for &(field, slot) in &d.binds {
                let v = cd
                    .fields
                    .get(field as usize)
                    .cloned()
                    .unwrap_or(Value::None);
                me.set_local(slot, v);
            }
            me.eval(&d.text)
        });
        match r {
            Ok(v) => {
                let text = match v {
                    Value::Text(t) => t.to_string(),
                    other => interp.words(&other),
                };
                if let Some(l) = lines.get_mut(c) {
                    *l = Some(text);
                }
            }
            Err(e) => {
                diags.push(e.label(
                    cd.span,
                    format!("while working out the line of card `{}`", cd.id),
                ));
            }
        }
    }
    interp.displaying -= 1;
    (lines, diags)
}

/// Approximate bytes of game state held in memory (vectors and their contents).
pub fn state_size(s: &State) -> usize {
    use std::mem::size_of;
    let value = size_of::<Value>();
    let deep = |v: &Value| -> usize {
        match v {
            Value::List(l) | Value::Tuple(l) => l.len() * value,
            Value::Packed(_) => 0,
            Value::Text(t) => t.len(),
            _ => 0,
        }
    };
    size_of::<State>()
        + s.vars.iter().map(|v| value + deep(v)).sum::<usize>()
        + s.card_vars.iter().map(|v| value + deep(v)).sum::<usize>()
        + s.consts.iter().map(|v| value + deep(v)).sum::<usize>()
        + s.zones
            .iter()
            .map(|z| size_of::<Vec<u32>>() + z.capacity() * 4)
            .sum::<usize>()
        + (s.var_base.len() + s.zone_base.len() + s.card_zone.len() + s.card_var_base.len()) * 4
        + s.face_up.len()
}

/// Work out `exprs` for each of `cards`, the card in local `slot` of a frame of `locals` (a
/// `face` declaration's parts, for `rules print`): per card, each value with its text as the
/// game shows it.
pub fn card_values(
    prog: &Program,
    limits: Limits,
    locals: u32,
    slot: u32,
    cards: &[usize],
    exprs: &[&Expr],
) -> Result<Vec<Vec<(Value, String)>>, Box<Diag>> {
    let n = prog.game.min_players.max(1);
    let mut interp = Interp::new(prog, n, 0, Vec::new(), limits)?;
    interp.record = false;
    interp.init()?;
    let mut out = Vec::with_capacity(cards.len());
    for &c in cards {
        let mut row = Vec::with_capacity(exprs.len());
        interp.with_frame(locals, |me| {
            me.set_local(slot, Value::Card(c as u32));
            for e in exprs {
                let v = me.eval(e)?;
                let text = match &v {
                    Value::Text(t) => t.to_string(),
                    other => me.words(other),
                };
                row.push((v, text));
            }
            Ok(Value::None)
        })?;
        out.push(row);
    }
    Ok(out)
}
