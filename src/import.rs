//! Importers of public human-labelled data.
//!
//! RAGTruth: a folder with `response.jsonl` (one generated answer per line: `id`, `source_id`,
//! `model`, `response`, `labels` = [{start, end, text, label_type}], and other keys) and
//! `source_info.jsonl` (`source_id`, `task_type`, `source_info`: a string, an object with
//! `question` and `passages`, or structured data). Span offsets count characters (Unicode code
//! points), as Python does.
//!
//! [`ragtruth`] turns it into a faithprobe log (one answer per response, `context` pointing at its
//! source in a contexts file, `tag` = the generating model, `label` from the spans) and, when
//! asked, a suite of hard cases: a sentence covered by a conflict span is a `contradicted` hard
//! case, one covered by a baseless span a `not_found` hard case, and the sentences of span-free
//! answers are claims a person verified.

use crate::error::{Error, Result};
use crate::text::split_sentences;
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

/// What the importer wrote.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Imported {
    pub answers: usize,
    pub hallucinated: usize,
    pub sources: usize,
    pub faithful_claims: usize,
    pub hard_cases: usize,
    /// Sentences annotated differently in two answers (clean in one, under a span in another):
    /// made hard cases with the annotated label, never verified claims.
    pub conflicting: usize,
    /// Sources with no text: their answers are in the log (score warns), but no context of theirs
    /// is in the suite (a claim cannot be verified against nothing).
    pub empty_sources: usize,
}

/// Keys the log gives a meaning of its own: a response's extra key of that name is carried as
/// `ragtruth_<key>`, never over the log's field.
const RESERVED: &[&str] = &[
    "id", "question", "answer", "context", "passages", "tag", "label",
];

const RESPONSE_HELP: &str = "RAGTruth's response.jsonl: one JSON object per line with `id`, `source_id`, `model`, `response` and `labels` ([{start, end, text, label_type}])";
const SOURCE_HELP: &str = "RAGTruth's source_info.jsonl: one JSON object per line with `source_id`, `task_type` and `source_info`";

fn id_of(v: Option<Value>) -> Option<String> {
    match v {
        Some(Value::String(s)) if !s.is_empty() => Some(s),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    }
}

/// Byte offset of the `chars`-th character of `s` (its length when past the end).
fn byte_at(s: &str, chars: usize) -> usize {
    s.char_indices()
        .nth(chars)
        .map(|(i, _)| i)
        .unwrap_or(s.len())
}

pub(crate) fn read_sources(path: &Path) -> Result<BTreeMap<String, Source>> {
    let text = crate::error::read_input(path)?;
    let mut out = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = |m: String| Error::input(path, Some(i + 1), m, SOURCE_HELP);
        let Value::Object(mut m) =
            serde_json::from_str(line).map_err(|e| at(format!("not JSON: {e}")))?
        else {
            return Err(at("not a JSON object".into()));
        };
        let id = id_of(m.remove("source_id")).ok_or_else(|| at("`source_id` is missing".into()))?;
        let task_type = m
            .remove("task_type")
            .and_then(|v| v.as_str().map(str::to_string));
        let (question, text) = match m.remove("source_info") {
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
            _ => {
                return Err(at(
                    "`source_info` is missing or not text or an object".into()
                ))
            }
        };
        if out
            .insert(
                id.clone(),
                Source {
                    id: id.clone(),
                    task_type,
                    question,
                    text,
                },
            )
            .is_some()
        {
            return Err(at(format!("source `{id}` appears twice")));
        }
    }
    Ok(out)
}

pub(crate) fn read_responses(path: &Path) -> Result<Vec<Response>> {
    let text = crate::error::read_input(path)?;
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = |m: String| Error::input(path, Some(i + 1), m, RESPONSE_HELP);
        let Value::Object(mut m) =
            serde_json::from_str(line).map_err(|e| at(format!("not JSON: {e}")))?
        else {
            return Err(at("not a JSON object".into()));
        };
        let id = id_of(m.remove("id")).ok_or_else(|| at("`id` is missing".into()))?;
        if !seen.insert(id.clone()) {
            return Err(at(format!("response `{id}` appears twice")));
        }
        let source_id =
            id_of(m.remove("source_id")).ok_or_else(|| at("`source_id` is missing".into()))?;
        let model = m
            .remove("model")
            .and_then(|v| v.as_str().map(str::to_string));
        let text = match m.remove("response") {
            Some(Value::String(s)) => s,
            _ => return Err(at("`response` is missing or not a string".into())),
        };
        let n_chars = text.chars().count();
        let mut spans = Vec::new();
        match m.remove("labels") {
            None | Some(Value::Null) => {}
            Some(Value::Array(list)) => {
                for (j, l) in list.into_iter().enumerate() {
                    let get = |k: &str| l.get(k).and_then(Value::as_u64);
                    let (Some(s), Some(e)) = (get("start"), get("end")) else {
                        return Err(at(format!(
                            "label {} needs integer `start` and `end`",
                            j + 1
                        )));
                    };
                    let (s, e) = (s as usize, e as usize);
                    if s >= e || e > n_chars {
                        return Err(at(format!(
                            "label {}: span {s}..{e} is not inside the response ({n_chars} characters)",
                            j + 1
                        )));
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
                        start: byte_at(&text, s),
                        end: byte_at(&text, e),
                        label_type,
                    });
                }
            }
            Some(_) => return Err(at("`labels` must be a list".into())),
        }
        out.push(Response {
            id,
            source_id,
            model,
            text,
            spans,
            extra: m,
        });
    }
    Ok(out)
}

/// A label type as a suite case type: `Evident Conflict` → `evident_conflict`.
fn type_name(label_type: &str) -> String {
    let mut s: String = label_type
        .chars()
        .map(|c| {
            if c.is_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    while s.contains("__") {
        s = s.replace("__", "_");
    }
    s.trim_matches('_').to_string()
}

/// The sentences of a response with their byte ranges, as the claims a person would check.
fn sentences(text: &str) -> Vec<(usize, usize, String)> {
    let base = text.as_ptr() as usize;
    split_sentences(text)
        .into_iter()
        .map(|s| {
            let start = s.as_ptr() as usize - base;
            (start, start + s.len(), s.trim().to_string())
        })
        .filter(|(_, _, s)| !s.is_empty())
        .collect()
}

#[derive(serde::Serialize)]
struct ContextOut {
    id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    question: Option<String>,
    passages: Vec<PassageOut>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    faithful: Vec<ClaimOut>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    hard_cases: Vec<HardOut>,
}

#[derive(serde::Serialize)]
struct PassageOut {
    id: String,
    text: String,
}

#[derive(serde::Serialize)]
struct ClaimOut {
    id: String,
    claim: String,
}

#[derive(serde::Serialize)]
struct HardOut {
    id: String,
    #[serde(rename = "type")]
    case_type: String,
    claim: String,
    label: &'static str,
}

/// Writes the log (and its contexts file), and the hard-case suite when asked.
pub fn ragtruth(
    dir: &Path,
    log: &Path,
    contexts: &Path,
    hard_cases: Option<&Path>,
) -> Result<Imported> {
    use crate::answers::decompose::{Decomposer, Sentences};
    let sources = read_sources(&dir.join("source_info.jsonl"))?;
    let responses = read_responses(&dir.join("response.jsonl"))?;
    let resp_path = dir.join("response.jsonl");
    if responses.is_empty() {
        return Err(Error::input(
            &resp_path,
            None,
            "there is no response to import",
            RESPONSE_HELP,
        ));
    }
    let mut imported = Imported::default();
    let mut used_sources = BTreeMap::new();
    let mut log_text = String::new();
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
        used_sources.insert(src.id.clone(), src);
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
        for (k, v) in &r.extra {
            let key = if RESERVED.contains(&k.as_str()) || line.contains_key(k) {
                format!("ragtruth_{k}")
            } else {
                k.clone()
            };
            line.entry(key).or_insert_with(|| v.clone());
        }
        log_text.push_str(&Value::Object(line).to_string());
        log_text.push('\n');
        imported.answers += 1;
        if !r.spans.is_empty() {
            imported.hallucinated += 1;
        }
    }
    let mut ctx_text = String::new();
    for src in used_sources.values() {
        ctx_text.push_str(&json!({"id": src.id, "text": src.text}).to_string());
        ctx_text.push('\n');
    }
    imported.sources = used_sources.len();

    let suite = hard_cases.map(|_| {
        let decomposer = Sentences;
        let mut contexts = Vec::new();
        for src in used_sources.values() {
            if crate::text::is_blank(&src.text) {
                imported.empty_sources += 1;
                continue;
            }
            // every annotation of each sentence across the source's answers first: a sentence
            // clean in one answer and under a span in another is a hard case, never verified
            struct Seen {
                id: String,
                clean: bool,
                spans: Vec<Span>,
            }
            let mut order: Vec<String> = Vec::new();
            let mut by_claim: BTreeMap<String, Seen> = BTreeMap::new();
            for r in responses.iter().filter(|r| r.source_id == src.id) {
                for (n, (start, end, sentence)) in sentences(&r.text).into_iter().enumerate() {
                    let covering: Vec<Span> = r
                        .spans
                        .iter()
                        .filter(|s| s.start < end && start < s.end)
                        .cloned()
                        .collect();
                    // framing and meta sentences are not claims, whatever their label
                    let claims = decomposer
                        .decompose("", &sentence)
                        .unwrap_or_default();
                    let Some(claim) = claims.into_iter().next() else {
                        continue;
                    };
                    // a sentence of an answer with spans elsewhere is neither clean nor labelled
                    let clean = r.spans.is_empty();
                    if covering.is_empty() && !clean {
                        continue;
                    }
                    let e = by_claim.entry(claim.clone()).or_insert_with(|| {
                        order.push(claim.clone());
                        Seen {
                            id: format!("{}-s{}", r.id, n + 1),
                            clean: false,
                            spans: Vec::new(),
                        }
                    });
                    e.clean |= covering.is_empty();
                    e.spans.extend(covering);
                }
            }
            let mut faithful: Vec<ClaimOut> = Vec::new();
            let mut hard: Vec<HardOut> = Vec::new();
            for claim in order {
                let seen = &by_claim[&claim];
                let span = seen
                    .spans
                    .iter()
                    .find(|s| s.conflict())
                    .or(seen.spans.first());
                match span {
                    Some(span) => {
                        if seen.clean {
                            imported.conflicting += 1;
                        }
                        hard.push(HardOut {
                            id: seen.id.clone(),
                            case_type: type_name(&span.label_type),
                            claim,
                            label: if span.conflict() {
                                "contradicted"
                            } else {
                                "not_found"
                            },
                        });
                    }
                    None => faithful.push(ClaimOut {
                        id: seen.id.clone(),
                        claim,
                    }),
                }
            }
            if faithful.is_empty() && hard.is_empty() {
                continue;
            }
            imported.faithful_claims += faithful.len();
            imported.hard_cases += hard.len();
            contexts.push(ContextOut {
                id: src.id.clone(),
                question: src.question.clone(),
                passages: vec![PassageOut {
                    id: src.id.clone(),
                    text: src.text.clone(),
                }],
                faithful,
                hard_cases: hard,
            });
        }
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "ragtruth".into());
        let name = type_name(&name);
        let name = if name.starts_with("ragtruth") {
            name
        } else {
            format!("ragtruth-{name}")
        };
        // keys in the order people write suites
        let mut m = serde_yaml::Mapping::new();
        m.insert("suite".into(), name.into());
        m.insert("description".into(), format!("Imported from RAGTruth files in {}: sentences of answers with no labelled span are claims the annotators found supported; sentences under a conflict span are contradicted hard cases, under a baseless span not_found.", dir.display()).into());
        m.insert(
            "contexts".into(),
            serde_yaml::to_value(&contexts).expect("JSON values convert"),
        );
        serde_yaml::Value::Mapping(m)
    });

    let yaml = match &suite {
        Some(s) => Some(serde_yaml::to_string(s).map_err(|e| Error::Usage(e.to_string()))?),
        None => None,
    };
    // what is written must load: read it back as `score` and `run` would, before writing
    validate_output(log, &log_text, &ctx_text, hard_cases.zip(yaml.as_deref()))?;
    crate::write::write_atomic(contexts, ctx_text.as_bytes())?;
    crate::write::write_atomic(log, log_text.as_bytes())?;
    if let (Some(path), Some(yaml)) = (hard_cases, yaml) {
        crate::write::write_atomic(path, yaml.as_bytes())?;
    }
    Ok(imported)
}

/// Loads the log (with its contexts) and the suite the importer made, as `score` and `run` would
/// read them; anything they would reject is an error here, before a file is written.
fn validate_output(
    log: &Path,
    log_text: &str,
    ctx_text: &str,
    suite: Option<(&Path, &str)>,
) -> Result<()> {
    let failed = |what: &Path, e: Error| {
        Error::Usage(format!(
            "the import would write {} that faithprobe cannot read ({e}); nothing was written: please report this with the input",
            what.display()
        ))
    };
    let tmp = tempfile_dir().map_err(|e| Error::write(log, e))?;
    let (l, c) = (tmp.join("log.jsonl"), tmp.join("contexts.jsonl"));
    let result = (|| -> Result<()> {
        std::fs::write(&l, log_text).map_err(|e| Error::write(&l, e))?;
        std::fs::write(&c, ctx_text).map_err(|e| Error::write(&c, e))?;
        let reader = crate::answers::log::LogReader::open(&l, Some(&c), None, None)
            .map_err(|e| failed(log, e))?;
        for a in reader {
            a.map_err(|e| failed(log, e))?;
        }
        if let Some((path, yaml)) = suite {
            let s = crate::suite::Suite::from_yaml(path, yaml).map_err(|e| failed(path, e))?;
            crate::mutate::generate(&s, &crate::mutate::Rules::builtin())
                .map_err(|e| failed(path, e))?;
        }
        Ok(())
    })();
    let _ = std::fs::remove_dir_all(&tmp);
    result
}

/// A fresh folder under the system's temp folder.
fn tempfile_dir() -> std::io::Result<std::path::PathBuf> {
    let base = std::env::temp_dir();
    for i in 0..1000u32 {
        let p = base.join(format!("faithprobe-import-{}-{i}", std::process::id()));
        match std::fs::create_dir(&p) {
            Ok(()) => return Ok(p),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::other("no free temp folder name"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn character_offsets_become_byte_offsets() {
        let s = "Café — opened 1998.";
        assert_eq!(&s[byte_at(s, 7)..byte_at(s, 13)], "opened");
        assert_eq!(byte_at(s, 100), s.len());
        assert_eq!(type_name("Evident Baseless Info"), "evident_baseless_info");
    }
}
