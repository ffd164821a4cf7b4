//! Scoring logged answers: decompose, verify each claim against the answer's own context set,
//! score per answer and across answers, and compare two scorings answer by answer.

use super::decompose::{is_refusal, Decomposer};
use super::numbers::{check as check_numbers, NumberNote};
pub use super::tally::{aggregate, Aggregate};
use super::{HumanLabel, LoggedAnswer, Shard};
use crate::check::{CheckError, CheckInput, Checker, ClaimToCheck, ContextSet, Evidence, Label};
use crate::error::{Error, Exit, Result};
use crate::stats::{mcnemar_exact, Rate};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// A scoring rule in common use; spelt `strict` and `non-contradiction` everywhere (flags,
/// reports, JSON).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
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
        match self {
            Definition::Strict => "strict",
            Definition::NonContradiction => "non-contradiction",
        }
    }
}

/// One claim of an answer with its verdict and evidence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DroppedSentence {
    pub text: String,
    pub reason: String,
}

/// One scored answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
    pub label: Option<HumanLabel>,
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
        match self.status(def) {
            Status::Scored { faithful, claims } => Some(faithful < claims),
            _ => None,
        }
    }
}

/// A scoring of a log, as recorded.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ScoreRecord {
    pub version: u32,
    pub log: String,
    pub checker: String,
    pub decomposer: String,
    /// Set on the record of one shard (`score --shard K/N`); `faithgate merge` joins them.
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
            checker: self.checker.clone(),
            decomposer: self.decomposer.clone(),
            shard: self.shard,
            answers: Vec::new(),
        }
    }

    /// Checks what serde cannot: the version, unique answer ids, and each claim having either a
    /// verdict or an error.
    pub fn validate(&self, path: &Path) -> Result<()> {
        let help = "write score records with `faithgate score LOG --record FILE.json` and compare them unedited";
        if self.version != SCORE_RECORD_VERSION {
            return Err(Error::input(
                path,
                None,
                format!(
                    "score record version {} is not {SCORE_RECORD_VERSION}",
                    self.version
                ),
                "score the log again with this faithgate version",
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

/// Decomposes and verifies every answer, in one batch: the whole record (for tests and small
/// logs; `score` streams chunks through [`score_chunk`]).
pub fn score(
    log: &str,
    answers: &[LoggedAnswer],
    decomposer: &dyn Decomposer,
    checker: &dyn Checker,
    progress: &mut dyn FnMut(usize, usize),
) -> ScoreRecord {
    ScoreRecord {
        version: SCORE_RECORD_VERSION,
        log: log.to_string(),
        checker: checker_name(checker),
        decomposer: decomposer.describe(),
        shard: None,
        answers: score_chunk(answers, decomposer, checker, progress),
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
        let ci = contexts.len();
        contexts.push(ContextSet {
            id: a.id.clone(),
            question: Some(a.question.clone()),
            passages: a.passages(),
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

/// Two scorings of the same questions, answer by answer.
#[derive(Debug, Clone, Serialize)]
pub struct AnswerComparison {
    pub definition: Definition,
    pub paired: usize,
    pub base_unsupported: Rate,
    pub candidate_unsupported: Rate,
    /// Unsupported in the base, clean in the candidate.
    pub fixed: u64,
    /// Clean in the base, unsupported in the candidate.
    pub broken: u64,
    pub p_value: f64,
    /// The gate's p-value: answer-level comparison has one row, so Holm leaves it as it is.
    pub p_adjusted: f64,
    /// The smallest rise in the unsupported-answer rate these paired answers detect with 80%
    /// power at alpha; None when none could be.
    pub detectable_drop: Option<f64>,
    pub newly_broken: Vec<AnswerResult>,
    pub only_in_base: Vec<String>,
    pub only_in_candidate: Vec<String>,
    pub failures: Vec<String>,
}

impl AnswerComparison {
    pub fn exit_code(&self) -> Exit {
        if self.failures.is_empty() {
            Exit::Ok
        } else {
            Exit::GateFailed
        }
    }
}

pub fn compare_answers(
    base: &ScoreRecord,
    cand: &ScoreRecord,
    def: Definition,
    alpha: f64,
    max_new_broken: u64,
    confidence: f64,
) -> Result<AnswerComparison> {
    use std::collections::HashMap;
    let b: HashMap<&str, &AnswerResult> = base.answers.iter().map(|a| (a.id.as_str(), a)).collect();
    let c: HashMap<&str, &AnswerResult> = cand.answers.iter().map(|a| (a.id.as_str(), a)).collect();
    let mut pairs: Vec<(bool, bool, &AnswerResult)> = Vec::new();
    for a in &cand.answers {
        if let Some(x) = b.get(a.id.as_str()) {
            if let (Some(ub), Some(uc)) = (x.unsupported(def), a.unsupported(def)) {
                pairs.push((ub, uc, a));
            }
        }
    }
    let fixed = pairs.iter().filter(|(ub, uc, _)| *ub && !*uc).count() as u64;
    let broken = pairs.iter().filter(|(ub, uc, _)| !*ub && *uc).count() as u64;
    if pairs.is_empty() {
        return Err(Error::Usage(format!(
            "nothing to compare: no answer is scored in both records (base: {} answers from {}; candidate: {} answers from {}); compare scorings of the same log",
            base.answers.len(),
            base.log,
            cand.answers.len(),
            cand.log
        )));
    }
    let n = pairs.len() as u64;
    let p = mcnemar_exact(fixed, broken);
    let mut failures = Vec::new();
    if broken > fixed && p < alpha {
        failures.push(format!("significantly more answers broken ({broken}) than fixed ({fixed}): exact McNemar p = {p:.4} < {alpha}"));
    }
    if broken > max_new_broken {
        failures.push(format!(
            "{broken} answer(s) newly unsupported, more than --max-new-misses {max_new_broken}"
        ));
    }
    let mut only_in_base: Vec<String> = base
        .answers
        .iter()
        .filter(|a| !c.contains_key(a.id.as_str()))
        .map(|a| a.id.clone())
        .collect();
    only_in_base.sort();
    let mut only_in_candidate: Vec<String> = cand
        .answers
        .iter()
        .filter(|a| !b.contains_key(a.id.as_str()))
        .map(|a| a.id.clone())
        .collect();
    only_in_candidate.sort();
    Ok(AnswerComparison {
        definition: def,
        paired: pairs.len(),
        base_unsupported: Rate::new(pairs.iter().filter(|p| p.0).count() as u64, n, confidence),
        candidate_unsupported: Rate::new(
            pairs.iter().filter(|p| p.1).count() as u64,
            n,
            confidence,
        ),
        fixed,
        broken,
        p_value: p,
        p_adjusted: p,
        detectable_drop: crate::stats::detectable_drop(n, alpha, 0.8),
        newly_broken: pairs
            .iter()
            .filter(|(ub, uc, _)| !*ub && *uc)
            .map(|(_, _, a)| (*a).clone())
            .collect(),
        only_in_base,
        only_in_candidate,
        failures,
    })
}

/// Asks an LLM, once per answer that is not a refusal, which conditions in the passages the answer
/// leaves out. The output fills a review queue; it never changes a score or a gate. `results`
/// and `answers` are the same answers in the same order.
pub fn find_omissions(
    results: &mut [AnswerResult],
    answers: &[LoggedAnswer],
    client: &crate::llm::LlmClient,
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
