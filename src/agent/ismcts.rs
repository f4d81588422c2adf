//! `ismcts:N` and `ismcts:200ms`: information-set Monte Carlo tree search (Cowling, Powley and
//! Whitehouse 2012, single-observer), on the determinisation `mc` uses (`interp::search`).
//!
//! Each iteration deals a determinised copy of the position from the seat's own view (the cards
//! it does not know re-dealt: it never peeks), picks an option at the root by UCB1, and plays the
//! copy out. The choices met after it descend a tree of *information sets* as the seat sees
//! them: a node is reached by the answers given so far, and holds, per shape of choice met there
//! (who chooses, among how many options), the statistics of each answer; an answer that was never
//! tried is tried first, then UCB1 picks among them, each player's answers scored by that
//! player's result (a max-n search). Another player's secret choice is one the seat never sees:
//! it stays a chance event (a random answer) and does not branch the tree. One new node is added
//! per iteration; past the tree, answers are random (an allocation split uniformly). The result
//! of each playout is backed up along its path, weighted by its copy's weight (`interp::Played`).
//! The option played is the root's most visited.
//!
//! A result is worth, to each player, 0.75 times its share of the win (1 / winners, 0 for a loss)
//! plus 0.25 times the share of the other players it outscored (so a seat that cannot win still
//! learns to do better). Everything random comes from one stream seeded from (game seed, seat,
//! choice number): with `N` iterations a decision is a function of the position; with a time
//! budget it depends on the machine's speed.

use super::mc::SearchStats;
use super::{random_answer, Agent, ChoiceRequest};
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
    Millis(u32),
}

/// Read `ismcts:N` or `ismcts:200ms`: `None` when `spec` is not an `ismcts` spec.
pub fn parse(spec: &str) -> Option<Result<Budget, String>> {
    let rest = spec.strip_prefix("ismcts")?;
    let Some(n) = rest.strip_prefix(':') else {
        return Some(Err(format!(
            "`{spec}`: say how many iterations or how long, like ismcts:200 or ismcts:200ms"
        )));
    };
    Some(match n.strip_suffix("ms") {
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
    })
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

/// One answer's statistics at a shape of choice.
#[derive(Debug, Clone, Default)]
struct Arm {
    visits: u64,
    /// Sum of the copies' weights, and of weight times reward.
    weight: f64,
    reward: f64,
    child: Option<u32>,
}

/// A shape of choice met at a node: who chooses among how many, and each answer's arm.
#[derive(Debug, Clone)]
struct Shape {
    player: u32,
    count: usize,
    visits: u64,
    arms: Vec<Arm>,
    /// Answers never tried, in the order they will be.
    untried: Vec<usize>,
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
    /// The arms taken so far: (node, shape, answer).
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

    /// The shape (player, count) at `node`, made on first meeting (its answers in random order).
    fn shape(&mut self, node: u32, player: u32, count: usize, rng: &mut ChaCha8Rng) -> usize {
        let Some(n) = self.nodes.get_mut(node as usize) else {
            return 0;
        };
        if let Some(i) = n
            .shapes
            .iter()
            .position(|s| s.player == player && s.count == count)
        {
            return i;
        }
        let mut untried: Vec<usize> = (0..count).collect();
        rng::shuffle(rng, &mut untried);
        n.shapes.push(Shape {
            player,
            count,
            visits: 0,
            arms: vec![Arm::default(); count],
            untried,
        });
        n.shapes.len() - 1
    }

    /// The answer at `node`'s shape `k`: an untried one first, then UCB1's.
    fn select(&mut self, node: u32, k: usize) -> (usize, bool) {
        let Some(s) = self
            .nodes
            .get_mut(node as usize)
            .and_then(|n| n.shapes.get_mut(k))
        else {
            return (0, false);
        };
        if let Some(a) = s.untried.pop() {
            return (a, true);
        }
        let ln = (s.visits.max(1) as f64).ln();
        let mut best = (0usize, f64::NEG_INFINITY);
        for (a, arm) in s.arms.iter().enumerate() {
            let mean = if arm.weight > 0.0 {
                arm.reward / arm.weight
            } else {
                0.0
            };
            let u = mean + EXPLORE * (ln / arm.visits.max(1) as f64).sqrt();
            if u > best.1 {
                best = (a, u);
            }
        }
        (best.0, false)
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
            s.visits += 1;
            if let Some(arm) = s.arms.get_mut(a) {
                arm.visits += 1;
                arm.weight += played.weight;
                arm.reward += played.weight * r;
            }
        }
        self.at = Some(0);
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
    fn answer(&mut self, met: Met, rng: &mut ChaCha8Rng) -> usize {
        let random = |rng: &mut ChaCha8Rng| random_answer(rng, met.count, met.allocation);
        let Some(node) = self.at else {
            return random(rng);
        };
        if met.hidden || met.count > MAX_BRANCH {
            return random(rng);
        }
        let k = self.shape(node, met.player, met.count, rng);
        let (a, new) = self.select(node, k);
        self.descend(node, k, a, new);
        a
    }

    fn into_any(self: Box<Self>) -> Box<dyn std::any::Any> {
        self
    }
}

/// The option `ismcts` picks at `sp` within `budget`, and what the search came to.
pub fn pick(sp: &SearchPoint, budget: Budget, seed: u64, number: usize) -> (usize, SearchStats) {
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
    let (iterations, max_tries) = match budget {
        Budget::Iterations(n) => (n, n.saturating_mul(TRIES_PER_ITERATION)),
        Budget::Millis(_) => (u32::MAX, u32::MAX),
    };
    let out_of_time = |done: u32| match budget {
        Budget::Millis(ms) => done > 0 && started.elapsed().as_millis() >= u128::from(ms),
        Budget::Iterations(_) => false,
    };
    let mut tree = Box::new(Tree::new());
    let root = tree.shape(0, seat, count, &mut rng);
    let (mut played, mut tries) = (0u32, 0u32);
    while played < iterations && tries < max_tries && !out_of_time(tries) {
        tries += 1;
        let world = sp.determinise(&mut rng);
        let future = rng::draw_u64(&mut rng);
        let (option, new) = tree.select(0, root);
        tree.descend(0, root, option, new);
        let (result, back) = sp.playout_with(world, option, future, tree);
        // The tree comes back with the playout (a playout that could not start keeps nothing).
        tree = match back.and_then(|p| into_tree(p)) {
            Some(t) => t,
            None => Box::new(Tree::new()),
        };
        if result.end == PlayoutEnd::Rejected {
            stats.rejected += 1;
            // Undo the root arm's untried mark: nothing was learnt.
            tree.path.clear();
            tree.at = Some(0);
            if new {
                if let Some(s) = tree.nodes.get_mut(0).and_then(|n| n.shapes.get_mut(root)) {
                    s.untried.push(option);
                }
            }
            continue;
        }
        played += 1;
        tree.backup(&result, lowest);
    }
    stats.worlds = u64::from(played);
    let arms = tree
        .nodes
        .first()
        .and_then(|n| n.shapes.get(root))
        .map(|s| s.arms.clone())
        .unwrap_or_default();
    if played == 0 || arms.is_empty() {
        stats.fallbacks = 1;
        let i = rng::below(&mut rng, count.min(u32::MAX as usize) as u32) as usize;
        return (i, stats);
    }
    // The most visited; ties to the best mean, then the first.
    let mean = |a: &Arm| {
        if a.weight > 0.0 {
            a.reward / a.weight
        } else {
            0.0
        }
    };
    let mut best = 0usize;
    for (i, a) in arms.iter().enumerate().skip(1) {
        let b = &arms[best];
        if a.visits > b.visits || (a.visits == b.visits && mean(a) > mean(b)) {
            best = i;
        }
    }
    (best, stats)
}

/// The tree handed back by a playout (the only policy `pick` gives one).
fn into_tree(p: Box<dyn Policy>) -> Option<Box<Tree>> {
    let any: Box<dyn std::any::Any> = p.into_any();
    any.downcast::<Tree>().ok()
}

/// `--agent ismcts:N` / `ismcts:200ms`.
pub struct IsmctsAgent {
    pub budget: Budget,
    pub seed: u64,
    pub stats: SearchStats,
}

impl IsmctsAgent {
    pub fn new(budget: Budget, seed: u64) -> IsmctsAgent {
        IsmctsAgent {
            budget,
            seed,
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

    fn decide(
        &mut self,
        req: &ChoiceRequest,
        _: &dyn Fn(usize) -> String,
    ) -> Result<usize, String> {
        match req.search {
            Some(sp) => {
                let (i, s) = pick(sp, self.budget, self.seed, req.number);
                self.stats.add(&s);
                Ok(i)
            }
            None => Err("the ismcts agent was asked without the position to search".into()),
        }
    }
}
