//! Summaries of a run: false alarms and catch rates per fault type, each with a Wilson interval.
//!
//! Which case counts where comes from [`crate::model::case::Role`], the one definition every command
//! uses: false alarms are over verified claims and hard cases labelled `supported`; the faults of
//! a type are the mutants reviewed `fault` of that operator and the hard cases of that `type`
//! labelled anything else.

use crate::engine::run::{CaseResult, SuiteRun};

use crate::engine::mix::{mixed_rate, Mix, MixedRate};
use crate::model::case::{CaseKind, Outcome, Role};
use crate::stats::{cluster_rate_of, detectable_drop_of, ClusterRate, Rate};
use serde::Serialize;

/// One row of the fault-type table.
#[derive(Debug, Clone, Serialize)]
pub struct FaultTypeRow {
    pub fault_type: String,
    /// Faults caught (`k`) out of faults scored (`n`): mutants reviewed `fault` and hard cases.
    #[serde(flatten)]
    pub caught: Rate,
    /// The same rate with a cluster-aware interval: a claim's mutants are one cluster.
    pub clustered: ClusterRate,
    /// The smallest drop in this rate a paired comparison of these cases detects with 80% power
    /// (exact McNemar at alpha 0.05 over the Holm family of every row); None when none could be.
    pub detectable_drop: Option<f64>,
    /// Every mutant the operator produced (0 for a hard-case type that is not an operator).
    pub mutants: usize,
    /// Hard cases of this type that are faults.
    pub hard_cases: usize,
    /// Mutants a person reviewed as still faithful: listed, not scored.
    pub equivalent: usize,
    /// Mutants nobody reviewed yet: counted apart.
    pub unreviewed: usize,
    /// How many of the unreviewed ones the checker flagged.
    pub unreviewed_flagged: usize,
    /// Fault mutants whose parent claim the checker did not pass: not informative, in no rate.
    pub parent_flagged: usize,
    /// How many of those the checker flagged (what the count before informativeness added).
    pub parent_flagged_flagged: usize,
    /// Cases the checker could not score: in no rate, never a pass.
    pub errors: usize,
    /// Set when the run has compound faults (a fault made in a rewrite of the claim): this
    /// type's plain and compound catch rates side by side (see [`CompoundSplit`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compound: Option<CompoundSplit>,
}

/// A catch rate split into plain faults (mutants of the claim itself and hard cases) and
/// compound faults (mutants of a rewrite of the claim), each with its Wilson interval.
#[derive(Debug, Clone, Serialize)]
pub struct CompoundSplit {
    pub plain: Rate,
    pub compound: Rate,
    /// Compound mutants nobody reviewed yet: in neither rate.
    pub compound_unreviewed: usize,
}

/// The split of `results` (one fault type's, or every fault's) when `on`.
fn compound_split<'a>(
    results: impl Iterator<Item = &'a CaseResult> + Clone,
    on: bool,
    confidence: f64,
) -> Option<CompoundSplit> {
    on.then(|| {
        let faults = results.clone().filter(|r| r.case.role() == Role::Fault);
        CompoundSplit {
            plain: rate(
                faults.clone().filter(|r| !r.case.compound),
                &[Outcome::Caught],
                confidence,
            ),
            compound: rate(
                faults.filter(|r| r.case.compound),
                &[Outcome::Caught],
                confidence,
            ),
            compound_unreviewed: results
                .filter(|r| r.case.compound && r.case.role() == Role::Unreviewed)
                .count(),
        }
    })
}

/// True when the run has a compound fault: the plain/compound split is shown then.
fn has_compound(run: &SuiteRun) -> bool {
    run.results.iter().any(|r| r.case.compound)
}

/// A catch rate that treats unreviewed mutants as faults: shown only while a suite has no
/// review at all, clearly labelled, so a first run in a new domain is useful.
#[derive(Debug, Clone, Serialize)]
pub struct ProvisionalRow {
    pub fault_type: String,
    #[serde(flatten)]
    pub flagged: Rate,
}

/// A run's summary.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    pub confidence: f64,
    /// Flagged faithful cases out of faithful cases scored (verified claims and hard cases
    /// labelled supported).
    pub false_alarms: Rate,
    /// Flagged invariance cases out of those scored: meaning-preserving rewrites and mutants
    /// reviewed `equivalent`, which say what a verified claim says in other words.
    pub invariance: Rate,
    pub fault_types: Vec<FaultTypeRow>,
    /// Every fault of every type together (informative mutants and hard cases).
    pub all_faults: Rate,
    pub all_faults_clustered: ClusterRate,
    /// The "all faults" row under the declared mix (`pooled` by default: the same figures as
    /// `all_faults`), its label naming the mix and any cap on mutants per claim.
    pub all_faults_mix: MixedRate,
    /// With compound faults in the run: all faults (pooled) split into plain and compound.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub all_faults_compound: Option<CompoundSplit>,
    /// Fault mutants of parents the checker did not pass, over all fault types: shown apart.
    pub parent_flagged: usize,
    /// The count before informativeness: every scored fault, mutants of flagged parents
    /// included (the figure mutation scores were published with).
    pub all_faults_every_mutant: Rate,
    /// Hard cases: agreements with the person's label (passed or caught) out of scored.
    pub hard_cases_agree: Rate,
    /// Set when no mutant of the suite has been reviewed yet (see [`ProvisionalRow`]).
    pub provisional: Option<Vec<ProvisionalRow>>,
    pub errors: usize,
    /// Operators that produced no mutant on this suite.
    pub operators_without_mutants: Vec<String>,
}

/// The cluster-aware interval of the scored cases among `results`: a mutant's cluster is its parent
/// claim, any other case is a cluster of its own.
fn clustered<'a>(
    results: impl Iterator<Item = &'a CaseResult>,
    hit: &[Outcome],
    confidence: f64,
) -> ClusterRate {
    cluster_rate_of(
        results.filter(|r| !r.outcome.uncounted()).map(|r| {
            (
                r.case.parent.as_deref().unwrap_or(&r.case.id),
                hit.contains(&r.outcome),
            )
        }),
        confidence,
    )
}

fn rate<'a>(
    results: impl Iterator<Item = &'a CaseResult>,
    hit: &[Outcome],
    confidence: f64,
) -> Rate {
    let (mut k, mut n) = (0, 0);
    for r in results {
        if r.outcome.uncounted() {
            continue;
        }
        n += 1;
        if hit.contains(&r.outcome) {
            k += 1;
        }
    }
    Rate::new(k, n, confidence)
}

/// The fault types of a run in report order: the operators, then the hard-case types that are
/// faults and not operator names, alphabetically.
pub fn fault_types(run: &SuiteRun) -> Vec<String> {
    let mut out: Vec<String> = crate::mutate::REGISTRY
        .iter()
        .filter(|op| op.purpose == crate::mutate::Purpose::Fault)
        .map(|op| op.name.to_string())
        .collect();
    let mut extra: Vec<String> = run
        .results
        .iter()
        .filter(|r| r.case.role() == Role::Fault && r.case.kind == CaseKind::HardCase)
        .filter_map(|r| r.case.fault_type.clone())
        .filter(|t| crate::mutate::operator(t).is_none())
        .collect();
    extra.sort();
    extra.dedup();
    // operators outside the registry (an LLM mutator), in the order their mutants come
    for r in &run.results {
        if r.case.kind == CaseKind::Mutant {
            if let Some(t) = &r.case.fault_type {
                if crate::mutate::operator(t).is_none() && !out.contains(t) {
                    out.push(t.clone());
                }
            }
        }
    }
    extra.retain(|t| !out.contains(t));
    out.extend(extra);
    out
}

/// Summarises a run at a confidence level (0.95 for 95% intervals), all faults pooled.
pub fn summarize(run: &SuiteRun, confidence: f64) -> Summary {
    summarize_mixed(run, confidence, &Mix::Pooled)
}

/// [`summarize`] with the "all faults" row weighted to `mix` (see [`crate::engine::mix`]).
pub fn summarize_mixed(run: &SuiteRun, confidence: f64, mix: &Mix) -> Summary {
    let role = |r: &&CaseResult| r.case.role();
    let false_alarms = rate(
        run.results
            .iter()
            .filter(|r| role(r) == Role::FalseAlarmOpportunity),
        &[Outcome::FalseAlarm],
        confidence,
    );
    let invariance = rate(
        run.results.iter().filter(|r| role(r) == Role::Invariance),
        &[Outcome::FalseAlarm],
        confidence,
    );
    let fault_types: Vec<FaultTypeRow> = fault_types(run)
        .into_iter()
        .map(|ft| fault_type_row(run, ft, confidence))
        .collect();
    let all_faults = rate(
        run.results.iter().filter(|r| role(r) == Role::Fault),
        &[Outcome::Caught],
        confidence,
    );
    let parent_flagged = run
        .results
        .iter()
        .filter(|r| r.outcome == Outcome::ParentFlagged)
        .count();
    let every = run
        .results
        .iter()
        .filter(|r| role(r) == Role::Fault && r.outcome != Outcome::Error);
    let all_faults_every_mutant = Rate::new(
        every
            .clone()
            .filter(|r| crate::engine::run::flagged(&r.result) == Some(true))
            .count() as u64,
        every.count() as u64,
        confidence,
    );
    let all_faults_clustered = clustered(
        run.results.iter().filter(|r| role(r) == Role::Fault),
        &[Outcome::Caught],
        confidence,
    );
    // the level a row must meet under Holm in the worst case: alpha over every row that has cases
    let rows =
        2 + usize::from(invariance.n > 0) + fault_types.iter().filter(|r| r.caught.n > 0).count();
    let mut fault_types = fault_types;
    for r in &mut fault_types {
        r.detectable_drop = detectable_drop_of(r.caught.n, r.caught.k, 0.05 / rows as f64, 0.8);
    }

    let provisional = provisional(run, &fault_types, confidence);
    let by_type: Vec<(&str, Rate)> = fault_types
        .iter()
        .map(|r| (r.fault_type.as_str(), r.caught))
        .collect();
    let all_faults_mix = mixed_rate(mix, &by_type, all_faults, run.max_per_claim, confidence);
    let all_faults_compound = compound_split(run.results.iter(), has_compound(run), confidence);

    let hard: Vec<&CaseResult> = run
        .results
        .iter()
        .filter(|r| r.case.kind == CaseKind::HardCase && r.outcome != Outcome::Error)
        .collect();
    let agree = hard.iter().filter(|r| r.outcome.good()).count() as u64;

    Summary {
        confidence,
        false_alarms,
        invariance,
        fault_types,
        all_faults,
        all_faults_clustered,
        all_faults_mix,
        all_faults_compound,
        parent_flagged,
        all_faults_every_mutant,
        hard_cases_agree: Rate::new(agree, hard.len() as u64, confidence),
        provisional,
        errors: run.errors(),
        operators_without_mutants: run.empty_operators.iter().map(|s| s.to_string()).collect(),
    }
}

/// The row of one fault type: its faults' catch rate (plain and clustered by context), and how
/// many of its cases are mutants, hard cases, equivalent, unreviewed, of a flagged parent or
/// errors. `detectable_drop` is filled in once every row is known.
fn fault_type_row(run: &SuiteRun, ft: String, confidence: f64) -> FaultTypeRow {
    let role = |r: &&CaseResult| r.case.role();
    let of_type: Vec<&CaseResult> = run
        .results
        .iter()
        .filter(|r| r.case.fault_type.as_deref() == Some(ft.as_str()))
        .filter(|r| r.case.kind == CaseKind::Mutant || role(r) == Role::Fault)
        .collect();
    let with = |want: Role| of_type.iter().filter(move |r| role(r) == want);
    FaultTypeRow {
        caught: rate(with(Role::Fault).copied(), &[Outcome::Caught], confidence),
        clustered: clustered(with(Role::Fault).copied(), &[Outcome::Caught], confidence),
        detectable_drop: None,
        mutants: of_type
            .iter()
            .filter(|r| r.case.kind == CaseKind::Mutant)
            .count(),
        hard_cases: of_type
            .iter()
            .filter(|r| r.case.kind == CaseKind::HardCase)
            .count(),
        equivalent: of_type
            .iter()
            .filter(|r| r.case.kind == CaseKind::Mutant && role(r) == Role::Invariance)
            .count(),
        unreviewed: with(Role::Unreviewed).count(),
        unreviewed_flagged: with(Role::Unreviewed)
            .filter(|r| r.outcome == Outcome::FlaggedUnreviewed)
            .count(),
        parent_flagged: of_type
            .iter()
            .filter(|r| r.outcome == Outcome::ParentFlagged)
            .count(),
        parent_flagged_flagged: of_type
            .iter()
            .filter(|r| r.outcome == Outcome::ParentFlagged)
            .filter(|r| crate::engine::run::flagged(&r.result) == Some(true))
            .count(),
        errors: of_type
            .iter()
            .filter(|r| r.outcome == Outcome::Error)
            .count(),
        compound: compound_split(of_type.iter().copied(), has_compound(run), confidence),
        fault_type: ft,
    }
}

/// When no mutant of the suite is reviewed yet: per fault type with unreviewed mutants, the share
/// of the mutants of claims the checker passes that it flags (a provisional catch rate).
fn provisional(
    run: &SuiteRun,
    fault_types: &[FaultTypeRow],
    confidence: f64,
) -> Option<Vec<ProvisionalRow>> {
    let role = |r: &&CaseResult| r.case.role();
    let mutants: Vec<&CaseResult> = run
        .results
        .iter()
        .filter(|r| r.case.kind == CaseKind::Mutant)
        .collect();
    let none_reviewed = !mutants.is_empty() && mutants.iter().all(|r| role(r) == Role::Unreviewed);
    // the provisional rate counts only mutants of claims the checker passes, as the real one does
    let passed: std::collections::HashSet<&str> = run
        .results
        .iter()
        .filter(|r| r.case.kind == CaseKind::Original && r.outcome == Outcome::Passed)
        .map(|r| r.case.id.as_str())
        .collect();
    let mutants: Vec<&CaseResult> = mutants
        .into_iter()
        .filter(|r| r.case.parent.as_deref().is_some_and(|p| passed.contains(p)))
        .collect();
    none_reviewed.then(|| {
        fault_types
            .iter()
            .filter(|row| row.unreviewed > 0)
            .map(|row| ProvisionalRow {
                fault_type: row.fault_type.clone(),
                flagged: rate(
                    mutants
                        .iter()
                        .filter(|r| r.case.fault_type.as_deref() == Some(row.fault_type.as_str()))
                        .copied(),
                    &[Outcome::FlaggedUnreviewed],
                    confidence,
                ),
            })
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{CheckError, Verdict};
    use crate::model::case::Label;
    use crate::model::case::MutantReview;
    use crate::model::case::{Case, Expected};

    fn result(
        kind: CaseKind,
        ft: Option<&str>,
        expected: Expected,
        review: Option<MutantReview>,
        verdict: Option<Label>,
    ) -> CaseResult {
        let case = Case {
            id: format!("c{}", rand_id()),
            kind,
            fault_type: ft.map(String::from),
            claim: "x".into(),
            expected,
            parent: None,
            review,
            real: false,
            context: 0,
            context_id: String::new(),
            compound: false,
        };
        let result = match verdict {
            Some(label) => Ok(Verdict {
                label,
                score: Some(0.5),
                evidence: None,
                reason: String::new(),
            }),
            None => Err(CheckError::Model("boom".into())),
        };
        CaseResult {
            outcome: Outcome::of(case.role(), crate::engine::run::flagged(&result)),
            case,
            result,
        }
    }

    fn rand_id() -> usize {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static N: AtomicUsize = AtomicUsize::new(0);
        N.fetch_add(1, Ordering::Relaxed)
    }

    fn run_of(results: Vec<CaseResult>) -> SuiteRun {
        SuiteRun {
            shard: None,
            positions: Vec::new(),
            suite: "s".into(),
            suite_path: "s.yaml".into(),
            checker: "c".into(),
            checker_kind: "lexical".into(),
            settings: Default::default(),
            results,
            operator_counts: vec![],
            empty_operators: vec![],
            broken: vec![],
            repeats: 1,
            flaky: vec![],
            rules_sha256: String::new(),
            max_per_claim: None,
        }
    }

    #[test]
    fn supported_hard_cases_are_false_alarm_opportunities_and_other_hard_cases_are_faults() {
        use CaseKind::*;
        let run = run_of(vec![
            result(
                Original,
                None,
                Expected::Supported,
                None,
                Some(Label::Supported),
            ),
            result(
                HardCase,
                Some("paraphrase"),
                Expected::Supported,
                None,
                Some(Label::NotFound),
            ),
            result(
                HardCase,
                Some("number_swap"),
                Expected::Contradicted,
                None,
                Some(Label::Contradicted),
            ),
            result(
                HardCase,
                Some("added_fact"),
                Expected::NotFound,
                None,
                Some(Label::Supported),
            ),
            result(
                Mutant,
                Some("number_swap"),
                Expected::Flagged,
                Some(MutantReview::Fault),
                Some(Label::Supported),
            ),
        ]);
        let s = summarize(&run, 0.95);
        assert_eq!((s.false_alarms.k, s.false_alarms.n), (1, 2));
        let ns = &s.fault_types[0];
        assert_eq!(ns.fault_type, "number_swap");
        assert_eq!(
            (ns.caught.k, ns.caught.n, ns.mutants, ns.hard_cases),
            (1, 2, 1, 1)
        );
        let added = s
            .fault_types
            .iter()
            .find(|r| r.fault_type == "added_fact")
            .unwrap();
        assert_eq!((added.caught.k, added.caught.n), (0, 1));
        assert_eq!((s.all_faults.k, s.all_faults.n), (1, 3));
        assert!(s.provisional.is_none());
    }

    #[test]
    fn unreviewed_mutants_are_in_no_rate_but_give_a_provisional_rate_when_nothing_is_reviewed() {
        use CaseKind::*;
        let mut run = run_of(vec![
            result(
                Original,
                None,
                Expected::Supported,
                None,
                Some(Label::Supported),
            ),
            result(
                Mutant,
                Some("negation_flip"),
                Expected::Flagged,
                Some(MutantReview::Unreviewed),
                Some(Label::Contradicted),
            ),
            result(
                Mutant,
                Some("negation_flip"),
                Expected::Flagged,
                Some(MutantReview::Unreviewed),
                Some(Label::Supported),
            ),
        ]);
        let parent = run.results[0].case.id.clone();
        for r in &mut run.results[1..] {
            r.case.parent = Some(parent.clone());
        }
        let s = summarize(&run, 0.95);
        let nf = &s.fault_types[1];
        assert_eq!(
            (nf.caught.n, nf.unreviewed, nf.unreviewed_flagged),
            (0, 2, 1)
        );
        assert_eq!(run.results[1].outcome, Outcome::FlaggedUnreviewed);
        assert_eq!(run.results[2].outcome, Outcome::PassedUnreviewed);
        let p = s.provisional.expect("no review at all: provisional rate");
        assert_eq!(
            (p[0].fault_type.as_str(), p[0].flagged.k, p[0].flagged.n),
            ("negation_flip", 1, 2)
        );
    }

    #[test]
    fn a_mutant_of_a_claim_the_checker_flags_is_in_no_catch_rate_and_counted_apart() {
        use CaseKind::*;
        let fault = Some(MutantReview::Fault);
        let mut results = vec![
            // f-pass is supported, f-flag is a false alarm
            result(
                Original,
                None,
                Expected::Supported,
                None,
                Some(Label::Supported),
            ),
            result(
                Original,
                None,
                Expected::Supported,
                None,
                Some(Label::NotFound),
            ),
            result(
                Mutant,
                Some("negation_flip"),
                Expected::Flagged,
                fault.clone(),
                Some(Label::Contradicted),
            ),
            result(
                Mutant,
                Some("negation_flip"),
                Expected::Flagged,
                fault.clone(),
                Some(Label::Supported),
            ),
            result(
                Mutant,
                Some("negation_flip"),
                Expected::Flagged,
                fault.clone(),
                Some(Label::Contradicted),
            ),
            result(
                Mutant,
                Some("negation_flip"),
                Expected::Flagged,
                fault,
                Some(Label::Supported),
            ),
        ];
        let (pass, flag) = (results[0].case.id.clone(), results[1].case.id.clone());
        for (i, r) in results[2..].iter_mut().enumerate() {
            r.case.parent = Some(if i < 2 { pass.clone() } else { flag.clone() });
        }
        crate::engine::run::mark_parent_flagged(&mut results);
        let outcomes: Vec<Outcome> = results.iter().map(|r| r.outcome).collect();
        assert_eq!(
            outcomes[2..],
            [
                Outcome::Caught,
                Outcome::Missed,
                Outcome::ParentFlagged,
                Outcome::ParentFlagged
            ]
        );
        let s = summarize(&run_of(results), 0.95);
        let nf = &s.fault_types[1];
        assert_eq!((nf.caught.k, nf.caught.n), (1, 2), "caught / informative");
        assert_eq!((nf.parent_flagged, nf.parent_flagged_flagged), (2, 1));
        assert_eq!((s.all_faults.k, s.all_faults.n), (1, 2));
        assert_eq!(s.parent_flagged, 2);
        // the count before informativeness: every flagged fault mutant was "caught"
        assert_eq!(
            (s.all_faults_every_mutant.k, s.all_faults_every_mutant.n),
            (2, 4)
        );
    }

    #[test]
    fn a_mutant_whose_parent_could_not_be_scored_is_not_informative_and_its_own_error_stays_an_error(
    ) {
        use CaseKind::*;
        let fault = Some(MutantReview::Fault);
        let mut results = vec![
            result(Original, None, Expected::Supported, None, None),
            result(
                Mutant,
                Some("number_swap"),
                Expected::Flagged,
                fault.clone(),
                Some(Label::Contradicted),
            ),
            result(Mutant, Some("number_swap"), Expected::Flagged, fault, None),
        ];
        let parent = results[0].case.id.clone();
        results[1].case.parent = Some(parent.clone());
        results[2].case.parent = Some(parent);
        crate::engine::run::mark_parent_flagged(&mut results);
        assert_eq!(results[1].outcome, Outcome::ParentFlagged);
        assert_eq!(results[2].outcome, Outcome::Error);
    }

    #[test]
    fn errors_count_in_no_rate() {
        use CaseKind::*;
        let run = run_of(vec![
            result(Original, None, Expected::Supported, None, None),
            result(
                Mutant,
                Some("entity_swap"),
                Expected::Flagged,
                Some(MutantReview::Fault),
                None,
            ),
            result(
                Mutant,
                Some("entity_swap"),
                Expected::Flagged,
                Some(MutantReview::Fault),
                Some(Label::NotFound),
            ),
        ]);
        let s = summarize(&run, 0.95);
        assert_eq!(s.false_alarms.n, 0);
        let row = s
            .fault_types
            .iter()
            .find(|r| r.fault_type == "entity_swap")
            .unwrap();
        assert_eq!((row.caught.k, row.caught.n, row.errors), (1, 1, 1));
        assert_eq!(s.errors, 2);
    }
}
