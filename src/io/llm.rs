//! The OpenAI-compatible chat-completions client that the judge, the LLM decomposer and the
//! omissions check share: one request per prompt at temperature 0 with a fixed seed, retries with
//! backoff for network faults, 429 and 5xx (honouring `Retry-After`, capped by `max_wait`),
//! validation of every reply by the caller's check (retried when invalid), and redaction of the
//! API key (and any 8-character piece of it) from every string that leaves this module, before
//! anything is cut short. Every wait is interruptible by Ctrl-C.

use serde_json::{json, Value};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The longest any single wait (backoff or `Retry-After`) may last unless configured otherwise.
pub(crate) const DEFAULT_MAX_WAIT: Duration = Duration::from_secs(60);

/// Connection settings for one endpoint and prompt template.
#[derive(Debug, Clone)]
pub struct LlmSettings {
    pub base_url: String,
    pub model: String,
    /// Name of the environment variable holding the API key (never the key itself).
    pub api_key_env: Option<String>,
    pub prompt_path: String,
    pub prompt: String,
    pub timeout: Duration,
    pub max_retries: u32,
    /// First backoff; doubles each retry, with jitter.
    pub backoff: Duration,
    /// Cap on any one wait between tries, whatever the server's `Retry-After` says.
    pub max_wait: Duration,
    /// The model's price from `prices:` in faithprobe.yaml, when it has one.
    pub price: Option<Price>,
    /// Where `--batch` sends this endpoint's requests (`batch:`; default: the OpenAI Batch API
    /// at `base_url`).
    pub batch: Option<super::replies::BatchConfig>,
}

impl LlmSettings {
    /// Where this endpoint's batches go: `batch:` with the endpoint's settings filled in.
    pub fn target(&self) -> super::replies::Target {
        use super::replies::{Provider, Target};
        let b = self.batch.as_ref();
        let provider = b.map_or(Provider::Openai, |b| b.provider);
        let (most_requests, most_bytes) = provider.limits();
        Target {
            provider,
            base_url: b
                .and_then(|b| b.base_url.clone())
                .unwrap_or_else(|| self.base_url.clone()),
            api_key_env: b
                .and_then(|b| b.api_key_env.clone())
                .or_else(|| self.api_key_env.clone()),
            model: self.model.clone(),
            max_tokens: b.and_then(|b| b.max_tokens).unwrap_or(1024),
            poll_s: b.and_then(|b| b.poll_s).unwrap_or(30.0),
            max_requests: b.and_then(|b| b.max_requests).unwrap_or(most_requests),
            max_bytes: b.and_then(|b| b.max_bytes).unwrap_or(most_bytes),
            timeout_s: self.timeout.as_secs_f64(),
            max_retries: self.max_retries,
            backoff_ms: self.backoff.as_millis() as u64,
            max_wait_s: self.max_wait.as_secs_f64(),
            price: self.price,
        }
    }
}

use super::price::BUDGET;
pub use super::price::{set_max_cost, spent, Price, ESTIMATED_COMPLETION_TOKENS_PER_CLAIM};

/// Calls, tokens and time spent.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LlmUsage {
    pub calls: u64,
    pub retries: u64,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub millis: u64,
    /// Requests queued for a batch (`--batch submit`) instead of sent.
    pub queued: u64,
    /// Calls answered by replies collected from a batch, and those replies' tokens.
    pub batch_replies: u64,
    pub batch_prompt_tokens: u64,
    pub batch_completion_tokens: u64,
}

/// A client for one endpoint and one prompt template.
pub struct LlmClient {
    s: LlmSettings,
    version: String,
    key: Option<String>,
    agent: ureq::Agent,
    usage: Mutex<LlmUsage>,
    /// Connection failures in a row, across every call of the run (any answer resets it).
    failures_in_a_row: std::sync::atomic::AtomicU32,
    /// Set once the server is taken for down: every later call fails at once with this reason.
    down: Mutex<Option<String>>,
    /// The secret parts of `base_url` (user, password, query), removed from every message.
    url_secrets: Vec<String>,
    /// `{base_url}/chat/completions` as messages may show it (secrets redacted).
    shown_url: String,
    /// Where batch replies for this client are kept in the cache: by endpoint (its URL by
    /// hash), model and prompt version.
    reply_fingerprint: String,
    target: super::replies::Target,
}

/// Connection failures in a row (refused, unreachable, unresolvable, no connection within the
/// timeout) after which the server is taken for down for the rest of the run: one error for the
/// run, not every claim's retries against a dead server.
pub const CONNECTION_FAILURES_BEFORE_GIVING_UP: u32 = 5;

/// Whether a transport error means the server could not be reached at all (as opposed to a
/// slow or broken reply from a server that is there).
fn unreachable(e: &ureq::Error) -> bool {
    use std::io::ErrorKind as K;
    match e {
        ureq::Error::ConnectionFailed | ureq::Error::HostNotFound => true,
        ureq::Error::Timeout(t) => matches!(t, ureq::Timeout::Connect | ureq::Timeout::Resolve),
        ureq::Error::Io(io) => matches!(
            io.kind(),
            K::ConnectionRefused
                | K::ConnectionReset
                | K::ConnectionAborted
                | K::NotConnected
                | K::AddrNotAvailable
                | K::HostUnreachable
                | K::NetworkUnreachable
        ),
        _ => false,
    }
}

enum CallError {
    /// Do not retry (a 4xx other than 429).
    Fatal(String),
    /// Retry after at least this long.
    Retry(String, Option<Duration>),
}

/// The longest reply or error body kept in a message, after redaction.
pub(crate) const KEEP_CHARS: usize = 600;

fn jitter(attempt: u32) -> f64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let h = (nanos as u64 ^ (attempt as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)) % 1000;
    0.5 + h as f64 / 1000.0
}

/// Sleeps for `d`, waking every 100 ms to see whether Ctrl-C asked to stop. True if it did.
pub fn sleep_interruptibly(d: Duration) -> bool {
    let until = Instant::now() + d;
    loop {
        if crate::io::interrupt::requested() {
            return true;
        }
        let now = Instant::now();
        if now >= until {
            return false;
        }
        std::thread::sleep((until - now).min(Duration::from_millis(100)));
    }
}

/// `Retry-After` as seconds or as an HTTP date; anything else (NaN, negative, garbage) is None.
pub fn parse_retry_after(v: &str) -> Option<Duration> {
    let v = v.trim();
    if let Ok(secs) = v.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    if let Ok(secs) = v.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs.min(1e6)));
    }
    httpdate(v).map(|t| {
        t.duration_since(std::time::SystemTime::now())
            .unwrap_or(Duration::ZERO)
    })
}

/// An HTTP date: the IMF-fixdate RFC 9110 requires senders to use (`Sun, 06 Nov 1994 08:49:37
/// GMT`) and the two obsolete forms it requires recipients to accept (RFC 850, asctime), read by
/// the `httpdate` crate (a date whose weekday or day of the month is wrong is no date).
fn httpdate(v: &str) -> Option<std::time::SystemTime> {
    ::httpdate::parse_http_date(v).ok()
}

/// Replaces `key` and every run of 8 or more of its consecutive characters in `text` with
/// `[redacted]`, so no partial key survives either.
pub fn redact(text: &str, key: &str) -> String {
    const PIECE: usize = 8;
    let k: Vec<char> = key.chars().collect();
    if k.is_empty() {
        return text.to_string();
    }
    if k.len() < PIECE {
        return text.replace(key, "[redacted]");
    }
    let t: Vec<char> = text.chars().collect();
    let mut hidden = vec![false; t.len()];
    let pieces: std::collections::HashSet<&[char]> = k.windows(PIECE).collect();
    for start in 0..t.len().saturating_sub(PIECE - 1) {
        if pieces.contains(&t[start..start + PIECE]) {
            hidden[start..start + PIECE]
                .iter_mut()
                .for_each(|h| *h = true);
        }
    }
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < t.len() {
        if hidden[i] {
            out.push_str("[redacted]");
            while i < t.len() && hidden[i] {
                i += 1;
            }
        } else {
            out.push(t[i]);
            i += 1;
        }
    }
    out
}

/// The key read from the variable `var` names (None without one); an unset variable is an
/// error that says to export `what` under that name.
pub(crate) fn read_key(var: Option<&str>, what: &str) -> Result<Option<String>, String> {
    var.map(|var| {
        std::env::var(var).map_err(|_| {
            format!("the environment variable {var} (api_key_env) is not set; export {what} under that name")
        })
    })
    .transpose()
}

/// `text` without the key (and any 8-character piece of it) and without the URL's secrets.
pub(crate) fn redact_secrets(text: &str, key: Option<&str>, secrets: &[String]) -> String {
    let mut out = match key {
        Some(k) => redact(text, k),
        None => text.to_string(),
    };
    for secret in secrets {
        out = redact(&out, secret);
    }
    out
}

/// A response's `Retry-After`, when it has one that reads.
pub(crate) fn retry_after_of(resp: &ureq::http::Response<ureq::Body>) -> Option<Duration> {
    resp.headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .and_then(parse_retry_after)
}

pub(crate) fn cut(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        s.chars().take(n).collect::<String>() + "…"
    }
}

/// Fills `{name}` placeholders of a template in one pass: values are inserted as they are and
/// never scanned again, so a passage that contains `{claims}` stays text.
pub(crate) fn render_template(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let hit = after.find('}').and_then(|close| {
            let name = &after[..close];
            values
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| (close, *v))
        });
        match hit {
            Some((close, v)) => {
                out.push_str(v);
                rest = &after[close + 1..];
            }
            None => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// A URL as it may be shown: a password or user in it (`https://user:pass@host/v1`) and its query
/// string (`?key=...`) are replaced with `[redacted]`, as the API key is everywhere.
pub fn display_url(url: &str) -> String {
    let (scheme, rest) = match url.find("://") {
        Some(i) => (&url[..i + 3], &url[i + 3..]),
        None => ("", url),
    };
    let auth_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, path) = rest.split_at(auth_end);
    let authority = match authority.rfind('@') {
        Some(at) => format!("[redacted]@{}", &authority[at + 1..]),
        None => authority.to_string(),
    };
    let path = match path.find(['?', '#']) {
        Some(q) => format!("{}{}[redacted]", &path[..q], &path[q..q + 1]),
        None => path.to_string(),
    };
    format!("{scheme}{authority}{path}")
}

/// The secret parts of a URL (user information, password, query string, fragment), to remove
/// from every message that may quote it.
pub(crate) fn url_secrets(url: &str) -> Vec<String> {
    let rest = url.find("://").map_or(url, |i| &url[i + 3..]);
    let auth_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, path) = rest.split_at(auth_end);
    let mut out = Vec::new();
    if let Some(at) = authority.rfind('@') {
        let userinfo = &authority[..at];
        out.push(userinfo.to_string());
        out.extend(userinfo.split(':').map(str::to_string));
    }
    if let Some(q) = path.find(['?', '#']) {
        out.push(path[q + 1..].to_string());
    }
    out.retain(|s| s.chars().count() >= 3);
    out
}

/// `base_url` with `path` appended to its path, before any query or fragment: Azure-style
/// `https://x.openai.azure.com/openai/deployments/d?api-version=2024-02-01` gives
/// `.../deployments/d/chat/completions?api-version=2024-02-01`.
pub fn endpoint_url(base_url: &str, path: &str) -> String {
    let (head, rest) = match base_url.find(['?', '#']) {
        Some(at) => base_url.split_at(at),
        None => (base_url, ""),
    };
    format!("{}/{path}{rest}", head.trim_end_matches('/'))
}

/// Whether an OpenAI-compatible server answers at `base_url`: one GET of `/models` with a short
/// timeout. Any HTTP status means a server is there (a 401 says the key is wrong, not that the
/// server is down); a refused connection or a timeout is an error.
pub fn ping(base_url: &str, timeout: Duration) -> Result<u16, String> {
    let url = endpoint_url(base_url, "models");
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(timeout))
        .http_status_as_error(false)
        .build()
        .into();
    agent
        .get(&url)
        .call()
        .map(|r| r.status().as_u16())
        .map_err(|e| {
            let mut m = format!("{}: {e}", display_url(&url));
            for s in url_secrets(&url) {
                m = redact(&m, &s);
            }
            m
        })
}

impl LlmClient {
    /// A client whose template must contain each of `placeholders` (e.g. `{passages}`). Reads the
    /// API key from the variable `api_key_env` names.
    pub fn new(s: LlmSettings, placeholders: &[&str]) -> Result<LlmClient, String> {
        let key = read_key(s.api_key_env.as_deref(), "the API key")?;
        for needed in placeholders {
            if !s.prompt.contains(needed) {
                return Err(format!(
                    "prompt {}: the template has no {needed} placeholder",
                    s.prompt_path
                ));
            }
        }
        let version = crate::text::hash::sha256_hex(s.prompt.as_bytes(), 6);
        let reply_fingerprint = format!(
            "llm-reply|{}|{}|{version}",
            crate::text::hash::sha256_hex(s.base_url.as_bytes(), 8),
            s.model
        );
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(s.timeout))
            .http_status_as_error(false)
            .build()
            .into();
        Ok(LlmClient {
            version,
            key,
            agent,
            usage: Mutex::new(LlmUsage::default()),
            failures_in_a_row: std::sync::atomic::AtomicU32::new(0),
            down: Mutex::new(None),
            url_secrets: url_secrets(&s.base_url),
            shown_url: display_url(&endpoint_url(&s.base_url, "chat/completions")),
            reply_fingerprint,
            target: s.target(),
            s,
        })
    }

    /// The prompt's version: the first 12 hex digits of its SHA-256.
    pub fn prompt_version(&self) -> &str {
        &self.version
    }

    /// Why the server was taken for down during this run, if it was.
    pub fn down(&self) -> Option<String> {
        self.down.lock().ok().and_then(|d| d.clone())
    }

    pub fn usage(&self) -> LlmUsage {
        self.usage.lock().map(|u| u.clone()).unwrap_or_default()
    }

    /// Starts counting calls, retries and tokens afresh (before each suite or log).
    pub fn reset_usage(&self) {
        if let Ok(mut u) = self.usage.lock() {
            *u = LlmUsage::default();
        }
    }

    /// The template with `{name}` placeholders filled in, in one pass.
    pub fn fill(&self, values: &[(&str, &str)]) -> String {
        render_template(&self.s.prompt, values)
    }

    /// Removes the API key, and any 8-character piece of it, from a string.
    pub fn redact(&self, s: &str) -> String {
        redact_secrets(s, self.key.as_deref(), &self.url_secrets)
    }

    /// Why a request must not be sent under the budget (`--max-cost`): no price for the model, or
    /// the budget spent.
    fn over_budget(&self) -> Option<String> {
        let b = BUDGET.lock().ok()?;
        let max = b.max?;
        match self.s.price {
            None => Some(format!(
                "--max-cost {max}: model `{}` has no price under `prices:` in faithprobe.yaml, so its cost cannot be kept under the budget; no request was sent",
                self.s.model
            )),
            Some(_) if b.spent >= max => Some(format!(
                "the --max-cost budget of {max} is spent ({:.4}); no further request was sent: verdicts already paid for are in the cache, raise --max-cost to go on",
                b.spent
            )),
            Some(_) => None,
        }
    }

    /// Whether sending prompts of `chars` characters in all, for `claims` verdicts, would pass the
    /// budget (`--max-cost`), estimated at 4 characters a prompt token and
    /// [`ESTIMATED_COMPLETION_TOKENS_PER_CLAIM`] a verdict: the reason to refuse them all before
    /// any is sent, or None.
    pub fn estimate_exceeds(&self, requests: usize, chars: usize, claims: usize) -> Option<String> {
        let max = BUDGET.lock().ok()?.max?;
        if super::replies::mode() != super::replies::Mode::Online {
            // nothing goes online: the submission is estimated as a whole, at the batch price
            return None;
        }
        if let Some(why) = self.over_budget() {
            return Some(why);
        }
        let price = self.s.price?;
        let prompt_tokens = chars.div_ceil(4) as u64;
        let completion = claims as u64 * ESTIMATED_COMPLETION_TOKENS_PER_CLAIM;
        let estimate = price.cost(prompt_tokens, completion);
        let spent = spent();
        (spent + estimate > max).then(|| {
            format!(
                "refused before any request: {requests} requests to `{}` are estimated at {estimate:.4} (about {prompt_tokens} prompt tokens at 4 characters a token and {completion} completion tokens), over the --max-cost budget of {max} ({spent:.4} spent); raise --max-cost, or score fewer cases",
                self.s.model
            )
        })
    }

    /// What this client's calls have cost, by its model's price (replies from batches at the
    /// batch price); None without one.
    pub fn cost(&self) -> Option<f64> {
        let u = self.usage();
        self.s.price.map(|p| {
            p.cost(u.prompt_tokens, u.completion_tokens)
                + p.batch_cost(u.batch_prompt_tokens, u.batch_completion_tokens)
        })
    }

    /// What this client's calls cost and how, for a note: `cost X (by ...)` or why unknown, and
    /// the requests answered by or queued for batches.
    pub fn cost_note(&self) -> String {
        let u = self.usage();
        let mut note = match self.cost() {
            Some(c) => format!("cost {c:.4} (by `prices:` for {})", self.s.model),
            None => format!(
                "cost unknown (no price for {} under `prices:`)",
                self.s.model
            ),
        };
        if u.batch_replies > 0 {
            note.push_str(&format!(
                "; {} replies from batches ({} prompt + {} completion tokens{})",
                u.batch_replies,
                u.batch_prompt_tokens,
                u.batch_completion_tokens,
                match self.s.price {
                    Some(p) => format!(
                        ", {:.4} at the batch price",
                        p.batch_cost(u.batch_prompt_tokens, u.batch_completion_tokens)
                    ),
                    None => String::new(),
                }
            ));
        }
        if u.queued > 0 {
            note.push_str(&format!("; {} requests queued for a batch", u.queued));
        }
        note
    }

    pub fn model(&self) -> &str {
        &self.s.model
    }

    /// One HTTP request; returns the reply text. Every message is redacted, then cut.
    fn request(&self, prompt: &str) -> Result<String, CallError> {
        if let Some(why) = self.over_budget() {
            return Err(CallError::Fatal(why));
        }
        let url = endpoint_url(&self.s.base_url, "chat/completions");
        let shown = &self.shown_url;
        let body = json!({
            "model": self.s.model,
            "messages": [{"role": "user", "content": prompt}],
            "temperature": 0,
            "seed": 7,
        })
        .to_string();
        let mut req = self
            .agent
            .post(&url)
            .header("Content-Type", "application/json");
        if let Some(k) = &self.key {
            req = req.header("Authorization", &format!("Bearer {k}"));
        }
        let started = Instant::now();
        let result = req.send(body);
        if let Ok(mut u) = self.usage.lock() {
            u.calls += 1;
            u.millis += started.elapsed().as_millis() as u64;
        }
        let say = |m: String| cut(&self.redact(&m), KEEP_CHARS);
        use std::sync::atomic::Ordering;
        let mut resp = match result {
            Ok(r) => {
                self.failures_in_a_row.store(0, Ordering::SeqCst);
                r
            }
            Err(e) => {
                let msg = say(format!("{shown}: {e}"));
                if unreachable(&e) {
                    let n = self.failures_in_a_row.fetch_add(1, Ordering::SeqCst) + 1;
                    if n >= CONNECTION_FAILURES_BEFORE_GIVING_UP {
                        if let Ok(mut d) = self.down.lock() {
                            d.get_or_insert_with(|| {
                                format!("the server at {} could not be reached {n} times in a row (last: {msg}); no further request was sent this run. Start the server (or fix base_url) and rerun: verdicts already paid for are in the cache", display_url(&self.s.base_url))
                            });
                        }
                    }
                }
                return Err(CallError::Retry(msg, None));
            }
        };
        let status = resp.status().as_u16();
        let retry_after = retry_after_of(&resp);
        let text = resp
            .body_mut()
            .read_to_string()
            .map_err(|e| CallError::Retry(say(format!("{shown}: reading the reply: {e}")), None))?;
        if status == 429 || status >= 500 {
            return Err(CallError::Retry(
                say(format!("{shown}: HTTP {status}: {text}")),
                retry_after,
            ));
        }
        if status >= 400 {
            return Err(CallError::Fatal(say(format!(
                "{shown}: HTTP {status}: {text}"
            ))));
        }
        let v: Value = serde_json::from_str(&text).map_err(|e| {
            CallError::Retry(
                say(format!("{shown}: the server's response is not JSON ({e})")),
                None,
            )
        })?;
        let (pt, ct) = (
            v["usage"]["prompt_tokens"].as_u64().unwrap_or(0),
            v["usage"]["completion_tokens"].as_u64().unwrap_or(0),
        );
        if let Ok(mut u) = self.usage.lock() {
            u.prompt_tokens += pt;
            u.completion_tokens += ct;
        }
        if let (Some(p), Ok(mut b)) = (self.s.price, BUDGET.lock()) {
            b.spent += p.cost(pt, ct);
        }
        v["choices"][0]["message"]["content"]
            .as_str()
            .map(|s| self.redact(s))
            .ok_or_else(|| {
                CallError::Retry(
                    format!("{shown}: the response has no choices[0].message.content"),
                    None,
                )
            })
    }

    /// Sends a prompt and checks the reply with `check`, retrying network faults and invalid
    /// replies; after the last try, an error that keeps the (redacted) raw reply.
    pub fn complete<T>(
        &self,
        prompt: &str,
        check: &dyn Fn(&str) -> Result<T, String>,
    ) -> Result<T, LlmError> {
        self.complete_sized(prompt, 1, check)
    }

    /// [`LlmClient::complete`] for a prompt that asks for `verdicts` verdicts (the claims of a
    /// judge's batch-mode call), which a batch submission's cost estimate counts. A reply
    /// collected from a batch answers first, through the same `check`; under `--batch submit`
    /// a prompt without one is queued, never sent.
    pub fn complete_sized<T>(
        &self,
        prompt: &str,
        verdicts: usize,
        check: &dyn Fn(&str) -> Result<T, String>,
    ) -> Result<T, LlmError> {
        if let Some(answer) = self.batch_answer(prompt, check) {
            return answer;
        }
        match super::replies::route(&self.target, &self.reply_fingerprint, prompt, verdicts) {
            super::replies::Route::Online => {}
            super::replies::Route::Queued => {
                if let Ok(mut u) = self.usage.lock() {
                    u.queued += 1;
                }
                return Err(LlmError::Batch(
                    "queued for a batch (`--batch submit`): not scored yet".into(),
                ));
            }
            super::replies::Route::Waiting(b) => {
                return Err(LlmError::Batch(format!(
                    "waiting for batch {b}, submitted earlier: run `faithprobe batch collect`, then rerun"
                )))
            }
        }
        let mut last = LlmError::Http(String::new());
        for attempt in 0..=self.s.max_retries {
            if attempt > 0 {
                if let Ok(mut u) = self.usage.lock() {
                    u.retries += 1;
                }
            }
            if crate::io::interrupt::requested() {
                return Err(LlmError::Interrupted);
            }
            if let Some(why) = self.down() {
                return Err(LlmError::Http(format!("not sent: {why}")));
            }
            let wait = match self.request(prompt) {
                Ok(reply) => match check(&reply) {
                    Ok(v) => return Ok(v),
                    Err(why) => {
                        last = LlmError::InvalidReply(format!(
                            "invalid reply ({}); raw reply: {}",
                            self.redact(&why),
                            cut(&reply, KEEP_CHARS)
                        ));
                        None
                    }
                },
                Err(CallError::Fatal(msg)) => {
                    return Err(LlmError::Http(format!(
                        "the server refused the request: {msg}"
                    )))
                }
                Err(CallError::Retry(msg, after)) => {
                    last = LlmError::Http(msg);
                    Some(after)
                }
            };
            if attempt < self.s.max_retries {
                if let Some(after) = wait {
                    let backoff = self
                        .s
                        .backoff
                        .mul_f64(2f64.powi(attempt.min(30) as i32) * jitter(attempt));
                    let d = after.map_or(backoff, |a| a.max(backoff.min(a)));
                    if sleep_interruptibly(d.min(self.s.max_wait)) {
                        return Err(LlmError::Interrupted);
                    }
                }
            }
        }
        let tries = self.s.max_retries + 1;
        Err(match last {
            LlmError::InvalidReply(m) => {
                LlmError::InvalidReply(format!("failed after {tries} attempts: {m}"))
            }
            LlmError::Http(m) => LlmError::Http(format!("failed after {tries} attempts: {m}")),
            other => other,
        })
    }
}

impl LlmClient {
    /// The answer a reply collected from a batch gives, if the cache holds one for `prompt`:
    /// the checked value, or the error of a failed or invalid reply (None when the reply is to
    /// be asked for again under `--retry-failed`).
    fn batch_answer<T>(
        &self,
        prompt: &str,
        check: &dyn Fn(&str) -> Result<T, String>,
    ) -> Option<Result<T, LlmError>> {
        use super::replies::Stored;
        let again = "ask for it again with `--batch submit --retry-failed`";
        match super::replies::lookup(&self.reply_fingerprint, prompt)? {
            Stored::Reply {
                text,
                prompt_tokens,
                completion_tokens,
                batch,
            } => match check(&text) {
                Ok(v) => {
                    if let Ok(mut u) = self.usage.lock() {
                        u.batch_replies += 1;
                        u.batch_prompt_tokens += prompt_tokens;
                        u.batch_completion_tokens += completion_tokens;
                    }
                    Some(Ok(v))
                }
                Err(_) if super::replies::retry_failed() => None,
                Err(why) => Some(Err(LlmError::InvalidReply(format!(
                    "the reply from batch {batch} is invalid ({}); raw reply: {}; {again}",
                    self.redact(&why),
                    cut(&text, KEEP_CHARS)
                )))),
            },
            Stored::Failed { .. } if super::replies::retry_failed() => None,
            Stored::Failed { why, batch } => Some(Err(LlmError::Http(format!(
                "batch {batch} returned no reply for this request ({why}); {again}"
            )))),
        }
    }
}

/// Why a call to an endpoint gave no usable reply. Each user maps it into its own error (the
/// judge's is [`crate::check::CheckError`]); none is ever a verdict.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LlmError {
    /// Ctrl-C arrived before the reply.
    #[error("interrupted before this case was scored; rerun the same command to finish (verdicts already paid for are in the cache)")]
    Interrupted,
    /// The server could not be reached or answered with an error.
    #[error("{0}")]
    Http(String),
    /// The server answered, but not with a valid reply (after every retry).
    #[error("{0}")]
    InvalidReply(String),
    /// Under `--batch submit`: queued for a batch, or waiting for one; nothing scored yet.
    #[error("{0}")]
    Batch(String),
}

/// The connection settings of an OpenAI-compatible endpoint (judge and LLM decomposer).
#[derive(Debug, Clone, PartialEq, serde::Deserialize, schemars::JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "endpoint settings: `base_url`, `model` and optional `api_key_env`, `prompt`, `timeout_s`, `max_retries`, `backoff_ms`, `max_wait_s`, `batch`"
)]
pub struct EndpointConfig {
    pub base_url: String,
    pub model: String,
    /// The variable's name, never the key.
    pub api_key_env: Option<String>,
    /// Prompt template file (default: the built-in prompt for the use, `prompts/judge-v1.md` or
    /// `prompts/decompose-v1.md`).
    pub prompt: Option<std::path::PathBuf>,
    pub timeout_s: Option<f64>,
    pub max_retries: Option<u32>,
    pub backoff_ms: Option<u64>,
    /// Cap on any one wait between tries (default 60), whatever `Retry-After` says.
    pub max_wait_s: Option<f64>,
    /// Where `--batch` sends this endpoint's requests (default: the OpenAI Batch API at
    /// `base_url`).
    pub batch: Option<Box<super::replies::BatchConfig>>,
}

/// The longest `timeout_s`, `max_wait_s` or command timeout accepted: one day.
pub const MAX_SECONDS: f64 = 86_400.0;
/// The most retries of one call.
pub const MAX_RETRIES: u32 = 100;

impl EndpointConfig {
    /// The settings' own checks: timeouts and waits finite, positive and at most a day, bounded
    /// retries, a base URL and a model.
    pub fn validate(&self) -> std::result::Result<(), String> {
        for (field, v) in [
            ("timeout_s", self.timeout_s),
            ("max_wait_s", self.max_wait_s),
        ] {
            if let Some(v) = v {
                if !(v.is_finite() && v > 0.0 && v <= MAX_SECONDS) {
                    return Err(format!(
                        "{field} {v} must be a positive number of seconds, at most {MAX_SECONDS}"
                    ));
                }
            }
        }
        if self
            .backoff_ms
            .is_some_and(|b| b as f64 > MAX_SECONDS * 1000.0)
        {
            return Err(format!(
                "backoff_ms must be at most {}",
                MAX_SECONDS * 1000.0
            ));
        }
        if self.max_retries.is_some_and(|r| r > MAX_RETRIES) {
            return Err(format!("max_retries must be at most {MAX_RETRIES}"));
        }
        if self.base_url.trim().is_empty() || self.model.trim().is_empty() {
            return Err("`base_url` and `model` must not be empty".into());
        }
        match &self.batch {
            Some(b) => b.validate(),
            None => Ok(()),
        }
    }

    /// The prompt as written, or `default` when none is set.
    pub fn prompt_or(&self, default: &str) -> std::path::PathBuf {
        self.prompt
            .clone()
            .unwrap_or_else(|| std::path::PathBuf::from(default))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_and_every_eight_character_piece_of_it_are_redacted() {
        let key = "sk-live-0123456789abcdef";
        let text = format!("echo: Bearer {key} / cut: {} / short: sk-l", &key[..12]);
        let r = redact(&text, key);
        assert!(!r.contains("0123"), "{r}");
        assert!(!r.contains("sk-live-"), "{r}");
        assert!(r.contains("short: sk-l"), "{r}");
        for i in 0..key.len() - 8 {
            assert!(!r.contains(&key[i..i + 8]), "{r}");
        }
    }

    #[test]
    fn templates_are_filled_in_one_pass() {
        let t = "P: {passages}\nC: {claims}\nkeep {this}";
        let r = render_template(
            t,
            &[("passages", "text with {claims} in it"), ("claims", "1. x")],
        );
        assert_eq!(r, "P: text with {claims} in it\nC: 1. x\nkeep {this}");
    }

    #[test]
    fn retry_after_reads_seconds_and_dates_and_ignores_garbage() {
        assert_eq!(parse_retry_after("3"), Some(Duration::from_secs(3)));
        assert_eq!(parse_retry_after("NaN"), None);
        assert_eq!(parse_retry_after("-1"), None);
        assert_eq!(parse_retry_after("inf"), None);
        assert_eq!(parse_retry_after("soon"), None);
        // a date in the past means: now
        assert_eq!(
            parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT"),
            Some(Duration::ZERO)
        );
        assert_eq!(
            httpdate("Sun, 06 Nov 1994 08:49:37 GMT"),
            Some(std::time::UNIX_EPOCH + Duration::from_secs(784_111_777))
        );
    }

    #[test]
    fn retry_after_dates_in_the_obsolete_forms_are_read_and_impossible_dates_are_not() {
        let t = Some(std::time::UNIX_EPOCH + Duration::from_secs(784_111_777));
        assert_eq!(httpdate("Sunday, 06-Nov-94 08:49:37 GMT"), t);
        assert_eq!(httpdate("Sun Nov  6 08:49:37 1994"), t);
        assert_eq!(httpdate("Mon, 06 Nov 1994 08:49:37 GMT"), None);
        assert_eq!(httpdate("Sun, 31 Feb 1994 08:49:37 GMT"), None);
        assert_eq!(parse_retry_after("Sun, 06 Nov 1994 25:49:37 GMT"), None);
    }

    #[test]
    fn the_endpoint_path_goes_before_a_query_string_never_after_it() {
        assert_eq!(
            endpoint_url(
                "https://x.openai.azure.com/openai/deployments/gpt4o?api-version=2024-02-01",
                "chat/completions"
            ),
            "https://x.openai.azure.com/openai/deployments/gpt4o/chat/completions?api-version=2024-02-01"
        );
        assert_eq!(
            endpoint_url("http://127.0.0.1:8000/v1/", "chat/completions"),
            "http://127.0.0.1:8000/v1/chat/completions"
        );
        assert_eq!(
            endpoint_url("http://h/v1/?a=1&b=2#frag", "models"),
            "http://h/v1/models?a=1&b=2#frag"
        );
    }
}
