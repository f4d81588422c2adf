//! Where the game stands, told after every move: the prompt, new lines of the game's account (as
//! the viewer may see them), an error, and the waiting choice with its options and notes.

use super::Repl;
use crate::events::Event;
use crate::interp::Pos;
use crate::session::Stop;

impl Repl {
    /// Where the game stands, in words: `round 2, support` or `setup`.
    pub(super) fn position(&self) -> String {
        let s = &self.session;
        match &s.stop {
            Stop::Done => "the end of the game".into(),
            Stop::Boundary { pos: Pos::Setup } => "the start, before setup".into(),
            _ => match s.where_now() {
                (0, _) => "setup".into(),
                (round, phase) => match phase {
                    Some(p) => format!("round {round}, {}", p.replace('_', " ")),
                    None => format!("round {round}"),
                },
            },
        }
    }

    /// The prompt: round, phase and whose choice is waiting.
    pub fn prompt(&self) -> String {
        let s = &self.session;
        match (&s.stop, &s.pending) {
            (Stop::Done, _) => "game over> ".into(),
            (Stop::Boundary { pos: Pos::Setup }, _) => "before setup> ".into(),
            (_, Some(p)) => {
                let (round, phase) = s.where_now();
                let phase = phase.unwrap_or_else(|| "setup".into());
                if round == 0 {
                    format!("setup · P{} to choose> ", p.player + 1)
                } else {
                    format!("r{round} {phase} · P{} to choose> ", p.player + 1)
                }
            }
            _ => {
                let (round, phase) = s.where_now();
                format!("r{round} before {}> ", phase.unwrap_or_default())
            }
        }
    }

    /// New lines of the game's account since the last call.
    fn flush_events(&mut self) {
        let events: Vec<Event> = self
            .session
            .events
            .iter()
            .skip(self.shown_events)
            .cloned()
            .collect();
        if self.session.events.len() < self.shown_events {
            self.shown_events = self.session.events.len();
            return;
        }
        self.shown_events = self.session.events.len();
        for e in events {
            let e = match self.viewer {
                Some(v) => e.for_viewer(v),
                None => e,
            };
            if let Some(t) = e.text() {
                self.say(t);
            }
        }
    }

    pub(super) fn after_move(&mut self) {
        self.flush_events();
        if let Some(d) = self.session.error.clone() {
            let rendered = d.render(&self.session.prog.sources);
            self.say(rendered.trim_end().to_string());
        }
        self.describe_stop();
    }

    pub(super) fn describe_stop(&mut self) {
        match (&self.session.stop, self.session.pending.clone()) {
            (Stop::Done, _) => {
                self.say("The game is over. (:undo to go back, :log for the choices)")
            }
            (_, Some(p)) => self.show_choice(&p),
            (Stop::Boundary { pos }, _) => {
                let (round, phase) = self.session.where_now();
                let what = match pos {
                    Pos::Setup => "before setup".to_string(),
                    Pos::Finish => "before the end of the game".to_string(),
                    _ => format!("round {round}, before {}", phase.unwrap_or_default()),
                };
                self.say(format!("Stopped {what}. (:step to go on)"));
            }
            _ => {}
        }
    }

    pub(super) fn show_choice(&mut self, p: &crate::session::Pending) {
        self.say(format!("P{} to choose: {}", p.player + 1, p.prompt));
        // Each option with the game's note beside it, if it gives one, as `rules run` shows it.
        let widest = if p.notes.is_empty() {
            0
        } else {
            p.options
                .iter()
                .map(|o| o.chars().count())
                .max()
                .unwrap_or(0)
        };
        for (i, o) in p.options.iter().enumerate() {
            match p.notes.get(i).filter(|n| !n.is_empty()) {
                Some(note) => self.say(format!("  {:>3}) {o:<widest$}  {note}", i + 1)),
                None => self.say(format!("  {:>3}) {o}", i + 1)),
            }
        }
        self.say("(:choose N, or :auto to let the agent answer)");
    }
}
