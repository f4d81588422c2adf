//! Purity: scores, tiebreaks, groups, figures, `end_when`, choice labels, `say` text, `describe` lines and `check`/`warn` card rules
//! only read the game. This pass walks the lowered program and proves it: anything that moves
//! cards, changes a var or a field, shuffles, flips, reveals, rolls, asks a player or ends the
//! game is reported where such code is required, with the chain of calls that reaches it.
//!
//! Each body (a function, a card's code, a table's entries, the card code one field may run,
//! a checked expression) is walked once, into the list of what it does in order: an effect, or
//! a call. Which bodies change the game is then found with an explicit stack, not by recursion:
//! the same depth-first order a recursive walk takes (so the same chain is reported), each body
//! decided once and remembered as the one step that makes it change the game. A chain of any
//! length costs time and memory in proportion to the program, and no stack.
//!
//! The walk over statements and expressions names every kind with no catch-all arm, so a new
//! statement or expression kind cannot be added without saying whether it changes the game.

use super::*;
use crate::builtins::Effect;
use crate::diag::{Diag, Span};
use crate::program::*;
use std::collections::BTreeMap;

/// The calls of a chain shown in full; a longer chain shows its first ones, the count of the
/// rest, and the effect.
const CHAIN_SHOWN: usize = 8;

/// A body purity looks at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Body {
    Fn(usize),
    CardFn(usize),
    Table(usize),
    /// The code of every card for one `fn` field (a call through the field may run any).
    Field(Id),
    /// A checked expression (a score's is its function's body; the others are their own).
    Root(usize),
}

/// One thing a body does, in the order a recursive walk meets it.
#[derive(Clone, Debug)]
enum Step {
    /// An effect right here: where, and what it does.
    Effect(Span, String),
    /// Code that runs here: a call (with the call's place), a table's entries or a card's code
    /// through a field (without one: the label is the field call's).
    Runs(usize, Option<Span>),
}

/// What is known about a body: not yet looked at, being looked at (a cycle, already reported by
/// the recursion check, counts as pure), or the answer: the first step that changes the game.
#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Unknown,
    Visiting,
    Known(Option<usize>),
}

struct Node {
    body: Body,
    state: State,
    steps: Vec<Step>,
    /// For a body that changes the game: the calls shown on the way to the effect, and the
    /// node and step of the effect (worked out once, on the first chain that passes here).
    reach: Option<(usize, usize, usize)>,
}

struct Walk<'a> {
    prog: &'a Program,
    nodes: Vec<Node>,
    /// The node of each function, card's code, table and field, once made.
    ids: BTreeMap<(u8, u64), usize>,
    /// The card codes of each `fn` field, in card order.
    fields: BTreeMap<Id, Vec<usize>>,
    roots: Vec<&'a Expr>,
}

/// Who a screen line's effect is reported against.
const SCREEN_LINE: &str = "a `screen` line";

impl Checker {
    /// Report every place where code that must only read the game could change it.
    pub(super) fn check_purity(&mut self) {
        let prog = &self.prog;
        let mut fields: BTreeMap<Id, Vec<usize>> = BTreeMap::new();
        for (i, sym) in prog.card_fn_fields.iter().enumerate() {
            fields.entry(*sym).or_default().push(i);
        }
        let mut w = Walk {
            prog,
            nodes: Vec::new(),
            ids: BTreeMap::new(),
            fields,
            roots: Vec::new(),
        };
        let mut found: Vec<(String, Span, Impure)> = Vec::new();
        let g = &prog.game;
        for (role, f) in g
            .score
            .iter()
            .map(|f| ("score function", *f))
            .chain(g.tiebreaks.iter().map(|f| ("tiebreak", *f)))
            .chain(g.groups.iter().map(|f| ("group", *f)))
            .chain(g.figures.iter().map(|f| ("figure", *f)))
            .chain(g.measures.iter().map(|f| ("measure", *f)))
        {
            let Some(fd) = prog.fns.get(f as usize) else {
                continue;
            };
            let n = w.node(Body::Fn(f as usize));
            if let Some(imp) = w.impure(n) {
                found.push((format!("the {role} `{}`", fd.name), fd.span, imp));
            }
        }
        if let Some((e, _)) = &g.end_when {
            if let Some(imp) = w.expr(e) {
                found.push(("`end_when`".into(), e.span, imp));
            }
        }
        for c in &prog.checks {
            let what = if c.warn {
                "a `warn` rule"
            } else {
                "a `check` rule"
            };
            for e in [
                Some(&c.source),
                c.filter.as_ref(),
                Some(&c.require),
                Some(&c.message),
                c.help.as_ref(),
            ]
            .into_iter()
            .flatten()
            {
                if let Some(imp) = w.expr(e) {
                    found.push((what.into(), c.span, imp));
                }
            }
        }
        for f in &prog.faces {
            for e in f
                .slots
                .iter()
                .map(|(_, e)| e)
                .chain(f.show.iter().flatten().map(|(_, e)| e))
            {
                if let Some(imp) = w.expr(e) {
                    found.push(("a `face`".into(), f.span, imp));
                }
            }
        }
        if let Some(sc) = &prog.screen {
            for (l, v) in &sc.lines {
                for e in [l, v] {
                    if let Some(imp) = w.expr(e) {
                        found.push((SCREEN_LINE.into(), e.span, imp));
                    }
                }
            }
        }
        for b in &prog.bots {
            for r in &b.rules {
                for e in r.cond.iter().chain([&r.value]) {
                    if let Some(imp) = w.expr(e) {
                        found.push((format!("the bot `{}`", b.name), r.span, imp));
                    }
                }
            }
        }
        // Text for showing, wherever it is written: `say` and choice labels.
        let mut shown: Vec<(&'static str, &Expr)> = Vec::new();
        let bodies = prog
            .fns
            .iter()
            .map(|f| &f.body)
            .chain(prog.card_fns.iter().map(|f| &f.body))
            .chain(prog.vars.iter().map(|v| &v.init))
            .chain(prog.consts.iter().map(|c| &c.value))
            .chain(
                prog.tables
                    .iter()
                    .flat_map(|t| t.entries.iter().map(|e| &e.1)),
            )
            .chain(
                prog.phases
                    .iter()
                    .filter_map(|p| p.each.as_ref().map(|e| &e.1)),
            );
        for e in bodies {
            shown_in_expr(e, &mut shown);
        }
        let blocks = prog
            .phases
            .iter()
            .map(|p| &p.body)
            .chain(prog.triggers.iter().map(|t| &t.body))
            .chain(prog.setup.iter().map(|s| &s.0));
        for b in blocks {
            shown_in_block(b, &mut shown);
        }
        for kd in &prog.kinds {
            if let Some(d) = &kd.describe {
                shown.push(("a `describe` line", &d.text));
            }
        }
        for (what, e) in shown {
            if let Some(imp) = w.expr(e) {
                found.push((what.into(), e.span, imp));
            }
        }
        // One mistake, one error: an effect reached from several places (a score and a screen
        // line calling the same function) is reported where it is first reached.
        let mut told: Vec<Span> = Vec::new();
        for (who, at, imp) in found {
            if told.contains(&imp.span) {
                continue;
            }
            told.push(imp.span);
            let mut d = Diag::error("check::purity", format!("{who} can change the game"))
                .label(imp.span, format!("this {}", imp.what));
            for (span, text) in &imp.calls {
                d = d.label(*span, text.clone());
            }
            if !imp.calls.is_empty() || !at.contains(imp.span) {
                d = d.label(at, "which must only read the game");
            }
            let help = if who == SCREEN_LINE {
                "a screen only reads the game; make the change in a phase, a setup or a trigger, and show the var it keeps"
            } else if who.starts_with("the bot ") {
                "a bot only reads the game to rank the options; the choice it answers makes the change"
            } else {
                "scores, tiebreaks, `end_when`, `say` text, choice labels and card rules only read the game; make the change in a phase, a setup or a trigger"
            };
            self.err(d.help(help));
        }
    }
}

/// Why some code is not pure: where the effect is, what it does, and the calls shown that reach
/// it (innermost first).
struct Impure {
    span: Span,
    what: String,
    calls: Vec<(Span, String)>,
}

impl<'a> Walk<'a> {
    /// The node of a body, made (not yet walked) the first time it is asked for.
    fn node(&mut self, body: Body) -> usize {
        let key = match body {
            Body::Fn(i) => (0, i as u64),
            Body::CardFn(i) => (1, i as u64),
            Body::Table(i) => (2, i as u64),
            Body::Field(sym) => (3, u64::from(sym)),
            Body::Root(i) => (4, i as u64),
        };
        if let Some(&n) = self.ids.get(&key) {
            return n;
        }
        let n = self.nodes.len();
        self.nodes.push(Node {
            body,
            state: State::Unknown,
            steps: Vec::new(),
            reach: None,
        });
        self.ids.insert(key, n);
        n
    }

    /// Whether a checked expression can change the game, and how.
    fn expr(&mut self, e: &'a Expr) -> Option<Impure> {
        let r = self.roots.len();
        self.roots.push(e);
        let n = self.node(Body::Root(r));
        self.impure(n)
    }

    /// What a body does, in order, up to its first effect (nothing after it is ever looked at).
    fn steps_of(&mut self, body: Body) -> Vec<Step> {
        let prog = self.prog;
        let mut out = Vec::new();
        match body {
            Body::Fn(f) => {
                if let Some(fd) = prog.fns.get(f) {
                    self.collect_expr(&fd.body, &mut out);
                }
            }
            Body::CardFn(f) => {
                if let Some(fd) = prog.card_fns.get(f) {
                    self.collect_expr(&fd.body, &mut out);
                }
            }
            Body::Table(t) => {
                if let Some(td) = prog.tables.get(t) {
                    for (_, e, _) in &td.entries {
                        if self.collect_expr(e, &mut out) {
                            break;
                        }
                    }
                }
            }
            Body::Field(sym) => {
                let ids = self.fields.get(&sym).cloned().unwrap_or_default();
                for i in ids {
                    let n = self.node(Body::CardFn(i));
                    out.push(Step::Runs(n, None));
                }
            }
            Body::Root(r) => {
                if let Some(e) = self.roots.get(r).copied() {
                    self.collect_expr(e, &mut out);
                }
            }
        }
        out
    }

    /// Decide a body: depth first with an explicit stack, in the order a recursive walk would
    /// take, each body once. Returns how the body changes the game, if it does.
    fn impure(&mut self, start: usize) -> Option<Impure> {
        if self.nodes[start].state == State::Unknown {
            self.decide(start);
        }
        match self.nodes[start].state {
            State::Known(Some(_)) => Some(self.chain(start)),
            _ => None,
        }
    }

    fn decide(&mut self, start: usize) {
        let mut stack: Vec<(usize, usize)> = Vec::new();
        self.enter(start, &mut stack);
        while let Some(&(n, at)) = stack.last() {
            let step = match self.nodes[n].steps.get(at) {
                None => None,
                Some(Step::Effect(..)) => Some(None),
                Some(Step::Runs(c, _)) => Some(Some(*c)),
            };
            match step {
                None => {
                    // Every step read only the game.
                    self.nodes[n].state = State::Known(None);
                    stack.pop();
                    if let Some(top) = stack.last_mut() {
                        top.1 += 1;
                    }
                }
                Some(None) => self.unwind(&mut stack),
                Some(Some(c)) => match self.nodes[c].state {
                    State::Known(Some(_)) => self.unwind(&mut stack),
                    State::Known(None) | State::Visiting => {
                        if let Some(top) = stack.last_mut() {
                            top.1 += 1;
                        }
                    }
                    State::Unknown => self.enter(c, &mut stack),
                },
            }
        }
    }

    fn enter(&mut self, n: usize, stack: &mut Vec<(usize, usize)>) {
        self.nodes[n].state = State::Visiting;
        let body = self.nodes[n].body;
        self.nodes[n].steps = self.steps_of(body);
        stack.push((n, 0));
    }

    /// The step on top of the stack changes the game: so does every body on the stack, through
    /// the step it stands at.
    fn unwind(&mut self, stack: &mut Vec<(usize, usize)>) {
        for (n, i) in stack.drain(..) {
            self.nodes[n].state = State::Known(Some(i));
        }
    }

    /// The step a decided body changes the game through.
    fn first(&self, n: usize) -> Option<&Step> {
        match self.nodes.get(n)?.state {
            State::Known(Some(i)) => self.nodes[n].steps.get(i),
            _ => None,
        }
    }

    /// How many calls are shown on the way from a step to its effect (a call to a function, or
    /// through a field), and the node and step of the effect: remembered per body, so every
    /// chain costs its own length once.
    fn reach(&mut self, start: usize) -> Option<(usize, usize, usize)> {
        let mut path = Vec::new();
        let mut n = start;
        let mut found = None;
        // The pointers lead to bodies decided earlier, so they end; the bound is a second net.
        for _ in 0..=self.nodes.len() {
            if let Some(r) = self.nodes[n].reach {
                found = Some(r);
                break;
            }
            match self.first(n) {
                Some(Step::Effect(..)) => {
                    let State::Known(Some(i)) = self.nodes[n].state else {
                        return None;
                    };
                    found = Some((0, n, i));
                    self.nodes[n].reach = found;
                    break;
                }
                Some(Step::Runs(c, _)) => {
                    path.push(n);
                    n = *c;
                }
                None => return None,
            }
        }
        let (mut shown, end, i) = found?;
        for &p in path.iter().rev() {
            if self.shown_call(p).is_some() {
                shown += 1;
            }
            self.nodes[p].reach = Some((shown, end, i));
        }
        self.nodes[start].reach
    }

    /// The call a body's step shows, when it is a call to a function or through a field: its
    /// place and the name of the code it may run.
    fn shown_call(&self, n: usize) -> Option<(Span, String)> {
        let Some(Step::Runs(c, Some(span))) = self.first(n) else {
            return None;
        };
        let prog = self.prog;
        match self.nodes.get(*c)?.body {
            Body::Fn(f) => Some((*span, format!("calls `{}`", prog.fns.get(f)?.name))),
            Body::Field(_) => match self.first(*c) {
                Some(Step::Runs(k, _)) => match self.nodes.get(*k)?.body {
                    Body::CardFn(i) => {
                        Some((*span, format!("may run `{}`", prog.card_fns.get(i)?.name)))
                    }
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        }
    }

    /// The chain from a body that changes the game to the effect: the first calls shown, a
    /// count of the rest, and the effect.
    fn chain(&mut self, start: usize) -> Impure {
        let (total, end, i) = self.reach(start).unwrap_or((0, start, 0));
        let (span, what) = match self.nodes.get(end).and_then(|e| e.steps.get(i)) {
            Some(Step::Effect(span, what)) => (*span, what.clone()),
            _ => (Span::default(), String::new()),
        };
        let mut calls = Vec::new();
        let mut n = start;
        for _ in 0..=self.nodes.len() {
            if calls.len() >= total.min(CHAIN_SHOWN) {
                break;
            }
            if let Some((at, text)) = self.shown_call(n) {
                let left = total.saturating_sub(calls.len() + 1);
                let text = if calls.len() + 1 == CHAIN_SHOWN && left > 0 {
                    format!("{text}, which (through {left} more calls) {what} there")
                } else {
                    format!("{text}, which {what} there")
                };
                calls.push((at, text));
            }
            match self.first(n) {
                Some(Step::Runs(c, _)) => n = *c,
                _ => break,
            }
        }
        calls.reverse();
        Impure { span, what, calls }
    }

    /// The steps of a block, in order; true once an effect is met.
    fn collect_block(&mut self, b: &Block, out: &mut Vec<Step>) -> bool {
        b.stmts.iter().any(|s| self.collect_stmt(s, out))
    }

    fn collect_exprs(&mut self, es: &[Expr], out: &mut Vec<Step>) -> bool {
        es.iter().any(|e| self.collect_expr(e, out))
    }

    fn collect_stmt(&mut self, s: &Stmt, out: &mut Vec<Step>) -> bool {
        let mut here = |what: &str| {
            out.push(Step::Effect(s.span, what.to_string()));
            true
        };
        match &s.kind {
            StmtKind::Let(_, e) => self.collect_expr(e, out),
            StmtKind::Assign(Place::Local(_), _, e) => self.collect_expr(e, out),
            StmtKind::Assign(Place::Var(..), ..) => here("changes a var"),
            StmtKind::Assign(Place::Field(..), ..) => here("changes a card's field"),
            StmtKind::Move(..) | StmtKind::Draw(..) => here("moves cards"),
            StmtKind::Shuffle(_) => here("shuffles a zone"),
            StmtKind::Flip(..) => here("turns cards over"),
            StmtKind::Reveal(..) => here("reveals cards"),
            StmtKind::For(_, src, body) => {
                self.collect_expr(src, out) || self.collect_block(body, out)
            }
            StmtKind::Repeat(n, body) => self.collect_expr(n, out) || self.collect_block(body, out),
            StmtKind::RepeatUntil(n, cond, body) => {
                self.collect_expr(n, out)
                    || self.collect_expr(cond, out)
                    || self.collect_block(body, out)
            }
            StmtKind::EndGame => here("ends the game"),
            StmtKind::Eliminate(_) => here("eliminates a player"),
            StmtKind::Emit(..) => here("fires an event"),
            // `say` only shows; its text is checked where it is written.
            StmtKind::Say(_) => false,
            StmtKind::Return(e) => e.as_ref().is_some_and(|e| self.collect_expr(e, out)),
            StmtKind::Break | StmtKind::Continue => false,
            StmtKind::Secretly(b) | StmtKind::Step(_, b) => self.collect_block(b, out),
            StmtKind::Expr(e) => self.collect_expr(e, out),
        }
    }

    fn collect_expr(&mut self, e: &Expr, out: &mut Vec<Step>) -> bool {
        match &e.kind {
            ExprKind::Const(_)
            | ExprKind::Local(_)
            | ExprKind::ConstRef(_)
            | ExprKind::KindCards(_)
            | ExprKind::Option(_)
            | ExprKind::Special(_) => false,
            ExprKind::Var(_, keys) | ExprKind::Zone(_, keys) => self.collect_exprs(keys, out),
            ExprKind::Field(b, _)
            | ExprKind::CardBuiltinField(b, _)
            | ExprKind::TupleIndex(b, _)
            | ExprKind::Unary(_, b)
            | ExprKind::InBounds(b, ..) => self.collect_expr(b, out),
            ExprKind::Index(a, b) | ExprKind::Binary(_, a, b) => {
                self.collect_expr(a, out) || self.collect_expr(b, out)
            }
            ExprKind::Table(t, k) => {
                if self.collect_expr(k, out) {
                    return true;
                }
                let n = self.node(Body::Table(*t as usize));
                out.push(Step::Runs(n, None));
                false
            }
            ExprKind::Call(f, args) => {
                if self.collect_exprs(args, out) {
                    return true;
                }
                let n = self.node(Body::Fn(*f as usize));
                out.push(Step::Runs(n, Some(e.span)));
                false
            }
            ExprKind::CallField(base, sym, args) => {
                if self.collect_expr(base, out) || self.collect_exprs(args, out) {
                    return true;
                }
                let n = self.node(Body::Field(*sym));
                out.push(Step::Runs(n, Some(e.span)));
                false
            }
            ExprKind::Builtin(def, args) => {
                if def.effect != Effect::Pure {
                    out.push(Step::Effect(
                        e.span,
                        format!("{} (`{}`)", def.effect.verb(), def.name),
                    ));
                    return true;
                }
                self.collect_exprs(args, out)
            }
            ExprKind::If(c, then, els) => {
                self.collect_expr(c, out)
                    || self.collect_block(then, out)
                    || els.as_ref().is_some_and(|x| self.collect_expr(x, out))
            }
            ExprKind::Match(s, arms) => {
                self.collect_expr(s, out)
                    || arms.iter().any(|(_, body)| self.collect_expr(body, out))
            }
            ExprKind::Agg {
                source,
                filter,
                map,
                ..
            } => {
                self.collect_expr(source, out)
                    || filter.as_ref().is_some_and(|f| self.collect_expr(f, out))
                    || map.as_ref().is_some_and(|m| self.collect_expr(m, out))
            }
            ExprKind::List(items) | ExprKind::Tuple(items) => self.collect_exprs(items, out),
            ExprKind::Text(parts) => parts.iter().any(|p| match p {
                TextPart::Lit(_) => false,
                TextPart::Expr(x) => self.collect_expr(x, out),
            }),
            ExprKind::Block(b) => self.collect_block(b, out),
        }
    }
}

/// Collect the text shown by `say` and the labels of choices, anywhere in a block.
fn shown_in_block<'a>(b: &'a Block, out: &mut Vec<(&'static str, &'a Expr)>) {
    for s in &b.stmts {
        match &s.kind {
            StmtKind::Say(e) => {
                out.push(("a `say`", e));
                shown_in_expr(e, out);
            }
            StmtKind::Let(_, e)
            | StmtKind::Assign(_, _, e)
            | StmtKind::Shuffle(e)
            | StmtKind::Flip(e, _)
            | StmtKind::Expr(e) => shown_in_expr(e, out),
            StmtKind::Reveal(e, to) => {
                shown_in_expr(e, out);
                if let Some(t) = to {
                    shown_in_expr(t, out);
                }
            }
            StmtKind::Move(a, b, ..) => {
                shown_in_expr(a, out);
                shown_in_expr(b, out);
            }
            StmtKind::Draw(a, b, c) => {
                shown_in_expr(a, out);
                shown_in_expr(b, out);
                shown_in_expr(c, out);
            }
            StmtKind::For(_, src, body) | StmtKind::Repeat(src, body) => {
                shown_in_expr(src, out);
                shown_in_block(body, out);
            }
            StmtKind::RepeatUntil(n, cond, body) => {
                shown_in_expr(n, out);
                shown_in_expr(cond, out);
                shown_in_block(body, out);
            }
            StmtKind::EndGame | StmtKind::Break | StmtKind::Continue => {}
            StmtKind::Eliminate(e) => shown_in_expr(e, out),
            StmtKind::Emit(_, args) => args.iter().for_each(|a| shown_in_expr(a, out)),
            StmtKind::Return(e) => {
                if let Some(e) = e {
                    shown_in_expr(e, out);
                }
            }
            StmtKind::Secretly(body) | StmtKind::Step(_, body) => shown_in_block(body, out),
        }
    }
}

fn shown_in_expr<'a>(e: &'a Expr, out: &mut Vec<(&'static str, &'a Expr)>) {
    match &e.kind {
        ExprKind::Const(_)
        | ExprKind::Local(_)
        | ExprKind::ConstRef(_)
        | ExprKind::KindCards(_)
        | ExprKind::Option(_)
        | ExprKind::Special(_) => {}
        ExprKind::Var(_, keys) | ExprKind::Zone(_, keys) => {
            keys.iter().for_each(|k| shown_in_expr(k, out))
        }
        ExprKind::Field(b, _)
        | ExprKind::CardBuiltinField(b, _)
        | ExprKind::TupleIndex(b, _)
        | ExprKind::Unary(_, b)
        | ExprKind::InBounds(b, ..)
        | ExprKind::Table(_, b) => shown_in_expr(b, out),
        ExprKind::Index(a, b) | ExprKind::Binary(_, a, b) => {
            shown_in_expr(a, out);
            shown_in_expr(b, out);
        }
        ExprKind::Call(_, args) => args.iter().for_each(|a| shown_in_expr(a, out)),
        ExprKind::CallField(base, _, args) => {
            shown_in_expr(base, out);
            args.iter().for_each(|a| shown_in_expr(a, out));
        }
        ExprKind::Builtin(def, args) => {
            for (i, a) in args.iter().enumerate() {
                if def.shown_only.contains(&i) {
                    let what = match def.params.get(i).map(|p| p.0) {
                        Some("labels") => "a choice's labels",
                        _ => "a choice's prompt",
                    };
                    out.push((what, a));
                }
                shown_in_expr(a, out);
            }
        }
        ExprKind::If(c, then, els) => {
            shown_in_expr(c, out);
            shown_in_block(then, out);
            if let Some(x) = els {
                shown_in_expr(x, out);
            }
        }
        ExprKind::Match(s, arms) => {
            shown_in_expr(s, out);
            arms.iter().for_each(|(_, b)| shown_in_expr(b, out));
        }
        ExprKind::Agg {
            source,
            filter,
            map,
            ..
        } => {
            shown_in_expr(source, out);
            if let Some(f) = filter {
                shown_in_expr(f, out);
            }
            if let Some(m) = map {
                shown_in_expr(m, out);
            }
        }
        ExprKind::List(items) | ExprKind::Tuple(items) => {
            items.iter().for_each(|i| shown_in_expr(i, out))
        }
        ExprKind::Text(parts) => {
            for p in parts {
                if let TextPart::Expr(x) = p {
                    shown_in_expr(x, out);
                }
            }
        }
        ExprKind::Block(b) => shown_in_block(b, out),
    }
}
