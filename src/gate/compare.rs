//! Paired comparison of two run records: what a checker or prompt change gained and lost.
//!
//! Cases are paired by suite and id. For each group (false alarms on faithful cases, every fault
//! type, all faults together) it reports both sides' rates with Wilson intervals and the paired
//! change: cases that got better, cases that got worse, and the exact McNemar p-value on those
//! discordant cases. Regressions are listed case by case. An error is never a good outcome.

use crate::engine::record::{Record, RecordCase};
use crate::error::{Error, Exit};
use crate::model::case::Label;
use crate::model::case::{CaseKind, Expected, Outcome, Role};
use crate::stats::paired::{adjust_family, min_p_worse, sign_flip_p_worse};
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
    /// meet (alpha, or alpha over the number of gating rows when adjusted); None when no drop
    /// could be.
    pub detectable_drop: Option<f64>,
}

/// How the gate decides: the level, the rows that gate, how their p-values are combined.
#[derive(Debug, Clone, PartialEq)]
pub struct GateOptions {
    pub alpha: f64,
    pub max_new_misses: u64,
    /// Fail when more faithful cases than this are newly flagged; None: no such rule.
    pub max_new_false_alarms: Option<u64>,
    pub confidence: f64,
    pub adjust: Adjust,
    /// Rows that decide (`false_alarms`, `all_faults`, or fault types); None: every row.
    pub gate_on: Option<Vec<String>>,
    /// A detectable drop larger than this is reported as "too few cases".
    pub min_detectable: f64,
}

impl GateOptions {
    /// Holm over every row, drops of 0.10 expected to be detectable.
    pub fn new(alpha: f64, max_new_misses: u64, confidence: f64) -> GateOptions {
        GateOptions {
            alpha,
            max_new_misses,
            max_new_false_alarms: Some(0),
            confidence,
            adjust: Adjust::Holm,
            gate_on: None,
            min_detectable: 0.10,
        }
    }
}

impl GroupRow {
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

/// A row's name as `--gate-on` spells it: `false_alarms`, `invariance`, `all_faults`, or the
/// fault type.
pub fn row_key(group: &str) -> String {
    group.replace(' ', "_")
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
    pub max_new_misses: u64,
    pub max_new_false_alarms: Option<u64>,
    pub adjust: Adjust,
    pub min_detectable: f64,
    /// Tarone's m: the number of rows alpha is divided among.
    pub family_size: usize,
    pub rows: Vec<GroupRow>,
    pub regressions: Vec<Change>,
    pub newly_missed: u64,
    pub new_false_alarms: u64,
    /// (suite, id) of cases present in only one record: listed, never silently dropped.
    pub only_in_base: Vec<(String, String)>,
    pub only_in_candidate: Vec<(String, String)>,
    /// Suites whose file differs between the two records.
    pub suites_changed: Vec<String>,
    /// Why the gate failed, one line each; empty when it passed.
    pub failures: Vec<String>,
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
        if !self.failures.is_empty() {
            Exit::GateFailed
        } else if !self.no_verdict.is_empty() {
            Exit::CheckerFailed
        } else {
            Exit::Ok
        }
    }
}

/// The adjustment's name as `--adjust` spells it.
pub fn adjust_name(a: Adjust) -> &'static str {
    match a {
        Adjust::None => "none",
        Adjust::Holm => "holm",
        Adjust::Bonferroni => "bonferroni",
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

/// Compares a base record with a candidate record. Two records with no case in common (other
/// suites, empty runs, disjoint ids) or whose common cases count in no rate give no verdict: an
/// error that says what did not match, never a passing gate.
pub fn compare(base: &Record, candidate: &Record, opts: &GateOptions) -> Result<Comparison, Error> {
    let (alpha, max_new_misses, confidence) = (opts.alpha, opts.max_new_misses, opts.confidence);
    let key = |suite: &str, c: &RecordCase| (suite.to_string(), c.id.clone());
    let mut base_cases: BTreeMap<(String, String), &RecordCase> = BTreeMap::new();
    let mut base_sha: HashMap<&str, &str> = HashMap::new();
    for run in &base.runs {
        base_sha.insert(&run.suite, &run.suite_sha256);
        for c in &run.cases {
            base_cases.insert(key(&run.suite, c), c);
        }
    }
    let mut pairs: Vec<(String, &RecordCase, &RecordCase)> = Vec::new();
    let mut only_in_candidate = Vec::new();
    let mut suites_changed = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for run in &candidate.runs {
        if base_sha
            .get(run.suite.as_str())
            .is_some_and(|s| *s != run.suite_sha256)
        {
            suites_changed.push(run.suite.clone());
        }
        for c in &run.cases {
            let k = key(&run.suite, c);
            match base_cases.get(&k) {
                Some(b) => {
                    seen.insert(k);
                    pairs.push((run.suite.clone(), *b, c));
                }
                None => only_in_candidate.push(k),
            }
        }
    }
    let only_in_base: Vec<(String, String)> = base_cases
        .keys()
        .filter(|k| !seen.contains(*k))
        .cloned()
        .collect();
    if pairs.is_empty() {
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
        return Err(Error::Usage(format!(
            "nothing to compare: no case is in both records (base: {}; candidate: {}); compare records of the same suites",
            describe(base),
            describe(candidate)
        )));
    }

    // groups: false alarms, each fault type, all faults; a case either side could not score is in
    // no group (as in `run`: an error is in no rate) and is listed
    let mut groups: BTreeMap<(u8, String), Vec<(&RecordCase, &RecordCase)>> = BTreeMap::new();
    let mut errored_groups: BTreeMap<(u8, String), usize> = BTreeMap::new();
    let mut errors = Vec::new();
    let group_of = |c: &RecordCase| -> Option<Vec<(u8, String)>> {
        match c.role() {
            Role::FalseAlarmOpportunity => Some(vec![(0, "false alarms".into())]),
            Role::Invariance => Some(vec![(0, "invariance".into())]),
            Role::Fault => Some(vec![
                (1, c.fault_type.clone().unwrap_or_else(|| "unknown".into())),
                (2, "all faults".into()),
            ]),
            _ => None,
        }
    };
    // a case whose verdict varied across repeats in either record: its change is within the
    // checker's own run-to-run variation, so it is in no row and no rule, and is counted apart
    let is_flaky = |b: &RecordCase, c: &RecordCase| {
        !b.flaky_verdicts.is_empty() || !c.flaky_verdicts.is_empty()
    };
    let mut flaky = Vec::new();
    let mut parent_flagged = ParentFlagged::default();
    for (suite, b, c) in &pairs {
        // a case counts when both sides agree on what it is
        let role = b.role();
        if role != c.role() {
            continue;
        }
        if is_flaky(b, c) && group_of(c).is_some() {
            flaky.push(FlakyCase {
                suite: suite.clone(),
                id: c.id.clone(),
                changed: b.good() != c.good(),
            });
            continue;
        }
        let (be, ce) = (b.outcome == Outcome::Error, c.outcome == Outcome::Error);
        if be || ce {
            if let Some(keys) = group_of(c) {
                for k in keys {
                    *errored_groups.entry(k).or_default() += 1;
                }
            }
            errors.push(ErroredCase {
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
            parent_flagged.left_out += 1;
            parent_flagged.base += u64::from(bp);
            parent_flagged.candidate += u64::from(cp);
            continue;
        }
        if role == Role::FalseAlarmOpportunity {
            groups
                .entry((0, "false alarms".into()))
                .or_default()
                .push((b, c));
        } else if role == Role::Invariance {
            groups
                .entry((0, "invariance".into()))
                .or_default()
                .push((b, c));
        } else if role == Role::Fault {
            let ft = c.fault_type.clone().unwrap_or_else(|| "unknown".into());
            groups.entry((1, ft)).or_default().push((b, c));
            groups
                .entry((2, "all faults".into()))
                .or_default()
                .push((b, c));
        }
    }
    if groups.is_empty() && !errors.is_empty() {
        let cand = errors.iter().filter(|e| e.side != "base").count();
        let base_n = errors.iter().filter(|e| e.side != "candidate").count();
        return Err(Error::Usage(format!(
            "nothing to compare: every case that counts is an error (the base could not score {base_n}, the candidate {cand}; first: {}); a checker that fails is never a pass: fix it and record again",
            errors[0].error
        )));
    }
    if groups.is_empty() && !flaky.is_empty() {
        return Err(Error::Usage(format!(
            "nothing to compare: every one of the {} case(s) that count gave different verdicts across the repeats of a record, so no change can be told from the checker's own variation; fix the checker's randomness (a judge at temperature 0) or add cases",
            flaky.len()
        )));
    }
    if groups.is_empty() && parent_flagged.left_out > 0 {
        return Err(Error::Usage(format!(
            "nothing to compare: every case that counts is a mutant of a claim one side already flags ({} left out), so no change in catching faults can be seen; add verified claims both checkers support, or hard cases",
            parent_flagged.left_out
        )));
    }
    if groups.is_empty() {
        return Err(Error::Usage(format!(
            "nothing to compare: the {} case(s) in both records count in no rate (no verified claim, no reviewed fault, no hard case); review the mutants first",
            pairs.len()
        )));
    }
    // a row whose every case is an error has no verdict
    let mut no_verdict: Vec<String> = errored_groups
        .iter()
        .filter(|(k, _)| !groups.contains_key(*k))
        .map(|((_, name), n)| {
            format!("{name}: all {n} case(s) are errors, so this row has no verdict")
        })
        .collect();
    let candidate_errors = errors.iter().filter(|e| e.side != "base").count();
    if candidate_errors > 0 {
        no_verdict.push(format!(
            "the candidate could not score {candidate_errors} case(s) that count (first: {}); they are in no row, and a gate cannot pass on what was not scored",
            errors.iter().find(|e| e.side != "base").map(|e| e.id.as_str()).unwrap_or("")
        ));
    }
    if let Some(keys) = &opts.gate_on {
        let names: Vec<String> = groups.keys().map(|(_, n)| row_key(n)).collect();
        if let Some(unknown) = keys.iter().find(|k| !names.contains(&row_key(k))) {
            return Err(Error::Usage(format!(
                "--gate-on {unknown}: no such row; the rows are {}",
                names.join(", ")
            )));
        }
    }
    // the cluster of a case: the claim a mutant was made from, or the case itself
    let cluster = |c: &RecordCase| c.parent.clone().unwrap_or_else(|| c.id.clone());
    let clustered = |cases: &[(&RecordCase, &RecordCase)], side: usize, faithful: bool| {
        cluster_rate_of(
            cases.iter().map(|(b, c)| {
                let x = if side == 0 { b } else { c };
                (cluster(x), if faithful { !x.good() } else { x.good() })
            }),
            confidence,
        )
    };
    let mut rows = Vec::new();
    let mut nets: Vec<Vec<i64>> = Vec::new();
    for ((order, name), cases) in groups {
        let faithful = order == 0;
        let n = cases.len() as u64;
        let count = |side: usize| -> u64 {
            cases
                .iter()
                .filter(|(b, c)| {
                    let x = if side == 0 { b } else { c };
                    if faithful {
                        !x.good()
                    } else {
                        x.good()
                    }
                })
                .count() as u64
        };
        let better = cases.iter().filter(|(b, c)| !b.good() && c.good()).count() as u64;
        let worse_cases: Vec<_> = cases
            .iter()
            .filter(|(b, c)| b.good() && !c.good())
            .collect();
        let worse = worse_cases.len() as u64;
        let worse_parents = worse_cases
            .iter()
            .map(|(_, c)| cluster(c))
            .collect::<std::collections::BTreeSet<_>>()
            .len() as u64;
        let gating = opts
            .gate_on
            .as_ref()
            .is_none_or(|keys| keys.iter().any(|k| row_key(k) == row_key(&name)));
        // each parent claim's net change: better minus worse
        let mut net: BTreeMap<String, i64> = BTreeMap::new();
        for (b, c) in &cases {
            let d = i64::from(c.good()) - i64::from(b.good());
            if d != 0 {
                *net.entry(cluster(c)).or_default() += d;
            }
        }
        let net: Vec<i64> = net.into_values().collect();
        nets.push(net.clone());
        rows.push(GroupRow {
            group: name,
            faithful,
            base: Rate::new(count(0), n, confidence),
            candidate: Rate::new(count(1), n, confidence),
            better,
            worse,
            p_value: mcnemar_exact(better, worse),
            p_worse: sign_flip_p_worse(&net),
            clusters_changed: net.iter().filter(|d| **d != 0).count() as u64,
            in_family: false,
            p_adjusted: 1.0,
            gating,
            significantly_worse: false,
            base_clustered: clustered(&cases, 0, faithful),
            candidate_clustered: clustered(&cases, 1, faithful),
            worse_parents,
            detectable_drop: None,
        });
    }
    // one decision over the gating rows that can reach significance (Tarone's rule), their
    // one-sided clustered p-values adjusted together
    let gating: Vec<usize> = (0..rows.len()).filter(|i| rows[*i].gating).collect();
    let min_p: Vec<f64> = gating.iter().map(|i| min_p_worse(&nets[*i])).collect();
    let p: Vec<f64> = gating.iter().map(|i| rows[*i].p_worse).collect();
    let (family_size, adjusted) = adjust_family(&min_p, &p, alpha, opts.adjust);
    for (i, q) in gating.iter().zip(adjusted) {
        if let Some(q) = q {
            rows[*i].p_adjusted = q;
            rows[*i].in_family = true;
        }
    }
    let row_alpha = match opts.adjust {
        Adjust::None => alpha,
        _ => alpha / gating.len().max(1) as f64,
    };
    for r in &mut rows {
        if !r.gating {
            r.p_adjusted = r.p_worse;
        }
        r.significantly_worse =
            r.gating && r.in_family && r.worse > r.better && r.p_adjusted < alpha;
        r.detectable_drop = detectable_drop_of(r.base.n, r.base_good(), row_alpha, 0.8);
    }

    let mut regressions = Vec::new();
    for (suite, b, c) in &pairs {
        let counted = b.role() == c.role()
            && matches!(
                b.role(),
                Role::FalseAlarmOpportunity | Role::Invariance | Role::Fault
            )
            && !b.outcome.uncounted()
            && !c.outcome.uncounted()
            && !is_flaky(b, c);
        if counted && b.good() && !c.good() {
            regressions.push(Change {
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
            });
        }
    }
    let newly_missed = regressions
        .iter()
        .filter(|r| r.change == ChangeKind::NewlyMissed)
        .count() as u64;
    let new_false_alarms = regressions.len() as u64 - newly_missed;

    let mut failures = Vec::new();
    for r in rows.iter().filter(|r| r.significantly_worse) {
        failures.push(format!(
            "{}: significantly worse ({} worse, {} better, {} parent claim(s) changed; one-sided p = {}, adjusted ({}, Tarone's m = {}) {} < {alpha})",
            r.group,
            r.worse,
            r.better,
            r.clusters_changed,
            crate::stats::fmt_p(r.p_worse),
            adjust_name(opts.adjust),
            family_size,
            crate::stats::fmt_p(r.p_adjusted)
        ));
    }
    if newly_missed > max_new_misses {
        failures.push(format!(
            "{newly_missed} fault(s) newly missed, more than --max-new-misses {max_new_misses}"
        ));
    }
    if let Some(max) = opts.max_new_false_alarms {
        if new_false_alarms > max {
            let on_rewrites = regressions
                .iter()
                .filter(|r| {
                    r.change == ChangeKind::NewFalseAlarm
                        && matches!(r.kind, CaseKind::Rewrite | CaseKind::Mutant)
                })
                .count();
            let on = if on_rewrites == 0 {
                "on faithful cases".to_string()
            } else {
                format!(
                    "on faithful cases ({on_rewrites} of them on rewrites or equivalent mutants)"
                )
            };
            failures.push(format!(
                "{new_false_alarms} new false alarm(s) {on}, more than --max-new-false-alarms {max}"
            ));
        }
    }
    Ok(Comparison {
        base: label_of(base),
        candidate: label_of(candidate),
        alpha,
        max_new_misses,
        max_new_false_alarms: opts.max_new_false_alarms,
        adjust: opts.adjust,
        min_detectable: opts.min_detectable,
        family_size,
        repeats: (repeats_of(base), repeats_of(candidate)),
        judge_scored_once: [base, candidate].iter().any(|r| {
            r.runs
                .iter()
                .any(|x| x.repeats == 1 && matches!(x.checker.kind.as_str(), "judge" | "cascade"))
        }),
        flaky,
        parent_flagged,
        rows,
        regressions,
        newly_missed,
        new_false_alarms,
        only_in_base,
        only_in_candidate,
        suites_changed,
        failures,
        errors,
        no_verdict,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
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
            &GateOptions::new(0.05, 0, 0.95),
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
            &GateOptions::new(0.05, 0, 0.95),
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
            &GateOptions::new(0.05, 100, 0.95),
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
            &GateOptions::new(0.05, 100, 0.95),
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
            &GateOptions::new(0.05, 0, 0.95),
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
            &GateOptions::new(0.05, 0, 0.95),
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
            &GateOptions::new(0.05, 0, 0.95),
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
            &GateOptions::new(0.05, 0, 0.95),
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("nothing to compare") && e.contains("s (9 cases)"),
            "{e}"
        );
        let empty = Record::new(vec![]);
        let e = compare(&empty, &empty, &GateOptions::new(0.05, 0, 0.95))
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
        let mut opts = GateOptions::new(0.05, u64::MAX, 0.95);
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
    /// `cargo test --lib gate_simulations -- --nocapture`; README, "The gate's statistics".
    #[test]
    fn gate_simulations_false_fails_at_most_alpha_and_power_on_one_row() {
        let reps = 1000;
        let stats_only = {
            let mut o = GateOptions::new(0.05, u64::MAX, 0.95);
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
        // default rules (no new miss, no new false alarm), scored once and with 5 repeats
        let flaky_q: Vec<Option<f64>> = (0..200)
            .map(|_| (rng.next_f64() < 0.1).then(|| 0.2 + 0.6 * rng.next_f64()))
            .collect();
        let stable: Vec<bool> = (0..200).map(|_| rng.next_f64() < 0.2).collect();
        let defaults = GateOptions::new(0.05, 0, 0.95);
        let flaky_with = |repeats: usize| {
            fail_rate(reps, &defaults, &mut |rng| {
                let draw = |rng: &mut crate::stats::TestRng| {
                    sim_record(rng, repeats, &mut |rng, i, _| match flaky_q[i] {
                        Some(p) => rng.next_f64() < p,
                        None => stable[i],
                    })
                };
                (draw(rng), draw(rng))
            })
        };
        let (flaky_once, flaky_repeated) = (flaky_with(1), flaky_with(5));

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
            "gate simulations over {reps} replications: clustered false fails {clustered:.3}; flaky checker, default rules: {flaky_once:.3} scored once, {flaky_repeated:.3} with 5 repeats; power on a 20/20 -> ~12/20 drop in one of 8 fault types: {power:.3}"
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
        let mut opts = GateOptions::new(0.05, 100, 0.95);
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
        let e = compare(&record_of("a", base()), &record_of("b", cand), &opts)
            .unwrap_err()
            .to_string();
        assert!(e.contains("no such row") && e.contains("all_faults"), "{e}");
    }

    #[test]
    fn a_change_kind_is_named_as_serde_names_it() {
        crate::model::case::assert_strum_names_are_serde_names::<ChangeKind>();
    }
}
