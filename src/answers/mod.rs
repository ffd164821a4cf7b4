//! Logged answers: the RAG system itself, scored claim by claim against the context set that was
//! in its prompt (read from the log, never re-retrieved).

pub mod decompose;
pub mod eval;
pub mod numbers;
pub mod score;

use crate::error::{Error, Result};
use crate::suite::Passage;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// One logged answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoggedAnswer {
    pub id: String,
    #[serde(default)]
    pub question: String,
    pub answer: String,
    pub passages: Vec<LoggedPassage>,
    /// The generator's model or prompt version, when the log has one.
    #[serde(default)]
    pub tag: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
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

const HELP: &str = "each record needs `id`, `answer` and `passages` ([{id, text}]), optionally `question` and `tag`";

/// Reads a log: JSON Lines (`.jsonl`, one answer per line) or YAML (a list of answers). Malformed
/// records are returned as errors naming their line; the others are still scored.
pub fn load_log(path: &Path) -> Result<(Vec<LoggedAnswer>, Vec<Error>)> {
    let text = crate::error::read_input(path)?;
    let yaml = matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("yaml" | "yml")
    );
    let mut answers = Vec::new();
    let mut errors = Vec::new();
    if yaml {
        let list: Vec<LoggedAnswer> =
            serde_yaml::from_str(&text).map_err(|e| Error::from_yaml(path, &e, HELP))?;
        answers = list;
    } else {
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            match serde_json::from_str::<LoggedAnswer>(line) {
                Ok(a) => answers.push(a),
                Err(e) => errors.push(Error::input(
                    path,
                    Some(i + 1),
                    format!("not a logged answer: {e}"),
                    HELP,
                )),
            }
        }
    }
    let mut seen = std::collections::HashSet::new();
    answers.retain(|a| {
        if seen.insert(a.id.clone()) {
            true
        } else {
            errors.push(Error::input(
                path,
                None,
                format!("answer id `{}` appears twice; the second is skipped", a.id),
                "give every logged answer its own id",
            ));
            false
        }
    });
    Ok((answers, errors))
}
