//! How a game ends, as the `game` block says it: `rounds:` (a number, an option, or a constant
//! made of them that the checker can bound), `end_when:` (asked after every phase, or once each
//! round is over with `at round end`), and the warning for an `end_when` that can only be meant
//! for a round's end.

use super::*;
use crate::ast::{self, BinOp, UnOp};

/// How deep `bounds` follows constants into constants (a cycle is reported elsewhere).
const MAX_CONST_DEPTH: u32 = 32;

impl Checker {
    /// `rounds: N`: any int the checker can bound below by 1, read only from literals,
    /// options and constants (worked out once the options are set).
    pub(super) fn rounds_entry(&mut self, e: &ast::Expr) -> Option<(Expr, u32)> {
        self.begin(Ctx::Other);
        let (x, ty) = self.expr(e);
        let locals = self.end();
        if !compatible(&Ty::Int, &ty) {
            let g = self.ty_name(&ty);
            self.err(
                Diag::error("check::rounds", "`rounds` must be a positive number")
                    .label(e.span, format!("this is {g}"))
                    .help("write a number like `rounds: 4`, or an int option"),
            );
            return None;
        }
        match self.bounds(&x, 0) {
            Some((lo, _)) if lo >= 1 => Some((x, locals)),
            Some((lo, hi)) => {
                let range = if lo == hi {
                    lo.to_string()
                } else {
                    show_bounds(lo, hi)
                };
                self.err(
                    Diag::error("check::rounds", "`rounds` must be a positive number")
                        .label(e.span, format!("this may be {range}"))
                        .help("every game plays at least one round: bound the option `in 1..` (or higher)"),
                );
                None
            }
            None if self.unbounded_option(&x, 0).is_some() => {
                let name = self
                    .unbounded_option(&x, 0)
                    .and_then(|o| self.prog.options.get(o as usize))
                    .map(|o| (o.name.clone(), o.span));
                let (name, decl) = name.unwrap_or_default();
                self.err(
                    Diag::error("check::rounds", "`rounds` must be a positive number")
                        .label(e.span, format!("option `{name}` may be any number"))
                        .label(decl, "declared without bounds")
                        .help(format!(
                            "bound the option so every game plays at least one round: `option {name}: int in 1..10 = ...`"
                        )),
                );
                None
            }
            None => {
                self.err(
                    Diag::error(
                        "check::rounds",
                        "`rounds` must be a number known before the game starts",
                    )
                    .label(e.span, "not a number, an option or a constant the checker can bound")
                    .help("write a number (`rounds: 4`), an int option with bounds (`option length: int in 1..10 = 4`), or a constant made of them; to end on the game's state, use `end_when`"),
                );
                None
            }
        }
    }

    /// The least and greatest value an int expression read only from literals, options and
    /// constants can have; `None` when it reads anything else, or is not an int the checker can
    /// follow (`+`, `-`, `*`, `if` on a constant condition, `match` on an option).
    fn bounds(&self, e: &Expr, depth: u32) -> Option<(i64, i64)> {
        if depth > MAX_CONST_DEPTH {
            return None;
        }
        let d = depth + 1;
        match &e.kind {
            ExprKind::Const(Value::Int(n)) => Some((*n, *n)),
            ExprKind::ConstRef(c) => {
                let cd = self.prog.consts.get(*c as usize)?;
                self.bounds(&cd.value, d)
            }
            ExprKind::Option(o) => {
                let od = self.prog.options.get(*o as usize)?;
                match (&od.ty, od.bounds) {
                    (Ty::Int, Some(b)) => Some(b),
                    _ => None,
                }
            }
            ExprKind::Unary(UnOp::Neg, a) => {
                let (lo, hi) = self.bounds(a, d)?;
                Some((hi.checked_neg()?, lo.checked_neg()?))
            }
            ExprKind::Binary(op @ (BinOp::Add | BinOp::Sub | BinOp::Mul), a, b) => {
                let (al, ah) = self.bounds(a, d)?;
                let (bl, bh) = self.bounds(b, d)?;
                match op {
                    BinOp::Add => Some((al.checked_add(bl)?, ah.checked_add(bh)?)),
                    BinOp::Sub => Some((al.checked_sub(bh)?, ah.checked_sub(bl)?)),
                    _ => {
                        let c = [
                            al.checked_mul(bl)?,
                            al.checked_mul(bh)?,
                            ah.checked_mul(bl)?,
                            ah.checked_mul(bh)?,
                        ];
                        Some((*c.iter().min()?, *c.iter().max()?))
                    }
                }
            }
            ExprKind::If(c, then, els) => {
                if !self.constant(c, d) {
                    return None;
                }
                let a = self.block_bounds(then, d)?;
                let b = self.bounds(els.as_deref()?, d)?;
                Some((a.0.min(b.0), a.1.max(b.1)))
            }
            ExprKind::Match(s, arms) => {
                if !self.constant(s, d) {
                    return None;
                }
                let mut out: Option<(i64, i64)> = None;
                for (_, arm) in arms {
                    let (lo, hi) = self.bounds(arm, d)?;
                    out = Some(out.map_or((lo, hi), |(l, h)| (l.min(lo), h.max(hi))));
                }
                out
            }
            ExprKind::Block(b) => self.block_bounds(b, d),
            _ => None,
        }
    }

    /// An int option without bounds that the expression reads, through constants.
    fn unbounded_option(&self, e: &Expr, depth: u32) -> Option<Id> {
        if depth > MAX_CONST_DEPTH {
            return None;
        }
        let d = depth + 1;
        match &e.kind {
            ExprKind::Option(o) => self
                .prog
                .options
                .get(*o as usize)
                .filter(|od| od.ty == Ty::Int && od.bounds.is_none())
                .map(|_| *o),
            ExprKind::ConstRef(c) => {
                let cd = self.prog.consts.get(*c as usize)?;
                self.unbounded_option(&cd.value, d)
            }
            ExprKind::Unary(_, a) => self.unbounded_option(a, d),
            ExprKind::Binary(_, a, b) => self
                .unbounded_option(a, d)
                .or_else(|| self.unbounded_option(b, d)),
            _ => None,
        }
    }

    /// A block that is one expression (`{ 4 }`, a branch of an `if`).
    fn block_bounds(&self, b: &Block, depth: u32) -> Option<(i64, i64)> {
        match &b.stmts[..] {
            [Stmt {
                kind: StmtKind::Expr(e),
                ..
            }] => self.bounds(e, depth),
            _ => None,
        }
    }

    /// Whether an expression reads only literals, options and constants.
    fn constant(&self, e: &Expr, depth: u32) -> bool {
        if depth > MAX_CONST_DEPTH {
            return false;
        }
        let d = depth + 1;
        match &e.kind {
            ExprKind::Const(_) | ExprKind::Option(_) => true,
            ExprKind::ConstRef(c) => self
                .prog
                .consts
                .get(*c as usize)
                .is_some_and(|cd| self.constant(&cd.value, d)),
            ExprKind::Unary(_, a) => self.constant(a, d),
            ExprKind::Binary(_, a, b) => self.constant(a, d) && self.constant(b, d),
            _ => false,
        }
    }

    /// `end_when: cond`, asked after every phase, or `end_when: cond at round end`.
    pub(super) fn end_when_entry(&mut self, e: &ast::Expr) -> (Expr, u32) {
        self.begin(Ctx::Other);
        let (x, ty) = self.expr(e);
        self.expect_ty(&Ty::Bool, &ty, e.span, "`end_when`");
        let locals = self.end();
        (x, locals)
    }

    /// An `end_when` asked after every phase that reads nothing but `round` (and constants)
    /// turns true as a round starts, so it ends the game after that round's first phase: in a
    /// round of several phases, almost surely not what was meant.
    pub(super) fn warn_mid_round_end(&mut self, info: &GameInfo, e: &ast::Expr) {
        let Some((x, _)) = &info.end_when else {
            return;
        };
        if info.end_at_round_end || info.round_phases.len() < 2 {
            return;
        }
        let mut reads_round = false;
        if !self.round_only(x, &mut reads_round, false, 0) || !reads_round {
            return;
        }
        let first = info
            .round_phases
            .first()
            .and_then(|p| self.prog.phases.get(*p as usize))
            .map(|p| p.name.clone())
            .unwrap_or_default();
        self.err(
            Diag::warning(
                "check::end_when_mid_round",
                "this `end_when` reads only `round`, but it is asked after every phase",
            )
            .label(
                e.span,
                format!(
                    "turns true as a round starts: the game would end after that round's first phase, `{first}`"
                ),
            )
            .help(format!(
                "ask it once each round is over: `end_when: {} at round end` (or say `rounds: N`)",
                self.prog.sources.text_of(e.span)
            )),
        );
    }

    /// Whether an expression reads nothing of the game but `round` (setting `reads_round` if it
    /// does), through functions whose body is one expression.
    fn round_only(&self, e: &Expr, reads_round: &mut bool, in_fn: bool, depth: u32) -> bool {
        if depth > MAX_CONST_DEPTH {
            return false;
        }
        let d = depth + 1;
        match &e.kind {
            ExprKind::Special(Special::Round) => {
                *reads_round = true;
                true
            }
            ExprKind::Const(_) | ExprKind::Option(_) => true,
            ExprKind::ConstRef(_) => self.constant(e, d),
            // A parameter of a function followed below (its arguments are looked at).
            ExprKind::Local(_) => in_fn,
            ExprKind::Unary(_, a) => self.round_only(a, reads_round, in_fn, d),
            ExprKind::Binary(_, a, b) => {
                self.round_only(a, reads_round, in_fn, d)
                    && self.round_only(b, reads_round, in_fn, d)
            }
            ExprKind::Call(f, args) => {
                let body = match self.prog.fns.get(*f as usize).map(|fd| &fd.body) {
                    Some(Expr {
                        kind: ExprKind::Block(b),
                        ..
                    }) => match &b.stmts[..] {
                        [Stmt {
                            kind: StmtKind::Expr(e),
                            ..
                        }] => e,
                        _ => return false,
                    },
                    Some(e) => e,
                    None => return false,
                };
                args.iter()
                    .all(|a| self.round_only(a, reads_round, in_fn, d))
                    && self.round_only(body, reads_round, true, d)
            }
            _ => false,
        }
    }
}
