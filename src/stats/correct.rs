//! A production rate corrected for the checker's own errors.
//!
//! A dashboard's unsupported-answer rate is the rate at which the checker *flags* answers, not
//! the rate at which answers are unsupported: a checker that misses a third of the real errors
//! and flags 5% of the good answers turns a true 10% into an observed 11%, and a true 30% into
//! 23.5%. Two corrections, each with an interval that carries both the sampling of the log and
//! the uncertainty of what is known about the checker:
//!
//! - **Prediction-powered** ([`prediction_powered`]), when a person labelled a sample of the same
//!   log: the checker's rate on the unlabelled answers plus the labelled sample's mean of
//!   (label - flag), the "rectifier" (Angelopoulos et al., *Prediction-powered inference*,
//!   Science 2023). Unbiased whatever the checker's errors, and always defined.
//! - **Rogan-Gladen** ([`rogan_gladen`]), when the checker's sensitivity and specificity come from
//!   elsewhere (a suite run with real labelled errors): `(observed + Sp - 1) / (Se + Sp - 1)`
//!   (Rogan and Gladen, *Am J Epidemiol* 1978). Undefined when `Se + Sp <= 1` (the checker's flags
//!   carry no information about the truth), and valid only as far as the suite's errors are like
//!   the log's.
//!
//! The intervals are chosen for coverage on small calibration samples, not for a formula's
//! looks; the seeded simulations below hold them to at least nominal coverage over a grid.
//! - Rogan-Gladen: Fieller's interval for the ratio. The true rate `pi` is kept when the observed
//!   rate is within `z` standard errors of what `pi` predicts, `pi Se + (1 - pi)(1 - Sp)`, with
//!   the variance of all three estimated proportions; each proportion is Agresti-Coull adjusted
//!   (`z^2 / 2` added to each side), and the observed rate's variance is multiplied by the design
//!   effect of its clusters when there are clusters. The delta method on the ratio undercovers
//!   when `Se + Sp - 1` is itself uncertain; Fieller's set does not assume it is known.
//! - Prediction-powered: the unlabelled mean Agresti-Coull adjusted, the rectifier (a difference
//!   of paired proportions) Bonett-Price adjusted (one pseudo-count in each discordant cell); with
//!   clusters, the cluster-robust variance of the estimator when it is larger.

use super::wilson::z_for;
use serde::Serialize;

/// How a corrected rate was computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// From a labelled sample of the same log.
    PredictionPowered,
    /// From sensitivity and specificity measured elsewhere.
    RoganGladen,
    /// Every scored answer is labelled: the labels' own rate, nothing to correct.
    LabelsOnly,
}

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Method::PredictionPowered => "prediction-powered",
            Method::RoganGladen => "Rogan-Gladen",
            Method::LabelsOnly => "the labels' rate",
        }
    }
}

/// A rate corrected for the checker's errors.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Corrected {
    pub method: Method,
    /// The checker's rate, as flagged.
    pub observed: f64,
    /// The corrected rate (clipped to [0, 1]); None when the correction is undefined.
    pub estimate: Option<f64>,
    pub ci_low: f64,
    pub ci_high: f64,
    /// The checker's sensitivity and specificity behind the correction (point estimates).
    pub sensitivity: Option<f64>,
    pub specificity: Option<f64>,
    /// Why there is no corrected figure (`estimate` is None), in a sentence.
    pub undefined: Option<String>,
}

/// What is known of the checker: flagged real errors and passed faithful cases.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Calibration {
    /// Real errors the checker flagged, of `errors`.
    pub caught: u64,
    pub errors: u64,
    /// Faithful cases the checker passed, of `faithful`.
    pub passed: u64,
    pub faithful: u64,
}

impl Calibration {
    pub fn sensitivity(&self) -> Option<f64> {
        (self.errors > 0).then(|| self.caught as f64 / self.errors as f64)
    }
    pub fn specificity(&self) -> Option<f64> {
        (self.faithful > 0).then(|| self.passed as f64 / self.faithful as f64)
    }
}

/// An observed rate: `k` of `n` flagged, and with clusters the cluster-robust variance of `k / n`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Observed {
    pub k: f64,
    pub n: f64,
    pub cluster_variance: Option<f64>,
}

/// Agresti-Coull: the proportion with `z^2 / 2` added to each side, and its variance.
fn adjusted(k: f64, n: f64, z2: f64) -> (f64, f64) {
    let p = (k + z2 / 2.0) / (n + z2);
    (p, p * (1.0 - p) / (n + z2))
}

/// How many times the cluster-robust variance exceeds the binomial one (at least 1).
fn design_effect(k: f64, n: f64, cluster_variance: Option<f64>) -> f64 {
    let p = if n > 0.0 { k / n } else { 0.0 };
    let binomial = p * (1.0 - p) / n;
    match cluster_variance {
        Some(v) if binomial > 0.0 && v.is_finite() => (v / binomial).max(1.0),
        _ => 1.0,
    }
}

/// The Rogan-Gladen corrected rate and Fieller's interval for it.
pub fn rogan_gladen(obs: Observed, cal: Calibration, confidence: f64) -> Corrected {
    let observed = if obs.n > 0.0 { obs.k / obs.n } else { f64::NAN };
    let (se, sp) = (cal.sensitivity(), cal.specificity());
    let undefined = |why: String| Corrected {
        method: Method::RoganGladen,
        observed,
        estimate: None,
        ci_low: 0.0,
        ci_high: 1.0,
        sensitivity: se,
        specificity: sp,
        undefined: Some(why),
    };
    let (Some(se_hat), Some(sp_hat)) = (se, sp) else {
        return undefined(if cal.errors == 0 {
            "no real errors to measure the checker's sensitivity on".into()
        } else {
            "no faithful cases to measure the checker's specificity on".into()
        });
    };
    if obs.n <= 0.0 {
        return undefined("nothing was scored".into());
    }
    if se_hat + sp_hat <= 1.0 {
        return undefined(format!(
            "sensitivity {se_hat:.3} + specificity {sp_hat:.3} <= 1: the checker's flags carry no \
             information about which answers are unsupported, so no rate can be recovered from them"
        ));
    }
    let z = z_for(confidence);
    let z2 = z * z;
    let (p, mut vp) = adjusted(obs.k, obs.n, z2);
    vp *= design_effect(obs.k, obs.n, obs.cluster_variance);
    let (s, vs) = adjusted(cal.caught as f64, cal.errors as f64, z2);
    let (c, vc) = adjusted(cal.passed as f64, cal.faithful as f64, z2);
    // Fieller: keep pi where (p - pi s - (1 - pi)(1 - c))^2 <= z^2 (vp + pi^2 vs + (1 - pi)^2 vc),
    // a quadratic a pi^2 + b pi + q <= 0 with A = p + c - 1 and J = s + c - 1.
    let (a_, j) = (p + c - 1.0, s + c - 1.0);
    let a = j * j - z2 * (vs + vc);
    let b = -2.0 * a_ * j + 2.0 * z2 * vc;
    let q = a_ * a_ - z2 * (vp + vc);
    let g = |x: f64| (a * x + b) * x + q;
    let estimate = ((observed + sp_hat - 1.0) / (se_hat + sp_hat - 1.0)).clamp(0.0, 1.0);
    let Some((lo, hi)) = kept_hull(a, b, q, &g) else {
        let floor = 1.0 - sp_hat;
        return undefined(if observed < floor {
            format!(
                "the observed rate {observed:.3} is below the checker's false-alarm rate alone \
                 ({floor:.3}): the calibration does not fit this log"
            )
        } else {
            format!(
                "the observed rate {observed:.3} is above the checker's sensitivity ({se_hat:.3}): \
                 the calibration does not fit this log"
            )
        });
    };
    Corrected {
        method: Method::RoganGladen,
        observed,
        estimate: Some(estimate.clamp(lo, hi)),
        ci_low: lo,
        ci_high: hi,
        sensitivity: se,
        specificity: sp,
        undefined: None,
    }
}

/// The smallest interval of [0, 1] that holds every `x` with `g(x) <= 0` (`g` the quadratic
/// `a x^2 + b x + q`), or None when there is none.
fn kept_hull(a: f64, b: f64, q: f64, g: &dyn Fn(f64) -> f64) -> Option<(f64, f64)> {
    let mut cuts = vec![0.0, 1.0];
    if a.abs() > 1e-300 {
        let disc = b * b - 4.0 * a * q;
        if disc >= 0.0 {
            let r = disc.sqrt();
            for x in [(-b - r) / (2.0 * a), (-b + r) / (2.0 * a)] {
                if x > 0.0 && x < 1.0 {
                    cuts.push(x);
                }
            }
        }
    } else if b.abs() > 1e-300 {
        let x = -q / b;
        if x > 0.0 && x < 1.0 {
            cuts.push(x);
        }
    }
    cuts.sort_by(f64::total_cmp);
    let mut hull: Option<(f64, f64)> = None;
    let mut keep = |l: f64, h: f64| {
        hull = Some(match hull {
            None => (l, h),
            Some((a, b)) => (a.min(l), b.max(h)),
        });
    };
    for w in cuts.windows(2) {
        let (l, h) = (w[0], w[1]);
        // the sign is constant between cuts; a root itself is kept (g = 0 there)
        if g(0.5 * (l + h)) <= 0.0 {
            keep(l, h);
        }
    }
    for x in &cuts {
        if g(*x) <= 1e-15 {
            keep(*x, *x);
        }
    }
    hull
}

/// One scored answer for the prediction-powered estimate: its cluster, whether the checker
/// flagged it, and the person's label (None: unlabelled).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Answer {
    pub cluster: usize,
    pub flagged: bool,
    pub label: Option<bool>,
}

/// Counts the prediction-powered estimate needs, gathered in one pass: per cluster the
/// unlabelled (flagged, all) and the labelled (sum of label - flag, labelled) plus the
/// labelled discordant cells.
#[derive(Debug, Clone, Default)]
pub struct PpiCounts {
    /// Per cluster: unlabelled flagged, unlabelled, labelled (label - flag) summed, labelled,
    /// labelled (label - flag)^2 summed.
    pub clusters: Vec<[i64; 4]>,
    /// Labelled answers the checker missed (label 1, flag 0) and falsely flagged (0, 1), and
    /// labelled answers.
    pub missed: u64,
    pub false_alarms: u64,
    pub labelled: u64,
    pub labelled_positive: u64,
    pub unlabelled_flagged: u64,
    pub unlabelled: u64,
}

impl PpiCounts {
    pub fn add(&mut self, a: Answer) {
        if self.clusters.len() <= a.cluster {
            self.clusters.resize(a.cluster + 1, [0; 4]);
        }
        let c = &mut self.clusters[a.cluster];
        match a.label {
            None => {
                c[0] += i64::from(a.flagged);
                c[1] += 1;
                self.unlabelled += 1;
                self.unlabelled_flagged += u64::from(a.flagged);
            }
            Some(y) => {
                let r = i64::from(y) - i64::from(a.flagged);
                c[2] += r;
                c[3] += 1;
                self.labelled += 1;
                self.labelled_positive += u64::from(y);
                self.missed += u64::from(r == 1);
                self.false_alarms += u64::from(r == -1);
            }
        }
    }
}

/// The prediction-powered rate of unsupported answers and its interval. `clustered`: the
/// answers' clusters are real (`--cluster-by`), so the cluster-robust variance is used when it
/// is larger than the adjusted independent one.
pub fn prediction_powered(counts: &PpiCounts, clustered: bool, confidence: f64) -> Corrected {
    let z = z_for(confidence);
    let z2 = z * z;
    let (nu, nl) = (counts.unlabelled as f64, counts.labelled as f64);
    let flagged_l =
        counts.labelled_positive as f64 - counts.missed as f64 + counts.false_alarms as f64;
    let observed = (counts.unlabelled_flagged as f64 + flagged_l) / (nu + nl);
    let cal = Calibration {
        caught: counts.labelled_positive - counts.missed,
        errors: counts.labelled_positive,
        passed: counts.labelled - counts.labelled_positive - counts.false_alarms,
        faithful: counts.labelled - counts.labelled_positive,
    };
    let base = Corrected {
        method: Method::PredictionPowered,
        observed,
        estimate: None,
        ci_low: 0.0,
        ci_high: 1.0,
        sensitivity: cal.sensitivity(),
        specificity: cal.specificity(),
        undefined: None,
    };
    if nl == 0.0 {
        return Corrected {
            undefined: Some("no scored answer carries a label".into()),
            ..base
        };
    }
    if nu == 0.0 {
        let (lo, hi) = super::wilson::wilson(counts.labelled_positive, counts.labelled, confidence);
        return Corrected {
            method: Method::LabelsOnly,
            estimate: Some(counts.labelled_positive as f64 / nl),
            ci_low: lo,
            ci_high: hi,
            ..base
        };
    }
    let fu = counts.unlabelled_flagged as f64 / nu;
    let rect = (counts.missed as f64 - counts.false_alarms as f64) / nl;
    let estimate = (fu + rect).clamp(0.0, 1.0);
    // adjusted: Agresti-Coull for the unlabelled mean, Bonett-Price for the paired difference
    let (fu_t, vu) = adjusted(counts.unlabelled_flagged as f64, nu, z2);
    let (m, f) = (
        (counts.missed as f64 + 1.0) / (nl + 2.0),
        (counts.false_alarms as f64 + 1.0) / (nl + 2.0),
    );
    let rect_t = m - f;
    let vr = (m + f - rect_t * rect_t) / (nl + 2.0);
    let mut var = vu + vr;
    let mut q = z;
    if clustered {
        let (v, labelled_clusters) = cluster_variance(counts, fu, rect, nu, nl);
        if v * q * q > var * z * z {
            var = v;
            // few labelled clusters: Student's t on their number, not the normal
            q = super::cluster::t_quantile(confidence, labelled_clusters.saturating_sub(1) as f64);
        }
    }
    let centre = fu_t + rect_t;
    let half = q * var.sqrt();
    Corrected {
        estimate: Some(estimate),
        ci_low: (centre - half).clamp(0.0, 1.0).min(estimate),
        ci_high: (centre + half).clamp(0.0, 1.0).max(estimate),
        ..base
    }
}

/// The cluster-robust (sandwich) variance of the prediction-powered estimate: the sum over
/// clusters of the squared sum of the answers' influences, with the small-sample factor
/// G / (G - 1).
fn cluster_variance(counts: &PpiCounts, fu: f64, rect: f64, nu: f64, nl: f64) -> (f64, usize) {
    let mut sum = 0.0;
    let mut g = 0usize;
    let mut labelled = 0usize;
    for c in &counts.clusters {
        if c[1] == 0 && c[3] == 0 {
            continue;
        }
        g += 1;
        labelled += usize::from(c[3] > 0);
        let a = (c[0] as f64 - c[1] as f64 * fu) / nu;
        let b = (c[2] as f64 - c[3] as f64 * rect) / nl;
        sum += (a + b) * (a + b);
    }
    if g < 2 || labelled < 2 {
        return (f64::INFINITY, labelled);
    }
    (sum * g as f64 / (g as f64 - 1.0), labelled)
}

/// The cluster-robust variance of a ratio `sum k / sum n` over clusters given as running sums:
/// `sum k`, `sum n`, `sum k^2`, `sum k n`, `sum n^2` and the number of clusters.
pub fn ratio_cluster_variance(sums: [f64; 5], clusters: u64) -> Option<f64> {
    let [k, n, kk, kn, nn] = sums;
    if clusters < 2 || n <= 0.0 {
        return None;
    }
    let r = k / n;
    let ss = (kk - 2.0 * r * kn + r * r * nn).max(0.0);
    let g = clusters as f64;
    Some(ss / (n * n) * g / (g - 1.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::TestRng;

    fn binomial(rng: &mut TestRng, n: u64, p: f64) -> u64 {
        (0..n).filter(|_| rng.next_f64() < p).count() as u64
    }

    #[test]
    fn rogan_gladen_recovers_the_rate_from_the_worked_figures() {
        // true 30%, Se 2/3, Sp 0.95: observed 0.3 * 2/3 + 0.7 * 0.05 = 0.235
        let cal = Calibration {
            caught: 200,
            errors: 300,
            passed: 950,
            faithful: 1000,
        };
        let obs = Observed {
            k: 235.0,
            n: 1000.0,
            cluster_variance: None,
        };
        let r = rogan_gladen(obs, cal, 0.95);
        assert!((r.estimate.unwrap() - 0.3).abs() < 1e-12, "{r:?}");
        assert!(r.ci_low < 0.3 && r.ci_high > 0.3 && r.ci_low > 0.2 && r.ci_high < 0.4);
    }

    #[test]
    fn rogan_gladen_is_undefined_when_the_flags_carry_no_information() {
        let cal = Calibration {
            caught: 5,
            errors: 10,
            passed: 50,
            faithful: 100,
        };
        let obs = Observed {
            k: 30.0,
            n: 100.0,
            cluster_variance: None,
        };
        let r = rogan_gladen(obs, cal, 0.95);
        assert_eq!(r.estimate, None);
        assert!(r.undefined.unwrap().contains("<= 1"));
        let none = rogan_gladen(obs, Calibration { errors: 0, ..cal }, 0.95);
        assert!(none.undefined.unwrap().contains("no real errors"));
    }

    #[test]
    fn an_observed_rate_below_the_false_alarm_floor_says_the_calibration_does_not_fit() {
        let cal = Calibration {
            caught: 900,
            errors: 1000,
            passed: 8000,
            faithful: 10000,
        };
        let obs = Observed {
            k: 10.0,
            n: 10000.0,
            cluster_variance: None,
        };
        let r = rogan_gladen(obs, cal, 0.95);
        assert_eq!(r.estimate, None, "{r:?}");
        assert!(r.undefined.unwrap().contains("below"));
    }

    /// Coverage of the Rogan-Gladen interval over a grid of true rates, sensitivities,
    /// specificities and calibration sizes: at least nominal within Monte Carlo error.
    #[test]
    fn rogan_gladen_interval_covers_the_true_rate() {
        let mut rng = TestRng(0x5eed_2026);
        let runs = 1000;
        let mut worst = (1.0f64, String::new());
        for &pi in &[0.02, 0.1, 0.3] {
            for &(se, sp) in &[(0.6, 0.9), (0.8, 0.95), (0.95, 0.99)] {
                for &(n_err, n_ok) in &[(30u64, 100u64), (100, 400)] {
                    let n = 2000u64;
                    let apparent = pi * se + (1.0 - pi) * (1.0 - sp);
                    let mut covered = 0;
                    let mut defined = 0;
                    for _ in 0..runs {
                        let cal = Calibration {
                            caught: binomial(&mut rng, n_err, se),
                            errors: n_err,
                            passed: binomial(&mut rng, n_ok, sp),
                            faithful: n_ok,
                        };
                        let obs = Observed {
                            k: binomial(&mut rng, n, apparent) as f64,
                            n: n as f64,
                            cluster_variance: None,
                        };
                        let r = rogan_gladen(obs, cal, 0.95);
                        // an undefined correction claims nothing: it counts as a miss here, so
                        // the grid also holds how often it happens
                        if r.estimate.is_some() {
                            defined += 1;
                            covered += u32::from(r.ci_low <= pi && pi <= r.ci_high);
                        }
                    }
                    let cov = f64::from(covered) / runs as f64;
                    if cov < worst.0 {
                        worst = (
                            cov,
                            format!("pi {pi} se {se} sp {sp} n {n_err}/{n_ok} defined {defined}"),
                        );
                    }
                }
            }
        }
        eprintln!("rogan-gladen worst cell: {worst:?}");
        // 1000 runs: one Monte Carlo standard error at 0.95 is 0.0069; allow three
        assert!(worst.0 >= 0.95 - 3.0 * 0.0069, "worst cell {worst:?}");
    }

    #[allow(clippy::too_many_arguments)] // one simulated log: every parameter of the grid
    fn ppi_sim(
        rng: &mut TestRng,
        pi: f64,
        se: f64,
        sp: f64,
        n: usize,
        labelled: usize,
        cluster_size: usize,
        icc: f64,
    ) -> (f64, Corrected) {
        // clusters share a latent draw with probability icc: then all their answers copy it
        let mut counts = PpiCounts::default();
        let mut truth = 0u64;
        let clusters = n / cluster_size;
        for c in 0..clusters {
            let shared = rng.next_f64() < icc;
            let shared_y = rng.next_f64() < pi;
            for i in 0..cluster_size {
                let y = if shared {
                    shared_y
                } else {
                    rng.next_f64() < pi
                };
                truth += u64::from(y);
                let flagged = if y {
                    rng.next_f64() < se
                } else {
                    rng.next_f64() >= sp
                };
                // label every (n / labelled)th cluster, so labels fall on whole clusters
                let is_labelled = (c * cluster_size + i) < labelled;
                counts.add(Answer {
                    cluster: c,
                    flagged,
                    label: is_labelled.then_some(y),
                });
            }
        }
        let _ = truth;
        (pi, prediction_powered(&counts, cluster_size > 1, 0.95))
    }

    /// Coverage of the prediction-powered interval, with and without clusters.
    #[test]
    fn prediction_powered_interval_covers_the_true_rate() {
        let mut rng = TestRng(0xfa17_2026);
        let runs = 1000;
        let mut worst = (1.0f64, String::new());
        for &pi in &[0.03, 0.15, 0.4] {
            for &(se, sp) in &[(0.6, 0.85), (0.9, 0.97)] {
                for &(labelled, cluster, icc) in &[(50, 1, 0.0), (200, 1, 0.0), (200, 10, 0.3)] {
                    let mut covered = 0;
                    for _ in 0..runs {
                        let (truth, r) =
                            ppi_sim(&mut rng, pi, se, sp, 2000, labelled, cluster, icc);
                        covered += u32::from(r.ci_low <= truth && truth <= r.ci_high);
                    }
                    let cov = f64::from(covered) / runs as f64;
                    if cov < worst.0 {
                        worst = (cov, format!("pi {pi} se {se} sp {sp} labelled {labelled} cluster {cluster} icc {icc}"));
                    }
                }
            }
        }
        eprintln!("prediction-powered worst cell: {worst:?}");
        assert!(worst.0 >= 0.95 - 3.0 * 0.0069, "worst cell {worst:?}");
    }

    #[test]
    fn every_answer_labelled_gives_the_labels_rate() {
        let mut c = PpiCounts::default();
        for i in 0..20 {
            c.add(Answer {
                cluster: i,
                flagged: i % 3 == 0,
                label: Some(i % 4 == 0),
            });
        }
        let r = prediction_powered(&c, false, 0.95);
        assert_eq!(r.method, Method::LabelsOnly);
        assert_eq!(r.estimate, Some(5.0 / 20.0));
    }

    #[test]
    fn the_ratio_variance_of_equal_clusters_is_the_binomial_one_for_independent_answers() {
        // 4 clusters of one answer each: k = 1, 0, 1, 0
        let v = ratio_cluster_variance([2.0, 4.0, 2.0, 2.0, 4.0], 4).unwrap();
        // sum (k - r n)^2 = 4 * 0.25 = 1; / n^2 = 1/16; * 4/3
        assert!((v - 1.0 / 16.0 * 4.0 / 3.0).abs() < 1e-15);
    }
}
