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
    let (code, out, err) = output(faithprobe_in(d.path()).args([
        "sweep",
        base.to_str().unwrap(),
        "--svg",
        "chart.svg",
    ]));
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("all faults (mix: pooled, cap 1)"), "{out}");
    // the chart's legend, and the matched comparison, name the cap too
    let svg = std::fs::read_to_string(d.path().join("chart.svg")).unwrap();
    assert!(svg.contains("all faults (mix: pooled, cap 1)"), "{svg}");
    let (_, out, _) = output(faithprobe_in(d.path()).args([
        "compare",
        base.to_str().unwrap(),
        cand.to_str().unwrap(),
        "--at-false-alarm",
        "0.2",
    ]));
    assert!(
        out.matches("all faults (mix: pooled, cap 1)").count() >= 2,
        "{out}"
    );
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

#[test]
fn compound_faults_are_listed_with_the_rewrite_they_sit_in() {
    let listed = stdout_of(&["mutants", "suites/larkspur.yaml", "--compound"]);
    assert!(
        listed.contains("49 mutants (17 of them compound: a fault in a rewrite) and 8 rewrites"),
        "{listed}"
    );
    // "The current month isn't refunded when a Team plan is cancelled." with Enterprise for Team
    let at = listed
        .find("The current month isn't refunded when an Enterprise plan is cancelled.")
        .expect("a compound entity swap of f06's contraction");
    let next = listed[at..].lines().nth(1).unwrap();
    assert!(
        next.trim_start()
            .starts_with("compound: entity_swap in rewrite m-")
            && next.ends_with("The current month isn't refunded when a Team plan is cancelled."),
        "{next}"
    );
    // negating the rewrite that moved the condition back gives the plain negation: kept there
    assert!(
        listed.contains("note: skipped negation_flip (compound) of f06 (a compound fault that is word for word a plain mutant of the claim; it is kept as the plain one)"),
        "{listed}"
    );
    // "fifty GB" doubled is "hundred GB": the grammar guard refuses it
    assert!(
        listed.contains("note: skipped number_swap (compound) of f09 (the edit left a scale word without its number (\"gets hundred GB\" for \"a hundred\")): Each Team user gets hundred GB of storage."),
        "{listed}"
    );
    assert!(!listed.contains("m-58d57b62000f6175"), "{listed}");
    let json = stdout_of(&[
        "mutants",
        "suites/larkspur.yaml",
        "--compound",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(json.lines().next().unwrap()).unwrap();
    let compound = v["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["compound_of"].is_string())
        .count();
    assert_eq!(compound, 17);
    // without --compound there are none, and the list is what it always was
    let plain = stdout_of(&["mutants", "suites/larkspur.yaml"]);
    assert!(plain.contains("32 mutants and 8 rewrites"), "{plain}");
    assert!(!plain.contains("compound"), "{plain}");
}

/// Larkspur in `dir` with every compound entity swap and negation reviewed `fault` (a person
/// read them: each is a real fault), and a config that turns compound faults on.
fn larkspur_with_compound_reviews(dir: &std::path::Path) {
    let suite = dir.join("larkspur.yaml");
    let mut text = std::fs::read_to_string(root().join("suites/larkspur.yaml")).unwrap();
    let json = stdout_of(&[
        "mutants",
        "suites/larkspur.yaml",
        "--compound",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(json.lines().next().unwrap()).unwrap();
    // a person read them: every compound entity swap and negation is a real fault
    let mut reviewed = 0;
    for m in v["mutants"].as_array().unwrap() {
        let op = m["operator"].as_str().unwrap();
        if m["compound_of"].is_string() && (op == "entity_swap" || op == "negation_flip") {
            text.push_str(&format!(
                "  {}: {{review: fault}}\n",
                m["id"].as_str().unwrap()
            ));
            reviewed += 1;
        }
    }
    assert_eq!(reviewed, 10);
    std::fs::write(&suite, text).unwrap();
    std::fs::write(dir.join("faithprobe.yaml"), "mutators:\n  compound: true\n").unwrap();
}

#[test]
fn reviewed_compound_faults_count_in_their_fault_types_row_and_show_beside_the_plain_ones() {
    let d = tempfile::tempdir().unwrap();
    larkspur_with_compound_reviews(d.path());
    let (code, out, err) = output(faithprobe_in(d.path()).args(["run", "larkspur.yaml"]));
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("Plain and compound faults per fault type"),
        "{out}"
    );
    let row = |name: &str| {
        out.lines()
            .filter(|l| l.trim_start().starts_with(name))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    // entity_swap: 9 plain and 7 compound in one row of the catch-rate table, and apart below
    let entity = row("entity_swap");
    assert!(entity[0].contains("16/16"), "{entity:?}");
    assert!(
        entity[1].contains("9/9 1.00 [0.70, 1.00]") && entity[1].contains("7/7 1.00 [0.65, 1.00]"),
        "{entity:?}"
    );
    // the lexical checker misses two of the compound negations it catches in the plain claim:
    // a fault in paraphrased text is harder, as real errors are
    let all = row("all faults (mix: pooled)");
    assert!(all[0].contains("32/39   0.82"), "{all:?}");
    assert!(
        all[1].contains("24/29 0.83") && all[1].contains("8/10 0.80"),
        "{all:?}"
    );
    let negation = row("negation_flip");
    assert!(
        negation[1].contains("7/9 0.78") && negation[1].contains("1/3 0.33"),
        "{negation:?}"
    );

    let rec = d.path().join("run.json");
    let (code, out, err) = output(faithprobe_in(d.path()).args([
        "run",
        "larkspur.yaml",
        "--format",
        "json",
        "--record",
        rec.to_str().unwrap(),
    ]));
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    let entity = v["summary"]["fault_types"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["fault_type"] == "entity_swap")
        .unwrap()
        .clone();
    assert_eq!(entity["compound"]["compound"]["k"], 7);
    assert_eq!(entity["compound"]["plain"]["n"], 9);
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&rec).unwrap()).unwrap();
    let marked = record["runs"][0]["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["compound"] == true)
        .count();
    assert_eq!(marked, 17);
    // a report from the record shows the split too
    let audit = d.path().join("audit");
    let (code, _, err) = output(faithprobe_in(d.path()).args([
        "report",
        rec.to_str().unwrap(),
        "--out",
        audit.to_str().unwrap(),
    ]));
    assert_eq!(code, 0, "{err}");
    let md = std::fs::read_to_string(audit.join("report.md")).unwrap();
    assert!(md.contains("plain and compound faults"), "{md}");
    assert!(
        md.contains("| entity_swap | 9/9 1.00 [0.70, 1.00] | 7/7 1.00 [0.65, 1.00] | 0 |"),
        "{md}"
    );
}
