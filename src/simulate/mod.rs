//! `rules simulate`: many seeded games of one game on every core, and a balance report.
//!
//! Game `i` of a run plays with the seed `seed + i` and is answered by the `--agent` spec, so
//! the report is a function of (rules, options, players, agents, first seed, number of games)
//! only: workers take games in any order, and results are put back in seed order before
//! anything is counted. The program holds `Rc`s, so each worker checks the game once for itself.

pub mod ablate;
pub mod entered;
pub mod exposure;
pub mod html;
pub mod invariants;
pub mod leads;
pub mod matchup;
pub mod report;
pub mod shard;
pub mod skill;
pub mod stats;
pub mod tally;

use crate::ast::GroupsAt;
use crate::interp::Interp;
use crate::limits::Limits;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

pub use shard::{shard_range, Shard, SHARD_FORMAT};

/// What to simulate.
#[derive(Debug, Clone)]
pub struct Plan {
    pub game: PathBuf,
    pub players: u32,
    pub games: u64,
    pub seed: u64,
    pub agent: String,
    pub sets: Vec<String>,
    pub jobs: usize,
    /// Cards taken out of the game after setup (by id): ablation, `--without @card`.
    pub without: Vec<String>,
    /// Note which cards enter play in each game, and whose they are (`GameResult::entered`):
    /// set by `--impact`, for exposure; the watch costs a look at the state at every choice.
    pub track: bool,
}

/// One finished game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameResult {
    pub seed: u64,
    /// Seats (0-based) that won; several for a shared win, none for a game without a winner.
    pub winners: Vec<u32>,
    pub scores: Vec<i64>,
    pub rounds: i64,
    /// Choices a player was asked (forced ones, with one option, are not asked).
    pub choices: u64,
    /// Choices with a single legal option, taken without asking.
    #[serde(default)]
    pub forced_choices: u64,
    pub steps: u64,
    /// The seat (0-based) leading alone at the end of each round played, by the game's score
    /// (`None` for a tie; empty without a `score`).
    #[serde(default)]
    pub round_leaders: Vec<Option<u32>>,
    /// Each grouping the game declares (`groups:`): its name, and per seat the groups the
    /// player belonged to at the end.
    #[serde(default)]
    pub groups: Vec<(String, Vec<Vec<String>>)>,
    /// Each figure the game declares (`figures:`), read when the game is over: its name, the
    /// count, and for so many of so many, of how many.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub figures: Vec<(String, i64, Option<i64>)>,
    /// What ended the game (`None` if an error stopped it first).
    #[serde(default)]
    pub ended_by: Option<crate::interp::EndReason>,
    /// What the searching agents' (`mc:N`) searches came to, over all their seats (`None`
    /// when no seat searches).
    #[serde(default)]
    pub search: Option<crate::agent::mc::SearchStats>,
    /// The same per seat (empty when no seat searches; a seat that does not search has all
    /// zeros), for a match to tell each agent's effort.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub seat_search: Vec<crate::agent::mc::SearchStats>,
    /// The runtime diagnostic that stopped the game, if one did.
    pub error: Option<String>,
    /// Per seat: the choices the seat was asked (a seat the rules play, like a solo game's
    /// opponent, is asked none).
    #[serde(default)]
    pub asked: Vec<u64>,
    /// Seats out of the game once setup was done (a solo game's empty seats).
    #[serde(default)]
    pub sat_out: Vec<u32>,
    /// Each measure the game declares (`measures:`), read for every seat when the game is over:
    /// its name, whether it is a yes/no (a bool, counted as 1 or 0), and per seat its value.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub measures: Measures,
    /// With `Plan::track`: the cards that entered play (by index), each with the seats it
    /// reached, a bit per seat (`entered.rs`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub entered: Vec<(u32, u64)>,
}

/// Play one game of the plan: the seed's game, from setup to the end.
fn play(prog: &crate::program::Program, plan: &Plan, seed: u64, limits: Limits) -> GameResult {
    let mut r = GameResult {
        seed,
        winners: Vec::new(),
        scores: Vec::new(),
        rounds: 0,
        choices: 0,
        forced_choices: 0,
        steps: 0,
        round_leaders: Vec::new(),
        ended_by: None,
        groups: Vec::new(),
        figures: Vec::new(),
        search: None,
        seat_search: Vec::new(),
        error: None,
        asked: Vec::new(),
        sat_out: Vec::new(),
        measures: Vec::new(),
        entered: Vec::new(),
    };
    let options = match crate::options::parse_sets(prog, &plan.sets) {
        Ok(o) => o,
        Err(e) => {
            r.error = Some(e);
            return r;
        }
    };
    let agents = match crate::agent::make_agents(&plan.agent, plan.players, seed) {
        Ok(a) => a,
        Err(e) => {
            r.error = Some(e);
            return r;
        }
    };
    let mut interp = match Interp::new(prog, plan.players, seed, agents, limits) {
        Ok(i) => i,
        Err(d) => {
            r.error = Some(format!("{}: {}", d.code, d.message));
            return r;
        }
    };
    interp.record = false;
    let tracker = plan
        .track
        .then(|| std::rc::Rc::new(std::cell::RefCell::new(entered::Tracker::new(prog))));
    if let Some(t) = &tracker {
        let t = t.clone();
        interp.watch = Some(Box::new(
            move |prog: &crate::program::Program, w: crate::interp::Watched<'_>| {
                t.borrow_mut().watch(prog, w)
            },
        ));
    }
    for (id, v) in options {
        interp.set_option(id, v);
    }
    // Step by step, checking the invariants between steps.
    let mut round_leaders = Vec::new();
    let mut groups = Vec::new();
    let mut figures = Vec::new();
    let mut measures = Vec::new();
    let mut sat_out = Vec::new();
    let mut dealt = Dealt::new(prog, plan.players);
    let played = (|| -> Result<crate::interp::Outcome, String> {
        let text = |d: Box<crate::diag::Diag>| format!("{}: {}", d.code, d.message);
        interp.init().map_err(text)?;
        let mut pos = crate::interp::Pos::Setup;
        while pos != crate::interp::Pos::Done {
            let was = pos;
            pos = interp.step(pos).map_err(text)?;
            // Groups as dealt: read after setup, and (by default) after every step until each
            // seat has them.
            let read_now = match prog.game.groups_at {
                GroupsAt::FirstSet => true,
                GroupsAt::Setup => was == crate::interp::Pos::Setup,
                GroupsAt::End => false,
            };
            if read_now && pos != crate::interp::Pos::Done {
                dealt.read(prog, &mut interp);
            }
            if was == crate::interp::Pos::Setup {
                remove_cards(prog, &mut interp.state, &plan.without);
                sat_out = (0..interp.state.n_players)
                    .filter(|&p| interp.state.eliminated.get(p as usize) == Some(&true))
                    .collect();
            }
            if let Some(t) = &tracker {
                t.borrow_mut().scan(prog, &interp.state);
            }
            if let Some(bad) = invariants::check(prog, &interp.state) {
                return Err(format!(
                    "invariant broken after {} choices: {bad}",
                    interp.state.choices_made
                ));
            }
            // A round has ended: the scores now, for who leads.
            let round_over = matches!(was, crate::interp::Pos::Phase { .. })
                && matches!(
                    pos,
                    crate::interp::Pos::Phase {
                        index: 0,
                        item: 0,
                        ..
                    } | crate::interp::Pos::Finish
                );
            if round_over {
                if let Some(s) = interp.scores_now().map_err(text)? {
                    round_leaders.push(leads::sole_leader(&s, prog.game.lowest_wins));
                }
            }
        }
        let at_end = group_members(prog, &mut interp, false).map_err(text)?;
        groups = dealt.or(at_end);
        figures = read_figures(prog, &mut interp).map_err(text)?;
        if plan.track {
            measures = read_measures(prog, &mut interp).map_err(text)?;
        }
        Ok(interp.outcome.take().unwrap_or(crate::interp::Outcome {
            winners: Vec::new(),
            scores: Vec::new(),
        }))
    })();
    match played {
        Ok(o) => {
            r.winners = o.winners;
            r.scores = o.scores;
        }
        Err(e) => r.error = Some(e),
    }
    r.rounds = interp.state.round;
    r.round_leaders = round_leaders;
    r.groups = groups;
    r.figures = figures;
    r.measures = measures;
    r.ended_by = interp.state.ended_by;
    r.forced_choices = interp.state.forced_choices;
    r.search = interp
        .agents
        .iter()
        .filter_map(|a| a.search_stats())
        .reduce(|mut a, b| {
            a.add(&b);
            a
        });
    if r.search.is_some() {
        r.seat_search = interp
            .agents
            .iter()
            .map(|a| a.search_stats().unwrap_or_default())
            .collect();
    }
    r.choices = interp.state.choices_made;
    r.asked = vec![0; interp.state.n_players as usize];
    for c in &interp.choice_log {
        if let Some(n) = r.asked.get_mut(c.player as usize) {
            *n += 1;
        }
    }
    r.sat_out = sat_out;
    r.steps = interp.state.steps();
    interp.watch = None;
    if let Some(t) = tracker.and_then(|t| std::rc::Rc::try_unwrap(t).ok()) {
        r.entered = t.into_inner().finish(&r.groups, |v| interp.show(v));
    }
    r
}

impl GameResult {
    /// A digest of how the game came out (winners, scores, or the error): the games `--impact`
    /// compares seed by seed.
    pub fn outcome_digest(&self) -> u64 {
        let mut d = shard::Digest::default();
        for w in &self.winners {
            d.bytes(&w.to_le_bytes());
        }
        d.bytes(b"|");
        for s in &self.scores {
            d.bytes(&s.to_le_bytes());
        }
        d.bytes(b"|");
        if let Some(e) = &self.error {
            d.text(e);
        }
        d.value()
    }
}

/// A figure as read at the end: its function's name, its count, and for a pair `(k, n)`, `n`.
type Figure = (String, i64, Option<i64>);

/// The game's figures once it is over (`figures: [...]`), read without charging the game's
/// steps: each function's name, its count, and for a pair `(k, n)`, `n`.
fn read_figures(
    prog: &crate::program::Program,
    interp: &mut Interp,
) -> Result<Vec<Figure>, Box<crate::diag::Diag>> {
    use crate::value::Value;
    let mut out = Vec::new();
    for &f in &prog.game.figures {
        let Some(fd) = prog.fns.get(f as usize) else {
            continue;
        };
        let v = interp.call_uncharged(f, Vec::new(), fd.span)?;
        let (k, n) = match &v {
            Value::Int(k) => (*k, None),
            Value::Tuple(_) | Value::Packed(_) => match v.tuple_items().as_deref() {
                Some([Value::Int(k), Value::Int(n)]) => (*k, Some(*n)),
                _ => continue,
            },
            _ => continue,
        };
        out.push((fd.name.clone(), k, n));
    }
    Ok(out)
}

/// Per measure: its name, whether it is a yes/no, and per seat its value.
type Measures = Vec<(String, bool, Vec<i64>)>;

/// The game's measures once it is over (`measures: [...]`), for every seat, read without
/// charging the game's steps: each function's name, whether it gives a bool, and per seat its
/// value (a bool as 1 or 0; anything else as 0).
fn read_measures(
    prog: &crate::program::Program,
    interp: &mut Interp,
) -> Result<Measures, Box<crate::diag::Diag>> {
    use crate::value::Value;
    let mut out = Vec::new();
    for &f in &prog.game.measures {
        let Some(fd) = prog.fns.get(f as usize) else {
            continue;
        };
        let mut yes_no = fd.ret == crate::program::Ty::Bool;
        let mut seats = Vec::new();
        for p in 0..interp.state.n_players {
            let v = interp.call_uncharged(f, vec![Value::Player(p)], fd.span)?;
            seats.push(match v {
                Value::Int(k) => k,
                Value::Bool(b) => {
                    yes_no = true;
                    i64::from(b)
                }
                _ => 0,
            });
        }
        out.push((fd.name.clone(), yes_no, seats));
    }
    Ok(out)
}

/// The groups each seat belongs to at the end of a game, for every grouping the game declares:
/// the group function's value as text, or each element of a list it returns.
type Groups = Vec<(String, Vec<Vec<String>>)>;

fn group_members(
    prog: &crate::program::Program,
    interp: &mut Interp,
    uncharged: bool,
) -> Result<Groups, Box<crate::diag::Diag>> {
    use crate::value::Value;
    let mut out = Vec::new();
    for &f in &prog.game.groups {
        let Some(fd) = prog.fns.get(f as usize) else {
            continue;
        };
        let mut seats = Vec::new();
        for p in 0..interp.state.n_players {
            let args = vec![Value::Player(p)];
            let v = if uncharged {
                interp.call_uncharged(f, args, fd.span)?
            } else {
                interp.call_fn(f, args, fd.span)?
            };
            seats.push(match &v {
                Value::None => Vec::new(),
                Value::List(items) => items
                    .iter()
                    .filter(|x| **x != Value::None)
                    .map(|x| interp.show(x))
                    .collect(),
                other => vec![interp.show(other)],
            });
        }
        out.push((fd.name.clone(), seats));
    }
    Ok(out)
}

/// Each seat's groups as the game first set them (`GroupsAt::FirstSet`) or as they were once
/// setup was done (`GroupsAt::Setup`): per grouping, per seat, `None` until read.
struct Dealt {
    seats: Vec<(String, Vec<Option<Vec<String>>>)>,
    /// Whether every seat of every grouping has been read (nothing more to do).
    done: bool,
}

impl Dealt {
    fn new(prog: &crate::program::Program, players: u32) -> Dealt {
        let seats = prog
            .game
            .groups
            .iter()
            .filter_map(|&f| prog.fns.get(f as usize))
            .map(|fd| (fd.name.clone(), vec![None; players.min(64) as usize]))
            .collect();
        Dealt {
            seats,
            done: prog.game.groups.is_empty(),
        }
    }

    /// Read the groups now, for the seats that have none yet. A function that cannot be worked
    /// out yet (it reads what setup has not set) leaves the seat to a later read. The steps the
    /// functions take are not charged to the game.
    fn read(&mut self, prog: &crate::program::Program, interp: &mut Interp) {
        if self.done {
            return;
        }
        let Ok(now) = group_members(prog, interp, true) else {
            return;
        };
        let mut done = true;
        for ((_, seats), (_, read)) in self.seats.iter_mut().zip(now) {
            for (slot, groups) in seats.iter_mut().zip(read) {
                if slot.is_none() && !groups.is_empty() {
                    *slot = Some(groups);
                }
                done &= slot.is_some();
            }
        }
        self.done = done;
    }

    /// The groups as dealt; a seat never read takes its groups at the end (`at_end`).
    fn or(self, at_end: Groups) -> Groups {
        if self
            .seats
            .iter()
            .all(|(_, s)| s.iter().all(Option::is_none))
        {
            return at_end;
        }
        self.seats
            .into_iter()
            .zip(at_end)
            .map(|((name, seats), (_, end))| {
                let seats = seats
                    .into_iter()
                    .zip(end)
                    .map(|(dealt, end)| dealt.unwrap_or(end))
                    .collect();
                (name, seats)
            })
            .collect()
    }
}

/// Take cards out of the game (ablation): wherever setup put them, they leave for no zone, so
/// the game is played as if they had never been printed.
fn remove_cards(prog: &crate::program::Program, state: &mut crate::interp::State, ids: &[String]) {
    for id in ids {
        let Some(c) = prog.cards.iter().position(|d| d.id.to_string() == *id) else {
            continue;
        };
        let c = c as u32;
        for z in state.zones.iter_mut() {
            z.retain(|&x| x != c);
        }
        if let Some(slot) = state.card_zone.get_mut(c as usize) {
            *slot = u32::MAX;
        }
    }
}

/// The `rules run` line that replays game `seed` of a run and writes its choice log, with the
/// run's players, agents and options (words with other characters than letters, digits and
/// `_-.:/=@,` quoted for a POSIX shell). Cards taken out (`--without`) have no `run` flag: they
/// are named after the line.
pub fn replay_line(
    game: &std::path::Path,
    players: u32,
    seed: u64,
    agent: &str,
    sets: &[String],
    without: &[String],
) -> String {
    let quote = |w: &str| {
        let plain = !w.is_empty()
            && w.chars()
                .all(|c| c.is_ascii_alphanumeric() || "_-.:/=@,".contains(c));
        if plain {
            w.to_string()
        } else {
            format!("'{}'", w.replace('\'', "'\\''"))
        }
    };
    let mut line = format!(
        "rules run {} --players {players} --seed {seed} --agent {}",
        quote(&game.display().to_string()),
        quote(agent)
    );
    for s in sets {
        line.push_str(" --set ");
        line.push_str(&quote(s));
    }
    line.push_str(&format!(" --log seed-{seed}.log"));
    if !without.is_empty() {
        let cards: Vec<String> = without.iter().map(|c| format!("@{c}")).collect();
        line.push_str(&format!(
            " (the run took out {}, which `rules run` keeps)",
            cards.join(", ")
        ));
    }
    line
}

/// Games handed to the pool at a time, per thread: results come back in seed order a block at
/// a time, so a run of any length holds one block, never a list of all its seeds or games.
const BLOCK_PER_JOB: u64 = 64;

/// Play the plan's games on `plan.jobs` threads, handing each result to `sink` in seed order as
/// soon as the games before it are done. `stop` is polled between games: once set, no new game
/// starts, and the games given are the ones before the first that did not run (a prefix of the
/// seeds, as a shorter run would play). Returns how many games were given.
pub fn run_streamed(
    plan: &Plan,
    limits: Limits,
    stop: &std::sync::atomic::AtomicBool,
    progress: &(dyn Fn() + Sync),
    sink: &mut dyn FnMut(GameResult) -> Result<(), String>,
) -> Result<u64, String> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(plan.jobs.max(1))
        .stack_size(Limits::STACK_BYTES)
        .build()
        .map_err(|e| e.to_string())?;
    // Each worker thread checks the game once and keeps it (rayon's `map_init` would check it
    // again for every piece of work it splits off).
    thread_local! {
        static PROGRAM: std::cell::RefCell<Option<crate::program::Program>> =
            const { std::cell::RefCell::new(None) };
    }
    let block = BLOCK_PER_JOB.saturating_mul(plan.jobs.max(1) as u64);
    let mut done: u64 = 0;
    let given = (|| {
        while done < plan.games {
            let len = block.min(plan.games - done);
            let results: Vec<Option<GameResult>> = pool.install(|| {
                (0..len)
                    .into_par_iter()
                    .map(|i| {
                        if stop.load(std::sync::atomic::Ordering::Relaxed) {
                            return None;
                        }
                        let seed = plan.seed.wrapping_add(done).wrapping_add(i);
                        let r = PROGRAM.with(|cell| {
                            let mut slot = cell.borrow_mut();
                            if slot.is_none() {
                                *slot = crate::check_path(&plan.game, &limits).program;
                                if let Some(p) = slot.as_mut() {
                                    ablate::take_out(p, &plan.without);
                                }
                            }
                            slot.as_ref().map(|p| play(p, plan, seed, limits))
                        });
                        progress();
                        r
                    })
                    .collect()
            });
            for r in results {
                let Some(r) = r else {
                    return Ok(done);
                };
                sink(r)?;
                done += 1;
            }
        }
        Ok(done)
    })();
    // The pool's threads end with it; clear this thread's copy too (it may be the caller's).
    PROGRAM.with(|cell| cell.borrow_mut().take());
    given
}

/// Play the plan's games and return them in seed order (`run_streamed`, kept whole: for a
/// caller that wants every game).
pub fn run(
    plan: &Plan,
    limits: Limits,
    stop: &std::sync::atomic::AtomicBool,
    progress: &(dyn Fn() + Sync),
) -> Result<Vec<GameResult>, String> {
    let mut all = Vec::new();
    run_streamed(plan, limits, stop, progress, &mut |r| {
        all.push(r);
        Ok(())
    })?;
    Ok(all)
}

/// Games played in batches of this many seeds when `--until-ci` decides when to stop.
pub const BATCH: u64 = 200;

/// Play until every seat's win-rate interval is narrower than `width` (at most `plan.games`
/// games): whole batches of seeds in order, so where it stops depends only on the seeds.
/// Returns the games given and whether the intervals were narrow enough.
pub fn run_until(
    plan: &Plan,
    width: f64,
    limits: Limits,
    stop: &std::sync::atomic::AtomicBool,
    progress: &(dyn Fn() + Sync),
    sink: &mut dyn FnMut(GameResult) -> Result<(), String>,
) -> Result<(u64, bool), String> {
    let mut tally = tally::Tally::new(plan.players);
    let mut narrow = false;
    let mut done: u64 = 0;
    while done < plan.games && !stop.load(std::sync::atomic::Ordering::Relaxed) {
        let batch = Plan {
            seed: plan.seed.wrapping_add(done),
            games: BATCH.min(plan.games - done),
            ..plan.clone()
        };
        let got = run_streamed(&batch, limits, stop, progress, &mut |r| {
            tally.add(&r);
            sink(r)
        })?;
        done += got;
        if got < batch.games {
            break;
        }
        let r = report::build(plan, &tally, false);
        if r.seats
            .iter()
            .all(|s| s.win_rate.high - s.win_rate.low < width)
        {
            narrow = true;
            break;
        }
    }
    Ok((done, narrow))
}
