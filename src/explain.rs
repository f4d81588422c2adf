//! `rules explain`: how to play a game, from what its files declare: the `game` block's goal and
//! summary, the player counts, the options, the round's phases in order (each from the `##` lines
//! above it), the card kinds with their counts, how the game ends and is scored, and the bots it
//! declares (`bot`), each with its `##` lines.

use crate::diag::Span;
use crate::program::{Expr, ExprKind, Program};

/// The widest a paragraph is written.
const WIDTH: usize = 100;

/// The whole explanation, as lines of text.
pub fn explain(prog: &Program) -> String {
    let g = &prog.game;
    let mut out = String::new();
    out.push_str(&g.name);
    out.push('\n');
    out.push_str(&"=".repeat(g.name.chars().count().max(1)));
    out.push('\n');
    if let Some(s) = &g.summary {
        out.push('\n');
        wrap_into(&mut out, s, "", "");
    }
    out.push('\n');
    match &g.goal {
        Some(goal) => wrap_into(&mut out, goal, "Goal: ", "      "),
        None => out.push_str("Goal: not stated (the game's `game` block has no `goal:`)\n"),
    }

    out.push_str("\nPlayers: ");
    if g.min_players == g.max_players {
        out.push_str(&g.min_players.to_string());
    } else {
        out.push_str(&format!("{} to {}", g.min_players, g.max_players));
    }
    if let Some(d) = g.default_players {
        out.push_str(&format!(" ({d} unless `--players` says otherwise)"));
    }
    out.push('\n');

    if !prog.options.is_empty() {
        out.push_str("\nOptions (`--set name=value`):\n");
        let described = crate::options::describe(prog);
        for (o, text) in prog.options.iter().zip(described) {
            out.push_str(&format!("  {text}\n"));
            if let Some(doc) = &o.doc {
                wrap_into(&mut out, &one_line(doc), "      ", "      ");
            }
        }
    }

    out.push_str("\nEach round, in order:\n");
    let width = g
        .round_phases
        .iter()
        .filter_map(|&p| prog.phases.get(p as usize))
        .map(|p| p.name.chars().count())
        .max()
        .unwrap_or(0);
    for (i, &p) in g.round_phases.iter().enumerate() {
        let Some(pd) = prog.phases.get(p as usize) else {
            continue;
        };
        let head = format!("  {}. {}", i + 1, pd.name);
        entry(&mut out, &head, width + 5, pd.doc.as_deref());
    }

    let kinds: Vec<(usize, &crate::program::KindDef)> = prog
        .kinds
        .iter()
        .enumerate()
        .map(|(k, kd)| {
            let n = prog.cards.iter().filter(|c| c.kind as usize == k).count();
            (n, kd)
        })
        .filter(|(n, _)| *n > 0)
        .collect();
    if !kinds.is_empty() {
        out.push_str("\nThe cards (`rules cards GAME --kind KIND` lists them):\n");
        let width = kinds
            .iter()
            .map(|(n, kd)| kd.name.chars().count() + count(*n, "card").chars().count())
            .max()
            .unwrap_or(0);
        for (n, kd) in kinds {
            let head = format!("  {} ({})", kd.name, count(n, "card"));
            entry(&mut out, &head, width + 5, kd.doc.as_deref());
        }
    }

    out.push_str("\nHow it ends:\n");
    let mut ends = Vec::new();
    if let Some((e, _)) = &g.rounds {
        ends.push(match &e.kind {
            ExprKind::Const(crate::value::Value::Int(n)) => {
                format!("after {}", count(usize::try_from(*n).unwrap_or(0), "round"))
            }
            _ => format!("after `{}` rounds", source(prog, e.span)),
        });
    }
    if let Some((e, _)) = &g.end_when {
        ends.push(format!(
            "as soon as `{}` holds after a phase{}",
            source(prog, e.span),
            called_doc(prog, e)
        ));
    }
    if g.ended_by_rules {
        ends.push("when a rule ends it (`end game`, `finish_game()`)".into());
    }
    for (i, e) in ends.iter().enumerate() {
        let lead = if i == 0 { "  The game ends " } else { "  or " };
        wrap_into(&mut out, e, lead, "    ");
    }
    if let Some(f) = g.finish.and_then(|f| prog.phases.get(f as usize)) {
        let doc = f.doc.as_deref().map(one_line);
        let line = format!(
            "Then `{}` is played once{}",
            f.name,
            doc.map(|d| format!(": {d}")).unwrap_or_default()
        );
        wrap_into(&mut out, &line, "  ", "    ");
    }
    match g.score.and_then(|f| prog.fns.get(f as usize)) {
        Some(fd) => {
            let doc = fd.doc.as_deref().map(one_line);
            let line = format!(
                "Score: `{}`{}",
                fd.name,
                doc.map(|d| format!(": {d}")).unwrap_or_default()
            );
            wrap_into(&mut out, &line, "  ", "    ");
            out.push_str(if g.lowest_wins {
                "  The lowest score wins"
            } else {
                "  The highest score wins"
            });
            if g.tiebreaks.is_empty() {
                out.push_str("; players still tied share the win.\n");
            } else {
                out.push_str("; ties are broken by, in order:\n");
                for &t in &g.tiebreaks {
                    let Some(td) = prog.fns.get(t as usize) else {
                        continue;
                    };
                    let doc = td.doc.as_deref().map(one_line);
                    let line = format!(
                        "`{}`{}",
                        td.name,
                        doc.map(|d| format!(": {d}")).unwrap_or_default()
                    );
                    wrap_into(&mut out, &line, "    ", "      ");
                }
                out.push_str("  Players still tied after them share the win.\n");
            }
        }
        None => out
            .push_str("  No score: the game names no winner; its account tells how it came out.\n"),
    }

    if !prog.bots.is_empty() {
        out.push_str("\nBots (`--agent P2=bot:NAME`):\n");
        let width = prog
            .bots
            .iter()
            .map(|b| b.name.chars().count())
            .max()
            .unwrap_or(0);
        for b in &prog.bots {
            let head = format!("  {}", b.name);
            entry(&mut out, &head, width + 2, b.doc.as_deref());
        }
        out.push_str(
            "  A search plays its playouts out with one: `--agent ismcts:50/bot:NAME` or `mc:50/bot:NAME`.\n",
        );
    }
    out
}

/// What people sitting down to play are told first: the game's goal (or where to read how to
/// play, when it states none).
pub fn goal_banner(prog: &Program, path: &std::path::Path) -> String {
    let mut out = String::new();
    match &prog.game.goal {
        Some(goal) => wrap_into(&mut out, goal, "Goal: ", "      "),
        None => out.push_str("This game states no goal.\n"),
    }
    out.push_str(&format!(
        "(`rules explain {}` tells how to play)\n",
        path.display()
    ));
    out
}

/// One entry of a list: `head`, padded to `width`, then `doc` wrapped beside it (its further
/// lines under its first).
fn entry(out: &mut String, head: &str, width: usize, doc: Option<&str>) {
    let Some(doc) = doc else {
        out.push_str(head);
        out.push('\n');
        return;
    };
    let pad = " ".repeat(width.saturating_sub(head.chars().count()) + 2);
    let first = format!("{head}{pad}");
    let rest = " ".repeat(first.chars().count());
    wrap_into(out, &one_line(doc), &first, &rest);
}

/// `fn`'s doc when `e` is a call of a function that has one: `: it says ...`.
fn called_doc(prog: &Program, e: &Expr) -> String {
    match &e.kind {
        ExprKind::Call(f, _) => prog
            .fns
            .get(*f as usize)
            .and_then(|fd| fd.doc.as_deref())
            .map(|d| format!(": {}", one_line(d)))
            .unwrap_or_default(),
        _ => String::new(),
    }
}

/// The text a span covers, on one line.
fn source(prog: &Program, span: Span) -> String {
    one_line(prog.sources.text_of(span))
}

/// Lines joined by single spaces.
fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn count(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// `text` written in lines of at most `WIDTH` characters: the first after `first`, the others
/// after `rest`. Line breaks in the text are kept.
fn wrap_into(out: &mut String, text: &str, first: &str, rest: &str) {
    let mut lead = first;
    for para in text.split('\n') {
        let mut line = String::from(lead);
        let mut empty = true;
        for word in para.split_whitespace() {
            if !empty && line.chars().count() + 1 + word.chars().count() > WIDTH {
                out.push_str(&line);
                out.push('\n');
                line = String::from(rest);
                empty = true;
            }
            if !empty {
                line.push(' ');
            }
            line.push_str(word);
            empty = false;
        }
        out.push_str(line.trim_end());
        out.push('\n');
        lead = rest;
    }
}
