//! Writers sharing one side file: scripts deciding at once, and a terminal review open while a
//! script decides. No decision reported as saved is lost; one decided two ways is a conflict.

use super::{larkspur_copy, pending, press, review_in_terminal, KEYS};
use crate::common::faithprobe_in;

/// The decisions of the side file in `dir`: (id, decision), in file order.
fn side_decisions(dir: &std::path::Path) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(dir.join("larkspur.reviews.yaml")).unwrap();
    let v = crate::common::parse_yaml(&text);
    v["reviews"]
        .as_mapping()
        .unwrap()
        .iter()
        .map(|(k, r)| {
            (
                k.as_str().unwrap().to_string(),
                r["review"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn twelve_review_set_at_once_keep_every_decision_they_report_saved() {
    let (dir, _suite) = larkspur_copy();
    // (id, decision): a mutant is a fault, a rewrite says the same
    let decided: Vec<(String, &str)> = pending(dir.path())
        .into_iter()
        .map(|(id, k)| (id, if k == "mutant" { "fault" } else { "equivalent" }))
        .take(12)
        .collect();
    assert_eq!(decided.len(), 12);
    let children: Vec<_> = decided
        .iter()
        .map(|(id, d)| {
            let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("faithprobe"));
            c.current_dir(dir.path())
                .env_remove("CI")
                .env_remove("FAITHPROBE_CONFIG")
                .args(["review", "larkspur.yaml", "--set", &format!("{id}={d}")])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped());
            c.spawn().unwrap()
        })
        .collect();
    for ((id, d), child) in decided.iter().zip(children) {
        let out = child.wait_with_output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{id}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            String::from_utf8_lossy(&out.stdout).contains(&format!("{id}: {d}")),
            "{id} reported saved"
        );
    }
    let mut saved = side_decisions(dir.path());
    saved.sort();
    let mut want: Vec<(String, String)> = decided
        .iter()
        .map(|(id, d)| (id.clone(), d.to_string()))
        .collect();
    want.sort();
    assert_eq!(
        saved, want,
        "every decision reported saved is in the side file"
    );
}

#[test]
fn an_open_terminal_review_keeps_a_decision_made_meanwhile_and_reports_a_conflict() {
    let (dir, _suite) = larkspur_copy();
    let items = pending(dir.path());
    let id = |i: usize| items[i].0.clone();
    assert!(
        items[..2]
            .iter()
            .chain([&items[4]])
            .all(|(_, k)| k == "mutant"),
        "{items:?}"
    );
    // the screen's line naming item i: `mutant    ID` or `rewrite   ID`
    let shown = |i: usize| format!("{:<10}{}", items[i].1, items[i].0);
    let mut p = review_in_terminal(dir.path(), &["larkspur.yaml"]);
    p.exp_string(&shown(0)).unwrap();
    p.exp_string(KEYS).unwrap();
    // a script decides the fifth item and the second while the terminal shows the first
    faithprobe_in(dir.path())
        .args([
            "review",
            "larkspur.yaml",
            "--set",
            &format!("{}=fault", id(4)),
        ])
        .args(["--set", &format!("{}=equivalent", id(1))])
        .args(["--why", "decided by the script"])
        .assert()
        .success();
    press(&mut p, "f");
    // the walk knows the second item is decided now: it goes on to the third
    p.exp_string(&shown(2)).unwrap();
    p.exp_string(KEYS).unwrap();
    assert_eq!(
        side_decisions(dir.path()),
        [
            (id(4), "fault".to_string()),
            (id(1), "equivalent".to_string()),
            (id(0), "fault".to_string()),
        ],
        "the terminal's decision is added to the script's, none wiped"
    );
    // the script changes the first item while the terminal could undo it: undo is refused
    faithprobe_in(dir.path())
        .args([
            "review",
            "larkspur.yaml",
            "--set",
            &format!("{}=equivalent", id(0)),
        ])
        .args(["--why", "changed by the script"])
        .assert()
        .success();
    press(&mut p, "u");
    p.exp_string("by another review").unwrap();
    p.exp_string("a conflict, so nothing was overwritten")
        .unwrap();
    p.exp_string("help: look at the mutant again").unwrap();
    press(&mut p, "q");
    p.exp_eof().unwrap();
    let after = side_decisions(dir.path());
    assert!(
        after.contains(&(id(0), "equivalent".to_string())),
        "the script's change stays: {after:?}"
    );
    assert_eq!(after.len(), 3, "{after:?}");
}
