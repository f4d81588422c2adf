//! A seat's screen before it answers (`rules run` with a human seat): what that seat may read,
//! folded to fit one terminal page. Vars the game marks `internal` are left out, a keyed var's
//! entries that still hold their starting value are counted instead of listed (`fold`, which the
//! REPL's `:state` uses too), runs of equal values are written once (`P1-P5: Faction A`), and
//! three or more other players' zones that look alike share a line. `Page::full` shows
//! everything, unfolded.

use super::{CardView, PlayerView, ScreenLine, ZoneView};

/// A keyed var's entries holding their starting value are folded once there are this many.
pub const FOLD_AT: usize = 3;

/// One entry of a keyed var: its key, its value as text, and whether it holds the value the
/// game started it with.
pub struct Entry {
    pub key: String,
    pub value: String,
    pub default: bool,
}

/// A keyed var's entries, folded: those to list (with their place among all the entries), and
/// how many were left out, holding what (`0`, or `their start` when they differ).
pub struct Folded<'a> {
    pub listed: Vec<(usize, &'a Entry)>,
    pub folded: usize,
    pub what: String,
}

/// Fold the entries that hold their starting value, when there are at least `FOLD_AT` of them.
pub fn fold(entries: &[Entry]) -> Folded<'_> {
    let defaults = entries.iter().filter(|e| e.default).count();
    if defaults < FOLD_AT {
        return Folded {
            listed: entries.iter().enumerate().collect(),
            folded: 0,
            what: String::new(),
        };
    }
    let mut kinds: Vec<&str> = entries
        .iter()
        .filter(|e| e.default)
        .map(|e| e.value.as_str())
        .collect();
    kinds.sort_unstable();
    kinds.dedup();
    let what = match kinds.as_slice() {
        [""] => "\"\"".to_string(),
        [one] => (*one).to_string(),
        _ => "their start".to_string(),
    };
    Folded {
        listed: entries
            .iter()
            .enumerate()
            .filter(|(_, e)| !e.default)
            .collect(),
        folded: defaults,
        what,
    }
}

/// The terminal page a screen must fit, and whether to show everything instead (`--full`).
#[derive(Debug, Clone, Copy)]
pub struct Page {
    pub cols: usize,
    pub rows: usize,
    pub full: bool,
}

impl Default for Page {
    /// 100 columns by 40 lines, folded.
    fn default() -> Page {
        Page {
            cols: 100,
            rows: 40,
            full: false,
        }
    }
}

/// The width of a zone's or var's name column.
const NAME: usize = 24;

/// How many lines each thing may take: the seat's own zones, the other zones, each var.
#[derive(Clone, Copy)]
struct Room {
    mine: usize,
    others: usize,
    var: usize,
    /// The seat's empty zones named together in one line, not one line each.
    empties: bool,
}

/// From roomy to tight: the first that fits the page is taken.
const ROOMS: [Room; 3] = [
    Room {
        mine: 4,
        others: 2,
        var: 3,
        empties: false,
    },
    Room {
        mine: 3,
        others: 1,
        var: 2,
        empties: true,
    },
    Room {
        mine: 2,
        others: 1,
        var: 1,
        empties: true,
    },
];

/// A screen line and how much it may be left out when the page is short: 0 never (the header,
/// the seat's own zones, the vars), 1 another zone with cards the seat knows, 2 a zone whose
/// cards are all hidden from it.
type Line = (u8, String);

/// `--- what P1 sees (round 2, support) ---`
fn header(view: &PlayerView) -> String {
    let phase = view.phase.as_deref().unwrap_or("setup");
    format!(
        "--- what P{} sees (round {}, {phase}) ---",
        view.player + 1,
        view.round
    )
}

/// The label column of a game's own screen is at most this wide; a longer label pushes its
/// value over.
const LABEL: usize = 18;

/// A game's own screen (its `screen` declaration, worked out for the seat): the header, then
/// each line as `Label  value`, a list's items joined and wrapped under the value's column (a
/// few cards each on a line of their own), within `rows` lines: each single value (a long text)
/// given fewer and fewer lines until the screen fits (a list is never cut, so none of its items
/// goes missing), then the last lines left out.
pub fn render_declared(
    view: &PlayerView,
    lines: &[ScreenLine],
    page: &Page,
    rows: usize,
) -> Vec<String> {
    let cols = page.cols.max(LABEL + 20);
    let width = lines
        .iter()
        .map(|l| l.label.chars().count())
        .filter(|&n| n <= LABEL)
        .max()
        .unwrap_or(0);
    // `max`: the lines each value may take; `packed`: a few cards share one line too.
    let build = |max: Option<usize>, packed: bool| -> Vec<String> {
        let mut out = vec![header(view)];
        for l in lines {
            let head = if l.label.is_empty() {
                String::new()
            } else {
                format!("{:<width$}  ", l.label)
            };
            let mut items: Vec<String> = l.items.clone();
            if items.is_empty() {
                items.push("-".to_string());
            }
            let each: Vec<Vec<String>> = if l.each_line && !packed {
                items.into_iter().map(|i| vec![i]).collect()
            } else {
                vec![items]
            };
            let mut first = true;
            for group in each {
                let lead = if first {
                    head.clone()
                } else {
                    " ".repeat(head.chars().count())
                };
                first = false;
                let room = cols.saturating_sub(lead.chars().count()).max(20);
                // Items that have commas of their own are told apart with semicolons.
                let sep = if group.len() > 1 && group.iter().any(|i| i.contains(", ")) {
                    "; "
                } else {
                    ", "
                };
                let text = group.join(sep);
                let mut wrapped = wrap_words(&text, room);
                // A list is wrapped whole: cut short, an item (a card in hand) would go missing.
                if let Some(max) = max.filter(|_| group.len() <= 1) {
                    if wrapped.len() > max {
                        wrapped.truncate(max);
                        if let Some(last) = wrapped.last_mut() {
                            *last = clip(&format!("{last} …"), room);
                        }
                    }
                }
                let pad = " ".repeat(lead.chars().count());
                for (k, w) in wrapped.into_iter().enumerate() {
                    out.push(format!("{}{w}", if k == 0 { &lead } else { &pad }));
                }
            }
        }
        out
    };
    if page.full {
        return build(None, false);
    }
    let mut out = Vec::new();
    for (max, packed) in [(4, false), (2, false), (1, false), (1, true)] {
        out = build(Some(max), packed);
        if out.len() <= rows {
            return out;
        }
    }
    let keep = rows.max(2) - 1;
    let left_out = out.len().saturating_sub(keep);
    out.truncate(keep);
    out.push(format!(
        "  ... {left_out} more line{} (type :full to see everything)",
        if left_out == 1 { "" } else { "s" }
    ));
    out
}

/// `text` in lines of at most `width` characters, broken at spaces (a longer word cut).
fn wrap_words(text: &str, width: usize) -> Vec<String> {
    let width = width.max(10);
    let mut lines = Vec::new();
    let mut cur = String::new();
    for word in text.split(' ') {
        if !cur.is_empty() && cur.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut cur));
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(word);
        while cur.chars().count() > width {
            lines.push(cur.chars().take(width).collect());
            cur = cur.chars().skip(width).collect();
        }
    }
    if !cur.is_empty() || lines.is_empty() {
        lines.push(cur);
    }
    lines
}

/// The screen's lines: a header, the zones, the vars, within `rows` lines (unless `page.full`).
pub fn render(view: &PlayerView, page: &Page, rows: usize) -> Vec<String> {
    let header = header(view);
    let cols = page.cols.max(NAME + 20);
    let lines = |room: Option<Room>| -> Vec<Line> {
        let mut out = vec![(0, header.clone())];
        out.extend(zone_lines(view, cols, room));
        out.extend(var_lines(view, cols, room));
        out
    };
    if page.full {
        return lines(None).into_iter().map(|(_, l)| l).collect();
    }
    let mut out = Vec::new();
    for room in ROOMS {
        out = lines(Some(room));
        if out.len() <= rows {
            return out.into_iter().map(|(_, l)| l).collect();
        }
    }
    // Still too long: leave out the zones of hidden cards, then the other zones, from the
    // bottom up, then whatever comes last.
    let keep = rows.max(2) - 1;
    let mut over = out.len().saturating_sub(keep);
    let left_out = over;
    for level in [2u8, 1, 0] {
        let mut k = out.len();
        while over > 0 && k > 1 {
            k -= 1;
            if out.get(k).is_some_and(|(l, _)| *l == level) {
                out.remove(k);
                over -= 1;
            }
        }
    }
    let mut shown: Vec<String> = out.into_iter().map(|(_, l)| l).collect();
    shown.push(format!(
        "  ... {left_out} more line{} (type :full to see them)",
        if left_out == 1 { "" } else { "s" }
    ));
    shown
}

/// `text` cut to `max` characters, ending in `…` when cut.
fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut s: String = text.chars().take(max.saturating_sub(1)).collect();
    s.push('…');
    s
}

/// A zone's family name: `hand` for `hand[P2]`.
fn family_of(name: &str) -> &str {
    name.split('[').next().unwrap_or(name)
}

/// A zone slot's keys: `P2` for `hand[P2]`.
fn keys_of(name: &str) -> &str {
    name.split_once('[')
        .map(|(_, k)| k.trim_end_matches(']'))
        .unwrap_or("")
}

/// The cards of a zone as the seat sees them: names (`(face down)`, their var fields that hold
/// something and do not just repeat the zone's key, like `owner P1` in `hand[P1]`), alike cards
/// in a row written once (`Secondary Finance ×5`), then the count of hidden cards.
fn zone_items(z: &ZoneView) -> Vec<String> {
    let keys: Vec<&str> = keys_of(&z.name).split(", ").collect();
    let mut names: Vec<(String, usize)> = Vec::new();
    let mut hidden = 0;
    for c in &z.cards {
        match c {
            CardView::Hidden => hidden += 1,
            CardView::Known {
                name,
                face_up,
                vars,
                ..
            } => {
                let mut t = name.clone();
                if !face_up {
                    t.push_str(" (face down)");
                }
                let vs: Vec<String> = vars
                    .iter()
                    .filter(|(_, x)| !matches!(x.as_str(), "none" | "0" | "false" | "[]" | ""))
                    .filter(|(_, x)| !keys.contains(&x.as_str()))
                    .map(|(n, x)| format!("{n} {x}"))
                    .collect();
                if !vs.is_empty() {
                    t.push_str(&format!(" [{}]", vs.join(", ")));
                }
                match names.last_mut() {
                    Some((last, n)) if *last == t => *n += 1,
                    _ => names.push((t, 1)),
                }
            }
        }
    }
    let mut items: Vec<String> = names
        .into_iter()
        .map(|(t, n)| if n > 1 { format!("{t} ×{n}") } else { t })
        .collect();
    if hidden > 0 {
        items.push(format!(
            "{hidden} hidden card{}",
            if hidden == 1 { "" } else { "s" }
        ));
    }
    if items.is_empty() {
        items.push("-".to_string());
    }
    items
}

/// A zone's lines: `mark`, its name, its cards, in at most `max` lines (all, when `None`).
fn zone_line(
    mark: &str,
    name: &str,
    items: &[String],
    cols: usize,
    max: Option<usize>,
) -> Vec<String> {
    match max {
        None => vec![format!("{mark} {name:<NAME$} {}", items.join(", "))],
        Some(max) => packed(&format!("{mark} {name}"), items, ", ", cols, max),
    }
}

/// The zones: the seat's own (`*`) and the others that hold cards. Folded (`room` given),
/// three or more of one zone's other slots that look the same share a line, and on a short
/// page the seat's empty zones are named in one line at the end.
fn zone_lines(view: &PlayerView, cols: usize, room: Option<Room>) -> Vec<Line> {
    let mut out: Vec<Line> = Vec::new();
    let mut empty: Vec<String> = Vec::new();
    // One zone's slots at a time (`hand[P1]`, `hand[P2]`, ...).
    for slots in view
        .zones
        .chunk_by(|a, b| family_of(&a.name) == family_of(&b.name))
    {
        let fam = slots.first().map_or("", |z| family_of(&z.name));
        // Each slot with its cards as shown; folded, three or more other slots alike share
        // one line, where the first of them is.
        let shown: Vec<(&ZoneView, Vec<String>)> =
            slots.iter().map(|z| (z, zone_items(z))).collect();
        let mut done: Vec<&str> = Vec::new();
        for (z, items) in &shown {
            if z.mine {
                if z.cards.is_empty() && room.is_some_and(|r| r.empties) {
                    empty.push(z.name.clone());
                } else {
                    let lines = zone_line("*", &z.name, items, cols, room.map(|r| r.mine));
                    out.extend(lines.into_iter().map(|l| (0, l)));
                }
                continue;
            }
            if z.cards.is_empty() || done.contains(&z.name.as_str()) {
                continue;
            }
            let level = if z.cards.iter().all(|c| *c == CardView::Hidden) {
                2
            } else {
                1
            };
            let max = room.map(|r| r.others);
            let alike: Vec<&str> = shown
                .iter()
                .filter(|(o, its)| !o.mine && !o.cards.is_empty() && its == items)
                .map(|(o, _)| o.name.as_str())
                .collect();
            if room.is_some() && alike.len() >= 3 {
                let keys: Vec<&str> = alike.iter().map(|n| keys_of(n)).collect();
                let name = format!("{fam}[{}]", keys.join(", "));
                let mut each = items.clone();
                if let Some(last) = each.last_mut() {
                    last.push_str(" each");
                }
                done.extend(alike);
                let lines = zone_line(" ", &name, &each, cols, max);
                out.extend(lines.into_iter().map(|l| (level, l)));
            } else {
                let lines = zone_line(" ", &z.name, items, cols, max);
                out.extend(lines.into_iter().map(|l| (level, l)));
            }
        }
    }
    if !empty.is_empty() {
        let lines = packed("* empty:", &empty, ", ", cols, 2);
        out.extend(lines.into_iter().map(|l| (1, l)));
    }
    out
}

/// `label` then `items` joined with `sep`, wrapped at `cols` between items into at most
/// `max_lines` lines (the last cut with `…` when it does not fit), continuation lines indented
/// under the text.
fn packed(label: &str, items: &[String], sep: &str, cols: usize, max_lines: usize) -> Vec<String> {
    let first = format!("{label:<w$} ", w = NAME + 2);
    let indent = " ".repeat(first.chars().count());
    let room = cols.saturating_sub(indent.len()).max(20);
    let mut lines: Vec<String> = Vec::new();
    let mut cur = String::new();
    for (k, item) in items.iter().enumerate() {
        let piece = if k == 0 {
            item.to_string()
        } else {
            format!("{sep}{item}")
        };
        if !cur.is_empty() && cur.chars().count() + piece.chars().count() > room {
            cur.push_str(sep.trim_end());
            lines.push(std::mem::take(&mut cur));
            cur.push_str(item);
        } else {
            cur.push_str(&piece);
        }
    }
    lines.push(cur);
    let cut = lines.len() > max_lines.max(1);
    lines.truncate(max_lines.max(1));
    let n = lines.len();
    lines
        .into_iter()
        .enumerate()
        .map(|(k, l)| {
            let l = if k + 1 == n && cut {
                let mut l = clip(l.trim_end_matches(sep.trim_end()), room.saturating_sub(2));
                if !l.ends_with('…') {
                    l.push_str(" …");
                }
                l
            } else {
                clip(&l, room)
            };
            if k == 0 {
                format!("{first}{l}")
            } else {
                format!("{indent}{l}")
            }
        })
        .collect()
}

/// The vars the seat may read. Folded (`room` given): `internal` ones are left out, keyed
/// entries that hold their starting value are counted (`fold`), runs of three or more equal
/// values among consecutive keys are written once, vars holding only their starting value are
/// named in one line at the end, and each var takes at most `room.var` lines.
fn var_lines(view: &PlayerView, cols: usize, room: Option<Room>) -> Vec<Line> {
    let folded_screen = room.is_some();
    let mut out: Vec<Line> = Vec::new();
    let mut unchanged: Vec<String> = Vec::new();
    for (id, fam) in view.families.iter().enumerate() {
        if fam.internal && folded_screen {
            continue;
        }
        let entries: Vec<Entry> = view
            .vars
            .iter()
            .filter(|v| v.family as usize == id)
            .filter_map(|v| {
                let value = v.value.clone()?;
                let key = keys_of(&v.name);
                Some(Entry {
                    key: if key.contains(", ") {
                        format!("[{key}]")
                    } else {
                        key.to_string()
                    },
                    value,
                    default: v.default && folded_screen,
                })
            })
            .collect();
        if entries.is_empty() {
            continue;
        }
        if folded_screen && entries.iter().all(|e| e.default) {
            unchanged.push(fam.name.clone());
            continue;
        }
        let items: Vec<String> = if fam.keyed {
            let folded = fold(&entries);
            let mut items = runs(&folded.listed);
            if folded.folded > 0 {
                items.push(format!(
                    "{} other{} {}",
                    folded.folded,
                    if folded.folded == 1 { "" } else { "s" },
                    folded.what
                ));
            }
            items
        } else {
            entries.iter().map(|e| e.value.clone()).collect()
        };
        let sep = if items.iter().any(|i| i.contains(", ")) {
            "; "
        } else {
            ", "
        };
        match room {
            None => out.push((0, format!("  {:<NAME$} {}", fam.name, items.join(sep)))),
            Some(r) => out.extend(
                packed(&format!("  {}", fam.name), &items, sep, cols, r.var)
                    .into_iter()
                    .map(|l| (0, l)),
            ),
        }
    }
    if !unchanged.is_empty() {
        out.extend(
            packed("  as at the start:", &unchanged, ", ", cols, 2)
                .into_iter()
                .map(|l| (1, l)),
        );
    }
    out
}

/// The listed entries as `key: value`, three or more neighbours with one value as one
/// (`P1-P5: Faction A`).
fn runs(listed: &[(usize, &Entry)]) -> Vec<String> {
    let mut out = Vec::new();
    let mut k = 0;
    while let Some(&(at, e)) = listed.get(k) {
        let mut end = k;
        while let Some(&(next_at, next)) = listed.get(end + 1) {
            if next_at != at + (end + 1 - k) || next.value != e.value {
                break;
            }
            end += 1;
        }
        // Runs only of players or numbers (`P1-P5`), not of names or across several keys.
        let counted = |key: &str| key.trim_start_matches('P').parse::<i64>().is_ok();
        match listed.get(end) {
            Some((_, last)) if end - k + 1 >= 3 && counted(&e.key) => {
                out.push(format!("{}-{}: {}", e.key, last.key, e.value));
                k = end + 1;
            }
            _ => {
                out.push(format!("{}: {}", e.key, e.value));
                k += 1;
            }
        }
    }
    out
}
