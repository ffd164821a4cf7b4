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
    // each answer with the line it starts on
    let mut answers: Vec<(LoggedAnswer, Option<usize>)> = Vec::new();
    let mut errors = Vec::new();
    if yaml {
        let list: Vec<LoggedAnswer> =
            serde_yaml::from_str(&text).map_err(|e| Error::from_yaml(path, &e, HELP))?;
        let loc = crate::suite::Locator::new(&text);
        let mut nth: std::collections::HashMap<String, usize> = Default::default();
        answers = list
            .into_iter()
            .map(|a| {
                let k = nth.entry(a.id.clone()).or_default();
                let line = loc.id(&a.id, *k);
                *k += 1;
                (a, line)
            })
            .collect();
    } else {
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            match serde_json::from_str::<LoggedAnswer>(line) {
                Ok(a) => answers.push((a, Some(i + 1))),
                Err(e) => errors.push(Error::input(
                    path,
                    Some(i + 1),
                    format!("not a logged answer: {e}"),
                    HELP,
                )),
            }
        }
    }
    let mut first: std::collections::HashMap<String, Option<usize>> = Default::default();
    let mut kept = Vec::with_capacity(answers.len());
    for (a, line) in answers {
        match first.get(&a.id) {
            None => {
                first.insert(a.id.clone(), line);
                kept.push(a);
            }
            Some(earlier) => errors.push(Error::input(
                path,
                line,
                format!(
                    "answer id `{}` appears twice{}; the second is skipped",
                    a.id,
                    earlier
                        .map(|l| format!(" (first on line {l})"))
                        .unwrap_or_default()
                ),
                "give every logged answer its own id",
            )),
        }
    }
    Ok((kept, errors))
}
