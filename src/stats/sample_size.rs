//! How many labelled cases it takes to pin a rate.

use super::wilson::z_for;

/// Cases needed to estimate a rate near `rate` to within `margin` at `confidence`: the smallest n
/// whose Wilson interval, at the count `rate` gives (`round(rate * n)` of n), has a half-width of
/// at most `margin` (141 for 0.9 within ±0.05 at 95%; 35 for 0.99, 0.999 or 1.0, where the interval
/// is lopsided). Solved with the Wilson interval itself, never the normal approximation, which
/// near 0 and 1 promises a margin it does not give (it said 2 cases for 0.999: Wilson at 2/2 is
/// [0.34, 1]).
pub fn sample_size(rate: f64, margin: f64, confidence: f64) -> u64 {
    let z = z_for(confidence);
    let half = |n: u64| {
        let k = (rate * n as f64).round() as u64;
        let r = wilson(k.min(n), n, z);
        (r.1 - r.0) / 2.0
    };
    // the half-width shrinks with n (with small wiggles from rounding the count): the first n
    // that meets the margin, scanning up from 1 (fast enough: about a million steps at ±0.001)
    let mut n = 1u64;
    while half(n) > margin {
        n += 1;
        if n > 100_000_000 {
            break;
        }
    }
    n
}

/// The Wilson interval of k of n at the normal quantile z.
fn wilson(k: u64, n: u64, z: f64) -> (f64, f64) {
    let (k, n) = (k as f64, n as f64);
    let p = k / n;
    let d = 1.0 + z * z / n;
    let c = (p + z * z / (2.0 * n)) / d;
    let h = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / d;
    ((c - h).max(0.0), (c + h).min(1.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::Rate;

    /// The half-width of the Wilson interval at the count a rate gives.
    fn half(rate: f64, n: u64) -> f64 {
        let k = (rate * n as f64).round() as u64;
        let r = Rate::new(k, n, 0.95);
        (r.ci_high - r.ci_low) / 2.0
    }

    #[test]
    fn it_is_the_smallest_n_whose_wilson_half_width_is_within_the_margin() {
        for (rate, want) in [
            (0.9, 141),
            (0.99, 35),
            (0.999, 35),
            (1.0, 35),
            (0.0, 35),
            (0.5, 381),
        ] {
            let n = sample_size(rate, 0.05, 0.95);
            assert_eq!(n, want, "{rate}");
            assert!(half(rate, n) <= 0.05 + 1e-12, "{rate}: {}", half(rate, n));
            assert!(half(rate, n - 1) > 0.05, "{rate}: n - 1 would do");
        }
    }

    #[test]
    fn near_one_it_never_answers_a_handful() {
        // the normal approximation said 2 cases for 0.999 and 16 for 0.99
        assert!(sample_size(0.999, 0.05, 0.95) >= 30);
        assert!(sample_size(0.99, 0.05, 0.95) >= 30);
        // and a tighter margin needs more
        assert!(sample_size(0.99, 0.01, 0.95) > sample_size(0.99, 0.05, 0.95));
    }
}
