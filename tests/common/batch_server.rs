//! A local stand-in for the providers' batch APIs on 127.0.0.1, as their documentation
//! describes them: the OpenAI Batch API (`POST /v1/files` multipart, `POST /v1/batches`,
//! `GET /v1/batches/ID`, `GET /v1/files/ID/content`) and Anthropic Message Batches
//! (`POST /v1/messages/batches`, `GET /v1/messages/batches/ID`, `GET .../ID/results`). Each
//! request is answered by the same scripted judge as the online server, so batch and online
//! verdicts can be compared case for case; and the failures that happen are scripted: a batch
//! that expires half done, per-request errors, a malformed output line, 429 on create, a
//! download cut off, a download that stalls (to kill a collect part way).
#![allow(dead_code)]

use serde_json::{json, Value};
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What goes wrong, and when.
#[derive(Default, Clone)]
pub struct Faults {
    /// Status checks before a batch has ended.
    pub ready_after: usize,
    /// The batch expires with only the first half of its requests done.
    pub expire_half: bool,
    /// Every n-th request (1-based) fails with a per-request error.
    pub error_every: Option<usize>,
    /// The output's first line is not JSON.
    pub malformed_first_line: bool,
    /// This many creates answer 429 (with `Retry-After: 0`) first.
    pub create_429: usize,
    /// This many downloads are cut off half way (a `Content-Length` the body never reaches).
    pub cut_downloads: usize,
    /// This many downloads send half, then stall for this long before the rest.
    pub stall_downloads: usize,
    pub stall: Duration,
    /// Only the first this many batches have the faults above (None: all of them).
    pub faulty_batches: Option<usize>,
    /// Text a per-request error message carries (a server that echoes the key).
    pub echo: String,
    /// The output also holds a result for a request the batch never held, and a second one
    /// for its first request.
    pub lie: bool,
    /// The model's reply to a prompt (default: the scripted judge, `server::good`).
    pub answer: Option<fn(&str) -> String>,
}

#[derive(Clone)]
struct Job {
    anthropic: bool,
    faulty: bool,
    /// (custom_id, prompt)
    requests: Vec<(String, String)>,
    polls: usize,
}

#[derive(Default)]
struct State {
    files: HashMap<String, String>,
    jobs: HashMap<String, Job>,
    next: usize,
    creates: usize,
    downloads: usize,
    /// Every request: method and path.
    seen: Vec<String>,
    auth: Vec<String>,
}

pub struct BatchServer {
    pub url: String,
    state: Arc<Mutex<State>>,
    stop: Arc<AtomicBool>,
    addr: std::net::SocketAddr,
    /// Set while a stalled download is under way.
    pub stalled: Arc<AtomicBool>,
}

impl BatchServer {
    pub fn start(faults: Faults) -> BatchServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let state = Arc::new(Mutex::new(State::default()));
        let stop = Arc::new(AtomicBool::new(false));
        let stalled = Arc::new(AtomicBool::new(false));
        {
            let (state, stop, stalled) = (state.clone(), stop.clone(), stalled.clone());
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(stream) = stream else { continue };
                    let (state, faults, stalled) = (state.clone(), faults.clone(), stalled.clone());
                    std::thread::spawn(move || serve(stream, &state, &faults, &stalled));
                }
            });
        }
        BatchServer {
            url: format!("http://{addr}/v1"),
            state,
            stop,
            addr,
            stalled,
        }
    }

    /// Every request received, as `METHOD /path`.
    pub fn seen(&self) -> Vec<String> {
        self.state.lock().unwrap().seen.clone()
    }

    /// The credentials each request carried (`Authorization` or `x-api-key`).
    pub fn auth(&self) -> Vec<String> {
        self.state.lock().unwrap().auth.clone()
    }

    /// Batches created and the requests each held.
    pub fn batches(&self) -> Vec<usize> {
        let s = self.state.lock().unwrap();
        let mut ids: Vec<&String> = s.jobs.keys().collect();
        ids.sort();
        ids.iter().map(|i| s.jobs[*i].requests.len()).collect()
    }
}

impl Drop for BatchServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(self.addr);
    }
}

fn respond(mut out: &TcpStream, status: u16, body: &str, extra: &str) {
    let head = format!(
        "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n{extra}\r\n",
        body.len()
    );
    let _ = out.write_all(head.as_bytes());
    let _ = out.write_all(body.as_bytes());
    let _ = out.flush();
}

#[allow(clippy::too_many_lines)] // one table of routes
fn serve(stream: TcpStream, state: &Mutex<State>, faults: &Faults, stalled: &AtomicBool) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        return;
    }
    let mut length = 0usize;
    let mut auth = String::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).unwrap_or(0) == 0 || h == "\r\n" {
            break;
        }
        let lower = h.to_lowercase();
        if let Some(v) = lower.strip_prefix("content-length:") {
            length = v.trim().parse().unwrap_or(0);
        }
        if lower.starts_with("authorization:") || lower.starts_with("x-api-key:") {
            auth = h.trim().to_string();
        }
    }
    let mut body = vec![0u8; length];
    if reader.read_exact(&mut body).is_err() {
        return;
    }
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or("").to_string();
    let path = parts.next().unwrap_or("").to_string();
    {
        let mut s = state.lock().unwrap();
        s.seen.push(format!("{method} {path}"));
        s.auth.push(auth);
    }
    let segs: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    match (method.as_str(), segs.as_slice()) {
        ("POST", ["v1", "files"]) => {
            let text = String::from_utf8_lossy(&body).to_string();
            let Some(jsonl) = multipart_file(&text) else {
                return respond(&stream, 400, r#"{"error":{"message":"no file part"}}"#, "");
            };
            let mut s = state.lock().unwrap();
            s.next += 1;
            let id = format!("file-{}", s.next);
            s.files.insert(id.clone(), jsonl);
            respond(
                &stream,
                200,
                &json!({"id": id, "object": "file", "purpose": "batch"}).to_string(),
                "",
            );
        }
        ("POST", ["v1", "batches"]) => {
            let v: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
            if v["endpoint"] != "/v1/chat/completions" || v["completion_window"] != "24h" {
                return respond(&stream, 400, r#"{"error":{"message":"bad batch"}}"#, "");
            }
            let mut s = state.lock().unwrap();
            if s.creates < faults.create_429 {
                s.creates += 1;
                return respond(
                    &stream,
                    429,
                    r#"{"error":{"message":"slow down"}}"#,
                    "Retry-After: 0\r\n",
                );
            }
            let Some(file) = v["input_file_id"]
                .as_str()
                .and_then(|f| s.files.get(f))
                .cloned()
            else {
                return respond(&stream, 404, r#"{"error":{"message":"no such file"}}"#, "");
            };
            let requests = file
                .lines()
                .filter_map(|l| serde_json::from_str::<Value>(l).ok())
                .map(|r| {
                    assert_eq!(r["url"], "/v1/chat/completions");
                    assert_eq!(r["body"]["temperature"], 0);
                    (
                        r["custom_id"].as_str().unwrap().to_string(),
                        r["body"]["messages"][0]["content"]
                            .as_str()
                            .unwrap()
                            .to_string(),
                    )
                })
                .collect();
            s.next += 1;
            let id = format!("batch_{}", s.next);
            let faulty = faults.faulty_batches.is_none_or(|k| s.jobs.len() < k);
            s.jobs.insert(
                id.clone(),
                Job {
                    anthropic: false,
                    faulty,
                    requests,
                    polls: 0,
                },
            );
            respond(
                &stream,
                200,
                &json!({"id": id, "object": "batch", "status": "validating"}).to_string(),
                "",
            );
        }
        ("GET", ["v1", "batches", id]) => {
            let mut s = state.lock().unwrap();
            let Some(job) = s.jobs.get_mut(*id) else {
                return respond(&stream, 404, r#"{"error":{"message":"no such batch"}}"#, "");
            };
            job.polls += 1;
            let n = job.requests.len();
            let body = if job.polls > faults.ready_after {
                json!({"id": id, "object": "batch",
                    "status": if faults.expire_half && job.faulty { "expired" } else { "completed" },
                    "output_file_id": format!("out-{id}"), "error_file_id": format!("err-{id}"),
                    "request_counts": {"total": n, "completed": n, "failed": 0}})
            } else {
                json!({"id": id, "object": "batch", "status": "in_progress",
                    "output_file_id": null, "error_file_id": null,
                    "request_counts": {"total": n, "completed": 0, "failed": 0}})
            };
            respond(&stream, 200, &body.to_string(), "");
        }
        ("GET", ["v1", "files", file, "content"]) => {
            let job = {
                let s = state.lock().unwrap();
                let id = file.trim_start_matches("out-").trim_start_matches("err-");
                s.jobs.get(id).cloned()
            };
            let Some(job) = job else {
                return respond(&stream, 404, r#"{"error":{"message":"no such file"}}"#, "");
            };
            let errors = file.starts_with("err-");
            let text = results(&job, faults, Some(errors));
            download(&stream, state, faults, stalled, &text);
        }
        ("POST", ["v1", "messages", "batches"]) => {
            let v: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
            let mut s = state.lock().unwrap();
            if s.creates < faults.create_429 {
                s.creates += 1;
                return respond(
                    &stream,
                    429,
                    r#"{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}"#,
                    "Retry-After: 0\r\n",
                );
            }
            let requests: Vec<(String, String)> = v["requests"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .map(|r| {
                            assert!(r["params"]["max_tokens"].as_u64().is_some());
                            (
                                r["custom_id"].as_str().unwrap().to_string(),
                                r["params"]["messages"][0]["content"]
                                    .as_str()
                                    .unwrap()
                                    .to_string(),
                            )
                        })
                        .collect()
                })
                .unwrap_or_default();
            if requests.is_empty() {
                return respond(
                    &stream,
                    400,
                    r#"{"type":"error","error":{"type":"invalid_request_error","message":"no requests"}}"#,
                    "",
                );
            }
            s.next += 1;
            let id = format!("msgbatch_{}", s.next);
            let faulty = faults.faulty_batches.is_none_or(|k| s.jobs.len() < k);
            s.jobs.insert(
                id.clone(),
                Job {
                    anthropic: true,
                    faulty,
                    requests,
                    polls: 0,
                },
            );
            respond(
                &stream,
                200,
                &json!({"id": id, "type": "message_batch", "processing_status": "in_progress"})
                    .to_string(),
                "",
            );
        }
        ("GET", ["v1", "messages", "batches", id]) => {
            let mut s = state.lock().unwrap();
            let Some(job) = s.jobs.get_mut(*id) else {
                return respond(
                    &stream,
                    404,
                    r#"{"type":"error","error":{"type":"not_found_error","message":"no such batch"}}"#,
                    "",
                );
            };
            job.polls += 1;
            let n = job.requests.len();
            let ended = job.polls > faults.ready_after;
            let body = json!({"id": id, "type": "message_batch",
                "processing_status": if ended { "ended" } else { "in_progress" },
                "request_counts": {"processing": if ended { 0 } else { n }, "succeeded": if ended { n } else { 0 }, "errored": 0, "canceled": 0, "expired": 0},
                // a results_url elsewhere must never be followed (it would be sent the key)
                "results_url": if ended { Value::from("http://127.0.0.2:9/elsewhere") } else { Value::Null }});
            respond(&stream, 200, &body.to_string(), "");
        }
        ("GET", ["v1", "messages", "batches", id, "results"]) => {
            let job = state.lock().unwrap().jobs.get(*id).cloned();
            let Some(job) = job else {
                return respond(&stream, 404, "{}", "");
            };
            let text = results(&job, faults, None);
            download(&stream, state, faults, stalled, &text);
        }
        _ => respond(&stream, 404, r#"{"error":{"message":"no such route"}}"#, ""),
    }
}

/// Sends a result file, cut off or stalled as scripted.
fn download(
    stream: &TcpStream,
    state: &Mutex<State>,
    faults: &Faults,
    stalled: &AtomicBool,
    text: &str,
) {
    let n = {
        let mut s = state.lock().unwrap();
        s.downloads += 1;
        s.downloads
    };
    let mut out = stream;
    let head = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/jsonl\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        text.len()
    );
    let half = text.len() / 2;
    if n <= faults.cut_downloads {
        let _ = out.write_all(head.as_bytes());
        let _ = out.write_all(&text.as_bytes()[..half]);
        let _ = out.flush();
        let _ = stream.shutdown(std::net::Shutdown::Both);
        return;
    }
    if n <= faults.cut_downloads + faults.stall_downloads {
        let _ = out.write_all(head.as_bytes());
        let _ = out.write_all(&text.as_bytes()[..half]);
        let _ = out.flush();
        stalled.store(true, Ordering::SeqCst);
        std::thread::sleep(faults.stall);
        let _ = out.write_all(&text.as_bytes()[half..]);
        return;
    }
    let _ = out.write_all(head.as_bytes());
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

/// The result lines of a job: for OpenAI, its output file (`errors: Some(false)`) or its error
/// file (`Some(true)`); for Anthropic (`None`), every result.
fn results(job: &Job, faults: &Faults, errors: Option<bool>) -> String {
    let answer = faults.answer.unwrap_or(super::server::good);
    let clean = Faults::default();
    let faults = if job.faulty { faults } else { &clean };
    let n = job.requests.len();
    let mut lines = Vec::new();
    for (i, (id, prompt)) in job.requests.iter().enumerate() {
        let expired = faults.expire_half && i >= n / 2;
        let errored = faults.error_every.is_some_and(|k| (i + 1) % k == 0);
        let content = answer(prompt);
        let line = if job.anthropic {
            let result = if expired {
                json!({"type": "expired"})
            } else if errored {
                json!({"type": "errored", "error": {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}})
            } else {
                json!({"type": "succeeded", "message": {"id": format!("msg_{i}"), "type": "message", "role": "assistant",
                    "model": "stand-in", "content": [{"type": "text", "text": content}], "stop_reason": "end_turn",
                    "usage": {"input_tokens": 100, "output_tokens": 20}}})
            };
            json!({"custom_id": id, "result": result})
        } else {
            let failed = expired || errored;
            if errors != Some(failed) {
                continue;
            }
            if expired {
                json!({"id": format!("batch_req_{i}"), "custom_id": id, "response": null,
                    "error": {"code": "batch_expired", "message": "This request could not be executed before the completion window expired."}})
            } else if errored {
                json!({"id": format!("batch_req_{i}"), "custom_id": id,
                    "response": {"status_code": 500, "request_id": "r", "body": {"error": {"message": format!("The server had an error {}", faults.echo), "type": "server_error"}}},
                    "error": null})
            } else {
                json!({"id": format!("batch_req_{i}"), "custom_id": id,
                    "response": {"status_code": 200, "request_id": "r", "body": {
                        "id": "x", "object": "chat.completion",
                        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
                        "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}}},
                    "error": null})
            }
        };
        lines.push(line.to_string());
    }
    if faults.lie && errors != Some(true) && !lines.is_empty() {
        let first = lines[0].clone();
        lines.push(first.replace("\"custom_id\":\"fp-", "\"custom_id\":\"fp-0000"));
        // a second result for the first request, saying something else
        lines.push(first.replace("supported", "contradicted"));
    }
    if faults.malformed_first_line && !lines.is_empty() && errors != Some(true) {
        let keep = lines[0].chars().count() / 2;
        lines[0] = lines[0].chars().take(keep).collect();
    }
    let mut text = lines.join("\n");
    text.push('\n');
    text
}

/// The JSONL file inside a multipart/form-data body (the part named `file`).
fn multipart_file(body: &str) -> Option<String> {
    let boundary = body.lines().next()?.trim().to_string();
    for part in body.split(&boundary) {
        if part.contains("name=\"file\"") {
            let (_, content) = part.split_once("\r\n\r\n")?;
            return Some(
                content
                    .trim_end_matches("--\r\n")
                    .trim_end_matches("\r\n")
                    .to_string(),
            );
        }
    }
    None
}
