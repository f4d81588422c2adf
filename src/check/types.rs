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
            Value::Tuple(items) => Ty::Tuple(items.iter().map(|i| self.value_ty(i)).collect()),
        }
    }

    // ================================================================ types

    pub(super) fn expect_ty(&mut self, want: &Ty, got: &Ty, span: Span, what: &str) {
        if !compatible(want, got) {
            let (w, g) = (self.ty_name(want), self.ty_name(got));
            self.err(
                Diag::error("check::type", format!("{what} must be {w}, found {g}"))
                    .label(span, format!("this is {g}")),
            );
        }
    }
}

/// Whether a value of type `got` may stand where `want` is expected.
pub fn compatible(want: &Ty, got: &Ty) -> bool {
    match (want, got) {
        (Ty::Any, _) | (_, Ty::Any) | (_, Ty::None) | (Ty::None, _) => true,
        (Ty::Card(a), Ty::Card(b)) => a.is_none() || b.is_none() || a == b,
        (Ty::Zone(a), Ty::Zone(b)) => a.is_none() || b.is_none() || a == b,
        (Ty::List(a), Ty::List(b)) => compatible(a, b),
        (Ty::List(a), Ty::Zone(k)) => compatible(a, &Ty::Card(*k)),
        (Ty::Tuple(a), Ty::Tuple(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| compatible(x, y))
        }
        (a, b) => a == b,
    }
}
