//! `rules simulate GAME --skill K`: how much the game rewards play (Ludii's SkillTrace, after
//! Browne's skill/luck measures). `ismcts` with a budget of 2b iterations plays against `ismcts:b`
//! at every other seat, for b = K and 2K, on the same seeds once with each seat the stronger
//! (rotated round the table, so no seat's advantage counts for either budget). The stronger
//! seat's win rate over the games decided (those it did not share and someone won) against a fair
//! share (one over the players) says how much a doubled budget wins: near the fair share the game
//! is mostly luck at these budgets. A game of equals that ends shared says nothing either way, so
//! it counts for neither.

use super::stats::wilson;
use super::tally::Tally;
use super::{run_streamed, Plan};
use crate::limits::Limits;
use serde::Serialize;
use std::sync::atomic::AtomicBool;

/// One match: the stronger budget against the weaker, every seat in turn.
#[derive(Debug, Serialize)]
pub struct Step {
    pub stronger: String,
    pub weaker: String,
    /// Games played (every rotation), and of those the stronger seat's outright and shared wins.
    pub games: u64,
    pub wins: u64,
    pub shared_wins: u64,
    /// Games nobody won.
    #[serde(default)]
    pub no_winner: u64,
    /// Games decided: played, less those the stronger seat shared and those nobody won.
    #[serde(default)]
    pub decided: u64,
    /// The stronger seat's outright wins over the games decided, with its Wilson 95% interval.
    pub win_rate: super::report::Interval,
    /// Per seat it sat at: its wins there.
    pub wins_by_seat: Vec<u64>,
}

#[derive(Debug, Serialize)]
pub struct Skill {
    pub game: String,
    pub players: u32,
    pub first_seed: u64,
    /// Games per seat of the stronger budget, in each match.
    pub games_per_seat: u64,
    pub fair_share: f64,
    pub steps: Vec<Step>,
    pub errors: u64,
    pub first_error: Option<(u64, String)>,
    pub interrupted: bool,
}

/// Play the matches of budgets `k`, `2k`, `4k` (`plan.games` seeds per seat).
pub fn run(
    plan: &Plan,
    k: u32,
    limits: Limits,
    stop: &AtomicBool,
    progress: &(dyn Fn() + Sync),
) -> Result<Skill, String> {
    let n = plan.players.max(1);
    let mut out = Skill {
        game: plan.game.display().to_string(),
        players: plan.players,
        first_seed: plan.seed,
        games_per_seat: plan.games,
        fair_share: 1.0 / f64::from(n),
        steps: Vec::new(),
        errors: 0,
        first_error: None,
        interrupted: false,
    };
    let mut budget = k;
    for _ in 0..2 {
        let strong = budget.saturating_mul(2);
        let (weaker, stronger) = (format!("ismcts:{budget}"), format!("ismcts:{strong}"));
        let mut step = Step {
            stronger: stronger.clone(),
            weaker: weaker.clone(),
            games: 0,
            wins: 0,
            shared_wins: 0,
            no_winner: 0,
            decided: 0,
            win_rate: super::report::Interval {
                value: 0.0,
                low: 0.0,
                high: 1.0,
            },
            wins_by_seat: vec![0; n as usize],
        };
        for seat in 0..n {
            let p = Plan {
                agent: format!("P{}={stronger},{weaker}", seat + 1),
                ..plan.clone()
            };
            let mut t = Tally::new(n);
            let got = run_streamed(&p, limits, stop, progress, &mut |r| {
                t.add(&r);
                Ok(())
            })?;
            out.errors = out.errors.saturating_add(t.errors);
            if out.first_error.is_none() {
                out.first_error = t.first_error.clone();
            }
            let w = t.wins.get(seat as usize).copied().unwrap_or(0);
            step.games = step.games.saturating_add(t.played);
            step.wins = step.wins.saturating_add(w);
            step.shared_wins = step
                .shared_wins
                .saturating_add(t.shared.get(seat as usize).copied().unwrap_or(0));
            step.no_winner = step.no_winner.saturating_add(t.no_winner);
            if let Some(x) = step.wins_by_seat.get_mut(seat as usize) {
                *x = w;
            }
            if got < p.games {
                out.interrupted = true;
                break;
            }
        }
        step.decided = step
            .games
            .saturating_sub(step.shared_wins)
            .saturating_sub(step.no_winner);
        let (low, high) = wilson(step.wins, step.decided);
        step.win_rate = super::report::Interval {
            value: step.wins as f64 / step.decided.max(1) as f64,
            low,
            high,
        };
        out.steps.push(step);
        if out.interrupted {
            break;
        }
        budget = strong;
    }
    Ok(out)
}

/// The games of a step left out of its rate, in words (empty when none were).
fn undecided(st: &Step) -> String {
    let mut parts = Vec::new();
    if st.shared_wins > 0 {
        parts.push(format!("{} shared", st.shared_wins));
    }
    if st.no_winner > 0 {
        parts.push(format!("{} without a winner", st.no_winner));
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!(" ({} played, {})", st.games, parts.join(", "))
    }
}

/// The matches as the terminal shows them.
pub fn text(s: &Skill) -> String {
    let mut t = format!(
        "{}: skill against luck, {} players, {} games per seat each match (seeds {} to {}){}\n",
        s.game,
        s.players,
        s.games_per_seat,
        s.first_seed,
        s.first_seed
            .wrapping_add(s.games_per_seat.saturating_sub(1)),
        if s.interrupted { ", interrupted" } else { "" }
    );
    for st in &s.steps {
        let pct = |x: f64| format!("{:.1}%", x * 100.0);
        t.push_str(&format!(
            "  {} against {} at every other seat: won {} of the {} games decided{}, {} ({} .. {}), a fair share is {}: {:+.1} points{}\n",
            st.stronger,
            st.weaker,
            st.wins,
            st.decided,
            undecided(st),
            pct(st.win_rate.value),
            pct(st.win_rate.low),
            pct(st.win_rate.high),
            pct(s.fair_share),
            (st.win_rate.value - s.fair_share) * 100.0,
            if st.win_rate.low > s.fair_share {
                " (the larger budget wins more: play is rewarded)"
            } else if st.win_rate.high < s.fair_share {
                " (the larger budget wins less)"
            } else {
                " (no clear gain from the larger budget)"
            }
        ));
        let by: Vec<String> = st
            .wins_by_seat
            .iter()
            .enumerate()
            .map(|(i, w)| format!("P{} {w}", i + 1))
            .collect();
        t.push_str(&format!("    its wins by seat: {}\n", by.join(", ")));
    }
    if s.errors > 0 {
        if let Some((seed, e)) = &s.first_error {
            t.push_str(&format!(
                "  {} games stopped on an error; the first, seed {seed}: {e}\n",
                s.errors
            ));
        }
    }
    t
}
