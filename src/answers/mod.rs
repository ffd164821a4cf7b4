//! Logged answers: the RAG system itself, scored claim by claim against the context set that was
//! in its prompt (read from the log, never re-retrieved).

pub mod decompose;
pub mod eval;
pub mod log;
pub mod numbers;
pub mod pipeline;
pub mod score;
pub mod spool;
pub mod tally;

use crate::error::{Error, Result};
use crate::model::suite::Passage;
pub use log::AnswerLabel;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// One logged answer, its passages resolved.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LoggedAnswer {
    pub id: String,
    pub question: String,
    pub answer: String,
    /// Shared with every other answer that cites the same context of a contexts file: a log of
    /// answers over one long document holds the document once.
    pub passages: std::sync::Arc<[LoggedPassage]>,
    /// The generator's model or prompt version, when the log has one.
    pub tag: Option<String>,
    /// The contexts-file id(s) the passages came from, when referenced.
    pub context: Option<String>,
    /// A person's judgement of the answer, from the log or `--labels`.
    pub label: Option<AnswerLabel>,
    /// Every other key of the log record, carried into the score record.
    pub metadata: BTreeMap<String, serde_json::Value>,
    /// Index of the answer in the whole log (before any sharding).
    pub position: usize,
    /// The line of the log it starts on.
    pub line: Option<usize>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a passage: {id: \"...\", text: \"...\"} or a bare string"
)]
pub struct LoggedPassage {
    pub id: String,
    pub text: String,
}

impl LoggedAnswer {
    pub fn passages(&self) -> Vec<Passage> {
        self.passages
            .iter()
            .map(|p| Passage {
                id: p.id.clone(),
                text: p.text.clone(),
            })
            .collect()
    }
}

/// Reads a whole log (JSON Lines or a YAML list): the answers, and the records that are not
/// answers as errors naming their line. `score` streams with [`log::LogReader`] instead.
pub fn load_log(path: &Path) -> Result<(Vec<LoggedAnswer>, Vec<Error>)> {
    let mut answers = Vec::new();
    let mut errors = Vec::new();
    for a in log::LogReader::open(path, None, None, None)? {
        match a {
            Ok(a) => answers.push(a),
            Err(e @ Error::Input { .. }) => errors.push(e),
            Err(e) => return Err(e),
        }
    }
    Ok((answers, errors))
}
