//! The less common expression forms compiled, so that a node of one of them no longer makes the
//! tree walk take over its whole subtree: `-x`, interpolated texts, `x in lo..hi`
//! (a bounds test) and game options.

use super::exprs::cexpr;
use super::{code, Code, Ev};
use crate::interp::rt;
use crate::program::*;
use crate::value::Value;

/// `-x`.
pub(super) fn neg(x: &Expr, span: crate::diag::Span) -> Code {
    let x = cexpr(x);
    code(move |me| {
        let n = me.int(&x)?;
        n.checked_neg()
            .map(Value::Int)
            .ok_or_else(|| rt(span, "number overflow"))
    })
}

enum Part {
    Lit(String),
    Expr(super::CExpr),
}

/// `"text {x} text"`.
pub(super) fn text(parts: &[TextPart], span: crate::diag::Span) -> Code {
    let parts: Vec<Part> = parts
        .iter()
        .map(|p| match p {
            TextPart::Lit(t) => Part::Lit(t.clone()),
            TextPart::Expr(x) => Part::Expr(cexpr(x)),
        })
        .collect();
    // Room for the literal pieces and a short value in each hole, so most texts grow once.
    let room: usize = parts
        .iter()
        .map(|p| match p {
            Part::Lit(t) => t.len(),
            Part::Expr(_) => 16,
        })
        .sum();
    code(move |me| {
        let mut s = String::with_capacity(room);
        for p in &parts {
            match p {
                Part::Lit(t) => s.push_str(t),
                Part::Expr(x) => {
                    let v = x.ev(me)?;
                    me.show_into_text(&mut s, &v, x.span)?;
                }
            }
            me.text_fits(&s, span)?;
        }
        Ok(Value::Text(std::rc::Rc::new(s)))
    })
}

/// `x in lo..hi` with constant bounds.
pub(super) fn in_bounds(x: &Expr, lo: i64, hi: i64) -> Code {
    let x = cexpr(x);
    code(move |me| Ok(Value::Bool((lo..=hi).contains(&me.int(&x)?))))
}

/// A game option's value.
pub(super) fn option(o: Id) -> Code {
    code(move |me| {
        Ok(me
            .state
            .options
            .get(o as usize)
            .cloned()
            .unwrap_or(Value::None))
    })
}
