//! A `.snap.new` that faithprobe did not write (empty, binary, a symlink) is refused by
//! `snapshot accept` and `review --snapshots` before anything is promoted or deleted.

use crate::common::{faithprobe_in, root};

/// A folder `snaps` holding the real snapshot of Larkspur, as `run --snapshot` writes it.
fn snapshot_folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    faithprobe_in(dir.path())
        .arg("run")
        .arg(root().join("suites/larkspur.yaml"))
        .args(["--snapshot", "snaps"])
        .assert()
        .success();
    dir
}

const SNAP: &str = "snaps/larkspur-help-center.lexical.snap";

#[test]
fn snapshot_accept_refuses_an_empty_or_binary_snap_new_and_promotes_nothing() {
    let dir = snapshot_folder();
    let snap = dir.path().join(SNAP);
    let new = dir.path().join(format!("{SNAP}.new"));
    let before = std::fs::read(&snap).unwrap();
    let real = String::from_utf8(before.clone()).unwrap();
    for (bytes, says, line) in [
        (b"".to_vec(), "is empty: not a snapshot", None),
        (b"\n  \n".to_vec(), "is empty: not a snapshot", None),
        (
            b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec(),
            "is binary",
            Some(1),
        ),
        (
            real.replacen("\tpassed\t", "\tpassed\0\t", 1).into_bytes(),
            "is binary",
            Some(8),
        ),
    ] {
        std::fs::write(&new, &bytes).unwrap();
        let out = faithprobe_in(dir.path())
            .args(["snapshot", "accept", "snaps"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{says}");
        let err = String::from_utf8(out.stderr).unwrap();
        let at = match line {
            Some(l) => format!("error: {SNAP}.new:{l}: "),
            None => format!("error: {SNAP}.new: "),
        };
        assert!(err.starts_with(&at), "{err}");
        assert!(err.contains(says), "{err}");
        assert!(err.contains("faithprobe snapshot reject snaps"), "{err}");
        assert_eq!(std::fs::read(&snap).unwrap(), before, "nothing promoted");
        assert!(new.exists());
        // and the review of snapshot changes refuses it before it asks anything
        let out = faithprobe_in(dir.path())
            .args(["review", "--snapshots", "snaps"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{says}");
        assert!(String::from_utf8(out.stderr).unwrap().contains(says));
    }
}

#[test]
fn review_of_snapshots_never_follows_or_deletes_a_symlinked_snap_new() {
    let dir = snapshot_folder();
    let snap = dir.path().join(SNAP);
    let before = std::fs::read(&snap).unwrap();
    // a link to a real snapshot elsewhere: reviewing it would delete the link once settled
    let elsewhere = dir.path().join("elsewhere.snap");
    std::fs::write(&elsewhere, &before).unwrap();
    let new = dir.path().join(format!("{SNAP}.new"));
    std::os::unix::fs::symlink(&elsewhere, &new).unwrap();
    for args in [
        vec!["review", "--snapshots", "snaps"],
        vec!["snapshot", "accept", "snaps"],
    ] {
        let out = faithprobe_in(dir.path()).args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains("is not a regular file"), "{args:?}: {err}");
        assert!(
            std::fs::symlink_metadata(&new)
                .unwrap()
                .file_type()
                .is_symlink(),
            "{args:?}: the link stays"
        );
        assert_eq!(std::fs::read(&elsewhere).unwrap(), before);
        assert_eq!(std::fs::read(&snap).unwrap(), before);
    }
}
