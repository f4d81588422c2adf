//! `ismcts:N`, `ismcts:10x` and `ismcts:200ms`: information-set Monte Carlo tree search
//! (Cowling, Powley and Whitehouse 2012, single observer), on the determinisation `mc` uses
//! (`interp::search`).
//!
//! Each playout deals a determinised copy of the position from the seat's own view (the cards it
//! does not know re-dealt: it never peeks), takes an option at the root, and plays the copy out.
//! The root is searched by sequential halving (Karnin, Koren and Somekh 2013; on a tree as in
//! Cazenave's SHOT): the budget is split evenly over log2(options) rounds; in each round every
//! option still in plays the same copies with the same randomness after the choice (common random
//! numbers, as `mc` compares its options), and the better half goes on, until one is left.
//!
//! The choices met after the root descend a tree of *information sets*: a node is reached by the
//! answers given so far, holds per player the arms of the answers met there, and an answer is
//! known by what its chooser sees of it (`interp::search::replay::option_key`: a card it knows by
//! its id, one it does not as an unknown card), so the same card is the same arm wherever it stands
//! among a copy's options. A node answers as a random playout would (recording the answers) until
//! it has had two visits per answer on offer, so the copies of one world played with different root
//! options stay paired while its statistics gather; then an answer never tried there is tried
//! first, then UCB1 over the answers on offer, each by its availability (the times it was on offer
//! there). Each player's answers
//! are chosen for that player's result (max-n). Another player's secret choice is one the seat
//! never sees: it stays a chance event (a random answer) and does not branch the tree. One node
//! is added per playout; past the tree, answers are random (an allocation split uniformly). The
//! result of each playout is backed up along its path, weighted by its copy's weight.
//!
//! A playout is not played to the end: once it has answered `default_horizon` choices past the
//! decision (40, or 10 per player where that is more), it is scored where it stands, as the game would score it then (its score
//! function and tiebreaks name the leaders), in a game that has a score (`ismcts:N:H` sets
//! another horizon, `ismcts:N:end` plays every playout out). Forty random answers on, the
//! position still says much of how the decision went, and the end of a random game says less
//! (every later random answer adds noise); it also costs less.
//!
//! A result is worth, to each player, 0.75 times its share of the win (1 / winners, 0 for a loss)
//! plus 0.25 times the share of the other players it outscored (so a seat that cannot win still
//! learns to do better); at the root, equal rewards go to the better mean score. The budget:
//! `N` playouts per decision in all, `Nx` N per option (as many as `mc:N` plays, so the two
//! compare at equal cost), or a time. Everything random comes from one stream seeded from (game
//! seed, seat, choice number): with a number of playouts a decision is a function of the
//! position; with a time budget it depends on the machine's speed.
//!
//! `ismcts:N/bot:NAME` (any budget and horizon before the `/`): the answers a random playout
//! would give (past the tree, and while a node warms up) are the game's bot `NAME`'s, as the
//! seat that chooses on the copy, one in four at random (as `mc:N/bot:NAME`); the bot's own
//! answer at the choice is the search's prior, kept in every round of the halving and replaced
//! only by an option that beats it on the same copies with confidence (`super::prior`).

use super::mc::SearchStats;
use super::{Agent, ChoiceRequest};
use crate::interp::{Met, Played, PlayoutEnd, Policy, SearchPoint};
use crate::rng;
use rand_chacha::ChaCha8Rng;

/// The most iterations `ismcts:N` accepts, and the longest time budget (in ms).
pub const MAX_ITERATIONS: u32 = 1_000_000;
pub const MAX_MS: u32 = 600_000;

/// Attempts at a determinisation the replay accepts, per iteration asked for.
const TRIES_PER_ITERATION: u32 = 16;

/// A choice with more options than this is not branched on: answered at random.
const MAX_BRANCH: usize = 256;

/// The most nodes a search grows (then it only reads the tree it has).
const MAX_NODES: usize = 200_000;

/// UCB1's exploration constant, for rewards in 0..=1.
const EXPLORE: f64 = 0.7;

/// How much of a search `ismcts` makes per decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Budget {
    Iterations(u32),
    /// `ismcts:10x`: so many playouts per option of each choice (as many in all as `mc:10`).
    PerOption(u32),
    Millis(u32),
}

/// How many choices after the one searched a playout answers before it is scored where it
/// stands, unless the spec says otherwise (`ismcts:N:H`, `ismcts:N:end`).
pub const DEFAULT_HORIZON: u32 = 40;

/// Choices per player of the default horizon, where that is more than `DEFAULT_HORIZON`: in a
/// game of many players forty choices are a few each.
pub const HORIZON_PER_PLAYER: u32 = 10;

/// The default horizon for a game of `players`: 40 choices, or 10 per player where that is more.
pub fn default_horizon(players: u32) -> u32 {
    DEFAULT_HORIZON.max(HORIZON_PER_PLAYER.saturating_mul(players))
}

/// How many choices a playout answers past the decision before it is scored (`None`: to the
/// end). By default, `default_horizon` for random playouts, and the end for playouts a bot
/// plays: a bot's answers add little noise, and a position scored part-way can mislead where
/// points come at the end (Hegemony's agendas). At equal playouts against `mc:10/bot:Steward`,
/// 12 players, Hegemony: `ismcts:10x/bot:Steward` with a horizon of 120 choices scored 9.94 points per
/// seat less (-15.24..-4.63, 16 seeds x 2 seatings); played to the end, +1.91 (-6.90..+10.72, 8
/// seeds x 2).
pub fn horizon_of(h: Horizon, players: u32, bot_playouts: bool) -> Option<usize> {
    match h {
        Horizon::Default if bot_playouts => None,
        Horizon::Default => Some(default_horizon(players) as usize),
        Horizon::Choices(h) => Some(h as usize),
        Horizon::End => None,
    }
}

/// How far a playout goes before it is scored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Horizon {
    /// `default_horizon` of the game's players.
    Default,
    /// So many choices past the decision.
    Choices(u32),
    /// To the end of the game.
    End,
}

/// The longest horizon a spec may give (past it, say `end`).
pub const MAX_HORIZON: u32 = 100_000;

/// An `ismcts` spec: the budget per decision and the playouts' horizon.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Spec {
    pub budget: Budget,
    pub horizon: Horizon,
}

/// Read `ismcts:N`, `ismcts:Nx` or `ismcts:200ms`, each with an optional horizon (`:40`, or
/// `:end` to play every playout out): `None` when `spec` is not an `ismcts` spec.
pub fn parse(spec: &str) -> Option<Result<Spec, String>> {
    let rest = spec.strip_prefix("ismcts")?;
    let Some(n) = rest.strip_prefix(':') else {
        return Some(Err(format!(
            "`{spec}`: say how many iterations or how long, like ismcts:200 or ismcts:200ms"
        )));
    };
    let (n, horizon) = match n.split_once(':') {
        None => (n, Horizon::Default),
        Some((n, "end")) => (n, Horizon::End),
        Some((n, h)) => match h.parse::<u32>() {
            Ok(k) if (1..=MAX_HORIZON).contains(&k) => (n, Horizon::Choices(k)),
            _ => {
                return Some(Err(format!(
                    "`{spec}`: the horizon is a number of choices from 1 to {MAX_HORIZON}, or `end`, like ismcts:100:40 or ismcts:100:end"
                )))
            }
        },
    };
    Some(budget(n).map(|budget| Spec { budget, horizon }))
}

/// The budget part of a spec: `N`, `Nx` or `Nms`.
fn budget(n: &str) -> Result<Budget, String> {
    if let Some(x) = n.strip_suffix('x') {
        return match x.parse::<u32>() {
            Ok(k) if (1..=super::mc::MAX_PLAYOUTS).contains(&k) => Ok(Budget::PerOption(k)),
            _ => Err(format!(
                "`ismcts:{n}`: the playouts per option are a number from 1 to {}, like ismcts:10x",
                super::mc::MAX_PLAYOUTS
            )),
        };
    }
    match n.strip_suffix("ms") {
        Some(ms) => match ms.parse::<u32>() {
            Ok(k) if (1..=MAX_MS).contains(&k) => Ok(Budget::Millis(k)),
            _ => Err(format!(
                "`ismcts:{n}`: the time per decision is a number of ms from 1 to {MAX_MS}"
            )),
        },
        None => match n.parse::<u32>() {
            Ok(k) if (1..=MAX_ITERATIONS).contains(&k) => Ok(Budget::Iterations(k)),
            _ => Err(format!(
                "`ismcts:{n}`: the iterations per decision are a number from 1 to {MAX_ITERATIONS}, or a time like 200ms"
            )),
        },
    }
}

/// The searcher's stream for choice `number` of `seat`: apart from `random`'s and `mc`'s.
fn stream(seed: u64, seat: u32, number: usize) -> ChaCha8Rng {
    let mixed = seed
        .wrapping_mul(0xA076_1D64_78BD_642F)
        .wrapping_add(u64::from(seat).wrapping_mul(0xE703_7ED1_A0B4_28DB))
        .wrapping_add((number as u64).wrapping_mul(0x8EBC_6AF0_9C88_C6E3))
        .wrapping_add(0x6973);
    rng::new_rng(mixed)
}

/// One answer's statistics at a node, the answer as its chooser sees it (`key`).
#[derive(Debug, Clone, Default)]
struct Arm {
    key: u64,
    visits: u64,
    /// The times this answer was on offer when its node was reached (the availability count
    /// of information-set MCTS: in another copy the same choice may offer other answers).
    avail: u64,
    /// Sum of the copies' weights, and of weight times reward.
    weight: f64,
    reward: f64,
    /// Sum of weight times the player's score (higher is better: negated when the lowest
    /// wins), for ties between answers of equal reward.
    score: f64,
    child: Option<u32>,
}

impl Arm {
    fn mean(&self) -> f64 {
        if self.weight > 0.0 {
            self.reward / self.weight
        } else {
            0.0
        }
    }
}

/// The choices of one player met at a node, and the arm of each answer seen there.
#[derive(Debug, Clone)]
struct Shape {
    player: u32,
    arms: Vec<Arm>,
}

#[derive(Debug, Clone, Default)]
struct Node {
    shapes: Vec<Shape>,
}

/// The tree, and where the current playout is in it.
struct Tree {
    nodes: Vec<Node>,
    /// The node the playout stands at (`None` once it left the tree).
    at: Option<u32>,
    /// The arms taken so far: (node, shape, arm).
    path: Vec<(u32, usize, usize)>,
}

impl Tree {
    fn new() -> Tree {
        Tree {
            nodes: vec![Node::default()],
            at: Some(0),
            path: Vec::new(),
        }
    }

    /// A placeholder while the tree is lent to a playout.
    fn empty() -> Tree {
        Tree {
            nodes: Vec::new(),
            at: None,
            path: Vec::new(),
        }
    }

    /// The root's shape: the seat's options by number (the same in every copy: a copy that
    /// shows the seat anything else is rejected).
    fn root(&mut self, player: u32, count: usize) -> usize {
        let arms = (0..count as u64)
            .map(|key| Arm {
                key,
                ..Arm::default()
            })
            .collect();
        match self.nodes.get_mut(0) {
            Some(n) => {
                n.shapes.push(Shape { player, arms });
                n.shapes.len() - 1
            }
            None => 0,
        }
    }

    /// `player`'s shape at `node`, made on first meeting.
    fn shape(&mut self, node: u32, player: u32) -> Option<usize> {
        let n = self.nodes.get_mut(node as usize)?;
        if let Some(i) = n.shapes.iter().position(|s| s.player == player) {
            return Some(i);
        }
        n.shapes.push(Shape {
            player,
            arms: Vec::new(),
        });
        Some(n.shapes.len() - 1)
    }

    /// The answer at `node`'s shape `k` among options that read as `keys`: one never tried
    /// here first (at random), then UCB1 over those on offer, by their availability. Gives
    /// (option, arm, whether the arm is new).
    fn choose(
        &mut self,
        node: u32,
        k: usize,
        keys: &[u64],
        rng: &mut ChaCha8Rng,
    ) -> Option<(usize, usize, bool)> {
        let s = self
            .nodes
            .get_mut(node as usize)
            .and_then(|n| n.shapes.get_mut(k))?;
        // Each distinct key once, at its first option.
        let mut order: Vec<(u64, usize)> = keys.iter().copied().zip(0..).collect();
        order.sort_unstable();
        order.dedup_by_key(|e| e.0);
        let mut untried = Vec::new();
        let mut offered = Vec::with_capacity(order.len());
        for &(key, option) in &order {
            match s.arms.iter().position(|a| a.key == key) {
                Some(a) => offered.push((option, a)),
                None => untried.push((option, key)),
            }
        }
        for &(_, a) in &offered {
            if let Some(arm) = s.arms.get_mut(a) {
                arm.avail += 1;
            }
        }
        if !untried.is_empty() {
            untried.sort_unstable();
            let i = rng::below(rng, untried.len().min(u32::MAX as usize) as u32) as usize;
            let (option, key) = untried.get(i).copied()?;
            s.arms.push(Arm {
                key,
                avail: 1,
                ..Arm::default()
            });
            return Some((option, s.arms.len() - 1, true));
        }
        let mut best: Option<(usize, usize, f64)> = None;
        for &(option, a) in &offered {
            let Some(arm) = s.arms.get(a) else { continue };
            let ln = (arm.avail.max(1) as f64).ln();
            let u = arm.mean() + EXPLORE * (ln / arm.visits.max(1) as f64).sqrt();
            if best.is_none_or(|(_, _, b)| u > b) {
                best = Some((option, a, u));
            }
        }
        best.map(|(option, a, _)| (option, a, false))
    }

    /// Whether `node`'s shape `k`, offering `distinct` answers, is still warming up: fewer
    /// than two visits per answer so far. Until then it answers as a random playout would, so
    /// that the copies of one world played with different root options stay paired (the same
    /// answers from the same stream) while its statistics gather.
    fn warming(&self, node: u32, k: usize, distinct: usize) -> bool {
        let visits: u64 = self
            .nodes
            .get(node as usize)
            .and_then(|n| n.shapes.get(k))
            .map_or(0, |s| s.arms.iter().map(|a| a.visits).sum());
        visits < 2 * distinct as u64
    }

    /// Record that `option` (read as `keys[option]`) was answered at `node`'s shape `k`: every
    /// answer on offer counts its availability; gives the option's arm and whether it is new.
    fn record(
        &mut self,
        node: u32,
        k: usize,
        keys: &[u64],
        option: usize,
    ) -> Option<(usize, bool)> {
        let key = *keys.get(option)?;
        let s = self
            .nodes
            .get_mut(node as usize)
            .and_then(|n| n.shapes.get_mut(k))?;
        let mut offered: Vec<u64> = keys.to_vec();
        offered.sort_unstable();
        offered.dedup();
        for arm in s.arms.iter_mut() {
            if offered.binary_search(&arm.key).is_ok() {
                arm.avail += 1;
            }
        }
        match s.arms.iter().position(|a| a.key == key) {
            Some(a) => Some((a, false)),
            None => {
                s.arms.push(Arm {
                    key,
                    avail: 1,
                    ..Arm::default()
                });
                Some((s.arms.len() - 1, true))
            }
        }
    }

    /// Go down arm `a` of `node`'s shape `k`: to its child (made when `expand`), or out of the
    /// tree.
    fn descend(&mut self, node: u32, k: usize, a: usize, expand: bool) {
        self.path.push((node, k, a));
        let child = self
            .nodes
            .get(node as usize)
            .and_then(|n| n.shapes.get(k))
            .and_then(|s| s.arms.get(a))
            .and_then(|arm| arm.child);
        self.at = match child {
            Some(c) => Some(c),
            None if expand && self.nodes.len() < MAX_NODES => {
                let c = self.nodes.len() as u32;
                self.nodes.push(Node::default());
                if let Some(arm) = self
                    .nodes
                    .get_mut(node as usize)
                    .and_then(|n| n.shapes.get_mut(k))
                    .and_then(|s| s.arms.get_mut(a))
                {
                    arm.child = Some(c);
                }
                // One node per iteration: the rest of the playout is random.
                None
            }
            None => None,
        };
    }

    /// Back a playout's result up its path.
    fn backup(&mut self, played: &Played, lowest_wins: bool) {
        let path = std::mem::take(&mut self.path);
        for (node, k, a) in path {
            let Some(s) = self
                .nodes
                .get_mut(node as usize)
                .and_then(|n| n.shapes.get_mut(k))
            else {
                continue;
            };
            let r = reward(played, s.player, lowest_wins);
            let sc = score_of(played, s.player, lowest_wins);
            if let Some(arm) = s.arms.get_mut(a) {
                arm.visits += 1;
                arm.weight += played.weight;
                arm.reward += played.weight * r;
                arm.score += played.weight * sc;
            }
        }
        self.at = Some(0);
    }
}

/// `player`'s score at the end of a playout, higher better (0 without one).
fn score_of(played: &Played, player: u32, lowest_wins: bool) -> f64 {
    let PlayoutEnd::Finished(o) = &played.end else {
        return 0.0;
    };
    match o.scores.get(player as usize) {
        Some(&s) if lowest_wins => -(s as f64),
        Some(&s) => s as f64,
        None => 0.0,
    }
}

/// What a playout is worth to `player`, in 0..=1 (see the module's account).
fn reward(played: &Played, player: u32, lowest_wins: bool) -> f64 {
    let PlayoutEnd::Finished(o) = &played.end else {
        return 0.0;
    };
    let win = if o.winners.contains(&player) {
        1.0 / o.winners.len() as f64
    } else {
        0.0
    };
    let beaten = match o.scores.get(player as usize) {
        Some(&mine) if o.scores.len() > 1 => {
            let below = o
                .scores
                .iter()
                .filter(|&&s| if lowest_wins { s > mine } else { s < mine })
                .count();
            below as f64 / (o.scores.len() - 1) as f64
        }
        _ => 0.0,
    };
    0.75 * win + 0.25 * beaten
}

impl Policy for Tree {
    fn answer(
        &mut self,
        met: Met<'_>,
        rng: &mut ChaCha8Rng,
        playout: &mut dyn FnMut(&mut ChaCha8Rng) -> usize,
    ) -> usize {
        let Some(node) = self.at else {
            return playout(rng);
        };
        if met.hidden || met.count > MAX_BRANCH || met.keys.len() != met.count {
            return playout(rng);
        }
        let Some(k) = self.shape(node, met.player) else {
            return playout(rng);
        };
        let mut distinct = met.keys.to_vec();
        distinct.sort_unstable();
        distinct.dedup();
        if self.warming(node, k, distinct.len()) {
            let option = playout(rng);
            if let Some((a, new)) = self.record(node, k, met.keys, option) {
                self.descend(node, k, a, new);
            }
            return option;
        }
        match self.choose(node, k, met.keys, rng) {
            Some((option, a, new)) => {
                self.descend(node, k, a, new);
                option
            }
            None => playout(rng),
        }
    }

    fn wants_keys(&self) -> bool {
        self.at.is_some()
    }

    fn into_any(self: Box<Self>) -> Box<dyn std::any::Any> {
        self
    }
}

/// The rounds of sequential halving among `count` options: until one is left.
fn rounds(count: usize) -> u32 {
    let mut r = 0u32;
    let mut left = count;
    while left > 1 {
        left = left.div_ceil(2);
        r += 1;
    }
    r.max(1)
}

/// The option `ismcts` picks at `sp` within `budget`, and what the search came to.
///
/// The root is searched by sequential halving (Karnin, Koren and Somekh 2013; on trees as in
/// Cazenave's SHOT): the budget is split evenly over rounds, each round plays every option
/// still in on the same determinised copies with the same randomness after the choice (common
/// random numbers, so options are compared on the same deals, as `mc` does), and the better
/// half, by mean reward over all their copies so far, goes on to the next round, until one is
/// left. Below the root, each playout descends the tree of information sets by UCB1.
pub fn pick(sp: &SearchPoint, spec: Spec, seed: u64, number: usize) -> (usize, SearchStats) {
    pick_by(sp, spec, seed, number, None, None)
}

/// `pick`, the playouts driven by the game's bot `bot` (random when `None`), and `favourite`
/// (the bot's own answer here) taken where no copy leads back to the choice; it stays in every
/// round of the halving, and is kept unless the best option beats it on the same copies with
/// confidence (`super::prior`).
pub fn pick_by(
    sp: &SearchPoint,
    spec: Spec,
    seed: u64,
    number: usize,
    bot: Option<&std::rc::Rc<str>>,
    favourite: Option<usize>,
) -> (usize, SearchStats) {
    let budget = spec.budget;
    let horizon = horizon_of(spec.horizon, sp.players(), bot.is_some());
    let count = sp.options();
    let seat = sp.seat();
    let mut rng = stream(seed, seat, number);
    let mut stats = SearchStats::default();
    if count <= 1 {
        return (0, stats);
    }
    stats.decisions = 1;
    sp.prepare(&mut rng);
    let lowest = sp.lowest_wins();
    let started = std::time::Instant::now();
    let total_rounds = rounds(count);
    let mut tree = Box::new(Tree::new());
    let root = tree.root(seat, count);
    let mut alive: Vec<usize> = (0..count).collect();
    let (mut worlds, mut tries, mut playouts) = (0u64, 0u64, 0u64);
    // With a favourite: each copy's (copy, weight, reward, score) per option, to compare the
    // best with it on the copies both played.
    let favourite = favourite.filter(|&f| f < count);
    let mut values: Vec<Vec<Value>> = vec![Vec::new(); if favourite.is_some() { count } else { 0 }];
    let mut this_copy: Vec<(usize, Value)> = Vec::new();
    // The playouts asked for in all (a time budget counts none).
    let asked = match budget {
        Budget::Iterations(n) => Some(u64::from(n)),
        Budget::PerOption(n) => Some(u64::from(n).saturating_mul(count as u64)),
        Budget::Millis(_) => None,
    };
    let max_tries = asked.map_or(u64::MAX, |n| {
        n.max(count as u64)
            .saturating_mul(u64::from(TRIES_PER_ITERATION))
    });
    for round in 0..total_rounds {
        if alive.len() <= 1 || tries >= max_tries {
            break;
        }
        // This round's copies: its share of the budget over the options still in, at least one.
        let per_round = asked.map_or(u64::MAX, |n| n / u64::from(total_rounds));
        let want = (per_round / alive.len() as u64).max(1);
        let deadline = match budget {
            Budget::Millis(ms) => Some(
                u128::from(ms).saturating_mul(u128::from(round) + 1) / u128::from(total_rounds),
            ),
            Budget::Iterations(_) | Budget::PerOption(_) => None,
        };
        let mut got = 0u64;
        while got < want && tries < max_tries {
            if let Some(d) = deadline {
                if got > 0 && started.elapsed().as_millis() >= d {
                    break;
                }
            }
            tries += 1;
            let world = sp.determinise(&mut rng);
            let future = rng::draw_u64(&mut rng);
            let mut accepted = true;
            this_copy.clear();
            if let Some((&last, rest)) = alive.split_last() {
                // Every option but the last plays a copy; the last plays the copy itself.
                for &option in rest {
                    let v = play_one(
                        sp,
                        sp.copy(&world),
                        (option, future, horizon, bot),
                        &mut tree,
                        root,
                        lowest,
                    );
                    let Some(v) = v else {
                        accepted = false;
                        break;
                    };
                    this_copy.push((option, v));
                    playouts += 1;
                }
                if accepted {
                    let v = play_one(
                        sp,
                        world,
                        (last, future, horizon, bot),
                        &mut tree,
                        root,
                        lowest,
                    );
                    match v {
                        Some(v) => {
                            this_copy.push((last, v));
                            playouts += 1;
                        }
                        None => accepted = false,
                    }
                }
            }
            if !accepted {
                stats.rejected += 1;
                continue;
            }
            for &(option, v) in &this_copy {
                if let Some(vs) = values.get_mut(option) {
                    vs.push(Value { copy: worlds, ..v });
                }
            }
            worlds += 1;
            got += 1;
        }
        if got == 0 {
            break;
        }
        // The better half goes on (ties: the option first in order).
        let arms = root_arms(&tree, root);
        let mut ranked = alive.clone();
        let fav = |o: usize| favourite != Some(o);
        ranked.sort_by(|&a, &b| {
            better(&arms, b, a)
                .then(fav(a).cmp(&fav(b)))
                .then(a.cmp(&b))
        });
        ranked.truncate(alive.len().div_ceil(2));
        // The bot's answer stays in, to be compared with the best on every copy.
        if let Some(f) = favourite.filter(|f| alive.contains(f) && !ranked.contains(f)) {
            ranked.push(f);
        }
        ranked.sort_unstable();
        alive = ranked;
    }
    stats.worlds = worlds;
    stats.playouts = playouts;
    stats.why = sp.rejections();
    stats.rejected = stats.rejected.saturating_add(sp.refused_copies());
    if worlds == 0 {
        stats.fallbacks = 1;
        let i = rng::below(&mut rng, count.min(u32::MAX as usize) as u32) as usize;
        let pick = favourite.filter(|&f| f < count);
        stats.by_bot = u64::from(pick.is_some());
        return (pick.unwrap_or(i), stats);
    }
    // The best mean among those still in (one, unless the budget ran out first).
    let arms = root_arms(&tree, root);
    let best = alive.iter().copied().fold(
        favourite.filter(|f| alive.contains(f)),
        |best: Option<usize>, o| match best {
            Some(b) if better(&arms, o, b) != std::cmp::Ordering::Greater => Some(b),
            _ => Some(o),
        },
    );
    let pick = super::prior::settle(
        best.unwrap_or(0),
        favourite,
        count,
        |a, b| pairs(values.get(a), values.get(b)),
        &mut stats,
    );
    (pick, stats)
}

/// One root option's playout of one copy, for the prior's comparison.
#[derive(Debug, Clone, Copy)]
struct Value {
    /// Which copy (the count of copies accepted before it).
    copy: u64,
    weight: f64,
    reward: f64,
    score: f64,
}

/// The copies two options both played, as gains of the first over the second.
fn pairs(a: Option<&Vec<Value>>, b: Option<&Vec<Value>>) -> Vec<super::prior::Pair> {
    let (Some(a), Some(b)) = (a, b) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut j = 0usize;
    for x in a {
        while b.get(j).is_some_and(|y| y.copy < x.copy) {
            j += 1;
        }
        if let Some(y) = b.get(j).filter(|y| y.copy == x.copy) {
            out.push(super::prior::Pair {
                weight: x.weight,
                reward: x.reward - y.reward,
                score: x.score - y.score,
            });
        }
    }
    out
}

/// Play `world` out with `option` at the root, the tree answering below it, and back the
/// result up; what it was worth to the seat, `None` when the copy did not lead back to the
/// choice (nothing learnt).
fn play_one(
    sp: &SearchPoint,
    world: crate::interp::World,
    (option, future, horizon, bot): (usize, u64, Option<usize>, Option<&std::rc::Rc<str>>),
    tree: &mut Box<Tree>,
    root: usize,
    lowest: bool,
) -> Option<Value> {
    let expand = tree
        .nodes
        .first()
        .and_then(|n| n.shapes.get(root))
        .and_then(|s| s.arms.get(option))
        .is_some_and(|a| a.child.is_none());
    tree.descend(0, root, option, expand);
    let taken = std::mem::replace(tree, Box::new(Tree::empty()));
    let (result, back) = sp.playout_with(world, option, future, taken, horizon, bot.cloned());
    // The tree comes back with the playout (a playout that could not start keeps nothing).
    *tree = match back.and_then(into_tree) {
        Some(t) => t,
        None => Box::new(Tree::new()),
    };
    if result.end == PlayoutEnd::Rejected {
        tree.path.clear();
        tree.at = Some(0);
        return None;
    }
    tree.backup(&result, lowest);
    Some(Value {
        copy: 0,
        weight: result.weight,
        reward: reward(&result, sp.seat(), lowest),
        score: score_of(&result, sp.seat(), lowest),
    })
}

/// The root's arms (empty when the tree was lost).
fn root_arms(tree: &Tree, root: usize) -> Vec<Arm> {
    tree.nodes
        .first()
        .and_then(|n| n.shapes.get(root))
        .map(|s| s.arms.clone())
        .unwrap_or_default()
}

/// How answer `a` compares with `b` at the root: by mean reward, then mean score (both by the
/// copies' weights; the options still in have played the same copies).
fn better(arms: &[Arm], a: usize, b: usize) -> std::cmp::Ordering {
    let mean = |i: usize| match arms.get(i) {
        Some(arm) if arm.weight > 0.0 => (arm.reward / arm.weight, arm.score / arm.weight),
        _ => (0.0, f64::NEG_INFINITY),
    };
    let ((ra, sa), (rb, sb)) = (mean(a), mean(b));
    ra.partial_cmp(&rb)
        .unwrap_or(std::cmp::Ordering::Equal)
        .then(sa.partial_cmp(&sb).unwrap_or(std::cmp::Ordering::Equal))
}

/// The tree handed back by a playout (the only policy `pick` gives one).
fn into_tree(p: Box<dyn Policy>) -> Option<Box<Tree>> {
    let any: Box<dyn std::any::Any> = p.into_any();
    any.downcast::<Tree>().ok()
}

/// `--agent ismcts:N` / `ismcts:200ms`.
pub struct IsmctsAgent {
    pub spec: Spec,
    pub seed: u64,
    /// The game's bot that drives the playouts (`ismcts:N/bot:NAME`); random when `None`.
    pub bot: Option<std::rc::Rc<str>>,
    /// `ismcts:N/random`: random playouts even where the game's `playouts:` names a bot.
    pub random_playouts: bool,
    pub stats: SearchStats,
}

impl IsmctsAgent {
    /// With the default horizon.
    pub fn new(budget: Budget, seed: u64) -> IsmctsAgent {
        IsmctsAgent::with_spec(
            Spec {
                budget,
                horizon: Horizon::Default,
            },
            seed,
        )
    }

    pub fn with_spec(spec: Spec, seed: u64) -> IsmctsAgent {
        IsmctsAgent {
            spec,
            seed,
            bot: None,
            random_playouts: false,
            stats: SearchStats::default(),
        }
    }
}

impl Agent for IsmctsAgent {
    fn searches(&self) -> bool {
        true
    }

    fn search_stats(&self) -> Option<SearchStats> {
        Some(self.stats)
    }

    /// The bot driving the playouts (`/bot:NAME`): the game works its answer out for every
    /// choice searched, the answer when no copy leads back to the choice.
    fn bot(&self, _seat: u32) -> Option<std::rc::Rc<str>> {
        self.bot.clone()
    }

    fn game_playouts(&self, _seat: u32) -> bool {
        self.bot.is_none() && !self.random_playouts
    }

    fn decide(
        &mut self,
        req: &ChoiceRequest,
        _: &dyn Fn(usize) -> String,
    ) -> Result<usize, String> {
        match req.search {
            Some(sp) => {
                if let Some(m) = sp.refused() {
                    return Err(m);
                }
                let game_bot = if self.game_playouts(sp.seat()) {
                    sp.game_playouts()
                } else {
                    None
                };
                let (i, s) = pick_by(
                    sp,
                    self.spec,
                    self.seed,
                    req.number,
                    self.bot.as_ref().or(game_bot.as_ref()),
                    req.bot,
                );
                self.stats.add(&s);
                if let Some(m) = sp.bot_peeked() {
                    return Err(m);
                }
                Ok(i)
            }
            None => Err("the ismcts agent was asked without the position to search".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An answer is known by what its chooser sees of it, wherever it stands among the
    /// options of a copy: a key never tried here is tried first, and each answer on offer
    /// counts its availability.
    #[test]
    fn arms_follow_what_the_chooser_sees() {
        let mut t = Tree::new();
        let k = t.shape(0, 1).expect("shape");
        let mut rng = rng::new_rng(1);
        let (o, _, new) = t.choose(0, k, &[7, 8], &mut rng).expect("answer");
        assert!(new);
        let first = [7u64, 8][o];
        // The same two answers in the other order: the untried one, by its key.
        let (o, _, new) = t.choose(0, k, &[8, 7], &mut rng).expect("answer");
        assert!(new);
        assert_ne!([8u64, 7][o], first);
        // Both tried; a repeated key is one answer.
        let (o, _, new) = t.choose(0, k, &[7, 8, 7], &mut rng).expect("answer");
        assert!(!new);
        assert!(o < 2, "the first option of each key: {o}");
        let arms = &t.nodes[0].shapes[k].arms;
        assert_eq!(arms.len(), 2);
        let avail: Vec<u64> = arms.iter().map(|a| a.avail).collect();
        assert_eq!(avail, vec![3, 2]);
        // Another player at the same node has answers of its own.
        assert_ne!(t.shape(0, 2), Some(k));
    }

    /// A node answers as a random playout would until each answer on offer could have had two
    /// visits, recording what was answered; then it chooses.
    #[test]
    fn a_node_warms_up_on_random_answers() {
        let mut t = Tree::new();
        let k = t.shape(0, 1).expect("shape");
        assert!(t.warming(0, k, 2));
        let (a, new) = t.record(0, k, &[7, 8], 1).expect("recorded");
        assert!(new);
        assert_eq!(t.nodes[0].shapes[k].arms[a].key, 8);
        for arm in t.nodes[0].shapes[k].arms.iter_mut() {
            arm.visits = 4;
        }
        assert!(!t.warming(0, k, 2));
        // A key not seen before is a new arm; one seen is the same arm, wherever it stands.
        assert_eq!(t.record(0, k, &[9, 8], 0).map(|(_, n)| n), Some(true));
        assert_eq!(t.record(0, k, &[9, 8], 1), Some((a, false)));
    }

    #[test]
    fn bot_playouts_go_to_the_end_by_default() {
        assert_eq!(horizon_of(Horizon::Default, 12, false), Some(120));
        assert_eq!(horizon_of(Horizon::Default, 2, false), Some(40));
        assert_eq!(horizon_of(Horizon::Default, 12, true), None);
        assert_eq!(horizon_of(Horizon::Choices(30), 12, true), Some(30));
        assert_eq!(horizon_of(Horizon::End, 2, false), None);
    }

    #[test]
    fn rounds_halve_to_one() {
        assert_eq!(rounds(2), 1);
        assert_eq!(rounds(3), 2);
        assert_eq!(rounds(4), 2);
        assert_eq!(rounds(5), 3);
        assert_eq!(rounds(20), 5);
    }
}
