//! The few statistics a balance report needs, in integers and plain floats (report values
//! only: nothing here feeds back into a game).

/// The normal quantile of a two-sided 95% interval.
pub const Z95: f64 = 1.959_963_984_540_054;

/// The mean of `xs` with its 95% interval (Student's t with n - 1 degrees of freedom, so a
/// handful of values, such as the seeds of a slow match, is not given too narrow an
/// interval), as (mean, low, high); `None` for fewer than two values.
pub fn mean_interval(xs: &[f64]) -> Option<(f64, f64, f64)> {
    if xs.len() < 2 {
        return None;
    }
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0);
    let half = t95(xs.len() - 1) * (var / n).sqrt();
    Some((mean, mean - half, mean + half))
}

/// Student's t quantile of a two-sided 95% interval with `df` degrees of freedom: the
/// published values up to 30, then the Cornish-Fisher expansion around `Z95` (within 1e-4 of
/// the exact value from 30 on), which tends to `Z95`.
pub fn t95(df: usize) -> f64 {
    const TABLE: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    if let Some(t) = df.checked_sub(1).and_then(|i| TABLE.get(i)) {
        return *t;
    }
    let (z, d) = (Z95, df.max(1) as f64);
    let (z3, z5) = (z.powi(3), z.powi(5));
    z + (z3 + z) / (4.0 * d) + (5.0 * z5 + 16.0 * z3 + 3.0 * z) / (96.0 * d * d)
}

/// The standard normal quantile: `z` with P(Z < z) = p, for 0 < p < 1 (Acklam's rational
/// approximation, relative error under 1.2e-9; the ends give +-infinity).
pub fn normal_quantile(p: f64) -> f64 {
    if p <= 0.0 {
        return f64::NEG_INFINITY;
    }
    if p >= 1.0 {
        return f64::INFINITY;
    }
    const A: [f64; 6] = [
        -3.969_683_028_665_376e1,
        2.209_460_984_245_205e2,
        -2.759_285_104_469_687e2,
        1.383_577_518_672_69e2,
        -3.066_479_806_614_716e1,
        2.506_628_277_459_239,
    ];
    const B: [f64; 5] = [
        -5.447_609_879_822_406e1,
        1.615_858_368_580_409e2,
        -1.556_989_798_598_866e2,
        6.680_131_188_771_972e1,
        -1.328_068_155_288_572e1,
    ];
    const C: [f64; 6] = [
        -7.784_894_002_430_293e-3,
        -3.223_964_580_411_365e-1,
        -2.400_758_277_161_838,
        -2.549_732_539_343_734,
        4.374_664_141_464_968,
        2.938_163_982_698_783,
    ];
    const D: [f64; 4] = [
        7.784_695_709_041_462e-3,
        3.224_671_290_700_398e-1,
        2.445_134_137_142_996,
        3.754_408_661_907_416,
    ];
    let tail = |q: f64| {
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    if p < 0.024_25 {
        tail((-2.0 * p.ln()).sqrt())
    } else if p > 1.0 - 0.024_25 {
        -tail((-2.0 * (1.0 - p).ln()).sqrt())
    } else {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    }
}

/// How far from 0, in standard errors, the largest of `m` two-sided comparisons must lie to be
/// significant at 95% over all of them (Bonferroni): 1.96 for one, 2.94 for fifteen.
pub fn bonferroni_z(m: usize) -> f64 {
    normal_quantile(1.0 - 0.025 / m.max(1) as f64)
}

/// Wilson score interval (95%, z = 1.96) for `k` successes in `n` trials, as (low, high).
pub fn wilson(k: u64, n: u64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let z = Z95;
    let (k, n) = (k as f64, n as f64);
    let p = k / n;
    let z2 = z * z;
    let denom = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denom;
    let half = z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / denom;
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// The `q`-th percentile (0..=100) of sorted values, nearest rank.
pub fn percentile(sorted: &[i64], q: u32) -> i64 {
    if sorted.is_empty() {
        return 0;
    }
    let n = sorted.len();
    let rank = (u64::from(q.min(100)) * n as u64).div_ceil(100).max(1) as usize;
    sorted.get(rank.min(n) - 1).copied().unwrap_or(0)
}

/// Mean and (population) standard deviation.
pub fn mean_sd(values: &[i64]) -> (f64, f64) {
    if values.is_empty() {
        return (0.0, 0.0);
    }
    let n = values.len() as f64;
    let mean = values.iter().map(|&v| v as f64).sum::<f64>() / n;
    let var = values
        .iter()
        .map(|&v| (v as f64 - mean).powi(2))
        .sum::<f64>()
        / n;
    (mean, var.sqrt())
}

#[cfg(test)]
mod quantile_tests {
    use super::*;

    #[test]
    fn the_normal_quantile_gives_the_familiar_values() {
        assert!((normal_quantile(0.975) - Z95).abs() < 1e-6);
        assert!((normal_quantile(0.5)).abs() < 1e-9);
        assert!((normal_quantile(0.005) + 2.575_829).abs() < 1e-5);
        assert!((bonferroni_z(15) - 2.935_199).abs() < 1e-4);
    }

    #[test]
    fn the_t_quantile_gives_the_published_values_and_tends_to_the_normal() {
        // Published two-sided 95% values.
        for (df, t) in [
            (1, 12.706),
            (9, 2.262),
            (30, 2.042),
            (40, 2.021),
            (60, 2.000),
        ] {
            assert!(
                (t95(df) - t).abs() < 1e-3,
                "df {df}: {} against {t}",
                t95(df)
            );
        }
        assert!((t95(120) - 1.980).abs() < 1e-3);
        assert!(t95(100_000) > Z95 && t95(100_000) - Z95 < 1e-4);
        // A mean over 10 values: the half-width is t95(9) standard errors.
        let xs = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0];
        let (m, lo, hi) = mean_interval(&xs).expect("ten values");
        let se = (9.166_666_666_666_666f64 / 10.0).sqrt();
        assert!((m - 5.5).abs() < 1e-12);
        assert!(((hi - lo) / 2.0 - t95(9) * se).abs() < 1e-9);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_matches_published_values() {
        // Newcombe (1998), table I: 81 of 263 -> 0.2553 to 0.3662.
        let (lo, hi) = wilson(81, 263);
        assert!(
            (lo - 0.2553).abs() < 5e-4 && (hi - 0.3662).abs() < 5e-4,
            "{lo} {hi}"
        );
        // 0 of 10 -> 0 to 0.2775.
        let (lo, hi) = wilson(0, 10);
        assert!(lo == 0.0 && (hi - 0.2775).abs() < 5e-4, "{hi}");
        // 15 of 148 -> 0.0624 to 0.1605.
        let (lo, hi) = wilson(15, 148);
        assert!(
            (lo - 0.0624).abs() < 5e-4 && (hi - 0.1605).abs() < 5e-4,
            "{lo} {hi}"
        );
    }

    #[test]
    fn percentiles_by_nearest_rank() {
        let v = [15, 20, 35, 40, 50];
        assert_eq!(percentile(&v, 5), 15);
        assert_eq!(percentile(&v, 30), 20);
        assert_eq!(percentile(&v, 40), 20);
        assert_eq!(percentile(&v, 50), 35);
        assert_eq!(percentile(&v, 100), 50);
        assert_eq!(mean_sd(&[2, 4, 4, 4, 5, 5, 7, 9]), (5.0, 2.0));
    }
}
