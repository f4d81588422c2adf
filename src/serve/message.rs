//! Each seat's message: everything its page shows, built from that seat's view of the position
//! (`interp::player_view`, drawn as the terminal draws it, `view::screen::render`) and the events as that seat may see
//! them (`Event::for_viewer`), never from the game state itself. A spectator's message is built
//! the same way for `events::PUBLIC`.

use crate::events::{Event, PUBLIC};
use crate::interp::{player_view, CardView};
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
    let view = player_view(prog, &s.state, viewer);
    let zones: Vec<J> = view
        .zones
        .iter()
        .filter(|z| z.mine || !z.cards.is_empty())
        .map(|z| {
            let cards: Vec<J> = z
                .cards
                .iter()
                .map(|c| match c {
                    CardView::Hidden => json!({"hidden": true}),
                    CardView::Known {
                        id,
                        name,
                        face_up,
                        vars,
                    } => {
                        let i = cards.get(id).copied();
                        let line = i.and_then(|i| prog.card_line(i)).filter(|l| l != name);
                        let text = i.and_then(|i| prog.card_text(i));
                        json!({
                            "name": name,
                            "line": line,
                            "text": text,
                            "face_up": face_up,
                            "vars": vars,
                        })
                    }
                })
                .collect();
            json!({"name": z.name, "mine": z.mine, "cards": cards})
        })
        .collect();
    let vars: Vec<J> = view
        .vars
        .iter()
        .filter_map(|v| {
            v.value
                .as_ref()
                .map(|x| json!({"name": v.name, "value": x}))
        })
        .collect();
    let mut account: Vec<String> = Vec::new();
    let mut end = J::Null;
    for ev in &s.events {
        let seen = ev.for_viewer(viewer);
        if let Event::End {
            winners,
            scores,
            seed,
            seed_key,
        } = &seen
        {
            end = json!({
                "winners": winners,
                "scores": scores,
                "reason": s.state.ended_by.map(|r| r.name()),
                "seed": seed,
                "seed_key": seed_key,
            });
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
    let pending = s.pending.as_ref().filter(|_| s.stop == Stop::Pending);
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
    json!({
        "game": prog.game.name,
        "you": seat.map(|p| format!("P{}", u64::from(p) + 1)),
        "version": extra.version,
        "instance": extra.instance,
        "events": s.events.len(),
        "seats": seats,
        "round": view.round,
        "phase": view.phase,
        "screen": screen(&view),
        "zones": zones,
        "vars": vars,
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

/// The seat's screen as the terminal draws it (`view::screen::render`), whole.
fn screen(view: &crate::interp::PlayerView) -> String {
    let page = crate::view::screen::Page {
        cols: 100,
        rows: usize::MAX,
        full: true,
    };
    crate::view::screen::render(view, &page, usize::MAX).join("\n")
}
