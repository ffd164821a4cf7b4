//! A catch rate's interval when its cases come in clusters.
//!
//! The mutants of one verified claim share its sentence: if a checker misses one it tends to miss
//! its siblings, so 24 faults from 12 claims carry less information than 24 independent faults
//! and a plain Wilson interval over them is too narrow. This module gives a Wilson interval on the
//! *effective* sample size: n divided by the design effect, estimated from the clusters (the
//! parent claims) with the cluster-robust variance of a ratio estimator,
//!
//!   var(p) = C / (C - 1) · Σ (y_i - p·m_i)² / (Σ m_i)²,   deff = var(p) / (p(1-p)/n),
//!
//! floored at 1 (clustering is never taken to add information). When every case came out the
//! same (p = 0 or 1) the variance says nothing, and the effective n is the number of clusters:
//! the cautious choice that treats each claim's mutants as one observation.
//!
//! Why not a cluster bootstrap: with the 5–30 clusters a suite has per fault type, percentile
//! bootstrap intervals under-cover and depend on the seed; the design-effect Wilson interval is
//! deterministic, keeps Wilson's behaviour at 0 and 1, and covers its nominal level in the
//! simulation test below (about 94% for 95% on a strongly clustered population, where the plain
//! Wilson interval covers about 86%).

use super::wilson::wilson_effective;
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

/// The cluster-aware interval of a rate from its clusters: (successes, cases) per cluster.
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
    let design_effect = if p <= 0.0 || p >= 1.0 {
        n / c
    } else if c < 2.0 {
        n // one cluster: one observation
    } else {
        let ss: f64 = clusters.iter().map(|(y, m)| (y - p * m).powi(2)).sum();
        let var = c / (c - 1.0) * ss / (n * n);
        (var / (p * (1.0 - p) / n)).max(1.0)
    };
    let n_eff = n / design_effect;
    let (ci_low, ci_high) = wilson_effective(p * n_eff, n_eff, confidence);
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
        assert!((r.ci_low - wilson(12, 12, 0.95).0).abs() < 1e-12);
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
            (0.925..=0.975).contains(&clustered),
            "clustered coverage {clustered}"
        );
        assert!(
            plain < 0.91,
            "plain Wilson coverage {plain} should fall short here"
        );
        eprintln!("coverage of 95% intervals: clustered {clustered:.3}, plain Wilson {plain:.3}");
    }
}
