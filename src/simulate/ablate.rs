//! Taking cards out of a game (`--without`, `--impact`), wherever the game gets them: the lists
//! of a kind's cards (`filter(t in Technology ...)`, a deck dealt from every card of a kind),
//! the draw tables and lists other cards hold (`draws: table ... of Technology`), and fields of
//! other cards that name them. The program is changed once, before its
//! first game, so the interpreter pays nothing for it; what setup still puts in a zone leaves it
//! once setup is done (`simulate::remove_cards`).
//!
//! A card the rules' own code names (`@gift_table`, `move @ace to hand`) cannot be taken out
//! without changing that code: `blockers` says so, per card, and the report shows it.

use crate::program::walk::{walk_code, Node};
use crate::program::{ExprKind, Program};
use crate::value::Value;

/// Why each of `ids` cannot be taken out entirely (`(id, reason)`; none for a card that can).
pub fn blockers(prog: &Program, ids: &[String]) -> Vec<(String, String)> {
    let wanted: Vec<u32> = ids.iter().filter_map(|id| index(prog, id)).collect();
    let mut out: Vec<(String, String)> = Vec::new();
    let mut note = |c: u32, why: String| {
        let id = prog
            .cards
            .get(c as usize)
            .map(|d| d.id.to_string())
            .unwrap_or_default();
        if !out.iter().any(|(x, _)| *x == id) {
            out.push((id, why));
        }
    };
    named_in_code(prog, &mut |c, span| {
        if wanted.contains(&c) {
            let (line, _) = prog.sources.line_col(span);
            let file = prog
                .sources
                .get(span.file)
                .map(|f| f.name.as_str())
                .unwrap_or("?");
            note(
                c,
                format!("the rules name it in their code ({file}:{line}): taken out of zones only"),
            );
        }
    });
    // A field that is the card itself (not a list or table entry) is set to `none`: the code that
    // reads it must expect `none`.
    for d in &prog.cards {
        for v in d.fields.iter().chain(&d.vars) {
            if let Value::Card(c) = v {
                if wanted.contains(c) {
                    note(
                        *c,
                        format!(
                            "@{} names it in a field, which reads `none` without it",
                            d.id
                        ),
                    );
                }
            }
        }
    }
    out
}

/// Take the cards out of the program: left out of their kind's lists and of every list and
/// table other cards hold (a table's entry that was the card covers nothing, so a `lookup` there
/// gives `none`); a field naming one reads `none`. The game's own tables (`table name {...}`)
/// are code: a card one of them names is reported by `blockers`.
pub fn take_out(prog: &mut Program, ids: &[String]) {
    let gone: Vec<u32> = ids.iter().filter_map(|id| index(prog, id)).collect();
    if gone.is_empty() {
        return;
    }
    // The checks compiled the program, keeping its lists of every card of a kind.
    prog.code.reset();
    prog.removed = vec![false; prog.cards.len()];
    for &c in &gone {
        if let Some(r) = prog.removed.get_mut(c as usize) {
            *r = true;
        }
    }
    let out = |c: u32| gone.contains(&c);
    for d in prog.cards.iter_mut() {
        for v in d.fields.iter_mut().chain(d.vars.iter_mut()) {
            *v = strip(v, &out);
        }
    }
}

/// The card with this id, by index.
fn index(prog: &Program, id: &str) -> Option<u32> {
    prog.cards
        .iter()
        .position(|d| d.id.to_string() == id)
        .map(|i| i as u32)
}

/// A value with the cards taken out: a card itself becomes `none`, a list loses them, and a
/// table's entry `(from, to, card)` goes with its card.
fn strip(v: &Value, out: &impl Fn(u32) -> bool) -> Value {
    match v {
        Value::Card(c) if out(*c) => Value::None,
        Value::List(items) if mentions(v, out) => Value::list(
            items
                .iter()
                .filter(|x| match x {
                    Value::Card(c) => !out(*c),
                    Value::Tuple(_) | Value::Packed(_) => !matches!(
                        x.tuple_items().as_deref().and_then(|t| t.get(2)),
                        Some(Value::Card(c)) if out(*c)
                    ),
                    _ => true,
                })
                .map(|x| strip(x, out))
                .collect(),
        ),
        Value::Tuple(_) | Value::Packed(_) if mentions(v, out) => Value::tuple(
            v.tuple_items()
                .iter()
                .flat_map(|t| t.iter())
                .map(|x| strip(x, out))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Whether a value holds one of the cards, at any depth.
fn mentions(v: &Value, out: &impl Fn(u32) -> bool) -> bool {
    match v {
        Value::Card(c) => out(*c),
        Value::List(_) | Value::Tuple(_) | Value::Packed(_) => v
            .seq_items()
            .is_some_and(|items| items.iter().any(|x| mentions(x, out))),
        _ => false,
    }
}

/// Every card the rules' code names (`@id`), with where: functions, cards' code, phases,
/// setup, triggers, constants, vars' first values and the game's tables (checks left aside:
/// they run before any game).
pub fn named_in_code(prog: &Program, f: &mut impl FnMut(u32, crate::diag::Span)) {
    let mut visit = |n: Node<'_>| {
        if let Node::Expr(e) = n {
            if let ExprKind::Const(v) = &e.kind {
                each_card(v, &mut |c| f(c, e.span));
            }
        }
    };
    walk_code(prog, &mut visit);
}

/// Each card a value holds, at any depth.
fn each_card(v: &Value, f: &mut impl FnMut(u32)) {
    match v {
        Value::Card(c) => f(*c),
        Value::List(_) | Value::Tuple(_) | Value::Packed(_) => {
            if let Some(items) = v.seq_items() {
                items.iter().for_each(|x| each_card(x, f))
            }
        }
        _ => {}
    }
}
