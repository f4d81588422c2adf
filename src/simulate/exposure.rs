//! Exposure, the way card players measure a card (17lands' "game in hand" win rate, HSReplay's
//! played win rate): in the games of the plain run, the seats (and groups: each faction, each
//! role) that got or faced a card against those that did not, for the win rate and the mean
//! score, and the game's own figures in the games the card entered play in against the others.
//! Counted one game at a time in seed order, from `GameResult::entered` (`entered.rs`).
//!
//! A seat is one unit per game it took part in; a group one unit per game it had members in (it
//! got the card when a member did, it wins when the only winner is a member, its score is its
//! members' mean). A grouping whose groups the card splits (some members get it, some do not: a
//! role, whose holders sit in different factions) is instead read group by group, each group's
//! seats among themselves: the Science Officer who got a technology against the Science Officers
//! who got another. Units of one game are
//! not independent (one seat's win is the others' loss, a faction's members score together), so
//! each game is a cluster: a measure's mean with the card is its total over its units, and the
//! 95% intervals (normal) are cluster-robust, from the games' own totals (the ratio estimator's
//! variance), for each side and for the difference, whose two sides share games.

use super::report::Interval;
use super::stats::Z95;
use super::GameResult;
use serde::Serialize;

/// One measure, exposed against not, summed game by game (a game is a cluster: its units are
/// not independent, so the intervals are cluster-robust, from the games' own totals). Per game:
/// `yw` over `nw` units that got the card, `yu` over `nu` that did not.
#[derive(Debug, Clone, Copy, Default)]
struct Split {
    games: u64,
    /// Games with a unit on each side.
    games_with: u64,
    games_without: u64,
    yw: f64,
    nw: f64,
    yu: f64,
    nu: f64,
    yw2: f64,
    ywnw: f64,
    nw2: f64,
    yu2: f64,
    yunu: f64,
    nu2: f64,
    ywyu: f64,
    ywnu: f64,
    nwyu: f64,
    nwnu: f64,
}

impl Split {
    fn add(&mut self, yw: f64, nw: f64, yu: f64, nu: f64) {
        if nw + nu <= 0.0 {
            return;
        }
        self.games = self.games.saturating_add(1);
        if nw > 0.0 {
            self.games_with = self.games_with.saturating_add(1);
        }
        if nu > 0.0 {
            self.games_without = self.games_without.saturating_add(1);
        }
        self.yw += yw;
        self.nw += nw;
        self.yu += yu;
        self.nu += nu;
        self.yw2 += yw * yw;
        self.ywnw += yw * nw;
        self.nw2 += nw * nw;
        self.yu2 += yu * yu;
        self.yunu += yu * nu;
        self.nu2 += nu * nu;
        self.ywyu += yw * yu;
        self.ywnu += yw * nu;
        self.nwyu += nw * yu;
        self.nwnu += nw * nu;
    }

    /// The two means, their variances and the variance of their difference (`None` when a
    /// side has no unit or there are fewer than two games).
    fn estimate(&self) -> Option<(f64, f64, f64, f64, f64)> {
        if self.nw <= 0.0 || self.nu <= 0.0 || self.games < 2 {
            return None;
        }
        let (mw, mu) = (self.yw / self.nw, self.yu / self.nu);
        // Sums over games of a = yw - mw nw, b = yu - mu nu, and of a b.
        let aa = self.yw2 - 2.0 * mw * self.ywnw + mw * mw * self.nw2;
        let bb = self.yu2 - 2.0 * mu * self.yunu + mu * mu * self.nu2;
        let ab = self.ywyu - mu * self.ywnu - mw * self.nwyu + mw * mu * self.nwnu;
        let g = self.games as f64;
        let k = g / (g - 1.0);
        let vw = (k * aa / (self.nw * self.nw)).max(0.0);
        let vu = (k * bb / (self.nu * self.nu)).max(0.0);
        let vd = (vw + vu - 2.0 * k * ab / (self.nw * self.nu)).max(0.0);
        Some((mw, mu, vw, vu, vd))
    }
}

/// One card's counts over the run.
#[derive(Debug, Clone, Default)]
struct CardCounts {
    entered: u64,
    /// Per kind of unit (seats, then one per grouping), per measure (the win, the score, then
    /// each of the game's `measures`).
    units: Vec<Vec<Split>>,
    /// Per grouping: whether some group of it had members that got the card and members that
    /// did not in one game (a role, whose members sit in different factions). Then its groups
    /// are not units: each group's seats are compared among themselves (`per_group`).
    split: Vec<bool>,
    /// Per grouping, per group: its seats that got the card against its seats that got another
    /// (per measure).
    per_group: Vec<std::collections::BTreeMap<String, Vec<Split>>>,
    /// Per figure: the games it entered play in against the others (the figure's value, or its
    /// share for so many of so many).
    figures: Vec<Split>,
}

/// Exposure counted over a run, for the cards asked about.
#[derive(Debug, Clone, Default)]
pub struct Exposure {
    /// The cards, by index, with their ids.
    cards: Vec<(u32, String)>,
    /// Every card's kind, by index.
    kinds: Vec<u32>,
    /// Per kind: whether the game has more than one card of it (then a card is compared with
    /// the seats and groups that got another card of its kind).
    several: Vec<bool>,
    counts: Vec<CardCounts>,
    /// Games counted (played without an error).
    pub games: u64,
    /// The groupings', figures' and measures' names (and whether each measure is a yes/no), as
    /// the first game gave them.
    groupings: Vec<String>,
    figures: Vec<String>,
    measures: Vec<(String, bool)>,
}

impl Exposure {
    /// Exposure of `cards` (index, id); `kinds` is every card's kind, by index.
    pub fn new(cards: Vec<(u32, String)>, kinds: Vec<u32>) -> Exposure {
        let counts = vec![CardCounts::default(); cards.len()];
        let top = kinds.iter().copied().max().map_or(0, |k| k as usize + 1);
        let mut per = vec![0u32; top];
        for &k in &kinds {
            if let Some(n) = per.get_mut(k as usize) {
                *n += 1;
            }
        }
        Exposure {
            cards,
            several: per.iter().map(|&n| n > 1).collect(),
            kinds,
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
        if self.measures.is_empty() {
            self.measures = r.measures.iter().map(|(n, b, _)| (n.clone(), *b)).collect();
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
        // Per seat, its values: won, score, then each measure (`None` where it has none).
        let values: Vec<Vec<Option<f64>>> = (0..players)
            .map(|p| {
                let mut v = vec![
                    Some(f64::from(u8::from(sole == Some(p as u32)))),
                    r.scores.get(p).map(|&x| x as f64),
                ];
                v.extend(
                    r.measures
                        .iter()
                        .map(|(_, _, seats)| seats.get(p).map(|&x| x as f64)),
                );
                v
            })
            .collect();
        let n_measures = 2 + r.measures.len();
        // Per seat, how many cards of each kind reached it.
        let mut by_kind: Vec<Vec<u32>> = vec![vec![0; players]; self.several.len()];
        for &(c, mask) in &r.entered {
            let Some(k) = self.kinds.get(c as usize) else {
                continue;
            };
            if let Some(row) = by_kind.get_mut(*k as usize) {
                for (p, n) in row.iter_mut().enumerate() {
                    if mask & (1u64 << p) != 0 {
                        *n += 1;
                    }
                }
            }
        }
        // Each grouping's groups in this game, with their members.
        let groups: Vec<Vec<(String, Vec<usize>)>> = r
            .groups
            .iter()
            .map(|(_, per_seat)| {
                let mut names: Vec<&String> = per_seat.iter().flatten().collect();
                names.sort();
                names.dedup();
                names
                    .into_iter()
                    .map(|name| {
                        let members = in_game
                            .iter()
                            .copied()
                            .filter(|&p| per_seat.get(p).is_some_and(|gs| gs.contains(name)))
                            .collect::<Vec<usize>>();
                        (name.clone(), members)
                    })
                    .filter(|(_, m)| !m.is_empty())
                    .collect()
            })
            .collect();
        for (k, (c, _)) in self.cards.iter().enumerate() {
            let Some(counts) = self.counts.get_mut(k) else {
                continue;
            };
            let seats = r.entered.iter().find(|(x, _)| x == c).map(|(_, s)| *s);
            if seats.is_some() {
                counts.entered = counts.entered.saturating_add(1);
            }
            let mask = seats.unwrap_or(0);
            let kind = self.kinds.get(*c as usize).copied().unwrap_or(0) as usize;
            // Whom this card is compared with: with other cards of its kind in the game, the
            // seats that got one of them (and not this one); else every other seat.
            let several = self.several.get(kind) == Some(&true);
            let row = by_kind.get(kind);
            let got = |p: usize| mask & (1u64 << p) != 0;
            let other = |p: usize| {
                !several
                    || row
                        .and_then(|r| r.get(p))
                        .is_some_and(|&n| n > u32::from(got(p)))
            };
            let units = 1 + groups.len();
            if counts.units.len() < units {
                counts.units.resize(units, Vec::new());
            }
            for u in counts.units.iter_mut() {
                if u.len() < n_measures {
                    u.resize(n_measures, Split::default());
                }
            }
            // A unit: its members; exposed when one got the card, compared when one got another.
            // A unit: its members; it got the card when one of them did, else it is compared
            // when one got another card of its kind (or, when the kind has no other, always).
            // It wins when the only winner is a member; its other measures are its members'
            // mean. A seat is a unit of one.
            let count = |members: &[usize]| -> Vec<[f64; 4]> {
                let mut sums = vec![[0.0f64; 4]; n_measures];
                let exposed = members.iter().any(|&p| got(p));
                if !exposed && !members.iter().any(|&p| other(p)) {
                    return sums;
                }
                let side = if exposed { 0 } else { 2 };
                for (m, sum) in sums.iter_mut().enumerate() {
                    let vals: Vec<f64> = members
                        .iter()
                        .filter_map(|&p| values.get(p).and_then(|v| v.get(m).copied().flatten()))
                        .collect();
                    if vals.is_empty() {
                        continue;
                    }
                    let v = if m == 0 {
                        f64::from(u8::from(vals.iter().any(|&x| x > 0.0)))
                    } else {
                        vals.iter().sum::<f64>() / vals.len() as f64
                    };
                    sum[side] += v;
                    sum[side + 1] += 1.0;
                }
                sums
            };
            let add_all =
                |splits: &mut Vec<Split>, units: &mut dyn Iterator<Item = Vec<[f64; 4]>>| {
                    let mut total = vec![[0.0f64; 4]; n_measures];
                    for x in units {
                        for (t, x) in total.iter_mut().zip(x) {
                            for i in 0..4 {
                                t[i] += x[i];
                            }
                        }
                    }
                    if splits.len() < n_measures {
                        splits.resize(n_measures, Split::default());
                    }
                    for (s, t) in splits.iter_mut().zip(&total) {
                        s.add(t[0], t[1], t[2], t[3]);
                    }
                };
            // Seats.
            if let Some(splits) = counts.units.get_mut(0) {
                add_all(splits, &mut in_game.iter().map(|&p| count(&[p])));
            }
            // Groups: as units, and each group's seats among themselves.
            if counts.split.len() < groups.len() {
                counts.split.resize(groups.len(), false);
                counts
                    .per_group
                    .resize(groups.len(), std::collections::BTreeMap::new());
            }
            for (g, members_of) in groups.iter().enumerate() {
                if let Some(splits) = counts.units.get_mut(1 + g) {
                    add_all(splits, &mut members_of.iter().map(|(_, m)| count(m)));
                }
                for (name, members) in members_of {
                    let some = members.iter().filter(|&&p| got(p)).count();
                    if some > 0 && some < members.len() {
                        if let Some(x) = counts.split.get_mut(g) {
                            *x = true;
                        }
                    }
                    if let Some(per) = counts.per_group.get_mut(g) {
                        let splits = per.entry(name.clone()).or_default();
                        add_all(splits, &mut members.iter().map(|&p| count(&[p])));
                    }
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
                    Some(n) if *n > 0 => *k as f64 / *n as f64,
                    Some(_) => continue,
                    None => *k as f64,
                };
                if seats.is_some() {
                    split.add(value, 1.0, 0.0, 0.0);
                } else {
                    split.add(0.0, 0.0, value, 1.0);
                }
            }
        }
    }

    /// One line per card and its contrasts, the strongest first.
    /// One line per card of `shown` (by index) and its contrasts, the strongest first. Every
    /// card counted gives its kind's typical contrasts (the median of the kind's cards that
    /// entered play, with three or more), which each card must stand out from too.
    pub fn report(&self, names: &dyn Fn(u32) -> String, shown: &[u32]) -> Vec<CardExposure> {
        let raw: Vec<(u32, &String, &CardCounts, Vec<Contrast>, usize)> = self
            .cards
            .iter()
            .zip(&self.counts)
            .map(|((c, id), counts)| {
                let (contrasts, considered) = self.contrasts(counts);
                (*c, id, counts, contrasts, considered)
            })
            .collect();
        let kind_of = |c: u32| self.kinds.get(c as usize).copied().unwrap_or(0);
        let mut by: std::collections::BTreeMap<(u32, String, String), Vec<f64>> =
            std::collections::BTreeMap::new();
        for (c, _, counts, contrasts, _) in &raw {
            if counts.entered == 0 {
                continue;
            }
            for t in contrasts {
                by.entry((kind_of(*c), t.who.clone(), t.measure.clone()))
                    .or_default()
                    .push(t.difference.value);
            }
        }
        let typical = |c: u32, t: &Contrast| -> Option<f64> {
            let v = by.get(&(kind_of(c), t.who.clone(), t.measure.clone()))?;
            if v.len() < 3 {
                return None;
            }
            let mut v = v.clone();
            v.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
            let n = v.len();
            Some(if n % 2 == 1 {
                v[n / 2]
            } else {
                (v[n / 2 - 1] + v[n / 2]) / 2.0
            })
        };
        let mut out: Vec<CardExposure> = Vec::new();
        for (c, id, counts, mut contrasts, considered) in raw {
            if !shown.contains(&c) {
                continue;
            }
            for t in contrasts.iter_mut() {
                if let Some(m) = typical(c, t) {
                    let se = (t.difference.high - t.difference.low) / (2.0 * Z95);
                    t.typical = Some(m);
                    t.z_typical = Some(if se > 0.0 {
                        (t.difference.value - m).abs() / se
                    } else {
                        0.0
                    });
                }
            }
            out.push(self.card(c, id, counts, &names(c), contrasts, considered));
        }
        out.sort_by(|a, b| {
            b.strength
                .partial_cmp(&a.strength)
                .unwrap_or(std::cmp::Ordering::Equal)
                .then_with(|| a.card.cmp(&b.card))
        });
        out
    }

    /// A card's contrasts, and how many were looked at (kept or not).
    fn contrasts(&self, counts: &CardCounts) -> (Vec<Contrast>, usize) {
        let mut contrasts = Vec::new();
        // Every contrast looked at, kept or not (too few games): the verdict's bar counts them.
        let mut considered = 0usize;
        let measure_of = |m: usize| match m {
            0 => Some(("win rate".to_string(), true)),
            1 => Some(("mean score".to_string(), false)),
            _ => self
                .measures
                .get(m - 2)
                .map(|(n, b)| (n.replace('_', " "), *b)),
        };
        for (u, splits) in counts.units.iter().enumerate() {
            if u > 0 && counts.split.get(u - 1) == Some(&true) {
                // Its groups were split: each group's seats among themselves.
                let grouping = self.groupings.get(u - 1).cloned().unwrap_or_default();
                for (name, splits) in counts.per_group.get(u - 1).into_iter().flatten() {
                    for (m, split) in splits.iter().enumerate() {
                        if let Some((measure, rate)) = measure_of(m) {
                            let who = format!("{grouping} {name}");
                            considered += 1;
                            contrasts.extend(contrast(&who, &measure, rate, split));
                        }
                    }
                }
                continue;
            }
            let who = if u == 0 {
                "seat".to_string()
            } else {
                self.groupings.get(u - 1).cloned().unwrap_or_default()
            };
            for (m, split) in splits.iter().enumerate() {
                if let Some((measure, rate)) = measure_of(m) {
                    considered += 1;
                    contrasts.extend(contrast(&who, &measure, rate, split));
                }
            }
        }
        for (f, split) in counts.figures.iter().enumerate() {
            let name = self.figures.get(f).cloned().unwrap_or_default();
            considered += 1;
            contrasts.extend(contrast("game", &name.replace('_', " "), false, split));
        }
        // A contrast that is another's over again (a measure of the faction read for each of
        // its roles: the same seats, the same games) is one test, not two: the bar counts it once.
        let same = |a: &Contrast, b: &Contrast| {
            a.measure == b.measure
                && (a.n_with, a.n_without) == (b.n_with, b.n_without)
                && a.with.value.to_bits() == b.with.value.to_bits()
                && a.without.value.to_bits() == b.without.value.to_bits()
                && a.difference.low.to_bits() == b.difference.low.to_bits()
                && a.difference.high.to_bits() == b.difference.high.to_bits()
        };
        let repeats = (0..contrasts.len())
            .filter(|&i| {
                contrasts
                    .get(i)
                    .is_some_and(|c| contrasts.get(..i).unwrap_or(&[]).iter().any(|d| same(c, d)))
            })
            .count();
        (contrasts, considered.saturating_sub(repeats).max(1))
    }

    fn card(
        &self,
        c: u32,
        id: &str,
        counts: &CardCounts,
        name: &str,
        mut contrasts: Vec<Contrast>,
        considered: usize,
    ) -> CardExposure {
        let kind = self.kinds.get(c as usize).copied().unwrap_or(0) as usize;
        let against_kind = self.several.get(kind) == Some(&true);
        // A contrast counts as far as it stands out both from 0 and from its kind's typical.
        let key = |t: &Contrast| t.z.min(t.z_typical.unwrap_or(t.z));
        contrasts.sort_by(|a, b| {
            key(b)
                .partial_cmp(&key(a))
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        // A seat's contrast that a group's matches (the faction's members all got it) reads
        // better as the group's: "the faction that gets it".
        if let Some(first) = contrasts.first() {
            if first.who == "seat" {
                let (m, z) = (first.measure.clone(), key(first));
                if let Some(i) = contrasts.iter().position(|c| {
                    c.who != "seat" && c.who != "game" && c.measure == m && key(c) >= 0.99 * z
                }) {
                    let g = contrasts.remove(i);
                    contrasts.insert(0, g);
                }
            }
        }
        let top = contrasts.first();
        let strength = top.map(key).unwrap_or(0.0);
        // The verdict reads the strongest of the card's contrasts: it is significant only past
        // what the strongest of that many (every one looked at) would reach by chance one time in
        // twenty.
        let bar = super::stats::bonferroni_z(considered);
        let significant = strength >= bar;
        let verdict = verdict(name, id, counts.entered, self.games, top, significant);
        CardExposure {
            card: id.to_string(),
            name: name.to_string(),
            entered: counts.entered,
            games: self.games,
            against_kind,
            significant,
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
    /// Whether it is compared with the seats and groups that got another card of its kind (the
    /// game has several), rather than with every other.
    pub against_kind: bool,
    /// Whether the strongest contrast is significant over all the card's contrasts (its
    /// distance from 0 in standard errors past the Bonferroni bar for that many: 2.94 for 15).
    pub significant: bool,
    /// How far the strongest contrast lies from 0 and from its kind's typical (the nearer of
    /// the two), in standard errors (0 when none).
    pub strength: f64,
    pub verdict: String,
    pub contrasts: Vec<Contrast>,
}

/// One contrast: a measure where the unit got the card against where it did not.
#[derive(Debug, Serialize)]
pub struct Contrast {
    /// `seat`, a grouping (`faction`), or `game` for the game's figures.
    pub who: String,
    /// `win rate`, `mean score`, a measure's or a figure's words.
    pub measure: String,
    /// Whether the measure is a rate (a win, a yes/no measure), shown in per cent.
    pub rate: bool,
    /// Units (seats, groups or games) with the card, and without.
    pub n_with: u64,
    pub n_without: u64,
    pub with: Interval,
    pub without: Interval,
    /// With minus without, with its 95% interval.
    pub difference: Interval,
    /// Whether that interval excludes 0 (this contrast alone; the card's verdict asks more).
    pub significant: bool,
    /// |difference| over its standard error.
    pub z: f64,
    /// The median difference of the same contrast over the cards of its kind that entered play
    /// (three or more), and how far this one lies from it in standard errors (`null` without).
    pub typical: Option<f64>,
    pub z_typical: Option<f64>,
}

/// Games each side needs before a contrast counts: the intervals come from the games' own
/// spread, which a handful of games does not tell.
pub const MIN_GAMES: u64 = 10;

/// A measure with the card against without, with 95% intervals (normal, cluster-robust);
/// `None` with fewer than `MIN_GAMES` games on a side.
fn contrast(who: &str, measure: &str, rate: bool, s: &Split) -> Option<Contrast> {
    if s.games_with < MIN_GAMES || s.games_without < MIN_GAMES {
        return None;
    }
    let (mw, mu, mut vw, mut vu, mut vd) = s.estimate()?;
    if rate {
        // A rate's spread is at least a binomial one (Agresti and Coull's two successes and two
        // failures added): a side that never won in a few dozen units is not known exactly.
        let floor = |y: f64, n: f64| {
            let p = (y + 2.0) / (n + 4.0);
            p * (1.0 - p) / n.max(1.0)
        };
        let (fw, fu) = (floor(s.yw, s.nw), floor(s.yu, s.nu));
        vw = vw.max(fw);
        vu = vu.max(fu);
        vd = vd.max(fw + fu);
    }
    let at = |m: f64, v: f64| Interval {
        value: m,
        low: m - Z95 * v.sqrt(),
        high: m + Z95 * v.sqrt(),
    };
    let d = at(mw - mu, vd);
    let half = Z95 * vd.sqrt();
    let significant = d.low > 0.0 || d.high < 0.0;
    let z = if half > 0.0 {
        d.value.abs() / half * Z95
    } else {
        0.0
    };
    Some(Contrast {
        who: who.to_string(),
        measure: measure.to_string(),
        rate,
        n_with: s.nw as u64,
        n_without: s.nu as u64,
        with: at(mw, vw),
        without: at(mu, vu),
        difference: d,
        significant,
        z,
        typical: None,
        z_typical: None,
    })
}

/// The card's verdict in one line: "Comet Strike: the faction that faces it wins 54% (50-58%)
/// vs 33%: strong".
fn verdict(
    name: &str,
    id: &str,
    entered: u64,
    games: u64,
    top: Option<&Contrast>,
    significant: bool,
) -> String {
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
            "{label}: entered play in {entered} of {games} games: too few to tell (a comparison needs {MIN_GAMES} games with the card and {MIN_GAMES} with another card, or without it)"
        );
    };
    let strength = if !significant {
        "no clear effect"
    } else if (t.rate && (t.difference.value - t.typical.unwrap_or(0.0)).abs() >= 0.10)
        || t.z.min(t.z_typical.unwrap_or(t.z)) >= 5.0
    {
        "strong"
    } else {
        "significant"
    };
    let subject = match t.who.split_once(' ') {
        // A group's seats among themselves: "the ScienceOfficer who gets it".
        Some((_, group)) => format!("the {group} who gets it"),
        None => match t.who.as_str() {
            "seat" => "the seat that gets it".to_string(),
            "game" => "games it enters play in".to_string(),
            g => format!("the {g} that gets it"),
        },
    };
    let what = if t.rate {
        let verb = if t.measure == "win rate" {
            "wins".to_string()
        } else {
            format!("is {}", t.measure)
        };
        format!(
            "{verb} {} ({}-{}) vs {}",
            pc(t.with.value),
            pc(t.with.low.max(0.0)),
            pc(t.with.high.min(1.0)),
            pc(t.without.value)
        )
    } else {
        let m = if t.measure == "mean score" {
            "scores".to_string()
        } else if t.who == "game" {
            format!("have {}", t.measure)
        } else {
            format!("has {}", t.measure)
        };
        format!(
            "{m} {:.2} ({:.2}-{:.2}) vs {:.2}",
            t.with.value, t.with.low, t.with.high, t.without.value
        )
    };
    let typical = match t.typical {
        Some(m) if t.rate => format!(", a typical card of its kind {:+.1} points", m * 100.0),
        Some(m) => format!(", a typical card of its kind {m:+.2}"),
        None => String::new(),
    };
    format!(
        "{label}: {subject} {what}{typical}: {strength} (entered play in {entered} of {games} games)"
    )
}

fn pc(x: f64) -> String {
    format!("{:.0}%", x * 100.0)
}
