//! Purity: scores, tiebreaks, groups, `end_when`, choice labels, `say` text and `check`/`warn` card rules
//! only read the game. This pass walks the lowered program and proves it: anything that moves
//! cards, changes a var or a field, shuffles, flips, reveals, rolls, asks a player or ends the
//! game is reported where such code is required, with the chain of calls that reaches it.
//!
//! The walk over statements and expressions names every kind with no catch-all arm, so a new
//! statement or expression kind cannot be added without saying whether it changes the game.

use super::*;
use crate::builtins::Effect;
use crate::diag::{Diag, Span};
use crate::program::*;

/// Why some code is not pure: where the effect is, what it does, and the calls that reach it
/// (innermost first).
#[derive(Debug, Clone)]
pub(super) struct Impure {
    span: Span,
    what: String,
    calls: Vec<(Span, String)>,
}

/// What is known about each function and table: not yet looked at, being looked at (a cycle,
/// already reported by the recursion check), or the answer.
#[derive(Clone)]
enum Memo {
    Unknown,
    Visiting,
    Known(Option<Impure>),
}

struct Walk<'a> {
    prog: &'a Program,
    fns: Vec<Memo>,
    card_fns: Vec<Memo>,
    tables: Vec<Memo>,
}

impl Checker {
    /// Report every place where code that must only read the game could change it.
    pub(super) fn check_purity(&mut self) {
        let prog = &self.prog;
        let mut w = Walk {
            prog,
            fns: vec![Memo::Unknown; prog.fns.len()],
            card_fns: vec![Memo::Unknown; prog.card_fns.len()],
            tables: vec![Memo::Unknown; prog.tables.len()],
        };
        let mut found: Vec<(String, Span, Impure)> = Vec::new();
        let g = &prog.game;
        for (role, f) in g
            .score
            .iter()
            .map(|f| ("score function", *f))
            .chain(g.tiebreaks.iter().map(|f| ("tiebreak", *f)))
            .chain(g.groups.iter().map(|f| ("group", *f)))
        {
            if let Some(imp) = w.func(f) {
                let fd = &prog.fns[f as usize];
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
                .chain(f.show.iter().map(|(_, e)| e))
            {
                if let Some(imp) = w.expr(e) {
                    found.push(("a `face`".into(), f.span, imp));
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
        for (what, e) in shown {
            if let Some(imp) = w.expr(e) {
                found.push((what.into(), e.span, imp));
            }
        }
        for (who, at, imp) in found {
            let mut d = Diag::error("check::purity", format!("{who} can change the game"))
                .label(imp.span, format!("this {}", imp.what));
            for (span, text) in &imp.calls {
                d = d.label(*span, text.clone());
            }
            if !imp.calls.is_empty() || !at.contains(imp.span) {
                d = d.label(at, "which must only read the game");
            }
            self.err(d.help(
                "scores, tiebreaks, `end_when`, `say` text, choice labels and card rules only read the game; make the change in a phase, a setup or a trigger",
            ));
        }
    }
}

impl Walk<'_> {
    fn func(&mut self, f: Id) -> Option<Impure> {
        match self.fns.get(f as usize) {
            Some(Memo::Known(r)) => return r.clone(),
            Some(Memo::Visiting) | None => return None,
            Some(Memo::Unknown) => {}
        }
        self.fns[f as usize] = Memo::Visiting;
        let prog = self.prog;
        let r = self.expr(&prog.fns[f as usize].body);
        self.fns[f as usize] = Memo::Known(r.clone());
        r
    }

    /// A card's code; calls through a field may reach any card's code for that field.
    fn card_fn(&mut self, f: usize) -> Option<Impure> {
        match self.card_fns.get(f) {
            Some(Memo::Known(r)) => return r.clone(),
            Some(Memo::Visiting) | None => return None,
            Some(Memo::Unknown) => {}
        }
        self.card_fns[f] = Memo::Visiting;
        let prog = self.prog;
        let r = self.expr(&prog.card_fns[f].body);
        self.card_fns[f] = Memo::Known(r.clone());
        r
    }

    fn table(&mut self, t: Id) -> Option<Impure> {
        match self.tables.get(t as usize) {
            Some(Memo::Known(r)) => return r.clone(),
            Some(Memo::Visiting) | None => return None,
            Some(Memo::Unknown) => {}
        }
        self.tables[t as usize] = Memo::Visiting;
        let prog = self.prog;
        let r = prog.tables[t as usize]
            .entries
            .iter()
            .find_map(|(_, e, _)| self.expr(e));
        self.tables[t as usize] = Memo::Known(r.clone());
        r
    }

    fn block(&mut self, b: &Block) -> Option<Impure> {
        b.stmts.iter().find_map(|s| self.stmt(s))
    }

    fn exprs(&mut self, es: &[Expr]) -> Option<Impure> {
        es.iter().find_map(|e| self.expr(e))
    }

    fn stmt(&mut self, s: &Stmt) -> Option<Impure> {
        let here = |what: &str| {
            Some(Impure {
                span: s.span,
                what: what.to_string(),
                calls: Vec::new(),
            })
        };
        match &s.kind {
            StmtKind::Let(_, e) => self.expr(e),
            StmtKind::Assign(Place::Local(_), _, e) => self.expr(e),
            StmtKind::Assign(Place::Var(..), ..) => here("changes a var"),
            StmtKind::Assign(Place::Field(..), ..) => here("changes a card's field"),
            StmtKind::Move(..) | StmtKind::Draw(..) => here("moves cards"),
            StmtKind::Shuffle(_) => here("shuffles a zone"),
            StmtKind::Flip(..) => here("turns cards over"),
            StmtKind::Reveal(..) => here("reveals cards"),
            StmtKind::For(_, src, body) => self.expr(src).or_else(|| self.block(body)),
            StmtKind::Repeat(n, body) => self.expr(n).or_else(|| self.block(body)),
            StmtKind::RepeatUntil(n, cond, body) => self
                .expr(n)
                .or_else(|| self.expr(cond))
                .or_else(|| self.block(body)),
            StmtKind::EndGame => here("ends the game"),
            StmtKind::Eliminate(_) => here("eliminates a player"),
            StmtKind::Emit(..) => here("fires an event"),
            // `say` only shows; its text is checked where it is written.
            StmtKind::Say(_) => None,
            StmtKind::Return(e) => e.as_ref().and_then(|e| self.expr(e)),
            StmtKind::Break | StmtKind::Continue => None,
            StmtKind::Secretly(b) | StmtKind::Step(_, b) => self.block(b),
            StmtKind::Expr(e) => self.expr(e),
        }
    }

    fn expr(&mut self, e: &Expr) -> Option<Impure> {
        match &e.kind {
            ExprKind::Const(_)
            | ExprKind::Local(_)
            | ExprKind::ConstRef(_)
            | ExprKind::KindCards(_)
            | ExprKind::Option(_)
            | ExprKind::Special(_) => None,
            ExprKind::Var(_, keys) | ExprKind::Zone(_, keys) => self.exprs(keys),
            ExprKind::Field(b, _)
            | ExprKind::CardBuiltinField(b, _)
            | ExprKind::TupleIndex(b, _)
            | ExprKind::Unary(_, b)
            | ExprKind::InBounds(b, ..) => self.expr(b),
            ExprKind::Index(a, b) | ExprKind::Binary(_, a, b) => {
                self.expr(a).or_else(|| self.expr(b))
            }
            ExprKind::Table(t, k) => self.expr(k).or_else(|| self.table(*t)),
            ExprKind::Call(f, args) => self.exprs(args).or_else(|| {
                let mut imp = self.func(*f)?;
                let name = &self.prog.fns[*f as usize].name;
                imp.calls
                    .push((e.span, format!("calls `{name}`, which {} there", imp.what)));
                Some(imp)
            }),
            ExprKind::CallField(base, sym, args) => {
                self.expr(base).or_else(|| self.exprs(args)).or_else(|| {
                    let prog = self.prog;
                    let ids: Vec<usize> = (0..prog.card_fns.len())
                        .filter(|&i| prog.card_fn_fields.get(i) == Some(sym))
                        .collect();
                    ids.into_iter().find_map(|i| {
                        let mut imp = self.card_fn(i)?;
                        let name = &self.prog.card_fns[i].name;
                        imp.calls.push((
                            e.span,
                            format!("may run `{name}`, which {} there", imp.what),
                        ));
                        Some(imp)
                    })
                })
            }
            ExprKind::Builtin(def, args) => {
                if def.effect != Effect::Pure {
                    return Some(Impure {
                        span: e.span,
                        what: format!("{} (`{}`)", def.effect.verb(), def.name),
                        calls: Vec::new(),
                    });
                }
                self.exprs(args)
            }
            ExprKind::If(c, then, els) => self
                .expr(c)
                .or_else(|| self.block(then))
                .or_else(|| els.as_ref().and_then(|x| self.expr(x))),
            ExprKind::Match(s, arms) => self
                .expr(s)
                .or_else(|| arms.iter().find_map(|(_, body)| self.expr(body))),
            ExprKind::Agg {
                source,
                filter,
                map,
                ..
            } => self
                .expr(source)
                .or_else(|| filter.as_ref().and_then(|f| self.expr(f)))
                .or_else(|| map.as_ref().and_then(|m| self.expr(m))),
            ExprKind::List(items) | ExprKind::Tuple(items) => self.exprs(items),
            ExprKind::Text(parts) => parts.iter().find_map(|p| match p {
                TextPart::Lit(_) => None,
                TextPart::Expr(x) => self.expr(x),
            }),
            ExprKind::Block(b) => self.block(b),
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
