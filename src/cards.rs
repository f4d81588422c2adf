//! `rules cards`: a game's cards as plain-text tables, one per kind, for reviewing a deck.

use crate::interp::View;
use crate::program::{Program, Ty};
use crate::value::Value;

const WIDEST: usize = 34;

/// A field's value as the card tables and printed cards write it, whole.
pub fn value_text(view: &View, v: &Value, ty: &Ty) -> String {
    match (v, ty) {
        // A table field: its entries, compactly.
        (Value::List(items), Ty::List(inner)) if matches!(**inner, Ty::Tuple(ref t) if t.len() == 3) => {
            items
                .iter()
                .map(|e| match e {
                    Value::Tuple(t) => match (t.first(), t.get(1), t.get(2)) {
                        (Some(Value::Int(a)), Some(Value::Int(b)), Some(x)) if a == b => {
                            format!("{a}:{}", view.show(x))
                        }
                        (Some(Value::Int(i64::MIN)), _, Some(x)) => format!("_:{}", view.show(x)),
                        (Some(Value::Int(a)), Some(Value::Int(b)), Some(x)) => {
                            format!("{a}-{b}:{}", view.show(x))
                        }
                        _ => view.show(e),
                    },
                    _ => view.show(e),
                })
                .collect::<Vec<_>>()
                .join(" ")
        }
        (Value::Card(c), _) => format!("@{}", view.prog.cards[*c as usize].id),
        (Value::None, _) => "-".into(),
        _ => view.show(v),
    }
}

/// The value of field `sym` on a card, `none` where the card has no such field.
pub fn field_value(prog: &Program, card: usize, sym: u32) -> Value {
    let Some(cd) = prog.cards.get(card) else {
        return Value::None;
    };
    let Some(kd) = prog.kinds.get(cd.kind as usize) else {
        return Value::None;
    };
    match kd.slot_of.get(sym as usize).copied().flatten() {
        Some((false, i)) => cd.fields.get(i as usize).cloned().unwrap_or(Value::None),
        Some((true, i)) => cd.vars.get(i as usize).cloned().unwrap_or(Value::None),
        None => Value::None,
    }
}

fn cell(view: &View, v: &Value, ty: &Ty) -> String {
    let text = value_text(view, v, ty);
    let mut chars = text.chars();
    let short: String = chars.by_ref().take(WIDEST).collect();
    if chars.next().is_some() {
        format!("{}…", short.chars().take(WIDEST - 1).collect::<String>())
    } else {
        short
    }
}

/// Render every kind's cards (or one kind's) as aligned tables.
pub fn tables(prog: &Program, only: Option<&str>) -> Result<String, String> {
    if let Some(k) = only {
        if prog.kind_by_name(k).is_none() {
            let help = crate::diag::did_you_mean(k, prog.kinds.iter().map(|k| k.name.as_str()))
                .unwrap_or_else(|| {
                    format!(
                        "the kinds are: {}",
                        prog.kinds
                            .iter()
                            .map(|k| k.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                });
            return Err(format!("no card kind `{k}`; {help}"));
        }
    }
    let zone_base: Vec<u32> = Vec::new();
    let view = View {
        prog,
        n_players: prog.game.min_players.max(1),
        zone_base: &zone_base,
    };
    let mut out = String::new();
    for (k, kd) in prog.kinds.iter().enumerate() {
        if only.is_some_and(|o| o != kd.name) {
            continue;
        }
        let cards: Vec<usize> = (0..prog.cards.len())
            .filter(|&c| prog.cards[c].kind == k as u32)
            .collect();
        if cards.is_empty() {
            continue;
        }
        let fields: Vec<_> = kd.fields.iter().filter(|f| !f.mutable).collect();
        let mut rows: Vec<Vec<String>> = Vec::new();
        let mut header = vec!["id".to_string()];
        header.extend(fields.iter().map(|f| f.name.clone()));
        rows.push(header);
        for &c in &cards {
            let cd = &prog.cards[c];
            let mut row = vec![format!("@{}", cd.id)];
            for f in &fields {
                let v = field_value(prog, c, f.sym);
                row.push(cell(&view, &v, &f.ty));
            }
            rows.push(row);
        }
        let cols = rows[0].len();
        let widths: Vec<usize> = (0..cols)
            .map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0))
            .collect();
        out.push_str(&format!(
            "{} ({} card{})\n",
            kd.name,
            cards.len(),
            if cards.len() == 1 { "" } else { "s" }
        ));
        for (n, r) in rows.iter().enumerate() {
            let line: Vec<String> = r
                .iter()
                .zip(&widths)
                .map(|(c, w)| format!("{c}{}", " ".repeat(w - c.chars().count())))
                .collect();
            out.push_str(line.join("  ").trim_end());
            out.push('\n');
            if n == 0 {
                out.push_str(
                    &widths
                        .iter()
                        .map(|w| "-".repeat(*w))
                        .collect::<Vec<_>>()
                        .join("  "),
                );
                out.push('\n');
            }
        }
        out.push('\n');
    }
    Ok(out)
}
