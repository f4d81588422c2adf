//! What a card's face says, and where each part goes on the card. A face is worked out from the
//! checked program only (the cards' printed values), then laid out as drawing operations that
//! the PDF and SVG writers draw and the tests measure.

use super::sheet::{Rect, MM};
use super::text::{fit, Fit, Metrics, Shaped};
use crate::cards::{field_value, value_text};
use crate::interp::View;
use crate::program::{Program, Ty};
use crate::value::Value;

/// The parts of a card's face, as text.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Face {
    pub title: String,
    pub subtitle: String,
    /// A value in the top corner (a cost, a rating).
    pub corner: Option<String>,
    /// A coloured band across the top with a short word (an enum field: a faction, a suit).
    pub band: Option<(String, [u8; 3])>,
    /// Named values, one per line.
    pub rows: Vec<(String, String)>,
    /// The rules text, wrapped.
    pub text: String,
    /// The card's id and, for copies, which copy (bottom edge, small).
    pub footer: String,
    /// The words on the card's back, under the game's name: the kind's name, or the face's
    /// `back` (a deck the game keeps apart has a back of its own).
    pub back: String,
    /// Some text had a grapheme longer than `Limits::PRINT_GRAPHEME_CHARS`, cut to it.
    pub long_grapheme: bool,
}

impl Face {
    /// Cut every grapheme of every text to `Limits::PRINT_GRAPHEME_CHARS` characters, saying
    /// whether any was longer.
    pub fn cap_graphemes(&mut self) {
        let mut cut = false;
        let mut cap = |s: &mut String| {
            if let Some(c) = capped(s) {
                *s = c;
                cut = true;
            }
        };
        cap(&mut self.title);
        cap(&mut self.subtitle);
        if let Some(c) = &mut self.corner {
            cap(c);
        }
        if let Some((b, _)) = &mut self.band {
            cap(b);
        }
        for (l, v) in &mut self.rows {
            cap(l);
            cap(v);
        }
        cap(&mut self.text);
        cap(&mut self.footer);
        cap(&mut self.back);
        self.long_grapheme |= cut;
    }
}

/// `s` with each grapheme cut to `Limits::PRINT_GRAPHEME_CHARS` characters, when one is longer.
fn capped(s: &str) -> Option<String> {
    use unicode_segmentation::UnicodeSegmentation;
    let max = crate::limits::Limits::PRINT_GRAPHEME_CHARS;
    let long = |g: &str| g.len() > max && g.chars().nth(max).is_some();
    if !s.graphemes(true).any(long) {
        return None;
    }
    Some(
        s.graphemes(true)
            .flat_map(|g| g.chars().take(max))
            .collect(),
    )
}

/// Colours for bands, picked by an enum value's position (dark enough for white text).
const PALETTE: [[u8; 3]; 8] = [
    [46, 94, 170],
    [176, 58, 46],
    [39, 128, 72],
    [142, 68, 173],
    [202, 111, 30],
    [23, 128, 140],
    [120, 120, 40],
    [90, 90, 90],
];

pub fn band_colour(index: usize) -> [u8; 3] {
    PALETTE[index % PALETTE.len()]
}

/// A field's value as a printed card reads it: a list as its items separated by commas (`none`
/// when empty), a tuple as its parts separated by spaces, a boolean as yes or no, an enum value
/// in words (`ForeignAffairs`: "Foreign affairs", or the game's own words), a table by
/// its ranges as `rules cards` writes it.
pub fn printed(view: &View, v: &Value, ty: &Ty) -> String {
    let is_table =
        matches!(ty, Ty::List(inner) if matches!(**inner, Ty::Tuple(ref t) if t.len() == 3));
    match v {
        Value::List(items) if !is_table => {
            if items.is_empty() {
                return "none".into();
            }
            let inner = match ty {
                Ty::List(t) => (**t).clone(),
                _ => Ty::Any,
            };
            items
                .iter()
                .map(|x| printed(view, x, &inner))
                .collect::<Vec<_>>()
                .join(", ")
        }
        Value::Tuple(_) | Value::Packed(_) => v
            .tuple_items()
            .iter()
            .flat_map(|parts| parts.iter())
            .enumerate()
            .map(|(i, x)| {
                let t = match ty {
                    Ty::Tuple(ts) => ts.get(i).cloned().unwrap_or(Ty::Any),
                    _ => Ty::Any,
                };
                printed(view, x, &t)
            })
            .collect::<Vec<_>>()
            .join(" "),
        Value::Bool(b) => if *b { "yes" } else { "no" }.into(),
        Value::Enum(e, x) => view.enum_words(*e, *x),
        _ => value_text(view, v, ty),
    }
}

/// A table every entry of which is empty (a crisis's turning point that adds nothing, `table {
/// _: [] }`): a row of it says nothing a player needs, so it is left off.
pub fn adds_nothing(v: &Value, ty: &Ty) -> bool {
    let is_table =
        matches!(ty, Ty::List(inner) if matches!(**inner, Ty::Tuple(ref t) if t.len() == 3));
    let Value::List(entries) = v else {
        return false;
    };
    is_table
        && entries.iter().all(|e| match e.tuple_items() {
            Some(parts) => match parts.get(2) {
                Some(Value::List(l)) => l.is_empty(),
                Some(Value::None) | None => true,
                Some(_) => false,
            },
            None => false,
        })
}

/// The face a card gets when its kind declares none: its name (or id) as the title, its kind as
/// the subtitle, its rules text (the `text` field) as its text, and its other printed fields as
/// rows (a table that adds nothing left off).
pub fn default_face(prog: &Program, view: &View, card: usize) -> Face {
    let Some(cd) = prog.cards.get(card) else {
        return Face::default();
    };
    let Some(kd) = prog.kinds.get(cd.kind as usize) else {
        return Face::default();
    };
    let mut title = cd.id.to_string();
    let mut rows = Vec::new();
    let text = prog
        .card_text(card as u32)
        .map(str::to_string)
        .unwrap_or_default();
    for f in kd.fields.iter().filter(|f| !f.mutable) {
        let v = field_value(prog, card, f.sym);
        if kd.text_field.is_some() && f.name == "text" {
            continue;
        }
        if f.name == "name" {
            if let Value::Text(t) = &v {
                title = t.to_string();
                continue;
            }
        }
        if matches!(f.ty, Ty::Fn(..)) || matches!(v, Value::None) || adds_nothing(&v, &f.ty) {
            continue;
        }
        rows.push((f.name.replace('_', " "), printed(view, &v, &f.ty)));
    }
    Face {
        title,
        subtitle: kd.name.clone(),
        corner: None,
        band: None,
        rows,
        text,
        footer: footer(prog, card),
        back: kd.name.clone(),
        long_grapheme: false,
    }
}

/// `@id`, and `copy 2 of 3` for a card made by `3 x id` (copies are numbered from 1).
pub fn footer(prog: &Program, card: usize) -> String {
    let Some(cd) = prog.cards.get(card) else {
        return String::new();
    };
    match &cd.copy {
        Some((n, first)) => {
            let of = prog
                .cards
                .iter()
                .filter(|c| c.copy.as_ref().is_some_and(|(_, f)| f == first))
                .count();
            format!("@{first}  ·  copy {n} of {of}")
        }
        None => format!("@{}", cd.id),
    }
}

/// One thing to draw, in page points.
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    /// A rectangle, filled and/or outlined (RGB), with an outline width.
    Rect {
        r: Rect,
        fill: Option<[u8; 3]>,
        stroke: Option<([u8; 3], f32)>,
    },
    Line {
        from: (f32, f32),
        to: (f32, f32),
        colour: [u8; 3],
        width: f32,
    },
    /// Lines of text from the top of `area`, each at its baseline; `area` is the box the text
    /// was fitted to, and `fit` what came of it.
    Text {
        area: Rect,
        fit: Fit,
        bold: bool,
        colour: [u8; 3],
        centred: bool,
        /// Which part of the card it is, as a warning names it ("the title", "the rules text").
        part: &'static str,
    },
}

/// The fonts a face is laid out with.
pub struct Fonts {
    pub regular: Metrics,
    pub bold: Metrics,
}

impl Fonts {
    pub fn load() -> Option<Fonts> {
        Some(Fonts {
            regular: Metrics::new(super::text::REGULAR)?,
            bold: Metrics::new(super::text::BOLD)?,
        })
    }

    pub fn of(&self, bold: bool) -> &Metrics {
        if bold {
            &self.bold
        } else {
            &self.regular
        }
    }
}

const BLACK: [u8; 3] = [20, 20, 20];
const GREY: [u8; 3] = [110, 110, 110];
const RULE: [u8; 3] = [180, 180, 180];
const WHITE: [u8; 3] = [255, 255, 255];

/// Lay a face out on a card: every text in a box inside the card, shrunk to fit.
pub fn layout(face: &Face, card: Rect, fonts: &Fonts) -> Vec<Op> {
    let pad = 2.5 * MM;
    let inner_w = (card.w - 2.0 * pad).max(1.0);
    let mut ops = vec![Op::Rect {
        r: card,
        fill: None,
        stroke: Some((RULE, 0.5)),
    }];
    let mut y = card.y + pad;
    let text =
        |part, area: Rect, s: &str, bold: bool, max: f32, min: f32, colour, centred| Op::Text {
            area,
            fit: fit(fonts.of(bold), s, area.w, area.h, max, min),
            bold,
            colour,
            centred,
            part,
        };
    if let Some((word, colour)) = &face.band {
        let band = Rect {
            x: card.x,
            y: card.y,
            w: card.w,
            h: 6.0 * MM,
        };
        ops.push(Op::Rect {
            r: band,
            fill: Some(*colour),
            stroke: None,
        });
        let area = Rect {
            x: card.x + pad,
            y: card.y + 1.0 * MM,
            w: inner_w,
            h: 4.0 * MM,
        };
        ops.push(text("the band", area, word, true, 8.0, 5.0, WHITE, false));
        y = card.y + band.h + 1.5 * MM;
    }
    let corner_w = if face.corner.is_some() { 9.0 * MM } else { 0.0 };
    if let Some(c) = &face.corner {
        let r = Rect {
            x: card.x + card.w - pad - corner_w + 1.0 * MM,
            y,
            w: corner_w - 1.0 * MM,
            h: corner_w - 1.0 * MM,
        };
        ops.push(Op::Rect {
            r,
            fill: None,
            stroke: Some((BLACK, 0.8)),
        });
        let area = Rect {
            x: r.x + 0.8 * MM,
            y: r.y + 1.2 * MM,
            w: r.w - 1.6 * MM,
            h: r.h - 2.0 * MM,
        };
        ops.push(text("the corner", area, c, true, 13.0, 5.0, BLACK, true));
    }
    let title_area = Rect {
        x: card.x + pad,
        y,
        w: (inner_w - corner_w).max(1.0),
        h: 10.0 * MM,
    };
    let title = text(
        "the title",
        title_area,
        &face.title,
        true,
        11.0,
        6.0,
        BLACK,
        false,
    );
    let used = match &title {
        Op::Text { fit, .. } => fit.height,
        _ => 0.0,
    };
    ops.push(title);
    y += used.max(if face.corner.is_some() {
        corner_w - 1.0 * MM
    } else {
        0.0
    }) + 0.8 * MM;
    if !face.subtitle.is_empty() {
        let area = Rect {
            x: card.x + pad,
            y,
            w: inner_w,
            h: 3.5 * MM,
        };
        ops.push(text(
            "the subtitle",
            area,
            &face.subtitle,
            false,
            7.0,
            4.5,
            GREY,
            false,
        ));
        y += area.h;
    }
    y += 0.8 * MM;
    ops.push(Op::Line {
        from: (card.x + pad, y),
        to: (card.x + card.w - pad, y),
        colour: RULE,
        width: 0.5,
    });
    y += 1.5 * MM;
    let footer_h = 3.0 * MM;
    let bottom = card.y + card.h - pad - footer_h;
    let rows: Vec<String> = face.rows.iter().map(|(k, v)| format!("{k}: {v}")).collect();
    let rows = rows.join("\n");
    ops.extend(body(
        &rows,
        &face.text,
        card.x + pad,
        y,
        inner_w,
        bottom,
        fonts,
    ));
    let foot = Rect {
        x: card.x + pad,
        y: card.y + card.h - pad - footer_h + 0.5 * MM,
        w: inner_w,
        h: footer_h - 0.5 * MM,
    };
    ops.push(text(
        "the footer",
        foot,
        &face.footer,
        false,
        5.5,
        4.0,
        GREY,
        false,
    ));
    ops
}

/// The largest and smallest sizes of a card's body (its rows and rules text), in points: short
/// text is set large to fill the card, long text steps down to fit.
pub const BODY_MAX: f32 = 12.0;
pub const BODY_MIN: f32 = 5.0;

/// The rows, then the rules text, from `top` down to `bottom` in a column at `x` of `width`:
/// both at the largest size from `BODY_MAX` down (in half points) at which they fit together, so
/// a card of a few words reads large and a long one small. When nothing fits even at
/// `BODY_MIN`, the rows get two fifths of the room and the text the rest, each cut to fit (and
/// warned about, `cut_warnings`).
fn body(
    rows: &str,
    text: &str,
    x: f32,
    top: f32,
    width: f32,
    bottom: f32,
    fonts: &Fonts,
) -> Vec<Op> {
    let gap = 1.5 * MM;
    let left = (bottom - top).max(0.0);
    let op = |part, y: f32, h: f32, fit: Fit| Op::Text {
        area: Rect { x, y, w: width, h },
        fit,
        bold: false,
        colour: BLACK,
        centred: false,
        part,
    };
    let rs = Shaped::new(&fonts.regular, rows);
    let ts = Shaped::new(&fonts.regular, text);
    let mut size = BODY_MAX;
    while size >= BODY_MIN {
        let rows_h = if rows.is_empty() {
            0.0
        } else {
            rs.height(width, size) + gap
        };
        let text_h = if text.is_empty() {
            0.0
        } else {
            ts.height(width, size)
        };
        if rows_h + text_h <= left {
            let mut out = Vec::new();
            if !rows.is_empty() {
                let h = rows_h - gap;
                out.push(op("the rows", top, h, rs.fit(width, h + 0.001, size, size)));
            }
            if !text.is_empty() {
                let y = top + rows_h;
                let h = (bottom - y).max(0.0);
                out.push(op(
                    "the rules text",
                    y,
                    h,
                    ts.fit(width, h + 0.001, size, size),
                ));
            }
            return out;
        }
        size -= 0.5;
    }
    // Too much for the card even at the smallest size: each part in its share, cut.
    let rows_h = if text.is_empty() { left } else { left * 0.4 };
    let mut out = Vec::new();
    let mut y = top;
    if !rows.is_empty() {
        let f = rs.fit(width, rows_h, BODY_MIN, 4.5);
        let h = f.height.min(rows_h);
        out.push(op("the rows", y, rows_h, f));
        y += h + gap;
    }
    if !text.is_empty() {
        let h = (bottom - y).max(0.0);
        let f = ts.fit(width, h, BODY_MIN, BODY_MIN);
        out.push(op("the rules text", y, h, f));
    }
    out
}

/// The back of a card: the game's name and the words of its back (its kind, or the deck its
/// face names), centred in a frame.
pub fn layout_back(game: &str, words: &str, card: Rect, fonts: &Fonts) -> Vec<Op> {
    let pad = 4.0 * MM;
    let frame = Rect {
        x: card.x + pad,
        y: card.y + pad,
        w: card.w - 2.0 * pad,
        h: card.h - 2.0 * pad,
    };
    let name = Rect {
        x: frame.x + 2.0 * MM,
        y: frame.y + frame.h * 0.35,
        w: frame.w - 4.0 * MM,
        h: frame.h * 0.2,
    };
    let sub = Rect {
        x: name.x,
        y: name.y + name.h + 1.0 * MM,
        w: name.w,
        h: 5.0 * MM,
    };
    vec![
        Op::Rect {
            r: card,
            fill: None,
            stroke: Some((RULE, 0.5)),
        },
        Op::Rect {
            r: frame,
            fill: None,
            stroke: Some((GREY, 1.5)),
        },
        Op::Text {
            area: name,
            fit: fit(&fonts.bold, game, name.w, name.h, 14.0, 6.0),
            bold: true,
            colour: BLACK,
            centred: true,
            part: "the game's name on the back",
        },
        Op::Text {
            area: sub,
            fit: fit(&fonts.regular, words, sub.w, sub.h, 9.0, 5.0),
            bold: false,
            colour: GREY,
            centred: true,
            part: "the words on the back",
        },
    ]
}
