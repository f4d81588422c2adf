//! The interpreter over the checked tree. A game is a function of (program, seed, choices).
//!
//! `flow` runs setup, rounds, phases and the finish; `triggers` fires them; `compile` turns the
//! lowered tree into closures, which run the game; `stmts` and `exprs` walk the tree (for the
//! REPL, card checks and the rare forms) and hold what both share; `state` reads zones, vars and fields; `builtins` evaluates the
//! built-in functions; `choices` asks agents the question of `ask` (which also declares the answerer interface, `Agent`); `seen` is a player's view of a position; `view` shows values; `visibility` tracks who knows
//! which card; `checks` runs card rules.

mod ask;
mod bots;
mod builtins;
mod checks;
mod choices;
mod compile;
mod exprs;
mod flow;
pub mod hindsight;
mod screen;
mod search;
mod seen;
mod state;
mod stmts;
mod triggers;
mod view;
mod visibility;

pub use ask::{random_answer, Agent, ChoiceRequest, Split, PENDING, QUIT, TAKE_BACK};
pub use checks::{card_lines, card_values, run_checks, state_size};
pub use compile::{profile, profile_names, remembered, CodeCache, Memo};
use exprs::Source;
pub use screen::screen_of;
pub use search::{
    Met, Played, PlayoutEnd, Policy, SearchMemory, SearchPoint, SearchStats, World, WHY_NAMES,
};
pub use seen::{
    player_view, player_view_words, CardView, PlayerView, ScreenLine, VarFamily, VarView, ZoneView,
};
pub use view::View;
pub use visibility::{everyone, holds, one, Players};

use crate::ast::EventKind;
use crate::diag::{Diag, Span};
use crate::events::Event;
use crate::limits::Limits;
use crate::program::*;
use crate::rng;
use crate::value::{Items, Value};
use rand_chacha::ChaCha8Rng;
use std::rc::Rc;

pub(crate) const NOWHERE: u32 = u32::MAX;

pub use crate::diag::R;

#[cold]
#[inline(never)]
fn rt(span: Span, msg: impl Into<String>) -> Box<Diag> {
    Box::new(Diag::error("run::error", msg).label(span, "while evaluating this"))
}

/// Everything that changes during a game. Cloning it is cheap enough to snapshot.
#[derive(Debug, Clone)]
pub struct State {
    pub n_players: u32,
    pub round: i64,
    pub phase: Option<Id>,
    /// The items of the phase under way, when it runs `for` each item of a list: worked out as
    /// it began, kept for its later segments.
    pub phase_items: Option<Rc<crate::value::Items>>,
    pub vars: Vec<Value>,
    pub var_base: Vec<u32>,
    /// Each var family's starting value (set by `init`): a player's screen folds the entries
    /// that still hold it.
    pub var_first: std::rc::Rc<[Value]>,
    pub zones: Vec<Vec<u32>>,
    pub zone_base: Vec<u32>,
    pub card_zone: Vec<u32>,
    pub face_up: Vec<bool>,
    /// Per card, the players who know it (one bit per seat): see `visibility`.
    pub known: Vec<u64>,
    pub card_vars: Vec<Value>,
    pub card_var_base: Vec<u32>,
    pub consts: Vec<Value>,
    pub rng: ChaCha8Rng,
    pub finished: bool,
    /// Players out of the game (`eliminate p`), by seat.
    pub eliminated: Vec<bool>,
    /// How many of `eliminated` are true (kept by `eliminate`; remembered calls compare it).
    out: usize,
    /// The game options' values (`option`, set with `--set`).
    pub options: Vec<Value>,
    /// The step budget counted down (`tick`): the steps still allowed, plus one. Counting down
    /// makes a step one decrement and one test. `steps()` gives the steps taken.
    steps_left: u64,
    /// The budget this state was started with (`Limits::max_steps`, at most `MAX_STEP_COUNT`).
    step_limit: u64,
    pub choices_made: u64,
    /// Choices with one legal option, taken without asking (`rules simulate` reports the share).
    pub forced_choices: u64,
    /// Why the game ended, once it has.
    pub ended_by: Option<EndReason>,
    /// Counts the writes to vars; `var_stamp` holds, per var family, the count at its last
    /// write. Remembered calls (`Memo`) compare them with their own date.
    pub var_clock: u64,
    pub var_stamp: Vec<u64>,
    /// Per field name, the `var_clock` at the last write to that field of any card.
    pub field_stamp: Vec<u64>,
    /// Per zone family, the `var_clock` at the last change to the cards of any of its slots
    /// or to their order.
    pub zone_stamp: Vec<u64>,
    pub memo: Memo,
}

/// What ended a game: the last round played, the game's `end_when`, an `end game` statement, or
/// `finish_game()`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    Rounds,
    EndWhen,
    EndGame,
    FinishGame,
}

impl EndReason {
    pub fn name(self) -> &'static str {
        match self {
            EndReason::Rounds => "the last round",
            EndReason::EndWhen => "end_when",
            EndReason::EndGame => "end game",
            EndReason::FinishGame => "finish_game()",
        }
    }
}

/// One answered choice, as written to a `--log` file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChoiceRecord {
    pub player: u32,
    pub index: usize,
    pub label: String,
}

/// Where a game stands between segments.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(tag = "at", rename_all = "snake_case")]
pub enum Pos {
    /// Before setup (constants and vars are initialised).
    Setup,
    /// Before phase `index` of the round's list in round `round`; in a phase that runs `for`
    /// each item of a list, before item `item` (each item is a segment of its own).
    Phase {
        round: i64,
        index: usize,
        #[serde(default)]
        item: usize,
    },
    /// Before the `finish` phase and the winner.
    Finish,
    /// The game is over.
    Done,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub winners: Vec<u32>,
    pub scores: Vec<i64>,
}

/// Where `Interp::sink` hands events as they happen.
pub type EventSink = Box<dyn FnMut(&Event)>;

/// What `Interp::watch` is shown.
pub enum Watched<'a> {
    /// A choice about to be asked: the state, the seat asked and the options.
    Choice {
        state: &'a State,
        player: u32,
        options: &'a [Value],
    },
    /// A value a card's table gave (`lookup`): a card drawn on a table.
    Read(&'a Value),
}

/// What `Interp::watch` calls, with the program played (it holds nothing borrowed, so an
/// interpreter's lifetime is as without it).
pub type Watch = Box<dyn FnMut(&Program, Watched<'_>)>;

/// The most steps a game may count, whatever `Limits::max_steps` says: far below `u64::MAX`, so
/// the budget plus one fits.
const MAX_STEP_COUNT: u64 = u64::MAX / 2;

impl State {
    /// The evaluation steps taken so far.
    pub fn steps(&self) -> u64 {
        self.step_limit
            .saturating_add(1)
            .saturating_sub(self.steps_left)
    }
}

/// The choice sites a silent run has worked the texts of out (`Interp::sketched`): one bit per
/// site the compiled program numbered (`compile::next_site`), and the calls the tree walk makes
/// by span, sorted. Only for games of the same program.
#[derive(Default)]
pub struct Sketched {
    pub(crate) sites: Vec<u64>,
    pub(crate) spans: Vec<Span>,
}

impl Sketched {
    /// How many sites have been sketched.
    pub fn sites(&self) -> usize {
        let bits: u32 = self.sites.iter().map(|w| w.count_ones()).sum();
        bits as usize + self.spans.len()
    }
}

/// "P1" to "P64": how agents are told whom they answer for (a game has 1 to 64 players), named
/// without a text made per game.
const SEAT_NAMES: [&str; 64] = [
    "P1", "P2", "P3", "P4", "P5", "P6", "P7", "P8", "P9", "P10", "P11", "P12", "P13", "P14", "P15",
    "P16", "P17", "P18", "P19", "P20", "P21", "P22", "P23", "P24", "P25", "P26", "P27", "P28",
    "P29", "P30", "P31", "P32", "P33", "P34", "P35", "P36", "P37", "P38", "P39", "P40", "P41",
    "P42", "P43", "P44", "P45", "P46", "P47", "P48", "P49", "P50", "P51", "P52", "P53", "P54",
    "P55", "P56", "P57", "P58", "P59", "P60", "P61", "P62", "P63", "P64",
];

pub struct Interp<'p> {
    pub prog: &'p Program,
    /// The program compiled to closures (made once per program, on its first game).
    code: &'p compile::Compiled,
    pub state: State,
    pub limits: Limits,
    pub agents: Vec<Box<dyn Agent>>,
    /// Collected events, when recording.
    pub events: Vec<Event>,
    /// Called with every event as it happens (`rules run` streams the account with it).
    pub sink: Option<EventSink>,
    /// Shown the state at every choice before it is asked, and each value `lookup` gives
    /// (`rules simulate` notes the cards in play with it, `simulate::entered`); `None`
    /// everywhere else, so a choice or a lookup pays one test.
    pub watch: Option<Watch>,
    pub record: bool,
    /// The salt of a secret seed (`crate::seed`): the start shows a commitment instead of the
    /// seed, and the end shows the seed and its key.
    pub secret_seed: Option<Rc<str>>,
    pub choice_log: Vec<ChoiceRecord>,
    /// Locals of every active frame. It only grows; `sp` marks its live top. The checker
    /// guarantees a local is written before it is read, so frames are not cleared.
    stack: Vec<Value>,
    /// For each stack slot, the span of the `let` or `set` that last wrote it, so an error about
    /// a local's value can point at the rule that made it.
    origins: Vec<Span>,
    sp: usize,
    bp: usize,
    call_depth: usize,
    trigger_depth: usize,
    /// Spans of the triggers now running, innermost last.
    trigger_chain: Vec<Span>,
    secret_depth: usize,
    /// While `allocate` asks how much one line takes: the lines still to split among, this one
    /// included (the options are `0..=left`). Random answers split uniformly over the ways.
    pub(crate) allocation: Option<u64>,
    /// The same allocation as its chooser reads it (`ChoiceRequest::split`), only while the
    /// game is recorded.
    pub(crate) split: Option<ask::Split>,
    enter_triggers: Rc<[Vec<usize>]>,
    /// For each zone slot: its family, and who keeps and who learns a card moved there
    /// (`View::move_watchers`), face down and face up; worked out once per program and
    /// number of players (`Layout`).
    slot_info: Rc<[SlotInfo]>,
    /// The size of each key domain of each zone family and var family, for this player count.
    zone_dims: Rc<[Vec<u32>]>,
    /// `players`, built once.
    players: Rc<Items>,
    var_dims: Rc<[Vec<u32>]>,
    seed: u64,
    /// The value of a `return` on its way out to `call_fn`.
    returning: Option<Value>,
    /// The `return` signal, kept between calls so returning allocates nothing.
    spare_return: Option<Box<Diag>>,
    /// The `break` or `continue` signal, kept the same way.
    spare_jump: Option<Box<Diag>>,
    /// Emptied vectors kept for reuse (the elements of a `filter` an aggregate walks).
    spare_vecs: Vec<Vec<Value>>,
    /// An emptied vector of cards kept for reuse (the cards a `move` or `flip` of a list or
    /// zone works on; a nested one, from a trigger, makes its own).
    spare_cards: Vec<u32>,
    /// The result, once the game is over.
    pub outcome: Option<Outcome>,
    /// Inside a `say` or a choice's labels: nothing may change the game.
    displaying: u32,
    /// Inside a choice's prompt or labels in a silent run: their code runs (so it fails where
    /// `run` fails) but an interpolated text builds nothing and is the empty text.
    sketching: u32,
    /// A search's playout: nobody will see what is shown, so a choice's prompt, labels and
    /// notes are not worked out at all (they cannot change the game: the checker proves them
    /// pure). A playout records nothing, so the choice searched is compared without them.
    unshown: bool,
    /// The choice sites whose prompt, labels and notes this silent run has worked out: a silent
    /// run works a site's texts out the first time it reaches it, so a label of the wrong number
    /// or a field of `none` there fails as under `run`, and never again (nobody reads them;
    /// `builtins.rs`). Kept from game to game of one run (`keep_sketched`).
    sketched: Sketched,
    /// The calls under way, when the program is compiled for a profile (`compile/profile.rs`).
    profiling: Vec<compile::profile::Open>,
    /// The empty text a sketched text gives (shared, so a sketch allocates nothing).
    empty_text: Rc<String>,
    /// When set (the REPL under `:as P2`), reading what this player may not see is an error.
    pub observer: Option<u32>,
    /// Whether calls of functions that only read vars are remembered (`compile/memo.rs`). On
    /// by default; off, every call runs its body (tests compare the two).
    pub remember: bool,
    /// An agent searches (`mc`): keep the state at each segment boundary (`search`).
    searching: bool,
    search: Option<Box<search::Track>>,
    /// In a playout of a search: the answers, instead of agents.
    playout: Option<Box<search::Playout>>,
}

/// What a zone slot's moves need to know, found once per program and number of players
/// (`Layout`).
#[derive(Clone, Copy)]
struct SlotInfo {
    /// The zone family.
    def: u32,
    /// (keep, learn) for a card arriving face down, then face up.
    watchers: [(Players, Players); 2],
}

/// Where everything of a game lives for a number of players: the first slot of each var and
/// zone family, each card's vars, and what a game needs to know of its zones (`SlotInfo`, the
/// `enter` triggers of each family). Worked out once per program and number of players
/// (`CodeCache::layout`); every game of that size starts from it.
pub(crate) struct Layout {
    n_players: u32,
    /// The slot limit it was checked against.
    max_slots: u64,
    var_base: Vec<u32>,
    vars: u32,
    zone_base: Vec<u32>,
    zones: u32,
    card_vars: Vec<Value>,
    card_var_base: Vec<u32>,
    enter_triggers: Rc<[Vec<usize>]>,
    slot_info: Rc<[SlotInfo]>,
    zone_dims: Rc<[Vec<u32>]>,
    var_dims: Rc<[Vec<u32>]>,
}

impl Layout {
    /// Whether this is the layout for `n_players` under `limits`.
    pub(crate) fn fits(&self, n_players: u32, limits: &Limits) -> bool {
        self.n_players == n_players && self.max_slots == limits.max_slots
    }

    pub(crate) fn new(prog: &Program, n_players: u32, limits: &Limits) -> R<Layout> {
        let too_many = || {
            Box::new(
                Diag::error(
                    "limit::slots",
                    format!(
                        "this game's zones and vars need more than {} slots",
                        limits.max_slots
                    ),
                )
                .help("use fewer or narrower keys"),
            )
        };
        let bases = |families: &mut dyn Iterator<Item = &[KeyDomain]>| {
            let mut base = Vec::new();
            let mut total = 0u32;
            for keys in families {
                base.push(total);
                total = family_size(keys, n_players, prog)
                    .and_then(|n| total.checked_add(n))
                    .filter(|t| u64::from(*t) <= limits.max_slots.saturating_mul(4))
                    .ok_or_else(too_many)?;
            }
            Ok::<_, Box<Diag>>((base, total))
        };
        let (var_base, vars) = bases(&mut prog.vars.iter().map(|v| &v.keys[..]))?;
        let (zone_base, zones) = bases(&mut prog.zones.iter().map(|z| &z.keys[..]))?;
        let mut card_vars = Vec::new();
        let mut card_var_base = Vec::new();
        for c in &prog.cards {
            card_var_base.push(card_vars.len() as u32);
            card_vars.extend(c.vars.iter().cloned());
        }
        let mut enter_triggers = vec![Vec::new(); prog.zones.len()];
        for (i, t) in prog.triggers.iter().enumerate() {
            if t.event == EventKind::Enter {
                if let Some(list) = t.target.and_then(|z| enter_triggers.get_mut(z as usize)) {
                    list.push(i);
                }
            }
        }
        let slot_info = {
            let v = View {
                prog,
                n_players,
                zone_base: &zone_base,
            };
            (0..zones)
                .map(|slot| SlotInfo {
                    def: v.zone_def_of_slot(slot),
                    watchers: [v.move_watchers(slot, false), v.move_watchers(slot, true)],
                })
                .collect()
        };
        let dims = |keys: &[KeyDomain]| -> Vec<u32> {
            keys.iter().map(|k| key_count(k, n_players, prog)).collect()
        };
        Ok(Layout {
            n_players,
            max_slots: limits.max_slots,
            var_base,
            vars,
            zone_base,
            zones,
            card_vars,
            card_var_base,
            enter_triggers: enter_triggers.into(),
            slot_info,
            zone_dims: prog.zones.iter().map(|z| dims(&z.keys)).collect(),
            var_dims: prog.vars.iter().map(|v| dims(&v.keys)).collect(),
        })
    }
}

const RETURN_CODE: &str = "run::return";
/// The signals `break` and `continue` unwind with, to their loop.
const BREAK_CODE: &str = "run::break";
const CONTINUE_CODE: &str = "run::continue";
/// The signal `end game` unwinds with; `step` catches it.
pub(crate) const END_CODE: &str = "run::end_game";

/// A signal that unwinds the interpreter (`return`, `end game`): it carries no text.
fn signal(code: &'static str) -> Box<Diag> {
    Box::new(Diag {
        severity: crate::diag::Severity::Error,
        code,
        message: String::new(),
        labels: Vec::new(),
        help: None,
    })
}

impl Interp<'_> {
    /// The signal of a `break` (`BREAK_CODE`) or a `continue`: the one kept from the last, so a
    /// loop left early allocates nothing.
    fn jump(&mut self, code: &'static str) -> Box<Diag> {
        match self.spare_jump.take() {
            Some(mut d) => {
                d.code = code;
                d
            }
            None => signal(code),
        }
    }

    /// What a loop does with an error out of its body: a `break` leaves it (`Ok(true)`), a
    /// `continue` goes on (`Ok(false)`), anything else goes on up.
    #[cold]
    #[inline(never)]
    fn caught(&mut self, d: Box<Diag>) -> R<bool> {
        let leave = match d.code {
            BREAK_CODE => true,
            CONTINUE_CODE => false,
            _ => return Err(d),
        };
        self.spare_jump = Some(d);
        Ok(leave)
    }
}

/// How many keys a key domain has in a game of `n_players`.
pub fn key_count(d: &KeyDomain, n_players: u32, prog: &Program) -> u32 {
    match d {
        KeyDomain::Player => n_players,
        KeyDomain::Enum(e) => prog.enums[*e as usize].variants.len() as u32,
        // The checker bounds ranges by `Limits::max_key_range`; saturate rather than wrap.
        KeyDomain::Range(a, b) => {
            u32::try_from((i128::from(*b) - i128::from(*a) + 1).max(0)).unwrap_or(u32::MAX)
        }
    }
}

/// Advance the clock of writes and date entry `at` of `stamps` with it (remembered calls compare
/// the dates with their own, `compile/memo.rs`).
#[inline]
fn stamp(clock: &mut u64, stamps: &mut [u64], at: Id) {
    *clock = clock.saturating_add(1);
    if let Some(s) = stamps.get_mut(at as usize) {
        *s = *clock;
    }
}

/// The slots of one zone or var family, or `None` past `u32`.
pub(crate) fn family_size(keys: &[KeyDomain], n: u32, prog: &Program) -> Option<u32> {
    keys.iter()
        .try_fold(1u32, |acc, k| acc.checked_mul(key_count(k, n, prog)))
        .map(|s| s.max(1))
}

impl<'p> Interp<'p> {
    pub fn new(
        prog: &'p Program,
        n_players: u32,
        seed: u64,
        agents: Vec<Box<dyn Agent>>,
        limits: Limits,
    ) -> R<Self> {
        Self::assemble(prog, n_players, seed, agents, limits, None)
    }

    /// An interpreter that goes on from `state` (a playout of a search, `search/`): as
    /// `new`, without building a first state only to replace it.
    pub(super) fn from_state(
        prog: &'p Program,
        seed: u64,
        limits: Limits,
        state: State,
    ) -> R<Self> {
        Self::assemble(prog, state.n_players, seed, Vec::new(), limits, Some(state))
    }

    fn assemble(
        prog: &'p Program,
        n_players: u32,
        seed: u64,
        agents: Vec<Box<dyn Agent>>,
        limits: Limits,
        given: Option<State>,
    ) -> R<Self> {
        let g = &prog.game;
        // A card set without a `game` block (max 0) can still be inspected and checked.
        if g.max_players > 0 && (n_players < g.min_players || n_players > g.max_players) {
            let allowed = if g.min_players == g.max_players {
                format!("{}", g.min_players)
            } else {
                format!("{} to {}", g.min_players, g.max_players)
            };
            return Err(Box::new(
                Diag::error(
                    "run::players",
                    format!("{} is played by {allowed} players, not {n_players}", g.name),
                )
                .help(format!("use `--players` with a number from {allowed}")),
            ));
        }
        // Every game is played by 1 to 64 players, with or without a `game` block.
        if !(1..=64).contains(&n_players) {
            return Err(Box::new(
                Diag::error(
                    "run::players",
                    format!("{} players is not a game: play with 1 to 64", n_players),
                )
                .help("use `--players` with a number from 1 to 64"),
            ));
        }
        let cache = CodeCache::of(prog)?;
        let layout = cache.layout(prog, n_players, &limits)?;
        let step_limit = limits.max_steps.min(MAX_STEP_COUNT);
        let state = match given {
            Some(state) => state,
            None => State {
                n_players,
                round: 0,
                phase: None,
                phase_items: None,
                vars: vec![Value::None; layout.vars as usize],
                var_base: layout.var_base.clone(),
                var_first: std::rc::Rc::from(Vec::new()),
                zones: vec![Vec::new(); layout.zones as usize],
                zone_base: layout.zone_base.clone(),
                card_zone: vec![NOWHERE; prog.cards.len()],
                face_up: vec![true; prog.cards.len()],
                known: vec![everyone(n_players); prog.cards.len()],
                card_vars: layout.card_vars.clone(),
                card_var_base: layout.card_var_base.clone(),
                consts: vec![Value::None; prog.consts.len()],
                rng: rng::new_rng(seed),
                finished: false,
                eliminated: vec![false; n_players as usize],
                out: 0,
                options: prog.options.iter().map(|o| o.default.clone()).collect(),
                steps_left: step_limit.saturating_add(1),
                step_limit,
                choices_made: 0,
                forced_choices: 0,
                ended_by: None,
                var_clock: 0,
                var_stamp: vec![0; prog.vars.len()],
                // Indexed by field name: as long as the last name that is a field of some kind.
                field_stamp: vec![
                    0;
                    prog.kinds
                        .iter()
                        .flat_map(|k| &k.fields)
                        .map(|f| f.sym as usize + 1)
                        .max()
                        .unwrap_or(0)
                ],
                zone_stamp: vec![0; prog.zones.len()],
                memo: Memo::default(),
            },
        };
        let searching = agents.iter().any(|a| a.searches());
        Ok(Interp {
            prog,
            code: cache.get(prog),
            state,
            limits,
            agents,
            events: Vec::new(),
            sink: None,
            watch: None,
            record: true,
            choice_log: Vec::new(),
            stack: vec![Value::None; 64],
            origins: vec![Span::default(); 64],
            sp: 0,
            bp: 0,
            call_depth: 0,
            trigger_depth: 0,
            trigger_chain: Vec::new(),
            secret_depth: 0,
            allocation: None,
            split: None,
            enter_triggers: layout.enter_triggers.clone(),
            slot_info: layout.slot_info.clone(),
            players: Rc::new(Items::new((0..n_players).map(Value::Player).collect())),
            zone_dims: layout.zone_dims.clone(),
            var_dims: layout.var_dims.clone(),
            seed,
            secret_seed: None,
            returning: None,
            spare_return: None,
            spare_jump: None,
            spare_vecs: Vec::new(),
            spare_cards: Vec::new(),
            outcome: None,
            displaying: 0,
            sketching: 0,
            unshown: false,
            sketched: Sketched::default(),
            profiling: Vec::new(),
            empty_text: Rc::new(String::new()),
            observer: None,
            remember: true,
            searching,
            search: None,
            playout: None,
        })
    }

    /// Carry the choice sites an earlier game of this run has sketched into this one (`rules
    /// bench` plays games back to back): their texts are not worked out again. The games play
    /// the same either way, to the step: a sketch's steps are given back when it ends.
    pub fn keep_sketched(&mut self, earlier: Sketched) {
        self.sketched = earlier;
    }

    /// The choice sites this run has sketched so far, for the next game (`keep_sketched`).
    pub fn take_sketched(&mut self) -> Sketched {
        std::mem::take(&mut self.sketched)
    }

    /// Start this game's zones in the room an earlier game's zones grew (`rules bench` plays
    /// games back to back): each is emptied and keeps its room. Only before the game starts, and
    /// only zones of the same layout; otherwise nothing changes. A game plays the same either way.
    pub fn reuse_zones(&mut self, mut room: Vec<Vec<u32>>) {
        let fresh = self.state.zones.iter().all(Vec::is_empty);
        if fresh && room.len() == self.state.zones.len() {
            room.iter_mut().for_each(Vec::clear);
            self.state.zones = room;
        }
    }

    /// Set a game option (before `init`): a game is a function of its rules, options, seed
    /// and choices.
    pub fn set_option(&mut self, id: Id, v: Value) {
        if let Some(slot) = self.state.options.get_mut(id as usize) {
            *slot = v;
        }
        // Remembered calls may have read the option.
        self.state.memo = Memo::default();
    }

    /// Call a function of the game outside its play (a report reading `groups` as the game
    /// goes): the steps it takes are not charged, so the game plays and counts as without it.
    pub fn call_uncharged(&mut self, f: Id, args: Vec<Value>, span: Span) -> R<Value> {
        let left = self.state.steps_left;
        let r = self.call_fn(f, args, span);
        self.state.steps_left = left;
        r
    }

    /// Whether player `p` is still in the game.
    pub(crate) fn is_in(&self, p: u32) -> bool {
        !self
            .state
            .eliminated
            .get(p as usize)
            .copied()
            .unwrap_or(false)
    }

    /// The players still in, in seat order.
    pub(crate) fn players_in(&self) -> Rc<Items> {
        if self.state.out > 0 {
            Rc::new(Items::new(
                (0..self.state.n_players)
                    .filter(|&p| self.is_in(p))
                    .map(Value::Player)
                    .collect(),
            ))
        } else {
            self.players.clone()
        }
    }

    fn emit(&mut self, e: impl FnOnce(&Self) -> Event) {
        if self.record {
            let ev = e(self);
            self.push_event(ev);
        }
    }

    /// Record an event, and hand it to the sink as it happens.
    pub(crate) fn push_event(&mut self, ev: Event) {
        if let Some(sink) = self.sink.as_mut() {
            sink(&ev);
        }
        self.events.push(ev);
    }

    // ================================================================ frames

    #[inline(always)]
    fn push_frame(&mut self, locals: usize) -> usize {
        let new_bp = self.sp;
        self.sp = new_bp + locals;
        if self.sp > self.stack.len() {
            let n = self.sp.max(self.stack.len() * 2);
            self.stack.resize(n, Value::None);
            self.origins.resize(n, Span::default());
        }
        new_bp
    }

    pub fn with_frame(&mut self, locals: u32, f: impl FnOnce(&mut Self) -> R<Value>) -> R<Value> {
        let old_bp = self.bp;
        let new_bp = self.push_frame(locals as usize);
        self.bp = new_bp;
        let r = f(self);
        self.sp = new_bp;
        self.bp = old_bp;
        r
    }

    /// Date a write to var family `id` (see `State::var_clock`).
    #[inline]
    fn stamp_var(&mut self, id: Id) {
        stamp(&mut self.state.var_clock, &mut self.state.var_stamp, id);
    }

    /// Date a write to the field named `sym` of some card (see `State::field_stamp`).
    #[inline]
    fn stamp_field(&mut self, sym: Id) {
        stamp(&mut self.state.var_clock, &mut self.state.field_stamp, sym);
    }

    /// Date a change to the cards of zone slot `z` or their order (see `State::zone_stamp`).
    #[inline]
    fn stamp_zone(&mut self, z: u32) {
        if self.code.dates_zones {
            let family = self.zone_def_of_slot(z);
            stamp(
                &mut self.state.var_clock,
                &mut self.state.zone_stamp,
                family,
            );
        }
    }

    /// Where local `slot` of the current frame lies on the stack. Never wraps: `bp` is at
    /// most the stack's length (a vector of 16-byte values, so far below `usize::MAX`), and a
    /// slot is below the number of locals a function has. A wrapped sum would only be an
    /// index the stack does not have (every read and write goes through `get`).
    #[inline(always)]
    fn slot_at(&self, slot: u32) -> usize {
        self.bp.wrapping_add(slot as usize)
    }

    #[inline(always)]
    fn set_local(&mut self, slot: u32, v: Value) {
        let i = self.slot_at(slot);
        if let Some(cell) = self.stack.get_mut(i) {
            // The new value is stored before the old one is dropped, straight from the
            // registers it came back in.
            let old = std::mem::replace(cell, v);
            drop(old);
        }
    }

    /// `set_local` of a copy of `v`, a plain value made in its slot from its parts: a copy
    /// made on the side and moved in whole is read back as one 16-byte word from the pieces
    /// just stored, which the processor cannot forward to the read (a stall of a dozen cycles).
    #[inline(always)]
    fn set_local_from(&mut self, slot: u32, v: &Value) {
        let i = self.slot_at(slot);
        let Some(cell) = self.stack.get_mut(i) else {
            return;
        };
        match *v {
            Value::Enum(e, x) => drop(std::mem::replace(cell, Value::Enum(e, x))),
            Value::Int(n) => drop(std::mem::replace(cell, Value::Int(n))),
            Value::Card(c) => drop(std::mem::replace(cell, Value::Card(c))),
            Value::Player(p) => drop(std::mem::replace(cell, Value::Player(p))),
            ref other => drop(std::mem::replace(cell, other.clone())),
        }
    }

    /// `set_local` of a card, made in its slot (`set_local_from`).
    #[inline(always)]
    fn set_local_card(&mut self, slot: u32, c: u32) {
        let i = self.slot_at(slot);
        if let Some(cell) = self.stack.get_mut(i) {
            drop(std::mem::replace(cell, Value::Card(c)));
        }
    }

    /// `set_local` of a number, made in its slot (`set_local_from`).
    #[inline(always)]
    fn set_local_int(&mut self, slot: u32, n: i64) {
        let i = self.slot_at(slot);
        if let Some(cell) = self.stack.get_mut(i) {
            drop(std::mem::replace(cell, Value::Int(n)));
        }
    }

    #[inline(always)]
    fn local(&self, slot: u32) -> Value {
        self.stack
            .get(self.slot_at(slot))
            .cloned()
            .unwrap_or(Value::None)
    }

    /// A local of the current frame, in place.
    #[inline(always)]
    fn local_ref(&self, slot: u32) -> Option<&Value> {
        self.stack.get(self.slot_at(slot))
    }

    /// One step of the budget (a statement, a call, an element of a loop).
    #[inline(always)]
    fn tick(&mut self, span: Span) -> R<()> {
        // Never wraps: the count is at least 1 here (the budget plus one to start with, and
        // `out_of_steps` puts it back to 1 when it reaches 0).
        let left = self.state.steps_left.wrapping_sub(1);
        self.state.steps_left = left;
        if left == 0 {
            return Err(self.out_of_steps(span));
        }
        Ok(())
    }

    /// Charge `n` steps for work whose cost grows with a value's size (comparing, printing,
    /// copying a list), so the step budget bounds time as well as statements.
    pub(crate) fn charge(&mut self, n: u64, span: Span) -> R<()> {
        match self.state.steps_left.checked_sub(n) {
            Some(left) if left > 0 => {
                self.state.steps_left = left;
                Ok(())
            }
            _ => {
                self.state.steps_left = 0;
                Err(self.out_of_steps(span))
            }
        }
    }

    /// The budget ran out (the count reached 0): every later step runs out too.
    #[cold]
    fn out_of_steps(&mut self, span: Span) -> Box<Diag> {
        self.state.steps_left = 1;
        Box::new(
            Diag::error(
                "limit::steps",
                format!(
                    "the game took more than {} evaluation steps",
                    self.limits.max_steps
                ),
            )
            .label(span, "the budget ran out here")
            .help("a loop or trigger probably runs far more often than intended"),
        )
    }
}
