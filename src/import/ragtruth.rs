//! RAGTruth: a folder with `response.jsonl` (one generated answer per line: `id`, `source_id`,
//! `model`, `response`, `labels` = [{start, end, text, label_type}], and other keys) and
//! `source_info.jsonl` (`source_id`, `task_type`, `source_info`: a string, an object with
//! `question` and `passages`, or structured data). Span offsets count characters (Unicode code
//! points), as Python does.
//!
//! [`ragtruth`] turns it into a faithprobe log (one answer per response, `context` pointing at its
//! source in a contexts file, `tag` = the generating model, `label` from the spans) and, when
//! asked, a suite of real cases: a sentence covered by a conflict span is a `contradicted` hard
//! case, one covered by a baseless span a `not_found` hard case, and the sentences of span-free
//! answers are claims a person verified. Sentences of an answer with spans elsewhere are left
//! out (neither clean nor labelled), as are framing sentences.

use super::read::{self, id_of};
use super::{as_claim, byte_at, sentence_spans, type_name, Built, Imported, Outputs};
use crate::error::{Error, Result};
use crate::model::case::HardCaseLabel;
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, HashSet};
use std::path::Path;

/// One labelled span of a response, in byte offsets of the response.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Span {
    pub start: usize,
    pub end: usize,
    pub label_type: String,
}

impl Span {
    /// True for conflict spans (the answer contradicts the source), false for baseless ones.
    pub fn conflict(&self) -> bool {
        self.label_type.to_lowercase().contains("conflict")
    }
}

/// One response as read.
#[derive(Debug, Clone)]
pub(crate) struct Response {
    pub id: String,
    pub source_id: String,
    pub model: Option<String>,
    pub text: String,
    pub spans: Vec<Span>,
    /// Other keys, kept as metadata.
    pub extra: Map<String, Value>,
}

/// One source as read: its text, and the question for QA sources.
#[derive(Debug, Clone)]
pub(crate) struct Source {
    pub id: String,
    pub task_type: Option<String>,
    pub question: Option<String>,
    pub text: String,
}

const RESPONSE_HELP: &str = "RAGTruth's response.jsonl: one JSON object per line with `id`, `source_id`, `model`, `response` and `labels` ([{start, end, text, label_type}])";
const SOURCE_HELP: &str = "RAGTruth's source_info.jsonl: one JSON object per line with `source_id`, `task_type` and `source_info`";

/// A source's text and question from its `source_info`.
fn source_info(v: Option<Value>) -> std::result::Result<(Option<String>, String), String> {
    Ok(match v {
        Some(Value::String(s)) => (None, s),
        Some(Value::Object(mut o)) if o.contains_key("passages") => {
            let q = o
                .remove("question")
                .and_then(|v| v.as_str().map(str::to_string));
            let p = match o.remove("passages") {
                Some(Value::String(s)) => s,
                Some(v) => serde_json::to_string_pretty(&v).unwrap_or_default(),
                None => String::new(),
            };
            (q, p)
        }
        // structured data (Data2txt): the JSON itself is the source
        Some(v @ Value::Object(_)) | Some(v @ Value::Array(_)) => {
            (None, serde_json::to_string_pretty(&v).unwrap_or_default())
        }
        _ => return Err("`source_info` is missing or not text or an object".into()),
    })
}

pub(crate) fn read_sources(path: &Path) -> Result<BTreeMap<String, Source>> {
    let mut out = BTreeMap::new();
    read::json_lines(path, SOURCE_HELP, |_, mut m| {
        let id = id_of(m.get("source_id")).ok_or("`source_id` is missing")?;
        let task_type = m
            .remove("task_type")
            .and_then(|v| v.as_str().map(str::to_string));
        let (question, text) = source_info(m.remove("source_info"))?;
        let src = Source {
            id: id.clone(),
            task_type,
            question,
            text,
        };
        match out.insert(id.clone(), src) {
            Some(_) => Err(format!("source `{id}` appears twice")),
            None => Ok(()),
        }
    })?;
    Ok(out)
}

/// The spans of a response's `labels`, in byte offsets of `text`.
fn spans_of(labels: Option<Value>, text: &str) -> std::result::Result<Vec<Span>, String> {
    let list = match labels {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(list)) => list,
        Some(_) => return Err("`labels` must be a list".into()),
    };
    let n_chars = text.chars().count();
    let mut spans = Vec::new();
    for (j, l) in list.into_iter().enumerate() {
        let get = |k: &str| l.get(k).and_then(Value::as_u64);
        let (Some(s), Some(e)) = (get("start"), get("end")) else {
            return Err(format!("label {} needs integer `start` and `end`", j + 1));
        };
        let (s, e) = (s as usize, e as usize);
        if s >= e || e > n_chars {
            return Err(format!(
                "label {}: span {s}..{e} is not inside the response ({n_chars} characters)",
                j + 1
            ));
        }
        // a label type with no letters or digits says nothing: unspecified
        let label_type = l
            .get("label_type")
            .and_then(Value::as_str)
            .filter(|t| t.chars().any(char::is_alphanumeric))
            .unwrap_or("unspecified")
            .trim()
            .to_string();
        spans.push(Span {
            start: byte_at(text, s),
            end: byte_at(text, e),
            label_type,
        });
    }
    Ok(spans)
}

pub(crate) fn read_responses(path: &Path) -> Result<Vec<Response>> {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    read::json_lines(path, RESPONSE_HELP, |_, mut m| {
        let id = id_of(m.get("id")).ok_or("`id` is missing")?;
        m.remove("id");
        if !seen.insert(id.clone()) {
            return Err(format!("response `{id}` appears twice"));
        }
        let source_id = id_of(m.get("source_id")).ok_or("`source_id` is missing")?;
        m.remove("source_id");
        let model = m
            .remove("model")
            .and_then(|v| v.as_str().map(str::to_string));
        let text = match m.remove("response") {
            Some(Value::String(s)) => s,
            _ => return Err("`response` is missing or not a string".into()),
        };
        let spans = spans_of(m.remove("labels"), &text)?;
        out.push(Response {
            id,
            source_id,
            model,
            text,
            spans,
            extra: m,
        });
        Ok(())
    })?;
    Ok(out)
}

/// A response's log line.
fn log_line(r: &Response, src: &Source) -> Map<String, Value> {
    let mut types: Vec<String> = Vec::new();
    for s in &r.spans {
        if !types.contains(&s.label_type) {
            types.push(s.label_type.clone());
        }
    }
    let mut line = Map::new();
    line.insert("id".into(), json!(r.id));
    line.insert("question".into(), json!(src.question));
    line.insert("answer".into(), json!(r.text));
    line.insert("context".into(), json!(src.id));
    line.insert("tag".into(), json!(r.model));
    line.insert(
        "label".into(),
        json!({"hallucinated": !r.spans.is_empty(), "types": types}),
    );
    line.insert("source_id".into(), json!(src.id));
    if let Some(t) = &src.task_type {
        line.insert("task_type".into(), json!(t));
    }
    super::carry(&mut line, r.extra.clone(), "ragtruth");
    line
}

/// Adds the sentences of one response to the suite: under a span an error, in a span-free
/// answer verified, otherwise left out.
fn add_sentences(b: &mut super::SuiteBuilder, r: &Response, counts: &mut Imported) {
    for (n, (start, end, sentence)) in sentence_spans(&r.text).into_iter().enumerate() {
        let Some(claim) = as_claim(&sentence) else {
            continue;
        };
        let id = format!("{}-s{}", r.id, n + 1);
        let covering: Vec<&Span> = r
            .spans
            .iter()
            .filter(|s| s.start < end && start < s.end)
            .collect();
        if r.spans.is_empty() {
            b.verified(&r.source_id, &id, &claim);
        } else if covering.is_empty() {
            counts.left_out += 1;
        }
        // every covering span, conflict ones winning: the first conflict's type, else the first's
        let first = covering.iter().find(|s| s.conflict()).or(covering.first());
        if let Some(span) = first {
            let label = if span.conflict() {
                HardCaseLabel::Contradicted
            } else {
                HardCaseLabel::NotFound
            };
            b.error(
                &r.source_id,
                &id,
                &claim,
                &type_name(&span.label_type),
                label,
            );
        }
    }
}

/// Writes the log (and its contexts file), and the real-case suite when asked.
pub fn ragtruth(
    dir: &Path,
    log: &Path,
    contexts: &Path,
    hard_cases: Option<&Path>,
) -> Result<Imported> {
    let outputs = Outputs {
        log: Some((log, contexts)),
        suite: hard_cases,
    };
    let sources = read_sources(&dir.join("source_info.jsonl"))?;
    let resp_path = dir.join("response.jsonl");
    let responses = read_responses(&resp_path)?;
    let mut built = Built::new(&outputs, || description(dir));
    let mut used: BTreeMap<&str, &Source> = BTreeMap::new();
    for r in &responses {
        let Some(src) = sources.get(&r.source_id) else {
            return Err(Error::input(
                &resp_path,
                None,
                format!(
                    "response `{}` refers to source `{}`, which source_info.jsonl does not have",
                    r.id, r.source_id
                ),
                SOURCE_HELP,
            ));
        };
        used.insert(&src.id, src);
        if let Some(l) = &mut built.log {
            l.answer(log_line(r, src));
        }
    }
    for src in used.values() {
        if let Some(l) = &mut built.log {
            l.context(&src.id, &src.text);
        }
        let Some(b) = &mut built.suite else { continue };
        b.context(&src.id, src.question.as_deref(), &src.text);
        if crate::text::words::is_blank(&src.text) {
            continue;
        }
        for r in responses.iter().filter(|r| r.source_id == src.id) {
            add_sentences(b, r, &mut built.counts);
        }
    }
    super::finish(
        built,
        &outputs,
        (&resp_path, responses.len(), RESPONSE_HELP),
    )
}

/// The suite's name and description.
fn description(dir: &Path) -> (String, String) {
    let name = super::suite_name(dir, "ragtruth");
    (name, format!("Imported from RAGTruth files in {}: sentences of answers with no labelled span are claims the annotators found supported; sentences under a conflict span are contradicted hard cases, under a baseless span not_found.", dir.display()))
}
