//! A catch rate's interval when its cases come in clusters.
//!
//! The mutants of one verified claim share its sentence: if a checker misses one it tends to miss
//! its siblings, so 24 faults from 12 claims carry less information than 24 independent faults
//! and a plain Wilson interval over them is too narrow. This module gives Wilson's interval on an
//! effective n, n / design effect, with Kish's design effect for claims of m_i mutants,
//!
//!   1 + (Σ m_i² / n - 1) · rho_U,
//!
//! where rho_U is a 90% upper confidence bound on the intra-claim correlation (the one-way ANOVA
//! estimator's, from its F distribution: `Shape::icc_upper`), and the two-sided t quantile of
//! C - 1 degrees of freedom in place of z, since the clusters, not the cases, are the sample.
//! Where the effective count of catches (or of misses) is 3 or fewer, the bound on that side is
//! the lower of Wilson's and the exact Poisson one (Brown, Cai and DasGupta's modified Wilson
//! interval): Wilson's is too high there, and a catch rate near 1 whose few misses fall in one or
//! two claims is exactly that case (without it the grid's cells at a rate of 0.99 with 20
//! strongly correlated claims covered 0.947 at 20,000 replications; with it 0.994).
//!
//! **Monotone.** An interval estimated from where the misses fall can rise when the checker does
//! worse (an earlier version here gave 39 of 40 caught a lower bound 0.19 above 40 of 40's), and
//! an interval that rises when the checker does worse cannot gate anything. So the raw interval
//! is replaced by its envelope over the layouts reachable by turning cases into misses: the lower
//! bound is the least raw lower bound over every layout with the same claims and at least these
//! catches, the upper bound the greatest raw upper bound over every layout with at most these
//! (`Shape::envelope_low`, one pass over the claims). One more miss then never raises either
//! bound (property-tested), and the envelope only widens the raw interval.
//!
//! **Before** this module used rho = 1 whatever the outcomes (n_eff = n² / Σ m_i²): valid, and
//! 1.8-3.0 times as wide as plain Wilson with 1-5 mutants a claim when the mutants were in fact
//! independent (2.6-5.7 with 1-12). With rho_U <= 1 and the same t quantile the new interval lies
//! inside that one wherever no side takes the small-count bound; at correlation 0, for rates up to
//! 0.9 with 20 claims or more,
//! it is 1.1-1.4 times plain Wilson with 1-5 mutants a claim and 1.1-1.8 with 1-12 (near a rate
//! of 0.99 and with 10 claims it is about as wide as before; the guide's docs/src/concepts/gate-statistics.md, "Mutants are clustered", has
//! the width table). In the
//! coverage grid (`stats::cluster_grid`: rates 0.5-0.99, 10-100 claims of 1-5 or 1-12 mutants,
//! correlation 0-0.6 under beta-binomial and logit-normal claim effects, 280 cells of 2,000
//! seeded replications, floor 0.95 - 2·sqrt(0.95·0.05/2000) = 0.940) the 95% interval covered at
//! least 0.947 in every cell (one cell under 0.95: a rate of 0.9, 100 claims of 1-12, correlation
//! 0.6, which covers 0.953 at 20,000 replications); the interval by sizes alone covered at least
//! 0.952, plain Wilson down to 0.568.
//!
//! Why not a cluster bootstrap: with the 5-30 clusters a suite has per fault type, percentile
//! bootstrap intervals under-cover and depend on the seed.

use super::wilson::wilson_with_quantile;
use serde::Serialize;

/// The confidence of the upper bound on the intra-claim correlation the design effect uses.
pub const ICC_CONFIDENCE: f64 = 0.9;

/// Effective counts up to this take the exact Poisson lower bound where it is lower than Wilson's
/// (Brown, Cai and DasGupta's modified Wilson interval, 2001: Wilson's lower bound is too high for
/// 1-3 successes, the dip in its coverage near 0 and 1).
const SMALL_COUNT: f64 = 3.0;

/// The exact lower bound of a Poisson mean from a count `x` (a real number here, an effective
/// count): the `tail` quantile of Gamma(x, 1).
fn poisson_low(x: f64, tail: f64) -> f64 {
    use statrs::function::gamma::gamma_lr;
    // bisection on log g: P(x, g) rises with g; robust where the quantile is tiny (statrs's
    // Gamma::inverse_cdf is not, for shapes below 1)
    let (mut lo, mut hi) = (-745.0f64, (x + 40.0 * x.sqrt() + 40.0).ln());
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if gamma_lr(x, mid.exp()) < tail {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi - lo < 1e-13 {
            break;
        }
    }
    hi.exp()
}

/// A rate's cluster-aware interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ClusterRate {
    /// Parent claims (clusters) the cases come from.
    pub clusters: u64,
    /// The upper confidence bound (at [`ICC_CONFIDENCE`]) on the intra-claim correlation of the
    /// observed layout, in [0, 1] (1 where the outcomes cannot tell: every claim all caught or
    /// all missed).
    pub icc_upper: f64,
    /// The design effect (>= 1) at that bound: how many times the plain Wilson variance
    /// understates the truth.
    pub design_effect: f64,
    /// n / design effect.
    pub n_eff: f64,
    pub ci_low: f64,
    pub ci_high: f64,
}

/// The cluster-aware interval of a rate from its cases: (cluster key, success) per case.
pub fn cluster_rate_of<K: Ord>(
    cases: impl IntoIterator<Item = (K, bool)>,
    confidence: f64,
) -> ClusterRate {
    let mut by: std::collections::BTreeMap<K, (u64, u64)> = std::collections::BTreeMap::new();
    for (key, hit) in cases {
        let e = by.entry(key).or_default();
        e.0 += u64::from(hit);
        e.1 += 1;
    }
    cluster_rate(&by.into_values().collect::<Vec<_>>(), confidence)
}

/// The two-sided Student t quantile with `df` degrees of freedom, or infinity with none.
pub(crate) fn t_quantile(confidence: f64, df: f64) -> f64 {
    use statrs::distribution::{ContinuousCDF, StudentsT};
    match StudentsT::new(0.0, 1.0, df) {
        Ok(t) if df >= 1.0 => t.inverse_cdf(1.0 - (1.0 - confidence) / 2.0),
        _ => f64::INFINITY,
    }
}

/// What the interval of one layout of claims needs besides the outcomes: the sizes' sums and the
/// quantiles, computed once.
struct Shape {
    /// Cases and clusters.
    n: f64,
    c: f64,
    /// Σ m_i² / n: the design effect at a correlation of 1.
    m2_over_n: f64,
    /// The ANOVA estimator's average cluster size, (n - Σ m_i² / n) / (C - 1).
    m0: f64,
    /// The lower (1 - ICC_CONFIDENCE) quantile of F(C - 1, n - C), when n > C.
    f_low: f64,
    /// The two-sided t quantile of C - 1 degrees of freedom.
    t: f64,
    /// (1 - confidence) / 2: the tail of the small-count bound.
    tail: f64,
}

impl Shape {
    fn new(sizes: impl Iterator<Item = u64>, confidence: f64) -> Shape {
        let (mut n, mut c, mut squares) = (0.0f64, 0.0f64, 0.0f64);
        for m in sizes {
            let m = m as f64;
            n += m;
            c += 1.0;
            squares += m * m;
        }
        let f_low = if n > c && c > 1.0 {
            use statrs::distribution::{ContinuousCDF, FisherSnedecor};
            FisherSnedecor::new(c - 1.0, n - c)
                .map(|f| f.inverse_cdf(1.0 - ICC_CONFIDENCE))
                .unwrap_or(0.0)
        } else {
            0.0
        };
        Shape {
            n,
            c,
            m2_over_n: squares / n,
            m0: (n - squares / n) / (c - 1.0),
            f_low,
            t: t_quantile(confidence, c - 1.0),
            tail: (1.0 - confidence) / 2.0,
        }
    }

    /// The upper confidence bound on the intra-claim correlation for `k` caught of n with
    /// Σ y_i² / m_i = `s` (all the one-way ANOVA of 0/1 outcomes needs).
    ///
    /// The ANOVA estimator's mean squares are MSB = (s - k²/n) / (C - 1) between claims and
    /// MSW = (k - s) / (n - C) within them, and F = MSB / MSW is (1 + (m0 - 1) rho) / (1 - rho)
    /// times an F(C - 1, n - C) variable (Searle's interval for the one-way random-effects
    /// model), so λ_U = F / F_{0.10}(C - 1, n - C) bounds (1 + (m0 - 1) rho) / (1 - rho) from
    /// above at 90% and rho_U = (λ_U - 1) / (λ_U - 1 + m0). The F law is exact for normal,
    /// balanced data and approximate for 0/1 outcomes and unequal claims; the coverage grid
    /// (`stats::cluster_grid`) measures what that does to the rate's interval. With no variation
    /// within any claim (MSW = 0: each claim all caught or all missed) the outcomes cannot tell
    /// the correlation from 1, and 1 it is.
    fn icc_upper(&self, k: f64, s: f64) -> f64 {
        if self.n <= self.c {
            return 0.0; // one case a claim: the correlation changes nothing
        }
        let within = k - s;
        if within <= 1e-9 * self.n {
            return 1.0;
        }
        let between = (s - k * k / self.n).max(0.0) / (self.c - 1.0);
        let within = within / (self.n - self.c);
        if self.f_low <= 0.0 {
            return 1.0;
        }
        let lambda = between / within / self.f_low;
        if lambda <= 1.0 {
            0.0
        } else {
            ((lambda - 1.0) / (lambda - 1.0 + self.m0)).min(1.0)
        }
    }

    /// Kish's design effect at correlation `rho` for these sizes, 1 + (Σ m_i²/n - 1) rho.
    fn design_effect(&self, rho: f64) -> f64 {
        (1.0 + (self.m2_over_n - 1.0) * rho).max(1.0)
    }

    /// The raw (not yet monotone) lower bound of the layout with `k` caught and Σ y_i²/m_i = `s`:
    /// Wilson on n / design effect at the correlation's upper bound, with the t quantile, or the
    /// exact Poisson bound where the effective count is at most 3 and that is lower. Both fall as
    /// the design effect rises (the count shrinks with n_eff), so the envelope's argument holds.
    fn low(&self, k: f64, s: f64) -> f64 {
        let n_eff = self.n / self.design_effect(self.icc_upper(k, s));
        let x = k / self.n * n_eff;
        let wilson = wilson_with_quantile(x, n_eff, self.t).0;
        if x > 0.0 && x <= SMALL_COUNT && n_eff.is_finite() {
            wilson.min(poisson_low(x, self.tail) / n_eff)
        } else {
            wilson
        }
    }

    /// The monotone lower bound: the least raw lower bound over every layout reachable from
    /// `clusters` (caught, cases per claim) by turning misses into catches, so one more catch
    /// can never lower it (nor one more miss raise it).
    ///
    /// For k' caught the raw bound falls as the spread between claims s = Σ y_i²/m_i rises (a
    /// larger F, a larger correlation bound, a smaller n_eff; the rate k'/n stays), so the least
    /// bound over the layouts with k' caught is the one at the largest reachable s. That is a
    /// maximum of a convex function over {y_i <= y'_i <= m_i, Σ y'_i = k'}; its value is
    /// bounded above (tightly: within one claim's (m - y)²/(4m), since some best layout has at
    /// most one claim part-way) by the same maximum with each claim's y²/m replaced by its chord
    /// from y_i to m_i, which is the fractional knapsack solved greedily: raise claims a case at a
    /// time in order of the chord's slope (y_i + m_i) / m_i. One pass over the claims sorted by
    /// that slope gives the bound for every k' at once. Using the chord bound only lowers the
    /// bound (never narrower than the exact envelope) and keeps it monotone: a layout with one
    /// more catch has a subset of the reachable layouts and chords below the old ones.
    fn envelope_low(&self, clusters: &[(u64, u64)]) -> f64 {
        let mut k: f64 = clusters.iter().map(|(y, _)| *y as f64).sum();
        let mut s: f64 = clusters
            .iter()
            .map(|(y, m)| (*y as f64) * (*y as f64) / *m as f64)
            .sum();
        let mut room: Vec<(f64, u64)> = clusters
            .iter()
            .filter(|(y, m)| y < m)
            .map(|(y, m)| ((*y + *m) as f64 / *m as f64, *m - *y))
            .collect();
        room.sort_by(|a, b| b.0.total_cmp(&a.0));
        let mut best = self.low(k, s);
        for (slope, units) in room {
            for _ in 0..units {
                k += 1.0;
                s = (s + slope).min(k);
                best = best.min(self.low(k, s));
            }
        }
        best
    }
}

/// The cluster-aware interval of a rate from its clusters: (successes, cases) per cluster.
///
/// Wilson's interval on n / design effect, the design effect 1 + (Σ m_i²/n - 1) rho_U from a 90%
/// upper bound rho_U on the intra-claim correlation (the ANOVA estimator's, from its F
/// distribution), with the t quantile of C - 1 degrees of freedom for C clusters in place of z
/// (and the exact Poisson bound on a side whose effective count is at most 3);
/// made monotone by taking, for the lower bound, the least over the layouts reachable by turning
/// misses into catches and, for the upper bound, the greatest over those reachable by turning
/// catches into misses. One cluster gives [0, 1]: a single claim says nothing about the claims it
/// stands for.
pub fn cluster_rate(clusters: &[(u64, u64)], confidence: f64) -> ClusterRate {
    let caught: Vec<(u64, u64)> = clusters
        .iter()
        .filter(|(_, m)| *m > 0)
        .map(|(y, m)| ((*y).min(*m), *m))
        .collect();
    let shape = Shape::new(caught.iter().map(|c| c.1), confidence);
    if shape.n == 0.0 {
        return ClusterRate {
            clusters: 0,
            icc_upper: 0.0,
            design_effect: 1.0,
            n_eff: 0.0,
            ci_low: 0.0,
            ci_high: 1.0,
        };
    }
    let k: f64 = caught.iter().map(|(y, _)| *y as f64).sum();
    let s: f64 = caught
        .iter()
        .map(|(y, m)| (*y as f64) * (*y as f64) / *m as f64)
        .sum();
    let icc_upper = shape.icc_upper(k, s);
    let design_effect = shape.design_effect(icc_upper);
    let (ci_low, ci_high) = if shape.t.is_finite() {
        let missed: Vec<(u64, u64)> = caught.iter().map(|(y, m)| (m - y, *m)).collect();
        // the upper bound is one minus the lower bound of the misses (Wilson and the ANOVA
        // estimator are symmetric in caught and missed)
        (
            shape.envelope_low(&caught),
            1.0 - shape.envelope_low(&missed),
        )
    } else {
        (0.0, 1.0)
    };
    ClusterRate {
        clusters: shape.c as u64,
        icc_upper,
        design_effect,
        n_eff: shape.n / design_effect,
        ci_low,
        ci_high,
    }
}

/// The interval this module gave before: Wilson on the effective n of the sizes alone,
/// n² / Σ m_i² (a correlation of 1 whatever the outcomes), with the same t quantile. Kept for the
/// coverage grid and the width table, which compare the two.
#[cfg(test)]
pub(crate) fn cluster_rate_by_sizes(clusters: &[(u64, u64)], confidence: f64) -> (f64, f64) {
    let clusters: Vec<(f64, f64)> = clusters
        .iter()
        .filter(|(_, m)| *m > 0)
        .map(|(y, m)| (*y as f64, *m as f64))
        .collect();
    let c = clusters.len() as f64;
    let n: f64 = clusters.iter().map(|(_, m)| m).sum();
    let k: f64 = clusters.iter().map(|(y, _)| y).sum();
    if n == 0.0 {
        return (0.0, 1.0);
    }
    let squares: f64 = clusters.iter().map(|(_, m)| m * m).sum();
    let n_eff = n / (squares / n).max(1.0);
    wilson_with_quantile(k / n * n_eff, n_eff, t_quantile(confidence, c - 1.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::wilson;

    #[test]
    fn independent_cases_give_the_plain_wilson_interval() {
        // one case per cluster, a mix of outcomes: deff is about 1
        let clusters: Vec<(u64, u64)> = (0..40).map(|i| (u64::from(i % 4 != 0), 1)).collect();
        let r = cluster_rate(&clusters, 0.95);
        let (lo, hi) = wilson(30, 40, 0.95);
        assert!((r.design_effect - 1.0).abs() < 0.05, "{r:?}");
        assert!(
            (r.ci_low - lo).abs() < 0.01 && (r.ci_high - hi).abs() < 0.01,
            "{r:?}"
        );
    }

    #[test]
    fn misses_that_concentrate_on_few_parents_widen_the_interval() {
        // 12 claims with 2 mutants each; the 6 misses are both mutants of 3 claims
        let clusters: Vec<(u64, u64)> = (0..12)
            .map(|i| if i < 3 { (0, 2) } else { (2, 2) })
            .collect();
        let r = cluster_rate(&clusters, 0.95);
        let (lo, hi) = wilson(18, 24, 0.95);
        assert!(r.design_effect > 1.5, "{r:?}");
        assert!(r.ci_high - r.ci_low > hi - lo, "{r:?} vs [{lo}, {hi}]");
        // all caught: the effective n is the number of claims
        let all: Vec<(u64, u64)> = (0..12).map(|_| (2, 2)).collect();
        let r = cluster_rate(&all, 0.95);
        assert_eq!(r.n_eff, 12.0);
        let t = t_quantile(0.95, 11.0);
        assert!((r.ci_low - 12.0 / (12.0 + t * t)).abs() < 1e-12, "{r:?}");
    }

    #[test]
    fn one_more_miss_never_raises_a_bound_as_in_the_audit() {
        // 8 claims x 5 mutants: 40/40 and 39/40; 12 x 2: 24/24 and 23/24
        for (c, m) in [(8u64, 5u64), (12, 2)] {
            let all: Vec<(u64, u64)> = (0..c).map(|_| (m, m)).collect();
            let mut one_miss = all.clone();
            one_miss[0].0 -= 1;
            let a = cluster_rate(&all, 0.95);
            let b = cluster_rate(&one_miss, 0.95);
            assert!(
                b.ci_low <= a.ci_low && b.ci_high <= a.ci_high,
                "{a:?} {b:?}"
            );
        }
        // the all-caught bound uses t with C - 1 degrees of freedom: 8 / (8 + t²)
        let t = t_quantile(0.95, 7.0);
        assert!((t - 2.364_624).abs() < 1e-5, "{t}");
        let a = cluster_rate(&[(5, 5); 8], 0.95);
        assert!((a.ci_low - 8.0 / (8.0 + t * t)).abs() < 1e-12, "{a:?}");
        // one claim says nothing about the others
        let one = cluster_rate(&[(3, 4)], 0.95);
        assert_eq!((one.ci_low, one.ci_high), (0.0, 1.0));
    }

    #[test]
    fn the_envelope_is_never_narrower_than_the_exact_one_and_close_to_it() {
        // every layout of up to 4 claims of 1-4 mutants: the lower bound against the least raw
        // lower bound over every layout with at least these catches, found by enumeration
        let mut rng = crate::stats::TestRng(11);
        let mut widest_gap = 0.0f64;
        for _ in 0..400 {
            let c = 2 + (rng.next_f64() * 3.0) as usize;
            let clusters: Vec<(u64, u64)> = (0..c)
                .map(|_| {
                    let m = 1 + (rng.next_f64() * 4.0) as u64;
                    ((rng.next_f64() * (m + 1) as f64) as u64 % (m + 1), m)
                })
                .collect();
            let shape = Shape::new(clusters.iter().map(|c| c.1), 0.95);
            let mut exact = f64::INFINITY;
            let mut layout: Vec<u64> = clusters.iter().map(|c| c.0).collect();
            loop {
                let k: f64 = layout.iter().map(|y| *y as f64).sum();
                let s: f64 = layout
                    .iter()
                    .zip(&clusters)
                    .map(|(y, (_, m))| (*y as f64) * (*y as f64) / *m as f64)
                    .sum();
                exact = exact.min(shape.low(k, s));
                // the next layout with y_i <= y'_i <= m_i, an odometer
                let mut i = 0;
                while i < c && layout[i] == clusters[i].1 {
                    layout[i] = clusters[i].0;
                    i += 1;
                }
                if i == c {
                    break;
                }
                layout[i] += 1;
            }
            let got = cluster_rate(&clusters, 0.95).ci_low;
            assert!(got <= exact + 1e-12, "{clusters:?}: {got} > {exact}");
            widest_gap = widest_gap.max(exact - got);
        }
        assert!(widest_gap < 0.05, "{widest_gap}");
        eprintln!(
            "the chord bound's lower bound is at most {widest_gap:.4} under the exact envelope's"
        );
    }

    #[test]
    fn a_large_layout_gives_a_finite_interval_near_plain_wilson_when_cases_are_independent() {
        // 20,000 claims of 1-5 mutants, each caught with 0.8 on its own
        let mut rng = crate::stats::TestRng(3);
        let clusters: Vec<(u64, u64)> = (0..20_000)
            .map(|_| {
                let m = (1 + (rng.next_f64() * 5.0) as u64).min(5);
                ((0..m).filter(|_| rng.next_f64() < 0.8).count() as u64, m)
            })
            .collect();
        let r = cluster_rate(&clusters, 0.95);
        let k: u64 = clusters.iter().map(|c| c.0).sum();
        let n: u64 = clusters.iter().map(|c| c.1).sum();
        let (lo, hi) = wilson(k, n, 0.95);
        let sizes = cluster_rate_by_sizes(&clusters, 0.95);
        assert!(r.ci_low.is_finite() && r.ci_high.is_finite(), "{r:?}");
        assert!(r.ci_low <= lo && hi <= r.ci_high, "{r:?} vs [{lo}, {hi}]");
        assert!(
            sizes.0 <= r.ci_low && r.ci_high <= sizes.1,
            "{r:?} vs {sizes:?}"
        );
        let ratio = (r.ci_high - r.ci_low) / (hi - lo);
        assert!(ratio < 1.1, "{ratio} {r:?}");
        assert!(r.icc_upper < 0.05, "{r:?}");
    }

    #[test]
    fn the_small_count_bound_is_the_exact_poisson_one() {
        // one event: -ln(0.975); three: half the 2.5% point of chi-square with 6 degrees of
        // freedom (scipy.stats.chi2.ppf(0.025, 6) / 2)
        assert!((poisson_low(1.0, 0.025) - -(0.975f64.ln())).abs() < 1e-10);
        assert!((poisson_low(3.0, 0.025) - 1.237_344_245_791_202_7 / 2.0).abs() < 1e-9);
        // a fraction of an event: tiny, never zero, rising with the count
        let a = poisson_low(0.3, 0.025);
        assert!(a > 0.0 && a < poisson_low(0.6, 0.025), "{a}");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
        #[test]
        fn one_more_miss_never_raises_either_bound(
            sizes in proptest::collection::vec(1u64..7, 1..16),
            fill in proptest::collection::vec(0.0f64..=1.0, 16),
            which in 0usize..16,
            confidence in proptest::prop_oneof![proptest::strategy::Just(0.9), proptest::strategy::Just(0.95), proptest::strategy::Just(0.99)],
        ) {
            let clusters: Vec<(u64, u64)> = sizes
                .iter()
                .zip(&fill)
                .map(|(m, f)| (((*m as f64) * f).round() as u64, *m))
                .collect();
            // turn one caught case into a miss, in the first cluster from `which` that has one
            let at = (0..clusters.len())
                .map(|i| (which + i) % clusters.len())
                .find(|&i| clusters[i].0 > 0);
            if let Some(at) = at {
                let mut worse = clusters.clone();
                worse[at].0 -= 1;
                let a = cluster_rate(&clusters, confidence);
                let b = cluster_rate(&worse, confidence);
                proptest::prop_assert!(b.ci_low <= a.ci_low + 1e-12, "{:?} -> {:?}: {:?} {:?}", clusters, worse, a, b);
                proptest::prop_assert!(b.ci_high <= a.ci_high + 1e-12, "{:?} -> {:?}: {:?} {:?}", clusters, worse, a, b);
            }
        }
    }

    #[test]
    fn the_clustered_interval_covers_its_level_where_the_plain_one_does_not() {
        // 40 parent claims with 1-5 mutants each; a claim is "easy" (each mutant caught with
        // 0.98) or "hard" (0.38), 70/30: the true catch rate is 0.8, strongly clustered
        let mut rng = crate::stats::TestRng(20261129);
        let truth = 0.7 * 0.98 + 0.3 * 0.38;
        let reps = 2000;
        let (mut plain, mut clustered) = (0, 0);
        for _ in 0..reps {
            let clusters: Vec<(u64, u64)> = (0..40)
                .map(|_| {
                    let m = 1 + (rng.next_f64() * 5.0) as u64;
                    let p = if rng.next_f64() < 0.7 { 0.98 } else { 0.38 };
                    let y = (0..m).filter(|_| rng.next_f64() < p).count() as u64;
                    (y, m.min(5))
                })
                .collect();
            let k: u64 = clusters.iter().map(|c| c.0).sum();
            let n: u64 = clusters.iter().map(|c| c.1).sum();
            let (lo, hi) = wilson(k, n, 0.95);
            plain += usize::from(lo <= truth && truth <= hi);
            let r = cluster_rate(&clusters, 0.95);
            clustered += usize::from(r.ci_low <= truth && truth <= r.ci_high);
        }
        let (plain, clustered) = (plain as f64 / reps as f64, clustered as f64 / reps as f64);
        // Monte Carlo error of a 95% coverage over 2000 runs is about 0.005
        assert!(
            (0.925..=0.995).contains(&clustered),
            "clustered coverage {clustered}"
        );
        assert!(
            plain < 0.91,
            "plain Wilson coverage {plain} should fall short here"
        );
        eprintln!("coverage of 95% intervals: clustered {clustered:.4}, plain Wilson {plain:.4}");
    }
}
