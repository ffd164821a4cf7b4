//! `faithgate sweep`: one scoring pass, then every threshold, a recommendation under a
//! false-alarm bound, sample-size warnings, and an optional calibration / held-out split.

use crate::record::RecordRun;
use crate::stats::sweep::{
    at, recommend, split, sweep, too_small, SweepItem, SweepPoint, TooSmall,
};
use serde::Serialize;
use std::fmt::Write;

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
            if !(c.faithful() || c.fault()) {
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
                    fault_type: c.fault().then(|| c.fault_type.clone().unwrap_or_default()),
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

use crate::report::fmt_kn as rate;

/// The human (and Markdown-friendly) table and findings.
pub fn render(s: &SweepResult, markdown: bool) -> String {
    let mut o = String::new();
    let pct = (s.confidence * 100.0).round();
    let types: Vec<String> = s
        .points
        .first()
        .map(|p| p.by_fault_type.keys().cloned().collect())
        .unwrap_or_default();
    if markdown {
        let _ = writeln!(o, "### faithgate sweep: `{}`\n", s.checker);
        let _ = write!(o, "| threshold | false alarms | all faults |");
        for t in &types {
            let _ = write!(o, " {t} |");
        }
        let _ = writeln!(o, "\n|{}", "---|".repeat(3 + types.len()));
    } else {
        let _ = writeln!(
            o,
            "sweep · checker {} · {} thresholds · rates with {pct}% Wilson intervals",
            s.checker,
            s.points.len()
        );
        let _ = write!(
            o,
            "  {:>9}  {:<24} {:<24}",
            "threshold", "false alarms", "all faults"
        );
        for t in &types {
            let _ = write!(o, " {t:<24}");
        }
        let _ = writeln!(o);
    }
    let last = s.points.len().saturating_sub(1);
    for (i, p) in s.points.iter().enumerate() {
        // the last cut point sits just above every score: it flags everything
        let t = if i == last && i > 0 {
            format!(">{:.3}", s.points[i - 1].threshold)
        } else {
            format!("{:.3}", p.threshold)
        };
        if markdown {
            let _ = write!(
                o,
                "| {t} | {} | {} |",
                rate(&p.false_alarms),
                rate(&p.detection)
            );
            for t in &types {
                let _ = write!(o, " {} |", rate(&p.by_fault_type[t]));
            }
            let _ = writeln!(o);
        } else {
            let _ = write!(
                o,
                "  {t:>9}  {:<24} {:<24}",
                rate(&p.false_alarms),
                rate(&p.detection)
            );
            for t in &types {
                let _ = write!(o, " {:<24}", rate(&p.by_fault_type[t]));
            }
            let _ = writeln!(o);
        }
    }
    let _ = writeln!(o);
    if s.unscored > 0 {
        let _ = writeln!(
            o,
            "{} case(s) had no score (checker errors) and are in no rate.",
            s.unscored
        );
    }
    if let Some(f) = s.calibrate_on {
        let _ = writeln!(
            o,
            "Split by claim: {} cases ({:.0}%) to choose the threshold, {} held out to judge it.",
            s.calibration_cases,
            f * 100.0,
            s.held_out_cases
        );
    }
    match (s.max_false_alarm, &s.recommended) {
        (Some(r), Some(p)) => {
            let _ = writeln!(
                o,
                "Recommended threshold {:.3}: the best detection whose false-alarm upper bound is at most {r}{}: false alarms {}, detection {}.",
                p.threshold,
                if s.calibrate_on.is_some() { " on the calibration part" } else { "" },
                rate(&p.false_alarms),
                rate(&p.detection)
            );
            if let Some(h) = &s.held_out {
                let _ = writeln!(
                    o,
                    "On the held-out part at {:.3}: false alarms {}, detection {}.",
                    h.threshold,
                    rate(&h.false_alarms),
                    rate(&h.detection)
                );
            }
        }
        (Some(r), None) => {
            let z = crate::stats::wilson::z_for(s.confidence);
            let needed = (z * z * (1.0 - r) / r).ceil();
            let _ = writeln!(
                o,
                "No threshold keeps the false-alarm upper bound at or below {r}: either the checker flags too many verified claims, or there are too few of them to promise it (even with no false alarm at all, it takes at least {needed} verified claims)."
            );
        }
        _ => {}
    }
    for t in &s.too_small {
        let _ = writeln!(
            o,
            "warning: {}: {} labelled faults give ±{:.2}; about {} are needed to pin its rate within ±{} at {pct}%.",
            t.fault_type, t.n, t.half_width, t.needed, s.margin
        );
    }
    o
}
