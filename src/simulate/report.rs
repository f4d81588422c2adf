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
    /// Games asked for, and games played (fewer when interrupted).
    pub games_planned: u64,
    pub games: u64,
    pub interrupted: bool,
    /// Games a runtime error stopped, and the first such (seed and message).
    pub errors: u64,
    pub first_error: Option<(u64, String)>,
    /// The `rules run` line that replays the first error's game and writes its choice log.
    pub replay: Option<String>,
    pub seats: Vec<Seat>,
    /// Seat 1's outright win rate minus a fair share (1 / players), with its interval.
    pub first_player_advantage: Interval,
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
}

/// The groupings' win rates over the games played.
fn groupings(t: &Tally) -> Vec<Grouping> {
    t.group_names
        .iter()
        .zip(&t.groups)
        .map(|(name, table)| Grouping {
            name: name.clone(),
            groups: table
                .iter()
                .map(|(group, &(games, wins, shared))| {
                    let (low, high) = wilson(wins, games);
                    GroupRate {
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
    pub seats: Vec<SeatDelta>,
    /// The largest change of a seat's win rate, in either direction.
    pub largest: f64,
}

#[derive(Debug, Serialize)]
pub struct SeatDelta {
    pub seat: String,
    /// Win rate without the card minus win rate with it, with a 95% interval (Newcombe's
    /// method 10, from the two Wilson intervals).
    pub win_rate: Interval,
    /// Mean score without the card minus with it (`null` without a score).
    pub mean_score: Option<f64>,
}

/// The change from `base` to `without` (the same seeds, one card out).
pub fn impact(card: &str, players: u32, base: &Report, without: &Report) -> Impact {
    let mut seats = Vec::new();
    let mut largest: f64 = 0.0;
    for s in 0..players as usize {
        let (Some(a), Some(b)) = (base.seats.get(s), without.seats.get(s)) else {
            continue;
        };
        let (p1, l1, u1) = (b.win_rate.value, b.win_rate.low, b.win_rate.high);
        let (p2, l2, u2) = (a.win_rate.value, a.win_rate.low, a.win_rate.high);
        let d = p1 - p2;
        let low = d - ((p1 - l1).powi(2) + (u2 - p2).powi(2)).sqrt();
        let high = d + ((u1 - p1).powi(2) + (p2 - l2).powi(2)).sqrt();
        if d.abs() > largest.abs() {
            largest = d;
        }
        let mean_score = match (&a.score, &b.score) {
            (Some(x), Some(y)) => Some(y.mean - x.mean),
            _ => None,
        };
        seats.push(SeatDelta {
            seat: a.seat.clone(),
            win_rate: Interval {
                value: d,
                low,
                high,
            },
            mean_score,
        });
    }
    Impact {
        card: card.to_string(),
        games: without.games,
        seats,
        largest,
    }
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

pub const FORMAT: u32 = 4;

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
    let fair = 1.0 / f64::from(players.max(1));
    let first = seats.first().map_or(
        Interval {
            value: 0.0,
            low: 0.0,
            high: 0.0,
        },
        |s| Interval {
            value: s.win_rate.value - fair,
            low: s.win_rate.low - fair,
            high: s.win_rate.high - fair,
        },
    );
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
    Report {
        format: FORMAT,
        game: plan.game.display().to_string(),
        players,
        agent: plan.agent.clone(),
        options: plan.sets.clone(),
        first_seed: plan.seed,
        games_planned: plan.games,
        games: t.games,
        interrupted,
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
        search: t.search,
        without: plan.without.clone(),
        impact: Vec::new(),
        impact_unfinished: Vec::new(),
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

fn pct(x: f64) -> String {
    format!("{:5.1}%", x * 100.0)
}

/// The report as the terminal shows it.
pub fn text(r: &Report) -> String {
    let mut s = String::new();
    s.push_str(&format!(
        "{}: {} games of {} players ({} agents, seeds {}..{}){}\n",
        r.game,
        r.games,
        r.players,
        r.agent,
        r.first_seed,
        r.first_seed.saturating_add(r.games),
        if r.interrupted { ", interrupted" } else { "" }
    ));
    if r.errors > 0 {
        if let (Some((seed, e)), Some(replay)) = (&r.first_error, &r.replay) {
            s.push_str(&format!(
                "  {} games stopped on an error; the first, seed {seed}: {e}\n  replay it, with its choice log: {replay}\n",
                r.errors
            ));
        }
    }
    s.push_str(
        "\n  seat   wins   win rate (95% interval)   shared   score mean (sd)   p10 / p50 / p90\n",
    );
    for seat in &r.seats {
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
    let f = &r.first_player_advantage;
    let decided = r.games.saturating_sub(r.errors + r.no_winner);
    if decided == 0 {
        s.push_str("\n  no game had a winner (the game declares no `score`, or every game ended without one)\n");
    } else {
        s.push_str(&format!(
            "\n  first player advantage: {:+.1} points ({:+.1} .. {:+.1}) over a fair {:.1}%\n",
            f.value * 100.0,
            f.low * 100.0,
            f.high * 100.0,
            100.0 / f64::from(r.players.max(1))
        ));
        s.push_str(&format!(
            "  win-rate spread: {:.1} points; shared wins: {}; no winner: {} (drawishness {})\n",
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
        s.push_str(&format!(
            "  {name:<8} mean {:.1}, p10 {}, median {}, p90 {}, max {}\n",
            sp.mean, sp.p10, sp.p50, sp.p90, sp.max
        ));
    }
    s.push_str(&format!(
        "  single-option choices: {} of all choices (taken without asking)\n",
        pct(r.single_option_share).trim_start()
    ));
    if let Some(sr) = &r.search {
        s.push_str(&format!(
            "  search (mc): {} choices searched, {} picked at random for want of a copy that led back to the choice ({}); {} copies played out, {} rejected\n",
            sr.decisions,
            sr.fallbacks,
            pct(sr.fallbacks as f64 / sr.decisions.max(1) as f64).trim_start(),
            sr.worlds,
            sr.rejected
        ));
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
        s.push_str(&format!("  ended by: {}\n", ends.join(", ")));
    }
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
        s.push_str(&format!(
            "  leads: {:.2} lead changes per game ({:.2} per round boundary); {decided}\n",
            l.changes_mean, l.change_rate,
        ));
        let by: Vec<String> = l
            .winner_leading
            .iter()
            .enumerate()
            .map(|(i, x)| format!("r{} {}", i + 1, pct(*x).trim_start()))
            .collect();
        s.push_str(&format!(
            "  the eventual winner in front: {}\n",
            by.join(", ")
        ));
    }
    if !r.without.is_empty() {
        s.push_str(&format!("  played without: {}\n", r.without.join(", ")));
    }
    if !r.impact.is_empty() {
        s.push_str("\n  card impact (win rate without the card minus with it, 95% interval; largest first)\n");
        for i in &r.impact {
            let seats: Vec<String> = i
                .seats
                .iter()
                .map(|d| {
                    format!(
                        "{} {:+.1} ({:+.1}..{:+.1})",
                        d.seat,
                        d.win_rate.value * 100.0,
                        d.win_rate.low * 100.0,
                        d.win_rate.high * 100.0
                    )
                })
                .collect();
            s.push_str(&format!("  @{:<24} {}\n", i.card, seats.join("  ")));
        }
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
