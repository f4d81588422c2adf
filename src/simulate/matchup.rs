//! `rules simulate GAME --match A,B[,C...]`: a seat-balanced match between agents.
//!
//! With k agents and n seats, the match plays the same `--games` seeds in k seatings: in
//! seating r, seat i is played by agent (i + r) mod k. Over the k seatings every agent sits in
//! every seat exactly once per seed, so a seat's own advantage counts for no agent, and each agent
//! fills the same number of seats (with k = 2 and 5 seats: A B A B A, then B A B A B). An agent
//! *sat in* a game when it played at least one seat of it (every game, unless k > n).
//!
//! Per agent the match reports the games it sat in and, of those, the games it won outright (every
//! winner one of its seats) and the ones it shared (winners of its seats and of another agent's),
//! its outright win rate over the games decided (a shared win or a game nobody won counts for no
//! agent) with a Wilson 95% interval, and its fair share: the win rate a seat
//! picked at random would have, its seats over the players, averaged over the games it sat in
//! (1/k whenever k <= n: over the k seatings of a seed it fills n of the k x n seats). Also its
//! mean score per seat played and its outright wins by seat. The games come back in seed order, seating by
//! seating, so the report is a function of (rules, options, players, agents, seeds), whatever
//! `--jobs`.

use super::report::Interval;
use super::stats::wilson;
use super::{run_streamed, GameResult, Plan};
use crate::limits::Limits;
use serde::Serialize;
use std::sync::atomic::AtomicBool;

/// The most agents one match takes.
pub const MAX_AGENTS: usize = 16;

/// One agent's results in a match.
#[derive(Debug, Serialize)]
pub struct Entrant {
    pub agent: String,
    /// Games it sat in (played to the end), and the seats it played in them.
    pub games: u64,
    pub seats: u64,
    /// Of those games: won outright (every winner its seat) and shared with another agent.
    pub wins: u64,
    pub shared_wins: u64,
    /// Of its games, those nobody won; the games decided are the rest, less its shared wins.
    pub no_winner: u64,
    pub decided: u64,
    /// Its outright wins over the games decided, with the Wilson 95% interval (a shared win or
    /// a game nobody won counts for no agent).
    pub win_rate: Interval,
    /// Its seats over the players, averaged over its games (`None` in a solo game).
    pub fair_share: Option<f64>,
    /// Its mean score per seat played (`None` when the game has no score).
    pub mean_score: Option<f64>,
    /// Per seat: its outright wins there.
    pub wins_by_seat: Vec<u64>,
    /// Choices its seats searched, and the games played out for them (its effort, to compare
    /// agents at equal cost: `playouts / decisions` each).
    pub decisions: u64,
    pub playouts: u64,
}

/// A match, as `--json` writes it.
#[derive(Debug, Serialize)]
pub struct Match {
    pub game: String,
    pub players: u32,
    pub first_seed: u64,
    /// Seeds played in each seating.
    pub games_per_seating: u64,
    /// Each seating: the agent of every seat, P1 first.
    pub seatings: Vec<Vec<String>>,
    pub entrants: Vec<Entrant>,
    /// Games played to the end, and of those the ones nobody won.
    pub games: u64,
    pub no_winner: u64,
    pub errors: u64,
    pub first_error: Option<(u64, String)>,
    pub interrupted: bool,
    /// With two agents and a score: per game, the first agent's mean score per seat less the
    /// second's, averaged per seed over its seatings (both agents in each seat, the same deal:
    /// what a seat is worth cancels), then over the seeds, with a 95% interval over the seeds
    /// (Student's t): where the seat dealt decides most wins, the telling number.
    pub score_gap: Option<Interval>,
    /// The seeds `score_gap` is worked out over, and of those the ones played in every seating
    /// (fewer only when the match was interrupted).
    pub score_gap_seeds: u64,
    pub score_gap_paired: u64,
}

/// Read `--match A,B,...`: at least two agents, each once, none of them a person.
pub fn parse(spec: &str) -> Result<Vec<String>, String> {
    let agents: Vec<String> = spec.split(',').map(|a| a.trim().to_string()).collect();
    if agents.iter().any(String::is_empty) {
        return Err(format!(
            "`{spec}` has an empty entry: write the agents like --match ismcts:50,mc:10"
        ));
    }
    if agents.len() < 2 {
        return Err(format!(
            "`--match {spec}` names one agent: a match pits two or more, like --match ismcts:50,random"
        ));
    }
    if agents.len() > MAX_AGENTS {
        return Err(format!(
            "a match takes at most {MAX_AGENTS} agents, not {}",
            agents.len()
        ));
    }
    for (i, a) in agents.iter().enumerate() {
        if a.contains('=') && !a.starts_with("script:") {
            return Err(format!(
                "`{a}`: a match seats its agents itself; name each agent without a seat"
            ));
        }
        if a == "human" {
            return Err("a match has no people at the keyboard: use random, first, mc:N, ismcts:N or script agents".into());
        }
        crate::agent::seat_specs(a, 1, "random")?;
        if agents[..i].contains(a) {
            return Err(format!("`{a}` is named twice in `--match {spec}`"));
        }
    }
    Ok(agents)
}

/// Seating `r` of `k` agents at `players` seats: each seat's agent (an index into the agents).
pub fn seating(r: usize, k: usize, players: u32) -> Vec<usize> {
    (0..players as usize).map(|i| (i + r) % k.max(1)).collect()
}

/// What one agent's games add up to, as they come.
#[derive(Default)]
struct Count {
    games: u64,
    seats: u64,
    wins: u64,
    shared: u64,
    /// Sums of floats, in seed order, seating by seating.
    fair: f64,
    score: f64,
    scored: u64,
    by_seat: Vec<u64>,
    no_winner: u64,
    decisions: u64,
    playouts: u64,
}

impl Count {
    fn add(&mut self, r: &GameResult, mine: &[bool], players: u32) {
        let seats = mine.iter().filter(|&&m| m).count() as u64;
        if seats == 0 {
            return;
        }
        self.games += 1;
        self.seats += seats;
        self.fair += seats as f64 / f64::from(players.max(1));
        let is_mine = |w: &u32| mine.get(*w as usize).copied().unwrap_or(false);
        if r.winners.is_empty() {
            self.no_winner += 1;
        } else {
            if r.winners.iter().all(is_mine) {
                self.wins += 1;
                for &w in &r.winners {
                    if let Some(x) = self.by_seat.get_mut(w as usize) {
                        *x += 1;
                    }
                }
            } else if r.winners.iter().any(is_mine) {
                self.shared += 1;
            }
        }
        for (s, _) in r.scores.iter().zip(mine).filter(|(_, &m)| m) {
            self.score += *s as f64;
            self.scored += 1;
        }
        for (s, _) in r.seat_search.iter().zip(mine).filter(|(_, &m)| m) {
            self.decisions = self.decisions.saturating_add(s.decisions);
            self.playouts = self.playouts.saturating_add(s.playouts);
        }
    }
}

/// Play the match of `agents` (`plan.games` seeds in each seating; `plan.agent` is unused).
pub fn run(
    plan: &Plan,
    agents: &[String],
    limits: Limits,
    stop: &AtomicBool,
    progress: &(dyn Fn() + Sync),
) -> Result<Match, String> {
    let n = plan.players;
    let k = agents.len();
    let mut counts: Vec<Count> = (0..k)
        .map(|_| Count {
            by_seat: vec![0; n as usize],
            ..Count::default()
        })
        .collect();
    let mut out = Match {
        game: plan.game.display().to_string(),
        players: n,
        first_seed: plan.seed,
        games_per_seating: plan.games,
        seatings: Vec::new(),
        entrants: Vec::new(),
        games: 0,
        no_winner: 0,
        errors: 0,
        first_error: None,
        interrupted: false,
        score_gap: None,
        score_gap_seeds: 0,
        score_gap_paired: 0,
    };
    // Per seed: the sum of its games' gaps and how many seatings played it.
    let mut gaps: std::collections::BTreeMap<u64, (f64, u64)> = Default::default();
    for r in 0..k {
        let seats = seating(r, k, n);
        let names: Vec<String> = seats
            .iter()
            .map(|&a| agents.get(a).cloned().unwrap_or_default())
            .collect();
        let spec: Vec<String> = names
            .iter()
            .enumerate()
            .map(|(i, a)| format!("P{}={a}", i + 1))
            .collect();
        out.seatings.push(names);
        let p = Plan {
            agent: spec.join(","),
            ..plan.clone()
        };
        let got = run_streamed(&p, limits, stop, progress, &mut |g| {
            if let Some(e) = &g.error {
                out.errors += 1;
                if out.first_error.is_none() {
                    out.first_error = Some((g.seed, e.clone()));
                }
                return Ok(());
            }
            out.games += 1;
            if g.winners.is_empty() {
                out.no_winner += 1;
            }
            for (a, c) in counts.iter_mut().enumerate() {
                let mine: Vec<bool> = seats.iter().map(|&s| s == a).collect();
                c.add(&g, &mine, n);
            }
            if k == 2 && !g.scores.is_empty() {
                let mean_of = |a: usize| {
                    let xs: Vec<f64> = g
                        .scores
                        .iter()
                        .zip(&seats)
                        .filter(|(_, &s)| s == a)
                        .map(|(&x, _)| x as f64)
                        .collect();
                    (!xs.is_empty()).then(|| xs.iter().sum::<f64>() / xs.len() as f64)
                };
                if let (Some(x), Some(y)) = (mean_of(0), mean_of(1)) {
                    let at = gaps.entry(g.seed).or_default();
                    at.0 += x - y;
                    at.1 += 1;
                }
            }
            Ok(())
        })?;
        if got < p.games {
            out.interrupted = true;
            break;
        }
    }
    // One value per seed, in seed order: its seatings' gaps averaged.
    let per_seed: Vec<f64> = gaps.values().map(|&(sum, n)| sum / n as f64).collect();
    out.score_gap_seeds = per_seed.len() as u64;
    out.score_gap_paired = gaps.values().filter(|&&(_, n)| n as usize == k).count() as u64;
    out.score_gap = super::stats::mean_interval(&per_seed).map(|(value, low, high)| Interval {
        value,
        low,
        high,
    });
    out.entrants = agents
        .iter()
        .zip(counts)
        .map(|(agent, c)| {
            let decided = c.games.saturating_sub(c.shared).saturating_sub(c.no_winner);
            let (low, high) = wilson(c.wins, decided);
            Entrant {
                agent: agent.clone(),
                games: c.games,
                seats: c.seats,
                wins: c.wins,
                shared_wins: c.shared,
                no_winner: c.no_winner,
                decided,
                win_rate: Interval {
                    value: c.wins as f64 / decided.max(1) as f64,
                    low,
                    high,
                },
                fair_share: (n > 1 && c.games > 0).then(|| c.fair / c.games as f64),
                mean_score: (c.scored > 0).then(|| c.score / c.scored as f64),
                wins_by_seat: c.by_seat,
                decisions: c.decisions,
                playouts: c.playouts,
            }
        })
        .collect();
    Ok(out)
}

fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

/// The match as the terminal shows it.
pub fn text(m: &Match) -> String {
    let names: Vec<&str> = m.entrants.iter().map(|e| e.agent.as_str()).collect();
    let mut t = format!(
        "{}: a match of {}, {} player{}, {} seeds in each of {} seatings (seeds {} to {}){}\n",
        m.game,
        names.join(" against "),
        m.players,
        if m.players == 1 { "" } else { "s" },
        m.games_per_seating,
        m.seatings.len().max(names.len()),
        m.first_seed,
        m.first_seed
            .wrapping_add(m.games_per_seating.saturating_sub(1)),
        if m.interrupted { ", interrupted" } else { "" }
    );
    for (r, s) in m.seatings.iter().enumerate() {
        t.push_str(&format!("  seating {}: {}\n", r + 1, s.join(", ")));
    }
    let width = names.iter().map(|n| n.len()).max().unwrap_or(0);
    for e in &m.entrants {
        let verdict = match e.fair_share {
            Some(f) if e.win_rate.low > f => format!(", fair share {}: above it", pct(f)),
            Some(f) if e.win_rate.high < f => format!(", fair share {}: below it", pct(f)),
            Some(f) => format!(", fair share {}: not clearly apart", pct(f)),
            None => String::new(),
        };
        let left_out = if e.decided < e.games {
            format!(" decided ({} played)", e.games)
        } else {
            String::new()
        };
        t.push_str(&format!(
            "  {:width$}  won {} of {} games{left_out}: {} ({} .. {}){verdict}\n",
            e.agent,
            e.wins,
            e.decided,
            pct(e.win_rate.value),
            pct(e.win_rate.low),
            pct(e.win_rate.high),
        ));
        let mut more = Vec::new();
        if e.shared_wins > 0 {
            more.push(format!("{} shared", e.shared_wins));
        }
        if let Some(s) = e.mean_score {
            more.push(format!("mean score {s:.2} per seat"));
        }
        let by: Vec<String> = e
            .wins_by_seat
            .iter()
            .enumerate()
            .map(|(i, w)| format!("P{} {w}", i + 1))
            .collect();
        more.push(format!("wins by seat: {}", by.join(", ")));
        if e.decisions > 0 {
            more.push(format!(
                "{} choices searched, {:.1} playouts each",
                e.decisions,
                e.playouts as f64 / e.decisions as f64
            ));
        }
        t.push_str(&format!("  {:width$}  {}\n", "", more.join("; ")));
    }
    // Two agents in a solo game, or more than the seats: compare the intervals directly.
    if m.entrants.len() == 2 && m.entrants.iter().any(|e| e.fair_share.is_none()) {
        let (a, b) = (&m.entrants[0], &m.entrants[1]);
        let verdict = if a.win_rate.low > b.win_rate.high {
            format!("{} wins more often than {}", a.agent, b.agent)
        } else if b.win_rate.low > a.win_rate.high {
            format!("{} wins more often than {}", b.agent, a.agent)
        } else {
            "the intervals overlap: no clear difference".to_string()
        };
        t.push_str(&format!("  {verdict}\n"));
    }
    if let (Some(g), [a, b]) = (&m.score_gap, m.entrants.as_slice()) {
        let verdict = if g.low > 0.0 {
            format!("{} scores more", a.agent)
        } else if g.high < 0.0 {
            format!("{} scores more", b.agent)
        } else {
            "no clear difference".to_string()
        };
        let over = if m.score_gap_paired == m.score_gap_seeds {
            format!("per seed, both seatings ({} seeds)", m.score_gap_seeds)
        } else {
            format!(
                "per seed ({} seeds, {} of them in both seatings)",
                m.score_gap_seeds, m.score_gap_paired
            )
        };
        t.push_str(&format!(
            "  score per seat, {} less {}: {:+.2} ({:+.2} .. {:+.2}) {over}: {verdict}\n",
            a.agent, b.agent, g.value, g.low, g.high
        ));
    }
    if m.no_winner > 0 {
        t.push_str(&format!(
            "  {} of {} games had no winner\n",
            m.no_winner, m.games
        ));
    }
    if m.errors > 0 {
        if let Some((seed, e)) = &m.first_error {
            t.push_str(&format!(
                "  {} games stopped on an error; the first, seed {seed}: {e}\n",
                m.errors
            ));
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_agent_sits_in_every_seat_once_per_seed() {
        for (k, n) in [(2, 2), (2, 5), (3, 2), (3, 4), (2, 1)] {
            let mut at = vec![vec![0u32; n as usize]; k];
            let mut seats = vec![0u32; k];
            for r in 0..k {
                for (i, a) in seating(r, k, n).into_iter().enumerate() {
                    at[a][i] += 1;
                    seats[a] += 1;
                }
            }
            for a in 0..k {
                assert!(at[a].iter().all(|&x| x == 1), "k {k}, n {n}: {at:?}");
            }
            assert!(seats.iter().all(|&s| s == n), "k {k}, n {n}: {seats:?}");
        }
    }

    #[test]
    fn match_specs_are_checked() {
        assert_eq!(
            parse("ismcts:5, mc:2").expect("two agents"),
            vec!["ismcts:5".to_string(), "mc:2".to_string()]
        );
        for bad in [
            "random",
            "random,random",
            "random,",
            "P1=random,mc:2",
            "human,random",
            "mc:0,random",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}
