//! `faithgate sweep`: one scoring pass, then every threshold, a recommendation under a
//! false-alarm bound, sample-size warnings, and an optional calibration / held-out split.

use crate::record::RecordRun;
use crate::run::Role;
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
    pub too_small: Vec<TooSmall>,
    pub margin: f64,
}

/// Scored faithful cases and faults of the runs, keyed by the claim they derive from (mutants go
/// with their parent) so a split keeps a claim and its mutants together.
pub fn items(runs: &[RecordRun]) -> (Vec<(String, SweepItem)>, usize) {
    let mut out = Vec::new();
    let mut unscored = 0;
    for run in runs {
        for c in &run.cases {
            let role = c.role();
            if !matches!(role, Role::FalseAlarmOpportunity | Role::Fault) {
                continue;
            }
            let Some(score) = c.score.filter(|s| s.is_finite()) else {
                unscored += 1;
                continue;
            };
            let group = format!("{}/{}", run.suite, c.parent.as_deref().unwrap_or(&c.id));
            out.push((
                group,
                SweepItem {
                    score,
                    fault_type: (role == Role::Fault)
                        .then(|| c.fault_type.clone().unwrap_or_default()),
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
    let judged = held_out.as_ref().or(recommended.as_ref()).or(points.last());
    SweepResult {
        checker: runs
            .first()
            .map(|r| r.checker.name.clone())
            .unwrap_or_default(),
        confidence,
        too_small: judged
            .map(|p| too_small(p, margin, confidence))
            .unwrap_or_default(),
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
