//! Which file a path names, so that no output is ever written over an input or over another
//! output: `score --record LOG`, `--html X --record X`, `import --contexts DIR/source_info.jsonl`
//! are refused before any work, however the path is spelled (`./`, `..`, a symlink).

use crate::error::Error;
use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};

/// The absolute path `p` names: the deepest part that exists is canonicalised (symlinks
/// followed), the rest is appended with `.` and `..` resolved lexically. Two spellings of one
/// file give one path.
pub fn resolve(p: &Path) -> PathBuf {
    let abs = if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(p)
    };
    let abs = lexical(&abs);
    let mut existing = abs.clone();
    let mut rest: Vec<OsString> = Vec::new();
    loop {
        if let Ok(c) = existing.canonicalize() {
            let mut out = c;
            for part in rest.iter().rev() {
                out.push(part);
            }
            return lexical(&out);
        }
        match existing.file_name() {
            Some(name) => {
                rest.push(name.to_os_string());
                existing.pop();
            }
            None => return abs,
        }
    }
}

/// `.` and `..` resolved without touching the disk (`a/./b/../c` is `a/c`).
fn lexical(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Refuses an output that is one of the inputs, or the same file as another output. Each path
/// comes with what it is (`--record`, `the log`) for the message.
pub fn check_outputs(inputs: &[(&str, &Path)], outputs: &[(&str, &Path)]) -> Result<(), Error> {
    let special = |p: &Path| p.as_os_str() == "-" || p.starts_with("/dev");
    let ins: Vec<(&str, &Path, PathBuf)> = inputs
        .iter()
        .filter(|(_, p)| !special(p))
        .map(|(w, p)| (*w, *p, resolve(p)))
        .collect();
    let mut outs: Vec<(&str, &Path, PathBuf)> = Vec::new();
    for (what, p) in outputs {
        if special(p) {
            continue;
        }
        let r = resolve(p);
        if let Some((iw, ip, _)) = ins.iter().find(|(_, _, x)| *x == r) {
            return Err(crate::error::Refusal::PathClash.with(format!(
                "{what} {} is {iw} {}: writing it would destroy an input; choose another path",
                p.display(),
                ip.display()
            )));
        }
        if let Some((ow, op, _)) = outs.iter().find(|(_, _, x)| *x == r) {
            return Err(crate::error::Refusal::PathClash.with(format!(
                "{what} {} and {ow} {} are the same file: one output would be lost; give each its own path",
                p.display(),
                op.display()
            )));
        }
        outs.push((what, p, r));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn an_output_spelled_another_way_or_through_a_symlink_is_the_input() {
        let d = tempfile::tempdir().unwrap();
        let log = d.path().join("log.jsonl");
        std::fs::write(&log, "{}\n").unwrap();
        std::fs::create_dir(d.path().join("sub")).unwrap();
        let link = d.path().join("link.jsonl");
        std::os::unix::fs::symlink(&log, &link).unwrap();
        for out in [
            log.clone(),
            d.path().join("./log.jsonl"),
            d.path().join("sub/../log.jsonl"),
            link.clone(),
        ] {
            let err = check_outputs(&[("the log", &log)], &[("--record", &out)])
                .unwrap_err()
                .to_string();
            assert!(
                err.contains("would destroy an input"),
                "{}: {err}",
                out.display()
            );
        }
        let a = d.path().join("new/x.json");
        let b = d.path().join("new/../new/./x.json");
        let err = check_outputs(&[], &[("--record", &a), ("--html", &b)])
            .unwrap_err()
            .to_string();
        assert!(err.contains("are the same file"), "{err}");
        check_outputs(&[("the log", &log)], &[("--record", &a)]).unwrap();
    }

    proptest! {
        /// Any spelling with `.` and `..` segments that leads back to the same place names the same
        /// file, whether or not the file or its folders exist.
        #[test]
        fn spellings_of_one_path_resolve_alike(
            parts in proptest::collection::vec("[a-z]{1,3}", 1..5),
            detours in proptest::collection::vec(0usize..3, 1..5),
            exists in any::<bool>(),
        ) {
            let d = tempfile::tempdir().unwrap();
            let plain = parts.iter().fold(d.path().to_path_buf(), |p, x| p.join(x));
            if exists {
                std::fs::create_dir_all(plain.parent().unwrap()).unwrap();
                std::fs::write(&plain, "x").unwrap();
            }
            let mut odd = d.path().to_path_buf();
            for (i, x) in parts.iter().enumerate() {
                match detours.get(i).copied().unwrap_or(0) {
                    1 => odd.push("."),
                    2 => { odd.push("zz"); odd.push(".."); }
                    _ => {}
                }
                odd.push(x);
            }
            prop_assert_eq!(resolve(&plain), resolve(&odd));
        }
    }
}
