//! A line typed at the REPL run: the commands and their dispatch, a waiting choice answered by
//! number or by name, and who answers each seat (`:agent`).

use super::{player_of, Repl};
use crate::diag::{Diag, Sources};
use crate::limits::Limits;
use crate::session::{Auto, Mode, Until};

const HELP: &str = "\
Commands (anything else is a rules-language expression or statement, evaluated on the position):
  :help                     this list
  :step [phase|round]       run to the next choice (or phase, or round)
  :choices                  the waiting choice and its numbered options
  :choose N | NAME          answer the waiting choice (a number or the option's text)
  :auto [N|phase|round|end] let the agents answer (N choices; default 1)
  :agent PLAYER MODE        who answers PLAYER: human, random, first, mc:N, bot:NAME or script:FILE
  :state                    the whole position as tables
  :show ZONE|PLAYER|VAR|CARD  one zone (all its keys), one player's things, a var, or a card (@id)
  :as PLAYER|all            whose eyes hidden information is shown to
  :log                      the choices made so far
  :undo [N]  :redo          take back or replay moves
  :save FILE  :load FILE    save or load the session (JSON)
  :reload                   re-read the rules files and replay into them
  :quit                     leave (end of input does too)
Short forms: :h :s :u :q. At a waiting choice, a bare number or an option's text answers it.
Keys: Tab completes names (after :show, what it can show); Up/Down walk the history, Ctrl-R
searches it; Ctrl-C drops the line being typed; Ctrl-D leaves. An unclosed bracket continues
the input on the next line.";

pub(super) const COMMANDS: &[&str] = &[
    ":help", ":step", ":choices", ":choose", ":auto", ":agent", ":state", ":show", ":as", ":log",
    ":undo", ":redo", ":save", ":load", ":reload", ":quit",
];

impl Repl {
    /// Run one input (a command or rules-language text). Returns false to quit.
    pub fn handle(&mut self, line: &str) -> (bool, Vec<String>) {
        self.out.clear();
        let max = Limits::default().max_line_bytes;
        if line.len() > max {
            self.say(format!(
                "This input is {} bytes; the REPL reads at most {max} at once. Nothing was done.",
                line.len()
            ));
            return (true, std::mem::take(&mut self.out));
        }
        let keep = self.handle_inner(line.trim());
        (keep, std::mem::take(&mut self.out))
    }

    fn handle_inner(&mut self, line: &str) -> bool {
        if line.is_empty() {
            return true;
        }
        if let (Ok(n), Some(p)) = (line.parse::<usize>(), self.session.pending.as_ref()) {
            // At a numbered menu, a bare number picks that option.
            if n >= 1 && n <= p.options.len() {
                self.choose(line);
                return true;
            }
        }
        if let Some(p) = self.session.pending.as_ref() {
            // At a menu, an option's text typed as it is shown answers it, and so does the start
            // of one option's text up to a word's end (a card's name, without the rest of its
            // line: `Taxi Union` for `Taxi Union: Keep Ceres moving...`).
            let lower = line.to_lowercase();
            let named = p.options.iter().any(|o| o.eq_ignore_ascii_case(line))
                || p.options
                    .iter()
                    .filter(|o| {
                        let o = o.to_lowercase();
                        o.strip_prefix(&lower).is_some_and(|rest| {
                            rest.chars().next().is_some_and(|c| !c.is_alphanumeric())
                        })
                    })
                    .count()
                    == 1;
            if named && !line.starts_with(':') {
                self.choose(line);
                return true;
            }
        }
        if !line.starts_with(':') {
            // `help`, `quit`, `step 2`...: a command typed without its colon, unless the game
            // declares that name.
            let first = line.split_whitespace().next().unwrap_or("");
            let as_command = format!(":{first}");
            // The game's names are gathered only for a word that is a command.
            if COMMANDS.contains(&as_command.as_str()) && !self.words().iter().any(|w| w == first) {
                self.say(format!("(commands start with `:`; running `:{line}`)"));
                return self.handle_inner(&format!(":{line}"));
            }
            self.eval(line);
            return true;
        }
        let mut words = line.split_whitespace();
        let cmd = words.next().unwrap_or("");
        let args: Vec<&str> = words.collect();
        match cmd {
            ":help" | ":h" | ":?" => self.say(HELP),
            ":quit" | ":q" | ":exit" => return false,
            ":step" | ":s" => {
                let until = match args.first().copied() {
                    None => Until::Choice,
                    Some("phase") => Until::Phase,
                    Some("round") => Until::Round,
                    Some(other) => {
                        self.say(format!("`:step {other}`? Use `:step`, `:step phase` or `:step round`."));
                        return true;
                    }
                };
                let agents_turn = self.session.pending.as_ref().is_some_and(|p| {
                    self.session
                        .modes
                        .get(p.player as usize)
                        .is_some_and(|&m| {
                            matches!(m, Mode::Random | Mode::First | Mode::Mc(_) | Mode::Bot(_))
                        })
                });
                if self.session.pending.is_some() && until == Until::Choice && !agents_turn {
                    self.say("A choice is waiting: answer it with :choose N, or :auto to let the agent answer.");
                    let p = self.session.pending.clone();
                    if let Some(p) = p {
                        self.show_choice(&p);
                    }
                    return true;
                }
                self.session.advance(until, Auto::Off);
                self.after_move();
            }
            ":choices" | ":c" => match self.session.pending.clone() {
                Some(p) => self.show_choice(&p),
                None => self.say("No choice is waiting. (:step runs to the next one)"),
            },
            ":choose" => self.choose(&args.join(" ")),
            ":auto" | ":a" => {
                let (until, auto) = match args.first().copied() {
                    None => (Until::Choice, Auto::Choices(1)),
                    Some("phase") => (Until::Phase, Auto::On),
                    Some("round") => (Until::Round, Auto::On),
                    Some("end") => (Until::End, Auto::On),
                    Some(n) => match n.parse::<usize>() {
                        Ok(k) => (Until::Choice, Auto::Choices(k)),
                        Err(_) => {
                            self.say(format!("`:auto {n}`? Use `:auto`, `:auto N`, `:auto phase`, `:auto round` or `:auto end`."));
                            return true;
                        }
                    },
                };
                self.session.advance(until, auto);
                self.after_move();
            }
            ":agent" => self.agent(&args),
            ":state" => self.state(),
            ":show" => match args.first() {
                Some(what) => self.show(what),
                None => self.say("`:show` what? A zone (`:show hand`), a player (`:show P2`) or a card (`:show @12`)."),
            },
            ":as" => match args.first().copied() {
                Some("all") => {
                    self.viewer = None;
                    self.pace_for_the_view();
                    self.say("Showing everything.");
                }
                Some(p) => match player_of(p, self.session.players) {
                    Some(k) => {
                        self.viewer = Some(k);
                        self.pace_for_the_view();
                        self.say(format!("Showing what P{} may see.", k + 1));
                        if let Some(line) = self.pace_line() {
                            self.say(line);
                        }
                    }
                    None => self.say(format!("`{p}` is not a player: use P1 to P{} or `all`.", self.session.players)),
                },
                None => self.say("`:as P2` or `:as all`."),
            },
            ":log" => self.log(),
            ":undo" | ":u" => {
                let n = args.first().and_then(|a| a.parse::<usize>().ok()).unwrap_or(1);
                let done = self.session.undo(n);
                if done == 0 {
                    self.say("Nothing to undo.");
                } else {
                    self.shown_events = self.session.events.len();
                    let made = self.session.answers().len();
                    let short = if done < n {
                        format!(" (of {n}: nothing is left to undo)")
                    } else {
                        String::new()
                    };
                    self.say(format!(
                        "Undid {done} move{}{short}; now at {}, after {} choice{}.",
                        if done == 1 { "" } else { "s" },
                        self.position(),
                        made,
                        if made == 1 { "" } else { "s" }
                    ));
                    self.describe_stop();
                }
            }
            ":redo" => {
                if self.session.redo() {
                    self.shown_events = self.session.events.len();
                    self.say("Redone.");
                    self.describe_stop();
                } else {
                    self.say("Nothing to redo.");
                }
            }
            ":save" => match args.first() {
                Some(f) => self.save(f),
                None => self.say("`:save FILE`"),
            },
            ":load" => match args.first() {
                Some(f) => self.load(f, false),
                None => self.say("`:load FILE`"),
            },
            ":reload" => self.reload(),
            other => {
                let help = crate::diag::did_you_mean(other, COMMANDS.iter().copied())
                    .unwrap_or_else(|| ":help lists the commands".into());
                self.say(format!("Unknown command `{other}`: {help}"));
            }
        }
        true
    }

    fn eval(&mut self, text: &str) {
        match self.session.eval(text, &mut self.env, self.viewer) {
            Ok(v) if v.is_empty() => {}
            Ok(v) => self.say(v),
            Err((diags, sources)) => self.render(&diags, &sources),
        }
    }

    fn render(&mut self, diags: &[Diag], sources: &Sources) {
        for d in diags {
            let r = d.render(sources);
            self.say(r.trim_end().to_string());
        }
    }

    fn choose(&mut self, arg: &str) {
        let Some(p) = self.session.pending.clone() else {
            self.say("No choice is waiting. (:step runs to the next one)");
            return;
        };
        let arg = arg.trim();
        let index = match arg.parse::<usize>() {
            Ok(n) if n >= 1 && n <= p.options.len() => Some(n - 1),
            Ok(_) => {
                self.say(format!("Choose a number from 1 to {}.", p.options.len()));
                return;
            }
            Err(_) if arg.is_empty() => {
                self.say("`:choose N` or `:choose NAME`.");
                return;
            }
            Err(_) => {
                let lower = arg.to_lowercase();
                let exact: Vec<usize> = (0..p.options.len())
                    .filter(|&i| p.options[i].to_lowercase() == lower)
                    .collect();
                let starts: Vec<usize> = (0..p.options.len())
                    .filter(|&i| p.options[i].to_lowercase().starts_with(&lower))
                    .collect();
                match (exact.as_slice(), starts.as_slice()) {
                    ([i], _) | ([], [i]) => Some(*i),
                    ([], []) => {
                        self.say(format!("No option matches `{arg}`."));
                        self.show_choice(&p);
                        return;
                    }
                    _ => {
                        self.say(format!("`{arg}` matches several options; use the number."));
                        return;
                    }
                }
            }
        };
        if let Some(i) = index {
            if let Err(e) = self.session.choose(i) {
                self.say(e);
                return;
            }
            self.after_move();
        }
    }

    fn agent(&mut self, args: &[&str]) {
        let n = self.session.players;
        let [p, m] = args else {
            let list: Vec<String> = (0..n as usize)
                .map(|i| {
                    let mode = self.session.modes.get(i).copied().unwrap_or(Mode::Human);
                    match self.session.scripts.get(i).and_then(|s| s.as_ref()) {
                        Some(sc) if mode == Mode::Script => {
                            format!("P{}: script:{}", i + 1, sc.name)
                        }
                        _ => format!("P{}: {}", i + 1, self.session.mode_name(i)),
                    }
                })
                .collect();
            self.say(format!(
                "{}   (`:agent P2 random` changes one; human, random, first, mc:N, bot:NAME or script:FILE)",
                list.join(", ")
            ));
            return;
        };
        let seats: Vec<u32> = match player_of(p, n) {
            Some(k) => vec![k],
            None if *p == "all" => (0..n).collect(),
            None => {
                self.say(format!("`{p}` is not a player: use P1 to P{n} or `all`."));
                return;
            }
        };
        if let Some(Ok((base, Some(_)))) = crate::agent::search_playouts(m) {
            self.say(format!(
                "`{m}`: the REPL's searches play out at random, or with the bot the game's `playouts:` names; use `{base}` here, or play it out with another bot in `rules run` and `rules simulate`."
            ));
            return;
        }
        let (mode, text) = match m.strip_prefix("script:") {
            Some(path) => {
                let max = self.session.limits.max_log_bytes;
                match crate::files::read_text(std::path::Path::new(path), max) {
                    Ok(t) => (Mode::Script, Some((path, t))),
                    Err(e) => {
                        self.say(format!("cannot read the choice log `{path}`: {e}"));
                        return;
                    }
                }
            }
            None => match (
                crate::agent::mc::parse(m),
                Mode::parse_in(m, &self.session.prog),
            ) {
                (Some(Err(e)), _) => {
                    self.say(e);
                    return;
                }
                (_, None) if crate::agent::bot_name(m).is_some() => {
                    let spec = [m.to_string()];
                    let e = crate::agent::check_bots(&spec, &self.session.prog).err();
                    self.say(e.unwrap_or_default());
                    return;
                }
                (_, Some(mode)) if mode != Mode::Script => (mode, None),
                _ => {
                    self.say(format!(
                        "`{m}` is not an agent: human, random, first, mc:N, bot:NAME or script:FILE."
                    ));
                    return;
                }
            },
        };
        for &k in &seats {
            let script = match &text {
                Some((path, t)) => match crate::session::SeatScript::parse(path, t, k) {
                    Ok(sc) => Some(std::rc::Rc::new(sc)),
                    Err(e) => {
                        self.say(e);
                        return;
                    }
                },
                None => None,
            };
            if let Some(slot) = self.session.scripts.get_mut(k as usize) {
                *slot = script;
            }
            if let Some(slot) = self.session.modes.get_mut(k as usize) {
                *slot = mode;
            }
        }
        let who = match seats.as_slice() {
            [k] => format!("P{}", k + 1),
            _ => "Every player".to_string(),
        };
        let mut what = match seats.first() {
            Some(&k) => self.session.mode_name(k as usize),
            None => mode.name(),
        };
        if let Some((path, _)) = &text {
            let lines: usize = seats
                .iter()
                .filter_map(|&k| self.session.scripts.get(k as usize)?.as_ref())
                .map(|s| s.answers.len())
                .sum();
            what = format!("script:{path} ({lines} answers; a person takes over when it runs out)");
        }
        self.say(format!("{who} is now played by: {what}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn help_lists_every_command() {
        for c in COMMANDS {
            assert!(HELP.contains(c), "`{c}` is missing from :help");
        }
    }
}
