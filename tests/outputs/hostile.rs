//! Output under hostile input and hostile places: a full stdout, names too long for the file
//! system, terminal escapes and Markdown from suites, control characters in JUnit.

use crate::common::{faithprobe_in, root};
use std::path::Path;

/// A temp folder holding a copy of the Larkspur suite as `larkspur.yaml`.
fn larkspur_copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        root().join("suites/larkspur.yaml"),
        dir.path().join("larkspur.yaml"),
    )
    .unwrap();
    dir
}

/// `faithprobe ARGS` in `dir` with stdout on /dev/full: (exit code, stderr).
fn to_full_device(dir: &Path, args: &[&str]) -> (Option<i32>, String) {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("faithprobe"))
        .current_dir(dir)
        .env_remove("CI")
        .env_remove("FAITHPROBE_CONFIG")
        .env("NO_COLOR", "1")
        .args(args)
        .stdout(full)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn review_lists_and_snapshot_pending_on_a_full_stdout_exit_4_not_their_verdict() {
    let dir = larkspur_copy();
    std::fs::create_dir(dir.path().join("snaps")).unwrap();
    std::fs::write(dir.path().join("snaps/x.lexical.snap.new"), "new\n").unwrap();
    for args in [
        vec!["review", "larkspur.yaml", "--list"],
        vec!["review", "larkspur.yaml", "--list", "--format", "json"],
        vec!["review", "larkspur.yaml", "--stale"],
        vec!["snapshot", "pending", "snaps"],
    ] {
        let (code, err) = to_full_device(dir.path(), &args);
        assert_eq!(code, Some(4), "{args:?}: {err}");
        assert!(err.contains("could not write to stdout"), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn a_snapshot_name_too_long_for_the_file_system_is_an_output_failure_exit_4() {
    let dir = larkspur_copy();
    let name = "c".repeat(300);
    std::fs::write(
        dir.path().join("faithprobe.yaml"),
        format!("checkers:\n  {name}: {{kind: lexical}}\n"),
    )
    .unwrap();
    let out = faithprobe_in(dir.path())
        .args(["run", "larkspur.yaml", "--checker", &name])
        .args(["--snapshot", "snaps"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{err}");
    assert!(err.contains("File name too long"), "{err}");
    let left: Vec<_> = std::fs::read_dir(dir.path().join("snaps"))
        .unwrap()
        .collect();
    assert!(left.is_empty(), "nothing half-written: {left:?}");
}

/// A suite whose claims, ids and types carry `payload` (YAML double-quoted escapes).
fn suite_carrying(payload: &str) -> String {
    format!(
        "suite: s
contexts:
  - id: \"c{payload}\"
    question: \"What about refunds?{payload}\"
    passages:
      - {{id: \"p{payload}\", text: \"Refunds are issued within 14 days. The fee is $25.{payload}\"}}
    faithful:
      - {{id: \"f1{payload}\", claim: \"Refunds are issued within 14 days.{payload}\"}}
      - {{id: \"f2\", claim: \"The fee is $25.\"}}
    hard_cases:
      - {{id: \"h1{payload}\", type: \"para{payload}phrase\", claim: \"Refunds come in 14 days.{payload}\", label: supported}}
      - {{id: \"h2{payload}\", type: \"wrong{payload}\", claim: \"Refunds are issued within 40 days.\", label: contradicted}}
"
    )
}

#[test]
fn junit_output_holds_only_characters_xml_allows_whatever_the_claims_hold() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("ctl.yaml"),
        suite_carrying("\\x01\\x08\\x0b\\x0c\\x1b[2J\\x7f\\u0085\\uFFFE\\uFFFF"),
    )
    .unwrap();
    let out = faithprobe_in(dir.path())
        .args(["run", "ctl.yaml", "--format", "junit"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let xml = String::from_utf8(out.stdout).unwrap();
    let bad: Vec<String> = xml
        .chars()
        // XML 1.0, production [2]: #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-]
        .filter(
            |&c| !matches!(c as u32, 0x9 | 0xA | 0xD | 0x20..=0xD7FF | 0xE000..=0xFFFD | 0x10000..),
        )
        .map(|c| format!("U+{:04X}", c as u32))
        .collect();
    assert!(bad.is_empty(), "outside XML 1.0's Char: {bad:?}");
    // and it is one well-formed document: every element closed, one per case
    assert_eq!(
        xml.matches("<testcase ").count(),
        xml.matches("</testcase>").count()
    );
    assert!(xml.matches("<testcase ").count() >= 4, "{xml}");
    assert!(
        xml.contains("Refunds are issued within 14 days.\u{fffd}"),
        "{xml}"
    );
}
