//! Scoring many inputs with a model, shared by the `nli` and `similarity` checkers: cached rows
//! first, the rest length-sorted in batches, tokenising one batch ahead of inference on a second
//! thread; and what a run cost ([`ModelUse`]).

use super::cache::Cache;
use super::CheckError;

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
    /// Claims checked, and of those, settled by their most promising window (the scan stopped
    /// there); windows left out for sharing no topic word with their claim.
    pub claims: usize,
    pub stopped_early: usize,
    pub unshared: usize,
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
        self.claims += o.claims;
        self.stopped_early += o.stopped_early;
        self.unshared += o.unshared;
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
        let rejected = if self.stopped_early > 0 || self.unshared > 0 {
            format!(
                "{rejected}; {} of {} claims settled by one of their three most promising windows (the scan stopped there; --full-scan scores every window), {} windows left out for sharing no topic word with their claim",
                self.stopped_early, self.claims, self.unshared
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

/// Turns a batch of keys into model input (tokenising): runs on its own thread, one batch ahead
/// of inference.
pub(crate) type Prepare<'a, P> = dyn Fn(&[&(String, String)]) -> Result<P, CheckError> + Sync + 'a;

/// Runs the model on a prepared batch with worker `w`'s session and returns one output per key.
pub(crate) type Infer<'a, P> = dyn Fn(usize, P) -> Result<Vec<Output>, CheckError> + Sync + 'a;

pub(crate) struct Stored<'a> {
    pub cache: Option<&'a Cache>,
    pub fingerprint: &'a str,
    pub valid: &'a dyn Fn(&[f32]) -> bool,
}

/// Fills `out` with the keys' valid cached rows; the indices of the rest.
fn from_cache(
    keys: &[(String, String)],
    stored: &Stored<'_>,
    usage: &mut ModelUse,
    out: &mut [Option<Output>],
) -> Result<Vec<usize>, CheckError> {
    usage.needed += keys.len();
    let mut missing = Vec::new();
    for (i, (a, b)) in keys.iter().enumerate() {
        match stored
            .cache
            .map(|c| c.get(stored.fingerprint, a, b))
            .transpose()
            .map_err(CheckError::Cache)?
            .flatten()
        {
            Some(v) if (stored.valid)(&v) => {
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
    Ok(missing)
}

/// Scores every key: cached rows first, then the rest in length-sorted batches. Tokenising runs
/// on a second thread one batch ahead of inference, so the model never waits for the tokenizer
/// (nor the tokenizer for the model); `workers` threads run `infer` side by side (one per
/// session of the model), and this thread stores what they return and calls `on_batch` after
/// each batch. Which batch a key is in does not depend on `workers`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn score_all<P: Send>(
    keys: &[(String, String)],
    lengths: &[usize],
    batch_size: usize,
    workers: usize,
    stored: Stored<'_>,
    usage: &mut ModelUse,
    prepare: &Prepare<'_, P>,
    infer: &Infer<'_, P>,
    on_batch: &mut dyn FnMut(),
) -> Result<Vec<Output>, CheckError> {
    let mut out: Vec<Option<Output>> = vec![None; keys.len()];
    let mut missing = from_cache(keys, &stored, usage, &mut out)?;
    let Stored {
        cache, fingerprint, ..
    } = stored;
    missing.sort_by_key(|&i| lengths[i]);
    let chunks: Vec<&[usize]> = missing.chunks(batch_size.max(1)).collect();
    let workers = workers.clamp(1, chunks.len().max(1));
    let mut failure: Option<CheckError> = None;
    std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::sync_channel::<(usize, Result<P, CheckError>)>(workers);
        // the workers share the receiver; when the last of them ends, it is dropped and the
        // producer stops at its next send
        let rx = std::sync::Arc::new(std::sync::Mutex::new(rx));
        let (done_tx, done_rx) =
            std::sync::mpsc::channel::<(usize, Result<Vec<Output>, CheckError>)>();
        let chunks_ref = &chunks;
        scope.spawn(move || {
            for (n, chunk) in chunks_ref.iter().enumerate() {
                if crate::io::interrupt::requested() {
                    break;
                }
                let batch: Vec<&(String, String)> = chunk.iter().map(|&i| &keys[i]).collect();
                // a closed channel: the workers stopped; so do we
                if tx.send((n, prepare(&batch))).is_err() {
                    break;
                }
            }
        });
        for w in 0..workers {
            let rx = std::sync::Arc::clone(&rx);
            let done_tx = done_tx.clone();
            scope.spawn(move || loop {
                let next = match rx.lock() {
                    Ok(r) => r.recv(),
                    Err(_) => break,
                };
                let Ok((n, prepared)) = next else { break };
                if crate::io::interrupt::requested() {
                    break; // the rest stay unscored; what was scored is in the cache
                }
                // a closed channel: the storing thread stopped; so do we
                if done_tx
                    .send((n, prepared.and_then(|p| infer(w, p))))
                    .is_err()
                {
                    break;
                }
            });
        }
        drop((rx, done_tx));
        for (n, result) in done_rx.iter() {
            let chunk = chunks[n];
            usage.batches += 1;
            match result {
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
            on_batch();
        }
        // dropping the results' receiver here ends the workers at their next send
        drop(done_rx);
    });
    if let Some(e) = failure {
        return Err(e);
    }
    Ok(out
        .into_iter()
        .map(|o| o.unwrap_or(Err(CheckError::Interrupted)))
        .collect())
}
