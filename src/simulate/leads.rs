//! Who leads as a game goes on: the leader at each round's end, how often the lead changes, and
//! the round from which the eventual winner led for good. Leads are read from the game's own
//! `score` function at the end of every round (the checker proves it only reads the game).
//!
//! The measures follow Ludii's `LeadChange` (how often the player in front changes) and its
//! decisiveness measures (how early the eventual winner is in front for good), with rounds as
//! the unit of time; `docs/simulate.md` gives the definitions.

use serde::Serialize;

/// The seat leading alone (`None` on a tie for the lead, or without players).
pub fn sole_leader(scores: &[i64], lowest_wins: bool) -> Option<u32> {
    let best = if lowest_wins {
        scores.iter().min()
    } else {
        scores.iter().max()
    }?;
    let mut at = scores.iter().enumerate().filter(|(_, s)| *s == best);
    let (first, _) = at.next()?;
    match at.next() {
        Some(_) => None,
        None => u32::try_from(first).ok(),
    }
}

/// How many times the sole leader changed from one round's end to a later one (ties between
/// two leads are skipped: A, tie, B is one change).
pub fn lead_changes(leaders: &[Option<u32>]) -> u64 {
    let mut last = None;
    let mut changes = 0;
    for l in leaders.iter().flatten() {
        if last.is_some_and(|p| p != *l) {
            changes += 1;
        }
        last = Some(*l);
    }
    changes
}

/// The round (1-based) from whose end the winner led alone at every later round's end, or
/// `None` when the winner was not in front alone at the last round's end.
pub fn decided_at(leaders: &[Option<u32>], winner: u32) -> Option<usize> {
    let mut from = None;
    for (i, l) in leaders.iter().enumerate() {
        if *l == Some(winner) {
            from.get_or_insert(i + 1);
        } else {
            from = None;
        }
    }
    from
}

#[derive(Debug, Serialize)]
pub struct Leads {
    /// Games with a lead recorded at every round's end.
    pub games: u64,
    /// Mean number of lead changes per game.
    pub changes_mean: f64,
    /// Lead changes per round boundary (changes / (rounds - 1)), averaged over games: Ludii's
    /// `LeadChange` with rounds as moves.
    pub change_rate: f64,
    /// Games with a sole winner in which that winner led alone at the last round's end, and
    /// the mean round from which it led for good (1 = from the first round on).
    pub decided_games: u64,
    pub decided_round_mean: f64,
    /// The same as a fraction of the game's rounds (0 = decided at once, near 1 = at the end).
    pub decided_fraction_mean: f64,
    /// For round r (index r - 1): the share of games, among those with a sole winner that
    /// reached round r, in which the eventual winner led alone at its end.
    pub winner_leading: Vec<f64>,
}

/// The figures of the leads added up in `t`; `None` when no game recorded a lead.
pub fn leads(t: &super::tally::LeadTally) -> Option<Leads> {
    if t.games == 0 {
        return None;
    }
    let n = t.games as f64;
    let d = t.decided.max(1) as f64;
    Some(Leads {
        games: t.games,
        changes_mean: t.changes as f64 / n,
        change_rate: t.change_rate / n,
        decided_games: t.decided,
        decided_round_mean: t.decided_round / d,
        decided_fraction_mean: t.decided_fraction / d,
        winner_leading: t
            .leading
            .iter()
            .map(|(a, b)| if *b == 0 { 0.0 } else { *a as f64 / *b as f64 })
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sole_leader_respects_lowest_wins_and_ties() {
        assert_eq!(sole_leader(&[3, 7, 5], false), Some(1));
        assert_eq!(sole_leader(&[3, 7, 5], true), Some(0));
        assert_eq!(sole_leader(&[7, 7, 5], false), None);
        assert_eq!(sole_leader(&[], false), None);
    }

    #[test]
    fn changes_skip_ties_and_count_each_new_leader() {
        assert_eq!(lead_changes(&[Some(0), None, Some(1), Some(1), Some(0)]), 2);
        assert_eq!(lead_changes(&[Some(2), None, Some(2)]), 0);
        assert_eq!(lead_changes(&[]), 0);
    }

    #[test]
    fn decided_is_the_start_of_the_winners_last_run_in_front() {
        assert_eq!(
            decided_at(&[Some(1), Some(0), Some(1), Some(1)], 1),
            Some(3)
        );
        assert_eq!(decided_at(&[Some(1), Some(1)], 1), Some(1));
        assert_eq!(decided_at(&[Some(1), None], 1), None);
    }
}
