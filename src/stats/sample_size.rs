//! How many labelled cases it takes to pin a rate.

use super::wilson::{wilson_with_quantile, z_for};

/// Cases needed to estimate a rate near `rate` to within `margin` at `confidence`: the smallest n
/// from which every larger n has a Wilson interval, at the count `rate` gives (`round(rate * n)`
/// of n), no wider than ±`margin` (141 for 0.9 within ±0.05 at 95%; 35 for 0.99, 0.999 or 1.0,
/// where the interval is lopsided). Solved with the Wilson
/// interval itself, never the normal approximation, which near 0 and 1 promises a margin it does
/// not give (it said 2 cases for 0.999: Wilson at 2/2 is [0.34, 1]).
///
/// Why every larger n: rounding the count makes the half-width wiggle, so the first n that meets
/// the margin can be followed by ones that miss it again (0.97 within ±0.06 is first met at 42
/// and missed again at 51, so the answer is 52; 0.01 within ±0.05, first met at 35, is missed at
/// 50: 51), and "n cases suffice" would not mean that more cases do. How far to
/// look: the half-width at any count within 1/(2n) of `rate · n` is at most
/// z·sqrt(u/n + z²/(4n²)) with u the largest p(1 - p) for p within 1/(2n) of `rate`, a bound
/// that falls with n; every n from the first where it meets the margin does too, so the scan
/// checks each n below that point and none above.
pub fn sample_size(rate: f64, margin: f64, confidence: f64) -> u64 {
    let z = z_for(confidence);
    let half = |n: u64| half_width(rate, n, z);
    // past `sure`, the bound guarantees the margin
    let bound = |n: u64| {
        let n_f = n as f64;
        let d = 0.5 / n_f;
        let u = ((rate + d) * (1.0 - rate + d)).min(0.25);
        z * (u / n_f + z * z / (4.0 * n_f * n_f)).sqrt()
    };
    let mut sure = 1u64;
    while bound(sure) > margin && sure < 1 << 40 {
        sure *= 2;
    }
    let (mut lo, mut hi) = (sure / 2, sure);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if bound(mid) > margin {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    // the last n below that point that misses the margin, and one more
    (1..hi)
        .rev()
        .find(|&n| half(n) > margin)
        .map_or(1, |n| n + 1)
}

/// The Wilson half-width at the count `rate` gives of `n`, at the normal quantile `z`.
fn half_width(rate: f64, n: u64, z: f64) -> f64 {
    let k = ((rate * n as f64).round() as u64).min(n);
    let (lo, hi) = wilson_with_quantile(k as f64, n as f64, z);
    (hi - lo) / 2.0
}

/// The share of the outcomes of `n` cases (k ~ Binomial(n, `rate`)) whose Wilson interval at
/// `confidence` is within ±`margin`: how often `n` cases, at that rate, give the margin asked.
/// Below 1 mostly, since a count under the rate's has a wider interval when the rate is above
/// one half (and the other way below).
pub fn share_meeting(rate: f64, margin: f64, confidence: f64, n: u64) -> f64 {
    use statrs::distribution::{Binomial, Discrete};
    let z = z_for(confidence);
    let meets = |k: u64| {
        let (lo, hi) = wilson_with_quantile(k as f64, n as f64, z);
        (hi - lo) / 2.0 <= margin
    };
    if n == 0 {
        return 0.0;
    }
    if rate <= 0.0 || rate >= 1.0 {
        let k = if rate <= 0.0 { 0 } else { n };
        return f64::from(u8::from(meets(k)));
    }
    let b = Binomial::new(rate, n).expect("0 < rate < 1");
    // the counts more than 12 standard deviations out carry no mass an f64 sees
    let mean = rate * n as f64;
    let sd = (mean * (1.0 - rate)).sqrt();
    let lo = (mean - 12.0 * sd - 1.0).max(0.0) as u64;
    let hi = ((mean + 12.0 * sd + 1.0) as u64).min(n);
    (lo..=hi)
        .filter(|k| meets(*k))
        .map(|k| b.pmf(k))
        .sum::<f64>()
        .min(1.0)
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
    fn it_is_the_smallest_n_from_which_every_larger_n_meets_the_margin() {
        for (rate, want) in [
            (0.9, 141),
            (0.99, 35),
            (0.999, 35),
            (1.0, 35),
            (0.0, 35),
            (0.5, 381),
            (0.97, 63),
            (0.01, 51),
        ] {
            let n = sample_size(rate, 0.05, 0.95);
            assert_eq!(n, want, "{rate}");
            assert!(half(rate, n - 1) > 0.05, "{rate}: n - 1 would do");
            for m in n..=4 * n {
                assert!(
                    half(rate, m) <= 0.05 + 1e-12,
                    "{rate}: {m} misses: {}",
                    half(rate, m)
                );
            }
        }
        // the first n that meets ±0.06 at 0.97 is 42, and 51 misses it again
        assert!(half(0.97, 42) <= 0.06 && half(0.97, 41) > 0.06 && half(0.97, 51) > 0.06);
        assert_eq!(sample_size(0.97, 0.06, 0.95), 52);
        // and ±0.05 at 0.01: first met at 35, missed at 50
        assert!(half(0.01, 35) <= 0.05 && half(0.01, 50) > 0.05);
    }

    #[test]
    fn no_larger_n_misses_the_margin_again_over_a_grid_of_inputs() {
        // 120 inputs: 12 rates x 10 margins; every n from the answer to 4 times it meets the
        // margin, the one before misses it, and a tighter margin never needs fewer cases
        let rates = [
            0.0, 0.01, 0.05, 0.1, 0.25, 0.33, 0.5, 0.7, 0.85, 0.9, 0.97, 1.0,
        ];
        let margins = [0.2, 0.15, 0.1, 0.08, 0.06, 0.05, 0.04, 0.03, 0.025, 0.02];
        for rate in rates {
            let mut before = 0;
            for margin in margins {
                let n = sample_size(rate, margin, 0.95);
                assert!(n >= before, "{rate} ±{margin}: {n} < {before}");
                before = n;
                assert!(
                    n == 1 || half(rate, n - 1) > margin,
                    "{rate} ±{margin}: {n}"
                );
                let miss = (n..=4 * n).find(|m| half(rate, *m) > margin + 1e-12);
                assert_eq!(miss, None, "{rate} ±{margin}: {n}");
            }
        }
    }

    #[test]
    fn the_share_of_outcomes_meeting_the_margin_is_told() {
        // 141 cases at 0.9: the counts at or above 127 meet ±0.05, lower counts do not, and a
        // count below 127 comes out 44% of the time
        let share = share_meeting(0.9, 0.05, 0.95, 141);
        assert!((share - 0.5594).abs() < 0.0001, "{share}");
        // by direct sum over the counts
        use statrs::distribution::{Binomial, Discrete};
        let b = Binomial::new(0.9, 141).unwrap();
        let direct: f64 = (0..=141u64)
            .filter(|k| {
                let r = Rate::new(*k, 141, 0.95);
                (r.ci_high - r.ci_low) / 2.0 <= 0.05
            })
            .map(|k| b.pmf(k))
            .sum();
        assert!((share - direct).abs() < 1e-12, "{share} vs {direct}");
        // at a rate of 1 every outcome is n of n
        assert_eq!(share_meeting(1.0, 0.05, 0.95, 35), 1.0);
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
