//! The Python faithfulness metrics of examples/checkers/, run for real: Ragas's `Faithfulness`
//! and DeepEval's `FaithfulnessMetric` (installed from PyPI into target/venv-ragas and
//! target/venv-deepeval by ci/setup-python-checkers.sh) as faithprobe `command` checkers, with
//! their LLM calls answered by a scripted OpenAI-compatible server on 127.0.0.1. A change in
//! either library's prompts, reply format or API breaks these tests rather than a user's run.
//!
//! The server plays a simple, deterministic judge: a statement is supported when a passage holds
//! it word for word (case and final full stop aside); DeepEval's judge also calls a claim a
//! contradiction when it starts like a passage sentence but goes on differently.

use crate::common;

use crate::common::server::{Recorded, Reply, Server};
use crate::common::{faithprobe_in, output, root};
use serde_json::{json, Value};
use std::path::PathBuf;

fn venv(name: &str) -> PathBuf {
    let p = root().join(format!("target/venv-{name}/bin/python"));
    assert!(
        p.exists(),
        "missing target/venv-{name} ({name} for examples/checkers): run `bash ci/setup-python-checkers.sh`"
    );
    p
}

/// Every message's text, in order (content may be a string or a list of parts).
fn user_prompt(r: &Recorded) -> String {
    let msgs = r.body["messages"].as_array().cloned().unwrap_or_default();
    msgs.iter()
        .filter(|m| m["role"] == "user")
        .map(|m| match &m["content"] {
            Value::String(s) => s.clone(),
            Value::Array(parts) => parts
                .iter()
                .filter_map(|p| p["text"].as_str())
                .collect::<Vec<_>>()
                .join(" "),
            _ => String::new(),
        })
        .next()
        .unwrap_or_default()
}

fn norm(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .trim_end_matches('.')
        .to_lowercase()
}

fn between<'a>(s: &'a str, start: &str, end: &str) -> &'a str {
    let a = s.rfind(start).map(|i| i + start.len()).unwrap_or(0);
    let b = s[a..].find(end).map(|i| a + i).unwrap_or(s.len());
    s[a..b].trim()
}

/// The JSON after the last `input:` of a Ragas prompt.
fn ragas_input(p: &str) -> Value {
    serde_json::from_str(between(p, "input: ", "\nOutput:")).unwrap_or(Value::Null)
}

fn supported_by(statement: &str, context: &str) -> bool {
    norm(context).contains(&norm(statement))
}

fn judge(r: &Recorded, _: usize) -> Reply {
    let p = user_prompt(r);
    let reply = if p
        .contains("Break down each sentence into one or more fully understandable statements")
    {
        // Ragas: the answer as one statement
        let input = ragas_input(&p);
        json!({"statements": [input["answer"].as_str().unwrap_or("")]})
    } else if p.contains("judge the faithfulness of a series of statements") {
        let input = ragas_input(&p);
        let context = input["context"].as_str().unwrap_or("");
        let statements: Vec<Value> = input["statements"]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .iter()
            .map(|s| {
                let s = s.as_str().unwrap_or("");
                let v = supported_by(s, context);
                json!({"statement": s, "reason": if v { "stated in the context" } else { "not in the context" }, "verdict": v as u8})
            })
            .collect();
        json!({"statements": statements})
    } else if p.contains("truths, that can inferred from the provided text") {
        // DeepEval: the context's sentences are its truths
        let text = between(&p, "Text:\n", "\n\nJSON:");
        json!({"truths": text.split(". ").map(str::to_string).collect::<Vec<_>>()})
    } else if p.contains("truths, that can inferred from the provided actual AI output") {
        json!({"claims": [between(&p, "AI Output:\n", "\n\nJSON:")]})
    } else if p.contains("whether EACH claim contradicts any facts in the retrieval context") {
        let context = between(&p, "Retrieval Contexts:\n", "\n\nClaims:");
        let claims = between(&p, "Claims:\n", "\n\nJSON:");
        let claim = claims
            .trim_start_matches('[')
            .trim_end_matches(']')
            .trim_matches(|c| c == '\'' || c == '"');
        let verdict = if supported_by(claim, context) {
            "yes"
        } else {
            // starts like a sentence of the context, then says something else: a contradiction
            let head: Vec<String> = norm(claim).split(' ').take(3).map(str::to_string).collect();
            let ctx = norm(context);
            if head.len() == 3 && ctx.contains(&head.join(" ")) {
                "no"
            } else {
                "borderline"
            }
        };
        json!({"verdicts": [{"verdict": verdict, "reason": format!("scripted judge: {verdict}")}]})
    } else if p.contains("list of Contradictions") {
        json!({"reason": "scripted reason"})
    } else {
        return Reply::status(
            400,
            "{\"error\": {\"message\": \"the scripted judge does not know this prompt\"}}",
        );
    };
    Reply::chat(&reply.to_string())
}

fn run_metric(name: &str, script: &str) -> (Value, String, Vec<Recorded>) {
    let (code, v, err, requests) = run_metric_with(name, script, judge);
    assert!(code == 0 || code == 1, "{name}: exit {code}\n{err}");
    (v, err, requests)
}

/// Runs a metric on Larkspur with the scripted server answering by `handler`: (exit code, JSON
/// report, stderr, requests).
fn run_metric_with(
    name: &str,
    script: &str,
    handler: fn(&Recorded, usize) -> Reply,
) -> (i32, Value, String, Vec<Recorded>) {
    common::require_onnxruntime(); // faithprobe itself needs nothing here; keeps the env uniform
    let python = venv(name);
    let server = Server::start(handler);
    let d = tempfile::tempdir().unwrap();
    let cfg = d.path().join("faithprobe.yaml");
    std::fs::write(
        &cfg,
        format!(
            "checkers:\n  {name}:\n    kind: command\n    argv: [{}, {}]\n    timeout_s: 300\n",
            python.display(),
            root().join("examples/checkers").join(script).display()
        ),
    )
    .unwrap();
    let (code, out, err) = output(
        faithprobe_in(d.path())
            .env("FAITHPROBE_JUDGE_BASE_URL", &server.url)
            .env("FAITHPROBE_JUDGE_MODEL", "scripted-judge")
            .args([
                "--config",
                cfg.to_str().unwrap(),
                "run",
                root().join("suites/larkspur.yaml").to_str().unwrap(),
                "--checker",
                name,
                "--format",
                "json",
                "--no-cache",
            ]),
    );
    let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}\n{err}"));
    (code, v, err, server.requests())
}

/// The scripted judge, except that it finds nothing to judge: no statements, no claims.
fn finds_nothing(r: &Recorded, n: usize) -> Reply {
    let p = user_prompt(r);
    if p.contains("Break down each sentence into one or more fully understandable statements") {
        return Reply::chat(&json!({"statements": []}).to_string());
    }
    if p.contains("truths, that can inferred from the provided actual AI output") {
        return Reply::chat(&json!({"claims": []}).to_string());
    }
    if p.contains("whether EACH claim contradicts any facts in the retrieval context") {
        return Reply::chat(&json!({"verdicts": []}).to_string());
    }
    judge(r, n)
}

#[test]
#[ignore = "needs ONNX Runtime, Ragas and DeepEval (target/venv, target/venv-ragas, target/venv-deepeval): bash ci/setup.sh && bash ci/setup-python-checkers.sh, or bash ci/test.sh, which runs it"]
fn a_metric_that_finds_nothing_to_judge_gives_errors_never_verdicts() {
    for (name, script) in [
        ("deepeval", "deepeval_faithfulness.py"),
        ("ragas", "ragas_faithfulness.py"),
    ] {
        let (code, v, err, _) = run_metric_with(name, script, finds_nothing);
        assert_eq!(code, 3, "{name}: {err}");
        let cases = v["cases"].as_array().unwrap();
        assert_eq!(cases.len(), crate::common::LARKSPUR_CASES);
        for c in cases {
            assert_eq!(c["outcome"], "error", "{name}: {c}");
            // the adapter's @faithprobe.checker function raised: its message is the case's error
            let why = c["error"].as_str().unwrap_or_default();
            assert!(
                why.contains("could not score it: ValueError: "),
                "{name}: {why}"
            );
        }
        assert!(
            err.contains("no verdict") || err.contains("no score"),
            "{name}: {err}"
        );
    }
}

fn verdict_of<'a>(v: &'a Value, id: &str) -> &'a str {
    v["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id)
        .and_then(|c| c["verdict"].as_str())
        .unwrap_or_else(|| panic!("no verdict for {id}"))
}

#[test]
#[ignore = "needs ONNX Runtime and Ragas (target/venv, target/venv-ragas): bash ci/setup.sh && bash ci/setup-python-checkers.sh, or bash ci/test.sh, which runs it"]
fn ragas_faithfulness_runs_as_a_command_checker_against_a_local_server() {
    let (v, err, requests) = run_metric("ragas", "ragas_faithfulness.py");
    assert_eq!(
        v["cases"].as_array().unwrap().len(),
        crate::common::LARKSPUR_CASES
    );
    assert_eq!(v["summary"]["errors"], 0, "{err}");
    // Ragas asked for statements, then judged them: its own prompts reached the server
    let prompts: Vec<String> = requests.iter().map(user_prompt).collect();
    assert!(prompts
        .iter()
        .any(|p| p.contains("fully understandable statements")));
    assert!(prompts.iter().any(|p| p.contains("judge the faithfulness")));
    // a claim the passage states word for word is supported; a swapped number is not, and
    // Ragas cannot say it is a contradiction
    assert_eq!(verdict_of(&v, "f01"), "supported");
    assert_eq!(verdict_of(&v, "h03"), "not_found");
    assert!(v["cases"]
        .as_array()
        .unwrap()
        .iter()
        .all(|c| c["verdict"] != "contradicted"));
}

#[test]
#[ignore = "needs ONNX Runtime and DeepEval (target/venv, target/venv-deepeval): bash ci/setup.sh && bash ci/setup-python-checkers.sh, or bash ci/test.sh, which runs it"]
fn deepeval_faithfulness_runs_as_a_command_checker_against_a_local_server() {
    let (v, err, requests) = run_metric("deepeval", "deepeval_faithfulness.py");
    assert_eq!(
        v["cases"].as_array().unwrap().len(),
        crate::common::LARKSPUR_CASES
    );
    assert_eq!(v["summary"]["errors"], 0, "{err}");
    let prompts: Vec<String> = requests.iter().map(user_prompt).collect();
    assert!(prompts
        .iter()
        .any(|p| p.contains("whether EACH claim contradicts")));
    assert_eq!(verdict_of(&v, "f01"), "supported");
    // "The Team plan includes up to 12 users." starts like the passage and differs: DeepEval's
    // `no` verdict becomes contradicted
    assert_eq!(verdict_of(&v, "h03"), "contradicted");
    // and an invented fact is only not backed up
    assert_eq!(verdict_of(&v, "h05"), "not_found");
}

#[test]
#[ignore = "needs target/venv: bash ci/setup.sh, or bash ci/test.sh, which runs it"]
fn every_example_checker_compiles() {
    // the transformers one cannot run here (no PyTorch); at least it must be valid Python
    let python = root().join("target/venv/bin/python");
    assert!(
        python.exists(),
        "missing target/venv: run `bash ci/setup.sh`"
    );
    for f in [
        "ragas_faithfulness.py",
        "deepeval_faithfulness.py",
        "transformers_classifier.py",
    ] {
        let out = std::process::Command::new(&python)
            // parse only: nothing is written beside the file
            .args([
                "-c",
                "import ast, sys; ast.parse(open(sys.argv[1]).read(), sys.argv[1])",
            ])
            .arg(root().join("examples/checkers").join(f))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{f}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
