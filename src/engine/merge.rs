//! `faithprobe merge`: joins the records of shards 1/N..N/N into the record the unsharded job
//! would have written, byte for byte: every shard once, the same log (by content) or suite and
//! the same checker (by its settings), the original order restored from positions.

use crate::answers::score::ScoreRecord;
use crate::engine::record::{AnyRecord, Record};
use crate::error::{Error, Result};
use crate::model::shard::Shard;
use std::path::{Path, PathBuf};

const MERGE_HELP: &str =
    "merge the records written by `--shard 1/N` ... `--shard N/N` of the same command, unedited";

fn shards_complete(shards: &[(PathBuf, Option<Shard>)]) -> Result<u32> {
    let mut n = None;
    let mut seen: Vec<(u32, &Path)> = Vec::new();
    for (path, s) in shards {
        let Some(s) = s else {
            return Err(Error::input(
                path,
                None,
                "not the record of a shard (it has no `shard`); it is already whole",
                MERGE_HELP,
            ));
        };
        match n {
            None => n = Some(s.n),
            Some(m) if m != s.n => {
                return Err(Error::input(
                    path,
                    None,
                    format!("shard {s} is of a split into {}, the others into {m}", s.n),
                    MERGE_HELP,
                ))
            }
            _ => {}
        }
        if let Some((_, other)) = seen.iter().find(|(k, _)| *k == s.k) {
            return Err(Error::input(
                path,
                None,
                format!("shard {s} is also in {}", other.display()),
                MERGE_HELP,
            ));
        }
        seen.push((s.k, path));
    }
    let n = n.ok_or_else(|| {
        crate::error::Refusal::WrongRecords.with("merge needs at least one record")
    })?;
    let missing: Vec<String> = (1..=n)
        .filter(|k| !seen.iter().any(|(x, _)| x == k))
        .map(|k| format!("{k}/{n}"))
        .collect();
    if !missing.is_empty() {
        return Err(crate::error::Refusal::ShardsMismatch.with(format!(
            "shard(s) {} missing: a merge of part of the shards would report on part of the data as if it were all of it",
            missing.join(", ")
        )));
    }
    Ok(n)
}

/// Joins the score records of shards 1/N..N/N into the record of the whole log.
pub fn merge_score(parts: Vec<(PathBuf, ScoreRecord)>) -> Result<ScoreRecord> {
    shards_complete(
        &parts
            .iter()
            .map(|(p, r)| (p.clone(), r.shard))
            .collect::<Vec<_>>(),
    )?;
    let (first_path, first) = &parts[0];
    let mut out = first.clone_head();
    out.shard = None;
    // every shard read the whole log, so each saw the same unreadable lines
    out.lines_not_read = parts
        .iter()
        .map(|(_, r)| r.lines_not_read)
        .max()
        .unwrap_or(0);
    if out.lines_not_read > 0 {
        crate::io::notes::note(format!(
            "warning: {} line(s) of the log could not be read when it was scored; the merged record lacks their answers (fix the lines and score again for a whole record)",
            out.lines_not_read
        ));
    }
    for (path, r) in &parts {
        // the log by its content when both records carry it (`./log.jsonl` and `log.jsonl` are
        // one log; two logs written to one path are two), else by its path
        let by_content = !r.log_sha256.is_empty() && !first.log_sha256.is_empty();
        let (what, a, b) = if by_content {
            ("log (sha256)", &r.log_sha256, &first.log_sha256)
        } else {
            ("log", &r.log, &first.log)
        };
        let settings = |x: &ScoreRecord| {
            x.checker_settings
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let (sa, sb) = (settings(r), settings(first));
        for (what, a, b) in [
            (what, a, b),
            ("checker", &r.checker, &first.checker),
            ("checker's settings", &sa, &sb),
            ("decomposer", &r.decomposer, &first.decomposer),
        ] {
            if a != b {
                return Err(Error::input(
                    path,
                    None,
                    format!(
                        "its {what} is `{a}` but {} has `{b}`: shards of different runs",
                        first_path.display()
                    ),
                    MERGE_HELP,
                ));
            }
        }
    }
    let mut answers: Vec<_> = parts.into_iter().flat_map(|(_, r)| r.answers).collect();
    answers.sort_by_key(|a| a.position);
    if let Some(w) = answers.windows(2).find(|w| w[0].position == w[1].position) {
        return Err(crate::error::Refusal::ShardsMismatch.with(format!(
            "answers `{}` and `{}` both claim position {} of the log: shards of different logs",
            w[0].id, w[1].id, w[0].position
        )));
    }
    out.answers = answers;
    Ok(out)
}

/// Joins the run records of shards 1/N..N/N into the record of the whole run.
#[allow(clippy::too_many_lines)] // every check that the shards make one run, in order
pub fn merge_run(parts: Vec<(PathBuf, Record)>) -> Result<Record> {
    let (first_path, first) = &parts[0];
    for (path, r) in &parts {
        let names: Vec<&str> = r.runs.iter().map(|x| x.suite.as_str()).collect();
        let first_names: Vec<&str> = first.runs.iter().map(|x| x.suite.as_str()).collect();
        if names != first_names {
            return Err(Error::input(
                path,
                None,
                format!(
                    "its suites are [{}] but {} has [{}]",
                    names.join(", "),
                    first_path.display(),
                    first_names.join(", ")
                ),
                MERGE_HELP,
            ));
        }
    }
    let mut runs = Vec::new();
    for i in 0..first.runs.len() {
        let shards: Vec<(PathBuf, Option<Shard>)> = parts
            .iter()
            .map(|(p, r)| (p.clone(), r.runs[i].shard))
            .collect();
        shards_complete(&shards)?;
        let base = &first.runs[i];
        let mut cases = Vec::new();
        for (path, r) in &parts {
            let run = &r.runs[i];
            if run.rules_sha256 != base.rules_sha256 {
                let said = |x: &str| {
                    if x.is_empty() {
                        "no fingerprint (a record from an older faithprobe)".to_string()
                    } else {
                        format!("fingerprint {x}")
                    }
                };
                return Err(Error::input(
                    path,
                    None,
                    format!(
                        "suite `{}`: its mutants were made by other mutation rules than those of {} ({} against {}): shards of different runs",
                        run.suite,
                        first_path.display(),
                        said(&run.rules_sha256),
                        said(&base.rules_sha256)
                    ),
                    "run every shard with the same `--mutators` folder (or `mutators:` in faithprobe.yaml) and LLM mutators, then merge",
                ));
            }
            if run.suite_sha256 != base.suite_sha256 || run.checker != base.checker {
                return Err(Error::input(
                    path,
                    None,
                    format!(
                        "suite `{}`: its suite version or checker differs from {}: shards of different runs",
                        run.suite,
                        first_path.display()
                    ),
                    MERGE_HELP,
                ));
            }
            for c in &run.cases {
                // a case in the shard that does not own it was moved by hand
                if let Some(sh) = run.shard {
                    if !sh.owns(c.parent.as_deref().unwrap_or(&c.id)) {
                        return Err(Error::input(
                            path,
                            None,
                            format!(
                                "case `{}` is not shard {sh}'s (cases go to shards by their claim): the shard records were edited",
                                c.id
                            ),
                            MERGE_HELP,
                        ));
                    }
                }
                let Some(pos) = c.position else {
                    return Err(Error::input(
                        path,
                        None,
                        format!("case `{}` has no position: not written by a shard", c.id),
                        MERGE_HELP,
                    ));
                };
                let mut c = c.clone();
                c.position = None;
                cases.push((pos, c));
            }
        }
        cases.sort_by_key(|(p, _)| *p);
        // every position from the first to the last, each once: a case left out of a shard (or
        // given twice) is no whole run
        if let Some(j) = cases.iter().enumerate().position(|(j, (p, _))| *p != j) {
            return Err(Error::input(
                &parts[0].0,
                None,
                format!(
                    "suite `{}`: the shards' cases leave out or repeat position {j}: a case is missing from one of the shard records",
                    base.suite
                ),
                MERGE_HELP,
            ));
        }
        let mut merged = base.clone();
        merged.shard = None;
        merged.cases = cases.into_iter().map(|(_, c)| c).collect();
        runs.push(merged);
    }
    Ok(Record::new(runs))
}

/// Loads shard records of one kind and merges them.
pub fn merge_files(paths: &[PathBuf]) -> Result<AnyRecord> {
    let mut scores = Vec::new();
    let mut runs = Vec::new();
    for p in paths {
        match AnyRecord::load(p)? {
            AnyRecord::Score(s) => scores.push((p.clone(), s)),
            AnyRecord::Run(r) => runs.push((p.clone(), r)),
        }
    }
    match (scores.is_empty(), runs.is_empty()) {
        (false, true) => Ok(AnyRecord::Score(merge_score(scores)?)),
        (true, false) => Ok(AnyRecord::Run(merge_run(runs)?)),
        (true, true) => {
            Err(crate::error::Refusal::WrongRecords.with("merge needs the shard records"))
        }
        (false, false) => Err(crate::error::Refusal::WrongRecords.with(
            "some of these are run records and some score records; merge shards of one command",
        )),
    }
}
