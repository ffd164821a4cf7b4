//! Threshold sweep: every cut point of a score, with false alarms and detection per fault type.
//!
//! A case is flagged at threshold `t` when its score is below `t` (supported when it reaches
//! it). Every distinct score is a cut point, plus one above the highest score (flag everything).
//! Pure: the items come from a finished run.

use super::cluster::{cluster_rate_of, ClusterRate};
use super::sample_size::sample_size;
use super::wilson::Rate;
use serde::Serialize;
use std::collections::BTreeMap;

/// One scored case as the sweep sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepItem {
    pub score: f64,
    /// None for a faithful case, the fault type for a fault.
    pub fault_type: Option<String>,
    /// A faithful case that is a rewrite or an equivalent mutant: its false alarms are counted
    /// in the invariance rate, apart from the verified claims'.
    pub invariance: bool,
    /// The claim the case comes from (a mutant's parent, else the case itself): the cluster of
    /// the cluster-aware intervals.
    pub cluster: String,
    /// A fault mutant's parent claim's score (NaN when the parent has none): the mutant is
    /// informative at a threshold only where its parent is supported (scores at least the
    /// threshold). None for every other case.
    pub parent_score: Option<f64>,
}

impl SweepItem {
    /// Whether the case counts at `threshold`: a fault mutant only while its parent is supported.
    pub fn informative(&self, threshold: f64) -> bool {
        self.parent_score.is_none_or(|p| p >= threshold)
    }
}

/// Rates at one threshold.
#[derive(Debug, Clone, Serialize)]
pub struct SweepPoint {
    pub threshold: f64,
    pub false_alarms: Rate,
    /// False alarms on rewrites and equivalent mutants.
    pub invariance: Rate,
    /// All faults together.
    pub detection: Rate,
    pub by_fault_type: BTreeMap<String, Rate>,
    /// All faults together, with the cluster-aware interval.
    pub detection_clustered: ClusterRate,
    /// Each fault type, with the cluster-aware interval.
    pub by_fault_type_clustered: BTreeMap<String, ClusterRate>,
    /// Fault mutants left out at this threshold because their parent claim is flagged here.
    pub parent_flagged: u64,
}

/// Rates at a threshold.
pub fn at(items: &[SweepItem], threshold: f64, confidence: f64) -> SweepPoint {
    let flagged = |i: &SweepItem| i.score < threshold;
    let faithful: Vec<&SweepItem> = items
        .iter()
        .filter(|i| i.fault_type.is_none() && !i.invariance)
        .collect();
    let invariance: Vec<&SweepItem> = items
        .iter()
        .filter(|i| i.fault_type.is_none() && i.invariance)
        .collect();
    let all_faults = items.iter().filter(|i| i.fault_type.is_some());
    let parent_flagged = all_faults
        .clone()
        .filter(|i| !i.informative(threshold))
        .count() as u64;
    let faults: Vec<&SweepItem> = all_faults.filter(|i| i.informative(threshold)).collect();
    let mut by_type: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    // every fault type has its row at every threshold, even with no informative mutant there
    for f in items.iter().filter(|i| i.fault_type.is_some()) {
        by_type
            .entry(f.fault_type.clone().unwrap_or_default())
            .or_default();
    }
    for f in &faults {
        let e = by_type
            .entry(f.fault_type.clone().unwrap_or_default())
            .or_default();
        e.1 += 1;
        if flagged(f) {
            e.0 += 1;
        }
    }
    let clustered = |cases: &mut dyn Iterator<Item = &&SweepItem>| {
        cluster_rate_of(cases.map(|f| (f.cluster.as_str(), flagged(f))), confidence)
    };
    let by_fault_type_clustered = by_type
        .keys()
        .map(|t| {
            let mut of_type = faults
                .iter()
                .filter(|f| f.fault_type.as_deref() == Some(t.as_str()));
            (t.clone(), clustered(&mut of_type))
        })
        .collect();
    SweepPoint {
        parent_flagged,
        detection_clustered: clustered(&mut faults.iter()),
        by_fault_type_clustered,
        threshold,
        false_alarms: Rate::new(
            faithful.iter().filter(|i| flagged(i)).count() as u64,
            faithful.len() as u64,
            confidence,
        ),
        invariance: Rate::new(
            invariance.iter().filter(|i| flagged(i)).count() as u64,
            invariance.len() as u64,
            confidence,
        ),
        detection: Rate::new(
            faults.iter().filter(|i| flagged(i)).count() as u64,
            faults.len() as u64,
            confidence,
        ),
        by_fault_type: by_type
            .into_iter()
            .map(|(k, (a, n))| (k, Rate::new(a, n, confidence)))
            .collect(),
    }
}

/// The cut points: every distinct score, then one just above the highest.
pub fn thresholds(items: &[SweepItem]) -> Vec<f64> {
    let mut scores: Vec<f64> = items
        .iter()
        .map(|i| i.score)
        .filter(|s| s.is_finite())
        .collect();
    scores.sort_by(f64::total_cmp);
    scores.dedup();
    if let Some(max) = scores.last().copied() {
        scores.push(max + 1e-6);
    }
    scores
}

/// The whole sweep, lowest threshold first.
pub fn sweep(items: &[SweepItem], confidence: f64) -> Vec<SweepPoint> {
    thresholds(items)
        .into_iter()
        .map(|t| at(items, t, confidence))
        .collect()
}

/// The threshold with the best overall detection whose false-alarm upper bound is at most
/// `max_false_alarm`; the lowest such threshold on a tie (fewest flags). None when no threshold
/// keeps the upper bound that low, or when those that do catch no fault at all (flagging nothing
/// would do as well).
pub fn recommend(points: &[SweepPoint], max_false_alarm: f64) -> Option<&SweepPoint> {
    points
        .iter()
        .filter(|p| p.false_alarms.ci_high <= max_false_alarm && p.detection.k > 0)
        .max_by(|a, b| {
            a.detection
                .k
                .cmp(&b.detection.k)
                .then(b.threshold.total_cmp(&a.threshold))
        })
}

/// A fault type whose sample is too small to pin its rate within `margin`.
#[derive(Debug, Clone, Serialize)]
pub struct TooSmall {
    pub fault_type: String,
    pub n: u64,
    pub half_width: f64,
    /// Labelled faults needed to pin a rate near the observed one within the margin.
    pub needed: u64,
}

/// Fault types whose interval at `point` is wider than ±`margin`.
pub fn too_small(point: &SweepPoint, margin: f64, confidence: f64) -> Vec<TooSmall> {
    point
        .by_fault_type
        .iter()
        .filter(|(_, r)| (r.ci_high - r.ci_low) / 2.0 > margin)
        .map(|(ft, r)| TooSmall {
            fault_type: ft.clone(),
            n: r.n,
            half_width: (r.ci_high - r.ci_low) / 2.0,
            // a rate at 0 or 1 would ask for no cases at all: plan for one near it instead
            needed: sample_size(r.rate.unwrap_or(0.5).clamp(0.1, 0.9), margin, confidence),
        })
        .collect()
}

/// Splits items into (calibration, held-out) by a stable hash of a grouping key, so a threshold
/// is never chosen and judged on the same cases (mutants go with their parent claim).
pub fn split<T: Clone>(items: &[(String, T)], fraction: f64) -> (Vec<T>, Vec<T>) {
    use sha2::{Digest, Sha256};
    let mut cal = Vec::new();
    let mut held = Vec::new();
    for (key, item) in items {
        let d = Sha256::digest(key.as_bytes());
        let x = u64::from_be_bytes(d[..8].try_into().expect("8 bytes")) as f64 / u64::MAX as f64;
        if x < fraction {
            cal.push(item.clone());
        } else {
            held.push(item.clone());
        }
    }
    (cal, held)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(score: f64, ft: Option<&str>) -> SweepItem {
        SweepItem {
            invariance: false,
            score,
            fault_type: ft.map(str::to_string),
            cluster: format!("{score}"),
            parent_score: None,
        }
    }

    #[test]
    fn a_mutant_counts_only_at_thresholds_where_its_parent_is_supported() {
        let parent = item(0.6, None);
        let mut m = item(0.3, Some("number_swap"));
        m.parent_score = Some(0.6);
        let items = vec![parent, m];
        // at 0.5 the parent (0.6) is supported: the mutant (0.3) is caught
        let p = at(&items, 0.5, 0.95);
        assert_eq!((p.detection.k, p.detection.n, p.parent_flagged), (1, 1, 0));
        // at 0.7 the parent is flagged too: the mutant says nothing, and is left out
        let p = at(&items, 0.7, 0.95);
        assert_eq!((p.detection.k, p.detection.n, p.parent_flagged), (0, 0, 1));
        assert_eq!(p.by_fault_type["number_swap"].n, 0, "the row stays, empty");
    }

    fn fixture() -> Vec<SweepItem> {
        vec![
            item(0.99, None),
            item(0.95, None),
            item(0.90, None),
            item(0.10, Some("negation_flip")),
            item(0.20, Some("negation_flip")),
            item(0.93, Some("entity_swap")),
            item(0.97, Some("entity_swap")),
        ]
    }

    #[test]
    fn every_distinct_score_is_a_cut_point() {
        let t = thresholds(&fixture());
        assert_eq!(t.len(), 8);
        let p = at(&fixture(), 0.95, 0.95);
        assert_eq!((p.false_alarms.k, p.false_alarms.n), (1, 3)); // 0.90 flagged
        assert_eq!(p.by_fault_type["entity_swap"].k, 1); // 0.93 flagged, 0.97 passes
        assert_eq!(p.detection.k, 3);
    }

    #[test]
    fn the_recommendation_keeps_the_false_alarm_bound_and_maximises_detection() {
        let points = sweep(&fixture(), 0.95);
        // with 3 faithful cases the upper bound is 0.56 even with no false alarm
        let r = recommend(&points, 0.6).unwrap();
        assert_eq!(r.false_alarms.k, 0);
        assert_eq!(r.threshold, 0.90); // 0.93 would flag the 0.90 faithful claim
        assert_eq!(r.detection.k, 2);
        assert!(recommend(&points, 0.5).is_none());
        let loose = recommend(&points, 1.0).unwrap();
        assert_eq!(loose.detection.k, 4);
    }

    #[test]
    fn a_threshold_that_catches_nothing_is_never_recommended() {
        // the only thresholds under the bound flag nothing: no recommendation
        let items = vec![
            item(0.2, None),
            item(0.3, None),
            item(0.4, None),
            item(0.9, Some("number_swap")),
        ];
        let points = sweep(&items, 0.95);
        assert!(points.iter().any(|p| p.false_alarms.ci_high <= 0.6));
        assert!(recommend(&points, 0.6).is_none());
    }

    #[test]
    fn small_samples_are_flagged_with_the_size_needed() {
        let p = at(&fixture(), 0.95, 0.95);
        let small = too_small(&p, 0.05, 0.95);
        assert_eq!(small.len(), 2);
        let neg = small
            .iter()
            .find(|s| s.fault_type == "negation_flip")
            .unwrap();
        assert_eq!(neg.needed, 141); // a rate of 1.0 plans for 0.9: 141 at ±0.05 (Wilson)
    }

    #[test]
    fn the_split_is_stable_and_keeps_groups_together() {
        let items: Vec<(String, usize)> =
            (0..200).map(|i| (format!("parent{}", i / 4), i)).collect();
        let (a, b) = split(&items, 0.5);
        let (a2, _) = split(&items, 0.5);
        assert_eq!(a, a2);
        assert!(a.len() > 40 && b.len() > 40);
        for i in &a {
            assert!(
                !b.iter().any(|j| j / 4 == i / 4),
                "a parent's cases were split"
            );
        }
    }
}
