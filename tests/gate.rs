//! End-to-end tests of the gate: run records, paired comparison, calculators, CI outputs.

use crate::common;

use crate::common::{combined, faithprobe_in as faithprobe, root};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Writes the base record of the Larkspur suite with the lexical checker.
fn base_record(dir: &Path) -> PathBuf {
    let path = dir.join("base.json");
    let suite = root().join("suites/larkspur.yaml");
    faithprobe(dir)
        .args([
            "run",
            suite.to_str().unwrap(),
            "--record",
            path.to_str().unwrap(),
        ])
        .assert()
        .success();
    path
}

fn edit(record: &Path, out: &Path, f: impl Fn(&mut Value)) {
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(record).unwrap()).unwrap();
    f(&mut v);
    std::fs::write(out, serde_json::to_string_pretty(&v).unwrap()).unwrap();
}

#[test]
fn calculators_reproduce_the_seed_figures() {
    let d = tempfile::tempdir().unwrap();
    let (_, o) = combined(faithprobe(d.path()).args(["stats", "mcnemar", "18", "7"]));
    assert!(o.contains("p = 0.0433"), "{o}");
    let (_, o) = combined(faithprobe(d.path()).args(["stats", "wilson", "9", "9"]));
    assert!(o.contains("[0.7009, 1.0000]"), "{o}");
    let (_, o) = combined(faithprobe(d.path()).args(["stats", "wilson", "0", "12"]));
    assert!(o.contains("[0.0000, 0.2425]"), "{o}");
    let (_, o) = combined(faithprobe(d.path()).args([
        "stats",
        "sample-size",
        "--rate",
        "0.9",
        "--margin",
        "0.05",
    ]));
    // the Wilson solve (the seed's 139 was the normal approximation)
    assert!(o.starts_with("141 labelled cases"), "{o}");
    let (code, o) = combined(faithprobe(d.path()).args(["stats", "wilson", "5", "3"]));
    assert_eq!(code, 2, "{o}");
}

#[test]
fn identical_records_pass_the_gate() {
    let d = tempfile::tempdir().unwrap();
    let base = base_record(d.path());
    let (code, o) = combined(faithprobe(d.path()).args([
        "compare",
        "--cluster-by",
        "claim",
        base.to_str().unwrap(),
        base.to_str().unwrap(),
    ]));
    assert_eq!(code, 0, "{o}");
    assert!(o.contains("gate passed: 0 newly missed"), "{o}");
}

#[test]
fn a_newly_missed_fault_fails_the_gate_and_is_listed() {
    let d = tempfile::tempdir().unwrap();
    let base = base_record(d.path());
    let cand = d.path().join("cand.json");
    // the candidate passes one entity swap the base caught
    edit(&base, &cand, |v| {
        let case = v["runs"][0]["cases"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .find(|c| c["id"] == "m-c96bcca3cf7684fe")
            .unwrap();
        assert_eq!(case["outcome"], "caught");
        case["outcome"] = "missed".into();
        case["verdict"] = "supported".into();
        case["score"] = 0.97.into();
    });
    // one miss is far from significant: the statistical gate passes and lists it
    let (code, o) = combined(faithprobe(d.path()).args([
        "compare",
        "--cluster-by",
        "claim",
        base.to_str().unwrap(),
        cand.to_str().unwrap(),
    ]));
    assert_eq!(code, 0, "{o}");
    assert!(o.contains("newly_missed     m-c96bcca3cf7684fe"), "{o}");
    // the zero-tolerance rule fails it, and says it is a rule
    let (code, o) = combined(faithprobe(d.path()).args([
        "compare",
        "--cluster-by",
        "claim",
        base.to_str().unwrap(),
        cand.to_str().unwrap(),
        "--max-new-misses",
        "0",
    ]));
    assert_eq!(code, 1, "{o}");
    assert!(o.contains("newly_missed     m-c96bcca3cf7684fe"), "{o}");
    assert!(
        o.contains("The Enterprise plan costs €12 per user per month."),
        "{o}"
    );
    assert!(
        o.contains("gate failed: 1 fault(s) newly missed, more than --max-new-misses 0 (a rule, no error rate)"),
        "{o}"
    );
    // allowed by --max-new-misses, and one miss is far from significant
    let (code, o) = combined(faithprobe(d.path()).args([
        "compare",
        "--cluster-by",
        "claim",
        base.to_str().unwrap(),
        cand.to_str().unwrap(),
        "--max-new-misses",
        "1",
    ]));
    assert_eq!(code, 0, "{o}");
}

#[test]
fn the_machine_formats_carry_a_newly_missed_fault() {
    let d = tempfile::tempdir().unwrap();
    let base = base_record(d.path());
    let cand = d.path().join("cand.json");
    // the candidate passes one entity swap the base caught
    edit(&base, &cand, |v| {
        let case = v["runs"][0]["cases"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .find(|c| c["id"] == "m-c96bcca3cf7684fe")
            .unwrap();
        assert_eq!(case["outcome"], "caught");
        case["outcome"] = "missed".into();
        case["verdict"] = "supported".into();
        case["score"] = 0.97.into();
    });
    // the machine formats carry the same regression
    let (_, md) = combined(faithprobe(d.path()).args([
        "compare",
        "--cluster-by",
        "claim",
        base.to_str().unwrap(),
        cand.to_str().unwrap(),
        "--max-new-misses",
        "0",
        "--format",
        "markdown",
    ]));
    assert!(
        md.contains("❌ gate failed") && md.contains("| newly_missed | m-c96bcca3cf7684fe |"),
        "{md}"
    );
    let (_, xml, _) = common::output(faithprobe(d.path()).args([
        "compare",
        "--cluster-by",
        "claim",
        base.to_str().unwrap(),
        cand.to_str().unwrap(),
        "--format",
        "junit",
    ]));
    let case = common::junit_case(&xml, "m-c96bcca3cf7684fe");
    assert_eq!(common::junit_failure(&case), Some("newly_missed"), "{xml}");
    let (_, json) = combined(faithprobe(d.path()).args([
        "compare",
        "--cluster-by",
        "claim",
        base.to_str().unwrap(),
        cand.to_str().unwrap(),
        "--format",
        "json",
    ]));
    let v: Value = serde_json::from_str(json.lines().next().unwrap()).unwrap();
    assert_eq!(v["newly_missed"], 1);
    let entity = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["group"] == "entity_swap")
        .unwrap();
    assert_eq!(
        (entity["better"].as_u64(), entity["worse"].as_u64()),
        (Some(0), Some(1))
    );
    assert_eq!(entity["p_value"].as_f64(), Some(1.0));
}

#[test]
fn a_significantly_worse_fault_type_fails_after_all_faults_when_claims_are_the_clusters() {
    let d = tempfile::tempdir().unwrap();
    let base = base_record(d.path());
    let cand = d.path().join("cand.json");
    // every one of the 9 entity swaps (of 9 claims) is newly missed: one-sided p = 0.5^9 = 0.0020,
    // Holm over the 2 rows that can reach significance (Tarone) gives 0.0039
    edit(&base, &cand, |v| {
        for c in v["runs"][0]["cases"].as_array_mut().unwrap() {
            if c["fault_type"] == "entity_swap" {
                c["outcome"] = "missed".into();
                c["verdict"] = "supported".into();
            }
        }
    });
    // Larkspur is one context: clustered by context (the default) nothing can be significant,
    // so there is no verdict (a gate never passes on nothing), and the report says what would
    // be needed
    let (code, o) = combined(faithprobe(d.path()).args([
        "compare",
        base.to_str().unwrap(),
        cand.to_str().unwrap(),
    ]));
    assert_eq!(code, 3, "{o}");
    assert!(
        o.contains("no verdict: no gating row can fail: at most 1 contexts at risk in a row, and a row needs at least 5 at alpha 0.05; add contexts, pass --cluster-by claim if the claims of one context do not move together, or set a rule such as --max-new-misses 0"),
        "{o}"
    );
    assert!(
        o.contains("no drop detectable in every row: at most 1 context at risk in a row (the smallest reachable p is 0.5000), so the test cannot reach significance and a pass there is not evidence; a row needs at least 5 contexts at risk to fail at alpha 0.05: add contexts, or pass --cluster-by claim"),
        "{o}"
    );
    // by claim: all faults is significantly worse first, then the fault type, at the level all
    // faults passed on (the gatekeeping family: the 9 claims count once against alpha)
    let (code, o) = combined(faithprobe(d.path()).args([
        "compare",
        base.to_str().unwrap(),
        cand.to_str().unwrap(),
        "--cluster-by",
        "claim",
    ]));
    assert_eq!(code, 1, "{o}");
    assert!(
        o.contains("all faults: significantly worse (9 worse, 0 better, 9 claim(s) changed; one-sided p = 0.0020, adjusted (holm, Tarone's m = 1) 0.0020 < 0.05)"),
        "{o}"
    );
    assert!(
        o.contains("entity_swap: significantly worse (9 worse, 0 better, 9 claim(s) changed; one-sided p = 0.0020, adjusted (holm, Tarone's m = 1, among the fault types at the level 0.0500 all faults passed on) 0.0020 < 0.05)"),
        "{o}"
    );
}

fn as_error(case: &mut Value) {
    case["outcome"] = "error".into();
    case["verdict"] = Value::Null;
    case["score"] = Value::Null;
    case["evidence_passage"] = Value::Null;
    case["evidence_window"] = Value::Null;
    case["error"] = "timeout".into();
}

#[test]
fn an_error_in_the_candidate_is_never_a_pass() {
    let d = tempfile::tempdir().unwrap();
    let base = base_record(d.path());
    let cand = d.path().join("cand.json");
    edit(&base, &cand, |v| {
        let case = &mut v["runs"][0]["cases"][0];
        assert_eq!(case["id"], "f01");
        as_error(case);
        // a claim the checker could not score: its fault mutants are not informative
        for c in v["runs"][0]["cases"].as_array_mut().unwrap() {
            if c["parent"] == "f01" && (c["outcome"] == "caught" || c["outcome"] == "missed") {
                c["outcome"] = "parent_flagged".into();
            }
        }
    });
    let (code, o) = combined(faithprobe(d.path()).args([
        "compare",
        base.to_str().unwrap(),
        cand.to_str().unwrap(),
    ]));
    // counted as `run` counts it: in no rate, listed, and no verdict (exit 3), never a pass
    assert_eq!(code, 3, "{o}");
    assert!(o.contains("false alarms             2/15"), "{o}");
    assert!(o.contains("f01                candidate timeout"), "{o}");
    assert!(
        o.contains("no verdict: the candidate could not score 1 case(s)"),
        "{o}"
    );
    assert!(
        !o.contains("gate passed") && !o.contains("new_false_alarm  f01"),
        "{o}"
    );
}

#[test]
fn a_candidate_that_failed_on_every_case_or_dead_against_dead_is_an_error_never_a_pass() {
    let d = tempfile::tempdir().unwrap();
    let base = base_record(d.path());
    let dead = d.path().join("dead.json");
    edit(&base, &dead, |v| {
        for case in v["runs"][0]["cases"].as_array_mut().unwrap() {
            as_error(case);
        }
    });
    for (b, c) in [(&base, &dead), (&dead, &dead)] {
        let (code, o) = combined(faithprobe(d.path()).args([
            "compare",
            b.to_str().unwrap(),
            c.to_str().unwrap(),
        ]));
        assert_eq!(code, 2, "{o}");
        assert!(o.contains("every case that counts is an error"), "{o}");
    }
    // a fault type whose every case the candidate failed on has no verdict
    let partly = d.path().join("partly.json");
    edit(&base, &partly, |v| {
        for case in v["runs"][0]["cases"].as_array_mut().unwrap() {
            if case["fault_type"] == "entity_swap" {
                as_error(case);
            }
        }
    });
    let (code, o) = combined(faithprobe(d.path()).args([
        "compare",
        base.to_str().unwrap(),
        partly.to_str().unwrap(),
    ]));
    assert_eq!(code, 3, "{o}");
    assert!(
        o.contains("no verdict: entity_swap: all 9 case(s) are errors"),
        "{o}"
    );
    // two configured checkers that both fail on everything
    std::fs::write(
        d.path().join("faithprobe.yaml"),
        "checkers:\n  dead: {kind: command, argv: [\"false\"]}\n  dead2: {kind: command, argv: [\"false\"]}\n",
    )
    .unwrap();
    let (code, o) = combined(faithprobe(d.path()).args([
        "compare",
        "--checker",
        "dead",
        "--checker",
        "dead2",
        root().join("suites/larkspur.yaml").to_str().unwrap(),
    ]));
    assert_eq!(code, 2, "{o}");
    assert!(o.contains("every case that counts is an error"), "{o}");
}

#[test]
fn a_shard_record_is_not_a_whole_record() {
    let d = tempfile::tempdir().unwrap();
    let base = base_record(d.path());
    let shard = d.path().join("shard.json");
    faithprobe(d.path())
        .args([
            "run",
            root().join("suites/larkspur.yaml").to_str().unwrap(),
            "--shard",
            "1/2",
            "--record",
            shard.to_str().unwrap(),
        ])
        .assert()
        .success();
    let (code, o) = combined(faithprobe(d.path()).args([
        "compare",
        base.to_str().unwrap(),
        shard.to_str().unwrap(),
    ]));
    assert_eq!(code, 2, "{o}");
    assert!(
        o.contains("shard 1/2 only") && o.contains("faithprobe merge"),
        "{o}"
    );
}

#[test]
fn cases_in_only_one_record_are_listed_not_dropped() {
    let d = tempfile::tempdir().unwrap();
    let base = base_record(d.path());
    let cand = d.path().join("cand.json");
    edit(&base, &cand, |v| {
        v["runs"][0]["cases"]
            .as_array_mut()
            .unwrap()
            .retain(|c| c["id"] != "h05");
    });
    let (code, o) = combined(faithprobe(d.path()).args([
        "compare",
        "--cluster-by",
        "claim",
        base.to_str().unwrap(),
        cand.to_str().unwrap(),
    ]));
    assert_eq!(code, 0, "{o}");
    assert!(
        o.contains("1 cases only in the base record (not compared): larkspur-help-center/h05"),
        "{o}"
    );
}

#[test]
fn a_malformed_record_names_its_file_and_line() {
    let d = tempfile::tempdir().unwrap();
    let bad = d.path().join("bad.json");
    std::fs::write(
        &bad,
        "{\n  \"faithprobe_record\": 1,\n  \"runs\": [oops]\n}\n",
    )
    .unwrap();
    let (code, o) = combined(faithprobe(d.path()).args([
        "compare",
        bad.to_str().unwrap(),
        bad.to_str().unwrap(),
    ]));
    assert_eq!(code, 2, "{o}");
    assert!(o.contains(&format!("{}:3", bad.display())), "{o}");
}

#[test]
fn compare_runs_two_configured_checkers_on_suites() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("faithprobe.yaml"),
        "checkers:\n  single: {kind: lexical, max_window_sentences: 1}\n",
    )
    .unwrap();
    let suite = root().join("suites/larkspur.yaml");
    let (code, o) = combined(faithprobe(d.path()).args([
        "compare",
        "--cluster-by",
        "claim",
        "--checker",
        "lexical",
        "--checker",
        "single",
        suite.to_str().unwrap(),
    ]));
    assert!(code == 0 || code == 1, "{o}");
    assert!(o.contains("compare base lexical → candidate single"), "{o}");
    assert!(o.contains("all faults"), "{o}");
}

#[test]
fn run_writes_junit_with_failures_for_missed_faults() {
    let d = tempfile::tempdir().unwrap();
    let suite = root().join("suites/larkspur.yaml");
    let (code, xml) =
        combined(faithprobe(d.path()).args(["run", suite.to_str().unwrap(), "--format", "junit"]));
    assert_eq!(code, 0);
    assert_eq!(
        xml.matches("<testcase ").count(),
        crate::common::LARKSPUR_CASES,
        "{xml}"
    );
    assert!(xml.contains("failure message=\"missed fault"), "{xml}");
    assert_eq!(
        xml.matches("<skipped").count(),
        7,
        "the unreviewed mutants; equivalent mutants and rewrites are scored as invariance cases"
    );
    assert!(
        xml.contains(
            "false alarm: checker said contradicted (0.250) on a rewrite or equivalent mutant"
        ),
        "{xml}"
    );
}

#[test]
fn sweep_writes_a_chart_and_recommends_a_threshold_under_the_false_alarm_bound() {
    let d = tempfile::tempdir().unwrap();
    let suite = root().join("suites/larkspur.yaml");
    let svg = d.path().join("chart.svg");
    let (code, o) = combined(faithprobe(d.path()).args([
        "sweep",
        suite.to_str().unwrap(),
        "--max-false-alarm",
        "0.4",
        "--svg",
        svg.to_str().unwrap(),
        "--format",
        "json",
    ]));
    assert_eq!(code, 0, "{o}");
    let v: Value = serde_json::from_str(o.lines().next().unwrap()).unwrap();
    let points = v["points"].as_array().unwrap();
    assert!(points.len() > 3);
    // the recommendation is the best detection among thresholds whose upper bound is <= 0.4
    let rec = &v["recommended"];
    assert!(rec["false_alarms"]["ci_high"].as_f64().unwrap() <= 0.4);
    let best = points
        .iter()
        .filter(|p| p["false_alarms"]["ci_high"].as_f64().unwrap() <= 0.4)
        .map(|p| p["detection"]["k"].as_u64().unwrap())
        .max()
        .unwrap();
    assert_eq!(rec["detection"]["k"].as_u64().unwrap(), best);
    assert!(best > 0, "a recommendation catches something");
    // the sample-size warning names the Wilson solve for 0.9 within ±0.05
    assert!(
        v["too_small"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["needed"] == 141),
        "{o}"
    );
    let chart = std::fs::read_to_string(&svg).unwrap();
    assert!(chart.starts_with("<svg") && chart.trim_end().ends_with("</svg>"));
    // number_swap, negation_flip and entity_swap have 3 faults or more; then all faults
    assert!(
        chart.matches("<polyline").count() >= 4,
        "a curve per fault type with 3 faults or more, and overall"
    );
    assert!(
        chart.contains("threshold "),
        "the recommended point is marked"
    );
}

#[test]
fn sweep_with_a_held_out_split_reports_the_chosen_threshold_on_unseen_claims() {
    let d = tempfile::tempdir().unwrap();
    let suite = root().join("suites/larkspur.yaml");
    let svg = d.path().join("c.svg");
    let (code, o) = combined(faithprobe(d.path()).args([
        "sweep",
        suite.to_str().unwrap(),
        "--max-false-alarm",
        "1.0",
        "--calibrate-on",
        "0.5",
        "--svg",
        svg.to_str().unwrap(),
    ]));
    assert_eq!(code, 0, "{o}");
    assert!(
        o.contains("to choose the threshold") && o.contains("held out to judge it"),
        "{o}"
    );
    assert!(o.contains("On the held-out part at"), "{o}");
}

/// Renders a page with headless Chromium (Debian's `chromium`, which ci/setup.sh installs) to a PNG.
fn screenshot(html: &Path, png: &Path) {
    common::require_chromium();
    let profile = tempfile::tempdir().unwrap();
    let out = std::process::Command::new("chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--window-size=1200,1600",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("--screenshot={}", png.display()))
        .arg(format!("file://{}", html.display()))
        .output()
        .expect("chromium is installed (bash ci/setup.sh)");
    assert!(
        png.is_file(),
        "no screenshot: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
#[ignore = "needs chromium on PATH: apt-get install chromium (or bash ci/setup.sh), or bash ci/test.sh, which runs it"]
fn the_audit_report_is_self_contained_and_renders_in_a_real_browser() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("audit");
    let suites = [
        root().join("suites/larkspur.yaml"),
        root().join("suites/audit-logs.yaml"),
    ];
    let (code, o) = combined(faithprobe(d.path()).args([
        "report",
        suites[0].to_str().unwrap(),
        suites[1].to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]));
    assert_eq!(code, 0, "{o}");
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    // self-contained: inline SVG, no external assets
    assert!(
        html.contains("<svg")
            && !html.contains("src=\"http")
            && !html.contains("href=\"http")
            && !html.contains("<script")
    );
    for section in [
        "False alarms on faithful cases",
        "Threshold sweep",
        "Hard cases",
        "Agreement with a person",
        "Cohen&#39;s kappa",
        "Unreviewed mutants",
        "Flaky cases",
        "Fingerprints",
    ] {
        let needle = section.replace("&#39;", "'");
        assert!(
            html.to_lowercase().contains(&needle.to_lowercase()),
            "missing {section}"
        );
    }
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        md.contains("| false alarms on faithful cases | 2/16 | 0.12 | [0.03, 0.36] |"),
        "{md}"
    );
    // the sweep covers every suite together, so it follows the last suite's table
    let sweep_at = md
        .find("### Threshold sweep (all suites together)")
        .unwrap();
    let last_suite = md.rfind("### Suite ").unwrap();
    assert!(sweep_at > last_suite, "{md}");
    assert!(md.contains("![sweep](sweep-lexical.svg)") && out.join("sweep-lexical.svg").is_file());

    let png = d.path().join("report.png");
    screenshot(&out.join("report.html"), &png);
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&png).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = info.color_type.samples();
    let pixels: Vec<&[u8]> = buf[..info.buffer_size()].chunks(channels).collect();
    let non_white = pixels
        .iter()
        .filter(|p| p[..3].iter().any(|c| *c < 235))
        .count();
    let colours: std::collections::HashSet<[u8; 3]> =
        pixels.iter().map(|p| [p[0], p[1], p[2]]).collect();
    assert!(
        non_white * 100 > pixels.len(),
        "the page rendered (nearly) blank: {non_white} of {} pixels",
        pixels.len()
    );
    assert!(
        colours.len() > 20,
        "only {} colours: no chart or text?",
        colours.len()
    );
}

#[test]
fn the_pre_merge_script_compares_the_base_branch_config_with_the_working_tree() {
    let d = tempfile::tempdir().unwrap();
    let repo = d.path();
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .current_dir(repo)
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    git(&["init", "-q", "-b", "main"]);
    git(&["config", "user.email", "t@example.invalid"]);
    git(&["config", "user.name", "t"]);
    std::fs::create_dir(repo.join("suites")).unwrap();
    std::fs::copy(
        root().join("suites/larkspur.yaml"),
        repo.join("suites/larkspur.yaml"),
    )
    .unwrap();
    std::fs::write(
        repo.join("faithprobe.yaml"),
        "checkers:\n  gate: {kind: lexical}\n",
    )
    .unwrap();
    git(&["add", "."]);
    git(&["commit", "-qm", "base"]);
    // the candidate demands full coverage of single sentences: it raises new false alarms on the
    // paraphrase and number-in-words hard cases
    std::fs::write(repo.join("faithprobe.yaml"), "checkers:\n  gate: {kind: lexical, threshold: 1.0, topic_floor: 1.0, max_window_sentences: 1}\n").unwrap();
    let script = root().join("ci/pre-merge.sh");
    let out = std::process::Command::new("bash")
        .current_dir(repo)
        .arg(&script)
        .args(["gate", "main"])
        .env("FAITHPROBE", assert_cmd::cargo::cargo_bin("faithprobe"))
        // one context: nothing is statistically significant, so the test adds the rule
        .env("FAITHPROBE_COMPARE_ARGS", "--max-new-false-alarms 0")
        .env_remove("CI")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    // one checker name on both sides: the title names the settings that changed
    assert!(
        text.contains("compare base gate (max_window_sentences 2, threshold 0.75, topic_floor 0.5) → candidate gate (max_window_sentences 1, threshold 1, topic_floor 1)"),
        "{text}"
    );
    let md = std::fs::read_to_string(repo.join("faithprobe-compare.md")).unwrap();
    // and the change that decided the verdict: false alarms doubled (2/16 -> 4/16)
    assert!(
        md.starts_with("### faithprobe compare: `gate (max_window_sentences 2, threshold 0.75, topic_floor 0.5)` → `gate (max_window_sentences 1, threshold 1, topic_floor 1)` — ❌ gate failed: 2 new false alarm(s) on faithful cases, more than --max-new-false-alarms 0 (a rule, no error rate)"),
        "{md}"
    );
    assert!(md.contains("| new_false_alarm | h01 |"), "{md}");
    assert!(repo.join("faithprobe-compare.xml").is_file());
    let code = out.status.code().unwrap();
    assert_eq!(
        code == 1,
        md.contains("gate failed"),
        "exit {code} disagrees with the summary: {md}"
    );
}

/// The denominators every command reports for one suite: false-alarm opportunities, all faults,
/// and faults per type.
#[derive(Debug, PartialEq)]
struct Denominators {
    false_alarms: u64,
    all_faults: u64,
    /// Rewrites and equivalent mutants: false-alarm opportunities of their own row.
    invariance: u64,
    by_type: std::collections::BTreeMap<String, u64>,
}

/// The JSON a command prints, whatever its exit code (0 or 3).
fn json_of_any(dir: &Path, args: &[&str]) -> Value {
    let out = faithprobe(dir).args(args).output().unwrap();
    assert!(
        matches!(out.status.code(), Some(0) | Some(3)),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn json_of(dir: &Path, args: &[&str]) -> Value {
    let out = faithprobe(dir).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
#[allow(clippy::too_many_lines)] // one suite through every command, compared count by count
fn every_command_counts_the_same_cases_as_false_alarms_and_faults() {
    for suite in ["suites/larkspur.yaml", "tests/fixtures/clinic.yaml"] {
        let d = tempfile::tempdir().unwrap();
        let path = root().join(suite);
        let s = path.to_str().unwrap();
        let n = |v: &Value| v["n"].as_u64().unwrap();

        let run = json_of(d.path(), &["run", s, "--format", "json"]);
        let from_run = Denominators {
            false_alarms: n(&run["summary"]["false_alarms"]),
            all_faults: n(&run["summary"]["all_faults"]),
            invariance: n(&run["summary"]["invariance"]),
            by_type: run["summary"]["fault_types"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|t| n(t) > 0)
                .map(|t| (t["fault_type"].as_str().unwrap().to_string(), n(t)))
                .collect(),
        };

        let sweep = json_of(d.path(), &["sweep", s, "--format", "json"]);
        let p = &sweep["points"][0];
        let from_sweep = Denominators {
            false_alarms: n(&p["false_alarms"]),
            all_faults: n(&p["detection"]),
            invariance: n(&p["invariance"]),
            by_type: p["by_fault_type"]
                .as_object()
                .unwrap()
                .iter()
                .map(|(k, v)| (k.clone(), n(v)))
                .collect(),
        };

        // a small suite may give no verdict (exit 3: no row can fail); its rows still count
        let cmp = json_of_any(
            d.path(),
            &[
                "compare",
                "--cluster-by",
                "claim",
                "--checker",
                "lexical",
                "--checker",
                "lexical",
                s,
                "--format",
                "json",
            ],
        );
        let rows = cmp["rows"].as_array().unwrap();
        let row = |g: &str| {
            rows.iter()
                .find(|r| r["group"] == g)
                .map(|r| n(&r["base"]))
                .unwrap_or(0)
        };
        let from_compare = Denominators {
            false_alarms: row("false alarms"),
            all_faults: row("all faults"),
            invariance: row("invariance"),
            by_type: rows
                .iter()
                .filter(|r| {
                    !["false alarms", "all faults", "invariance"]
                        .contains(&r["group"].as_str().unwrap())
                })
                .map(|r| (r["group"].as_str().unwrap().to_string(), n(&r["base"])))
                .collect(),
        };

        // snapshots: one line per case with its role
        let snaps = d.path().join("snaps");
        faithprobe(d.path())
            .args(["run", s, "--snapshot", snaps.to_str().unwrap()])
            .assert()
            .success();
        let snap = std::fs::read_dir(&snaps)
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path();
        let text = std::fs::read_to_string(snap).unwrap();
        let rows: Vec<Vec<&str>> = text
            .lines()
            .skip_while(|l| *l != "---")
            .skip(1)
            .map(|l| l.split('\t').collect())
            .collect();
        let mut by_type = std::collections::BTreeMap::new();
        for r in rows.iter().filter(|r| r[4] == "fault") {
            *by_type.entry(r[2].to_string()).or_insert(0) += 1;
        }
        let from_snapshot = Denominators {
            false_alarms: rows
                .iter()
                .filter(|r| r[4] == "false_alarm_opportunity")
                .count() as u64,
            all_faults: rows.iter().filter(|r| r[4] == "fault").count() as u64,
            invariance: rows.iter().filter(|r| r[4] == "invariance").count() as u64,
            by_type,
        };

        // the audit report prints the same false-alarm count
        let out = d.path().join("audit");
        faithprobe(d.path())
            .args(["report", s, "--out", out.to_str().unwrap()])
            .assert()
            .success();
        let md = std::fs::read_to_string(out.join("report.md")).unwrap();
        let fa_row = md
            .lines()
            .find(|l| l.starts_with("| false alarms on faithful cases |"))
            .unwrap();
        assert!(
            fa_row.contains(&format!("/{} |", from_run.false_alarms)),
            "{suite}: {fa_row}"
        );

        assert_eq!(from_run, from_sweep, "{suite}: run vs sweep");
        assert_eq!(from_run, from_compare, "{suite}: run vs compare");
        assert_eq!(from_run, from_snapshot, "{suite}: run vs snapshot");
        assert!(from_run.false_alarms > 0, "{suite}");
        if suite.contains("clinic") {
            // nothing reviewed yet: no fault counts, but a labelled provisional rate
            assert_eq!(from_run.all_faults, 0);
            assert!(run["summary"]["provisional"]
                .as_array()
                .is_some_and(|p| !p.is_empty()));
        } else {
            // 8 rewrites and the 2 mutants reviewed equivalent
            assert_eq!(
                (
                    from_run.false_alarms,
                    from_run.all_faults,
                    from_run.invariance
                ),
                (16, 29, 10)
            );
        }
    }
}

#[test]
fn records_with_nothing_in_common_give_no_verdict() {
    // used to pass the gate with exit 0
    let d = tempfile::tempdir().unwrap();
    let base = base_record(d.path());
    let other = d.path().join("other.json");
    let audit = root().join("suites/audit-logs.yaml");
    faithprobe(d.path())
        .args([
            "run",
            audit.to_str().unwrap(),
            "--record",
            other.to_str().unwrap(),
        ])
        .assert()
        .success();
    let empty = d.path().join("empty.json");
    edit(&base, &empty, |v| v["runs"] = serde_json::json!([]));
    for cand in [&other, &empty] {
        let (code, o) = combined(faithprobe(d.path()).args([
            "compare",
            base.to_str().unwrap(),
            cand.to_str().unwrap(),
        ]));
        assert_eq!(code, 2, "{o}");
        assert!(o.contains("nothing to compare"), "{o}");
        assert!(
            o.contains(&format!(
                "larkspur-help-center ({} cases)",
                common::LARKSPUR_CASES
            )),
            "{o}"
        );
    }
}

#[test]
fn the_tracked_file_size_check_fails_on_a_big_file_that_is_not_allowed() {
    let d = tempfile::tempdir().unwrap();
    let repo = d.path();
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .current_dir(repo)
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    git(&["init", "-q"]);
    std::fs::create_dir(repo.join("ci")).unwrap();
    std::fs::copy(
        root().join("ci/check-tracked-sizes.sh"),
        repo.join("ci/check-tracked-sizes.sh"),
    )
    .unwrap();
    std::fs::write(repo.join("small.txt"), "fine").unwrap();
    git(&["add", "."]);
    let check = || {
        std::process::Command::new("bash")
            .arg(repo.join("ci/check-tracked-sizes.sh"))
            .output()
            .unwrap()
    };
    assert!(check().status.success());
    std::fs::write(repo.join("wheel.whl"), vec![0u8; 2 * 1024 * 1024]).unwrap();
    git(&["add", "wheel.whl"]);
    let out = check();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("wheel.whl") && err.contains("allow-list"),
        "{err}"
    );
}

#[test]
fn flaky_verdicts_that_do_not_fit_the_record_are_refused_never_taken_to_pass_the_gate() {
    let d = tempfile::tempdir().unwrap();
    let base = base_record(d.path());
    // the candidate misses a fault the base caught, and marks it flaky to leave it out
    let forge = |name: &str, repeats: Option<u64>, verdicts: Value| {
        let cand = d.path().join(name);
        edit(&base, &cand, |v| {
            if let Some(r) = repeats {
                v["runs"][0]["repeats"] = r.into();
            }
            let case = v["runs"][0]["cases"]
                .as_array_mut()
                .unwrap()
                .iter_mut()
                .find(|c| c["id"] == "m-c96bcca3cf7684fe")
                .unwrap();
            case["outcome"] = "missed".into();
            case["verdict"] = "supported".into();
            case["score"] = 0.97.into();
            case["flaky_verdicts"] = verdicts.clone();
        });
        cand
    };
    let forged = [
        (
            "once.json",
            None,
            serde_json::json!(["supported", "contradicted"]),
            "was scored once",
        ),
        (
            "same.json",
            Some(2),
            serde_json::json!(["supported", "supported"]),
            "all `supported`",
        ),
        (
            "unknown.json",
            Some(2),
            serde_json::json!(["supported", "maybe"]),
            "`maybe`, which is not a verdict",
        ),
        (
            "single.json",
            Some(3),
            serde_json::json!(["supported"]),
            "1 flaky verdicts for 3 repeats",
        ),
        (
            "other.json",
            Some(2),
            serde_json::json!(["contradicted", "supported"]),
            "first flaky verdict is `contradicted`",
        ),
    ];
    for (name, repeats, verdicts, why) in forged {
        let cand = forge(name, repeats, verdicts);
        let (code, o) = combined(faithprobe(d.path()).args([
            "compare",
            "--cluster-by",
            "claim",
            base.to_str().unwrap(),
            cand.to_str().unwrap(),
        ]));
        assert_eq!(code, 2, "{name}: {o}");
        assert!(o.contains(why), "{name}: {o}");
        // the file and the case's line
        let text = std::fs::read_to_string(&cand).unwrap();
        let line = text
            .lines()
            .position(|l| l.contains("\"id\": \"m-c96bcca3cf7684fe\""))
            .unwrap()
            + 1;
        assert!(o.contains(&format!("{name}:{line}")), "{name}: {o}");
    }
    // what `run --repeat 2` would write is still read: the case is left out as flaky
    let cand = forge(
        "real.json",
        Some(2),
        serde_json::json!(["supported", "contradicted"]),
    );
    let (code, o) = combined(faithprobe(d.path()).args([
        "compare",
        "--cluster-by",
        "claim",
        base.to_str().unwrap(),
        cand.to_str().unwrap(),
    ]));
    assert_eq!(code, 0, "{o}");
}

#[test]
fn a_false_alarm_margin_passes_what_is_shown_within_it_and_fails_what_is_not() {
    let d = tempfile::tempdir().unwrap();
    let base = base_record(d.path());
    let b = base.to_str().unwrap();
    let compare = |margin: &str, cand: &str| {
        combined(faithprobe(d.path()).args([
            "compare",
            "--cluster-by",
            "claim",
            "--false-alarm-margin",
            margin,
            b,
            cand,
        ]))
    };
    // 16 faithful cases and no change: the bound is z^2 / (16 + z^2) = 0.145
    let (code, o) = compare("0.2", b);
    assert_eq!(code, 0, "{o}");
    assert!(
        o.contains("false-alarm margin 0.2: the rise is at most 0.145")
            && o.contains("within the margin"),
        "{o}"
    );
    let (code, o) = compare("0.1", b);
    assert_eq!(code, 1, "{o}");
    assert!(
        o.contains("false alarms: not shown within --false-alarm-margin 0.1")
            && o.contains("upper bound on the rise is 0.145 >= 0.1"),
        "{o}"
    );
    // a candidate that newly flags the two supported hard cases the base passed is not shown
    // within 0.2 either
    let cand = d.path().join("cand.json");
    edit(&base, &cand, |v| {
        for c in v["runs"][0]["cases"].as_array_mut().unwrap() {
            if c["kind"] == "hard_case" && c["expected"] == "supported" && c["outcome"] == "passed"
            {
                c["verdict"] = "not_found".into();
                c["outcome"] = "false_alarm".into();
            }
        }
    });
    let (code, o) = compare("0.2", cand.to_str().unwrap());
    assert_eq!(code, 1, "{o}");
    assert!(
        o.contains("2 newly flagged, 0 no longer flagged of 16 faithful cases"),
        "{o}"
    );
    // a margin outside (0, 1) is a usage error
    let (code, o) = compare("1.5", b);
    assert_eq!(code, 2, "{o}");
    assert!(
        o.contains("--false-alarm-margin 1.5 must be between 0 and 1"),
        "{o}"
    );
}
