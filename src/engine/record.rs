//! Records: everything a comparison or a report needs, saved by `run --record FILE.json` (a run
//! record) or `score --record FILE.json` (a score record). Later commands read records and never
//! re-run a checker. Every field that has a fixed set of values is stored as the same enum the
//! run uses (serde writes the strings), and a record is checked on load: duplicate ids, unknown
//! values and outcomes that do not follow from the verdict are errors naming the file and line.

use crate::answers::score::ScoreRecord;
use crate::engine::run::SuiteRun;
use crate::error::{Error, Result};
use crate::model::case::Label;
use crate::model::case::ReviewState;
use crate::model::case::{CaseKind, Expected, Outcome, Role};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashSet};
use std::path::Path;

/// The record format version (2: typed fields and a `type` field).
pub const RECORD_VERSION: u32 = 3;

/// How far past [0, 1] a recorded score may be and still be read (as the nearest bound): f32
/// arithmetic in a model can round a probability or cosine a hair past 1.
pub const SCORE_TOLERANCE: f64 = 1e-5;

/// One case as recorded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecordCase {
    pub id: String,
    pub kind: CaseKind,
    pub fault_type: Option<String>,
    pub parent: Option<String>,
    pub claim: String,
    pub expected: Expected,
    /// Mutants only.
    pub review: Option<ReviewState>,
    /// The checker's label; None when it could not score the case.
    pub verdict: Option<Label>,
    pub score: Option<f64>,
    pub evidence_passage: Option<String>,
    pub evidence_window: Option<String>,
    pub outcome: Outcome,
    pub error: Option<String>,
    /// In the record of a shard only: the case's index among all the suite's cases.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<usize>,
    /// In a record of repeated scorings (`run --repeat N`), for a case whose verdict varied:
    /// the verdict of each repeat (`error` where it could not be scored).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flaky_verdicts: Vec<String>,
    /// The id of the context the case was checked against (the unit a bootstrap resamples).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub context: String,
    /// A real error: a hard case from labelled real output, not labelled supported.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub real: bool,
}

impl RecordCase {
    /// What this case counts towards: the same [`Role`] the run used.
    pub fn role(&self) -> Role {
        Role::of(self.kind, self.expected, self.review)
    }

    /// The outcome the checker should have: passed for faithful cases, caught for faults.
    /// An error is never good.
    pub fn good(&self) -> bool {
        self.outcome.good()
    }

    /// The checker's score, NaN when it gave none (an error, or a checker without scores).
    pub fn score_or_nan(&self) -> f64 {
        match self.verdict {
            Some(_) => self.score.filter(|s| s.is_finite()).unwrap_or(f64::NAN),
            None => f64::NAN,
        }
    }
}

impl RecordRun {
    /// The score of each verified claim by id (NaN where it has none): what decides at a
    /// threshold whether a claim's mutants are informative.
    pub fn parent_scores(&self) -> std::collections::HashMap<&str, f64> {
        self.cases
            .iter()
            .filter(|c| c.kind == CaseKind::Original)
            .map(|c| (c.id.as_str(), c.score_or_nan()))
            .collect()
    }
}

/// The checker that made a record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecordChecker {
    pub name: String,
    pub kind: String,
    pub settings: BTreeMap<String, String>,
}

/// One suite's run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecordRun {
    pub suite: String,
    pub path: String,
    /// SHA-256 of the suite file's bytes: two records of the same suite version share it.
    pub suite_sha256: String,
    pub checker: RecordChecker,
    /// Set on the record of one shard (`run --shard K/N`); `faithprobe merge` joins them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<crate::model::shard::Shard>,
    /// How many times every case was scored (`run --repeat N`); 1 when absent.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub repeats: usize,
    /// The fingerprint of the mutation rules that made the run's mutants (built-in rules, a
    /// `--mutators` folder, LLM mutators); absent in records written before it was kept.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub rules_sha256: String,
    pub cases: Vec<RecordCase>,
}

fn one() -> usize {
    1
}

fn is_one(n: &usize) -> bool {
    *n == 1
}

/// A saved run of one checker over one or more suites.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Record {
    pub version: u32,
    pub runs: Vec<RecordRun>,
}

/// Any record file: what `compare` reads. The `type` field says which.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AnyRecord {
    Run(Record),
    Score(ScoreRecord),
}

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
        use crate::model::case::MutantReview;
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
                    review: c.review.map(|r| match r {
                        ReviewState::Fault => MutantReview::Fault,
                        ReviewState::Equivalent => MutantReview::Equivalent {
                            why: "(the reason is in the suite's reviews)".into(),
                        },
                        ReviewState::Unreviewed => MutantReview::Unreviewed,
                        ReviewState::NotEquivalent => MutantReview::NotEquivalent {
                            why: "(the reason is in the suite's reviews)".into(),
                        },
                    }),
                    real: c.real,
                    context: 0,
                    context_id: c.context.clone(),
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
        }
    }
}

const RUN_HELP: &str =
    "write run records with `faithprobe run SUITE --record FILE.json` and compare them unedited";

impl Record {
    pub fn new(runs: Vec<RecordRun>) -> Record {
        Record {
            version: RECORD_VERSION,
            runs,
        }
    }

    /// Writes the record as pretty JSON, atomically.
    pub fn write(&self, path: &Path) -> Result<()> {
        AnyRecord::Run(self.clone()).write(path)
    }

    /// Reads a run record; anything else is an error that says what the file is.
    pub fn load(path: &Path) -> Result<Record> {
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        Record::from_bytes(path, bytes)
    }

    /// [`Record::load`] on bytes already read from `path`.
    pub fn from_bytes(path: &Path, bytes: Vec<u8>) -> Result<Record> {
        match AnyRecord::from_bytes(path, bytes)? {
            AnyRecord::Run(r) => Ok(r),
            AnyRecord::Score(_) => Err(Error::input(
                path,
                None,
                "this is a score record (from `faithprobe score --record`), not a run record",
                RUN_HELP,
            )),
        }
    }

    /// Checks what serde cannot: one run per suite, unique case ids, finite scores, and outcomes
    /// that follow from the verdict and the case's role.
    fn validate(&self, path: &Path, text: &str) -> Result<()> {
        if self.version != RECORD_VERSION {
            return Err(Error::input(
                path,
                None,
                format!("record version {} is not {RECORD_VERSION}", self.version),
                "re-run the checker with this faithprobe version to write a new record",
            ));
        }
        let mut suites = HashSet::new();
        for run in &self.runs {
            if !suites.insert(run.suite.as_str()) {
                return Err(Error::input(
                    path,
                    line_of(text, "suite", &run.suite),
                    format!("suite `{}` appears twice", run.suite),
                    RUN_HELP,
                ));
            }
            let mut ids = HashSet::new();
            // a mutant's outcome depends on its parent's: parents are the run's verified claims
            let parents: std::collections::HashMap<&str, Outcome> = run
                .cases
                .iter()
                .filter(|c| c.kind == CaseKind::Original)
                .map(|c| {
                    (
                        c.id.as_str(),
                        Outcome::of(c.role(), c.verdict.map(Label::flagged)),
                    )
                })
                .collect();
            for c in &run.cases {
                let at = || line_of(text, "id", &c.id);
                let bad = |msg: String| Error::input(path, at(), msg, RUN_HELP);
                if !ids.insert(c.id.as_str()) {
                    return Err(bad(format!(
                        "case `{}` appears twice in suite `{}`",
                        c.id, run.suite
                    )));
                }
                // within floating-point tolerance: a record written by an older build may hold
                // a cosine of 1.0000001
                if c.score
                    .is_some_and(|s| !(-SCORE_TOLERANCE..=1.0 + SCORE_TOLERANCE).contains(&s))
                {
                    return Err(bad(format!(
                        "case `{}` has score {:?}, outside [0, 1]",
                        c.id, c.score
                    )));
                }
                if c.verdict.is_some() == c.error.is_some() {
                    return Err(bad(format!(
                        "case `{}` must have either a verdict or an error, not {}",
                        c.id,
                        if c.verdict.is_some() {
                            "both"
                        } else {
                            "neither"
                        }
                    )));
                }
                let parent = c.parent.as_deref().and_then(|p| parents.get(p)).copied();
                let follows = Outcome::of(c.role(), c.verdict.map(Label::flagged)).given_parent(
                    c.kind,
                    c.role(),
                    parent,
                );
                if c.outcome != follows {
                    return Err(bad(format!(
                        "case `{}` has outcome `{}`, but its verdict `{}` on a {} gives `{}`",
                        c.id,
                        c.outcome.as_str(),
                        c.verdict.map(Label::as_str).unwrap_or("error"),
                        role_words(c.role()),
                        follows.as_str()
                    )));
                }
                if c.kind == CaseKind::Mutant && c.review.is_none() {
                    return Err(bad(format!("mutant `{}` has no review state", c.id)));
                }
                // a mutant's id is the hash of its operator, parent and text: an edited parent
                // or text no longer fits it
                if let (CaseKind::Mutant | CaseKind::Rewrite, Some(op), Some(parent)) =
                    (c.kind, c.fault_type.as_deref(), c.parent.as_deref())
                {
                    if c.id.len() > 10 && crate::mutate::mutant_id(op, parent, &c.claim) != c.id {
                        return Err(bad(format!(
                            "case `{}` does not fit its id: its operator, parent claim or text was edited",
                            c.id
                        )));
                    }
                }
                check_flaky(run, c).map_err(bad)?;
            }
        }
        Ok(())
    }
}

/// A case's flaky verdicts must be what `run --repeat` writes: one per repeat of a record
/// scored more than once, each a verdict or `error`, the first the case's own, and not all the
/// same. Anything else would let an edited record leave a regression out of the gate.
fn check_flaky(run: &RecordRun, c: &RecordCase) -> std::result::Result<(), String> {
    if run.repeats == 0 {
        return Err(format!(
            "suite `{}` has `repeats: 0`; a record is scored at least once",
            run.suite
        ));
    }
    let v = &c.flaky_verdicts;
    if v.is_empty() {
        return Ok(());
    }
    let known = |x: &str| {
        x == "error"
            || [Label::Supported, Label::Contradicted, Label::NotFound]
                .iter()
                .any(|l| l.as_str() == x)
    };
    if run.repeats < 2 {
        return Err(format!(
            "case `{}` has `flaky_verdicts`, but suite `{}` was scored once (`repeats` is {}); only `run --repeat N` writes them",
            c.id, run.suite, run.repeats
        ));
    }
    if v.len() != run.repeats {
        return Err(format!(
            "case `{}` has {} flaky verdicts for {} repeats; there is one per repeat",
            c.id,
            v.len(),
            run.repeats
        ));
    }
    if let Some(bad) = v.iter().find(|x| !known(x)) {
        return Err(format!(
            "case `{}` has the flaky verdict `{bad}`, which is not a verdict (supported, contradicted, not_found or error)",
            c.id
        ));
    }
    if v.iter().all(|x| x == &v[0]) {
        return Err(format!(
            "case `{}` has flaky verdicts that are all `{}`; a case is flaky only when its verdict changed between repeats",
            c.id, v[0]
        ));
    }
    let own = c.verdict.map(Label::as_str).unwrap_or("error");
    if v[0] != own {
        return Err(format!(
            "case `{}` has verdict `{own}`, but its first flaky verdict is `{}`; the first repeat is the case's own verdict",
            c.id, v[0]
        ));
    }
    Ok(())
}

fn role_words(r: Role) -> &'static str {
    match r {
        Role::FalseAlarmOpportunity => "faithful case",
        Role::Fault => "fault",
        Role::Invariance => "invariance case (a rewrite or an equivalent mutant)",
        Role::Unreviewed => "unreviewed mutant",
    }
}

/// The 1-based line of `"key": "value"` in pretty-printed JSON, for errors about a record.
fn line_of(text: &str, key: &str, value: &str) -> Option<usize> {
    let needle = format!(
        "\"{key}\": {}",
        serde_json::to_string(value).unwrap_or_default()
    );
    text.lines()
        .position(|l| l.contains(&needle))
        .map(|i| i + 1)
}

impl AnyRecord {
    /// Writes the record as pretty JSON, atomically (a score record with one answer per line).
    pub fn write(&self, path: &Path) -> Result<()> {
        if let AnyRecord::Score(r) = self {
            let empty = ScoreRecord {
                answers: Vec::new(),
                ..r.clone_head()
            };
            return write_score_record(path, &empty, &mut r.answers.iter().cloned().map(Ok));
        }
        let text = serde_json::to_string_pretty(self).expect("records serialise") + "\n";
        crate::io::write::write_atomic(path, text.as_bytes())
    }

    /// Reads any record once, says what the file is when it is not a record, and validates it.
    pub fn load(path: &Path) -> Result<AnyRecord> {
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        AnyRecord::from_bytes(path, bytes)
    }

    /// Whether `bytes` are a JSON object with a `type` key: what a record is, as opposed to a
    /// suite (scanned without building the document).
    pub fn looks_like_record(bytes: &[u8]) -> bool {
        #[derive(Deserialize)]
        struct Sniff {
            #[serde(rename = "type")]
            kind: Option<serde::de::IgnoredAny>,
        }
        let bytes = bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(bytes);
        serde_json::from_slice::<Sniff>(bytes).is_ok_and(|s| s.kind.is_some())
    }

    /// [`AnyRecord::load`] on bytes already read from `path`.
    pub fn from_bytes(path: &Path, bytes: Vec<u8>) -> Result<AnyRecord> {
        let text = String::from_utf8(bytes).map_err(|e| {
            Error::input(
                path,
                None,
                format!(
                    "not UTF-8 (invalid byte at offset {})",
                    e.utf8_error().valid_up_to()
                ),
                RUN_HELP,
            )
        })?;
        let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
        let value: serde_json::Value = serde_json::from_str(text).map_err(|e| {
            Error::input(
                path,
                Some(e.line()),
                format!("not JSON: {e}"),
                "compare takes files written by `--record`",
            )
        })?;
        let kind = value.get("type").and_then(|t| t.as_str());
        if !matches!(kind, Some("run") | Some("score")) {
            return Err(Error::input(
                path,
                None,
                format!("not a faithprobe record: {}", what_it_is(&value)),
                "write records with `faithprobe run SUITE --record FILE.json` or `faithprobe score LOG --record FILE.json`",
            ));
        }
        let record: AnyRecord = serde_json::from_str(text).map_err(|e| {
            Error::input(
                path,
                Some(e.line()),
                format!("malformed {} record: {e}", kind.unwrap_or("")),
                RUN_HELP,
            )
        })?;
        let mut record = record;
        match &mut record {
            AnyRecord::Run(r) => {
                r.validate(path, text)?;
                for c in r.runs.iter_mut().flat_map(|run| run.cases.iter_mut()) {
                    c.score = c.score.map(|s| s.clamp(0.0, 1.0));
                }
            }
            AnyRecord::Score(s) => s.validate(path)?,
        }
        Ok(record)
    }
}

/// Writes a score record atomically from its head (`answers` ignored) and its answers, one
/// answer per line, so a record of any size is written without holding it in memory. An error
/// from `answers` leaves nothing behind.
pub fn write_score_record(
    path: &Path,
    head: &ScoreRecord,
    answers: &mut dyn Iterator<Item = Result<crate::answers::score::AnswerResult>>,
) -> Result<()> {
    fn s<T: Serialize + ?Sized>(v: &T) -> String {
        serde_json::to_string(v).expect("serialises")
    }
    crate::io::write::write_atomic_from(path, &mut |w| {
        let io = |e: std::io::Error| Error::write(path, e);
        let mut lead = format!(
            "{{\n  \"type\": \"score\",\n  \"version\": {},\n  \"log\": {},\n  \"log_sha256\": {},\n  \"checker\": {},\n  \"checker_settings\": {},\n  \"decomposer\": {},\n  \"lines_not_read\": {},\n",
            head.version,
            s(&head.log),
            s(&head.log_sha256),
            s(&head.checker),
            s(&head.checker_settings),
            s(&head.decomposer),
            head.lines_not_read
        );
        if let Some(sh) = &head.shard {
            lead.push_str(&format!("  \"shard\": {},\n", s(sh)));
        }
        lead.push_str("  \"answers\": [");
        w.write_all(lead.as_bytes()).map_err(io)?;
        let mut first = true;
        for a in &mut *answers {
            let a = a?;
            w.write_all(if first { b"\n    " } else { b",\n    " })
                .map_err(io)?;
            first = false;
            serde_json::to_writer(&mut *w, &a).map_err(|e| io(e.into()))?;
        }
        w.write_all(format!("{}]\n}}\n", if first { "" } else { "\n  " }).as_bytes())
            .map_err(io)
    })
}

/// A guess at what a JSON file that is not a record is, for the error message.
fn what_it_is(v: &serde_json::Value) -> String {
    let has = |k: &str| v.get(k).is_some();
    if has("faithprobe_record") || has("faithprobe_score_record") {
        "a record from an older faithprobe version; re-run the checker with this version".into()
    } else if has("suite") && has("summary") && has("cases") {
        "it looks like the report of `faithprobe run --format json`, not a record".into()
    } else if has("rows") && has("regressions") {
        "it looks like the report of `faithprobe compare --format json`".into()
    } else if has("summary") && has("answers") {
        "it looks like the report of `faithprobe score --format json`, not a record".into()
    } else if has("points") {
        "it looks like the report of `faithprobe sweep --format json`".into()
    } else {
        "it has no `type` field of `run` or `score`".into()
    }
}

/// Builders of consistent records for unit tests of the modules that read them.
#[cfg(test)]
pub(crate) mod testing {
    use super::*;

    /// A case whose outcome follows from its verdict (None: an error). Mutants are reviewed
    /// `fault` with parent `f1`; hard cases and mutants have fault type `number_swap`.
    pub fn case(
        id: &str,
        kind: CaseKind,
        expected: Expected,
        verdict: Option<Label>,
    ) -> RecordCase {
        let review = (kind == CaseKind::Mutant).then_some(ReviewState::Fault);
        let outcome = Outcome::of(
            Role::of(kind, expected, review),
            verdict.map(Label::flagged),
        );
        RecordCase {
            id: id.into(),
            kind,
            fault_type: (kind != CaseKind::Original).then(|| "number_swap".into()),
            parent: (kind == CaseKind::Mutant).then(|| "f1".into()),
            claim: format!("Claim {id}."),
            expected,
            review,
            verdict,
            score: verdict.map(|v| if v.flagged() { 0.2 } else { 0.9 }),
            evidence_passage: None,
            evidence_window: None,
            outcome,
            error: verdict.is_none().then(|| "timeout".into()),
            position: None,
            flaky_verdicts: Vec::new(),
            context: String::new(),
            real: false,
        }
    }

    /// A record of one suite `s` by checker `name`.
    pub fn record_of(name: &str, cases: Vec<RecordCase>) -> Record {
        Record::new(vec![RecordRun {
            suite: "s".into(),
            path: "s.yaml".into(),
            suite_sha256: "0".into(),
            checker: RecordChecker {
                name: name.into(),
                kind: "lexical".into(),
                settings: BTreeMap::new(),
            },
            shard: None,
            repeats: 1,
            rules_sha256: String::new(),
            cases,
        }])
    }
}

#[cfg(test)]
mod tests {
    use super::testing::{case as case_of, record_of};
    use super::*;

    fn case(id: &str, kind: CaseKind, expected: Expected, verdict: Label) -> RecordCase {
        case_of(id, kind, expected, Some(verdict))
    }

    fn record(cases: Vec<RecordCase>) -> Record {
        record_of("lexical", cases)
    }

    fn round_trip(r: &Record) -> Result<AnyRecord> {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("r.json");
        r.write(&p).unwrap();
        AnyRecord::load(&p)
    }

    #[test]
    fn a_written_record_reads_back_identical_with_its_type() {
        let r = record(vec![
            case(
                "f1",
                CaseKind::Original,
                Expected::Supported,
                Label::Supported,
            ),
            case("m-1", CaseKind::Mutant, Expected::Flagged, Label::NotFound),
        ]);
        match round_trip(&r).unwrap() {
            AnyRecord::Run(back) => assert_eq!(back, r),
            AnyRecord::Score(_) => panic!("read a run record as a score record"),
        }
    }

    #[test]
    fn a_score_a_hair_past_one_is_read_as_one_and_one_far_past_it_is_an_error() {
        let mut c = case(
            "f1",
            CaseKind::Original,
            Expected::Supported,
            Label::Supported,
        );
        c.score = Some(1.000000116);
        match round_trip(&record(vec![c.clone()])).unwrap() {
            AnyRecord::Run(back) => assert_eq!(back.runs[0].cases[0].score, Some(1.0)),
            AnyRecord::Score(_) => panic!("read a run record as a score record"),
        }
        c.score = Some(1.01);
        let err = round_trip(&record(vec![c])).unwrap_err().to_string();
        assert!(err.contains("outside [0, 1]"), "{err}");
    }

    #[test]
    fn a_duplicate_case_id_is_an_error_naming_its_line() {
        let r = record(vec![
            case(
                "f1",
                CaseKind::Original,
                Expected::Supported,
                Label::Supported,
            ),
            case(
                "f1",
                CaseKind::Original,
                Expected::Supported,
                Label::Supported,
            ),
        ]);
        let e = round_trip(&r).unwrap_err().to_string();
        assert!(e.contains("`f1` appears twice"), "{e}");
        assert!(e.contains("r.json:"), "{e}");
    }

    #[test]
    fn an_outcome_that_does_not_follow_from_the_verdict_is_an_error() {
        let mut c = case("m-1", CaseKind::Mutant, Expected::Flagged, Label::Supported);
        c.outcome = Outcome::Caught; // hand-edited: a supported fault is missed, not caught
        let parent = case(
            "f1",
            CaseKind::Original,
            Expected::Supported,
            Label::Supported,
        );
        let e = round_trip(&record(vec![parent, c]))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("outcome `caught`") && e.contains("gives `missed`"),
            "{e}"
        );
    }

    #[test]
    fn a_mutant_of_a_flagged_parent_recorded_as_caught_is_refused() {
        let parent = case(
            "f1",
            CaseKind::Original,
            Expected::Supported,
            Label::NotFound,
        );
        let mut m = case(
            "m-1",
            CaseKind::Mutant,
            Expected::Flagged,
            Label::Contradicted,
        );
        m.outcome = Outcome::Caught; // forged: the checker flags the parent claim f1
        let e = round_trip(&record(vec![parent.clone(), m.clone()]))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("outcome `caught`") && e.contains("gives `parent_flagged`"),
            "{e}"
        );
        m.outcome = Outcome::ParentFlagged;
        round_trip(&record(vec![parent, m])).expect("the honest outcome loads");
    }

    #[test]
    fn an_error_counted_as_passed_is_an_error() {
        let mut c = case(
            "f1",
            CaseKind::Original,
            Expected::Supported,
            Label::Supported,
        );
        c.verdict = None;
        c.error = Some("timeout".into());
        let e = round_trip(&record(vec![c])).unwrap_err().to_string();
        assert!(
            e.contains("outcome `passed`") && e.contains("gives `error`"),
            "{e}"
        );
    }

    #[test]
    fn a_report_given_instead_of_a_record_says_what_it_is() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("report.json");
        std::fs::write(
            &p,
            r#"{"suite": "s", "checker": "c", "summary": {}, "cases": []}"#,
        )
        .unwrap();
        let e = AnyRecord::load(&p).unwrap_err().to_string();
        assert!(e.contains("`faithprobe run --format json`"), "{e}");
    }

    #[test]
    fn an_unknown_outcome_is_an_error_with_a_line() {
        let r = record(vec![case(
            "f1",
            CaseKind::Original,
            Expected::Supported,
            Label::Supported,
        )]);
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("r.json");
        r.write(&p).unwrap();
        let text = std::fs::read_to_string(&p)
            .unwrap()
            .replace("\"outcome\": \"passed\"", "\"outcome\": \"great\"");
        std::fs::write(&p, text).unwrap();
        let e = AnyRecord::load(&p).unwrap_err().to_string();
        assert!(
            e.contains("unknown variant `great`") && e.contains("r.json:"),
            "{e}"
        );
    }
}
