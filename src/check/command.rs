//! The `command` checker: an external program that speaks JSON Lines, so a team can plug in the
//! checker it already has (HHEM, MiniCheck, Ragas, DeepEval) without faithgate knowing it.
//!
//! faithgate starts `argv` once per run (in the config file's folder) and writes one request per
//! line to its stdin: `{"id": "...", "claim": "...", "passages": [{"id": "...", "text": "..."}]}`,
//! then closes stdin. The program answers one line per request, in any order:
//! `{"id": "...", "label": "supported|contradicted|not_found", "score": 0.93,
//!   "evidence": {"passage": "...", "window": "..."}, "reason": "..."}` (score, evidence and
//! reason optional; evidence may also be a passage id). A program that exits early, prints
//! garbage or skips an id leaves those cases as errors with the reason. Its stderr is copied to
//! faithgate's stderr, each line prefixed with the checker's name.

use super::{CheckError, CheckInput, CheckResult, Checker, Evidence, Label, Verdict};
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Mutex;

pub struct CommandChecker {
    name: String,
    argv: Vec<String>,
    cwd: PathBuf,
    last: Mutex<String>,
}

impl CommandChecker {
    pub fn new(name: &str, argv: Vec<String>, cwd: PathBuf) -> Self {
        CommandChecker {
            name: name.to_string(),
            argv,
            cwd,
            last: Mutex::new(String::new()),
        }
    }
}

pub(crate) fn parse_line(line: &str) -> Result<(String, Result<Verdict, CheckError>), String> {
    let v: Value = serde_json::from_str(line).map_err(|e| format!("not JSON ({e})"))?;
    let id = v["id"]
        .as_str()
        .map(str::to_string)
        .or_else(|| v["id"].as_u64().map(|n| n.to_string()))
        .ok_or("no `id`")?;
    let label = match v["label"].as_str().map(|l| l.trim().to_lowercase()) {
        Some(l) if l == "supported" => Label::Supported,
        Some(l) if l == "contradicted" => Label::Contradicted,
        Some(l) if l == "not_found" => Label::NotFound,
        other => {
            return Ok((
                id,
                Err(CheckError::Command(format!(
                "the program answered with label {other:?}, not supported|contradicted|not_found"
            ))),
            ))
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
        let mut child = match Command::new(&self.argv[0])
            .args(&self.argv[1..])
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
        let requests: Vec<String> = input
            .claims
            .iter()
            .enumerate()
            .map(|(i, c)| {
                json!({
                    "id": i.to_string(),
                    "claim": c.text,
                    "passages": input.contexts[c.context].passages.iter().map(|p| json!({"id": p.id, "text": p.text})).collect::<Vec<_>>(),
                })
                .to_string()
            })
            .collect();
        let name = self.name.clone();
        let (answers, garbage, stderr_tail) = std::thread::scope(|scope| {
            // write in a thread so a program that answers as it reads never deadlocks
            scope.spawn(move || {
                for r in &requests {
                    if writeln!(stdin, "{r}").is_err() {
                        break; // the program exited early; the missing answers say so
                    }
                }
            });
            let err_reader = scope.spawn(move || {
                let mut tail: Vec<String> = Vec::new();
                for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                    crate::notes::note(format!("[{name}] {line}"));
                    tail.push(line);
                    if tail.len() > 5 {
                        tail.remove(0);
                    }
                }
                tail.join(" | ")
            });
            let mut answers: HashMap<String, Result<Verdict, CheckError>> = HashMap::new();
            let mut garbage: Vec<String> = Vec::new();
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if line.trim().is_empty() {
                    continue;
                }
                match parse_line(&line) {
                    Ok((id, v)) => {
                        answers.entry(id).or_insert(v);
                        progress(answers.len().min(n));
                    }
                    Err(why) => garbage.push(format!(
                        "{why}: {}",
                        line.chars().take(120).collect::<String>()
                    )),
                }
            }
            (answers, garbage, err_reader.join().unwrap_or_default())
        });
        let status = child
            .wait()
            .map(|s| s.to_string())
            .unwrap_or_else(|e| e.to_string());
        let summary = format!(
            "{} of {n} answered; {status}{}{}",
            answers.len().min(n),
            if garbage.is_empty() {
                String::new()
            } else {
                format!(
                    "; {} unreadable line(s), first: {}",
                    garbage.len(),
                    garbage[0]
                )
            },
            if stderr_tail.is_empty() {
                String::new()
            } else {
                format!("; stderr: {stderr_tail}")
            }
        );
        if let Ok(mut l) = self.last.lock() {
            *l = summary.clone();
        }
        progress(n);
        let mut answers = answers;
        (0..n)
            .map(|i| match answers.remove(&i.to_string()) {
                Some(r) => r,
                None => Err(CheckError::Command(format!(
                    "the program gave no verdict for this case ({summary})"
                ))),
            })
            .collect()
    }
}
