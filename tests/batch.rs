//! Batch mode end to end against local stand-ins for the OpenAI Batch API and Anthropic Message
//! Batches on 127.0.0.1: submit, status, collect (cut off, killed and resumed), the rerun that
//! scores from the cache with no online call, verdicts equal to online mode case for case,
//! failures that stay errors until `--retry-failed`, costs from the price table, and
//! `--max-cost` refusing a submission before any upload.

use crate::common::batch_server::{BatchServer, Faults};
use crate::common::server::{self, Reply, Server};
use crate::common::{faithprobe_in, root};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const KEY: &str = "sk-batch-test-0123456789abcdef";

fn larkspur() -> String {
    root().join("suites/larkspur.yaml").display().to_string()
}

fn log() -> String {
    root()
        .join("examples/support-log.jsonl")
        .display()
        .to_string()
}

/// A folder whose faithprobe.yaml has `judge` online at `online` and, when `batch` is given,
/// its batches at that provider and URL; with a price table.
fn env(online: &str, batch: Option<(&str, &str)>, extra: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let batch = match batch {
        Some((provider, url)) => format!(
            "    batch:\n      provider: {provider}\n      base_url: {url}\n      poll_s: 0.05\n{extra}"
        ),
        None => String::new(),
    };
    std::fs::write(
        dir.path().join("faithprobe.yaml"),
        format!(
            "checkers:\n  judge:\n    kind: judge\n    base_url: {online}\n    model: stand-in\n    api_key_env: FP_BATCH_KEY\n    prompt: {}\n    max_retries: 2\n    backoff_ms: 10\n    timeout_s: 5\n{batch}prices:\n  stand-in: {{input_per_million: 2.5, output_per_million: 10, batch_discount: 0.5}}\n",
            root().join("prompts/judge-v1.md").display()
        ),
    )
    .unwrap();
    dir
}

struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

fn fp(dir: &Path, args: &[&str]) -> Out {
    let o = faithprobe_in(dir)
        .env("FP_BATCH_KEY", KEY)
        .args(args)
        .output()
        .unwrap();
    Out {
        code: o.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

/// Each case's id, outcome and verdict, from a run's JSON report.
fn verdicts(json: &str) -> Vec<(String, Value, Value)> {
    let v: Value = serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {json}"));
    let cases = v["cases"].as_array().expect("cases").clone();
    assert!(!cases.is_empty());
    cases
        .iter()
        .map(|c| {
            (
                c["id"].to_string(),
                c["outcome"].clone(),
                c["verdict"].clone(),
            )
        })
        .collect()
}

/// A server that must never be called: the rerun scores from the cache.
fn unused_online() -> Server {
    Server::start(|_, _| Reply::status(500, "{\"error\": \"this run must not call online\"}"))
}

fn manifests(dir: &Path) -> Vec<PathBuf> {
    let mut m: Vec<PathBuf> = std::fs::read_dir(dir.join(".faithprobe/batches"))
        .map(|d| {
            d.flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "json"))
                .collect()
        })
        .unwrap_or_default();
    m.sort();
    m
}

/// The suite judged online: the verdicts batch mode must equal.
fn online_run(args: &[&str]) -> Out {
    let s = Server::start(|r, _| Reply::chat(&server::good(&r.prompt())));
    let d = env(&s.url, None, "");
    let out = fp(d.path(), args);
    assert!(!s.requests().is_empty());
    out
}

#[test]
fn a_suite_through_the_openai_batch_api_scores_as_online_with_no_online_call() {
    let run = ["run", &larkspur(), "--checker", "judge", "--format", "json"];
    let online = online_run(&run);
    assert_eq!(online.code, 0, "{}", online.stderr);

    let b = BatchServer::start(Faults {
        ready_after: 1,
        ..Faults::default()
    });
    let o = unused_online();
    let d = env(&o.url, Some(("openai", &b.url)), "");
    let submit = fp(d.path(), &[&run[..], &["--batch", "submit"]].concat());
    assert_eq!(submit.code, 6, "{}", submit.stderr);
    assert!(
        submit.stdout.is_empty(),
        "a report before anything was scored: {}",
        submit.stdout
    );
    assert!(submit.stderr.contains("submitted"), "{}", submit.stderr);
    assert!(
        submit.stderr.contains("at the batch price"),
        "{}",
        submit.stderr
    );
    assert!(o.requests().is_empty(), "submit called the online endpoint");
    let m = manifests(d.path());
    assert_eq!(m.len(), 1, "{m:?}");
    let text = std::fs::read_to_string(&m[0]).unwrap();
    assert!(
        !text.contains(KEY) && text.contains("FP_BATCH_KEY"),
        "{text}"
    );
    assert!(b.auth().iter().all(|a| a.contains(KEY)), "{:?}", b.auth());

    // still running: status says so and exits 6; so does a collect that finds nothing ended
    let status = fp(d.path(), &["batch", "status"]);
    assert_eq!(status.code, 6, "{}{}", status.stdout, status.stderr);
    assert!(status.stdout.contains("in_progress"), "{}", status.stdout);
    let collect = fp(d.path(), &["batch", "collect"]);
    assert_eq!(collect.code, 0, "{}{}", collect.stdout, collect.stderr);
    assert!(
        collect
            .stdout
            .contains("collected so far: 62 replies, 0 failed"),
        "{}",
        collect.stdout
    );
    assert!(
        collect.stdout.contains("next: rerun `faithprobe run"),
        "{}",
        collect.stdout
    );
    let posts = b.seen().iter().filter(|s| s.starts_with("POST")).count();

    // the rerun as printed scores from the cache: no online call, the online verdicts
    let rerun = fp(d.path(), &run);
    assert_eq!(rerun.code, 0, "{}", rerun.stderr);
    assert!(
        o.requests().is_empty(),
        "the rerun called the online endpoint"
    );
    assert_eq!(verdicts(&rerun.stdout), verdicts(&online.stdout));
    assert!(
        rerun.stderr.contains("replies from batches"),
        "{}",
        rerun.stderr
    );
    assert!(
        rerun.stderr.contains("at the batch price"),
        "{}",
        rerun.stderr
    );
    // and again under --batch submit: nothing left to submit, it scores
    let again = fp(d.path(), &[&run[..], &["--batch", "submit"]].concat());
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert!(
        again.stderr.contains("nothing to submit"),
        "{}",
        again.stderr
    );
    assert_eq!(
        b.seen().iter().filter(|s| s.starts_with("POST")).count(),
        posts
    );
}

#[test]
fn a_log_through_anthropic_message_batches_survives_429_a_cut_download_and_a_kill() {
    let score = ["score", &log(), "--checker", "judge", "--format", "json"];
    killed_and_resumed("anthropic", &score, &|a, b| {
        assert_eq!(strip_timing(a), strip_timing(b))
    });
}

#[test]
fn a_log_through_the_openai_batch_api_survives_429_a_cut_download_and_a_kill() {
    let score = ["score", &log(), "--checker", "judge", "--format", "json"];
    killed_and_resumed("openai", &score, &|a, b| {
        assert_eq!(strip_timing(a), strip_timing(b))
    });
}

#[test]
fn a_suite_through_anthropic_message_batches_survives_429_a_cut_download_and_a_kill() {
    let run = ["run", &larkspur(), "--checker", "judge", "--format", "json"];
    killed_and_resumed("anthropic", &run, &|a, b| {
        assert_eq!(verdicts(a), verdicts(b))
    });
}

/// `args` judged online, then through `provider`'s batch API with a 429 on create, a download
/// cut off, and a collect killed half way through a download and run again: the rerun scores
/// as online did (`same`), with no online call.
fn killed_and_resumed(provider: &str, args: &[&str], same: &dyn Fn(&str, &str)) {
    let online = online_run(args);
    assert_eq!(online.code, 0, "{}", online.stderr);
    let b = BatchServer::start(Faults {
        create_429: 1,
        cut_downloads: 1,
        stall_downloads: 1,
        stall: Duration::from_secs(30),
        ..Faults::default()
    });
    let o = unused_online();
    let d = env(&o.url, Some((provider, &b.url)), "      max_tokens: 512\n");
    let submit = fp(d.path(), &[args, &["--batch", "submit"]].concat());
    assert_eq!(submit.code, 6, "{}", submit.stderr);
    assert!(
        submit.stderr.contains(&format!("{provider} batch API")),
        "{}",
        submit.stderr
    );
    // the 429 on create was retried
    let create = if provider == "anthropic" {
        "POST /v1/messages/batches"
    } else {
        "POST /v1/batches"
    };
    assert_eq!(
        b.seen().iter().filter(|s| *s == create).count(),
        2,
        "{:?}",
        b.seen()
    );
    // the first download is cut off: nothing is marked collected, collect says to run it again
    let cut = fp(d.path(), &["batch", "collect"]);
    assert_eq!(cut.code, 6, "{}{}", cut.stdout, cut.stderr);
    assert!(cut.stderr.contains("cut off"), "{}", cut.stderr);
    // the second stalls half way: kill the collect there
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("faithprobe"))
        .current_dir(d.path())
        .env("FP_BATCH_KEY", KEY)
        .env_remove("FAITHPROBE_CONFIG")
        .args(["batch", "collect"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while !b.stalled.load(std::sync::atomic::Ordering::SeqCst) {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the download never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let m = manifests(d.path());
    let text = std::fs::read_to_string(&m[0]).unwrap();
    assert!(text.contains("\"collected\": false"), "{text}");
    // resumed: the whole output this time
    let collect = fp(d.path(), &["batch", "collect"]);
    assert_eq!(collect.code, 0, "{}{}", collect.stdout, collect.stderr);
    // collecting again changes nothing
    let twice = fp(d.path(), &["batch", "collect"]);
    assert_eq!(twice.code, 0, "{}{}", twice.stdout, twice.stderr);
    assert_eq!(
        collect.stdout.lines().last(),
        twice.stdout.lines().last(),
        "a second collect changed the summary"
    );
    let rerun = fp(d.path(), args);
    assert_eq!(rerun.code, 0, "{}", rerun.stderr);
    assert!(
        o.requests().is_empty(),
        "the rerun called the online endpoint"
    );
    same(&rerun.stdout, &online.stdout);
    // the key goes where the provider wants it
    let header = if provider == "anthropic" {
        "x-api-key:"
    } else {
        "authorization: bearer"
    };
    assert!(
        b.auth()
            .iter()
            .all(|a| a.to_lowercase().starts_with(header)),
        "{:?}",
        b.auth()
    );
}

/// A score report without what varies from run to run (none today; kept in one place).
fn strip_timing(json: &str) -> Value {
    let mut v: Value = serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {json}"));
    if let Some(o) = v.as_object_mut() {
        o.remove("elapsed_s");
    }
    v
}

#[test]
fn failed_expired_and_malformed_results_stay_errors_until_retry_failed_asks_again() {
    let run = ["run", &larkspur(), "--checker", "judge", "--format", "json"];
    let online = online_run(&run);
    let b = BatchServer::start(Faults {
        expire_half: true,
        error_every: Some(7),
        malformed_first_line: true,
        faulty_batches: Some(1),
        ..Faults::default()
    });
    let o = unused_online();
    let d = env(&o.url, Some(("openai", &b.url)), "");
    assert_eq!(
        fp(d.path(), &[&run[..], &["--batch", "submit"]].concat()).code,
        6
    );
    let collect = fp(d.path(), &["batch", "collect"]);
    assert_eq!(collect.code, 0, "{}{}", collect.stdout, collect.stderr);
    assert!(collect.stdout.contains("expired"), "{}", collect.stdout);
    assert!(collect.stdout.contains("malformed"), "{}", collect.stdout);
    assert!(
        collect.stdout.contains("--retry-failed"),
        "{}",
        collect.stdout
    );
    let rerun = fp(d.path(), &run);
    assert_eq!(rerun.code, 3, "{}", rerun.stderr);
    let got = verdicts(&rerun.stdout);
    let errors = got.iter().filter(|(_, o, _)| o == "error").count();
    assert!(errors > 0);
    // (an outcome may name its parent's error, so verdicts are compared, not outcomes)
    for ((id, outcome, verdict), (_, _, want)) in got.iter().zip(verdicts(&online.stdout)) {
        if outcome == "error" {
            assert!(verdict.is_null(), "{id}: an error with a verdict");
        } else {
            assert_eq!(verdict, &want, "{id}");
        }
    }
    assert!(o.requests().is_empty());
    // --retry-failed sends exactly the failed requests, in a new batch
    let before = b.batches();
    let retry = fp(
        d.path(),
        &[&run[..], &["--batch", "submit", "--retry-failed"]].concat(),
    );
    assert_eq!(retry.code, 6, "{}", retry.stderr);
    let after = b.batches();
    assert_eq!(after.len(), before.len() + 1);
    let collect = fp(d.path(), &["batch", "collect"]);
    assert_eq!(collect.code, 0, "{}{}", collect.stdout, collect.stderr);
    let fixed = fp(d.path(), &run);
    assert_eq!(fixed.code, 0, "{}", fixed.stderr);
    assert_eq!(verdicts(&fixed.stdout), verdicts(&online.stdout));
    // the resubmitted batch held only what had failed
    assert!(after.last().unwrap() < &before[0], "{before:?} {after:?}");
    assert!(o.requests().is_empty());
}

#[test]
fn wait_submits_polls_collects_and_scores_in_one_command_split_into_batches() {
    let run = ["run", &larkspur(), "--checker", "judge", "--format", "json"];
    let online = online_run(&run);
    let b = BatchServer::start(Faults {
        ready_after: 2,
        ..Faults::default()
    });
    let o = unused_online();
    let d = env(&o.url, Some(("openai", &b.url)), "      max_requests: 20\n");
    let wait = fp(d.path(), &[&run[..], &["--batch", "wait"]].concat());
    assert_eq!(wait.code, 0, "{}", wait.stderr);
    assert_eq!(verdicts(&wait.stdout), verdicts(&online.stdout));
    // one manifest, several batches of at most 20 requests
    assert_eq!(manifests(d.path()).len(), 1);
    let sizes = b.batches();
    assert!(
        sizes.len() >= 2 && sizes.iter().all(|n| *n <= 20),
        "{sizes:?}"
    );
    assert!(wait.stderr.contains("still running"), "{}", wait.stderr);
    assert!(o.requests().is_empty());
}

#[test]
fn max_cost_refuses_a_submission_before_any_upload() {
    let b = BatchServer::start(Faults::default());
    let o = unused_online();
    let d = env(&o.url, Some(("openai", &b.url)), "");
    let out = fp(
        d.path(),
        &[
            "run",
            &larkspur(),
            "--checker",
            "judge",
            "--batch",
            "submit",
            "--max-cost",
            "0.0001",
        ],
    );
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains("refused before any upload"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("--max-cost"), "{}", out.stderr);
    assert!(b.seen().is_empty(), "{:?}", b.seen());
    assert!(o.requests().is_empty());
    assert!(
        !d.path().join(".faithprobe/batches").exists(),
        "a refused submission left files"
    );
    // within the budget it goes
    let ok = fp(
        d.path(),
        &[
            "run",
            &larkspur(),
            "--checker",
            "judge",
            "--batch",
            "submit",
            "--max-cost",
            "5",
        ],
    );
    assert_eq!(ok.code, 6, "{}", ok.stderr);
}

#[test]
fn batch_mode_refuses_no_cache_and_status_without_manifests_says_what_to_do() {
    let d = env("http://127.0.0.1:9/v1", None, "");
    let out = fp(
        d.path(),
        &[
            "run",
            &larkspur(),
            "--checker",
            "judge",
            "--batch",
            "submit",
            "--no-cache",
        ],
    );
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("drop --no-cache"), "{}", out.stderr);
    let out = fp(d.path(), &["batch", "status"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("--batch submit"), "{}", out.stderr);
    // a manifest that is not one is named, never trusted
    std::fs::create_dir_all(d.path().join(".faithprobe/batches")).unwrap();
    std::fs::write(
        d.path().join(".faithprobe/batches/x.json"),
        "{\"format\": \"forged\"}",
    )
    .unwrap();
    let out = fp(d.path(), &["batch", "collect"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("x.json"), "{}", out.stderr);
    let out = fp(
        d.path(),
        &[
            "run",
            &larkspur(),
            "--checker",
            "judge",
            "--batch",
            "submit",
        ],
    );
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("x.json"), "{}", out.stderr);
}

/// A stand-in model for an LLM decomposer and the judge: a decomposition prompt gets the
/// answer's sentences as claims, a judge prompt the scripted judge's verdicts.
fn decompose_or_judge(prompt: &str) -> String {
    match prompt.split_once("\nAnswer: ") {
        Some((_, rest)) if !prompt.contains("Claims, numbered:") => {
            let answer = rest.split("\n\nReply with JSON").next().unwrap_or("");
            let claims: Vec<String> = answer
                .split_inclusive(". ")
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty() && !s.ends_with(':'))
                .collect();
            serde_json::json!(claims).to_string()
        }
        _ => server::good(prompt),
    }
}

#[test]
fn an_llm_decomposer_and_the_judge_go_through_two_batches_under_wait() {
    let score = [
        "score",
        &log(),
        "--checker",
        "judge",
        "--decomposer",
        "llm",
        "--format",
        "json",
    ];
    let decomposer = |url: &str, batch: &str| {
        format!(
            "decomposers:\n  llm:\n    kind: llm\n    base_url: {url}\n    model: stand-in\n    prompt: {}\n    max_retries: 1\n    backoff_ms: 10\n{batch}",
            root().join("prompts/decompose-v1.md").display()
        )
    };
    let s = Server::start(|r, _| Reply::chat(&decompose_or_judge(&r.prompt())));
    let online = env(&s.url, None, "");
    let cfg = online.path().join("faithprobe.yaml");
    let text = std::fs::read_to_string(&cfg).unwrap() + &decomposer(&s.url, "");
    std::fs::write(&cfg, text).unwrap();
    let want = fp(online.path(), &score);
    assert_eq!(want.code, 0, "{}", want.stderr);

    let b = BatchServer::start(Faults {
        answer: Some(decompose_or_judge),
        ..Faults::default()
    });
    let o = unused_online();
    let d = env(&o.url, Some(("openai", &b.url)), "");
    let cfg = d.path().join("faithprobe.yaml");
    let batch = format!(
        "    batch:\n      provider: openai\n      base_url: {}\n      poll_s: 0.05\n",
        b.url
    );
    let text = std::fs::read_to_string(&cfg).unwrap() + &decomposer(&o.url, &batch);
    std::fs::write(&cfg, text).unwrap();
    let got = fp(d.path(), &[&score[..], &["--batch", "wait"]].concat());
    assert_eq!(got.code, 0, "{}", got.stderr);
    assert!(o.requests().is_empty(), "an online call under --batch wait");
    // the decompositions first, then the judge on the claims they made
    assert_eq!(b.batches().len(), 2, "{:?}", b.seen());
    assert_eq!(manifests(d.path()).len(), 2);
    assert_eq!(strip_timing(&got.stdout), strip_timing(&want.stdout));
    // the decomposer says what it spent, as the judge does
    assert!(
        got.stderr.contains("decomposer llm: 0 calls"),
        "{}",
        got.stderr
    );
    assert!(
        got.stderr.contains("replies from batches"),
        "{}",
        got.stderr
    );
}

#[test]
fn the_audit_shows_each_checkers_llm_cost_per_caught_fault() {
    let s = Server::start(|r, _| Reply::chat(&server::good(&r.prompt())));
    let d = env(&s.url, None, "");
    let out = d.path().join("audit");
    let r = fp(
        d.path(),
        &[
            "report",
            &larkspur(),
            "--checker",
            "judge",
            "--checker",
            "lexical",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    // 62 calls of 100 prompt and 20 completion tokens at 2.5 and 10 per million
    let line = md
        .lines()
        .find(|l| l.contains("LLM cost"))
        .unwrap_or_else(|| panic!("{md}"));
    assert!(line.contains("0.0279 by `prices:`"), "{line}");
    assert!(line.contains("per caught fault ("), "{line}");
    // the lexical checker makes no LLM call: no cost line for it
    assert_eq!(md.matches("LLM cost").count(), 1, "{md}");
}

#[test]
fn a_lying_echoing_server_and_a_moved_manifest_change_no_verdict_and_leak_no_key() {
    let run = ["run", &larkspur(), "--checker", "judge", "--format", "json"];
    let online = online_run(&run);
    let b = BatchServer::start(Faults {
        error_every: Some(5),
        echo: format!("(request had Authorization: Bearer {KEY})"),
        lie: true,
        ..Faults::default()
    });
    let o = unused_online();
    let d = env(&o.url, Some(("openai", &b.url)), "");
    assert_eq!(
        fp(d.path(), &[&run[..], &["--batch", "submit"]].concat()).code,
        6
    );
    let m = manifests(d.path()).remove(0);
    // a manifest moved away from its cache is refused: it could name any file as its cache
    let elsewhere = d.path().join("moved.json");
    std::fs::copy(&m, &elsewhere).unwrap();
    let moved = fp(d.path(), &["batch", "collect", elsewhere.to_str().unwrap()]);
    assert_eq!(moved.code, 2, "{}", moved.stderr);
    assert!(
        moved.stderr.contains("not the one it sits beside"),
        "{}",
        moved.stderr
    );
    let collect = fp(d.path(), &["batch", "collect"]);
    assert_eq!(collect.code, 0, "{}{}", collect.stdout, collect.stderr);
    assert!(
        collect.stdout.contains("never held (ignored)"),
        "{}",
        collect.stdout
    );
    let rerun = fp(d.path(), &run);
    assert_eq!(rerun.code, 3, "{}", rerun.stderr);
    // the first result for a request counts; the second, contradicting one is ignored
    for ((id, outcome, verdict), (_, _, want)) in
        verdicts(&rerun.stdout).iter().zip(verdicts(&online.stdout))
    {
        if outcome != "error" {
            assert_eq!(verdict, &want, "{id}");
        }
    }
    assert!(
        rerun.stdout.contains("The server had an error"),
        "{}",
        rerun.stdout
    );
    for (what, text) in [("report", &rerun.stdout), ("stderr", &rerun.stderr)] {
        assert!(!text.contains(&KEY[8..20]), "the key in the {what}: {text}");
    }
    let cache = std::fs::read(d.path().join(".faithprobe/cache.sqlite")).unwrap();
    assert!(
        !String::from_utf8_lossy(&cache).contains(&KEY[8..20]),
        "the key in the cache"
    );
    for m in manifests(d.path()) {
        assert!(!std::fs::read_to_string(m).unwrap().contains(&KEY[8..20]));
    }
}

#[test]
fn an_llm_mutators_requests_go_through_a_batch_and_make_the_online_mutants() {
    let suite = root().join("tests/fixtures/judge-suite.yaml");
    let run = ["run", suite.to_str().unwrap(), "--format", "json"];
    let mutator = |url: &str, batch: &str| {
        format!(
            "mutators:\n  llm:\n    kind: llm\n    base_url: {url}\n    model: stand-in\n    faults: [nuanced_meaning_shift]\n    max_retries: 1\n    backoff_ms: 10\n    timeout_s: 5\n{batch}"
        )
    };
    let s = Server::start(|r, _| Reply::chat(&crate::judge::one_fault(&r.prompt())));
    let online = tempfile::tempdir().unwrap();
    std::fs::write(online.path().join("faithprobe.yaml"), mutator(&s.url, "")).unwrap();
    let want = fp(online.path(), &run);
    assert_eq!(want.code, 0, "{}", want.stderr);
    assert!(
        want.stdout.contains("llm_nuanced_meaning_shift"),
        "{}",
        want.stdout
    );

    let b = BatchServer::start(Faults {
        answer: Some(crate::judge::one_fault),
        ..Faults::default()
    });
    let o = unused_online();
    let d = tempfile::tempdir().unwrap();
    let batch = format!(
        "    batch:\n      provider: openai\n      base_url: {}\n      poll_s: 0.05\n",
        b.url
    );
    std::fs::write(d.path().join("faithprobe.yaml"), mutator(&o.url, &batch)).unwrap();
    let got = fp(d.path(), &[&run[..], &["--batch", "wait"]].concat());
    assert_eq!(got.code, 0, "{}", got.stderr);
    assert!(o.requests().is_empty(), "an online call under --batch wait");
    assert_eq!(b.batches().len(), 1, "{:?}", b.seen());
    assert_eq!(verdicts(&got.stdout), verdicts(&want.stdout));
}
