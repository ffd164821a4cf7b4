//! Paired comparison of two run records: what a checker or prompt change gained and lost.
//!
//! Cases are paired by suite and id. For each group (false alarms on faithful cases, every fault
//! type, all faults together) it reports both sides' rates with Wilson intervals and the paired
//! change: cases that got better, cases that got worse, and the exact McNemar p-value on those
//! discordant cases. Regressions are listed case by case. An error is never a good outcome.

use super::failure::GateFailure;
use super::family::{decide, Member};
use super::row::{row_key, RowKey};
use crate::engine::record::{Record, RecordCase};
use crate::error::{Error, Exit, Refusal};
use crate::model::case::Label;
use crate::model::case::{CaseKind, Expected, Outcome, Role};
use crate::stats::paired::{min_p_worse, sign_flip_p_worse};
use crate::stats::{cluster_rate_of, detectable_drop_of, mcnemar_exact, Adjust, ClusterRate, Rate};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

/// One row of the comparison.
#[derive(Debug, Clone, Serialize)]
pub struct GroupRow {
    /// `false alarms`, `all faults`, or a fault type.
    pub group: String,
    /// True for the false-alarm row: rates are false-alarm rates (lower is better).
    pub faithful: bool,
    pub base: Rate,
    pub candidate: Rate,
    /// Cases bad in the base and good in the candidate (b).
    pub better: u64,
    /// Cases good in the base and bad in the candidate (c).
    pub worse: u64,
    /// The two-sided exact McNemar p-value of this row alone, for reading.
    pub p_value: f64,
    /// The one-sided p-value that the candidate is worse, by sign flips of the parent claims'
    /// net changes (see [`crate::stats::paired`]): what the gate tests.
    pub p_worse: f64,
    /// Parent claims (clusters) whose cases changed on net: the effective n of the paired test.
    pub clusters_changed: u64,
    /// Whether the row can reach significance at all and so is in the family the gate adjusts
    /// over (Tarone's rule); a gating row outside it cannot fail.
    pub in_family: bool,
    /// `p_worse` adjusted over the family of gating rows (`Adjust`, with Tarone's m); 1 for a
    /// row outside the family, `p_worse` for a row that does not gate.
    pub p_adjusted: f64,
    /// Whether this row takes part in the gate's decision (`--gate-on`).
    pub gating: bool,
    /// Worse more often than better, with the adjusted p below alpha, on a gating row.
    pub significantly_worse: bool,
    /// Both sides' rates with a cluster-aware interval (parent claims are the clusters).
    pub base_clustered: ClusterRate,
    pub candidate_clustered: ClusterRate,
    /// Parent claims the worse cases come from: few parents behind many worse cases means the
    /// change broke a few claims, not a fault type.
    pub worse_parents: u64,
    /// The smallest drop these paired cases detect with 80% power at the level this row must
    /// meet, counted in clusters as the test counts them (each cluster at risk is one unit);
    /// None when no drop could be.
    pub detectable_drop: Option<f64>,
    /// Clusters (claims or contexts) of the row, and those with a case the base got right: the
    /// units the paired test counts.
    pub clusters: u64,
    pub clusters_at_risk: u64,
    /// The smallest one-sided p the row could reach if every cluster at risk got worse.
    pub min_reachable_p: f64,
    /// A fault-type row is tested only after `all faults` is significantly worse (the
    /// gatekeeping family); false when that did not happen, so the row could not fail.
    pub tested: bool,
    /// The false-alarm row with `--false-alarm-margin`: the one-sided upper bound on the rise
    /// of the false-alarm rate (Tango's score bound, clustered), what the margin is tested
    /// against.
    pub rise_upper: Option<f64>,
}

/// How the gate decides: the level, the rows that gate, how their p-values are combined.
#[derive(Debug, Clone, PartialEq)]
pub struct GateOptions {
    pub alpha: f64,
    /// Fail when more faults than this are newly missed (a rule, no error rate); None: no such
    /// rule, the default.
    pub max_new_misses: Option<u64>,
    /// Fail when more faithful cases than this are newly flagged (a rule); None: no such rule.
    pub max_new_false_alarms: Option<u64>,
    pub confidence: f64,
    pub adjust: Adjust,
    /// Rows that decide (`false_alarms`, `all_faults`, or fault types); None: every row.
    pub gate_on: Option<Vec<String>>,
    /// A detectable drop larger than this is reported as "too few cases".
    pub min_detectable: f64,
    /// The unit whose cases move together: the paired test's clusters and the intervals'.
    pub cluster_by: ClusterBy,
    /// Non-inferiority on false alarms (`--false-alarm-margin`): the gate also fails unless the
    /// one-sided upper bound on the false-alarm rise is under this margin. None: no margin.
    pub false_alarm_margin: Option<f64>,
}

/// What the cases of a suite comparison are clustered by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ClusterBy {
    /// The claim a mutant was made from (a case without a parent is its own cluster).
    Claim,
    /// The context (the passages of one prompt) a case is checked against: claims that share
    /// passages move together when a checker reads those passages differently. A case of a
    /// record without contexts falls back to its claim.
    Context,
}

impl ClusterBy {
    /// One cluster, as a report names it.
    pub fn singular(self) -> &'static str {
        match self {
            ClusterBy::Claim => "claim",
            ClusterBy::Context => "context",
        }
    }

    /// The plural a report names the clusters with.
    pub fn plural(self) -> &'static str {
        match self {
            ClusterBy::Claim => "claims",
            ClusterBy::Context => "contexts",
        }
    }
}

impl GateOptions {
    /// Holm over every row, drops of 0.10 expected to be detectable.
    pub fn new(alpha: f64, max_new_misses: Option<u64>, confidence: f64) -> GateOptions {
        GateOptions {
            alpha,
            max_new_misses,
            max_new_false_alarms: None,
            confidence,
            adjust: Adjust::Holm,
            gate_on: None,
            min_detectable: 0.10,
            cluster_by: ClusterBy::Context,
            false_alarm_margin: None,
        }
    }
}

impl GroupRow {
    /// A fault type's row (not false alarms, invariance or all faults): the second family.
    pub fn is_fault_type(&self) -> bool {
        !self.faithful && self.group != RowKey::AllFaults.name()
    }

    /// The cases the base got right, the only ones that can get worse: caught faults, or passed
    /// faithful cases.
    pub fn base_good(&self) -> u64 {
        if self.faithful {
            self.base.n - self.base.k
        } else {
            self.base.k
        }
    }
}

/// A case that got worse.
#[derive(Debug, Clone, Serialize)]
pub struct Change {
    pub suite: String,
    pub id: String,
    pub kind: CaseKind,
    pub fault_type: Option<String>,
    pub claim: String,
    pub expected: Expected,
    pub base_verdict: Option<Label>,
    pub base_score: Option<f64>,
    pub candidate_verdict: Option<Label>,
    pub candidate_score: Option<f64>,
    pub candidate_error: Option<String>,
    pub change: ChangeKind,
}

/// How a case got worse.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, strum::IntoStaticStr, strum::VariantArray,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum ChangeKind {
    /// A fault the base caught and the candidate does not.
    NewlyMissed,
    /// A faithful case the base passed and the candidate flags (or cannot score).
    NewFalseAlarm,
}

impl ChangeKind {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// The whole comparison.
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    pub base: String,
    pub candidate: String,
    pub alpha: f64,
    pub max_new_misses: Option<u64>,
    pub max_new_false_alarms: Option<u64>,
    /// `--false-alarm-margin`, when set.
    pub false_alarm_margin: Option<f64>,
    pub adjust: Adjust,
    pub min_detectable: f64,
    /// Tarone's m: the number of rows alpha is divided among (false alarms, invariance and all
    /// faults; the fault types form a second family, tested only after all faults rejects).
    pub family_size: usize,
    /// What cases were clustered by.
    pub cluster_by: ClusterBy,
    /// Tarone's m of the fault types' family, and the level it was tested at (alpha passed on
    /// by `all faults`); None when the fault types were not tested.
    pub fault_types: Option<(usize, f64)>,
    /// The mix of the `all faults` row: always `pooled`. The gate's paired test is on pooled
    /// counts; a declared mix (`run --mix`) weighs the rates `run` and `report` print, and no
    /// paired test of a weighted rate is made.
    pub all_faults_mix: &'static str,
    /// The cap on mutants per claim and operator either record's mutants were made under (the
    /// larger when both have one), which the `all faults` row's label names.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_per_claim: Option<usize>,
    pub rows: Vec<GroupRow>,
    pub regressions: Vec<Change>,
    pub newly_missed: u64,
    pub new_false_alarms: u64,
    /// (suite, id) of cases present in only one record: listed, never silently dropped.
    pub only_in_base: Vec<(String, String)>,
    pub only_in_candidate: Vec<(String, String)>,
    /// Suites whose file differs between the two records.
    pub suites_changed: Vec<String>,
    /// Why the gate failed, one value each; empty when it passed.
    pub failures: Vec<GateFailure>,
    /// Cases a checker could not score (on either side): in no row, listed, never a pass.
    pub errors: Vec<ErroredCase>,
    /// Why there is no verdict although nothing failed: rows whose every case is an error, or a
    /// candidate that could not score some case. Exit 3, never a pass.
    pub no_verdict: Vec<String>,
    /// How many times each side scored every case (`run --repeat N`).
    pub repeats: (usize, usize),
    /// Cases whose verdict varied across repeats in either record: in no row and no rule.
    pub flaky: Vec<FlakyCase>,
    /// Fault mutants left out because their parent claim was flagged on either side: each side
    /// decides informativeness with its own verdict on the parent, and the paired test uses the
    /// mutants informative on both.
    pub parent_flagged: ParentFlagged,
    /// A record of an LLM judge (or a cascade with one) scored once: its run-to-run variation
    /// is unknown, and under `--max-new-misses 0` it can fail an unchanged checker.
    pub judge_scored_once: bool,
}

/// Fault mutants of flagged parents, by the side that flagged the parent.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ParentFlagged {
    /// Mutants left out of every row: not informative on at least one side.
    pub left_out: u64,
    /// Of those, how many the base's parent verdict left out.
    pub base: u64,
    /// Of those, how many the candidate's parent verdict left out.
    pub candidate: u64,
}

/// A case left out because its verdict varied across the repeats of a record.
#[derive(Debug, Clone, Serialize)]
pub struct FlakyCase {
    pub suite: String,
    pub id: String,
    /// Whether it came out differently in the two records (a change within the checker's own
    /// run-to-run variation).
    pub changed: bool,
}

/// A paired case that one side (or both) could not score.
#[derive(Debug, Clone, Serialize)]
pub struct ErroredCase {
    pub suite: String,
    pub id: String,
    /// `base`, `candidate` or `both`.
    pub side: &'static str,
    /// The error of the candidate when it has one, else the base's.
    pub error: String,
}

impl Comparison {
    /// 1 when the gate failed, else 0.
    /// One line for a title: passed, or failed and the first reason (the one that decided).
    pub fn headline(&self) -> String {
        match self.failures.first() {
            None if !self.no_verdict.is_empty() => format!("no verdict: {}", self.no_verdict[0]),
            None => "gate passed".into(),
            Some(f) if self.failures.len() == 1 => format!("gate failed: {f}"),
            Some(f) => format!("gate failed: {f} (and {} more)", self.failures.len() - 1),
        }
    }

    /// 1 when the gate failed; 3 when nothing failed but cases could not be scored (no verdict,
    /// never a pass); else 0.
    pub fn exit_code(&self) -> Exit {
        super::exit_code(&self.failures, &self.no_verdict)
    }
}

/// How a title names the two sides: by checker; when both sides have the same checker name (a
/// prompt or threshold change under one name, as `ci/pre-merge.sh` makes), by the settings that
/// differ; when those are equal too, by the record files' names.
pub fn side_labels(
    base: &Record,
    candidate: &Record,
    files: Option<(&str, &str)>,
) -> (String, String) {
    let (b, c) = (label_of(base), label_of(candidate));
    if b != c {
        return (b, c);
    }
    let settings = |r: &Record| {
        r.runs
            .first()
            .map(|x| x.checker.settings.clone())
            .unwrap_or_default()
    };
    let (sb, sc) = (settings(base), settings(candidate));
    let short = |v: Option<&String>| -> String {
        let v = v.map(String::as_str).unwrap_or("unset");
        if v.chars().count() > 16 {
            format!("{}…", v.chars().take(12).collect::<String>())
        } else {
            v.to_string()
        }
    };
    let keys: std::collections::BTreeSet<&String> = sb.keys().chain(sc.keys()).collect();
    let differ: Vec<&String> = keys
        .into_iter()
        .filter(|k| sb.get(*k) != sc.get(*k))
        .collect();
    if !differ.is_empty() {
        let describe = |m: &std::collections::BTreeMap<String, String>| {
            differ
                .iter()
                .map(|k| format!("{k} {}", short(m.get(*k))))
                .collect::<Vec<_>>()
                .join(", ")
        };
        return (
            format!("{b} ({})", describe(&sb)),
            format!("{c} ({})", describe(&sc)),
        );
    }
    match files {
        Some((fb, fc)) if fb != fc => (format!("{b} ({fb})"), format!("{c} ({fc})")),
        _ => (format!("{b} (base)"), format!("{c} (candidate)")),
    }
}

/// The fewest repeats any run of a record had.
fn repeats_of(r: &Record) -> usize {
    r.runs.iter().map(|x| x.repeats).min().unwrap_or(1)
}

fn label_of(r: &Record) -> String {
    let mut names: Vec<String> = r.runs.iter().map(|x| x.checker.name.clone()).collect();
    names.dedup();
    names.join("+")
}

/// Two record cases of one suite and id.
type Pair<'a> = (String, &'a RecordCase, &'a RecordCase);
/// A row's cases: (cluster, base, candidate).
type Cases<'a> = Vec<(String, &'a RecordCase, &'a RecordCase)>;

/// The two records' cases paired by suite and id, the cases of only one side, and the suites
/// whose file differs.
struct Paired<'a> {
    pairs: Vec<Pair<'a>>,
    only_in_base: Vec<(String, String)>,
    only_in_candidate: Vec<(String, String)>,
    suites_changed: Vec<String>,
}

fn pair_records<'a>(base: &'a Record, candidate: &'a Record) -> Paired<'a> {
    let cases = |r: &'a Record| -> Vec<((String, String), &'a RecordCase)> {
        r.runs
            .iter()
            .flat_map(|run| {
                run.cases
                    .iter()
                    .map(move |c| ((run.suite.clone(), c.id.clone()), c))
            })
            .collect()
    };
    let base_sha: HashMap<&str, &str> = base
        .runs
        .iter()
        .map(|r| (r.suite.as_str(), r.suite_sha256.as_str()))
        .collect();
    let suites_changed = candidate
        .runs
        .iter()
        .filter(|run| {
            base_sha
                .get(run.suite.as_str())
                .is_some_and(|s| *s != run.suite_sha256)
        })
        .map(|run| run.suite.clone())
        .collect();
    let p = super::pair::pair(cases(base), cases(candidate));
    let mut only_in_base: Vec<(String, String)> =
        p.only_in_base.into_iter().map(|(k, _)| k).collect();
    only_in_base.sort();
    Paired {
        pairs: p
            .pairs
            .into_iter()
            .map(|((suite, _), b, c)| (suite, b, c))
            .collect(),
        only_in_base,
        only_in_candidate: p.only_in_candidate.into_iter().map(|(k, _)| k).collect(),
        suites_changed,
    }
}

/// The error for two records with no case in common.
fn nothing_paired(base: &Record, candidate: &Record) -> Error {
    let describe = |r: &Record| {
        let suites: Vec<String> = r
            .runs
            .iter()
            .map(|x| format!("{} ({} cases)", x.suite, x.cases.len()))
            .collect();
        if suites.is_empty() {
            "no run at all".to_string()
        } else {
            suites.join(", ")
        }
    };
    Refusal::NothingPaired.with(format!(
        "nothing to compare: no case is in both records (base: {}; candidate: {}); compare records of the same suites",
        describe(base),
        describe(candidate)
    ))
}

/// The rows a case counts in: false alarms, invariance, or its fault type and all faults.
fn rows_of(c: &RecordCase) -> Vec<RowKey> {
    match c.role() {
        Role::FalseAlarmOpportunity => vec![RowKey::FalseAlarms],
        Role::Invariance => vec![RowKey::Invariance],
        Role::Fault => vec![
            RowKey::FaultType(c.fault_type.clone().unwrap_or_else(|| "unknown".into())),
            RowKey::AllFaults,
        ],
        _ => Vec::new(),
    }
}

/// A case whose verdict varied across repeats in either record: its change is within the
/// checker's own run-to-run variation, so it is in no row and no rule, and is counted apart.
fn is_flaky(b: &RecordCase, c: &RecordCase) -> bool {
    !b.flaky_verdicts.is_empty() || !c.flaky_verdicts.is_empty()
}

/// The paired cases sorted into rows, and what was left out of every row and why.
#[derive(Default)]
struct Grouped<'a> {
    groups: BTreeMap<RowKey, Cases<'a>>,
    errored_groups: BTreeMap<RowKey, usize>,
    errors: Vec<ErroredCase>,
    flaky: Vec<FlakyCase>,
    parent_flagged: ParentFlagged,
}

/// Sorts the pairs into rows. A case counts when both sides agree on what it is; a case either
/// side could not score is in no row (as in `run`: an error is in no rate) and is listed.
fn group<'a>(pairs: &[Pair<'a>], by: ClusterBy) -> Grouped<'a> {
    let mut g = Grouped::default();
    for (suite, b, c) in pairs {
        let keys = rows_of(c);
        if b.role() != c.role() || keys.is_empty() {
            continue;
        }
        if is_flaky(b, c) {
            g.flaky.push(FlakyCase {
                suite: suite.clone(),
                id: c.id.clone(),
                changed: b.good() != c.good(),
            });
            continue;
        }
        let (be, ce) = (b.outcome == Outcome::Error, c.outcome == Outcome::Error);
        if be || ce {
            for k in keys {
                *g.errored_groups.entry(k).or_default() += 1;
            }
            g.errors.push(ErroredCase {
                suite: suite.clone(),
                id: c.id.clone(),
                side: match (be, ce) {
                    (true, true) => "both",
                    (true, false) => "base",
                    _ => "candidate",
                },
                error: c
                    .error
                    .clone()
                    .or_else(|| b.error.clone())
                    .unwrap_or_default(),
            });
            continue;
        }
        let (bp, cp) = (
            b.outcome == Outcome::ParentFlagged,
            c.outcome == Outcome::ParentFlagged,
        );
        if bp || cp {
            g.parent_flagged.left_out += 1;
            g.parent_flagged.base += u64::from(bp);
            g.parent_flagged.candidate += u64::from(cp);
            continue;
        }
        let unit = cluster(suite, c, by);
        for k in keys {
            g.groups.entry(k).or_default().push((unit.clone(), *b, *c));
        }
    }
    g
}

/// With no row at all: the error that says why (errors, flaky verdicts, flagged parents, or
/// cases that count in no rate). Never a passing gate.
fn nothing_counts(g: &Grouped<'_>, pairs: usize) -> Result<(), Error> {
    if !g.groups.is_empty() {
        return Ok(());
    }
    let (kind, message) = if !g.errors.is_empty() {
        let cand = g.errors.iter().filter(|e| e.side != "base").count();
        let base_n = g.errors.iter().filter(|e| e.side != "candidate").count();
        (Refusal::AllErrored, format!(
            "nothing to compare: every case that counts is an error (the base could not score {base_n}, the candidate {cand}; first: {}); a checker that fails is never a pass: fix it and record again",
            g.errors[0].error
        ))
    } else if !g.flaky.is_empty() {
        (Refusal::FlakyOnly, format!(
            "nothing to compare: every one of the {} case(s) that count gave different verdicts across the repeats of a record, so no change can be told from the checker's own variation; fix the checker's randomness (a judge at temperature 0) or add cases",
            g.flaky.len()
        ))
    } else if g.parent_flagged.left_out > 0 {
        (Refusal::ParentFlaggedOnly, format!(
            "nothing to compare: every case that counts is a mutant of a claim one side already flags ({} left out), so no change in catching faults can be seen; add verified claims both checkers support, or hard cases",
            g.parent_flagged.left_out
        ))
    } else {
        (Refusal::NothingCounts, format!(
            "nothing to compare: the {pairs} case(s) in both records count in no rate (no verified claim, no reviewed fault, no hard case); review the mutants first"
        ))
    };
    Err(kind.with(message))
}

/// Rows whose every case is an error, and a candidate that could not score some case: no
/// verdict (exit 3), never a pass.
fn no_verdict_of(g: &Grouped<'_>) -> Vec<String> {
    let mut no_verdict: Vec<String> = g
        .errored_groups
        .iter()
        .filter(|(k, _)| !g.groups.contains_key(*k))
        .map(|(k, n)| {
            format!(
                "{}: all {n} case(s) are errors, so this row has no verdict",
                k.name()
            )
        })
        .collect();
    let candidate_errors = g.errors.iter().filter(|e| e.side != "base").count();
    if candidate_errors > 0 {
        no_verdict.push(format!(
            "the candidate could not score {candidate_errors} case(s) that count (first: {}); they are in no row, and a gate cannot pass on what was not scored",
            g.errors.iter().find(|e| e.side != "base").map(|e| e.id.as_str()).unwrap_or("")
        ));
    }
    no_verdict
}

/// `--gate-on` names only rows that exist.
fn check_gate_on(groups: &BTreeMap<RowKey, Cases<'_>>, opts: &GateOptions) -> Result<(), Error> {
    let Some(keys) = &opts.gate_on else {
        return Ok(());
    };
    let names: Vec<String> = groups.keys().map(|k| row_key(&k.name())).collect();
    match keys.iter().find(|k| !names.contains(&row_key(k))) {
        Some(unknown) => Err(Refusal::UnknownRow.with(format!(
            "--gate-on {unknown}: no such row; the rows are {}",
            names.join(", ")
        ))),
        None => Ok(()),
    }
}

/// The cluster of a case: the claim a mutant was made from (or the case itself), or the
/// suite's context it is checked against.
fn cluster(suite: &str, c: &RecordCase, by: ClusterBy) -> String {
    match by {
        ClusterBy::Context if !c.context.is_empty() => format!("{suite}\0{}", c.context),
        _ => format!(
            "{suite}\0\0{}",
            c.parent.clone().unwrap_or_else(|| c.id.clone())
        ),
    }
}

/// Whether a case is bad for its row: flagged when faithful, missed when a fault.
fn bad_in(x: &RecordCase, faithful: bool) -> bool {
    if faithful {
        !x.good()
    } else {
        x.good()
    }
}

/// One row before the family decides, with each parent claim's net change (better minus worse).
fn row(key: &RowKey, cases: &Cases<'_>, opts: &GateOptions) -> (GroupRow, Vec<i64>) {
    let faithful = key.faithful();
    let n = cases.len() as u64;
    let side = |s: usize| {
        cases
            .iter()
            .map(move |(u, b, c)| (u, if s == 0 { *b } else { *c }))
    };
    let count = |s: usize| side(s).filter(|(_, x)| bad_in(x, faithful)).count() as u64;
    let clustered = |s: usize| {
        cluster_rate_of(
            side(s).map(|(u, x)| (u.clone(), bad_in(x, faithful))),
            opts.confidence,
        )
    };
    let better = cases
        .iter()
        .filter(|(_, b, c)| !b.good() && c.good())
        .count() as u64;
    let worse_cases: Vec<_> = cases
        .iter()
        .filter(|(_, b, c)| b.good() && !c.good())
        .collect();
    // the claims the worse cases come from, whatever the clusters are
    let worse_parents = worse_cases
        .iter()
        .map(|(_, _, c)| c.parent.clone().unwrap_or_else(|| c.id.clone()))
        .collect::<std::collections::BTreeSet<_>>()
        .len() as u64;
    let units: std::collections::BTreeSet<&String> = cases.iter().map(|(u, _, _)| u).collect();
    let at_risk: std::collections::BTreeSet<&String> = cases
        .iter()
        .filter(|(_, b, _)| b.good())
        .map(|(u, _, _)| u)
        .collect();
    let name = key.name();
    let gating = opts
        .gate_on
        .as_ref()
        .is_none_or(|keys| keys.iter().any(|k| row_key(k) == row_key(&name)));
    let mut net: BTreeMap<String, i64> = BTreeMap::new();
    for (u, b, c) in cases {
        let d = i64::from(c.good()) - i64::from(b.good());
        if d != 0 {
            *net.entry(u.clone()).or_default() += d;
        }
    }
    let net: Vec<i64> = net.into_values().collect();
    let worse = worse_cases.len() as u64;
    let row = GroupRow {
        group: name,
        faithful,
        base: Rate::new(count(0), n, opts.confidence),
        candidate: Rate::new(count(1), n, opts.confidence),
        better,
        worse,
        p_value: mcnemar_exact(better, worse),
        p_worse: sign_flip_p_worse(&net),
        clusters_changed: net.iter().filter(|d| **d != 0).count() as u64,
        in_family: false,
        p_adjusted: 1.0,
        gating,
        significantly_worse: false,
        base_clustered: clustered(0),
        candidate_clustered: clustered(1),
        worse_parents,
        detectable_drop: None,
        clusters: units.len() as u64,
        clusters_at_risk: at_risk.len() as u64,
        min_reachable_p: 0.5f64.powi(at_risk.len().min(1100) as i32),
        tested: true,
        rise_upper: (key == &RowKey::FalseAlarms && opts.false_alarm_margin.is_some())
            .then(|| rise_upper(cases, opts.alpha)),
    };
    (row, net)
}

/// The one-sided upper bound on the rise of a faithful row's bad rate, from each cluster's
/// (newly bad, no longer bad, cases).
fn rise_upper(cases: &Cases<'_>, alpha: f64) -> f64 {
    let mut by: BTreeMap<&String, (u64, u64, u64)> = BTreeMap::new();
    for (u, b, c) in cases {
        let e = by.entry(u).or_default();
        e.0 += u64::from(b.good() && !c.good());
        e.1 += u64::from(!b.good() && c.good());
        e.2 += 1;
    }
    crate::stats::paired::paired_rise_upper(&by.into_values().collect::<Vec<_>>(), alpha)
}

/// Tarone + Holm over the rows `members` at `level`. Sets each member's `in_family`,
/// `p_adjusted` (in units of alpha: significant when below alpha), `significantly_worse` and
/// detectable drop. Returns Tarone's m and, for each member rejected, the level it was rejected
/// at (alpha over the rows still standing when Holm reached it).
fn decide_on(
    rows: &mut [GroupRow],
    nets: &[Vec<i64>],
    members: &[usize],
    level: f64,
    opts: &GateOptions,
) -> (usize, Vec<Option<f64>>) {
    let ms: Vec<Member> = members
        .iter()
        .map(|i| Member {
            min_p: min_p_worse(&nets[*i]),
            p_worse: rows[*i].p_worse,
        })
        .collect();
    let family = decide(&ms, level, opts.adjust);
    let scale = opts.alpha / level;
    // the Holm order of the family: ascending p, as adjust_within sorts
    let mut order: Vec<usize> = (0..members.len())
        .filter(|k| family.adjusted[*k].is_some())
        .collect();
    order.sort_by(|x, y| ms[*x].p_worse.total_cmp(&ms[*y].p_worse));
    let m = family.size.max(order.len());
    let mut rejected_at = vec![None; members.len()];
    for (k, i) in members.iter().enumerate() {
        let r = &mut rows[*i];
        if let Some(q) = family.adjusted[k] {
            r.p_adjusted = (q * scale).min(1.0);
            r.in_family = true;
        }
        r.significantly_worse =
            r.gating && r.in_family && r.worse > r.better && r.p_adjusted < opts.alpha;
        r.detectable_drop =
            detectable_drop_of(r.clusters, r.clusters_at_risk, family.row_alpha, 0.8);
        if r.significantly_worse {
            let rank = order.iter().position(|x| *x == k).unwrap_or(0);
            rejected_at[k] = Some(match opts.adjust {
                Adjust::None => level,
                Adjust::Bonferroni => level / m.max(1) as f64,
                Adjust::Holm => level / (m - rank).max(1) as f64,
            });
        }
    }
    (family.size, rejected_at)
}

/// The gate's decision, a gatekeeping procedure in two families:
///
/// 1. false alarms, invariance and all faults (those that gate): Tarone's family and Holm (or
///    Bonferroni) at alpha;
/// 2. the fault types, only when `all faults` was significantly worse in step 1, at the level it
///    was rejected at; again Tarone's family and Holm. A fault type's evidence is not counted
///    twice against alpha (today's rows of one type and of all faults share their claims).
///
/// Why the family-wise error stays at most alpha (strong control). Take the set I of true null
/// hypotheses (rows where the candidate is in fact no worse). If `all faults` is in I, no fault
/// type can be rejected unless `all faults` was rejected first, so every false rejection is one
/// of step 1's Holm, which errs with probability at most alpha. If `all faults` is false, this is
/// the graphical Bonferroni-Holm procedure (Bretz, Maurer, Brannath and Posch 2009) in which
/// `all faults` passes its weight to the fault types once rejected: the first false rejection, of
/// some i in I, needs p_i <= w_i(I) * alpha where the weights of the true nulls sum to at most 1,
/// so it happens with probability at most alpha. Passing on only the level `all faults` was
/// rejected at (not the larger one later rejections in step 1 would give it) lowers weights,
/// which keeps the bound; Tarone's rule leaves out rows that cannot reach their level, which
/// adds no rejection. When `all faults` does not gate (`--gate-on` leaves it out) nothing keeps
/// the gate, and the fault types join step 1.
///
/// Returns step 1's Tarone m and, when the fault types were tested, their m and level.
fn decide_rows(
    rows: &mut [GroupRow],
    nets: &[Vec<i64>],
    opts: &GateOptions,
) -> (usize, Option<(usize, f64)>) {
    let all = rows
        .iter()
        .position(|r| !r.faithful && !r.is_fault_type() && r.gating);
    let gating = |i: &usize| rows[*i].gating;
    let (primary, types): (Vec<usize>, Vec<usize>) = (0..rows.len())
        .filter(gating)
        .partition(|i| all.is_none() || !rows[*i].is_fault_type());
    let (m1, rejected) = decide_on(rows, nets, &primary, opts.alpha, opts);
    for r in rows.iter_mut().filter(|r| !r.gating) {
        r.p_adjusted = r.p_worse;
        r.detectable_drop = detectable_drop_of(r.clusters, r.clusters_at_risk, opts.alpha, 0.8);
    }
    let Some(a) = all else {
        return (m1, None);
    };
    let passed = primary
        .iter()
        .position(|i| *i == a)
        .and_then(|k| rejected[k]);
    // untested, a type's detectable drop is the one it would have if all faults passed on the
    // most it can: alpha over step 1's family
    let level = passed.unwrap_or(opts.alpha / m1.max(1) as f64);
    let (m2, _) = decide_on(rows, nets, &types, level, opts);
    if passed.is_none() {
        for i in &types {
            let r = &mut rows[*i];
            r.tested = false;
            r.in_family = false;
            r.p_adjusted = 1.0;
            r.significantly_worse = false;
        }
        return (m1, None);
    }
    (m1, Some((m2, level)))
}

/// A gate never passes on nothing: when no gating row could reach significance whatever the
/// candidate did (too few clusters at risk) and no count rule is set, there is no verdict.
fn nothing_can_fail(rows: &[GroupRow], opts: &GateOptions) -> Option<String> {
    let gating: Vec<&GroupRow> = rows.iter().filter(|r| r.gating).collect();
    if opts.max_new_misses.is_some()
        || opts.max_new_false_alarms.is_some()
        || gating.iter().any(|r| r.rise_upper.is_some())
        || gating.iter().any(|r| r.detectable_drop.is_some())
    {
        return None;
    }
    let most = gating.iter().map(|r| r.clusters_at_risk).max().unwrap_or(0);
    let needed = crate::stats::power::pairs_needed(opts.alpha);
    let unit = opts.cluster_by.plural();
    Some(format!(
        "no gating row can fail: at most {most} {unit} at risk in a row, and a row needs at least {needed} at alpha {}; {}or set a rule such as --max-new-misses 0 (a rule has no error rate)",
        opts.alpha,
        match opts.cluster_by {
            ClusterBy::Context => "add contexts, pass --cluster-by claim if the claims of one context do not move together, ",
            ClusterBy::Claim => "add claims, ",
        }
    ))
}

/// Every counted case the base got right and the candidate does not, in candidate order.
fn regressions_of(pairs: &[Pair<'_>]) -> Vec<Change> {
    pairs
        .iter()
        .filter(|(_, b, c)| {
            b.role() == c.role()
                && matches!(
                    b.role(),
                    Role::FalseAlarmOpportunity | Role::Invariance | Role::Fault
                )
                && !b.outcome.uncounted()
                && !c.outcome.uncounted()
                && !is_flaky(b, c)
                && b.good()
                && !c.good()
        })
        .map(|(suite, b, c)| Change {
            suite: suite.clone(),
            id: c.id.clone(),
            kind: c.kind,
            fault_type: c.fault_type.clone(),
            claim: c.claim.clone(),
            expected: c.expected,
            base_verdict: b.verdict,
            base_score: b.score,
            candidate_verdict: c.verdict,
            candidate_score: c.score,
            candidate_error: c.error.clone(),
            change: if c.role() != Role::Fault {
                ChangeKind::NewFalseAlarm
            } else {
                ChangeKind::NewlyMissed
            },
        })
        .collect()
}

/// Why the gate failed: the rows significantly worse, then the count rules.
fn failures_of(
    rows: &[GroupRow],
    regressions: &[Change],
    family_size: usize,
    fault_types: Option<(usize, f64)>,
    opts: &GateOptions,
) -> Vec<GateFailure> {
    let mut failures: Vec<GateFailure> = rows
        .iter()
        .filter(|r| r.significantly_worse)
        .map(|r| GateFailure::RowWorse {
            row: r.group.clone(),
            worse: r.worse,
            better: r.better,
            clusters_changed: r.clusters_changed,
            unit: opts.cluster_by.singular(),
            p_worse: r.p_worse,
            p_adjusted: r.p_adjusted,
            adjust: opts.adjust,
            family_size: match fault_types {
                Some((m, _)) if r.is_fault_type() => m,
                _ => family_size,
            },
            after_all: fault_types
                .filter(|_| r.is_fault_type())
                .map(|(_, level)| level),
            alpha: opts.alpha,
        })
        .collect();
    if let Some(margin) = opts.false_alarm_margin {
        for r in rows.iter().filter(|r| r.gating) {
            if let Some(upper) = r.rise_upper.filter(|u| *u >= margin) {
                failures.push(GateFailure::FalseAlarmMargin {
                    worse: r.worse,
                    better: r.better,
                    cases: r.base.n,
                    upper,
                    margin,
                    alpha: opts.alpha,
                });
            }
        }
    }
    let newly_missed = regressions
        .iter()
        .filter(|r| r.change == ChangeKind::NewlyMissed)
        .count() as u64;
    if let Some(max) = opts.max_new_misses.filter(|m| newly_missed > *m) {
        failures.push(GateFailure::NewlyMissed {
            count: newly_missed,
            max,
        });
    }
    let new_false_alarms = regressions.len() as u64 - newly_missed;
    if let Some(max) = opts.max_new_false_alarms {
        if new_false_alarms > max {
            let on_rewrites = regressions
                .iter()
                .filter(|r| {
                    r.change == ChangeKind::NewFalseAlarm
                        && matches!(r.kind, CaseKind::Rewrite | CaseKind::Mutant)
                })
                .count();
            failures.push(GateFailure::NewFalseAlarms {
                count: new_false_alarms,
                on_rewrites,
                max,
            });
        }
    }
    failures
}

/// Compares a base record with a candidate record. Two records with no case in common (other
/// suites, empty runs, disjoint ids) or whose common cases count in no rate give no verdict: an
/// error that says what did not match, never a passing gate.
pub fn compare(base: &Record, candidate: &Record, opts: &GateOptions) -> Result<Comparison, Error> {
    let paired = pair_records(base, candidate);
    if paired.pairs.is_empty() {
        return Err(nothing_paired(base, candidate));
    }
    let g = group(&paired.pairs, opts.cluster_by);
    nothing_counts(&g, paired.pairs.len())?;
    let mut no_verdict = no_verdict_of(&g);
    check_gate_on(&g.groups, opts)?;
    let (mut rows, nets): (Vec<GroupRow>, Vec<Vec<i64>>) = g
        .groups
        .iter()
        .map(|(k, cases)| row(k, cases, opts))
        .unzip();
    let (family_size, fault_types) = decide_rows(&mut rows, &nets, opts);
    no_verdict.extend(nothing_can_fail(&rows, opts));
    let regressions = regressions_of(&paired.pairs);
    let failures = failures_of(&rows, &regressions, family_size, fault_types, opts);
    let newly_missed = regressions
        .iter()
        .filter(|r| r.change == ChangeKind::NewlyMissed)
        .count() as u64;
    Ok(Comparison {
        all_faults_mix: "pooled",
        max_per_claim: base
            .runs
            .iter()
            .chain(&candidate.runs)
            .filter_map(|r| r.max_per_claim)
            .max(),
        base: label_of(base),
        candidate: label_of(candidate),
        alpha: opts.alpha,
        max_new_misses: opts.max_new_misses,
        max_new_false_alarms: opts.max_new_false_alarms,
        false_alarm_margin: opts.false_alarm_margin,
        adjust: opts.adjust,
        min_detectable: opts.min_detectable,
        family_size,
        cluster_by: opts.cluster_by,
        fault_types,
        repeats: (repeats_of(base), repeats_of(candidate)),
        judge_scored_once: [base, candidate].iter().any(|r| {
            r.runs
                .iter()
                .any(|x| x.repeats == 1 && matches!(x.checker.kind.as_str(), "judge" | "cascade"))
        }),
        flaky: g.flaky,
        parent_flagged: g.parent_flagged,
        new_false_alarms: regressions.len() as u64 - newly_missed,
        newly_missed,
        rows,
        regressions,
        only_in_base: paired.only_in_base,
        only_in_candidate: paired.only_in_candidate,
        suites_changed: paired.suites_changed,
        failures,
        errors: g.errors,
        no_verdict,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The gate with both count rules on (the defaults before they became options).
    fn with_rules(alpha: f64, max_new_misses: u64, confidence: f64) -> GateOptions {
        let mut o = GateOptions::new(alpha, Some(max_new_misses), confidence);
        o.max_new_false_alarms = Some(0);
        o
    }
    use crate::engine::record::testing::{case, record_of};
    use crate::model::case::Outcome;
    use crate::model::case::ReviewState;

    fn base() -> Vec<RecordCase> {
        let mut cases = vec![case(
            "f1",
            CaseKind::Original,
            Expected::Supported,
            Some(Label::Supported),
        )];
        for i in 0..8 {
            let mut m = case(
                &format!("m{i}"),
                CaseKind::Mutant,
                Expected::Flagged,
                Some(Label::Contradicted),
            );
            // eight mutants of eight claims
            m.parent = Some(format!("claim{i}"));
            cases.push(m);
        }
        cases
    }

    #[test]
    fn a_mutant_of_a_parent_either_side_flags_is_in_no_row_and_counted() {
        let mut b = base();
        let mut c = base();
        // the candidate misses m0 and m1, but it flags their parent claims: not informative
        for side in [&mut c] {
            for m in side.iter_mut().skip(1).take(2) {
                m.verdict = Some(Label::Supported);
                m.outcome = Outcome::ParentFlagged;
            }
        }
        // the base flags m2's parent
        b[3].outcome = Outcome::ParentFlagged;
        let cmp = compare(
            &record_of("a", b),
            &record_of("b", c),
            &with_rules(0.05, 0, 0.95),
        )
        .unwrap();
        assert_eq!(cmp.parent_flagged.left_out, 3);
        assert_eq!(
            (cmp.parent_flagged.base, cmp.parent_flagged.candidate),
            (1, 2)
        );
        let all = cmp.rows.iter().find(|r| r.group == "all faults").unwrap();
        assert_eq!(all.base.n, 5, "the mutants informative on both sides");
        assert_eq!(
            cmp.newly_missed, 0,
            "a miss of an uninformative mutant is no regression"
        );
        assert!(cmp.failures.is_empty(), "{:?}", cmp.failures);
    }

    #[test]
    fn identical_records_pass_with_no_discordant_pair() {
        let c = compare(
            &record_of("a", base()),
            &record_of("b", base()),
            &with_rules(0.05, 0, 0.95),
        )
        .unwrap();
        assert!(c.failures.is_empty());
        assert!(c
            .rows
            .iter()
            .all(|r| r.better == 0 && r.worse == 0 && r.p_value == 1.0));
        assert_eq!(c.exit_code(), Exit::Ok);
    }

    #[test]
    fn eight_newly_missed_faults_are_significant_and_listed() {
        let mut cand = base();
        for c in cand.iter_mut().skip(1) {
            let parent = c.parent.clone();
            *c = case(
                &c.id,
                CaseKind::Mutant,
                Expected::Flagged,
                Some(Label::Supported),
            );
            c.parent = parent;
        }
        let c = compare(
            &record_of("a", base()),
            &record_of("b", cand),
            &with_rules(0.05, 100, 0.95),
        )
        .unwrap();
        let row = c.rows.iter().find(|r| r.group == "number_swap").unwrap();
        assert_eq!((row.better, row.worse), (0, 8));
        assert!((row.p_value - 0.0078125).abs() < 1e-12, "{}", row.p_value); // 2 * 0.5^8
        assert!((row.p_worse - 0.00390625).abs() < 1e-12, "{}", row.p_worse); // 0.5^8
        assert_eq!(row.clusters_changed, 8);
        assert!(row.significantly_worse);
        assert_eq!(c.newly_missed, 8);
        assert_eq!(c.regressions[0].change, ChangeKind::NewlyMissed);
        assert_eq!(c.exit_code(), Exit::GateFailed);
    }

    #[test]
    fn eight_misses_of_one_claim_are_one_change_and_rows_that_cannot_reject_leave_the_family() {
        let one_claim = |label| {
            base()
                .into_iter()
                .map(|mut c| {
                    if c.kind == CaseKind::Mutant {
                        c = case(&c.id, CaseKind::Mutant, Expected::Flagged, Some(label));
                        c.parent = Some("claim0".into());
                    }
                    c
                })
                .collect::<Vec<_>>()
        };
        let c = compare(
            &record_of("a", one_claim(Label::Contradicted)),
            &record_of("b", one_claim(Label::Supported)),
            &with_rules(0.05, 100, 0.95),
        )
        .unwrap();
        let row = c.rows.iter().find(|r| r.group == "number_swap").unwrap();
        // McNemar would call 8 of 8 significant; it is one claim that broke
        assert!(row.p_value < 0.01);
        assert_eq!(row.clusters_changed, 1);
        assert_eq!(row.p_worse, 0.5);
        assert!(!row.in_family && !row.significantly_worse, "{row:?}");
        assert!(c.failures.is_empty(), "{:?}", c.failures);
        // the false-alarm row changed nothing: it is outside the family too
        let fa = c.rows.iter().find(|r| r.group == "false alarms").unwrap();
        assert!(!fa.in_family);
    }

    #[test]
    fn an_error_in_the_candidate_is_listed_in_no_row_and_never_a_pass() {
        let mut cand = base();
        cand[0] = case("f1", CaseKind::Original, Expected::Supported, None);
        assert_eq!(cand[0].outcome, Outcome::Error);
        let c = compare(
            &record_of("a", base()),
            &record_of("b", cand),
            &with_rules(0.05, 0, 0.95),
        )
        .unwrap();
        // as `run` counts it: not a false alarm, in no rate, listed
        assert_eq!(c.new_false_alarms, 0);
        assert_eq!(c.errors[0].id, "f1");
        assert_eq!(c.errors[0].side, "candidate");
        assert_eq!(c.errors[0].error, "timeout");
        assert_eq!(c.exit_code(), Exit::CheckerFailed);
        assert!(c.headline().starts_with("no verdict:"), "{}", c.headline());
    }

    #[test]
    fn a_case_whose_role_differs_between_the_records_is_in_no_row() {
        let mut cand = base();
        // reviewed equivalent in the candidate's suite: no longer a fault
        cand[1].review = Some(ReviewState::Equivalent);
        cand[1].outcome = Outcome::FalseAlarm;
        let c = compare(
            &record_of("a", base()),
            &record_of("b", cand),
            &with_rules(0.05, 0, 0.95),
        )
        .unwrap();
        let row = c.rows.iter().find(|r| r.group == "all faults").unwrap();
        assert_eq!(row.base.n, 7);
    }

    #[test]
    fn cases_in_one_record_only_are_listed() {
        let mut cand = base();
        cand.pop();
        cand.push(case(
            "m-new",
            CaseKind::Mutant,
            Expected::Flagged,
            Some(Label::NotFound),
        ));
        let c = compare(
            &record_of("a", base()),
            &record_of("b", cand),
            &with_rules(0.05, 0, 0.95),
        )
        .unwrap();
        assert_eq!(c.only_in_base, vec![("s".to_string(), "m7".to_string())]);
        assert_eq!(
            c.only_in_candidate,
            vec![("s".to_string(), "m-new".to_string())]
        );
    }

    #[test]
    fn nothing_in_common_is_no_verdict_never_a_pass() {
        let other: Vec<RecordCase> = base()
            .into_iter()
            .map(|mut c| {
                c.id = format!("x-{}", c.id);
                c
            })
            .collect();
        let e = compare(
            &record_of("a", base()),
            &record_of("b", other),
            &with_rules(0.05, 0, 0.95),
        )
        .unwrap_err();
        assert!(
            matches!(
                e,
                Error::Refused {
                    kind: Refusal::NothingPaired,
                    ..
                }
            ),
            "{e:?}"
        );
        let e = e.to_string();
        assert!(
            e.contains("nothing to compare") && e.contains("s (9 cases)"),
            "{e}"
        );
        let empty = Record::new(vec![]);
        let e = compare(&empty, &empty, &with_rules(0.05, 0, 0.95))
            .unwrap_err()
            .to_string();
        assert!(e.contains("no run at all"), "{e}");
    }

    /// Two checkers with the same error probability on every case of a 200-case suite (40
    /// faithful cases, 8 fault types of 20): any difference between them is noise. Returns how
    /// often the gate fails over `reps` seeded replications.
    fn false_fail_rate(adjust: Adjust, reps: usize) -> f64 {
        use crate::stats::TestRng;
        let mut rng = TestRng(7);
        let q: Vec<f64> = (0..200).map(|_| 0.2 + 0.4 * rng.next_f64()).collect();
        let draw = |rng: &mut TestRng| -> Vec<RecordCase> {
            (0..200)
                .map(|i| {
                    let bad = rng.next_f64() < q[i];
                    if i < 40 {
                        let v = if bad {
                            Label::NotFound
                        } else {
                            Label::Supported
                        };
                        case(
                            &format!("f{i}"),
                            CaseKind::Original,
                            Expected::Supported,
                            Some(v),
                        )
                    } else {
                        let v = if bad {
                            Label::Supported
                        } else {
                            Label::NotFound
                        };
                        let mut c = case(
                            &format!("m{i}"),
                            CaseKind::Mutant,
                            Expected::Flagged,
                            Some(v),
                        );
                        c.fault_type = Some(format!("type{}", (i - 40) / 20));
                        c.parent = Some(format!("f{}", i % 40));
                        c
                    }
                })
                .collect()
        };
        let mut opts = with_rules(0.05, u64::MAX, 0.95);
        opts.max_new_false_alarms = None;
        opts.adjust = adjust;
        let mut fails = 0;
        for _ in 0..reps {
            let a = record_of("a", draw(&mut rng));
            let b = record_of("b", draw(&mut rng));
            let c = compare(&a, &b, &opts).unwrap();
            assert_eq!(c.rows.len(), 10);
            fails += usize::from(!c.failures.is_empty());
        }
        fails as f64 / reps as f64
    }

    /// The case: a fault type whose 20 mutants come from 5 claims, all caught by the
    /// base and all missed by the candidate. Tested as one family with all faults (the same 5
    /// claims counted twice) it could not fail; all faults first, then the types, it does.
    #[test]
    fn a_regression_confined_to_five_claims_fails_all_faults_then_its_fault_type() {
        let make = |caught: bool| {
            let mut cases = Vec::new();
            for i in 0..20 {
                let v = if caught {
                    Label::NotFound
                } else {
                    Label::Supported
                };
                let mut c = case(
                    &format!("m{i}"),
                    CaseKind::Mutant,
                    Expected::Flagged,
                    Some(v),
                );
                c.fault_type = Some("rare".into());
                c.parent = Some(format!("f{}", i % 5));
                cases.push(c);
            }
            for i in 0..5 {
                cases.push(case(
                    &format!("f{i}"),
                    CaseKind::Original,
                    Expected::Supported,
                    Some(Label::Supported),
                ));
            }
            record_of(if caught { "a" } else { "b" }, cases)
        };
        let mut opts = GateOptions::new(0.05, None, 0.95);
        opts.cluster_by = ClusterBy::Claim;
        let c = compare(&make(true), &make(false), &opts).unwrap();
        assert_eq!(c.exit_code(), Exit::GateFailed, "{:?}", c.failures);
        let rare = c.rows.iter().find(|r| r.group == "rare").unwrap();
        assert!(rare.tested && rare.significantly_worse);
        assert_eq!(rare.clusters_at_risk, 5);
        assert!((rare.min_reachable_p - 0.03125).abs() < 1e-12);
        assert_eq!(c.fault_types.map(|(m, _)| m), Some(1));
        // failures in report order: the fault type, tested after all faults passed on its level
        assert!(matches!(
            &c.failures[0],
            GateFailure::RowWorse { row, after_all: Some(_), .. } if row == "rare"
        ));
        assert!(matches!(
            &c.failures[1],
            GateFailure::RowWorse { row, after_all: None, .. } if row == "all faults"
        ));
        // the detectable drop counts the 5 claims, not the 20 mutants: 5 one-way changes reach
        // 0.5^5 < 0.05 under the gate's one-sided rule
        assert_eq!((rare.clusters, rare.base.n), (5, 20));
        assert!(rare.detectable_drop.is_some());
    }

    /// Claims that share a context move together when a checker reads that context's passages
    /// differently: 20 contexts of 4 claims, 3 mutants a claim, and a context effect on the
    /// logit of every error, drawn afresh for each of two equally good checkers. Clustered by
    /// context the gate fails at most alpha of the time; by claim it fails more often.
    #[test]
    fn with_a_context_effect_the_default_context_clusters_keep_the_false_fail_rate() {
        use crate::stats::TestRng;
        let mut rng = TestRng(11);
        let normal = |rng: &mut TestRng| {
            let (u, v) = (rng.next_f64().max(1e-12), rng.next_f64());
            (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
        };
        let base_logit: Vec<f64> = (0..320).map(|_| -1.5 + rng.next_f64()).collect();
        let draw = |rng: &mut TestRng| -> Record {
            let effects: Vec<f64> = (0..20).map(|_| 1.2 * normal(rng)).collect();
            let mut cases = Vec::new();
            for (i, logit) in base_logit.iter().enumerate() {
                let claim = i % 80;
                let ctx = claim / 4;
                let p = 1.0 / (1.0 + (-(logit + effects[ctx])).exp());
                let wrong = rng.next_f64() < p;
                let mut c = if i < 80 {
                    let v = if wrong {
                        Label::NotFound
                    } else {
                        Label::Supported
                    };
                    case(
                        &format!("f{i}"),
                        CaseKind::Original,
                        Expected::Supported,
                        Some(v),
                    )
                } else {
                    let v = if wrong {
                        Label::Supported
                    } else {
                        Label::NotFound
                    };
                    let mut c = case(
                        &format!("m{i}"),
                        CaseKind::Mutant,
                        Expected::Flagged,
                        Some(v),
                    );
                    c.fault_type = Some(format!("type{}", i / 80 - 1));
                    c.parent = Some(format!("f{claim}"));
                    c
                };
                c.context = format!("c{ctx}");
                cases.push(c);
            }
            record_of("x", cases)
        };
        let reps = 400;
        let mut fails = [0usize; 2];
        for _ in 0..reps {
            let (a, b) = (draw(&mut rng), draw(&mut rng));
            for (k, by) in [ClusterBy::Context, ClusterBy::Claim]
                .into_iter()
                .enumerate()
            {
                let mut opts = GateOptions::new(0.05, None, 0.95);
                opts.cluster_by = by;
                fails[k] += usize::from(!compare(&a, &b, &opts).unwrap().failures.is_empty());
            }
        }
        let (context, claim) = (fails[0] as f64 / reps as f64, fails[1] as f64 / reps as f64);
        eprintln!("false-fail rate over {reps}: by context {context:.3}, by claim {claim:.3}");
        // Monte Carlo error of a rate near 0.05 over 400 runs: about 0.011
        assert!(context <= 0.05 + 0.011, "by context {context}");
        assert!(claim > context, "by claim {claim} vs by context {context}");
    }

    #[test]
    fn an_unchanged_checker_fails_the_holm_gate_at_most_alpha_of_the_time() {
        let reps = 1000;
        // Monte Carlo error of a rate near 0.05 over 1000 runs: about 0.007
        let holm = false_fail_rate(Adjust::Holm, reps);
        let bonferroni = false_fail_rate(Adjust::Bonferroni, reps);
        let none = false_fail_rate(Adjust::None, reps);
        eprintln!(
            "false-fail rate over {reps} replications: holm {holm:.3}, bonferroni {bonferroni:.3}, none {none:.3}"
        );
        assert!(holm <= 0.05, "holm {holm}");
        assert!(
            bonferroni <= holm,
            "bonferroni {bonferroni} is never less strict than holm"
        );
        assert!(
            none > 0.05 + 0.015,
            "unadjusted {none}: ten rows at 0.05 each fail more often"
        );
    }

    /// A simulated suite of 200 cases: 40 faithful claims, then 8 fault types with one mutant
    /// of each of 20 parent claims (as operators share claims). `bad(rng, i, parent)` says
    /// whether a run gets case i wrong; `repeats` scorings make a record as `run --repeat`
    /// does: the first repeat's verdict, and every repeat's where they differ.
    fn sim_record(
        rng: &mut crate::stats::TestRng,
        repeats: usize,
        bad: &mut dyn FnMut(&mut crate::stats::TestRng, usize, usize) -> bool,
    ) -> Record {
        // one draw of every case per repeat, so a parent's shared outcome is drawn once a run
        let runs: Vec<Vec<bool>> = (0..repeats)
            .map(|_| (0..200).map(|i| bad(rng, i, i % 20)).collect())
            .collect();
        let cases = (0..200)
            .map(|i| {
                let faithful = i < 40;
                let label = |wrong: bool| match (faithful, wrong) {
                    (true, false) | (false, true) => Label::Supported,
                    _ => Label::NotFound,
                };
                let mut c = if faithful {
                    case(
                        &format!("f{i}"),
                        CaseKind::Original,
                        Expected::Supported,
                        Some(label(runs[0][i])),
                    )
                } else {
                    let mut m = case(
                        &format!("m{i}"),
                        CaseKind::Mutant,
                        Expected::Flagged,
                        Some(label(runs[0][i])),
                    );
                    m.fault_type = Some(format!("type{}", (i - 40) / 20));
                    m.parent = Some(format!("claim{}", i % 20));
                    m
                };
                if runs.iter().any(|r| r[i] != runs[0][i]) {
                    c.flaky_verdicts = runs
                        .iter()
                        .map(|r| label(r[i]).as_str().to_string())
                        .collect();
                }
                c
            })
            .collect();
        let mut r = record_of("sim", cases);
        r.runs[0].repeats = repeats;
        r
    }

    /// How often the gate fails over `reps` seeded pairs of records drawn by `pair`.
    fn fail_rate(
        reps: usize,
        opts: &GateOptions,
        pair: &mut dyn FnMut(&mut crate::stats::TestRng) -> (Record, Record),
    ) -> f64 {
        let mut rng = crate::stats::TestRng(20261130);
        let mut fails = 0;
        for _ in 0..reps {
            let (a, b) = pair(&mut rng);
            let c = compare(&a, &b, opts).unwrap();
            fails += usize::from(!c.failures.is_empty());
        }
        fails as f64 / reps as f64
    }

    /// The gate's error rates by simulation, 1000 seeded replications each (Monte Carlo error
    /// of a rate near 0.05: about 0.007; near 0.5: about 0.016). Printed with
    /// `cargo test --lib gate_simulations -- --nocapture`; docs/src/concepts/gate-statistics.md.
    #[test]
    fn gate_simulations_false_fails_at_most_alpha_and_power_on_one_row() {
        let reps = 1000;
        let stats_only = {
            let mut o = with_rules(0.05, u64::MAX, 0.95);
            o.max_new_false_alarms = None;
            o
        };
        // a fixed checker: each case's chance of a wrong verdict
        let mut rng = crate::stats::TestRng(11);
        let q: Vec<f64> = (0..200).map(|_| 0.1 + 0.4 * rng.next_f64()).collect();

        // clustered: an unchanged checker whose errors come per parent claim (half the claims'
        // mutants share one outcome each run); the statistical rules only
        let mut shared = vec![(false, false); 20];
        let clustered = fail_rate(reps, &stats_only, &mut |rng| {
            let mut draw = |rng: &mut crate::stats::TestRng| {
                for s in shared.iter_mut() {
                    *s = (rng.next_f64() < 0.5, rng.next_f64() < 0.3);
                }
                let sh = shared.clone();
                sim_record(rng, 1, &mut |rng, i, p| {
                    if i >= 40 && sh[p].0 {
                        sh[p].1
                    } else {
                        rng.next_f64() < q[i]
                    }
                })
            };
            (draw(rng), draw(rng))
        });

        // flaky: a checker stable on 90% of cases and a coin of 0.2-0.8 on the rest, under the
        // zero-tolerance rules (no new miss, no new false alarm), scored once and with 5 repeats
        let flaky_q: Vec<Option<f64>> = (0..200)
            .map(|_| (rng.next_f64() < 0.1).then(|| 0.2 + 0.6 * rng.next_f64()))
            .collect();
        let stable: Vec<bool> = (0..200).map(|_| rng.next_f64() < 0.2).collect();
        let rules = with_rules(0.05, 0, 0.95);
        let flaky_with = |repeats: usize, opts: &GateOptions| {
            fail_rate(reps, opts, &mut |rng| {
                let draw = |rng: &mut crate::stats::TestRng| {
                    sim_record(rng, repeats, &mut |rng, i, _| match flaky_q[i] {
                        Some(p) => rng.next_f64() < p,
                        None => stable[i],
                    })
                };
                (draw(rng), draw(rng))
            })
        };
        let (flaky_once, flaky_repeated) = (flaky_with(1, &rules), flaky_with(5, &rules));
        // the statistical gate alone (the default): its flips are noise both ways
        let flaky_stats_once = flaky_with(1, &stats_only);

        // power: one fault type falls from 20/20 to about 12/20 (each of its cases missed with
        // probability 0.4); nothing else changes
        let power = fail_rate(reps, &stats_only, &mut |rng| {
            let base = sim_record(rng, 1, &mut |_, _, _| false);
            let cand = sim_record(rng, 1, &mut |rng, i, _| {
                (40..60).contains(&i) && rng.next_f64() < 0.4
            });
            (base, cand)
        });
        eprintln!(
            "gate simulations over {reps} replications: clustered false fails {clustered:.3}; flaky checker, zero-tolerance rules: {flaky_once:.3} scored once, {flaky_repeated:.3} with 5 repeats; statistical rules only, scored once: {flaky_stats_once:.3}; power on a 20/20 -> ~12/20 drop in one of 8 fault types: {power:.3}"
        );
        assert!(clustered <= 0.05, "clustered {clustered}");
        assert!(
            flaky_repeated <= 0.05,
            "flaky with repeats {flaky_repeated}"
        );
        assert!(
            flaky_once > 0.5,
            "scored once, a flaky checker fails: {flaky_once}"
        );
        assert!(power >= 0.5, "power {power}");
        assert!(flaky_stats_once <= 0.05 + 0.007, "{flaky_stats_once}");
    }

    #[test]
    fn only_the_rows_named_in_gate_on_decide() {
        let mut cand = base();
        for c in cand.iter_mut().skip(1) {
            *c = case(
                &c.id,
                CaseKind::Mutant,
                Expected::Flagged,
                Some(Label::Supported),
            );
        }
        let mut opts = with_rules(0.05, 100, 0.95);
        opts.gate_on = Some(vec!["false_alarms".into()]);
        let c = compare(
            &record_of("a", base()),
            &record_of("b", cand.clone()),
            &opts,
        )
        .unwrap();
        let ns = c.rows.iter().find(|r| r.group == "number_swap").unwrap();
        assert!(!ns.gating && !ns.significantly_worse && ns.p_value < 0.01);
        assert!(c.failures.is_empty(), "{:?}", c.failures);
        opts.gate_on = Some(vec!["no_such_row".into()]);
        let e = compare(&record_of("a", base()), &record_of("b", cand), &opts).unwrap_err();
        assert!(
            matches!(
                e,
                Error::Refused {
                    kind: Refusal::UnknownRow,
                    ..
                }
            ),
            "{e:?}"
        );
        let e = e.to_string();
        assert!(e.contains("no such row") && e.contains("all_faults"), "{e}");
    }

    #[test]
    fn a_change_kind_is_named_as_serde_names_it() {
        crate::model::case::assert_strum_names_are_serde_names::<ChangeKind>();
    }
}
