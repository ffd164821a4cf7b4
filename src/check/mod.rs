//! Checkers: what decides, claim by claim, whether a context set supports a claim.
//!
//! A checker sees claims and their passages, never the label a person gave; the run compares
//! the two afterwards. Each checker kind lives in its own file.

pub mod batch;
/// The verdict cache lives in [`crate::io::cache`]; named here too, where checkers find it.
pub use crate::io::cache;
pub mod cascade;
pub mod command;
pub mod judge;
pub mod lexical;
pub mod nli;
pub mod onnx;
pub mod similarity;
pub mod windows;

use crate::error::Exit;
use crate::model::case::Label;
use crate::model::suite::{Context, EntityGroup, Passage};
use serde::Serialize;
use std::collections::BTreeMap;

/// What is wrong with one checker's settings: the message and how to fix it. The config names
/// the file, the line and the checker around it.
#[derive(Debug, Clone, PartialEq)]
pub struct SettingsProblem {
    pub message: String,
    pub help: String,
}

impl SettingsProblem {
    pub fn new(message: impl Into<String>, help: impl Into<String>) -> Self {
        SettingsProblem {
            message: message.into(),
            help: help.into(),
        }
    }
}

/// A setting that must lie in [0, 1] (a threshold, a routing bound).
pub(crate) fn unit(field: &str, v: Option<f64>) -> Result<(), SettingsProblem> {
    match v {
        Some(v) if !(0.0..=1.0).contains(&v) => Err(SettingsProblem::new(
            format!("{field} {v} is outside [0, 1]"),
            "use a value between 0 and 1",
        )),
        _ => Ok(()),
    }
}

/// A count that must be from 1 to `most`.
pub(crate) fn positive(field: &str, v: Option<usize>, most: usize) -> Result<(), SettingsProblem> {
    match v {
        Some(0) => Err(SettingsProblem::new(
            format!("{field} is 0"),
            "remove it to use the default, or set a positive number",
        )),
        Some(n) if n > most => Err(SettingsProblem::new(
            format!("{field} {n} is more than {most}"),
            format!("use a number from 1 to {most}"),
        )),
        _ => Ok(()),
    }
}

/// The most sentences a window may hold.
pub const MAX_WINDOW_SENTENCES: usize = 1000;

/// The passages that were in one prompt, as a checker sees them: no claim a person verified and
/// no label. The runner builds these from a suite's contexts (or from a logged answer), so the
/// compiler keeps expected labels away from every checker:
///
/// ```compile_fail
/// // a checker cannot reach a hard case's label: the type has no such field
/// fn peek(set: &faithprobe::check::ContextSet) -> usize {
///     set.hard_cases.len()
/// }
/// ```
///
/// ```
/// // what it can read
/// fn read(set: &faithprobe::check::ContextSet) -> usize {
///     set.passages.len() + set.question.iter().count()
/// }
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ContextSet {
    pub id: String,
    pub question: Option<String>,
    /// Shared, not copied: answers of a log that cite one document share one allocation, and a
    /// checker builds its windows once per distinct allocation ([`ContextSet::passages_key`]).
    pub passages: std::sync::Arc<[Passage]>,
}

impl ContextSet {
    /// A context set of one passage (for `faithprobe check`).
    pub fn single(id: &str, passage_id: &str, text: &str) -> ContextSet {
        ContextSet {
            id: id.into(),
            question: None,
            passages: vec![Passage {
                id: passage_id.into(),
                text: text.into(),
            }]
            .into(),
        }
    }
}

impl ContextSet {
    /// What a checker keys the windows of these passages by: context sets that share one
    /// passages allocation share one key, so the windows are built once for all of them.
    pub fn passages_key(&self) -> usize {
        self.passages.as_ptr() as usize
    }
}

impl From<&Context> for ContextSet {
    fn from(c: &Context) -> Self {
        ContextSet {
            id: c.id.clone(),
            question: c.question.clone(),
            passages: c.passages.clone().into(),
        }
    }
}

/// Why a checker could not score a claim. Never a pass: the case is an `error` in every report.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CheckError {
    /// Ctrl-C arrived before this claim was scored.
    #[error("interrupted before this case was scored; rerun the same command to finish (verdicts already paid for are in the cache)")]
    Interrupted,
    /// The claim (or a sentence it must be read with) does not fit the model.
    #[error("{0}")]
    TooLong(String),
    /// The model produced NaN or an infinity.
    #[error("{0}")]
    NonFinite(String),
    /// The model or its runtime failed.
    #[error("{0}")]
    Model(String),
    /// The verdict cache could not be read or written.
    #[error("{0}")]
    Cache(String),
    /// The judge's server could not be reached or answered with an error.
    #[error("{0}")]
    Http(String),
    /// The judge answered, but not with a valid verdict (after every retry).
    #[error("{0}")]
    InvalidReply(String),
    /// The external checker program failed, exited early or wrote something unreadable.
    #[error("{0}")]
    Command(String),
    /// The claim cannot be checked as given (an empty context set).
    #[error("{0}")]
    Input(String),
    /// Under `--batch submit`: the request went to a batch (or waits for one); nothing scored.
    #[error("{0}")]
    Batch(String),
    /// The checker returned fewer verdicts than claims.
    #[error("the checker returned no verdict for this case")]
    NoVerdict,
}

impl From<crate::io::llm::LlmError> for CheckError {
    fn from(e: crate::io::llm::LlmError) -> CheckError {
        use crate::io::llm::LlmError;
        match e {
            LlmError::Interrupted => CheckError::Interrupted,
            LlmError::Http(m) => CheckError::Http(m),
            LlmError::InvalidReply(m) => CheckError::InvalidReply(m),
            LlmError::Batch(m) => CheckError::Batch(m),
        }
    }
}

impl CheckError {
    /// The exit code a run with this error ends with: 130 after Ctrl-C, else 3.
    pub fn exit(&self) -> Exit {
        match self {
            CheckError::Interrupted => Exit::Interrupted,
            _ => Exit::CheckerFailed,
        }
    }
}

/// Where a verdict's support (or conflict) was found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Evidence {
    pub passage: String,
    pub window: String,
}

/// A checker's verdict on one claim.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Verdict {
    pub label: Label,
    /// In [0, 1], higher is more supported, where the checker has a score.
    pub score: Option<f64>,
    pub evidence: Option<Evidence>,
    pub reason: String,
}

/// A verdict, or why the checker could not score the claim. An error is never a pass.
pub type CheckResult = Result<Verdict, CheckError>;

/// One claim to check, against the passages of one context set.
#[derive(Debug, Clone, Copy)]
pub struct ClaimToCheck<'a> {
    pub context: usize,
    pub text: &'a str,
}

/// Everything a checker may read: the context sets, the suite's entity groups and the claims.
pub struct CheckInput<'a> {
    pub contexts: &'a [ContextSet],
    pub entities: &'a [EntityGroup],
    pub claims: Vec<ClaimToCheck<'a>>,
}

/// A faithfulness checker.
pub trait Checker: Send + Sync {
    /// The name it was configured under (`lexical` for the built-in default).
    fn name(&self) -> &str;
    /// Its kind (`lexical`, `nli`, ...).
    fn kind(&self) -> &'static str;
    /// Its settings, for reports, snapshots and fingerprints.
    fn settings(&self) -> BTreeMap<String, String>;
    /// One result per claim, in order. `progress` is called with the number of claims done.
    fn check(&self, input: &CheckInput<'_>, progress: &mut dyn FnMut(usize)) -> Vec<CheckResult>;

    /// Lines for stderr after a run: what it cost, what came from the cache, over every `check`
    /// call since [`Checker::start_notes`] (a log is scored in chunks).
    fn notes(&self) -> Vec<String> {
        Vec::new()
    }

    /// Starts counting what [`Checker::notes`] reports afresh (before each suite or log).
    fn start_notes(&self) {}

    /// Lines for `faithprobe doctor` beyond the one claim it checks (a model's batch
    /// dependence).
    fn doctor_notes(&self) -> Vec<String> {
        Vec::new()
    }

    /// What its LLM calls cost since [`Checker::start_notes`], by `prices:`: None when it makes
    /// none, an error naming the model when it has no price.
    fn cost(&self) -> Option<Result<f64, String>> {
        None
    }

    /// Every number the checker has for one premise and claim beyond its verdict's score (label
    /// probabilities, a cosine), for `faithprobe check`; `None` when the score is all it has.
    fn probe(
        &self,
        _premise: &str,
        _claim: &str,
    ) -> Result<Option<Vec<(String, f64)>>, CheckError> {
        Ok(None)
    }
}

/// A shared checker is a checker: a sub-checker several cascades name is built once and shared.
impl Checker for std::sync::Arc<dyn Checker> {
    fn name(&self) -> &str {
        (**self).name()
    }
    fn kind(&self) -> &'static str {
        (**self).kind()
    }
    fn settings(&self) -> BTreeMap<String, String> {
        (**self).settings()
    }
    fn check(&self, input: &CheckInput<'_>, progress: &mut dyn FnMut(usize)) -> Vec<CheckResult> {
        (**self).check(input, progress)
    }
    fn notes(&self) -> Vec<String> {
        (**self).notes()
    }
    fn start_notes(&self) {
        (**self).start_notes()
    }
    fn cost(&self) -> Option<Result<f64, String>> {
        (**self).cost()
    }
    fn doctor_notes(&self) -> Vec<String> {
        (**self).doctor_notes()
    }
    fn probe(&self, premise: &str, claim: &str) -> Result<Option<Vec<(String, f64)>>, CheckError> {
        (**self).probe(premise, claim)
    }
}
