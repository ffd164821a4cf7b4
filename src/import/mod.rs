//! Importers of public human-labelled data. Each reads a data set as it ships, one record at a
//! time, and writes what `faithprobe` reads:
//!
//! - a **log** for `score` (one answer per generated text, `context` naming its source document
//!   in a contexts file, `label` = the people's judgement, the rest kept as metadata), whose
//!   agreement figures say how well a checker finds the errors people found;
//! - a **suite** for `run`: one context per source document (passage text as given), the claims
//!   people found supported as verified claims, and the errors they found as hard cases labelled
//!   `not_found` or `contradicted`, all marked `hard_case_source: real`.
//!
//! The formats, what becomes what, and where each format was read are in the importers' own
//! docs: [`ragtruth`] (RAGTruth), [`faithbench`] (FaithBench), [`aggrefact`] (LLM-AggreFact),
//! [`halueval`] (HaluEval), [`sentences`] (QAGS' sentence-labelled summaries).
//!
//! Everything written is first read back as `score` and `run` would read it; nothing is written
//! when any of it would not load, nor when any input record is malformed (the error names the
//! file and the line).

pub mod aggrefact;
mod csv;
pub mod faithbench;
pub mod halueval;
pub mod ragtruth;
mod read;
pub mod sentences;

pub use ragtruth::ragtruth;

use crate::error::{Error, Result};
use crate::io::yaml;
use crate::model::case::HardCaseLabel;
use serde_json::{json, Map, Value};
use std::collections::{HashMap, HashSet};
use std::path::Path;

/// What an importer made.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Imported {
    /// Answers in the log.
    pub answers: usize,
    /// Answers labelled hallucinated.
    pub hallucinated: usize,
    /// Source documents in the contexts file.
    pub sources: usize,
    /// Verified claims in the suite.
    pub faithful_claims: usize,
    /// Hard cases in the suite: every one a real error (`not_found` or `contradicted`).
    pub hard_cases: usize,
    /// Contexts in the suite.
    pub contexts: usize,
    /// Claims labelled differently in two records of one source (supported in one, an error in
    /// another): made hard cases with the error's label, never verified claims.
    pub conflicting: usize,
    /// Sources with no text: their answers are in the log (score warns), but no context of theirs
    /// is in the suite (a claim cannot be verified against nothing).
    pub empty_sources: usize,
    /// Labelled sentences that are neither verified nor an error (a benign or questionable span,
    /// a sentence outside the spans of a flagged answer, one with no votes): left out of the suite.
    pub left_out: usize,
    /// Sentences whose votes tied (`sentences --rule majority`): counted unsupported.
    pub ties: usize,
}

/// Where an importer writes: the log with its contexts file, the suite, or both.
#[derive(Debug, Clone, Copy, Default)]
pub struct Outputs<'a> {
    /// The log and the contexts file it refers to.
    pub log: Option<(&'a Path, &'a Path)>,
    /// The suite.
    pub suite: Option<&'a Path>,
}

/// Keys the log gives a meaning of its own: a record's extra key of that name is carried as
/// `<dataset>_<key>`, never over the log's field.
const RESERVED: &[&str] = &[
    "id", "question", "answer", "context", "passages", "tag", "label",
];

/// Carries a record's other keys into its log line as metadata: a key the log uses (or the line
/// already has) is renamed `<prefix>_<key>`.
pub(crate) fn carry(line: &mut Map<String, Value>, extra: Map<String, Value>, prefix: &str) {
    for (k, v) in extra {
        let key = if RESERVED.contains(&k.as_str()) || line.contains_key(&k) {
            format!("{prefix}_{k}")
        } else {
            k
        };
        line.entry(key).or_insert(v);
    }
}

/// A stable id for a document: `<prefix>-` and the first 16 hex digits of its text's SHA-256,
/// so identical documents share one context and an id never depends on the order of records.
pub(crate) fn doc_id(prefix: &str, text: &str) -> String {
    use sha2::Digest;
    let hash = sha2::Sha256::digest(text.as_bytes());
    let hex: String = hash[..8].iter().map(|b| format!("{b:02x}")).collect();
    format!("{prefix}-{hex}")
}

/// A label (or a file name) as a suite case type or id part: `Evident Conflict` →
/// `evident_conflict`.
pub(crate) fn type_name(label: &str) -> String {
    let mut s: String = label
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

/// The suite's name: the input file's name as a case type, prefixed with the data set's name
/// unless it already starts with it.
pub(crate) fn suite_name(input: &Path, dataset: &str) -> String {
    let stem = input
        .file_stem()
        .or_else(|| input.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name = type_name(&stem);
    if name.starts_with(dataset) {
        name
    } else if name.is_empty() {
        dataset.to_string()
    } else {
        format!("{dataset}-{name}")
    }
}

/// Byte offset of the `chars`-th character of `s` (its length when past the end).
pub(crate) fn byte_at(s: &str, chars: usize) -> usize {
    s.char_indices()
        .nth(chars)
        .map(|(i, _)| i)
        .unwrap_or(s.len())
}

/// The sentences of a text with their byte ranges, as the claims a person would check.
pub(crate) fn sentence_spans(text: &str) -> Vec<(usize, usize, String)> {
    let base = text.as_ptr() as usize;
    crate::text::sentences::split_sentences(text)
        .into_iter()
        .map(|s| {
            let start = s.as_ptr() as usize - base;
            (start, start + s.len(), s.trim().to_string())
        })
        .filter(|(_, _, s)| !s.is_empty())
        .collect()
}

/// A sentence as a claim, or `None` for framing and meta sentences ("Here is a summary:"),
/// which are no claims whatever their label.
pub(crate) fn as_claim(sentence: &str) -> Option<String> {
    use crate::answers::decompose::{Decomposer, Sentences};
    Sentences
        .decompose("", sentence)
        .unwrap_or_default()
        .into_iter()
        .next()
}

/// The log being built: its lines and its contexts file's lines.
#[derive(Debug, Default)]
pub(crate) struct Log {
    lines: String,
    contexts: String,
    context_ids: HashSet<String>,
    answers: usize,
    hallucinated: usize,
}

impl Log {
    /// Adds a source document to the contexts file (once per id).
    pub fn context(&mut self, id: &str, text: &str) {
        if self.context_ids.insert(id.to_string()) {
            self.contexts
                .push_str(&json!({"id": id, "text": text}).to_string());
            self.contexts.push('\n');
        }
    }

    /// Adds an answer; `label.hallucinated` is counted.
    pub fn answer(&mut self, line: Map<String, Value>) {
        self.answers += 1;
        if line
            .get("label")
            .and_then(|l| l.get("hallucinated"))
            .and_then(Value::as_bool)
            == Some(true)
        {
            self.hallucinated += 1;
        }
        self.lines.push_str(&Value::Object(line).to_string());
        self.lines.push('\n');
    }

    fn count(&self, imported: &mut Imported) {
        imported.answers = self.answers;
        imported.hallucinated = self.hallucinated;
        imported.sources = self.context_ids.len();
    }
}

/// One claim of a context: verified, an error, or both (seen supported in one record and an
/// error in another: an error).
#[derive(Debug)]
struct Slot {
    id: String,
    claim: String,
    clean: bool,
    error: Option<(String, HardCaseLabel)>,
}

#[derive(Debug)]
struct SuiteContext {
    id: String,
    question: Option<String>,
    text: String,
    slots: Vec<Slot>,
    by_claim: HashMap<String, usize>,
}

/// The suite being built: contexts in the order first seen, each claim once (by its text, with
/// the id it was first seen under).
#[derive(Debug)]
pub(crate) struct SuiteBuilder {
    name: String,
    description: String,
    contexts: Vec<SuiteContext>,
    by_id: HashMap<String, usize>,
}

impl SuiteBuilder {
    pub fn new(name: String, description: String) -> Self {
        SuiteBuilder {
            name,
            description,
            contexts: Vec::new(),
            by_id: HashMap::new(),
        }
    }

    /// Registers a context (a source document) unless it is there already.
    pub fn context(&mut self, id: &str, question: Option<&str>, text: &str) {
        if self.by_id.contains_key(id) {
            return;
        }
        self.by_id.insert(id.to_string(), self.contexts.len());
        self.contexts.push(SuiteContext {
            id: id.to_string(),
            question: question.map(str::to_string),
            text: text.to_string(),
            slots: Vec::new(),
            by_claim: HashMap::new(),
        });
    }

    fn slot(&mut self, ctx: &str, id: &str, claim: &str) -> Option<&mut Slot> {
        let claim = claim.trim();
        if claim.is_empty() {
            return None;
        }
        let c = &mut self.contexts[*self.by_id.get(ctx)?];
        let n = *c.by_claim.entry(claim.to_string()).or_insert_with(|| {
            c.slots.push(Slot {
                id: id.to_string(),
                claim: claim.to_string(),
                clean: false,
                error: None,
            });
            c.slots.len() - 1
        });
        Some(&mut c.slots[n])
    }

    /// A claim people found supported by context `ctx` (registered before).
    pub fn verified(&mut self, ctx: &str, id: &str, claim: &str) {
        if let Some(s) = self.slot(ctx, id, claim) {
            s.clean = true;
        }
    }

    /// A claim people found unsupported by context `ctx`: a hard case of `case_type`. Of two
    /// error labels for one claim, `contradicted` wins, else the first.
    pub fn error(&mut self, ctx: &str, id: &str, claim: &str, case_type: &str, l: HardCaseLabel) {
        if let Some(s) = self.slot(ctx, id, claim) {
            let upgrade = matches!(&s.error, Some((_, old)) if *old != HardCaseLabel::Contradicted && l == HardCaseLabel::Contradicted);
            if s.error.is_none() || upgrade {
                s.error = Some((case_type.to_string(), l));
            }
        }
    }

    /// The suite as YAML (keys in the order people write them), with its counts.
    pub fn finish(self, imported: &mut Imported) -> yaml::Value {
        let mut contexts = Vec::new();
        for c in self.contexts {
            if crate::text::words::is_blank(&c.text) {
                imported.empty_sources += 1;
                continue;
            }
            if c.slots.is_empty() {
                continue;
            }
            let (mut faithful, mut hard_cases) = (Vec::new(), Vec::new());
            for s in c.slots {
                match s.error {
                    Some((case_type, label)) => {
                        imported.conflicting += usize::from(s.clean);
                        hard_cases.push(HardOut {
                            id: s.id,
                            case_type,
                            claim: s.claim,
                            label: label.as_str(),
                        });
                    }
                    None => faithful.push(ClaimOut {
                        id: s.id,
                        claim: s.claim,
                    }),
                }
            }
            imported.faithful_claims += faithful.len();
            imported.hard_cases += hard_cases.len();
            contexts.push(ContextOut {
                passages: vec![PassageOut {
                    id: c.id.clone(),
                    text: c.text,
                }],
                id: c.id,
                question: c.question,
                faithful,
                hard_cases,
            });
        }
        imported.contexts = contexts.len();
        let mut m = yaml::Mapping::new();
        m.insert("suite".into(), self.name.into());
        m.insert("description".into(), self.description.into());
        m.insert("hard_case_source".into(), "real".into());
        m.insert(
            "contexts".into(),
            yaml::to_value(&contexts).expect("plain values convert"),
        );
        yaml::Value::Mapping(m)
    }
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

/// What an importer built, ready to be checked and written.
pub(crate) struct Built {
    pub log: Option<Log>,
    pub suite: Option<SuiteBuilder>,
    /// What the importer counted itself (`left_out`, `ties`).
    pub counts: Imported,
}

impl Built {
    /// A log and a suite builder for what `outputs` asks for.
    pub fn new(outputs: &Outputs, name: impl FnOnce() -> (String, String)) -> Self {
        Built {
            log: outputs.log.map(|_| Log::default()),
            suite: outputs.suite.map(|_| {
                let (n, d) = name();
                SuiteBuilder::new(n, d)
            }),
            counts: Imported::default(),
        }
    }
}

/// Checks and writes what was built from `records` records of `input` (named in the errors):
/// there must have been something to import, and everything is read back as `score` and `run`
/// would before a file is written.
pub(crate) fn finish(
    mut built: Built,
    outputs: &Outputs,
    (input, records, help): (&Path, usize, &str),
) -> Result<Imported> {
    if records == 0 {
        return Err(Error::input(
            input,
            None,
            "there is no record to import",
            help,
        ));
    }
    let mut imported = std::mem::take(&mut built.counts);
    if let Some(log) = &built.log {
        log.count(&mut imported);
    }
    let yaml = match built.suite.map(|s| s.finish(&mut imported)) {
        Some(_) if imported.contexts == 0 => {
            return Err(Error::input(
                input,
                None,
                format!("no record has a claim for the suite ({} labelled sentence(s) left out, {} source(s) with no text)", imported.left_out, imported.empty_sources),
                help,
            ))
        }
        Some(s) => Some(crate::io::yaml::to_string(&s).map_err(|e| crate::error::Refusal::Internal.with(e.to_string()))?),
        None => None,
    };
    let log = built.log.as_ref().zip(outputs.log);
    let log_texts = log.map(|(l, (lp, _))| (lp, l.lines.as_str(), l.contexts.as_str()));
    validate_output(log_texts, outputs.suite.zip(yaml.as_deref()))?;
    if crate::io::interrupt::requested() {
        return Err(Error::Interrupted(
            "stopped before writing; nothing was written".into(),
        ));
    }
    if let Some((l, (lp, cp))) = log {
        crate::io::write::write_atomic(cp, l.contexts.as_bytes())?;
        crate::io::write::write_atomic(lp, l.lines.as_bytes())?;
    }
    if let (Some(path), Some(yaml)) = (outputs.suite, yaml) {
        crate::io::write::write_atomic(path, yaml.as_bytes())?;
    }
    Ok(imported)
}

/// Loads the log (with its contexts) and the suite an importer made, as `score` and `run` would
/// read them; anything they would reject is an error here, before a file is written.
fn validate_output(log: Option<(&Path, &str, &str)>, suite: Option<(&Path, &str)>) -> Result<()> {
    let failed = |what: &Path, e: Error| {
        crate::error::Refusal::Internal.with(format!(
            "the import would write {} that faithprobe cannot read ({e}); nothing was written: please report this with the input",
            what.display()
        ))
    };
    if let Some((path, lines, contexts)) = log {
        let tmp = tempfile_dir().map_err(|e| Error::write(path, e))?;
        let (l, c) = (tmp.join("log.jsonl"), tmp.join("contexts.jsonl"));
        let result = (|| -> Result<()> {
            std::fs::write(&l, lines).map_err(|e| Error::write(&l, e))?;
            std::fs::write(&c, contexts).map_err(|e| Error::write(&c, e))?;
            let reader = crate::answers::log::LogReader::open(&l, Some(&c), None, None)
                .map_err(|e| failed(path, e))?;
            for a in reader {
                a.map_err(|e| failed(path, e))?;
            }
            Ok(())
        })();
        let _ = std::fs::remove_dir_all(&tmp);
        result?;
    }
    if let Some((path, yaml)) = suite {
        let s = crate::model::suite::Suite::from_yaml(path, yaml).map_err(|e| failed(path, e))?;
        crate::mutate::generate(&s, &crate::mutate::Rules::builtin())
            .map_err(|e| failed(path, e))?;
    }
    Ok(())
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
    fn character_offsets_become_byte_offsets_and_labels_become_type_names() {
        let s = "Café — opened 1998.";
        assert_eq!(&s[byte_at(s, 7)..byte_at(s, 13)], "opened");
        assert_eq!(byte_at(s, 100), s.len());
        assert_eq!(type_name("Evident Baseless Info"), "evident_baseless_info");
        assert_eq!(type_name("Unwanted.Intrinsic"), "unwanted_intrinsic");
    }

    #[test]
    fn identical_documents_share_an_id_and_different_ones_do_not() {
        let a = doc_id("doc", "The council met on Monday.");
        assert_eq!(a, doc_id("doc", "The council met on Monday."));
        assert_ne!(a, doc_id("doc", "The council met on Tuesday."));
        assert_eq!(a.len(), "doc-".len() + 16);
    }

    #[test]
    fn a_claim_seen_supported_and_in_error_is_an_error_and_contradicted_wins() {
        let mut b = SuiteBuilder::new("s".into(), "d".into());
        b.context("c1", None, "The bridge opened in 1932.");
        b.verified("c1", "a-1", "The bridge opened in 1932.");
        b.verified("c1", "b-1", "The bridge opened in 1932.");
        b.error(
            "c1",
            "x-1",
            "It cost 3 million.",
            "t_a",
            HardCaseLabel::NotFound,
        );
        b.error(
            "c1",
            "y-1",
            "It cost 3 million.",
            "t_b",
            HardCaseLabel::Contradicted,
        );
        b.error(
            "c1",
            "z-1",
            "It cost 3 million.",
            "t_c",
            HardCaseLabel::NotFound,
        );
        b.verified("c1", "w-1", "It cost 3 million.");
        b.error("nowhere", "q-1", "Ignored.", "t", HardCaseLabel::NotFound);
        let mut got = Imported::default();
        let yaml = b.finish(&mut got);
        assert_eq!(
            (got.faithful_claims, got.hard_cases, got.conflicting),
            (1, 1, 1)
        );
        let hard = &yaml["contexts"][0]["hard_cases"][0];
        assert_eq!(hard["id"].as_str(), Some("x-1"));
        assert_eq!(hard["type"].as_str(), Some("t_b"));
        assert_eq!(hard["label"].as_str(), Some("contradicted"));
        assert_eq!(yaml["hard_case_source"].as_str(), Some("real"));
    }

    #[test]
    fn a_suite_is_named_for_its_data_set_and_file() {
        assert_eq!(
            suite_name(Path::new("d/batch_3.json"), "faithbench"),
            "faithbench-batch_3"
        );
        assert_eq!(
            suite_name(Path::new("faithbench.json"), "faithbench"),
            "faithbench"
        );
    }
}
