//! An interactive game: the REPL's model. A position is a function of (rules, seed, the list of
//! answered choices, where it stopped), so undo, redo, save and load only change that list and
//! replay. Replays are cheap: the game state is snapshotted at every phase start, and a snapshot
//! taken after k choices depends on those k choices only, so a replay never runs more than the
//! current phase.

use crate::agent::{self, Agent, ChoiceRequest, PENDING};
use crate::check::Checker;
use crate::diag::{Diag, Sources, Span};
use crate::events::Event;
use crate::interp::{ChoiceRecord, Interp, Pos, State};
use crate::limits::Limits;
use crate::program::Program;
use crate::value::Value;
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::rc::Rc;

/// Who answers a player's choices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    Human,
    Random,
    First,
    /// Answers from a choice log (`:agent P2 script:FILE`): the seat's k-th choice of the game
    /// is the k-th line for that seat. The log itself is in `Session::scripts`.
    Script,
    /// Flat Monte Carlo with N playouts per option (`:agent P2 mc:50`): see `agent::mc`.
    Mc(u32),
    /// The game's bot of this number (`:agent P2 bot:Greedy`), in declaration order.
    Bot(u32),
}

impl Mode {
    pub fn parse(s: &str) -> Option<Mode> {
        if let Some(n) = agent::mc::parse(s) {
            return n.ok().map(Mode::Mc);
        }
        match s {
            "human" => Some(Mode::Human),
            "random" => Some(Mode::Random),
            "first" => Some(Mode::First),
            _ => None,
        }
    }
    /// `parse`, and `bot:NAME` for a bot `prog` declares.
    pub fn parse_in(s: &str, prog: &Program) -> Option<Mode> {
        match agent::bot_name(s) {
            Some(name) => prog
                .bots
                .iter()
                .position(|b| b.name == name)
                .map(|i| Mode::Bot(i as u32)),
            None => Mode::parse(s),
        }
    }
    pub fn name(self) -> String {
        match self {
            Mode::Human => "human".into(),
            Mode::Random => "random".into(),
            Mode::First => "first".into(),
            Mode::Script => "script".into(),
            Mode::Mc(n) => format!("mc:{n}"),
            Mode::Bot(i) => format!("bot #{}", u64::from(i) + 1),
        }
    }
}

/// A choice waiting for a person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pending {
    pub player: u32,
    pub prompt: String,
    pub options: Vec<String>,
    /// What the game says beside each option (`choose`'s notes); empty when it says nothing.
    pub notes: Vec<String>,
    pub secret: bool,
    /// A line of an `allocate`: the whole split (`ChoiceRequest::split`).
    pub split: Option<crate::interp::Split>,
}

/// Where a session stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Stop {
    /// At a phase boundary, before the segment `pos`.
    Boundary { pos: Pos },
    /// Waiting for the choice after the ones made so far.
    Pending,
    /// The game is over.
    Done,
}

/// How far an advance goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Until {
    /// To the next choice a person must make.
    Choice,
    /// To the next phase boundary.
    Phase,
    /// To the start of the next round (or the finish).
    Round,
    /// To the end of the game.
    End,
}

/// Agents answer every choice while an advance runs (`:auto`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Auto {
    Off,
    Choices(usize),
    On,
}

#[derive(Clone)]
struct Checkpoint {
    pos: Pos,
    state: State,
    choices: usize,
    events: usize,
    /// Each seat's random draws so far: a random seat draws from its own stream, as in
    /// `rules run`, so the same seed plays the same game in both.
    rngs: Vec<agent::RandomAgent>,
    /// What a search kept before this boundary: a search resumed here replays from where it
    /// would in `rules run` (an earlier boundary, while a var hidden from a seat holds a secret).
    search: crate::interp::SearchMemory,
}

/// One answered choice, kept with what it was so a reload can tell whether it still fits.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Answer {
    pub player: u32,
    pub index: usize,
    pub label: String,
    /// A forced secret choice a person was asked all the same (`Agent::asks_forced`): kept so
    /// the game goes on past it, but no answer of the game's log (saves leave it out).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub forced: bool,
}

struct Shared {
    script: Vec<Answer>,
    cursor: usize,
    base: usize,
    modes: Vec<Mode>,
    auto: Auto,
    replay_only: bool,
    /// Check each scripted answer's label (a reload): stop at the first that does not fit.
    verify: bool,
    misfit: Option<String>,
    recorded: Vec<Answer>,
    pending: Option<Pending>,
    seed: u64,
    /// Each seat's answers from a choice log (`Mode::Script`), and how many choices each seat
    /// has answered in the game so far.
    scripts: Vec<Option<Rc<SeatScript>>>,
    answered: Vec<usize>,
    /// Each seat's random stream, moved on by every answer the seat gives (as `rules run`'s
    /// random agent is, replays included).
    rngs: Vec<agent::RandomAgent>,
    /// The names of the game's bots, in declaration order (`Mode::Bot`).
    bots: Vec<Rc<str>>,
    /// Ask a person's forced secret choices (`Session::ask_forced`).
    ask_forced: bool,
    pacing: Option<Rc<RefCell<agent::pace::Pacing>>>,
}

impl Shared {
    /// Whether `seat`'s new answers wait for the table's pace: a search or a bot plays it, and
    /// the table has a pace.
    fn paced(&self, seat: u32) -> bool {
        self.pacing.is_some()
            && matches!(
                self.modes.get(seat as usize),
                Some(Mode::Mc(_) | Mode::Bot(_))
            )
    }

    /// A new answer of `seat` was given: held to its pace, and the table's clock restarted.
    fn pace(&self, seat: u32, asked: std::time::Instant) {
        if let Some(p) = &self.pacing {
            p.borrow_mut().answered(seat, self.paced(seat), asked);
        }
    }
}

/// One seat's answers read from a choice log: 0-based option numbers, with the log's name and
/// line numbers for messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeatScript {
    pub name: String,
    pub answers: Vec<(usize, usize)>,
}

impl SeatScript {
    /// The lines of `text` (a `--log` file) that answer for `player` (`P2 3 label`).
    pub fn parse(name: &str, text: &str, player: u32) -> Result<SeatScript, String> {
        let who = format!("P{}", ordinal(player));
        let mut answers = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let mut words = line.split_whitespace();
            if words.next() != Some(who.as_str()) {
                continue;
            }
            let idx = words.next().unwrap_or("");
            match idx.parse::<usize>() {
                Ok(n) if n >= 1 => answers.push((i.saturating_add(1), n - 1)),
                _ => {
                    return Err(format!(
                        "{name}:{}: `{idx}` is not an option number",
                        ordinal(i)
                    ))
                }
            }
        }
        Ok(SeatScript {
            name: name.to_string(),
            answers,
        })
    }
}

/// The 1-based number of a 0-based index, for messages: wide enough that no index read from a
/// save or a log (`u64::MAX` included) can overflow it.
fn ordinal(i: impl TryInto<u64>) -> u128 {
    u128::from(i.try_into().unwrap_or(u64::MAX)) + 1
}

struct SessionAgent(Rc<RefCell<Shared>>);

impl Agent for SessionAgent {
    /// The notes beside a waiting choice's options (`:choices`); the REPL has views of its own
    /// instead of the game's screen.
    fn wants_notes(&self) -> bool {
        true
    }

    fn searches(&self) -> bool {
        self.0
            .borrow()
            .modes
            .iter()
            .any(|m| matches!(m, Mode::Mc(_)))
    }

    /// A person's forced secret choice is asked (`Session::ask_forced`) at the end of the
    /// answers; before it, it was asked when the answers hold one for it, else passed.
    fn asks_forced(&self, seat: u32) -> bool {
        let s = self.0.borrow();
        match s.script.get(s.cursor) {
            Some(a) => a.forced && a.player == seat,
            // A paced seat's too, so that answering at once says nothing (`agent::pace`).
            None => {
                (s.ask_forced
                    && s.auto == Auto::Off
                    && s.modes.get(seat as usize) == Some(&Mode::Human))
                    || (s.paced(seat) && !s.replay_only)
            }
        }
    }

    fn bot(&self, seat: u32) -> Option<Rc<str>> {
        let s = self.0.borrow();
        match s.modes.get(seat as usize) {
            Some(Mode::Bot(i)) => s.bots.get(*i as usize).cloned(),
            _ => None,
        }
    }

    /// A seat searching with `mc:N` plays out with the game's `playouts:` bot, if it names one.
    fn game_playouts(&self, seat: u32) -> bool {
        let s = self.0.borrow();
        matches!(s.modes.get(seat as usize), Some(Mode::Mc(_)))
    }

    fn decide(
        &mut self,
        req: &ChoiceRequest,
        label: &dyn Fn(usize) -> String,
    ) -> Result<usize, String> {
        let asked = std::time::Instant::now();
        let mut s = self.0.borrow_mut();
        // A forced secret choice (asked only as `asks_forced` says): its answer, or a person.
        if req.count == 1 {
            if let Some(a) = s.script.get(s.cursor).filter(|a| a.forced).cloned() {
                s.cursor += 1;
                s.recorded.push(a);
                return Ok(0);
            }
            // A paced seat's, at the end of the answers: given at its pace, and not kept (a
            // replay passes it without asking, as a game without a pace does).
            if s.paced(req.player) && s.cursor >= s.script.len() && !s.replay_only {
                s.pace(req.player, asked);
                return Ok(0);
            }
        }
        if s.cursor < s.script.len() {
            let a = s.script[s.cursor].clone();
            let fits = a.player == req.player && a.index < req.count && !a.forced;
            let same = fits && (!s.verify || label(a.index) == a.label);
            if !same {
                let n = ordinal(s.base.saturating_add(s.cursor));
                let what = if a.player != req.player {
                    format!(
                        "the log answers for P{} (`{}`), but the game now asks {} `{}`",
                        ordinal(a.player),
                        a.label,
                        req.player_name,
                        req.prompt
                    )
                } else if a.forced {
                    format!(
                        "the log answers a question of one option for P{}, but the game now asks `{}`",
                        ordinal(a.player),
                        req.prompt
                    )
                } else if a.index >= req.count {
                    format!(
                        "the log chose option {} of `{}`, which now has {} options",
                        ordinal(a.index),
                        req.prompt,
                        req.count
                    )
                } else {
                    format!(
                        "the log chose `{}` for `{}`, but that option is now `{}`",
                        a.label,
                        req.prompt,
                        label(a.index)
                    )
                };
                s.misfit = Some(format!("choice {n}: {what}"));
                let cut = s.cursor;
                s.script.truncate(cut);
                return Err(PENDING.into());
            }
            s.cursor += 1;
            if let Some(c) = s.answered.get_mut(a.player as usize) {
                *c += 1;
            }
            if let Some(r) = s.rngs.get_mut(a.player as usize) {
                r.pick(req.count);
            }
            s.recorded.push(a.clone());
            return Ok(a.index);
        }
        let ask_person = |s: &mut Shared| {
            // (A forced one reaches here only for a person at the end of the answers.)
            s.pending = Some(Pending {
                player: req.player,
                prompt: req.prompt.to_string(),
                options: (0..req.count).map(label).collect(),
                notes: req
                    .notes
                    .filter(|ns| ns.iter().any(|n| !n.is_empty()))
                    .map(<[String]>::to_vec)
                    .unwrap_or_default(),
                secret: req.secret,
                split: req.split.cloned(),
            });
            Err(PENDING.to_string())
        };
        if s.replay_only {
            return ask_person(&mut s);
        }
        let own = s
            .modes
            .get(req.player as usize)
            .copied()
            .unwrap_or(Mode::Human);
        let mode = match s.auto {
            Auto::Off => own,
            // `:auto N` has answered its N: stop at the next choice, whoever answers it.
            Auto::Choices(0) => return ask_person(&mut s),
            Auto::Choices(_) | Auto::On => {
                if own == Mode::Human {
                    Mode::Random
                } else {
                    own
                }
            }
        };
        let drawn = s
            .rngs
            .get_mut(req.player as usize)
            .map(|r| r.pick(req.count));
        let index = match mode {
            Mode::Human => return ask_person(&mut s),
            Mode::Random => drawn.unwrap_or(0),
            Mode::First => 0,
            Mode::Bot(_) => match req.bot {
                Some(i) => i,
                None => return Err("the seat's bot was not worked out for this choice".into()),
            },
            Mode::Mc(n) => match req.search {
                Some(sp) => match sp.refused() {
                    Some(m) => return Err(m),
                    None => {
                        let bot = sp.game_playouts();
                        let i =
                            agent::mc::pick_by(sp, n, s.seed, req.number, bot.as_ref(), req.bot).0;
                        if let Some(m) = sp.bot_peeked() {
                            return Err(m);
                        }
                        i
                    }
                },
                None => return ask_person(&mut s),
            },
            Mode::Script => {
                let seat = req.player as usize;
                let k = s.answered.get(seat).copied().unwrap_or(0);
                let script = s.scripts.get(seat).and_then(|x| x.clone());
                match script.as_ref().map(|sc| (sc, sc.answers.get(k))) {
                    Some((_, Some(&(_, i)))) if i < req.count => i,
                    Some((sc, Some(&(line, i)))) => {
                        return Err(format!(
                            "{}:{line}: option {} of `{}` does not exist; it has {}",
                            sc.name,
                            ordinal(i),
                            req.prompt,
                            req.count
                        ))
                    }
                    // The log has run out (or is gone): a person takes over.
                    _ => return ask_person(&mut s),
                }
            }
        };
        s.pace(req.player, asked);
        if let Some(c) = s.answered.get_mut(req.player as usize) {
            *c += 1;
        }
        if let Auto::Choices(n) = s.auto {
            s.auto = Auto::Choices(n.saturating_sub(1));
        }
        s.recorded.push(Answer {
            player: req.player,
            index,
            label: label(index),
            forced: false,
        });
        Ok(index)
    }
}

/// An interactive game.
pub struct Session {
    /// The checked program, shared: sessions made from one `Rc` share its compiled code.
    pub prog: Rc<Program>,
    pub players: u32,
    pub seed: u64,
    /// The salt of a secret seed (`crate::seed`): the account commits to the seed at the start
    /// and shows it at the end.
    pub salt: Option<String>,
    /// The game options set for this game, as `name=value` (`--set`).
    pub options: Vec<String>,
    pub limits: Limits,
    pub modes: Vec<Mode>,
    /// The choice log each `Mode::Script` seat answers from.
    pub scripts: Vec<Option<Rc<SeatScript>>>,
    /// Ask a person (a `Mode::Human` seat) a forced choice made in secret, with its one
    /// option, as any other (`Agent::asks_forced`): `rules serve` does, so whom the game waits
    /// for tells nothing. The REPL, where one person sits at every seat, does not.
    pub ask_forced: bool,
    /// The pace of the seats a search or a bot plays (`agent::pace`): `rules serve` sets it,
    /// and the REPL while it shows one seat's view (`:as P2`).
    pub pacing: Option<Rc<RefCell<agent::pace::Pacing>>>,
    /// Every answered choice; those past `len` are the redo material.
    choices: Vec<Answer>,
    /// How many of `choices` the current position has made.
    len: usize,
    pub stop: Stop,
    pub pending: Option<Pending>,
    pub state: State,
    pub events: Vec<Event>,
    pub error: Option<Diag>,
    checkpoints: Vec<Checkpoint>,
    undo: Vec<(usize, Stop)>,
    redo: Vec<(usize, Stop)>,
}

/// Whether a line typed at the prompt changed the game (vars, zones, cards, players), which
/// the REPL discards.
fn changes_game(before: &State, after: &State) -> bool {
    before.vars != after.vars
        || before.zones != after.zones
        || before.card_vars != after.card_vars
        || before.face_up != after.face_up
        || before.eliminated != after.eliminated
        || before.finished != after.finished
}

/// A saved session (`:save`, `:load`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SaveFile {
    pub format: u32,
    pub game: String,
    pub players: u32,
    pub seed: u64,
    pub agents: Vec<Mode>,
    pub stop: Stop,
    pub choices: Vec<Answer>,
    /// The game options set (`name=value`); saves from before options have none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<String>,
    /// The salt of a secret seed (`crate::seed`); saves of a public seed have none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub salt: Option<String>,
    /// Where `rules serve` listened (its log only), so `--resume` keeps the links.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub served: Option<Served>,
}

/// The address a served game listened on: the port and the bind address (`--lan` is the
/// unspecified address).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Served {
    pub port: u16,
    pub bind: std::net::IpAddr,
}

pub const SAVE_FORMAT: u32 = 1;

impl Session {
    pub fn new(
        prog: impl Into<Rc<Program>>,
        players: u32,
        seed: u64,
        limits: Limits,
    ) -> Result<Session, Box<Diag>> {
        Session::with_options(prog, players, seed, Vec::new(), limits)
    }

    /// A new game with options set (`name=value`, as `--set` takes them).
    pub fn with_options(
        prog: impl Into<Rc<Program>>,
        players: u32,
        seed: u64,
        options: Vec<String>,
        limits: Limits,
    ) -> Result<Session, Box<Diag>> {
        Session::with_secret(prog, players, (seed, None), options, limits)
    }

    /// A new game whose seed may be secret: `salt` is then its salt (`crate::seed`).
    pub fn with_secret(
        prog: impl Into<Rc<Program>>,
        players: u32,
        (seed, salt): (u64, Option<String>),
        options: Vec<String>,
        limits: Limits,
    ) -> Result<Session, Box<Diag>> {
        let prog: Rc<Program> = prog.into();
        let set = crate::options::parse_sets(&prog, &options)
            .map_err(|m| Box::new(Diag::error("run::option", m)))?;
        if salt.as_deref().is_some_and(|s| !crate::seed::salt_fits(s)) {
            return Err(Box::new(Diag::error(
                "load::salt",
                format!(
                    "the secret seed's salt is not {} hex digits",
                    crate::seed::SALT_HEX
                ),
            )));
        }
        let mut interp = Interp::new(&prog, players, seed, Vec::new(), limits)?;
        interp.secret_seed = salt.as_deref().map(Rc::from);
        for (id, v) in set {
            interp.set_option(id, v);
        }
        interp.init()?;
        let state = interp.state.clone();
        let events = std::mem::take(&mut interp.events);
        drop(interp);
        let cp = Checkpoint {
            pos: Pos::Setup,
            state: state.clone(),
            choices: 0,
            events: events.len(),
            rngs: (0..players)
                .map(|p| agent::RandomAgent::new(seed, p))
                .collect(),
            search: Default::default(),
        };
        Ok(Session {
            prog,
            players,
            seed,
            salt,
            options,
            limits,
            modes: vec![Mode::Human; players as usize],
            scripts: vec![None; players as usize],
            ask_forced: false,
            pacing: None,
            choices: Vec::new(),
            len: 0,
            stop: Stop::Boundary { pos: Pos::Setup },
            pending: None,
            state,
            events,
            error: None,
            checkpoints: vec![cp],
            undo: Vec::new(),
            redo: Vec::new(),
        })
    }

    /// The choices made so far.
    pub fn answers(&self) -> &[Answer] {
        &self.choices[..self.len]
    }

    pub fn can_redo(&self) -> usize {
        self.redo.len()
    }

    pub fn can_undo(&self) -> usize {
        self.undo.len()
    }

    /// The latest checkpoint usable for a position that has made `len` choices and stops at
    /// `stop`: made after at most `len` choices and not past a boundary target.
    fn checkpoint_for(&self, len: usize, stop: &Stop) -> usize {
        let mut best = 0;
        for (i, c) in self.checkpoints.iter().enumerate() {
            let before_target = match stop {
                Stop::Boundary { pos } => c.choices < len || (c.choices == len && c.pos <= *pos),
                _ => c.choices <= len,
            };
            if before_target {
                best = i;
            }
        }
        best
    }

    /// Run from the best checkpoint, replaying `choices[..len]`, then as `until` and `auto` say.
    fn run(
        &mut self,
        until: Until,
        auto: Auto,
        replay_only: bool,
        target: Option<Stop>,
        verify: bool,
    ) -> Option<String> {
        let target_stop = target.clone().unwrap_or(Stop::Pending);
        let ci = self.checkpoint_for(self.len, &target_stop);
        let cp = self.checkpoints[ci].clone();
        // Later checkpoints are taken again as the replay passes them.
        self.checkpoints.truncate(ci);
        let (shared, agents) = self.agents(
            self.choices[cp.choices..self.len].to_vec(),
            cp.choices,
            auto,
            replay_only,
            verify,
            cp.rngs.clone(),
        );
        let prog = &self.prog;
        let mut interp = match Interp::new(prog, self.players, self.seed, agents, self.limits) {
            Ok(i) => i,
            Err(d) => {
                self.error = Some(*d);
                return None;
            }
        };
        interp.secret_seed = self.salt.as_deref().map(Rc::from);
        interp.state = cp.state.clone();
        interp.set_search_memory(cp.search.clone());
        self.events.truncate(cp.events);
        interp.events = std::mem::take(&mut self.events);
        interp.choice_log = self.choices[..cp.choices]
            .iter()
            .filter(|a| !a.forced)
            .map(|a| ChoiceRecord {
                player: a.player,
                index: a.index,
                label: a.label.clone(),
            })
            .collect();
        let start_round = cp.state.round;
        let mut pos = cp.pos;
        let mut first = true;
        let mut new_checkpoints = Vec::new();
        let mut error = None;
        let stop = loop {
            let made = cp.choices + shared.borrow().recorded.len();
            if pos == Pos::Done {
                break Stop::Done;
            }
            if !first {
                // A boundary the caller asked for?
                let replayed_all = made >= self.len;
                let hit = match (&target, until) {
                    (Some(Stop::Boundary { pos: t }), _) => made == self.len && pos == *t,
                    (Some(_), _) => false,
                    (None, Until::Phase) => replayed_all,
                    (None, Until::Round) => {
                        replayed_all
                            && match pos {
                                Pos::Phase { round, index, item } => {
                                    index == 0 && item == 0 && round > start_round
                                }
                                Pos::Finish => true,
                                _ => false,
                            }
                    }
                    (None, _) => false,
                };
                if hit {
                    new_checkpoints.push(Checkpoint {
                        pos,
                        state: interp.state.clone(),
                        choices: made,
                        events: interp.events.len(),
                        rngs: shared.borrow().rngs.clone(),
                        search: interp.search_memory(),
                    });
                    break Stop::Boundary { pos };
                }
            }
            first = false;
            new_checkpoints.push(Checkpoint {
                pos,
                state: interp.state.clone(),
                choices: made,
                events: interp.events.len(),
                rngs: shared.borrow().rngs.clone(),
                search: interp.search_memory(),
            });
            match interp.step(pos) {
                Ok(next) => pos = next,
                Err(d) if d.code == PENDING => break Stop::Pending,
                Err(d) => {
                    error = Some(*d);
                    break Stop::Pending;
                }
            }
        };
        let mut sh = shared.borrow_mut();
        // The choices this run made, scripted or not, replace the tail from the checkpoint on.
        let recorded = std::mem::take(&mut sh.recorded);
        let misfit = sh.misfit.take();
        if replay_only {
            // A replay reproduces `choices[..len]`; what lies past `len` is kept for redo,
            // unless the replay stopped fitting.
            self.len = cp.choices + recorded.len();
            // Choices that do not fit a reload's rules are dropped, unless `:redo` keeps them.
            if misfit.is_some() && verify {
                self.choices.truncate(self.len);
            }
        } else {
            self.choices.truncate(cp.choices);
            self.choices.extend(recorded);
            self.len = self.choices.len();
        }
        self.pending = if stop == Stop::Pending {
            sh.pending.take()
        } else {
            None
        };
        drop(sh);
        self.state = interp.state.clone();
        self.events = std::mem::take(&mut interp.events);
        self.checkpoints.extend(new_checkpoints);
        self.stop = if error.is_some() { Stop::Pending } else { stop };
        self.error = error;
        misfit
    }

    /// The agents of a run, sharing one state: `script` answers first (from choice number
    /// `base`), then each player's mode, or a stop for a person.
    fn agents(
        &self,
        script: Vec<Answer>,
        base: usize,
        auto: Auto,
        replay_only: bool,
        verify: bool,
        rngs: Vec<agent::RandomAgent>,
    ) -> (Rc<RefCell<Shared>>, Vec<Box<dyn Agent>>) {
        let mut answered = vec![0usize; self.players as usize];
        for a in self
            .choices
            .get(..base)
            .unwrap_or(&[])
            .iter()
            .filter(|a| !a.forced)
        {
            if let Some(c) = answered.get_mut(a.player as usize) {
                *c += 1;
            }
        }
        let shared = Rc::new(RefCell::new(Shared {
            script,
            cursor: 0,
            base,
            modes: self.modes.clone(),
            auto,
            replay_only,
            verify,
            misfit: None,
            recorded: Vec::new(),
            pending: None,
            seed: self.seed,
            scripts: self.scripts.clone(),
            answered,
            rngs,
            bots: self
                .prog
                .bots
                .iter()
                .map(|b| Rc::from(b.name.as_str()))
                .collect(),
            ask_forced: self.ask_forced,
            pacing: self.pacing.clone(),
        }));
        let agents = (0..self.players)
            .map(|_| Box::new(SessionAgent(shared.clone())) as Box<dyn Agent>)
            .collect();
        (shared, agents)
    }

    fn remember(&mut self) {
        self.undo.push((self.len, self.stop.clone()));
        self.redo.clear();
        self.choices.truncate(self.len);
    }

    /// Go on: to the next choice for a person, a phase, a round or the end.
    pub fn advance(&mut self, until: Until, auto: Auto) {
        if self.stop == Stop::Done {
            return;
        }
        // Told to go on: the next paced answer's window opens now.
        if let Some(pc) = &self.pacing {
            pc.borrow_mut().restart();
        }
        self.remember();
        self.run(until, auto, false, None, false);
    }

    /// Answer the pending choice with option `index` (0-based), then go on to the next one.
    pub fn choose(&mut self, index: usize) -> Result<(), String> {
        let Some(p) = self.pending.clone() else {
            return Err("no choice is waiting; `:step` runs to the next one".into());
        };
        if index >= p.options.len() {
            return Err(format!("choose a number from 1 to {}", p.options.len()));
        }
        self.remember();
        // A person answered: the next paced answer's window opens now.
        if let Some(pc) = &self.pacing {
            pc.borrow_mut().restart();
        }
        self.choices.push(Answer {
            player: p.player,
            index,
            label: p.options[index].clone(),
            // Every real choice has two options or more.
            forced: p.options.len() == 1,
        });
        self.len += 1;
        self.run(Until::Choice, Auto::Off, false, None, false);
        Ok(())
    }

    /// Bring back an earlier position exactly.
    fn materialize(&mut self, len: usize, stop: Stop) {
        self.len = len.min(self.choices.len());
        self.checkpoints.retain(|c| c.choices <= self.len);
        match stop {
            Stop::Boundary { .. } => {
                self.run(Until::Choice, Auto::Off, true, Some(stop), false);
            }
            Stop::Pending | Stop::Done => {
                self.run(Until::Choice, Auto::Off, true, None, false);
            }
        }
    }

    /// Undo the last `n` commands that moved the game. Returns how many were undone.
    pub fn undo(&mut self, n: usize) -> usize {
        let mut done = 0;
        while done < n {
            let Some((len, stop)) = self.undo.pop() else {
                break;
            };
            self.redo.push((self.len, self.stop.clone()));
            self.materialize(len, stop);
            done += 1;
        }
        done
    }

    pub fn redo(&mut self) -> bool {
        let Some((len, stop)) = self.redo.pop() else {
            return false;
        };
        self.undo.push((self.len, self.stop.clone()));
        // The undone choices are still in `self.choices` past the current position.
        self.materialize(len, stop.clone());
        // Choices kept from a partial reload that still do not fit stay for the next `:redo`.
        if self.len < len {
            self.redo.push((len, stop));
        }
        true
    }

    /// How seat `i`'s agent is named: as `:agent` takes it (`bot:Greedy` for a bot).
    pub fn mode_name(&self, i: usize) -> String {
        match self.modes.get(i).copied().unwrap_or(Mode::Human) {
            Mode::Bot(b) => match self.prog.bots.get(b as usize) {
                Some(bot) => format!("bot:{}", bot.name),
                None => Mode::Bot(b).name(),
            },
            m => m.name(),
        }
    }

    pub fn save(&self, game: &str) -> SaveFile {
        SaveFile {
            format: SAVE_FORMAT,
            game: game.to_string(),
            players: self.players,
            seed: self.seed,
            // A choice log is a file of this machine: a save leaves it to a person.
            agents: self
                .modes
                .iter()
                .map(|&m| if m == Mode::Script { Mode::Human } else { m })
                .collect(),
            stop: self.stop.clone(),
            // The log's answers: a forced one is asked again where the game stopped at it,
            // and passed where a later answer follows it.
            choices: self
                .answers()
                .iter()
                .filter(|a| !a.forced)
                .cloned()
                .collect(),
            options: self.options.clone(),
            salt: self.salt.clone(),
            served: None,
        }
    }

    /// The answer a take-back (`rules serve`) would take back: the latest one a person gave
    /// at a question (a forced one's aside), as (the undo steps to it, its seat, its number
    /// among the logged answers).
    pub fn last_answer_back(&self) -> Option<(usize, u32, usize)> {
        for (steps, (len, stop)) in self.undo.iter().rev().enumerate() {
            if *len >= self.len || *stop != Stop::Pending {
                continue;
            }
            let a = self.choices.get(*len)?;
            if a.forced {
                continue;
            }
            let logged = self.choices[..*len].iter().filter(|a| !a.forced).count();
            return Some((steps + 1, a.player, logged));
        }
        None
    }

    /// Rebuild a session from a save (the program must be the save's game).
    pub fn load(
        prog: impl Into<Rc<Program>>,
        save: &SaveFile,
        limits: Limits,
    ) -> Result<(Session, Option<String>), Box<Diag>> {
        Session::load_asking(prog, save, limits, false)
    }

    /// `load`, with `ask_forced` set before the game is replayed.
    pub fn load_asking(
        prog: impl Into<Rc<Program>>,
        save: &SaveFile,
        limits: Limits,
        ask_forced: bool,
    ) -> Result<(Session, Option<String>), Box<Diag>> {
        let mut s = Session::with_secret(
            prog,
            save.players,
            (save.seed, save.salt.clone()),
            save.options.clone(),
            limits,
        )?;
        s.ask_forced = ask_forced;
        // A save may say anything: an `mc` agent's playouts are held to what `mc:N` accepts.
        let max = agent::mc::MAX_PLAYOUTS;
        if let Some(Mode::Bot(i)) = save
            .agents
            .iter()
            .find(|m| matches!(m, Mode::Bot(i) if *i as usize >= s.prog.bots.len()))
        {
            return Err(Box::new(
                Diag::error(
                    "load::agent",
                    format!(
                        "the save gives a seat the game's bot #{}, and the game has {} bots",
                        u64::from(*i) + 1,
                        s.prog.bots.len()
                    ),
                )
                .help("edit the save's `agents`, or load it and set the agent with `:agent`"),
            ));
        }
        if let Some(bad) = save.agents.iter().find_map(|m| match m {
            Mode::Mc(n) if !(1..=max).contains(n) => Some(*n),
            _ => None,
        }) {
            return Err(Box::new(
                Diag::error(
                    "load::agent",
                    format!("the save gives a seat `mc:{bad}`: the playouts per option are a number from 1 to {max}"),
                )
                .help("edit the save's `agents`, or load it and set the agent with `:agent`"),
            ));
        }
        // A save names no choice log (`save` writes a script's seat as a person's): a seat
        // given `script` would have nothing to read, and under `serve` nobody to ask.
        if let Some(seat) = save.agents.iter().position(|m| *m == Mode::Script) {
            return Err(Box::new(
                Diag::error(
                    "load::agent",
                    format!(
                        "the save gives P{} `script`, and a save names no choice log",
                        ordinal(seat)
                    ),
                )
                .help("edit the save's `agents` (human, random, first, mc:N or a bot), or load it and set the agent with `:agent P2 script:FILE`"),
            ));
        }
        if !save.agents.is_empty() && save.agents.len() != s.modes.len() {
            return Err(Box::new(
                Diag::error(
                    "load::agent",
                    format!(
                        "the save names {} agents for its {} players",
                        save.agents.len(),
                        save.players
                    ),
                )
                .help("edit the save's `agents`: one per seat, in order"),
            ));
        }
        if save.agents.len() == s.modes.len() {
            s.modes = save.agents.clone();
        }
        s.choices = save.choices.clone();
        let misfit = s.replay_into(save.choices.len(), save.stop.clone());
        // `:undo` steps back through the loaded choices, one at a time.
        if misfit.is_none() {
            s.undo = (0..s.len).map(|k| (k, Stop::Pending)).collect();
        }
        Ok((s, misfit))
    }

    /// Replay `choices[..len]` checking every answer still fits; stop at the first that does not.
    fn replay_into(&mut self, len: usize, stop: Stop) -> Option<String> {
        self.len = len.min(self.choices.len());
        self.checkpoints.truncate(1);
        let target = match stop {
            Stop::Boundary { .. } => Some(stop),
            _ => None,
        };
        let misfit = self.run(Until::Choice, Auto::Off, true, target, true);
        if misfit.is_some() {
            self.undo.clear();
            self.redo.clear();
        }
        misfit
    }

    /// Swap in re-read rules and replay the seed and choices into them. Returns where the
    /// replay first stopped fitting, if it did.
    pub fn reload(&mut self, prog: impl Into<Rc<Program>>) -> Result<Option<String>, Box<Diag>> {
        let mut fresh = Session::with_secret(
            prog,
            self.players,
            (self.seed, self.salt.clone()),
            self.options.clone(),
            self.limits,
        )?;
        fresh.modes = self.modes.clone();
        fresh.scripts = self.scripts.clone();
        fresh.ask_forced = self.ask_forced;
        fresh.pacing = self.pacing.clone();
        // Every choice, the redo material past the position too.
        fresh.choices = self.choices.clone();
        let misfit = fresh.replay_into(self.len, self.stop.clone());
        // Undo goes on working: the same moves when every choice still fits, else back through
        // the choices that do.
        if misfit.is_none() {
            fresh.undo = std::mem::take(&mut self.undo);
            fresh.redo = std::mem::take(&mut self.redo);
        } else {
            fresh.undo = (0..fresh.len).map(|k| (k, Stop::Pending)).collect();
            // The choices the new rules could not replay are kept: `:redo` plays them again as
            // far as they fit (after the rules are mended and reloaded, all of them).
            fresh.choices = self.choices.clone();
            if self.len > fresh.len {
                fresh.redo = vec![(self.len, self.stop.clone())];
            }
        }
        *self = fresh;
        Ok(misfit)
    }

    /// The round and phase names of the current position (a phase that runs for each item of
    /// a list, between its items: `turns (item 2 of 4)`; the item itself may be hidden from
    /// the viewer, so only its place is said).
    pub fn where_now(&self) -> (i64, Option<String>) {
        let phase = match &self.stop {
            Stop::Boundary { pos: Pos::Setup } => Some("setup".to_string()),
            Stop::Boundary { pos: Pos::Finish } => Some("finish".to_string()),
            Stop::Boundary {
                pos: Pos::Phase { index, item, .. },
            } => {
                let name = self
                    .prog
                    .game
                    .round_phases
                    .get(*index)
                    .and_then(|&p| self.prog.phases.get(p as usize))
                    .map(|p| p.name.clone());
                let of = self.state.phase_items.as_ref().map_or(0, |l| l.len());
                match name {
                    Some(n) if *item > 0 => Some(format!("{n} (item {} of {of})", item + 1)),
                    other => other,
                }
            }
            _ => self
                .state
                .phase
                .map(|p| self.prog.phases[p as usize].name.clone()),
        };
        let round = match &self.stop {
            Stop::Boundary {
                pos: Pos::Phase { round, .. },
            } => *round,
            _ => self.state.round,
        };
        (round, phase)
    }

    /// Evaluate statements typed at the REPL against a copy of the current state. Changes they
    /// make are not kept: the game stays a function of its seed and choices. With a `viewer`,
    /// reading what that player may not see (a hidden var, a card they do not know) is an
    /// error, and cards they do not know are shown as hidden.
    pub fn eval(
        &self,
        line: &str,
        env: &mut Vec<(String, Value)>,
        viewer: Option<u32>,
    ) -> Result<String, (Vec<Diag>, Sources)> {
        let mut sources = self.prog.sources.clone();
        let file = sources.add("<repl>".into(), line.to_string());
        let parsed = crate::parser::parse_repl_line(line, file, &self.limits);
        let Some(block) = parsed.value else {
            return Err((parsed.diags, sources));
        };
        let mut checker = Checker::from_program(&self.prog);
        checker.prog.sources = sources.clone();
        let types: Vec<(String, crate::program::Ty)> = env
            .iter()
            .map(|(n, v)| (n.clone(), checker.value_type(v)))
            .collect();
        let (lowered, locals, lets) = checker
            .lower_repl(&block, &types)
            .map_err(|d| (d, sources.clone()))?;
        let ends_in_value = matches!(
            lowered.stmts.last().map(|s| &s.kind),
            Some(crate::program::StmtKind::Expr(_))
        );
        let init: Vec<Value> = env.iter().map(|(_, v)| v.clone()).collect();
        // A typed line may not ask anybody to choose: every agent answers "pending".
        let (_, agents) = self.agents(Vec::new(), 0, Auto::Off, true, false, Vec::new());
        let mut interp = Interp::new(&self.prog, self.players, self.seed, agents, self.limits)
            .map_err(|d| (vec![*d], sources.clone()))?;
        interp.state = self.state.clone();
        interp.record = true;
        interp.observer = viewer;
        match interp.eval_block(&lowered, locals, &init) {
            Ok((v, frame)) => {
                for (name, slot) in lets {
                    let value = frame.get(slot as usize).cloned().unwrap_or(Value::None);
                    match env.iter_mut().find(|(n, _)| *n == name) {
                        Some(cell) => cell.1 = value,
                        None => env.push((name, value)),
                    }
                }
                let mut out: Vec<String> = interp
                    .events
                    .iter()
                    .filter_map(|e| match viewer {
                        Some(v) => e.for_viewer(v).text(),
                        None => e.text(),
                    })
                    .collect();
                if ends_in_value {
                    out.push(interp.show(&v));
                }
                if changes_game(&self.state, &interp.state) {
                    out.push(
                        "(That changed a scratch copy of the position, now discarded: the game moves only by choices. Use `let` to keep values.)"
                            .to_string(),
                    );
                }
                Ok(out.join("\n"))
            }
            // `end game` typed at the prompt: shown, and (like every typed change) not kept.
            Err(d) if d.code == crate::interp::END_CODE => Ok(interp
                .events
                .iter()
                .filter_map(|e| e.text())
                .collect::<Vec<_>>()
                .join("\n")),
            Err(d) if d.code == PENDING => Err((
                vec![Diag::error(
                    "repl::choice",
                    "this would ask a player to choose; the REPL evaluates without choices",
                )
                .label(Span::new(file, 0, line.len()), "here")],
                sources,
            )),
            Err(d) => Err((vec![*d], sources)),
        }
    }
}
