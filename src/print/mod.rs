//! `rules print`: print-and-play sheets of a game's cards. The cards are the checked program's
//! (so a misprint is a check error first); each kind's face is laid out by `face`, placed on
//! pages by `sheet`, and drawn by `pdf` (krilla, fonts embedded) or `svg`.

pub mod face;
pub mod pdf;
pub mod sheet;
pub mod svg;
pub mod text;

use crate::diag::{Diag, Sources};
use crate::interp::View;
use crate::limits::Limits;
use crate::program::{FaceSlot, Program};
use crate::value::Value;
use face::{Face, Fonts, Op};
use sheet::{CardSize, Paper, Sheet};

/// How to print.
#[derive(Debug, Clone)]
pub struct Options {
    pub size: CardSize,
    pub paper: Paper,
    pub bleed_mm: f32,
    /// A page of backs after each page of faces, mirrored for printing on both sides.
    pub backs: bool,
}

/// Which cards to print.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    pub kind: Option<String>,
    /// Card ids, with or without the `@`.
    pub ids: Vec<String>,
    /// Only the cards declared in this file (as named in diagnostics, or a path ending so).
    pub file: Option<String>,
}

/// A page: what to draw on it, and whether it is a page of backs.
#[derive(Debug, Clone)]
pub struct Page {
    pub ops: Vec<Op>,
    pub back: bool,
    /// The cards on it, in cell order (for backs, the faces they stand behind).
    pub cards: Vec<usize>,
    /// Texts that did not fit their boxes even at their smallest sizes: the card, and the
    /// drawing operation (an `Op::Text`) that was cut.
    pub cut: Vec<(usize, Op)>,
}

/// The cards selected, in declaration order, each copy its own card. An unknown kind, id or
/// file is an error naming what there is.
pub fn select(prog: &Program, sources: &Sources, sel: &Selection) -> Result<Vec<usize>, String> {
    let kind = match &sel.kind {
        Some(k) => Some(prog.kind_by_name(k).ok_or_else(|| {
            let help = crate::diag::did_you_mean(k, prog.kinds.iter().map(|k| k.name.as_str()))
                .unwrap_or_else(|| {
                    let names: Vec<&str> = prog.kinds.iter().map(|k| k.name.as_str()).collect();
                    format!("the kinds are: {}", names.join(", "))
                });
            format!("no card kind `{k}`; {help}")
        })?),
        None => None,
    };
    let file = match &sel.file {
        Some(f) => {
            let want = f.trim_start_matches("./");
            let found = sources
                .files
                .iter()
                .position(|s| s.name == want || s.name.ends_with(&format!("/{want}")));
            Some(found.ok_or_else(|| {
                format!("`{f}` is not one of the game's files (see `rules check` for the list)")
            })? as u32)
        }
        None => None,
    };
    let mut ids = Vec::new();
    for id in &sel.ids {
        let id = id.trim().trim_start_matches('@');
        if id.is_empty() {
            continue;
        }
        let found: Vec<usize> = (0..prog.cards.len())
            .filter(|&c| {
                let cd = &prog.cards[c];
                cd.id.to_string() == id
                    || cd.copy.as_ref().is_some_and(|(_, f)| f.to_string() == id)
            })
            .collect();
        if found.is_empty() {
            let names: Vec<String> = prog.cards.iter().map(|c| c.id.to_string()).collect();
            let help = crate::diag::did_you_mean(id, names.iter().map(|s| s.as_str()))
                .map(|h| format!("; {h}"))
                .unwrap_or_default();
            return Err(format!("there is no card `@{id}`{help}"));
        }
        ids.extend(found);
    }
    let cards: Vec<usize> = (0..prog.cards.len())
        .filter(|&c| {
            let cd = &prog.cards[c];
            kind.is_none_or(|k| cd.kind == k)
                && file.is_none_or(|f| cd.span.file == f)
                && (sel.ids.is_empty() || ids.contains(&c))
        })
        .collect();
    if cards.is_empty() {
        return Err("no card matches: nothing to print".into());
    }
    Ok(cards)
}

/// The face of each card: its kind's declared face where it has one, else the default. A
/// face's code that fails on a card (a field of `none`, say) is that error.
pub fn faces(prog: &Program, cards: &[usize], limits: &Limits) -> Result<Vec<Face>, Box<Diag>> {
    let zone_base: Vec<u32> = Vec::new();
    let view = View {
        prog,
        n_players: prog.game.min_players.max(1),
        zone_base: &zone_base,
    };
    let mut out: Vec<Face> = cards
        .iter()
        .map(|&c| face::default_face(prog, &view, c))
        .collect();
    for fd in &prog.faces {
        let mine: Vec<usize> = (0..cards.len())
            .filter(|&i| prog.cards.get(cards[i]).is_some_and(|c| c.kind == fd.kind))
            .collect();
        if mine.is_empty() {
            continue;
        }
        let ids: Vec<usize> = mine.iter().map(|&i| cards[i]).collect();
        let exprs: Vec<&crate::program::Expr> = fd
            .slots
            .iter()
            .map(|(_, e)| e)
            .chain(fd.show.iter().flatten().map(|(_, e)| e))
            .collect();
        let values = crate::interp::card_values(prog, *limits, fd.locals, fd.slot, &ids, &exprs)?;
        for (&i, vals) in mine.iter().zip(values) {
            let f = &mut out[i];
            let (parts, shown) = vals.split_at(fd.slots.len().min(vals.len()));
            for ((slot, _), (v, text)) in fd.slots.iter().zip(parts) {
                let text = text.clone();
                match slot {
                    FaceSlot::Title => f.title = text,
                    FaceSlot::Subtitle => f.subtitle = text,
                    FaceSlot::Corner => f.corner = Some(text).filter(|t| !t.is_empty()),
                    FaceSlot::Band => {
                        let text = match v {
                            Value::Enum(e, x) => view.enum_words(*e, *x),
                            _ => text,
                        };
                        let colour = match v {
                            Value::Enum(_, i) => face::band_colour(*i as usize),
                            Value::Bool(b) => face::band_colour(usize::from(*b)),
                            _ => face::band_colour(0),
                        };
                        f.band = Some((text, colour)).filter(|(t, _)| !t.is_empty() && t != "none");
                    }
                    FaceSlot::Text => f.text = text,
                    FaceSlot::Back => {
                        if !text.is_empty() {
                            f.back = text;
                        }
                    }
                }
            }
            if let Some(show) = &fd.show {
                // A shown field reads as the card tables write it (a table's entries by range).
                let kd = prog.kinds.get(fd.kind as usize);
                f.rows = show
                    .iter()
                    .zip(shown)
                    .filter_map(|((label, _), (v, text))| {
                        let field = kd.and_then(|k| {
                            k.fields
                                .iter()
                                .find(|fl| fl.name.replace('_', " ") == *label)
                        });
                        if field.is_some_and(|fl| face::adds_nothing(v, &fl.ty)) {
                            return None;
                        }
                        let text = match field {
                            Some(fl) => face::printed(&view, v, &fl.ty),
                            None => text.clone(),
                        };
                        Some((label.clone(), text))
                    })
                    .collect();
            }
        }
    }
    for f in &mut out {
        f.cap_graphemes();
    }
    Ok(out)
}

/// The pages: faces, and after each page of faces its backs when asked.
pub fn pages(
    prog: &Program,
    cards: &[usize],
    opts: &Options,
    limits: &Limits,
) -> Result<(Sheet, Vec<Page>), Box<Diag>> {
    let usage = |m: String| Box::new(Diag::error("print::usage", m));
    let sheet = Sheet::new(opts.paper, opts.size, opts.bleed_mm).map_err(usage)?;
    let fonts = Fonts::load().ok_or_else(|| usage("the bundled fonts are unreadable".into()))?;
    let faces = faces(prog, cards, limits)?;
    let per = sheet.per_page().max(1);
    let mut pages = Vec::new();
    for (chunk, cards_on) in faces.chunks(per).zip(cards.chunks(per)) {
        let mut ops = Vec::new();
        let mut cut = Vec::new();
        for (i, (f, &c)) in chunk.iter().zip(cards_on).enumerate() {
            let laid = face::layout(f, sheet.card_rect(i, false), &fonts);
            cut.extend(cuts(c, &laid));
            ops.extend(laid);
        }
        ops.extend(crop_ops(&sheet));
        pages.push(Page {
            ops,
            back: false,
            cards: cards_on.to_vec(),
            cut,
        });
        if opts.backs {
            let mut ops = Vec::new();
            let mut cut = Vec::new();
            for (i, (f, &c)) in chunk.iter().zip(cards_on).enumerate() {
                let laid =
                    face::layout_back(&prog.game.name, &f.back, sheet.card_rect(i, true), &fonts);
                cut.extend(cuts(c, &laid));
                ops.extend(laid);
            }
            ops.extend(crop_ops(&sheet));
            pages.push(Page {
                ops,
                back: true,
                cards: cards_on.to_vec(),
                cut,
            });
        }
    }
    Ok((sheet, pages))
}

/// A warning for each card whose printed text uses characters the bundled fonts cannot draw
/// (they print as empty boxes): the card, its characters, and where the card is declared.
pub fn unprintable(
    prog: &Program,
    cards: &[usize],
    limits: &Limits,
) -> Result<Vec<Diag>, Box<Diag>> {
    let usage = |m: String| Box::new(Diag::error("print::usage", m));
    let fonts = Fonts::load().ok_or_else(|| usage("the bundled fonts are unreadable".into()))?;
    let faces = faces(prog, cards, limits)?;
    let mut out = Vec::new();
    for (f, &c) in faces.iter().zip(cards) {
        let Some(card) = prog.cards.get(c) else {
            continue;
        };
        let mut missing = fonts.bold.missing(&f.title);
        let mut seen: std::collections::BTreeSet<char> = missing.iter().copied().collect();
        let band = f.band.as_ref().map(|(t, _)| t.as_str()).unwrap_or("");
        let corner = f.corner.as_deref().unwrap_or("");
        let rows: String = f.rows.iter().map(|(l, v)| format!("{l} {v} ")).collect();
        for text in [
            band,
            corner,
            f.subtitle.as_str(),
            &rows,
            &f.text,
            &f.footer,
            &f.back,
        ] {
            for ch in fonts.regular.missing(text) {
                if seen.insert(ch) {
                    missing.push(ch);
                }
            }
        }
        if f.long_grapheme {
            out.push(
                Diag::warning(
                    "print::grapheme",
                    format!(
                        "@{}: a character of its printed text carries more than {} marks or \
                         joiners; the rest of them are left out",
                        card.id,
                        Limits::PRINT_GRAPHEME_CHARS - 1
                    ),
                )
                .label(card.span, "this card's printed text"),
            );
        }
        if missing.is_empty() {
            continue;
        }
        let shown: Vec<String> = missing
            .iter()
            .take(8)
            .map(|ch| format!("{ch} (U+{:04X})", u32::from(*ch)))
            .collect();
        let more = missing.len().saturating_sub(8);
        let more = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        out.push(
            Diag::warning(
                "print::glyph",
                format!(
                    "@{}: the bundled font has no glyph for {}{more}; these print as empty boxes",
                    card.id,
                    shown.join(", ")
                ),
            )
            .label(card.span, "this card's printed text")
            .help(
                "the bundled font (DejaVu Sans Condensed) covers Latin, Greek and Cyrillic; \
                 write the text in those scripts or expect boxes",
            ),
        );
    }
    Ok(out)
}

/// The texts of one card's layout that were cut.
fn cuts(card: usize, ops: &[Op]) -> Vec<(usize, Op)> {
    ops.iter()
        .filter(|op| matches!(op, Op::Text { fit, .. } if !fit.complete))
        .map(|op| (card, op.clone()))
        .collect()
}

/// A warning for each card some of whose text did not fit (at the card size printed, even at
/// the text's smallest size): the card, each part cut and how much of it was left out, and
/// where the card is declared. A card cut on both its face and its back is named once.
pub fn cut_warnings(prog: &Program, pages: &[Page], size: CardSize) -> Vec<Diag> {
    let mut by_card: std::collections::BTreeMap<usize, Vec<String>> = Default::default();
    for page in pages {
        for (card, op) in &page.cut {
            let Op::Text { fit, part, .. } = op else {
                continue;
            };
            let what = if fit.shown == 0 || fit.lines.is_empty() {
                format!("{part} (none of it printed)")
            } else {
                let start: String = fit
                    .left_out_start
                    .chars()
                    .flat_map(char::escape_debug)
                    .collect();
                let more = if fit.left_out > fit.left_out_start.chars().count() {
                    "…"
                } else {
                    ""
                };
                format!(
                    "{part} ({} character{} left out, from “{start}{more}”)",
                    fit.left_out,
                    if fit.left_out == 1 { "" } else { "s" }
                )
            };
            by_card.entry(*card).or_default().push(what);
        }
    }
    by_card
        .into_iter()
        .filter_map(|(c, parts)| {
            let card = prog.cards.get(c)?;
            Some(
                Diag::warning(
                    "print::cut",
                    format!(
                        "@{}: not all of its text fits a {} x {} mm card, even at the smallest \
                         size: {}",
                        card.id,
                        size.w,
                        size.h,
                        parts.join("; ")
                    ),
                )
                .label(card.span, "this card")
                .help("print on a larger card (`--size`, as `poker` or `70x120mm`), or shorten the text"),
            )
        })
        .collect()
}

fn crop_ops(sheet: &Sheet) -> Vec<Op> {
    sheet
        .crop_marks()
        .into_iter()
        .map(|(x1, y1, x2, y2)| Op::Line {
            from: (x1, y1),
            to: (x2, y2),
            colour: [0, 0, 0],
            width: 0.3,
        })
        .collect()
}
