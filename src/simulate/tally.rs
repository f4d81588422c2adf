//! What a balance report counts, added up one game at a time in seed order: the games are never
//! all held at once, so a run of any length (or a merge of any number of shards) takes memory in
//! proportion to the distinct values seen, not to the games. Every figure comes out exactly as
//! if it were worked out over the list of games: the values of each distribution are kept as
//! counts per value and read back in sorted order, and every sum of floats is added in seed
//! order, as the list would be.

use super::GameResult;
use crate::agent::mc::SearchStats;
use crate::interp::EndReason;
use std::collections::BTreeMap;

/// How many games took each value.
pub type Counts = BTreeMap<i64, u64>;

fn count(c: &mut Counts, v: i64) {
    let e = c.entry(v).or_insert(0);
    *e = e.saturating_add(1);
}

/// The number of values counted.
pub fn total(c: &Counts) -> u64 {
    c.values().fold(0u64, |a, n| a.saturating_add(*n))
}

/// Every value, in sorted order, once per game that took it.
fn values(c: &Counts) -> impl Iterator<Item = i64> + '_ {
    c.iter()
        .flat_map(|(v, n)| std::iter::repeat_n(*v, usize::try_from(*n).unwrap_or(usize::MAX)))
}

/// The `q`-th percentile (0..=100), nearest rank, as `stats::percentile` over the sorted values.
pub fn percentile(c: &Counts, q: u32) -> i64 {
    let n = total(c);
    if n == 0 {
        return 0;
    }
    let rank = (u128::from(q.min(100)) * u128::from(n))
        .div_ceil(100)
        .max(1);
    let mut seen: u128 = 0;
    for (v, k) in c {
        seen += u128::from(*k);
        if seen >= rank {
            return *v;
        }
    }
    c.keys().next_back().copied().unwrap_or(0)
}

/// Mean and (population) standard deviation, as `stats::mean_sd` over the sorted values.
pub fn mean_sd(c: &Counts) -> (f64, f64) {
    let n = total(c);
    if n == 0 {
        return (0.0, 0.0);
    }
    let n = n as f64;
    let mean = values(c).map(|v| v as f64).sum::<f64>() / n;
    let var = values(c).map(|v| (v as f64 - mean).powi(2)).sum::<f64>() / n;
    (mean, var.sqrt())
}

/// The leads at round ends, added up (`leads.rs` turns them into the report's figures).
#[derive(Debug, Clone)]
pub struct LeadTally {
    /// Games with a lead recorded at each round's end.
    pub games: u64,
    pub changes: u128,
    /// Sums of floats, in seed order (from -0.0, as `Iterator::sum` starts).
    pub change_rate: f64,
    pub decided: u64,
    pub decided_round: f64,
    pub decided_fraction: f64,
    /// Per round: games with a sole winner that reached it, and of those, the games in which
    /// the winner led alone at its end.
    pub leading: Vec<(u64, u64)>,
}

impl Default for LeadTally {
    fn default() -> Self {
        LeadTally {
            games: 0,
            changes: 0,
            change_rate: -0.0,
            decided: 0,
            decided_round: -0.0,
            decided_fraction: -0.0,
            leading: Vec::new(),
        }
    }
}

/// One figure (`figures: [crises_met]`) over the games that reported it.
#[derive(Debug, Clone, Default)]
pub struct FigureTally {
    /// The count of each game.
    pub counts: Counts,
    /// For so many of so many: the sums of both (`None` for a plain count).
    pub of: Option<(i128, i128)>,
}

/// Everything a report counts, over the games added so far.
#[derive(Debug, Clone, Default)]
pub struct Tally {
    pub players: u32,
    /// Games added, and of those the games a runtime error stopped.
    pub games: u64,
    pub errors: u64,
    pub first_error: Option<(u64, String)>,
    /// Games played to the end (without an error).
    pub played: u64,
    /// Per seat: outright wins, shared wins, and the scores.
    pub wins: Vec<u64>,
    pub shared: Vec<u64>,
    pub scores: Vec<Counts>,
    pub shared_wins: u64,
    pub no_winner: u64,
    /// Games without one winner (shared or none).
    pub draws: u64,
    pub rounds: Counts,
    pub choices: Counts,
    pub steps: Counts,
    pub asked: u128,
    pub forced: u128,
    pub endings: BTreeMap<EndReason, u64>,
    /// Each grouping's name, and per grouping: group -> (games, wins, shared wins).
    pub group_names: Vec<String>,
    pub groups: Vec<BTreeMap<String, (u64, u64, u64)>>,
    /// Per grouping, per group: the scores of its members, one per member per game.
    pub group_scores: Vec<BTreeMap<String, Counts>>,
    pub leads: LeadTally,
    /// Each figure's name (`figures:`), and per figure what the games came to.
    pub figure_names: Vec<String>,
    pub figures: Vec<FigureTally>,
    pub search: Option<SearchStats>,
    /// Per seat: games played in which the seat was asked a choice, and games in which it
    /// was out of the game once setup was done.
    pub seat_asked: Vec<u64>,
    pub sat_out: Vec<u64>,
}

fn inc(x: &mut u64) {
    *x = x.saturating_add(1);
}

impl Tally {
    /// An empty tally for `players` seats (at most 64: checked before anything is sized).
    pub fn new(players: u32) -> Tally {
        let seats = players.min(64) as usize;
        Tally {
            players,
            wins: vec![0; seats],
            shared: vec![0; seats],
            scores: vec![Counts::new(); seats],
            seat_asked: vec![0; seats],
            sat_out: vec![0; seats],
            leads: LeadTally::default(),
            ..Tally::default()
        }
    }

    /// Count one more game: the next seed's.
    pub fn add(&mut self, r: &GameResult) {
        inc(&mut self.games);
        if let Some(e) = &r.error {
            inc(&mut self.errors);
            if self.first_error.is_none() {
                self.first_error = Some((r.seed, e.clone()));
            }
            return;
        }
        inc(&mut self.played);
        for s in 0..self.wins.len() {
            let seat = s as u32;
            if r.winners.len() == 1 && r.winners.first() == Some(&seat) {
                inc(&mut self.wins[s]);
            }
            if r.winners.len() > 1 && r.winners.contains(&seat) {
                inc(&mut self.shared[s]);
            }
            if let Some(&v) = r.scores.get(s) {
                count(&mut self.scores[s], v);
            }
            if r.asked.get(s).is_some_and(|&n| n > 0) {
                if let Some(a) = self.seat_asked.get_mut(s) {
                    inc(a);
                }
            }
            if r.sat_out.contains(&seat) {
                if let Some(o) = self.sat_out.get_mut(s) {
                    inc(o);
                }
            }
        }
        if r.winners.len() > 1 {
            inc(&mut self.shared_wins);
        }
        if r.winners.is_empty() {
            inc(&mut self.no_winner);
        }
        if r.winners.len() != 1 {
            inc(&mut self.draws);
        }
        count(&mut self.rounds, r.rounds);
        count(&mut self.choices, r.choices as i64);
        count(&mut self.steps, r.steps as i64);
        self.asked += u128::from(r.choices);
        self.forced += u128::from(r.forced_choices);
        if let Some(e) = r.ended_by {
            inc(self.endings.entry(e).or_insert(0));
        }
        self.add_groups(r);
        self.add_leads(r);
        self.add_figures(r);
        if let Some(s) = r.search {
            match &mut self.search {
                Some(a) => a.add(&s),
                None => self.search = Some(s),
            }
        }
    }

    fn add_groups(&mut self, r: &GameResult) {
        for (name, seats) in &r.groups {
            let i = match self.group_names.iter().position(|n| n == name) {
                Some(i) => i,
                None => {
                    self.group_names.push(name.clone());
                    self.groups.push(BTreeMap::new());
                    self.group_scores.push(BTreeMap::new());
                    self.group_names.len() - 1
                }
            };
            let Some(table) = self.groups.get_mut(i) else {
                continue;
            };
            let mut present: Vec<&String> = seats.iter().flatten().collect();
            present.sort();
            present.dedup();
            for g in present {
                let member =
                    |seat: &u32| seats.get(*seat as usize).is_some_and(|gs| gs.contains(g));
                if let Some(scores) = self.group_scores.get_mut(i) {
                    let c = scores.entry(g.clone()).or_default();
                    for (seat, gs) in seats.iter().enumerate() {
                        if let (true, Some(&v)) = (gs.contains(g), r.scores.get(seat)) {
                            count(c, v);
                        }
                    }
                }
                let e = table.entry(g.clone()).or_insert((0, 0, 0));
                inc(&mut e.0);
                match r.winners.len() {
                    1 if r.winners.iter().any(member) => inc(&mut e.1),
                    n if n > 1 && r.winners.iter().any(member) => inc(&mut e.2),
                    _ => {}
                }
            }
        }
    }

    fn add_figures(&mut self, r: &GameResult) {
        for (name, k, n) in &r.figures {
            let i = match self.figure_names.iter().position(|x| x == name) {
                Some(i) => i,
                None => {
                    self.figure_names.push(name.clone());
                    self.figures.push(FigureTally::default());
                    self.figure_names.len() - 1
                }
            };
            let Some(f) = self.figures.get_mut(i) else {
                continue;
            };
            count(&mut f.counts, *k);
            if let Some(n) = n {
                let (a, b) = f.of.get_or_insert((0, 0));
                *a = a.saturating_add(i128::from(*k));
                *b = b.saturating_add(i128::from(*n));
            }
        }
    }

    fn add_leads(&mut self, r: &GameResult) {
        let leaders = &r.round_leaders;
        if leaders.is_empty() {
            return;
        }
        let l = &mut self.leads;
        inc(&mut l.games);
        let c = super::leads::lead_changes(leaders);
        l.changes += u128::from(c);
        l.change_rate += match leaders.len() {
            0 | 1 => 0.0,
            k => c as f64 / (k - 1) as f64,
        };
        // One slot per round of the longest game with leads (a shard's games are bounded by
        // the file's size).
        if l.leading.len() < leaders.len() {
            l.leading.resize(leaders.len(), (0, 0));
        }
        let [w] = r.winners[..] else { return };
        if let Some(at) = super::leads::decided_at(leaders, w) {
            inc(&mut l.decided);
            l.decided_round += at as f64;
            l.decided_fraction += (at as f64 - 1.0) / leaders.len().max(1) as f64;
        }
        for (slot, lead) in l.leading.iter_mut().zip(leaders) {
            inc(&mut slot.1);
            if *lead == Some(w) {
                inc(&mut slot.0);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The figures from counts are the figures from the sorted list, to the last bit.
    #[test]
    fn counts_give_exactly_the_figures_of_the_sorted_list() {
        let lists: [&[i64]; 5] = [
            &[2, 4, 4, 4, 5, 5, 7, 9],
            &[15, 20, 35, 40, 50],
            &[-3, 7, 7, 7, 1_000_001, -40, 12, 12, 5, 0, 0, 3],
            &[i64::MAX, i64::MIN, 0],
            &[],
        ];
        for l in lists {
            let mut sorted = l.to_vec();
            sorted.sort_unstable();
            let mut c = Counts::new();
            for &v in l {
                count(&mut c, v);
            }
            let (m1, s1) = crate::simulate::stats::mean_sd(&sorted);
            let (m2, s2) = mean_sd(&c);
            assert_eq!(
                (m1.to_bits(), s1.to_bits()),
                (m2.to_bits(), s2.to_bits()),
                "{l:?}"
            );
            for q in [0, 5, 10, 30, 40, 50, 90, 100] {
                assert_eq!(
                    crate::simulate::stats::percentile(&sorted, q),
                    percentile(&c, q),
                    "{l:?} {q}"
                );
            }
        }
    }
}
