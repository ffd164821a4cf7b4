//! A scripted OpenAI-compatible chat-completions server on 127.0.0.1 for the judge tests and
//! benchmark: a real HTTP server on a free port, answering each request from a handler.
#![allow(dead_code)]

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One scripted answer.
pub struct Reply {
    pub status: u16,
    pub body: String,
    pub delay: Duration,
    pub headers: Vec<(String, String)>,
}

impl Reply {
    /// A 200 chat-completion whose message content is `content`.
    pub fn chat(content: &str) -> Reply {
        Reply {
            status: 200,
            body: json!({
                "id": "x", "object": "chat.completion",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
            })
            .to_string(),
            delay: Duration::ZERO,
            headers: vec![],
        }
    }

    pub fn status(status: u16, body: &str) -> Reply {
        Reply {
            status,
            body: body.to_string(),
            delay: Duration::ZERO,
            headers: vec![],
        }
    }

    pub fn after(mut self, d: Duration) -> Reply {
        self.delay = d;
        self
    }

    pub fn header(mut self, k: &str, v: &str) -> Reply {
        self.headers.push((k.into(), v.into()));
        self
    }
}

/// What the server received.
#[derive(Clone, Debug)]
pub struct Recorded {
    pub body: Value,
    pub authorization: Option<String>,
    /// The request's target as sent: path and query.
    pub path: String,
}

impl Recorded {
    pub fn prompt(&self) -> String {
        self.body["messages"][0]["content"]
            .as_str()
            .unwrap_or("")
            .to_string()
    }
}

type Handler = dyn Fn(&Recorded, usize) -> Reply + Send + Sync;

pub struct Server {
    pub url: String,
    requests: Arc<Mutex<Vec<Recorded>>>,
    stop: Arc<AtomicBool>,
    addr: std::net::SocketAddr,
}

impl Server {
    /// Starts a server; `handler` gets each request and its index (0-based, in arrival order).
    pub fn start(handler: impl Fn(&Recorded, usize) -> Reply + Send + Sync + 'static) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let handler: Arc<Handler> = Arc::new(handler);
        let counter = Arc::new(AtomicUsize::new(0));
        {
            let requests = requests.clone();
            let stop = stop.clone();
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(stream) = stream else { continue };
                    let (requests, handler, counter) =
                        (requests.clone(), handler.clone(), counter.clone());
                    std::thread::spawn(move || serve(stream, &requests, &*handler, &counter));
                }
            });
        }
        Server {
            url: format!("http://{addr}/v1"),
            requests,
            stop,
            addr,
        }
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().unwrap().clone()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(self.addr);
    }
}

fn serve(
    stream: TcpStream,
    requests: &Mutex<Vec<Recorded>>,
    handler: &Handler,
    counter: &AtomicUsize,
) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        return;
    }
    let mut length = 0usize;
    let mut auth = None;
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).unwrap_or(0) == 0 || h == "\r\n" {
            break;
        }
        let lower = h.to_lowercase();
        if let Some(v) = lower.strip_prefix("content-length:") {
            length = v.trim().parse().unwrap_or(0);
        }
        if lower.starts_with("authorization:") {
            auth = Some(h["authorization:".len()..].trim().to_string());
        }
    }
    let mut body = vec![0u8; length];
    if reader.read_exact(&mut body).is_err() {
        return;
    }
    let rec = Recorded {
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
        authorization: auth,
        path: line.split_whitespace().nth(1).unwrap_or("").to_string(),
    };
    let n = counter.fetch_add(1, Ordering::SeqCst);
    requests.lock().unwrap().push(rec.clone());
    let reply = handler(&rec, n);
    std::thread::sleep(reply.delay);
    let mut out = stream;
    let mut head = format!(
        "HTTP/1.1 {} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
        reply.status,
        reply.body.len()
    );
    for (k, v) in &reply.headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    let _ = out.write_all(head.as_bytes());
    let _ = out.write_all(reply.body.as_bytes());
    let _ = out.flush();
}

/// The claims of a prompt, from its numbered list.
pub fn claims(prompt: &str) -> Vec<String> {
    let after = prompt.split("Claims, numbered:").nth(1).unwrap_or("");
    after
        .lines()
        .filter_map(|l| {
            let (n, rest) = l.split_once(". ")?;
            n.trim()
                .parse::<usize>()
                .ok()
                .map(|_| rest.trim().to_string())
        })
        .collect()
}

/// The passage texts of a prompt (still escaped), from inside the data block.
pub fn passages(prompt: &str) -> Vec<String> {
    // the data block is the last <passages> element (the instructions may name the tag)
    let data = match (prompt.rfind("<passages>"), prompt.rfind("</passages>")) {
        (Some(a), Some(b)) if b > a => &prompt[a + "<passages>".len()..b],
        _ => "",
    };
    data.split("<passage id=")
        .skip(1)
        .filter_map(|p| {
            p.split_once('>')
                .map(|(_, t)| t.split("</passage>").next().unwrap_or("").to_string())
        })
        .collect()
}

fn words(s: &str) -> std::collections::HashSet<String> {
    s.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() > 2)
        .map(str::to_string)
        .collect()
}

/// A deterministic stand-in for a model: a claim is supported when a passage sentence holds at
/// least 80% of its words (quoting that sentence), otherwise not_found.
pub fn answer(prompt: &str) -> Vec<Value> {
    let sentences: Vec<String> = passages(prompt)
        .iter()
        .flat_map(|p| {
            p.split(". ")
                .map(|s| s.trim_end_matches('.').to_string())
                .collect::<Vec<_>>()
        })
        .collect();
    claims(prompt)
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let cw = words(c);
            let best = sentences
                .iter()
                .max_by_key(|s| cw.intersection(&words(s)).count())
                .cloned()
                .unwrap_or_default();
            let share = cw.intersection(&words(&best)).count() as f64 / cw.len().max(1) as f64;
            if share >= 0.8 {
                json!({"claim": i + 1, "label": "supported", "quote": best})
            } else {
                json!({"claim": i + 1, "label": "not_found", "quote": ""})
            }
        })
        .collect()
}

/// The stand-in model's reply as JSON text.
pub fn good(prompt: &str) -> String {
    Value::Array(answer(prompt)).to_string()
}

/// The prompt with its data block removed: what a model reads as instructions.
pub fn outside_data(prompt: &str) -> String {
    match (prompt.rfind("<passages>"), prompt.rfind("</passages>")) {
        (Some(a), Some(b)) if b > a => format!("{}{}", &prompt[..a], &prompt[b..]),
        _ => prompt.to_string(),
    }
}
