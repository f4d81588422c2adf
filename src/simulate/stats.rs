//! The few statistics a balance report needs, in integers and plain floats (report values
//! only: nothing here feeds back into a game).

/// The normal quantile of a two-sided 95% interval.
pub const Z95: f64 = 1.959_963_984_540_054;

/// The mean of `xs` with its 95% interval (normal approximation), as (mean, low, high); `None`
/// for fewer than two values.
pub fn mean_interval(xs: &[f64]) -> Option<(f64, f64, f64)> {
    if xs.len() < 2 {
        return None;
    }
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0);
    let half = Z95 * (var / n).sqrt();
    Some((mean, mean - half, mean + half))
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
