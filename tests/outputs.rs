//! Every command's output as a person or a machine reads it, pinned by insta snapshots: a change
//! to any renderer shows up as a reviewed diff. Temp folders are redacted; nothing else varies
//! (timings go to stderr).

use crate::common::{faithprobe, faithprobe_in, output, root, stdout_of, stdout_with};
use std::path::Path;

mod hostile;

/// Snapshots `text` with temp-folder paths replaced by `[TMP]`.
macro_rules! snap {
    ($name:expr, $text:expr) => {
        insta::with_settings!({filters => vec![
            (r"/tmp/[^/\s]+", "[TMP]"),
            (r"\.tmp[A-Za-z0-9]+", "[TMP]"),
        ]}, {
            insta::assert_snapshot!($name, $text);
        })
    };
}

const LARKSPUR: &str = "suites/larkspur.yaml";
const CLINIC: &str = "tests/fixtures/clinic.yaml";

#[test]
fn run_in_every_format() {
    snap!(
        "run_json",
        stdout_of(&["run", LARKSPUR, "--format", "json"])
    );
    snap!(
        "run_markdown",
        stdout_of(&["run", LARKSPUR, "--format", "markdown"])
    );
    snap!(
        "run_junit",
        stdout_of(&["run", LARKSPUR, "--format", "junit"])
    );
    // a suite nobody reviewed yet: the provisional rate, labelled as such
    snap!("run_unreviewed_human", stdout_of(&["run", CLINIC]));
}

/// A base record of Larkspur and a candidate that newly misses one entity swap.
fn records(dir: &Path) -> (String, String) {
    let base = dir.join("base.json");
    let cand = dir.join("cand.json");
    let (c, _, err) =
        output(faithprobe().args(["run", LARKSPUR, "--record", base.to_str().unwrap()]));
    assert_eq!(c, 0, "{err}");
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&base).unwrap()).unwrap();
    for case in v["runs"][0]["cases"].as_array_mut().unwrap() {
        if case["id"] == "m-c96bcca3cf7684fe" {
            case["outcome"] = "missed".into();
            case["verdict"] = "supported".into();
            case["score"] = 0.97.into();
        }
    }
    std::fs::write(&cand, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    (
        base.to_str().unwrap().to_string(),
        cand.to_str().unwrap().to_string(),
    )
}

#[test]
fn compare_in_every_format() {
    let d = tempfile::tempdir().unwrap();
    let (b, c) = records(d.path());
    // the default gate is statistical: Larkspur is one context, so nothing can be significant:
    // no verdict, and the report says what would be needed
    snap!(
        "compare_human_default",
        stdout_with(3, &["compare", &b, &c])
    );
    // with the zero-tolerance rules on, the newly missed fault fails it
    let rules = ["--max-new-misses", "0", "--max-new-false-alarms", "0"];
    snap!(
        "compare_human",
        stdout_with(1, &[&["compare", &b, &c][..], &rules].concat())
    );
    snap!(
        "compare_markdown",
        stdout_with(
            1,
            &[&["compare", &b, &c, "--format", "markdown"][..], &rules].concat()
        )
    );
    snap!(
        "compare_junit",
        stdout_with(
            1,
            &[&["compare", &b, &c, "--format", "junit"][..], &rules].concat()
        )
    );
    snap!(
        "compare_json",
        stdout_with(
            1,
            &[&["compare", &b, &c, "--format", "json"][..], &rules].concat()
        )
    );
}

#[test]
fn sweep_in_every_format() {
    let args = ["sweep", LARKSPUR, "--max-false-alarm", "0.3"];
    let human = stdout_of(&args);
    // the table fits a 100-column terminal (the findings below it are prose)
    for line in human.lines().filter(|l| l.starts_with("  ")) {
        assert!(
            line.chars().count() <= 100,
            "{} columns: {line}",
            line.chars().count()
        );
    }
    snap!("sweep_human", human);
    snap!(
        "sweep_markdown",
        stdout_of(&[&args[..], &["--format", "markdown"]].concat())
    );
    snap!(
        "sweep_json",
        stdout_of(&[&args[..], &["--format", "json"]].concat())
    );
}

#[test]
fn the_audit_report_markdown() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().join("audit");
    stdout_of(&["report", LARKSPUR, CLINIC, "--out", dir.to_str().unwrap()]);
    snap!(
        "report_markdown",
        std::fs::read_to_string(dir.join("report.md")).unwrap()
    );
}

#[test]
fn mutants_in_every_format() {
    snap!("mutants_human", stdout_of(&["mutants", CLINIC]));
    snap!(
        "mutants_yaml",
        stdout_of(&["mutants", CLINIC, "--format", "yaml"])
    );
    snap!(
        "mutants_json",
        stdout_of(&["mutants", CLINIC, "--format", "json"])
    );
}

#[test]
fn score_in_every_format() {
    let log = "tests/fixtures/answers.jsonl";
    let args = [
        "score",
        log,
        "--definition",
        "strict",
        "--definition",
        "non-contradiction",
    ];
    snap!("score_human", stdout_of(&args));
    snap!(
        "score_markdown",
        stdout_of(&[&args[..], &["--format", "markdown"]].concat())
    );
    snap!(
        "score_json",
        stdout_of(&[&args[..], &["--format", "json"]].concat())
    );
}

#[test]
fn decompose_eval_check_and_stats() {
    snap!(
        "decompose_eval_human",
        stdout_of(&["decompose-eval", "tests/fixtures/hand-decomposition.yaml"])
    );
    snap!(
        "decompose_eval_json",
        stdout_of(&[
            "decompose-eval",
            "tests/fixtures/hand-decomposition.yaml",
            "--format",
            "json"
        ])
    );
    snap!(
        "check_lexical",
        stdout_of(&[
            "check",
            "--premise",
            "Team plans are billed monthly.",
            "--claim",
            "Team plans are billed yearly.",
        ])
    );
    let stats = [
        stdout_of(&["stats", "wilson", "9", "9"]),
        stdout_of(&["stats", "mcnemar", "18", "7"]),
        stdout_of(&["stats", "sample-size", "--rate", "0.9", "--margin", "0.05"]),
    ]
    .concat();
    snap!("stats", stats);
}

#[test]
fn doctor_reports_every_problem_of_a_broken_config_and_still_runs() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("faithprobe.yaml"),
        "checkers:\n  judge:\n    kind: judge\n    base_url: http://127.0.0.1:9/v1\n    model: m\n    api_key_env: FAITHPROBE_TEST_UNSET_KEY\n    prompt: missing.md\n  strict: {kind: lexical, threshold: 0.9}\n",
    )
    .unwrap();
    let (code, stdout, err) = output(
        faithprobe_in(d.path())
            .env_remove("FAITHPROBE_TEST_UNSET_KEY")
            .arg("doctor"),
    );
    assert_eq!(code, 2, "{err}");
    // the runtime line depends on the machine
    let text: String = stdout
        .lines()
        .filter(|l| !l.starts_with("onnx runtime:") && !l.starts_with("  execution providers:"))
        .map(|l| format!("{l}\n"))
        .collect();
    snap!("doctor_broken_config", text);
    // and the unused broken judge stops neither stats nor a run of another checker
    let (code, _, err) = output(faithprobe_in(d.path()).args(["stats", "wilson", "1", "2"]));
    assert_eq!(code, 0, "{err}");
    let suite = root().join(LARKSPUR);
    let (code, _, err) = output(faithprobe_in(d.path()).args([
        "run",
        suite.to_str().unwrap(),
        "--checker",
        "strict",
    ]));
    assert_eq!(code, 0, "{err}");
}

#[test]
fn snapshot_accept_lists_what_it_promoted() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().join("snaps");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("a.lexical.snap.new"), "new").unwrap();
    std::fs::write(dir.join("a.lexical.snap"), "old").unwrap();
    let text = stdout_of(&["snapshot", "accept", dir.to_str().unwrap()]);
    assert_eq!(
        std::fs::read_to_string(dir.join("a.lexical.snap")).unwrap(),
        "new"
    );
    snap!("snapshot_accept", text);
    snap!(
        "snapshot_accept_nothing",
        stdout_of(&["snapshot", "accept", dir.to_str().unwrap()])
    );
}
