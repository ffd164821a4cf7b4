//! The declared mix of the "all faults" row: `--mix` and `mix:` in faithprobe.yaml, the label
//! every pooled figure carries, weights files and their errors.

use crate::common::{faithprobe, faithprobe_in, output, root, stdout_of};

fn larkspur() -> String {
    root().join("suites/larkspur.yaml").display().to_string()
}

#[test]
fn the_all_faults_row_says_it_is_pooled_by_default_with_the_larkspur_figures() {
    let out = stdout_of(&["run", "suites/larkspur.yaml"]);
    assert!(
        out.contains("all faults (mix: pooled)   24/29   0.83  [0.65, 0.92]  [0.60, 0.94]"),
        "{out}"
    );
    let md = stdout_of(&["run", "suites/larkspur.yaml", "--format", "markdown"]);
    assert!(
        md.contains("| all faults caught (mix: pooled) | 24/29 | 0.83 |"),
        "{md}"
    );
}

#[test]
fn a_uniform_mix_weighs_every_fault_type_with_faults_the_same_and_keeps_the_pooled_count_beside_it()
{
    let out = stdout_of(&["run", "suites/larkspur.yaml", "--mix", "uniform"]);
    // number_swap 6/6, negation_flip 7/9, entity_swap 9/9, dropped_condition 0/2 and the three
    // hard-case types 1/1, 1/1, 0/1: (1 + 7/9 + 1 + 0 + 1 + 1 + 0) / 7 = 0.68
    assert!(
        out.contains("all faults (mix: uniform)   24/29   0.68  [0.41, 0.87]  -"),
        "{out}"
    );
    assert!(
        out.contains("(7 types); stratified interval, Wilson on an effective n of 12.6; pooled over every fault it is 24/29 0.83 [0.65, 0.92])"),
        "{out}"
    );
    let json = stdout_of(&[
        "run",
        "suites/larkspur.yaml",
        "--mix",
        "uniform",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(json.lines().next().unwrap()).unwrap();
    let mix = &v["summary"]["all_faults_mix"];
    assert_eq!(mix["mix"], "uniform");
    assert_eq!(mix["method"], "stratified");
    assert_eq!(mix["label"], "all faults (mix: uniform)");
    let rate = mix["rate"].as_f64().unwrap();
    assert!((rate - (4.0 + 7.0 / 9.0) / 7.0).abs() < 1e-12, "{mix}");
    // the plain pooled count is still there, unchanged
    assert_eq!(v["summary"]["all_faults"]["k"], 24);
    assert_eq!(v["summary"]["all_faults"]["n"], 29);
}

#[test]
fn a_weights_file_in_the_config_renormalises_over_present_types_and_warns_about_the_rest() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("weights.yaml"),
        "# shares of the fault types in our own labelled answers, Q3 review\nentity_swap: 0.4\nnumber_swap: 0.2\nnegation_flip: 0.2\ndate_shift: 0.2\n",
    )
    .unwrap();
    std::fs::write(d.path().join("faithprobe.yaml"), "mix: file:weights.yaml\n").unwrap();
    let (code, out, err) = output(faithprobe_in(d.path()).args(["run", &larkspur()]));
    assert_eq!(code, 0, "{err}");
    let mix_name = "file:weights.yaml";
    assert!(
        err.contains(&format!("mix {mix_name} weighs fault types with no scored fault in this suite: date_shift; they are left out and the other weights renormalised")),
        "{err}"
    );
    // (0.4 * 9/9 + 0.2 * 6/6 + 0.2 * 7/9) / 0.8 = 0.94
    assert!(
        out.contains(&format!("all faults (mix: {mix_name})   22/24   0.94")),
        "{out}"
    );
    assert!(
        out.contains("left out and the rest renormalised: date_shift"),
        "{out}"
    );
    assert!(
        out.contains("in no all-faults figure: dropped_condition, added_fact, derived_number_wrong, two_facts_one_wrong"),
        "{out}"
    );
    // the flag wins over the file
    let (code, out, _) =
        output(faithprobe_in(d.path()).args(["run", &larkspur(), "--mix", "pooled"]));
    assert_eq!(code, 0);
    assert!(out.contains("all faults (mix: pooled)"), "{out}");
}

#[test]
fn a_bad_weights_file_is_an_error_naming_its_file_and_line_before_any_work() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("weights.yaml"),
        "number_swap: 0.3\n# from the RAGTruth paper\nentity_swap: \"17 per cent\"\n",
    )
    .unwrap();
    let (code, out, err) =
        output(faithprobe_in(d.path()).args(["run", &larkspur(), "--mix", "file:weights.yaml"]));
    assert_eq!(code, 2, "{out}{err}");
    assert!(out.is_empty(), "{out}");
    assert!(err.contains("weights.yaml:3"), "{err}");
    assert!(
        err.contains("the weight of `entity_swap` must be a non-negative number"),
        "{err}"
    );
    assert!(err.contains("write `entity_swap: 0.25`"), "{err}");
    assert!(!err.contains("scored"), "nothing runs: {err}");
}

#[test]
fn an_unknown_mix_is_a_usage_error_from_the_flag_and_an_input_error_from_the_config() {
    let (code, _, err) =
        output(faithprobe().args(["run", "suites/larkspur.yaml", "--mix", "ragtruth"]));
    assert_eq!(code, 2);
    assert!(err.contains("--mix: unknown mix `ragtruth`"), "{err}");
    assert!(err.contains("file:PATH"), "{err}");
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("faithprobe.yaml"),
        "checkers:\n  strict: {kind: lexical, threshold: 0.9}\nmix: faithbench\n",
    )
    .unwrap();
    let (code, _, err) = output(faithprobe_in(d.path()).args(["run", &larkspur()]));
    assert_eq!(code, 2);
    assert!(err.contains("faithprobe.yaml:3"), "{err}");
    assert!(err.contains("unknown mix `faithbench`"), "{err}");
}

#[test]
fn the_audit_report_labels_its_all_faults_row_with_the_mix() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("audit");
    let (code, _, err) = output(faithprobe().args([
        "report",
        "suites/larkspur.yaml",
        "--out",
        out.to_str().unwrap(),
        "--mix",
        "uniform",
    ]));
    assert_eq!(code, 0, "{err}");
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        md.contains("| all faults caught (mix: uniform) | 24/29 | 0.68 |"),
        "{md}"
    );
    assert!(
        md.contains("Mix uniform: the all-faults rate weighs each fault type's own rate (7 types)"),
        "{md}"
    );
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("all faults caught (mix: uniform)"));
}

#[test]
fn compare_and_sweep_say_their_all_faults_figures_are_pooled() {
    // one checker against itself: no row could fail, so no verdict (exit 3), but every row shown
    let (_, out, _) = output(faithprobe().args([
        "compare",
        "--checker",
        "lexical",
        "--checker",
        "lexical",
        "suites/larkspur.yaml",
    ]));
    assert!(out.contains("all faults (mix: pooled) 24/29"), "{out}");
    let sweep = stdout_of(&["sweep", "suites/larkspur.yaml", "--checker", "lexical"]);
    assert!(sweep.contains("all faults (mix: pooled)"), "{sweep}");
}

#[test]
fn a_suite_declares_its_own_mix_which_the_flag_overrides_and_a_bad_one_names_its_line() {
    let d = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(larkspur()).unwrap();
    std::fs::write(d.path().join("s.yaml"), format!("{text}mix: uniform\n")).unwrap();
    let (code, out, err) = output(faithprobe_in(d.path()).args(["run", "s.yaml"]));
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("all faults (mix: uniform)"), "{out}");
    let (_, out, _) = output(faithprobe_in(d.path()).args(["run", "s.yaml", "--mix", "pooled"]));
    assert!(out.contains("all faults (mix: pooled)   24/29"), "{out}");
    let lines = text.lines().count();
    std::fs::write(d.path().join("s.yaml"), format!("{text}mix: by-vibes\n")).unwrap();
    let (code, out, err) = output(faithprobe_in(d.path()).args(["run", "s.yaml"]));
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains(&format!("s.yaml:{}", lines + 1)), "{err}");
    assert!(
        out.is_empty(),
        "nothing is reported on a mix that does not read: {out}"
    );
}
