//! Drives a checker over a suite's cases and turns verdicts into outcomes.
//!
//! The checker sees claims and passages only (a [`ContextSet`]); the expected label stays here.
//! What a case counts towards, its [`Role`], is defined once in this module, and `run`, `sweep`,
//! `compare`, `report` and snapshots all read it from here.

use crate::check::{CheckError, CheckInput, CheckResult, Checker, ClaimToCheck, ContextSet};
use crate::error::Exit;
use crate::model::case::{Case, CaseKind, Expected, MutantReview, Outcome};
use crate::model::suite::Suite;
use crate::mutate::MutantSet;
use serde::Serialize;
use std::collections::BTreeMap;

/// A case with its verdict and outcome.
#[derive(Debug, Clone)]
pub struct CaseResult {
    pub case: Case,
    pub result: CheckResult,
    pub outcome: Outcome,
}

/// Everything one checker said about one suite.
#[derive(Debug, Clone)]
pub struct SuiteRun {
    pub suite: String,
    pub suite_path: String,
    pub checker: String,
    pub checker_kind: String,
    pub settings: BTreeMap<String, String>,
    pub results: Vec<CaseResult>,
    /// Mutant count per operator.
    pub operator_counts: Vec<(&'static str, usize)>,
    /// Operators that produced no mutant on this suite.
    pub empty_operators: Vec<&'static str>,
    /// Mutants a person reviewed `broken`, per operator: the operators' defects, in no rate.
    pub broken: Vec<(String, usize)>,
    /// How many times every case was scored (`--repeat`); 1 normally.
    pub repeats: usize,
    /// Cases whose verdict changed between repeats.
    pub flaky: Vec<Flaky>,
    /// Set when only part of the cases ran (`--shard K/N`).
    pub shard: Option<crate::model::shard::Shard>,
    /// With a shard: each result's index among all the suite's cases (the merge order).
    pub positions: Vec<usize>,
    /// The fingerprint of the mutation rules that made the run's mutants (empty when not known:
    /// a record from before it was kept).
    pub rules_sha256: String,
    /// The cap on mutants per claim and operator the mutants were made under (`max_per_claim`),
    /// None when there was none: every pooled figure names it.
    pub max_per_claim: Option<usize>,
}

/// A case whose verdict changed between repeated scorings.
#[derive(Debug, Clone, Serialize)]
pub struct Flaky {
    pub id: String,
    pub kind: CaseKind,
    pub fault_type: Option<String>,
    pub claim: String,
    /// The verdict of each repeat (`error` where it could not be scored).
    pub verdicts: Vec<String>,
}

impl SuiteRun {
    /// Records repeated scorings of the same cases and finds the flaky ones.
    pub fn add_repeats(&mut self, repeats: &[SuiteRun]) {
        self.repeats = 1 + repeats.len();
        self.flaky = self
            .results
            .iter()
            .enumerate()
            .filter_map(|(i, r)| {
                let label = |x: &CheckResult| {
                    x.as_ref()
                        .map(|v| v.label.as_str())
                        .unwrap_or("error")
                        .to_string()
                };
                let verdicts: Vec<String> = std::iter::once(label(&r.result))
                    .chain(repeats.iter().map(|rep| label(&rep.results[i].result)))
                    .collect();
                verdicts.iter().any(|v| v != &verdicts[0]).then(|| Flaky {
                    id: r.case.id.clone(),
                    kind: r.case.kind,
                    fault_type: r.case.fault_type.clone(),
                    claim: r.case.claim.clone(),
                    verdicts,
                })
            })
            .collect();
    }

    /// Number of cases the checker could not score.
    pub fn errors(&self) -> usize {
        self.results
            .iter()
            .filter(|r| r.outcome == Outcome::Error)
            .count()
    }

    /// 130 when Ctrl-C left cases unscored, 3 when the checker failed on any case, else 0.
    pub fn exit_code(&self) -> Exit {
        Exit::worst_of(
            self.results
                .iter()
                .filter_map(|r| r.result.as_ref().err())
                .map(CheckError::exit),
        )
    }

    /// True when Ctrl-C left some case unscored.
    pub fn interrupted(&self) -> bool {
        self.results
            .iter()
            .any(|r| matches!(r.result, Err(CheckError::Interrupted)))
    }
}

/// Whether a result was flagged; `None` when the checker could not score the case.
pub fn flagged(result: &CheckResult) -> Option<bool> {
    result.as_ref().ok().map(|v| v.label.flagged())
}

/// Marks the fault mutants whose parent claim the checker did not pass as
/// [`Outcome::ParentFlagged`] (see [`Outcome::given_parent`]): the one place a run decides which
/// mutants are informative. Parents are the verified claims of the same run.
pub fn mark_parent_flagged(results: &mut [CaseResult]) {
    let parents: std::collections::HashMap<String, Outcome> = results
        .iter()
        .filter(|r| r.case.kind == CaseKind::Original)
        .map(|r| (r.case.id.clone(), r.outcome))
        .collect();
    for r in results.iter_mut() {
        let parent = r.case.parent.as_ref().and_then(|p| parents.get(p)).copied();
        r.outcome = r.outcome.given_parent(r.case.kind, r.case.role(), parent);
    }
}

/// The cases of a suite: originals, then hard cases, then mutants, each in suite order.
pub fn cases(suite: &Suite, mutants: &MutantSet) -> Vec<Case> {
    let mut out = Vec::new();
    for (ci, ctx) in suite.contexts.iter().enumerate() {
        for f in &ctx.faithful {
            out.push(Case {
                id: f.id.clone(),
                kind: CaseKind::Original,
                fault_type: None,
                claim: f.text.clone(),
                expected: Expected::Supported,
                parent: None,
                review: None,
                real: false,
                context: ci,
                context_id: ctx.id.clone(),
                compound: false,
            });
        }
    }
    for (ci, ctx) in suite.contexts.iter().enumerate() {
        for h in &ctx.hard_cases {
            out.push(Case {
                id: h.id.clone(),
                kind: CaseKind::HardCase,
                fault_type: Some(h.case_type.clone()),
                claim: h.text.clone(),
                expected: h.label.into(),
                parent: None,
                review: None,
                real: h.is_real_error(),
                context: ci,
                context_id: ctx.id.clone(),
                compound: false,
            });
        }
    }
    // a rewrite a person found changes the meaning, and a mutant a person found broken, are
    // no cases: `mutants` lists them
    for m in mutants.mutants.iter().filter(|m| {
        !matches!(
            m.review,
            MutantReview::NotEquivalent { .. } | MutantReview::Broken { .. }
        )
    }) {
        let rewrite = m.is_rewrite();
        out.push(Case {
            id: m.id.clone(),
            kind: if rewrite {
                CaseKind::Rewrite
            } else {
                CaseKind::Mutant
            },
            fault_type: Some(m.operator.to_string()),
            claim: m.text.clone(),
            expected: match m.review {
                _ if rewrite => Expected::Supported,
                MutantReview::Equivalent { .. } => Expected::Supported,
                _ => Expected::Flagged,
            },
            parent: Some(m.parent.clone()),
            review: Some(m.review.clone()),
            real: false,
            context: m.context,
            context_id: suite.contexts[m.context].id.clone(),
            compound: m.compound_of.is_some(),
        });
    }
    out
}

/// Runs a checker over every case of a suite. `progress` gets (done, total).
pub fn run_suite(
    suite: &Suite,
    mutants: &MutantSet,
    checker: &dyn Checker,
    progress: &mut dyn FnMut(usize, usize),
) -> SuiteRun {
    run_suite_part(suite, mutants, checker, None, progress)
}

/// [`run_suite`] on the cases of one shard only (all of them with None).
pub fn run_suite_part(
    suite: &Suite,
    mutants: &MutantSet,
    checker: &dyn Checker,
    shard: Option<crate::model::shard::Shard>,
    progress: &mut dyn FnMut(usize, usize),
) -> SuiteRun {
    let all = cases(suite, mutants);
    let (cases, positions): (Vec<Case>, Vec<usize>) = match shard {
        None => (all, Vec::new()),
        Some(s) => all
            .into_iter()
            .enumerate()
            // a mutant goes to its parent's shard, so a shard knows whether it is informative
            .filter(|(_, c)| s.owns(c.parent.as_deref().unwrap_or(&c.id)))
            .map(|(i, c)| (c, i))
            .unzip(),
    };
    let total = cases.len();
    let sets: Vec<ContextSet> = suite.contexts.iter().map(ContextSet::from).collect();
    let input = CheckInput {
        contexts: &sets,
        entities: &suite.entities,
        claims: cases
            .iter()
            .map(|c| ClaimToCheck {
                context: c.context,
                text: &c.claim,
            })
            .collect(),
    };
    let mut verdicts = checker.check(&input, &mut |done| progress(done, total));
    // a checker that returns too few verdicts has failed on the rest: never a silent pass
    verdicts.resize_with(total, || Err(CheckError::NoVerdict));
    let mut results: Vec<CaseResult> = cases
        .into_iter()
        .zip(verdicts)
        .map(|(case, result)| CaseResult {
            outcome: Outcome::of(case.role(), flagged(&result)),
            case,
            result,
        })
        .collect();
    mark_parent_flagged(&mut results);
    SuiteRun {
        suite: suite.name.clone(),
        suite_path: suite.path.display().to_string(),
        checker: checker.name().to_string(),
        checker_kind: checker.kind().to_string(),
        settings: checker.settings(),
        results,
        operator_counts: mutants.counts(),
        empty_operators: mutants.empty_operators.clone(),
        broken: mutants.broken_by_operator(),
        repeats: 1,
        flaky: Vec::new(),
        shard,
        positions,
        rules_sha256: mutants.rules_sha256.clone(),
        max_per_claim: mutants.max_per_claim,
    }
}
