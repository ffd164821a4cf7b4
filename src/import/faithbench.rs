//! FaithBench (github.com/vectara/FaithBench): summaries by modern LLMs whose unfaithful spans
//! several annotators marked.
//!
//! The format, as read in that repository: `README.md` ("Data format"),
//! `scripts/faithbench_schema.py` (`FaithBenchBatch`, `FaithBenchSample`,
//! `FaithBenchAnnotation`, `FaithBenchLabel`), `data_for_release/batch_1.json`, and the raw
//! `annot/batch_1_annotation.json` with `scripts/pre_naacl_conversion.py`, which turned the raw
//! files into the released ones. A batch is one JSON document, either
//! `{"samples": [sample, ...]}` (`data_for_release/batch_N.json`) or a bare list of samples
//! (`annot/batch_N_annotation.json`). A sample has `sample_id` (unique in its batch), `source`,
//! `summary`, `annotations` (possibly empty) and `metadata` (`summarizer`, detector predictions;
//! the raw files have `meta_model` and other `meta_*` keys instead). An annotation has
//! `annotator_id` (raw: `annotator`), `label` (a list of `Unwanted`, `Unwanted.Intrinsic`,
//! `Unwanted.Extrinsic`, `Questionable`, `Benign`; the raw files spell `Unwanted.Instrinsic`),
//! `summary_span` and `summary_start`/`summary_end`, offsets in characters of the summary as
//! Python counts them.
//!
//! Pooling, as the authors define it in `scripts/binarize.py` (`get_sample_level_label`): the
//! labels of all annotations are mapped to a severity (Benign 1, Questionable 2, Unwanted and its
//! subtypes 3); `worst` takes the most severe label any annotator gave, `best` the least severe
//! of the labels given (an annotator who marked nothing adds no label). A summary with no label
//! is consistent; a pooled Questionable or Unwanted summary is hallucinated, a pooled Benign one
//! is not (the authors' `hallucinated_classes`).
//!
//! What becomes what: the log has one answer per sample (`tag` = the summarizer, `label` from
//! the pooled sample label). The suite has one context per distinct source text; each sentence
//! of a summary is pooled over the annotations whose span overlaps it: a pooled Unwanted
//! sentence is a real error, `contradicted` when an intrinsic label is among the pooled ones
//! (type `faithbench_unwanted_intrinsic`), else `not_found` (`faithbench_unwanted_extrinsic`,
//! or `faithbench_unwanted` with no subtype); a pooled Benign or Questionable sentence is left
//! out. A sentence under no span is verified when its summary is not hallucinated, and left out
//! otherwise (as RAGTruth's importer does). Framing sentences are left out.

use super::read::{self, id_of, kind, take_text};
use super::{as_claim, byte_at, doc_id, sentence_spans, Built, Imported, Outputs, SuiteBuilder};
use crate::error::{Error, Result};
use crate::model::case::HardCaseLabel;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{json, Map, Value};
use std::cell::Cell;
use std::collections::HashSet;
use std::io::{BufRead, Read};
use std::path::Path;
use std::rc::Rc;

const HELP: &str = "a FaithBench batch: {\"samples\": [...]} (data_for_release/batch_N.json) or a list of samples (annot/batch_N_annotation.json), each with `sample_id`, `source`, `summary` and `annotations` ([{label: [...], summary_start, summary_end}])";

/// How the labels of several annotators become one, as FaithBench's `binarize.py` defines it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Pool {
    /// The most severe label any annotator gave.
    #[default]
    Worst,
    /// The least severe label given.
    Best,
}

impl Pool {
    pub fn as_str(self) -> &'static str {
        match self {
            Pool::Worst => "worst",
            Pool::Best => "best",
        }
    }
}

/// A FaithBench label.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Label {
    Benign,
    Questionable,
    Unwanted,
    Intrinsic,
    Extrinsic,
}

impl Label {
    fn parse(s: &str) -> Option<Label> {
        let s: String = s
            .chars()
            .filter(|c| c.is_alphanumeric())
            .collect::<String>()
            .to_lowercase();
        Some(match s.as_str() {
            "benign" => Label::Benign,
            "questionable" => Label::Questionable,
            "unwanted" => Label::Unwanted,
            // the raw annotation files spell it `Unwanted.Instrinsic`
            "unwantedintrinsic" | "unwantedinstrinsic" => Label::Intrinsic,
            "unwantedextrinsic" => Label::Extrinsic,
            _ => return None,
        })
    }

    fn severity(self) -> u8 {
        match self {
            Label::Benign => 1,
            Label::Questionable => 2,
            _ => 3,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Label::Benign => "Benign",
            Label::Questionable => "Questionable",
            Label::Unwanted => "Unwanted",
            Label::Intrinsic => "Unwanted.Intrinsic",
            Label::Extrinsic => "Unwanted.Extrinsic",
        }
    }
}

/// The labels at the pooled severity (each once, in order), or none when none was given.
fn pooled(labels: impl IntoIterator<Item = Label>, pool: Pool) -> Vec<Label> {
    let mut all: Vec<Label> = labels.into_iter().collect();
    let sev = match pool {
        Pool::Worst => all.iter().map(|l| l.severity()).max(),
        Pool::Best => all.iter().map(|l| l.severity()).min(),
    };
    all.retain(|l| Some(l.severity()) == sev);
    all.sort();
    all.dedup();
    all
}

/// A pooled label set is a hallucination when it is Questionable or Unwanted.
fn hallucinated(pooled: &[Label]) -> bool {
    pooled.first().is_some_and(|l| l.severity() >= 2)
}

/// The real error a pooled sentence is, if it is one: Unwanted, intrinsic = contradicted.
fn error_of(pooled: &[Label]) -> Option<(&'static str, HardCaseLabel)> {
    if pooled.first().is_none_or(|l| l.severity() != 3) {
        return None;
    }
    Some(if pooled.contains(&Label::Intrinsic) {
        ("faithbench_unwanted_intrinsic", HardCaseLabel::Contradicted)
    } else if pooled.contains(&Label::Extrinsic) {
        ("faithbench_unwanted_extrinsic", HardCaseLabel::NotFound)
    } else {
        ("faithbench_unwanted", HardCaseLabel::NotFound)
    })
}

/// One annotation: a span of the summary in bytes, and its labels.
#[derive(Debug, Clone)]
struct Annotation {
    start: usize,
    end: usize,
    labels: Vec<Label>,
    annotator: Option<String>,
}

#[derive(Debug, Clone)]
struct Sample {
    id: String,
    source: String,
    summary: String,
    annotations: Vec<Annotation>,
    summarizer: Option<String>,
    extra: Map<String, Value>,
}

/// The span of an annotation in characters: its offsets, else where its `summary_span` is.
fn char_span(a: &Map<String, Value>, summary: &str) -> std::result::Result<(usize, usize), String> {
    let get = |k: &str| a.get(k).and_then(Value::as_u64).map(|n| n as usize);
    let n_chars = summary.chars().count();
    let (s, e) = match (get("summary_start"), get("summary_end")) {
        (Some(s), Some(e)) => (s, e),
        _ => {
            let text = a.get("summary_span").and_then(Value::as_str).unwrap_or("");
            match summary.find(text).filter(|_| !text.is_empty()) {
                Some(b) => {
                    let s = summary[..b].chars().count();
                    (s, s + text.chars().count())
                }
                None => return Err("needs integer `summary_start` and `summary_end`".into()),
            }
        }
    };
    if s >= e || e > n_chars {
        return Err(format!(
            "span {s}..{e} is not inside the summary ({n_chars} characters)"
        ));
    }
    Ok((s, e))
}

fn annotation(v: Value, summary: &str) -> std::result::Result<Annotation, String> {
    let Value::Object(a) = v else {
        return Err(format!("is {}, not an object", kind(&v)));
    };
    let names: Vec<&str> = match a.get("label") {
        Some(Value::String(s)) => vec![s.as_str()],
        Some(Value::Array(l)) => l.iter().map(|x| x.as_str().unwrap_or("")).collect(),
        None | Some(Value::Null) => Vec::new(),
        Some(v) => return Err(format!("`label` must be a list, not {}", kind(v))),
    };
    let mut labels = Vec::new();
    for n in names {
        labels.push(Label::parse(n).ok_or_else(|| format!("unknown label `{n}` (FaithBench's are Unwanted, Unwanted.Intrinsic, Unwanted.Extrinsic, Questionable and Benign)"))?);
    }
    let (s, e) = char_span(&a, summary)?;
    Ok(Annotation {
        start: byte_at(summary, s),
        end: byte_at(summary, e),
        labels,
        annotator: id_of(a.get("annotator_id").or(a.get("annotator"))),
    })
}

fn sample(v: Value, prefix: &str) -> std::result::Result<Sample, String> {
    let Value::Object(mut m) = v else {
        return Err(format!("a sample must be an object, not {}", kind(&v)));
    };
    let raw_id = id_of(m.get("sample_id")).ok_or("`sample_id` is missing")?;
    let source = take_text(&mut m, "source")?;
    let summary = take_text(&mut m, "summary")?;
    let list = match m.remove("annotations") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(l)) => l,
        Some(v) => return Err(format!("`annotations` must be a list, not {}", kind(&v))),
    };
    let mut annotations = Vec::new();
    for (j, a) in list.into_iter().enumerate() {
        annotations
            .push(annotation(a, &summary).map_err(|e| format!("annotation {}: {e}", j + 1))?);
    }
    let summarizer = m
        .get("metadata")
        .and_then(|md| md.get("summarizer"))
        .or(m.get("meta_model"))
        .and_then(Value::as_str)
        .map(str::to_string);
    Ok(Sample {
        id: format!("{prefix}-{raw_id}"),
        source,
        summary,
        annotations,
        summarizer,
        extra: m,
    })
}

/// A sample's log line, labelled with its pooled label.
fn log_line(s: &Sample, ctx: &str, pool: Pool) -> Map<String, Value> {
    let p = pooled(s.annotations.iter().flat_map(|a| a.labels.clone()), pool);
    let subtype = p
        .iter()
        .any(|l| matches!(l, Label::Intrinsic | Label::Extrinsic));
    let types: Vec<&str> = p
        .iter()
        .filter(|l| hallucinated(&p) && !(subtype && **l == Label::Unwanted))
        .map(|l| l.name())
        .collect();
    let class = p.first().map_or("Consistent", |l| match l.severity() {
        1 => "Benign",
        2 => "Questionable",
        _ => "Unwanted",
    });
    let annotators: HashSet<&str> = s
        .annotations
        .iter()
        .filter_map(|a| a.annotator.as_deref())
        .collect();
    let mut line = Map::new();
    line.insert("id".into(), json!(s.id));
    line.insert("question".into(), Value::Null);
    line.insert("answer".into(), json!(s.summary));
    line.insert("context".into(), json!(ctx));
    line.insert("tag".into(), json!(s.summarizer));
    line.insert(
        "label".into(),
        json!({"hallucinated": hallucinated(&p), "types": types, "pooled": class, "pool": pool.as_str(),
               "annotations": s.annotations.len(), "annotators": annotators.len()}),
    );
    super::carry(&mut line, s.extra.clone(), "faithbench");
    line
}

/// Adds a sample's sentences to the suite, each pooled over the annotations overlapping it.
fn add_sentences(b: &mut SuiteBuilder, s: &Sample, ctx: &str, pool: Pool, counts: &mut Imported) {
    let flagged = hallucinated(&pooled(
        s.annotations.iter().flat_map(|a| a.labels.clone()),
        pool,
    ));
    for (n, (start, end, sentence)) in sentence_spans(&s.summary).into_iter().enumerate() {
        let Some(claim) = as_claim(&sentence) else {
            continue;
        };
        let id = format!("{}-s{}", s.id, n + 1);
        let covering: Vec<Label> = s
            .annotations
            .iter()
            .filter(|a| a.start < end && start < a.end)
            .flat_map(|a| a.labels.clone())
            .collect();
        if covering.is_empty() {
            if flagged {
                counts.left_out += 1;
            } else {
                b.verified(ctx, &id, &claim);
            }
            continue;
        }
        match error_of(&pooled(covering, pool)) {
            Some((case_type, label)) => b.error(ctx, &id, &claim, case_type, label),
            None => counts.left_out += 1,
        }
    }
}

/// Imports a FaithBench batch: the log and its contexts file, and the suite, as `outputs` asks.
pub fn faithbench(path: &Path, outputs: &Outputs, pool: Pool) -> Result<Imported> {
    let prefix = super::type_name(
        &path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default(),
    );
    let prefix = if prefix.is_empty() {
        "faithbench".to_string()
    } else {
        prefix
    };
    let mut built = Built::new(outputs, || {
        (super::suite_name(path, "faithbench"), format!("Imported from FaithBench ({}), annotators pooled with --pool {}: sentences of summaries with no hallucination label are claims the annotators found supported; sentences under a pooled Unwanted span are real errors, contradicted when intrinsic, not_found otherwise; benign and questionable sentences are left out.", path.display(), pool.as_str()))
    });
    let mut seen = HashSet::new();
    let records = stream(path, &mut |_, v| {
        let s = sample(v, &prefix)?;
        if !seen.insert(s.id.clone()) {
            return Err(format!("sample `{}` appears twice", s.id));
        }
        let ctx = doc_id("faithbench", &s.source);
        if let Some(l) = &mut built.log {
            l.context(&ctx, &s.source);
            l.answer(log_line(&s, &ctx, pool));
        }
        if let Some(b) = &mut built.suite {
            b.context(&ctx, None, &s.source);
            add_sentences(b, &s, &ctx, pool, &mut built.counts);
        }
        Ok(())
    })?;
    super::finish(built, outputs, (path, records, HELP))
}

/// A reader that counts the line breaks read through it: serde_json reads a byte at a time, so
/// when a sample starts, the count says its line.
struct Counting<R> {
    inner: R,
    newlines: Rc<Cell<usize>>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        let k = buf[..n].iter().filter(|b| **b == b'\n').count();
        self.newlines.set(self.newlines.get() + k);
        Ok(n)
    }
}

type Each<'a> = &'a mut dyn FnMut(usize, Value) -> std::result::Result<(), String>;

/// The state of one streamed read: the line counter, the callback, its first error.
struct State<'a> {
    newlines: Rc<Cell<usize>>,
    each: Each<'a>,
    failure: Option<(usize, String)>,
    records: usize,
}

/// Streams the samples of a batch to `each` with the line each starts on, one sample in memory
/// at a time. Returns the number of samples.
fn stream(path: &Path, each: Each) -> Result<usize> {
    let mut r = read::open(path)?;
    if r.fill_buf()
        .map_err(|e| Error::io(path, e))?
        .starts_with(b"\xef\xbb\xbf")
    {
        r.consume(3);
    }
    let newlines = Rc::new(Cell::new(0));
    let mut state = State {
        newlines: newlines.clone(),
        each,
        failure: None,
        records: 0,
    };
    let mut de = serde_json::Deserializer::from_reader(Counting { inner: r, newlines });
    let result = Top(&mut state).deserialize(&mut de).and_then(|()| de.end());
    if crate::io::interrupt::requested() {
        return Err(super::read::interrupted(path));
    }
    match (result, state.failure) {
        (_, Some((line, m))) => Err(Error::input(path, Some(line), m, HELP)),
        (Err(e), None) if e.is_io() => Err(Error::io(path, std::io::Error::other(e.to_string()))),
        (Err(e), None) => {
            let mut m = e.to_string();
            if let Some(i) = m.find(" at line ") {
                m.truncate(i);
            }
            Err(Error::input(
                path,
                Some(e.line()),
                format!("not JSON: {m}"),
                HELP,
            ))
        }
        (Ok(()), None) => Ok(state.records),
    }
}

/// The whole document: `{"samples": [...]}` or `[...]`.
struct Top<'a, 'b>(&'a mut State<'b>);

impl<'de> DeserializeSeed<'de> for Top<'_, '_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> std::result::Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Top<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a FaithBench batch: {\"samples\": [...]} or a list of samples")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> std::result::Result<(), A::Error> {
        Samples(self.0).visit_seq(seq)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<(), A::Error> {
        let mut found = false;
        while let Some(k) = map.next_key::<String>()? {
            if k == "samples" && !found {
                map.next_value_seed(Samples(&mut *self.0))?;
                found = true;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        if !found {
            return Err(de::Error::custom("the batch has no `samples` list"));
        }
        Ok(())
    }
}

/// The list of samples, each handed to the callback as soon as it is read.
struct Samples<'a, 'b>(&'a mut State<'b>);

impl<'de> DeserializeSeed<'de> for Samples<'_, '_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> std::result::Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Samples<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a list of samples")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<(), A::Error> {
        while let Some((line, v)) = seq.next_element_seed(Element(self.0.newlines.clone()))? {
            self.0.records += 1;
            if crate::io::interrupt::requested() {
                self.0.failure = Some((line, "interrupted".into()));
                return Err(serde::de::Error::custom("interrupted"));
            }
            if let Err(m) = (self.0.each)(line, v) {
                self.0.failure = Some((line, m));
                return Err(de::Error::custom("stopped"));
            }
        }
        Ok(())
    }
}

/// One sample with the line it starts on (its first byte has just been read).
struct Element(Rc<Cell<usize>>);

impl<'de> DeserializeSeed<'de> for Element {
    type Value = (usize, Value);
    fn deserialize<D: de::Deserializer<'de>>(
        self,
        d: D,
    ) -> std::result::Result<(usize, Value), D::Error> {
        let line = self.0.get() + 1;
        Ok((line, serde::Deserialize::deserialize(d)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worst_takes_the_most_severe_label_and_best_the_least() {
        let labels = [
            Label::Benign,
            Label::Unwanted,
            Label::Intrinsic,
            Label::Questionable,
        ];
        assert_eq!(
            pooled(labels, Pool::Worst),
            [Label::Unwanted, Label::Intrinsic]
        );
        assert_eq!(pooled(labels, Pool::Best), [Label::Benign]);
        assert!(pooled([], Pool::Worst).is_empty());
        assert!(hallucinated(&pooled([Label::Questionable], Pool::Best)));
        assert!(!hallucinated(&pooled([Label::Benign], Pool::Worst)));
        assert_eq!(
            error_of(&pooled(labels, Pool::Worst)),
            Some(("faithbench_unwanted_intrinsic", HardCaseLabel::Contradicted))
        );
        assert_eq!(
            error_of(&[Label::Unwanted, Label::Extrinsic]).map(|e| e.1),
            Some(HardCaseLabel::NotFound)
        );
        assert_eq!(Label::parse("Unwanted.Instrinsic"), Some(Label::Intrinsic));
        assert_eq!(Label::parse("Unwanted_Extrinsic"), Some(Label::Extrinsic));
    }

    #[test]
    fn a_sample_streams_with_its_line_and_a_bad_one_is_named_by_it() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("b.json");
        std::fs::write(
            &p,
            "{\"version\": 1,\n \"samples\": [\n  {\"sample_id\": 0},\n\n  {\"sample_id\": 1}\n]}\n",
        )
        .unwrap();
        let mut lines = Vec::new();
        let n = stream(&p, &mut |line, _| {
            lines.push(line);
            Ok(())
        })
        .unwrap();
        assert_eq!((n, lines), (2, vec![3, 5]));
        let err = stream(&p, &mut |line, _| match line {
            5 => Err("bad".into()),
            _ => Ok(()),
        })
        .unwrap_err()
        .to_string();
        assert!(err.contains("b.json:5: bad"), "{err}");
        std::fs::write(&p, "[\n{\"sample_id\": 0},\n{\"sample_id\": }\n]").unwrap();
        let err = stream(&p, &mut |_, _| Ok(())).unwrap_err().to_string();
        assert!(err.contains("b.json:3: not JSON"), "{err}");
        std::fs::write(&p, "{\"other\": []}").unwrap();
        let err = stream(&p, &mut |_, _| Ok(())).unwrap_err().to_string();
        assert!(err.contains("no `samples` list"), "{err}");
    }

    #[test]
    fn a_span_is_found_by_its_text_when_offsets_are_missing() {
        let a: Map<String, Value> = serde_json::from_str(r#"{"summary_span": "twelve"}"#).unwrap();
        assert_eq!(char_span(&a, "Café had twelve rooms."), Ok((9, 15)));
        let a: Map<String, Value> =
            serde_json::from_str(r#"{"summary_start": 5, "summary_end": 99}"#).unwrap();
        assert!(char_span(&a, "short").is_err());
    }
}
