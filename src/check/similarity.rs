//! The `similarity` checker: an embedding model's cosine between a claim and its best window.
//!
//! It exists to audit the similarity "groundedness" scores many teams run: embeddings, mean-pooled
//! over the attention mask and L2-normalised, say what a text is about, not whether it follows
//! from another, so a flipped negation barely moves the score. It can only say `supported` (cosine
//! at or above the threshold) or `not_found`; it has no notion of contradiction.

use super::batch::{score_all, ModelUse, Stored};
use super::cache::Cache;
use super::onnx::Model;
use super::windows::{
    passage_sentences, sentence_parts, top_windows, topic_words, windows_of, Window,
};
use super::{CheckError, CheckInput, CheckResult, Checker, Evidence, Label, Verdict};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::{Arc, Mutex};

pub use super::onnx::ModelSettings;

pub struct SimilarityChecker {
    name: String,
    model: Model,
    settings: ModelSettings,
    cache: Option<Arc<Cache>>,
    usage: Mutex<ModelUse>,
}

/// Mean over the attention mask of [batch, seq, hidden] states, L2-normalised; a [batch, hidden]
/// output is taken as already pooled and only normalised.
pub(crate) fn pool(
    shape: &[usize],
    data: &[f32],
    mask: &ndarray::Array2<i64>,
) -> Result<Vec<Vec<f32>>, CheckError> {
    let normalise = |mut v: Vec<f32>| -> Result<Vec<f32>, CheckError> {
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        if !norm.is_finite() || norm == 0.0 {
            return Err(CheckError::NonFinite(
                "the model returned a zero or non-finite embedding".into(),
            ));
        }
        v.iter_mut().for_each(|x| *x /= norm);
        Ok(v)
    };
    match shape {
        [b, l, h] => (0..*b)
            .map(|i| {
                let mut sum = vec![0f32; *h];
                let mut count = 0f32;
                for t in 0..*l {
                    if mask[[i, t]] == 0 {
                        continue;
                    }
                    count += 1.0;
                    let row = &data[(i * l + t) * h..(i * l + t + 1) * h];
                    sum.iter_mut().zip(row).for_each(|(s, x)| *s += x);
                }
                normalise(sum.into_iter().map(|s| s / count.max(1.0)).collect())
            })
            .collect(),
        [b, h] => (0..*b)
            .map(|i| normalise(data[i * h..(i + 1) * h].to_vec()))
            .collect(),
        other => Err(CheckError::Model(format!(
            "embedding output has shape {other:?}; expected [batch, sequence, hidden]"
        ))),
    }
}

/// The fewest values an embedding has: real sentence embeddings have hundreds.
pub(crate) const MIN_EMBEDDING_WIDTH: usize = 16;

fn cosine(a: &[f32], b: &[f32]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (*x as f64) * (*y as f64))
        .sum()
}

/// The verdict rule of the similarity checker: `supported` when the cosine of the claim and its
/// closest window reaches `threshold`, else `not_found` (a cosine cannot tell a contradiction).
pub fn decide(
    threshold: f64,
    ctx: &super::ContextSet,
    best: Option<(f64, &Window)>,
) -> CheckResult {
    let (score, w) = best.ok_or_else(|| {
        CheckError::Input("the context set has no sentence to compare with".into())
    })?;
    Ok(Verdict {
        label: if score >= threshold {
            Label::Supported
        } else {
            Label::NotFound
        },
        score: Some(score),
        evidence: Some(Evidence {
            passage: ctx.passages[w.passage].id.clone(),
            window: w.evidence_text(),
        }),
        reason: format!("cosine {score:.3} with the closest window"),
    })
}

impl SimilarityChecker {
    pub fn new(
        name: &str,
        dir: &Path,
        settings: ModelSettings,
        cache: Option<Arc<Cache>>,
    ) -> Result<SimilarityChecker, String> {
        let model = Model::load_on(dir, settings.threads, &settings.providers)?;
        // a classifier's logits are not an embedding: cosines of 3 numbers look like similarity
        // (0.8 for unrelated texts) and mean nothing
        let first = model.outputs.first().map(|p| p.name.as_str()).unwrap_or("");
        if let Some(w) = model.output_width.filter(|w| *w < MIN_EMBEDDING_WIDTH) {
            return Err(format!(
                "model {}: its output `{first}` has {w} values per input, a classifier's scores, not an embedding; `kind: similarity` needs an embedding model (an output of shape [batch, sequence, hidden] or [batch, hidden] with at least {MIN_EMBEDDING_WIDTH} values); for a classifier use `kind: nli`",
                dir.display()
            ));
        }
        if first == "logits" {
            return Err(format!(
                "model {}: its output is `logits`, a classifier's scores, not an embedding; `kind: similarity` needs an embedding model (export it with its last hidden state); for a classifier use `kind: nli`",
                dir.display()
            ));
        }
        Ok(SimilarityChecker {
            name: name.to_string(),
            model,
            settings,
            cache,
            usage: Mutex::new(ModelUse::default()),
        })
    }

    fn fingerprint(&self) -> String {
        format!("embed|{}|max{}", self.model.hash, self.model.max_len)
    }

    fn lengths(&self, texts: &[String]) -> Result<Vec<usize>, CheckError> {
        texts
            .iter()
            .map(|t| self.model.token_len(t, None).map_err(CheckError::Model))
            .collect()
    }

    /// Embeddings of distinct texts (that fit the model), through the cache.
    fn embed(
        &self,
        texts: &[String],
        lengths: &[usize],
        usage: &mut ModelUse,
    ) -> Result<Vec<Result<Vec<f32>, CheckError>>, CheckError> {
        let keys: Vec<(String, String)> =
            texts.iter().map(|t| (String::new(), t.clone())).collect();
        score_all(
            &keys,
            lengths,
            self.settings.batch_size,
            self.model.sessions(),
            Stored {
                cache: self.cache.as_deref(),
                fingerprint: &self.fingerprint(),
                // stored embeddings are L2-normalised: a cut or corrupted row is not
                valid: &|row| {
                    !row.is_empty()
                        && row.iter().all(|x| x.is_finite())
                        && (row.iter().map(|x| x * x).sum::<f32>().sqrt() - 1.0).abs() < 1e-3
                },
            },
            usage,
            &|batch| {
                let items: Vec<(&str, Option<&str>)> =
                    batch.iter().map(|(_, t)| (t.as_str(), None)).collect();
                self.model.encode(&items).map_err(CheckError::Model)
            },
            &|w, (ids, mask, types)| {
                let (shape, data) = self
                    .model
                    .run_arrays_on(w, &ids, &mask, &types)
                    .map_err(CheckError::Model)?;
                Ok(pool(&shape, &data, &mask)?.into_iter().map(Ok).collect())
            },
            &mut || {},
        )
    }
}

impl SimilarityChecker {
    /// What the last `check` cost.
    pub fn last_use(&self) -> ModelUse {
        self.usage.lock().map(|u| u.clone()).unwrap_or_default()
    }
}

impl Checker for SimilarityChecker {
    fn name(&self) -> &str {
        &self.name
    }

    fn kind(&self) -> &'static str {
        "similarity"
    }

    fn settings(&self) -> BTreeMap<String, String> {
        let mut m = BTreeMap::from([
            ("model".into(), self.model.dir.display().to_string()),
            ("model_sha256".into(), self.model.hash.clone()),
            ("threshold".into(), format!("{}", self.settings.threshold)),
            (
                "max_window_sentences".into(),
                self.settings.max_window_sentences.to_string(),
            ),
        ]);
        if !self.settings.providers.is_empty() {
            m.insert("providers".into(), self.model.providers.join(","));
        }
        if let Some(k) = self.settings.top_windows {
            m.insert("top_windows".into(), k.to_string());
        }
        m
    }

    fn notes(&self) -> Vec<String> {
        vec![self
            .usage
            .lock()
            .map(|u| u.note(&self.name, "texts"))
            .unwrap_or_default()]
    }

    fn start_notes(&self) {
        if let Ok(mut u) = self.usage.lock() {
            *u = ModelUse::default();
        }
    }

    fn probe(&self, premise: &str, claim: &str) -> Result<Option<Vec<(String, f64)>>, CheckError> {
        let mut usage = ModelUse::default();
        let texts = [premise.to_string(), claim.to_string()];
        let lengths = self.lengths(&texts)?;
        if let Some(len) = lengths.iter().find(|l| **l > self.model.max_len) {
            return Err(CheckError::TooLong(format!(
                "a text is {len} tokens; the model takes {}",
                self.model.max_len
            )));
        }
        let e = self.embed(&texts, &lengths, &mut usage)?;
        let (a, b) = (e[0].clone()?, e[1].clone()?);
        Ok(Some(vec![(
            "cosine".into(),
            cosine(&a, &b).clamp(-1.0, 1.0),
        )]))
    }

    #[allow(clippy::too_many_lines)] // one pass over a run: windows, embeddings, verdicts
    fn check(&self, input: &CheckInput<'_>, progress: &mut dyn FnMut(usize)) -> Vec<CheckResult> {
        let mut usage = ModelUse::default();
        let mut windows: HashMap<usize, Vec<Window>> = HashMap::new();
        let mut window_words: HashMap<usize, Vec<std::collections::HashSet<String>>> =
            HashMap::new();
        let mut texts: Vec<String> = Vec::new();
        let mut index: HashMap<String, usize> = HashMap::new();
        let mut intern = |t: &str| -> usize {
            *index.entry(t.to_string()).or_insert_with(|| {
                texts.push(t.to_string());
                texts.len() - 1
            })
        };
        // per claim: its text and its windows, as text ids
        let mut plan: Vec<(usize, Vec<(usize, usize)>)> = Vec::new();
        for c in &input.claims {
            let key = input.contexts[c.context].passages_key();
            let ws = windows.entry(key).or_insert_with(|| {
                let max = self.model.max_len;
                windows_of(
                    &passage_sentences(&input.contexts[c.context].passages),
                    self.settings.max_window_sentences,
                )
                .into_iter()
                .flat_map(|w| {
                    // a sentence too long for the model: overlapping pieces that fit (a text
                    // never has more tokens than bytes plus the two special tokens)
                    let long = w.len == 1
                        && w.text.len() + 2 > max
                        && self.model.token_len(&w.text, None).is_ok_and(|l| l > max);
                    if !long {
                        return vec![w];
                    }
                    let mut fits = |t: &str| self.model.token_len(t, None).map(|l| l <= max);
                    match sentence_parts(&w, &mut fits) {
                        Ok(Some(parts)) => parts,
                        _ => vec![w],
                    }
                })
                .collect()
            });
            let chosen: Vec<usize> = match self.settings.top_windows {
                Some(k) => {
                    let words = window_words
                        .entry(key)
                        .or_insert_with(|| ws.iter().map(|w| topic_words(&w.text)).collect());
                    let keep = top_windows(&topic_words(c.text), words, k);
                    usage.considered += ws.len();
                    usage.skipped += ws.len() - keep.len();
                    keep
                }
                None => (0..ws.len()).collect(),
            };
            let wids = chosen
                .into_iter()
                .map(|wi| (wi, intern(&ws[wi].text)))
                .collect();
            plan.push((intern(c.text), wids));
        }
        let lengths = match self.lengths(&texts) {
            Ok(l) => l,
            Err(e) => return input.claims.iter().map(|_| Err(e.clone())).collect(),
        };
        let max = self.model.max_len;
        // texts over the model's length are never embedded (and never truncated)
        let fits: Vec<usize> = (0..texts.len()).filter(|&i| lengths[i] <= max).collect();
        let fit_texts: Vec<String> = fits.iter().map(|&i| texts[i].clone()).collect();
        let fit_lengths: Vec<usize> = fits.iter().map(|&i| lengths[i]).collect();
        let mut embedded: Vec<Option<Result<Vec<f32>, CheckError>>> = vec![None; texts.len()];
        match self.embed(&fit_texts, &fit_lengths, &mut usage) {
            Ok(e) => {
                for (&i, r) in fits.iter().zip(e) {
                    embedded[i] = Some(r);
                }
            }
            Err(e) => return input.claims.iter().map(|_| Err(e.clone())).collect(),
        }
        if let Ok(mut u) = self.usage.lock() {
            u.add(&usage);
        }
        let out = input
            .claims
            .iter()
            .zip(plan)
            .map(|(c, (claim_id, wids))| {
                let ctx = &input.contexts[c.context];
                let ce = match &embedded[claim_id] {
                    Some(r) => r.clone()?,
                    None => {
                        return Err(CheckError::TooLong(format!(
                            "the claim is {} tokens, longer than the model's {max}; it was not scored (nothing was truncated)",
                            lengths[claim_id]
                        )))
                    }
                };
                let mut best: Option<(f64, &Window)> = None;
                for (wi, tid) in wids {
                    let w = &windows[&input.contexts[c.context].passages_key()][wi];
                    let Some(we) = &embedded[tid] else {
                        if w.len == 1 && w.part.is_none() {
                            return Err(CheckError::TooLong(format!(
                                "a sentence of passage {} is {} tokens, longer than the model's {max}; it cannot be narrowed, so this case was not scored",
                                ctx.passages[w.passage].id, lengths[tid]
                            )));
                        }
                        continue; // narrowed: its single sentences are compared instead
                    };
                    // a score is in [0, 1]: a verbatim claim's cosine rounds to 1.0000001 in
                    // f32, and a negative cosine is no support at all
                    let s = cosine(&ce, we.as_ref().map_err(|e| e.clone())?).clamp(0.0, 1.0);
                    if best.is_none_or(|(b, _)| s > b) {
                        best = Some((s, w));
                    }
                }
                decide(self.settings.threshold, ctx, best)
            })
            .collect();
        progress(input.claims.len());
        out
    }
}
