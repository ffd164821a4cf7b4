//! The `nli` checker: a natural-language-inference cross-encoder through ONNX Runtime.
//!
//! - Premises are sentence windows of the claim's own context set (up to `max_window_sentences`
//!   adjacent sentences of one passage, never across passages). The score is the best
//!   entailment probability over windows; `supported` when it reaches the threshold.
//! - Label order comes from `config.json` `id2label`, never from an assumed index.
//! - `contradicted` versus `not_found` is read only from the windows of the passage that best
//!   matches the claim (most shared words), never from off-topic passages, which NLI models
//!   readily call contradictions.
//! - No silent truncation: a window that with the claim exceeds the model's length is dropped
//!   (its shorter windows remain); if a single sentence plus the claim does not fit, the case is
//!   an `error` with the reason.
//! - Every distinct (window, claim) pair is scored once per run (mutants share windows with their
//!   parents), length-sorted and batched with padding to the longest in the batch; outputs go to
//!   the verdict cache, so a re-run or a threshold change makes no model call.
//! - Softmax in f32 with max-subtraction; NaN or infinite logits are an error, never a pass.

use super::cache::Cache;
use super::onnx::Model;
pub use super::onnx::{LabelMap, LabelRef};
use super::windows::{
    passage_sentences, sentence_parts, top_windows, topic_words, windows_of, Window,
};
use super::{CheckError, CheckInput, CheckResult, Checker, Evidence, Label, Verdict};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;
use std::sync::{Arc, Mutex};

pub use super::onnx::ModelSettings;

/// What one run cost.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModelUse {
    /// Distinct inputs the run needed.
    pub needed: usize,
    /// Of those, found in the cache.
    pub cached: usize,
    /// Scored by the model.
    pub scored: usize,
    /// Model calls (batches).
    pub batches: usize,
    /// Cached rows that did not decode to the model's output shape or held non-finite values:
    /// treated as misses and scored again.
    pub rejected: usize,
    /// With `top_windows`: claim-window pairs there were, and how many were left out.
    pub considered: usize,
    pub skipped: usize,
}

impl ModelUse {
    /// Adds another call's counts to these.
    pub fn add(&mut self, o: &ModelUse) {
        self.needed += o.needed;
        self.cached += o.cached;
        self.scored += o.scored;
        self.batches += o.batches;
        self.rejected += o.rejected;
        self.considered += o.considered;
        self.skipped += o.skipped;
    }

    pub fn note(&self, name: &str, what: &str) -> String {
        let rejected = if self.rejected > 0 {
            format!(
                "; warning: {} cached row(s) did not fit this model's output (wrong length or non-finite values) and were scored again",
                self.rejected
            )
        } else {
            String::new()
        };
        let failed = self.needed.saturating_sub(self.cached + self.scored);
        let rejected = if self.considered > 0 {
            format!(
                "{rejected}; top_windows left out {} of {} claim-window pairs ({:.0}%)",
                self.skipped,
                self.considered,
                100.0 * self.skipped as f64 / self.considered as f64
            )
        } else {
            rejected
        };
        if self.needed > 0 && self.cached == self.needed {
            format!(
                "{name}: all {} distinct {what} came from the cache; no model call{rejected}",
                self.needed
            )
        } else {
            format!(
                "{name}: {} distinct {what}: {} from the cache, {} scored by the model in {} batches{}{rejected}",
                self.needed,
                self.cached,
                self.scored,
                self.batches,
                if failed > 0 {
                    format!(", {failed} not scored (see the errors)")
                } else {
                    String::new()
                }
            )
        }
    }
}

/// One model output per input (label probabilities or an embedding), or why it has none.
pub type Output = Result<Vec<f32>, CheckError>;

/// Scores one batch of keys: one output per key, or an error for the whole batch.
/// Turns a batch of keys into model input (tokenising): runs on its own thread, one batch ahead
/// of inference.
pub(crate) type Prepare<'a, P> = dyn Fn(&[&(String, String)]) -> Result<P, CheckError> + Sync + 'a;

/// Runs the model on a prepared batch and returns one output per key.
pub(crate) type Infer<'a, P> = dyn FnMut(P) -> Result<Vec<Output>, CheckError> + 'a;

pub(crate) struct Stored<'a> {
    pub cache: Option<&'a Cache>,
    pub fingerprint: &'a str,
    pub valid: &'a dyn Fn(&[f32]) -> bool,
}

/// Scores every key: cached rows first, then the rest in length-sorted batches. Tokenising runs
/// on a second thread one batch ahead of inference, so the model never waits for the tokenizer
/// (nor the tokenizer for the model).
pub(crate) fn score_all<P: Send>(
    keys: &[(String, String)],
    lengths: &[usize],
    batch_size: usize,
    stored: Stored<'_>,
    usage: &mut ModelUse,
    prepare: &Prepare<'_, P>,
    infer: &mut Infer<'_, P>,
) -> Result<Vec<Output>, CheckError> {
    let Stored {
        cache,
        fingerprint,
        valid,
    } = stored;
    let mut out: Vec<Option<Output>> = vec![None; keys.len()];
    usage.needed += keys.len();
    let mut missing = Vec::new();
    for (i, (a, b)) in keys.iter().enumerate() {
        match cache
            .map(|c| c.get(fingerprint, a, b))
            .transpose()
            .map_err(CheckError::Cache)?
            .flatten()
        {
            Some(v) if valid(&v) => {
                usage.cached += 1;
                out[i] = Some(Ok(v));
            }
            Some(_) => {
                usage.rejected += 1;
                missing.push(i);
            }
            None => missing.push(i),
        }
    }
    missing.sort_by_key(|&i| lengths[i]);
    let chunks: Vec<&[usize]> = missing.chunks(batch_size.max(1)).collect();
    let mut failure: Option<CheckError> = None;
    std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::sync_channel::<(usize, Result<P, CheckError>)>(1);
        let chunks_ref = &chunks;
        scope.spawn(move || {
            for (n, chunk) in chunks_ref.iter().enumerate() {
                if crate::io::interrupt::requested() {
                    break;
                }
                let batch: Vec<&(String, String)> = chunk.iter().map(|&i| &keys[i]).collect();
                // a closed channel: the consumer stopped; so do we
                if tx.send((n, prepare(&batch))).is_err() {
                    break;
                }
            }
        });
        for (n, prepared) in rx.iter() {
            if crate::io::interrupt::requested() {
                break; // the rest stay unscored; what was scored is in the cache
            }
            let chunk = chunks[n];
            usage.batches += 1;
            match prepared.and_then(&mut *infer) {
                Ok(results) => {
                    let mut rows = Vec::new();
                    for (&i, r) in chunk.iter().zip(results) {
                        if let Ok(v) = &r {
                            rows.push((keys[i].0.as_str(), keys[i].1.as_str(), v.clone()));
                            usage.scored += 1;
                        }
                        out[i] = Some(r);
                    }
                    if let Some(c) = cache {
                        let refs: Vec<(&str, &str, &[f32])> = rows
                            .iter()
                            .map(|(a, b, v)| (*a, *b, v.as_slice()))
                            .collect();
                        if let Err(e) = c.put_many(fingerprint, &refs) {
                            failure = Some(CheckError::Cache(e));
                            break;
                        }
                    }
                }
                Err(e) => {
                    for &i in chunk {
                        out[i] = Some(Err(e.clone()));
                    }
                }
            }
        }
        // dropping the receiver here ends the producer at its next send
    });
    if let Some(e) = failure {
        return Err(e);
    }
    Ok(out
        .into_iter()
        .map(|o| o.unwrap_or(Err(CheckError::Interrupted)))
        .collect())
}

pub fn softmax(logits: &[f32]) -> Result<Vec<f32>, CheckError> {
    if logits.iter().any(|x| !x.is_finite()) {
        return Err(CheckError::NonFinite(format!(
            "the model returned non-finite logits {logits:?}"
        )));
    }
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let exps: Vec<f32> = logits.iter().map(|x| (x - max).exp()).collect();
    let sum: f32 = exps.iter().sum();
    Ok(exps.iter().map(|e| e / sum).collect())
}

pub struct NliChecker {
    name: String,
    model: Model,
    settings: ModelSettings,
    head: OutputHead,
    cache: Option<Arc<Cache>>,
    usage: Mutex<ModelUse>,
}

/// How the model's outputs become probabilities and which one is which.
#[derive(Debug, Clone, PartialEq)]
pub enum OutputHead {
    /// Softmax over the outputs; the supported and (if any) contradicted positions.
    Softmax {
        width: usize,
        supported: usize,
        contradicted: Option<usize>,
    },
    /// One logit; its sigmoid is P(supported), or P(unsupported) when `inverted`.
    Sigmoid { inverted: bool },
}

impl OutputHead {
    /// What the head reads, for `doctor` and the cache fingerprint.
    pub fn describe(&self, labels: &[String]) -> String {
        let name = |i: usize| {
            labels
                .get(i)
                .map(|l| format!("`{l}` (output {i})"))
                .unwrap_or_else(|| format!("output {i}"))
        };
        match self {
            OutputHead::Softmax {
                width,
                supported,
                contradicted,
            } => format!(
                "softmax over {width} outputs; supported = {}; contradicted = {}",
                name(*supported),
                contradicted.map(name).unwrap_or_else(|| "none (unsupported claims are not_found)".into())
            ),
            OutputHead::Sigmoid { inverted: false } => {
                "one logit; sigmoid = probability of supported; no contradiction".into()
            }
            OutputHead::Sigmoid { inverted: true } => {
                "one logit; sigmoid = probability of unsupported (1 - it is supported); no contradiction".into()
            }
        }
    }

    /// The row of probabilities stored and read: softmax, or [P(supported)] for one logit.
    fn probabilities(&self, logits: &[f32]) -> Output {
        match self {
            OutputHead::Softmax { .. } => softmax(logits),
            OutputHead::Sigmoid { inverted } => {
                let x = logits[0];
                if !x.is_finite() {
                    return Err(CheckError::NonFinite(format!(
                        "the model returned a non-finite logit {x}"
                    )));
                }
                let p = 1.0 / (1.0 + (-x).exp());
                Ok(vec![if *inverted { 1.0 - p } else { p }])
            }
        }
    }

    fn supported(&self) -> usize {
        match self {
            OutputHead::Softmax { supported, .. } => *supported,
            OutputHead::Sigmoid { .. } => 0,
        }
    }

    fn contradicted(&self) -> Option<usize> {
        match self {
            OutputHead::Softmax { contradicted, .. } => *contradicted,
            OutputHead::Sigmoid { .. } => None,
        }
    }

    fn width(&self) -> usize {
        match self {
            OutputHead::Softmax { width, .. } => *width,
            OutputHead::Sigmoid { .. } => 1,
        }
    }
}

/// The id2label names read as "supported" without a `labels:` mapping (compared whole, in any
/// case, after `-`, `_` and spaces are removed): never a substring, so `not_entailment` is not
/// entailment.
pub(crate) const SUPPORTED_NAMES: &[&str] = &["entailment", "entail", "entailed", "entails"];
/// The id2label names read as "contradicted".
pub(crate) const CONTRADICTED_NAMES: &[&str] =
    &["contradiction", "contradict", "contradicted", "contradicts"];

fn find_label(labels: &[String], names: &[&str]) -> Option<usize> {
    let norm = |l: &str| -> String {
        l.chars()
            .filter(|c| !matches!(c, '-' | '_' | ' '))
            .flat_map(char::to_lowercase)
            .collect()
    };
    labels
        .iter()
        .position(|l| names.contains(&norm(l).as_str()))
}

/// The head of a model: from the `labels:` mapping when given, else from id2label's NLI words.
/// A model whose outputs faithprobe cannot read is an error that lists them and shows the mapping
/// to write; nothing is guessed.
pub fn resolve_head(model: &Model, map: Option<&LabelMap>) -> Result<OutputHead, String> {
    let config = model.dir.join("config.json");
    let width = model
        .output_width
        .or((!model.labels.is_empty()).then_some(model.labels.len()))
        .unwrap_or(0);
    let listed = if model.labels.is_empty() {
        "no id2label".to_string()
    } else {
        model
            .labels
            .iter()
            .enumerate()
            .map(|(i, l)| format!("{i}: {l}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let index_of = |r: &LabelRef, what: &str| -> Result<usize, String> {
        let i = match r {
            LabelRef::Index(i) => *i,
            LabelRef::Name(n) => model
                .labels
                .iter()
                .position(|l| l == &n.to_lowercase())
                .ok_or_else(|| {
                    format!(
                        "labels: {what}: `{n}` is not a label of {} (it has {listed})",
                        config.display()
                    )
                })?,
        };
        if width > 0 && i >= width {
            return Err(format!(
                "labels: {what}: output {i} does not exist; the model has {width} output(s) ({listed})"
            ));
        }
        Ok(i)
    };
    if width == 1 {
        return match map {
            Some(LabelMap {
                supported: Some(r),
                unsupported: None,
                contradicted: None,
            }) => index_of(r, "supported").map(|_| OutputHead::Sigmoid { inverted: false }),
            Some(LabelMap {
                supported: None,
                unsupported: Some(r),
                contradicted: None,
            }) => index_of(r, "unsupported").map(|_| OutputHead::Sigmoid { inverted: true }),
            Some(_) => Err(format!(
                "model {}: it has one output (a score), so `labels:` takes exactly one of `supported: 0` or `unsupported: 0`, and no `contradicted`",
                model.dir.display()
            )),
            None => Err(format!(
                "model {}: it has one output (a score) and faithprobe does not guess what it means: add `labels: {{supported: 0}}` to the checker if its sigmoid is the probability that the claim is supported, or `labels: {{unsupported: 0}}` if it is the probability of a hallucination",
                model.dir.display()
            )),
        };
    }
    match map {
        Some(m) => {
            if m.unsupported.is_some() {
                return Err("labels: `unsupported` is for models with one output; name the supported output with `supported:`".into());
            }
            let Some(sup) = &m.supported else {
                return Err(
                    "labels: needs `supported:` (the output that means the claim is supported)"
                        .into(),
                );
            };
            let supported = index_of(sup, "supported")?;
            let contradicted = m
                .contradicted
                .as_ref()
                .map(|c| index_of(c, "contradicted"))
                .transpose()?;
            if contradicted == Some(supported) {
                return Err("labels: `supported` and `contradicted` name the same output".into());
            }
            if width < 2 {
                return Err(format!(
                    "model {}: config.json has no id2label and the graph does not fix its output width, so faithprobe cannot check the mapping; export the model with id2label",
                    model.dir.display()
                ));
            }
            Ok(OutputHead::Softmax {
                width,
                supported,
                contradicted,
            })
        }
        None => {
            if let Some(w) = model.output_width {
                if !model.labels.is_empty() && w != model.labels.len() {
                    return Err(format!(
                        "{}: id2label names {} labels ({listed}) but the model has {w} outputs; the file does not describe this model, so its labels cannot be trusted: fix config.json or say which output is which with `labels:`",
                        config.display(),
                        model.labels.len()
                    ));
                }
            }
            let Some(supported) = find_label(&model.labels, SUPPORTED_NAMES) else {
                let example = match model.labels.len() {
                    2 => format!(
                        "labels: {{supported: {}, contradicted: {}}}",
                        model.labels[1], model.labels[0]
                    ),
                    _ => "labels: {supported: LABEL_1}".into(),
                };
                return Err(format!(
                    "{}: id2label has no entailment label (it has: {listed}); faithprobe never guesses an output, so say which one means supported in the checker's config, e.g. `{example}` (check the model card: the order differs between models)",
                    config.display()
                ));
            };
            Ok(OutputHead::Softmax {
                width: model.labels.len(),
                supported,
                contradicted: find_label(&model.labels, CONTRADICTED_NAMES),
            })
        }
    }
}

/// The verdict rule of the nli checker, apart from the model: `supported` when the best window's
/// P(supported) reaches `threshold`; else `contradicted` when a window of the passage the claim is
/// about (the one sharing most words with it) has contradiction as its top output; else
/// `not_found`. `scored` holds every window scored for the claim with the model's outputs.
pub fn decide(
    head: &OutputHead,
    threshold: f64,
    claim: &str,
    ctx: &super::ContextSet,
    passage_words: &[HashSet<String>],
    scored_windows: &[(&Window, &Vec<f32>)],
) -> CheckResult {
    let Some(&(best_w, best_p)) = scored_windows
        .iter()
        .max_by(|a, b| a.1[head.supported()].total_cmp(&b.1[head.supported()]))
    else {
        return Err(CheckError::Input(
            "the context set has no sentence to check against".into(),
        ));
    };
    // a softmax or sigmoid can round a hair past 1 in f32: scores are in [0, 1]
    let score = (best_p[head.supported()] as f64).clamp(0.0, 1.0);
    let evidence = |w: &Window| Evidence {
        passage: ctx.passages[w.passage].id.clone(),
        // a piece of an over-long sentence says so
        window: w.evidence_text(),
    };
    if score >= threshold {
        return Ok(Verdict {
            label: Label::Supported,
            score: Some(score),
            evidence: Some(evidence(best_w)),
            reason: format!(
                "entailment {score:.3} in {}",
                ctx.passages[best_w.passage].id
            ),
        });
    }
    // contradiction is read only from the passage the claim is about
    let claim_words = topic_words(claim);
    let overlap = |pi: usize| claim_words.intersection(&passage_words[pi]).count();
    let best_entail_of = |pi: usize| {
        scored_windows
            .iter()
            .filter(|(w, _)| w.passage == pi)
            .map(|(_, p)| p[head.supported()])
            .fold(f32::NEG_INFINITY, f32::max)
    };
    let topic = (0..ctx.passages.len())
        .filter(|pi| scored_windows.iter().any(|(w, _)| w.passage == *pi))
        .max_by(|a, b| {
            overlap(*a)
                .cmp(&overlap(*b))
                .then(best_entail_of(*a).total_cmp(&best_entail_of(*b)))
        })
        .unwrap_or(best_w.passage);
    if let Some(ci) = head.contradicted() {
        let contradicting = scored_windows
            .iter()
            .filter(|(w, p)| {
                w.passage == topic && p.iter().enumerate().all(|(i, x)| i == ci || p[ci] > *x)
            })
            .max_by(|a, b| a.1[ci].total_cmp(&b.1[ci]));
        if let Some((w, p)) = contradicting {
            return Ok(Verdict {
                label: Label::Contradicted,
                score: Some(score),
                evidence: Some(evidence(w)),
                reason: format!(
                    "best entailment {score:.3}; contradiction {:.3} in {}, the passage the claim is about",
                    p[ci], ctx.passages[topic].id
                ),
            });
        }
    }
    Ok(Verdict {
        label: Label::NotFound,
        score: Some(score),
        evidence: Some(evidence(best_w)),
        reason: format!(
            "best entailment {score:.3} is below the threshold {}",
            threshold
        ),
    })
}

impl NliChecker {
    pub fn new(
        name: &str,
        dir: &Path,
        settings: ModelSettings,
        cache: Option<Arc<Cache>>,
    ) -> Result<NliChecker, String> {
        let model = Model::load_on(dir, settings.threads, &settings.providers)?;
        let head = resolve_head(&model, settings.labels.as_ref())?;
        Ok(NliChecker {
            name: name.to_string(),
            model,
            settings,
            head,
            cache,
            usage: Mutex::new(ModelUse::default()),
        })
    }

    pub fn model(&self) -> &Model {
        &self.model
    }

    pub fn head(&self) -> &OutputHead {
        &self.head
    }

    fn fingerprint(&self) -> String {
        // the same as before labels and templates existed for a plain NLI model, so old caches
        // still hit
        let mut f = format!(
            "nli|{}|{}|max{}",
            self.model.hash,
            self.model.labels.join(","),
            self.model.max_len
        );
        if self.settings.labels.is_some() {
            f.push_str(&format!("|head:{}", self.head.describe(&self.model.labels)));
        }
        if let Some(t) = &self.settings.template {
            f.push_str(&format!("|template:{t}"));
        }
        f
    }

    /// The model's input for a premise and a claim: the pair, or one text from the template.
    fn input<'a>(
        &self,
        premise: &'a str,
        claim: &'a str,
    ) -> (std::borrow::Cow<'a, str>, Option<&'a str>) {
        match &self.settings.template {
            Some(t) => (
                // one pass: a passage that contains "{claim}" stays text
                std::borrow::Cow::Owned(crate::io::llm::render_template(
                    t,
                    &[("premise", premise), ("claim", claim)],
                )),
                None,
            ),
            None => (std::borrow::Cow::Borrowed(premise), Some(claim)),
        }
    }

    /// Token count of a premise and claim as the model reads them.
    fn pair_len(&self, premise: &str, claim: &str) -> Result<usize, String> {
        let (a, b) = self.input(premise, claim);
        self.model.token_len(&a, b)
    }

    /// Tokenises a batch of pairs as the model reads them (the template, if any).
    fn encode(&self, batch: &[&(String, String)]) -> Result<super::onnx::Encoded, CheckError> {
        let inputs: Vec<(std::borrow::Cow<'_, str>, Option<&str>)> =
            batch.iter().map(|(p, c)| self.input(p, c)).collect();
        let pairs: Vec<(&str, Option<&str>)> =
            inputs.iter().map(|(a, b)| (a.as_ref(), *b)).collect();
        self.model.encode(&pairs).map_err(CheckError::Model)
    }

    /// Label probabilities for a tokenised batch.
    fn infer(&self, enc: super::onnx::Encoded) -> Result<Vec<Output>, CheckError> {
        let n = enc.0.nrows();
        let (shape, data) = self
            .model
            .run_arrays(&enc.0, &enc.1, &enc.2)
            .map_err(CheckError::Model)?;
        let width = self.head.width();
        if shape.len() != 2 || shape[0] != n || shape[1] != width {
            return Err(CheckError::Model(format!(
                "model {}: output shape {shape:?} does not match {n} pairs x {width} outputs ({})",
                self.model.dir.display(),
                self.head.describe(&self.model.labels)
            )));
        }
        Ok(data
            .chunks(width)
            .map(|l| self.head.probabilities(l))
            .collect())
    }

    /// Every label's probability for one premise and claim, as given (no windows).
    pub fn probe_pair(&self, premise: &str, claim: &str) -> Result<Vec<(String, f64)>, CheckError> {
        let len = self.pair_len(premise, claim).map_err(CheckError::Model)?;
        if len > self.model.max_len {
            return Err(CheckError::TooLong(format!(
                "premise plus claim is {len} tokens; the model takes {}",
                self.model.max_len
            )));
        }
        let key = (premise.to_string(), claim.to_string());
        let probs = self.infer(self.encode(&[&key])?)?.remove(0)?;
        Ok(match self.head {
            OutputHead::Sigmoid { .. } => vec![("supported".to_string(), probs[0] as f64)],
            OutputHead::Softmax { width, .. } => (0..width)
                .map(|i| {
                    (
                        self.model
                            .labels
                            .get(i)
                            .cloned()
                            .unwrap_or_else(|| format!("output {i}")),
                        probs[i] as f64,
                    )
                })
                .collect(),
        })
    }

    pub fn last_use(&self) -> ModelUse {
        self.usage.lock().map(|u| u.clone()).unwrap_or_default()
    }
}

/// A window a claim is scored against: one of its context set's, or a piece of an over-long
/// sentence made for this claim.
#[derive(Clone, Copy)]
enum WinRef {
    Shared(usize),
    Part(usize),
}

struct Prepared {
    windows: Vec<Window>,
    /// Topic words of each window, for `top_windows`.
    window_words: Vec<HashSet<String>>,
    /// Topic words of each passage, for choosing the passage a claim is about.
    passage_words: Vec<HashSet<String>>,
}

impl Checker for NliChecker {
    fn name(&self) -> &str {
        &self.name
    }

    fn kind(&self) -> &'static str {
        "nli"
    }

    fn settings(&self) -> BTreeMap<String, String> {
        let s = &self.settings;
        let mut m = BTreeMap::from([
            ("model".into(), self.model.dir.display().to_string()),
            ("model_sha256".into(), self.model.hash.clone()),
            ("labels".into(), self.model.labels.join(",")),
            ("threshold".into(), format!("{}", s.threshold)),
            (
                "max_window_sentences".into(),
                s.max_window_sentences.to_string(),
            ),
        ]);
        if s.labels.is_some() {
            m.insert("head".into(), self.head.describe(&self.model.labels));
        }
        if let Some(t) = &s.template {
            m.insert("template".into(), t.clone());
        }
        if !s.providers.is_empty() {
            m.insert("providers".into(), self.model.providers.join(","));
        }
        if let Some(k) = s.top_windows {
            m.insert("top_windows".into(), k.to_string());
        }
        m
    }

    fn notes(&self) -> Vec<String> {
        vec![self.last_use().note(&self.name, "premise-claim pairs")]
    }

    fn start_notes(&self) {
        if let Ok(mut u) = self.usage.lock() {
            *u = ModelUse::default();
        }
    }

    fn probe(&self, premise: &str, claim: &str) -> Result<Option<Vec<(String, f64)>>, CheckError> {
        self.probe_pair(premise, claim).map(Some)
    }

    fn check(&self, input: &CheckInput<'_>, progress: &mut dyn FnMut(usize)) -> Vec<CheckResult> {
        let mut usage = ModelUse::default();
        // windows per context set
        let mut prepared: HashMap<usize, Prepared> = HashMap::new();
        for c in &input.claims {
            prepared
                .entry(input.contexts[c.context].passages_key())
                .or_insert_with(|| {
                    let ctx = &input.contexts[c.context];
                    let windows = windows_of(
                        &passage_sentences(&ctx.passages),
                        self.settings.max_window_sentences,
                    );
                    Prepared {
                        window_words: if self.settings.top_windows.is_some() {
                            windows.iter().map(|w| topic_words(&w.text)).collect()
                        } else {
                            Vec::new()
                        },
                        windows,
                        passage_words: ctx.passages.iter().map(|p| topic_words(&p.text)).collect(),
                    }
                });
        }
        // distinct pairs, with their token lengths
        let mut index: HashMap<(String, String), usize> = HashMap::new();
        let mut keys: Vec<(String, String)> = Vec::new();
        let mut lengths: Vec<usize> = Vec::new();
        // pieces of over-long sentences, made per claim (their size depends on the claim)
        let mut parts: Vec<Window> = Vec::new();
        let mut claim_pairs: Vec<Result<Vec<(WinRef, usize)>, CheckError>> = Vec::new();
        let mut intern = |key: (String, String),
                          keys: &mut Vec<(String, String)>,
                          lengths: &mut Vec<usize>|
         -> Result<usize, String> {
            if let Some(&pi) = index.get(&key) {
                return Ok(pi);
            }
            let len = self.pair_len(&key.0, &key.1)?;
            keys.push(key.clone());
            lengths.push(len);
            index.insert(key, keys.len() - 1);
            Ok(keys.len() - 1)
        };
        for c in &input.claims {
            let prep = &prepared[&input.contexts[c.context].passages_key()];
            let mut pairs = Vec::new();
            let mut failure = None;
            let chosen: Vec<usize> = match self.settings.top_windows {
                Some(k) => {
                    let keep = top_windows(&topic_words(c.text), &prep.window_words, k);
                    usage.considered += prep.windows.len();
                    usage.skipped += prep.windows.len() - keep.len();
                    keep
                }
                None => (0..prep.windows.len()).collect(),
            };
            for wi in chosen {
                let w = &prep.windows[wi];
                let pi = match intern(
                    (w.text.clone(), c.text.to_string()),
                    &mut keys,
                    &mut lengths,
                ) {
                    Ok(pi) => pi,
                    Err(e) => {
                        failure = Some(CheckError::Model(e));
                        break;
                    }
                };
                if lengths[pi] <= self.model.max_len {
                    pairs.push((WinRef::Shared(wi), pi));
                    continue;
                }
                if w.len > 1 {
                    continue; // narrowed: the window's shorter windows are scored instead
                }
                // one sentence too long for the model: overlapping pieces that fit with the claim
                let max = self.model.max_len;
                let mut fits = |t: &str| self.pair_len(t, c.text).map(|l| l <= max);
                match sentence_parts(w, &mut fits) {
                    Err(e) => {
                        failure = Some(CheckError::Model(e));
                        break;
                    }
                    Ok(None) => {
                        let ctx = &input.contexts[c.context];
                        failure = Some(CheckError::TooLong(format!(
                            "the claim itself is too long for the model: with even one word of passage {} it exceeds the model's {} tokens (nothing was truncated)",
                            ctx.passages[w.passage].id, max
                        )));
                        break;
                    }
                    Ok(Some(pieces)) => {
                        for piece in pieces {
                            match intern(
                                (piece.text.clone(), c.text.to_string()),
                                &mut keys,
                                &mut lengths,
                            ) {
                                Ok(pi) => {
                                    parts.push(piece);
                                    pairs.push((WinRef::Part(parts.len() - 1), pi));
                                }
                                Err(e) => {
                                    failure = Some(CheckError::Model(e));
                                    break;
                                }
                            }
                        }
                    }
                }
                if failure.is_some() {
                    break;
                }
            }
            claim_pairs.push(match failure {
                Some(e) => Err(e),
                None => Ok(pairs),
            });
        }
        // score only the pairs some claim uses
        let used: HashSet<usize> = claim_pairs
            .iter()
            .filter_map(|r| r.as_ref().ok())
            .flatten()
            .map(|(_, pi)| *pi)
            .collect();
        let mut used: Vec<usize> = used.into_iter().collect();
        used.sort_unstable();
        let used_keys: Vec<(String, String)> = used.iter().map(|&i| keys[i].clone()).collect();
        let used_lengths: Vec<usize> = used.iter().map(|&i| lengths[i]).collect();
        let total_claims = input.claims.len();
        let n_batches = used_keys
            .len()
            .div_ceil(self.settings.batch_size.max(1))
            .max(1);
        let mut done_batches = 0;
        let scored = score_all(
            &used_keys,
            &used_lengths,
            self.settings.batch_size,
            Stored {
                cache: self.cache.as_deref(),
                fingerprint: &self.fingerprint(),
                valid: &|row| {
                    row.len() == self.head.width()
                        && row.iter().all(|x| x.is_finite() && (0.0..=1.0).contains(x))
                        && (matches!(self.head, OutputHead::Sigmoid { .. })
                            || (row.iter().sum::<f32>() - 1.0).abs() < 1e-3)
                },
            },
            &mut usage,
            &|batch| self.encode(batch),
            &mut |enc| {
                let r = self.infer(enc);
                done_batches += 1;
                progress(total_claims * done_batches / n_batches);
                r
            },
        );
        let mut probs: HashMap<usize, Output> = HashMap::new();
        match scored {
            Ok(results) => {
                for (&pi, r) in used.iter().zip(results) {
                    probs.insert(pi, r);
                }
            }
            Err(e) => {
                for &pi in &used {
                    probs.insert(pi, Err(e.clone()));
                }
            }
        }
        if let Ok(mut u) = self.usage.lock() {
            u.add(&usage);
        }

        let out = input
            .claims
            .iter()
            .zip(claim_pairs)
            .map(|(c, pairs)| {
                let pairs = pairs?;
                let prep = &prepared[&input.contexts[c.context].passages_key()];
                let ctx = &input.contexts[c.context];
                let mut scored_windows: Vec<(&Window, &Vec<f32>)> = Vec::new();
                for (wr, pi) in pairs {
                    let w = match wr {
                        WinRef::Shared(i) => &prep.windows[i],
                        WinRef::Part(i) => &parts[i],
                    };
                    match &probs[&pi] {
                        Ok(p) => scored_windows.push((w, p)),
                        Err(e) => return Err(e.clone()),
                    }
                }
                decide(
                    &self.head,
                    self.settings.threshold,
                    c.text,
                    ctx,
                    &prep.passage_words,
                    &scored_windows,
                )
            })
            .collect();
        progress(total_claims);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_names_match_whole_never_as_substrings() {
        let l = |xs: &[&str]| xs.iter().map(|x| x.to_lowercase()).collect::<Vec<String>>();
        for labels in [
            ["not_entailment", "entailment"],
            ["NOT_ENTAILMENT", "ENTAILMENT"],
            ["non-entailment", "entailment"],
            ["Non Entailment", "Entailment"],
        ] {
            assert_eq!(
                find_label(&l(&labels), SUPPORTED_NAMES),
                Some(1),
                "{labels:?}"
            );
        }
        assert_eq!(
            find_label(&l(&["not_entailment", "label_1"]), SUPPORTED_NAMES),
            None
        );
        assert_eq!(
            find_label(&l(&["non-contradiction", "neutral"]), CONTRADICTED_NAMES),
            None
        );
        assert_eq!(
            find_label(&l(&["CONTRADICTION", "x"]), CONTRADICTED_NAMES),
            Some(0)
        );
    }

    #[test]
    fn a_template_is_filled_in_one_pass() {
        let t = "premise: {premise} hypothesis: {claim}";
        let out = crate::io::llm::render_template(
            t,
            &[("premise", "A passage that says {claim}."), ("claim", "X")],
        );
        assert_eq!(out, "premise: A passage that says {claim}. hypothesis: X");
    }

    #[test]
    fn softmax_is_stable_and_rejects_nan() {
        let p = softmax(&[1000.0, 1000.0]).unwrap();
        assert!((p[0] - 0.5).abs() < 1e-6);
        assert!(softmax(&[f32::NAN, 1.0]).is_err());
        assert!(softmax(&[f32::INFINITY, 1.0]).is_err());
    }
}
