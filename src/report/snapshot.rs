//! Snapshots: every verdict of a run in a stable text file, for review and diffing.
//!
//! A snapshot is a small YAML header and one tab-separated line per case, sorted by kind and id,
//! with no timestamps, so two runs that agree give byte-identical files. A changed snapshot is
//! written beside the old one as `.snap.new` and promoted by `faithprobe snapshot accept`.

use crate::engine::run::SuiteRun;
use crate::error::{Error, Result};
use crate::report::{fmt_score, fmt_settings};
use owo_colors::OwoColorize;
use similar::{ChangeTag, TextDiff};
use std::path::{Path, PathBuf};

/// The snapshot text of a run.
pub fn render(run: &SuiteRun) -> String {
    let mut out = String::new();
    out.push_str("# faithprobe snapshot: one line per case; review changes, then `faithprobe snapshot accept`\n");
    out.push_str(&format!("suite: {}\n", run.suite));
    out.push_str(&format!("checker: {}\n", run.checker));
    out.push_str(&format!("kind: {}\n", run.checker_kind));
    out.push_str(&format!("settings: {{{}}}\n", fmt_settings(&run.settings)));
    out.push_str(
        "columns: id, kind, fault_type, expected, role, verdict, score, evidence, outcome, claim\n---\n",
    );
    let mut rows: Vec<_> = run.results.iter().collect();
    rows.sort_by(|a, b| (a.case.kind, &a.case.id).cmp(&(b.case.kind, &b.case.id)));
    for r in rows {
        let (verdict, score, evidence) = match &r.result {
            Ok(v) => (
                v.label.as_str().to_string(),
                fmt_score(v.score),
                v.evidence
                    .as_ref()
                    .map(|e| e.passage.clone())
                    .unwrap_or_else(|| "-".into()),
            ),
            Err(_) => ("error".into(), "-".into(), "-".into()),
        };
        out.push_str(&format!(
            "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n",
            r.case.id,
            r.case.kind.as_str(),
            r.case.fault_type.as_deref().unwrap_or("-"),
            r.case.expected.as_str(),
            r.case.role().as_str(),
            verdict,
            score,
            evidence,
            r.outcome.as_str(),
            r.case.claim.replace(['\t', '\n', '\r'], " ")
        ));
    }
    out
}

/// The file name of a suite's snapshot under a checker.
pub fn file_name(suite: &str, checker: &str) -> String {
    let safe = |s: &str| {
        s.chars()
            .map(|c| {
                if c.is_alphanumeric() || "-_.".contains(c) {
                    c
                } else {
                    '_'
                }
            })
            .collect::<String>()
    };
    // a name that had to be changed to be a file name gets a short hash of itself, so `v1/nli`
    // and `v1_nli` never share a file
    let part = |s: &str| {
        let f = safe(s);
        if f == s {
            f
        } else {
            format!("{f}-{}", crate::text::hash::sha256_hex(s.as_bytes(), 4))
        }
    };
    format!("{}.{}.snap", part(suite), part(checker))
}

/// What writing a snapshot found.
#[derive(Debug, Clone, PartialEq)]
pub enum SnapshotStatus {
    /// No snapshot existed; this one was written.
    Created(PathBuf),
    /// The snapshot on disk matches.
    Unchanged(PathBuf),
    /// The snapshot differs (or is missing under `--check`): the new one is at `new_path`.
    Changed {
        path: PathBuf,
        new_path: PathBuf,
        diff: String,
    },
}

/// Writes or compares the snapshot of a run in `dir`. With `strict` (`--check` or `CI` set) a
/// missing snapshot is a change, not a creation.
pub fn write(dir: &Path, run: &SuiteRun, strict: bool, color: bool) -> Result<SnapshotStatus> {
    std::fs::create_dir_all(dir).map_err(|e| Error::write(dir, e))?;
    let path = dir.join(file_name(&run.suite, &run.checker));
    let new_path = path.with_extension("snap.new");
    let text = render(run);
    // the snapshot's path is an output: one that cannot even be looked at (a name too long for
    // the file system, a folder without permission) fails the output after the run, exit 4
    let old = match std::fs::read_to_string(&path) {
        Ok(s) => Some(s),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(Error::write(&path, e)),
    };
    match old {
        Some(old) if old == text => {
            // a stale .snap.new from an earlier change no longer applies
            let _ = std::fs::remove_file(&new_path);
            Ok(SnapshotStatus::Unchanged(path))
        }
        None if !strict => {
            crate::io::write::write_atomic(&path, text.as_bytes())?;
            Ok(SnapshotStatus::Created(path))
        }
        old => {
            let old = old.unwrap_or_default();
            crate::io::write::write_atomic(&new_path, text.as_bytes())?;
            Ok(SnapshotStatus::Changed {
                diff: diff(&old, &text, &path, &new_path, color),
                path,
                new_path,
            })
        }
    }
}

/// A unified diff of two snapshot texts, coloured when asked.
pub fn diff(old: &str, new: &str, old_path: &Path, new_path: &Path, color: bool) -> String {
    let d = TextDiff::from_lines(old, new);
    let mut out = format!("--- {}\n+++ {}\n", old_path.display(), new_path.display());
    for group in d.grouped_ops(1) {
        for op in group {
            for change in d.iter_changes(&op) {
                let (sign, line) = match change.tag() {
                    ChangeTag::Delete => ("-", format!("-{change}")),
                    ChangeTag::Insert => ("+", format!("+{change}")),
                    ChangeTag::Equal => (" ", format!(" {change}")),
                };
                // a claim or id of the suite never reaches the terminal as a control sequence
                let line = crate::text::escape::printable(line.trim_end_matches('\n')) + "\n";
                out.push_str(&match (color, sign) {
                    (true, "-") => line.red().to_string(),
                    (true, "+") => line.green().to_string(),
                    _ => line,
                });
            }
        }
        out.push_str("@@\n");
    }
    out
}

/// The `.snap.new` files of `dir` waiting for a decision, in name order.
pub fn pending(dir: &Path) -> Result<Vec<PathBuf>> {
    let entries = std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))?;
    let mut news: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".snap.new"))
        .collect();
    news.sort();
    Ok(news)
}

/// Deletes the `.snap.new` files of `dir` (the changes are rejected; the accepted snapshots stay
/// as they are); returns the files deleted. Only regular files are deleted.
pub fn reject(dir: &Path) -> Result<Vec<PathBuf>> {
    let news = pending(dir)?;
    for new in &news {
        if !std::fs::symlink_metadata(new).is_ok_and(|m| m.file_type().is_file()) {
            return Err(crate::error::Refusal::NotARegularFile.with(format!(
                "{} is not a regular file (a symlink, folder or device); snapshot reject deletes only regular files: remove it by hand",
                new.display()
            )));
        }
    }
    for new in &news {
        std::fs::remove_file(new).map_err(|e| Error::io(new, e))?;
    }
    Ok(news)
}

/// Checks that the `.snap.new` at `new` is a snapshot faithprobe wrote: a regular file (never a
/// symlink followed), not empty, text without control characters.
/// Accepting or reviewing anything else would promote it over a real snapshot.
pub fn check_new(new: &Path) -> Result<()> {
    let help = |dir: &str| {
        format!("delete it (`faithprobe snapshot reject {dir}`) and write it again with `faithprobe run SUITE --snapshot {dir}`")
    };
    let dir = crate::text::shell::shell_word(
        &new.parent()
            .map(|d| d.display().to_string())
            .filter(|d| !d.is_empty())
            .unwrap_or_else(|| ".".into()),
    );
    match std::fs::symlink_metadata(new) {
        Ok(m) if m.file_type().is_file() => {}
        Ok(_) => {
            return Err(Error::input(
                new,
                None,
                "is not a regular file (a symlink, folder or device): faithprobe never follows or replaces one",
                "remove it by hand, then write the snapshot again with `faithprobe run SUITE --snapshot DIR`",
            ))
        }
        Err(e) => return Err(Error::io(new, e)),
    }
    let bytes = std::fs::read(new).map_err(|e| Error::io(new, e))?;
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(Error::input(
            new,
            None,
            "is empty: not a snapshot",
            help(&dir),
        ));
    }
    let line_at = |at: usize| 1 + bytes[..at].iter().filter(|&&b| b == b'\n').count();
    let bad = match std::str::from_utf8(&bytes) {
        Err(e) => Some(e.valid_up_to()),
        Ok(t) => t
            .char_indices()
            .find(|(_, c)| c.is_control() && !matches!(c, '\n' | '\t' | '\r'))
            .map(|(i, _)| i),
    };
    if let Some(at) = bad {
        return Err(Error::input(
            new,
            Some(line_at(at)),
            "is binary (invalid UTF-8 or a control character): not a snapshot",
            help(&dir),
        ));
    }
    Ok(())
}

/// Promotes every `.snap.new` in `dir` over its `.snap`; returns the promoted snapshots. Every
/// file is checked ([`check_new`]) before any is promoted.
pub fn accept(dir: &Path) -> Result<Vec<PathBuf>> {
    let news = pending(dir)?;
    let mut done = Vec::new();
    // as every other writer: never replace (or follow) anything but a regular file
    let regular_or_absent = |p: &Path| match std::fs::symlink_metadata(p) {
        Ok(m) => m.file_type().is_file(),
        Err(e) => e.kind() == std::io::ErrorKind::NotFound,
    };
    for new in &news {
        let target = PathBuf::from(new.to_string_lossy().trim_end_matches(".new").to_string());
        for p in [new.as_path(), target.as_path()] {
            if !regular_or_absent(p) || (p == new.as_path() && !p.exists()) {
                return Err(crate::error::Refusal::NotARegularFile.with(format!(
                    "{} is not a regular file (a symlink, folder or device); snapshot accept replaces only regular files: remove it and accept again",
                    p.display()
                )));
            }
        }
    }
    for new in &news {
        check_new(new)?;
    }
    for new in news {
        let target = PathBuf::from(new.to_string_lossy().trim_end_matches(".new").to_string());
        std::fs::rename(&new, &target).map_err(|e| Error::io(&new, e))?;
        done.push(target);
    }
    Ok(done)
}
