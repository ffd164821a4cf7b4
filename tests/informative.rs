//! What a caught mutant means, end to end: mutants of claims the checker flags are counted in no
//! catch rate in any command, two checkers are compared at the same false-alarm rate and
//! threshold-free, and the gap between mutation scores and recall on real errors is measured.
//! The fixture is news and leaflet summaries with real errors (`tests/fixtures/real-errors.yaml`):
//! the lexical checker flags the verified claim h-f4, so h-f4's four fault mutants say nothing.

use crate::common::*;
use serde_json::Value;

const SUITE: &str = "tests/fixtures/real-errors.yaml";
const STRICT: &str = "checkers:\n  strict: {kind: lexical, threshold: 0.9}\n";

fn json_lines(args: &[&str]) -> Vec<Value> {
    let out = stdout_with(0, args);
    out.lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

#[test]
fn mutants_of_a_claim_the_checker_flags_are_counted_apart_and_never_caught() {
    let v = &json_lines(&["run", SUITE, "--format", "json"])[0];
    let s = &v["summary"];
    assert_eq!(s["parent_flagged"], 4);
    assert_eq!(
        (s["all_faults"]["k"].as_u64(), s["all_faults"]["n"].as_u64()),
        (Some(11), Some(23))
    );
    // the count before informativeness is still there, for the published figures
    let every = &s["all_faults_every_mutant"];
    assert_eq!(
        (every["k"].as_u64(), every["n"].as_u64()),
        (Some(15), Some(27))
    );
    let cases = v["cases"].as_array().unwrap();
    let flagged_parent = cases.iter().find(|c| c["id"] == "h-f4").unwrap();
    assert_eq!(flagged_parent["outcome"], "false_alarm");
    // (its fifth mutant, an invented modifier, is unreviewed: counted apart, like every one)
    let children: Vec<&Value> = cases
        .iter()
        .filter(|c| c["parent"] == "h-f4" && c["kind"] == "mutant" && c["review"] == "fault")
        .collect();
    assert_eq!(children.len(), 4);
    assert!(
        children.iter().all(|c| c["outcome"] == "parent_flagged"),
        "{children:?}"
    );
    let row = s["fault_types"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["fault_type"] == "negation_flip")
        .unwrap();
    assert_eq!((row["k"].as_u64(), row["n"].as_u64()), (Some(3), Some(3)));
    assert_eq!(row["parent_flagged"], 1);

    let human = stdout_of(&["run", SUITE]);
    assert!(human.contains("parent flagged"), "{human}");
    assert!(
        human.contains("(4 mutant(s) of claims the checker already flags are in no rate: flagging them says nothing about the fault; counted as before, all faults would be 15/27)"),
        "{human}"
    );
    // a missed mutant of the flagged claim is not listed as a missed fault
    let missed = human
        .split("Missed faults")
        .nth(1)
        .unwrap()
        .split("\n\n")
        .next()
        .unwrap();
    assert!(!missed.contains("of h-f4"), "{missed}");
}

#[test]
fn a_record_that_counts_a_mutant_of_a_flagged_claim_as_caught_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let rec = d.path().join("r.json");
    stdout_with(0, &["run", SUITE, "--record", rec.to_str().unwrap()]);
    let mut v: Value = serde_json::from_slice(&std::fs::read(&rec).unwrap()).unwrap();
    for c in v["runs"][0]["cases"].as_array_mut().unwrap() {
        if c["outcome"] == "parent_flagged" && c["verdict"] != "supported" {
            c["outcome"] = "caught".into();
            break;
        }
    }
    let forged = d.path().join("forged.json");
    std::fs::write(&forged, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    let (code, o) =
        combined(faithprobe().args(["compare", rec.to_str().unwrap(), forged.to_str().unwrap()]));
    assert_eq!(code, 2, "{o}");
    assert!(
        o.contains("has outcome `caught`") && o.contains("gives `parent_flagged`"),
        "{o}"
    );
}

#[test]
fn the_sweep_leaves_out_a_mutant_at_every_threshold_where_its_parent_is_flagged() {
    let v: Value =
        serde_json::from_str(&stdout_with(0, &["sweep", SUITE, "--format", "json"])).unwrap();
    let points = v["points"].as_array().unwrap();
    // h-f4 scores 0.625: below that threshold its mutants count, from it on they do not
    for p in points {
        let t = p["threshold"].as_f64().unwrap();
        let left_out = p["parent_flagged"].as_u64().unwrap();
        if t <= 0.625 {
            assert_eq!(left_out, 0, "at {t}");
        } else if t <= 1.0 {
            assert_eq!(left_out, 4, "at {t}");
            assert_eq!(p["detection"]["n"], 23, "at {t}");
        }
    }
    let human = stdout_of(&["sweep", SUITE]);
    assert!(
        human.contains("(parent: fault mutants whose parent claim is flagged at that threshold"),
        "{human}"
    );
}

#[test]
fn two_checkers_are_compared_at_the_same_false_alarm_rate_and_threshold_free() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("faithprobe.yaml"), STRICT).unwrap();
    let suite = root().join(SUITE);
    let args = [
        "compare",
        suite.to_str().unwrap(),
        "--cluster-by",
        "claim",
        "--checker",
        "lexical",
        "--checker",
        "strict",
        "--format",
        "json",
    ];
    let (code, out, err) = output(faithprobe_in(d.path()).args(args));
    assert!(code == 0 || code == 1, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let m = &v["matched"];
    // the base's own false-alarm rate, 1/8, is the budget; strict (threshold 0.9) is held to it
    assert_eq!(m["budget_from"], "the base's own false-alarm rate");
    assert_eq!(m["sides"][0]["false_alarms"]["k"], 1);
    assert_eq!(m["sides"][1]["false_alarms"]["k"], 1);
    assert_eq!(m["sides"][1]["threshold"], m["sides"][0]["threshold"]);
    // the two are the same scores at another threshold: at matched false alarms no difference,
    // although strict catches more at its own threshold (by flagging more of everything)
    assert_eq!(m["better_at_own"], "candidate");
    assert_eq!(m["better_matched"], "neither");
    assert_eq!(m["rows"][0]["fault_type"], "all faults");
    assert_eq!(m["rows"][0]["base"]["k"], m["rows"][0]["candidate"]["k"]);
    let free = &m["threshold_free"];
    assert_eq!(free["difference"], 0.0);
    assert!(free["faults"].as_u64().unwrap() > 0);

    let human = args[..8].to_vec();
    let (_, out, _) = output(faithprobe_in(d.path()).args(&human));
    assert!(
        out.contains("At the same false-alarm rate: 0.12 (the base's own false-alarm rate)"),
        "{out}"
    );
    assert!(out.contains("threshold-free:"), "{out}");
    assert!(
        out.contains("the verdict at each checker's own threshold differs from the verdict at the same false-alarm rate"),
        "{out}"
    );
    // a chosen budget
    let mut budget = human.clone();
    budget.extend(["--at-false-alarm", "0.4", "--format", "json"]);
    let (_, out, _) = output(faithprobe_in(d.path()).args(&budget));
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["matched"]["budget"], 0.4);
    assert_eq!(v["matched"]["budget_from"], "--at-false-alarm");
    assert!(
        v["matched"]["sides"][0]["false_alarms"]["k"]
            .as_u64()
            .unwrap()
            <= 3
    );
}

#[test]
fn the_gap_to_real_errors_is_measured_with_a_reproducible_interval_and_warned_past_the_margin() {
    let v = &json_lines(&["run", SUITE, "--format", "json"])[0];
    let r = &v["real_errors"];
    assert_eq!(r["real_errors"], 6);
    assert_eq!(r["contexts"], 2);
    let g = &r["gaps"][0];
    assert_eq!(
        (g["real"]["k"].as_u64(), g["real"]["n"].as_u64()),
        (Some(4), Some(6))
    );
    // the informative mutants only: h-f4's are not among them
    assert_eq!(g["mutants"]["n"], 17);
    let gap = g["gap"].as_f64().unwrap();
    assert!((gap - (7.0 / 17.0 - 4.0 / 6.0)).abs() < 1e-9, "{gap}");
    assert!(g["ci_low"].as_f64().unwrap() <= gap && gap <= g["ci_high"].as_f64().unwrap());
    assert_eq!(g["exceeds"], true);
    // seeded: the same interval twice
    let again = &json_lines(&["run", SUITE, "--format", "json"])[0];
    assert_eq!(again["real_errors"], *r);
    // a wider margin: no warning
    let wide = &json_lines(&["run", SUITE, "--format", "json", "--max-gap", "0.5"])[0];
    assert_eq!(wide["real_errors"]["gaps"][0]["exceeds"], false);
    assert!(wide["real_errors"]["warnings"]
        .as_array()
        .unwrap()
        .is_empty());

    let human = stdout_of(&["run", SUITE]);
    assert!(
        human.contains("Mutants against real errors (6 real errors in 2 contexts)"),
        "{human}"
    );
    assert!(human.contains("more than --max-gap 0.10"), "{human}");
    // a suite without real errors has no such section
    assert!(!stdout_of(&["run", "suites/larkspur.yaml"]).contains("Mutants against real errors"));
}

#[test]
fn a_margin_or_budget_outside_zero_to_one_is_a_usage_error() {
    for bad in ["1.5", "-0.1", "NaN", "x"] {
        let flag = format!("--max-gap={bad}");
        let (code, o) = combined(faithprobe().args(["run", SUITE, flag.as_str()]));
        assert_eq!(code, 2, "{bad}: {o}");
        assert!(o.contains("is not a number between 0 and 1"), "{o}");
    }
}

#[test]
fn the_audit_of_two_checkers_compares_them_at_the_same_false_alarm_rate_and_against_real_errors() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("faithprobe.yaml"), STRICT).unwrap();
    let suite = root().join(SUITE);
    let (code, _, err) = output(faithprobe_in(d.path()).args([
        "report",
        suite.to_str().unwrap(),
        "--checker",
        "lexical",
        "--checker",
        "strict",
        "--out",
        "audit",
    ]));
    assert_eq!(code, 0, "{err}");
    let md = std::fs::read_to_string(d.path().join("audit/report.md")).unwrap();
    assert!(md.contains("## What the mutation scores are worth"), "{md}");
    assert!(
        md.contains("### strict against lexical at the same false-alarm rate"),
        "{md}"
    );
    assert!(
        md.contains("| false alarms (held equal) | 1/8 0.12"),
        "{md}"
    );
    assert!(
        md.contains("### Mutants against real errors (6 real errors in 2 contexts)"),
        "{md}"
    );
    let html = std::fs::read_to_string(d.path().join("audit/report.html")).unwrap();
    assert!(html.contains("<h2>What the mutation scores are worth</h2>"));
}

#[test]
fn a_record_whose_mutant_was_given_another_parent_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let rec = d.path().join("r.json");
    stdout_with(0, &["run", SUITE, "--record", rec.to_str().unwrap()]);
    let mut v: Value = serde_json::from_slice(&std::fs::read(&rec).unwrap()).unwrap();
    // re-parent h-f4's mutants to h-f1 and call them caught: what would hide a flagged parent
    for c in v["runs"][0]["cases"].as_array_mut().unwrap() {
        if c["parent"] == "h-f4" && c["kind"] == "mutant" {
            c["parent"] = "h-f1".into();
            c["outcome"] = if c["verdict"] == "supported" {
                "missed"
            } else {
                "caught"
            }
            .into();
        }
    }
    let forged = d.path().join("forged.json");
    std::fs::write(&forged, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    let (code, o) =
        combined(faithprobe().args(["compare", rec.to_str().unwrap(), forged.to_str().unwrap()]));
    assert_eq!(code, 2, "{o}");
    assert!(o.contains("does not fit its id"), "{o}");
}

#[test]
fn shard_records_with_a_case_left_out_or_moved_do_not_merge() {
    let d = tempfile::tempdir().unwrap();
    let suite = root().join(SUITE);
    let shard = |k: u32| {
        let p = d.path().join(format!("s{k}.json"));
        let (code, _, err) = output(faithprobe_in(d.path()).args([
            "run",
            suite.to_str().unwrap(),
            "--shard",
            &format!("{k}/3"),
            "--record",
            p.to_str().unwrap(),
        ]));
        assert_eq!(code, 0, "{err}");
        p
    };
    let paths: Vec<_> = (1..=3).map(shard).collect();
    let read = |p: &std::path::Path| -> Value {
        serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
    };
    let merge = |files: &[&std::path::Path]| {
        let out = d.path().join("m.json");
        let mut args = vec!["merge".to_string()];
        args.extend(files.iter().map(|p| p.to_str().unwrap().to_string()));
        args.extend(["--out".to_string(), out.to_str().unwrap().to_string()]);
        combined(faithprobe_in(d.path()).args(&args))
    };
    let (code, o) = merge(&[&paths[0], &paths[1], &paths[2]]);
    assert_eq!(code, 0, "the honest shards merge: {o}");
    // a case deleted from the second shard
    let mut v = read(&paths[1]);
    v["runs"][0]["cases"].as_array_mut().unwrap().remove(0);
    let cut = d.path().join("cut.json");
    std::fs::write(&cut, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    let (code, o) = merge(&[&paths[0], &cut, &paths[2]]);
    assert_eq!(code, 2, "{o}");
    assert!(o.contains("leave out or repeat position"), "{o}");
    // a case moved from the second shard to the third
    let mut two = read(&paths[1]);
    let mut three = read(&paths[2]);
    let moved = two["runs"][0]["cases"].as_array_mut().unwrap().remove(0);
    three["runs"][0]["cases"]
        .as_array_mut()
        .unwrap()
        .push(moved);
    let (two_p, three_p) = (d.path().join("two.json"), d.path().join("three.json"));
    std::fs::write(&two_p, serde_json::to_string_pretty(&two).unwrap()).unwrap();
    std::fs::write(&three_p, serde_json::to_string_pretty(&three).unwrap()).unwrap();
    let (code, o) = merge(&[&paths[0], &two_p, &three_p]);
    assert_eq!(code, 2, "{o}");
    assert!(o.contains("the shard records were edited"), "{o}");
}
