//! The game's bot as a search's prior. Where a bot drives a search's playouts (`playouts:` in
//! the game block, or `mc:N/bot:NAME`, `ismcts:N/bot:NAME`), the bot's own answer at the choice
//! searched is the answer the search starts from, and another option replaces it only when the
//! playouts show that option better with confidence: paired on the same copies (common random
//! numbers), its mean gain over the bot's answer more than a two-sided 95% Student t bound of
//! that gain's standard error (with a pseudo-copy at each end of the gains, so that a few
//! copies that happen to agree cannot look certain), the bar raised for the number of options the best was picked
//! among (Bonferroni).
//!
//! Why: a search with a budget of ten playouts per option picks the best of noisy means, and
//! among many options that differ little to the seat (the amounts of an allocation line, plans
//! a Leader is indifferent between) the best mean is mostly noise. In Hegemony that noise
//! spent the bank in the Reaction phase, so the crisis that follows found it empty; the bot
//! keeps steel for the crisis. A search that keeps the bot's answer until the playouts tell
//! another apart plays at least as the bot does and departs from it where it sees why.
//!
//! A comparison looks at the reward first (the search's own: the win share for `mc`, the win
//! and the share of players outscored for `ismcts`) and at the score where the rewards cannot
//! be told apart.

/// One copy played with both options: the gains of the search's pick over the bot's answer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pair {
    /// The copy's weight (`interp::Played::weight`).
    pub weight: f64,
    /// The pick's reward less the bot's answer's.
    pub reward: f64,
    /// The pick's score less the bot's answer's (0 where either has none).
    pub score: f64,
}

/// The fewest copies (effective, by weight) on which a pick may replace the bot's answer.
pub const MIN_PAIRS: f64 = 3.0;

/// The answer a search gives: `best` (its best mean) where there is no prior or it is the
/// prior, else the bot's answer `favourite` unless `best` is `clearly_better` on the copies
/// both played (`pairs`, worked out only then), `count` the options; `stats` counts which.
pub fn settle(
    best: usize,
    favourite: Option<usize>,
    count: usize,
    pairs: impl FnOnce(usize, usize) -> Vec<Pair>,
    stats: &mut crate::interp::SearchStats,
) -> usize {
    match favourite {
        Some(f) if f < count && best != f => {
            if clearly_better(&pairs(best, f), count - 1) {
                stats.beat_bot = 1;
                best
            } else {
                stats.kept_bot = 1;
                f
            }
        }
        _ => best,
    }
}

/// Whether the pick, the best of `rivals` options other than the bot's answer, beats the bot's
/// answer on `pairs` with confidence: by reward, else (the rewards not told apart, and not
/// worse) by score.
pub fn clearly_better(pairs: &[Pair], rivals: usize) -> bool {
    // A reward is in 0..=1, so a gain in -1..=1; a score's reach is the largest gain seen.
    let reward = gain(pairs, |p| p.reward, 1.0);
    let reach = pairs
        .iter()
        .filter(|p| p.weight > 0.0 && p.weight.is_finite())
        .fold(0.0f64, |m, p| m.max(p.score.abs()));
    let score = gain(pairs, |p| p.score, reach);
    match (reward, score) {
        (Some(r), _) if r.sure(rivals) => true,
        (Some(r), Some(s)) => r.mean >= 0.0 && s.sure(rivals),
        _ => false,
    }
}

/// A weighted mean gain and its standard error, over `n` effective copies.
#[derive(Debug, Clone, Copy)]
struct Gain {
    mean: f64,
    se: f64,
    n: f64,
}

impl Gain {
    /// Above zero by more than the bar for the best of `rivals`, in standard errors.
    fn sure(&self, rivals: usize) -> bool {
        self.mean > 0.0 && self.mean > bar(self.n, rivals) * self.se
    }
}

/// The weighted mean gain of `f` over `pairs`, and its standard error, with two pseudo-copies
/// added at `-reach` and `+reach` (each of the copies' mean weight): a handful of copies that
/// happen to agree cannot look certain (as the Agresti-Caffo interval adds pseudo-counts), and
/// their pull fades as copies come in.
fn gain(pairs: &[Pair], f: impl Fn(&Pair) -> f64, reach: f64) -> Option<Gain> {
    let real = || {
        pairs
            .iter()
            .filter(|p| p.weight > 0.0 && p.weight.is_finite())
            .map(|p| (p.weight, f(p)))
    };
    let (mut w, mut w2, mut k) = (0.0f64, 0.0f64, 0usize);
    for (pw, _) in real() {
        w += pw;
        w2 += pw * pw;
        k += 1;
    }
    if k == 0 || w2 <= 0.0 || w * w / w2 < MIN_PAIRS {
        return None;
    }
    let pseudo = w / k as f64;
    let all = || real().chain([(pseudo, -reach), (pseudo, reach)]);
    let (mut tw, mut tw2, mut sum) = (0.0f64, 0.0f64, 0.0f64);
    for (pw, d) in all() {
        tw += pw;
        tw2 += pw * pw;
        sum += pw * d;
    }
    let n = tw * tw / tw2;
    let mean = sum / tw;
    let var: f64 = all().map(|(pw, d)| pw * pw * (d - mean) * (d - mean)).sum();
    // The weighted mean's variance, with n / (n - 1) for the sample's own mean.
    let se = (var / (tw * tw) * n / (n - 1.0)).sqrt();
    if !mean.is_finite() || !se.is_finite() {
        return None;
    }
    Some(Gain { mean, se, n })
}

/// The bar a mean gain over `n` copies must clear, in standard errors: Student's t at a one-sided
/// 2.5% split over the `rivals` options that could have been the best (Bonferroni), since the
/// option compared is the best of them and the best of many noisy means is high by chance.
fn bar(n: f64, rivals: usize) -> f64 {
    let df = (n - 1.0).floor();
    // NaN (no copies) as well as fewer than two.
    if df.is_nan() || df < 1.0 {
        return f64::INFINITY;
    }
    let p = 0.025 / rivals.max(1) as f64;
    t_quantile(p, df)
}

/// The upper `p` quantile of Student's t with `df` degrees of freedom: the normal's (Abramowitz
/// and Stegun 26.2.23, within 4.5e-4), widened for the degrees of freedom (Cornish-Fisher, 26.7.5).
fn t_quantile(p: f64, df: f64) -> f64 {
    let p = p.clamp(1e-12, 0.5);
    let t = (-2.0 * p.ln()).sqrt();
    let z = t
        - (2.515517 + 0.802853 * t + 0.010328 * t * t)
            / (1.0 + 1.432788 * t + 0.189269 * t * t + 0.001308 * t * t * t);
    let (z3, z5, z7) = (z.powi(3), z.powi(5), z.powi(7));
    z + (z3 + z) / (4.0 * df)
        + (5.0 * z5 + 16.0 * z3 + 3.0 * z) / (96.0 * df * df)
        + (3.0 * z7 + 19.0 * z5 + 17.0 * z3 - 15.0 * z) / (384.0 * df * df * df)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(gains: &[(f64, f64)]) -> Vec<Pair> {
        gains
            .iter()
            .map(|&(reward, score)| Pair {
                weight: 1.0,
                reward,
                score,
            })
            .collect()
    }

    /// Copies with these reward gains and no score gain.
    fn rewards(gains: &[f64]) -> Vec<Pair> {
        let g: Vec<(f64, f64)> = gains.iter().map(|&r| (r, 0.0)).collect();
        pairs(&g)
    }

    #[test]
    fn a_steady_gain_replaces_the_bot() {
        assert!(clearly_better(&pairs(&[(1.0, 3.0); 10]), 1));
        assert!(clearly_better(
            &pairs(&[
                (1.0, 0.0),
                (1.0, 0.0),
                (0.0, 0.0),
                (1.0, 0.0),
                (1.0, 0.0),
                (1.0, 0.0),
                (1.0, 0.0),
                (1.0, 0.0),
            ]),
            1
        ));
    }

    #[test]
    fn noise_keeps_the_bot() {
        // Mean gain 0.2 over ten copies that disagree: not told apart.
        let g = [1.0, -1.0, 1.0, 0.0, 1.0, -1.0, 0.0, 1.0, 0.0, 0.0];
        let ps = rewards(&g);
        assert!(!clearly_better(&ps, 1));
    }

    #[test]
    fn a_few_copies_that_agree_by_chance_keep_the_bot() {
        // Six wins and four draws of ten against the bot's answer, picked as the best of eight:
        // 3.7 standard errors without the pseudo-copies, past the bar of 3.5; 2.6 with them.
        let g = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0];
        let ps = rewards(&g);
        assert!(!clearly_better(&ps, 8));
    }

    #[test]
    fn too_few_copies_keep_the_bot() {
        assert!(!clearly_better(&pairs(&[(1.0, 5.0), (1.0, 5.0)]), 1));
        assert!(!clearly_better(&[], 1));
    }

    #[test]
    fn the_score_decides_where_rewards_tie() {
        // A seat that never wins in the playouts: the score tells.
        let gains = [(0.0, 4.0), (0.0, 5.0), (0.0, 3.0), (0.0, 4.0)].repeat(2);
        assert!(clearly_better(&pairs(&gains), 1));
        // But not when the reward is worse on average.
        let mut ps = pairs(&gains);
        ps[0].reward = -1.0;
        assert!(!clearly_better(&ps, 1));
    }

    #[test]
    fn the_bar_is_student_t_raised_for_the_rivals() {
        // t(0.025, 9) = 2.262, t(0.025, 4) = 2.776, z(0.025) = 1.960, t(0.025 / 15, 9) = 3.954.
        assert!((t_quantile(0.025, 9.0) - 2.262).abs() < 0.01);
        assert!((t_quantile(0.025, 4.0) - 2.776).abs() < 0.01);
        assert!((t_quantile(0.025, 1e9) - 1.960).abs() < 0.001);
        assert!((bar(10.0, 15) - 3.954).abs() < 0.02);
        assert_eq!(bar(1.0, 1), f64::INFINITY);
        // The best of many must clear more: a gain that beats one rival does not beat fifteen.
        // Mean 0.7 over ten copies (0.58 with the two pseudo-copies), 2.5 standard errors.
        let g = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, -1.0];
        let ps = rewards(&g);
        assert!(clearly_better(&ps, 1));
        assert!(!clearly_better(&ps, 15));
    }

    #[test]
    fn weights_count_copies_by_their_share() {
        // One copy carries nearly all the weight: too few effective copies.
        let mut ps = pairs(&[(1.0, 1.0); 8]);
        ps[0].weight = 1000.0;
        assert!(!clearly_better(&ps, 1));
        // Weights that are not numbers count for nothing.
        ps[0].weight = f64::NAN;
        assert!(clearly_better(&ps, 1));
    }
}
