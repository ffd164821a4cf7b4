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
    // and it is one well-formed document, read back by quick-junit: one test case per case
    let report = quick_junit::Report::deserialize_from_str(&xml).unwrap();
    let cases: usize = report.test_suites.iter().map(|s| s.test_cases.len()).sum();
    assert_eq!(cases, xml.matches("<testcase ").count());
    assert!(cases >= 4, "{xml}");
    assert!(
        xml.contains("Refunds are issued within 14 days.\u{fffd}"),
        "{xml}"
    );
}

/// Terminal controls in YAML escapes: clear the screen, set the window title (OSC ... BEL), a
/// C1 CSI, a carriage return.
const TERMINAL_PAYLOAD: &str = "\\e[2J\\e]0;pwned\\a\\u009b31m\\r";

/// The control characters in `bytes` a terminal would act on (all but tab and line feed),
/// after removing faithprobe's own colour sequences when `color` is on.
fn raw_controls(bytes: &[u8], color: bool) -> Vec<String> {
    let text = String::from_utf8_lossy(bytes);
    let text = if color {
        regex::Regex::new("\x1b\\[[0-9;]*m")
            .unwrap()
            .replace_all(&text, "")
            .into_owned()
    } else {
        text.into_owned()
    };
    text.chars()
        .filter(|&c| c.is_control() && c != '\n' && c != '\t')
        .map(|c| format!("U+{:04X}", c as u32))
        .collect()
}

#[test]
fn terminal_controls_in_ids_and_types_never_reach_stdout_or_stderr_raw() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("esc.yaml"), suite_carrying(TERMINAL_PAYLOAD)).unwrap();
    faithprobe_in(d)
        .args([
            "run",
            "esc.yaml",
            "--record",
            "base.json",
            "--snapshot",
            "snaps",
        ])
        .assert()
        .success();
    // a changed snapshot prints its diff to stderr; a pending file has a hostile name
    let yaml = std::fs::read_to_string(d.join("esc.yaml")).unwrap();
    std::fs::write(d.join("esc.yaml"), yaml.replace("40 days", "41 days")).unwrap();
    std::fs::write(d.join("snaps/x\x1b]0;t\x07.lexical.snap.new"), "x\n").unwrap();
    for color in ["never", "always"] {
        for (args, shows_ids) in [
            (vec!["run", "esc.yaml"], true),
            (vec!["run", "esc.yaml", "--snapshot", "snaps"], true),
            (vec!["sweep", "esc.yaml"], true),
            (
                vec!["compare", "base.json", "base.json", "--cluster-by", "claim"],
                true,
            ),
            (vec!["review", "esc.yaml", "--list"], true),
            (vec!["review", "esc.yaml", "--stale"], false),
            (vec!["mutants", "esc.yaml"], true),
            (vec!["snapshot", "pending", "snaps"], true),
        ] {
            let out = faithprobe_in(d)
                .args(&args)
                .args(["--color", color])
                .output()
                .unwrap();
            assert!(
                // 3: a compare of a suite too small for any row to fail has no verdict
                matches!(out.status.code(), Some(0 | 1 | 3)),
                "{args:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            for (name, stream) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
                let raw = raw_controls(stream, color == "always");
                assert!(
                    raw.is_empty(),
                    "{args:?} --color {color}: {name} has {raw:?}"
                );
            }
            let all = String::from_utf8_lossy(&out.stdout) + String::from_utf8_lossy(&out.stderr);
            if shows_ids {
                assert!(all.contains("\\u{1b}"), "{args:?}: shown, not sent: {all}");
            }
        }
    }
}

#[test]
fn the_review_screen_shows_terminal_controls_in_a_claim_id_as_text() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("esc.yaml"),
        suite_carrying("\\e]0;pwned\\a\\u009b31m"),
    )
    .unwrap();
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("faithprobe"));
    cmd.current_dir(dir.path())
        .env_remove("CI")
        .env_remove("FAITHPROBE_CONFIG")
        .env("TERM", "dumb")
        .args(["review", "esc.yaml", "--color", "always"]);
    let mut p = rexpect::session::spawn_command(cmd, Some(30_000)).unwrap();
    let (screen, _) = p.exp_regex(r"\[q\] quit").unwrap();
    p.send("q").unwrap();
    p.flush().unwrap();
    p.exp_eof().unwrap();
    assert!(
        screen.contains("claim     f1\\u{1b}]0;pwned\\u{7}"),
        "{screen}"
    );
    // the screen's own clear and colours are all the sequences it sends
    let raw = raw_controls(screen.replace("\x1b[H\x1b[2J", "").as_bytes(), true);
    assert!(raw.iter().all(|c| c == "U+000D"), "{raw:?}: {screen:?}");
}

/// Markdown that would go live in a pull-request comment.
const MARKDOWN_PAYLOAD: &str =
    "</details><img src=x onerror=alert(1)> [link](https://evil.example) a|b";

/// The `|` that separate cells in a Markdown table row (not `\|`).
fn cell_separators(line: &str) -> usize {
    let mut n = 0;
    let mut escaped = false;
    for c in line.chars() {
        match c {
            '\\' if !escaped => escaped = true,
            '|' if !escaped => n += 1,
            _ => escaped = false,
        }
    }
    n
}

/// Asserts `md` has no live HTML or link from the payload and every table row has as many
/// cells as its header.
fn assert_markdown_inert(what: &str, md: &str) {
    assert!(!md.contains("<img"), "{what}: {md}");
    let live_link = regex::Regex::new(r"(^|[^\\])\]\(https://evil").unwrap();
    assert!(!live_link.is_match(md), "{what}: a live link: {md}");
    assert_eq!(
        md.matches("<details>").count(),
        md.matches("</details>").count(),
        "{what}: only faithprobe's own details close: {md}"
    );
    assert!(
        md.contains("&lt;/details&gt;&lt;img"),
        "{what}: shown as text: {md}"
    );
    let mut head: Option<usize> = None;
    for line in md.lines() {
        if !line.starts_with('|') {
            head = None;
            continue;
        }
        let n = cell_separators(line);
        match head {
            None => head = Some(n),
            Some(h) => assert_eq!(n, h, "{what}: a row split: {line}"),
        }
    }
}

#[test]
fn markdown_from_claims_types_answers_and_titles_never_goes_live_in_a_pr_comment() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let suite = suite_carrying("")
        .replace(
            "Refunds are issued within 40 days.",
            &format!("Refunds in 40 days {MARKDOWN_PAYLOAD}"),
        )
        .replace(
            "type: \"wrong\"",
            &format!("type: \"wrong {MARKDOWN_PAYLOAD}\""),
        );
    std::fs::write(d.join("md.yaml"), suite).unwrap();
    let out = faithprobe_in(d)
        .args([
            "run",
            "md.yaml",
            "--format",
            "markdown",
            "--record",
            "base.json",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_markdown_inert("run", &String::from_utf8(out.stdout).unwrap());
    // the candidate misses the hard case: the claim shows in the regressions table
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("base.json")).unwrap()).unwrap();
    for case in v["runs"][0]["cases"].as_array_mut().unwrap() {
        if case["id"] == "h2" {
            case["outcome"] = "missed".into();
            case["verdict"] = "supported".into();
            case["score"] = 0.97.into();
        }
    }
    std::fs::write(d.join("cand.json"), v.to_string()).unwrap();
    let out = faithprobe_in(d)
        .args(["compare", "base.json", "cand.json", "--format", "markdown"])
        .output()
        .unwrap();
    let md = String::from_utf8(out.stdout).unwrap();
    assert!(md.contains("Refunds in 40 days"), "{md}");
    assert_markdown_inert("compare", &md);
    let out = faithprobe_in(d)
        .args(["report", "md.yaml", "--out", "audit", "--title"])
        .arg(format!("Audit {MARKDOWN_PAYLOAD}"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let md = std::fs::read_to_string(d.join("audit/report.md")).unwrap();
    assert!(md.starts_with("# Audit &lt;/details&gt;&lt;img"), "{md}");
    assert_markdown_inert("report.md", &md);
    // answers of a log, scored: the claims of an answer are cells too
    let answer = serde_json::json!({
        "id": "a1",
        "answer": format!("Refunds take 90 days. {MARKDOWN_PAYLOAD}"),
        "passages": ["Refunds are issued within 14 days."],
    });
    std::fs::write(d.join("log.jsonl"), format!("{answer}\n")).unwrap();
    let out = faithprobe_in(d)
        .args([
            "score",
            "log.jsonl",
            "--format",
            "markdown",
            "--show",
            "all",
        ])
        .output()
        .unwrap();
    let md = String::from_utf8(out.stdout).unwrap();
    assert!(md.contains("90 days"), "{md}");
    assert_markdown_inert("score", &md);
}
