//! `faithprobe review`: the interactive walk driven through a real pseudo-terminal (decide, undo,
//! quit halfway, resume, a kill), the script flags, stale reviews, the side file's merge and
//! `run --require-reviewed`.

use crate::common::{faithprobe_in, root};
use rexpect::process::Signal;
use rexpect::session::{spawn_command, PtySession};
use std::path::{Path, PathBuf};

mod concurrent;
mod lost_terminal;
mod side_file;
mod snapshot_files;

/// A temp folder holding a copy of the Larkspur suite.
fn larkspur_copy() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("larkspur.yaml");
    std::fs::copy(root().join("suites/larkspur.yaml"), &suite).unwrap();
    (dir, suite)
}

/// The pending items of a suite as `review --list --format json` gives them: (id, kind).
fn pending(dir: &Path) -> Vec<(String, String)> {
    let out = faithprobe_in(dir)
        .args(["review", "larkspur.yaml", "--list", "--format", "json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    v["pending"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["id"].as_str().unwrap().to_string(),
                p["kind"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// `faithprobe review ARGS` in a pseudo-terminal in `dir`, colour off.
fn review_in_terminal(dir: &Path, args: &[&str]) -> PtySession {
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("faithprobe"));
    cmd.current_dir(dir)
        .env_remove("CI")
        .env_remove("FAITHPROBE_CONFIG")
        .env("NO_COLOR", "1")
        .env("TERM", "dumb")
        .arg("review")
        .args(args);
    spawn_command(cmd, Some(30_000)).unwrap()
}

/// Types one key (the session's writer is buffered: flushed at once, as a keyboard sends it).
fn press(p: &mut PtySession, key: &str) {
    p.send(key).unwrap();
    p.flush().unwrap();
}

const KEYS: &str = "[s] skip  [u] undo  [?] help  [q] quit";

#[test]
fn review_in_a_terminal_decides_undoes_quits_resumes_and_survives_a_kill() {
    let (dir, suite) = larkspur_copy();
    let original = std::fs::read(&suite).unwrap();
    let side = dir.path().join("larkspur.reviews.yaml");
    let items = pending(dir.path());
    // the fixture's first two pending items are mutants (`f` and `e` apply)
    assert!(items.len() >= 5, "{items:?}");
    assert!(items[..2].iter().all(|(_, k)| k == "mutant"), "{items:?}");
    let id = |i: usize| items[i].0.as_str();
    // the screen's line naming item i: `mutant    ID` or `rewrite   ID`
    let shown = |i: usize| format!("{:<10}{}", items[i].1, items[i].0);

    let mut p = review_in_terminal(dir.path(), &["larkspur.yaml"]);
    p.exp_string(&shown(0)).unwrap();
    p.exp_string(KEYS).unwrap();
    press(&mut p, "f");
    p.exp_string(&shown(1)).unwrap();
    p.exp_string(KEYS).unwrap();
    // equivalent asks why; an empty answer decides nothing
    press(&mut p, "e");
    p.exp_string("why is it still supported").unwrap();
    p.send_line("").unwrap();
    p.exp_string("no reason given: nothing decided").unwrap();
    press(&mut p, "e");
    p.exp_string("why is it still supported").unwrap();
    p.send_line("Still true: \"up to 10 users\" is what plans says, cited as such")
        .unwrap();
    p.exp_string(&shown(2)).unwrap();
    p.exp_string(KEYS).unwrap();
    let two = std::fs::read_to_string(&side).unwrap();
    assert!(
        two.contains(&format!("{}: {{review: fault}}", id(0))),
        "{two}"
    );
    assert!(
        two.contains(&format!(
            "{}: {{review: equivalent, why: \"Still true: \\\"up to 10 users\\\" is what plans says, cited as such\"}}",
            id(1)
        )),
        "{two}"
    );
    // undo takes the equivalent back and shows its mutant again
    press(&mut p, "u");
    p.exp_string(&shown(1)).unwrap();
    p.exp_string(KEYS).unwrap();
    let one = std::fs::read_to_string(&side).unwrap();
    assert!(!one.contains(id(1)), "{one}");
    // skip, then quit halfway
    press(&mut p, "s");
    p.exp_string("1 skipped").unwrap();
    p.exp_string(KEYS).unwrap();
    press(&mut p, "q");
    p.exp_string("1 decided in this review").unwrap();
    p.exp_string("to go on: faithprobe review larkspur.yaml")
        .unwrap();
    p.exp_eof().unwrap();
    assert_eq!(
        std::fs::read(&suite).unwrap(),
        original,
        "the suite is never rewritten"
    );

    // the next review resumes after the last decision: the skipped mutant comes first
    let mut p = review_in_terminal(dir.path(), &["larkspur.yaml"]);
    p.exp_string(&shown(1)).unwrap();
    p.exp_string(KEYS).unwrap();
    press(&mut p, "f");
    p.exp_string(&shown(2)).unwrap();
    p.exp_string(KEYS).unwrap();
    // a kill loses nothing that was decided
    p.process_mut().kill(Signal::SIGKILL).unwrap();
    check_after_kill(dir.path(), &suite, &original, &items, &side);
    // SIGTERM while a screen waits for a key: the terminal is given back, exit 130
    let mut p = review_in_terminal(dir.path(), &["larkspur.yaml"]);
    p.exp_string(KEYS).unwrap();
    p.process_mut().signal(Signal::SIGTERM).unwrap();
    p.exp_string("0 decided in this review").unwrap();
    p.exp_eof().unwrap();
    match p.process().wait().unwrap() {
        rexpect::process::WaitStatus::Exited(_, code) => assert_eq!(code, 130),
        other => panic!("{other:?}"),
    }
}

fn check_after_kill(
    dir: &Path,
    suite: &Path,
    original: &[u8],
    items: &[(String, String)],
    side: &Path,
) {
    let id = |i: usize| items[i].0.as_str();
    let (suite, original, side) = (suite.to_path_buf(), original.to_vec(), side.to_path_buf());
    let text = std::fs::read_to_string(&side).unwrap();
    let lines: Vec<&str> = text.lines().filter(|l| l.starts_with("  m-")).collect();
    assert_eq!(
        lines,
        [
            format!("  {}: {{review: fault}}", id(0)),
            format!("  {}: {{review: fault}}", id(1)),
        ]
    );
    assert_eq!(std::fs::read(&suite).unwrap(), original);
    // and the suite reads them: two fewer pending, and the run counts them
    assert_eq!(pending(dir).len(), items.len() - 2);
    faithprobe_in(dir)
        .args(["run", "larkspur.yaml"])
        .assert()
        .success();
}

#[test]
fn a_rewrite_is_decided_with_its_own_keys() {
    let (dir, _suite) = larkspur_copy();
    let items = pending(dir.path());
    let first_rewrite = items.iter().position(|(_, k)| k == "rewrite").unwrap();
    // mark everything before the first rewrite, so the walk opens on it
    let mut set = faithprobe_in(dir.path());
    set.args(["review", "larkspur.yaml"]);
    for (id, _) in &items[..first_rewrite] {
        set.args(["--set", &format!("{id}=fault")]);
    }
    set.assert().success();
    let (rid, _) = &items[first_rewrite];
    let mut p = review_in_terminal(dir.path(), &["larkspur.yaml"]);
    p.exp_string(&format!("rewrite   {rid}")).unwrap();
    p.exp_string("[e] says the same  [n] not equivalent (asks why)")
        .unwrap();
    press(&mut p, "?");
    p.exp_string("Press any key to go back.").unwrap();
    press(&mut p, " ");
    p.exp_string(&format!("rewrite   {rid}")).unwrap();
    press(&mut p, "f");
    p.exp_string("a rewrite is not a fault").unwrap();
    press(&mut p, "n");
    p.exp_string("why does it not say the same?").unwrap();
    p.send_line("\"up to ten\" drops the cap's wording")
        .unwrap();
    p.exp_string(KEYS).unwrap();
    press(&mut p, "q");
    p.exp_eof().unwrap();
    let side = std::fs::read_to_string(dir.path().join("larkspur.reviews.yaml")).unwrap();
    assert!(
        side.contains(&format!(
            "{rid}: {{review: not_equivalent, why: \"\\\"up to ten\\\" drops the cap's wording\"}}"
        )),
        "{side}"
    );
}

#[test]
fn the_review_screen_shows_the_change_the_passages_and_the_checker() {
    use faithprobe::mutate::{self, Rules};
    use faithprobe::review::{screen, CheckerView, Walk};
    let (_dir, suite) = larkspur_copy();
    let s = faithprobe::model::suite::Suite::load(&suite).unwrap();
    let set = mutate::generate(&s, &Rules::builtin()).unwrap();
    let loaded = vec![(s, set)];
    let walk = Walk::new(&loaded).unwrap();
    let item = walk.current().unwrap();
    let m = walk.mutant(item);
    let checker = faithprobe::check::lexical::LexicalChecker::new(
        "lexical",
        faithprobe::check::lexical::LexicalSettings::default(),
    );
    let sets = [faithprobe::check::ContextSet::from(
        &loaded[0].0.contexts[m.context],
    )];
    let input = faithprobe::check::CheckInput {
        contexts: &sets,
        entities: &loaded[0].0.entities,
        claims: vec![faithprobe::check::ClaimToCheck {
            context: 0,
            text: &m.text,
        }],
    };
    use faithprobe::check::Checker;
    let result = checker.check(&input, &mut |_| {}).remove(0);
    let text = screen(
        &walk,
        Some(CheckerView {
            name: "lexical",
            result: &result,
        }),
        false,
    );
    insta::assert_snapshot!("review_screen", text);
}

#[test]
fn without_a_terminal_review_says_how_and_every_printed_command_works() {
    let (dir, _suite) = larkspur_copy();
    let out = faithprobe_in(dir.path())
        .args(["review", "larkspur.yaml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("this is not one"), "{err}");
    let items = pending(dir.path());
    // each printed command, with its placeholders filled, works as printed
    for line in err
        .lines()
        .filter(|l| l.trim_start().starts_with("faithprobe review"))
    {
        let cmd = line.trim_start().split("   ").next().unwrap().trim();
        let filled = cmd
            .replace("ID=fault", &format!("{}=fault", items[0].0))
            .replace("ID=equivalent", &format!("{}=equivalent", items[1].0))
            .replace("\"...\"", "still_true");
        let args: Vec<&str> = filled.split_whitespace().skip(1).collect();
        let code = faithprobe_in(dir.path())
            .args(&args)
            .output()
            .unwrap()
            .status
            .code();
        // --list exits 1 while anything is pending; a decision exits 0
        assert!(matches!(code, Some(0) | Some(1)), "{filled}: {code:?}");
    }
    let side = std::fs::read_to_string(dir.path().join("larkspur.reviews.yaml")).unwrap();
    assert!(
        side.contains(&format!("{}: {{review: fault}}", items[0].0)),
        "{side}"
    );
    assert!(
        side.contains(&format!(
            "{}: {{review: equivalent, why: \"still_true\"}}",
            items[1].0
        )),
        "{side}"
    );
}

#[test]
fn set_refuses_what_does_not_fit_and_writes_nothing() {
    let (dir, _suite) = larkspur_copy();
    let items = pending(dir.path());
    let rewrite = &items.iter().find(|(_, k)| k == "rewrite").unwrap().0;
    let mutant = &items[0].0;
    let side = dir.path().join("larkspur.reviews.yaml");
    for (args, says) in [
        (vec![format!("{mutant}=equivalent")], "needs a reason"),
        (vec![format!("{rewrite}=fault")], "is a rewrite"),
        (vec![format!("{mutant}=not_equivalent")], "is a mutant"),
        (vec![format!("{mutant}=maybe")], "is not a decision"),
        (vec![format!("{mutant}")], "write `ID=DECISION`"),
        (
            vec![format!("{mutant}=supported")],
            "decide `fault`, `equivalent` or `broken`",
        ),
        (vec![format!("{rewrite}=broken")], "is a rewrite"),
        // one bad --set among good ones: nothing is written
        (
            vec![format!("{mutant}=fault"), "m-0000000000000000=fault".into()],
            "no mutant, rewrite or pending claim `m-0000000000000000`",
        ),
    ] {
        let mut c = faithprobe_in(dir.path());
        c.args(["review", "larkspur.yaml"]);
        for a in &args {
            c.args(["--set", a]);
        }
        let out = c.output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(!side.exists(), "{args:?} wrote the side file");
    }
    // a mutant reviewed in the suite itself is changed there, not shadowed
    let reviewed = faithprobe_in(dir.path())
        .args(["mutants", "larkspur.yaml", "--format", "json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&reviewed.stdout).unwrap();
    let done = v["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["review"]["review"] == "fault")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let out = faithprobe_in(dir.path())
        .args([
            "review",
            "larkspur.yaml",
            "--set",
            &format!("{done}=equivalent"),
            "--why",
            "x",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("is reviewed in the suite itself (larkspur.yaml:"),
        "{err}"
    );
    // and a side file that reviews it too is an error at its own line
    std::fs::write(
        &side,
        format!("reviews:\n  {done}: {{review: equivalent, why: \"twice\"}}\n"),
    )
    .unwrap();
    let out = faithprobe_in(dir.path())
        .args(["run", "larkspur.yaml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("larkspur.reviews.yaml:2"), "{err}");
    assert!(
        err.contains("is reviewed here and in larkspur.yaml:"),
        "{err}"
    );
}

#[test]
fn stale_reviews_are_listed_and_pruned_and_the_suite_keeps_every_other_byte() {
    let (dir, suite) = larkspur_copy();
    let text = std::fs::read_to_string(&suite).unwrap();
    // a stale review in the suite's own block, under a comment, and one in the side file
    let (head, tail) = text.split_at(text.find("reviews:\n").unwrap() + "reviews:\n".len());
    let stale_line = "  m-1111111111111111: {review: fault}   # Refunds take 30 days\n";
    let edited = format!("{head}  # a person's comment stays\n{stale_line}{tail}");
    std::fs::write(&suite, &edited).unwrap();
    let items = pending(dir.path());
    std::fs::write(
        dir.path().join("larkspur.reviews.yaml"),
        format!(
            "reviews:\n  m-2222222222222222: {{review: equivalent, why: \"gone\"}}\n  {}: {{review: fault}}\n",
            items[0].0
        ),
    )
    .unwrap();
    let out = faithprobe_in(dir.path())
        .args(["review", "larkspur.yaml", "--stale"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let listed = String::from_utf8(out.stdout).unwrap();
    assert!(listed.contains("larkspur.yaml:"), "{listed}");
    assert!(listed.contains("m-1111111111111111"), "{listed}");
    assert!(
        listed.contains("larkspur.reviews.yaml:2: m-2222222222222222"),
        "{listed}"
    );
    // the run's warning names the command that removes them
    let run = faithprobe_in(dir.path())
        .args(["run", "larkspur.yaml"])
        .output()
        .unwrap();
    let warn = String::from_utf8(run.stderr).unwrap();
    assert!(
        warn.contains("to remove them: faithprobe review larkspur.yaml --prune"),
        "{warn}"
    );
    faithprobe_in(dir.path())
        .args(["review", "larkspur.yaml", "--prune"])
        .assert()
        .success();
    let after = std::fs::read_to_string(&suite).unwrap();
    assert_eq!(
        after,
        edited.replace(stale_line, ""),
        "only the stale line goes"
    );
    let side = std::fs::read_to_string(dir.path().join("larkspur.reviews.yaml")).unwrap();
    assert!(!side.contains("m-2222222222222222"), "{side}");
    assert!(
        side.contains(&items[0].0),
        "the live decision stays: {side}"
    );
    faithprobe_in(dir.path())
        .args(["review", "larkspur.yaml", "--stale"])
        .assert()
        .success()
        .stdout("no stale reviews\n");
}

#[test]
fn require_reviewed_fails_a_run_with_unreviewed_mutants_and_its_advice_works() {
    let (dir, _suite) = larkspur_copy();
    let out = faithprobe_in(dir.path())
        .args(["run", "larkspur.yaml", "--require-reviewed"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("without a review"), "{err}");
    let list = err
        .lines()
        .find_map(|l| l.split("list them for a script: ").nth(1))
        .unwrap();
    let args: Vec<&str> = list.split_whitespace().skip(1).collect();
    let out = faithprobe_in(dir.path()).args(&args).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "pending items: exit 1");
    // decide them all from a script; then the gate passes
    let mut set = faithprobe_in(dir.path());
    set.args(["review", "larkspur.yaml", "--why", "read: says the same"]);
    for (id, kind) in pending(dir.path()) {
        let d = if kind == "rewrite" {
            "equivalent"
        } else {
            "fault"
        };
        set.args(["--set", &format!("{id}={d}")]);
    }
    set.assert().success();
    faithprobe_in(dir.path())
        .args(["run", "larkspur.yaml", "--require-reviewed"])
        .assert()
        .success();
    // a glob that also matches the side file still runs the suite once
    faithprobe_in(dir.path())
        .args(["run", "larkspur.reviews.yaml", "larkspur.yaml"])
        .assert()
        .success();
    let out = faithprobe_in(dir.path())
        .args(["run", "larkspur.reviews.yaml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .contains("holds the reviews of larkspur.yaml, not a suite: pass larkspur.yaml"));
}

#[test]
fn snapshot_changes_are_reviewed_one_verdict_at_a_time() {
    let (dir, suite) = larkspur_copy();
    faithprobe_in(dir.path())
        .args(["run", "larkspur.yaml", "--snapshot", "snaps"])
        .assert()
        .success();
    let snap = dir.path().join("snaps/larkspur-help-center.lexical.snap");
    let before = std::fs::read_to_string(&snap).unwrap();
    // the pricing page changes: the verdicts on the Team plan's price change with it
    let text = std::fs::read_to_string(&suite).unwrap();
    let changed = text.replacen("€12 per user per month", "€14 per user per month", 1);
    assert_ne!(changed, text);
    std::fs::write(&suite, changed).unwrap();
    let out = faithprobe_in(dir.path())
        .args(["run", "larkspur.yaml", "--snapshot", "snaps", "--check"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let new = dir
        .path()
        .join("snaps/larkspur-help-center.lexical.snap.new");
    let new_text = std::fs::read_to_string(&new).unwrap();
    let mut p = review_in_terminal(dir.path(), &["--snapshots", "snaps"]);
    p.exp_string("change 1 of ").unwrap();
    let (_, total) = p.exp_regex(r"[0-9]+").unwrap();
    let total: usize = total.parse().unwrap();
    assert!(total >= 2, "{total}");
    p.exp_string("[a] accept").unwrap();
    press(&mut p, "a");
    p.exp_string("change 2 of").unwrap();
    p.exp_string("[a] accept").unwrap();
    press(&mut p, "r");
    p.exp_string("[a] accept").unwrap();
    press(&mut p, "q");
    p.exp_string("1 accepted, 1 rejected").unwrap();
    p.exp_eof().unwrap();
    let mid = std::fs::read_to_string(&snap).unwrap();
    assert_ne!(mid, before, "the accepted verdict is in the .snap");
    assert!(new.exists(), "changes are left");
    // the rest, accepted one by one, settle the pair: the .snap.new goes
    let mut p = review_in_terminal(dir.path(), &["--snapshots", "snaps"]);
    for _ in 0..total - 2 {
        p.exp_string("[a] accept").unwrap();
        press(&mut p, "a");
    }
    p.exp_string("0 .snap.new files still pending").unwrap();
    p.exp_eof().unwrap();
    assert!(!new.exists());
    let settled = std::fs::read_to_string(&snap).unwrap();
    assert_ne!(settled, new_text, "one change was rejected");
    // the rejected change shows again at the next check: exactly one line differs
    let out = faithprobe_in(dir.path())
        .args(["run", "larkspur.yaml", "--snapshot", "snaps", "--check"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let again = std::fs::read_to_string(&new).unwrap();
    let differ = again
        .lines()
        .zip(settled.lines())
        .filter(|(a, b)| a != b)
        .count();
    assert_eq!(differ, 1, "{again}\n---\n{settled}");
}

#[test]
fn on_a_colour_terminal_the_word_diff_is_painted_not_escaped() {
    let (dir, _suite) = larkspur_copy();
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("faithprobe"));
    cmd.current_dir(dir.path())
        .env_remove("CI")
        .env_remove("FAITHPROBE_CONFIG")
        .env_remove("NO_COLOR")
        .env("TERM", "xterm-256color")
        .args(["review", "larkspur.yaml"]);
    let mut p = spawn_command(cmd, Some(30_000)).unwrap();
    // the added words in bold green, as the terminal receives them
    let before = p.exp_string("\u{1b}[1m\u{1b}[32m").unwrap();
    assert!(before.contains("change    "), "{before:?}");
    let shown = p.exp_string("[q] quit").unwrap();
    assert!(!shown.contains("\\u{1b}"), "escaped colour: {shown:?}");
    press(&mut p, "q");
    p.exp_eof().unwrap();
}
