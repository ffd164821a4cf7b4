//! The side file against the suite: one review per mutant whatever id spells it, a side file
//! known by its suite however the paths are spelled, and `--set`s that contradict each other.

use super::{larkspur_copy, pending};
use crate::common::faithprobe_in;

#[test]
fn a_side_file_review_by_short_id_of_a_mutant_the_suite_reviews_is_an_error_never_stale() {
    let (dir, _suite) = larkspur_copy();
    let out = faithprobe_in(dir.path())
        .args(["mutants", "larkspur.yaml", "--format", "json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let reviewed = v["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["review"]["review"] == "fault")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let short = &reviewed[..10]; // `m-` and 8 hex digits, as faithprobe 0.1 wrote them
    std::fs::write(
        dir.path().join("larkspur.reviews.yaml"),
        format!("reviews:\n  {short}: {{review: equivalent, why: \"says the same\"}}\n"),
    )
    .unwrap();
    for args in [
        vec!["run", "larkspur.yaml"],
        vec!["review", "larkspur.yaml", "--stale"],
    ] {
        let out = faithprobe_in(dir.path()).args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(
            err.starts_with(&format!(
                "error: larkspur.reviews.yaml:2: `{short}` is reviewed here and in larkspur.yaml:"
            )),
            "{args:?}: {err}"
        );
        assert!(err.contains(&format!("(as `{reviewed}`)")), "{err}");
        assert!(!err.contains("stale"), "{err}");
    }
}

#[test]
fn a_side_file_is_read_with_its_suite_however_the_two_paths_are_spelled() {
    let (dir, _suite) = larkspur_copy();
    let id = &pending(dir.path())[0].0;
    faithprobe_in(dir.path())
        .args(["review", "larkspur.yaml", "--set", &format!("{id}=fault")])
        .assert()
        .success();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    for args in [
        ["run", "./larkspur.yaml", "larkspur.reviews.yaml"],
        ["run", "larkspur.yaml", "./larkspur.reviews.yaml"],
        ["run", "sub/../larkspur.yaml", "larkspur.reviews.yaml"],
    ] {
        let out = faithprobe_in(dir.path()).args(args).output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn two_contradictory_sets_for_one_mutant_are_refused_naming_both_and_write_nothing() {
    let (dir, _suite) = larkspur_copy();
    let id = &pending(dir.path())[0].0;
    let out = faithprobe_in(dir.path())
        .args(["review", "larkspur.yaml"])
        .args(["--set", &format!("{id}=fault")])
        .args(["--set", &format!("{id}=equivalent"), "--why", "x"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains(&format!(
            "--set {id}=fault and --set {id}=equivalent decide `{id}` two ways"
        )),
        "{err}"
    );
    assert!(!dir.path().join("larkspur.reviews.yaml").exists());
    // the same decision twice is one decision
    faithprobe_in(dir.path())
        .args(["review", "larkspur.yaml"])
        .args([
            "--set",
            &format!("{id}=fault"),
            "--set",
            &format!("{id}=fault"),
        ])
        .assert()
        .success();
}

#[test]
fn a_set_over_a_review_by_short_id_replaces_it_and_the_suite_still_loads() {
    let (dir, _suite) = larkspur_copy();
    let id = pending(dir.path())[0].0.clone();
    let side = dir.path().join("larkspur.reviews.yaml");
    std::fs::write(
        &side,
        format!("reviews:\n  {}: {{review: fault}}\n", &id[..10]),
    )
    .unwrap();
    let out = faithprobe_in(dir.path())
        .args([
            "review",
            "larkspur.yaml",
            "--set",
            &format!("{id}=equivalent"),
        ])
        .args(["--why", "still true"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8(out.stdout)
        .unwrap()
        .contains(&format!("{id}: equivalent, was fault")));
    let text = std::fs::read_to_string(&side).unwrap();
    let lines: Vec<&str> = text.lines().filter(|l| l.starts_with("  m-")).collect();
    assert_eq!(
        lines,
        [format!(
            "  {id}: {{review: equivalent, why: \"still true\"}}"
        )]
    );
    faithprobe_in(dir.path())
        .args(["run", "larkspur.yaml"])
        .assert()
        .success();
}
