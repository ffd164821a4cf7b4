//! The `command` checker: an external program that speaks JSON Lines, so a team can plug in the
//! checker it already has (HHEM, MiniCheck, Ragas, DeepEval) without faithprobe knowing it.
//!
//! faithprobe starts `argv` once per run (in the config file's folder) and writes one request per
//! line to its stdin: `{"id": "...", "claim": "...", "passages": [{"id": "...", "text": "..."}]}`,
//! then closes stdin. The program answers one line per request, in any order:
//! `{"id": "...", "label": "supported|contradicted|not_found", "score": 0.93,
//!   "evidence": {"passage": "...", "window": "..."}, "reason": "..."}` (score, evidence and
//! reason optional; evidence may also be a passage id). An answer `{"id": "...", "error": "..."}`
//! says the program could not score that claim: the case is an error with that message, never a
//! verdict (`faithprobe`'s Python `@checker` answers so when the function raises). A program
//! that exits early, prints
//! garbage or skips an id leaves those cases as errors with the reason. Its stderr is copied to
//! faithprobe's notes (stderr), each line prefixed with the checker's name.
//!
//! The program's output is read as bytes: a line that is not UTF-8 or not JSON is reported by its
//! number and reading goes on; a line longer than [`MAX_LINE`] is cut off and counted, and only
//! the first few unreadable lines are kept (the rest are counted). When the program gives no
//! answer for `timeout_s` seconds (default 60), or the whole run passes `total_timeout_s`, or
//! Ctrl-C arrives, the program is killed and every case still pending is an `error` that says why.

use super::{CheckError, CheckInput, CheckResult, Checker, Evidence, Label, Verdict};
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::{mpsc, Mutex};
use std::time::{Duration, Instant};

/// The longest output line read; the rest of a longer line is skipped and the line counted.
pub(crate) const MAX_LINE: usize = 1 << 20;
/// How many unreadable lines are kept for the message (the rest are counted).
const KEPT_BAD_LINES: usize = 5;

/// Time limits of a command checker.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CommandLimits {
    /// The longest the program may go without giving its next answer.
    pub answer_timeout: Duration,
    /// The longest the whole run may take, if set.
    pub total_timeout: Option<Duration>,
}

impl Default for CommandLimits {
    fn default() -> Self {
        CommandLimits {
            answer_timeout: Duration::from_secs(60),
            total_timeout: None,
        }
    }
}

pub struct CommandChecker {
    name: String,
    argv: Vec<String>,
    cwd: PathBuf,
    limits: CommandLimits,
    last: Mutex<String>,
}

impl CommandChecker {
    pub fn new(name: &str, argv: Vec<String>, cwd: PathBuf, limits: CommandLimits) -> Self {
        CommandChecker {
            name: name.to_string(),
            argv,
            cwd,
            limits,
            last: Mutex::new(String::new()),
        }
    }
}

/// Reads `r` line by line as bytes, at most `max` bytes a line (the rest of a longer line is
/// skipped): (line number, bytes, whether it was cut). Ends at end of input or a read error.
fn byte_lines(r: impl Read, max: usize, mut each: impl FnMut(usize, Vec<u8>, bool)) {
    let mut r = BufReader::new(r);
    let mut n = 0;
    loop {
        let mut line = Vec::new();
        let mut cut = false;
        loop {
            let buf = match r.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => return,
            };
            if buf.is_empty() {
                if !line.is_empty() || cut {
                    n += 1;
                    each(n, line, cut);
                }
                return;
            }
            let (take, end) = match buf.iter().position(|b| *b == b'\n') {
                Some(i) => (i, true),
                None => (buf.len(), false),
            };
            let room = max.saturating_sub(line.len());
            line.extend_from_slice(&buf[..take.min(room)]);
            cut |= take > room;
            r.consume(take + usize::from(end));
            if end {
                break;
            }
        }
        n += 1;
        each(n, line, cut);
    }
}

/// What the reader thread reports.
enum Event {
    Answer(String, Result<Verdict, CheckError>),
    Bad(String),
    Done,
}

pub(crate) fn parse_line(line: &str) -> Result<(String, Result<Verdict, CheckError>), String> {
    let v: Value = serde_json::from_str(line).map_err(|e| format!("not JSON ({e})"))?;
    let id = v["id"]
        .as_str()
        .map(str::to_string)
        .or_else(|| v["id"].as_u64().map(|n| n.to_string()))
        .ok_or("no `id`")?;
    // the program's own word that it could not score this claim (an exception, say): the case's
    // error, with the program's message, never a verdict
    if let Some(why) = v.get("error").filter(|e| !e.is_null()) {
        let why = why.as_str().map_or_else(|| why.to_string(), str::to_string);
        return Ok((
            id,
            Err(CheckError::Command(format!(
                "the program could not score it: {why}"
            ))),
        ));
    }
    let label = match v["label"].as_str().map(|l| l.trim().to_lowercase()) {
        Some(l) if l == "supported" => Label::Supported,
        Some(l) if l == "contradicted" => Label::Contradicted,
        Some(l) if l == "not_found" => Label::NotFound,
        other => {
            let said = match other {
                Some(l) => format!("label `{l}`"),
                None => "no label".to_string(),
            };
            return Ok((
                id,
                Err(CheckError::Command(format!(
                    "the program answered with {said}, not supported|contradicted|not_found"
                ))),
            ));
        }
    };
    let score = v["score"].as_f64();
    if score.is_some_and(|s| !(0.0..=1.0).contains(&s)) {
        return Ok((
            id,
            Err(CheckError::Command(format!(
                "the program's score {score:?} is outside [0, 1]"
            ))),
        ));
    }
    let evidence = match &v["evidence"] {
        Value::String(p) => Some(Evidence {
            passage: p.clone(),
            window: String::new(),
        }),
        Value::Object(o) => o.get("passage").and_then(|p| p.as_str()).map(|p| Evidence {
            passage: p.to_string(),
            window: o
                .get("window")
                .and_then(|w| w.as_str())
                .unwrap_or("")
                .to_string(),
        }),
        _ => None,
    };
    Ok((
        id,
        Ok(Verdict {
            label,
            score,
            evidence,
            reason: v["reason"].as_str().unwrap_or("").to_string(),
        }),
    ))
}

impl Checker for CommandChecker {
    fn name(&self) -> &str {
        &self.name
    }

    fn kind(&self) -> &'static str {
        "command"
    }

    fn settings(&self) -> BTreeMap<String, String> {
        BTreeMap::from([("argv".into(), self.argv.join(" "))])
    }

    fn notes(&self) -> Vec<String> {
        let last = self.last.lock().map(|l| l.clone()).unwrap_or_default();
        if last.is_empty() {
            vec![]
        } else {
            vec![format!("{}: {last}", self.name)]
        }
    }

    fn check(&self, input: &CheckInput<'_>, progress: &mut dyn FnMut(usize)) -> Vec<CheckResult> {
        let n = input.claims.len();
        let fail_all = |why: String| {
            (0..n)
                .map(|_| Err(CheckError::Command(why.clone())))
                .collect::<Vec<CheckResult>>()
        };
        // its own process group, so a timeout or Ctrl-C stops whatever it started too
        let mut child = match Command::new(&self.argv[0])
            .args(&self.argv[1..])
            .process_group(0)
            .current_dir(&self.cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
        {
            Ok(c) => c,
            Err(e) => return fail_all(format!("could not start {:?}: {e}", self.argv)),
        };
        let mut stdin = child.stdin.take().expect("piped");
        let stdout = child.stdout.take().expect("piped");
        let stderr = child.stderr.take().expect("piped");
        let requests = requests(input);
        let name = self.name.clone();
        let (tx, rx) = mpsc::channel::<Event>();
        let mut got = Answers::default();
        let (stderr_tail, status) = std::thread::scope(|scope| {
            // write in a thread so a program that answers as it reads never deadlocks
            scope.spawn(move || {
                for r in &requests {
                    if writeln!(stdin, "{r}").is_err() {
                        break; // the program exited early; the missing answers say so
                    }
                }
            });
            let err_reader = scope.spawn(move || copy_stderr(stderr, &name));
            scope.spawn(move || read_answers(stdout, &tx));
            got.stopped = got.receive(&rx, &self.limits, n, progress);
            if got.stopped.is_some() {
                stop(&mut child);
            }
            let status = child
                .wait()
                .map(|s| s.to_string())
                .unwrap_or_else(|e| e.to_string());
            (err_reader.join().unwrap_or_default(), status)
        });
        let summary = got.summary(n, &status, &stderr_tail);
        if let Ok(mut l) = self.last.lock() {
            *l = summary.clone();
        }
        progress(n);
        got.results(n, &summary)
    }
}

/// One request line per claim: its id (the claim's index), text, question and passages.
fn requests(input: &CheckInput<'_>) -> Vec<String> {
    input
        .claims
        .iter()
        .enumerate()
        .map(|(i, c)| {
            json!({
                "id": i.to_string(),
                "claim": c.text,
                "question": input.contexts[c.context].question,
                "passages": input.contexts[c.context].passages.iter().map(|p| json!({"id": p.id, "text": p.text})).collect::<Vec<_>>(),
            })
            .to_string()
        })
        .collect()
}

/// Copies the program's stderr to the notes, each line prefixed with the checker's name; its
/// last five lines, for the summary.
fn copy_stderr(stderr: impl Read, name: &str) -> String {
    let mut tail: Vec<String> = Vec::new();
    byte_lines(stderr, 4096, |_, bytes, _| {
        let line = String::from_utf8_lossy(&bytes).into_owned();
        crate::io::notes::note(format!("[{name}] {line}"));
        tail.push(line);
        if tail.len() > 5 {
            tail.remove(0);
        }
    });
    tail.join(" | ")
}

/// Reads the program's stdout as answers (or unreadable lines), then says it is done.
fn read_answers(stdout: impl Read, tx: &mpsc::Sender<Event>) {
    byte_lines(stdout, MAX_LINE, |n, bytes, cut| {
        let event = if cut {
            Event::Bad(format!("line {n} is longer than {MAX_LINE} bytes"))
        } else {
            match String::from_utf8(bytes) {
                Err(e) => Event::Bad(format!(
                    "line {n} is not UTF-8 (invalid byte at offset {})",
                    e.utf8_error().valid_up_to()
                )),
                Ok(line) if line.trim().is_empty() => return,
                Ok(line) => match parse_line(&line) {
                    Ok((id, v)) => Event::Answer(id, v),
                    Err(why) => Event::Bad(format!(
                        "line {n}: {why}: {}",
                        crate::text::escape::printable(&line.chars().take(120).collect::<String>())
                    )),
                },
            }
        };
        let _ = tx.send(event);
    });
    let _ = tx.send(Event::Done);
}

/// Stops the program and everything it started (its process group); the readers end once the
/// pipes close.
fn stop(child: &mut std::process::Child) {
    if let Ok(pgid) = i32::try_from(child.id()) {
        // SAFETY: kill(2) with a negative pid signals that process group; no memory
        // is involved
        unsafe {
            libc::kill(-pgid, libc::SIGKILL);
        }
    }
    let _ = child.kill();
}

/// What the program answered, by request id; the unreadable lines (the first few kept, all
/// counted); and why it was stopped, if it was.
#[derive(Default)]
struct Answers {
    answers: HashMap<String, Result<Verdict, CheckError>>,
    bad: Vec<String>,
    bad_count: usize,
    stopped: Option<String>,
}

impl Answers {
    /// Takes the reader's events until it is done, or Ctrl-C, or a time limit passes (then the
    /// reason the program must be stopped). A case answered twice is an error.
    fn receive(
        &mut self,
        rx: &mpsc::Receiver<Event>,
        limits: &CommandLimits,
        n: usize,
        progress: &mut dyn FnMut(usize),
    ) -> Option<String> {
        let started = Instant::now();
        let mut last_answer = Instant::now();
        loop {
            if crate::io::interrupt::requested() {
                return Some("interrupted".into());
            }
            if last_answer.elapsed() >= limits.answer_timeout {
                return Some(format!(
                    "the program gave no answer for {:?} (timeout_s); it was stopped",
                    limits.answer_timeout
                ));
            }
            if let Some(t) = limits.total_timeout.filter(|t| started.elapsed() >= *t) {
                return Some(format!(
                    "the run took longer than {t:?} (total_timeout_s); the program was stopped"
                ));
            }
            match rx.recv_timeout(Duration::from_millis(100)) {
                Ok(Event::Answer(id, v)) => {
                    last_answer = Instant::now();
                    match self.answers.get(&id) {
                        Some(_) => {
                            self.answers.insert(
                                id,
                                Err(CheckError::Command(
                                    "the program answered this case more than once".into(),
                                )),
                            );
                        }
                        None => {
                            self.answers.insert(id, v);
                        }
                    }
                    progress(self.answers.len().min(n));
                }
                Ok(Event::Bad(why)) => {
                    last_answer = Instant::now();
                    self.bad_count += 1;
                    if self.bad.len() < KEPT_BAD_LINES {
                        self.bad.push(why);
                    }
                }
                Ok(Event::Done) | Err(mpsc::RecvTimeoutError::Disconnected) => return None,
                Err(mpsc::RecvTimeoutError::Timeout) => {}
            }
        }
    }

    /// One line on the run: how many were answered, the exit status, the unreadable lines, the
    /// end of stderr.
    fn summary(&self, n: usize, status: &str, stderr_tail: &str) -> String {
        let (bad, bad_count) = (&self.bad, self.bad_count);
        format!(
            "{} of {n} answered; {status}{}{}",
            self.answers.len().min(n),
            if bad_count == 0 {
                String::new()
            } else {
                format!(
                    "; {bad_count} unreadable line(s){}: {}",
                    if bad_count > bad.len() {
                        format!(" (first {} shown)", bad.len())
                    } else {
                        String::new()
                    },
                    bad.join("; ")
                )
            },
            if stderr_tail.is_empty() {
                String::new()
            } else {
                format!("; stderr: {stderr_tail}")
            }
        )
    }

    /// Each case's answer, or an error saying why it has none.
    fn results(mut self, n: usize, summary: &str) -> Vec<CheckResult> {
        (0..n)
            .map(|i| match self.answers.remove(&i.to_string()) {
                Some(r) => r,
                None => Err(match &self.stopped {
                    Some(why) if why == "interrupted" => CheckError::Interrupted,
                    Some(why) => CheckError::Command(format!("{why} ({summary})")),
                    None => CheckError::Command(format!(
                        "the program gave no verdict for this case ({summary})"
                    )),
                }),
            })
            .collect()
    }
}

/// `kind: command` settings.
#[derive(Debug, Clone, PartialEq, serde::Deserialize, schemars::JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "command settings: `argv` (a list) and optional `timeout_s`, `total_timeout_s`"
)]
pub struct CommandConfig {
    pub argv: Vec<String>,
    /// The longest the program may go without its next answer (default 60).
    pub timeout_s: Option<f64>,
    /// The longest the whole run may take (default: no limit beyond `timeout_s` per answer).
    pub total_timeout_s: Option<f64>,
}

impl CommandConfig {
    /// The settings' own checks.
    pub fn validate(&self) -> Result<(), super::SettingsProblem> {
        if self.argv.is_empty() || self.argv[0].trim().is_empty() {
            return Err(super::SettingsProblem::new(
                "`argv` is empty",
                "e.g. argv: [python3, my_checker.py]",
            ));
        }
        for (field, v) in [
            ("timeout_s", self.timeout_s),
            ("total_timeout_s", self.total_timeout_s),
        ] {
            if let Some(v) =
                v.filter(|v| !(v.is_finite() && *v > 0.0 && *v <= crate::io::llm::MAX_SECONDS))
            {
                return Err(super::SettingsProblem::new(
                    format!(
                        "{field} {v} must be a positive number of seconds, at most {}",
                        crate::io::llm::MAX_SECONDS
                    ),
                    "e.g. timeout_s: 60",
                ));
            }
        }
        Ok(())
    }

    /// The time limits with their defaults.
    pub fn limits(&self) -> CommandLimits {
        CommandLimits {
            answer_timeout: std::time::Duration::from_secs_f64(self.timeout_s.unwrap_or(60.0)),
            total_timeout: self.total_timeout_s.map(std::time::Duration::from_secs_f64),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_with_an_error_is_that_cases_error_never_a_verdict() {
        let (id, r) = parse_line(
            r#"{"id": "4", "label": "supported", "error": "ValueError: the model returned NaN"}"#,
        )
        .unwrap();
        assert_eq!(id, "4");
        match r {
            Err(CheckError::Command(why)) => {
                assert!(why.contains("ValueError: the model returned NaN"), "{why}");
            }
            other => panic!("expected an error, got {other:?}"),
        }
        let (_, r) = parse_line(r#"{"id": "5", "label": "supported", "error": null}"#).unwrap();
        assert_eq!(
            r.unwrap().label,
            Label::Supported,
            "a null error is no error"
        );
    }
}
