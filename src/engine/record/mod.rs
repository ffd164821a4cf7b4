//! Records: everything a comparison or a report needs, saved by `run --record FILE.json` (a run
//! record) or `score --record FILE.json` (a score record). Later commands read records and never
//! re-run a checker. Every field that has a fixed set of values is stored as the same enum the
//! run uses (serde writes the strings), and a record is checked on load: duplicate ids, unknown
//! values and outcomes that do not follow from the verdict are errors naming the file and line.

mod convert;
mod file;
mod validate;

use crate::answers::score::ScoreRecord;
use crate::error::{Error, Result};
use crate::model::case::Label;
use crate::model::case::ReviewState;
use crate::model::case::{CaseKind, Expected, Outcome, Role};
pub use file::write_score_record;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
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
    /// A compound fault: a fault operator's edit of a rewrite of the parent claim (`compound`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub compound: bool,
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
    /// The cap on mutants per claim and operator (`max_per_claim`) the run's mutants were made
    /// under; absent when there was none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_per_claim: Option<usize>,
    /// Mutants a person reviewed `broken` (no case), per operator: the operators' defects.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub broken_mutants: BTreeMap<String, usize>,
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
            compound: false,
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
            max_per_claim: None,
            broken_mutants: BTreeMap::new(),
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
