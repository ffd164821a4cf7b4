//! `faithprobe sweep`: one scoring pass, then every threshold, a recommendation under a
//! false-alarm bound, sample-size warnings, and an optional calibration / held-out split.

use crate::engine::record::RecordRun;
use crate::model::case::{CaseKind, Role};
use crate::stats::sweep::{
    at, recommend, split, sweep, too_small, SweepItem, SweepPoint, TooSmall,
};
use serde::Serialize;

/// What a sweep found.
#[derive(Debug, Clone, Serialize)]
pub struct SweepResult {
    pub checker: String,
    pub confidence: f64,
    pub points: Vec<SweepPoint>,
    /// Cases with no score (checker errors): in no rate.
    pub unscored: usize,
    pub max_false_alarm: Option<f64>,
    /// The recommended threshold's point (on the calibration part when splitting).
    pub recommended: Option<SweepPoint>,
    /// With `--calibrate-on`: the held-out part's rates at the chosen threshold.
    pub held_out: Option<SweepPoint>,
    pub calibrate_on: Option<f64>,
    pub calibration_cases: usize,
    pub held_out_cases: usize,
    /// Fault types too small to pin within ±margin at the operating point `too_small_at`.
    pub too_small: Vec<TooSmall>,
    /// The operating point the sample-size warnings describe: (threshold, which one it is).
    pub too_small_at: Option<(f64, &'static str)>,
    pub margin: f64,
    /// The cap on mutants per claim and operator the runs' mutants were made under (the
    /// largest), which the all-faults columns name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_per_claim: Option<usize>,
}

/// Scored faithful cases and faults of the runs, keyed by the claim they derive from (mutants go
/// with their parent) so a split keeps a claim and its mutants together.
pub fn items(runs: &[RecordRun]) -> (Vec<(String, SweepItem)>, usize) {
    let mut out = Vec::new();
    let mut unscored = 0;
    for run in runs {
        // a fault mutant is informative where its parent claim is supported
        let parent_scores = run.parent_scores();
        for c in &run.cases {
            let role = c.role();
            // rewrites and equivalent mutants are faithful too: a threshold that flags them
            // raises false alarms
            if !matches!(
                role,
                Role::FalseAlarmOpportunity | Role::Invariance | Role::Fault
            ) {
                continue;
            }
            let Some(score) = c.score.filter(|s| s.is_finite()) else {
                unscored += 1;
                continue;
            };
            let group = format!("{}/{}", run.suite, c.parent.as_deref().unwrap_or(&c.id));
            out.push((
                group.clone(),
                SweepItem {
                    invariance: role == Role::Invariance,
                    score,
                    fault_type: (role == Role::Fault)
                        .then(|| c.fault_type.clone().unwrap_or_default()),
                    cluster: group,
                    parent_score: (role == Role::Fault && c.kind == CaseKind::Mutant).then(|| {
                        c.parent
                            .as_deref()
                            .and_then(|p| parent_scores.get(p).copied())
                            .unwrap_or(f64::NAN)
                    }),
                },
            ));
        }
    }
    (out, unscored)
}

/// Runs the sweep over recorded runs.
pub fn run_sweep(
    runs: &[RecordRun],
    confidence: f64,
    max_false_alarm: Option<f64>,
    calibrate_on: Option<f64>,
    margin: f64,
) -> SweepResult {
    let (keyed, unscored) = items(runs);
    let all: Vec<SweepItem> = keyed.iter().map(|(_, i)| i.clone()).collect();
    let points = sweep(&all, confidence);
    let (cal, held) = match calibrate_on {
        Some(f) => split(&keyed, f),
        None => (all.clone(), Vec::new()),
    };
    let cal_points = if calibrate_on.is_some() {
        sweep(&cal, confidence)
    } else {
        points.clone()
    };
    let recommended = max_false_alarm.and_then(|r| recommend(&cal_points, r).cloned());
    let held_out = match (calibrate_on, &recommended) {
        (Some(_), Some(rec)) => Some(at(&held, rec.threshold, confidence)),
        _ => None,
    };
    // the warnings describe the point a user would run at: the recommended threshold (on the
    // held-out part when split), else the checker's own, else flagging everything
    let configured = runs
        .first()
        .and_then(|r| r.checker.settings.get("threshold"))
        .and_then(|t| t.parse::<f64>().ok())
        .filter(|t| t.is_finite());
    let own = configured.map(|t| at(&all, t, confidence));
    let (judged, judged_as) = match (&held_out, &recommended, &own) {
        (Some(h), _, _) => (Some(h), "the recommended threshold, on the held-out part"),
        (None, Some(r), _) => (Some(r), "the recommended threshold"),
        (None, None, Some(o)) => (Some(o), "the checker's own threshold"),
        _ => (
            points.last(),
            "the highest threshold: every case below it flagged",
        ),
    };
    SweepResult {
        max_per_claim: runs.iter().filter_map(|r| r.max_per_claim).max(),
        checker: runs
            .first()
            .map(|r| r.checker.name.clone())
            .unwrap_or_default(),
        confidence,
        too_small: judged
            .map(|p| too_small(p, margin, confidence))
            .unwrap_or_default(),
        too_small_at: judged.map(|p| (p.threshold, judged_as)),
        points,
        unscored,
        max_false_alarm,
        recommended,
        held_out,
        calibrate_on,
        calibration_cases: cal.len(),
        held_out_cases: held.len(),
        margin,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::record::testing::{case, record_of};
    use crate::model::case::Label;
    use crate::model::case::ReviewState;
    use crate::model::case::{CaseKind, Expected, Outcome};

    #[test]
    fn items_are_the_faithful_cases_and_faults_keyed_by_parent_claim() {
        let mut unreviewed = case(
            "m2",
            CaseKind::Mutant,
            Expected::Flagged,
            Some(Label::NotFound),
        );
        unreviewed.review = Some(ReviewState::Unreviewed);
        unreviewed.outcome = Outcome::FlaggedUnreviewed;
        let rec = record_of(
            "lexical",
            vec![
                case(
                    "f1",
                    CaseKind::Original,
                    Expected::Supported,
                    Some(Label::Supported),
                ),
                case(
                    "h1",
                    CaseKind::HardCase,
                    Expected::Supported,
                    Some(Label::NotFound),
                ),
                case(
                    "h2",
                    CaseKind::HardCase,
                    Expected::Contradicted,
                    Some(Label::Contradicted),
                ),
                case(
                    "m1",
                    CaseKind::Mutant,
                    Expected::Flagged,
                    Some(Label::NotFound),
                ),
                unreviewed,
                case("m3", CaseKind::Mutant, Expected::Flagged, None),
            ],
        );
        let (items, unscored) = items(&rec.runs);
        assert_eq!(unscored, 1, "the errored mutant has no score");
        let keys: Vec<(&str, Option<&str>)> = items
            .iter()
            .map(|(k, i)| (k.as_str(), i.fault_type.as_deref()))
            .collect();
        assert_eq!(
            keys,
            vec![
                ("s/f1", None),
                ("s/h1", None),
                ("s/h2", Some("number_swap")),
                ("s/f1", Some("number_swap")), // a mutant goes with its parent
            ]
        );
    }

    #[test]
    fn the_sweep_recommends_under_the_bound_and_reports_the_held_out_part() {
        let mut cases = Vec::new();
        for i in 0..40 {
            cases.push(case(
                &format!("f{i}"),
                CaseKind::Original,
                Expected::Supported,
                Some(Label::Supported),
            ));
            cases.push(case(
                &format!("h{i}"),
                CaseKind::HardCase,
                Expected::NotFound,
                Some(Label::NotFound),
            ));
        }
        let rec = record_of("lexical", cases);
        let s = run_sweep(&rec.runs, 0.95, Some(0.2), Some(0.5), 0.05);
        let r = s.recommended.as_ref().unwrap();
        assert_eq!(r.false_alarms.k, 0);
        assert!(r.detection.k > 0);
        assert_eq!(s.calibration_cases + s.held_out_cases, 80);
        assert!(s.held_out.is_some());
        assert_eq!(
            s.too_small_at.map(|(_, which)| which),
            Some("the recommended threshold, on the held-out part")
        );
    }

    #[test]
    fn sample_size_warnings_describe_the_checkers_own_threshold_without_a_recommendation() {
        // scores 0.2 (hard cases) and 0.9 (faithful): at the checker's 0.5 every hard case is
        // caught; at the highest threshold everything is flagged
        let mut cases = Vec::new();
        for i in 0..10 {
            cases.push(case(
                &format!("f{i}"),
                CaseKind::Original,
                Expected::Supported,
                Some(Label::Supported),
            ));
            cases.push(case(
                &format!("h{i}"),
                CaseKind::HardCase,
                Expected::NotFound,
                Some(Label::NotFound),
            ));
        }
        let mut rec = record_of("lexical", cases);
        rec.runs[0]
            .checker
            .settings
            .insert("threshold".into(), "0.5".into());
        let s = run_sweep(&rec.runs, 0.95, None, None, 0.05);
        assert_eq!(s.too_small_at, Some((0.5, "the checker's own threshold")));
        let w = &s.too_small[0];
        assert_eq!(w.n, 10);
        // 10/10 caught at 0.5: Wilson [0.72, 1], half-width 0.14
        assert!((w.half_width - 0.1391).abs() < 1e-3, "{w:?}");
        let text = crate::report::sweep::findings(&s).join("\n");
        assert!(
            text.contains("warning at threshold 0.500 (the checker's own threshold): number_swap: 10 labelled faults give ±0.14"),
            "{text}"
        );
    }
}
