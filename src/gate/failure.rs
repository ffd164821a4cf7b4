//! Why a gate failed, as values: the statistical rows that got significantly worse and the
//! count rules (`--max-new-misses`, `--max-new-false-alarms`) that were exceeded. Reporters
//! render them; JSON carries each as its sentence, as it always has.

use crate::stats::{fmt_p, Adjust};
use serde::{Serialize, Serializer};
use std::fmt;

/// One reason a comparison failed.
#[derive(Debug, Clone, PartialEq)]
pub enum GateFailure {
    /// A row of a suite comparison got significantly worse.
    RowWorse {
        row: String,
        worse: u64,
        better: u64,
        clusters_changed: u64,
        /// What the clusters are: `claim` or `context`.
        unit: &'static str,
        p_worse: f64,
        p_adjusted: f64,
        adjust: Adjust,
        family_size: usize,
        /// A fault type's row: the level `all faults` passed on when it was rejected.
        after_all: Option<f64>,
        alpha: f64,
    },
    /// More answers broken than fixed, significantly, under one definition of a log comparison.
    AnswersWorse {
        definition: &'static str,
        broken: u64,
        fixed: u64,
        clusters_changed: u64,
        /// The `--cluster-by` key, when answers were clustered.
        cluster_by: Option<String>,
        p_worse: f64,
        p_adjusted: f64,
        alpha: f64,
    },
    /// The false-alarm row's rise could be `--false-alarm-margin` or more: the candidate did
    /// not show it is no worse than the margin (non-inferiority).
    FalseAlarmMargin {
        worse: u64,
        better: u64,
        cases: u64,
        upper: f64,
        margin: f64,
        alpha: f64,
    },
    /// More faults newly missed than `--max-new-misses` allows.
    NewlyMissed { count: u64, max: u64 },
    /// More faithful cases newly flagged than `--max-new-false-alarms` allows.
    NewFalseAlarms {
        count: u64,
        /// Of them, rewrites or equivalent mutants.
        on_rewrites: usize,
        max: u64,
    },
    /// More answers newly unsupported under a definition than `--max-new-misses` allows.
    NewlyBroken {
        definition: &'static str,
        count: u64,
        max: u64,
    },
}

/// The `--adjust` spelling of an adjustment.
pub fn adjust_name(a: Adjust) -> &'static str {
    match a {
        Adjust::None => "none",
        Adjust::Holm => "holm",
        Adjust::Bonferroni => "bonferroni",
    }
}

impl GateFailure {
    /// Whether this failure comes from a count rule (no error rate) rather than a test.
    pub fn is_rule(&self) -> bool {
        matches!(
            self,
            GateFailure::NewlyMissed { .. }
                | GateFailure::NewFalseAlarms { .. }
                | GateFailure::NewlyBroken { .. }
        )
    }
}

impl fmt::Display for GateFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GateFailure::RowWorse {
                row,
                worse,
                better,
                clusters_changed,
                unit,
                p_worse,
                p_adjusted,
                adjust,
                family_size,
                after_all,
                alpha,
            } => write!(
                f,
                "{row}: significantly worse ({worse} worse, {better} better, {clusters_changed} {unit}(s) changed; one-sided p = {}, adjusted ({}, Tarone's m = {family_size}{}) {} < {alpha})",
                fmt_p(*p_worse),
                adjust_name(*adjust),
                after_all
                    .map(|l| format!(
                        ", among the fault types at the level {} all faults passed on",
                        fmt_p(l)
                    ))
                    .unwrap_or_default(),
                fmt_p(*p_adjusted)
            ),
            GateFailure::AnswersWorse {
                definition,
                broken,
                fixed,
                clusters_changed,
                cluster_by,
                p_worse,
                p_adjusted,
                alpha,
            } => write!(
                f,
                "{definition}: significantly more answers broken ({broken}) than fixed ({fixed}) in {clusters_changed} {}(s) that changed: one-sided p = {}, adjusted {} < {alpha}",
                cluster_by
                    .as_deref()
                    .map(|k| format!("`{k}` cluster"))
                    .unwrap_or_else(|| "answer".into()),
                fmt_p(*p_worse),
                fmt_p(*p_adjusted)
            ),
            GateFailure::FalseAlarmMargin {
                worse,
                better,
                cases,
                upper,
                margin,
                alpha,
            } => write!(
                f,
                "false alarms: not shown within --false-alarm-margin {margin} ({worse} newly flagged, {better} no longer flagged of {cases} faithful cases; the one-sided {}% upper bound on the rise is {upper:.3} >= {margin})",
                (1.0 - alpha) * 100.0
            ),
            GateFailure::NewlyMissed { count, max } => write!(
                f,
                "{count} fault(s) newly missed, more than --max-new-misses {max} (a rule, no error rate)"
            ),
            GateFailure::NewFalseAlarms {
                count,
                on_rewrites,
                max,
            } => {
                let on = if *on_rewrites == 0 {
                    "on faithful cases".to_string()
                } else {
                    format!(
                        "on faithful cases ({on_rewrites} of them on rewrites or equivalent mutants)"
                    )
                };
                write!(
                    f,
                    "{count} new false alarm(s) {on}, more than --max-new-false-alarms {max} (a rule, no error rate)"
                )
            }
            GateFailure::NewlyBroken {
                definition,
                count,
                max,
            } => write!(
                f,
                "{definition}: {count} answer(s) newly unsupported, more than --max-new-misses {max} (a rule, no error rate)"
            ),
        }
    }
}

impl Serialize for GateFailure {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_reads_as_the_sentence_the_reports_print_and_serializes_as_it() {
        let f = GateFailure::NewFalseAlarms {
            count: 2,
            on_rewrites: 1,
            max: 0,
        };
        assert_eq!(
            f.to_string(),
            "2 new false alarm(s) on faithful cases (1 of them on rewrites or equivalent mutants), more than --max-new-false-alarms 0 (a rule, no error rate)"
        );
        assert_eq!(
            serde_json::to_string(&f).unwrap(),
            format!("\"{f}\""),
            "JSON carries the sentence"
        );
        assert!(f.is_rule());
        let w = GateFailure::RowWorse {
            row: "negation_flip".into(),
            worse: 8,
            better: 0,
            clusters_changed: 8,
            unit: "context",
            p_worse: 0.00390625,
            p_adjusted: 0.0117,
            adjust: Adjust::Holm,
            family_size: 3,
            after_all: None,
            alpha: 0.05,
        };
        assert!(!w.is_rule());
        assert_eq!(
            w.to_string(),
            "negation_flip: significantly worse (8 worse, 0 better, 8 context(s) changed; one-sided p = 0.0039, adjusted (holm, Tarone's m = 3) 0.0117 < 0.05)"
        );
    }
}
