//! A weighted rate over strata (fault types) and its interval: the catch rate a declared mix
//! of fault types would give, `sum_k w_k p_k`, from each type's own catches.
//!
//! A Wilson interval on the weighted counts is not right: it takes the cases for one sample
//! from one rate, and its width would not follow the weights (a type with 2 faults and half the
//! weight is far less certain than its 2 cases in a pool of 30 say). The variance of the
//! stratified estimate is `sum_k w_k^2 p_k (1 - p_k) / n_k`; the interval is Wilson's on the
//! effective n that variance implies (`p (1 - p) / var`, the design-effect form survey
//! statistics use for proportions: Korn and Graubard, 1998), with two guards for small strata:
//!
//! - each `p_k` in the variance is Agresti-Coull adjusted (`(k + z^2/2) / (n + z^2)`), so a
//!   type with 0 of 3 or 3 of 3 still adds its uncertainty instead of none;
//! - the effective n is at most Kish's `1 / sum_k (w_k^2 / n_k)`, the n of the weights alone
//!   (what the variance would give if every type had the pooled rate).
//!
//! Its coverage is measured by a seeded simulation in the tests (a grid of strata sizes, rates
//! and weights).

use super::wilson::{wilson_with_quantile, z_for};
use serde::Serialize;

/// One stratum: `k` of `n` caught, and its weight in the mix (any non-negative number: the
/// weights of the strata with cases are normalised to sum to 1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stratum {
    pub k: u64,
    pub n: u64,
    pub weight: f64,
}

/// A stratified rate with its interval and the effective n the interval rests on.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct WeightedRate {
    /// `sum_k w_k k_k / n_k` over the strata with cases and weight, or None when there is none.
    pub rate: Option<f64>,
    pub ci_low: f64,
    pub ci_high: f64,
    /// The effective number of cases the interval is Wilson's on.
    pub n_effective: f64,
}

/// The stratified rate of `strata` at `confidence`. Strata without cases or without weight
/// take no part (the caller reports them); with none left nothing is known: [0, 1].
pub fn stratified(strata: &[Stratum], confidence: f64) -> WeightedRate {
    let used: Vec<&Stratum> = strata
        .iter()
        .filter(|s| s.n > 0 && s.weight > 0.0 && s.weight.is_finite())
        .collect();
    let total: f64 = used.iter().map(|s| s.weight).sum();
    if used.is_empty() || total <= 0.0 {
        return WeightedRate {
            rate: None,
            ci_low: 0.0,
            ci_high: 1.0,
            n_effective: 0.0,
        };
    }
    let z = z_for(confidence);
    let z2 = z * z;
    let (mut p, mut p_adj, mut var, mut kish) = (0.0, 0.0, 0.0, 0.0);
    for s in &used {
        let w = s.weight / total;
        let n = s.n as f64;
        let pk = s.k as f64 / n;
        let adj = (s.k as f64 + z2 / 2.0) / (n + z2);
        p += w * pk;
        p_adj += w * adj;
        var += w * w * adj * (1.0 - adj) / n;
        kish += w * w / n;
    }
    let kish_n = 1.0 / kish;
    let n_eff = if var > 0.0 {
        (p_adj * (1.0 - p_adj) / var).min(kish_n)
    } else {
        kish_n
    };
    let (ci_low, ci_high) = wilson_with_quantile(p * n_eff, n_eff, z);
    WeightedRate {
        rate: Some(p),
        ci_low,
        ci_high,
        n_effective: n_eff,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::TestRng;

    fn s(k: u64, n: u64, weight: f64) -> Stratum {
        Stratum { k, n, weight }
    }

    #[test]
    fn one_stratum_is_plain_wilson() {
        let w = stratified(&[s(24, 29, 1.0)], 0.95);
        let (lo, hi) = crate::stats::wilson(24, 29, 0.95);
        assert_eq!(w.rate, Some(24.0 / 29.0));
        assert!((w.ci_low - lo).abs() < 1e-12 && (w.ci_high - hi).abs() < 1e-12);
        assert!((w.n_effective - 29.0).abs() < 1e-9);
    }

    #[test]
    fn equal_weights_average_the_strata_rates_not_the_cases() {
        // 9 of 9 entity swaps and 0 of 2 dropped conditions: pooled 9/11, uniform 0.5
        let w = stratified(&[s(9, 9, 1.0), s(0, 2, 1.0)], 0.95);
        assert_eq!(w.rate, Some(0.5));
        // the two dropped conditions carry half the weight: the interval is wide
        assert!(w.ci_low < 0.25 && w.ci_high > 0.75, "{w:?}");
        // Kish's n of the weights alone: 1 / (0.25 / 9 + 0.25 / 2), far below the 11 cases
        assert!(
            (w.n_effective - 1.0 / (0.25 / 9.0 + 0.25 / 2.0)).abs() < 1e-9,
            "{w:?}"
        );
    }

    #[test]
    fn strata_without_cases_or_weight_take_no_part() {
        let a = stratified(&[s(6, 6, 2.0), s(7, 9, 1.0)], 0.95);
        let b = stratified(
            &[s(6, 6, 2.0), s(0, 0, 5.0), s(1, 4, 0.0), s(7, 9, 1.0)],
            0.95,
        );
        assert_eq!(a, b);
        let none = stratified(&[s(0, 0, 1.0)], 0.95);
        assert_eq!(none.rate, None);
        assert_eq!((none.ci_low, none.ci_high), (0.0, 1.0));
    }

    #[test]
    fn a_rate_of_zero_or_one_keeps_its_end_and_a_width() {
        let all = stratified(&[s(6, 6, 1.0), s(9, 9, 1.0), s(2, 2, 1.0)], 0.95);
        assert_eq!(all.rate, Some(1.0));
        assert_eq!(all.ci_high, 1.0);
        assert!(all.ci_low < 0.85, "{all:?}");
        let none = stratified(&[s(0, 6, 1.0), s(0, 9, 3.0)], 0.95);
        assert_eq!(none.ci_low, 0.0);
        assert!(none.ci_high > 0.2, "{none:?}");
    }

    /// One binomial draw.
    fn draw(rng: &mut TestRng, n: u64, p: f64) -> u64 {
        (0..n).filter(|_| rng.next_f64() < p).count() as u64
    }

    /// The share of `reps` simulated suites whose interval covers the true weighted rate.
    fn coverage(sizes: &[u64], rates: &[f64], weights: &[f64], reps: usize, seed: u64) -> f64 {
        let total: f64 = weights.iter().sum();
        let truth: f64 = rates.iter().zip(weights).map(|(p, w)| p * w / total).sum();
        let mut rng = TestRng(seed);
        let mut covered = 0;
        for _ in 0..reps {
            let strata: Vec<Stratum> = sizes
                .iter()
                .zip(rates)
                .zip(weights)
                .map(|((&n, &p), &w)| s(draw(&mut rng, n, p), n, w))
                .collect();
            let r = stratified(&strata, 0.95);
            if r.ci_low <= truth + 1e-12 && truth <= r.ci_high + 1e-12 {
                covered += 1;
            }
        }
        covered as f64 / reps as f64
    }

    /// The grid the coverage is held to: small and uneven strata (a suite's fault types have 2
    /// to 30 faults), rates from middling to near-perfect checkers, equal and skewed weights.
    pub(super) const SIZES: &[&[u64]] = &[&[4, 6], &[3, 12, 30], &[8, 8, 8, 8], &[2, 9, 20]];
    pub(super) const RATES: &[&[f64]] = &[
        &[0.5, 0.5, 0.5, 0.5],
        &[0.9, 0.9, 0.9, 0.9],
        &[0.95, 0.6, 0.8, 0.3],
        &[0.2, 0.99, 0.7, 0.9],
    ];
    pub(super) const WEIGHTS: &[&[f64]] = &[&[1.0, 1.0, 1.0, 1.0], &[6.0, 3.0, 1.0, 1.0]];

    /// Every cell of the grid: (sizes, rates, weights, coverage).
    pub(super) fn grid(reps: usize) -> Vec<(String, f64)> {
        let mut out = Vec::new();
        let mut seed = 31;
        for sizes in SIZES {
            for rates in RATES {
                for weights in WEIGHTS {
                    let k = sizes.len();
                    seed += 1;
                    let c = coverage(sizes, &rates[..k], &weights[..k], reps, seed);
                    out.push((
                        format!("n={sizes:?} p={:?} w={:?}", &rates[..k], &weights[..k]),
                        c,
                    ));
                }
            }
        }
        out
    }

    #[test]
    fn the_interval_covers_the_weighted_rate_at_its_level_over_a_grid() {
        const REPS: usize = 2000;
        let cells = grid(REPS);
        // Monte Carlo error of one cell's coverage at 0.95: sqrt(0.95 * 0.05 / 2000) = 0.0049
        let se = (0.95f64 * 0.05 / REPS as f64).sqrt();
        let mean = cells.iter().map(|c| c.1).sum::<f64>() / cells.len() as f64;
        let se_mean = se / (cells.len() as f64).sqrt();
        let worst = cells
            .iter()
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .expect("a grid");
        for (cell, c) in &cells {
            eprintln!("coverage {c:.4}  {cell}");
        }
        eprintln!("mean coverage {mean:.4} over {} cells", cells.len());
        assert!(
            mean >= 0.95 - 3.0 * se_mean,
            "mean coverage {mean:.4} below 0.95"
        );
        assert!(
            worst.1 >= 0.95 - 3.0 * se,
            "coverage {:.4} below 0.95 - 3 Monte Carlo errors at {}",
            worst.1,
            worst.0
        );
    }
}
