//! `:save`, `:load` (and `rules repl GAME --load FILE`) and `:reload`: the session written to a
//! file, read back, or replayed into rules edited since.

use super::Repl;
use crate::limits::Limits;
use crate::session::{SaveFile, Session};
use std::path::Path;

impl Repl {
    pub(super) fn save(&mut self, file: &str) {
        // The save names its game relative to itself, so it can travel with the game's folder.
        let dir = match Path::new(file).parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let game = crate::files::relative_to(&self.game, dir);
        let save = self.session.save(&game.display().to_string());
        match serde_json::to_string_pretty(&save) {
            // A save holds the seed and every secret answer: readable by its owner only.
            Ok(text) => {
                match crate::files::write_private(Path::new(file), (text + "\n").as_bytes()) {
                    Ok(()) => {
                        self.say(format!("Saved to {file} ({} choices).", save.choices.len()))
                    }
                    Err(e) => self.say(format!("Cannot write {file}: {e}")),
                }
            }
            Err(e) => self.say(format!("Cannot save: {e}")),
        }
    }

    /// Load a save into the game this REPL was started on (`rules repl GAME --load FILE`),
    /// whatever game the save names.
    pub fn load_into_game(&mut self, file: &str) -> Vec<String> {
        self.out.clear();
        self.load(file, true);
        std::mem::take(&mut self.out)
    }

    /// `:load FILE`: the save's game (inside the REPL's folder), or with `keep_game` the
    /// current one.
    pub(super) fn load(&mut self, file: &str, keep_game: bool) {
        let max = Limits::default().max_log_bytes;
        let text = match crate::files::read_text(Path::new(file), max) {
            Ok(t) => t,
            Err(e) => {
                self.say(format!("Cannot read {file}: {e}"));
                return;
            }
        };
        let save: SaveFile = match serde_json::from_str(&text) {
            Ok(s) => s,
            Err(e) => {
                self.say(format!("{file} is not a rules save file: {e}"));
                return;
            }
        };
        if save.format != crate::session::SAVE_FORMAT {
            self.say(format!(
                "{file} is save format {}; this rules reads format {}.",
                save.format,
                crate::session::SAVE_FORMAT
            ));
            return;
        }
        // Only a game inside the folder this REPL was started on is ever read.
        let found = if keep_game {
            Ok(self.game.clone())
        } else {
            crate::files::save_game_path(Path::new(file), &save.game, &self.root)
        };
        let game = match found {
            // The same game as now keeps the name it was started with.
            Ok(g) if g.canonicalize().ok() == self.game.canonicalize().ok() => self.game.clone(),
            Ok(g) => g,
            Err(e) => {
                self.say(e);
                return;
            }
        };
        let checked = crate::check_path(&game, &Limits::default());
        let Some(prog) = checked.program else {
            let rendered = checked.render();
            self.say(rendered.trim_end().to_string());
            self.say(format!(
                "The save's game {} has errors; nothing was loaded.",
                save.game
            ));
            return;
        };
        let (players, seed) = (self.session.players, self.session.seed);
        match Session::load(prog, &save, Limits::default()) {
            Ok((session, misfit)) => {
                if save.players != players || save.seed != seed {
                    self.say(format!(
                        "The save's game has {} players and seed {}: they replace the {players} players and seed {seed} this REPL had.",
                        save.players, save.seed
                    ));
                }
                self.session = session;
                self.pace_for_the_view();
                self.game = game;
                self.shown_events = self.session.events.len();
                self.say(format!(
                    "Loaded {file}: {} choices replayed.",
                    self.session.answers().len()
                ));
                if let Some(m) = misfit {
                    self.say(format!(
                        "The rules have changed since the save; the replay stops at {m}."
                    ));
                }
                self.describe_stop();
            }
            Err(d) => {
                let r = d.render(&checked.sources);
                self.say(r.trim_end().to_string());
            }
        }
    }

    pub(super) fn reload(&mut self) {
        let checked = crate::check_path(&self.game, &Limits::default());
        let Some(prog) = checked.program else {
            let rendered = checked.render();
            self.say(rendered.trim_end().to_string());
            self.say("The edited rules have errors; the game goes on with the old ones.");
            return;
        };
        let before = self.session.answers().len();
        match self.session.reload(prog) {
            Ok(None) => {
                self.shown_events = self.session.events.len();
                self.say(format!(
                    "Reloaded {}: all {before} choices replayed into the new rules.",
                    self.game.display()
                ));
                self.describe_stop();
            }
            Ok(Some(m)) => {
                self.shown_events = self.session.events.len();
                let fit = self.session.answers().len();
                self.say(format!(
                    "Reloaded {}: the replay fits the first {fit} of {before} choices and stops at {m}.",
                    self.game.display(),
                ));
                if before > fit {
                    self.say(format!(
                        "The other {} are kept: :redo plays them again once the rules fit them (:reload after mending).",
                        before - fit
                    ));
                }
                self.describe_stop();
            }
            Err(d) => {
                let r = d.render(&checked.sources);
                self.say(r.trim_end().to_string());
            }
        }
    }
}
