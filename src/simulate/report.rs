//! The balance report of a simulation: what the terminal prints and `--json` writes
//! (`docs/simulate.md` describes every field).

use super::stats::wilson;
use super::tally::{mean_sd, percentile, Counts, Tally};
use serde::Serialize;

#[derive(Debug, Serialize)]
pub struct Report {
    pub format: u32,
    pub game: String,
    pub players: u32,
    pub agent: String,
    pub options: Vec<String>,
    pub first_seed: u64,
    /// The first and last seed played (`null` when no game was played).
    pub seeds: Option<(u64, u64)>,
    /// Games asked for, and games played (fewer when interrupted).
    pub games_planned: u64,
    pub games: u64,
    pub interrupted: bool,
    /// Why the run stopped: `--games` reached, `--until-ci` narrow enough, or Ctrl-C.
    pub stopped: Stopped,
    /// The agent each seat played with (`--agent` read per seat).
    pub seat_agents: Vec<String>,
    /// A solo game: the one seat that was asked choices, the seats the rules played (asked
    /// nothing) and the seats out of the game after setup (`null` for a game of several).
    pub solo: Option<Solo>,
    /// A fair share of the wins: one over the seats that took part (not out after setup).
    pub fair_share: f64,
    /// Games a runtime error stopped, and the first such (seed and message).
    pub errors: u64,
    pub first_error: Option<(u64, String)>,
    /// The `rules run` line that replays the first error's game and writes its choice log.
    pub replay: Option<String>,
    pub seats: Vec<Seat>,
    /// Seat 1's outright win rate minus a fair share, with its interval: only when every seat
    /// plays the same agent in a game of several (`null` otherwise, and why in
    /// `first_player_advantage_omitted`).
    pub first_player_advantage: Option<Interval>,
    pub first_player_advantage_omitted: Option<String>,
    /// Games won by several seats together, and games without a winner.
    pub shared_wins: u64,
    pub no_winner: u64,
    /// The largest minus the smallest seat win rate (0 is perfectly balanced).
    pub win_rate_spread: f64,
    /// Shared wins and games without a winner, over games played (Ludii's `Drawishness`).
    pub drawishness: f64,
    pub rounds: Spread,
    pub choices: Spread,
    pub steps: Spread,
    /// Choices with a single legal option (taken without asking), over all choices.
    pub single_option_share: f64,
    /// How the games ended, most common first.
    pub ended_by: Vec<Ending>,
    /// Win rates per group, for every grouping the game declares (`groups:`).
    pub groups: Vec<Grouping>,
    /// The game's own figures (`figures:`), over the games played.
    pub figures: Vec<Figure>,
    /// What the figures say the agents never did (a share that stayed at 0), with what to try.
    pub figure_warnings: Vec<String>,
    /// Who led at round ends, by the game's score (`null` without a `score`).
    pub leads: Option<super::leads::Leads>,
    /// What the searching agents' (`mc:N`) searches came to over all games (`null` when no
    /// seat searches).
    pub search: Option<crate::agent::mc::SearchStats>,
    /// Cards taken out of every game (`--without`).
    pub without: Vec<String>,
    /// `--impact KIND`: for each card of the kind, the same seeds without it; largest first.
    pub impact: Vec<Impact>,
    /// The cards of `--impact` not played on every seed of the report (Ctrl-C came first):
    /// they have no row in `impact`.
    pub impact_unfinished: Vec<String>,
    /// What `--impact` could not tell: no card of the set changed any game's outcome, or none
    /// had a significant effect (with what to try).
    pub impact_warnings: Vec<String>,
    /// Per kind of the `--impact` set, the placebo: an ordinary card of the kind taken out
    /// (the set's median by largest change, or with fewer than three of the kind in the set, a
    /// card of the kind from outside it), compared with the game. Its change is what taking out
    /// any one card of the kind does (a deck-size effect): each other card of the kind is
    /// compared with it, not with the game.
    pub placebos: Vec<Impact>,
    /// `--impact`: per card, the seats and groups that got or faced it against those that did
    /// not, in the plain run's games; strongest first.
    pub exposure: Vec<super::exposure::CardExposure>,
    /// The cards of `--impact` and `--without` that cannot be taken out entirely, and why.
    pub not_removable: Vec<(String, String)>,
}

/// Why a run stopped.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "reason")]
pub enum Stopped {
    /// Every game of `--games` was played.
    Games,
    /// `--until-ci W`: every seat's interval was narrower than `width`.
    UntilCi { width: f64 },
    /// `--until-ci W` played every game of `--games` before the intervals were narrow enough.
    UntilCiNotReached { width: f64 },
    /// Ctrl-C.
    Interrupted,
}

/// A solo game, seen from its seats (`Report::solo`).
#[derive(Debug, Serialize)]
pub struct Solo {
    pub seat: String,
    pub played_by_rules: Vec<String>,
    pub sat_out: Vec<String>,
}

/// One of the game's figures (`figures: [crises_met]`) over the games played.
#[derive(Debug, Serialize)]
pub struct Figure {
    /// The function's name, and the same in words (`crises met`).
    pub name: String,
    pub words: String,
    /// Games that reported it, and its count per game.
    pub games: u64,
    pub per_game: Spread,
    /// The counts added up over the games.
    pub total: i128,
    /// For so many of so many (`(int, int)`): the second numbers added up, and the share with
    /// its 95% Wilson interval (`null` for a plain count, or when the share is not one: more
    /// than of, or a negative number).
    pub of: Option<i128>,
    pub share: Option<Interval>,
}

/// The figures over the games counted in `t`, and the warnings they call for.
fn figure_report(t: &Tally, agent: &str) -> (Vec<Figure>, Vec<String>) {
    let mut out = Vec::new();
    let mut warnings = Vec::new();
    for (name, f) in t.figure_names.iter().zip(&t.figures) {
        let words = name.replace('_', " ");
        let (total, of) = match f.of {
            Some((k, n)) => (k, Some(n)),
            None => (
                f.counts.iter().fold(0i128, |a, (v, n)| {
                    a.saturating_add(i128::from(*v).saturating_mul(i128::from(*n)))
                }),
                None,
            ),
        };
        let share = match of {
            Some(n) if n > 0 && total >= 0 && total <= n => {
                let (k, n) = (
                    u64::try_from(total).unwrap_or(u64::MAX),
                    u64::try_from(n).unwrap_or(u64::MAX),
                );
                let (low, high) = wilson(k, n);
                Some(Interval {
                    value: k as f64 / n as f64,
                    low,
                    high,
                })
            }
            _ => None,
        };
        if let (Some(n), true) = (of, total == 0) {
            if n > 0 {
                let stronger = if agent.contains("ismcts") {
                    "a larger search budget"
                } else {
                    "try --agent ismcts:200, whose play aims at them"
                };
                warnings.push(format!(
                    "{words}: 0 of {n} in {} games under `{agent}` play: whatever they depend on never mattered; {stronger}",
                    super::tally::total(&f.counts)
                ));
            }
        }
        out.push(Figure {
            name: name.clone(),
            words,
            games: super::tally::total(&f.counts),
            per_game: spread(&f.counts),
            total,
            of,
            share,
        });
    }
    (out, warnings)
}

/// One grouping (`groups: [faction]`): the win rate of each of its groups.
#[derive(Debug, Serialize)]
pub struct Grouping {
    pub name: String,
    pub groups: Vec<GroupRate>,
}

#[derive(Debug, Serialize)]
pub struct GroupRate {
    pub group: String,
    /// Games in which at least one player belonged to the group.
    pub games: u64,
    /// Of those, games whose only winner belonged to it, and games won together by several
    /// players of whom one belonged to it (counted apart).
    pub wins: u64,
    pub shared_wins: u64,
    pub win_rate: Interval,
    /// The scores of its members (one per member per game; `null` without a score).
    pub score: Option<Scores>,
}

/// The groupings' win rates over the games played.
fn groupings(t: &Tally) -> Vec<Grouping> {
    let none = std::collections::BTreeMap::new();
    t.group_names
        .iter()
        .zip(&t.groups)
        .enumerate()
        .map(|(k, (name, table))| Grouping {
            name: name.clone(),
            groups: table
                .iter()
                .map(|(group, &(games, wins, shared))| {
                    let (low, high) = wilson(wins, games);
                    let scores = t.group_scores.get(k).unwrap_or(&none).get(group);
                    let score = scores.filter(|c| !c.is_empty()).map(|c| {
                        let (mean, sd) = mean_sd(c);
                        Scores {
                            n: super::tally::total(c),
                            mean,
                            sd,
                            p10: percentile(c, 10),
                            p50: percentile(c, 50),
                            p90: percentile(c, 90),
                        }
                    });
                    GroupRate {
                        score,
                        group: group.clone(),
                        games,
                        wins,
                        shared_wins: shared,
                        win_rate: Interval {
                            value: wins as f64 / games.max(1) as f64,
                            low,
                            high,
                        },
                    }
                })
                .collect(),
        })
        .collect()
}

/// How many games one end condition ended.
#[derive(Debug, Serialize)]
pub struct Ending {
    /// `rounds`, `end_when`, `end_game` or `finish_game`.
    pub reason: crate::interp::EndReason,
    pub games: u64,
    pub share: f64,
}

/// What the games become without one card.
#[derive(Debug, Serialize)]
pub struct Impact {
    pub card: String,
    /// The seeds it was compared on: always the report's `games`.
    pub games: u64,
    /// Of those, the games whose outcome (winners, scores, or an error) changed.
    pub changed_games: u64,
    pub seats: Vec<SeatDelta>,
    /// Per group of every grouping (`groups:`): the same changes.
    pub groups: Vec<SeatDelta>,
    /// The largest change of a seat's win rate, in either direction.
    pub largest: f64,
    /// Whether some change's interval excludes 0.
    pub significant: bool,
    /// The card's effect in one line.
    pub verdict: String,
    /// Games of the plain run it entered play in (`null` when not counted).
    pub entered: Option<u64>,
    /// What it was compared with: `null` for the game as played, or the placebo card (`@id`)
    /// of its kind, whose own change is in `placebos`.
    pub against: Option<String>,
}

/// One seat's or group's change without a card.
#[derive(Debug, Serialize)]
pub struct SeatDelta {
    /// `P1`, or a group as `grouping group` (`faction FactionA`).
    pub seat: String,
    /// Win rate without the card minus win rate with it, with a 95% interval (Newcombe's
    /// method 10, from the two Wilson intervals).
    pub win_rate: Interval,
    /// Mean score without the card minus with it, with a 95% interval (normal, from the two
    /// means' standard errors; `null` without a score).
    pub mean_score: Option<Interval>,
    /// Whether either interval excludes 0.
    pub significant: bool,
}

/// Newcombe's interval for the difference of two rates (`with` taken from `without`).
fn rate_delta(with: &Interval, without: &Interval) -> Interval {
    let (p1, l1, u1) = (without.value, without.low, without.high);
    let (p2, l2, u2) = (with.value, with.low, with.high);
    let d = p1 - p2;
    Interval {
        value: d,
        low: d - ((p1 - l1).powi(2) + (u2 - p2).powi(2)).sqrt(),
        high: d + ((u1 - p1).powi(2) + (p2 - l2).powi(2)).sqrt(),
    }
}

/// The difference of two means (`with` taken from `without`) with a normal 95% interval.
fn mean_delta(with: Option<&Scores>, without: Option<&Scores>) -> Option<Interval> {
    let (a, b) = (with?, without?);
    let se = |s: &Scores| s.sd * s.sd / (s.n.max(1) as f64);
    let d = b.mean - a.mean;
    let half = super::stats::Z95 * (se(a) + se(b)).sqrt();
    Some(Interval {
        value: d,
        low: d - half,
        high: d + half,
    })
}

fn excludes_zero(i: &Interval) -> bool {
    i.low > 0.0 || i.high < 0.0
}

fn delta(name: String, rate: Interval, mean: Option<Interval>) -> SeatDelta {
    let significant = excludes_zero(&rate) || mean.as_ref().is_some_and(excludes_zero);
    SeatDelta {
        seat: name,
        win_rate: rate,
        mean_score: mean,
        significant,
    }
}

/// A change as the terminal shows it: `+5.2 (+1.1..+9.3)*`, the star when the interval
/// excludes 0; rates in points.
pub fn signed(i: &Interval, scale: f64) -> String {
    format!(
        "{:+.1} ({:+.1}..{:+.1}){}",
        i.value * scale,
        i.low * scale,
        i.high * scale,
        if excludes_zero(i) { "*" } else { "" }
    )
}

/// The change from `base` to `without` (the same seeds, one card out); `changed` games had
/// another outcome.
pub fn impact(card: &str, players: u32, base: &Report, without: &Report, changed: u64) -> Impact {
    impact_against(card, players, base, without, changed, None, None)
}

/// `impact`, with the games the card entered play in (of the plain run) and, when `base` is not
/// the game as played but the placebo's games, the placebo's id.
pub fn impact_against(
    card: &str,
    players: u32,
    base: &Report,
    without: &Report,
    changed: u64,
    entered: Option<u64>,
    against: Option<&str>,
) -> Impact {
    let mut seats = Vec::new();
    let mut largest: f64 = 0.0;
    for s in 0..players as usize {
        let (Some(a), Some(b)) = (base.seats.get(s), without.seats.get(s)) else {
            continue;
        };
        let d = rate_delta(&a.win_rate, &b.win_rate);
        if d.value.abs() > largest.abs() {
            largest = d.value;
        }
        seats.push(delta(
            a.seat.clone(),
            d,
            mean_delta(a.score.as_ref(), b.score.as_ref()),
        ));
    }
    let mut groups = Vec::new();
    for g in &base.groups {
        let other = without.groups.iter().find(|x| x.name == g.name);
        for x in &g.groups {
            let Some(y) = other.and_then(|o| o.groups.iter().find(|y| y.group == x.group)) else {
                continue;
            };
            groups.push(delta(
                format!("{} {}", g.name, x.group),
                rate_delta(&x.win_rate, &y.win_rate),
                mean_delta(x.score.as_ref(), y.score.as_ref()),
            ));
        }
    }
    let significant = seats.iter().chain(&groups).any(|d| d.significant);
    let mut i = Impact {
        card: card.to_string(),
        games: without.games,
        changed_games: changed,
        seats,
        groups,
        largest,
        significant,
        verdict: String::new(),
        entered,
        against: against.map(|a| format!("@{a}")),
    };
    i.verdict = verdict(&i, base);
    i
}

/// The card's effect in one line: the significant changes, largest first (at most three), or
/// none.
fn verdict(i: &Impact, base: &Report) -> String {
    let mut who = vec!["seat"];
    who.extend(base.groups.iter().map(|g| g.name.as_str()));
    let entered = match i.entered {
        Some(k) => format!("entered play in {k} of {} games; ", i.games),
        None => String::new(),
    };
    if i.changed_games == 0 {
        let why = if i.entered == Some(0) {
            "it never entered play, so nothing about it was measured"
        } else {
            "where it entered play it decided nothing under this play"
        };
        return format!(
            "@{}: {entered}taking it out changed no game's outcome in {} games ({why})",
            i.card, i.games
        );
    }
    let than = match &i.against {
        Some(p) => format!(" than without the placebo {p}"),
        None => String::new(),
    };
    // Each significant change, by how many intervals' half-widths it lies from 0.
    let mut found: Vec<(f64, String)> = Vec::new();
    for d in i.seats.iter().chain(&i.groups) {
        if excludes_zero(&d.win_rate) {
            let half = ((d.win_rate.high - d.win_rate.low) / 2.0).max(1e-12);
            found.push((
                d.win_rate.value.abs() / half,
                format!("{} win rate {} points", d.seat, signed(&d.win_rate, 100.0)),
            ));
        }
        if let Some(m) = d.mean_score.as_ref().filter(|m| excludes_zero(m)) {
            let half = ((m.high - m.low) / 2.0).max(1e-12);
            found.push((
                m.value.abs() / half,
                format!("{} mean score {}", d.seat, signed(m, 1.0)),
            ));
        }
    }
    found.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap_or(std::cmp::Ordering::Equal));
    if found.is_empty() {
        return format!(
            "@{}: {entered}no significant effect on any {}{than} ({} games, {} changed)",
            i.card,
            who.join(" or "),
            i.games,
            i.changed_games
        );
    }
    let n = found.len();
    let top: Vec<String> = found.into_iter().take(3).map(|(_, t)| t).collect();
    format!(
        "@{}: {entered}without it{than} {}{} ({} games, {} changed)",
        i.card,
        top.join("; "),
        if n > 3 {
            format!("; {} more significant", n - 3)
        } else {
            String::new()
        },
        i.games,
        i.changed_games
    )
}

#[derive(Debug, Serialize)]
pub struct Seat {
    pub seat: String,
    pub wins: u64,
    pub shared_wins: u64,
    pub win_rate: Interval,
    pub score: Option<Scores>,
}

/// A rate with its Wilson 95% interval.
#[derive(Debug, Serialize)]
pub struct Interval {
    pub value: f64,
    pub low: f64,
    pub high: f64,
}

#[derive(Debug, Serialize)]
pub struct Scores {
    /// Scores counted.
    pub n: u64,
    pub mean: f64,
    pub sd: f64,
    pub p10: i64,
    pub p50: i64,
    pub p90: i64,
}

#[derive(Debug, Serialize)]
pub struct Spread {
    pub mean: f64,
    pub p10: i64,
    pub p50: i64,
    pub p90: i64,
    pub max: i64,
}

fn spread(c: &Counts) -> Spread {
    let (mean, _) = mean_sd(c);
    Spread {
        mean,
        p10: percentile(c, 10),
        p50: percentile(c, 50),
        p90: percentile(c, 90),
        max: c.keys().next_back().copied().unwrap_or(0),
    }
}

pub const FORMAT: u32 = 7;

/// The report of the games counted in `t` (played from `plan.seed` on, in seed order).
pub fn build(plan: &super::Plan, t: &Tally, interrupted: bool) -> Report {
    let players = plan.players;
    let played = t.played;
    let mut seats = Vec::new();
    for s in 0..(players.min(64) as usize) {
        let wins = t.wins.get(s).copied().unwrap_or(0);
        let shared = t.shared.get(s).copied().unwrap_or(0);
        let (low, high) = wilson(wins, played);
        let score = t.scores.get(s).filter(|c| !c.is_empty()).map(|c| {
            let (mean, sd) = mean_sd(c);
            Scores {
                n: super::tally::total(c),
                mean,
                sd,
                p10: percentile(c, 10),
                p50: percentile(c, 50),
                p90: percentile(c, 90),
            }
        });
        seats.push(Seat {
            seat: format!("P{}", s + 1),
            wins,
            shared_wins: shared,
            win_rate: Interval {
                value: if played == 0 {
                    0.0
                } else {
                    wins as f64 / played as f64
                },
                low,
                high,
            },
            score,
        });
    }
    // Seats that took part: not out of every game once setup was done.
    let seat_names = |keep: &dyn Fn(usize) -> bool| -> Vec<String> {
        (0..seats.len())
            .filter(|&k| keep(k))
            .map(|k| format!("P{}", k + 1))
            .collect()
    };
    let always_out = |k: usize| played > 0 && t.sat_out.get(k).copied() == Some(played);
    let asked = |k: usize| t.seat_asked.get(k).is_some_and(|&n| n > 0);
    let taking_part = (0..seats.len()).filter(|&k| !always_out(k)).count().max(1);
    let fair = 1.0 / taking_part as f64;
    let askers = seat_names(&|k| asked(k));
    let solo = (players == 1 || askers.len() == 1).then(|| Solo {
        seat: askers.first().cloned().unwrap_or_else(|| "P1".to_string()),
        played_by_rules: seat_names(&|k| !asked(k) && !always_out(k)),
        sat_out: seat_names(&|k| always_out(k)),
    });
    let seat_agents = crate::agent::seat_specs(&plan.agent, players, "random").unwrap_or_default();
    let decided = t.played.saturating_sub(t.no_winner);
    let omitted = if solo.is_some() {
        Some("a solo game has no first player to compare".to_string())
    } else if seats.len() < 2 {
        Some("one seat".to_string())
    } else if seat_agents.windows(2).any(|w| w[0] != w[1]) {
        Some(format!(
            "the seats play different agents ({}): seat 1's rate would measure its agent",
            plan.agent
        ))
    } else if decided == 0 {
        Some("no game had a winner".to_string())
    } else {
        None
    };
    let first = match (&omitted, seats.first()) {
        (None, Some(s)) => Some(Interval {
            value: s.win_rate.value - fair,
            low: s.win_rate.low - fair,
            high: s.win_rate.high - fair,
        }),
        _ => None,
    };
    let rates: Vec<f64> = seats.iter().map(|s| s.win_rate.value).collect();
    let spread_rate = rates.iter().cloned().fold(f64::MIN, f64::max)
        - rates.iter().cloned().fold(f64::MAX, f64::min);
    let mut ended_by: Vec<Ending> = t
        .endings
        .iter()
        .map(|(reason, &games)| Ending {
            reason: *reason,
            games,
            share: games as f64 / played.max(1) as f64,
        })
        .collect();
    ended_by.sort_by_key(|e| std::cmp::Reverse(e.games));
    let (figures, figure_warnings) = figure_report(t, &plan.agent);
    Report {
        format: FORMAT,
        game: plan.game.display().to_string(),
        players,
        agent: plan.agent.clone(),
        options: plan.sets.clone(),
        first_seed: plan.seed,
        seeds: (t.games > 0)
            .then(|| (plan.seed, plan.seed.wrapping_add(t.games.saturating_sub(1)))),
        games_planned: plan.games,
        games: t.games,
        interrupted,
        stopped: if interrupted {
            Stopped::Interrupted
        } else {
            Stopped::Games
        },
        seat_agents,
        solo,
        fair_share: fair,
        errors: t.errors,
        first_error: t.first_error.clone(),
        replay: t.first_error.as_ref().map(|(seed, _)| {
            super::replay_line(
                &plan.game,
                players,
                *seed,
                &plan.agent,
                &plan.sets,
                &plan.without,
            )
        }),
        seats,
        first_player_advantage: first,
        first_player_advantage_omitted: omitted,
        shared_wins: t.shared_wins,
        no_winner: t.no_winner,
        win_rate_spread: if rates.is_empty() { 0.0 } else { spread_rate },
        drawishness: t.draws as f64 / played.max(1) as f64,
        rounds: spread(&t.rounds),
        choices: spread(&t.choices),
        steps: spread(&t.steps),
        single_option_share: t.forced as f64 / (t.asked + t.forced).max(1) as f64,
        ended_by,
        leads: super::leads::leads(&t.leads),
        groups: groupings(t),
        figures,
        figure_warnings,
        search: t.search,
        without: plan.without.clone(),
        impact: Vec::new(),
        impact_unfinished: Vec::new(),
        impact_warnings: Vec::new(),
        placebos: Vec::new(),
        exposure: Vec::new(),
        not_removable: Vec::new(),
    }
}

/// A rate (per second, per game) to three significant figures: `1234`, `56.7`, `0.123`.
pub fn rate(x: f64) -> String {
    if !x.is_finite() {
        return "-".to_string();
    }
    let a = x.abs();
    if a >= 100.0 || a == 0.0 {
        format!("{x:.0}")
    } else if a >= 10.0 {
        format!("{x:.1}")
    } else if a >= 1.0 {
        format!("{x:.2}")
    } else {
        format!("{x:.3}")
    }
}

pub fn pct(x: f64) -> String {
    format!("{:5.1}%", x * 100.0)
}

/// What was played, in one line: the game, the games, the players and agents, the seeds.
pub fn headline(r: &Report) -> String {
    let seeds = match r.seeds {
        Some((a, b)) if a == b => format!("seed {a}"),
        Some((a, b)) => format!("seeds {a} to {b}"),
        None => "no seed played".to_string(),
    };
    let who = match &r.solo {
        Some(solo) => {
            let mut w = format!("solo: {} plays", solo.seat);
            if !solo.played_by_rules.is_empty() {
                w.push_str(&format!(
                    " against {} (played by the rules)",
                    solo.played_by_rules.join(", ")
                ));
            }
            if !solo.sat_out.is_empty() {
                w.push_str(&format!("; {} sit out", solo.sat_out.join(", ")));
            }
            w
        }
        None => format!("of {} players", r.players),
    };
    let sep = if r.solo.is_some() { ", " } else { " " };
    format!(
        "{}: {} games{sep}{who} ({} agents, {seeds})",
        r.game, r.games, r.agent
    )
}

/// Why the run stopped, in words.
pub fn stopped(r: &Report) -> String {
    match r.stopped {
        Stopped::Games => format!("stopped: the {} games of --games were played", r.games),
        Stopped::UntilCi { width } => format!(
            "stopped: after {} games every seat's 95% interval was narrower than {} points (--until-ci {width})",
            r.games,
            round_points(width * 100.0)
        ),
        Stopped::UntilCiNotReached { width } => format!(
            "stopped: the {} games of --games were played before every seat's 95% interval was narrower than {} points (--until-ci {width})",
            r.games,
            round_points(width * 100.0)
        ),
        Stopped::Interrupted => format!(
            "stopped: interrupted (Ctrl-C) after {} of {} games",
            r.games, r.games_planned
        ),
    }
}

/// A number of points to one decimal, without a trailing `.0`.
fn round_points(x: f64) -> String {
    let t = format!("{x:.1}");
    t.strip_suffix(".0").map(str::to_string).unwrap_or(t)
}

/// The seat table's rows, as the terminal shows them.
fn seat_lines(r: &Report) -> String {
    let mut s = String::from(
        "  seat   wins   win rate (95% interval)   shared   score mean (sd)   p10 / p50 / p90\n",
    );
    let out = |seat: &str| {
        r.solo
            .as_ref()
            .is_some_and(|s| s.sat_out.iter().any(|x| x == seat))
    };
    for seat in r.seats.iter().filter(|s| !out(&s.seat)) {
        let score = match &seat.score {
            Some(sc) => format!(
                "{:>10.1} ({:>5.1})   {} / {} / {}",
                sc.mean, sc.sd, sc.p10, sc.p50, sc.p90
            ),
            None => "          -".to_string(),
        };
        s.push_str(&format!(
            "  {:<5} {:>5}   {} ({} .. {})   {:>6}   {score}\n",
            seat.seat,
            seat.wins,
            pct(seat.win_rate.value),
            pct(seat.win_rate.low),
            pct(seat.win_rate.high),
            seat.shared_wins
        ));
    }
    s
}

/// The figures below the tables, one line each: who won how, length, choices, searches, how
/// games ended, leads.
pub fn figures(r: &Report) -> Vec<String> {
    let mut out = Vec::new();
    let decided = r.games.saturating_sub(r.errors + r.no_winner);
    if decided == 0 {
        out.push(
            "no game had a winner (the game declares no `score`, or every game ended without one)"
                .to_string(),
        );
    } else {
        match (&r.first_player_advantage, &r.first_player_advantage_omitted) {
            (Some(f), _) => out.push(format!(
                "first player advantage: {:+.1} points ({:+.1} .. {:+.1}) over a fair {}%",
                f.value * 100.0,
                f.low * 100.0,
                f.high * 100.0,
                round_points(r.fair_share * 100.0)
            )),
            (None, Some(why)) => out.push(format!("no first player advantage: {why}")),
            (None, None) => {}
        }
        if let Some(solo) = &r.solo {
            if let Some(seat) = r.seats.iter().find(|s| s.seat == solo.seat) {
                out.push(format!(
                    "solo: {} won {} of {} games ({}, 95% interval {} .. {})",
                    solo.seat,
                    seat.wins,
                    r.games.saturating_sub(r.errors),
                    pct(seat.win_rate.value).trim_start(),
                    pct(seat.win_rate.low).trim_start(),
                    pct(seat.win_rate.high).trim_start()
                ));
            }
        }
        out.push(format!(
            "win-rate spread: {:.1} points; shared wins: {}; no winner: {} (drawishness {})",
            r.win_rate_spread * 100.0,
            r.shared_wins,
            r.no_winner,
            pct(r.drawishness).trim_start()
        ));
    }
    for (name, sp) in [
        ("rounds", &r.rounds),
        ("choices", &r.choices),
        ("steps", &r.steps),
    ] {
        out.push(format!(
            "{name:<8} mean {:.1}, p10 {}, median {}, p90 {}, max {}",
            sp.mean, sp.p10, sp.p50, sp.p90, sp.max
        ));
    }
    out.push(format!(
        "single-option choices: {} of all choices (taken without asking)",
        pct(r.single_option_share).trim_start()
    ));
    if let Some(sr) = &r.search {
        out.push(format!(
            "search: {} choices searched, {} for want of a copy that led back to the choice ({}); {} copies played out, {} rejected; {} playouts, {:.1} per choice searched",
            sr.decisions,
            fallback_words(sr),
            pct(sr.fallbacks as f64 / sr.decisions.max(1) as f64).trim_start(),
            sr.worlds,
            sr.rejected,
            sr.playouts,
            sr.playouts as f64 / sr.decisions.max(1) as f64
        ));
        if sr.kept_bot > 0 || sr.beat_bot > 0 {
            out.push(format!(
                "search against its prior, the playouts' bot's answer: kept in {} choices where another option's mean was better but the copies did not tell it apart, replaced in {} where they did",
                sr.kept_bot, sr.beat_bot
            ));
        }
    }
    if !r.ended_by.is_empty() {
        let ends: Vec<String> = r
            .ended_by
            .iter()
            .map(|e| {
                format!(
                    "{} {} ({})",
                    e.reason.name(),
                    e.games,
                    pct(e.share).trim_start()
                )
            })
            .collect();
        out.push(format!("ended by: {}", ends.join(", ")));
    }
    if let Some(l) = &r.leads {
        let decided = if l.decided_games == 0 {
            "no winner led alone at a round's end and kept the lead".to_string()
        } else {
            format!(
                "the winner led for good from round {:.1} on average ({:.0}% into the game, {} games)",
                l.decided_round_mean,
                l.decided_fraction_mean * 100.0,
                l.decided_games
            )
        };
        out.push(format!(
            "leads: {:.2} lead changes per game ({:.2} per round boundary); {decided}",
            l.changes_mean, l.change_rate,
        ));
        let by: Vec<String> = l
            .winner_leading
            .iter()
            .enumerate()
            .map(|(i, x)| format!("r{} {}", i + 1, pct(*x).trim_start()))
            .collect();
        out.push(format!("the eventual winner in front: {}", by.join(", ")));
    }
    for f in &r.figures {
        out.push(match (&f.of, &f.share) {
            (Some(n), Some(sh)) => format!(
                "{}: {} of {} ({}, 95% interval {} .. {}) in {} games",
                f.words,
                f.total,
                n,
                pct(sh.value).trim_start(),
                pct(sh.low).trim_start(),
                pct(sh.high).trim_start(),
                f.games
            ),
            (Some(n), None) => format!("{}: {} of {} in {} games", f.words, f.total, n, f.games),
            (None, _) => format!(
                "{}: {} in {} games; a game: mean {:.1}, p10 {}, median {}, p90 {}, max {}",
                f.words,
                f.total,
                f.games,
                f.per_game.mean,
                f.per_game.p10,
                f.per_game.p50,
                f.per_game.p90,
                f.per_game.max
            ),
        });
    }
    if !r.without.is_empty() {
        let cards: Vec<String> = r.without.iter().map(|c| format!("@{c}")).collect();
        out.push(format!("played without: {}", cards.join(", ")));
    }
    out.push(stopped(r));
    out
}

/// The warnings of an `--impact` over `what` (a kind or a file), once every card was played.
pub fn impact_warnings(r: &Report, what: &str) -> Vec<String> {
    let n = r.impact.len();
    if n == 0 {
        return Vec::new();
    }
    let stronger = if r.agent.contains("ismcts") {
        "more games or a larger search budget"
    } else {
        "try --agent ismcts:200, whose play uses the cards"
    };
    let mut out = Vec::new();
    let never: Vec<String> = r
        .impact
        .iter()
        .chain(&r.placebos)
        .filter(|i| i.entered == Some(0))
        .map(|i| format!("@{}", i.card))
        .collect();
    if r.impact.iter().all(|i| i.changed_games == 0) {
        if r.impact.iter().all(|i| i.entered == Some(0)) {
            out.push(format!(
                "taking out any of the {n} cards of {what} changed no game's outcome in {} games: none of them entered play (see where the game gets them, or the options that bring them in); once they do, if they still change nothing, {stronger}",
                r.games
            ));
        } else {
            out.push(format!(
                "taking out any of the {n} cards of {what} changed no game's outcome in {} games: under `{}` play they decided nothing where they entered play; {stronger}",
                r.games, r.agent
            ));
        }
    } else if r.impact.iter().all(|i| !i.significant) && !r.exposure.iter().any(|e| e.significant) {
        out.push(format!(
            "none of the {n} cards of {what} had a significant effect in {} games under `{}` play; {stronger}, or more games",
            r.games, r.agent
        ));
    }
    if !never.is_empty() && never.len() < n {
        out.push(format!(
            "{} never entered play in {} games: nothing was measured about {}; see where the game gets {}",
            never.join(", "),
            r.games,
            if never.len() == 1 { "it" } else { "them" },
            if never.len() == 1 { "it" } else { "them" },
        ));
    }
    out
}

/// The changes the terminal shows per card, largest first (the JSON has them all).
const IMPACT_SHOWN: usize = 4;

/// The report as the terminal shows it.
pub fn text(r: &Report) -> String {
    let mut s = headline(r);
    if r.interrupted {
        s.push_str(", interrupted");
    }
    s.push('\n');
    if r.errors > 0 {
        if let (Some((seed, e)), Some(replay)) = (&r.first_error, &r.replay) {
            s.push_str(&format!(
                "  {} games stopped on an error; the first, seed {seed}: {e}\n  replay it, with its choice log: {replay}\n",
                r.errors
            ));
        }
    }
    s.push('\n');
    s.push_str(&seat_lines(r));
    for g in &r.groups {
        s.push_str(&format!(
            "\n  by {}: group   games   wins   win rate (95% interval)   shared\n",
            g.name
        ));
        for x in &g.groups {
            s.push_str(&format!(
                "  {:<16} {:>5}  {:>5}   {} ({} .. {})   {:>6}\n",
                x.group,
                x.games,
                x.wins,
                pct(x.win_rate.value),
                pct(x.win_rate.low),
                pct(x.win_rate.high),
                x.shared_wins
            ));
        }
    }
    s.push('\n');
    for line in figures(r) {
        s.push_str("  ");
        s.push_str(&line);
        s.push('\n');
    }
    if !r.exposure.is_empty() {
        s.push_str("\n  card exposure: the seats and groups that got or faced the card against those that did not (games of the plain run; a card with others of its kind against those that got another); strongest first, significant past the chance of its strongest of many comparisons\n");
        for e in &r.exposure {
            s.push_str(&format!("  {}\n", e.verdict));
        }
    }
    if !r.impact.is_empty() {
        s.push_str("\n  card impact: without the card minus with it, 95% intervals, * where one excludes 0 (win rates in points); largest first\n");
        for i in &r.impact {
            s.push_str(&format!("  {}\n", i.verdict));
            let all: Vec<&SeatDelta> = i.seats.iter().chain(&i.groups).collect();
            let mut rates = all.clone();
            rates.sort_by(|a, b| {
                b.win_rate
                    .value
                    .abs()
                    .partial_cmp(&a.win_rate.value.abs())
                    .unwrap_or(std::cmp::Ordering::Equal)
            });
            let shown: Vec<String> = rates
                .iter()
                .take(IMPACT_SHOWN)
                .map(|d| format!("{} {}", d.seat, signed(&d.win_rate, 100.0)))
                .collect();
            s.push_str(&format!("      win rate: {}\n", shown.join(", ")));
            let mut means: Vec<(&SeatDelta, &Interval)> = all
                .iter()
                .filter_map(|d| d.mean_score.as_ref().map(|m| (*d, m)))
                .collect();
            means.sort_by(|a, b| {
                b.1.value
                    .abs()
                    .partial_cmp(&a.1.value.abs())
                    .unwrap_or(std::cmp::Ordering::Equal)
            });
            if !means.is_empty() {
                let shown: Vec<String> = means
                    .iter()
                    .take(IMPACT_SHOWN)
                    .map(|(d, m)| format!("{} {}", d.seat, signed(m, 1.0)))
                    .collect();
                s.push_str(&format!("      mean score: {}\n", shown.join(", ")));
            }
        }
    }
    for p in &r.placebos {
        s.push_str(&format!(
            "  placebo: taking out one ordinary card of its kind, {}, compared with the game; the cards of its kind above are compared with it\n  {}\n",
            format_args!("@{}", p.card),
            p.verdict
        ));
    }
    for (card, why) in &r.not_removable {
        s.push_str(&format!(
            "  note: @{card} cannot be taken out entirely: {why}\n"
        ));
    }
    for w in r.figure_warnings.iter().chain(&r.impact_warnings) {
        s.push_str(&format!("  warning: {w}\n"));
    }
    if !r.impact_unfinished.is_empty() {
        let cards: Vec<String> = r
            .impact_unfinished
            .iter()
            .map(|c| format!("@{c}"))
            .collect();
        s.push_str(&format!(
            "  interrupted before these cards were played on all {} seeds (no impact shown): {}\n",
            r.games,
            cards.join(", ")
        ));
    }
    s
}

/// How the choices no copy led back to were answered: "12 picked at random", or with a bot
/// driving the playouts "3 answered by the playouts' bot and 9 picked at random".
pub fn fallback_words(sr: &crate::interp::SearchStats) -> String {
    let by_bot = sr.by_bot.min(sr.fallbacks);
    if by_bot == 0 {
        return format!("{} picked at random", sr.fallbacks);
    }
    let random = sr.fallbacks - by_bot;
    if random == 0 {
        format!("{by_bot} answered by the playouts' bot")
    } else {
        format!("{by_bot} answered by the playouts' bot and {random} picked at random")
    }
}
