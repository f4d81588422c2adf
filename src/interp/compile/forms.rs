//! The less common expression forms compiled, so that a node of one of them no longer makes the
//! tree walk take over its whole subtree: `-x`, interpolated texts, `x in lo..hi`
//! (a bounds test), game options, a card's `id`, `kind` and `face_up`, and table lookups.

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
        if me.sketching > 0 {
            return sketch(me, &parts);
        }
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

/// A text nobody reads (a label in a silent run): its values worked out, for their errors, and
/// no text built.
#[cold]
#[inline(never)]
fn sketch(me: &mut crate::interp::Interp<'_>, parts: &[Part]) -> crate::interp::R<Value> {
    for p in parts {
        if let Part::Expr(x) = p {
            x.ev(me)?;
        }
    }
    Ok(Value::Text(me.empty_text.clone()))
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

/// `c.id`, `c.kind` or `c.face_up` (`Interp::card_builtin_field`), with the kinds' names made
/// as text values once per program (the code is compiled per program).
pub(super) fn card_builtin_field(base: &Expr, f: CardField, span: crate::diag::Span) -> Code {
    let b = cexpr(base);
    let kind_names: std::cell::OnceCell<Vec<Value>> = std::cell::OnceCell::new();
    code(move |me| {
        let v = b.ev(me)?;
        let prog = me.prog;
        let names = (f == CardField::Kind).then(|| {
            kind_names
                .get_or_init(|| prog.kinds.iter().map(|k| Value::text(&k.name)).collect())
                .as_slice()
        });
        me.card_builtin_field(v, b.span, f, span, names)
    })
}

/// `table[key]`: the first entry whose pattern matches, its value compiled with the program
/// (`Compiled::tables`) and evaluated in a frame of its own, as the walk does.
pub(super) fn table(t: Id, key: &Expr, span: crate::diag::Span) -> Code {
    let k = cexpr(key);
    code(move |me| {
        let v = k.ev(me)?;
        let (i, _) = me.table_entry(t, &v, span)?;
        let compiled = me.code;
        // The frame the compiled values need: the table's locals and the calls inlined there.
        match compiled.tables.get(t as usize) {
            Some((es, locals)) => match es.get(i) {
                Some(val) => me.with_frame(*locals, |me| val(me)),
                None => Err(rt(span, "this table is missing")),
            },
            None => Err(rt(span, "this table is missing")),
        }
    })
}
