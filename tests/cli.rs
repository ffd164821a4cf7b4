//! End-to-end tests of the `faithprobe` binary.

use crate::common;

use crate::common::{faithprobe, plain, root, stdout_of};
use predicates::prelude::*;
use std::path::Path;

#[test]
fn the_larkspur_table_reads_as_the_seed_describes() {
    let out = stdout_of(&["run", "suites/larkspur.yaml"]);
    assert!(
        // the seed's 26 edits less one (dropping f07's limit gives exactly hard case h06), all
        // reviewed, and 7 edits of the newer operators nobody has reviewed (added details come
        // from the suite's other contexts now, never the boilerplate "according to internal
        // figures"; a conflation and an invented modifier since)
        out.contains("32 mutants (23 faults, 2 equivalent, 7 unreviewed)"),
        "{out}"
    );
    // faithful cases: 12 verified claims and 4 hard cases labelled supported (h02 and h09 flagged)
    assert!(
        out.contains("2/16  rate 0.12  95% CI [0.03, 0.36]"),
        "{out}"
    );
    // all faults: 23 reviewed mutants and 6 hard cases labelled otherwise
    assert!(
        out.contains("all faults (mix: pooled)   24/29   0.83"),
        "{out}"
    );
    insta::assert_snapshot!("larkspur_lexical_human", out);
}

#[test]
fn the_audit_logs_table_reports_operators_without_mutants() {
    let out = stdout_of(&["run", "suites/audit-logs.yaml"]);
    assert!(
        out.contains("number_swap              no mutants on this suite"),
        "{out}"
    );
    insta::assert_snapshot!("audit_logs_lexical_human", out);
}

#[test]
fn json_output_has_cases_and_summary_with_intervals() {
    let out = stdout_of(&["run", "suites/larkspur.yaml", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let cases = v["cases"].as_array().unwrap();
    assert_eq!(cases.len(), common::LARKSPUR_CASES);
    let mutants = cases.iter().filter(|c| c["kind"] == "mutant").count();
    assert_eq!(mutants, 32);
    let equivalent = cases.iter().filter(|c| c["review"] == "equivalent").count();
    assert_eq!(equivalent, 2);
    // the record's typed row: every key a record case has is in the JSON case
    for c in cases {
        for key in [
            "id",
            "kind",
            "claim",
            "expected",
            "verdict",
            "score",
            "evidence_passage",
            "evidence_window",
            "outcome",
            "role",
            "reason",
        ] {
            assert!(c.get(key).is_some(), "case lacks {key}: {c}");
        }
    }
    let fa = &v["summary"]["false_alarms"];
    assert_eq!((fa["k"].as_u64(), fa["n"].as_u64()), (Some(2), Some(16)));
    let types = v["summary"]["fault_types"].as_array().unwrap();
    let n: Vec<(String, u64)> = types
        .iter()
        .map(|t| {
            (
                t["fault_type"].as_str().unwrap().to_string(),
                t["n"].as_u64().unwrap(),
            )
        })
        .collect();
    // the newer operators' mutants are unreviewed on this suite: rows with nothing scored yet
    let want: Vec<(String, u64)> = [
        ("number_swap", 6),
        ("negation_flip", 9),
        ("attribution_swap", 0),
        ("entity_swap", 9),
        ("pronoun_swap", 0),
        ("role_reversal", 0),
        ("dropped_condition", 2),
        ("dropped_qualifier", 0),
        ("added_detail", 0),
        ("predicate_shift", 0),
        ("date_shift", 0),
        ("relative_date", 0),
        ("hedge_drop", 0),
        ("quantifier_shift", 0),
        ("link_swap", 0),
        ("conflation", 0),
        ("name_part", 0),
        ("added_fact", 1),
        ("derived_number_wrong", 1),
        ("two_facts_one_wrong", 1),
    ]
    .iter()
    .map(|(t, n)| (t.to_string(), *n))
    .collect();
    assert_eq!(n, want, "reviewed mutants plus hard cases per fault type");
    assert_eq!(v["summary"]["all_faults"]["n"].as_u64(), Some(29));
    for t in types {
        for key in ["fault_type", "k", "n", "rate", "ci_low", "ci_high"] {
            assert!(t.get(key).is_some(), "fault type lacks {key}: {t}");
        }
    }
}

#[test]
fn two_suites_give_two_json_lines() {
    let out = stdout_of(&[
        "run",
        "suites/larkspur.yaml",
        "suites/audit-logs.yaml",
        "--format",
        "json",
    ]);
    let names: Vec<String> = out
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["suite"].to_string())
        .collect();
    assert_eq!(names, vec!["\"larkspur-help-center\"", "\"audit-logs\""]);
}

#[test]
fn markdown_output_is_a_table_for_a_pull_request() {
    let out = stdout_of(&["run", "suites/larkspur.yaml", "--format", "markdown"]);
    assert!(
        out.contains("| false alarms on faithful cases | 2/16 | 0.12 | [0.03, 0.36] |"),
        "{out}"
    );
    assert!(
        out.contains("| entity_swap caught | 9/9 | 1.00 | [0.70, 1.00] |"),
        "{out}"
    );
}

#[test]
fn a_suite_from_a_new_domain_gets_mutants_of_every_kind_its_claims_allow() {
    let out = stdout_of(&["mutants", "tests/fixtures/clinic.yaml", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    for op in [
        "number_swap",
        "negation_flip",
        "entity_swap",
        "dropped_condition",
        "added_detail",
        "quantifier_shift",
        "number_rewrite",
        "wording_rewrite",
    ] {
        assert!(
            v["mutants"]
                .as_array()
                .unwrap()
                .iter()
                .any(|m| m["operator"] == op),
            "no {op} mutant: {out}"
        );
    }
    // the clinic's front-desk rules have no dates, quoted sources, hedges, causal links or two
    // values of one kind in two sentences
    assert_eq!(
        v["operators_without_mutants"],
        serde_json::json!([
            "attribution_swap",
            "pronoun_swap",
            "role_reversal",
            "dropped_qualifier",
            "predicate_shift",
            "date_shift",
            "relative_date",
            "hedge_drop",
            "link_swap",
            "conflation"
        ])
    );
    // its mutants are unreviewed, so the run counts them apart
    let run = stdout_of(&["run", "tests/fixtures/clinic.yaml"]);
    assert!(run.contains("Unreviewed mutants"), "{run}");
}

#[test]
fn the_yaml_reviews_block_pastes_back_into_the_suite() {
    let dir = tempfile::tempdir().unwrap();
    let block = stdout_of(&["mutants", "tests/fixtures/clinic.yaml", "--format", "yaml"]);
    let suite = std::fs::read_to_string(root().join("tests/fixtures/clinic.yaml")).unwrap();
    let pasted = dir.path().join("clinic.yaml");
    std::fs::write(&pasted, format!("{suite}{block}")).unwrap();
    let out = stdout_of(&["run", pasted.to_str().unwrap()]);
    assert!(
        out.contains("13 mutants (13 faults, 0 equivalent, 0 unreviewed)")
            && out.contains("and 4 rewrites"),
        "{out}"
    );
}

/// Writes `suite` to a temp file, runs it with a snapshot folder, and checks the error.
fn bad_suite(suite: &str, line: usize, what: &str) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.yaml");
    std::fs::write(&path, suite).unwrap();
    let snaps = dir.path().join("snaps");
    let out = faithprobe()
        .args([
            "run",
            path.to_str().unwrap(),
            "--snapshot",
            snaps.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    let at = format!("{}:{line}", path.display());
    assert!(err.contains(&at), "expected {at} in: {err}");
    assert!(err.contains(what), "expected {what:?} in: {err}");
    assert!(err.contains("help:"), "no fix suggested: {err}");
    assert!(out.stdout.is_empty(), "wrote a report for a bad suite");
    assert!(!snaps.exists(), "wrote snapshots for a bad suite");
}

const GOOD: &str = "suite: s
contexts:
  - id: c
    passages:
      - {id: p, text: \"Refunds are issued within 14 days.\"}
    faithful:
      - {id: f1, claim: \"Refunds are issued within 14 days.\"}
    hard_cases:
      - {id: h1, type: paraphrase, claim: \"Refunds come in 14 days.\", label: supported}
";

#[test]
fn an_unknown_key_is_an_error_naming_file_and_line() {
    bad_suite(
        &GOOD.replace("    faithful:", "    faithfull: []\n    faithful:"),
        6,
        "unknown field `faithfull`",
    );
}

#[test]
fn a_duplicate_id_is_an_error_naming_the_second_line() {
    bad_suite(
        &GOOD.replace("{id: h1,", "{id: f1,"),
        9,
        "claim id `f1` is used twice",
    );
}

#[test]
fn an_unknown_label_is_an_error_naming_its_line() {
    bad_suite(
        &GOOD.replace("label: supported", "label: true"),
        9,
        "unknown variant `true`",
    );
}

#[test]
fn a_claim_that_is_not_a_text_is_an_error_never_the_claim_null_or_5() {
    for value in ["5", "null", "~", "true", "!!binary aGVsbG8="] {
        bad_suite(
            &GOOD.replace(
                "claim: \"Refunds are issued within 14 days.\"",
                &format!("claim: {value}"),
            ),
            7,
            if value.starts_with("!!") {
                "binary data is not a text"
            } else {
                "put"
            },
        );
    }
}

#[test]
fn schema_errors_speak_the_readmes_words_with_help_for_the_part_they_are_in() {
    let cases = [
        (
            GOOD.replace(
                "- {id: p, text: \"Refunds are issued within 14 days.\"}",
                "- \"Refunds are issued within 14 days.\"",
            ),
            5,
            "expected a passage: a mapping such as {id: plans, text: \"...\"}",
            "each passage is `{id: plans, text: \"...\"}`",
        ),
        (
            GOOD.replace("label: supported", "label: maybe"),
            9,
            "unknown variant `maybe`",
            "label is supported, contradicted, not_found or misleading",
        ),
        (
            format!("{GOOD}reviews:\n  m-1: fault\n"),
            11,
            "expected a review: {review: fault} or {review: equivalent, why: \"...\"}",
            "faithprobe mutants SUITE --format yaml",
        ),
    ];
    for (suite, line, what, help) in cases {
        bad_suite(&suite, line, what);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.yaml");
        std::fs::write(&path, &suite).unwrap();
        let out = faithprobe()
            .args(["run", path.to_str().unwrap()])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(help), "{err}");
        assert!(
            !err.contains("struct") && !err.contains("File"),
            "a Rust type name: {err}"
        );
    }
}

#[test]
fn an_empty_claim_is_an_error_naming_its_line() {
    bad_suite(
        &GOOD.replace(
            "claim: \"Refunds are issued within 14 days.\"",
            "claim: \"\"",
        ),
        7,
        "claim `f1` is empty",
    );
}

#[test]
fn editing_a_reviewed_claim_warns_of_every_stale_review_and_the_suggested_fix_works() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.yaml");
    std::fs::write(&path, GOOD).unwrap();
    let yaml = faithprobe()
        .args(["mutants", path.to_str().unwrap(), "--format", "yaml"])
        .output()
        .unwrap();
    assert_eq!(yaml.status.code(), Some(0));
    let block = String::from_utf8(yaml.stdout).unwrap();
    let reviewed = format!("{GOOD}{block}");
    // edit a reviewed claim: every review of its mutants goes stale at once
    let edited = reviewed.replace(
        "Refunds are issued within 14 days.\"}",
        "Refunds are issued within 30 days.\"}",
    );
    assert_ne!(edited, reviewed);
    std::fs::write(&path, &edited).unwrap();
    let out = faithprobe()
        .args(["run", path.to_str().unwrap()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("warning: ") && err.contains("no longer generates"),
        "{err}"
    );
    let listed = err
        .lines()
        .filter(|l| l.contains("s.yaml:") && l.contains(": m-"))
        .count();
    assert!(listed >= 2, "every stale review in one warning: {err}");
    // the fix the warning prints, as printed
    let fix = err
        .lines()
        .find_map(|l| l.trim().strip_prefix("to remove them: "))
        .unwrap()
        .to_string();
    let out = common::as_printed(&fix, &root());
    assert_eq!(
        out.status.code(),
        Some(0),
        "{fix}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // only the stale reviews' own lines went: every other byte of the suite is as it was
    let pruned = std::fs::read_to_string(&path).unwrap();
    let stale: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("s.yaml:"))
        .filter_map(|l| l.rsplit(": ").next())
        .filter(|id| id.starts_with("m-"))
        .collect();
    let kept: Vec<&str> = edited
        .lines()
        .filter(|l| !stale.iter().any(|id| l.trim_start().starts_with(id)))
        .collect();
    assert!(kept.len() < edited.lines().count());
    assert!(
        kept.iter().any(|l| l.trim_start().starts_with("m-")),
        "a live review stays"
    );
    assert_eq!(pruned.lines().collect::<Vec<_>>(), kept);
    let out = faithprobe()
        .args(["run", path.to_str().unwrap()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("no longer generates"), "{err}");
}

#[test]
fn a_missing_suite_file_is_a_usage_error() {
    faithprobe()
        .args(["run", "suites/nope.yaml"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("suites/nope.yaml"));
}

#[test]
fn an_unknown_checker_is_a_usage_error() {
    faithprobe()
        .args(["run", "suites/larkspur.yaml", "--checker", "nli"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no checker named `nli`"));
}

#[test]
fn a_configured_checker_runs_under_its_name() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("faithprobe.yaml");
    std::fs::write(&cfg, "checkers:\n  strict:\n    kind: lexical\n    threshold: 1.0\n    max_window_sentences: 1\n").unwrap();
    let out = stdout_of(&[
        "--config",
        cfg.to_str().unwrap(),
        "run",
        "suites/larkspur.yaml",
        "--checker",
        "strict",
    ]);
    assert!(
        out.contains("checker strict (lexical: max_window_sentences=1, threshold=1"),
        "{out}"
    );
}

#[test]
fn a_bad_config_names_its_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("faithprobe.yaml");
    std::fs::write(
        &cfg,
        "checkers:\n  strict:\n    kind: lexical\n    threshold: 3\n",
    )
    .unwrap();
    faithprobe()
        .args([
            "--config",
            cfg.to_str().unwrap(),
            "run",
            "suites/larkspur.yaml",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(format!("{}:2", cfg.display())))
        .stderr(predicate::str::contains("outside [0, 1]"));
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

#[test]
fn the_committed_snapshots_match_the_shipped_suites() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&root().join("snapshots"), dir.path());
    faithprobe()
        .args([
            "run",
            "suites/larkspur.yaml",
            "suites/audit-logs.yaml",
            "--snapshot",
        ])
        .arg(dir.path())
        .arg("--check")
        .assert()
        .code(0)
        .stderr(predicate::str::contains("snapshot unchanged"));
}

#[test]
fn a_changed_snapshot_is_written_beside_the_old_diffed_and_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("s.yaml");
    std::fs::write(&suite, GOOD).unwrap();
    let snaps = dir.path().join("snaps");
    let run = |extra: &[&str]| {
        let mut c = faithprobe();
        c.args([
            "run",
            suite.to_str().unwrap(),
            "--snapshot",
            snaps.to_str().unwrap(),
        ]);
        c.args(extra);
        c.output().unwrap()
    };
    let first = run(&[]);
    assert_eq!(first.status.code(), Some(0));
    let snap = snaps.join("s.lexical.snap");
    let before = std::fs::read_to_string(&snap).unwrap();
    assert!(
        before.contains(
            "f1\toriginal\t-\tsupported\tfalse_alarm_opportunity\tsupported\t1.000\tp\tpassed\tRefunds are issued within 14 days."
        ),
        "{before}"
    );
    assert!(
        !before.contains("20"),
        "no timestamps or durations: {before}"
    );

    // the same run again changes nothing
    assert_eq!(run(&["--check"]).status.code(), Some(0));

    // a changed passage changes verdicts: .snap.new beside the old, a diff, exit 1 under --check
    std::fs::write(
        &suite,
        GOOD.replace(
            "text: \"Refunds are issued within 14 days.\"",
            "text: \"Refunds are issued within 30 days.\"",
        ),
    )
    .unwrap();
    let changed = run(&["--check"]);
    let err = String::from_utf8_lossy(&changed.stderr);
    assert_eq!(changed.status.code(), Some(1), "{err}");
    assert!(err.contains("-f1\toriginal"), "{err}");
    assert!(
        err.contains("+f1\toriginal\t-\tsupported\tfalse_alarm_opportunity\tcontradicted"),
        "{err}"
    );
    assert!(snaps.join("s.lexical.snap.new").exists());
    assert_eq!(
        std::fs::read_to_string(&snap).unwrap(),
        before,
        "the old snapshot is kept"
    );

    // CI in the environment gates like --check; without either the change only informs
    let mut ci = faithprobe();
    ci.env("CI", "true").args([
        "run",
        suite.to_str().unwrap(),
        "--snapshot",
        snaps.to_str().unwrap(),
    ]);
    assert_eq!(ci.output().unwrap().status.code(), Some(1));
    assert_eq!(run(&[]).status.code(), Some(0));

    faithprobe()
        .args(["snapshot", "accept", snaps.to_str().unwrap()])
        .assert()
        .success()
        .stdout(predicate::str::contains("accepted"));
    assert!(!snaps.join("s.lexical.snap.new").exists());
    assert_eq!(run(&["--check"]).status.code(), Some(0));
}

#[test]
fn a_missing_snapshot_under_ci_fails_instead_of_passing_silently() {
    let dir = tempfile::tempdir().unwrap();
    faithprobe()
        .env("CI", "1")
        .args(["run", "suites/audit-logs.yaml", "--snapshot"])
        .arg(dir.path())
        .assert()
        .code(1);
    assert!(dir.path().join("audit-logs.lexical.snap.new").exists());
    assert!(!dir.path().join("audit-logs.lexical.snap").exists());
}

#[test]
fn colour_is_off_under_no_color_and_on_when_forced() {
    let plain = stdout_of(&["run", "suites/audit-logs.yaml"]);
    assert!(!plain.contains('\u{1b}'));
    let out = faithprobe()
        .args(["--color", "always", "run", "suites/audit-logs.yaml"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains('\u{1b}'));
}

#[test]
fn an_output_that_cannot_be_written_after_the_run_is_exit_4_and_leaves_nothing() {
    let d = tempfile::tempdir().unwrap();
    let as_dir = d.path().join("rec");
    std::fs::create_dir(&as_dir).unwrap();
    let target = d.path().join("keep.json");
    std::fs::write(&target, "keep").unwrap();
    let link = d.path().join("link.json");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    for (dest, what) in [
        (Path::new("/dev/full"), "not a regular file"),
        (as_dir.as_path(), "a directory"),
        (link.as_path(), "a symbolic link"),
    ] {
        let out = faithprobe()
            .args(["run", "suites/larkspur.yaml", "--record"])
            .arg(dest)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(4), "{dest:?}: {err}");
        assert!(
            err.contains(what) && !err.contains("record written"),
            "{err}"
        );
        assert!(out.stdout.is_empty(), "no report after a failed write");
    }
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep");
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    // nothing else appeared: no temp file left beside the targets
    let mut names: Vec<String> = std::fs::read_dir(d.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["keep.json", "link.json", "rec"]);
    assert_eq!(std::fs::read_dir(&as_dir).unwrap().count(), 0);
}

#[test]
fn a_byte_order_mark_is_accepted_and_invalid_utf8_names_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let bom = dir.path().join("bom.yaml");
    std::fs::write(&bom, format!("\u{feff}{GOOD}")).unwrap();
    let out = stdout_of(&["run", bom.to_str().unwrap()]);
    assert!(out.contains("1 verified claim,"), "{out}");
    let mut bytes = GOOD.as_bytes().to_vec();
    let at = GOOD.find("14 days").unwrap();
    bytes[at] = 0xff;
    let bad = dir.path().join("bad.yaml");
    std::fs::write(&bad, bytes).unwrap();
    let out = faithprobe().args(["run"]).arg(&bad).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("bad.yaml:5:") && err.contains("0xff is not UTF-8"),
        "{err}"
    );
}

#[test]
fn a_claim_of_only_invisible_characters_is_empty() {
    bad_suite(
        &GOOD.replace(
            "claim: \"Refunds are issued within 14 days.\"",
            "claim: \"\u{200b}\u{200b}\"",
        ),
        7,
        "empty",
    );
}

#[test]
fn check_without_snapshot_and_two_suites_of_one_name_are_usage_errors() {
    let out = faithprobe()
        .args(["run", "suites/larkspur.yaml", "--check"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--snapshot"));
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("copy.yaml");
    std::fs::copy(root().join("suites/larkspur.yaml"), &copy).unwrap();
    let snaps = dir.path().join("snaps");
    let out = faithprobe()
        .args(["run", "suites/larkspur.yaml"])
        .arg(&copy)
        .arg("--snapshot")
        .arg(&snaps)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("both named `larkspur-help-center`"), "{err}");
    assert!(!snaps.exists());
}

#[test]
fn under_faithprobe_error_format_json_an_input_error_is_one_json_line_with_its_file_and_line() {
    // what the Python package reads: the binary's message, file and line, never the human text
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken.yaml");
    std::fs::write(
        &path,
        "suite: broken\ncontexts:\n  - id: a\n    passages: [1, 2]\n",
    )
    .unwrap();
    let (code, _, err) = common::output(
        faithprobe()
            .env("FAITHPROBE_ERROR_FORMAT", "json")
            .arg("run")
            .arg(&path),
    );
    assert_eq!(code, 2, "{err}");
    let last = err.lines().last().unwrap();
    let v: serde_json::Value = serde_json::from_str(last).unwrap();
    let e = &v["error"];
    assert_eq!(e["kind"], "input", "{last}");
    assert_eq!(e["file"], path.display().to_string());
    assert_eq!(e["line"], 4);
    assert_eq!(e["exit"], 2);
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("expected a passage"),
        "{last}"
    );
    assert!(e["help"].as_str().unwrap().contains("passages"), "{last}");
    // without the variable, the same error reads as it always has
    let (_, _, human) = common::output(faithprobe().arg("run").arg(&path));
    assert!(
        human.starts_with("error: ") && human.contains(":4:"),
        "{human}"
    );
}

#[test]
fn a_format_a_command_does_not_have_is_refused_before_any_work() {
    // score used to run everything, write --record and --html, then exit 2
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("r.json");
    let html = dir.path().join("r.html");
    let out = faithprobe()
        .args(["score", "tests/fixtures/answers.jsonl", "--format", "junit"])
        .arg("--record")
        .arg(&rec)
        .arg("--html")
        .arg(&html)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("possible values"));
    assert!(!rec.exists() && !html.exists());
    for (cmd, format) in [("sweep", "junit"), ("decompose-eval", "markdown")] {
        let out = faithprobe()
            .args([cmd, "x", "--format", format])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{cmd} --format {format}");
    }
}

#[test]
fn terminal_escape_sequences_in_a_suite_are_shown_not_sent() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("esc.yaml");
    std::fs::write(
        &path,
        GOOD.replace(
            "claim: \"Refunds come in 14 days.\"",
            "claim: \"Refunds come in 14 days.\\e[2J\\e]0;pwned\\a\"",
        ),
    )
    .unwrap();
    let out = faithprobe().args(["run"]).arg(&path).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        !text.contains('\u{1b}') && !text.contains('\u{7}'),
        "{text:?}"
    );
    assert!(text.contains("\\u{1b}[2J"), "{text}");
}

/// Runs every command `init` printed after "next:", as printed, through `sh` in `cwd`, with the
/// binary first on PATH; each must exit 0.
fn run_printed_steps(printed: &str, cwd: &std::path::Path) {
    let steps: Vec<&str> = printed
        .split("next:")
        .nth(1)
        .unwrap_or_else(|| panic!("no next steps in {printed}"))
        .lines()
        .map(|l| l.split("   #").next().unwrap().trim())
        .filter(|l| !l.is_empty())
        .collect();
    assert_eq!(steps.len(), 3, "{printed}");
    for step in steps {
        assert!(step.starts_with("faithprobe "), "{step}");
        if step.contains(" review ") {
            // the review asks in a terminal: run it in one, as printed, and quit at once
            review_as_printed(step, cwd);
            continue;
        }
        let out = common::as_printed(step, cwd);
        assert_eq!(
            out.status.code(),
            Some(0),
            "`{step}` as printed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// A printed `faithprobe review` step in a pseudo-terminal, through `sh` as printed: it shows
/// the first mutant with its keys, and `q` ends it with exit 0.
fn review_as_printed(step: &str, cwd: &std::path::Path) {
    let bin = assert_cmd::cargo::cargo_bin("faithprobe");
    let mut cmd = std::process::Command::new("sh");
    cmd.args(["-c", step])
        .current_dir(cwd)
        .env(
            "PATH",
            format!(
                "{}:{}",
                bin.parent().unwrap().display(),
                std::env::var("PATH").unwrap_or_default()
            ),
        )
        .env_remove("CI")
        .env_remove("FAITHPROBE_CONFIG")
        .env("NO_COLOR", "1")
        .env("TERM", "dumb");
    let mut p = rexpect::session::spawn_command(cmd, Some(30_000)).unwrap();
    p.exp_string("[b] broken").unwrap();
    p.send("q").unwrap();
    p.flush().unwrap();
    p.exp_eof().unwrap();
    match p.process().wait().unwrap() {
        rexpect::process::WaitStatus::Exited(_, code) => {
            assert_eq!(code, 0, "`{step}` in a terminal")
        }
        other => panic!("`{step}`: {other:?}"),
    }
}

#[test]
fn init_writes_a_starter_whose_printed_steps_work_as_printed_and_never_overwrites() {
    let d = tempfile::tempdir().unwrap();
    let out = common::faithprobe_in(d.path())
        .args(["init"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    run_printed_steps(&text, d.path());
    assert!(d.path().join("snapshots").is_dir());
    let again = common::faithprobe_in(d.path())
        .args(["init"])
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("already exists"));
}

#[test]
fn init_into_another_folder_prints_steps_that_work_from_where_it_was_run() {
    let d = tempfile::tempdir().unwrap();
    let out = common::faithprobe_in(d.path())
        .args(["init", "my project"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("--config 'my project/faithprobe.yaml'"),
        "{text}"
    );
    run_printed_steps(&text, d.path());
    assert!(d.path().join("my project/snapshots").is_dir());
}

#[test]
fn completions_and_the_man_page_come_from_the_cli_definition() {
    for shell in ["bash", "zsh", "fish"] {
        let out = stdout_of(&["completions", shell]);
        assert!(
            out.contains("sweep") && out.contains("decompose-eval"),
            "{shell}"
        );
    }
    let man = stdout_of(&["man"]);
    assert!(
        man.contains(".TH faithprobe") && man.contains("compare"),
        "{man}"
    );
    // every page a page points to exists
    let d = tempfile::tempdir().unwrap();
    let listed = stdout_of(&["man", "--dir", d.path().to_str().unwrap()]);
    let pages: Vec<String> = std::fs::read_dir(d.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(listed.lines().count(), pages.len());
    assert!(pages.len() >= 20, "{pages:?}");
    for page in &pages {
        let text = std::fs::read_to_string(d.path().join(page)).unwrap();
        for r in text.split("faithprobe\\-").skip(1) {
            let Some((name, _)) = r.split_once("(1)") else {
                continue;
            };
            if name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c == '-' || c == '\\')
            {
                let file = format!("faithprobe-{}.1", name.replace("\\-", "-"));
                assert!(
                    pages.contains(&file),
                    "{page} points to {file}, which is not there"
                );
            }
        }
    }
    assert!(stdout_of(&["man", "stats", "wilson"]).contains(".TH faithprobe-stats-wilson"));
    faithprobe().args(["man", "nope"]).assert().code(2);
}

#[test]
fn ci_false_is_not_ci() {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("s.yaml");
    std::fs::write(&suite, GOOD).unwrap();
    // no snapshot yet: under CI that is a failure, otherwise it is written
    for (ci, code) in [("false", 0), ("0", 0), ("", 0), ("true", 1)] {
        let snaps = dir.path().join(format!("snaps-{ci}"));
        let out = faithprobe()
            .env("CI", ci)
            .args([
                "run",
                suite.to_str().unwrap(),
                "--snapshot",
                snaps.to_str().unwrap(),
            ])
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(code),
            "CI={ci:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn doctor_passes_a_lexical_only_user_without_onnx_runtime_and_fails_one_whose_checker_needs_it() {
    let d = tempfile::tempdir().unwrap();
    let missing = d.path().join("no-such-libonnxruntime.so");
    let out = common::faithprobe_in(d.path())
        .env("ORT_DYLIB_PATH", &missing)
        .arg("doctor")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("not needed") && text.contains("all good"),
        "{text}"
    );
    std::fs::write(
        d.path().join("faithprobe.yaml"),
        "checkers:\n  nli: {kind: nli, model: models/nli}\n",
    )
    .unwrap();
    let out = common::faithprobe_in(d.path())
        .env("ORT_DYLIB_PATH", &missing)
        .arg("doctor")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(text.contains("MISSING (needed by `nli`)"), "{text}");
}

#[test]
fn merged_shard_records_reach_sweep_and_report_and_a_lone_shard_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let p = |n: &str| d.path().join(n).to_str().unwrap().to_string();
    let suite = "suites/larkspur.yaml";
    for (name, shard) in [("s1.json", "1/2"), ("s2.json", "2/2")] {
        let out = faithprobe()
            .args(["run", suite, "--shard", shard, "--record", &p(name)])
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let out = faithprobe()
        .args([
            "merge",
            &p("s1.json"),
            &p("s2.json"),
            "--out",
            &p("whole.json"),
        ])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // the sweep of the merged record is the sweep of the suite
    let from_suite = stdout_of(&["sweep", suite, "--max-false-alarm", "0.2"]);
    let from_record = stdout_of(&["sweep", &p("whole.json"), "--max-false-alarm", "0.2"]);
    assert_eq!(from_record, from_suite);
    // the audit of the merged record: the same rows as the audit of the suite
    let out = faithprobe()
        .args(["report", &p("whole.json"), "--out", &p("audit-record")])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = faithprobe()
        .args(["report", suite, "--out", &p("audit-suite")])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let md = |dir: &str| std::fs::read_to_string(d.path().join(dir).join("report.md")).unwrap();
    let rows = |t: String| -> Vec<String> {
        t.lines()
            .filter(|l| l.starts_with("| ") && !l.contains("sha256"))
            .map(String::from)
            .collect()
    };
    assert_eq!(rows(md("audit-record")), rows(md("audit-suite")));
    // one shard alone is not the whole run
    for cmd in ["sweep", "report"] {
        let mut args = vec![cmd, p("s1.json").leak() as &str];
        if cmd == "report" {
            args.extend(["--out", p("x").leak()]);
        }
        let out = faithprobe().args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{cmd}: {err}");
        assert!(
            err.contains("shard 1/2") && err.contains("faithprobe merge"),
            "{err}"
        );
    }
    // suites and records are not mixed, and a record names its own checker
    let out = faithprobe()
        .args(["sweep", suite, &p("whole.json")])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = faithprobe()
        .args(["sweep", &p("whole.json"), "--checker", "lexical"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// The first code block after `marker` in `text`, in parts split at its `...` lines.
fn sample_after<'a>(text: &'a str, marker: &str, what: &str) -> Vec<&'a str> {
    let section = text
        .split_once(marker)
        .unwrap_or_else(|| panic!("{what} has {marker:?}"))
        .1;
    let block = section
        .split("```\n")
        .nth(1)
        .unwrap_or_else(|| panic!("a code block after {marker:?} in {what}"));
    block.split("...\n").collect()
}

#[test]
fn the_guides_and_the_readmes_sample_run_output_is_what_run_prints() {
    let real = stdout_of(&["run", "suites/larkspur.yaml"]);
    let guide =
        std::fs::read_to_string(root().join("docs/src/getting-started/run-output.md")).unwrap();
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    for (what, text, marker) in [
        (
            "docs/src/getting-started/run-output.md",
            guide.as_str(),
            "# What `run` prints",
        ),
        (
            "README.md",
            readme.as_str(),
            "<!-- output of: faithprobe run suites/larkspur.yaml",
        ),
    ] {
        // each part is in the real output, in order
        let mut rest = real.as_str();
        for part in sample_after(text, marker, what) {
            let at = rest.find(part).unwrap_or_else(|| {
                panic!("{what} sample part:\n{part}\nnot in order in the real output:\n{real}")
            });
            rest = &rest[at + part.len()..];
        }
    }
}

#[test]
#[allow(clippy::too_many_lines)] // every command that writes, each refusing the same clashes
fn an_output_that_is_an_input_or_another_output_is_refused_before_any_work() {
    let d = tempfile::tempdir().unwrap();
    let p = |n: &str| d.path().join(n);
    std::fs::copy(root().join("suites/larkspur.yaml"), p("suite.yaml")).unwrap();
    std::fs::copy(root().join("tests/fixtures/answers.jsonl"), p("log.jsonl")).unwrap();
    std::fs::write(
        p("faithprobe.yaml"),
        "checkers:\n  strict: {kind: lexical, threshold: 0.9}\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(p("log.jsonl"), p("link.jsonl")).unwrap();
    let rt = p("rt");
    std::fs::create_dir(&rt).unwrap();
    for f in ["response.jsonl", "source_info.jsonl"] {
        std::fs::copy(root().join("tests/fixtures/ragtruth").join(f), rt.join(f)).unwrap();
    }
    let shard = p("shard1.json");
    common::faithprobe_in(d.path())
        .args([
            "run",
            "suite.yaml",
            "--shard",
            "1/2",
            "--record",
            "shard1.json",
        ])
        .assert()
        .success();
    let snapshot = |paths: &[&str]| -> Vec<Vec<u8>> {
        paths.iter().map(|f| std::fs::read(p(f)).unwrap()).collect()
    };
    let watched = [
        "suite.yaml",
        "log.jsonl",
        "faithprobe.yaml",
        "rt/response.jsonl",
        "rt/source_info.jsonl",
        "shard1.json",
    ];
    let before = snapshot(&watched);
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["score", "log.jsonl", "--record", "log.jsonl"],
            "would destroy an input",
        ),
        (
            vec!["score", "log.jsonl", "--html", "./log.jsonl"],
            "would destroy an input",
        ),
        (
            vec!["score", "log.jsonl", "--record", "link.jsonl"],
            "would destroy an input",
        ),
        (
            vec![
                "score",
                "log.jsonl",
                "--record",
                "x.json",
                "--html",
                "rt/../x.json",
            ],
            "are the same file",
        ),
        (
            vec!["run", "suite.yaml", "--record", "suite.yaml"],
            "would destroy an input",
        ),
        (
            vec!["run", "suite.yaml", "--record", "faithprobe.yaml"],
            "is the config",
        ),
        (
            vec!["run", "suite.yaml", "--cache", "suite.yaml"],
            "would destroy an input",
        ),
        (
            vec!["sweep", "suite.yaml", "--svg", "suite.yaml"],
            "would destroy an input",
        ),
        (
            vec!["import", "ragtruth", "rt", "--log", "rt/response.jsonl"],
            "would destroy an input",
        ),
        (
            vec![
                "import",
                "ragtruth",
                "rt",
                "--log",
                "l.jsonl",
                "--contexts",
                "rt/source_info.jsonl",
            ],
            "would destroy an input",
        ),
        (
            vec!["merge", "shard1.json", "--out", "shard1.json"],
            "would destroy an input",
        ),
    ];
    for (args, what) in cases {
        let out = common::faithprobe_in(d.path())
            .args(&args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(what), "{args:?}: {err}");
        assert_eq!(snapshot(&watched), before, "{args:?} changed an input");
        assert!(
            !p("x.json").exists() && !p("l.jsonl").exists(),
            "{args:?} wrote an output"
        );
    }
    let _ = shard;
}

#[test]
fn a_closed_stdout_ends_every_command_quietly_with_exit_0() {
    let d = tempfile::tempdir().unwrap();
    let rec = d.path().join("r.json");
    faithprobe()
        .args([
            "run",
            "suites/larkspur.yaml",
            "--record",
            rec.to_str().unwrap(),
        ])
        .assert()
        .success();
    let rec = rec.to_str().unwrap().to_string();
    let commands: Vec<Vec<&str>> = vec![
        vec!["run", "suites/larkspur.yaml"],
        vec!["run", "suites/larkspur.yaml", "--format", "json"],
        vec!["mutants", "suites/larkspur.yaml"],
        vec!["stats", "wilson", "9", "9"],
        vec!["stats", "power", "--n", "100"],
        vec!["compare", &rec, &rec, "--cluster-by", "claim"],
        vec!["sweep", "suites/larkspur.yaml"],
        vec!["doctor"],
        vec![
            "check",
            "--premise",
            "Team plans are billed monthly.",
            "--claim",
            "Team plans are billed monthly.",
        ],
        vec!["completions", "bash"],
        vec!["man"],
        vec!["score", "tests/fixtures/answers.jsonl", "--show", "all"],
        vec!["score", "tests/fixtures/answers.jsonl", "--format", "json"],
        vec!["decompose-eval", "tests/fixtures/hand-decomposition.yaml"],
        vec!["stats", "mcnemar", "18", "7"],
        vec!["stats", "sample-size", "--rate", "0.9", "--margin", "0.05"],
        vec!["man", "run"],
    ];
    for args in commands {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = plain(&args).stdout(writer).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
        assert!(
            !err.contains("panicked") && !err.contains("Broken pipe"),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn a_full_stdout_is_exit_4_never_a_panic() {
    for args in [
        vec!["run", "suites/larkspur.yaml"],
        vec!["mutants", "suites/larkspur.yaml"],
        vec!["stats", "wilson", "9", "9"],
        vec!["doctor"],
        vec!["score", "tests/fixtures/answers.jsonl"],
    ] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let out = plain(&args).stdout(full).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(4), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn a_deep_chain_of_cascades_over_shared_checkers_validates_and_runs_at_once() {
    let d = tempfile::tempdir().unwrap();
    let mut cfg = String::from("checkers:\n  c0: {kind: lexical}\n");
    for i in 1..=40 {
        cfg.push_str(&format!(
            "  c{i}: {{kind: cascade, front: c{p}, back: c{p}, route_below: 0.5}}\n",
            p = i - 1
        ));
    }
    std::fs::write(d.path().join("faithprobe.yaml"), cfg).unwrap();
    let suite = root().join("suites/larkspur.yaml");
    let out = common::faithprobe_in(d.path())
        .args(["run", suite.to_str().unwrap(), "--checker", "c40"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doctor = common::faithprobe_in(d.path())
        .arg("doctor")
        .output()
        .unwrap();
    assert_eq!(
        doctor.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&doctor.stdout)
    );
}

#[test]
fn checkers_whose_names_differ_only_in_unsafe_characters_get_their_own_snapshots() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("faithprobe.yaml"),
        "checkers:\n  v1/nli: {kind: lexical, threshold: 0.99}\n  v1_nli: {kind: lexical, threshold: 0.01}\n",
    )
    .unwrap();
    let suite = root().join("suites/larkspur.yaml");
    for c in ["v1/nli", "v1_nli"] {
        let out = common::faithprobe_in(d.path())
            .args([
                "run",
                suite.to_str().unwrap(),
                "--checker",
                c,
                "--snapshot",
                "snaps",
            ])
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{c}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let names: Vec<String> = std::fs::read_dir(d.path().join("snaps"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(!names.iter().any(|n| n.ends_with(".new")), "{names:?}");
}

#[test]
fn snapshot_accept_never_replaces_a_symlink() {
    let d = tempfile::tempdir().unwrap();
    let snaps = d.path().join("snaps");
    std::fs::create_dir(&snaps).unwrap();
    let elsewhere = d.path().join("elsewhere.snap");
    std::fs::write(&elsewhere, "kept\n").unwrap();
    std::os::unix::fs::symlink(&elsewhere, snaps.join("s.lexical.snap")).unwrap();
    std::fs::write(snaps.join("s.lexical.snap.new"), "new\n").unwrap();
    let out = faithprobe()
        .args(["snapshot", "accept", snaps.to_str().unwrap()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("not a regular file"), "{err}");
    assert!(std::fs::symlink_metadata(snaps.join("s.lexical.snap"))
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(std::fs::read_to_string(&elsewhere).unwrap(), "kept\n");
}

#[test]
fn commands_that_also_write_files_end_quietly_on_a_closed_stdout() {
    let d = tempfile::tempdir().unwrap();
    let p = |n: &str| d.path().join(n).to_str().unwrap().to_string();
    let suite = root().join("suites/larkspur.yaml");
    let suite = suite.to_str().unwrap();
    for (name, shard) in [("s1.json", "1/2"), ("s2.json", "2/2")] {
        faithprobe()
            .args(["run", suite, "--shard", shard, "--record", &p(name)])
            .assert()
            .success();
    }
    std::fs::create_dir(d.path().join("snaps")).unwrap();
    std::fs::write(d.path().join("snaps/x.lexical.snap.new"), "new\n").unwrap();
    let ragtruth = root().join("tests/fixtures/ragtruth");
    let commands: Vec<Vec<String>> = vec![
        vec!["report".into(), suite.into(), "--out".into(), p("audit")],
        vec![
            "merge".into(),
            p("s1.json"),
            p("s2.json"),
            "--out".into(),
            p("m.json"),
        ],
        vec!["snapshot".into(), "accept".into(), p("snaps")],
        vec!["init".into(), p("starter")],
        vec![
            "import".into(),
            "ragtruth".into(),
            ragtruth.to_str().unwrap().into(),
            "--log".into(),
            p("log.jsonl"),
        ],
        vec!["man".into(), "--dir".into(), p("man")],
        vec!["sweep".into(), suite.into(), "--svg".into(), p("chart.svg")],
    ];
    for args in commands {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = plain(&args).stdout(writer).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    // and the files were written all the same
    for f in [
        "audit/report.html",
        "m.json",
        "snaps/x.lexical.snap",
        "starter/faithprobe.yaml",
        "log.jsonl",
        "man/faithprobe.1",
        "chart.svg",
    ] {
        assert!(d.path().join(f).is_file(), "{f}");
    }
}

#[test]
fn mutants_list_names_every_operator_with_what_it_stands_for_as_run_says() {
    // `run` points here; the step works as printed
    let run = stdout_of(&["run", "suites/larkspur.yaml"]);
    assert!(run.contains("faithprobe mutants --list"), "{run}");
    let list = stdout_of(&["mutants", "--list"]);
    for op in faithprobe::mutate::REGISTRY {
        assert!(
            list.contains(&format!("\n{}  ({})", op.name, op.rules)),
            "{}: {list}",
            op.name
        );
        assert!(
            list.contains(op.stands_for) && list.contains(op.example[1]),
            "{list}"
        );
    }
    let json: serde_json::Value =
        serde_json::from_str(&stdout_of(&["mutants", "--list", "--format", "json"])).unwrap();
    assert_eq!(
        json["operators"].as_array().unwrap().len(),
        faithprobe::mutate::REGISTRY.len()
    );
    // a suite and --list do not go together
    faithprobe()
        .args(["mutants", "--list", "suites/larkspur.yaml"])
        .assert()
        .code(2);
}

#[test]
fn stats_power_says_its_best_case_and_counts_fixes_when_asked() {
    let best = stdout_of(&["stats", "power", "--n", "100", "--drop", "0.08"]);
    assert!(
        best.contains("power 0.910") && best.contains("best case"),
        "{best}"
    );
    let fixed = stdout_of(&[
        "stats",
        "power",
        "--n",
        "100",
        "--drop",
        "0.08",
        "--fix-rate",
        "0.02",
    ]);
    assert!(
        fixed.contains("power 0.483") && fixed.contains("also fixes 0.02"),
        "{fixed}"
    );
    faithprobe()
        .args(["stats", "power", "--n", "100", "--fix-rate", "1.5"])
        .assert()
        .code(2);
}

#[test]
fn snapshot_pending_and_reject_decide_changes_as_scripts_do() {
    let dir = tempfile::tempdir().unwrap();
    let snaps = dir.path().join("snaps");
    copy_dir(&root().join("snapshots"), &snaps);
    let before = std::fs::read_to_string(snaps.join("larkspur-help-center.lexical.snap")).unwrap();
    // a stricter checker changes some verdicts: a .snap.new waits beside the snapshot
    let cfg = dir.path().join("faithprobe.yaml");
    std::fs::write(
        &cfg,
        "checkers:\n  lexical: {kind: lexical, threshold: 0.9}\n",
    )
    .unwrap();
    faithprobe()
        .args(["run", "suites/larkspur.yaml", "--snapshot"])
        .arg(&snaps)
        .arg("--config")
        .arg(&cfg)
        .assert()
        .code(predicate::in_iter([0, 1]));
    let pending = faithprobe()
        .args(["snapshot", "pending"])
        .arg(&snaps)
        .output()
        .unwrap();
    assert_eq!(pending.status.code(), Some(1), "pending changes exit 1");
    assert!(
        String::from_utf8_lossy(&pending.stdout).contains("larkspur-help-center.lexical.snap.new")
    );
    faithprobe()
        .args(["snapshot", "reject"])
        .arg(&snaps)
        .assert()
        .success()
        .stdout(predicate::str::contains("rejected"));
    // the accepted snapshot is untouched and nothing waits any more
    assert_eq!(
        std::fs::read_to_string(snaps.join("larkspur-help-center.lexical.snap")).unwrap(),
        before
    );
    faithprobe()
        .args(["snapshot", "pending"])
        .arg(&snaps)
        .assert()
        .code(0)
        .stdout("");
}

/// A suite large enough that making its mutants takes seconds: 400 contexts of 60 claims.
fn big_suite(dir: &Path) -> std::path::PathBuf {
    let mut s = String::from("suite: big\ncontexts:\n");
    for c in 0..400 {
        s.push_str(&format!(
            "  - id: c{c}\n    passages:\n      - {{id: p, text: \"Team plans cost €12 per user per month and include up to 10 users. Refunds are paid within 5 working days.\"}}\n    faithful:\n"
        ));
        for f in 0..60 {
            s.push_str(&format!(
                "      - {{id: c{c}f{f}, claim: \"Team plans in region {f} cost €12 per user per month and include up to 10 users.\"}}\n"
            ));
        }
    }
    let p = dir.join("big.yaml");
    std::fs::write(&p, s).unwrap();
    p
}

#[test]
fn one_sigterm_stops_mutant_generation_and_the_run_with_exit_130() {
    let dir = tempfile::tempdir().unwrap();
    let suite = big_suite(dir.path());
    for args in [vec!["mutants"], vec!["run"]] {
        let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("faithprobe"))
            .current_dir(dir.path())
            .env_remove("CI")
            .env_remove("FAITHPROBE_CONFIG")
            .args(&args)
            .arg(&suite)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(300));
        std::process::Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .unwrap();
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(130), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}: no report after a signal");
        assert!(err.contains("interrupt"), "{args:?}: {err}");
    }
}

#[test]
fn a_suite_written_by_json_dump_with_an_emoji_loads_and_a_stray_control_character_is_named_at_its_line(
) {
    let d = tempfile::tempdir().unwrap();
    // what Python's json.dump writes: non-ASCII as \u escapes, an emoji as a surrogate pair
    let json = r#"{"suite": "emoji", "contexts": [{"id": "c1", "passages": [{"id": "p1", "text": "The caf\u00e9 opens at 9 a.m. \ud83d\ude00 Refunds take 5 days."}], "faithful": [{"id": "f1", "claim": "Refunds take 5 days."}]}]}"#;
    let p = d.path().join("emoji.yaml");
    std::fs::write(&p, json).unwrap();
    let out = faithprobe()
        .args(["run", p.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("1 verified claim"));
    // a scraped passage with a BEL in it, as YAML and as JSON: refused at its line and column
    let yaml = "suite: ctrl\ncontexts:\n  - id: c1\n    passages:\n      - {id: p1, text: \"Refunds take 5 days.\u{7} More text\"}\n    faithful:\n      - {id: f1, claim: \"Refunds take 5 days.\"}\n";
    let p = d.path().join("ctrl.yaml");
    std::fs::write(&p, yaml).unwrap();
    let out = faithprobe()
        .args(["run", p.to_str().unwrap()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("ctrl.yaml:5:"), "{err}");
    assert!(err.contains("replace it with a space"), "{err}");
    let json = "{\n \"suite\": \"ctrl\",\n \"contexts\": [{\"id\": \"c1\", \"passages\": [{\"id\": \"p1\",\n  \"text\": \"Refunds take 5 days.\u{7}\"}], \"faithful\": [{\"id\": \"f1\", \"claim\": \"Refunds take 5 days.\"}]}]\n}\n";
    let p = d.path().join("ctrl.json");
    std::fs::write(&p, json).unwrap();
    let out = faithprobe()
        .args(["run", p.to_str().unwrap()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("ctrl.json:4:"), "{err}");
}

#[test]
fn bidi_overrides_and_zero_width_characters_from_a_suite_never_reach_the_screen_raw() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("bidi.yaml");
    std::fs::write(
        &p,
        "suite: bidi\ncontexts:\n  - id: c1\n    passages:\n      - {id: p1, text: \"Refunds take 5 days.\"}\n    faithful:\n      - {id: \"f1\u{202e}evil\", claim: \"Refunds take 5\u{200b} days.\"}\n",
    )
    .unwrap();
    for format in ["human", "markdown"] {
        let out = faithprobe()
            .args(["run", p.to_str().unwrap(), "--format", format])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            !text.contains('\u{202e}') && !text.contains('\u{200b}'),
            "{format}: {text}"
        );
        assert!(
            text.contains("\\u{202e}") || format == "markdown",
            "{format}: {text}"
        );
    }
}

#[test]
fn a_sweep_or_an_audit_of_a_suite_with_no_case_is_an_error_never_an_empty_report() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("empty.yaml");
    std::fs::write(
        &p,
        "suite: empty\ncontexts:\n  - id: c1\n    passages:\n      - {id: p1, text: \"Refunds take 5 days.\"}\n",
    )
    .unwrap();
    let out = faithprobe()
        .args(["sweep", p.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nothing to sweep"));
    assert!(out.stdout.is_empty());
    let rep = d.path().join("rep");
    let out = faithprobe()
        .args([
            "report",
            p.to_str().unwrap(),
            "--out",
            rep.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nothing to audit"));
    assert!(!rep.exists(), "nothing written");
}
