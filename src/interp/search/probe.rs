//! Importance sampling: probes of the real boundary state find which answers to other
//! players' secret choices, and which of the game's own draws, lead back to the choice as the
//! seat saw it; a playout draws among those (`Proposal`) and weighs its copy back to uniform.

use super::answer::Playout;
use super::replay::{Hidden, Proposal};
use super::*;
use std::cell::OnceCell;

/// Up to this many options, the probes try every other answer; above it, `PROBES` of them.
const PROBE_ALL: usize = 12;
const PROBES: usize = 8;

/// The probes spent on the game's own draws (`NATURE`) per choice searched, the first draws
/// first: a replay that goes back far may hold hundreds (a shuffle is a draw per card), and
/// those past the budget are drawn uniformly, as the game draws them (exact, only more copies
/// are rejected where the seat saw the draw). 48 were too few for a game whose setup shuffles
/// before it draws what the table sees: in a 12-player Hegemony game of `ismcts:10` the agenda
/// decks' shuffles took them all, the factional gifts were drawn uniformly, and 80 of 216
/// decisions found no copy (19,860 rejected); with 400, 13 of 226 (7,524 rejected), at 10%
/// fewer decisions a second. In Ambition (4 players, `ismcts:20`) 195 of 532 found none, and 2
/// of 471 now, at seven times the decisions a second, as far fewer copies are played in vain.
const NATURE_PROBES: usize = 400;

impl SearchPoint<'_> {
    /// Decide, once per choice searched, how a playout draws the answers to other players'
    /// secret choices since the boundary. Probes change one such answer at a time (every other
    /// answer as given): every other answer when the choice had at most `PROBE_ALL` options,
    /// else `PROBES` drawn at random. If every answer tried led back to the choice as the seat
    /// sees it, the choice is drawn uniformly. Otherwise it is drawn among the answers that fit
    /// (`Proposal::Among`): with every answer tried, those and the one given, which is exactly
    /// what the seat can infer; with a sample, only those found (the one given would be over-
    /// represented among a few), or the one given alone when nothing else fitted. The playout's
    /// weight (`Played::weight`) corrects for the narrowing, and one draw in `WIDE_OF` stays
    /// uniform among all, so what a search estimates is what uniform draws give, only with far
    /// fewer copies rejected. The probes replay the real boundary state: they shape the
    /// proposal, never what it is weighed against. The game's own draws since the boundary
    /// (`NATURE`) are probed alike, up to `NATURE_PROBES` probes.
    pub fn prepare(&self, rng: &mut ChaCha8Rng) {
        if self.proposals.get().is_some() {
            return;
        }
        let replay = &self.want().replay;
        let mut proposals = vec![Proposal::Uniform; replay.len()];
        let as_went = OnceCell::new();
        let mut nature_budget = NATURE_PROBES;
        for (at, a) in replay.iter().enumerate() {
            let (who, index, secret) = (a.player, a.index, a.secret);
            if !secret || who == self.seat {
                continue;
            }
            let (fits, n) = if who == NATURE {
                // A draw: its number of values is kept, and the replay as it went is the same
                // for every draw, so it is tried once.
                let n = a.count;
                if n < 2 || index >= n || nature_budget < n.min(PROBE_ALL) {
                    // Past the budget: drawn uniformly, as the game draws it.
                    continue;
                }
                nature_budget -= n.min(PROBE_ALL);
                (*as_went.get_or_init(|| self.probe(usize::MAX, None).0), n)
            } else {
                self.probe(at, None)
            };
            if !fits || n < 2 || index >= n {
                // The replay does not come back as it went: nothing to narrow.
                continue;
            }
            let alts: Vec<usize> = if n <= PROBE_ALL {
                (0..n).filter(|&a| a != index).collect()
            } else {
                (0..PROBES)
                    .map(|_| {
                        let a = rng::below(rng, (n - 1).min(u32::MAX as usize) as u32) as usize;
                        if a >= index {
                            a + 1
                        } else {
                            a
                        }
                    })
                    .collect()
            };
            let every = n <= PROBE_ALL;
            let mut fitted: Vec<usize> = Vec::new();
            let mut all_fit = true;
            for &a in &alts {
                if !self.probe(at, Some(a)).0 {
                    all_fit = false;
                } else if !fitted.contains(&a) {
                    fitted.push(a);
                }
            }
            if all_fit {
                continue;
            }
            // Every answer tried: those that fit are the seat's inference, the one given among
            // them. A sample: the ones found stand for all that fit, and the one given is left
            // out (it was not found by chance), unless nothing else fitted.
            if every || fitted.is_empty() {
                fitted.push(index);
            }
            fitted.sort_unstable();
            proposals[at] = Proposal::Among(fitted);
        }
        let _ = self.proposals.set(proposals.into());
    }

    /// One probe: replay the real boundary state with replayed choice `at` answered `alt`
    /// (as given for `None`) and every other answer as given. Whether it led back to the
    /// choice as the seat sees it, and the number of options choice `at` had.
    fn probe(&self, at: usize, alt: Option<usize>) -> (bool, usize) {
        let hidden = Hidden::Probe { at, alt, count: 0 };
        match self.run(self.track.state.clone(), self.playout_for(0, hidden, 0)) {
            Ok((end, it)) => {
                let count = match it.playout.as_deref() {
                    Some(Playout {
                        hidden: Hidden::Probe { count, .. },
                        ..
                    }) => *count,
                    _ => 0,
                };
                (matches!(end, Err(d) if d.code == ACCEPT), count)
            }
            Err(_) => (false, 0),
        }
    }
}
