//! Scoring logged answers: decompose, verify each claim against the answer's own context set,
//! score per answer and across answers, and compare two scorings answer by answer.

use super::decompose::{is_refusal, Decomposer};
use super::numbers::{check as check_numbers, NumberNote};
pub use super::tally::{aggregate, Aggregate};
use super::{AnswerLabel, LoggedAnswer};
use crate::check::{CheckError, CheckInput, Checker, ClaimToCheck, ContextSet, Evidence};
use crate::error::{Error, Exit, Result};
use crate::model::case::Label;
use crate::model::shard::Shard;
use crate::stats::{mcnemar_exact, Rate};
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
    for ((ci, text), v) in claims.iter().zip(verdicts) {
        let ctx = &contexts[*ci];
        let texts: Vec<&str> = ctx.passages.iter().map(|p| p.text.as_str()).collect();
        let numbers = check_numbers(text, &texts, ctx.question.as_deref().unwrap_or(""))
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

/// One definition's row of an answer-level comparison.
#[derive(Debug, Clone, Serialize)]
pub struct AnswerRow {
    pub definition: Definition,
    /// Pairs scored in both records under this definition.
    pub paired: usize,
    pub base_unsupported: Rate,
    pub candidate_unsupported: Rate,
    /// Unsupported in the base, clean in the candidate.
    pub fixed: u64,
    /// Clean in the base, unsupported in the candidate.
    pub broken: u64,
    /// The two-sided exact McNemar p, for reading.
    pub p_value: f64,
    /// The one-sided p that the candidate is worse: the sign-flip test of each cluster's net
    /// change (`--cluster-by`; an answer is its own cluster without it), see
    /// [`crate::stats::paired`].
    pub p_worse: f64,
    /// Clusters whose answers changed on net: the effective n of the paired test.
    pub clusters_changed: u64,
    /// Both sides' unsupported-answer rates with a cluster-aware interval (with `--cluster-by`).
    pub base_clustered: Option<crate::stats::ClusterRate>,
    pub candidate_clustered: Option<crate::stats::ClusterRate>,
    /// `p_worse` adjusted over the definitions compared (Holm by default, Tarone's m).
    pub p_adjusted: f64,
    /// More broken than fixed with adjusted p < alpha.
    pub significantly_worse: bool,
    /// The smallest rise in the unsupported-answer rate these pairs detect with 80% power at
    /// alpha; None when none could be.
    pub detectable_drop: Option<f64>,
    /// Candidate answers newly unsupported (at most 50 listed; `broken` counts them all).
    pub newly_broken: Vec<AnswerResult>,
    /// With `--stratify-by`: the same comparison within each stratum, for reading (the gate
    /// decides on the whole row).
    pub by_stratum: Vec<StratumRow>,
}

/// One stratum of an answer comparison row.
#[derive(Debug, Clone, Serialize)]
pub struct StratumRow {
    pub stratum: String,
    pub paired: usize,
    pub base_unsupported: Rate,
    pub candidate_unsupported: Rate,
    pub fixed: u64,
    pub broken: u64,
    /// One-sided, by the row's clusters, unadjusted.
    pub p_worse: f64,
}

/// Two scorings, answer by answer: the same log scored by two checkers, or two generators'
/// answers to the same sources paired by a key.
#[derive(Debug, Clone, Serialize)]
pub struct AnswerComparison {
    /// What pairs the answers: `id`, or the key given with `--pair-by`.
    pub pair_by: String,
    /// What clusters the answers for the paired test and the intervals (`--cluster-by`).
    pub cluster_by: Option<String>,
    /// When an answer counts as unsupported (`--answer-rule`).
    pub answer_rule: AnswerRule,
    pub base_log: String,
    pub candidate_log: String,
    pub rows: Vec<AnswerRow>,
    pub only_in_base: Vec<String>,
    pub only_in_candidate: Vec<String>,
    /// Answers that have no value for the pairing key (base, candidate).
    pub without_key: (usize, usize),
    pub failures: Vec<String>,
    /// Paired answers a checker could not score (some claim an error), by id: in no row,
    /// listed, never a pass.
    pub errors_in_base: Vec<String>,
    pub errors_in_candidate: Vec<String>,
    /// Why there is no verdict although nothing failed (exit 3, never a pass).
    pub no_verdict: Vec<String>,
}

impl AnswerComparison {
    /// 1 when the gate failed; 3 when nothing failed but answers could not be scored; else 0.
    pub fn exit_code(&self) -> Exit {
        if !self.failures.is_empty() {
            Exit::GateFailed
        } else if !self.no_verdict.is_empty() {
            Exit::CheckerFailed
        } else {
            Exit::Ok
        }
    }
}

/// Options of an answer-level comparison.
#[derive(Debug, Clone)]
pub struct AnswerCompareOptions {
    pub definitions: Vec<Definition>,
    pub alpha: f64,
    pub max_new_broken: u64,
    pub confidence: f64,
    pub adjust: crate::stats::Adjust,
    /// None: pair by answer id. Some(key): by `question`, `tag`, `context` or a metadata key.
    pub pair_by: Option<String>,
    /// Answers that share this key's value (a source, a context, a question) are one cluster;
    /// None: every answer is its own.
    pub cluster_by: Option<String>,
    /// When an answer counts as unsupported.
    pub answer_rule: AnswerRule,
    /// Each row is also shown within each value of this key.
    pub stratify_by: Option<String>,
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
    Err(Error::Usage(format!(
        "{flag} {k}: no answer of {what} carries the key `{k}`; the keys its answers carry are: {}",
        keys_carried(answers).join(", ")
    )))
}

/// Answers by pairing key; two answers with one key make the pairing ambiguous: an error.
fn keyed<'a>(
    r: &'a ScoreRecord,
    key: Option<&str>,
    which: &str,
) -> Result<(std::collections::HashMap<String, &'a AnswerResult>, usize)> {
    let mut m = std::collections::HashMap::new();
    let mut missing = 0;
    for a in &r.answers {
        let Some(k) = pair_key(a, key) else {
            missing += 1;
            continue;
        };
        if let Some(other) = m.insert(k.clone(), a) {
            return Err(Error::Usage(format!(
                "the {which} record ({}) has two answers with {} `{k}` (`{}` and `{}`): pair by a key that is unique in each record",
                r.log,
                key.unwrap_or("id"),
                other.id,
                a.id
            )));
        }
    }
    Ok((m, missing))
}

/// Each cluster's net change (fixed minus broken) over (base unsupported, candidate
/// unsupported, answer) triples.
fn nets<'a>(
    xs: impl Iterator<Item = &'a (bool, bool, &'a AnswerResult)>,
    cluster_of: &dyn Fn(&AnswerResult) -> String,
) -> Vec<i64> {
    let mut net: std::collections::BTreeMap<String, i64> = Default::default();
    for (ub, uc, a) in xs {
        let d = i64::from(*ub) - i64::from(*uc);
        if d != 0 {
            *net.entry(cluster_of(a)).or_default() += d;
        }
    }
    net.into_values().collect()
}

pub fn compare_answers(
    base: &ScoreRecord,
    cand: &ScoreRecord,
    opts: &AnswerCompareOptions,
) -> Result<AnswerComparison> {
    let key = opts.pair_by.as_deref();
    for (flag, k) in [
        ("--cluster-by", opts.cluster_by.as_deref()),
        ("--stratify-by", opts.stratify_by.as_deref()),
    ] {
        check_key(
            base.answers.iter().chain(&cand.answers),
            flag,
            k,
            "either record",
        )?;
    }
    let (b, b_missing) = keyed(base, key, "base")?;
    let (c, c_missing) = keyed(cand, key, "candidate")?;
    // candidate order: the order of its log
    let pairs: Vec<(&AnswerResult, &AnswerResult)> = cand
        .answers
        .iter()
        .filter_map(|a| {
            let k = pair_key(a, key)?;
            b.get(&k).map(|x| (*x, a))
        })
        .collect();
    if pairs.is_empty() {
        return Err(Error::Usage(format!(
            "nothing to compare: no answer pairs by {} (base: {} answers from {}; candidate: {} answers from {}); {}",
            key.unwrap_or("id"),
            base.answers.len(),
            base.log,
            cand.answers.len(),
            cand.log,
            if key.is_none() {
                "compare scorings of the same log, or pair two logs by a shared key with --pair-by KEY"
            } else {
                "check that both logs carry the key with the same values"
            }
        )));
    }
    // an answer a checker failed on is in no row (under any definition), and is listed
    let errored =
        |a: &AnswerResult| a.error.is_some() || a.claims.iter().any(|c| c.error.is_some());
    let errors_in_base: Vec<String> = pairs
        .iter()
        .filter(|(x, _)| errored(x))
        .map(|(x, _)| x.id.clone())
        .collect();
    let errors_in_candidate: Vec<String> = pairs
        .iter()
        .filter(|(_, a)| errored(a))
        .map(|(_, a)| a.id.clone())
        .collect();
    let pairs: Vec<(&AnswerResult, &AnswerResult)> = pairs
        .into_iter()
        .filter(|(x, a)| !errored(x) && !errored(a))
        .collect();
    if pairs.is_empty() {
        return Err(Error::Usage(format!(
            "nothing to compare: every answer pair has an error (the base could not score {}, the candidate {}); a checker that fails is never a pass: fix it and score again",
            errors_in_base.len(),
            errors_in_candidate.len()
        )));
    }
    let mut no_verdict = Vec::new();
    if !errors_in_candidate.is_empty() {
        no_verdict.push(format!(
            "the candidate could not score {} answer(s) (first: {}); they are in no row, and a gate cannot pass on what was not scored",
            errors_in_candidate.len(),
            errors_in_candidate[0]
        ));
    }
    let mut rows = Vec::new();
    for def in &opts.definitions {
        let scored: Vec<(bool, bool, &AnswerResult)> = pairs
            .iter()
            .filter_map(|(x, a)| {
                match (
                    x.unsupported_by(*def, opts.answer_rule),
                    a.unsupported_by(*def, opts.answer_rule),
                ) {
                    (Some(ub), Some(uc)) => Some((ub, uc, *a)),
                    _ => None,
                }
            })
            .collect();
        let n = scored.len() as u64;
        let fixed = scored.iter().filter(|(ub, uc, _)| *ub && !*uc).count() as u64;
        let broken = scored.iter().filter(|(ub, uc, _)| !*ub && *uc).count() as u64;
        let p = mcnemar_exact(fixed, broken);
        // each cluster's net change (fixed minus broken); an answer without the key is its own
        let cluster_of = |a: &AnswerResult| match &opts.cluster_by {
            Some(k) => pair_key(a, Some(k)).unwrap_or_else(|| format!("\0{}", a.id)),
            None => a.id.clone(),
        };
        let net = nets(scored.iter(), &cluster_of);
        let clustered = |side: usize| {
            opts.cluster_by.as_ref().map(|_| {
                crate::stats::cluster_rate_of(
                    scored
                        .iter()
                        .map(|(ub, uc, a)| (cluster_of(a), if side == 0 { *ub } else { *uc })),
                    opts.confidence,
                )
            })
        };
        let by_stratum = match &opts.stratify_by {
            None => Vec::new(),
            Some(k) => {
                let mut strata: std::collections::BTreeMap<
                    String,
                    Vec<&(bool, bool, &AnswerResult)>,
                > = Default::default();
                for x in &scored {
                    let key = pair_key(x.2, Some(k)).unwrap_or_else(|| "(none)".into());
                    strata.entry(key).or_default().push(x);
                }
                strata
                    .into_iter()
                    .map(|(stratum, xs)| {
                        let n = xs.len() as u64;
                        let net = nets(xs.iter().copied(), &cluster_of);
                        StratumRow {
                            stratum,
                            paired: xs.len(),
                            base_unsupported: Rate::new(
                                xs.iter().filter(|x| x.0).count() as u64,
                                n,
                                opts.confidence,
                            ),
                            candidate_unsupported: Rate::new(
                                xs.iter().filter(|x| x.1).count() as u64,
                                n,
                                opts.confidence,
                            ),
                            fixed: xs.iter().filter(|x| x.0 && !x.1).count() as u64,
                            broken: xs.iter().filter(|x| !x.0 && x.1).count() as u64,
                            p_worse: crate::stats::paired::sign_flip_p_worse(&net),
                        }
                    })
                    .collect()
            }
        };
        rows.push(AnswerRow {
            by_stratum,
            p_worse: crate::stats::paired::sign_flip_p_worse(&net),
            clusters_changed: net.iter().filter(|d| **d != 0).count() as u64,
            base_clustered: clustered(0),
            candidate_clustered: clustered(1),
            definition: *def,
            paired: scored.len(),
            base_unsupported: Rate::new(
                scored.iter().filter(|p| p.0).count() as u64,
                n,
                opts.confidence,
            ),
            candidate_unsupported: Rate::new(
                scored.iter().filter(|p| p.1).count() as u64,
                n,
                opts.confidence,
            ),
            fixed,
            broken,
            p_value: p,
            p_adjusted: p,
            significantly_worse: false,
            detectable_drop: None,
            newly_broken: scored
                .iter()
                .filter(|(ub, uc, _)| !*ub && *uc)
                .take(50)
                .map(|(_, _, a)| (*a).clone())
                .collect(),
        });
    }
    if rows.iter().all(|r| r.paired == 0) {
        return Err(Error::Usage(format!(
            "nothing to compare: no answer pair was scored under any definition ({} pair(s) where the base or candidate failed, {} without claims); a checker that fails is never a pass",
            errors_in_base.len().max(errors_in_candidate.len()),
            pairs.len()
        )));
    }
    for r in rows.iter().filter(|r| r.paired == 0) {
        no_verdict.push(format!(
            "{}: no answer pair was scored under this definition",
            r.definition.as_str()
        ));
    }
    // one-sided, by clusters, adjusted over the definitions that can reach significance
    let min_p: Vec<f64> = rows
        .iter()
        .map(|r| 0.5f64.powi(r.clusters_changed as i32))
        .collect();
    let p: Vec<f64> = rows.iter().map(|r| r.p_worse).collect();
    let (_, adjusted) = crate::stats::paired::adjust_family(&min_p, &p, opts.alpha, opts.adjust);
    let adjusted: Vec<f64> = adjusted.into_iter().map(|q| q.unwrap_or(1.0)).collect();
    let level = match opts.adjust {
        crate::stats::Adjust::None => opts.alpha,
        _ => opts.alpha / rows.len().max(1) as f64,
    };
    let mut failures = Vec::new();
    for (r, p) in rows.iter_mut().zip(adjusted) {
        r.p_adjusted = p;
        r.detectable_drop = crate::stats::detectable_drop(r.paired as u64, level, 0.8);
        r.significantly_worse = r.broken > r.fixed && p < opts.alpha;
        if r.significantly_worse {
            failures.push(format!(
                "{}: significantly more answers broken ({}) than fixed ({}) in {} {}(s) that changed: one-sided p = {}, adjusted {} < {}",
                r.definition.as_str(), r.broken, r.fixed, r.clusters_changed,
                opts.cluster_by.as_deref().map(|k| format!("`{k}` cluster")).unwrap_or_else(|| "answer".into()),
                crate::stats::fmt_p(r.p_worse), crate::stats::fmt_p(p), opts.alpha
            ));
        }
        if r.broken > opts.max_new_broken {
            failures.push(format!(
                "{}: {} answer(s) newly unsupported, more than --max-new-misses {}",
                r.definition.as_str(),
                r.broken,
                opts.max_new_broken
            ));
        }
    }
    let mut only_in_base: Vec<String> = base
        .answers
        .iter()
        .filter(|a| pair_key(a, key).is_some_and(|k| !c.contains_key(&k)))
        .map(|a| a.id.clone())
        .collect();
    only_in_base.sort();
    let mut only_in_candidate: Vec<String> = cand
        .answers
        .iter()
        .filter(|a| pair_key(a, key).is_some_and(|k| !b.contains_key(&k)))
        .map(|a| a.id.clone())
        .collect();
    only_in_candidate.sort();
    Ok(AnswerComparison {
        pair_by: key.unwrap_or("id").to_string(),
        cluster_by: opts.cluster_by.clone(),
        answer_rule: opts.answer_rule,
        base_log: base.log.clone(),
        candidate_log: cand.log.clone(),
        rows,
        only_in_base,
        only_in_candidate,
        without_key: (b_missing, c_missing),
        failures,
        errors_in_base,
        errors_in_candidate,
        no_verdict,
    })
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
