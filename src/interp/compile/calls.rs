//! Calls compiled: a user function's call and a card's code (`c.effect(args)`). An argument
//! that is a local is copied into the new frame without a closure of its own.

use super::exprs::{cexpr, LocalField};
use super::{code, CExpr, Code, Ev, Origin};
use crate::diag::Span;
use crate::interp::{Interp, R};
use crate::program::*;
use crate::value::Value;

/// An argument of a call.
pub(super) enum CArg {
    Local(u32, Span),
    /// A field of a local (`c.realm`), read without a closure of its own.
    Field(Box<LocalField>),
    Expr(CExpr),
}

impl CArg {
    pub(super) fn new(e: &Expr) -> CArg {
        if let ExprKind::Local(slot) = e.kind {
            return CArg::Local(slot, e.span);
        }
        match LocalField::of(e) {
            Some(f) => CArg::Field(f),
            None => CArg::Expr(cexpr(e)),
        }
    }
}

impl Ev for CArg {
    #[inline(always)]
    fn ev(&self, me: &mut Interp<'_>) -> R<Value> {
        match self {
            CArg::Local(slot, _) => Ok(me.local(*slot)),
            CArg::Field(f) => f.ev(me),
            CArg::Expr(e) => (e.code)(me),
        }
    }
    fn span(&self) -> Span {
        match self {
            CArg::Local(_, span) => *span,
            CArg::Field(f) => f.span(),
            CArg::Expr(e) => e.span,
        }
    }
    fn origin(&self) -> Origin {
        match self {
            CArg::Local(slot, _) => Origin::Local(*slot),
            CArg::Field(f) => Origin::Local(f.slot()),
            CArg::Expr(e) => e.origin,
        }
    }
    fn local_slot(&self) -> Option<u32> {
        match self {
            CArg::Local(slot, _) => Some(*slot),
            CArg::Field(_) | CArg::Expr(_) => None,
        }
    }
}

fn args(es: &[Expr]) -> Vec<CArg> {
    es.iter().map(CArg::new).collect()
}

/// `f(args)`: a remembered call (`memo`), the callee's body in place when it is small
/// (`inline`), or a call.
pub(super) fn call(f: Id, es: &[Expr], span: Span) -> Code {
    if let Some(remembered) = super::memo::call(f, es, span) {
        return remembered;
    }
    if let Some(inlined) = super::inline::call(f, es, span) {
        // A function of one enum or `bool` that reads nothing else: kept per value.
        return match super::finite::call(f, es, inlined, span) {
            Ok(kept) | Err(kept) => kept,
        };
    }
    let args = args(es);
    code(move |me| me.call_with_args(f, &args, span))
}

/// `f(args)` inlined, as parts its caller may fold its own step into; `None` when the call is
/// remembered or not inlined (then `call` compiles it).
pub(super) fn inlined(f: Id, es: &[Expr], span: Span) -> Option<super::inline::Inlined> {
    if super::memo::remembers(f) {
        return None;
    }
    super::inline::call_parts(f, es, span, None)
}

/// `inlined`, for a call that is a condition: its body compiled for its truth (`truth`).
pub(super) fn inlined_word(f: Id, es: &[Expr], span: Span) -> Option<super::inline::Inlined> {
    inlined_word_for(f, es, span, super::truth::Leaf { span, f })
}

/// `inlined_word` for a call whose value is the value of another's body (`truth`): a value
/// that is not true or false is reported where `leaf` says.
pub(super) fn inlined_word_for(
    f: Id,
    es: &[Expr],
    span: Span,
    leaf: super::truth::Leaf,
) -> Option<super::inline::Inlined> {
    if super::memo::remembers(f) {
        return None;
    }
    super::inline::call_parts(f, es, span, Some(leaf))
}

/// `base.field(args)`.
pub(super) fn call_field(base: &Expr, sym: Id, es: &[Expr], span: Span) -> Code {
    let (base, args) = (cexpr(base), args(es));
    code(move |me| me.call_field(&base, sym, &args, span))
}
