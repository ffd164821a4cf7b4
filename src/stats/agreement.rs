//! Agreement of a checker with a person's labels: the confusion matrix and the figures people
//! quote from it, each with an interval, and the AUROC of a score.
//!
//! - Precision, recall (sensitivity) and specificity are proportions: Wilson intervals.
//! - F1 = 2·TP / (2·TP + FP + FN) is a monotone function of J = TP / (TP + FP + FN), itself a
//!   proportion of the cases that are positive in either the labels or the verdicts, so F1's
//!   interval is the Wilson interval of J mapped through 2J / (1 + J).
//! - Balanced accuracy = (recall + specificity) / 2 of two independent proportions (positives and
//!   negatives are disjoint): the interval is Newcombe's MOVER for a sum, from the two Wilson
//!   intervals, halved.
//! - AUROC is the Mann–Whitney probability that a labelled-faithful answer scores higher than a
//!   labelled-hallucinated one (ties count half), with the Hanley–McNeil standard error.

use super::wilson::{wilson, z_for, Rate};
use serde::Serialize;

/// A value and its interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Estimate {
    pub value: Option<f64>,
    pub ci_low: f64,
    pub ci_high: f64,
}

/// Confusion matrix of "flagged" against "labelled hallucinated", with what follows from it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Confusion {
    /// Hallucinated and flagged.
    pub tp: u64,
    /// Faithful but flagged: false alarms.
    pub fp: u64,
    /// Hallucinated but passed: misses.
    pub fn_: u64,
    /// Faithful and passed.
    pub tn: u64,
    pub precision: Rate,
    pub recall: Rate,
    pub specificity: Rate,
    pub f1: Estimate,
    pub balanced_accuracy: Estimate,
}

impl Confusion {
    pub fn new(tp: u64, fp: u64, fn_: u64, tn: u64, confidence: f64) -> Confusion {
        let recall = Rate::new(tp, tp + fn_, confidence);
        let specificity = Rate::new(tn, tn + fp, confidence);
        let j_n = tp + fp + fn_;
        let f1 = if j_n == 0 {
            Estimate {
                value: None,
                ci_low: 0.0,
                ci_high: 1.0,
            }
        } else {
            let (lo, hi) = wilson(tp, j_n, confidence);
            let f = |j: f64| 2.0 * j / (1.0 + j);
            Estimate {
                value: Some(f(tp as f64 / j_n as f64)),
                ci_low: f(lo),
                ci_high: f(hi),
            }
        };
        let balanced_accuracy = match (recall.rate, specificity.rate) {
            (Some(r), Some(s)) => {
                let lo =
                    r + s - ((r - recall.ci_low).powi(2) + (s - specificity.ci_low).powi(2)).sqrt();
                let hi = r
                    + s
                    + ((recall.ci_high - r).powi(2) + (specificity.ci_high - s).powi(2)).sqrt();
                Estimate {
                    value: Some((r + s) / 2.0),
                    ci_low: (lo / 2.0).max(0.0),
                    ci_high: (hi / 2.0).min(1.0),
                }
            }
            _ => Estimate {
                value: None,
                ci_low: 0.0,
                ci_high: 1.0,
            },
        };
        Confusion {
            tp,
            fp,
            fn_,
            tn,
            precision: Rate::new(tp, tp + fp, confidence),
            recall,
            specificity,
            f1,
            balanced_accuracy,
        }
    }

    /// From (labelled hallucinated, flagged) pairs.
    pub fn of(pairs: impl IntoIterator<Item = (bool, bool)>, confidence: f64) -> Confusion {
        let (mut tp, mut fp, mut fn_, mut tn) = (0, 0, 0, 0);
        for (h, f) in pairs {
            match (h, f) {
                (true, true) => tp += 1,
                (false, true) => fp += 1,
                (true, false) => fn_ += 1,
                (false, false) => tn += 1,
            }
        }
        Confusion::new(tp, fp, fn_, tn, confidence)
    }
}

/// The AUROC of a score at telling faithful (high) from hallucinated (low).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Auroc {
    pub auroc: f64,
    pub ci_low: f64,
    pub ci_high: f64,
    pub hallucinated: u64,
    pub faithful: u64,
}

/// AUROC from (score, labelled hallucinated) pairs; None without both classes or with a
/// non-finite score.
pub fn auroc(items: &[(f64, bool)], confidence: f64) -> Option<Auroc> {
    if items.iter().any(|(s, _)| !s.is_finite()) {
        return None;
    }
    let pos = items.iter().filter(|(_, h)| !*h).count() as f64; // faithful: should score high
    let neg = items.len() as f64 - pos;
    if pos == 0.0 || neg == 0.0 {
        return None;
    }
    // rank-sum with average ranks for ties
    let mut sorted: Vec<(f64, bool)> = items.to_vec();
    sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut rank_sum_pos = 0.0;
    let mut i = 0;
    while i < sorted.len() {
        let mut j = i;
        while j + 1 < sorted.len() && sorted[j + 1].0 == sorted[i].0 {
            j += 1;
        }
        let avg = (i + j) as f64 / 2.0 + 1.0;
        for x in &sorted[i..=j] {
            if !x.1 {
                rank_sum_pos += avg;
            }
        }
        i = j + 1;
    }
    let a = (rank_sum_pos - pos * (pos + 1.0) / 2.0) / (pos * neg);
    let q1 = a / (2.0 - a);
    let q2 = 2.0 * a * a / (1.0 + a);
    let var =
        (a * (1.0 - a) + (pos - 1.0) * (q1 - a * a) + (neg - 1.0) * (q2 - a * a)) / (pos * neg);
    let se = var.max(0.0).sqrt();
    let z = z_for(confidence);
    Some(Auroc {
        auroc: a,
        ci_low: (a - z * se).max(0.0),
        ci_high: (a + z * se).min(1.0),
        hallucinated: neg as u64,
        faithful: pos as u64,
    })
}

/// Spearman's rank correlation of two equally long lists (ties get their mean rank); NaN when
/// either list has no spread.
pub fn spearman(a: &[f64], b: &[f64]) -> f64 {
    fn ranks(x: &[f64]) -> Vec<f64> {
        let mut idx: Vec<usize> = (0..x.len()).collect();
        idx.sort_by(|i, j| x[*i].total_cmp(&x[*j]));
        let mut r = vec![0.0; x.len()];
        let mut k = 0;
        while k < idx.len() {
            let mut e = k;
            while e + 1 < idx.len() && x[idx[e + 1]] == x[idx[k]] {
                e += 1;
            }
            let mean = (k + e) as f64 / 2.0 + 1.0;
            for &i in &idx[k..=e] {
                r[i] = mean;
            }
            k = e + 1;
        }
        r
    }
    let (ra, rb) = (ranks(a), ranks(b));
    let n = ra.len() as f64;
    let (ma, mb) = (ra.iter().sum::<f64>() / n, rb.iter().sum::<f64>() / n);
    let cov: f64 = ra.iter().zip(&rb).map(|(x, y)| (x - ma) * (y - mb)).sum();
    let va: f64 = ra.iter().map(|x| (x - ma).powi(2)).sum();
    let vb: f64 = rb.iter().map(|y| (y - mb).powi(2)).sum();
    cov / (va * vb).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spearman_matches_scipy() {
        // scipy.stats.spearmanr([0.1, 0.4, 0.35, 0.8, 0.6], [1, 3, 2, 5, 4]) -> 1.0;
        // ([1, 2, 2, 3], [4, 3, 2, 1]) -> -0.9486832980505138 (ties)
        assert!(
            (spearman(&[0.1, 0.4, 0.35, 0.8, 0.6], &[1.0, 3.0, 2.0, 5.0, 4.0]) - 1.0).abs() < 1e-12
        );
        assert!(
            (spearman(&[1.0, 2.0, 2.0, 3.0], &[4.0, 3.0, 2.0, 1.0]) + 0.948_683_298_050_513_8)
                .abs()
                < 1e-12
        );
        assert!(spearman(&[1.0, 1.0, 1.0], &[1.0, 2.0, 3.0]).is_nan());
    }

    #[test]
    fn confusion_figures_match_hand_computation() {
        // 30 hallucinated: 20 flagged; 70 faithful: 10 flagged
        let c = Confusion::new(20, 10, 10, 60, 0.95);
        assert_eq!(c.precision.rate, Some(20.0 / 30.0));
        assert_eq!(c.recall.rate, Some(20.0 / 30.0));
        assert!((c.specificity.rate.unwrap() - 60.0 / 70.0).abs() < 1e-12);
        assert!((c.f1.value.unwrap() - 40.0 / 60.0).abs() < 1e-12);
        let ba = (20.0 / 30.0 + 60.0 / 70.0) / 2.0;
        assert!((c.balanced_accuracy.value.unwrap() - ba).abs() < 1e-12);
        for e in [c.f1, c.balanced_accuracy] {
            let v = e.value.unwrap();
            assert!(
                e.ci_low < v && v < e.ci_high && e.ci_low > 0.0 && e.ci_high < 1.0,
                "{e:?}"
            );
        }
        // J = 20/40: Wilson(20, 40) mapped
        let (lo, hi) = wilson(20, 40, 0.95);
        assert!((c.f1.ci_low - 2.0 * lo / (1.0 + lo)).abs() < 1e-12);
        assert!((c.f1.ci_high - 2.0 * hi / (1.0 + hi)).abs() < 1e-12);
    }

    #[test]
    fn flagging_everything_has_balanced_accuracy_one_half() {
        let c = Confusion::new(30, 70, 0, 0, 0.95);
        assert_eq!(c.balanced_accuracy.value, Some(0.5));
        assert_eq!(c.recall.rate, Some(1.0));
        assert_eq!(c.specificity.rate, Some(0.0));
    }

    #[test]
    fn auroc_by_rank_sum_with_ties() {
        // faithful 0.9, 0.8, 0.5; hallucinated 0.5, 0.1
        let items = [
            (0.9, false),
            (0.8, false),
            (0.5, false),
            (0.5, true),
            (0.1, true),
        ];
        let a = auroc(&items, 0.95).unwrap();
        // pairs: (0.9>0.5,0.1)=2, (0.8)=2, (0.5 vs 0.5 tie .5, vs 0.1 1)=1.5 → 5.5/6
        assert!((a.auroc - 5.5 / 6.0).abs() < 1e-12, "{a:?}");
        assert_eq!((a.faithful, a.hallucinated), (3, 2));
        let perfect = auroc(&[(1.0, false), (0.0, true)], 0.95).unwrap();
        assert_eq!(perfect.auroc, 1.0);
        assert!(auroc(&[(1.0, false)], 0.95).is_none());
        assert!(auroc(&[(f64::NAN, false), (0.0, true)], 0.95).is_none());
    }
}
