//! Scoring logged answers end to end: the seeds' worked examples as fixtures, decompositions
//! through a scripted OpenAI-compatible server, numbers, definitions, refusals, the answer-level
//! gate and decomposer evaluation.

use crate::common;

use crate::common::server::{Reply, Server};
use crate::common::{faithprobe_in as fg, root};
use serde_json::{json, Value};
use std::path::Path;

fn score_json(dir: &Path, log: &Path, extra: &[&str]) -> (i32, Value, String) {
    let out = fg(dir)
        .args([
            "score",
            log.to_str().unwrap(),
            "--format",
            "json",
            "--no-cache",
        ])
        .args(extra)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        serde_json::from_slice(&out.stdout).unwrap_or(Value::Null),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

fn answer<'a>(v: &'a Value, id: &str) -> &'a Value {
    v["answers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["id"] == id)
        .unwrap()
}

fn verdicts(a: &Value) -> Vec<String> {
    a["claims"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["verdict"].as_str().unwrap_or("error").to_string())
        .collect()
}

/// A scripted LLM decomposer: answers each prompt with the person's claims for that answer.
fn decomposer_server() -> Server {
    Server::start(|r, _| {
        let p = r.prompt();
        let claims: Vec<&str> = if p.contains("order #4021") {
            vec![
                "Order #4021 is eligible for a refund.",
                "Refunds take 3-5 business days.",
                "A confirmation email will be sent.",
            ]
        } else if p.contains("audit log export to S3") {
            vec![
                "Audit log export to S3 is available on the Business plan.",
                "The export destination is configured under Settings > Security > Audit Log Export.",
                "The destination bucket policy must allow s3:PutObject for the export role.",
                "Audit log exports run hourly.",
                "Exported audit logs are retained in the customer's bucket indefinitely.",
            ]
        } else {
            vec![]
        };
        Reply::chat(&format!("```json\n{}\n```", json!(claims)))
    })
}

fn config(dir: &Path, url: &str, extra: &str) {
    std::fs::write(
        dir.join("faithprobe.yaml"),
        format!(
            "decomposers:\n  llm:\n    kind: llm\n    base_url: {url}\n    model: stand-in\n    prompt: {}\n    max_retries: 1\n    backoff_ms: 10\n{extra}",
            root().join("prompts/decompose-v1.md").display()
        ),
    )
    .unwrap();
}

#[test]
fn the_seed_examples_score_as_the_seeds_say_with_an_llm_decomposition() {
    let s = decomposer_server();
    let d = tempfile::tempdir().unwrap();
    config(d.path(), &s.url, "");
    let log = d.path().join("log.jsonl");
    let all = std::fs::read_to_string(root().join("tests/fixtures/answers.jsonl")).unwrap();
    std::fs::write(
        &log,
        all.lines()
            .filter(|l| l.contains("order-4021") || l.contains("audit-s3"))
            .collect::<Vec<_>>()
            .join("\n"),
    )
    .unwrap();
    let (code, v, err) = score_json(d.path(), &log, &["--decomposer", "llm"]);
    assert_eq!(code, 0, "{err}");
    // the refund reply for order #4021: 2 of 3 claims supported, the timeframe invented
    let r = answer(&v, "order-4021");
    assert_eq!(verdicts(r), vec!["supported", "not_found", "supported"]);
    assert_eq!(r["claims"][0]["evidence_passage"], "policy-2.1");
    // the audit-log answer: 3 of 5, so one unsupported answer
    let a = answer(&v, "audit-s3");
    assert_eq!(
        verdicts(a),
        vec![
            "supported",
            "supported",
            "supported",
            "not_found",
            "not_found"
        ]
    );
    let strict = &v["summary"][0];
    assert_eq!(strict["unsupported_answers"]["k"], 2);
    assert_eq!(
        (
            strict["faithful_claims"].as_u64(),
            strict["claims"].as_u64()
        ),
        (Some(5), Some(8))
    );
    // the decomposer saw the question and the answer, never the passages
    for req in s.requests() {
        let p = req.prompt();
        assert!(
            !p.contains("Exports are delivered to a customer-owned S3 bucket")
                && !p.contains("A confirmation email will be sent when"),
            "{p}"
        );
    }
}

#[test]
fn an_invalid_decomposition_is_an_error_never_a_perfect_score() {
    let s = Server::start(|_, _| Reply::chat("[\"One claim.\", 42]"));
    let d = tempfile::tempdir().unwrap();
    config(d.path(), &s.url, "");
    let (code, v, _) = score_json(
        d.path(),
        &root().join("tests/fixtures/answers.jsonl"),
        &["--decomposer", "llm"],
    );
    assert_eq!(code, 3);
    let a = answer(&v, "order-4021");
    assert!(
        a["error"]
            .as_str()
            .unwrap()
            .contains("not a non-empty string"),
        "{a}"
    );
    // whether an answer only declines is known once it is decomposed: with a broken decomposer
    // the refusal is an error too, never a pass and never taken on trust
    assert_eq!(
        v["summary"][0]["errors"].as_u64(),
        Some(8),
        "every answer is an error"
    );
    assert_eq!(s.requests().len(), 8 * 2, "each answer tried twice");
}

#[test]
fn the_order_a17_answers_under_both_definitions() {
    // a judge that reads the cancellation as a contradiction, as the seed's judge does
    let s = Server::start(|r, _| {
        let p = r.prompt();
        let claims = common::server::claims(&p);
        let mut out = common::server::answer(&p);
        for (i, c) in claims.iter().enumerate() {
            if c.contains("cancelled") {
                out[i] = json!({"claim": i + 1, "label": "contradicted", "quote": "Order A17 shipped on 3 March by courier"});
            }
        }
        Reply::chat(&Value::Array(out).to_string())
    });
    let d = tempfile::tempdir().unwrap();
    config(d.path(), "http://127.0.0.1:9/v1", &format!(
        "checkers:\n  judge:\n    kind: judge\n    base_url: {}\n    model: stand-in\n    prompt: {}\n",
        s.url,
        root().join("prompts/judge-v1.md").display()
    ));
    let log = d.path().join("a17.jsonl");
    let all = std::fs::read_to_string(root().join("tests/fixtures/answers.jsonl")).unwrap();
    std::fs::write(
        &log,
        all.lines()
            .filter(|l| l.contains("a17-"))
            .collect::<Vec<_>>()
            .join("\n"),
    )
    .unwrap();
    let (code, v, err) = score_json(
        d.path(),
        &log,
        &[
            "--checker",
            "judge",
            "--definition",
            "strict",
            "--definition",
            "non-contradiction",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(verdicts(answer(&v, "a17-grounded")), vec!["supported"]);
    assert_eq!(
        verdicts(answer(&v, "a17-invented")),
        vec!["supported", "not_found"]
    );
    assert_eq!(
        verdicts(answer(&v, "a17-wrong")),
        vec!["contradicted"],
        "'We are sorry' is not a claim"
    );
    let (strict, lenient) = (&v["summary"][0], &v["summary"][1]);
    assert_eq!(strict["definition"], "strict");
    // the added delivery date costs half the answer under strict, nothing under non-contradiction
    assert_eq!(strict["unsupported_answers"]["k"], 2);
    assert_eq!(lenient["unsupported_answers"]["k"], 1);
    assert!((strict["macro_score"].as_f64().unwrap() - 0.5).abs() < 1e-9);
    assert!((lenient["macro_score"].as_f64().unwrap() - 2.0 / 3.0).abs() < 1e-9);
}

#[test]
fn macro_and_micro_disagree_as_the_seed_shows() {
    let d = tempfile::tempdir().unwrap();
    let (code, v, err) = score_json(
        d.path(),
        &root().join("tests/fixtures/macro-micro.jsonl"),
        &[],
    );
    assert_eq!(code, 0, "{err}");
    let s = &v["summary"][0];
    assert!(
        (s["macro_score"].as_f64().unwrap() - 0.50).abs() < 1e-9,
        "{s}"
    );
    assert!((s["micro"].as_f64().unwrap() - 0.95).abs() < 1e-9, "{s}");
    assert_eq!(s["unsupported_answers"]["k"], 1);
}

#[test]
fn refusals_and_empty_answers_are_counted_apart_never_perfect() {
    let d = tempfile::tempdir().unwrap();
    let (_, v, _) = score_json(d.path(), &root().join("tests/fixtures/answers.jsonl"), &[]);
    assert_eq!(answer(&v, "refusal")["refusal"], true);
    assert_eq!(answer(&v, "empty")["claims"].as_array().unwrap().len(), 0);
    let s = &v["summary"][0];
    assert_eq!(
        (s["refusals"].as_u64(), s["no_claims"].as_u64()),
        (Some(1), Some(1))
    );
    assert_eq!(
        s["unsupported_answers"]["n"], 6,
        "refusals and empty answers are not in the rate"
    );
}

#[test]
fn derived_numbers_show_their_arithmetic_and_invented_ones_are_flagged() {
    let d = tempfile::tempdir().unwrap();
    let (_, v, _) = score_json(d.path(), &root().join("tests/fixtures/answers.jsonl"), &[]);
    let claims = answer(&v, "team-cost")["claims"]
        .as_array()
        .unwrap()
        .clone();
    let pay = claims
        .iter()
        .find(|c| c["text"].as_str().unwrap().contains("€96"))
        .unwrap();
    let n96 = pay["numbers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["number"] == "96")
        .unwrap();
    assert_eq!(n96["status"], "derived");
    assert_eq!(n96["arithmetic"], "8 × 12 = 96");
    let users = claims
        .iter()
        .find(|c| c["text"].as_str().unwrap().contains("12 users"))
        .unwrap();
    assert_eq!(users["numbers"][0]["status"], "not_in_passages");
    let out = fg(d.path())
        .args([
            "score",
            root()
                .join("tests/fixtures/answers.jsonl")
                .to_str()
                .unwrap(),
        ])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("number 96 is derived: 8 × 12 = 96"));
}

#[test]
fn a_malformed_line_names_its_line_and_the_rest_is_still_reported() {
    let d = tempfile::tempdir().unwrap();
    let log = d.path().join("log.jsonl");
    let all = std::fs::read_to_string(root().join("tests/fixtures/answers.jsonl")).unwrap();
    let mut lines: Vec<&str> = all.lines().collect();
    lines.insert(2, "{\"id\": \"broken\", \"answer\": ");
    std::fs::write(&log, lines.join("\n")).unwrap();
    let (code, v, err) = score_json(d.path(), &log, &[]);
    // partial input has its own code: the rest ran and was written, unlike exit 2
    assert_eq!(code, 5);
    assert!(err.contains(&format!("{}:3", log.display())), "{err}");
    assert_eq!(
        v["answers"].as_array().unwrap().len(),
        8,
        "the other answers are reported"
    );
}

#[test]
fn compare_on_score_records_pairs_answers_and_lists_the_newly_broken() {
    let d = tempfile::tempdir().unwrap();
    let base_log = root().join("tests/fixtures/answers.jsonl");
    let base = d.path().join("base.json");
    fg(d.path())
        .args([
            "score",
            base_log.to_str().unwrap(),
            "--record",
            base.to_str().unwrap(),
        ])
        .assert()
        .success();
    // the candidate generator invents a delivery date in the grounded A17 answer
    let cand_log = d.path().join("cand.jsonl");
    let text = std::fs::read_to_string(&base_log).unwrap().replace(
        "\"answer\": \"Order A17 shipped on 3 March.\"",
        "\"answer\": \"Order A17 shipped on 3 March. It arrives on Friday.\"",
    );
    std::fs::write(&cand_log, text).unwrap();
    let cand = d.path().join("cand.json");
    fg(d.path())
        .args([
            "score",
            cand_log.to_str().unwrap(),
            "--record",
            cand.to_str().unwrap(),
        ])
        .assert()
        .success();
    // six scored answers, at most five at risk: no row can reach significance whatever the
    // candidate did, so there is no verdict (exit 3, never a pass), and the broken one is listed
    let out = fg(d.path())
        .args(["compare", base.to_str().unwrap(), cand.to_str().unwrap()])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{text}");
    assert!(
        text.contains("no definition's row can fail: at most 5 answers at risk")
            && text.contains("--max-new-misses 0"),
        "{text}"
    );
    assert!(text.contains("fixed 0  broken 1"), "{text}");
    assert!(
        text.contains("a17-grounded: Order A17 shipped on 3 March. It arrives on Friday."),
        "{text}"
    );
    // the zero-tolerance rule is an explicit option, and its failure says it has no error rate
    let out = fg(d.path())
        .args([
            "compare",
            base.to_str().unwrap(),
            cand.to_str().unwrap(),
            "--max-new-misses",
            "0",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("more than --max-new-misses 0 (a rule, no error rate)"),
        "{text}"
    );
    assert!(
        text.contains("a17-grounded: Order A17 shipped on 3 March. It arrives on Friday."),
        "{text}"
    );
    let same = fg(d.path())
        .args(["compare", base.to_str().unwrap(), base.to_str().unwrap()])
        .output()
        .unwrap();
    // nor can a record compared with itself on six answers: no verdict either, never a pass
    assert_eq!(same.status.code(), Some(3));
}

#[test]
fn decompose_eval_counts_missed_merged_and_invented_claims() {
    let d = tempfile::tempdir().unwrap();
    let (code, text) = {
        let out = fg(d.path())
            .args([
                "decompose-eval",
                root()
                    .join("tests/fixtures/hand-decomposition.yaml")
                    .to_str()
                    .unwrap(),
            ])
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).to_string(),
        )
    };
    assert_eq!(code, Some(0), "{text}");
    // the sentence splitter merges "3-5 business days, and ... confirmation email" into one claim
    assert!(text.contains("missed 0  merged 3  invented 0"), "{text}");
    assert!(
        text.contains("merged    Exports run hourly and are retained in your bucket indefinitely."),
        "{text}"
    );
    assert!(
        text.contains(
            "merged    Refunds take 3-5 business days, and you'll get a confirmation email."
        ),
        "{text}"
    );
}

/// A noisy omissions checker as the seed found one: a real catch and four flags to review.
fn omissions_server() -> Server {
    Server::start(|r, _| {
        let p = r.prompt();
        let answer = p
            .split("Answer: ")
            .nth(1)
            .unwrap_or("")
            .lines()
            .next()
            .unwrap_or("")
            .to_string();
        let flags: Vec<&str> = if answer.starts_with("Yes, annual Enterprise") {
            vec!["Refunds in full are only possible within 14 days of signing."]
        } else if answer.starts_with("You can cancel") {
            vec!["Annual Enterprise contracts can be refunded within 14 days of signing."]
        } else if answer.starts_with("Annual Enterprise") {
            vec!["The refund rule does not cover Team plans."]
        } else if answer.starts_with("Each user") {
            vec!["The storage is pooled across the workspace."]
        } else {
            vec!["Export links expire after 7 days."]
        };
        Reply::chat(&json!(flags).to_string())
    })
}

fn judge_config(dir: &Path, url: &str) {
    std::fs::write(
        dir.join("faithprobe.yaml"),
        format!(
            "checkers:\n  judge:\n    kind: judge\n    base_url: {url}\n    model: stand-in\n    prompt: {}\n",
            root().join("prompts/judge-v1.md").display()
        ),
    )
    .unwrap();
}

#[test]
fn the_omissions_check_fills_a_review_queue_and_its_precision_is_measured() {
    let s = omissions_server();
    let d = tempfile::tempdir().unwrap();
    judge_config(d.path(), &s.url);
    let prompt = root().join("prompts/omissions-v1.md");
    let out = fg(d.path())
        .args([
            "omissions-eval",
            root()
                .join("tests/fixtures/omissions.yaml")
                .to_str()
                .unwrap(),
            "--omissions",
            "judge",
            "--omissions-prompt",
            prompt.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("5 flags, 1 match an omission a person confirmed (precision 0.20); 1 of 1 confirmed omissions found (recall 1.00)"), "{text}");
    insta::assert_snapshot!("omissions_eval_human", text);
    // the prompt shows the question, the answer and the passages as data
    let p = s.requests()[0].prompt();
    assert!(
        p.contains("Question: Can we get a refund") && p.contains("<passage id=\"billing\">"),
        "{p}"
    );

    // in `score`, the flags fill a review queue and change no number
    let log = d.path().join("log.jsonl");
    let all = std::fs::read_to_string(root().join("tests/fixtures/answers.jsonl")).unwrap();
    std::fs::write(
        &log,
        all.lines()
            .filter(|l| l.contains("a17-grounded"))
            .collect::<Vec<_>>()
            .join("\n"),
    )
    .unwrap();
    let plain = fg(d.path())
        .args([
            "score",
            log.to_str().unwrap(),
            "--format",
            "json",
            "--no-cache",
        ])
        .output()
        .unwrap();
    let with = fg(d.path())
        .args([
            "score",
            log.to_str().unwrap(),
            "--no-cache",
            "--omissions",
            "judge",
            "--omissions-prompt",
            prompt.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let human = String::from_utf8_lossy(&with.stdout);
    assert!(
        human.contains("Review queue") && human.contains("Export links expire after 7 days."),
        "{human}"
    );
    assert_eq!(
        with.status.code(),
        plain.status.code(),
        "the review queue is never a gate"
    );
}

#[test]
fn the_score_html_report_is_self_contained_and_shows_every_claim_with_evidence() {
    let d = tempfile::tempdir().unwrap();
    let html = d.path().join("score.html");
    fg(d.path())
        .args([
            "score",
            root()
                .join("tests/fixtures/answers.jsonl")
                .to_str()
                .unwrap(),
            "--html",
            html.to_str().unwrap(),
            "--definition",
            "strict",
            "--definition",
            "non-contradiction",
        ])
        .assert()
        .success();
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(
        !page.contains("<script") && !page.contains("http"),
        "not self-contained"
    );
    assert!(page.contains("<th>strict</th><th>non-contradiction</th>"));
    assert!(
        page.contains("policy-2.1: Order #4021 is eligible for a refund."),
        "evidence is shown"
    );
    assert!(page.contains("96 derived: 8 × 12 = 96"));
    assert!(
        page.contains("refusal: excluded from the averages")
            && page.contains("no claims: not a perfect score")
    );
}

#[test]
fn a_duplicate_answer_id_names_both_lines() {
    let d = tempfile::tempdir().unwrap();
    let log = d.path().join("log.jsonl");
    let line = r#"{"id": "a1", "question": "Q?", "answer": "Order A17 shipped on 3 March.", "passages": [{"id": "p", "text": "Order A17 shipped on 3 March."}]}"#;
    std::fs::write(&log, format!("{line}\n\n{line}\n")).unwrap();
    let (code, v, err) = score_json(d.path(), &log, &[]);
    // the first answer was scored and written: partial input (5), not "nothing ran" (2)
    assert_eq!(code, 5, "{err}");
    assert!(
        err.contains("log.jsonl:3") && err.contains("first on line 1"),
        "{err}"
    );
    assert_eq!(v["answers"].as_array().unwrap().len(), 1);
}

#[test]
fn framing_sentences_partial_refusals_and_spaced_numbers_come_out_as_a_person_reads_them() {
    // answers as LLMs write them: a framing line, a blank line, a list, "$ 160 million",
    // a refusal halfway, a framing prefix on a real claim
    let d = tempfile::tempdir().unwrap();
    let passage = "The film Orbit was released in 2001. It grossed $ 160 million worldwide. Critics praised its score.";
    let lines = [
        ("summary", "Here is a concise summary:\n\nThe film Orbit was released in 2001. It grossed $160 million worldwide."),
        ("listed", "Key points:\n- Orbit was released in 2001.\n- Critics praised its score."),
        ("partial", "There is no information about the director. Based on the provided text, the film grossed $160 million worldwide."),
        ("refusal", "I'm sorry, but I cannot find that in the passages."),
        ("meta", "The passage does not mention the cast. Orbit was released in 2001."),
    ];
    let log: String = lines
        .iter()
        .map(|(id, answer)| {
            json!({"id": id, "question": "What about Orbit?", "answer": answer,
                   "passages": [{"id": "p", "text": passage}]})
            .to_string()
                + "\n"
        })
        .collect();
    let path = d.path().join("log.jsonl");
    std::fs::write(&path, log).unwrap();
    let (code, v, err) = score_json(d.path(), &path, &[]);
    assert_eq!(code, 0, "{err}");
    let claims = |id: &str| -> Vec<String> {
        answer(&v, id)["claims"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["text"].as_str().unwrap().to_string())
            .collect()
    };
    let table: [(&str, &[&str]); 5] = [
        (
            "summary",
            &[
                "The film Orbit was released in 2001.",
                "It grossed $160 million worldwide.",
            ],
        ),
        (
            "listed",
            &["Orbit was released in 2001.", "Critics praised its score."],
        ),
        ("partial", &["The film grossed $160 million worldwide."]),
        ("refusal", &[]),
        ("meta", &["Orbit was released in 2001."]),
    ];
    for (id, want) in table {
        assert_eq!(claims(id), want, "{id}");
    }
    // every claim is supported: "$160 million" is the passage's "$ 160 million"
    for (id, _) in table {
        for c in answer(&v, id)["claims"].as_array().unwrap() {
            assert_eq!(c["verdict"], "supported", "{id}: {c}");
            assert!(c["numbers"].as_array().unwrap().is_empty(), "{id}: {c}");
        }
    }
    assert_eq!(answer(&v, "partial")["partial_refusal"], true);
    assert_eq!(answer(&v, "partial")["refusal"], false);
    assert_eq!(answer(&v, "refusal")["refusal"], true);
    let dropped = |id: &str| answer(&v, id)["dropped"].as_array().unwrap().clone();
    assert_eq!(dropped("summary")[0]["text"], "Here is a concise summary:");
    assert!(dropped("summary")[0]["reason"]
        .as_str()
        .unwrap()
        .starts_with("framing"));
    assert_eq!(dropped("partial")[0]["reason"], "refusal");
    assert!(dropped("meta")[0]["reason"]
        .as_str()
        .unwrap()
        .starts_with("framing"));
    assert!(dropped("listed")[0]["text"] == "Key points:");
}

/// Writes a log of `(id, answer)` over one passage and scores it with the defaults.
fn score_answers(dir: &Path, passage: &str, answers: &[(&str, &str)]) -> Value {
    let log: String = answers
        .iter()
        .map(|(id, answer)| {
            json!({"id": id, "question": "What does the Team plan include?", "answer": answer,
                   "passages": [{"id": "plans", "text": passage}]})
            .to_string()
                + "\n"
        })
        .collect();
    let path = dir.join("log.jsonl");
    std::fs::write(&path, log).unwrap();
    let (code, v, err) = score_json(dir, &path, &[]);
    assert_eq!(code, 0, "{err}");
    v
}

#[test]
fn a_false_claim_behind_manners_or_a_negated_lead_in_makes_its_answer_unsupported() {
    let d = tempfile::tempdir().unwrap();
    let passage = "The Team plan costs €12 per user per month. The Team plan includes single sign-on and audit logs. Refunds are issued within 14 days of cancellation.";
    let v = score_answers(
        d.path(),
        passage,
        &[
            ("sorry", "Sorry, but refunds are issued within 30 days of cancellation."),
            ("thanks", "Thanks for asking: the Team plan costs €15 per user per month."),
            ("dont-know", "I don't know about discounts, but refunds are issued within 30 days of cancellation."),
            ("lead-in", "Here is a summary:\nThe following features are not included in the Team plan:\n- Single sign-on\n- Audit logs"),
        ],
    );
    for id in ["sorry", "thanks", "dont-know", "lead-in"] {
        let a = answer(&v, id);
        let got = verdicts(a);
        assert!(!got.is_empty(), "{id}: no claim was checked: {a}");
        assert!(got.iter().all(|x| x == "contradicted"), "{id}: {got:?} {a}");
    }
    assert_eq!(answer(&v, "dont-know")["partial_refusal"], true);
    assert_eq!(
        v["summary"][0]["unsupported_answers"]["k"], 4,
        "{}",
        v["summary"][0]
    );
}

#[test]
fn faithful_answers_in_the_shapes_llms_write_them_are_supported_and_refusals_counted_apart() {
    let d = tempfile::tempdir().unwrap();
    let passage = "Refunds are not issued after 14 days. Invoices can be paid within 30 days by card or by bank transfer. Parking at the museum is free for visitors.";
    let v = score_answers(
        d.path(),
        passage,
        &[
            ("no", "No, refunds are not issued after 14 days."),
            (
                "markers",
                "Invoices can be paid within 30 days: 1) by card or 2) by bank transfer.",
            ),
            (
                "according",
                "According to the document, refunds are not issued after 14 days.",
            ),
            (
                "based",
                "Based on the document, parking at the museum is free for visitors.",
            ),
            (
                "leaflet",
                "The leaflet says that parking at the museum is free for visitors.",
            ),
            (
                "refusal-1",
                "I do not have enough information to answer that question.",
            ),
            (
                "refusal-2",
                "I'm sorry, but I cannot find that in the passages.",
            ),
            (
                "refusal-3",
                "The provided documents don't specify the opening hours.",
            ),
        ],
    );
    for id in ["no", "markers", "according", "based", "leaflet"] {
        let a = answer(&v, id);
        assert_eq!(verdicts(a), ["supported"], "{id}: {a}");
    }
    for id in ["refusal-1", "refusal-2", "refusal-3"] {
        let a = answer(&v, id);
        assert_eq!(a["refusal"], true, "{id}: {a}");
        assert!(a["claims"].as_array().unwrap().is_empty(), "{id}: {a}");
    }
    assert_eq!(v["summary"][0]["refusals"], 3, "{}", v["summary"][0]);
}
