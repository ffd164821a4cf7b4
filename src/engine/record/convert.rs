//! A run as a record and back: `run --record` writes one, and `sweep`, `report` and `compare`
//! rebuild the run from it without scoring anything again.

use super::{RecordCase, RecordChecker, RecordRun};
use crate::engine::run::SuiteRun;
use crate::model::case::{CaseKind, ReviewState};

impl RecordRun {
    /// Builds the record of a suite's run; `suite_sha256` fingerprints the suite file.
    pub fn from_run(run: &SuiteRun, suite_sha256: &str) -> RecordRun {
        RecordRun {
            suite: run.suite.clone(),
            path: run.suite_path.clone(),
            suite_sha256: suite_sha256.to_string(),
            checker: RecordChecker {
                name: run.checker.clone(),
                kind: run.checker_kind.clone(),
                settings: run.settings.clone(),
            },
            shard: run.shard,
            repeats: run.repeats,
            rules_sha256: run.rules_sha256.clone(),
            max_per_claim: run.max_per_claim,
            broken_mutants: run.broken.iter().cloned().collect(),
            cases: run
                .results
                .iter()
                .enumerate()
                .map(|(i, r)| {
                    let v = r.result.as_ref().ok();
                    let flaky_verdicts = run
                        .flaky
                        .iter()
                        .find(|f| f.id == r.case.id && f.kind == r.case.kind)
                        .map(|f| f.verdicts.clone())
                        .unwrap_or_default();
                    RecordCase {
                        id: r.case.id.clone(),
                        kind: r.case.kind,
                        fault_type: r.case.fault_type.clone(),
                        parent: r.case.parent.clone(),
                        claim: r.case.claim.clone(),
                        expected: r.case.expected,
                        review: r.case.review.as_ref().map(|x| x.state()),
                        verdict: v.map(|v| v.label),
                        score: v.and_then(|v| v.score),
                        evidence_passage: v
                            .and_then(|v| v.evidence.as_ref().map(|e| e.passage.clone())),
                        evidence_window: v
                            .and_then(|v| v.evidence.as_ref().map(|e| e.window.clone())),
                        outcome: r.outcome,
                        error: r.result.as_ref().err().map(|e| e.to_string()),
                        position: run.positions.get(i).copied(),
                        flaky_verdicts,
                        context: r.case.context_id.clone(),
                        real: r.case.real,
                        compound: r.case.compound,
                    }
                })
                .collect(),
        }
    }
}

impl RecordRun {
    /// The run this record was written from, as far as a record keeps it, so the summaries,
    /// sweeps and audits of `run` can be made from a record (a merged shard set, a CI artifact)
    /// without scoring again. A verdict's reason and an equivalent mutant's `why` are not
    /// recorded; an error keeps its message.
    pub fn to_run(&self) -> SuiteRun {
        use crate::check::{CheckError, Evidence, Verdict};
        use crate::engine::run::CaseResult;
        use crate::model::case::Case;
        use crate::mutate::operator_names;
        let results: Vec<CaseResult> = self
            .cases
            .iter()
            .map(|c| CaseResult {
                case: Case {
                    id: c.id.clone(),
                    kind: c.kind,
                    fault_type: c.fault_type.clone(),
                    claim: c.claim.clone(),
                    expected: c.expected,
                    parent: c.parent.clone(),
                    review: c.review.map(review_of_state),
                    real: c.real,
                    context: 0,
                    context_id: c.context.clone(),
                    compound: c.compound,
                },
                result: match (c.verdict, &c.error) {
                    (Some(label), _) => Ok(Verdict {
                        label,
                        score: c.score,
                        evidence: c.evidence_passage.as_ref().map(|p| Evidence {
                            passage: p.clone(),
                            window: c.evidence_window.clone().unwrap_or_default(),
                        }),
                        reason: String::new(),
                    }),
                    (None, e) => Err(CheckError::Model(e.clone().unwrap_or_default())),
                },
                outcome: c.outcome,
            })
            .collect();
        // the registry's operators, then any other operator (an LLM mutator) in case order
        let mut names: Vec<&'static str> = operator_names().collect();
        for c in &self.cases {
            if let (CaseKind::Mutant, Some(t)) = (c.kind, c.fault_type.as_deref()) {
                if !names.contains(&t) {
                    names.push(Box::leak(t.to_string().into_boxed_str()));
                }
            }
        }
        let operator_counts: Vec<(&'static str, usize)> = names
            .into_iter()
            .map(|op| {
                let n = self
                    .cases
                    .iter()
                    .filter(|c| {
                        matches!(c.kind, CaseKind::Mutant | CaseKind::Rewrite)
                            && c.fault_type.as_deref() == Some(op)
                    })
                    .count();
                (op, n)
            })
            .collect();
        SuiteRun {
            suite: self.suite.clone(),
            suite_path: self.path.clone(),
            checker: self.checker.name.clone(),
            checker_kind: self.checker.kind.clone(),
            settings: self.checker.settings.clone(),
            empty_operators: operator_counts
                .iter()
                .filter(|(_, n)| *n == 0)
                .map(|(op, _)| *op)
                .collect(),
            operator_counts,
            broken: self
                .broken_mutants
                .iter()
                .map(|(op, n)| (op.clone(), *n))
                .collect(),
            results,
            repeats: self.repeats,
            flaky: self
                .cases
                .iter()
                .filter(|c| !c.flaky_verdicts.is_empty())
                .map(|c| crate::engine::run::Flaky {
                    id: c.id.clone(),
                    kind: c.kind,
                    fault_type: c.fault_type.clone(),
                    claim: c.claim.clone(),
                    verdicts: c.flaky_verdicts.clone(),
                })
                .collect(),
            shard: self.shard,
            positions: self.cases.iter().filter_map(|c| c.position).collect(),
            rules_sha256: self.rules_sha256.clone(),
            max_per_claim: self.max_per_claim,
        }
    }
}

/// A recorded review as the run sees it (the reasons stay in the suite's reviews).
fn review_of_state(r: ReviewState) -> crate::model::case::MutantReview {
    use crate::model::case::MutantReview;
    match r {
        ReviewState::Fault => MutantReview::Fault,
        ReviewState::Equivalent => MutantReview::Equivalent {
            why: "(the reason is in the suite's reviews)".into(),
        },
        ReviewState::Unreviewed => MutantReview::Unreviewed,
        ReviewState::NotEquivalent => MutantReview::NotEquivalent {
            why: "(the reason is in the suite's reviews)".into(),
        },
        ReviewState::Broken => MutantReview::Broken { why: None },
    }
}
