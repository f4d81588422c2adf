//! Exposure, the way card players measure a card (17lands' "game in hand" win rate, HSReplay's
//! played win rate): in the games of the plain run, the seats (and groups: each faction, each
//! role) that got or faced a card against those that did not, for the win rate and the mean
//! score, and the game's own figures in the games the card entered play in against the others.
//! Counted one game at a time in seed order, from `GameResult::entered` (`entered.rs`).
//!
//! A seat is one unit per game it took part in; a group one unit per game it had members in (it
//! wins when the only winner is a member, its score is its members' mean). Units of one game are
//! not independent (one seat's win is the others' loss), so the intervals are a little narrow
//! where most seats of a game got the card; a card that reached only a few seats or groups
//! per game, the case a designer asks about, is measured well.

use super::report::Interval;
use super::stats::{wilson, Z95};
use super::GameResult;
use serde::Serialize;

/// Counts of one side (exposed or not): units, outright wins, and the score's moments.
#[derive(Debug, Clone, Copy, Default)]
struct Side {
    n: u64,
    wins: u64,
    scored: u64,
    sum: f64,
    sumsq: f64,
}

impl Side {
    fn add(&mut self, won: bool, score: Option<f64>) {
        self.n = self.n.saturating_add(1);
        if won {
            self.wins = self.wins.saturating_add(1);
        }
        if let Some(x) = score {
            self.scored = self.scored.saturating_add(1);
            self.sum += x;
            self.sumsq += x * x;
        }
    }

    fn rate(&self) -> Interval {
        let (low, high) = wilson(self.wins, self.n);
        Interval {
            value: if self.n == 0 {
                0.0
            } else {
                self.wins as f64 / self.n as f64
            },
            low,
            high,
        }
    }

    /// The mean with its standard error (`None` under two values).
    fn mean(&self) -> Option<(f64, f64)> {
        if self.scored < 2 {
            return None;
        }
        let n = self.scored as f64;
        let m = self.sum / n;
        let var = ((self.sumsq - n * m * m) / (n - 1.0)).max(0.0);
        Some((m, (var / n).sqrt()))
    }
}

/// Exposed against not, for one kind of unit.
#[derive(Debug, Clone, Copy, Default)]
struct Split {
    with: Side,
    without: Side,
}

/// One card's counts over the run.
#[derive(Debug, Clone, Default)]
struct CardCounts {
    entered: u64,
    /// Seats, then one per grouping.
    units: Vec<Split>,
    /// Per figure: the games it entered play in against the others (the figure's value, or its
    /// share for so many of so many).
    figures: Vec<Split>,
}

/// Exposure counted over a run, for the cards asked about.
#[derive(Debug, Clone, Default)]
pub struct Exposure {
    /// The cards, by index, with their ids.
    cards: Vec<(u32, String)>,
    counts: Vec<CardCounts>,
    /// Games counted (played without an error).
    pub games: u64,
    /// The groupings' and figures' names, as the first game gave them.
    groupings: Vec<String>,
    figures: Vec<String>,
}

impl Exposure {
    pub fn new(cards: Vec<(u32, String)>) -> Exposure {
        let counts = vec![CardCounts::default(); cards.len()];
        Exposure {
            cards,
            counts,
            ..Exposure::default()
        }
    }

    /// Count one game (an error's game is left out, as the report leaves it out).
    pub fn add(&mut self, r: &GameResult) {
        if r.error.is_some() {
            return;
        }
        self.games = self.games.saturating_add(1);
        if self.groupings.is_empty() {
            self.groupings = r.groups.iter().map(|(n, _)| n.clone()).collect();
        }
        if self.figures.is_empty() {
            self.figures = r.figures.iter().map(|(n, _, _)| n.clone()).collect();
        }
        let players = r.asked.len().max(r.scores.len()).min(64);
        let sole = if r.winners.len() == 1 {
            r.winners.first().copied()
        } else {
            None
        };
        let in_game: Vec<usize> = (0..players)
            .filter(|p| !r.sat_out.contains(&(*p as u32)))
            .collect();
        for (k, (c, _)) in self.cards.iter().enumerate() {
            let Some(counts) = self.counts.get_mut(k) else {
                continue;
            };
            let seats = r
                .entered
                .iter()
                .find(|(x, _)| x == c)
                .map(|(_, s)| *s);
            if seats.is_some() {
                counts.entered = counts.entered.saturating_add(1);
            }
            let mask = seats.unwrap_or(0);
            let units = 1 + r.groups.len();
            if counts.units.len() < units {
                counts.units.resize(units, Split::default());
            }
            // Seats.
            if let Some(split) = counts.units.get_mut(0) {
                for &p in &in_game {
                    let side = if mask & (1u64 << p) != 0 {
                        &mut split.with
                    } else {
                        &mut split.without
                    };
                    let score = r.scores.get(p).map(|&s| s as f64);
                    side.add(sole == Some(p as u32), score);
                }
            }
            // Groups: each group of each grouping that had members in this game.
            for (g, (_, per_seat)) in r.groups.iter().enumerate() {
                let Some(split) = counts.units.get_mut(1 + g) else {
                    continue;
                };
                let mut names: Vec<&String> = per_seat.iter().flatten().collect();
                names.sort();
                names.dedup();
                for name in names {
                    let members: Vec<usize> = in_game
                        .iter()
                        .copied()
                        .filter(|&p| per_seat.get(p).is_some_and(|gs| gs.contains(name)))
                        .collect();
                    if members.is_empty() {
                        continue;
                    }
                    let exposed = members.iter().any(|&p| mask & (1u64 << p) != 0);
                    let won = sole.is_some_and(|w| members.contains(&(w as usize)));
                    let scores: Vec<f64> = members
                        .iter()
                        .filter_map(|&p| r.scores.get(p).map(|&s| s as f64))
                        .collect();
                    let score = (!scores.is_empty())
                        .then(|| scores.iter().sum::<f64>() / scores.len() as f64);
                    let side = if exposed {
                        &mut split.with
                    } else {
                        &mut split.without
                    };
                    side.add(won, score);
                }
            }
            // Figures, per game.
            if counts.figures.len() < r.figures.len() {
                counts.figures.resize(r.figures.len(), Split::default());
            }
            for (f, (_, k, of)) in r.figures.iter().enumerate() {
                let Some(split) = counts.figures.get_mut(f) else {
                    continue;
                };
                let value = match of {
                    Some(n) if *n > 0 => Some(*k as f64 / *n as f64),
                    Some(_) => None,
                    None => Some(*k as f64),
                };
                let side = if seats.is_some() {
                    &mut split.with
                } else {
                    &mut split.without
                };
                side.add(false, value);
            }
        }
    }

    /// One line per card and its contrasts, the strongest first.
    pub fn report(&self, names: &dyn Fn(u32) -> String) -> Vec<CardExposure> {
        let mut out: Vec<CardExposure> = self
            .cards
            .iter()
            .zip(&self.counts)
            .map(|((c, id), counts)| self.card(*c, id, counts, &names(*c)))
            .collect();
        out.sort_by(|a, b| {
            b.strength
                .partial_cmp(&a.strength)
                .unwrap_or(std::cmp::Ordering::Equal)
                .then_with(|| a.card.cmp(&b.card))
        });
        out
    }

    fn card(&self, c: u32, id: &str, counts: &CardCounts, name: &str) -> CardExposure {
        let _ = c;
        let mut contrasts = Vec::new();
        for (u, split) in counts.units.iter().enumerate() {
            let who = if u == 0 {
                "seat".to_string()
            } else {
                self.groupings.get(u - 1).cloned().unwrap_or_default()
            };
            if split.with.n == 0 || split.without.n == 0 {
                continue;
            }
            contrasts.push(rate_contrast(&who, split));
            if let Some(m) = mean_contrast(&who, "mean score", split) {
                contrasts.push(m);
            }
        }
        for (f, split) in counts.figures.iter().enumerate() {
            let name = self.figures.get(f).cloned().unwrap_or_default();
            if let Some(m) = mean_contrast("game", &name.replace('_', " "), split) {
                contrasts.push(m);
            }
        }
        contrasts.sort_by(|a, b| {
            b.z.partial_cmp(&a.z)
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        let top = contrasts.first();
        let strength = top.map(|t| t.z).unwrap_or(0.0);
        let verdict = verdict(name, id, counts.entered, self.games, top);
        CardExposure {
            card: id.to_string(),
            name: name.to_string(),
            entered: counts.entered,
            games: self.games,
            significant: top.is_some_and(|t| t.significant),
            strength,
            verdict,
            contrasts,
        }
    }
}

/// One card's exposure: the games it entered play in, and each contrast, strongest first.
#[derive(Debug, Serialize)]
pub struct CardExposure {
    pub card: String,
    /// The card's name (its `name` field), or `@id`.
    pub name: String,
    /// Games it entered play in, of `games`.
    pub entered: u64,
    pub games: u64,
    /// Whether the strongest contrast's interval excludes 0.
    pub significant: bool,
    /// How far the strongest contrast lies from 0, in its interval's half-widths (0 when none).
    pub strength: f64,
    pub verdict: String,
    pub contrasts: Vec<Contrast>,
}

/// One contrast: a measure where the unit got the card against where it did not.
#[derive(Debug, Serialize)]
pub struct Contrast {
    /// `seat`, a grouping (`faction`), or `game` for the game's figures.
    pub who: String,
    /// `win rate`, `mean score`, or a figure's words.
    pub measure: String,
    /// Units (seats, groups or games) with the card, and without.
    pub n_with: u64,
    pub n_without: u64,
    pub with: Interval,
    pub without: Interval,
    /// With minus without, with its 95% interval.
    pub difference: Interval,
    pub significant: bool,
    /// |difference| over its interval's half-width.
    pub z: f64,
}

fn rate_contrast(who: &str, s: &Split) -> Contrast {
    let a = s.with.rate();
    let b = s.without.rate();
    // Newcombe's method 10: the difference's interval from the two Wilson intervals.
    let d = a.value - b.value;
    let low = d - ((a.value - a.low).powi(2) + (b.high - b.value).powi(2)).sqrt();
    let high = d + ((a.high - a.value).powi(2) + (b.value - b.low).powi(2)).sqrt();
    finish(who, "win rate", s, a, b, Interval { value: d, low, high })
}

fn mean_contrast(who: &str, measure: &str, s: &Split) -> Option<Contrast> {
    let (ma, sa) = s.with.mean()?;
    let (mb, sb) = s.without.mean()?;
    let ia = Interval {
        value: ma,
        low: ma - Z95 * sa,
        high: ma + Z95 * sa,
    };
    let ib = Interval {
        value: mb,
        low: mb - Z95 * sb,
        high: mb + Z95 * sb,
    };
    let d = ma - mb;
    let half = Z95 * (sa * sa + sb * sb).sqrt();
    Some(finish(
        who,
        measure,
        s,
        ia,
        ib,
        Interval {
            value: d,
            low: d - half,
            high: d + half,
        },
    ))
}

fn finish(who: &str, measure: &str, s: &Split, a: Interval, b: Interval, d: Interval) -> Contrast {
    let significant = d.low > 0.0 || d.high < 0.0;
    let half = if d.value >= 0.0 {
        d.value - d.low
    } else {
        d.high - d.value
    };
    let z = if half > 0.0 {
        d.value.abs() / half
    } else {
        0.0
    };
    Contrast {
        who: who.to_string(),
        measure: measure.to_string(),
        n_with: if measure == "win rate" {
            s.with.n
        } else {
            s.with.scored
        },
        n_without: if measure == "win rate" {
            s.without.n
        } else {
            s.without.scored
        },
        with: a,
        without: b,
        difference: d,
        significant,
        z,
    }
}

/// The card's verdict in one line: "Comet Strike: the faction that faces it wins 54% (50-58%)
/// vs 33%: strong".
fn verdict(name: &str, id: &str, entered: u64, games: u64, top: Option<&Contrast>) -> String {
    let label = if name.is_empty() || name == format!("@{id}") {
        format!("@{id}")
    } else {
        format!("{name} (@{id})")
    };
    if entered == 0 {
        return format!(
            "{label}: entered play in 0 of {games} games: nothing to measure (see where the game gets it)"
        );
    }
    let Some(t) = top else {
        return format!(
            "{label}: entered play in {entered} of {games} games, in every one for every seat: no games without it to compare"
        );
    };
    let strength = if !t.significant {
        "no clear effect"
    } else if (t.measure == "win rate" && t.difference.value.abs() >= 0.10) || t.z >= 3.0 {
        "strong"
    } else {
        "significant"
    };
    let subject = match t.who.as_str() {
        "seat" => "the seat that gets it".to_string(),
        "game" => "games it enters play in".to_string(),
        g => format!("the {g} that gets it"),
    };
    let what = if t.measure == "win rate" {
        format!(
            "wins {} ({}-{}) vs {}",
            pc(t.with.value),
            pc(t.with.low),
            pc(t.with.high),
            pc(t.without.value)
        )
    } else {
        let m = if t.who == "game" {
            format!("have {}", t.measure)
        } else {
            "scores".to_string()
        };
        format!(
            "{m} {:.2} ({:.2}-{:.2}) vs {:.2}",
            t.with.value, t.with.low, t.with.high, t.without.value
        )
    };
    format!("{label}: {subject} {what}: {strength} (entered play in {entered} of {games} games)")
}

fn pc(x: f64) -> String {
    format!("{:.0}%", x * 100.0)
}
