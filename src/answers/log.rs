//! Reading logs as they come: JSON Lines streamed one answer at a time (memory stays flat as the
//! log grows), or a YAML list. Ids may be strings or integers, `question` may be null, passages
//! may be given inline or once in a contexts file and referenced by id (`"context": "src-17"`),
//! a person's label may ride along (`"label": {"hallucinated": true, "types": [...]}`) or come
//! from a side file, and every other key is kept as metadata and carried into the record.

use super::{LoggedAnswer, LoggedPassage};
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, HashMap};
use std::io::BufRead;
use std::path::{Path, PathBuf};

use crate::model::shard::Shard;

pub const HELP: &str = "each answer needs `id` (a string or an integer), `answer`, and either `passages` ([{id, text}]) or `context` (an id in --contexts); optional: `question`, `tag`, `label` ({hallucinated, types}); other keys are kept as metadata";

/// A person's judgement of a whole answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(expecting = "a label: {hallucinated: true|false, types: [...]}, or just true or false")]
pub struct AnswerLabel {
    /// True when the answer states something its passages do not support.
    pub hallucinated: bool,
    /// The kinds of error the person marked (e.g. `Evident Conflict`, `Baseless Info`).
    #[serde(default)]
    pub types: Vec<String>,
    /// Every other key of the label as it came (annotator counts, spans, dataset fields): kept
    /// and carried into the record. Only the known keys are checked for their type.
    #[serde(flatten, default, skip_serializing_if = "BTreeMap::is_empty")]
    pub extra: BTreeMap<String, Value>,
}

/// A side file of JSON Lines, each an object with a unique `id`: every (id, the other keys)
/// turned into a value by `item`, keyed by id. Errors name the line.
fn load_by_id<T>(
    path: &Path,
    help: &str,
    what: &str,
    item: impl Fn(&str, Map<String, Value>) -> std::result::Result<T, String>,
) -> Result<HashMap<String, T>> {
    let text = crate::error::read_input(path)?;
    let mut out = HashMap::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = |m: String| Error::input(path, Some(i + 1), m, help);
        let v: Value = serde_json::from_str(line).map_err(|e| at(format!("not JSON: {e}")))?;
        let Value::Object(mut m) = v else {
            return Err(at("not a JSON object".into()));
        };
        let id = take_id(&mut m, "id").map_err(at)?;
        let value = item(&id, m).map_err(at)?;
        if out.insert(id.clone(), value).is_some() {
            return Err(at(format!("{what} `{id}` appears twice")));
        }
    }
    Ok(out)
}

/// Passages given once and referenced by id: JSON Lines of `{"id": ..., "text": ...}` (one
/// passage named like its context) or `{"id": ..., "passages": [{id, text}]}`.
pub fn load_contexts(path: &Path) -> Result<HashMap<String, std::sync::Arc<[LoggedPassage]>>> {
    let help = "one JSON object per line: {\"id\": \"src-17\", \"text\": \"...\"} or {\"id\": \"src-17\", \"passages\": [{\"id\": \"p1\", \"text\": \"...\"}]}";
    load_by_id(path, help, "context id", |id, mut m| {
        match (m.remove("passages"), m.remove("text")) {
            (Some(p), None) => passages_of(p).map(Into::into),
            (None, Some(Value::String(t))) => Ok(vec![LoggedPassage {
                id: id.to_string(),
                text: t,
            }]
            .into()),
            _ => Err("needs exactly one of `text` (a string) or `passages`".into()),
        }
    })
}

/// Labels from a side file: JSON Lines of `{"id": ..., "hallucinated": bool, "types": [...]}`.
pub fn load_labels(path: &Path) -> Result<HashMap<String, AnswerLabel>> {
    let help = "one JSON object per line: {\"id\": \"a-1\", \"hallucinated\": true, \"types\": [\"Evident Conflict\"]}";
    load_by_id(path, help, "label for", |_, m| {
        serde_json::from_value(Value::Object(m)).map_err(|e| format!("not a label: {e}"))
    })
}

/// An id as a string: strings as they are, integers written out; anything else is an error.
fn take_id(m: &mut Map<String, Value>, key: &str) -> std::result::Result<String, String> {
    match m.remove(key) {
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(s),
        Some(Value::String(_)) => Err(format!("`{key}` is empty")),
        Some(Value::Number(n)) if n.is_i64() || n.is_u64() => Ok(n.to_string()),
        Some(other) => Err(format!(
            "`{key}` must be a string or an integer, not {}",
            kind(&other)
        )),
        None => Err(format!("`{key}` is missing")),
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

fn passages_of(v: Value) -> std::result::Result<Vec<LoggedPassage>, String> {
    let Value::Array(items) = v else {
        return Err(format!("`passages` must be a list, not {}", kind(&v)));
    };
    let mut out = Vec::with_capacity(items.len());
    for (i, p) in items.into_iter().enumerate() {
        match p {
            // a bare string is a passage named by its position
            Value::String(text) => out.push(LoggedPassage {
                id: format!("p{}", i + 1),
                text,
            }),
            Value::Object(mut m) => {
                let id = take_id(&mut m, "id").map_err(|e| format!("passage {}: {e}", i + 1))?;
                let text = match m.remove("text") {
                    Some(Value::String(t)) => t,
                    other => {
                        return Err(format!(
                            "passage `{id}`: `text` must be a string, not {}",
                            other.as_ref().map(kind).unwrap_or("missing")
                        ))
                    }
                };
                out.push(LoggedPassage { id, text });
            }
            other => {
                return Err(format!(
                    "passage {} must be {{id, text}} or a string, not {}",
                    i + 1,
                    kind(&other)
                ))
            }
        }
    }
    Ok(out)
}

fn opt_string(
    m: &mut Map<String, Value>,
    key: &str,
) -> std::result::Result<Option<String>, String> {
    match m.remove(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(Value::Number(n)) if key == "tag" => Ok(Some(n.to_string())),
        Some(other) => Err(format!(
            "`{key}` must be a string or null, not {}",
            kind(&other)
        )),
    }
}

/// One record of a log turned into an answer, with its passages resolved.
fn parse_answer(
    v: Value,
    contexts: &HashMap<String, std::sync::Arc<[LoggedPassage]>>,
    contexts_path: Option<&Path>,
) -> std::result::Result<LoggedAnswer, String> {
    let Value::Object(mut m) = v else {
        return Err(format!(
            "a logged answer is a JSON object, not {}",
            kind(&v)
        ));
    };
    let id = take_id(&mut m, "id")?;
    let question = opt_string(&mut m, "question")?.unwrap_or_default();
    let answer = match m.remove("answer") {
        Some(Value::String(s)) => s,
        Some(other) => return Err(format!("`answer` must be a string, not {}", kind(&other))),
        None => return Err("`answer` is missing".into()),
    };
    let tag = opt_string(&mut m, "tag")?;
    let label = match m.remove("label") {
        None | Some(Value::Null) => None,
        Some(Value::Bool(b)) => Some(AnswerLabel {
            hallucinated: b,
            types: Vec::new(),
            extra: BTreeMap::new(),
        }),
        Some(v) => Some(
            serde_json::from_value::<AnswerLabel>(v)
                .map_err(|e| format!("`label` is not {{hallucinated, types}}: {e}"))?,
        ),
    };
    let (passages, context) = match (m.remove("passages"), m.remove("context")) {
        (Some(p), None) => (passages_of(p)?.into(), None),
        (None, Some(c)) => {
            let ids: Vec<String> = match c {
                Value::String(s) => vec![s],
                Value::Number(n) => vec![n.to_string()],
                Value::Array(list) => list
                    .into_iter()
                    .map(|x| match x {
                        Value::String(s) => Ok(s),
                        Value::Number(n) => Ok(n.to_string()),
                        other => Err(format!(
                            "`context` ids must be strings, not {}",
                            kind(&other)
                        )),
                    })
                    .collect::<std::result::Result<_, _>>()?,
                other => {
                    return Err(format!(
                        "`context` must be a context id or a list of them, not {}",
                        kind(&other)
                    ))
                }
            };
            let mut passages = Vec::new();
            let mut shared = None;
            for cid in &ids {
                match contexts.get(cid) {
                    // one context: shared with every answer that cites it, never copied
                    Some(p) if ids.len() == 1 => shared = Some(p.clone()),
                    Some(p) => passages.extend(p.iter().cloned()),
                    None => {
                        return Err(match contexts_path {
                            Some(p) => format!("context `{cid}` is not in {}", p.display()),
                            None => format!(
                                "answer refers to context `{cid}` but no --contexts file was given"
                            ),
                        })
                    }
                }
            }
            (
                shared.unwrap_or_else(|| passages.into()),
                Some(ids.join(",")),
            )
        }
        (Some(_), Some(_)) => {
            return Err("give either `passages` or `context`, not both".into());
        }
        (None, None) => {
            return Err("needs `passages` ([{id, text}]) or `context` (an id in --contexts)".into())
        }
    };
    let metadata: BTreeMap<String, Value> = m.into_iter().collect();
    Ok(LoggedAnswer {
        id,
        question,
        answer,
        passages,
        tag,
        context,
        label,
        metadata,
        position: 0,
        line: None,
    })
}

/// Streams a log. Each item is an answer or an error naming its line; the other answers are
/// still read. A second answer with an id already seen is an error.
pub struct LogReader {
    path: PathBuf,
    source: Source,
    contexts: HashMap<String, std::sync::Arc<[LoggedPassage]>>,
    contexts_path: Option<PathBuf>,
    labels: Option<HashMap<String, AnswerLabel>>,
    seen: HashMap<String, usize>,
    shard: Option<Shard>,
    position: usize,
    /// Answers that have no passages: (id, line).
    pub without_passages: Vec<(String, Option<usize>)>,
    /// SHA-256 of every byte of the log read so far.
    hasher: sha2::Sha256,
    /// Bytes of the log read so far: how far through the work a streamed log is.
    bytes_read: u64,
    /// SHA-256 of the contexts file, when there is one.
    contexts_sha: Option<String>,
}

/// A record of the log as read (or why it is not JSON) and its line.
type RawRecord = (std::result::Result<Value, String>, Option<usize>);

enum Source {
    Lines {
        reader: Box<dyn BufRead>,
        line: usize,
    },
    List(std::vec::IntoIter<(Value, Option<usize>)>),
}

impl LogReader {
    /// Opens a log: `.yaml`/`.yml` is read whole (a list); anything else is JSON Lines, streamed.
    pub fn open(
        path: &Path,
        contexts: Option<&Path>,
        labels: Option<&Path>,
        shard: Option<Shard>,
    ) -> Result<LogReader> {
        let yaml = matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("yaml" | "yml")
        );
        use sha2::Digest;
        let mut hasher = sha2::Sha256::new();
        let source = if yaml {
            let text = crate::error::read_input(path)?;
            hasher.update(text.as_bytes());
            crate::io::yaml::check_aliases(path, &text)?;
            let list: Vec<Value> = crate::io::yaml::parse(path, &text, HELP)?;
            let loc = crate::model::suite::Locator::new(&text);
            let mut nth: HashMap<String, usize> = HashMap::new();
            let with_lines: Vec<(Value, Option<usize>)> = list
                .into_iter()
                .map(|v| {
                    let id = match v.get("id") {
                        Some(Value::String(s)) => s.clone(),
                        Some(Value::Number(n)) => n.to_string(),
                        _ => String::new(),
                    };
                    let k = nth.entry(id.clone()).or_default();
                    let line = loc.id(&id, *k);
                    *k += 1;
                    (v, line)
                })
                .collect();
            Source::List(with_lines.into_iter())
        } else {
            // `-` is standard input; a FIFO or /dev/stdin is read as it comes, once
            let reader: Box<dyn std::io::BufRead> = if path.as_os_str() == "-" {
                Box::new(std::io::BufReader::with_capacity(1 << 16, std::io::stdin()))
            } else {
                let f = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
                Box::new(std::io::BufReader::with_capacity(1 << 16, f))
            };
            Source::Lines { reader, line: 0 }
        };
        Ok(LogReader {
            path: path.to_path_buf(),
            source,
            contexts: match contexts {
                Some(p) => load_contexts(p)?,
                None => HashMap::new(),
            },
            contexts_path: contexts.map(Path::to_path_buf),
            labels: labels.map(load_labels).transpose()?,
            seen: HashMap::new(),
            shard,
            position: 0,
            without_passages: Vec::new(),
            hasher,
            bytes_read: 0,
            contexts_sha: match contexts {
                Some(p) => Some(crate::text::hash::sha256_hex(
                    &std::fs::read(p).map_err(|e| Error::io(p, e))?,
                    usize::MAX,
                )),
                None => None,
            },
        })
    }

    /// Bytes of a streamed log read so far (0 for a YAML log, read whole).
    pub fn bytes_read(&self) -> u64 {
        self.bytes_read
    }

    /// What this log is, whatever its path: the SHA-256 of the bytes read so far (the whole log
    /// once it is read), with the contexts file's when there is one. Two spellings of one log give
    /// one value; two logs at one path give two.
    pub fn sha256(&self) -> String {
        use sha2::Digest;
        let log = crate::text::hash::hex(&self.hasher.clone().finalize());
        match &self.contexts_sha {
            None => log,
            Some(c) => crate::text::hash::sha256_hex(format!("{log}+{c}").as_bytes(), usize::MAX),
        }
    }

    /// Labels in the side file that matched no answer of the log read so far, in any shard
    /// (ids, sorted).
    pub fn unmatched_labels(&self) -> Vec<String> {
        let mut v: Vec<String> = self
            .labels
            .iter()
            .flat_map(|l| l.keys())
            .filter(|id| !self.seen.contains_key(*id))
            .cloned()
            .collect();
        v.sort();
        v
    }

    /// The next record and its line, or None at the end; an I/O error ends the log with an error.
    fn next_value(&mut self) -> Option<Result<RawRecord>> {
        match &mut self.source {
            Source::List(it) => it.next().map(|(v, l)| Ok((Ok(v), l))),
            Source::Lines { reader, line } => loop {
                let mut buf = Vec::new();
                match reader.read_until(b'\n', &mut buf) {
                    Ok(0) => return None,
                    Ok(n) => {
                        self.bytes_read += n as u64;
                        sha2::Digest::update(&mut self.hasher, &buf)
                    }
                    Err(e) => return Some(Err(Error::io(&self.path, e))),
                }
                *line += 1;
                let text = match std::str::from_utf8(&buf) {
                    Ok(t) => t,
                    Err(e) => {
                        return Some(Ok((
                            Err(format!(
                                "not UTF-8 (invalid byte at column {}); save the log as UTF-8",
                                e.valid_up_to() + 1
                            )),
                            Some(*line),
                        )))
                    }
                };
                let text = if *line == 1 {
                    text.strip_prefix('\u{feff}').unwrap_or(text)
                } else {
                    text
                };
                if text.trim().is_empty() {
                    continue;
                }
                return Some(Ok((
                    serde_json::from_str::<Value>(text).map_err(|e| format!("not JSON: {e}")),
                    Some(*line),
                )));
            },
        }
    }
}

impl Iterator for LogReader {
    type Item = Result<LoggedAnswer>;

    /// The next answer of this shard, or an error naming its line (`Error::Input`), or an I/O
    /// error (`Error::Io`) after which the log ends.
    fn next(&mut self) -> Option<Result<LoggedAnswer>> {
        loop {
            let (value, line) = match self.next_value()? {
                Ok(x) => x,
                Err(e) => return Some(Err(e)),
            };
            let parsed =
                value.and_then(|v| parse_answer(v, &self.contexts, self.contexts_path.as_deref()));
            let mut a = match parsed {
                Ok(a) => a,
                Err(m) => {
                    return Some(Err(Error::input(
                        &self.path,
                        line,
                        format!("not a logged answer: {m}"),
                        HELP,
                    )))
                }
            };
            if let Some(first) = self.seen.get(&a.id) {
                return Some(Err(Error::input(
                    &self.path,
                    line,
                    format!(
                        "answer id `{}` appears twice (first on line {first}); the second is skipped",
                        a.id
                    ),
                    "give every logged answer its own id",
                )));
            }
            self.seen.insert(a.id.clone(), line.unwrap_or(0));
            let position = self.position;
            self.position += 1;
            if let Some(s) = &self.shard {
                if !s.owns(&a.id) {
                    continue;
                }
            }
            if let Some(labels) = &self.labels {
                if let Some(l) = labels.get(&a.id) {
                    a.label = Some(l.clone());
                }
            }
            if a.passages
                .iter()
                .all(|p| crate::text::words::is_blank(&p.text))
            {
                self.without_passages.push((a.id.clone(), line));
            }
            a.position = position;
            a.line = line;
            return Some(Ok(a));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(log: &str, contexts: Option<&str>) -> (Vec<LoggedAnswer>, Vec<String>) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("log.jsonl");
        std::fs::write(&p, log).unwrap();
        let c = contexts.map(|c| {
            let cp = dir.path().join("ctx.jsonl");
            std::fs::write(&cp, c).unwrap();
            cp
        });
        let r = LogReader::open(&p, c.as_deref(), None, None).unwrap();
        let mut ok = Vec::new();
        let mut bad = Vec::new();
        for x in r {
            match x {
                Ok(a) => ok.push(a),
                Err(e) => bad.push(e.to_string()),
            }
        }
        (ok, bad)
    }

    #[test]
    fn logs_as_they_come_integer_ids_null_questions_extra_keys_and_shared_contexts() {
        let log = concat!(
            "{\"id\": 17, \"question\": null, \"answer\": \"It opened in 1998.\", \"context\": \"src-1\", \"model\": \"gpt-x\", \"latency_ms\": 812}\n",
            "\n",
            "{\"id\": \"b\", \"answer\": \"x\", \"passages\": [\"Plain passage.\"], \"tag\": \"v2\", \"label\": {\"hallucinated\": true, \"types\": [\"Baseless Info\"]}}\n",
            "{\"id\": \"c\", \"answer\": \"x\", \"passages\": []}\n",
            "{\"id\": 17.5, \"answer\": \"x\", \"passages\": []}\n",
            "{\"id\": \"d\", \"answer\": \"x\", \"context\": \"nowhere\"}\n",
            "{\"id\": \"b\", \"answer\": \"y\", \"passages\": []}\n",
        );
        let ctx = "{\"id\": \"src-1\", \"text\": \"The library opened in 1998.\"}\n";
        let (ok, bad) = read(log, Some(ctx));
        assert_eq!(ok.len(), 3);
        assert_eq!(ok[0].id, "17");
        assert_eq!(ok[0].question, "");
        assert_eq!(ok[0].passages[0].text, "The library opened in 1998.");
        assert_eq!(ok[0].context.as_deref(), Some("src-1"));
        assert_eq!(ok[0].metadata["model"], "gpt-x");
        assert_eq!(ok[0].metadata["latency_ms"], 812);
        assert_eq!(ok[0].line, Some(1));
        assert_eq!(ok[1].passages[0].id, "p1");
        assert_eq!(ok[1].label.as_ref().unwrap().types, ["Baseless Info"]);
        assert_eq!(ok[1].line, Some(3));
        assert_eq!(bad.len(), 3, "{bad:?}");
        assert!(
            bad[0].contains(":5") && bad[0].contains("string or an integer"),
            "{}",
            bad[0]
        );
        assert!(
            bad[1].contains(":6") && bad[1].contains("context `nowhere`"),
            "{}",
            bad[1]
        );
        assert!(
            bad[2].contains(":7") && bad[2].contains("appears twice (first on line 3)"),
            "{}",
            bad[2]
        );
    }
}
