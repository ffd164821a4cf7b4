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

pub mod head;

use super::batch::{score_all, ModelUse, Output, Stored};
use super::cache::Cache;
use super::onnx::Model;
pub use super::onnx::{LabelMap, LabelRef};
use super::windows::{
    passage_sentences, sentence_parts, top_windows, topic_words, windows_of, Window,
};
use super::{CheckError, CheckInput, CheckResult, Checker, Evidence, Label, Verdict};
use head::{resolve_head, OutputHead};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;
use std::sync::{Arc, Mutex};

pub use super::onnx::ModelSettings;

pub struct NliChecker {
    name: String,
    model: Model,
    settings: ModelSettings,
    head: OutputHead,
    cache: Option<Arc<Cache>>,
    usage: Mutex<ModelUse>,
    /// How far a pair's outputs move when it shares a batch ([`NliChecker::batch_dependence`]).
    dependence: f32,
}

/// The most a pair's raw outputs may move, relative to their size, when it shares a batch with
/// others, for the model to be batched: beyond it every pair is scored alone.
pub const BATCH_DEPENDENCE_LIMIT: f32 = 1e-5;

/// Pairs of different lengths (so a batch pads them) that probe a model's batch dependence.
const PROBE_PAIRS: [(&str, &str); 3] = [
    ("Export links expire after 7 days.", "Export links expire after 7 days."),
    (
        "Team plans are billed monthly, and the current month is not refunded when a plan is cancelled.",
        "Team plans are billed every month.",
    ),
    (
        "Workspace owners can export all data as a ZIP file from the settings page at any time, audit logs and member lists included.",
        "Owners can export data.",
    ),
];

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

/// A guess from model.onnx's bytes that its activations are quantised per batch (ONNX
/// Runtime's dynamic int8 writes a `DynamicQuantizeLinear` node), so that it will be scored one
/// pair per call and can be loaded into single-threaded sessions at once. Only a guess: the
/// probe ([`NliChecker::batch_dependence`]) decides, and a wrong guess costs one more load.
fn quantised_per_batch(model: &[u8]) -> bool {
    memchr::memmem::find(model, b"DynamicQuantizeLinear").is_some()
}

impl NliChecker {
    pub fn new(
        name: &str,
        dir: &Path,
        settings: ModelSettings,
        cache: Option<Arc<Cache>>,
    ) -> Result<NliChecker, String> {
        // one pair is too little work to share between threads, but calls side by side keep
        // the cores busy: as many as the threads asked for, never more than the cores
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let split = settings.threads.min(cores);
        let model = Model::load_split_if(
            dir,
            settings.threads,
            &settings.providers,
            split,
            quantised_per_batch,
        )?;
        let head = resolve_head(&model, settings.labels.as_ref())?;
        let mut checker = NliChecker {
            name: name.to_string(),
            model,
            settings,
            head,
            cache,
            usage: Mutex::new(ModelUse::default()),
            dependence: 0.0,
        };
        // a model that cannot take the probe (too short a limit) is batched as configured;
        // the probe scores the same on a single-threaded session as on a session of more
        checker.dependence = checker.batch_dependence().unwrap_or(0.0);
        if checker.one_pair_per_call() {
            checker.model.split_sessions(split)?;
        } else {
            // loaded split on the guess that it quantises per batch, but it does not
            checker.model.join_sessions(checker.settings.threads)?;
        }
        Ok(checker)
    }

    /// How far one pair's raw outputs move when it shares a batch: the largest difference over
    /// three pairs of different lengths scored alone and together, relative to the outputs'
    /// size. 0 for a model whose every row is its own (fp32); more for one that quantises
    /// activations with one scale per batch (ONNX Runtime's dynamic int8), whose scores then
    /// depend on what else is in the batch, so a cached rerun or a merge would change verdicts.
    pub fn batch_dependence(&self) -> Result<f32, CheckError> {
        let keys: Vec<(String, String)> = PROBE_PAIRS
            .iter()
            .map(|(p, c)| (p.to_string(), c.to_string()))
            .collect();
        let raw = |batch: &[&(String, String)]| -> Result<Vec<f32>, CheckError> {
            let enc = self.encode(batch)?;
            self.model
                .run_arrays(&enc.0, &enc.1, &enc.2)
                .map(|(_, data)| data)
                .map_err(CheckError::Model)
        };
        let mut alone = Vec::new();
        for k in &keys {
            alone.extend(raw(&[k])?);
        }
        let together = raw(&keys.iter().collect::<Vec<_>>())?;
        if alone.len() != together.len() {
            return Ok(f32::INFINITY);
        }
        let scale = 1.0 + alone.iter().fold(0f32, |m, x| m.max(x.abs()));
        Ok(alone
            .iter()
            .zip(&together)
            .fold(0f32, |m, (a, b)| m.max((a - b).abs()))
            / scale)
    }

    /// Whether pairs are scored one per model call: when the model's scores depend on its
    /// batch, so that every score is the pair's own whatever else is scored or cached.
    pub fn one_pair_per_call(&self) -> bool {
        self.dependence > BATCH_DEPENDENCE_LIMIT
    }

    /// The line doctor and the notes say about batch dependence.
    pub fn batch_note(&self) -> String {
        if self.one_pair_per_call() {
            format!(
                "{}: this model's outputs move by up to {:.2}% when a pair shares a batch (activations quantised per batch, as ONNX Runtime's dynamic int8 does), so its pairs are scored one per call{}: every score is the pair's own, whatever else is scored or cached",
                self.name,
                100.0 * self.dependence,
                match self.model.sessions() {
                    1 => String::new(),
                    n => format!(", {n} calls side by side on single-threaded sessions"),
                }
            )
        } else {
            format!(
                "{}: a pair scores the same alone and in a batch; pairs go {} per call",
                self.name, self.settings.batch_size
            )
        }
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

    /// Label probabilities for a tokenised batch, on the model's first session.
    fn infer(&self, enc: super::onnx::Encoded) -> Result<Vec<Output>, CheckError> {
        self.infer_on(0, enc)
    }

    /// [`NliChecker::infer`] on session `worker`.
    fn infer_on(
        &self,
        worker: usize,
        enc: super::onnx::Encoded,
    ) -> Result<Vec<Output>, CheckError> {
        let n = enc.0.nrows();
        let (shape, data) = self
            .model
            .run_arrays_on(worker, &enc.0, &enc.1, &enc.2)
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
        let mut n = vec![self.last_use().note(&self.name, "premise-claim pairs")];
        if self.one_pair_per_call() {
            n.push(self.batch_note());
        }
        n
    }

    fn doctor_notes(&self) -> Vec<String> {
        vec![self.batch_note()]
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
        let prepared = self.prepare(input);
        let mut pairs = Pairs::default();
        let full = full_scan();
        let prep_of =
            |c: &super::ClaimToCheck<'_>| &prepared[&input.contexts[c.context].passages_key()];
        // each claim's windows, the claims side by side
        let chosen: Vec<Vec<usize>> =
            side_by_side(&input.claims, |c| self.chosen_windows(c.text, prep_of(c)));
        if self.settings.top_windows.is_some() {
            for (c, ch) in input.claims.iter().zip(&chosen) {
                let all = prep_of(c).windows.len();
                usage.considered += all;
                usage.skipped += all - ch.len();
            }
        }
        if self.settings.template.is_none() {
            // the texts of the pairs, read by the tokenizer side by side before they are paired
            let texts = input.claims.iter().zip(&chosen).flat_map(|(c, ch)| {
                let prep = prep_of(c);
                ch.iter()
                    .map(|&wi| prep.windows[wi].text.as_str())
                    .chain([c.text])
            });
            pairs.read_all(self, texts);
        }
        let claim_pairs: Vec<Result<Vec<(WinRef, usize)>, CheckError>> = input
            .claims
            .iter()
            .zip(chosen)
            .map(|(c, chosen)| {
                let ctx = &input.contexts[c.context];
                let prep = prep_of(c);
                let mut cp = self.claim_pairs(c.text, ctx, prep, chosen, &mut pairs)?;
                if !full {
                    promising_first(&mut cp, c.text, prep, &pairs, &mut usage);
                }
                Ok(cp)
            })
            .collect();
        let total_claims = input.claims.len();
        let (probs, early) = self.score_in_rounds(&claim_pairs, &pairs, &mut usage, full, progress);
        usage.stopped_early += early.iter().filter(|e| e.is_some()).count();
        usage.claims += total_claims;
        if let Ok(mut u) = self.usage.lock() {
            u.add(&usage);
        }

        let out = input
            .claims
            .iter()
            .zip(claim_pairs)
            .zip(early)
            .map(|((c, claim_pairs), early)| {
                let mut claim_pairs = claim_pairs?;
                if let Some(at) = early {
                    // decided by the window it stopped at (the windows before it are below)
                    claim_pairs = vec![claim_pairs[at]];
                }
                let prep = &prepared[&input.contexts[c.context].passages_key()];
                let ctx = &input.contexts[c.context];
                let mut scored_windows: Vec<(&Window, &Vec<f32>)> = Vec::new();
                for (wr, pi) in claim_pairs {
                    let w = match wr {
                        WinRef::Shared(i) => &prep.windows[i],
                        WinRef::Part(i) => &pairs.parts[i],
                    };
                    match &probs[&pi] {
                        Ok(p) => scored_windows.push((w, p)),
                        Err(e) => return Err(e.clone()),
                    }
                }
                let mut v = decide(
                    &self.head,
                    self.settings.threshold,
                    c.text,
                    ctx,
                    &prep.passage_words,
                    &scored_windows,
                )?;
                if let Some(at) = early {
                    v.reason.push_str(&format!(
                        " (the scan stopped at the claim's {}most promising window, over the threshold: the score is that window's, a full scan's may be higher; --full-scan scores every window)",
                        ["", "second ", "third "].get(at).copied().unwrap_or("next ")
                    ));
                }
                Ok(v)
            })
            .collect();
        progress(total_claims);
        out
    }
}

/// How many windows of a claim are tried one at a time, most promising first, before the rest
/// are scored together.
pub const EARLY_ROUNDS: usize = 3;

/// Whether every window of every claim is scored (`--full-scan`, and always for `sweep` and
/// `report`, whose thresholds need each claim's best score), rather than stopping at a window
/// over the threshold.
static FULL_SCAN: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Sets [`full_scan`] for the process.
pub fn set_full_scan(on: bool) {
    FULL_SCAN.store(on, std::sync::atomic::Ordering::SeqCst);
}

pub fn full_scan() -> bool {
    FULL_SCAN.load(std::sync::atomic::Ordering::SeqCst)
}

/// `f` of every item, in order, the items cut into one run a core, the runs side by side (on
/// one core, or for a few items, one after the other here).
fn side_by_side<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    // below this many items a thread costs more than it saves
    const AT_LEAST: usize = 32;
    let runs = cores.min(items.len() / AT_LEAST).max(1);
    if runs == 1 {
        return items.iter().map(f).collect();
    }
    let f = &f;
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(items.len().div_ceil(runs))
            .map(|run| scope.spawn(move || run.iter().map(f).collect::<Vec<R>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    })
}

/// Orders a claim's pairs by lexical promise (most shared topic words with the claim first; ties
/// keep the passage order) and leaves out the windows that share no topic word with it, unless
/// none does.
fn promising_first(
    cp: &mut Vec<(WinRef, usize)>,
    claim: &str,
    prep: &Prepared,
    pairs: &Pairs,
    usage: &mut ModelUse,
) {
    let words = topic_words(claim);
    let shared = |(wr, pi): &(WinRef, usize)| match wr {
        WinRef::Shared(i) if !prep.window_words.is_empty() => {
            words.intersection(&prep.window_words[*i]).count()
        }
        _ => words.intersection(&topic_words(&pairs.keys[*pi].0)).count(),
    };
    let mut ranked: Vec<(usize, (WinRef, usize))> = cp.drain(..).map(|p| (shared(&p), p)).collect();
    // stable: equal promise keeps the passage order
    ranked.sort_by_key(|r| std::cmp::Reverse(r.0));
    let any = ranked.first().is_some_and(|(n, _)| *n > 0);
    let before = ranked.len();
    cp.extend(
        ranked
            .into_iter()
            .filter(|(n, _)| !any || *n > 0)
            .map(|(_, p)| p),
    );
    usage.unshared += before - cp.len();
}

/// The distinct premise-claim pairs of a run, each with its token length, and the pieces of
/// over-long sentences made for single claims.
#[derive(Default)]
struct Pairs {
    index: HashMap<(String, String), usize>,
    keys: Vec<(String, String)>,
    lengths: Vec<usize>,
    /// Pieces of over-long sentences, made per claim (their size depends on the claim).
    parts: Vec<Window>,
    /// The texts pairs are made of, each read by the tokenizer once (no template).
    reads: HashMap<String, tokenizers::Encoding>,
}

impl Pairs {
    /// A text's token count without special tokens, read the first time it is asked for.
    fn read(&mut self, checker: &NliChecker, text: &str) -> Result<usize, String> {
        if let Some(e) = self.reads.get(text) {
            return Ok(e.len());
        }
        let e = checker.model.read_alone(text)?;
        let n = e.len();
        self.reads.insert(text.to_string(), e);
        Ok(n)
    }

    /// Reads every text of `texts` not read yet, side by side on the cores (the tokenizer is
    /// most of the time before the first model call). A text the tokenizer fails on is left to
    /// [`Pairs::read`], which reports it where it is used.
    fn read_all<'t>(&mut self, checker: &NliChecker, texts: impl Iterator<Item = &'t str>) {
        let mut seen = HashSet::new();
        let todo: Vec<&str> = texts
            .filter(|t| !self.reads.contains_key(*t) && seen.insert(*t))
            .collect();
        for (t, read) in side_by_side(&todo, |t| (*t, checker.model.read_alone(t))) {
            if let Ok(e) = read {
                self.reads.insert(t.to_string(), e);
            }
        }
    }

    /// The index of a pair, measured and added when it is new.
    fn intern(&mut self, checker: &NliChecker, key: (String, String)) -> Result<usize, String> {
        if let Some(&pi) = self.index.get(&key) {
            return Ok(pi);
        }
        let len = match checker.settings.template {
            Some(_) => checker.pair_len(&key.0, &key.1)?,
            None => {
                self.read(checker, &key.0)?
                    + self.read(checker, &key.1)?
                    + checker.model.pair_specials()
            }
        };
        self.keys.push(key.clone());
        self.lengths.push(len);
        self.index.insert(key, self.keys.len() - 1);
        Ok(self.keys.len() - 1)
    }
}

impl NliChecker {
    /// The windows and topic words of every context set a claim cites, each set once, the sets
    /// side by side on the cores.
    fn prepare(&self, input: &CheckInput<'_>) -> HashMap<usize, Prepared> {
        let mut seen = HashSet::new();
        let distinct: Vec<(usize, &super::ContextSet)> = input
            .claims
            .iter()
            .map(|c| &input.contexts[c.context])
            .filter(|ctx| seen.insert(ctx.passages_key()))
            .map(|ctx| (ctx.passages_key(), ctx))
            .collect();
        let words = self.settings.top_windows.is_some() || !full_scan();
        side_by_side(&distinct, |(key, ctx)| {
            let windows = windows_of(
                &passage_sentences(&ctx.passages),
                self.settings.max_window_sentences,
            );
            let prep = Prepared {
                window_words: if words {
                    windows.iter().map(|w| topic_words(&w.text)).collect()
                } else {
                    Vec::new()
                },
                windows,
                passage_words: ctx.passages.iter().map(|p| topic_words(&p.text)).collect(),
            };
            (*key, prep)
        })
        .into_iter()
        .collect()
    }

    /// The windows of a claim's context set it is scored on: those `top_windows` keeps, else all.
    fn chosen_windows(&self, claim: &str, prep: &Prepared) -> Vec<usize> {
        match self.settings.top_windows {
            Some(k) => top_windows(&topic_words(claim), &prep.window_words, k),
            None => (0..prep.windows.len()).collect(),
        }
    }

    /// The pairs one claim is scored on: its context set's `chosen` windows;
    /// a window too long with the claim leaves it to its shorter windows, and a single sentence
    /// too long is cut into overlapping pieces that fit. An error when not even one word of a
    /// passage fits with the claim, or a length cannot be measured.
    fn claim_pairs(
        &self,
        claim: &str,
        ctx: &super::ContextSet,
        prep: &Prepared,
        chosen: Vec<usize>,
        pairs: &mut Pairs,
    ) -> Result<Vec<(WinRef, usize)>, CheckError> {
        let mut out = Vec::new();
        for wi in chosen {
            let w = &prep.windows[wi];
            let pi = pairs
                .intern(self, (w.text.clone(), claim.to_string()))
                .map_err(CheckError::Model)?;
            if pairs.lengths[pi] <= self.model.max_len {
                out.push((WinRef::Shared(wi), pi));
                continue;
            }
            if w.len > 1 {
                continue; // narrowed: the window's shorter windows are scored instead
            }
            // one sentence too long for the model: overlapping pieces that fit with the claim
            let max = self.model.max_len;
            let mut fits = |t: &str| self.pair_len(t, claim).map(|l| l <= max);
            match sentence_parts(w, &mut fits) {
                Err(e) => return Err(CheckError::Model(e)),
                Ok(None) => {
                    return Err(CheckError::TooLong(format!(
                        "the claim itself is too long for the model: with even one word of passage {} it exceeds the model's {} tokens (nothing was truncated)",
                        ctx.passages[w.passage].id, max
                    )));
                }
                Ok(Some(pieces)) => {
                    for piece in pieces {
                        let pi = pairs
                            .intern(self, (piece.text.clone(), claim.to_string()))
                            .map_err(CheckError::Model)?;
                        pairs.parts.push(piece);
                        out.push((WinRef::Part(pairs.parts.len() - 1), pi));
                    }
                }
            }
        }
        Ok(out)
    }

    /// Scores the pairs the claims need: under `full`, all of them; else each claim's most
    /// promising window first, then the next of each claim left unsettled, for
    /// [`EARLY_ROUNDS`] rounds, then every window of the claims still unsettled. The outputs by
    /// pair, and for each claim the round whose window settled it (None: decided on all).
    fn score_in_rounds(
        &self,
        claim_pairs: &[Result<Vec<(WinRef, usize)>, CheckError>],
        pairs: &Pairs,
        usage: &mut ModelUse,
        full: bool,
        progress: &mut dyn FnMut(usize),
    ) -> (HashMap<usize, Output>, Vec<Option<usize>>) {
        // the most promising window of every claim first, then the next of each claim it left
        // unsettled, for a few rounds: a claim one of them supports needs no other window
        let threshold = self.settings.threshold;
        let over = |o: Option<&Output>| {
            o.is_some_and(|o| {
                o.as_ref()
                    .is_ok_and(|p| (p[self.head.supported()] as f64).clamp(0.0, 1.0) >= threshold)
            })
        };
        let mut probs: HashMap<usize, Output> = HashMap::new();
        let mut stop: Vec<Option<usize>> = vec![None; claim_pairs.len()];
        for round in 0..if full { 0 } else { EARLY_ROUNDS } {
            let next: Vec<usize> = claim_pairs
                .iter()
                .zip(&stop)
                .filter(|(_, s)| s.is_none())
                .filter_map(|(r, _)| r.as_ref().ok()?.get(round).map(|(_, pi)| *pi))
                .filter(|pi| !probs.contains_key(pi))
                .collect();
            if next.is_empty() {
                break;
            }
            probs.extend(self.score_used(next, pairs, usage, claim_pairs.len(), progress));
            for (r, s) in claim_pairs.iter().zip(stop.iter_mut()) {
                if let (Ok(cp), None) = (r, &s) {
                    if cp.get(round).is_some_and(|(_, pi)| over(probs.get(pi))) {
                        *s = Some(round);
                    }
                }
            }
        }
        let early: Vec<Option<usize>> = stop;
        let rest: Vec<usize> = claim_pairs
            .iter()
            .zip(&early)
            .filter(|(_, e)| e.is_none())
            .filter_map(|(r, _)| r.as_ref().ok())
            .flatten()
            .map(|(_, pi)| *pi)
            .filter(|pi| !probs.contains_key(pi))
            .collect();
        probs.extend(self.score_used(rest, pairs, usage, claim_pairs.len(), progress));
        (probs, early)
    }

    /// The model's outputs for `used` pairs, by pair index: through the cache, the rest in
    /// batches, reporting progress in claims as batches finish.
    fn score_used(
        &self,
        used: Vec<usize>,
        pairs: &Pairs,
        usage: &mut ModelUse,
        total_claims: usize,
        progress: &mut dyn FnMut(usize),
    ) -> HashMap<usize, Output> {
        let mut used: Vec<usize> = used
            .into_iter()
            .collect::<HashSet<_>>()
            .into_iter()
            .collect();
        used.sort_unstable();
        if used.is_empty() {
            return HashMap::new();
        }
        let used_keys: Vec<(String, String)> =
            used.iter().map(|&i| pairs.keys[i].clone()).collect();
        let used_lengths: Vec<usize> = used.iter().map(|&i| pairs.lengths[i]).collect();
        let batch_size = if self.one_pair_per_call() {
            1
        } else {
            self.settings.batch_size
        };
        let n_batches = used_keys.len().div_ceil(batch_size.max(1)).max(1);
        let mut done_batches = 0;
        let scored = score_all(
            &used_keys,
            &used_lengths,
            batch_size,
            self.model.sessions(),
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
            usage,
            &|batch| {
                // the texts as read when the pairs were measured; else read again
                let read: Option<Vec<_>> = batch
                    .iter()
                    .map(|(a, b)| Some((pairs.reads.get(a)?, pairs.reads.get(b)?)))
                    .collect();
                match read {
                    Some(r) if self.settings.template.is_none() => {
                        self.model.encode_joined(&r).map_err(CheckError::Model)
                    }
                    _ => self.encode(batch),
                }
            },
            &|w, enc| self.infer_on(w, enc),
            &mut || {
                done_batches += 1;
                progress(total_claims * done_batches / n_batches);
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
        probs
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_model_with_a_dynamic_quantisation_node_is_guessed_to_quantise_per_batch() {
        assert!(super::quantised_per_batch(
            b"\x08\x07op_type\x12\x15DynamicQuantizeLinear\x1a\x03"
        ));
        assert!(!super::quantised_per_batch(
            b"MatMul Gelu QuantizeLinear DequantizeLinear"
        ));
        assert!(!super::quantised_per_batch(b""));
    }

    #[test]
    fn side_by_side_keeps_the_order_of_its_items() {
        for n in [0, 1, 31, 32, 64, 65, 1001] {
            let items: Vec<usize> = (0..n).collect();
            let out = super::side_by_side(&items, |i| i * 3);
            assert_eq!(out, (0..n).map(|i| i * 3).collect::<Vec<_>>(), "{n} items");
        }
    }

    #[test]
    #[should_panic(expected = "item 500")]
    fn a_panic_on_a_side_thread_is_the_callers() {
        let items: Vec<usize> = (0..1000).collect();
        super::side_by_side(&items, |&i| {
            assert_ne!(i, 500, "item {i}");
            i
        });
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
}
