//! Summaries of a run: false alarms and catch rates per fault type, each with a Wilson interval.

use crate::mutate::{MutantReview, OPERATORS};
use crate::run::{CaseKind, CaseResult, Outcome, SuiteRun};
use crate::stats::Rate;
use serde::Serialize;

/// One row of the fault-type table.
#[derive(Debug, Clone, Serialize)]
pub struct FaultTypeRow {
    pub fault_type: String,
    /// Reviewed faults caught (`k`) out of reviewed faults scored (`n`).
    #[serde(flatten)]
    pub caught: Rate,
    /// Every mutant the operator produced.
    pub mutants: usize,
    /// Mutants a person reviewed as still faithful: listed, not scored.
    pub equivalent: usize,
    /// Mutants nobody reviewed yet: counted apart.
    pub unreviewed: usize,
    /// How many of the unreviewed ones the checker flagged.
    pub unreviewed_flagged: usize,
    /// Cases the checker could not score: in no rate, never a pass.
    pub errors: usize,
}

/// A run's summary.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    pub confidence: f64,
    /// Flagged originals out of originals scored.
    pub false_alarms: Rate,
    pub fault_types: Vec<FaultTypeRow>,
    /// Hard cases: agreements with the person's label (passed or caught) out of scored.
    pub hard_cases_agree: Rate,
    pub errors: usize,
    /// Operators that produced no mutant on this suite.
    pub operators_without_mutants: Vec<String>,
}

fn rate<'a>(results: impl Iterator<Item = &'a CaseResult>, hit: Outcome, confidence: f64) -> Rate {
    let (mut k, mut n) = (0, 0);
    for r in results {
        if r.outcome == Outcome::Error {
            continue;
        }
        n += 1;
        if r.outcome == hit {
            k += 1;
        }
    }
    Rate::new(k, n, confidence)
}

/// Summarises a run at a confidence level (0.95 for 95% intervals).
pub fn summarize(run: &SuiteRun, confidence: f64) -> Summary {
    let originals = run
        .results
        .iter()
        .filter(|r| r.case.kind == CaseKind::Original);
    let false_alarms = rate(originals, Outcome::FalseAlarm, confidence);

    let fault_types = OPERATORS
        .iter()
        .map(|op| {
            let of_op: Vec<&CaseResult> = run
                .results
                .iter()
                .filter(|r| {
                    r.case.kind == CaseKind::Mutant && r.case.fault_type.as_deref() == Some(op)
                })
                .collect();
            let review =
                |r: &&CaseResult| r.case.review.clone().unwrap_or(MutantReview::Unreviewed);
            let faults = of_op
                .iter()
                .filter(|r| review(r) == MutantReview::Fault)
                .copied();
            let unreviewed: Vec<_> = of_op
                .iter()
                .filter(|r| review(r) == MutantReview::Unreviewed)
                .collect();
            FaultTypeRow {
                fault_type: op.to_string(),
                caught: rate(faults, Outcome::Caught, confidence),
                mutants: of_op.len(),
                equivalent: of_op
                    .iter()
                    .filter(|r| matches!(review(r), MutantReview::Equivalent { .. }))
                    .count(),
                unreviewed: unreviewed.len(),
                unreviewed_flagged: unreviewed
                    .iter()
                    .filter(|r| r.outcome == Outcome::Caught)
                    .count(),
                errors: of_op.iter().filter(|r| r.outcome == Outcome::Error).count(),
            }
        })
        .collect();

    let hard: Vec<&CaseResult> = run
        .results
        .iter()
        .filter(|r| r.case.kind == CaseKind::HardCase && r.outcome != Outcome::Error)
        .collect();
    let agree = hard
        .iter()
        .filter(|r| matches!(r.outcome, Outcome::Passed | Outcome::Caught))
        .count() as u64;

    Summary {
        confidence,
        false_alarms,
        fault_types,
        hard_cases_agree: Rate::new(agree, hard.len() as u64, confidence),
        errors: run.errors(),
        operators_without_mutants: run.empty_operators.iter().map(|s| s.to_string()).collect(),
    }
}
