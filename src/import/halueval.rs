//! HaluEval (github.com/RUCAIBox/HaluEval): for each piece of knowledge (or document), a right
//! output and a hallucinated one that ChatGPT generated and filtered to be plausible.
//!
//! The format, as read in that repository: `README.md` ("Data Release") and
//! `evaluation/evaluate.py` (`evaluation_qa_dataset`, `evaluation_dialogue_dataset`,
//! `evaluation_summarization_dataset`, which read `data/<task>_data.json` one JSON object per
//! line). Three files, one JSON object per line:
//!
//! - `qa_data.json`: `knowledge`, `question`, `right_answer`, `hallucinated_answer`;
//! - `dialogue_data.json`: `knowledge`, `dialogue_history`, `right_response`,
//!   `hallucinated_response`;
//! - `summarization_data.json`: `document`, `right_summary`, `hallucinated_summary`.
//!
//! The task is told by each line's keys. `general_data.json` (`user_query`, `chatgpt_response`,
//! `hallucination_label`) has no source to check against and is refused.
//!
//! What becomes what: each line gives two answers to the log (`<task>-<line>-right`, labelled
//! faithful, and `<task>-<line>-hallucinated`, labelled hallucinated; `tag` = the task) and two
//! claims to the suite: the right output a verified claim, the hallucinated one a real error,
//! `not_found` (HaluEval does not say whether it contradicts the knowledge), type
//! `halueval_hallucinated`. Outputs are kept whole (the data set labels the whole text). One
//! context per distinct knowledge and question (the question, or the dialogue history, is the
//! context's question), or per distinct document for summaries.

use super::read::{self, kind};
use super::{doc_id, Built, Imported, Outputs};
use crate::error::Result;
use crate::model::case::HardCaseLabel;
use serde_json::{json, Map, Value};
use std::path::Path;

const HELP: &str = "HaluEval data: one JSON object per line with `knowledge`, `question`, `right_answer`, `hallucinated_answer` (qa_data.json), or `knowledge`, `dialogue_history`, `right_response`, `hallucinated_response` (dialogue_data.json), or `document`, `right_summary`, `hallucinated_summary` (summarization_data.json)";

/// The three tasks: (name, source key, question key, right key, hallucinated key).
const TASKS: &[(&str, &str, Option<&str>, &str, &str)] = &[
    (
        "qa",
        "knowledge",
        Some("question"),
        "right_answer",
        "hallucinated_answer",
    ),
    (
        "dialogue",
        "knowledge",
        Some("dialogue_history"),
        "right_response",
        "hallucinated_response",
    ),
    (
        "summarization",
        "document",
        None,
        "right_summary",
        "hallucinated_summary",
    ),
];

/// One line as read.
#[derive(Debug, Clone, PartialEq)]
struct Item {
    task: &'static str,
    source: String,
    question: Option<String>,
    right: String,
    hallucinated: String,
    extra: Map<String, Value>,
}

/// A text field; knowledge given as a list of strings is joined with spaces.
fn text(m: &mut Map<String, Value>, key: &str) -> std::result::Result<String, String> {
    match m.remove(key) {
        Some(Value::String(s)) => Ok(s),
        Some(Value::Array(l)) if l.iter().all(Value::is_string) => Ok(l
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(" ")),
        Some(v) => Err(format!("`{key}` must be a string, not {}", kind(&v))),
        None => Err(format!("`{key}` is missing")),
    }
}

fn item(mut m: Map<String, Value>) -> std::result::Result<Item, String> {
    let Some(&(task, src_key, q_key, right_key, hal_key)) =
        TASKS.iter().find(|t| m.contains_key(t.4))
    else {
        if m.contains_key("chatgpt_response") {
            return Err("this is HaluEval's general_data.json: its responses have no knowledge or document to check them against; import qa_data.json, dialogue_data.json or summarization_data.json".into());
        }
        return Err("no `hallucinated_answer`, `hallucinated_response` or `hallucinated_summary`: not a HaluEval QA, dialogue or summarization line".into());
    };
    let source = text(&mut m, src_key)?;
    let question = q_key.map(|q| text(&mut m, q)).transpose()?;
    let right = text(&mut m, right_key)?;
    let hallucinated = text(&mut m, hal_key)?;
    for (k, v) in [(right_key, &right), (hal_key, &hallucinated)] {
        if v.trim().is_empty() {
            return Err(format!("`{k}` is empty"));
        }
    }
    Ok(Item {
        task,
        source,
        question,
        right,
        hallucinated,
        extra: m,
    })
}

/// Adds line `n`'s two outputs to what is being built.
fn add(built: &mut Built, n: usize, it: Item) {
    let key = match &it.question {
        Some(q) => format!("{}\n\n{q}", it.source),
        None => it.source.clone(),
    };
    let ctx = doc_id("halueval", &key);
    let right_id = format!("{}-{n}-right", it.task);
    let hal_id = format!("{}-{n}-hallucinated", it.task);
    if let Some(b) = &mut built.suite {
        b.context(&ctx, it.question.as_deref(), &it.source);
        b.verified(&ctx, &right_id, &it.right);
        let t = "halueval_hallucinated";
        b.error(&ctx, &hal_id, &it.hallucinated, t, HardCaseLabel::NotFound);
    }
    if let Some(l) = &mut built.log {
        l.context(&ctx, &it.source);
        for (id, answer, bad) in [
            (&right_id, &it.right, false),
            (&hal_id, &it.hallucinated, true),
        ] {
            let types: &[&str] = if bad { &["hallucinated"] } else { &[] };
            let mut line = Map::new();
            line.insert("id".into(), json!(id));
            line.insert("question".into(), json!(it.question));
            line.insert("answer".into(), json!(answer));
            line.insert("context".into(), json!(ctx));
            line.insert("tag".into(), json!(it.task));
            line.insert("label".into(), json!({"hallucinated": bad, "types": types}));
            line.insert("line".into(), json!(n));
            super::carry(&mut line, it.extra.clone(), "halueval");
            l.answer(line);
        }
    }
}

/// Imports a HaluEval file: the log and its contexts file, and the suite, as `outputs` asks.
pub fn halueval(path: &Path, outputs: &Outputs) -> Result<Imported> {
    let mut built = Built::new(outputs, || {
        (super::suite_name(path, "halueval"), format!("Imported from HaluEval ({}): each right output is a verified claim, each hallucinated output a real error (not_found).", path.display()))
    });
    let records = read::json_lines(path, HELP, |n, m| {
        add(&mut built, n, item(m)?);
        Ok(())
    })?;
    super::finish(built, outputs, (path, records, HELP))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> std::result::Result<Item, String> {
        item(serde_json::from_str(s).unwrap())
    }

    #[test]
    fn the_task_is_told_by_the_keys() {
        let qa = parse(r#"{"knowledge": "K.", "question": "Q?", "right_answer": "R", "hallucinated_answer": "H"}"#).unwrap();
        assert_eq!((qa.task, qa.question.as_deref()), ("qa", Some("Q?")));
        let d = parse(r#"{"knowledge": "K.", "dialogue_history": "[Human]: hi", "right_response": "R", "hallucinated_response": "H"}"#).unwrap();
        assert_eq!(
            (d.task, d.question.as_deref()),
            ("dialogue", Some("[Human]: hi"))
        );
        let s = parse(
            r#"{"document": "D.", "right_summary": "R", "hallucinated_summary": "H", "x": 1}"#,
        )
        .unwrap();
        assert_eq!(
            (s.task, s.question, s.extra["x"].clone()),
            ("summarization", None, json!(1))
        );
    }

    #[test]
    fn the_general_file_and_a_missing_key_are_refused() {
        let err =
            parse(r#"{"user_query": "q", "chatgpt_response": "r", "hallucination_label": "No"}"#)
                .unwrap_err();
        assert!(err.contains("general_data.json"), "{err}");
        let err = parse(r#"{"knowledge": "K.", "right_answer": "R", "hallucinated_answer": "H"}"#)
            .unwrap_err();
        assert_eq!(err, "`question` is missing");
        let err = parse(r#"{"knowledge": "K.", "question": "Q", "right_answer": "", "hallucinated_answer": "H"}"#).unwrap_err();
        assert_eq!(err, "`right_answer` is empty");
    }
}
