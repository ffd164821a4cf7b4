//! `score` on logs as they come: RAGTruth-style labelled data imported and scored with agreement
//! figures, logs with shared contexts and side-file labels, sharded runs that merge to exactly
//! the unsharded result, and reports that stay readable.

use crate::common::{faithprobe_in, output, root};
use std::path::Path;

fn import(dir: &Path) {
    let (code, _, err) = output(faithprobe_in(dir).args([
        "import",
        "ragtruth",
        root().join("tests/fixtures/ragtruth").to_str().unwrap(),
        "--log",
        "log.jsonl",
        "--hard-cases",
        "suite.yaml",
    ]));
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("imported 8 answers (4 labelled hallucinated) over 3 sources"),
        "{err}"
    );
}

#[test]
#[allow(clippy::too_many_lines)] // import, score and every figure the labels give
fn an_imported_ragtruth_log_scores_with_agreement_figures() {
    let d = tempfile::tempdir().unwrap();
    import(d.path());
    // the log: one answer per response, context by id, model as tag, label from the spans,
    // every other key kept
    let log = std::fs::read_to_string(d.path().join("log.jsonl")).unwrap();
    let first: serde_json::Value = serde_json::from_str(log.lines().next().unwrap()).unwrap();
    assert_eq!(first["context"], "s-100");
    assert_eq!(first["tag"], "gpt-4-0613");
    assert_eq!(first["label"]["hallucinated"], false);
    assert_eq!(first["quality"], "good");

    let (code, json, err) = output(faithprobe_in(d.path()).args([
        "score",
        "log.jsonl",
        "--contexts",
        "log.contexts.jsonl",
        "--definition",
        "strict",
        "--definition",
        "non-contradiction",
        "--format",
        "json",
        "--no-cache",
    ]));
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let labels = &v["labels"];
    assert_eq!(labels["labelled"], 8);
    assert_eq!(labels["hallucinated"], 4);
    let strict = &labels["by_definition"][0];
    assert_eq!(strict["definition"], "strict");
    // every hallucinated answer is flagged; one faithful answer (the Data2txt one, whose source
    // is JSON) is a false alarm
    let m = &strict["all"];
    assert_eq!(
        (
            m["tp"].as_u64(),
            m["fp"].as_u64(),
            m["fn_"].as_u64(),
            m["tn"].as_u64()
        ),
        (Some(4), Some(1), Some(0), Some(3)),
        "{m}"
    );
    assert_eq!(m["precision"]["k"], 4);
    assert_eq!(m["precision"]["n"], 5);
    assert!((m["balanced_accuracy"]["value"].as_f64().unwrap() - 0.875).abs() < 1e-9);
    assert!((m["f1"]["value"].as_f64().unwrap() - 8.0 / 9.0).abs() < 1e-9);
    // per label type: what share of each kind of error the checker caught
    assert_eq!(strict["recall_by_type"]["Evident Conflict"]["n"], 2);
    // non-contradiction misses the baseless inventions: not_found passes under it
    let nc = &labels["by_definition"][1]["all"];
    assert_eq!(nc["fn_"], 2);
    assert_eq!(
        labels["by_definition"][1]["recall_by_type"]["Evident Baseless Info"]["k"],
        0
    );
    assert!(labels["auroc"]["auroc"].as_f64().unwrap() > 0.5);
    // per tag, with no labels needed
    let tags: Vec<&str> = v["by_tag"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["tag"].as_str().unwrap())
        .collect();
    assert_eq!(
        tags,
        ["gpt-4-0613", "llama-2-7b-chat", "mistral-7B-instruct"]
    );
    assert_eq!(v["by_tag"][1]["unsupported_answers"][0]["k"], 3);
    // the partial refusal is scored on its claims and marked
    let r2002 = v["answers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["id"] == "r-2002")
        .unwrap();
    assert_eq!(r2002["partial_refusal"], true);
    assert_eq!(r2002["metadata"]["source_id"], "s-200");

    let (_, human, _) = output(faithprobe_in(d.path()).args([
        "score",
        "log.jsonl",
        "--contexts",
        "log.contexts.jsonl",
        "--no-cache",
        "--max-false-alarm",
        "0.5",
    ]));
    for want in [
        "Agreement with the labels (8 labelled answers scored, 4 hallucinated",
        "precision 4/5 0.80",
        "balanced accuracy 0.88",
        "flagging every answer: F1 0.67",
        "AUROC of the lowest claim score",
        "By tag: unsupported-answer rate",
        "llama-2-7b-chat",
        "threshold on the lowest claim score for at most 0.50 false alarms",
    ] {
        assert!(human.contains(want), "missing {want:?} in\n{human}");
    }

    // the HTML page has every answer with its tag and label, and no empty question line
    let (code, _, err) = output(faithprobe_in(d.path()).args([
        "score",
        "log.jsonl",
        "--contexts",
        "log.contexts.jsonl",
        "--html",
        "r.html",
        "--show",
        "none",
    ]));
    assert_eq!(code, 0, "{err}");
    let html = std::fs::read_to_string(d.path().join("r.html")).unwrap();
    assert_eq!(html.matches("<h2>").count(), 8);
    assert!(
        html.contains(
            "tag llama-2-7b-chat · log line 2 · labelled hallucinated (Evident Conflict)"
        ),
        "{html}"
    );
    assert!(html.contains("<b>Q:</b> how long does a passport renewal take"));
    assert!(!html.contains("<b>Q:</b> <br>"));

    // the suite of hard cases runs as a suite
    let (code, run, err) =
        output(faithprobe_in(d.path()).args(["run", "suite.yaml", "--no-cache"]));
    assert!(code == 0 || code == 1, "{err}");
    assert!(
        run.contains("evident_conflict") && run.contains("subtle_conflict"),
        "{run}"
    );
    assert!(run.contains("8 verified claims, 5 hard cases"), "{run}");
}

#[test]
fn labels_from_a_side_file_override_the_log_and_unmatched_ones_are_reported() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("log.jsonl"),
        concat!(
            "{\"id\": 1, \"question\": null, \"answer\": \"Here is a summary:\\n\\nOrder A17 shipped on 3 March.\", \"context\": \"orders\", \"model\": \"m1\"}\n",
            "{\"id\": 2, \"answer\": \"Order A17 shipped on 5 March.\", \"context\": \"orders\", \"label\": {\"hallucinated\": false}}\n",
            "{\"id\": 3, \"answer\": \"Order A17 was lost.\", \"passages\": []}\n",
        ),
    )
    .unwrap();
    std::fs::write(
        d.path().join("ctx.jsonl"),
        "{\"id\": \"orders\", \"text\": \"Order A17 shipped on 3 March by courier.\"}\n",
    )
    .unwrap();
    std::fs::write(
        d.path().join("labels.jsonl"),
        "{\"id\": 1, \"hallucinated\": false}\n{\"id\": \"2\", \"hallucinated\": true, \"types\": [\"wrong date\"]}\n{\"id\": \"99\", \"hallucinated\": true}\n",
    )
    .unwrap();
    let (code, json, err) = output(faithprobe_in(d.path()).args([
        "score",
        "log.jsonl",
        "--contexts",
        "ctx.jsonl",
        "--labels",
        "labels.jsonl",
        "--format",
        "json",
    ]));
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("1 of 3 answers have no passage text (first: `3` on line 3)"),
        "{err}"
    );
    assert!(
        err.contains("1 labels match no answer of the log (first: `99`)"),
        "{err}"
    );
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let a: Vec<&serde_json::Value> = v["answers"].as_array().unwrap().iter().collect();
    assert_eq!(a[0]["id"], "1");
    assert_eq!(a[0]["metadata"]["model"], "m1");
    assert_eq!(
        a[0]["claims"].as_array().unwrap().len(),
        1,
        "framing dropped"
    );
    assert_eq!(a[1]["label"]["hallucinated"], true, "the side file wins");
    let m = &v["labels"]["by_definition"][0]["all"];
    assert_eq!((m["tp"].as_u64(), m["tn"].as_u64()), (Some(1), Some(1)));
    assert_eq!(v["without_passages"], 1);
}

#[test]
fn a_bad_log_line_names_its_line_and_the_rest_is_still_scored() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("log.jsonl"),
        "{\"id\": \"a\", \"answer\": \"Order A17 shipped.\", \"passages\": [{\"id\": \"p\", \"text\": \"Order A17 shipped.\"}]}\n{\"id\": \"b\", \"answer\": \"x\", \"context\": \"nope\"}\n{\"id\": [1], \"answer\": \"x\", \"passages\": []}\n",
    )
    .unwrap();
    let (code, out, err) = output(faithprobe_in(d.path()).args(["score", "log.jsonl"]));
    assert_eq!(code, 5, "{err}");
    assert!(
        err.contains("log.jsonl:2") && err.contains("no --contexts file"),
        "{err}"
    );
    assert!(
        err.contains("log.jsonl:3") && err.contains("not a list"),
        "{err}"
    );
    assert!(out.contains("1 answer: 1 scored"), "{out}");
}

#[test]
fn sharded_runs_and_scorings_merge_to_exactly_the_unsharded_record() {
    let d = tempfile::tempdir().unwrap();
    import(d.path());
    let fg = || faithprobe_in(d.path());
    // score, in three shards, then merged in any order
    for k in 1..=3 {
        let (code, out, err) = output(fg().args([
            "score",
            "log.jsonl",
            "--contexts",
            "log.contexts.jsonl",
            "--shard",
            &format!("{k}/3"),
            "--record",
            &format!("s{k}.json"),
        ]));
        assert_eq!(code, 0, "{err}");
        assert!(out.contains(&format!("shard {k}/3")), "{out}");
    }
    let (code, _, err) = output(fg().args([
        "score",
        "log.jsonl",
        "--contexts",
        "log.contexts.jsonl",
        "--record",
        "whole.json",
    ]));
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = output(fg().args([
        "merge",
        "s3.json",
        "s1.json",
        "s2.json",
        "--out",
        "merged.json",
    ]));
    assert_eq!(code, 0, "{err}");
    let read = |p: &str| std::fs::read(d.path().join(p)).unwrap();
    assert_eq!(read("merged.json"), read("whole.json"), "score shards");
    let sizes: Vec<usize> = (1..=3)
        .map(|k| {
            let v: serde_json::Value =
                serde_json::from_slice(&read(&format!("s{k}.json"))).unwrap();
            v["answers"].as_array().unwrap().len()
        })
        .collect();
    assert_eq!(sizes.iter().sum::<usize>(), 8, "{sizes:?}");

    // run, in two shards
    let larkspur = root().join("suites/larkspur.yaml");
    let larkspur = larkspur.to_str().unwrap();
    for k in 1..=2 {
        let (code, out, err) = output(fg().args([
            "run",
            larkspur,
            "--no-cache",
            "--shard",
            &format!("{k}/2"),
            "--record",
            &format!("r{k}.json"),
        ]));
        assert!(code == 0 || code == 1, "{err}");
        assert!(out.contains(&format!("shard {k}/2")), "{out}");
    }
    let (_, _, err) = output(fg().args(["run", larkspur, "--no-cache", "--record", "rwhole.json"]));
    assert!(
        err.contains(&format!("scored {} cases", crate::common::LARKSPUR_CASES)),
        "{err}"
    );
    let (code, _, err) =
        output(fg().args(["merge", "r2.json", "r1.json", "--out", "rmerged.json"]));
    assert_eq!(code, 0, "{err}");
    assert_eq!(read("rmerged.json"), read("rwhole.json"), "run shards");
    // and the merged record is a record like any other
    let (code, out, err) = output(fg().args([
        "compare",
        "rwhole.json",
        "rmerged.json",
        "--cluster-by",
        "claim",
    ]));
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("gate passed"), "{out}");

    // a missing shard, a repeated one, or a whole record: errors, nothing written
    for (args, want) in [
        (vec!["merge", "s1.json", "s2.json"], "3/3 missing"),
        (
            vec!["merge", "s1.json", "s1.json", "s2.json", "s3.json"],
            "also in",
        ),
        (vec!["merge", "whole.json"], "not the record of a shard"),
        (
            vec!["merge", "s1.json", "r1.json"],
            "some of these are run records",
        ),
    ] {
        let mut a = args.clone();
        a.extend(["--out", "bad.json"]);
        let (code, _, err) = output(fg().args(&a));
        assert_eq!(code, 2, "{a:?}: {err}");
        assert!(err.contains(want), "{a:?}: {err}");
        assert!(!d.path().join("bad.json").exists());
    }
    let (code, _, err) = output(fg().args(["score", "log.jsonl", "--shard", "4/3"]));
    assert_eq!(code, 2);
    assert!(err.contains("K/N with 1 <= K <= N"), "{err}");
}

#[test]
fn the_human_report_lists_the_worst_answers_on_one_line_each_and_all_on_request() {
    let d = tempfile::tempdir().unwrap();
    let mut log = String::new();
    for i in 0..30 {
        // multi-line evidence: a passage with line breaks and a list
        log.push_str(&serde_json::json!({
            "id": format!("a{i:02}"),
            "answer": if i % 3 == 0 { "Here is a summary:\n\n- The Team plan costs €15 per user.\n- It includes 10 users." } else { "The Team plan includes up to 10 users." },
            "passages": [{"id": "plans", "text": "Plans:\n\n- The Team plan costs €12 per user per month\n  and includes up to 10 users."}],
            "tag": if i % 2 == 0 { "model-a" } else { "model-b" },
        }).to_string());
        log.push('\n');
    }
    std::fs::write(d.path().join("log.jsonl"), log).unwrap();
    let (_, out, _) = output(faithprobe_in(d.path()).args(["score", "log.jsonl", "--worst", "3"]));
    assert!(
        out.contains("The 3 worst of 10 answers not faithful (strict)"),
        "{out}"
    );
    let listed = out.lines().filter(|l| l.contains(" claims strict")).count();
    assert_eq!(listed, 3, "{out}");
    // evidence is one line: no line of the report starts inside a passage
    assert!(
        out.lines().any(|l| l.ends_with(
            "plans: The Team plan costs €12 per user per month and includes up to 10 users."
        )),
        "{out}"
    );
    assert!(
        !out.lines()
            .any(|l| l.trim_start().starts_with("and includes")),
        "{out}"
    );
    assert!(out.contains("model-a") && out.contains("model-b"), "{out}");
    let (_, all, _) = output(faithprobe_in(d.path()).args(["score", "log.jsonl", "--show", "all"]));
    assert_eq!(
        all.lines().filter(|l| l.contains(" claims strict")).count(),
        30
    );
    let (_, none, _) =
        output(faithprobe_in(d.path()).args(["score", "log.jsonl", "--show", "none"]));
    assert!(!none.contains(" claims strict") && none.contains("Across answers"));
}

#[test]
#[allow(clippy::too_many_lines)] // two scorings compared under each definition
fn two_generators_answers_compare_by_a_shared_key_under_every_definition() {
    let d = tempfile::tempdir().unwrap();
    import(d.path());
    let log = std::fs::read_to_string(d.path().join("log.jsonl")).unwrap();
    for (model, file) in [("gpt-4-0613", "a.jsonl"), ("llama-2-7b-chat", "b.jsonl")] {
        let lines: String = log
            .lines()
            .filter(|l| l.contains(&format!("\"tag\":\"{model}\"")))
            .map(|l| format!("{l}\n"))
            .collect();
        assert_eq!(lines.lines().count(), 3);
        std::fs::write(d.path().join(file), lines).unwrap();
        let (code, _, err) = output(faithprobe_in(d.path()).args([
            "score",
            file,
            "--contexts",
            "log.contexts.jsonl",
            "--record",
            &format!("{file}.json"),
        ]));
        assert!(code == 0, "{err}");
    }
    let fg = || faithprobe_in(d.path());
    // by id nothing pairs: an error that says what to do, never a pass
    let (code, _, err) = output(fg().args(["compare", "a.jsonl.json", "b.jsonl.json"]));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("nothing to compare") && err.contains("--pair-by"),
        "{err}"
    );
    // by source: three pairs, both definitions, Holm-adjusted together
    let (code, json, err) = output(fg().args([
        "compare",
        "a.jsonl.json",
        "b.jsonl.json",
        "--pair-by",
        "source_id",
        "--max-new-misses",
        "0",
        "--format",
        "json",
    ]));
    assert!(code == 0 || code == 1, "{err}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["pair_by"], "source_id");
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["definition"], "strict");
    assert_eq!(rows[1]["definition"], "non-contradiction");
    assert_eq!(rows[0]["paired"], 3);
    // llama's answers are worse on every source under strict
    assert_eq!(rows[0]["candidate_unsupported"]["k"], 3);
    assert!(rows[0]["p_adjusted"].as_f64() >= rows[0]["p_value"].as_f64());
    assert!(
        v["failures"][0]
            .as_str()
            .unwrap()
            .contains("newly unsupported, more than --max-new-misses 0 (a rule, no error rate)"),
        "{v}"
    );
    let (_, md, _) = output(fg().args([
        "compare",
        "a.jsonl.json",
        "b.jsonl.json",
        "--pair-by",
        "source_id",
        "--format",
        "markdown",
    ]));
    assert!(
        md.contains("| strict | 3 |") && md.contains("| non-contradiction | 3 |"),
        "{md}"
    );
    assert!(md.contains("**Newly unsupported answers**"), "{md}");
    let (_, xml, _) = output(fg().args([
        "compare",
        "a.jsonl.json",
        "b.jsonl.json",
        "--pair-by",
        "source_id",
        "--definition",
        "strict",
        "--format",
        "junit",
    ]));
    let case = crate::common::junit_case(&xml, "unsupported answers (strict)");
    assert_eq!(
        case.classname.as_ref().map(|c| c.as_str()),
        Some("compare.answers"),
        "{xml}"
    );
    assert!(!xml.contains("non-contradiction"), "{xml}");
    // a key that is not unique pairs ambiguously: an error
    let (code, _, err) = output(fg().args([
        "compare",
        "a.jsonl.json",
        "b.jsonl.json",
        "--pair-by",
        "tag",
    ]));
    assert_eq!(code, 2);
    assert!(err.contains("two answers with tag `gpt-4-0613`"), "{err}");
    // a JSON report given by mistake says what it is
    let (_, report, _) = output(fg().args([
        "score",
        "a.jsonl",
        "--contexts",
        "log.contexts.jsonl",
        "--format",
        "json",
    ]));
    std::fs::write(d.path().join("report.json"), report).unwrap();
    let (code, _, err) = output(fg().args(["compare", "report.json", "b.jsonl.json"]));
    assert_eq!(code, 2);
    assert!(
        err.contains("it looks like the report of `faithprobe score --format json`"),
        "{err}"
    );
}

#[test]
fn an_empty_log_or_an_unwritable_spool_is_a_clear_error_never_a_pass() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("empty.jsonl"), "\n\n").unwrap();
    let (code, out, err) = output(faithprobe_in(d.path()).args(["score", "empty.jsonl"]));
    assert_eq!(code, 2, "{out}");
    assert!(err.contains("has no answers: nothing was scored"), "{err}");
    std::fs::write(
        d.path().join("log.jsonl"),
        "{\"id\": \"a\", \"answer\": \"Order A17 shipped.\", \"passages\": [\"Order A17 shipped.\"]}\n",
    )
    .unwrap();
    let (code, _, err) = output(
        faithprobe_in(d.path())
            .env("TMPDIR", d.path().join("no-such-folder"))
            .args(["score", "log.jsonl", "--record", "r.json"]),
    );
    assert_eq!(code, 4, "{err}");
    assert!(err.contains("set TMPDIR to a writable folder"), "{err}");
    assert!(!d.path().join("r.json").exists());
    std::fs::create_dir(d.path().join("adir")).unwrap();
    let (code, _, err) =
        output(faithprobe_in(d.path()).args(["score", "log.jsonl", "--record", "adir"]));
    assert_eq!(code, 4, "{err}");
    assert_eq!(
        std::fs::read_dir(d.path()).unwrap().count(),
        3,
        "nothing half-written"
    );
}

#[test]
fn answers_a_checker_failed_on_are_listed_and_no_gate_passes_on_them() {
    let d = tempfile::tempdir().unwrap();
    let base = d.path().join("base.json");
    let (code, _, err) = output(
        faithprobe_in(d.path()).args([
            "score",
            root()
                .join("tests/fixtures/answers.jsonl")
                .to_str()
                .unwrap(),
            "--record",
            base.to_str().unwrap(),
            "--show",
            "none",
        ]),
    );
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&base).unwrap()).unwrap();
    let with_errors = |count: usize, path: &Path| {
        let mut v = v.clone();
        for a in v["answers"].as_array_mut().unwrap().iter_mut().take(count) {
            for c in a["claims"].as_array_mut().unwrap() {
                c["verdict"] = serde_json::Value::Null;
                c["score"] = serde_json::Value::Null;
                c["error"] = "the server refused the request".into();
            }
        }
        std::fs::write(path, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    };
    let n = v["answers"].as_array().unwrap().len();
    let some = d.path().join("some.json");
    with_errors(1, &some);
    let (code, out, err) = output(faithprobe_in(d.path()).args([
        "compare",
        base.to_str().unwrap(),
        some.to_str().unwrap(),
    ]));
    assert_eq!(code, 3, "{out}{err}");
    assert!(
        out.contains("1 answer(s) the candidate could not score"),
        "{out}"
    );
    assert!(
        out.contains("no verdict:") && !out.contains("gate passed"),
        "{out}"
    );
    let all = d.path().join("all.json");
    with_errors(n, &all);
    for (b, c) in [(&base, &all), (&all, &all)] {
        let (code, out, err) = output(faithprobe_in(d.path()).args([
            "compare",
            b.to_str().unwrap(),
            c.to_str().unwrap(),
        ]));
        assert_eq!(code, 2, "{out}{err}");
        assert!(
            err.contains("every answer pair has an error")
                || err.contains("no answer pair was scored"),
            "{err}"
        );
    }
}

#[test]
fn a_log_from_stdin_a_pipe_or_dev_stdin_is_read_once_and_whole() {
    let d = tempfile::tempdir().unwrap();
    let log = std::fs::read(root().join("tests/fixtures/answers.jsonl")).unwrap();
    let (code, file_out, err) = output(
        faithprobe_in(d.path()).args([
            "score",
            root()
                .join("tests/fixtures/answers.jsonl")
                .to_str()
                .unwrap(),
            "--show",
            "none",
            "--format",
            "json",
        ]),
    );
    assert_eq!(code, 0, "{err}");
    let summary = |s: &str| -> serde_json::Value {
        let v: serde_json::Value = serde_json::from_str(s).unwrap();
        v["summary"].clone()
    };
    for path in ["-", "/dev/stdin"] {
        let out = faithprobe_in(d.path())
            .args(["score", path, "--show", "none", "--format", "json"])
            .write_stdin(log.clone())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{path}: {err}");
        assert_eq!(
            summary(&String::from_utf8_lossy(&out.stdout)),
            summary(&file_out),
            "{path}"
        );
    }
}

#[test]
fn a_yaml_alias_bomb_in_a_log_a_suite_or_a_config_is_refused_before_it_expands() {
    let d = tempfile::tempdir().unwrap();
    let big = "x".repeat(1 << 20);
    // a log: one 1 MB answer repeated 2,000 times by alias (2 GB once read)
    let mut log = format!("- {{id: a0, answer: &big \"{big}\", passages: [\"x\"]}}\n");
    for i in 1..2000 {
        log.push_str(&format!(
            "- {{id: a{i}, answer: *big, passages: [\"x\"]}}\n"
        ));
    }
    std::fs::write(d.path().join("log.yaml"), &log).unwrap();
    let record = d.path().join("r.json");
    let (code, _, err) = output(faithprobe_in(d.path()).args([
        "score",
        "log.yaml",
        "--record",
        record.to_str().unwrap(),
    ]));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("log.yaml:") && err.contains("aliases"),
        "{err}"
    );
    assert!(!record.exists());
    // a suite
    let mut suite = format!("suite: s\ncontexts:\n  - id: c\n    passages:\n      - {{id: p, text: &big \"{big}\"}}\n    faithful:\n");
    for i in 0..100 {
        suite.push_str(&format!("      - {{id: f{i}, claim: *big}}\n"));
    }
    std::fs::write(d.path().join("s.yaml"), &suite).unwrap();
    let (code, _, err) = output(faithprobe_in(d.path()).args(["run", "s.yaml"]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("s.yaml:") && err.contains("aliases"), "{err}");
    // a config
    let mut cfg = format!("checkers:\n  c0: {{kind: command, argv: [&big \"{big}\"]}}\n");
    for i in 1..100 {
        cfg.push_str(&format!("  c{i}: {{kind: command, argv: [*big]}}\n"));
    }
    std::fs::write(d.path().join("faithprobe.yaml"), &cfg).unwrap();
    let (code, _, err) = output(
        faithprobe_in(d.path())
            .args(["run", root().join("suites/larkspur.yaml").to_str().unwrap()]),
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("faithprobe.yaml:") && err.contains("aliases"),
        "{err}"
    );
}

#[test]
fn merge_knows_a_log_by_its_content_and_a_checker_by_its_settings() {
    let d = tempfile::tempdir().unwrap();
    let fixture = std::fs::read_to_string(root().join("tests/fixtures/answers.jsonl")).unwrap();
    let log = d.path().join("log.jsonl");
    std::fs::write(&log, &fixture).unwrap();
    let score = |log: &str, shard: &str, out: &str, checker: &str| {
        let (code, _, err) = output(faithprobe_in(d.path()).args([
            "score",
            log,
            "--shard",
            shard,
            "--record",
            out,
            "--checker",
            checker,
            "--show",
            "none",
        ]));
        assert!(code == 0 || code == 5, "{err}");
    };
    let merge =
        |a: &str, b: &str| output(faithprobe_in(d.path()).args(["merge", a, b, "--out", "m.json"]));
    std::fs::write(
        d.path().join("faithprobe.yaml"),
        "checkers:\n  t: {kind: lexical, threshold: 0.99}\n",
    )
    .unwrap();
    // one log spelled two ways merges
    score("./log.jsonl", "1/2", "a1.json", "t");
    score("log.jsonl", "2/2", "a2.json", "t");
    let (code, _, err) = merge("a1.json", "a2.json");
    assert_eq!(code, 0, "{err}");
    // another log written to the same path does not
    std::fs::write(&log, fixture.replace("eligible", "not eligible")).unwrap();
    score("log.jsonl", "2/2", "b2.json", "t");
    let (code, _, err) = merge("a1.json", "b2.json");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("log (sha256)"), "{err}");
    // nor does one checker name at another threshold
    std::fs::write(&log, &fixture).unwrap();
    std::fs::write(
        d.path().join("faithprobe.yaml"),
        "checkers:\n  t: {kind: lexical, threshold: 0.01}\n",
    )
    .unwrap();
    score("log.jsonl", "2/2", "c2.json", "t");
    let (code, _, err) = merge("a1.json", "c2.json");
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("checker's settings") && err.contains("threshold=0.99"),
        "{err}"
    );
    // a malformed line: the record says so, and merge and compare warn
    std::fs::write(
        &log,
        format!("{{\"id\": \"broken\", \"answer\": \n{fixture}"),
    )
    .unwrap();
    score("log.jsonl", "1/2", "d1.json", "t");
    score("log.jsonl", "2/2", "d2.json", "t");
    let rec: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.path().join("d1.json")).unwrap()).unwrap();
    assert_eq!(rec["lines_not_read"], 1);
    assert_eq!(rec["log_sha256"].as_str().unwrap().len(), 64);
    let (code, _, err) = merge("d1.json", "d2.json");
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("1 line(s) of the log could not be read"),
        "{err}"
    );
    let (_, _, err) = output(faithprobe_in(d.path()).args(["compare", "m.json", "m.json"]));
    assert!(
        err.contains("could not be read when it was scored"),
        "{err}"
    );
}

/// Writes a RAGTruth folder from its two files' lines.
fn ragtruth_dir(d: &Path, responses: &[serde_json::Value], sources: &[serde_json::Value]) {
    let lines =
        |v: &[serde_json::Value]| -> String { v.iter().map(|x| format!("{x}\n")).collect() };
    std::fs::create_dir_all(d.join("rt")).unwrap();
    std::fs::write(d.join("rt/response.jsonl"), lines(responses)).unwrap();
    std::fs::write(d.join("rt/source_info.jsonl"), lines(sources)).unwrap();
}

#[test]
fn import_writes_only_what_loads_and_never_verifies_a_sentence_an_annotator_flagged() {
    use serde_json::json;
    let d = tempfile::tempdir().unwrap();
    let import = |d: &Path| {
        output(faithprobe_in(d).args([
            "import",
            "ragtruth",
            "rt",
            "--log",
            "log.jsonl",
            "--hard-cases",
            "suite.yaml",
        ]))
    };
    // nothing to import is an error, and nothing is written
    ragtruth_dir(
        d.path(),
        &[],
        &[json!({"source_id": "s1", "task_type": "QA", "source_info": "x"})],
    );
    let (code, _, err) = import(d.path());
    assert_eq!(code, 2, "{err}");
    assert!(!d.path().join("log.jsonl").exists());
    let text = "The museum opened in 1998. It has 40 rooms.";
    let sentence = "It has 40 rooms.";
    let at = text.find(sentence).unwrap();
    ragtruth_dir(
        d.path(),
        &[
            // clean: both sentences look verified...
            json!({"id": "r1", "source_id": "s1", "model": "m1", "response": text, "labels": [], "passages": "collides"}),
            // ...but another annotator flagged the second as a conflict
            json!({"id": "r2", "source_id": "s1", "model": "m2", "response": text,
                   "labels": [{"start": at, "end": at + sentence.len(), "text": sentence, "label_type": "Evident Conflict"}]}),
            // a label type with no letters, and a source with no text
            json!({"id": "r3", "source_id": "s1", "model": "m3", "response": "The museum closed in 2001.",
                   "labels": [{"start": 0, "end": 26, "text": "x", "label_type": "..."}]}),
            json!({"id": "r4", "source_id": "s2", "model": "m1", "response": "Nothing here.", "labels": []}),
        ],
        &[
            json!({"source_id": "s1", "task_type": "Summary", "source_info": "The museum opened in 1998. It has 30 rooms."}),
            json!({"source_id": "s2", "task_type": "Summary", "source_info": ""}),
        ],
    );
    let (code, _, err) = import(d.path());
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("1 sentence(s) were clean in one answer and under a span"),
        "{err}"
    );
    assert!(err.contains("1 source(s) have no text"), "{err}");
    let suite = std::fs::read_to_string(d.path().join("suite.yaml")).unwrap();
    let s = crate::common::parse_yaml(&suite);
    let ctx = &s["contexts"][0];
    let faithful: Vec<&str> = ctx["faithful"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|c| c["claim"].as_str().unwrap())
        .collect();
    assert_eq!(faithful, ["The museum opened in 1998."], "{suite}");
    let hard = ctx["hard_cases"].as_sequence().unwrap();
    assert!(
        hard.iter()
            .any(|h| h["claim"] == sentence && h["label"] == "contradicted"),
        "{suite}"
    );
    assert!(hard.iter().any(|h| h["type"] == "unspecified"), "{suite}");
    // the colliding key is carried apart, and everything written loads
    let log = std::fs::read_to_string(d.path().join("log.jsonl")).unwrap();
    assert!(log.contains("\"ragtruth_passages\":\"collides\""), "{log}");
    let (code, _, err) = output(faithprobe_in(d.path()).args(["run", "suite.yaml"]));
    assert!(code == 0 || code == 1, "{err}");
    let (code, _, err) = output(faithprobe_in(d.path()).args([
        "score",
        "log.jsonl",
        "--contexts",
        "log.contexts.jsonl",
        "--show",
        "none",
    ]));
    assert_eq!(code, 0, "{err}");
}

#[test]
fn a_labels_file_as_it_comes_keeps_its_unknown_keys_and_checks_only_known_ones() {
    let d = tempfile::tempdir().unwrap();
    let fixture = root().join("tests/fixtures/answers.jsonl");
    // labels as public sets ship them: annotator counts, spans, dataset fields
    std::fs::write(
        d.path().join("labels.jsonl"),
        "{\"id\": \"order-4021\", \"hallucinated\": true, \"types\": [\"Evident Conflict\"], \"annotators\": 3, \"spans\": [[10, 24]], \"dataset\": \"x-sum\"}\n{\"id\": \"audit-s3\", \"hallucinated\": false, \"annotator_agreement\": 0.8}\n",
    )
    .unwrap();
    let (code, _, err) = output(faithprobe_in(d.path()).args([
        "score",
        fixture.to_str().unwrap(),
        "--labels",
        "labels.jsonl",
        "--record",
        "r.json",
        "--show",
        "none",
    ]));
    assert_eq!(code, 0, "{err}");
    let rec: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.path().join("r.json")).unwrap()).unwrap();
    let a = rec["answers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["id"] == "order-4021")
        .unwrap();
    assert_eq!(a["label"]["annotators"], 3, "{a}");
    assert_eq!(a["label"]["dataset"], "x-sum", "{a}");
    assert_eq!(a["label"]["hallucinated"], true);
    // a known key of the wrong type is still an error naming its line
    std::fs::write(
        d.path().join("bad.jsonl"),
        "{\"id\": \"order-4021\", \"hallucinated\": \"yes\", \"annotators\": 3}\n",
    )
    .unwrap();
    let (code, _, err) = output(faithprobe_in(d.path()).args([
        "score",
        fixture.to_str().unwrap(),
        "--labels",
        "bad.jsonl",
    ]));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("bad.jsonl:1") && err.contains("hallucinated"),
        "{err}"
    );
}

#[test]
fn the_checkers_note_covers_every_chunk_of_the_log_not_the_last() {
    // 300 answers are two chunks of 256 and 44; the cascade's routing note used to count the
    // last chunk only
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("faithprobe.yaml"),
        "checkers:\n  front: {kind: lexical}\n  both: {kind: cascade, front: front, back: front, route_below: 0.5}\n",
    )
    .unwrap();
    let mut log = String::new();
    for i in 0..300 {
        log.push_str(&format!(
            "{{\"id\": \"a{i}\", \"question\": \"How long do refunds take?\", \"answer\": \"Refunds take {} business days.\", \"passages\": [{{\"id\": \"p\", \"text\": \"Refunds take 5 business days.\"}}]}}\n",
            if i % 3 == 0 { 7 } else { 5 }
        ));
    }
    std::fs::write(d.path().join("log.jsonl"), log).unwrap();
    let out = crate::common::faithprobe_in(d.path())
        .args(["score", "log.jsonl", "--checker", "both", "--show", "none"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.code().is_some_and(|c| c <= 1), "{err}");
    assert!(err.contains("both: 300 claims;"), "{err}");
}

#[test]
#[allow(clippy::too_many_lines)] // a log built to tell clustered from plain counts
fn answers_to_one_source_count_once_in_the_paired_test_with_cluster_by() {
    // three help-center sources, four answers to each; the candidate generator gets the figures
    // of two sources wrong in every answer: eight answers broken, but from two sources
    let d = tempfile::tempdir().unwrap();
    let sources = [
        (
            "billing",
            "Team plans are billed monthly at €12 per user.",
            "€12",
            "€15",
        ),
        (
            "storage",
            "Each Team user gets 50 GB of storage.",
            "50 GB",
            "80 GB",
        ),
        (
            "export",
            "Export links expire after 7 days.",
            "7 days",
            "7 days",
        ),
    ];
    let mut logs = [String::new(), String::new()];
    for (s, (source, passage, right, wrong)) in sources.iter().enumerate() {
        for i in 0..4 {
            for (side, figure) in [right, wrong].iter().enumerate() {
                let answer = passage.replace(right, figure);
                logs[side].push_str(
                    &serde_json::json!({
                        "id": format!("a{s}-{i}"),
                        "question": format!("Question {i} about {source}?"),
                        "answer": format!("Here is what the help center says: {answer}"),
                        "passages": [{"id": source, "text": passage}],
                        "source_id": source,
                    })
                    .to_string(),
                );
                logs[side].push('\n');
            }
        }
    }
    for (side, log) in ["base", "cand"].iter().zip(&logs) {
        std::fs::write(d.path().join(format!("{side}.jsonl")), log).unwrap();
        let (code, _, err) = output(faithprobe_in(d.path()).args([
            "score",
            &format!("{side}.jsonl"),
            "--record",
            &format!("{side}.json"),
        ]));
        assert_eq!(code, 0, "{err}");
    }
    let compare = |extra: &[&str]| {
        let (code, json, err) = output(
            faithprobe_in(d.path())
                .args([
                    "compare",
                    "base.json",
                    "cand.json",
                    "--definition",
                    "strict",
                    "--max-new-misses",
                    "100",
                    "--format",
                    "json",
                ])
                .args(extra),
        );
        let v: serde_json::Value = serde_json::from_str(&json).unwrap_or_else(|_| panic!("{err}"));
        (code, v)
    };
    // answer by answer: eight broken, none fixed, one-sided p = 0.5^8
    let (code, v) = compare(&[]);
    let row = &v["rows"][0];
    assert_eq!(
        (row["broken"].as_u64(), row["fixed"].as_u64()),
        (Some(8), Some(0)),
        "{v}"
    );
    assert_eq!(row["clusters_changed"], 8);
    assert!(
        (row["p_worse"].as_f64().unwrap() - 0.00390625).abs() < 1e-12,
        "{v}"
    );
    assert_eq!(code, 1, "{v}");
    // by source: two sources changed, p = 0.25, and the intervals are the sources'
    let (code, v) = compare(&["--cluster-by", "source_id"]);
    let row = &v["rows"][0];
    assert_eq!(row["clusters_changed"], 2, "{v}");
    assert_eq!(row["p_worse"].as_f64(), Some(0.25));
    assert_eq!(row["candidate_clustered"]["clusters"], 3);
    assert_eq!(v["cluster_by"], "source_id");
    assert_eq!(
        code, 0,
        "two sources are not evidence of a worse generator: {v}"
    );
    // within each source, for reading
    let (_, v) = compare(&["--cluster-by", "source_id", "--stratify-by", "source_id"]);
    let strata = v["rows"][0]["by_stratum"].as_array().unwrap();
    assert_eq!(strata.len(), 3, "{v}");
    let billing = strata.iter().find(|x| x["stratum"] == "billing").unwrap();
    assert_eq!(
        (billing["broken"].as_u64(), billing["paired"].as_u64()),
        (Some(4), Some(4))
    );
    assert_eq!(
        billing["p_worse"].as_f64(),
        Some(0.5),
        "one source, one change"
    );
    // Holm over the three strata: 3 x 0.5 is 1
    assert_eq!(billing["p_holm"].as_f64(), Some(1.0), "{v}");
    let export = strata.iter().find(|x| x["stratum"] == "export").unwrap();
    assert_eq!(export["broken"], 0);
    // a run record clusters by context or claim: a log's key is refused there
    let (code, _, err) = output(faithprobe_in(d.path()).args([
        "compare",
        "--checker",
        "lexical",
        "--checker",
        "lexical",
        "--cluster-by",
        "source_id",
        root().join("suites/larkspur.yaml").to_str().unwrap(),
    ]));
    assert_eq!(code, 2);
    assert!(
        err.contains(
            "--cluster-by source_id: run records cluster by `context` (the default) or `claim`"
        ),
        "{err}"
    );
}

#[test]
fn stratified_agreement_shows_what_pooling_hides_and_clusters_widen_the_answer_rate() {
    // two datasets: in `xsum` five of six summaries are hallucinated and the checker flags every
    // one; in `cnndm` one of six is and the checker passes every one. Within each, the checker
    // tells nothing apart (balanced accuracy 0.50); pooled, it looks good (0.83)
    let d = tempfile::tempdir().unwrap();
    let passage = "The council approved a budget of $ 160 million on Tuesday.";
    let mut log = String::new();
    for (dataset, wrong, hallucinated) in [("xsum", true, 5), ("cnndm", false, 1)] {
        for i in 0..6 {
            let figure = if wrong {
                "$ 190 million"
            } else {
                "$ 160 million"
            };
            log.push_str(
                &serde_json::json!({
                    "id": format!("{dataset}-{i}"),
                    "question": "Summarise the article.",
                    "answer": format!("Here is a summary: The council approved a budget of {figure} on Tuesday."),
                    "passages": [{"id": "article", "text": passage}],
                    "dataset": dataset,
                    "source_id": format!("{dataset}-doc{}", i / 3),
                    "label": {"hallucinated": i < hallucinated, "types": []},
                })
                .to_string(),
            );
            log.push('\n');
        }
    }
    std::fs::write(d.path().join("log.jsonl"), log).unwrap();
    let (code, out, err) = output(faithprobe_in(d.path()).args([
        "score",
        "log.jsonl",
        "--definition",
        "strict",
        "--stratify-by",
        "dataset",
        "--cluster-by",
        "source_id",
        "--show",
        "none",
    ]));
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("balanced accuracy, the mean over strata: 0.50 (pooled: 0.83"),
        "{out}"
    );
    assert!(
        out.contains("warning: the pooled balanced accuracy is above every stratum's"),
        "{out}"
    );
    assert!(out.contains("within cnndm"), "{out}");
    // 4 sources of 3 answers: the clustered interval is Wilson (t, 3 df) on 4, not 12
    assert!(out.contains("clustered CI (4 clusters)"), "{out}");
    // the agreement figures too: 6 hallucinated answers from 3 sources, 6 faithful from 3
    assert!(
        out.contains("clustered CIs: recall [") && out.contains("(3 clusters)   specificity ["),
        "{out}"
    );
    let (_, json, _) = output(faithprobe_in(d.path()).args([
        "score",
        "log.jsonl",
        "--definition",
        "strict",
        "--stratify-by",
        "dataset",
        "--cluster-by",
        "source_id",
        "--format",
        "json",
    ]));
    let v: serde_json::Value = serde_json::from_str(json.lines().last().unwrap()).unwrap();
    let agg = &v["summary"][0];
    assert_eq!(agg["unsupported_answers"]["k"], 6, "{v}");
    let plain = agg["unsupported_answers"]["ci_high"].as_f64().unwrap()
        - agg["unsupported_answers"]["ci_low"].as_f64().unwrap();
    let clustered = agg["unsupported_answers_clustered"]["ci_high"]
        .as_f64()
        .unwrap()
        - agg["unsupported_answers_clustered"]["ci_low"]
            .as_f64()
            .unwrap();
    assert!(clustered > plain, "{plain} {clustered}");
    let agreement = &v["labels"]["by_definition"][0];
    assert_eq!(agreement["pooled_exceeds_every_stratum"], true);
    assert_eq!(agreement["by_stratum"]["xsum"]["tp"], 5);
}

#[test]
fn the_answer_rule_is_swept_and_tags_are_ranked_by_claims_as_well_as_answers() {
    // three generators answer about one council budget. The verbose one writes six claims and
    // paraphrases one fact in half its answers ("Bus riders will keep paying the same ticket
    // price."), which the lexical checker cannot match: under "any" it looks worst, though a
    // person found it the least hallucinated
    let d = tempfile::tempdir().unwrap();
    let passage = "The council approved a budget of $ 160 million on Tuesday. The vote was 7 to 2. The budget funds 40 new buses. Fares stay at $ 2.50. The mayor signed the budget on Wednesday. Work starts in March.";
    let facts = [
        "The council approved a budget of $ 160 million on Tuesday.",
        "The vote was 7 to 2.",
        "The budget funds 40 new buses.",
        "Fares stay at $ 2.50.",
        "The mayor signed the budget on Wednesday.",
        "Work starts in March.",
    ];
    let wrong = "The council approved a budget of $ 190 million on Tuesday.";
    let paraphrase = "Bus riders will keep paying the same ticket price.";
    // (tag, claims per answer, hallucinated answers, answers with the paraphrase)
    let mut log = String::new();
    for (tag, n, bad, para) in [
        ("terse", 1, 2, 0),
        ("medium", 3, 3, 0),
        ("verbose", 6, 1, 3),
    ] {
        for i in 0..6 {
            let mut claims: Vec<&str> = facts[..n].to_vec();
            let hallucinated = i < bad;
            if hallucinated {
                claims[0] = wrong;
            } else if i >= 6 - para {
                claims[n - 1] = paraphrase;
            }
            log.push_str(
                &serde_json::json!({
                    "id": format!("{tag}-{i}"),
                    "question": "What did the council decide?",
                    "answer": format!("Here is a summary: {}", claims.join(" ")),
                    "passages": [{"id": "minutes", "text": passage}],
                    "tag": tag,
                    "label": {"hallucinated": hallucinated, "types": []},
                })
                .to_string(),
            );
            log.push('\n');
        }
    }
    std::fs::write(d.path().join("log.jsonl"), log).unwrap();
    let (code, out, err) = output(faithprobe_in(d.path()).args([
        "score",
        "log.jsonl",
        "--definition",
        "strict",
        "--show",
        "none",
    ]));
    assert_eq!(code, 0, "{err}");
    for want in [
        "strict unsupported under each answer rule: any 9/18 0.50",
        "share:0.25 5/18 0.28",
        "share:0.5 2/18 0.11",
        "strict unsupported by answer length: 1 claim 2/6 0.33",
        "3-5 claims 3/6 0.50",
        "6+ claims 4/6 0.67",
        "balanced accuracy under each answer rule: any 0.88",
        "share:0.25 0.92",
        // labels 0.33, 0.50, 0.17; answers flagged 0.33, 0.50, 0.67; claims 0.33, 0.17, 0.11
        "Spearman's rho with the labels' hallucination rate -0.50 by unsupported answers, 0.50 by unsupported claims",
        "labelled hallucinated 1/6 0.17",
    ] {
        assert!(out.contains(want), "missing `{want}`:\n{out}");
    }
    // the rule decides what counts: under share:0.25 the verbose answers' false alarms go
    let (_, out, _) = output(faithprobe_in(d.path()).args([
        "score",
        "log.jsonl",
        "--definition",
        "strict",
        "--answer-rule",
        "share:0.25",
        "--show",
        "none",
    ]));
    assert!(
        out.contains("unsupported-answer rate (95% CI): gate on this   5/18"),
        "{out}"
    );
    let (code, _, err) =
        output(faithprobe_in(d.path()).args(["score", "log.jsonl", "--answer-rule", "share:1.5"]));
    assert_eq!(code, 2);
    assert!(err.contains("write `any` or `share:R`"), "{err}");
}

#[test]
fn merge_refuses_shards_whose_mutants_were_made_by_different_mutation_rules() {
    let d = tempfile::tempdir().unwrap();
    let fg = || faithprobe_in(d.path());
    // shard 2 was run with a rule folder that changes negation_flip
    let rules = d.path().join("rules");
    std::fs::create_dir(&rules).unwrap();
    std::fs::write(
        rules.join("negation_flip.yaml"),
        "# negation_flip: only one pair\npairs: [[\"is not\", \"is\"]]\n",
    )
    .unwrap();
    let larkspur = root().join("suites/larkspur.yaml");
    let larkspur = larkspur.to_str().unwrap();
    // r1: shard 1/2 with the built-in rules; r2: shard 2/2 with the folder; r3: 2/2 built in
    for (record, shard, folder) in [
        ("r1.json", "1/2", None),
        ("r2.json", "2/2", Some("rules")),
        ("r3.json", "2/2", None),
    ] {
        let mut args = vec![
            "run",
            larkspur,
            "--no-cache",
            "--record",
            record,
            "--shard",
            shard,
        ];
        if let Some(dir) = folder {
            args.extend(["--mutators", dir]);
        }
        let (code, _, err) = output(fg().args(&args));
        assert_eq!(code, 0, "{err}");
    }
    let v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.path().join("r1.json")).unwrap()).unwrap();
    let fingerprint = v["runs"][0]["rules_sha256"].as_str().unwrap().to_string();
    assert_eq!(fingerprint.len(), 32, "{fingerprint}");
    let (code, _, err) = output(fg().args(["merge", "r1.json", "r2.json", "--out", "m.json"]));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("r2.json")
            && err.contains("other mutation rules")
            && err.contains(&fingerprint),
        "{err}"
    );
    assert!(!d.path().join("m.json").exists());
    // the same rules merge, and the merged record keeps their fingerprint
    let (code, _, err) = output(fg().args(["merge", "r1.json", "r3.json", "--out", "m.json"]));
    assert_eq!(code, 0, "{err}");
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.path().join("m.json")).unwrap()).unwrap();
    assert_eq!(m["runs"][0]["rules_sha256"], fingerprint.as_str());
    // a version-3 record written before the fingerprint was kept still reads
    let mut old = m.clone();
    old["runs"][0]
        .as_object_mut()
        .unwrap()
        .remove("rules_sha256");
    std::fs::write(d.path().join("old.json"), old.to_string()).unwrap();
    let (code, _, err) = output(fg().args(["report", "old.json", "--out", "report"]));
    assert!(code == 0 || code == 1, "{err}");
}

#[test]
fn a_cluster_or_stratum_key_no_answer_carries_is_an_error_naming_the_keys_that_exist() {
    let d = tempfile::tempdir().unwrap();
    let log: String = (0..4)
        .map(|i| {
            serde_json::json!({
                "id": format!("a{i}"),
                "question": "How are Team plans billed?",
                "answer": "Sure! Team plans are billed monthly at €12 per user.",
                "passages": [{"id": "billing", "text": "Team plans are billed monthly at €12 per user."}],
                "source_id": format!("s{}", i % 2),
                "label": i == 0,
            })
            .to_string()
                + "\n"
        })
        .collect();
    std::fs::write(d.path().join("log.jsonl"), log).unwrap();
    let fg = || faithprobe_in(d.path());
    for flag in ["--cluster-by", "--stratify-by"] {
        let (code, out, err) = output(fg().args([
            "score",
            "log.jsonl",
            flag,
            "sourceid",
            "--record",
            "typo.json",
        ]));
        assert_eq!(code, 2, "{flag}: {out}{err}");
        assert!(
            err.contains(&format!("{flag} sourceid"))
                && err.contains("carries the key `sourceid`")
                && err.contains("source_id"),
            "{flag}: {err}"
        );
        assert!(!d.path().join("typo.json").exists(), "{flag}");
    }
    let (code, _, err) = output(fg().args(["score", "log.jsonl", "--record", "r.json"]));
    assert_eq!(code, 0, "{err}");
    for flag in ["--cluster-by", "--stratify-by"] {
        let (code, _, err) = output(fg().args(["compare", "r.json", "r.json", flag, "sourceid"]));
        assert_eq!(code, 2, "{flag}: {err}");
        assert!(
            err.contains("source_id") && err.contains("`sourceid`"),
            "{flag}: {err}"
        );
        let (code, _, err) = output(fg().args(["compare", "r.json", "r.json", flag, "source_id"]));
        // the key is known: a verdict, or none because too few answers are at risk, never 2
        assert!(matches!(code, 0 | 1 | 3), "{flag}: {err}");
    }
}

/// A log of port-authority summaries, some of them wrong, answers to 12 sources; `labelled` of
/// them carry a person's label in a side file.
fn port_log(d: &Path, answers: usize, labelled: usize) {
    let ctx = "The port authority said on Tuesday that container traffic rose 17 per cent in the first half of the year. Its chief executive, Maria Olsen, said the new crane terminal would open in March. The authority expects to hire 160 staff for the terminal.";
    let good = [
        "Here is a summary: container traffic rose 17 per cent in the first half of the year.",
        "Maria Olsen said the new crane terminal would open in March.",
        "The authority expects to hire 160 staff for the terminal.",
    ];
    let bad = [
        "Container traffic rose 70 per cent in the first half of the year.",
        "The terminal will cost $ 160 million to build.",
        "Maria Olsen said the terminal would open in May.",
    ];
    let (mut log, mut labels) = (String::new(), String::new());
    for i in 0..answers {
        let hallucinated = i % 10 < 3;
        let text = if hallucinated {
            bad[i % 3]
        } else {
            good[i % 3]
        };
        log.push_str(
            &serde_json::json!({"id": format!("a{i}"), "answer": text,
                "passages": [{"id": "p", "text": ctx}], "source": format!("s{}", i % 12)})
            .to_string(),
        );
        log.push('\n');
        if i < labelled {
            labels.push_str(
                &serde_json::json!({"id": format!("a{i}"), "hallucinated": hallucinated})
                    .to_string(),
            );
            labels.push('\n');
        }
    }
    std::fs::write(d.join("log.jsonl"), log).unwrap();
    std::fs::write(d.join("labels.jsonl"), labels).unwrap();
}

#[test]
fn labels_on_part_of_a_log_correct_its_rate_for_the_checkers_errors() {
    let d = tempfile::tempdir().unwrap();
    port_log(d.path(), 60, 20);
    let args = [
        "score",
        "log.jsonl",
        "--labels",
        "labels.jsonl",
        "--cluster-by",
        "source",
        "--show",
        "none",
    ];
    let (code, out, err) = output(faithprobe_in(d.path()).args(args));
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("corrected for the checker (prediction-powered)"),
        "{out}"
    );
    let (code, json, err) = output(
        faithprobe_in(d.path())
            .args(args)
            .args(["--format", "json"]),
    );
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    // the estimate is the checker's rate on the unlabelled answers plus the labelled answers'
    // mean of (label - flag), recomputed here from the answers themselves
    let (mut fu, mut nu, mut rect, mut nl) = (0.0, 0.0, 0.0, 0.0);
    for a in v["answers"].as_array().unwrap() {
        let flagged = a["claims"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["verdict"] != "supported");
        match a["label"]["hallucinated"].as_bool() {
            Some(y) => {
                rect += f64::from(u8::from(y)) - f64::from(u8::from(flagged));
                nl += 1.0;
            }
            None => {
                fu += f64::from(u8::from(flagged));
                nu += 1.0;
            }
        }
    }
    assert_eq!((nu, nl), (40.0, 20.0));
    let c = &v["summary"][0]["unsupported_answers_corrected"];
    let want = (fu / nu + rect / nl).clamp(0.0, 1.0);
    assert!(
        (c["estimate"].as_f64().unwrap() - want).abs() < 1e-12,
        "{c}"
    );
    assert!(c["ci_low"].as_f64().unwrap() <= want && want <= c["ci_high"].as_f64().unwrap());
    // the observed rate undercounts the 30% this log really has: the correction moves towards it
    let observed = c["observed"].as_f64().unwrap();
    assert!(observed < want, "{c}");
}

#[test]
fn a_suite_run_with_real_errors_corrects_the_claim_rate() {
    let d = tempfile::tempdir().unwrap();
    port_log(d.path(), 60, 0);
    let suite = root().join("tests/fixtures/real-errors.yaml");
    let (code, _, err) = output(faithprobe_in(d.path()).args([
        "run",
        suite.to_str().unwrap(),
        "--record",
        "rec.json",
    ]));
    assert_eq!(code, 0, "{err}");
    let (code, json, err) = output(faithprobe_in(d.path()).args([
        "score",
        "log.jsonl",
        "--correct-with",
        "rec.json",
        "--format",
        "json",
    ]));
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    // sensitivity on the real errors, specificity on verified claims and supported hard cases,
    // recomputed from the record
    let rec: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.path().join("rec.json")).unwrap()).unwrap();
    let (mut caught, mut errors, mut passed, mut faithful) = (0.0, 0.0, 0.0, 0.0);
    for c in rec["runs"][0]["cases"].as_array().unwrap() {
        let flagged = c["verdict"] != "supported";
        if c["real"] == true && c["expected"] != "supported" {
            errors += 1.0;
            caught += f64::from(u8::from(flagged));
        } else if (c["kind"] == "original" || c["kind"] == "hard_case")
            && c["expected"] == "supported"
        {
            faithful += 1.0;
            passed += f64::from(u8::from(!flagged));
        }
    }
    let a = &v["summary"][0];
    let c = &a["unsupported_claims_corrected"];
    let (se, sp) = (caught / errors, passed / faithful);
    assert!(
        (c["sensitivity"].as_f64().unwrap() - se).abs() < 1e-12,
        "{c}"
    );
    assert!(
        (c["specificity"].as_f64().unwrap() - sp).abs() < 1e-12,
        "{c}"
    );
    let obs = a["unsupported_claims"]["rate"].as_f64().unwrap();
    let want = ((obs + sp - 1.0) / (se + sp - 1.0)).clamp(0.0, 1.0);
    assert!(
        (c["estimate"].as_f64().unwrap() - want).abs() < 1e-12,
        "{c}"
    );
    assert_eq!(c["method"], "rogan_gladen");
}

#[test]
fn a_record_that_cannot_calibrate_the_checker_is_refused_with_steps_that_work() {
    let d = tempfile::tempdir().unwrap();
    port_log(d.path(), 60, 0);
    let suite = root().join("tests/fixtures/real-errors.yaml");
    let (code, _, err) = output(faithprobe_in(d.path()).args([
        "run",
        suite.to_str().unwrap(),
        "--record",
        "rec.json",
    ]));
    assert_eq!(code, 0, "{err}");
    // refused: a suite file, a record of mutants only, a record of other settings
    let (code, _, err) = output(faithprobe_in(d.path()).args([
        "score",
        "log.jsonl",
        "--correct-with",
        suite.to_str().unwrap(),
    ]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("not a run record"), "{err}");
    let larkspur = root().join("suites/larkspur.yaml");
    let (code, _, err) = output(faithprobe_in(d.path()).args([
        "run",
        larkspur.to_str().unwrap(),
        "--record",
        "lark.json",
    ]));
    assert_eq!(code, 0, "{err}");
    let (code, _, err) =
        output(faithprobe_in(d.path()).args(["score", "log.jsonl", "--correct-with", "lark.json"]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no scored real errors"), "{err}");
    // the steps it prints work as printed
    assert!(
        err.contains("faithprobe import ragtruth DIR --log LOG.jsonl --hard-cases SUITE.yaml"),
        "{err}"
    );
    let rt = root().join("tests/fixtures/ragtruth");
    for step in [
        vec![
            "import",
            "ragtruth",
            rt.to_str().unwrap(),
            "--log",
            "rt.jsonl",
            "--hard-cases",
            "rt.yaml",
        ],
        vec!["run", "rt.yaml", "--record", "RUN.json"],
        vec!["score", "log.jsonl", "--correct-with", "RUN.json"],
    ] {
        let (code, _, err) = output(faithprobe_in(d.path()).args(&step));
        assert_eq!(code, 0, "{step:?}: {err}");
    }
    std::fs::write(
        d.path().join("faithprobe.yaml"),
        "checkers:\n  lexical: {kind: lexical, threshold: 0.9}\n",
    )
    .unwrap();
    let (code, _, err) =
        output(faithprobe_in(d.path()).args(["score", "log.jsonl", "--correct-with", "rec.json"]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("other settings"), "{err}");
}
