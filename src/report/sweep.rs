//! The sweep as text: the table (human, or Markdown for a pull request) and its findings. The
//! audit report renders the same findings from the same data, never from this text.

use super::fmt_kn as rate;
use crate::engine::sweep::SweepResult;
use std::fmt::Write;

/// The label of each cut point: the last sits just above every score, so it flags everything.
fn threshold_labels(s: &SweepResult) -> Vec<String> {
    let last = s.points.len().saturating_sub(1);
    s.points
        .iter()
        .enumerate()
        .map(|(i, p)| {
            if i == last && i > 0 {
                format!(">{:.3}", s.points[i - 1].threshold)
            } else {
                format!("{:.3}", p.threshold)
            }
        })
        .collect()
}

/// How many fault-type columns of `k/n` fit in one 100-column block of the human table.
const TYPES_PER_BLOCK: usize = 8;

/// The table and findings: one wide table for Markdown (a pull-request comment scrolls), and for
/// the terminal a table that fits 100 columns: false alarms and all faults with intervals, then
/// the faults caught per type as `k/n` in blocks of at most eight numbered columns.
pub fn render(s: &SweepResult, markdown: bool) -> String {
    let mut o = String::new();
    let pct = (s.confidence * 100.0).round();
    let types: Vec<String> = s
        .points
        .first()
        .map(|p| p.by_fault_type.keys().cloned().collect())
        .unwrap_or_default();
    let labels = threshold_labels(s);
    // rewrites and equivalent mutants: their false alarms get a column of their own
    let invariance = s.points.first().is_some_and(|p| p.invariance.n > 0);
    if markdown {
        markdown_table(&mut o, s, &types, &labels, invariance);
    } else {
        human_table(&mut o, s, &types, &labels, invariance, pct);
    }
    let _ = writeln!(o);
    for line in findings(s) {
        let _ = writeln!(o, "{line}");
    }
    o
}

/// The wide Markdown table: one row per threshold, one column per fault type.
fn markdown_table(
    o: &mut String,
    s: &SweepResult,
    types: &[String],
    labels: &[String],
    invariance: bool,
) {
    let _ = writeln!(o, "### faithprobe sweep: `{}`\n", s.checker);
    let _ = write!(
        o,
        "| threshold | false alarms |{} {} | all faults, clustered CI |",
        if invariance {
            " invariance false alarms |"
        } else {
            ""
        },
        crate::engine::mix::label("pooled", s.max_per_claim)
    );
    for t in types {
        let _ = write!(o, " {t} |");
    }
    let _ = writeln!(
        o,
        "\n|{}",
        "---|".repeat(4 + usize::from(invariance) + types.len())
    );
    for (p, t) in s.points.iter().zip(labels) {
        let _ = write!(
            o,
            "| {t} | {} |{} {} | {} |",
            rate(&p.false_alarms),
            if invariance {
                format!(" {} |", rate(&p.invariance))
            } else {
                String::new()
            },
            rate(&p.detection),
            super::fmt_ci(p.detection_clustered.ci_low, p.detection_clustered.ci_high)
        );
        for ft in types {
            let _ = write!(o, " {} |", rate(&p.by_fault_type[ft]));
        }
        let _ = writeln!(o);
    }
}

/// The terminal table: false alarms and all faults with intervals per threshold (and the
/// invariance and parent-flagged columns when they have cases), then the faults per type.
fn human_table(
    o: &mut String,
    s: &SweepResult,
    types: &[String],
    labels: &[String],
    invariance: bool,
    pct: f64,
) {
    let _ = writeln!(
        o,
        "sweep · checker {} · {} thresholds · rates with {pct}% Wilson intervals",
        s.checker,
        s.points.len()
    );
    let parents = s.points.iter().any(|p| p.parent_flagged > 0);
    let _ = writeln!(
        o,
        "  {:>9}  {:<26} {:<26} {:<13}{}{}",
        "threshold",
        "false alarms",
        crate::engine::mix::label("pooled", s.max_per_claim),
        "clustered CI",
        if invariance { "  invariance" } else { "" },
        if parents { "  parent" } else { "" }
    );
    for (p, t) in s.points.iter().zip(labels) {
        let inv = if invariance {
            format!("  {}/{}", p.invariance.k, p.invariance.n)
        } else {
            String::new()
        };
        let par = if parents {
            format!("  {:>6}", p.parent_flagged)
        } else {
            String::new()
        };
        let line = format!(
            "  {t:>9}  {:<26} {:<26} {:<13}{inv}{par}",
            rate(&p.false_alarms),
            rate(&p.detection),
            super::fmt_ci(p.detection_clustered.ci_low, p.detection_clustered.ci_high)
        );
        let _ = writeln!(o, "{}", line.trim_end());
    }
    if invariance {
        let _ = writeln!(
            o,
            "  (invariance: false alarms on rewrites and equivalent mutants, k/n)"
        );
    }
    if parents {
        let _ = writeln!(
            o,
            "  (parent: fault mutants whose parent claim is flagged at that threshold, in no catch rate there)"
        );
    }
    per_type_blocks(o, s, types, labels);
}

/// The faults caught per type as `k/n`, in blocks of at most [`TYPES_PER_BLOCK`] numbered
/// columns.
fn per_type_blocks(o: &mut String, s: &SweepResult, types: &[String], labels: &[String]) {
    for (b, block) in types.chunks(TYPES_PER_BLOCK).enumerate() {
        let first = b * TYPES_PER_BLOCK;
        let _ = writeln!(o, "\n  faults caught per type (k/n):");
        for (i, t) in block.iter().enumerate() {
            let _ = writeln!(
                o,
                "    ({}) {}",
                first + i + 1,
                crate::text::escape::printable(t)
            );
        }
        let _ = write!(o, "  {:>9}", "threshold");
        for i in 0..block.len() {
            let _ = write!(o, " {:>9}", format!("({})", first + i + 1));
        }
        let _ = writeln!(o);
        for (p, t) in s.points.iter().zip(labels) {
            let _ = write!(o, "  {t:>9}");
            for ft in block {
                let r = &p.by_fault_type[ft];
                let _ = write!(o, " {:>9}", format!("{}/{}", r.k, r.n));
            }
            let _ = writeln!(o);
        }
    }
}

/// What the sweep found, one sentence each: unscored cases, the split, the recommendation (or
/// why there is none), the held-out check and sample-size warnings.
pub fn findings(s: &SweepResult) -> Vec<String> {
    let mut o = Vec::new();
    let pct = (s.confidence * 100.0).round();
    if s.unscored > 0 {
        o.push(format!(
            "{} case(s) had no score (checker errors) and are in no rate.",
            s.unscored
        ));
    }
    if let Some(f) = s.calibrate_on {
        o.push(format!(
            "Split by claim: {} cases ({:.0}%) to choose the threshold, {} held out to judge it.",
            s.calibration_cases,
            f * 100.0,
            s.held_out_cases
        ));
    }
    match (s.max_false_alarm, &s.recommended) {
        (Some(r), Some(p)) => {
            o.push(format!(
                "Recommended threshold {:.3}: the best detection whose false-alarm upper bound is at most {r}{}: false alarms {}, detection {}.",
                p.threshold,
                if s.calibrate_on.is_some() { " on the calibration part" } else { "" },
                rate(&p.false_alarms),
                rate(&p.detection)
            ));
            if let Some(h) = &s.held_out {
                o.push(format!(
                    "On the held-out part at {:.3}: false alarms {}, detection {}.",
                    h.threshold,
                    rate(&h.false_alarms),
                    rate(&h.detection)
                ));
            }
        }
        (Some(r), None) if s.points.iter().any(|p| p.false_alarms.ci_high <= r) => {
            o.push(format!(
                "No threshold qualifies: every threshold that keeps the false-alarm upper bound at or below {r} catches no fault at all, so it would do no better than flagging nothing. Loosen the bound or improve the checker."
            ));
        }
        (Some(r), None) => {
            let z = crate::stats::wilson::z_for(s.confidence);
            let needed = (z * z * (1.0 - r) / r).ceil();
            o.push(format!(
                "No threshold keeps the false-alarm upper bound at or below {r}: either the checker flags too many verified claims, or there are too few of them to promise it (even with no false alarm at all, it takes at least {needed} verified claims)."
            ));
        }
        _ => {}
    }
    let at = s
        .too_small_at
        .map(|(t, which)| format!(" at threshold {t:.3} ({which})"))
        .unwrap_or_default();
    for t in &s.too_small {
        o.push(format!(
            "warning{at}: {}: {} give ±{:.2}; about {} are needed to pin its rate within ±{} at {pct}%.",
            crate::text::escape::printable(&t.fault_type),
            super::count(t.n, "labelled fault", "labelled faults"),
            t.half_width,
            t.needed,
            s.margin
        ));
    }
    o
}
