//! `faithprobe review --set`: decisions from a script, all checked before any is written, and
//! written under the side file's lock so that concurrent writers lose nothing.

use faithprobe::error::{Error, Exit};
use faithprobe::model::suite::side::{self, Decision, SideFile};
use faithprobe::model::suite::{ReviewKind, Suite};
use faithprobe::mutate::MutantSet;

/// A decision named on the command line.
fn parse_decision(s: &str) -> Option<ReviewKind> {
    match s {
        "fault" => Some(ReviewKind::Fault),
        "equivalent" => Some(ReviewKind::Equivalent),
        "not_equivalent" | "not-equivalent" => Some(ReviewKind::NotEquivalent),
        _ => None,
    }
}

pub(super) fn set(
    loaded: &[(Suite, MutantSet)],
    sets: &[String],
    why: Option<&str>,
) -> anyhow::Result<Exit> {
    let why = why.and_then(side::clean_reason);
    let mut o = String::new();
    // every --set is checked before anything is written: all or nothing
    let mut decided: Vec<Decided> = Vec::new();
    for s in sets {
        let (si, id, kind, reason) = checked(loaded, s, &why)?;
        if let Some((_, _, d, other)) = decided.iter().find(|(_, i, _, _)| *i == id) {
            if d.kind != kind {
                return Err(Error::Usage(format!(
                    "--set {other} and --set {s} decide `{id}` two ways: keep one"
                ))
                .into());
            }
            continue; // the same decision twice
        }
        decided.push((si, id, Decision { kind, why: reason }, s.clone()));
    }
    // each side file is read, changed and written under its lock: a decision another writer
    // saved meanwhile is kept, and one it made differently is a conflict, never overwritten
    let mut order: Vec<usize> = decided.iter().map(|(si, _, _, _)| *si).collect();
    order.sort_unstable();
    order.dedup();
    for si in order {
        let suite = &loaded[si].0;
        let (lines, file) = write_side(suite, decided.iter().filter(|(i, _, _, _)| *i == si))?;
        for l in lines {
            o.push_str(&format!("{l} ({})\n", file.path.display()));
        }
    }
    super::super::out::emit(&o)
}

/// A decision to write: the suite's index, the mutant's id, the decision, the `--set` it came
/// from.
type Decided = (usize, String, Decision, String);

/// One `--set ID=DECISION`, checked against the suites: the suite the mutant or rewrite is in,
/// its id, the decision (one its kind allows) and the reason (one it needs); never a review
/// written in the suite itself.
fn checked(
    loaded: &[(Suite, MutantSet)],
    s: &str,
    why: &Option<String>,
) -> anyhow::Result<(usize, String, ReviewKind, Option<String>)> {
    let Some((id, what)) = s.split_once('=') else {
        return Err(Error::Usage(format!(
            "--set {s}: write `ID=fault`, `ID=equivalent` or `ID=not_equivalent`"
        ))
        .into());
    };
    let (id, what) = (id.trim(), what.trim());
    let Some(kind) = parse_decision(what) else {
        return Err(Error::Usage(format!(
            "--set {s}: `{what}` is not a decision; write fault, equivalent or not_equivalent"
        ))
        .into());
    };
    let found = loaded
        .iter()
        .enumerate()
        .find_map(|(si, (_, set))| set.mutants.iter().find(|m| m.id == id).map(|m| (si, m)));
    let Some((si, m)) = found else {
        let suites = super::super::shell_paths(loaded.iter().map(|(s, _)| s.path.as_path()));
        return Err(Error::Usage(format!(
            "--set {s}: no mutant or rewrite `{id}` in {suites}; `faithprobe review {suites} --list` lists the pending ones"
        ))
        .into());
    };
    let suite = &loaded[si].0;
    let rewrite = m.is_rewrite();
    match (kind, rewrite) {
        (ReviewKind::Fault, true) => {
            return Err(Error::Usage(format!(
                "--set {s}: `{id}` is a rewrite ({}): decide `equivalent` or `not_equivalent`",
                m.operator
            ))
            .into())
        }
        (ReviewKind::NotEquivalent, false) => {
            return Err(Error::Usage(format!(
                "--set {s}: `{id}` is a mutant ({}): decide `fault` or `equivalent`",
                m.operator
            ))
            .into())
        }
        _ => {}
    }
    let reason = match (kind, rewrite, &why) {
        (ReviewKind::Fault, _, _) => None,
        (ReviewKind::Equivalent, true, None) => Some("says the same as its claim".to_string()),
        (_, _, Some(w)) => Some(w.clone()),
        (_, _, None) => {
            return Err(Error::Usage(format!(
                "--set {s}: `{what}` needs a reason: add --why \"...\" (what makes it {})",
                if kind == ReviewKind::Equivalent {
                    "still supported by the passages"
                } else {
                    "say something other than its claim"
                }
            ))
            .into())
        }
    };
    if let Some(r) = review_of(suite, id)
        .filter(|(_, r)| r.file == suite.path)
        .map(|(_, r)| r)
    {
        return Err(Error::Usage(format!(
            "--set {s}: `{id}` is reviewed in the suite itself ({}{}); change it there",
            suite.path.display(),
            r.line.map(|l| format!(":{l}")).unwrap_or_default()
        ))
        .into());
    }
    Ok((si, id.to_string(), kind, reason))
}

/// Writes one suite's decisions to its side file under the file's lock (read, merge, write): a
/// decision another writer saved meanwhile is kept, one it made differently is a conflict. The
/// line to print for each decision, and the side file.
fn write_side<'a>(
    suite: &Suite,
    decided: impl Iterator<Item = &'a Decided>,
) -> anyhow::Result<(Vec<String>, SideFile)> {
    let path = side::path_of(&suite.path);
    let (lines, file) = SideFile::update(&path, &suite.path, |file| {
        let mut lines = Vec::new();
        for (_, id, d, _) in decided {
            // what this command saw when it started, against what is in the file now
            let seen = review_of(suite, id)
                .filter(|(_, r)| r.file != suite.path)
                .map(|(key, r)| {
                    (
                        key,
                        Decision {
                            kind: r.kind,
                            why: r.why.clone(),
                        },
                    )
                });
            // a review under an older faithprobe's short id is replaced by the full one
            let key = seen.as_ref().map_or(id.as_str(), |(k, _)| k.as_str());
            let key = if file.get(key).is_some() {
                key
            } else {
                id.as_str()
            };
            if let Some(now) = file.get(key) {
                if Some(now) != seen.as_ref().map(|(_, d)| d) && now != d {
                    return Err(side::conflict(file, key, now, d));
                }
            }
            let kind = d.kind.as_str();
            let before = if key != id { file.set(key, None) } else { None };
            let before = file.set(id, Some(d.clone())).or(before);
            lines.push(format!(
                "{id}: {kind}{}",
                match before {
                    Some(b) if b.kind != ReviewKind::Fault || d.kind != ReviewKind::Fault =>
                        format!(", was {}", b.kind.as_str()),
                    _ => String::new(),
                }
            ));
        }
        Ok(lines)
    })?;
    Ok((lines, file))
}

/// The suite's review of mutant `id` and the key it is under: the full id, or the short one
/// (`m-` and 8 hex digits) an older faithprobe wrote.
fn review_of<'s>(
    suite: &'s Suite,
    id: &str,
) -> Option<(&'s String, &'s faithprobe::model::suite::Review)> {
    suite.reviews.get_key_value(id).or_else(|| {
        id.get(..10)
            .and_then(|short| suite.reviews.get_key_value(short))
    })
}
