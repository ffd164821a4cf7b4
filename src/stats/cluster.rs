//! A catch rate's interval when its cases come in clusters.
//!
//! The mutants of one verified claim share its sentence: if a checker misses one it tends to miss
//! its siblings, so 24 faults from 12 claims carry less information than 24 independent faults
//! and a plain Wilson interval over them is too narrow. This module gives a Wilson interval on the
//! *effective* sample size of the clusters (the parent claims):
//!
//!   n_eff = n² / Σ m_i²   (the design effect Σ m_i² / n),
//!
//! the effective n when each claim's mutants come out alike (an intra-cluster correlation of 1),
//! with the two-sided t quantile of C - 1 degrees of freedom in place of z, since the clusters,
//! not the cases, are the sample. With equal clusters n_eff is C, the number of claims.
//!
//! Why not a design effect estimated from the outcomes (as this module did before): an estimate
//! from where the misses fall makes the interval jump as a miss moves or is added. 40 of 40
//! caught in 8 claims gave [0.676, 1] and 39 of 40 gave [0.869, 0.996]; one more miss raised the
//! lower bound by 0.19, and across random cluster layouts by up to 0.09 anywhere in the range. An
//! interval that rises when the checker does worse cannot gate anything. Fixed by the sizes, n_eff
//! does not depend on the outcomes, so the bounds rise with every case caught (property-tested:
//! one more miss never raises either bound), and the interval is valid whatever the correlation.
//! The price is width where the mutants of a claim are in fact independent: in the grid test
//! below (8 or 40 claims with 1-5 mutants, rates 0.5-0.95, intra-cluster correlation 0-0.8, 1000
//! replications a cell, Monte Carlo error about 0.007) a 95% interval covers 0.966-1.000 of the
//! time, 0.966-0.983 at correlation 0.8, where the plain Wilson interval covers about 0.81. With
//! z in place of t the lowest cell falls to 0.947.
//!
//! Why not a cluster bootstrap: with the 5-30 clusters a suite has per fault type, percentile
//! bootstrap intervals under-cover and depend on the seed.

use super::wilson::wilson_with_quantile;
use serde::Serialize;

/// A rate's cluster-aware interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ClusterRate {
    /// Parent claims (clusters) the cases come from.
    pub clusters: u64,
    /// The design effect (>= 1): how many times the plain Wilson variance understates the truth.
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
fn t_quantile(confidence: f64, df: f64) -> f64 {
    use statrs::distribution::{ContinuousCDF, StudentsT};
    match StudentsT::new(0.0, 1.0, df) {
        Ok(t) if df >= 1.0 => t.inverse_cdf(1.0 - (1.0 - confidence) / 2.0),
        _ => f64::INFINITY,
    }
}

/// The cluster-aware interval of a rate from its clusters: (successes, cases) per cluster.
///
/// Wilson's interval on the effective n of the clusters' sizes, n² / Σ m_i² (each cluster's cases
/// counted as one observation, weighted by size), with the t quantile of C - 1 degrees of
/// freedom for C clusters in place of z. One cluster gives [0, 1]: a single claim says nothing
/// about the claims it stands for.
pub fn cluster_rate(clusters: &[(u64, u64)], confidence: f64) -> ClusterRate {
    let clusters: Vec<(f64, f64)> = clusters
        .iter()
        .filter(|(_, m)| *m > 0)
        .map(|(y, m)| (*y as f64, *m as f64))
        .collect();
    let c = clusters.len() as f64;
    let n: f64 = clusters.iter().map(|(_, m)| m).sum();
    let k: f64 = clusters.iter().map(|(y, _)| y).sum();
    if n == 0.0 {
        return ClusterRate {
            clusters: 0,
            design_effect: 1.0,
            n_eff: 0.0,
            ci_low: 0.0,
            ci_high: 1.0,
        };
    }
    let p = k / n;
    let squares: f64 = clusters.iter().map(|(_, m)| m * m).sum();
    let design_effect = (squares / n).max(1.0);
    let n_eff = n / design_effect;
    let (ci_low, ci_high) = wilson_with_quantile(p * n_eff, n_eff, t_quantile(confidence, c - 1.0));
    ClusterRate {
        clusters: c as u64,
        design_effect,
        n_eff,
        ci_low,
        ci_high,
    }
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

    /// Coverage of 95% clustered intervals over a grid of populations: C parents with 1-5
    /// mutants each, catch rate mu, intra-cluster correlation rho (a parent's mutants share one
    /// outcome with probability rho, else each is drawn alone), 1000 replications per cell.
    #[test]
    fn the_clustered_interval_covers_its_level_on_every_cell_of_the_grid() {
        let mut rng = crate::stats::TestRng(20261130);
        let reps = 1000;
        let mut rows = Vec::new();
        for c in [8usize, 40] {
            for mu in [0.5, 0.8, 0.95] {
                for rho in [0.0, 0.3, 0.8] {
                    let mut covered = 0;
                    for _ in 0..reps {
                        let clusters: Vec<(u64, u64)> = (0..c)
                            .map(|_| {
                                let m = 1 + (rng.next_f64() * 5.0) as u64;
                                let y = if rng.next_f64() < rho {
                                    if rng.next_f64() < mu {
                                        m
                                    } else {
                                        0
                                    }
                                } else {
                                    (0..m).filter(|_| rng.next_f64() < mu).count() as u64
                                };
                                (y, m.min(5))
                            })
                            .collect();
                        let r = cluster_rate(&clusters, 0.95);
                        covered += usize::from(r.ci_low <= mu && mu <= r.ci_high);
                    }
                    rows.push((c, mu, rho, covered as f64 / reps as f64));
                }
            }
        }
        for (c, mu, rho, cov) in &rows {
            eprintln!("C={c:>2} rate={mu:.2} icc={rho:.1}: coverage {cov:.3}");
        }
        // Monte Carlo error of one cell: about 0.007
        let low = rows.iter().map(|r| r.3).fold(1.0, f64::min);
        assert!(low >= 0.925, "{rows:?}");
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
