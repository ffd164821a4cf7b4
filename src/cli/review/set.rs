//! `faithprobe review --set`: decisions from a script, all checked before any is written, and
//! written under the side file's lock so that concurrent writers lose nothing.

use faithprobe::error::{Error, Exit};
use faithprobe::model::suite::side::{self, Decision, SideFile};
use faithprobe::model::suite::{ReviewKind, Suite};
use faithprobe::mutate::MutantSet;

/// A decision named on the command line.
fn parse_decision(s: &str) -> Option<ReviewKind> {
    match s.replace('-', "_").as_str() {
        "fault" => Some(ReviewKind::Fault),
        "equivalent" => Some(ReviewKind::Equivalent),
        "not_equivalent" => Some(ReviewKind::NotEquivalent),
        "broken" => Some(ReviewKind::Broken),
        "supported" => Some(ReviewKind::Supported),
        "contradicted" => Some(ReviewKind::Contradicted),
        "not_found" => Some(ReviewKind::NotFound),
        "borderline" => Some(ReviewKind::Borderline),
        "not_a_claim" => Some(ReviewKind::NotAClaim),
        _ => None,
    }
}

/// What `--why`, `--type` and `--label` add to the `--set` decisions that take them.
pub(super) struct Extra<'a> {
    pub why: Option<&'a str>,
    pub case_type: Option<&'a str>,
    pub label: Option<&'a str>,
}

pub(super) fn set(
    loaded: &[(Suite, MutantSet)],
    sets: &[String],
    extra: &Extra<'_>,
) -> anyhow::Result<Exit> {
    let why = extra.why.and_then(side::clean_reason);
    let label = match extra.label {
        None => None,
        Some(l) => Some(
            faithprobe::model::case::HardCaseLabel::parse(l).ok_or_else(|| {
                Error::Usage(format!(
                    "--label {l}: write supported, contradicted, not_found or misleading"
                ))
            })?,
        ),
    };
    let case_type = extra
        .case_type
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_string);
    let mut o = String::new();
    // every --set is checked before anything is written: all or nothing
    let mut decided: Vec<Decided> = Vec::new();
    for s in sets {
        let (si, id, decision) = checked(loaded, s, &why, &case_type, label)?;
        if let Some((_, _, d, other)) = decided.iter().find(|(_, i, _, _)| *i == id) {
            if d.kind != decision.kind {
                return Err(Error::Usage(format!(
                    "--set {other} and --set {s} decide `{id}` two ways: keep one"
                ))
                .into());
            }
            continue; // the same decision twice
        }
        decided.push((si, id, decision, s.clone()));
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

/// One `--set ID=DECISION`, checked against the suites: the suite the mutant, rewrite or
/// pending claim is in, its id, and the decision (one its kind allows, with what it needs);
/// never a review written in the suite itself.
fn checked(
    loaded: &[(Suite, MutantSet)],
    s: &str,
    why: &Option<String>,
    case_type: &Option<String>,
    label: Option<faithprobe::model::case::HardCaseLabel>,
) -> anyhow::Result<(usize, String, Decision)> {
    let Some((id, what)) = s.split_once('=') else {
        return Err(Error::Usage(format!(
            "--set {s}: write `ID=DECISION`: fault, equivalent or broken for a mutant, equivalent or not_equivalent for a rewrite, supported, contradicted, not_found, borderline or not_a_claim for a pending claim"
        ))
        .into());
    };
    let (id, what) = (id.trim(), what.trim());
    // `ID=contradicted:number_swap` names the hard case's type in place of --type
    let (what, inline_type) = match what.split_once(':') {
        Some((w, t)) if !t.trim().is_empty() => (w.trim(), Some(t.trim().to_string())),
        _ => (what, None),
    };
    let case_type = &inline_type.or_else(|| case_type.clone());
    let Some(kind) = parse_decision(what) else {
        return Err(Error::Usage(format!(
            "--set {s}: `{what}` is not a decision; write fault, equivalent, broken, not_equivalent, supported, contradicted, not_found, borderline or not_a_claim"
        ))
        .into());
    };
    let found = loaded
        .iter()
        .enumerate()
        .find_map(|(si, (_, set))| set.mutants.iter().find(|m| m.id == id).map(|m| (si, m)));
    let (si, reason) = match found {
        Some((si, m)) => (si, mutant_reason(s, id, what, kind, m, why)?),
        None => match claim_suite(loaded, id) {
            Some(si) => (si, claim_reason(s, id, kind, why, case_type, label)?),
            None => {
                let suites =
                    super::super::shell_paths(loaded.iter().map(|(s, _)| s.path.as_path()));
                return Err(Error::Usage(format!(
                    "--set {s}: no mutant, rewrite or pending claim `{id}` in {suites}; `faithprobe review {suites} --list` lists the pending ones"
                ))
                .into());
            }
        },
    };
    let suite = &loaded[si].0;
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
    let hard = kind.makes_hard_case();
    Ok((
        si,
        id.to_string(),
        Decision {
            kind,
            why: reason,
            case_type: if hard { case_type.clone() } else { None },
            label: if kind == ReviewKind::Borderline {
                label
            } else {
                None
            },
        },
    ))
}

/// The suite whose pending claim (decided or not) is `id`.
fn claim_suite(loaded: &[(Suite, MutantSet)], id: &str) -> Option<usize> {
    loaded.iter().position(|(suite, _)| {
        suite.pending().any(|(_, p)| p.id == id)
            || suite.decided_claims.iter().any(|d| d.claim.id == id)
    })
}

/// The reason a mutant's or rewrite's decision keeps, or why the decision does not fit it.
fn mutant_reason(
    s: &str,
    id: &str,
    what: &str,
    kind: ReviewKind,
    m: &faithprobe::mutate::Mutant,
    why: &Option<String>,
) -> anyhow::Result<Option<String>> {
    let rewrite = m.is_rewrite();
    let wrong = match (kind, rewrite) {
        (k, _) if k.is_claim_decision() => Some(if rewrite {
            "decide `equivalent` or `not_equivalent`"
        } else {
            "decide `fault`, `equivalent` or `broken`"
        }),
        (ReviewKind::Fault | ReviewKind::Broken, true) => {
            Some("decide `equivalent` or `not_equivalent`")
        }
        (ReviewKind::NotEquivalent, false) => Some("decide `fault`, `equivalent` or `broken`"),
        _ => None,
    };
    if let Some(fix) = wrong {
        return Err(Error::Usage(format!(
            "--set {s}: `{id}` is a {} ({}): {fix}",
            if rewrite { "rewrite" } else { "mutant" },
            m.operator
        ))
        .into());
    }
    Ok(match (kind, rewrite, why) {
        (ReviewKind::Fault, _, _) => None,
        (ReviewKind::Broken, _, w) => w.clone(),
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
    })
}

/// The reason a pending claim's decision keeps, or what the decision lacks.
fn claim_reason(
    s: &str,
    id: &str,
    kind: ReviewKind,
    why: &Option<String>,
    case_type: &Option<String>,
    label: Option<faithprobe::model::case::HardCaseLabel>,
) -> anyhow::Result<Option<String>> {
    if !kind.is_claim_decision() {
        return Err(Error::Usage(format!(
            "--set {s}: `{id}` is a pending claim: decide supported, contradicted, not_found, borderline or not_a_claim"
        ))
        .into());
    }
    let hard = kind.makes_hard_case();
    if hard && case_type.is_none() {
        return Err(Error::Usage(format!(
            "--set {s}: a claim decided `{}` becomes a hard case: add --type T or write ID={}:T (its error type, e.g. number_swap)",
            kind.as_str(),
            kind.as_str()
        ))
        .into());
    }
    if kind == ReviewKind::Borderline && (label.is_none() || why.is_none()) {
        return Err(Error::Usage(format!(
            "--set {s}: `borderline` keeps the rule you decided: add --label supported|contradicted|not_found|misleading and --why \"the rule, in a sentence\""
        ))
        .into());
    }
    Ok(why.clone())
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
                            case_type: r.case_type.clone(),
                            label: r.label,
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
    suite
        .reviews
        .get_key_value(id)
        .or_else(|| {
            id.get(..10)
                .and_then(|short| suite.reviews.get_key_value(short))
        })
        .or_else(|| {
            // a pending claim already decided: its decision left `reviews` when it was applied
            suite
                .decided_claims
                .iter()
                .find(|d| d.claim.id == id)
                .map(|d| (&d.claim.id, &d.review))
        })
}
