//! Batch mode's side of every LLM call: replies that a provider's batch API returned, kept in
//! the verdict cache file, and the requests a run under `--batch submit` queues instead of
//! sending.
//!
//! Each LLM client asks here before it sends anything. A reply collected from a batch
//! (`faithprobe batch collect`) answers the call as an online reply would, through the same
//! validation; a request the provider failed or expired is an error of its case (never a pass)
//! until `--batch submit --retry-failed` asks again. Under `--batch submit` a call with no reply
//! is queued (once, however many cases share its prompt) or, when a batch submitted earlier
//! already holds it, waits for that batch: it is never paid for twice.

use super::cache::Cache;
use super::price::Price;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Which batch API a client's batches go to.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Provider {
    /// The OpenAI Batch API: a JSONL file uploaded to `/files`, then `POST /batches`.
    Openai,
    /// Anthropic Message Batches: `POST /messages/batches`.
    Anthropic,
}

impl Provider {
    pub fn name(self) -> &'static str {
        match self {
            Provider::Openai => "openai",
            Provider::Anthropic => "anthropic",
        }
    }

    /// The most requests and bytes one batch may hold, as the provider documents them.
    pub fn limits(self) -> (usize, usize) {
        match self {
            Provider::Openai => (50_000, 200 * 1000 * 1000),
            Provider::Anthropic => (100_000, 256 * 1000 * 1000),
        }
    }
}

/// The longest first wait between status checks: a day, a batch's whole window.
pub const MAX_POLL_S: f64 = 86_400.0;

/// `batch:` under an endpoint in faithprobe.yaml: where `--batch` sends its requests.
#[derive(Debug, Clone, PartialEq, serde::Deserialize, schemars::JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "batch settings: `provider` (openai or anthropic) and optional `base_url`, `api_key_env`, `max_tokens`, `poll_s`, `max_requests`, `max_bytes`"
)]
pub struct BatchConfig {
    pub provider: Provider,
    /// The batch API's base URL, `/v1` included (default: the endpoint's `base_url`).
    pub base_url: Option<String>,
    /// The variable holding the batch API's key (default: the endpoint's `api_key_env`).
    pub api_key_env: Option<String>,
    /// The most tokens a reply may have (Anthropic requires it; default 1024).
    pub max_tokens: Option<u32>,
    /// The first wait between status checks under `--batch wait`, in seconds (default 30;
    /// doubles up to 600).
    pub poll_s: Option<f64>,
    /// Split a submission into batches of at most this many requests (default and most: the
    /// provider's limit).
    pub max_requests: Option<usize>,
    /// ... and at most this many bytes (default and most: the provider's limit).
    pub max_bytes: Option<usize>,
}

impl BatchConfig {
    /// The settings' own checks.
    pub fn validate(&self) -> Result<(), String> {
        let (most_requests, most_bytes) = self.provider.limits();
        if let Some(p) = self.poll_s {
            if !(p.is_finite() && p > 0.0 && p <= MAX_POLL_S) {
                return Err(format!(
                    "batch: poll_s {p} must be a positive number of seconds, at most {MAX_POLL_S}"
                ));
            }
        }
        if self
            .max_requests
            .is_some_and(|n| n == 0 || n > most_requests)
        {
            return Err(format!(
                "batch: max_requests must be between 1 and {most_requests} (the most one {} batch holds)",
                self.provider.name()
            ));
        }
        if self.max_bytes.is_some_and(|n| n < 1024 || n > most_bytes) {
            return Err(format!(
                "batch: max_bytes must be between 1024 and {most_bytes} (the most one {} batch holds)",
                self.provider.name()
            ));
        }
        if self.max_tokens == Some(0) {
            return Err("batch: max_tokens must be at least 1".into());
        }
        if self.base_url.as_ref().is_some_and(|u| u.trim().is_empty()) {
            return Err("batch: base_url must not be empty".into());
        }
        Ok(())
    }
}

/// Where one client's batches go, with everything `batch collect` needs later (never the key
/// itself: the name of its variable).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Target {
    pub provider: Provider,
    pub base_url: String,
    pub api_key_env: Option<String>,
    pub model: String,
    pub max_tokens: u32,
    pub poll_s: f64,
    pub max_requests: usize,
    pub max_bytes: usize,
    pub timeout_s: f64,
    pub max_retries: u32,
    pub backoff_ms: u64,
    pub max_wait_s: f64,
    pub price: Option<Price>,
}

/// A request queued under `--batch submit`.
#[derive(Debug, Clone)]
pub struct Queued {
    pub target: Target,
    /// The reply's place in the cache: the client's fingerprint and [`key`] of the prompt.
    pub fingerprint: String,
    pub key: String,
    pub prompt: String,
    /// Verdicts the reply carries (claims in the prompt), for the cost estimate.
    pub verdicts: usize,
}

/// What the cache holds for one prompt after `batch collect`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stored {
    /// The reply's text (redacted), its tokens, and the batch it came from.
    Reply {
        text: String,
        prompt_tokens: u64,
        completion_tokens: u64,
        batch: String,
    },
    /// The provider failed, expired or lost the request.
    Failed { why: String, batch: String },
}

/// How a run uses batch APIs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Calls go online (replies collected from batches still answer them first).
    Online,
    /// Calls without a reply are queued for a batch; `retry_failed` queues failed ones again.
    Submit { retry_failed: bool },
}

struct State {
    mode: Mode,
    store: Option<PathBuf>,
    cache: Option<Arc<Cache>>,
    /// Requests that batches submitted earlier hold and `batch collect` has not brought back:
    /// (fingerprint, key) to the batch that holds it.
    pending: BTreeMap<(String, String), String>,
    queue: BTreeMap<(String, String), Queued>,
    waiting: usize,
}

static STATE: Mutex<State> = Mutex::new(State {
    mode: Mode::Online,
    store: None,
    cache: None,
    pending: BTreeMap::new(),
    queue: BTreeMap::new(),
    waiting: 0,
});

/// The key of a prompt: the first 40 hex digits of its SHA-256 (also the request's
/// `custom_id` in a batch, after `fp-`).
pub fn key(prompt: &str) -> String {
    crate::text::hash::sha256_hex(prompt.as_bytes(), 20)
}

/// Sets the process's batch mode, the cache file replies are read from (None: no cache, so no
/// replies), and the requests that batches submitted earlier still hold. Empties the queue.
pub fn configure(mode: Mode, store: Option<&Path>, pending: BTreeMap<(String, String), String>) {
    if let Ok(mut s) = STATE.lock() {
        s.mode = mode;
        if s.store.as_deref() != store {
            s.cache = None;
        }
        s.store = store.map(Path::to_path_buf);
        s.pending = pending;
        s.queue.clear();
        s.waiting = 0;
    }
}

pub fn mode() -> Mode {
    STATE.lock().map(|s| s.mode).unwrap_or(Mode::Online)
}

/// Whether failed or invalid batch replies are to be asked for again.
pub fn retry_failed() -> bool {
    matches!(mode(), Mode::Submit { retry_failed: true })
}

/// The cache replies are read from, opened on first use, and only when its file exists (a run
/// that never collected a batch creates no file).
fn cache(s: &mut State) -> Option<Arc<Cache>> {
    if s.cache.is_none() {
        let path = s.store.as_ref()?;
        if !path.exists() {
            return None;
        }
        s.cache = Cache::open(path).ok().map(Arc::new);
    }
    s.cache.clone()
}

/// The reply a batch returned for `prompt` under `fingerprint`, if one was collected.
pub fn lookup(fingerprint: &str, prompt: &str) -> Option<Stored> {
    let cache = STATE.lock().ok().and_then(|mut s| cache(&mut s))?;
    let bytes = cache.get_bytes(fingerprint, &key(prompt), "").ok()??;
    serde_json::from_slice(&bytes).ok()
}

/// What became of a call with no usable reply under the process's mode.
pub enum Route {
    /// Send it online.
    Online,
    /// Queued for the next submission.
    Queued,
    /// A batch submitted earlier holds it; the batch's name.
    Waiting(String),
}

/// Routes a call with no usable reply: online, queued (under `--batch submit`) or waiting for
/// the batch that already holds it.
pub fn route(target: &Target, fingerprint: &str, prompt: &str, verdicts: usize) -> Route {
    let Ok(mut s) = STATE.lock() else {
        return Route::Online;
    };
    if s.mode == Mode::Online {
        return Route::Online;
    }
    let k = (fingerprint.to_string(), key(prompt));
    if let Some(b) = s.pending.get(&k).cloned() {
        s.waiting += 1;
        return Route::Waiting(b);
    }
    s.queue.entry(k.clone()).or_insert_with(|| Queued {
        target: target.clone(),
        fingerprint: k.0,
        key: k.1,
        prompt: prompt.to_string(),
        verdicts,
    });
    Route::Queued
}

/// The queued requests (each prompt once, in a stable order) and how many calls wait for
/// batches submitted earlier; empties the queue.
pub fn take_queue() -> (Vec<Queued>, usize) {
    match STATE.lock() {
        Ok(mut s) => {
            let q = std::mem::take(&mut s.queue).into_values().collect();
            let w = std::mem::take(&mut s.waiting);
            (q, w)
        }
        Err(_) => (Vec::new(), 0),
    }
}

/// Stores collected replies (one transaction).
pub fn put(cache: &Cache, rows: &[(String, String, Stored)]) -> Result<(), String> {
    let blobs: Vec<(String, String, Vec<u8>)> = rows
        .iter()
        .map(|(fp, k, s)| {
            (
                fp.clone(),
                k.clone(),
                serde_json::to_vec(s).unwrap_or_default(),
            )
        })
        .collect();
    type Rows<'a> = Vec<(&'a str, &'a str, &'a [u8])>;
    let mut by_fp: BTreeMap<&str, Rows<'_>> = BTreeMap::new();
    for (fp, k, b) in &blobs {
        by_fp
            .entry(fp.as_str())
            .or_default()
            .push((k.as_str(), "", b.as_slice()));
    }
    for (fp, rows) in by_fp {
        cache.put_bytes(fp, &rows)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prompt_is_queued_once_and_a_pending_one_waits() {
        let t = Target {
            provider: Provider::Openai,
            base_url: "http://127.0.0.1:9/v1".into(),
            api_key_env: None,
            model: "m".into(),
            max_tokens: 10,
            poll_s: 1.0,
            max_requests: 10,
            max_bytes: 10_000,
            timeout_s: 1.0,
            max_retries: 0,
            backoff_ms: 1,
            max_wait_s: 1.0,
            price: None,
        };
        let pending = BTreeMap::from([(("fp".to_string(), key("old")), "b1".to_string())]);
        configure(
            Mode::Submit {
                retry_failed: false,
            },
            None,
            pending,
        );
        assert!(matches!(route(&t, "fp", "p", 1), Route::Queued));
        assert!(matches!(route(&t, "fp", "p", 1), Route::Queued));
        assert!(matches!(route(&t, "fp", "old", 1), Route::Waiting(b) if b == "b1"));
        let (q, waiting) = take_queue();
        assert_eq!((q.len(), waiting), (1, 1));
        assert_eq!(key("p").len(), 40);
        configure(Mode::Online, None, BTreeMap::new());
        assert!(matches!(route(&t, "fp", "p", 1), Route::Online));
    }
}
