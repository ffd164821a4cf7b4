//! Many rows, one decision; and how small a drop a comparison could have seen.
//!
//! [`Adjust`] names how the raw p-values of the rows that gate become family-wise adjusted ones
//! (Holm's step-down by default, or Bonferroni; computed once, in
//! [`crate::stats::paired::adjust_within`]), so an unchanged checker fails the gate in at most
//! alpha of pull requests however many fault types there are.
//!
//! [`detectable_drop`] is the smallest drop in a catch rate that `n` paired cases detect with the
//! given power at level `alpha` with the test the gate runs, the one-sided exact McNemar (sign)
//! test (with one case per parent claim it is the gate's sign-flip test), in the most favourable
//! case: the candidate newly misses a share `d` of the cases and fixes none (every discordant
//! pair points one way). Then the test rejects once there are `c*` discordant pairs, the smallest
//! `c` with (1/2)^c < alpha, and the power is P(Binomial(n, d) >= c*). Real changes also fix some
//! cases, which only makes a drop harder to see: the figure is a floor, so "too few cases to
//! detect a drop of 0.10" is never too pessimistic. (Before, this module used the two-sided
//! test's 2·(1/2)^c < alpha, one pair more than the gate needs: it told 0.820 for the power of
//! 100 cases to see a drop of 0.08 at 0.05 where the gate's test has 0.910.)

use serde::{Deserialize, Serialize};
use statrs::distribution::{Binomial, DiscreteCDF};

/// How the p-values of several gating rows are combined into one decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Adjust {
    /// Each row at alpha: the gate's false-fail rate grows with the number of rows.
    None,
    /// Holm's step-down: family-wise error at most alpha, more power than Bonferroni.
    Holm,
    /// Each p-value times the number of rows.
    Bonferroni,
}

/// The fewest discordant pairs, all one way, at which the gate's one-sided exact test rejects at
/// `alpha`: the smallest c with (1/2)^c < alpha.
pub fn pairs_needed(alpha: f64) -> u64 {
    // 0.5^c < alpha  <=>  c > -log2(alpha)
    let c = (-alpha.log2()).floor() as u64 + 1;
    c.max(1)
}

/// The one-sided exact p-value that the candidate is worse with `b` pairs better and `c` worse:
/// P(X <= b) for X ~ Binomial(b + c, 1/2), the gate's sign-flip p with one case per claim.
pub fn one_sided_p(b: u64, c: u64) -> f64 {
    let n = b.saturating_add(c).min(super::MAX_DISCORDANT);
    if c == 0 {
        1.0
    } else if 2 * b <= n {
        super::mcnemar::half_tail(b.min(n), n)
    } else {
        // P(X <= b) = 1 - P(X <= n - b - 1), with n - b - 1 < n / 2
        1.0 - super::mcnemar::half_tail(n - b - 1, n)
    }
}

/// The power of `n` paired cases to detect a drop `d` at `alpha` (see the module docs).
pub fn power_of(n: u64, d: f64, alpha: f64) -> f64 {
    let c = pairs_needed(alpha);
    if c > n || d <= 0.0 {
        return 0.0;
    }
    if d >= 1.0 {
        return 1.0;
    }
    let b = Binomial::new(d, n).expect("0 < d < 1");
    // P(X >= c) = 1 - P(X <= c - 1)
    1.0 - b.cdf(c - 1)
}

/// The smallest drop (to 0.001) that `n` paired cases detect with `power` at `alpha`; None when
/// even losing every case would not be seen that often.
pub fn detectable_drop(n: u64, alpha: f64, power: f64) -> Option<f64> {
    if power_of(n, 1.0, alpha) < power {
        return None;
    }
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..40 {
        let mid = (lo + hi) / 2.0;
        if power_of(n, mid, alpha) >= power {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Some(up_to_3_figures(hi))
}

/// `x` rounded up (never promising a smaller drop than holds) to 3 significant figures, so a drop
/// below 0.001 at a large n is still told.
fn up_to_3_figures(x: f64) -> f64 {
    let scale = 10f64.powi(2 - x.log10().floor() as i32);
    (x * scale).ceil() / scale
}

/// The probabilities of Binomial(n, p) that are not negligible, as (count, probability).
fn support(n: u64, p: f64) -> Vec<(u64, f64)> {
    if p <= 0.0 {
        return vec![(0, 1.0)];
    }
    if p >= 1.0 {
        return vec![(n, 1.0)];
    }
    let b = Binomial::new(p, n).expect("0 < p < 1");
    let mean = n as f64 * p;
    let sd = (mean * (1.0 - p)).sqrt();
    let lo = (mean - 8.0 * sd - 2.0).max(0.0) as u64;
    let hi = ((mean + 8.0 * sd + 2.0) as u64).min(n);
    (lo..=hi)
        .map(|k| (k, statrs::distribution::Discrete::pmf(&b, k)))
        .filter(|(_, q)| *q > 1e-14)
        .collect()
}

/// The power of `n` paired cases to detect a drop `d` at `alpha` when the candidate also fixes a
/// share `fix` of the cases (each case newly wrong with probability `d`, newly right with
/// probability `fix`): the gate's one-sided exact test must see the newly wrong outnumber the
/// newly right by enough. With `fix` 0 this is [`power_of`], the best case.
pub fn power_with_fixes(n: u64, d: f64, fix: f64, alpha: f64) -> f64 {
    if fix <= 0.0 {
        return power_of(n, d, alpha);
    }
    let d = d.clamp(0.0, 1.0);
    let fix = fix.clamp(0.0, 1.0 - d);
    // each case: newly wrong (d), newly right (fix) or unchanged; the newly right among the
    // cases not newly wrong are Binomial(n - c, fix / (1 - d))
    let mut p = 0.0;
    for (c, pc) in support(n, d) {
        let share = if d < 1.0 { fix / (1.0 - d) } else { 0.0 };
        for (b, pb) in support(n - c, share) {
            if c > b && one_sided_p(b, c) < alpha {
                p += pc * pb;
            }
        }
    }
    p.min(1.0)
}

/// The smallest drop (3 significant figures, rounded up) that `n` paired cases detect with
/// `power` at `alpha` when the candidate also fixes a share `fix`; None when none can be.
pub fn detectable_drop_with_fixes(n: u64, fix: f64, alpha: f64, power: f64) -> Option<f64> {
    if fix <= 0.0 {
        return detectable_drop(n, alpha, power);
    }
    if power_with_fixes(n, 1.0, fix, alpha) < power {
        return None;
    }
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..30 {
        let mid = (lo + hi) / 2.0;
        if power_with_fixes(n, mid, fix, alpha) >= power {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Some(up_to_3_figures(hi))
}

/// The smallest drop in a rate over `n` paired cases that the comparison detects, when only the
/// `good` cases the base got right (caught faults, passed faithful cases) can become wrong: a
/// share `q` of them newly wrong is a drop of `q · good / n`. None ("none detectable") when even
/// losing every one of them would not reach significance that often; never larger than the
/// base's own rate (`good / n`).
pub fn detectable_drop_of(n: u64, good: u64, alpha: f64, power: f64) -> Option<f64> {
    if n == 0 || good == 0 {
        return None;
    }
    let q = detectable_drop(good, alpha, power)?;
    let rate = good as f64 / n as f64;
    Some(up_to_3_figures((q * rate).min(rate)).min(rate))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixes_cut_the_power_the_best_case_promises() {
        // a drop of 0.08 with 100 paired cases: power 0.910 when nothing improves (the gate's
        // one-sided test; the two-sided one had 0.820); much less when the candidate also fixes
        // 2% of cases
        let best = power_with_fixes(100, 0.08, 0.0, 0.05);
        assert!((best - 0.910).abs() < 0.0005, "{best}");
        let with = power_with_fixes(100, 0.08, 0.02, 0.05);
        // checked by simulating the gate's own test on 20,000 paired runs (fixed seed)
        let mut x: u64 = 42;
        let mut next = || {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 11) as f64 / (1u64 << 53) as f64
        };
        let reps = 20_000;
        let mut rejected = 0;
        for _ in 0..reps {
            let (mut b, mut c) = (0, 0);
            for _ in 0..100 {
                let u = next();
                if u < 0.08 {
                    c += 1;
                } else if u < 0.10 {
                    b += 1;
                }
            }
            // the gate's test with one case per claim
            let net: Vec<i64> = std::iter::repeat_n(1, b)
                .chain(std::iter::repeat_n(-1, c))
                .collect();
            if crate::stats::paired::sign_flip_p_worse(&net) < 0.05 {
                rejected += 1;
            }
        }
        let sim = rejected as f64 / reps as f64;
        let mc_error = (sim * (1.0 - sim) / reps as f64).sqrt();
        assert!(
            (with - sim).abs() < 4.0 * mc_error,
            "{with} vs simulated {sim} ± {mc_error}"
        );
        assert!(with < best - 0.2, "{with} vs {best}");
        // at n = 1000, 1% fixes cut the 0.80 of the best case to about a quarter
        let d = detectable_drop(1000, 0.05, 0.8).unwrap();
        let with = power_with_fixes(1000, d, 0.01, 0.05);
        assert!(with < 0.4, "{d}: {with}");
        // and the drop that 80% power needs grows
        let d_fix = detectable_drop_with_fixes(1000, 0.01, 0.05, 0.8).unwrap();
        assert!(d_fix > d, "{d_fix} vs {d}");
    }

    #[test]
    fn the_detectable_drop_counts_only_what_the_base_got_right() {
        // 7 of 9 caught: a drop of 0.98 is more than the whole rate (0.78); at most 7/9 can go
        let d = detectable_drop_of(9, 7, 0.05 / 9.0, 0.8);
        assert!(d.is_none_or(|d| d <= 7.0 / 9.0), "{d:?}");
        // 100 cases, 90 caught: the drop is computed from the 90 at risk (about what the 100 give,
        // the expected number of newly missed cases being the same)
        let d = detectable_drop_of(100, 90, 0.05, 0.8).unwrap();
        let from_n = detectable_drop(100, 0.05, 0.8).unwrap();
        assert!((d - from_n).abs() < 0.005 && d <= 0.9, "{d} vs {from_n}");
        // 12 of 40 caught: never more than the 0.3 the base caught
        let d = detectable_drop_of(40, 12, 0.05, 0.8);
        assert!(d.is_none_or(|d| d <= 0.3), "{d:?}");
        // nothing caught: nothing can drop
        assert_eq!(detectable_drop_of(20, 0, 0.05, 0.8), None);
        // too few caught to ever reach significance
        assert_eq!(detectable_drop_of(20, 3, 0.05, 0.8), None);
    }

    #[test]
    fn holm_and_bonferroni_match_statsmodels() {
        // statsmodels.stats.multitest.multipletests(p, method="holm" | "bonferroni")[1]
        let p = [0.01, 0.04, 0.03, 0.005, 0.5];
        let adjust = |p: &[f64], m| crate::stats::paired::adjust_within(p, p.len(), m);
        let holm = adjust(&p, Adjust::Holm);
        let want = [0.04, 0.09, 0.09, 0.025, 0.5];
        for (g, w) in holm.iter().zip(want) {
            assert!((g - w).abs() < 1e-12, "{holm:?}");
        }
        assert_eq!(
            adjust(&p, Adjust::Bonferroni),
            vec![0.05, 0.2, 0.15, 0.025, 1.0]
        );
        assert_eq!(adjust(&p, Adjust::None), p.to_vec());
    }

    #[test]
    fn a_drop_below_a_thousandth_is_told_at_a_large_n() {
        let d = detectable_drop(100_000, 0.05, 0.8).unwrap();
        assert!(d < 0.001 && d > 0.00005, "{d}");
        // rounded up: the power at the printed drop is still at least the asked power
        assert!(power_of(100_000, d, 0.05) >= 0.8);
    }

    #[test]
    fn five_one_way_pairs_reject_at_five_percent_as_in_the_gate() {
        assert_eq!(pairs_needed(0.05), 5); // 1/32 = 0.031 < 0.05 <= 1/16
        assert_eq!(pairs_needed(0.01), 7);
        assert_eq!(pairs_needed(0.5f64.powi(5)), 6); // strictly below alpha
        let p = crate::stats::paired::sign_flip_p_worse;
        assert!(p(&[-1; 5]) < 0.05 && p(&[-1; 4]) >= 0.05);
        // the one-sided p is the gate's with one case per claim
        for (b, c) in [(0u64, 5u64), (2, 9), (3, 3), (7, 1), (40, 61)] {
            let net: Vec<i64> = std::iter::repeat_n(1, b as usize)
                .chain(std::iter::repeat_n(-1, c as usize))
                .collect();
            let gate = p(&net);
            assert!((one_sided_p(b, c) - gate).abs() <= 1e-12 * gate, "{b} {c}");
        }
    }

    #[test]
    fn detectable_drops_match_scipy() {
        // the smallest d with scipy.stats.binom.sf(c* - 1, n, d) >= 0.8, c* = 5 at alpha 0.05
        // (scipy 1.17, brentq); told rounded up to three figures
        for (n, scipy) in [
            (5u64, 0.956_352_499_789_807_6_f64),
            (9, 0.6339134834642799),
            (30, 0.21391234577540455),
            (100, 0.06629670413482634),
            (1000, 0.0067118363480397885),
        ] {
            let got = detectable_drop(n, 0.05, 0.8).unwrap();
            let unit = 10f64.powi(scipy.log10().floor() as i32 - 2);
            assert!(
                got >= scipy && got - scipy <= unit,
                "n = {n}: {got} vs {scipy}"
            );
        }
        assert_eq!(
            detectable_drop(4, 0.05, 0.8),
            None,
            "4 pairs can never reject"
        );
        // the power the guide quotes: scipy.stats.binom.sf(4, 100, 0.08)
        assert!((power_of(100, 0.08, 0.05) - 0.9096634414576006).abs() < 1e-9);
    }
}
