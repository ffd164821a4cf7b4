//! `faithprobe import` of public real-error data sets (FaithBench, LLM-AggreFact, HaluEval,
//! QAGS' sentence-labelled summaries, RAGTruth) on small fixtures written in their formats: what
//! each makes, that the suite runs and the log scores with agreement figures as the printed
//! `next:` commands say, and that a malformed record is named by file and line with nothing
//! written.

use crate::common::{faithprobe_in, output, root};
use faithprobe::io::yaml::Value;
use std::path::Path;

fn fixture(rel: &str) -> String {
    root()
        .join("tests/fixtures")
        .join(rel)
        .to_str()
        .unwrap()
        .to_string()
}

/// Runs `faithprobe import ARGS` in `dir`; returns (exit code, stderr).
fn import(dir: &Path, args: &[&str]) -> (i32, String) {
    let mut all = vec!["import"];
    all.extend_from_slice(args);
    let (code, _, err) = output(faithprobe_in(dir).args(&all));
    (code, err)
}

/// The `next:` commands an import printed, as argument lists (without `faithprobe`).
fn next_commands(stderr: &str) -> Vec<Vec<String>> {
    stderr
        .lines()
        .filter_map(|l| l.strip_prefix("next: faithprobe "))
        .map(|c| c.split_whitespace().map(str::to_string).collect())
        .collect()
}

/// Runs every printed `next:` command in `dir`: each must succeed; returns their stdouts.
fn run_next(dir: &Path, stderr: &str) -> Vec<String> {
    let cmds = next_commands(stderr);
    assert!(!cmds.is_empty(), "no next command in {stderr}");
    cmds.iter()
        .map(|c| {
            let (code, out, err) = output(faithprobe_in(dir).args(c).arg("--no-cache"));
            assert_eq!(code, 0, "{c:?}: {err}");
            out
        })
        .collect()
}

fn yaml(dir: &Path, name: &str) -> Value {
    crate::common::parse_yaml(&std::fs::read_to_string(dir.join(name)).unwrap())
}

fn log_lines(dir: &Path, name: &str) -> Vec<serde_json::Value> {
    std::fs::read_to_string(dir.join(name))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Every hard case of a suite as (id, type, label).
fn hard_cases(suite: &Value) -> Vec<(String, String, String)> {
    let s = |v: &Value| v.as_str().unwrap().to_string();
    suite["contexts"]
        .as_sequence()
        .unwrap()
        .iter()
        .flat_map(|c| c["hard_cases"].as_sequence().cloned().unwrap_or_default())
        .map(|h| (s(&h["id"]), s(&h["type"]), s(&h["label"])))
        .collect()
}

/// `score LOG --contexts CTX --format json`: the labels' agreement block.
fn agreement(dir: &Path, log: &str) -> serde_json::Value {
    let (code, json, err) = output(faithprobe_in(dir).args([
        "score",
        log,
        "--contexts",
        &log.replace(".jsonl", ".contexts.jsonl"),
        "--format",
        "json",
        "--no-cache",
    ]));
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    v["labels"].clone()
}

#[test]
fn faithbench_worst_pooling_makes_verified_claims_and_real_errors_that_run_and_score() {
    let d = tempfile::tempdir().unwrap();
    let batch = fixture("faithbench/batch_1.json");
    let (code, err) = import(
        d.path(),
        &[
            "faithbench",
            &batch,
            "--suite",
            "s.yaml",
            "--log",
            "l.jsonl",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("imported 6 answers (4 labelled hallucinated) over 2 sources"),
        "{err}"
    );
    assert!(
        err.contains("4 verified claims, 3 real errors in 2 contexts: s.yaml"),
        "{err}"
    );
    assert!(
        err.contains("2 labelled sentence(s) are neither verified nor an error"),
        "{err}"
    );
    let suite = yaml(d.path(), "s.yaml");
    assert_eq!(suite["hard_case_source"].as_str(), Some("real"));
    let hard = hard_cases(&suite);
    let want = [
        ("batch_1-1-s2", "faithbench_unwanted_extrinsic", "not_found"),
        (
            "batch_1-2-s2",
            "faithbench_unwanted_intrinsic",
            "contradicted",
        ),
        ("batch_1-5-s1", "faithbench_unwanted", "not_found"),
    ];
    let want: Vec<(String, String, String)> = want
        .iter()
        .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
        .collect();
    assert_eq!(hard, want);
    // the framing sentence of sample 2 is no claim; the context is the source as given
    let ctx = &suite["contexts"][0];
    assert!(ctx["passages"][0]["text"]
        .as_str()
        .unwrap()
        .starts_with("Harbor Line ferry . The Harbor Line ferry carried 412,000"));
    let log = log_lines(d.path(), "l.jsonl");
    assert_eq!(log[1]["tag"], "meta-llama/Meta-Llama-3.1-8B-Instruct");
    assert_eq!(log[1]["label"]["pooled"], "Unwanted");
    assert_eq!(log[1]["label"]["types"][0], "Unwanted.Extrinsic");
    assert_eq!(log[3]["label"]["pooled"], "Questionable");
    assert_eq!(log[3]["label"]["hallucinated"], true);
    assert_eq!(log[0]["sample_id"], 0);
    assert_eq!(log[0]["metadata"]["raw_sample_id"], 21);
    // the printed next commands work: the suite runs with the default lexical checker, the log
    // scores with agreement figures
    let outs = run_next(d.path(), &err);
    assert!(
        outs[0].contains("4 verified claims, 3 hard cases"),
        "{}",
        outs[0]
    );
    assert!(
        outs[1].contains("Agreement with the labels (6 labelled answers scored, 4 hallucinated"),
        "{}",
        outs[1]
    );
    let labels = agreement(d.path(), "l.jsonl");
    assert_eq!(labels["labelled"], 6);
    assert_eq!(labels["hallucinated"], 4);
    assert!(labels["by_definition"][0]["all"]["balanced_accuracy"]["value"].is_number());
}

#[test]
fn faithbench_best_pooling_takes_the_least_severe_label_given() {
    let d = tempfile::tempdir().unwrap();
    let batch = fixture("faithbench/batch_1.json");
    let (code, err) = import(
        d.path(),
        &[
            "faithbench",
            &batch,
            "--pool",
            "best",
            "--suite",
            "s.yaml",
            "--log",
            "l.jsonl",
        ],
    );
    assert_eq!(code, 0, "{err}");
    // sample 1's Unwanted and Benign marks pool to Benign: not hallucinated, its unmarked
    // sentence verified, its marked one left out
    assert!(
        err.contains("imported 6 answers (3 labelled hallucinated)"),
        "{err}"
    );
    assert!(
        err.contains("5 verified claims, 2 real errors in 2 contexts"),
        "{err}"
    );
    let log = log_lines(d.path(), "l.jsonl");
    assert_eq!(log[1]["label"]["pooled"], "Benign");
    assert_eq!(log[1]["label"]["pool"], "best");
    let ids: Vec<String> = hard_cases(&yaml(d.path(), "s.yaml"))
        .into_iter()
        .map(|h| h.0)
        .collect();
    assert_eq!(ids, ["batch_1-2-s2", "batch_1-5-s1"]);
    run_next(d.path(), &err);
}

#[test]
fn a_raw_faithbench_annotation_list_imports_with_the_authors_spelling() {
    let d = tempfile::tempdir().unwrap();
    let raw = fixture("faithbench/batch_2_annotation.json");
    let (code, err) = import(
        d.path(),
        &["faithbench", &raw, "--suite", "s.yaml", "--log", "l.jsonl"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("1 verified claims, 1 real errors in 1 contexts"),
        "{err}"
    );
    let hard = hard_cases(&yaml(d.path(), "s.yaml"));
    assert_eq!(hard[0].1, "faithbench_unwanted_intrinsic");
    assert_eq!(hard[0].2, "contradicted");
    let log = log_lines(d.path(), "l.jsonl");
    assert_eq!(log[1]["tag"], "microsoft/Phi-3-mini-4k-instruct");
    assert_eq!(log[1]["label"]["types"][0], "Unwanted.Intrinsic");
    assert_eq!(log[1]["meta_sample_id"], 155);
    run_next(d.path(), &err);
}

#[test]
fn aggrefact_rows_share_a_context_per_document_and_csv_reads_as_json_lines_do() {
    let d = tempfile::tempdir().unwrap();
    let (code, err) = import(
        d.path(),
        &[
            "aggrefact",
            &fixture("aggrefact/test.jsonl"),
            "--suite",
            "s.yaml",
            "--log",
            "l.jsonl",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("imported 6 answers (3 labelled hallucinated) over 2 sources"),
        "{err}"
    );
    assert!(
        err.contains("3 verified claims, 3 real errors in 2 contexts"),
        "{err}"
    );
    let suite = yaml(d.path(), "s.yaml");
    assert!(hard_cases(&suite)
        .iter()
        .all(|h| h.1 == "aggrefact_unsupported" && h.2 == "not_found"));
    // rows of two data sets over one document: one context
    assert_eq!(
        suite["contexts"][0]["hard_cases"][1]["id"].as_str(),
        Some("expertqa-4")
    );
    let log = log_lines(d.path(), "l.jsonl");
    assert_eq!(log[0]["tag"], "AggreFact-CNN");
    assert_eq!(log[3]["context"], log[0]["context"]);
    assert_eq!(log[1]["label"]["hallucinated"], true);
    let outs = run_next(d.path(), &err);
    assert!(outs[1].contains("Agreement with the labels"), "{}", outs[1]);
    let labels = agreement(d.path(), "l.jsonl");
    assert_eq!(
        (labels["labelled"].as_u64(), labels["hallucinated"].as_u64()),
        (Some(6), Some(3))
    );

    // the same rows as CSV (pandas' unnamed index column, quoted fields with quotes, commas and
    // a line break) give the same log and suite contexts
    let (code, err) = import(
        d.path(),
        &[
            "aggrefact",
            &fixture("aggrefact/test.csv"),
            "--suite",
            "c.yaml",
            "--log",
            "c.jsonl",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(yaml(d.path(), "c.yaml")["contexts"], suite["contexts"]);
    assert_eq!(log_lines(d.path(), "c.jsonl"), log);
    assert_eq!(
        std::fs::read(d.path().join("c.contexts.jsonl")).unwrap(),
        std::fs::read(d.path().join("l.contexts.jsonl")).unwrap()
    );
}

#[test]
fn halueval_right_outputs_are_verified_and_hallucinated_ones_real_errors() {
    let d = tempfile::tempdir().unwrap();
    let (code, err) = import(
        d.path(),
        &[
            "halueval",
            &fixture("halueval/qa_data.json"),
            "--suite",
            "s.yaml",
            "--log",
            "l.jsonl",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("imported 6 answers (3 labelled hallucinated) over 3 sources"),
        "{err}"
    );
    assert!(
        err.contains("3 verified claims, 3 real errors in 3 contexts"),
        "{err}"
    );
    let suite = yaml(d.path(), "s.yaml");
    let ctx = &suite["contexts"][0];
    assert!(ctx["question"]
        .as_str()
        .unwrap()
        .starts_with("Who was the first director"));
    assert_eq!(ctx["faithful"][0]["id"].as_str(), Some("qa-1-right"));
    assert_eq!(ctx["faithful"][0]["claim"].as_str(), Some("Ilse Markgraf"));
    assert_eq!(
        hard_cases(&suite)[0],
        (
            "qa-1-hallucinated".to_string(),
            "halueval_hallucinated".to_string(),
            "not_found".to_string()
        )
    );
    let log = log_lines(d.path(), "l.jsonl");
    assert_eq!(log[0]["id"], "qa-1-right");
    assert_eq!(log[1]["label"]["hallucinated"], true);
    assert_eq!(log[0]["tag"], "qa");
    let outs = run_next(d.path(), &err);
    assert!(outs[1].contains("Agreement with the labels"), "{}", outs[1]);
    // a bare "1923" is no claim for the sentence decomposer: that answer is labelled, not scored
    assert_eq!(agreement(d.path(), "l.jsonl")["labelled"], 5);

    // the dialogue and summarization files' keys
    for (file, question) in [
        ("halueval/dialogue_data.json", true),
        ("halueval/summarization_data.json", false),
    ] {
        let (code, err) = import(d.path(), &["halueval", &fixture(file), "--suite", "t.yaml"]);
        assert_eq!(code, 0, "{file}: {err}");
        assert!(
            err.contains("1 verified claims, 1 real errors in 1 contexts"),
            "{err}"
        );
        let t = yaml(d.path(), "t.yaml");
        assert_eq!(t["contexts"][0]["question"].is_string(), question, "{file}");
        run_next(d.path(), &err);
    }
}

#[test]
fn sentence_votes_become_labels_by_majority_or_unanimity_and_a_tie_is_unsupported() {
    let d = tempfile::tempdir().unwrap();
    let file = fixture("qags/mturk_sample.jsonl");
    let (code, err) = import(
        d.path(),
        &["sentences", &file, "--suite", "s.yaml", "--log", "l.jsonl"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("imported 4 answers (2 labelled hallucinated) over 4 sources"),
        "{err}"
    );
    assert!(
        err.contains("3 verified claims, 2 real errors in 4 contexts"),
        "{err}"
    );
    assert!(
        err.contains("1 sentence(s) had as many yes as no votes: unsupported"),
        "{err}"
    );
    let ids: Vec<String> = hard_cases(&yaml(d.path(), "s.yaml"))
        .into_iter()
        .map(|h| {
            assert_eq!(
                (h.1.as_str(), h.2.as_str()),
                ("qags_unsupported", "not_found")
            );
            h.0
        })
        .collect();
    assert_eq!(ids, ["qags-mturk_sample-2-s1", "qags-mturk_sample-3-s2"]);
    let log = log_lines(d.path(), "l.jsonl");
    assert_eq!(log[2]["label"]["sentences"][1]["yes"], 1);
    assert_eq!(log[2]["label"]["sentences"][1]["supported"], false);
    let outs = run_next(d.path(), &err);
    assert!(outs[1].contains("Agreement with the labels"), "{}", outs[1]);
    assert_eq!(agreement(d.path(), "l.jsonl")["hallucinated"], 2);

    // unanimous: the 2-of-3 sentence of line 1 is unsupported too
    let (code, err) = import(
        d.path(),
        &[
            "sentences",
            &file,
            "--rule",
            "unanimous",
            "--suite",
            "u.yaml",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("2 verified claims, 3 real errors in 4 contexts"),
        "{err}"
    );
    assert!(!err.contains("as many yes as no"), "{err}");
    run_next(d.path(), &err);
}

#[test]
fn the_ragtruth_suite_marks_its_hard_cases_real() {
    let d = tempfile::tempdir().unwrap();
    let (code, err) = import(
        d.path(),
        &[
            "ragtruth",
            &fixture("ragtruth"),
            "--log",
            "l.jsonl",
            "--hard-cases",
            "s.yaml",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("8 verified claims, 5 real errors in 3 contexts: s.yaml"),
        "{err}"
    );
    assert_eq!(
        yaml(d.path(), "s.yaml")["hard_case_source"].as_str(),
        Some("real")
    );
    let outs = run_next(d.path(), &err);
    assert!(
        outs[0].contains("8 verified claims, 5 hard cases"),
        "{}",
        outs[0]
    );
}

/// Each importer with one malformed record on a known line: (subcommand, file name, content,
/// the line, what the message says).
const MALFORMED: &[(&str, &str, &str, usize, &str)] = &[
    (
        "faithbench",
        "batch_9.json",
        "{\"samples\": [\n  {\"sample_id\": 0, \"source\": \"S.\", \"summary\": \"S.\", \"annotations\": []},\n  {\"sample_id\": 1, \"source\": \"S.\", \"summary\": \"T.\",\n   \"annotations\": [{\"label\": [\"Awful\"], \"summary_start\": 0, \"summary_end\": 1}]}\n]}\n",
        3,
        "unknown label `Awful`",
    ),
    (
        "faithbench",
        "batch_8.json",
        "[\n  {\"sample_id\": 0, \"source\": \"S.\", \"summary\": \"S.\"},\n  {\"sample_id\": 1, \"source\": \"S.\" \"summary\": \"T.\"}\n]\n",
        3,
        "not JSON",
    ),
    (
        "aggrefact",
        "rows.jsonl",
        "{\"dataset\": \"Wice\", \"doc\": \"D.\", \"claim\": \"C.\", \"label\": 1}\n{\"dataset\": \"Wice\", \"doc\": \"D.\", \"claim\": \"E.\", \"label\": \"maybe\"}\n",
        2,
        "`label` must be 1 (supported) or 0 (unsupported)",
    ),
    (
        "aggrefact",
        "rows.csv",
        "dataset,doc,claim,label\nWice,D.,C.,1\nWice,\"D.\nstill the doc\",E.\n",
        3,
        "this record has 3 fields, the header has 4",
    ),
    (
        "halueval",
        "qa_data.json",
        "{\"knowledge\": \"K.\", \"question\": \"Q?\", \"right_answer\": \"R\", \"hallucinated_answer\": \"H\"}\n{\"knowledge\": \"K.\", \"right_answer\": \"R\", \"hallucinated_answer\": \"H\"}\n",
        2,
        "`question` is missing",
    ),
    (
        "sentences",
        "mturk.jsonl",
        "{\"article\": \"A.\", \"summary_sentences\": [{\"sentence\": \"A.\", \"responses\": [{\"worker_id\": 1, \"response\": \"yes\"}]}]}\nnot json\n",
        2,
        "not JSON",
    ),
];

#[test]
fn a_malformed_record_is_named_by_file_and_line_and_nothing_is_written() {
    for (cmd, name, content, line, what) in MALFORMED {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join(name), content).unwrap();
        let (code, err) = import(
            d.path(),
            &[cmd, name, "--suite", "s.yaml", "--log", "l.jsonl"],
        );
        assert_eq!(code, 2, "{cmd} {name}: {err}");
        assert!(
            err.contains(&format!("{name}:{line}:")),
            "{cmd} {name}: {err}"
        );
        assert!(err.contains(what), "{cmd} {name}: {err}");
        let left: Vec<String> = std::fs::read_dir(d.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(left, [name.to_string()], "{cmd} {name} wrote something");
    }
}

#[test]
fn an_empty_file_or_an_output_over_the_input_is_refused_and_nothing_is_written() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("empty.jsonl"), "\n\n").unwrap();
    let (code, err) = import(d.path(), &["halueval", "empty.jsonl", "--suite", "s.yaml"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("there is no record to import"), "{err}");
    let rows = "{\"dataset\": \"Wice\", \"doc\": \"D.\", \"claim\": \"C.\", \"label\": 1}\n";
    std::fs::write(d.path().join("rows.jsonl"), rows).unwrap();
    for args in [
        vec!["aggrefact", "rows.jsonl", "--log", "./rows.jsonl"],
        vec![
            "aggrefact",
            "rows.jsonl",
            "--suite",
            "s.yaml",
            "--log",
            "l.jsonl",
            "--contexts",
            "rows.jsonl",
        ],
        vec![
            "aggrefact",
            "rows.jsonl",
            "--suite",
            "x.jsonl",
            "--log",
            "x.jsonl",
        ],
    ] {
        let (code, err) = import(d.path(), &args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(
            err.contains("would destroy an input") || err.contains("are the same file"),
            "{args:?}: {err}"
        );
    }
    // neither a suite nor a log asked for
    let (code, err) = import(d.path(), &["aggrefact", "rows.jsonl"]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(
        std::fs::read_to_string(d.path().join("rows.jsonl")).unwrap(),
        rows
    );
    assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 2);
}
