//! Beyond each operator's own edits: the cap on mutants per claim and operator
//! (`max_per_claim`, `--max-per-claim`) and compound faults (`compound`, `--compound`).

use crate::common::{faithprobe, faithprobe_in, output, root, stdout_of};

fn larkspur() -> String {
    root().join("suites/larkspur.yaml").display().to_string()
}

#[test]
fn a_cap_drops_the_extra_mutants_as_skips_named_cap_and_every_pooled_figure_says_it() {
    let listed = stdout_of(&["mutants", "suites/larkspur.yaml", "--max-per-claim", "1"]);
    // f06 has two wording rewrites ("isn't", and the condition moved to the front): one stays
    let caps: Vec<&str> = listed.lines().filter(|l| l.contains("(cap: ")).collect();
    assert_eq!(caps.len(), 1, "{listed}");
    assert!(caps[0].starts_with("note: skipped wording_rewrite of f06 (cap: the claim has more mutants of this operator than max_per_claim"), "{listed}");
    let json = stdout_of(&[
        "mutants",
        "suites/larkspur.yaml",
        "--max-per-claim",
        "1",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(json.lines().next().unwrap()).unwrap();
    let skipped = v["skipped"].as_array().unwrap();
    assert_eq!(
        skipped
            .iter()
            .filter(|s| s["why"].as_str().unwrap().starts_with("cap:"))
            .count(),
        1
    );

    let out = stdout_of(&["run", "suites/larkspur.yaml", "--max-per-claim", "1"]);
    assert!(out.contains("61 cases"), "{out}");
    assert!(
        out.contains("all faults (mix: pooled, cap 1)   24/29   0.83"),
        "{out}"
    );
    assert!(out.contains("(cap 1: at most 1 mutant(s) of a claim per operator were kept, a seeded sample (`max_per_claim`)"), "{out}");
    let md = stdout_of(&[
        "run",
        "suites/larkspur.yaml",
        "--max-per-claim",
        "1",
        "--format",
        "markdown",
    ]);
    assert!(
        md.contains("| all faults caught (mix: pooled, cap 1) | 24/29 |"),
        "{md}"
    );
}

#[test]
fn the_cap_comes_from_the_config_and_a_record_carries_it_to_compare_and_sweep() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("faithprobe.yaml"),
        "checkers:\n  strict: {kind: lexical, threshold: 0.9}\nmutators:\n  max_per_claim: 1\n  seed: 11\n",
    )
    .unwrap();
    let rec = |name: &str, checker: &str| {
        let p = d.path().join(name);
        let (code, _, err) = output(faithprobe_in(d.path()).args([
            "run",
            &larkspur(),
            "--checker",
            checker,
            "--record",
            p.to_str().unwrap(),
        ]));
        assert_eq!(code, 0, "{err}");
        p
    };
    let base = rec("base.json", "lexical");
    let cand = rec("cand.json", "strict");
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&base).unwrap()).unwrap();
    assert_eq!(record["runs"][0]["max_per_claim"], 1);
    let (_, out, _) = output(faithprobe_in(d.path()).args([
        "compare",
        base.to_str().unwrap(),
        cand.to_str().unwrap(),
    ]));
    assert!(out.contains("all faults (mix: pooled, cap 1)"), "{out}");
    let (code, out, err) = output(faithprobe_in(d.path()).args(["sweep", base.to_str().unwrap()]));
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("all faults (mix: pooled, cap 1)"), "{out}");
    // a record's mutants were made when it was recorded
    let (code, _, err) = output(faithprobe_in(d.path()).args([
        "sweep",
        base.to_str().unwrap(),
        "--max-per-claim",
        "2",
    ]));
    assert_eq!(code, 2);
    assert!(err.contains("do not apply to run records"), "{err}");
}

#[test]
fn a_bad_cap_is_refused_with_its_line() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("faithprobe.yaml"),
        "mutators:\n  max_per_claim: 0\n",
    )
    .unwrap();
    let (code, _, err) = output(faithprobe_in(d.path()).args(["run", &larkspur()]));
    assert_eq!(code, 2);
    assert!(err.contains("faithprobe.yaml:2"), "{err}");
    assert!(err.contains("a whole number of at least 1"), "{err}");
    let (code, _, err) =
        output(faithprobe().args(["run", "suites/larkspur.yaml", "--max-per-claim", "0"]));
    assert_eq!(code, 2, "{err}");
}
