//! `rules repl`: step through a game at a prompt. The model is `session::Session`; this module
//! is the text interface: commands, tables, completion, history and multi-line input.

use crate::ast::Visibility;
use crate::diag::{Diag, Sources};
use crate::events::Event;
use crate::interp::{key_count, Pos, View};
use crate::limits::Limits;
use crate::program::KeyDomain;
use crate::session::{Auto, Mode, SaveFile, Session, Stop, Until};
use crate::value::Value;
use crate::view::screen::{fold, Entry};
use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};

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

const COMMANDS: &[&str] = &[
    ":help", ":step", ":choices", ":choose", ":auto", ":agent", ":state", ":show", ":as", ":log",
    ":undo", ":redo", ":save", ":load", ":reload", ":quit",
];

pub struct Repl {
    pub session: Session,
    pub game: PathBuf,
    /// Whose eyes: `None` shows everything.
    pub viewer: Option<u32>,
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

    /// The prompt: round, phase and whose choice is waiting.
    /// Where the game stands, in words: `round 2, support` or `setup`.
    fn position(&self) -> String {
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

    fn after_move(&mut self) {
        self.flush_events();
        if let Some(d) = self.session.error.clone() {
            let rendered = d.render(&self.session.prog.sources);
            self.say(rendered.trim_end().to_string());
        }
        self.describe_stop();
    }

    fn describe_stop(&mut self) {
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

    fn show_choice(&mut self, p: &crate::session::Pending) {
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
                    self.say("Showing everything.");
                }
                Some(p) => match player_of(p, self.session.players) {
                    Some(k) => {
                        self.viewer = Some(k);
                        self.say(format!("Showing what P{} may see.", k + 1));
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

    /// Does the viewer know card `c` (its zone shows it to them, or it was revealed to them)?
    fn knows(&self, c: u32) -> bool {
        self.viewer.is_none_or(|v| {
            crate::interp::holds(
                self.session
                    .state
                    .known
                    .get(c as usize)
                    .copied()
                    .unwrap_or(0),
                v,
            )
        })
    }

    /// May the viewer see the cards of this zone slot?
    fn can_see(&self, vis: Visibility, owner: Option<u32>) -> bool {
        match (vis, self.viewer) {
            (Visibility::Public, _) => true,
            (_, None) => true,
            (Visibility::Owner, Some(v)) => owner == Some(v),
            (Visibility::Hidden, Some(_)) => false,
        }
    }

    fn zone_lines(&self, zone: u32, only_player: Option<u32>) -> Vec<String> {
        let s = &self.session;
        let prog = &s.prog;
        let z = &prog.zones[zone as usize];
        let base = s.state.zone_base[zone as usize];
        let size: u32 = z
            .keys
            .iter()
            .map(|k| key_count(k, s.players, prog))
            .product::<u32>()
            .max(1);
        let player_key = z.keys.iter().position(|k| *k == KeyDomain::Player);
        let mut lines = Vec::new();
        for off in 0..size {
            let slot = base + off;
            // The player this slot belongs to, if the zone is kept per player.
            let owner = player_key.map(|pk| {
                let mut rest = off;
                let mut owner = 0;
                for (i, k) in z.keys.iter().enumerate().rev() {
                    let n = key_count(k, s.players, prog);
                    if i == pk {
                        owner = rest % n;
                    }
                    rest /= n.max(1);
                }
                owner
            });
            if only_player.is_some() && owner != only_player {
                continue;
            }
            let cards = &s.state.zones[slot as usize];
            let name = self.view().zone_name(slot);
            let body = if cards.is_empty() {
                "-".to_string()
            } else if self.can_see(z.visibility, owner) || cards.iter().any(|&c| self.knows(c)) {
                const SHOWN: usize = 12;
                let more = cards.len().saturating_sub(SHOWN);
                let mut names: Vec<String> = cards
                    .iter()
                    .take(SHOWN)
                    .map(|&c| {
                        if !self.knows(c) {
                            return crate::events::HIDDEN_CARD.to_string();
                        }
                        let n = self.view().card_name(c);
                        if s.state.face_up[c as usize] {
                            n
                        } else {
                            format!("{n} (face down)")
                        }
                    })
                    .collect::<Vec<_>>();
                if more > 0 {
                    names.push(format!("... and {more} more (:show {} lists all)", z.name));
                }
                names.join(", ")
            } else {
                format!(
                    "{} card{}, hidden",
                    cards.len(),
                    if cards.len() == 1 { "" } else { "s" }
                )
            };
            lines.push(format!("  {:<28} {:>3} | {body}", name, cards.len()));
        }
        lines
    }

    /// The vars as lines (`name[key]  value`). With `fold_on`, a keyed var's entries that hold
    /// their starting value are counted in one line instead of listed (`view::screen::fold`,
    /// as a player's screen folds them).
    fn var_lines(
        &self,
        only_player: Option<u32>,
        only_var: Option<usize>,
        fold_on: bool,
    ) -> Vec<String> {
        let s = &self.session;
        let prog = &s.prog;
        let mut lines = Vec::new();
        for (i, v) in prog.vars.iter().enumerate() {
            if only_var.is_some_and(|o| o != i) {
                continue;
            }
            let base = s.state.var_base[i] as usize;
            let next = s
                .state
                .var_base
                .get(i + 1)
                .map(|b| *b as usize)
                .unwrap_or(s.state.vars.len());
            if v.keys.is_empty() {
                if only_player.is_none() || only_var.is_some() {
                    let shown = if self.can_see(v.visibility, None) {
                        self.view().show(&s.state.vars[base])
                    } else {
                        "(hidden)".to_string()
                    };
                    lines.push(format!("  {:<28} {shown}", v.name));
                }
                continue;
            }
            // Keyed vars: one line each, `name[key]`.
            let dims: Vec<u32> = v
                .keys
                .iter()
                .map(|k| key_count(k, s.players, prog))
                .collect();
            let first = s.state.var_first.get(i);
            let mut entries: Vec<Entry> = Vec::new();
            for off in 0..(next - base) {
                let mut rest = off as u32;
                let mut parts = Vec::new();
                let mut owner = None;
                for (k, d) in v.keys.iter().zip(&dims).rev() {
                    let j = rest % d.max(&1);
                    rest /= d.max(&1);
                    parts.push(match k {
                        KeyDomain::Player => {
                            owner = Some(j);
                            format!("P{}", j + 1)
                        }
                        KeyDomain::Enum(e) => prog.enums[*e as usize]
                            .variants
                            .get(j as usize)
                            .cloned()
                            .unwrap_or_default(),
                        KeyDomain::Range(a, _) => (a + j as i64).to_string(),
                    });
                }
                if only_player.is_some() && owner != only_player {
                    continue;
                }
                parts.reverse();
                let value = s.state.vars.get(base + off);
                let seen = self.can_see(v.visibility, owner);
                let shown = match value {
                    Some(x) if seen => self.view().show(x),
                    _ => "(hidden)".to_string(),
                };
                // What the game started it with.
                let default = seen && value.is_some() && value == first;
                entries.push(Entry {
                    key: format!("{}[{}]", v.name, parts.join(", ")),
                    value: shown,
                    default,
                });
            }
            let folded = fold(&entries);
            if fold_on && folded.folded > 0 {
                for (_, e) in &folded.listed {
                    lines.push(format!("  {:<28} {}", e.key, e.value));
                }
                let others = if folded.folded < entries.len() {
                    " other"
                } else {
                    ""
                };
                lines.push(format!(
                    "  {:<28} {} ({}{others} entries; :show {} lists them)",
                    format!("{}[…]", v.name),
                    folded.what,
                    folded.folded,
                    v.name
                ));
            } else {
                for e in entries {
                    lines.push(format!("  {:<28} {}", e.key, e.value));
                }
            }
        }
        lines
    }

    fn state(&mut self) {
        let (round, phase) = self.session.where_now();
        let who = match &self.viewer {
            None => "everything".to_string(),
            Some(p) => format!("what P{} may see", p + 1),
        };
        let place = match (&self.session.stop, phase) {
            (Stop::Boundary { pos: Pos::Setup }, _) => "before setup".to_string(),
            (Stop::Boundary { .. }, Some(p)) => format!("round {round}, before phase {p}"),
            (Stop::Done, _) => "the game is over".to_string(),
            (_, None) => "setup".to_string(),
            (_, Some(p)) => format!("round {round}, phase {p}"),
        };
        let mut lines = vec![format!("{place} (showing {who})")];
        let vars = self.var_lines(None, None, true);
        if !vars.is_empty() {
            lines.push("vars:".into());
            lines.extend(vars);
        }
        lines.push("zones:".into());
        for z in 0..self.session.prog.zones.len() {
            lines.extend(self.zone_lines(z as u32, None));
        }
        if let Some(p) = self.session.pending.clone() {
            lines.push(format!(
                "waiting: P{} to choose: {}",
                p.player + 1,
                p.prompt
            ));
        }
        for l in lines {
            self.say(l);
        }
    }

    fn show(&mut self, what: &str) {
        let prog = &self.session.prog;
        if let Some(p) =
            player_of(what, self.session.players).filter(|_| what.starts_with(['P', 'p']))
        {
            let mut lines = vec![format!(
                "P{} (agent: {})",
                p + 1,
                self.session.mode_name(p as usize)
            )];
            lines.extend(self.var_lines(Some(p), None, true));
            for z in 0..prog.zones.len() {
                if prog.zones[z].keys.contains(&KeyDomain::Player) {
                    lines.extend(self.zone_lines(z as u32, Some(p)));
                }
            }
            for l in lines {
                self.say(l);
            }
            return;
        }
        if let Some(z) = prog.zone_by_name(what) {
            let lines = self.zone_lines(z, None);
            for l in lines {
                self.say(l);
            }
            return;
        }
        let id = what.trim_start_matches('@');
        let card = prog
            .cards
            .iter()
            .position(|c| c.id.to_string() == id)
            .or_else(|| {
                (0..prog.cards.len())
                    .find(|&c| self.view().card_name(c as u32).eq_ignore_ascii_case(what))
            });
        if let Some(c) = card {
            self.card(c as u32);
            return;
        }
        if let Some(v) = prog.vars.iter().position(|v| v.name == what) {
            for l in self.var_lines(None, Some(v), false) {
                self.say(l);
            }
            return;
        }
        let mut names: Vec<String> = prog.zones.iter().map(|z| z.name.clone()).collect();
        names.extend(prog.vars.iter().map(|v| v.name.clone()));
        names.extend(prog.cards.iter().map(|c| format!("@{}", c.id)));
        let help =
            crate::diag::did_you_mean(what, names.iter().map(|s| s.as_str())).unwrap_or_default();
        self.say(format!("No zone, player, var or card `{what}`. {help}"));
    }

    fn card(&mut self, c: u32) {
        let s = &self.session;
        let prog = &s.prog;
        let cd = &prog.cards[c as usize];
        let kd = &prog.kinds[cd.kind as usize];
        let zone = s.state.card_zone[c as usize];
        let where_ = if zone == u32::MAX {
            "no zone (not in play)".to_string()
        } else {
            self.view().zone_name(zone)
        };
        // Where a card the viewer does not know lies would tell them about it too.
        if !self.knows(c) {
            self.say(format!(
                "@{}: a card of kind {}, hidden from this viewer",
                cd.id, kd.name
            ));
            return;
        }
        let mut lines = vec![format!(
            "@{} ({}), in {where_}, {}",
            cd.id,
            kd.name,
            if s.state.face_up[c as usize] {
                "face up"
            } else {
                "face down"
            }
        )];
        // How it reads on one line, and its rules text, before its fields.
        lines.push(format!("  {}", self.view().card_line(c)));
        let text = prog.card_text(c);
        if let Some(t) = text {
            lines.push(format!("  {t}"));
        }
        for f in &kd.fields {
            let v = match kd.slot_of.get(f.sym as usize).copied().flatten() {
                Some((false, i)) => cd.fields.get(i as usize).cloned().unwrap_or(Value::None),
                Some((true, i)) => {
                    s.state.card_vars[(s.state.card_var_base[c as usize] + i) as usize].clone()
                }
                None => Value::None,
            };
            let shown = match v {
                // The text above says what the card's code does.
                Value::Fn(f) if text.is_some() && prog.card_of_fn(f) == Some(c) => {
                    "(as its text says)".to_string()
                }
                Value::Fn(f) if prog.card_of_fn(f) != Some(c) => "the kind's default".to_string(),
                _ => self.view().show(&v),
            };
            let line = format!(
                "  {:<14} {shown}{}",
                f.name,
                if f.mutable { "   (var)" } else { "" }
            );
            lines.push(line.trim_end().to_string());
        }
        for l in lines {
            self.say(l);
        }
    }

    fn log(&mut self) {
        let viewer = self.viewer;
        let lines: Vec<String> = self
            .session
            .events
            .iter()
            .filter_map(
                |e| match viewer.map_or_else(|| e.clone(), |v| e.for_viewer(v)) {
                    Event::Choice {
                        player,
                        prompt,
                        choice,
                        ..
                    } => Some(match choice {
                        Some(c) => format!("{player}: {prompt} -> {}", c.text()),
                        None => format!("{player}: {prompt} -> (secret)"),
                    }),
                    _ => None,
                },
            )
            .enumerate()
            .map(|(i, l)| format!("{:>4}. {l}", i + 1))
            .collect();
        if lines.is_empty() {
            self.say("No choices yet.");
        }
        for l in lines {
            self.say(l);
        }
    }

    fn save(&mut self, file: &str) {
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
    fn load(&mut self, file: &str, keep_game: bool) {
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

    fn reload(&mut self) {
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

    /// Names for tab completion.
    /// What `:show` can show: zones, vars, players and cards (`@id`).
    pub fn show_words(&self) -> Vec<String> {
        let prog = &self.session.prog;
        let mut w: Vec<String> = prog.zones.iter().map(|z| z.name.clone()).collect();
        w.extend(prog.vars.iter().map(|v| v.name.clone()));
        w.extend(prog.cards.iter().map(|c| format!("@{}", c.id)));
        w.extend((1..=self.session.players).map(|p| format!("P{p}")));
        w.sort();
        w.dedup();
        w
    }

    pub fn words(&self) -> Vec<String> {
        let prog = &self.session.prog;
        let mut w: Vec<String> = COMMANDS.iter().map(|s| s.to_string()).collect();
        w.extend(prog.zones.iter().map(|z| z.name.clone()));
        w.extend(prog.vars.iter().map(|v| v.name.clone()));
        w.extend(prog.fns.iter().map(|f| f.name.clone()));
        w.extend(prog.enums.iter().flat_map(|e| e.variants.iter().cloned()));
        w.extend(prog.kinds.iter().map(|k| k.name.clone()));
        w.extend(prog.cards.iter().map(|c| format!("@{}", c.id)));
        w.extend((1..=self.session.players).map(|p| format!("P{p}")));
        w.extend(
            ["phase", "round", "end", "all", "human", "random", "first"]
                .iter()
                .map(|s| s.to_string()),
        );
        w.sort();
        w.dedup();
        w
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

    #[test]
    fn show_completes_only_what_it_can_show() {
        let words: Vec<String> = ["hand", "score", "deal", ":show"]
            .map(String::from)
            .to_vec();
        let show: Vec<String> = ["hand", "score", "@kala", "P1"].map(String::from).to_vec();
        assert_eq!(
            complete(":show h", &words, &show, 2),
            (6, vec!["hand".to_string()])
        );
        assert_eq!(
            complete(":show @k", &words, &show, 2).1,
            vec!["@kala".to_string()]
        );
        assert_eq!(complete("de", &words, &show, 2).1, vec!["deal".to_string()]);
        assert_eq!(
            complete(":agent P2 r", &words, &show, 2).1,
            vec!["random".to_string()]
        );
        assert_eq!(
            complete(":as ", &words, &show, 2).1,
            vec!["P1".to_string(), "P2".to_string(), "all".to_string()]
        );
    }
}

/// Tab completion of the word before the cursor: after `:show` only what it can show, after
/// `:agent`/`:as` players (then agents), after `:step` and `:auto` their words, else every name.
pub fn complete(
    upto: &str,
    words: &[String],
    show_words: &[String],
    players: u32,
) -> (usize, Vec<String>) {
    let start = upto
        .rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == '@' || c == ':'))
        .map(|i| i + 1)
        .unwrap_or(0);
    let word = upto.get(start..).unwrap_or("");
    let before: Vec<&str> = upto.get(..start).unwrap_or("").split_whitespace().collect();
    let seats = || (1..=players).map(|p| format!("P{p}"));
    let pool: Vec<String> = match before.as_slice() {
        [":show"] => show_words.to_vec(),
        [":as"] => seats().chain(["all".to_string()]).collect(),
        [":agent"] => seats().chain(["all".to_string()]).collect(),
        [":agent", _] => ["human", "random", "first", "mc:", "script:"]
            .iter()
            .map(|s| s.to_string())
            .collect(),
        [":step"] => vec!["phase".into(), "round".into()],
        [":auto"] => vec!["phase".into(), "round".into(), "end".into()],
        [":help" | ":log" | ":state" | ":redo" | ":reload" | ":quit" | ":choices", ..] => {
            Vec::new()
        }
        _ => words.to_vec(),
    };
    let found = pool.into_iter().filter(|w| w.starts_with(word)).collect();
    (start, found)
}

/// Whether text typed so far is unfinished: the real parser ends with "unexpected end".
/// Longest multi-line input the parser re-reads to decide whether it is finished.
const CONFIRM_BYTES: usize = 4096;

/// Whether a line ends in something that cannot end a statement: an operator, a comma, `=`,
/// `->`, or a word like `and`, `else`, `in`, `to`. Linear in the line.
fn ends_unfinished(line: &str) -> bool {
    // Drop a trailing comment (a `#` outside quotes).
    let mut in_text = false;
    let mut end = line.len();
    for (i, c) in line.char_indices() {
        match c {
            '"' => in_text = !in_text,
            '#' if !in_text => {
                end = i;
                break;
            }
            _ => {}
        }
    }
    let t = line.get(..end).unwrap_or(line).trim_end();
    let Some(last) = t.chars().last() else {
        return false;
    };
    if "+-*/%=<>,.:([{|&!".contains(last) {
        return true;
    }
    let word_start = t
        .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
        .map_or(0, |i| i + 1);
    let word = t.get(word_start..).unwrap_or("");
    matches!(
        word,
        "and"
            | "or"
            | "not"
            | "in"
            | "to"
            | "from"
            | "where"
            | "of"
            | "if"
            | "else"
            | "let"
            | "set"
            | "move"
            | "draw"
            | "for"
            | "repeat"
            | "match"
            | "say"
            | "shuffle"
            | "flip"
            | "reveal"
            | "secretly"
            | "emit"
            | "eliminate"
            | "until"
            | "up"
            | "per"
    )
}

/// Whether the last line, with no comment or text in quotes on it, ends in an infix operator
/// or a comma, which no complete input does.
fn ends_in_operator(text: &str) -> bool {
    let last = text.trim_end().rsplit('\n').next().unwrap_or("");
    if last.contains('#') || last.contains('"') {
        return false;
    }
    let last = last.trim_end();
    let word = last
        .rsplit(|c: char| !(c.is_alphanumeric() || c == '_'))
        .next()
        .unwrap_or("");
    [
        "+", "-", "*", "/", "%", ",", "==", "!=", "<", ">", "<=", ">=", "=>", "=",
    ]
    .iter()
    .any(|op| last.ends_with(op))
        || matches!(word, "and" | "or" | "not")
}

pub fn incomplete(text: &str) -> bool {
    if text.trim_start().starts_with(':') || text.len() > Limits::default().max_line_bytes {
        return false;
    }
    // An open bracket cannot be complete: say so without running the parser (linear).
    if crate::parser::open_brackets(text) > 0 {
        return true;
    }
    // A line ending in an infix operator asks for more: say so from the line alone, so a long
    // run of `1 +` lines is not parsed again at every line (quadratic).
    if ends_in_operator(text) {
        return true;
    }
    let parsed = crate::parser::parse_repl_line(text, 0, &Limits::default());
    parsed
        .diags
        .iter()
        .any(|d| d.code == "parse::unexpected_end")
}

mod editor {
    use super::incomplete;
    use rustyline::completion::Completer;
    use rustyline::highlight::Highlighter;
    use rustyline::hint::Hinter;
    use rustyline::validate::{ValidationContext, ValidationResult, Validator};
    use rustyline::{Context, Helper};

    pub struct RulesHelper {
        pub words: Vec<String>,
        /// What `:show` takes: zones, players, vars and cards.
        pub show_words: Vec<String>,
        pub players: u32,
    }

    impl Completer for RulesHelper {
        type Candidate = String;
        fn complete(
            &self,
            line: &str,
            pos: usize,
            _: &Context<'_>,
        ) -> rustyline::Result<(usize, Vec<String>)> {
            let upto = line.get(..pos).unwrap_or(line);
            Ok(super::complete(
                upto,
                &self.words,
                &self.show_words,
                self.players,
            ))
        }
    }

    impl Hinter for RulesHelper {
        type Hint = String;
    }

    impl Highlighter for RulesHelper {}

    impl Validator for RulesHelper {
        fn validate(&self, ctx: &mut ValidationContext) -> rustyline::Result<ValidationResult> {
            if incomplete(ctx.input()) {
                Ok(ValidationResult::Incomplete)
            } else {
                Ok(ValidationResult::Valid(None))
            }
        }
    }

    impl Helper for RulesHelper {}
}

/// Most lines one unfinished input may span at the REPL.
const MAX_PENDING_LINES: usize = 1000;

fn history_path() -> Option<PathBuf> {
    std::env::var_os("RULES_HISTORY")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".rules_history")))
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
    }
    writeln!(out, "Type :help for the commands, :step to start.")?;
    if let Some(file) = first {
        let lines = repl.load_into_game(&file);
        for l in lines {
            writeln!(out, "{l}")?;
        }
    }
    if !std::io::stdin().is_terminal() {
        let stdin = std::io::stdin();
        let mut buffer = String::new();
        let mut open = 0usize;
        let mut pending_lines = 0usize;
        let max_bytes = Limits::default().max_line_bytes;
        for line in stdin.lock().lines() {
            let line = line?;
            let prompt = if buffer.is_empty() {
                repl.prompt()
            } else {
                "... ".to_string()
            };
            writeln!(out, "{prompt}{line}")?;
            if !buffer.is_empty() {
                buffer.push('\n');
            }
            buffer.push_str(&line);
            pending_lines += 1;
            // Brackets are counted line by line, so an unclosed `[` does not make every later
            // line parse everything again. At depth 0 the input goes on only when the line ends
            // in something that needs more (an operator, `else`, `in`...); the parser confirms
            // that while the input is short, so a long input is never parsed once per line.
            open = crate::parser::open_brackets_from(open, &line);
            let capped = buffer.len() > max_bytes || pending_lines > MAX_PENDING_LINES;
            let more = open > 0
                || (ends_unfinished(&line)
                    && (buffer.len() > CONFIRM_BYTES || incomplete(&buffer)));
            if !capped && more {
                continue;
            }
            open = 0;
            pending_lines = 0;
            let (keep, lines) = repl.handle(&buffer);
            buffer.clear();
            for l in lines {
                writeln!(out, "{l}")?;
            }
            if !keep {
                return Ok(());
            }
        }
        if !buffer.is_empty() {
            let (_, lines) = repl.handle(&buffer);
            for l in lines {
                writeln!(out, "{l}")?;
            }
        }
        return Ok(());
    }
    let config = rustyline::Config::builder()
        .auto_add_history(true)
        .max_history_size(1000)
        .map_err(std::io::Error::other)?
        .build();
    let mut editor: rustyline::Editor<editor::RulesHelper, rustyline::history::DefaultHistory> =
        rustyline::Editor::with_config(config).map_err(std::io::Error::other)?;
    editor.set_helper(Some(editor::RulesHelper {
        words: repl.words(),
        show_words: repl.show_words(),
        players: repl.session.players,
    }));
    let history = history_path();
    if let Some(h) = &history {
        let _ = editor.load_history(h);
    }
    loop {
        match editor.readline(&repl.prompt()) {
            Ok(line) => {
                let (keep, lines) = repl.handle(&line);
                for l in lines {
                    writeln!(out, "{l}")?;
                }
                // New rules or a loaded game may bring new names to complete.
                let t = line.trim_start();
                if t.starts_with(":reload") || t.starts_with(":load") {
                    editor.set_helper(Some(editor::RulesHelper {
                        words: repl.words(),
                        show_words: repl.show_words(),
                        players: repl.session.players,
                    }));
                }
                if !keep {
                    break;
                }
                if let Some(h) = editor.helper_mut() {
                    h.words = repl.words();
                }
            }
            Err(rustyline::error::ReadlineError::Interrupted) => {
                writeln!(out, "(Ctrl-C: type :quit to leave)")?;
            }
            Err(rustyline::error::ReadlineError::Eof) => break,
            Err(e) => {
                writeln!(out, "input error: {e}")?;
                break;
            }
        }
    }
    if let Some(h) = &history {
        let _ = editor.save_history(h);
    }
    Ok(())
}
