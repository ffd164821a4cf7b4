//! The providers' batch APIs: submitting what a run under `--batch submit` queued, the manifest
//! that remembers it (`.faithprobe/batches/ID.json`, beside the cache), `batch status`, and
//! `batch collect`, which brings the replies back into the cache.
//!
//! - **OpenAI Batch API**: the requests as JSONL uploaded to `{base_url}/files` (purpose
//!   `batch`), then `POST {base_url}/batches` for `/v1/chat/completions` in a 24 h window;
//!   `GET /batches/ID` for progress; the output and error files from `/files/ID/content`.
//! - **Anthropic Message Batches**: `POST {base_url}/messages/batches` with the requests;
//!   `GET /messages/batches/ID`; the results from `/messages/batches/ID/results`, always at
//!   the configured `base_url` (a `results_url` elsewhere would be sent the key).
//!
//! A submission larger than the provider's limits (requests and bytes per batch) is split into
//! several batches under one manifest, written again after each batch is created, so a failure
//! part way leaves every created batch on record and a rerun submits only the rest. Collect
//! streams each result file into the cache in transactions and marks a batch collected only
//! after its whole output is read: a cut download or a kill leaves it to collect again, and
//! collecting again writes the same rows. Every request a batch ended without a reply for
//! (failed, expired, cancelled, missing from the output, or a line that does not read) is
//! stored as failed: an error of its case, never a pass, until `--batch submit --retry-failed`.

use super::cache::Cache;
use super::llm::{display_url, endpoint_url, url_secrets};
use super::replies::{Provider, Queued, Stored, Target};
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, Read};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The manifest's format name.
pub const FORMAT: &str = "faithprobe-batch-1";

/// The folder of a cache's manifests: `batches/` beside the cache file.
pub fn dir_of(cache: &Path) -> PathBuf {
    match cache.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.join("batches"),
        _ => PathBuf::from("batches"),
    }
}

/// One request of a batch: its `custom_id` and its client's fingerprint (by index).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Request {
    pub custom_id: String,
    pub fingerprint: usize,
}

/// One provider batch of a manifest.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Batch {
    /// The provider's id of the batch.
    pub id: String,
    /// The uploaded input file (OpenAI).
    pub input_file: Option<String>,
    pub requests: Vec<Request>,
    /// The provider's status when last seen.
    pub status: String,
    /// True once its results are in the cache.
    pub collected: bool,
    pub succeeded: usize,
    pub failed: usize,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
}

/// What one `--batch submit` sent to one provider, and what is needed to collect it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    pub format: String,
    pub id: String,
    /// When it was submitted, UTC (RFC 3339).
    pub created: String,
    /// The command to rerun once the batches are collected.
    pub command: String,
    /// The suites or log the run read, with the SHA-256 of each.
    pub input: String,
    /// The settings of the run's checker (name and fingerprint).
    pub settings: BTreeMap<String, String>,
    /// The cache file the replies go into.
    pub cache: PathBuf,
    pub target: Target,
    pub fingerprints: Vec<String>,
    pub batches: Vec<Batch>,
}

impl Manifest {
    /// Reads a manifest; anything else is an error that names the file.
    pub fn read(path: &Path) -> Result<Manifest, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("batch manifest {}: cannot be read ({e})", path.display()))?;
        let m: Manifest = serde_json::from_str(&text).map_err(|e| {
            format!(
                "batch manifest {}: not a faithprobe batch manifest ({e}); move it out of {}",
                path.display(),
                path.parent()
                    .map_or(".".into(), |p| p.display().to_string())
            )
        })?;
        if m.format != FORMAT {
            return Err(format!(
                "batch manifest {}: format `{}` is not `{FORMAT}`",
                path.display(),
                m.format
            ));
        }
        // the replies go into the cache the manifest sits beside, never a file it names elsewhere
        let here = path.parent().and_then(|p| std::fs::canonicalize(p).ok());
        let theirs = std::fs::canonicalize(dir_of(&m.cache)).ok();
        if here.is_none() || here != theirs {
            return Err(format!(
                "batch manifest {}: its cache {} is not the one it sits beside ({}); a manifest stays in the `batches/` folder of its cache",
                path.display(),
                m.cache.display(),
                path.parent().map_or(".".into(), |p| p.display().to_string())
            ));
        }
        for b in &m.batches {
            if let Some(r) = b
                .requests
                .iter()
                .find(|r| r.fingerprint >= m.fingerprints.len())
            {
                return Err(format!(
                    "batch manifest {}: request {} names fingerprint {} of {}",
                    path.display(),
                    r.custom_id,
                    r.fingerprint,
                    m.fingerprints.len()
                ));
            }
        }
        Ok(m)
    }

    fn write(&self, path: &Path) -> Result<(), String> {
        let bytes = serde_json::to_vec_pretty(self).map_err(|e| e.to_string())?;
        super::write::write_atomic(path, &bytes).map_err(|e| e.to_string())
    }

    /// The model the batches ask.
    pub fn model(&self) -> &str {
        &self.target.model
    }

    /// Whether every batch's results are in the cache.
    pub fn collected(&self) -> bool {
        self.batches.iter().all(|b| b.collected)
    }
}

/// Every manifest in `dir`, oldest first (none when the folder does not exist).
pub fn manifests(dir: &Path) -> Result<Vec<(PathBuf, Manifest)>, String> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("{}: cannot be read ({e})", dir.display())),
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension().is_some_and(|x| x == "json")
                && !p
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with('.'))
        })
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| Manifest::read(&p).map(|m| (p, m)))
        .collect()
}

/// The requests that batches in `dir` hold and have not brought back: (fingerprint, key) to
/// the batch's name.
pub fn outstanding(dir: &Path) -> Result<BTreeMap<(String, String), String>, String> {
    let mut out = BTreeMap::new();
    for (path, m) in manifests(dir)? {
        for b in m.batches.iter().filter(|b| !b.collected) {
            for r in &b.requests {
                let key = r.custom_id.trim_start_matches("fp-").to_string();
                out.insert(
                    (m.fingerprints[r.fingerprint].clone(), key),
                    format!("{} ({})", b.id, path.display()),
                );
            }
        }
    }
    Ok(out)
}

/// A request's `custom_id`: `fp-` and its key (letters, digits and `-` only, as both providers
/// require).
fn custom_id(q: &Queued) -> String {
    format!("fp-{}", q.key)
}

/// The request as the provider's batch format carries it (one JSONL line for OpenAI, one
/// element of `requests` for Anthropic).
fn request_json(t: &Target, q: &Queued) -> Value {
    match t.provider {
        Provider::Openai => json!({
            "custom_id": custom_id(q),
            "method": "POST",
            "url": "/v1/chat/completions",
            "body": {
                "model": t.model,
                "messages": [{"role": "user", "content": q.prompt}],
                "temperature": 0,
                "seed": 7,
            },
        }),
        Provider::Anthropic => json!({
            "custom_id": custom_id(q),
            "params": {
                "model": t.model,
                "max_tokens": t.max_tokens,
                "temperature": 0,
                "messages": [{"role": "user", "content": q.prompt}],
            },
        }),
    }
}

/// The calls to one batch API, with retries (network faults, 429 and 5xx, honouring
/// `Retry-After` up to `max_wait_s`) and every message redacted of the key and the URL's
/// secrets.
struct Api {
    t: Target,
    key: Option<String>,
    agent: ureq::Agent,
    secrets: Vec<String>,
}

enum Body {
    None,
    Json(Value),
    Bytes(String, Vec<u8>),
}

impl Api {
    fn new(t: &Target) -> Result<Api, String> {
        let key = super::llm::read_key(t.api_key_env.as_deref(), "the batch API's key")?;
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(Duration::from_secs_f64(t.timeout_s.max(1.0) * 10.0)))
            .http_status_as_error(false)
            .build()
            .into();
        Ok(Api {
            secrets: url_secrets(&t.base_url),
            t: t.clone(),
            key,
            agent,
        })
    }

    fn redact(&self, s: &str) -> String {
        let out = super::llm::redact_secrets(s, self.key.as_deref(), &self.secrets);
        super::llm::cut(&out, super::llm::KEEP_CHARS)
    }

    fn url(&self, path: &str) -> String {
        endpoint_url(&self.t.base_url, path)
    }

    fn once(
        &self,
        method: &str,
        url: &str,
        body: &Body,
    ) -> Result<ureq::http::Response<ureq::Body>, ureq::Error> {
        let auth: Vec<(&str, String)> = match (self.t.provider, &self.key) {
            (Provider::Openai, Some(k)) => vec![("Authorization", format!("Bearer {k}"))],
            (Provider::Anthropic, k) => {
                let mut h = vec![("anthropic-version", "2023-06-01".to_string())];
                if let Some(k) = k {
                    h.push(("x-api-key", k.clone()));
                }
                h
            }
            (Provider::Openai, None) => vec![],
        };
        if method == "GET" {
            let mut r = self.agent.get(url);
            for (k, v) in &auth {
                r = r.header(*k, v);
            }
            return r.call();
        }
        let mut r = self.agent.post(url);
        for (k, v) in &auth {
            r = r.header(*k, v);
        }
        match body {
            Body::None => r.send_empty(),
            Body::Json(v) => r
                .header("Content-Type", "application/json")
                .send(v.to_string()),
            Body::Bytes(ct, b) => r.header("Content-Type", ct).send(&b[..]),
        }
    }

    /// One call, retried; a response with a status below 400.
    fn send(
        &self,
        method: &str,
        path: &str,
        body: &Body,
    ) -> Result<ureq::http::Response<ureq::Body>, String> {
        let url = self.url(path);
        let shown = display_url(&url);
        let mut last = String::new();
        let tries = self.t.max_retries + 1;
        for attempt in 0..tries {
            if super::interrupt::requested() {
                return Err("interrupted".into());
            }
            let mut after = None;
            match self.once(method, &url, body) {
                Ok(mut resp) => {
                    let status = resp.status().as_u16();
                    if status < 400 {
                        return Ok(resp);
                    }
                    after = super::llm::retry_after_of(&resp);
                    let text = resp
                        .body_mut()
                        .with_config()
                        .limit(1 << 16)
                        .read_to_string()
                        .unwrap_or_default();
                    last = self.redact(&format!("{method} {shown}: HTTP {status}: {text}"));
                    if status != 429 && status < 500 {
                        return Err(last);
                    }
                }
                Err(e) => last = self.redact(&format!("{method} {shown}: {e}")),
            }
            if attempt + 1 < tries {
                let backoff = Duration::from_millis(self.t.backoff_ms)
                    .mul_f64(2f64.powi(attempt.min(30) as i32));
                let wait = after.map_or(backoff, |a: Duration| a.max(backoff.min(a)));
                if super::llm::sleep_interruptibly(
                    wait.min(Duration::from_secs_f64(self.t.max_wait_s)),
                ) {
                    return Err("interrupted".into());
                }
            }
        }
        Err(format!("failed after {tries} attempts: {last}"))
    }

    fn json(&self, method: &str, path: &str, body: &Body) -> Result<Value, String> {
        let mut resp = self.send(method, path, body)?;
        let text = resp
            .body_mut()
            .with_config()
            .limit(1 << 24)
            .read_to_string()
            .map_err(|e| self.redact(&format!("{path}: reading the reply: {e}")))?;
        serde_json::from_str(&text).map_err(|e| {
            self.redact(&format!(
                "{path}: the reply is not JSON ({e}): {}",
                text.chars().take(200).collect::<String>()
            ))
        })
    }

    /// Creates one batch of `chunk`; its provider id and input file.
    fn create(
        &self,
        chunk: &[&Queued],
        manifest: &str,
    ) -> Result<(String, Option<String>), String> {
        match self.t.provider {
            Provider::Openai => {
                let mut jsonl = String::new();
                for q in chunk {
                    jsonl.push_str(&request_json(&self.t, q).to_string());
                    jsonl.push('\n');
                }
                let boundary = format!("faithprobe-{}", super::replies::key(&jsonl));
                let mut body = format!(
                    "--{boundary}\r\nContent-Disposition: form-data; name=\"purpose\"\r\n\r\nbatch\r\n--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{manifest}.jsonl\"\r\nContent-Type: application/jsonl\r\n\r\n"
                )
                .into_bytes();
                body.extend_from_slice(jsonl.as_bytes());
                body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
                let ct = format!("multipart/form-data; boundary={boundary}");
                let file = self.json("POST", "files", &Body::Bytes(ct, body))?;
                let file_id = id_of(&file, "the uploaded file")?;
                let batch = self.json(
                    "POST",
                    "batches",
                    &Body::Json(json!({
                        "input_file_id": file_id,
                        "endpoint": "/v1/chat/completions",
                        "completion_window": "24h",
                        "metadata": {"faithprobe_manifest": manifest},
                    })),
                )?;
                Ok((id_of(&batch, "the batch")?, Some(file_id)))
            }
            Provider::Anthropic => {
                let requests: Vec<Value> = chunk.iter().map(|q| request_json(&self.t, q)).collect();
                let batch = self.json(
                    "POST",
                    "messages/batches",
                    &Body::Json(json!({ "requests": requests })),
                )?;
                Ok((id_of(&batch, "the batch")?, None))
            }
        }
    }

    /// The batch as the provider shows it now.
    fn status(&self, id: &str) -> Result<Status, String> {
        let check = |s: &str| -> Result<(), String> {
            if s.is_empty()
                || !s
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_".contains(c))
            {
                return Err(format!("the provider's id {s:?} is not a plain id"));
            }
            Ok(())
        };
        check(id)?;
        match self.t.provider {
            Provider::Openai => {
                let v = self.json("GET", &format!("batches/{id}"), &Body::None)?;
                let status = v["status"].as_str().unwrap_or("").to_string();
                let file = |k: &str| -> Result<Option<String>, String> {
                    match v[k].as_str() {
                        Some(f) => check(f).map(|()| Some(f.to_string())),
                        None => Ok(None),
                    }
                };
                let c = &v["request_counts"];
                Ok(Status {
                    ended: matches!(
                        status.as_str(),
                        "completed" | "expired" | "failed" | "cancelled"
                    ),
                    progress: format!(
                        "{} done, {} failed of {}",
                        c["completed"].as_u64().unwrap_or(0),
                        c["failed"].as_u64().unwrap_or(0),
                        c["total"].as_u64().unwrap_or(0)
                    ),
                    files: [file("output_file_id")?, file("error_file_id")?]
                        .into_iter()
                        .flatten()
                        .collect(),
                    why: v["errors"]["data"]
                        .as_array()
                        .map(|e| {
                            e.iter()
                                .filter_map(|x| x["message"].as_str())
                                .collect::<Vec<_>>()
                                .join("; ")
                        })
                        .filter(|s| !s.is_empty()),
                    status,
                })
            }
            Provider::Anthropic => {
                let v = self.json("GET", &format!("messages/batches/{id}"), &Body::None)?;
                let status = v["processing_status"].as_str().unwrap_or("").to_string();
                let c = &v["request_counts"];
                let n = |k: &str| c[k].as_u64().unwrap_or(0);
                Ok(Status {
                    ended: status == "ended",
                    progress: format!(
                        "{} processing, {} succeeded, {} errored, {} expired, {} canceled",
                        n("processing"),
                        n("succeeded"),
                        n("errored"),
                        n("expired"),
                        n("canceled")
                    ),
                    files: vec![format!("messages/batches/{id}/results")],
                    why: None,
                    status,
                })
            }
        }
    }
}

fn id_of(v: &Value, what: &str) -> Result<String, String> {
    match v["id"].as_str() {
        Some(id)
            if !id.is_empty()
                && id.len() <= 200
                && id
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_".contains(c)) =>
        {
            Ok(id.to_string())
        }
        _ => Err(format!(
            "the provider's reply for {what} has no plain `id`: {}",
            v.to_string().chars().take(200).collect::<String>()
        )),
    }
}

/// A batch's state as the provider reports it.
struct Status {
    status: String,
    ended: bool,
    progress: String,
    /// Where the results are: OpenAI's output and error file ids, or Anthropic's results path.
    files: Vec<String>,
    /// Why the whole batch failed, when the provider says.
    why: Option<String>,
}

/// What one submission did: the manifest it wrote and its batches.
pub struct Submitted {
    pub manifest: PathBuf,
    pub provider: Provider,
    pub batches: Vec<String>,
    pub requests: usize,
    /// The estimate at the batch price, when the model has a price.
    pub estimate: Option<f64>,
}

/// The run a submission belongs to, for its manifest.
pub struct RunInfo {
    pub command: String,
    pub input: String,
    pub settings: BTreeMap<String, String>,
}

/// The cost of `queue` at the batch price, estimated as online requests are (4 characters a
/// prompt token, 40 completion tokens a verdict); None without a price.
fn estimate(t: &Target, queue: &[&Queued]) -> Option<f64> {
    let p = t.price?;
    let chars: usize = queue.iter().map(|q| q.prompt.len()).sum();
    let verdicts: usize = queue.iter().map(|q| q.verdicts.max(1)).sum();
    Some(p.batch_cost(
        chars.div_ceil(super::price::ESTIMATED_CHARS_PER_TOKEN) as u64,
        verdicts as u64 * super::price::ESTIMATED_COMPLETION_TOKENS_PER_CLAIM,
    ))
}

/// Refuses a submission over the budget (`--max-cost`), before anything is uploaded.
fn within_budget(groups: &[(Target, Vec<&Queued>)]) -> Result<(), String> {
    let Some(max) = super::price::max_cost() else {
        return Ok(());
    };
    let mut total = 0.0;
    for (t, q) in groups {
        match estimate(t, q) {
            Some(e) => total += e,
            None => {
                return Err(format!(
                    "--max-cost {max}: model `{}` has no price under `prices:` in faithprobe.yaml, so the batch's cost cannot be kept under the budget; nothing was submitted",
                    t.model
                ))
            }
        }
    }
    let spent = super::price::spent();
    if spent + total > max {
        return Err(format!(
            "refused before any upload: {} requests are estimated at {total:.4} at the batch price (4 characters a prompt token, {} completion tokens a verdict), over the --max-cost budget of {max}; raise --max-cost, or score fewer cases",
            groups.iter().map(|(_, q)| q.len()).sum::<usize>(),
            super::price::ESTIMATED_COMPLETION_TOKENS_PER_CLAIM
        ));
    }
    Ok(())
}

/// Splits requests into batches of at most `max_requests` requests and `max_bytes` bytes.
fn chunks<'a>(t: &Target, queue: &[&'a Queued]) -> Vec<Vec<&'a Queued>> {
    let mut out: Vec<Vec<&Queued>> = Vec::new();
    let (mut n, mut bytes) = (0usize, 0usize);
    // room for the envelope around the requests (multipart headers, `{"requests": [...]}`)
    let room = t.max_bytes.saturating_sub(1024).max(1);
    for q in queue {
        let size = request_json(t, q).to_string().len() + 1;
        if out.is_empty() || n + 1 > t.max_requests || (n > 0 && bytes + size > room) {
            out.push(Vec::new());
            n = 0;
            bytes = 0;
        }
        out.last_mut().expect("a chunk").push(q);
        n += 1;
        bytes += size;
    }
    out
}

/// A manifest id: the UTC time and a hash of what it holds.
fn manifest_id(queue: &[&Queued]) -> String {
    let all: String = queue.iter().map(|q| q.key.as_str()).collect();
    let (date, time) = utc_now();
    format!(
        "{}T{}Z-{}",
        date.replace('-', ""),
        time.replace(':', ""),
        &super::replies::key(&all)[..8]
    )
}

/// Now, UTC, as (`YYYY-MM-DD`, `HH:MM:SS`).
fn utc_now() -> (String, String) {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    let (days, rest) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // days since 1970-01-01 to a civil date (H. Hinnant's algorithm)
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (
        format!("{y:04}-{m:02}-{d:02}"),
        format!(
            "{:02}:{:02}:{:02}",
            rest / 3600,
            (rest / 60) % 60,
            rest % 60
        ),
    )
}

/// The requests grouped by where they go, in the order of their first request.
fn by_target(queue: Vec<&Queued>) -> Vec<(Target, Vec<&Queued>)> {
    let mut groups: Vec<(Target, Vec<&Queued>)> = Vec::new();
    for q in queue {
        match groups.iter_mut().find(|(t, _)| *t == q.target) {
            Some((_, v)) => v.push(q),
            None => groups.push((q.target.clone(), vec![q])),
        }
    }
    groups
}

/// What refuses a submission before anything is created or uploaded: the budget, a URL with a
/// password in it (the manifest keeps the URL), a key variable that is not set.
fn preflight(all: &[(Target, Vec<&Queued>)]) -> Result<(), String> {
    within_budget(all)?;
    for (t, _) in all {
        if t.base_url.contains('@') {
            return Err(format!(
                "batch mode keeps base_url in its manifest to collect later, and {} carries a user or password; put the key in api_key_env instead",
                display_url(&t.base_url)
            ));
        }
        Api::new(t)?;
    }
    Ok(())
}

/// Submits the queue: per target, one manifest in `dir` and as many batches as the provider's
/// limits need. Refuses (before any upload) a submission over `--max-cost`.
pub fn submit(
    queue: &[Queued],
    dir: &Path,
    cache: &Path,
    run: &RunInfo,
) -> Result<(Vec<Submitted>, usize), String> {
    // refused before anything is created or uploaded
    preflight(&by_target(queue.iter().collect()))?;
    std::fs::create_dir_all(dir)
        .map_err(|e| format!("{}: cannot be created ({e})", dir.display()))?;
    // one submission at a time per folder: a request another process submitted meanwhile
    // waits for its batch instead of being paid for twice
    let _lock = super::write::Lock::acquire(&dir.join("submit")).map_err(|e| e.to_string())?;
    let held = outstanding(dir)?;
    let (waiting, queue): (Vec<&Queued>, Vec<&Queued>) = queue
        .iter()
        .partition(|q| held.contains_key(&(q.fingerprint.clone(), q.key.clone())));
    let groups = by_target(queue);
    let cache = std::path::absolute(cache).unwrap_or_else(|_| cache.to_path_buf());
    let mut out = Vec::new();
    for (t, q) in &groups {
        let api = Api::new(t)?;
        let id = manifest_id(q);
        let path = dir.join(format!("{id}.json"));
        let mut fingerprints: Vec<String> = Vec::new();
        let mut m = Manifest {
            format: FORMAT.into(),
            id: id.clone(),
            created: {
                let (d, t) = utc_now();
                format!("{d}T{t}Z")
            },
            command: run.command.clone(),
            input: run.input.clone(),
            settings: run.settings.clone(),
            cache: cache.clone(),
            target: t.clone(),
            fingerprints: Vec::new(),
            batches: Vec::new(),
        };
        for chunk in chunks(t, q) {
            let (batch, input_file) = api.create(&chunk, &id).map_err(|e| {
                let done = m.batches.len();
                if done > 0 {
                    format!("{e}; {done} batch(es) were created first and are in {} (a rerun with --batch submit sends only the rest)", path.display())
                } else {
                    format!("{e}; nothing was submitted")
                }
            })?;
            let requests = chunk
                .iter()
                .map(|q| {
                    let i = match fingerprints.iter().position(|f| *f == q.fingerprint) {
                        Some(i) => i,
                        None => {
                            fingerprints.push(q.fingerprint.clone());
                            fingerprints.len() - 1
                        }
                    };
                    Request {
                        custom_id: custom_id(q),
                        fingerprint: i,
                    }
                })
                .collect();
            m.fingerprints = fingerprints.clone();
            m.batches.push(Batch {
                id: batch,
                input_file,
                requests,
                status: "submitted".into(),
                collected: false,
                succeeded: 0,
                failed: 0,
                prompt_tokens: 0,
                completion_tokens: 0,
            });
            // on record after every batch: a failure later leaves this one known
            m.write(&path).map_err(|e| {
                let b = m.batches.last().map_or("", |b| b.id.as_str());
                format!("{e}; batch {b} was created at the provider but could not be put on record: cancel it there, or keep its id")
            })?;
        }
        out.push(Submitted {
            manifest: path,
            provider: t.provider,
            batches: m.batches.iter().map(|b| b.id.clone()).collect(),
            requests: q.len(),
            estimate: estimate(t, q),
        });
    }
    Ok((out, waiting.len()))
}

/// One batch's line in `batch status` or `batch collect`.
pub struct BatchLine {
    pub id: String,
    pub status: String,
    pub progress: String,
    pub collected: bool,
    pub requests: usize,
    pub succeeded: usize,
    pub failed: usize,
}

impl BatchLine {
    /// The line as the manifest records it, before the provider is asked.
    fn recorded(b: &Batch) -> BatchLine {
        BatchLine {
            id: b.id.clone(),
            status: b.status.clone(),
            progress: if b.collected {
                "collected".into()
            } else {
                "not asked".into()
            },
            collected: b.collected,
            requests: b.requests.len(),
            succeeded: b.succeeded,
            failed: b.failed,
        }
    }
}

/// What `batch status` or `batch collect` found for one manifest.
pub struct Report {
    pub path: PathBuf,
    pub manifest: Manifest,
    pub lines: Vec<BatchLine>,
    /// Batches not ended yet.
    pub pending: usize,
    /// Errors talking to the provider, by batch (the batch stays to collect again).
    pub errors: Vec<String>,
}

impl Report {
    /// What collected replies cost at the batch price, when the model has one.
    pub fn cost(&self) -> Option<f64> {
        let p = self.manifest.target.price?;
        let (pt, ct) = self.manifest.batches.iter().fold((0, 0), |(a, b), x| {
            (a + x.prompt_tokens, b + x.completion_tokens)
        });
        Some(p.batch_cost(pt, ct))
    }
}

/// The status of each batch of a manifest, asked of the provider; nothing is downloaded.
pub fn status(path: &Path) -> Result<Report, String> {
    let m = Manifest::read(path)?;
    let api = Api::new(&m.target)?;
    let mut lines = Vec::new();
    let (mut pending, mut errors) = (0, Vec::new());
    for b in &m.batches {
        let (status, progress) = if b.collected {
            (b.status.clone(), "collected".to_string())
        } else {
            match api.status(&b.id) {
                Ok(s) => {
                    if !s.ended {
                        pending += 1;
                    }
                    (s.status, s.progress)
                }
                Err(e) => {
                    errors.push(format!("batch {}: {e}", b.id));
                    pending += 1;
                    ("unknown".into(), "could not be asked".into())
                }
            }
        };
        lines.push(BatchLine {
            id: b.id.clone(),
            status,
            progress,
            collected: b.collected,
            requests: b.requests.len(),
            succeeded: b.succeeded,
            failed: b.failed,
        });
    }
    Ok(Report {
        path: path.to_path_buf(),
        manifest: m,
        lines,
        pending,
        errors,
    })
}

/// The longest result line read (a reply with its JSON envelope).
const MAX_LINE: u64 = 32 << 20;

/// Reads one result line into `by_id`: the request's reply or why it has none.
fn read_line(
    provider: Provider,
    line: &str,
    batch: &str,
    api: &Api,
    by_id: &mut HashMap<String, (Stored, u64, u64)>,
    malformed: &mut usize,
) {
    let Ok(v) = serde_json::from_str::<Value>(line) else {
        *malformed += 1;
        return;
    };
    let Some(id) = v["custom_id"].as_str() else {
        *malformed += 1;
        return;
    };
    let failed = |why: String| {
        (
            Stored::Failed {
                why: api.redact(&why),
                batch: batch.to_string(),
            },
            0,
            0,
        )
    };
    let reply = |text: String, pt: u64, ct: u64| {
        if text.trim().is_empty() {
            return failed("the reply is empty".into());
        }
        (
            Stored::Reply {
                text: api.redact(&text),
                prompt_tokens: pt,
                completion_tokens: ct,
                batch: batch.to_string(),
            },
            pt,
            ct,
        )
    };
    let entry = match provider {
        Provider::Openai => {
            let resp = &v["response"];
            if !v["error"].is_null() {
                failed(format!(
                    "{}: {}",
                    v["error"]["code"].as_str().unwrap_or("error"),
                    v["error"]["message"].as_str().unwrap_or("")
                ))
            } else if resp["status_code"].as_u64() != Some(200) {
                failed(format!(
                    "HTTP {}: {}",
                    resp["status_code"],
                    resp["body"]["error"]["message"]
                        .as_str()
                        .unwrap_or("no message")
                ))
            } else {
                let body = &resp["body"];
                match body["choices"][0]["message"]["content"].as_str() {
                    Some(text) => reply(
                        text.to_string(),
                        body["usage"]["prompt_tokens"].as_u64().unwrap_or(0),
                        body["usage"]["completion_tokens"].as_u64().unwrap_or(0),
                    ),
                    None => failed("the result has no choices[0].message.content".into()),
                }
            }
        }
        Provider::Anthropic => {
            let r = &v["result"];
            match r["type"].as_str() {
                Some("succeeded") => {
                    let m = &r["message"];
                    match m["content"].as_array() {
                        Some(blocks) => reply(
                            blocks
                                .iter()
                                .filter(|b| b["type"] == "text")
                                .filter_map(|b| b["text"].as_str())
                                .collect::<Vec<_>>()
                                .join(""),
                            m["usage"]["input_tokens"].as_u64().unwrap_or(0),
                            m["usage"]["output_tokens"].as_u64().unwrap_or(0),
                        ),
                        None => failed("the result's message has no content".into()),
                    }
                }
                Some("errored") => failed(format!(
                    "{}: {}",
                    r["error"]["error"]["type"].as_str().unwrap_or("error"),
                    r["error"]["error"]["message"].as_str().unwrap_or("")
                )),
                Some("expired") => failed("expired before the provider processed it".into()),
                Some("canceled") => failed("canceled".into()),
                _ => failed("the result line does not read as a result".into()),
            }
        }
    };
    // the first result for a request counts; a second is the provider's mistake
    by_id.entry(id.to_string()).or_insert(entry);
}

/// Streams one result file into `by_id`; an error when the download is cut off or a line is
/// too long.
fn download(
    api: &Api,
    file: &str,
    batch: &str,
    by_id: &mut HashMap<String, (Stored, u64, u64)>,
    malformed: &mut usize,
) -> Result<(), String> {
    let path = match api.t.provider {
        Provider::Openai => format!("files/{file}/content"),
        Provider::Anthropic => file.to_string(),
    };
    let mut resp = api.send("GET", &path, &Body::None)?;
    let mut reader = std::io::BufReader::new(resp.body_mut().as_reader());
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let n = (&mut reader)
            .take(MAX_LINE)
            .read_until(b'\n', &mut buf)
            .map_err(|e| {
                api.redact(&format!(
                    "the download of {path} was cut off ({e}); nothing of this batch is marked collected: run `faithprobe batch collect` again"
                ))
            })?;
        if n == 0 {
            return Ok(());
        }
        if n as u64 == MAX_LINE && buf.last() != Some(&b'\n') {
            return Err(format!(
                "{path}: a result line is longer than {} MB",
                MAX_LINE >> 20
            ));
        }
        let line = String::from_utf8_lossy(&buf);
        if !line.trim().is_empty() {
            read_line(api.t.provider, line.trim(), batch, api, by_id, malformed);
        }
    }
}

/// One batch's results as rows for the cache: every request it held, with a reply or why it
/// has none; and the counts.
struct Tally {
    rows: Vec<(String, String, Stored)>,
    ok: usize,
    failed: usize,
    prompt_tokens: u64,
    completion_tokens: u64,
}

fn tally(
    b: &Batch,
    fingerprints: &[String],
    st: &Status,
    by_id: &mut HashMap<String, (Stored, u64, u64)>,
    malformed: usize,
) -> Tally {
    let mut rows = Vec::new();
    let (mut ok, mut failed, mut pt, mut ct) = (0, 0, 0, 0);
    for r in &b.requests {
        let key = r.custom_id.trim_start_matches("fp-").to_string();
        let stored = match by_id.remove(&r.custom_id) {
            Some((s, p, c)) => {
                pt += p;
                ct += c;
                s
            }
            None => Stored::Failed {
                why: match (&st.why, malformed) {
                    (Some(why), _) => format!("the batch {}: {why}", st.status),
                    (None, 0) => format!("no result in the provider's output (batch {})", st.status),
                    (None, n) => format!("no result that reads in the provider's output ({n} malformed lines; batch {})", st.status),
                },
                batch: b.id.clone(),
            },
        };
        match stored {
            Stored::Reply { .. } => ok += 1,
            Stored::Failed { .. } => failed += 1,
        }
        rows.push((fingerprints[r.fingerprint].clone(), key, stored));
    }
    Tally {
        rows,
        ok,
        failed,
        prompt_tokens: pt,
        completion_tokens: ct,
    }
}

/// Collects every ended, uncollected batch of a manifest into its cache; batches still running
/// are left (and counted in `pending`). Safe to run again at any time: nothing is marked
/// collected before its results are all in the cache.
pub fn collect(path: &Path) -> Result<Report, String> {
    let mut report = Report {
        path: path.to_path_buf(),
        manifest: Manifest::read(path)?,
        lines: Vec::new(),
        pending: 0,
        errors: Vec::new(),
    };
    let api = Api::new(&report.manifest.target)?;
    let m = &mut report.manifest;
    let cache = Cache::open(&m.cache)?;
    report.lines = m.batches.iter().map(BatchLine::recorded).collect();
    for (i, line) in report.lines.iter_mut().enumerate() {
        let b = &m.batches[i];
        if b.collected {
            continue;
        }
        let st = match api.status(&b.id) {
            Ok(st) => st,
            Err(e) => {
                report.errors.push(format!("batch {}: {e}", b.id));
                report.pending += 1;
                continue;
            }
        };
        line.status = st.status.clone();
        line.progress = st.progress.clone();
        if !st.ended {
            report.pending += 1;
            continue;
        }
        let mut by_id: HashMap<String, (Stored, u64, u64)> = HashMap::new();
        let mut malformed = 0usize;
        let mut cut = None;
        for f in &st.files {
            if let Err(e) = download(&api, f, &b.id, &mut by_id, &mut malformed) {
                cut = Some(e);
                break;
            }
        }
        if let Some(e) = cut {
            report.errors.push(format!("batch {}: {e}", b.id));
            report.pending += 1;
            continue;
        }
        let Tally {
            rows,
            ok,
            failed,
            prompt_tokens: pt,
            completion_tokens: ct,
        } = tally(b, &m.fingerprints, &st, &mut by_id, malformed);
        for part in rows.chunks(500) {
            super::replies::put(&cache, part)?;
        }
        let b = &mut m.batches[i];
        b.collected = true;
        b.status = st.status.clone();
        b.succeeded = ok;
        b.failed = failed;
        b.prompt_tokens = pt;
        b.completion_tokens = ct;
        let (id, requests) = (b.id.clone(), b.requests.len());
        m.write(path)?;
        *line = BatchLine {
            id,
            status: st.status,
            progress: format!(
                "collected: {ok} replies, {failed} failed{}{}",
                if malformed > 0 {
                    format!(", {malformed} malformed result lines")
                } else {
                    String::new()
                },
                if by_id.is_empty() {
                    String::new()
                } else {
                    format!(
                        ", {} results for requests it never held (ignored)",
                        by_id.len()
                    )
                }
            ),
            collected: true,
            requests,
            succeeded: ok,
            failed,
        };
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(max_requests: usize, max_bytes: usize) -> Target {
        Target {
            provider: Provider::Openai,
            base_url: "http://127.0.0.1:9/v1".into(),
            api_key_env: None,
            model: "m".into(),
            max_tokens: 10,
            poll_s: 1.0,
            max_requests,
            max_bytes,
            timeout_s: 1.0,
            max_retries: 0,
            backoff_ms: 1,
            max_wait_s: 1.0,
            price: None,
        }
    }

    fn queued(t: &Target, prompt: &str) -> Queued {
        Queued {
            target: t.clone(),
            fingerprint: "fp".into(),
            key: super::super::replies::key(prompt),
            prompt: prompt.into(),
            verdicts: 1,
        }
    }

    #[test]
    fn a_submission_splits_at_the_request_and_byte_limits() {
        let t = target(3, 2000);
        let q: Vec<Queued> = (0..7).map(|i| queued(&t, &format!("prompt {i}"))).collect();
        let refs: Vec<&Queued> = q.iter().collect();
        let sizes: Vec<usize> = chunks(&t, &refs).iter().map(Vec::len).collect();
        assert_eq!(sizes, vec![3, 3, 1]);
        let big: Vec<Queued> = (0..4)
            .map(|i| queued(&t, &format!("{i}{}", "x".repeat(400))))
            .collect();
        let refs: Vec<&Queued> = big.iter().collect();
        let t = target(100, 1024 + 1000);
        // two requests of about 540 bytes do not fit in 1000 bytes of room
        let sizes: Vec<usize> = chunks(&t, &refs).iter().map(Vec::len).collect();
        assert_eq!(sizes, vec![1, 1, 1, 1]);
    }

    #[test]
    fn the_date_is_a_civil_date() {
        let (d, t) = utc_now();
        assert_eq!(d.len(), 10, "{d}");
        assert_eq!(t.len(), 8, "{t}");
        assert!(d.as_str() >= "2024-01-01", "{d}");
    }
}
