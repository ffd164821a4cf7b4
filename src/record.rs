//! Run records: everything a comparison or a report needs, saved by `run --record FILE.json`.
//! Later commands read records and never re-run a checker.

use crate::error::{Error, Result};
use crate::mutate::MutantReview;
use crate::run::SuiteRun;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// The record format version.
pub const RECORD_VERSION: u32 = 1;

/// One case as recorded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordCase {
    pub id: String,
    pub kind: String,
    pub fault_type: Option<String>,
    pub parent: Option<String>,
    pub claim: String,
    pub expected: String,
    /// `fault`, `equivalent` or `unreviewed` for mutants.
    pub review: Option<String>,
    /// The checker's label; None when it could not score the case.
    pub verdict: Option<String>,
    pub score: Option<f64>,
    pub evidence_passage: Option<String>,
    pub evidence_window: Option<String>,
    pub outcome: String,
    pub error: Option<String>,
}

impl RecordCase {
    /// A case a person says is faithful and the gate scores for false alarms: verified claims
    /// and hard cases labelled supported.
    pub fn faithful(&self) -> bool {
        self.expected == "supported" && self.kind != "mutant"
    }

    /// A case that is a real fault: mutants reviewed as faults and hard cases labelled anything
    /// but supported. Equivalent and unreviewed mutants are neither.
    pub fn fault(&self) -> bool {
        match self.kind.as_str() {
            "mutant" => self.review.as_deref() == Some("fault"),
            "hard_case" => self.expected != "supported",
            _ => false,
        }
    }

    /// The outcome the checker should have: passed for faithful cases, caught for faults.
    /// An error is never good.
    pub fn good(&self) -> bool {
        matches!(self.outcome.as_str(), "passed" | "caught")
    }
}

/// The checker that made a record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordChecker {
    pub name: String,
    pub kind: String,
    pub settings: BTreeMap<String, String>,
}

/// One suite's run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordRun {
    pub suite: String,
    pub path: String,
    /// SHA-256 of the suite file's bytes: two records of the same suite version share it.
    pub suite_sha256: String,
    pub checker: RecordChecker,
    pub cases: Vec<RecordCase>,
}

/// A saved run of one checker over one or more suites.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    pub faithgate_record: u32,
    pub runs: Vec<RecordRun>,
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
            cases: run
                .results
                .iter()
                .map(|r| {
                    let v = r.result.as_ref().ok();
                    RecordCase {
                        id: r.case.id.clone(),
                        kind: r.case.kind.as_str().to_string(),
                        fault_type: r.case.fault_type.clone(),
                        parent: r.case.parent.clone(),
                        claim: r.case.claim.clone(),
                        expected: r.case.expected.as_str().to_string(),
                        review: r.case.review.as_ref().map(|x| match x {
                            MutantReview::Equivalent { .. } => "equivalent".to_string(),
                            other => other.as_str().to_string(),
                        }),
                        verdict: v.map(|v| v.label.as_str().to_string()),
                        score: v.and_then(|v| v.score),
                        evidence_passage: v
                            .and_then(|v| v.evidence.as_ref().map(|e| e.passage.clone())),
                        evidence_window: v
                            .and_then(|v| v.evidence.as_ref().map(|e| e.window.clone())),
                        outcome: r.outcome.as_str().to_string(),
                        error: r.result.as_ref().err().cloned(),
                    }
                })
                .collect(),
        }
    }
}

impl Record {
    pub fn new(runs: Vec<RecordRun>) -> Record {
        Record {
            faithgate_record: RECORD_VERSION,
            runs,
        }
    }

    /// Writes the record as pretty JSON, atomically (a temp file renamed into place).
    pub fn write(&self, path: &Path) -> Result<()> {
        let text = serde_json::to_string_pretty(self).expect("records serialise");
        let tmp = path.with_extension("json.tmp");
        std::fs::write(&tmp, text + "\n").map_err(|e| Error::io(&tmp, e))?;
        std::fs::rename(&tmp, path).map_err(|e| Error::io(path, e))
    }

    /// Reads a record; a malformed one is an error naming the file and line.
    pub fn load(path: &Path) -> Result<Record> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        let record: Record = serde_json::from_str(&text).map_err(|e| {
            Error::input(
                path,
                Some(e.line()),
                format!("not a faithgate run record: {e}"),
                "write records with `faithgate run SUITE --record FILE.json`",
            )
        })?;
        if record.faithgate_record != RECORD_VERSION {
            return Err(Error::input(
                path,
                None,
                format!(
                    "record version {} is not {RECORD_VERSION}",
                    record.faithgate_record
                ),
                "re-run the checker with this faithgate version to write a new record",
            ));
        }
        Ok(record)
    }
}
