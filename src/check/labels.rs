//! A choice's labels: one per option (`choose`) or per category (`allocate`). Where the checker
//! can count both lists (literal lists, an enum's values, a range with constant bounds, a
//! constant list, a `map` or `sort` over one of those), a label list of the wrong length is an
//! error here rather than a stop in the middle of a game.

use super::*;
use crate::ast::BinOp;
use crate::builtins::BuiltinDef;

/// How deep `static_len` follows constants and maps.
const MAX_DEPTH: u32 = 32;

impl Checker {
    /// `choose(p, options, prompt, labels)`, `allocate(p, total, categories, prompt, labels)`:
    /// the labels against what they name, when both can be counted.
    pub(super) fn label_count(&mut self, sig: &BuiltinDef, args: &[(Expr, Ty, Span)]) {
        let (what, of, labels) = match sig.name {
            "choose" => ("options", 1, 3),
            "allocate" => ("categories", 2, 4),
            _ => return,
        };
        let (Some((items, _, ispan)), Some((ls, _, lspan))) = (args.get(of), args.get(labels))
        else {
            return;
        };
        let (Some(n), Some(l)) = (self.static_len(items, 0), self.static_len(ls, 0)) else {
            return;
        };
        if n == l {
            return;
        }
        let label_word = if l == 1 { "label" } else { "labels" };
        let item_word = match (what, n) {
            ("options", 1) => "option",
            ("categories", 1) => "category",
            _ => what,
        };
        self.err(
            Diag::error(
                "check::labels",
                format!("{l} {label_word} for {n} {item_word}"),
            )
            .label(*lspan, format!("{l} {label_word}"))
            .label(*ispan, format!("{n} {item_word}"))
            .help(format!(
                "give one label for each of the {what}, in the same order (`map(x in {what} => \"...\")` makes one each)"
            )),
        );
    }

    /// The length of a list the checker can count without running the game.
    fn static_len(&self, e: &Expr, depth: u32) -> Option<usize> {
        if depth > MAX_DEPTH {
            return None;
        }
        let d = depth + 1;
        match &e.kind {
            ExprKind::Const(Value::List(l)) => Some(l.len()),
            ExprKind::List(items) => Some(items.len()),
            ExprKind::ConstRef(c) => self
                .prog
                .consts
                .get(*c as usize)
                .and_then(|cd| self.static_len(&cd.value, d)),
            ExprKind::KindCards(k) => Some(self.prog.cards.iter().filter(|c| c.kind == *k).count()),
            ExprKind::Binary(BinOp::Range, lo, hi) => {
                let (lo, hi) = (self.const_int(lo, d)?, self.const_int(hi, d)?);
                Some(usize::try_from(hi.checked_sub(lo)?.checked_add(1)?.max(0)).ok()?)
            }
            ExprKind::Agg {
                kind: ast::AggKind::Map | ast::AggKind::Sort,
                source,
                filter: None,
                ..
            } => self.static_len(source, d),
            ExprKind::Builtin(b, args) if matches!(b.name, "reverse" | "shuffled") => {
                self.static_len(args.first()?, d)
            }
            _ => None,
        }
    }

    /// An integer written as a literal or a constant that is one.
    fn const_int(&self, e: &Expr, depth: u32) -> Option<i64> {
        if depth > MAX_DEPTH {
            return None;
        }
        match &e.kind {
            ExprKind::Const(Value::Int(n)) => Some(*n),
            ExprKind::ConstRef(c) => self
                .prog
                .consts
                .get(*c as usize)
                .and_then(|cd| self.const_int(&cd.value, depth + 1)),
            ExprKind::Unary(ast::UnOp::Neg, a) => self.const_int(a, depth + 1)?.checked_neg(),
            _ => None,
        }
    }
}
