//! From a team's own log to a gated suite: `suite from-log` drafts pending claims, `review
//! --set` verifies them (borderline rules kept, non-claims dropped), the mutants of the verified
//! claims are reviewed (one `broken`), and `run --require-reviewed` passes.

use crate::common::{faithprobe_in, output, root};
use std::path::Path;

fn fg(d: &Path, args: &[&str]) -> (i32, String, String) {
    output(faithprobe_in(d).args(args))
}

/// The pending items of `suite` by kind, as `review --list --format json` lists them.
fn pending(d: &Path, suite: &str, kind: &str) -> Vec<String> {
    let (_, out, err) = fg(d, &["review", suite, "--list", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|_| panic!("{err}"));
    v["pending"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["kind"] == kind)
        .map(|p| p["id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_log_becomes_a_verified_suite_whose_reviewed_run_passes() {
    let d = tempfile::tempdir().unwrap();
    let log = root().join("examples/support-log.jsonl");
    let log = log.to_str().unwrap();
    let (code, out, err) = fg(
        d.path(),
        &["suite", "from-log", log, "--out", "support.yaml"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("22 pending claims in 12 context sets, from 12 answers"),
        "{out}"
    );
    assert!(out.contains("faithprobe review support.yaml"), "{out}");
    let claims = pending(d.path(), "support.yaml", "claim");
    assert_eq!(claims.len(), 22);
    // pending claims are in no rate, and a reviewed gate cannot pass on them
    let (code, _, err) = fg(d.path(), &["run", "support.yaml", "--require-reviewed"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("22 claims pending verification"), "{err}");

    // the person's decisions: the log's wrong sentences become real hard cases
    let wrong = [
        ("r3-1", "contradicted:number_swap"),
        ("r3-2", "contradicted:number_swap"),
        ("p3-1", "contradicted:entity_swap"),
        ("p3-2", "contradicted:number_swap"),
        ("e3-1", "contradicted:entity_swap"),
        ("e3-2", "not_found:added_detail"),
        ("e4-1", "contradicted:number_swap"),
    ];
    let mut sets: Vec<String> = Vec::new();
    for c in &claims {
        match wrong.iter().find(|(id, _)| id == c) {
            Some((id, d)) => sets.push(format!("{id}={d}")),
            None if c == "r2-2" => {} // borderline, below
            None => sets.push(format!("{c}=supported")),
        }
    }
    let mut args = vec!["review", "support.yaml"];
    for s in &sets {
        args.extend(["--set", s.as_str()]);
    }
    let (code, _, err) = fg(d.path(), &args);
    assert_eq!(code, 0, "{err}");
    // a borderline call keeps its rule, so the line holds at the next prompt edit
    let (code, _, err) = fg(
        d.path(),
        &[
            "review",
            "support.yaml",
            "--set",
            "r2-2=borderline",
            "--type",
            "overgeneralisation",
            "--label",
            "supported",
            "--why",
            "A promise about any refund is supported when the passage states it for issued refunds",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let side = std::fs::read_to_string(d.path().join("support.reviews.yaml")).unwrap();
    assert!(
        side.contains("r2-2: {review: borderline, type: \"overgeneralisation\", label: supported, why: \"A promise about any refund"),
        "{side}"
    );
    assert!(pending(d.path(), "support.yaml", "claim").is_empty());

    // the mutants of the verified claims: one is nonsense, the rest real faults
    let mutants = pending(d.path(), "support.yaml", "mutant");
    let rewrites = pending(d.path(), "support.yaml", "rewrite");
    assert!(mutants.len() >= 3, "{mutants:?}");
    let mut sets = vec![format!("{}=broken", mutants[0])];
    sets.extend(mutants[1..].iter().map(|m| format!("{m}=fault")));
    sets.extend(rewrites.iter().map(|r| format!("{r}=equivalent")));
    let mut args = vec!["review", "support.yaml"];
    for s in &sets {
        args.extend(["--set", s.as_str()]);
    }
    let (code, _, err) = fg(d.path(), &args);
    assert_eq!(code, 0, "{err}");

    let (code, out, err) = fg(d.path(), &["mutants", "support.yaml"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("note: reviewed broken (defects of their operator, in no rate): "),
        "{out}"
    );
    let (code, out, err) = fg(d.path(), &["run", "support.yaml", "--require-reviewed"]);
    assert_ne!(code, 2, "{err}");
    assert!(!err.contains("--require-reviewed"), "{err}");
    assert!(
        out.contains("broken mutants (reviewed `broken`: defects of their operator, in no rate):"),
        "{out}"
    );
    // 7 real errors and the borderline call are hard cases; 14 claims verified
    assert!(out.contains("14 verified claims, 8 hard cases"), "{out}");
    // the record keeps the broken count per operator, and the audit from it says so
    let (code, _, err) = fg(d.path(), &["run", "support.yaml", "--record", "rec.json"]);
    assert_ne!(code, 2, "{err}");
    let (code, _, err) = fg(d.path(), &["report", "rec.json", "--out", "audit"]);
    assert_eq!(code, 0, "{err}");
    let md = std::fs::read_to_string(d.path().join("audit/report.md")).unwrap();
    assert!(
        md.contains("Mutants reviewed broken (ungrammatical or nonsense"),
        "{md}"
    );
}

#[test]
fn a_suite_is_extended_sampled_and_spread_without_losing_a_byte() {
    let d = tempfile::tempdir().unwrap();
    let log = root().join("examples/support-log.jsonl");
    let log = log.to_str().unwrap();
    let (code, out, err) = fg(
        d.path(),
        &[
            "suite",
            "from-log",
            log,
            "--out",
            "s.yaml",
            "--sample",
            "4",
            "--seed",
            "3",
            "--stratify-by",
            "tag",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(": 4 pending claims"), "{out}");
    let text = std::fs::read_to_string(d.path().join("s.yaml")).unwrap();
    assert_eq!(text.matches("tag: \"gpt-4o\"").count(), 2, "{text}");
    assert_eq!(text.matches("tag: \"llama-3\"").count(), 2, "{text}");
    // the same seed, the same sample
    let (code, _, err) = fg(
        d.path(),
        &[
            "suite",
            "from-log",
            log,
            "--out",
            "t.yaml",
            "--sample",
            "4",
            "--seed",
            "3",
            "--stratify-by",
            "tag",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let again = std::fs::read_to_string(d.path().join("t.yaml")).unwrap();
    assert_eq!(again.replace("suite: \"t\"", "suite: \"s\""), text);
    // an existing suite is not overwritten without --append
    let (code, _, err) = fg(d.path(), &["suite", "from-log", log, "--out", "s.yaml"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("pass --append"), "{err}");
    // --append keeps every byte and every decision, and adds only new claims
    let edited = text.replace("contexts:\n", "contexts:\n  # checked by Ana on Monday\n");
    std::fs::write(d.path().join("s.yaml"), &edited).unwrap();
    let first = pending(d.path(), "s.yaml", "claim")[0].clone();
    let (code, _, err) = fg(
        d.path(),
        &["review", "s.yaml", "--set", &format!("{first}=supported")],
    );
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = fg(
        d.path(),
        &["suite", "from-log", log, "--out", "s.yaml", "--append"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("18 pending claims") && out.contains("4 already in the suite"),
        "{out}"
    );
    let after = std::fs::read_to_string(d.path().join("s.yaml")).unwrap();
    let tail = edited.split_once("contexts:\n").unwrap().1;
    assert!(
        after.ends_with(tail),
        "the old contexts are kept byte for byte"
    );
    assert!(after.contains("# checked by Ana on Monday"));
    assert_eq!(pending(d.path(), "s.yaml", "claim").len(), 21, "{after}");
    // nothing new: an error, and the file as it was
    let (code, _, err) = fg(
        d.path(),
        &["suite", "from-log", log, "--out", "s.yaml", "--append"],
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no claim to add"), "{err}");
    assert_eq!(
        std::fs::read_to_string(d.path().join("s.yaml")).unwrap(),
        after
    );
}

#[test]
fn a_bad_log_writes_no_suite_and_names_its_line() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("log.jsonl"),
        "{\"id\": \"a1\", \"answer\": \"Order A17 shipped on 3 March.\", \"passages\": [\"Order A17 shipped on 3 March by courier.\"]}\n{\"id\": \"a2\", \"answer\": 5}\n",
    )
    .unwrap();
    let (code, _, err) = fg(
        d.path(),
        &["suite", "from-log", "log.jsonl", "--out", "s.yaml"],
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("log.jsonl:2"), "{err}");
    assert!(!d.path().join("s.yaml").exists());
    let (code, _, err) = fg(
        d.path(),
        &["suite", "from-log", "log.jsonl", "--out", "log.jsonl"],
    );
    assert_eq!(code, 2, "{err}");
    // an answer with no passage text has nothing to verify a claim against: left out, said so;
    // an id from a log that is no plain word is quoted in the suite and in the side file
    std::fs::write(
        d.path().join("log.jsonl"),
        concat!(
            r#"{"id": "a: b\"1", "answer": "Here is a summary: the fee is €3,50.", "passages": ["The fee is €3,50 per order."]}"#,
            "\n",
            r#"{"id": "x2", "answer": "The fee is 4 euros.", "passages": []}"#,
            "\n"
        ),
    )
    .unwrap();
    let (code, out, err) = fg(
        d.path(),
        &["suite", "from-log", "log.jsonl", "--out", "s.yaml"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(": 1 pending claims"), "{out}");
    assert!(
        err.contains("1 answers have no passage text and were left out (first: `x2`)"),
        "{err}"
    );
    let (code, _, err) = fg(
        d.path(),
        &["review", "s.yaml", "--set", "a: b\"1-1=supported"],
    );
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = fg(d.path(), &["run", "s.yaml"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("1 verified claim"), "{out}");
}

#[test]
fn a_scores_flagged_claims_are_appended_to_a_suite_once_as_pending() {
    let d = tempfile::tempdir().unwrap();
    let log = root().join("examples/support-log.jsonl");
    let log = log.to_str().unwrap();
    let (code, _, err) = fg(
        d.path(),
        &["score", log, "--add-to", "misses.yaml", "--show", "none"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("--add-to misses.yaml: 9 claims added as pending"),
        "{err}"
    );
    let claims = pending(d.path(), "misses.yaml", "claim");
    // the invented refund time of r3 is among them, with its answer's passages
    assert!(claims.contains(&"r3-1".to_string()), "{claims:?}");
    let text = std::fs::read_to_string(d.path().join("misses.yaml")).unwrap();
    assert!(
        text.contains("Refunds take 7 to 10 business days to appear."),
        "{text}"
    );
    assert!(
        text.contains("take 3 to 5 business days to appear"),
        "{text}"
    );
    // a second score adds nothing it already holds
    let (code, _, err) = fg(
        d.path(),
        &["score", log, "--add-to", "misses.yaml", "--show", "none"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("no claim to add"), "{err}");
    assert_eq!(
        std::fs::read_to_string(d.path().join("misses.yaml")).unwrap(),
        text
    );
    // all of them, into the same suite: the rest are added
    let (code, _, err) = fg(
        d.path(),
        &[
            "score",
            log,
            "--add-to",
            "misses.yaml",
            "--add-which",
            "all",
            "--show",
            "none",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(pending(d.path(), "misses.yaml", "claim").len(), 22);
    // a log from standard input cannot be read again for its passages: refused before scoring
    let out = faithprobe_in(d.path())
        .args(["score", "-", "--add-to", "x.yaml"])
        .write_stdin(std::fs::read(log).unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not a file"));
    assert!(!d.path().join("x.yaml").exists());
}

#[test]
fn claims_are_verified_by_keys_in_a_terminal_and_the_decisions_survive() {
    let d = tempfile::tempdir().unwrap();
    let log = root().join("examples/support-log.jsonl");
    let (code, _, err) = fg(
        d.path(),
        &[
            "suite",
            "from-log",
            log.to_str().unwrap(),
            "--out",
            "s.yaml",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("faithprobe"));
    cmd.current_dir(d.path())
        .env_remove("CI")
        .env_remove("FAITHPROBE_CONFIG")
        .env("NO_COLOR", "1")
        .env("TERM", "dumb")
        .args(["review", "s.yaml", "--checker", "lexical"]);
    let mut p = rexpect::session::spawn_command(cmd, Some(30_000)).unwrap();
    let key = |p: &mut rexpect::session::PtySession, k: &str| {
        p.send(k).unwrap();
        p.flush().unwrap();
    };
    // r1-1: supported
    p.exp_string("pending claim 1 of 22").unwrap();
    p.exp_string("checker   lexical says").unwrap();
    key(&mut p, "y");
    // r1-2: contradicted, with its type
    p.exp_string("pending claim 2 of 22").unwrap();
    key(&mut p, "c");
    p.exp_string("its error type").unwrap();
    key(&mut p, "number_swap\r");
    // r2-1: not a claim, then undone, then skipped
    p.exp_string("pending claim 3 of 22").unwrap();
    key(&mut p, "x");
    p.exp_string("why is it not a claim").unwrap();
    key(&mut p, "\r");
    p.exp_string("pending claim 4 of 22").unwrap();
    key(&mut p, "u");
    p.exp_string("pending claim 3 of 22").unwrap();
    key(&mut p, "s");
    // r2-2: borderline, with its label, type and rule
    p.exp_string("pending claim 4 of 22").unwrap();
    key(&mut p, "b");
    p.exp_string("the label your rule gives").unwrap();
    key(&mut p, "supported\r");
    p.exp_string("its type").unwrap();
    key(&mut p, "overgeneralisation\r");
    p.exp_string("the rule you decided by").unwrap();
    key(&mut p, "Issued refunds only count\r");
    p.exp_string("pending claim 5 of 22").unwrap();
    key(&mut p, "q");
    p.exp_string("3 claims decided in this review, 19 still pending")
        .unwrap();
    p.exp_eof().unwrap();
    let side = std::fs::read_to_string(d.path().join("s.reviews.yaml")).unwrap();
    assert!(side.contains("r1-1: {review: supported}"), "{side}");
    assert!(
        side.contains("r1-2: {review: contradicted, type: \"number_swap\"}"),
        "{side}"
    );
    assert!(!side.contains("r2-1"), "undone: {side}");
    assert!(
        side.contains("r2-2: {review: borderline, type: \"overgeneralisation\", label: supported, why: \"Issued refunds only count\"}"),
        "{side}"
    );
    // the suite loads with them: one verified claim, two hard cases, 19 pending
    assert_eq!(pending(d.path(), "s.yaml", "claim").len(), 19);
}

#[test]
fn the_guides_walk_through_runs_as_printed() {
    let page =
        std::fs::read_to_string(root().join("docs/src/getting-started/walk-through.md")).unwrap();
    let (_, after) = page
        .split_once("<!-- walk-through:")
        .expect("docs/src/getting-started/walk-through.md has the walk-through");
    let block = after
        .split_once("```sh\n")
        .unwrap()
        .1
        .split_once("```")
        .unwrap()
        .0;
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir(d.path().join("examples")).unwrap();
    std::fs::copy(
        root().join("examples/support-log.jsonl"),
        d.path().join("examples/support-log.jsonl"),
    )
    .unwrap();
    let steps: Vec<&str> = block
        .lines()
        .filter(|l| l.starts_with("faithprobe "))
        .collect();
    assert!(steps.len() >= 6, "{block}");
    for step in steps {
        let out = crate::common::as_printed(step, d.path());
        let code = out.status.code();
        // a list exits 1 while something is pending; every other step succeeds
        let ok = if step.ends_with("--list") {
            matches!(code, Some(0 | 1))
        } else {
            code == Some(0)
        };
        assert!(
            ok,
            "`{step}` as printed: {code:?}\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert!(d.path().join("lexical.json").exists());
}

#[test]
fn picking_by_disagreement_takes_the_claims_two_checkers_split_on() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("faithprobe.yaml"),
        "checkers:\n  strict: {kind: lexical, threshold: 0.95}\n",
    )
    .unwrap();
    let log = root().join("examples/support-log.jsonl");
    let log = log.to_str().unwrap();
    // the claims the two checkers give different verdicts, from their own scores of the log
    let flags = |checker: &str| -> std::collections::HashMap<String, bool> {
        let (code, json, err) = fg(
            d.path(),
            &["score", log, "--checker", checker, "--format", "json"],
        );
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        let mut out = std::collections::HashMap::new();
        for a in v["answers"].as_array().unwrap() {
            for c in a["claims"].as_array().unwrap() {
                out.insert(
                    c["text"].as_str().unwrap().to_string(),
                    c["verdict"] != "supported",
                );
            }
        }
        out
    };
    let (a, b) = (flags("lexical"), flags("strict"));
    let split: Vec<&String> = a.keys().filter(|k| a[*k] != b[*k]).collect();
    assert_eq!(split.len(), 2, "{split:?}");
    let (code, _, err) = fg(
        d.path(),
        &[
            "suite",
            "from-log",
            log,
            "--out",
            "s.yaml",
            "--pick",
            "disagreement",
            "--checker",
            "lexical",
            "--checker",
            "strict",
            "--sample",
            "2",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(d.path().join("s.yaml")).unwrap();
    let picked: Vec<&str> = text
        .lines()
        .filter_map(|l| {
            l.split_once("claim: \"")
                .map(|(_, r)| r.split_once("\", answer").unwrap().0)
        })
        .collect();
    assert_eq!(picked.len(), 2, "{text}");
    for p in picked {
        assert!(
            split.iter().any(|s| s.as_str() == p),
            "{p} is not disputed: {split:?}"
        );
    }
    let (code, _, err) = fg(
        d.path(),
        &[
            "suite",
            "from-log",
            log,
            "--out",
            "t.yaml",
            "--pick",
            "disagreement",
            "--checker",
            "lexical",
        ],
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("exactly twice"), "{err}");
}
