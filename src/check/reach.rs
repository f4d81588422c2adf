//! Cards that can never enter play (`check::unreachable_card`): a card reaches a game only
//! through the rules' code, which either walks every card of its kind (`Technology`,
//! `filter(c in Crisis ...)`, `move Crisis to deck`) or names it (`@bug_guns`), or through
//! another card that can itself enter play and holds it in a field (a draw table `table {...}`,
//! a list, a field naming it). A card none of these reaches is dead text: a group's new
//! technology that no draw table lists, in a game whose rules only ever draw on tables. Only
//! what the checker can prove is reported: a game whose code walks the kind reaches every card of
//! it, whatever its filters say.

use crate::diag::Diag;
use crate::program::walk::{walk, walk_code, Node};
use crate::program::{ExprKind, Program};
use crate::value::Value;

/// One warning per card that can never enter play, or one per kind when none of the kind's
/// cards can.
pub fn warn(prog: &Program, diags: &mut Vec<Diag>) {
    let n = prog.cards.len();
    if n == 0 {
        return;
    }
    let mut walked = vec![false; prog.kinds.len()];
    let mut reached = vec![false; n];
    {
        let mut visit = |node: Node<'_>| {
            if let Node::Expr(e) = node {
                match &e.kind {
                    ExprKind::KindCards(k) => {
                        if let Some(w) = walked.get_mut(*k as usize) {
                            *w = true;
                        }
                    }
                    ExprKind::Const(v) => each_card(v, &mut |c| {
                        if let Some(r) = reached.get_mut(c as usize) {
                            *r = true;
                        }
                    }),
                    _ => {}
                }
            }
        };
        walk_code(prog, &mut visit);
        if let Some(s) = &prog.screen {
            for (a, b) in &s.lines {
                walk(Node::Expr(a), &mut visit);
                walk(Node::Expr(b), &mut visit);
            }
        }
    }
    // A game whose code reads no card at all (a card set inspected with `rules cards`) is not
    // played through its cards: nothing to say.
    if !walked.iter().any(|w| *w) && !reached.iter().any(|r| *r) {
        return;
    }
    for (c, d) in prog.cards.iter().enumerate() {
        if walked.get(d.kind as usize) == Some(&true) {
            if let Some(r) = reached.get_mut(c) {
                *r = true;
            }
        }
    }
    // Cards held by cards that enter play, until nothing more is reached.
    loop {
        let mut more = false;
        for (c, d) in prog.cards.iter().enumerate() {
            if reached.get(c) != Some(&true) {
                continue;
            }
            for v in d.fields.iter().chain(&d.vars) {
                each_card(v, &mut |x| {
                    if let Some(r) = reached.get_mut(x as usize) {
                        if !*r {
                            *r = true;
                            more = true;
                        }
                    }
                });
            }
        }
        if !more {
            break;
        }
    }
    for (k, kind) in prog.kinds.iter().enumerate() {
        let cards: Vec<usize> = (prog.cards.iter().enumerate())
            .filter(|(_, d)| d.kind as usize == k)
            .map(|(c, _)| c)
            .collect();
        let dead: Vec<usize> = (cards.iter().copied())
            .filter(|&c| reached.get(c) != Some(&true))
            .collect();
        if dead.is_empty() {
            continue;
        }
        // Tables of this kind held by other cards: where a new card of it would be listed.
        let tables = holders(prog, k as u32);
        let help = match tables.first() {
            Some(t) => format!(
                "list it on a table or list that holds {} cards (like `{t}`), or name it in the rules",
                kind.name
            ),
            None => format!(
                "deal it in the rules (`move {} to ...`, `@id`), or list it in another card's field",
                kind.name
            ),
        };
        let first = dead.first().and_then(|&c| prog.cards.get(c));
        if let (Some(first), true) = (first, dead.len() == cards.len() && cards.len() > 1) {
            diags.push(
                Diag::warning(
                    "check::unreachable_card",
                    format!(
                        "no card of `{}` can ever enter play: no rule walks or names them, and no card that enters play holds them",
                        kind.name
                    ),
                )
                .label(kind.span, format!("{} cards, none reachable", cards.len()))
                .label(first.span, "the first of them")
                .help(help),
            );
            continue;
        }
        for d in dead.iter().filter_map(|&c| prog.cards.get(c)) {
            diags.push(
                Diag::warning(
                    "check::unreachable_card",
                    format!("`@{}` can never enter play", d.id),
                )
                .label(
                    d.span,
                    format!(
                        "no rule walks every {} or names it, and no card that enters play lists it",
                        kind.name
                    ),
                )
                .help(help.clone()),
            );
        }
    }
}

/// The cards holding a card of kind `k` in a field (a table or a list): `@simple_table`.
fn holders(prog: &Program, k: u32) -> Vec<String> {
    let mut out = Vec::new();
    for d in &prog.cards {
        let holds = d.fields.iter().chain(&d.vars).any(|v| {
            let mut any = false;
            each_card(v, &mut |x| {
                any |= prog.cards.get(x as usize).is_some_and(|c| c.kind == k);
            });
            any
        });
        if holds {
            out.push(format!("@{}", d.id));
        }
    }
    out
}

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
