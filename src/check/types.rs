//! Types: their names in messages, the type of a constant value, and compatibility.

use super::*;
use crate::diag::{Diag, Span};
use crate::program::*;
use crate::value::Value;

impl Checker {
    pub fn value_type(&self, v: &Value) -> Ty {
        self.value_ty(v)
    }

    pub(super) fn ty_name(&self, t: &Ty) -> String {
        match t {
            Ty::Any => "any".into(),
            Ty::Int => "int".into(),
            Ty::Bool => "bool".into(),
            Ty::Text => "text".into(),
            Ty::Player => "player".into(),
            Ty::None => "none".into(),
            Ty::Opt(t) => format!("{} or none", self.ty_name(t)),
            Ty::Fn(ps, r) => {
                let ps: Vec<String> = ps.iter().map(|p| self.ty_name(p)).collect();
                match **r {
                    Ty::None => format!("fn({})", ps.join(", ")),
                    _ => format!("fn({}) -> {}", ps.join(", "), self.ty_name(r)),
                }
            }
            Ty::Enum(e) => self
                .prog
                .enums
                .get(*e as usize)
                .map(|e| e.name.clone())
                .unwrap_or_default(),
            Ty::Card(Some(k)) => self
                .prog
                .kinds
                .get(*k as usize)
                .map(|k| k.name.clone())
                .unwrap_or_default(),
            Ty::Card(None) => "card".into(),
            Ty::Zone(Some(k)) => format!(
                "zone of {}",
                self.prog
                    .kinds
                    .get(*k as usize)
                    .map(|k| k.name.as_str())
                    .unwrap_or("")
            ),
            Ty::Zone(None) => "zone".into(),
            Ty::List(t) => format!("list of {}", self.ty_name(t)),
            Ty::Tuple(ts) => format!(
                "({})",
                ts.iter()
                    .map(|t| self.ty_name(t))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }

    pub(super) fn value_ty(&self, v: &Value) -> Ty {
        match v {
            Value::None => Ty::None,
            Value::Int(_) => Ty::Int,
            Value::Bool(_) => Ty::Bool,
            Value::Text(_) => Ty::Text,
            Value::Enum(e, _) => Ty::Enum(*e),
            Value::Card(c) => Ty::Card(
                self.prog
                    .cards
                    .get(*c as usize)
                    .map(|c| c.kind)
                    .filter(|k| *k != u32::MAX),
            ),
            Value::Player(_) => Ty::Player,
            Value::Zone(_) => Ty::Zone(None),
            Value::List(items) => Ty::List(Box::new(
                items.first().map(|i| self.value_ty(i)).unwrap_or(Ty::Any),
            )),
            Value::Tuple(_) | Value::Packed(_) => Ty::Tuple(
                v.tuple_items()
                    .iter()
                    .flat_map(|t| t.iter())
                    .map(|i| self.value_ty(i))
                    .collect(),
            ),
            Value::Fn(id) => match self.prog.card_fns.get(*id as usize) {
                Some(f) => Ty::Fn(
                    f.params.iter().map(|p| p.1.clone()).collect(),
                    Box::new(f.ret.clone()),
                ),
                None => Ty::Any,
            },
        }
    }

    // ================================================================ types

    /// Both operands of an operator must be `want`: one error for the operator, labelling each
    /// operand that is not. Whether both are.
    pub(super) fn expect_operands(
        &mut self,
        want: &Ty,
        (ta, sa): (&Ty, Span),
        (tb, sb): (&Ty, Span),
        what: &str,
        help: Option<String>,
    ) -> bool {
        let bad: Vec<(Span, String)> = [(ta, sa), (tb, sb)]
            .into_iter()
            .filter(|(t, _)| !compatible(want, t))
            .map(|(t, s)| (s, self.ty_name(t)))
            .collect();
        let Some((_, first)) = bad.first() else {
            return true;
        };
        let w = self.ty_name(want);
        let help = help.or_else(|| {
            [ta, tb]
                .into_iter()
                .any(|t| !compatible(want, t) && maybe_none(t))
                .then(none_help)
        });
        let mut d = Diag::error("check::type", format!("{what} must be {w}, found {first}"));
        for (s, g) in &bad {
            d = d.label(*s, format!("this is {g}"));
        }
        self.err(d.maybe_help(help));
        false
    }

    pub(super) fn expect_ty(&mut self, want: &Ty, got: &Ty, span: Span, what: &str) {
        if !compatible(want, got) {
            let (w, g) = (self.ty_name(want), self.ty_name(got));
            let help = maybe_none(got).then(none_help);
            self.err(
                Diag::error("check::type", format!("{what} must be {w}, found {g}"))
                    .label(span, format!("this is {g}"))
                    .maybe_help(help),
            );
        }
    }
}

/// Whether a value of type `got` may stand where `want` is expected. `none` stands only where
/// the type has a `none` (cards, players, enum values, zones, lists, tuples, text); never for an
/// `int` or a `bool`.
pub fn compatible(want: &Ty, got: &Ty) -> bool {
    match (want, got) {
        (Ty::Any, _) | (_, Ty::Any) | (Ty::None, Ty::None) => true,
        (_, Ty::None) => allows_none(want),
        (Ty::None, _) => allows_none(got),
        // `int or none` stands where an int or `none` may; an int that may be `none` stands
        // for an int only once a test has ruled `none` out (the checker narrows the local).
        (Ty::Opt(a), Ty::Opt(b)) => compatible(a, b),
        (Ty::Opt(a), b) => compatible(a, b),
        (a, Ty::Opt(b)) => matches!(a, Ty::Any) || (allows_none(a) && compatible(a, b)),
        (Ty::Card(a), Ty::Card(b)) => a.is_none() || b.is_none() || a == b,
        (Ty::Zone(a), Ty::Zone(b)) => a.is_none() || b.is_none() || a == b,
        (Ty::List(a), Ty::List(b)) => compatible(a, b),
        (Ty::Fn(a, r), Ty::Fn(b, s)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y) && compatible(r, s)
        }
        (Ty::List(a), Ty::Zone(k)) => compatible(a, &Ty::Card(*k)),
        (Ty::Tuple(a), Ty::Tuple(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| compatible(x, y))
        }
        (a, b) => a == b,
    }
}

/// The help under a value that may be `none` used where it may not.
pub(super) fn none_help() -> String {
    "it is `none` when there is nothing to give (an empty list, a value not found): put it in a \
     `let` and test it first (`if x != none { ... }`), or write `if x == none { 0 } else { x }`"
        .into()
}

/// Whether a value of this type may be `none` although the type it stands for has no `none`
/// (`int or none`): using it as that type needs a test first.
pub fn maybe_none(t: &Ty) -> bool {
    matches!(t, Ty::Opt(_))
}

/// Whether `none` is a value of this type.
pub fn allows_none(t: &Ty) -> bool {
    !matches!(t, Ty::Int | Ty::Bool)
}

/// Bounds as written: `0..7`, or `at least 0` when open above.
pub(super) fn show_bounds(lo: i64, hi: i64) -> String {
    if hi == i64::MAX {
        format!("{lo}..")
    } else {
        format!("{lo}..{hi}")
    }
}

/// "within 0..7" or "of at least 0".
pub(super) fn within(lo: i64, hi: i64) -> String {
    if hi == i64::MAX {
        format!("of at least {lo}")
    } else {
        format!("within {lo}..{hi}")
    }
}
