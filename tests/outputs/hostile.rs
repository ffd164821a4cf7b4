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
