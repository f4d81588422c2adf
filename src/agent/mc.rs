//! `mc:N`, flat Monte Carlo: every option of a choice is tried in N random playouts to the end
//! of the game, each from a determinised copy of the position (the cards the seat does not know
//! re-dealt at random: `interp::search`), and the option with the best average result for the
//! seat is taken.
//!
//! A playout scores 1 for a win, 1/k for a win shared by k, 0 for a loss, a game without a winner
//! or a runtime error after the option was taken. Ties go to the best mean score (the lowest
//! when the game is won by the lowest), then to the first option. Playout `j` of every option
//! plays the same determinised copy with the same randomness after the choice (common random
//! numbers), so options are compared on the same deals; each copy's results count by its
//! weight (`interp::Played`: how the other players' secret answers in it were drawn).
//! Everything random comes from one `ChaCha8Rng` seeded from (game seed, seat, choice number):
//! a decision is a function of the position, as every answer of the other agents is.
//!
//! `mc:N/bot:NAME` plays out with the game's bot `NAME` answering every seat's choices after
//! the option (as that seat, on the copy), one answer in four at random
//! (`interp::search::BOT_RANDOM_ONE_IN`, from the playout's stream): playouts that play the
//! game as its designers' bot does, rather than at random. The bot's own answer at the choice is
//! then the search's prior: the best option replaces it only when it beats it on the same copies
//! with confidence (`super::prior`).

use super::{Agent, ChoiceRequest};
pub use crate::interp::SearchStats;
use crate::interp::{Played, PlayoutEnd, SearchPoint};
use crate::rng;
use std::rc::Rc;

/// The most playouts per option `mc:N` accepts.
pub const MAX_PLAYOUTS: u32 = 10_000;

/// Attempts at a determinisation the replay accepts, per playout asked for.
const TRIES_PER_PLAYOUT: u32 = 16;

/// Read the `N` of `mc:N`: `None` when `spec` is not an `mc` spec.
pub fn parse(spec: &str) -> Option<Result<u32, String>> {
    let n = spec.strip_prefix("mc")?;
    let Some(n) = n.strip_prefix(':') else {
        return Some(Err(format!(
            "`{spec}`: say how many playouts per option, like mc:50"
        )));
    };
    Some(match n.parse::<u32>() {
        Ok(k) if (1..=MAX_PLAYOUTS).contains(&k) => Ok(k),
        _ => Err(format!(
            "`mc:{n}`: the playouts per option are a number from 1 to {MAX_PLAYOUTS}"
        )),
    })
}

/// The searcher's stream for choice `number` of `seat`: apart from the random agent's.
fn stream(seed: u64, seat: u32, number: usize) -> rand_chacha::ChaCha8Rng {
    let mixed = seed
        .wrapping_mul(0xD6E8_FEB8_6659_FD93)
        .wrapping_add(u64::from(seat).wrapping_mul(0x9E37_79B9_7F4A_7C15))
        .wrapping_add((number as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F))
        .wrapping_add(0x6D63);
    rng::new_rng(mixed)
}

/// What one option's playouts added up to, each weighted by its copy's weight.
#[derive(Debug, Clone, Default)]
struct Tally {
    reward: f64,
    score: f64,
    scored: f64,
}

impl Tally {
    fn add(&mut self, played: &Played, seat: u32, lowest_wins: bool) {
        let PlayoutEnd::Finished(o) = &played.end else {
            // An error after the option was taken is a loss (a rejection never reaches here).
            return;
        };
        let w = played.weight;
        if o.winners.contains(&seat) {
            self.reward += w / o.winners.len() as f64;
        }
        if let Some(&s) = o.scores.get(seat as usize) {
            self.score += w * if lowest_wins { -(s as f64) } else { s as f64 };
            self.scored += w;
        }
    }

    /// One playout's (reward, score) for `seat`, unweighted: what `add` adds up.
    fn value(played: &Played, seat: u32, lowest_wins: bool) -> (f64, Option<f64>) {
        let PlayoutEnd::Finished(o) = &played.end else {
            return (0.0, None);
        };
        let reward = if o.winners.contains(&seat) {
            1.0 / o.winners.len() as f64
        } else {
            0.0
        };
        let score =
            o.scores
                .get(seat as usize)
                .map(|&s| if lowest_wins { -(s as f64) } else { s as f64 });
        (reward, score)
    }

    fn mean_score(&self) -> f64 {
        if self.scored <= 0.0 {
            f64::NEG_INFINITY
        } else {
            self.score / self.scored
        }
    }
}

/// The option flat Monte Carlo picks at `sp` with `n` playouts per option, and what the search
/// came to; the game seed and the choice number seed its randomness.
pub fn pick(sp: &SearchPoint, n: u32, seed: u64, number: usize) -> (usize, SearchStats) {
    pick_by(sp, n, seed, number, None, None)
}

/// `pick`, the playouts driven by the game's bot `bot` (random when `None`), and `favourite`
/// (the bot's own answer here) taken where no copy leads back to the choice, and kept unless
/// the best option beats it on the same copies with confidence (`super::prior`).
pub fn pick_by(
    sp: &SearchPoint,
    n: u32,
    seed: u64,
    number: usize,
    bot: Option<&Rc<str>>,
    favourite: Option<usize>,
) -> (usize, SearchStats) {
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
    let mut tallies = vec![Tally::default(); count];
    // With a favourite: each copy's (weight, value) per option, to compare the best with it.
    let keep = favourite.is_some_and(|f| f < count);
    let mut values: Vec<Vec<(f64, f64, Option<f64>)>> =
        vec![Vec::new(); if keep { count } else { 0 }];
    let mut played = 0u32;
    let mut tries = 0u32;
    let max_tries = n.min(MAX_PLAYOUTS).saturating_mul(TRIES_PER_PLAYOUT);
    while played < n && tries < max_tries {
        tries += 1;
        let world = sp.determinise(&mut rng);
        let future = rng::draw_u64(&mut rng);
        let first = sp.playout_by(&world, 0, future, bot);
        if first.end == PlayoutEnd::Rejected {
            stats.rejected += 1;
            continue;
        }
        played += 1;
        for (o, t) in tallies.iter_mut().enumerate() {
            let end = if o == 0 {
                first.clone()
            } else {
                sp.playout_by(&world, o, future, bot)
            };
            t.add(&end, seat, lowest);
            if let Some(v) = values.get_mut(o) {
                let (r, s) = Tally::value(&end, seat, lowest);
                v.push((end.weight, r, s));
            }
        }
    }
    stats.worlds = u64::from(played);
    stats.playouts = u64::from(played).saturating_mul(count as u64);
    stats.why = sp.rejections();
    stats.rejected = stats.rejected.saturating_add(sp.refused_copies());
    if played == 0 {
        // No determinisation led back to this choice: choose at random (seeded).
        stats.fallbacks = 1;
        let i = rng::below(&mut rng, count.min(u32::MAX as usize) as u32) as usize;
        let pick = favourite.filter(|&f| f < count);
        stats.by_bot = u64::from(pick.is_some());
        return (pick.unwrap_or(i), stats);
    }
    // Every option has the same `played` copies: compare weighted totals. Ties: mean score,
    // then the favourite, then lowest index.
    let better = |t: &Tally, b: &Tally| {
        t.reward > b.reward || (t.reward == b.reward && t.mean_score() > b.mean_score())
    };
    let mut best: Option<(usize, &Tally)> = favourite.and_then(|f| tallies.get(f).map(|t| (f, t)));
    for (o, t) in tallies.iter().enumerate() {
        match best {
            Some((_, b)) if !better(t, b) => {}
            _ => best = Some((o, t)),
        }
    }
    let best = best.map_or(0, |(o, _)| o);
    let pick = super::prior::settle(
        best,
        favourite.filter(|_| keep),
        count,
        |a, b| pairs(values.get(a), values.get(b)),
        &mut stats,
    );
    (pick, stats)
}

/// The copies two options both played, as gains of the first over the second.
fn pairs(
    a: Option<&Vec<(f64, f64, Option<f64>)>>,
    b: Option<&Vec<(f64, f64, Option<f64>)>>,
) -> Vec<super::prior::Pair> {
    let (Some(a), Some(b)) = (a, b) else {
        return Vec::new();
    };
    a.iter()
        .zip(b)
        .map(|(&(w, ra, sa), &(_, rb, sb))| super::prior::Pair {
            weight: w,
            reward: ra - rb,
            score: match (sa, sb) {
                (Some(x), Some(y)) => x - y,
                _ => 0.0,
            },
        })
        .collect()
}

/// `--agent mc:N`.
pub struct McAgent {
    pub playouts: u32,
    pub seed: u64,
    /// The game's bot that drives the playouts (`mc:N/bot:NAME`); random playouts when `None`.
    pub bot: Option<Rc<str>>,
    /// `mc:N/random`: random playouts even where the game's `playouts:` names a bot.
    pub random_playouts: bool,
    /// What its searches came to so far.
    pub stats: SearchStats,
}

impl McAgent {
    pub fn new(playouts: u32, seed: u64) -> McAgent {
        McAgent {
            playouts,
            seed,
            bot: None,
            random_playouts: false,
            stats: SearchStats::default(),
        }
    }
}

impl Agent for McAgent {
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
                    self.playouts,
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
            None => Err("the mc agent was asked without the position to search".into()),
        }
    }
}
