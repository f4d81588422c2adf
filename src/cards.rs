//! `rules cards`: a game's cards as plain-text tables, one per kind, for reviewing a deck, and one
//! card in full.

use crate::interp::View;
use crate::program::{Program, Ty};
use crate::value::Value;

/// The widest a cell is shown, unless `--wide`.
const WIDEST: usize = 34;

fn cell(view: &View, v: &Value, ty: &Ty, wide: bool) -> String {
    // Escaped here, not only by the terminal's writer, so the columns are as wide as shown.
    let text = crate::term::escape(&value_text(view, v, ty)).into_owned();
    let mut chars = text.chars();
    let short: String = chars.by_ref().take(WIDEST).collect();
    if wide || chars.next().is_none() {
        text
    } else {
        format!("{}…", short.chars().take(WIDEST - 1).collect::<String>())
    }
}

/// A field's value as the card tables and printed cards write it, whole.
pub fn value_text(view: &View, v: &Value, ty: &Ty) -> String {
    let text = match (v, ty) {
        // A table field: its entries, compactly.
        (Value::List(items), Ty::List(inner)) if matches!(**inner, Ty::Tuple(ref t) if t.len() == 3) => {
            items
                .iter()
                .map(|e| match e.tuple_items() {
                    Some(t) => match (t.first(), t.get(1), t.get(2)) {
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
        (Value::Card(c), _) => match view.prog.cards.get(*c as usize) {
            Some(cd) => format!("@{}", cd.id),
            None => "-".into(),
        },
        (Value::None, _) => "-".into(),
        _ => view.show(v),
    };
    text
}

/// The value of field `sym` on a card (a `var` field at its starting value), `none` where the
/// card has no such field.
pub fn field_value(prog: &Program, c: usize, sym: u32) -> Value {
    let Some(cd) = prog.cards.get(c) else {
        return Value::None;
    };
    match prog
        .kinds
        .get(cd.kind as usize)
        .and_then(|kd| kd.slot_of.get(sym as usize).copied().flatten())
    {
        Some((false, i)) => cd.fields.get(i as usize).cloned().unwrap_or(Value::None),
        Some((true, i)) => cd.vars.get(i as usize).cloned().unwrap_or(Value::None),
        None => Value::None,
    }
}

fn blank_view(prog: &Program) -> View<'_> {
    View {
        prog,
        n_players: prog.game.min_players.max(1),
        zone_base: &[],
    }
}

/// One card in full (`rules cards GAME @id`): its line, its rules text, then every field, code
/// included (as the card's text, or `code`), and `var` fields at their starting values.
pub fn card(prog: &Program, id: &str) -> Result<String, String> {
    let want = id.strip_prefix('@').unwrap_or(id);
    let Some(c) = prog.cards.iter().position(|cd| cd.id.to_string() == want) else {
        let ids: Vec<String> = prog.cards.iter().map(|cd| format!("@{}", cd.id)).collect();
        let help = crate::diag::did_you_mean(&format!("@{want}"), ids.iter().map(|s| s.as_str()))
            .unwrap_or_else(|| "`rules cards GAME` lists every card".into());
        return Err(format!("no card `@{want}`; {help}"));
    };
    let view = blank_view(prog);
    let cd = &prog.cards[c];
    let Some(kd) = prog.kinds.get(cd.kind as usize) else {
        return Err(format!("card `@{want}` has no kind"));
    };
    let mut out = format!("@{} ({})\n", cd.id, kd.name);
    out.push_str(&view.card_line(c as u32));
    out.push('\n');
    if let Some(t) = prog.card_text(c as u32) {
        out.push_str(&format!("  {t}\n"));
    }
    out.push('\n');
    let width = kd
        .fields
        .iter()
        .map(|f| f.name.chars().count())
        .max()
        .unwrap_or(0);
    for f in &kd.fields {
        let v = field_value(prog, c, f.sym);
        let shown = match (&f.ty, &v) {
            (Ty::Fn(..), Value::Fn(f)) if prog.card_of_fn(*f) != Some(c as u32) => {
                "the kind's default".into()
            }
            (Ty::Fn(..), Value::Fn(_)) if prog.card_text(c as u32).is_some() => "(its text)".into(),
            (Ty::Fn(..), Value::Fn(_)) => "code".into(),
            _ => value_text(&view, &v, &f.ty),
        };
        let pad = " ".repeat(width.saturating_sub(f.name.chars().count()));
        let var = if f.mutable {
            "   (var, at the start)"
        } else {
            ""
        };
        let line = format!("  {}{pad}  {shown}{var}", f.name);
        out.push_str(line.trim_end());
        out.push('\n');
    }
    Ok(out)
}

/// Render every kind's cards (or one kind's) as aligned tables; `wide` shows long cells whole.
/// A kind with a `describe` line shows it first; a kind with rules text shows it in its `text`
/// column, and leaves its code out (the text says what the code does).
pub fn tables(prog: &Program, only: Option<&str>, wide: bool) -> Result<String, String> {
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
    let view = blank_view(prog);
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
        let fields: Vec<_> = kd
            .fields
            .iter()
            .filter(|f| !f.mutable)
            .filter(|f| kd.text_field.is_none() || !matches!(f.ty, Ty::Fn(..)))
            .collect();
        let mut rows: Vec<Vec<String>> = Vec::new();
        let mut header = vec!["id".to_string()];
        if kd.describe.is_some() {
            header.push("line".to_string());
        }
        header.extend(fields.iter().map(|f| f.name.clone()));
        rows.push(header);
        for &c in &cards {
            let cd = &prog.cards[c];
            let mut row = vec![format!("@{}", cd.id)];
            if kd.describe.is_some() {
                let line = Value::text(&view.card_line(c as u32));
                row.push(cell(&view, &line, &Ty::Text, wide));
            }
            for f in &fields {
                let v = field_value(prog, c, f.sym);
                let text = match (&f.ty, &v) {
                    (Ty::Fn(..), Value::Fn(_)) => "code".into(),
                    _ => cell(&view, &v, &f.ty, wide),
                };
                row.push(text);
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
