//! Each seat's message: everything its page shows, built from that seat's view of the position
//! (`interp::player_view_words`, values in words; the game's own `screen` worked out for the seat, `interp::screen_of`,
//! and drawn as the terminal draws it, `view::screen::render_declared`) and the events as that
//! seat may see them (`Event::for_viewer`), never from the game state itself: zones in words,
//! hidden cards counted, `internal` vars left out; at the end the winners, the scores and the
//! game's own final lines (what its `finish` phase said). A spectator's message is built the
//! same way for `events::PUBLIC`.

use crate::events::{Event, PUBLIC};
use crate::interp::{player_view_words, screen_of, CardView, PlayerView, ZoneView};
use crate::program::words;
use crate::program::Program;
use crate::session::{Mode, Session, Stop};
use serde_json::{json, Value as J};
use std::collections::BTreeMap;

/// What the host adds to every message: the question's number, the undo asked, a notice.
pub struct Extra<'a> {
    /// The account's latest lines kept (`Limits::max_serve_account_lines`).
    pub account_lines: usize,
    pub question: Option<u64>,
    pub undo: &'a [u32],
    /// An answer may be taken back; else, when there is one, why not (`Host::undo_back`).
    pub can_undo: bool,
    pub undo_refused: Option<String>,
    pub version: u64,
    /// This run of the server's name: the version counts from 1 again in a new one.
    pub instance: &'a str,
    /// The game is moving on from the question it showed (a person answered, and seats that
    /// answer at the table's pace are playing): no question and nobody waited on, so every page
    /// says the game goes on.
    pub moving: bool,
}

/// Card ids to their index, for the card's printed text.
pub fn card_index(prog: &Program) -> BTreeMap<String, u32> {
    prog.cards
        .iter()
        .enumerate()
        .map(|(i, c)| (c.id.to_string(), i as u32))
        .collect()
}

/// The message for `seat` (`None`: a spectator).
pub fn build(
    s: &Session,
    cards: &BTreeMap<String, u32>,
    seat: Option<u32>,
    extra: &Extra,
) -> String {
    let prog = &s.prog;
    let viewer = seat.unwrap_or(PUBLIC);
    let view = player_view_words(prog, &s.state, viewer);
    let zones: Vec<J> = view
        .zones
        .iter()
        .filter(|z| z.mine || !z.cards.is_empty())
        .map(|z| zone(prog, cards, z, viewer))
        .collect();
    let mut account: Vec<String> = Vec::new();
    let mut end = J::Null;
    // The game's own final lines: what its `finish` phase said, as this seat may read them.
    let finish = prog
        .game
        .finish
        .and_then(|f| prog.phases.get(f as usize))
        .map(|p| p.name.as_str());
    let mut last_lines: Option<Vec<String>> = None;
    for ev in &s.events {
        let seen = ev.for_viewer(viewer);
        match &seen {
            Event::Phase { phase } if Some(phase.as_str()) == finish => {
                last_lines = Some(Vec::new());
            }
            Event::End {
                winners,
                scores,
                seed,
                seed_key,
            } => {
                end = json!({
                    "winners": winners,
                    "scores": scores,
                    "reason": s.state.ended_by.map(|r| r.name()),
                    "final_lines": last_lines.take().unwrap_or_default(),
                    "seed": seed,
                    "seed_key": seed_key,
                });
            }
            _ => {
                if let (Some(lines), Some(t)) = (last_lines.as_mut(), seen.text()) {
                    lines.extend(
                        t.lines()
                            .filter(|l| !l.trim().is_empty())
                            .map(str::to_string),
                    );
                }
            }
        }
        if let Some(t) = seen.text() {
            account.extend(t.lines().filter(|l| !l.is_empty()).map(str::to_string));
        }
    }
    let omitted = account.len().saturating_sub(extra.account_lines);
    let account: Vec<String> = account.split_off(omitted);
    let seats: Vec<J> = (0..s.players)
        .map(
            |p| json!({"name": format!("P{}", u64::from(p) + 1), "plays": s.mode_name(p as usize)}),
        )
        .collect();
    let pending = s
        .pending
        .as_ref()
        .filter(|_| s.stop == Stop::Pending && !extra.moving);
    let waiting = pending.map(|p| format!("P{}", u64::from(p.player) + 1));
    let question = match (pending, seat, extra.question) {
        (Some(p), Some(me), Some(id)) if p.player == me => {
            json!({
                "id": id,
                "prompt": p.prompt,
                "options": p.options,
                "notes": p.notes,
                "secret": p.secret,
                "amount": amount(&p.options),
                // A line of an `allocate`: the whole split, which the page asks as one form.
                "split": p.split.as_ref().map(|sp| json!({
                    "labels": sp.labels,
                    "total": sp.total,
                    "given": sp.given,
                })),
            })
        }
        _ => J::Null,
    };
    let humans: Vec<String> = (0..s.players)
        .filter(|&p| s.modes.get(p as usize) == Some(&Mode::Human))
        .map(|p| format!("P{}", u64::from(p) + 1))
        .collect();
    let undo = if extra.undo.is_empty() {
        J::Null
    } else {
        json!({
            "agreed": extra.undo.iter().map(|p| format!("P{}", u64::from(*p) + 1)).collect::<Vec<_>>(),
            "needed": humans,
        })
    };
    let screens = seat.and_then(|p| screen(s, &view, p));
    json!({
        "game": prog.game.name,
        "you": seat.map(|p| format!("P{}", u64::from(p) + 1)),
        "version": extra.version,
        "instance": extra.instance,
        "events": s.events.len(),
        "seats": seats,
        "round": view.round,
        "phase": view.phase.as_deref().map(words),
        "screen": screens.as_ref().map(|(narrow, _)| narrow),
        "screen_wide": screens.as_ref().map(|(_, wide)| wide),
        "zones": zones,
        "vars": vars(&view),
        "account": account,
        "omitted": omitted,
        "question": question,
        "undo_question": extra.question,
        "waiting": waiting,
        "undo": undo,
        "can_undo": extra.can_undo,
        "undo_refused": extra.undo_refused,
        "end": end,
        // The error itself may name what a seat may not see: the host's terminal shows it.
        "error": s.error.as_ref().map(|_| "the game stopped with an error; the host's terminal says which"),
    })
    .to_string()
}

/// A zone as the page shows it: its name in words (`story_pile[1]`: "Story pile 1", the
/// seat's own `hand[P1]`: "Your hand"), the cards the viewer knows (with their printed line
/// and text), and how many it does not: a pile of hidden cards is a count, never a card each.
fn zone(prog: &Program, cards: &BTreeMap<String, u32>, z: &ZoneView, viewer: u32) -> J {
    let known: Vec<J> = z
        .cards
        .iter()
        .filter_map(|c| match c {
            CardView::Hidden => None,
            CardView::Known {
                id,
                name,
                face_up,
                vars,
            } => {
                let i = cards.get(id).copied();
                let line = i.and_then(|i| prog.card_line(i)).filter(|l| l != name);
                let text = i.and_then(|i| prog.card_text(i));
                Some(json!({
                    "name": name,
                    "line": line,
                    "text": text,
                    "face_up": face_up,
                    "vars": vars,
                }))
            }
        })
        .collect();
    let hidden = z.cards.len() - known.len();
    json!({
        "name": zone_words(&z.name, viewer),
        "mine": z.mine,
        "cards": known,
        "hidden": hidden,
    })
}

/// `story_pile[1]` as "Story pile 1", `supporters[1, Right]` as "Supporters 1, Right",
/// `hand[P2]` as "P2's hand", and the viewer's own as "Your hand".
fn zone_words(name: &str, viewer: u32) -> String {
    let (base, keys) = match name.split_once('[') {
        Some((b, k)) => (b, k.trim_end_matches(']')),
        None => (name, ""),
    };
    let base = capital(&words(base));
    if keys.is_empty() {
        return base;
    }
    let mut keys: Vec<&str> = keys.split(", ").collect();
    let first = keys.first().copied().unwrap_or("");
    let seat = first
        .strip_prefix('P')
        .and_then(|n| n.parse::<u64>().ok())
        .filter(|&n| n >= 1);
    let Some(n) = seat else {
        return format!("{base} {}", keys.join(", "));
    };
    keys.remove(0);
    // `leader_of[P2]`: "P2's leader".
    let lower = base.to_lowercase();
    let lower = lower.strip_suffix(" of").unwrap_or(&lower);
    let owner = if n == u64::from(viewer) + 1 {
        "Your".to_string()
    } else {
        format!("P{n}'s")
    };
    if keys.is_empty() {
        format!("{owner} {lower}")
    } else {
        format!("{owner} {lower} {}", keys.join(", "))
    }
}

/// `text` with its first letter a capital.
fn capital(text: &str) -> String {
    let mut cs = text.chars();
    match cs.next() {
        Some(c) => c.to_uppercase().chain(cs).collect(),
        None => String::new(),
    }
}

/// The vars the viewer may read, in words, without the game's own bookkeeping (`internal`); a
/// keyed var's entries still at their start counted, not listed (`view::screen::fold`, as the
/// terminal's screen folds them).
fn vars(view: &PlayerView) -> Vec<J> {
    use crate::view::screen::{fold, Entry};
    let mut out = Vec::new();
    for (f, fam) in view.families.iter().enumerate() {
        if fam.internal {
            continue;
        }
        let entries: Vec<Entry> = view
            .vars
            .iter()
            .filter(|v| v.family as usize == f)
            .filter_map(|v| {
                v.value.as_ref().map(|x| Entry {
                    key: v
                        .name
                        .split_once('[')
                        .map(|(_, k)| k.trim_end_matches(']').to_string())
                        .unwrap_or_default(),
                    value: x.clone(),
                    default: v.default,
                })
            })
            .collect();
        if entries.is_empty() {
            continue;
        }
        let name = capital(&words(&fam.name));
        if !fam.keyed {
            for e in &entries {
                out.push(json!({"name": name, "value": e.value}));
            }
            continue;
        }
        let folded = fold(&entries);
        for (_, e) in &folded.listed {
            out.push(json!({"name": format!("{name} {}", e.key), "value": e.value}));
        }
        if folded.folded > 0 {
            let all = if folded.listed.is_empty() {
                "all"
            } else {
                "the other"
            };
            out.push(json!({
                "name": name,
                "value": format!("{all} {} at {}", folded.folded, folded.what),
            }));
        }
    }
    out
}

/// The seat's screen: the game's own (`screen`, worked out by the interpreter for this seat,
/// `interp::screen_of`), drawn by the terminal's code (`view::screen::render_declared`), whole,
/// at a phone's width and at a wide window's; `None` for a game that declares none (the page
/// shows the zones).
fn screen(s: &Session, view: &PlayerView, seat: u32) -> Option<(String, String)> {
    let lines = screen_of(&s.prog, &s.state, seat, s.limits)?;
    let draw = |cols: usize| {
        let page = crate::view::screen::Page {
            cols,
            rows: usize::MAX,
            full: true,
        };
        crate::view::screen::render_declared(view, &lines, &page, usize::MAX).join("\n")
    };
    Some((draw(SCREEN_COLS), draw(WIDE_SCREEN_COLS)))
}

/// The widths the page's screen is drawn at, in the page's monospace font: a phone's (390 px),
/// and a window's of 760 px or more.
const SCREEN_COLS: usize = 44;
const WIDE_SCREEN_COLS: usize = 88;
/// When every option is a whole number, one more than the one before (an amount), the page
/// shows a number field: the range.
fn amount(options: &[String]) -> J {
    let nums: Option<Vec<i64>> = options.iter().map(|o| o.trim().parse().ok()).collect();
    match nums.as_deref() {
        Some([first, .., last])
            if options.len() > 2
                && nums
                    .as_deref()
                    .is_some_and(|n| n.windows(2).all(|w| w[0].checked_add(1) == Some(w[1]))) =>
        {
            json!({"min": first, "max": last})
        }
        _ => J::Null,
    }
}
