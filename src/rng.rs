//! Portable seeded randomness: our own bounded draw and shuffle on `ChaCha8Rng::next_u32`,
//! so a seed gives the same game whatever version of `rand` is linked.

use rand::RngCore;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

pub fn new_rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

/// A uniform integer in `0..n` (n > 0), by rejection sampling on 32-bit draws.
pub fn below(rng: &mut ChaCha8Rng, n: u32) -> u32 {
    if n <= 1 {
        return 0;
    }
    // Largest multiple of n that fits in u32 space; reject draws above it.
    let zone = u32::MAX - (u32::MAX % n);
    loop {
        let x = rng.next_u32();
        if x < zone {
            return x % n;
        }
    }
}

/// A 64-bit draw from two 32-bit ones (the seed of a derived stream).
pub fn draw_u64(rng: &mut ChaCha8Rng) -> u64 {
    (u64::from(rng.next_u32()) << 32) | u64::from(rng.next_u32())
}

/// A uniform integer in `0..n` (n > 0) of up to 128 bits, by rejection sampling on four
/// 32-bit draws (`below` when `n` fits in 32 bits, so small draws match it).
pub fn below_u128(rng: &mut ChaCha8Rng, n: u128) -> u128 {
    if n <= 1 {
        return 0;
    }
    if let Ok(small) = u32::try_from(n) {
        return u128::from(below(rng, small));
    }
    let zone = u128::MAX - (u128::MAX % n);
    loop {
        let mut x: u128 = 0;
        for _ in 0..4 {
            x = (x << 32) | u128::from(rng.next_u32());
        }
        if x < zone {
            return x % n;
        }
    }
}

/// The ways to split `total` among `lines` lines (each 0 or more): C(total + lines - 1,
/// lines - 1), or `None` past `u128`.
pub fn splits(total: u64, lines: u64) -> Option<u128> {
    if lines == 0 {
        return Some(u128::from(total == 0));
    }
    // The same steps in 64 bits while they fit (a division of 128 bits is a call, of 64 one
    // instruction): the common case, a few lines and a total in the tens.
    if let Some(c) = splits_u64(total, lines) {
        return Some(u128::from(c));
    }
    let n = u128::from(total) + u128::from(lines) - 1;
    let k = u128::from((lines - 1).min(total));
    // C(n, k), one exact step at a time: after step i it is C(n - k + i, i).
    let mut c: u128 = 1;
    for i in 1..=k {
        c = c.checked_mul(n - k + i)? / i;
    }
    Some(c)
}

/// `split_first`'s walk over the amounts in 64 bits: `u` drawn below the count, `w` the weight
/// of amount 0, `j` the lines after the first less one.
fn first_line_u64(mut u: u64, mut w: u64, total: u64, j: u64) -> u64 {
    for a in 0..total {
        if u < w {
            return a;
        }
        u -= w;
        // total - a >= 1 here, so m > j >= 0 and m >= 1.
        let m = (total - a).saturating_add(j);
        let q = m - j;
        w = match w.checked_mul(q) {
            Some(x) => x / m,
            None => (u128::from(w) * u128::from(q) / u128::from(m)) as u64,
        };
    }
    total
}

/// `splits` (lines > 0) in 64 bits: `None` where a step would not fit, and then `splits` does
/// them all again in 128. Each step is the same exact division, so the count is the same.
fn splits_u64(total: u64, lines: u64) -> Option<u64> {
    let n = total.checked_add(lines - 1)?;
    let k = (lines - 1).min(total);
    let mut c: u64 = 1;
    for i in 1..=k {
        c = c.checked_mul(n - k + i)? / i;
    }
    Some(c)
}

/// How much the first of `lines` lines takes when `total` is split uniformly over every way to
/// split it (each line 0 or more): amount `a` comes with the weight of the ways to split the rest
/// among the other lines, `splits(total - a, lines - 1)`, counted exactly. Where the counts
/// pass `u128` the same law is drawn slot by slot instead: the split is a uniform choice of
/// `lines - 1` bars among `total + lines - 1` slots, and the first line takes the slots before
/// the first bar.
pub fn split_first(rng: &mut ChaCha8Rng, total: u64, lines: u64) -> u64 {
    if lines <= 1 || total == 0 {
        return if lines == 1 { total } else { 0 };
    }
    if let Some(all) = splits(total, lines) {
        // w(a) = C(total - a + lines - 2, lines - 2), from w(0) down: C(m - 1, j) = C(m, j) (m - j) / m.
        let j = u128::from(lines - 2);
        let mut w = splits(total, lines - 1);
        let mut u = below_u128(rng, all);
        // The same walk in 64 bits when the count fits (every weight is at most the count):
        // the same numbers, a product that outgrows 64 bits worked out in 128.
        if let (Ok(u64_u), Some(Ok(w64))) = (u64::try_from(u), w.map(u64::try_from)) {
            return first_line_u64(u64_u, w64, total, lines - 2);
        }
        for a in 0..total {
            let Some(wa) = w else { break };
            if u < wa {
                return a;
            }
            u -= wa;
            let m = u128::from(total - a) + j;
            w = wa.checked_mul(m - j).map(|x| x / m);
        }
        if w.is_some() {
            return total;
        }
    }
    // Slot by slot: slot i (of those left) is a bar with probability bars / slots left.
    let bars = lines - 1;
    let mut slots = total.saturating_add(bars);
    let mut taken = 0;
    while taken < total {
        let bar = if slots <= u64::from(u32::MAX) {
            u64::from(below(rng, slots as u32)) < bars
        } else {
            (below_u128(rng, u128::from(slots)) as u64) < bars
        };
        if bar {
            break;
        }
        taken += 1;
        slots -= 1;
    }
    taken
}

/// Fisher–Yates, from the end.
pub fn shuffle<T>(rng: &mut ChaCha8Rng, items: &mut [T]) {
    let len = items.len();
    if len < 2 {
        return;
    }
    for i in (1..len).rev() {
        let j = below(rng, (i + 1) as u32) as usize;
        items.swap(i, j);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn below_stays_in_range_and_is_deterministic() {
        let mut a = new_rng(7);
        let mut b = new_rng(7);
        for n in 1..50u32 {
            let x = below(&mut a, n);
            assert!(x < n);
            assert_eq!(x, below(&mut b, n));
        }
    }

    /// Each way to split is equally likely: the chance of a split, the product of each line's
    /// weight over its total, is exactly 1 / splits for every split (checked in integers).
    #[test]
    fn split_weights_make_every_split_equally_likely() {
        fn all(total: u64, lines: u64) -> Vec<Vec<u64>> {
            if lines == 1 {
                return vec![vec![total]];
            }
            (0..=total)
                .flat_map(|a| {
                    all(total - a, lines - 1).into_iter().map(move |mut rest| {
                        rest.insert(0, a);
                        rest
                    })
                })
                .collect()
        }
        for total in 0..7u64 {
            for lines in 1..5u64 {
                let ways = all(total, lines);
                assert_eq!(Some(ways.len() as u128), splits(total, lines));
                for w in &ways {
                    // P = prod over lines of splits(rest after, lines after) / splits(rest, lines).
                    let (mut num, mut den) = (1u128, 1u128);
                    let mut left = total;
                    for (i, &a) in w.iter().enumerate() {
                        let after = lines - i as u64;
                        if after == 1 {
                            break;
                        }
                        num *= splits(left - a, after - 1).expect("small");
                        den *= splits(left, after).expect("small");
                        left -= a;
                    }
                    assert_eq!(num * ways.len() as u128, den, "{w:?}");
                }
            }
        }
        assert_eq!(splits(100_000, 2), Some(100_001));
        assert_eq!(splits(100_000, 60), None);
    }

    /// The walk and the count in 64 bits give what the 128-bit ones give, draw for draw: counts
    /// past 64 bits (1,000 in 9 lines, 5,000 in 7) go the 128-bit way, and 200 in 12 has
    /// products past 64 bits in the walk.
    #[test]
    fn the_64_bit_paths_draw_as_the_128_bit_ones() {
        fn splits_128(total: u64, lines: u64) -> Option<u128> {
            if lines == 0 {
                return Some(u128::from(total == 0));
            }
            let n = u128::from(total) + u128::from(lines) - 1;
            let k = u128::from((lines - 1).min(total));
            let mut c: u128 = 1;
            for i in 1..=k {
                c = c.checked_mul(n - k + i)? / i;
            }
            Some(c)
        }
        fn first_128(rng: &mut ChaCha8Rng, total: u64, lines: u64) -> Option<u64> {
            let all = splits_128(total, lines)?;
            let j = u128::from(lines - 2);
            let mut w = splits_128(total, lines - 1);
            let mut u = below_u128(rng, all);
            for a in 0..total {
                let Some(wa) = w else { break };
                if u < wa {
                    return Some(a);
                }
                u -= wa;
                let m = u128::from(total - a) + j;
                w = wa.checked_mul(m - j).map(|x| x / m);
            }
            w.map(|_| total)
        }
        let cases = [
            (1, 2),
            (5, 3),
            (15, 7),
            (60, 8),
            (200, 12),
            (1_000, 9),
            (5_000, 7),
            (40, 30),
            (100_000, 4),
        ];
        for (total, lines) in cases {
            assert_eq!(
                splits(total, lines),
                splits_128(total, lines),
                "{total} {lines}"
            );
            for seed in 0..40 {
                let (mut a, mut b) = (new_rng(seed), new_rng(seed));
                let want = first_128(&mut b, total, lines);
                let got = split_first(&mut a, total, lines);
                if let Some(w) = want {
                    assert_eq!(got, w, "{total} {lines} seed {seed}");
                    assert_eq!(a.get_word_pos(), b.get_word_pos());
                }
            }
        }
    }

    /// Drawn, the splits come out uniformly, by counting and slot by slot alike.
    #[test]
    fn split_draws_are_uniform_and_deterministic() {
        let mut rng = new_rng(5);
        let mut seen = std::collections::BTreeMap::new();
        let n = 20_000;
        for _ in 0..n {
            let a = split_first(&mut rng, 4, 3);
            let b = split_first(&mut rng, 4 - a, 2);
            *seen.entry((a, b)).or_insert(0u32) += 1;
        }
        // 15 ways, about 1333 each; the greedy draw (each line uniform on what is left) gives
        // (4, 0) a fifth of the time, 4000.
        assert_eq!(seen.len(), 15);
        for (k, &c) in &seen {
            assert!((1150..1520).contains(&c), "{k:?}: {c}");
        }
        // Past u128, the slot-by-slot draw: the first of 60 lines of 100000 takes 1/60 on average.
        let mut rng = new_rng(9);
        let mean: f64 = (0..400)
            .map(|_| split_first(&mut rng, 100_000, 60) as f64)
            .sum::<f64>()
            / 400.0;
        assert!((1300.0..2100.0).contains(&mean), "{mean}");
        let (mut x, mut y) = (new_rng(3), new_rng(3));
        for t in 0..30 {
            assert_eq!(split_first(&mut x, t, 4), split_first(&mut y, t, 4));
        }
    }

    const PINNED_42: [u32; 8] = [7, 5, 2, 6, 3, 4, 0, 1];
    const PINNED_D6_42: [u32; 6] = [3, 3, 4, 0, 2, 2];

    #[test]
    fn shuffle_is_a_permutation_and_fixed_for_a_seed() {
        let mut v: Vec<u32> = (0..20).collect();
        shuffle(&mut new_rng(1), &mut v);
        let mut sorted = v.clone();
        sorted.sort();
        assert_eq!(sorted, (0..20).collect::<Vec<_>>());
        let mut w: Vec<u32> = (0..20).collect();
        shuffle(&mut new_rng(1), &mut w);
        assert_eq!(v, w);
        // Pinned: a change here means old seeds and logs no longer replay.
        let mut pinned: Vec<u32> = (0..8).collect();
        shuffle(&mut new_rng(42), &mut pinned);
        assert_eq!(pinned, PINNED_42, "the shuffle for seed 42 changed");
        let draws: Vec<u32> = {
            let mut r = new_rng(42);
            (0..6).map(|_| below(&mut r, 6)).collect()
        };
        assert_eq!(draws, PINNED_D6_42, "the d6 draws for seed 42 changed");
    }
}
