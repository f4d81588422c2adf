//! `rules repl`: step through a game at a prompt. The model is `session::Session`; this module
//! is the text interface: commands, tables, completion, history and multi-line input.
//!
//! By concern: `commands.rs` reads a line and runs it (the commands, a choice answered, the
//! seats' agents); `position.rs` tells where the game stands (the prompt, new lines of the
//! account, the waiting choice); `tables.rs` shows the position (`:state`, `:show`, a card,
//! `:log`) as the viewer may see it; `saves.rs` is `:save`, `:load` and `:reload`;
//! `completion.rs` the names Tab completes; `input.rs` the plain line mode and when typed input
//! is unfinished; `editor.rs` the terminal's line editor (rustyline: completion, multi-line
//! input, history).

mod commands;
mod completion;
mod editor;
mod input;
mod position;
mod saves;
mod tables;

pub use completion::complete;
pub use input::incomplete;

use crate::interp::View;
use crate::session::{Mode, Session};
use crate::value::Value;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;

pub struct Repl {
    pub session: Session,
    pub game: PathBuf,
    /// Whose eyes: `None` shows everything.
    pub viewer: Option<u32>,
    /// The pace of a seat a search or a bot plays while one seat's view is shown (`--pace`).
    pub pace: std::time::Duration,
    shown_events: usize,
    out: Vec<String>,
    /// Names bound with `let` at the prompt, kept between lines.
    env: Vec<(String, Value)>,
    /// The folder of the game the REPL was started on: `:load` reads no game outside it.
    root: PathBuf,
}

fn player_of(s: &str, n: u32) -> Option<u32> {
    let t = s.trim().trim_start_matches(['P', 'p']);
    match t.parse::<u32>() {
        Ok(k) if k >= 1 && k <= n => Some(k - 1),
        _ => None,
    }
}

impl Repl {
    pub fn new(session: Session, game: PathBuf) -> Repl {
        Repl {
            session,
            root: crate::files::game_root(&game),
            game,
            viewer: None,
            pace: std::time::Duration::from_millis(crate::agent::pace::DEFAULT_MS),
            shown_events: 0,
            out: Vec::new(),
            env: Vec::new(),
        }
    }

    /// With one seat played by a person and agents at the others, what is shown is what that
    /// seat may see (`:as all` shows everything).
    pub fn view_as_the_person(&mut self) {
        let modes = &self.session.modes;
        let mut people = (0u32..).zip(modes).filter(|(_, &m)| m == Mode::Human);
        if let (Some((p, _)), None) = (people.next(), people.next()) {
            if modes.len() > 1 {
                self.viewer = Some(p);
            }
        }
        self.pace_for_the_view();
    }

    /// While the REPL shows one seat's view (`:as P2`), the seats a search or a bot plays
    /// answer at the table's pace (`agent::pace`), so the clock tells that seat nothing either;
    /// `:as all` shows everything, and answers at once.
    pub fn pace_for_the_view(&mut self) {
        match (self.viewer.is_some(), self.session.pacing.is_some()) {
            (true, false) => {
                self.session.pacing =
                    crate::agent::pace::Pacing::new(self.session.players as usize, self.pace)
                        .map(|p| std::rc::Rc::new(std::cell::RefCell::new(p)));
            }
            (false, true) => self.session.pacing = None,
            _ => {}
        }
    }

    /// While the REPL paces its agents: which seats, and at what pace, in a line.
    pub fn pace_line(&self) -> Option<String> {
        self.session.pacing.as_ref()?;
        let seats: Vec<(u32, String)> = (0..self.session.modes.len())
            .filter(|&i| matches!(self.session.modes.get(i), Some(Mode::Mc(_) | Mode::Bot(_))))
            .map(|i| (i as u32 + 1, self.session.mode_name(i)))
            .collect();
        crate::agent::pace::told(&seats, self.pace)
    }

    fn say(&mut self, s: impl Into<String>) {
        self.out.push(s.into());
    }

    fn view(&self) -> View<'_> {
        View {
            prog: &self.session.prog,
            n_players: self.session.players,
            zone_base: &self.session.state.zone_base,
        }
    }
}

/// Run the REPL on the terminal (rustyline) or, when stdin is not a terminal, on plain lines
/// with the prompt and input echoed, so a piped session reads as a transcript. `first` is a save
/// to load into the REPL's game first (`rules repl GAME --load FILE`).
pub fn run(mut repl: Repl, first: Option<String>) -> std::io::Result<()> {
    let mut out = crate::term::Escaped::new(std::io::stdout());
    let (game_name, players, seed) = (
        repl.session.prog.game.name.clone(),
        repl.session.players,
        repl.session.seed,
    );
    let modes = &repl.session.modes;
    let who = if modes.iter().all(|&m| m == Mode::Human) {
        "Every player is yours to play (:agent changes that).".to_string()
    } else {
        let seats: Vec<String> = modes
            .iter()
            .enumerate()
            .map(|(i, m)| match m {
                Mode::Human => format!("P{} you", i + 1),
                _ => format!("P{} {}", i + 1, repl.session.mode_name(i)),
            })
            .collect();
        format!("Seats: {} (:agent changes them).", seats.join(", "))
    };
    writeln!(out, "{game_name}: {players} players, seed {seed}. {who}")?;
    if let Some(v) = repl.viewer {
        writeln!(
            out,
            "You see what P{} may see (:as all shows everything).",
            v + 1
        )?;
        if let Some(line) = repl.pace_line() {
            writeln!(out, "{line}")?;
        }
    }
    writeln!(out, "Type :help for the commands, :step to start.")?;
    if let Some(file) = first {
        let lines = repl.load_into_game(&file);
        for l in lines {
            writeln!(out, "{l}")?;
        }
    }
    if !std::io::stdin().is_terminal() {
        return input::plain(&mut repl, &mut out);
    }
    editor::interactive(&mut repl, &mut out)
}
