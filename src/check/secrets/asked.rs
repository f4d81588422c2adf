//! Whether a choice is asked (`check::hidden_asked`): what decides it, reported once per choice
//! (or call that asks) and per hidden read within a body, kept in the summary as what of the
//! arguments decides it; and the lists that are never empty as written.

use super::*;

impl<'a> Flow<'a> {
    /// A choice asked at `at` (or a call that may ask one), asked when `sight` says: every
    /// player sees who is asked, so what decides it must be theirs to read. What depends on the
    /// arguments is kept in the summary, with the fact that the body may ask.
    pub(super) fn asked(&mut self, b: &mut Body, at: Span, who: Who, sight: Sight) {
        b.asked = true;
        if self.report && !self.muted {
            // An answer given in secret is the rules' to tell: outside `secretly` they act on
            // it, and by then have told it (what it holds of a var is still a var's secret).
            let answer = !b.secret && sight.has(Atom::Answer);
            let hidden: Vec<(bool, bool, Span)> = sight
                .0
                .iter()
                .filter_map(|&(a, read)| match a {
                    Atom::Nobody(v) | Atom::Seat(_, v) if v || !answer => {
                        Some((v, matches!(a, Atom::Nobody(_)), read))
                    }
                    _ => None,
                })
                .collect();
            // A var read outweighs a card's for the report.
            let best = hidden.iter().find(|h| h.0).or(hidden.first()).copied();
            let here = self
                .found
                .iter()
                .position(|f| f.at == at && f.sink == Sink::Asked);
            // Whether a choice is asked tells the table what decided it: a later one in the
            // same body decided by the same read tells nothing new (one mistake, one warning).
            let told = |f: &Found| {
                f.sink == Sink::Asked && f.body == b.id && hidden.iter().any(|h| h.2 == f.read)
            };
            match (best, here) {
                (Some((var, nobody, read)), Some(i)) => {
                    if let Some(f) = self.found.get_mut(i) {
                        if var && !f.var {
                            f.read = read;
                            f.var = true;
                            f.nobody = nobody;
                        }
                    }
                }
                (Some((var, nobody, read)), None) if !self.found.iter().any(told) => {
                    self.found.push(Found {
                        sink: Sink::Asked,
                        at,
                        viewers: Viewers::Everyone,
                        read,
                        nobody,
                        var,
                        who,
                        body: b.id,
                    })
                }
                _ => {}
            }
        }
        if let Some(sum) = b.summary.as_mut() {
            let keep = Sight(
                sight
                    .0
                    .iter()
                    .filter(|x| {
                        matches!(x.0, Atom::ArgVal(_) | Atom::ArgCards(_) | Atom::ArgSel(_))
                    })
                    .copied()
                    .collect(),
            );
            let full = sum.obs.len() >= MAX_OBS;
            let same = sum
                .obs
                .iter_mut()
                .find(|o| o.sink == Sink::Asked && (o.at == at || full));
            match same {
                Some(o) => o.sight.meet(&keep),
                None => sum.obs.push(Ob {
                    sink: Sink::Asked,
                    at,
                    viewers: Viewers::Everyone,
                    sight: keep,
                }),
            }
        }
    }
}

impl<'a> Flow<'a> {
    /// A list that is never empty as written: a list of values written out, a `concat` with
    /// one, an `if` whose branches all are, or a local an `if` around it found not empty
    /// (`if len(l) > 0 { l } else { [none] }`).
    pub(super) fn known_nonempty(&self, b: &Body, e: &Expr) -> bool {
        self.nonempty(b, e, None, 0)
    }

    fn nonempty(&self, b: &Body, e: &Expr, guarded: Option<u32>, depth: u32) -> bool {
        if depth > 8 {
            return false;
        }
        let d = depth + 1;
        match &e.kind {
            ExprKind::List(items) => !items.is_empty(),
            ExprKind::Const(Value::List(l)) => !l.is_empty(),
            ExprKind::Local(s) => {
                guarded == Some(*s) || b.slots.get(*s as usize).is_some_and(|x| x.nonempty)
            }
            ExprKind::Builtin(def, args) if def.name == "concat" => {
                args.iter().any(|a| self.nonempty(b, a, guarded, d))
            }
            // `flatten([[x], ...])`: a list written out with one that is not empty.
            ExprKind::Builtin(def, args) if def.name == "flatten" => match args.first() {
                Some(Expr {
                    kind: ExprKind::List(items),
                    ..
                }) => items.iter().any(|a| self.nonempty(b, a, guarded, d)),
                _ => false,
            },
            ExprKind::Call(f, _) => self
                .fns
                .get(&(FnKey::Fn(*f), b.secret))
                .is_some_and(|s| s.nonempty),
            ExprKind::Block(bl) => match bl.stmts.last() {
                Some(Stmt {
                    kind: StmtKind::Expr(x),
                    ..
                }) => self.nonempty(b, x, guarded, d),
                _ => false,
            },
            ExprKind::If(c, then, Some(els)) => {
                let (yes, no) = match nonempty_test(c) {
                    Some((slot, true)) => (Some(slot), guarded),
                    Some((slot, false)) => (guarded, Some(slot)),
                    None => (guarded, guarded),
                };
                let then_ok = match then.stmts.last() {
                    Some(Stmt {
                        kind: StmtKind::Expr(x),
                        ..
                    }) => self.nonempty(b, x, yes, d),
                    _ => false,
                };
                then_ok && self.nonempty(b, els, no, d)
            }
            _ => false,
        }
    }
}

/// A test that a local list is not empty (`len(l) > 0`, `len(l) != 0`, `len(l) >= 1`), or is
/// (`len(l) == 0`, `len(l) < 1`): its slot, and `true` when the test says not empty.
fn nonempty_test(c: &Expr) -> Option<(u32, bool)> {
    use crate::ast::BinOp;
    let ExprKind::Binary(op, l, r) = &c.kind else {
        return None;
    };
    let len_of = |e: &Expr| match &e.kind {
        ExprKind::Builtin(def, args) if def.name == "len" => match args.first().map(|a| &a.kind) {
            Some(ExprKind::Local(s)) => Some(*s),
            _ => None,
        },
        _ => None,
    };
    let int = |e: &Expr| match &e.kind {
        ExprKind::Const(Value::Int(n)) => Some(*n),
        _ => None,
    };
    // Written `len(l) OP n`, or `n OP len(l)` turned round.
    let (slot, op, n) = match (len_of(l), int(r), int(l), len_of(r)) {
        (Some(s), Some(n), _, _) => (s, *op, n),
        (_, _, Some(n), Some(s)) => (
            s,
            match op {
                BinOp::Lt => BinOp::Gt,
                BinOp::Le => BinOp::Ge,
                BinOp::Gt => BinOp::Lt,
                BinOp::Ge => BinOp::Le,
                o => *o,
            },
            n,
        ),
        _ => return None,
    };
    match (op, n) {
        (BinOp::Gt, 0) | (BinOp::Ne, 0) | (BinOp::Ge, 1) => Some((slot, true)),
        (BinOp::Eq, 0) | (BinOp::Lt, 1) | (BinOp::Le, 0) => Some((slot, false)),
        _ => None,
    }
}
