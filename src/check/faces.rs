//! The warning `check::shown_face_up`: a card moved face up into a `public` zone and turned face
//! down before anyone could act was seen by everybody for that moment (the stream names it to
//! every player), which is rarely what the rules mean: `move c to z face down` puts it there
//! unseen.
//!
//! "Before anyone could act" is read on the lowered tree, block by block: the flip comes later in
//! the same block as the move (or in the body of a `for` there, over what was moved), and no
//! statement in between may ask a choice or fire a game's own event, here or in a function, a
//! card's code or a trigger it runs. The card turned down is known to be the one moved only when
//! both are written the same way and that cannot change between them: a local (`c`), a card
//! (`@ace`), a local's field, or a zone with such keys (`table[p]`), the moved value or the zone
//! it went to. A card the rules turned face down before the move does not show, but moving it
//! with `face down` is then harmless and says so.

use super::*;
use crate::ast::{EventKind, Visibility};
use crate::builtins::Effect;
use crate::diag::{Diag, Span};
use crate::program::walk::{walk, Node};
use crate::program::*;

/// A move face up into a public zone, waiting for a flip down in the same block.
struct Shown {
    /// The `move` (or `draw`) statement.
    span: Span,
    /// The moved value's text, when it is stable (`None` for `draw`).
    what: Option<String>,
    /// The destination's text, when it is stable.
    to: Option<String>,
    zone: String,
    /// The loop variable of an enclosing `for` over what was moved.
    alias: Option<u32>,
}

/// Which code may let a player act: ask a choice or fire a game's own event.
struct Acts<'a> {
    prog: &'a Program,
    /// Per function: `None` not looked at yet; while looked at, `Some(false)` (a cycle).
    fns: Vec<Option<bool>>,
    card_fns: Vec<Option<bool>>,
    /// Per zone family: its `on enter` triggers may act.
    enter: Vec<Option<bool>>,
    flip: Option<bool>,
}

impl Acts<'_> {
    fn node(&mut self, n: Node) -> bool {
        let mut found = false;
        let (mut calls, mut fields, mut zones, mut any_enter, mut flips) =
            (Vec::new(), Vec::new(), Vec::new(), false, false);
        walk(n, &mut |x| match x {
            Node::Expr(e) => match &e.kind {
                ExprKind::Builtin(def, _) if def.effect == Effect::Choice => found = true,
                ExprKind::Call(f, _) => calls.push(*f),
                ExprKind::CallField(_, sym, _) => fields.push(*sym),
                _ => {}
            },
            Node::Stmt(s) => match &s.kind {
                StmtKind::Emit(..) => found = true,
                StmtKind::Move(_, to, ..) | StmtKind::Draw(_, _, to) => match &to.kind {
                    ExprKind::Zone(id, _) => zones.push(*id),
                    _ => any_enter = true,
                },
                StmtKind::Flip(..) => flips = true,
                _ => {}
            },
        });
        if found {
            return true;
        }
        if any_enter {
            zones.extend(0..self.prog.zones.len() as Id);
        }
        calls.into_iter().any(|f| self.func(f))
            || fields.into_iter().any(|sym| self.field(sym))
            || zones.into_iter().any(|z| self.enter(z))
            || (flips && self.flip())
    }

    fn func(&mut self, f: Id) -> bool {
        match self.fns.get(f as usize) {
            Some(Some(r)) => return *r,
            Some(None) => {}
            None => return false,
        }
        self.fns[f as usize] = Some(false);
        let prog = self.prog;
        let r = self.node(Node::Expr(&prog.fns[f as usize].body));
        self.fns[f as usize] = Some(r);
        r
    }

    /// Calls through field `sym` may run any card's code for that field.
    fn field(&mut self, sym: Id) -> bool {
        let prog = self.prog;
        (0..prog.card_fns.len())
            .filter(|&i| prog.card_fn_fields.get(i) == Some(&sym))
            .any(|i| {
                match self.card_fns.get(i) {
                    Some(Some(r)) => return *r,
                    Some(None) => {}
                    None => return false,
                }
                self.card_fns[i] = Some(false);
                let r = self.node(Node::Expr(&prog.card_fns[i].body));
                self.card_fns[i] = Some(r);
                r
            })
    }

    fn triggers(&mut self, event: EventKind, target: Option<Id>) -> bool {
        let prog = self.prog;
        prog.triggers
            .iter()
            .filter(|t| t.event == event && (target.is_none() || t.target == target))
            .any(|t| {
                t.condition
                    .as_ref()
                    .is_some_and(|c| self.node(Node::Expr(c)))
                    || t.body.stmts.iter().any(|s| self.node(Node::Stmt(s)))
            })
    }

    fn enter(&mut self, z: Id) -> bool {
        match self.enter.get(z as usize) {
            Some(Some(r)) => return *r,
            Some(None) => {}
            None => return false,
        }
        self.enter[z as usize] = Some(false);
        let r = self.triggers(EventKind::Enter, Some(z));
        self.enter[z as usize] = Some(r);
        r
    }

    fn flip(&mut self) -> bool {
        if let Some(r) = self.flip {
            return r;
        }
        self.flip = Some(false);
        let r = self.triggers(EventKind::Flip, None);
        self.flip = Some(r);
        r
    }
}

/// A value that names the same cards wherever it is read in a block: a local, a constant, a
/// local's field, a zone with such keys.
fn stable(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Local(_) | ExprKind::Const(_) | ExprKind::ConstRef(_) => true,
        ExprKind::Field(b, _) => stable(b),
        ExprKind::Zone(_, keys) => keys.iter().all(stable),
        _ => false,
    }
}

struct Scan<'a> {
    prog: &'a Program,
    acts: Acts<'a>,
    found: Vec<(Shown, Span)>,
}

impl Scan<'_> {
    fn text(&self, e: &Expr) -> Option<String> {
        stable(e).then(|| self.prog.sources.text_of(e.span).to_string())
    }

    /// The pending moves that `e` (flipped, or walked by a `for`) names.
    fn names(&self, e: &Expr, pending: &[Shown]) -> Vec<usize> {
        let local = match e.kind {
            ExprKind::Local(slot) => Some(slot),
            _ => None,
        };
        let text = self.text(e);
        (0..pending.len())
            .filter(|&i| {
                let p = &pending[i];
                (local.is_some() && p.alias == local)
                    || (text.is_some() && (text == p.what || text == p.to))
            })
            .collect()
    }

    /// Scan a block's statements in order (what may act is looked at only while a move
    /// waits, or for a move that would wait).
    fn block(&mut self, stmts: &[Stmt]) {
        let mut pending = Vec::new();
        for s in stmts {
            let mut acts = None;
            if !pending.is_empty() {
                self.flips(s, &mut pending);
                let a = self.acts.node(Node::Stmt(s));
                if a {
                    pending.clear();
                }
                acts = Some(a);
            }
            if let Some(p) = self.shown_by(s) {
                if !acts.unwrap_or_else(|| self.acts.node(Node::Stmt(s))) {
                    pending.push(p);
                }
            }
        }
    }

    /// A flip down in `s` of a card a pending move showed: reported, and the move taken off.
    fn flips(&mut self, s: &Stmt, pending: &mut Vec<Shown>) {
        match &s.kind {
            StmtKind::Flip(e, Some(false)) => {
                let mut hit = self.names(e, pending);
                hit.sort_unstable();
                for i in hit.into_iter().rev() {
                    let p = pending.remove(i);
                    self.found.push((p, s.span));
                }
            }
            StmtKind::For(slot, src, body) => {
                let hit = self.names(src, pending);
                if hit.is_empty() || body.stmts.iter().any(|b| self.acts.node(Node::Stmt(b))) {
                    return;
                }
                let inner: Vec<Shown> = hit
                    .iter()
                    .filter_map(|&i| pending.get(i))
                    .map(|p| Shown {
                        span: p.span,
                        what: p.what.clone(),
                        to: p.to.clone(),
                        zone: p.zone.clone(),
                        alias: Some(*slot),
                    })
                    .collect();
                let before = self.found.len();
                self.block_flips(&body.stmts, inner);
                let reported: Vec<Span> = self.found[before..].iter().map(|f| f.0.span).collect();
                pending.retain(|p| !reported.contains(&p.span));
            }
            StmtKind::Secretly(b) | StmtKind::Step(_, b) => {
                for inner in &b.stmts {
                    self.flips(inner, pending);
                    if self.acts.node(Node::Stmt(inner)) {
                        pending.clear();
                        return;
                    }
                }
            }
            _ => {}
        }
    }

    /// The flips of a `for` body over what was moved, up to its first statement that acts.
    fn block_flips(&mut self, stmts: &[Stmt], mut pending: Vec<Shown>) {
        for s in stmts {
            if pending.is_empty() {
                return;
            }
            self.flips(s, &mut pending);
        }
    }

    /// A move face up (or with no side given) into a public zone.
    fn shown_by(&self, s: &Stmt) -> Option<Shown> {
        let (what, to) = match &s.kind {
            StmtKind::Move(what, to, _, face) if *face != Some(false) => (Some(what), to),
            StmtKind::Draw(_, _, to) => (None, to),
            _ => return None,
        };
        let ExprKind::Zone(id, _) = &to.kind else {
            return None;
        };
        let zd = self.prog.zones.get(*id as usize)?;
        if zd.visibility != Visibility::Public {
            return None;
        }
        Some(Shown {
            span: s.span,
            what: what.and_then(|w| self.text(w)),
            to: self.text(to),
            zone: zd.name.clone(),
            alias: None,
        })
    }
}

/// Every block of a tree, root first.
fn blocks<'a>(root: Node<'a>, out: &mut Vec<&'a [Stmt]>) {
    walk(root, &mut |n| match n {
        Node::Stmt(s) => match &s.kind {
            StmtKind::For(_, _, b)
            | StmtKind::Repeat(_, b)
            | StmtKind::RepeatUntil(_, _, b)
            | StmtKind::Secretly(b)
            | StmtKind::Step(_, b) => out.push(&b.stmts),
            _ => {}
        },
        Node::Expr(e) => match &e.kind {
            ExprKind::If(_, b, _) | ExprKind::Block(b) => out.push(&b.stmts),
            _ => {}
        },
    });
}

impl Checker {
    /// Warn where a card is moved face up into a public zone and turned face down before
    /// anyone could act.
    pub(super) fn check_faces(&mut self) {
        let prog = &self.prog;
        let mut all: Vec<&[Stmt]> = Vec::new();
        let roots = prog
            .phases
            .iter()
            .map(|p| &p.body)
            .chain(prog.triggers.iter().map(|t| &t.body))
            .chain(prog.setup.iter().map(|s| &s.0));
        for b in roots {
            all.push(&b.stmts);
            for s in &b.stmts {
                blocks(Node::Stmt(s), &mut all);
            }
        }
        for body in prog
            .fns
            .iter()
            .map(|f| &f.body)
            .chain(prog.card_fns.iter().map(|f| &f.body))
        {
            blocks(Node::Expr(body), &mut all);
        }
        let mut scan = Scan {
            prog,
            acts: Acts {
                prog,
                fns: vec![None; prog.fns.len()],
                card_fns: vec![None; prog.card_fns.len()],
                enter: vec![None; prog.zones.len()],
                flip: None,
            },
            found: Vec::new(),
        };
        for stmts in all {
            scan.block(stmts);
        }
        let found = std::mem::take(&mut scan.found);
        for (p, flip) in found {
            let what = p.what.clone().unwrap_or_else(|| "...".into());
            let to = p.to.clone().unwrap_or_else(|| p.zone.clone());
            self.err(
                Diag::warning(
                    "check::shown_face_up",
                    format!(
                        "every player sees this card face up in `{}` before it is turned face down",
                        p.zone
                    ),
                )
                .label(
                    p.span,
                    format!("moved face up into public zone `{}`", p.zone),
                )
                .label(flip, "turned face down here, before anyone could act")
                .help(format!(
                    "to put it there unseen, move it face down: `move {what} to {to} face down`"
                )),
            );
        }
    }
}
