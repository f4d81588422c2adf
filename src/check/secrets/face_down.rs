//! Which kinds of card the rules may turn face down (then a public zone shows them to its player
//! alone).

use crate::program::*;
use crate::value::Value;

/// The kinds of card that the rules may turn face down: moved `face down`, or flipped (a card
/// keeps its side as it moves). `all` when a flipped card's kind cannot be told.
pub(super) struct FaceDown {
    all: bool,
    kinds: Vec<bool>,
}

impl FaceDown {
    pub(super) fn may(&self, kind: Option<Id>) -> bool {
        match kind {
            _ if self.all => true,
            Some(k) => self.kinds.get(k as usize) == Some(&true),
            None => self.kinds.iter().any(|k| *k),
        }
    }

    pub(super) fn of(prog: &Program) -> FaceDown {
        let mut fd = FaceDown {
            all: false,
            kinds: vec![false; prog.kinds.len()],
        };
        let mut bodies: Vec<crate::program::walk::Node> = Vec::new();
        for p in &prog.phases {
            bodies.extend(p.body.stmts.iter().map(crate::program::walk::Node::Stmt));
        }
        for t in &prog.triggers {
            bodies.extend(t.body.stmts.iter().map(crate::program::walk::Node::Stmt));
        }
        for (bl, _) in &prog.setup {
            bodies.extend(bl.stmts.iter().map(crate::program::walk::Node::Stmt));
        }
        for f in prog.fns.iter().chain(&prog.card_fns) {
            bodies.push(crate::program::walk::Node::Expr(&f.body));
        }
        // What each local slot is bound to, per body (a slot reused takes every binding).
        for n in bodies {
            let mut binds: Vec<(u32, &Expr)> = Vec::new();
            let mut turned: Vec<&Expr> = Vec::new();
            let mut zones: Vec<&Expr> = Vec::new();
            crate::program::walk::walk(n, &mut |x| match x {
                crate::program::walk::Node::Stmt(s) => match &s.kind {
                    StmtKind::Let(slot, e) | StmtKind::For(slot, e, _) => binds.push((*slot, e)),
                    StmtKind::Move(_, to, _, Some(false)) => zones.push(to),
                    StmtKind::Flip(e, dir) if *dir != Some(true) => turned.push(e),
                    _ => {}
                },
                crate::program::walk::Node::Expr(e) => {
                    if let ExprKind::Agg { slot, source, .. } = &e.kind {
                        binds.push((*slot, source));
                    }
                }
            });
            for e in turned.into_iter().chain(zones) {
                match kind_of(prog, e, &binds, 0) {
                    Some(k) => {
                        if let Some(x) = fd.kinds.get_mut(k as usize) {
                            *x = true;
                        }
                    }
                    None => fd.all = true,
                }
            }
        }
        fd
    }
}

/// The kind of the cards an expression gives, when it can be told without types.
pub(super) fn kind_of(prog: &Program, e: &Expr, binds: &[(u32, &Expr)], depth: u32) -> Option<Id> {
    if depth > 8 {
        return None;
    }
    let d = depth + 1;
    match &e.kind {
        ExprKind::Zone(id, _) => prog.zones.get(*id as usize)?.kind,
        ExprKind::KindCards(k) => Some(*k),
        ExprKind::Const(Value::Card(c)) => prog.cards.get(*c as usize).map(|c| c.kind),
        ExprKind::Agg { source, .. } => kind_of(prog, source, binds, d),
        ExprKind::Index(l, _) => kind_of(prog, l, binds, d),
        ExprKind::Builtin(def, args)
            if matches!(
                def.name,
                "top"
                    | "take"
                    | "drop"
                    | "shuffled"
                    | "pick_random"
                    | "reverse"
                    | "rotate"
                    | "distinct"
            ) =>
        {
            kind_of(prog, args.first()?, binds, d)
        }
        ExprKind::Local(slot) => {
            let mut kind = None;
            for (s, src) in binds {
                if s == slot {
                    let k = kind_of(prog, src, binds, d)?;
                    if kind.is_some_and(|x| x != k) {
                        return None;
                    }
                    kind = Some(k);
                }
            }
            kind
        }
        _ => None,
    }
}
