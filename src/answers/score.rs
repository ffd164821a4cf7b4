//! Scoring logged answers: decompose, verify each claim against the answer's own context set,
//! score per answer and across answers, and compare two scorings answer by answer.

use super::decompose::{is_refusal, Decomposer};
use super::numbers::{check_stated, stated, NumberNote};
pub use super::tally::{aggregate, Aggregate};
use super::{AnswerLabel, LoggedAnswer};
use crate::check::{CheckError, CheckInput, Checker, ClaimToCheck, ContextSet, Evidence};
use crate::error::{Error, Result};
use crate::model::case::Label;
use crate::model::shard::Shard;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// A scoring rule in common use; spelt `strict` and `non-contradiction` everywhere (flags,
/// reports, JSON).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    strum::IntoStaticStr,
    strum::VariantArray,
)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum Definition {
    /// Only `supported` counts as faithful.
    Strict,
    /// Anything but `contradicted` counts as faithful (not_found passes), as one popular tool
    /// does by default.
    NonContradiction,
}

impl Definition {
    pub fn faithful(self, verdict: Label) -> bool {
        match self {
            Definition::Strict => verdict == Label::Supported,
            Definition::NonContradiction => verdict != Label::Contradicted,
        }
    }
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// When an answer counts as unsupported: `any` claim not faithful (the default), or more than a
/// share R of its claims (`share:R`). "Any" turns per-claim false alarms into answer false alarms
/// that grow with the answer's length; a share does not.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum AnswerRule {
    Any,
    Share(f64),
}

impl AnswerRule {
    /// `any` or `share:R` with R in [0, 1).
    pub fn parse(s: &str) -> std::result::Result<AnswerRule, String> {
        let s = s.trim();
        if s == "any" {
            return Ok(AnswerRule::Any);
        }
        let bad = || {
            format!("`{s}`: write `any` or `share:R` with R from 0 up to (not including) 1, e.g. `share:0.5`")
        };
        let r: f64 = s
            .strip_prefix("share:")
            .ok_or_else(bad)?
            .trim()
            .parse()
            .map_err(|_| bad())?;
        if !(0.0..1.0).contains(&r) {
            return Err(bad());
        }
        Ok(if r == 0.0 {
            AnswerRule::Any
        } else {
            AnswerRule::Share(r)
        })
    }

    /// Whether an answer with `faithful` of `claims` faithful claims is unsupported.
    pub fn flags(self, faithful: usize, claims: usize) -> bool {
        let bad = claims.saturating_sub(faithful);
        match self {
            AnswerRule::Any => bad > 0,
            AnswerRule::Share(r) => claims > 0 && bad as f64 / claims as f64 > r,
        }
    }

    pub fn name(self) -> String {
        match self {
            AnswerRule::Any => "any".into(),
            AnswerRule::Share(r) => format!("share:{r}"),
        }
    }
}

impl Serialize for AnswerRule {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(&self.name())
    }
}

/// The rules every score reports side by side, swept like thresholds.
pub const RULE_GRID: [AnswerRule; 4] = [
    AnswerRule::Any,
    AnswerRule::Share(0.25),
    AnswerRule::Share(0.5),
    AnswerRule::Share(0.75),
];

/// One claim of an answer with its verdict and evidence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ClaimResult {
    pub text: String,
    pub verdict: Option<Label>,
    pub score: Option<f64>,
    pub evidence_passage: Option<String>,
    pub evidence: Option<String>,
    pub reason: String,
    pub error: Option<String>,
    #[serde(default)]
    pub numbers: Vec<NumberNoteRecord>,
}

/// A number note as recorded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct NumberNoteRecord {
    pub number: String,
    pub status: String,
    pub arithmetic: Option<String>,
}

impl From<NumberNote> for NumberNoteRecord {
    fn from(n: NumberNote) -> Self {
        NumberNoteRecord {
            number: n.number,
            status: n.status,
            arithmetic: n.arithmetic,
        }
    }
}

/// A sentence of an answer that is not a claim, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DroppedSentence {
    pub text: String,
    pub reason: String,
}

/// One scored answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AnswerResult {
    pub id: String,
    pub tag: Option<String>,
    pub question: String,
    pub answer: String,
    /// Declines to answer and makes no claim: counted apart.
    pub refusal: bool,
    /// Declines in part but makes claims: scored on them, and marked.
    #[serde(default)]
    pub partial_refusal: bool,
    /// Sentences the decomposer left out (framing, manners, refusals), with the reason.
    #[serde(default)]
    pub dropped: Vec<DroppedSentence>,
    /// Why the answer could not be decomposed, if it could not.
    pub error: Option<String>,
    pub claims: Vec<ClaimResult>,
    /// Conditions the passages attach that the answer may leave out (`--omissions`): a review
    /// queue, never a gate. None when not asked for.
    #[serde(default)]
    pub omissions: Option<Result<Vec<String>, String>>,
    /// Index of the answer in the whole log (before sharding): the order of a merged record.
    #[serde(default)]
    pub position: usize,
    /// The line of the log the answer starts on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// The contexts-file id(s) its passages came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// A person's judgement of the answer, when the log or `--labels` has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<AnswerLabel>,
    /// The log record's other keys, as they were.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub metadata: BTreeMap<String, serde_json::Value>,
}

/// How an answer counts under a definition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Refusal,
    /// No claims: not a perfect score, kept out of the averages.
    NoClaims,
    /// The decomposer or the checker failed on it: never a pass.
    Error,
    Scored {
        faithful: usize,
        claims: usize,
    },
}

impl AnswerResult {
    pub fn status(&self, def: Definition) -> Status {
        if self.refusal {
            return Status::Refusal;
        }
        if self.error.is_some() || self.claims.iter().any(|c| c.verdict.is_none()) {
            return Status::Error;
        }
        if self.claims.is_empty() {
            return Status::NoClaims;
        }
        Status::Scored {
            faithful: self
                .claims
                .iter()
                .filter(|c| c.verdict.is_some_and(|v| def.faithful(v)))
                .count(),
            claims: self.claims.len(),
        }
    }

    /// The lowest score of its claims, when every claim has a finite score.
    pub fn min_score(&self) -> Option<f64> {
        if self.claims.is_empty() {
            return None;
        }
        self.claims
            .iter()
            .map(|c| c.score.filter(|s| s.is_finite()))
            .try_fold(f64::INFINITY, |m, s| s.map(|s| m.min(s)))
    }

    /// True when some claim is not faithful under the definition; None when not scored.
    pub fn unsupported(&self, def: Definition) -> Option<bool> {
        self.unsupported_by(def, AnswerRule::Any)
    }

    /// Whether the answer is unsupported under `rule`; None when it was not scored.
    pub fn unsupported_by(&self, def: Definition, rule: AnswerRule) -> Option<bool> {
        match self.status(def) {
            Status::Scored { faithful, claims } => Some(rule.flags(faithful, claims)),
            _ => None,
        }
    }
}

/// A scoring of a log, as recorded.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ScoreRecord {
    pub version: u32,
    pub log: String,
    /// SHA-256 of the log's bytes (with its contexts file's): what the log is, whatever its path.
    #[serde(default)]
    pub log_sha256: String,
    pub checker: String,
    /// The checker's full settings (threshold, model hash, prompt version, ...): two checkers of
    /// one name with other settings are two checkers.
    #[serde(default)]
    pub checker_settings: BTreeMap<String, String>,
    pub decomposer: String,
    /// Lines of the log that could not be read (malformed): the record lacks their answers.
    #[serde(default)]
    pub lines_not_read: usize,
    /// Set on the record of one shard (`score --shard K/N`); `faithprobe merge` joins them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    pub answers: Vec<AnswerResult>,
}

/// The score record format version (2: typed verdicts and a `type` field).
pub const SCORE_RECORD_VERSION: u32 = 2;

impl ScoreRecord {
    /// The record without its answers.
    pub fn clone_head(&self) -> ScoreRecord {
        ScoreRecord {
            version: self.version,
            log: self.log.clone(),
            log_sha256: self.log_sha256.clone(),
            checker: self.checker.clone(),
            checker_settings: self.checker_settings.clone(),
            decomposer: self.decomposer.clone(),
            lines_not_read: self.lines_not_read,
            shard: self.shard,
            answers: Vec::new(),
        }
    }

    /// Checks what serde cannot: the version, unique answer ids, and each claim having either a
    /// verdict or an error.
    pub fn validate(&self, path: &Path) -> Result<()> {
        let help = "write score records with `faithprobe score LOG --record FILE.json` and compare them unedited";
        if self.version != SCORE_RECORD_VERSION {
            return Err(Error::input(
                path,
                None,
                format!(
                    "score record version {} is not {SCORE_RECORD_VERSION}",
                    self.version
                ),
                "score the log again with this faithprobe version",
            ));
        }
        let mut ids = std::collections::HashSet::new();
        for a in &self.answers {
            if !ids.insert(a.id.as_str()) {
                return Err(Error::input(
                    path,
                    None,
                    format!("answer `{}` appears twice", a.id),
                    help,
                ));
            }
            if let Some(c) = a
                .claims
                .iter()
                .find(|c| c.verdict.is_some() == c.error.is_some())
            {
                return Err(Error::input(
                    path,
                    None,
                    format!(
                        "answer `{}`: claim \"{}\" must have either a verdict or an error",
                        a.id, c.text
                    ),
                    help,
                ));
            }
        }
        Ok(())
    }
}

/// How a checker is named in a score record.
pub fn checker_name(checker: &dyn Checker) -> String {
    format!("{} ({})", checker.name(), checker.kind())
}

/// Decomposes and verifies a chunk of answers: every claim of the chunk goes to the checker in
/// one call, so it can batch. Results come back in the order of the answers.
pub fn score_chunk(
    answers: &[LoggedAnswer],
    decomposer: &dyn Decomposer,
    checker: &dyn Checker,
    progress: &mut dyn FnMut(usize, usize),
) -> Vec<AnswerResult> {
    let mut results: Vec<AnswerResult> = Vec::new();
    let mut contexts: Vec<ContextSet> = Vec::new();
    // answers that cite one context of a contexts file share its passages (one allocation,
    // converted once here), so a checker builds that document's windows once per chunk, not once
    // per answer: 256 answers over one 100 KB document hold and index it once
    let mut shared: HashMap<usize, std::sync::Arc<[crate::model::suite::Passage]>> = HashMap::new();
    let mut claims: Vec<(usize, String)> = Vec::new();
    for a in answers {
        let (split, dropped, error) = match decomposer.decompose_explained(&a.question, &a.answer) {
            Ok(d) => (d.claims, d.dropped, None),
            Err(e) => (Vec::new(), Vec::new(), Some(format!("decomposer: {e}"))),
        };
        // a refusal makes no claim; one that declines in part and claims the rest is scored on
        // its claims and marked
        let declines = is_refusal(&a.answer);
        let refusal = declines && split.is_empty() && error.is_none();
        let partial_refusal = declines && !split.is_empty();
        let passages = shared
            .entry(a.passages.as_ptr() as usize)
            .or_insert_with(|| a.passages().into())
            .clone();
        let ci = contexts.len();
        contexts.push(ContextSet {
            id: a.context.clone().unwrap_or_else(|| a.id.clone()),
            question: Some(a.question.clone()),
            passages,
        });
        for c in &split {
            claims.push((ci, c.clone()));
        }
        results.push(AnswerResult {
            id: a.id.clone(),
            tag: a.tag.clone(),
            question: a.question.clone(),
            answer: a.answer.clone(),
            refusal,
            partial_refusal,
            dropped: dropped
                .into_iter()
                .map(|(text, reason)| DroppedSentence { text, reason })
                .collect(),
            error,
            claims: Vec::new(),
            omissions: None,
            position: a.position,
            line: a.line,
            context: a.context.clone(),
            label: a.label.clone(),
            metadata: a.metadata.clone(),
        });
    }
    let input = CheckInput {
        contexts: &contexts,
        entities: &[],
        claims: claims
            .iter()
            .map(|(ci, t)| ClaimToCheck {
                context: *ci,
                text: t,
            })
            .collect(),
    };
    let total = claims.len();
    let mut verdicts = checker.check(&input, &mut |d| progress(d, total));
    verdicts.resize_with(total, || Err(CheckError::NoVerdict));
    // the numbers a context's passages state, read once for all its claims (answers that share
    // the passages of a contexts file share them)
    let mut stated_in: HashMap<usize, Vec<crate::text::numbers::NumberTag>> = HashMap::new();
    for ((ci, text), v) in claims.iter().zip(verdicts) {
        let ctx = &contexts[*ci];
        let stated = stated_in.entry(ctx.passages_key()).or_insert_with(|| {
            let texts: Vec<&str> = ctx.passages.iter().map(|p| p.text.as_str()).collect();
            stated(&texts)
        });
        let numbers = check_stated(text, stated, ctx.question.as_deref().unwrap_or(""))
            .into_iter()
            .map(Into::into)
            .collect();
        let (verdict, score, ev, reason, error) = match v {
            Ok(v) => (Some(v.label), v.score, v.evidence, v.reason, None),
            Err(e) => (
                None,
                None,
                None::<Evidence>,
                String::new(),
                Some(e.to_string()),
            ),
        };
        results[*ci].claims.push(ClaimResult {
            text: text.clone(),
            verdict,
            score,
            evidence_passage: ev.as_ref().map(|e| e.passage.clone()),
            evidence: ev.map(|e| e.window),
            reason,
            error,
            numbers,
        });
    }
    results
}

/// The pairing (or clustering) key of an answer: its id, a field, or a metadata value
/// (strings and numbers).
pub fn pair_key(a: &AnswerResult, key: Option<&str>) -> Option<String> {
    match key {
        None | Some("id") => Some(a.id.clone()),
        Some("question") => (!a.question.is_empty()).then(|| a.question.clone()),
        Some("tag") => a.tag.clone(),
        Some("context") => a.context.clone(),
        Some(k) => match a.metadata.get(k) {
            Some(serde_json::Value::String(s)) => Some(s.clone()),
            Some(serde_json::Value::Number(n)) => Some(n.to_string()),
            Some(serde_json::Value::Bool(b)) => Some(b.to_string()),
            _ => None,
        },
    }
}

/// The keys answers carry, for an error about one they do not: `id`, `question`, `tag` and
/// `context` where set, then the metadata keys, sorted.
pub fn keys_carried<'a>(answers: impl Iterator<Item = &'a AnswerResult>) -> Vec<String> {
    let mut builtin = vec!["id".to_string()];
    let mut meta = std::collections::BTreeSet::new();
    for a in answers {
        for (k, set) in [
            ("question", !a.question.is_empty()),
            ("tag", a.tag.is_some()),
            ("context", a.context.is_some()),
        ] {
            if set && !builtin.iter().any(|b| b == k) {
                builtin.push(k.to_string());
            }
        }
        meta.extend(
            a.metadata
                .iter()
                .filter(|(_, v)| v.is_string() || v.is_number() || v.is_boolean())
                .map(|(k, _)| k.clone()),
        );
    }
    builtin.extend(meta);
    builtin
}

/// An error when no answer carries `key` (given to `flag`): most likely a typo, which would
/// otherwise make every answer its own cluster or stratum without a word.
pub fn check_key<'a>(
    answers: impl Iterator<Item = &'a AnswerResult> + Clone,
    flag: &str,
    key: Option<&str>,
    what: &str,
) -> Result<()> {
    let Some(k) = key else {
        return Ok(());
    };
    if answers.clone().any(|a| pair_key(a, Some(k)).is_some()) {
        return Ok(());
    }
    Err(crate::error::Refusal::UnknownKey.with(format!(
        "{flag} {k}: no answer of {what} carries the key `{k}`; the keys its answers carry are: {}",
        keys_carried(answers).join(", ")
    )))
}

/// Asks an LLM, once per answer that is not a refusal, which conditions in the passages the answer
/// leaves out. The output fills a review queue; it never changes a score or a gate. `results`
/// and `answers` are the same answers in the same order.
pub fn find_omissions(
    results: &mut [AnswerResult],
    answers: &[LoggedAnswer],
    client: &crate::io::llm::LlmClient,
) {
    use crate::answers::decompose::parse_claims;
    use crate::check::judge::render_passages;
    for (r, a) in results.iter_mut().zip(answers) {
        if r.refusal {
            continue;
        }
        let prompt = client.fill(&[
            ("question", &a.question),
            ("answer", &a.answer),
            ("passages", &render_passages(&a.passages())),
        ]);
        r.omissions = Some(
            client
                .complete(&prompt, &parse_claims)
                .map_err(|e| e.to_string()),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answers::decompose::Sentences;
    use crate::check::{CheckResult, Checker};
    use std::sync::Mutex;

    /// A checker that records the passages keys it was given and says supported.
    struct Keys(Mutex<Vec<usize>>);

    impl Checker for Keys {
        fn name(&self) -> &str {
            "keys"
        }
        fn kind(&self) -> &'static str {
            "test"
        }
        fn settings(&self) -> BTreeMap<String, String> {
            BTreeMap::new()
        }
        fn check(&self, input: &CheckInput<'_>, _: &mut dyn FnMut(usize)) -> Vec<CheckResult> {
            let mut k = self.0.lock().unwrap();
            for c in &input.claims {
                k.push(input.contexts[c.context].passages_key());
            }
            input
                .claims
                .iter()
                .map(|_| {
                    Ok(crate::check::Verdict {
                        label: crate::model::case::Label::Supported,
                        score: Some(1.0),
                        evidence: None,
                        reason: String::new(),
                    })
                })
                .collect()
        }
    }

    #[test]
    fn answers_citing_one_context_share_its_passages_in_a_chunk() {
        let doc: std::sync::Arc<[crate::answers::LoggedPassage]> =
            vec![crate::answers::LoggedPassage {
                id: "manual".into(),
                text: "Plan 3 costs $ 4 million a year. It includes 12 seats.".repeat(100),
            }]
            .into();
        let answers: Vec<LoggedAnswer> = (0..256)
            .map(|i| LoggedAnswer {
                id: format!("a{i}"),
                question: format!("Question {i}?"),
                answer: "Plan 3 costs $ 4 million a year.".into(),
                passages: doc.clone(),
                context: Some("doc".into()),
                position: i,
                ..Default::default()
            })
            .collect();
        let keys = Keys(Mutex::new(Vec::new()));
        let results = score_chunk(&answers, &Sentences, &keys, &mut |_, _| {});
        assert_eq!(results.len(), 256);
        let seen = keys.0.into_inner().unwrap();
        assert_eq!(seen.len(), 256);
        // one document, one allocation for the checker to index once
        assert!(seen.iter().all(|k| *k == seen[0]), "{} distinct", {
            let mut s = seen.clone();
            s.sort();
            s.dedup();
            s.len()
        });
    }

    #[test]
    fn a_definition_is_named_as_serde_names_it() {
        crate::model::case::assert_strum_names_are_serde_names::<Definition>();
    }
}
