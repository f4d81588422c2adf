//! A game's own `screen` (`screen p { "Bank": bank[p] }`), worked out for the seat about to be
//! asked, as that seat may read it: the seat is the observer, so a line that reads what it may
//! not see shows `(hidden)`, and cards it does not know are hidden cards. The work is not
//! charged to the game (the step count is put back), so a game plays the same whether or not
//! a person reads its screens. `screen_of` works it out for any seat in any position (a served
//! game shows each seat its screen at every change, not only the seat asked).

use super::seen::ScreenLine;
use super::*;
use crate::value::Value;
use visibility::HIDDEN_VALUE;

/// A list of at most this many cards shows each card on a line of its own, as its `describe`
/// line; a longer one names them on one line.
const CARDS_ON_LINES: usize = 3;

/// More cards show their `describe` lines side by side when each is at most this long.
const SHORT_LINE: usize = 48;

/// The game's `screen` for `seat` in `state`, as that seat may read it; `None` when the game
/// declares none or `seat` is no player (a spectator). Worked out on a copy of the state, so
/// nothing of the game changes.
pub fn screen_of(
    prog: &Program,
    state: &State,
    seat: u32,
    limits: Limits,
) -> Option<Vec<ScreenLine>> {
    prog.screen.as_ref()?;
    if seat >= state.n_players {
        return None;
    }
    let mut me = Interp::from_state(prog, 0, limits, state.clone()).ok()?;
    me.screen_lines(seat)
}

impl<'p> Interp<'p> {
    /// The game's `screen` for `seat`, or `None` when it declares none. A line whose value is
    /// `none` is left out.
    pub(crate) fn screen_lines(&mut self, seat: u32) -> Option<Vec<ScreenLine>> {
        let sc = self.prog.screen.as_ref()?;
        let steps = self.state.steps_left;
        let before = self.observer.replace(seat);
        self.displaying += 1;
        let mut out = Vec::with_capacity(sc.lines.len());
        let _ = self.with_frame(sc.locals, |me| {
            me.set_local(sc.slot, Value::Player(seat));
            for (label, value) in &sc.lines {
                let label = match me.eval(label) {
                    Ok(v) => me.words_for(&v, Some(seat)),
                    Err(_) => HIDDEN_VALUE.to_string(),
                };
                let line = match me.eval(value) {
                    Ok(Value::None) => continue,
                    Ok(v) => me.screen_items(label, &v, seat),
                    Err(_) => ScreenLine {
                        label,
                        items: vec![HIDDEN_VALUE.to_string()],
                        each_line: false,
                    },
                };
                out.push(line);
            }
            Ok(Value::None)
        });
        self.displaying -= 1;
        self.observer = before;
        self.state.steps_left = steps;
        Some(out)
    }

    /// A value as a screen line's items: a zone's cards or a list's elements one item each (a
    /// few cards each on a line of their own, as their `describe` line; more cards side by side,
    /// as their lines when these are short, else their names), else the value; lists and
    /// tuples in words (`View::prose_parts`: `(Faction A, 0)` reads "Faction A 0").
    fn screen_items(&self, label: String, v: &Value, seat: u32) -> ScreenLine {
        let view = self.view();
        let known = &self.state.known;
        let cards: Vec<Value>;
        let items: &[Value] = match v {
            Value::Zone(z) => {
                cards = self
                    .state
                    .zones
                    .get(*z as usize)
                    .map(|cs| cs.iter().map(|&c| Value::Card(c)).collect())
                    .unwrap_or_default();
                &cards
            }
            Value::List(xs) => &xs[..],
            other => {
                let each = matches!(other, Value::Card(_));
                let shown = view.prose_parts(other, known, each);
                return ScreenLine {
                    label,
                    items: vec![shown.for_viewer(seat).words()],
                    each_line: false,
                };
            }
        };
        let all_cards = !items.is_empty() && items.iter().all(|x| matches!(x, Value::Card(_)));
        let each_line = all_cards && items.len() <= CARDS_ON_LINES;
        // Each item in words: a tuple's values side by side ("Faction A 0"), a list "a and b".
        let show =
            |x: &Value, lines: bool| view.prose_parts(x, known, lines).for_viewer(seat).words();
        let mut shown: Vec<String> = items.iter().map(|x| show(x, all_cards)).collect();
        // Many cards: their lines when all are short, else their names.
        if all_cards && !each_line && shown.iter().any(|l| l.chars().count() > SHORT_LINE) {
            shown = items.iter().map(|x| show(x, false)).collect();
        }
        ScreenLine {
            label,
            items: shown,
            each_line,
        }
    }
}
