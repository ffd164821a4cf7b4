//! What serde cannot check in a run record, checked on load: the version, one run per suite,
//! unique case ids, finite scores, outcomes that follow from the verdict and the case's role,
//! ids that fit their mutants, flaky verdicts as `run --repeat` writes them. Each error names
//! the file and the line.

use super::{Record, RecordCase, RecordRun, RECORD_VERSION, RUN_HELP, SCORE_TOLERANCE};
use crate::error::{Error, Result};
use crate::model::case::{CaseKind, Label, Outcome, Role};
use std::collections::HashSet;
use std::path::Path;

impl Record {
    /// Checks what serde cannot: one run per suite, unique case ids, finite scores, and outcomes
    /// that follow from the verdict and the case's role.
    pub(super) fn validate(&self, path: &Path, text: &str) -> Result<()> {
        if self.version != RECORD_VERSION {
            return Err(Error::input(
                path,
                None,
                format!("record version {} is not {RECORD_VERSION}", self.version),
                "re-run the checker with this faithprobe version to write a new record",
            ));
        }
        let mut suites = HashSet::new();
        for run in &self.runs {
            if !suites.insert(run.suite.as_str()) {
                return Err(Error::input(
                    path,
                    line_of(text, "suite", &run.suite),
                    format!("suite `{}` appears twice", run.suite),
                    RUN_HELP,
                ));
            }
            validate_run(run, path, text)?;
        }
        Ok(())
    }
}

/// One run's cases: each id once, and each case as [`check_case`] has it.
fn validate_run(run: &RecordRun, path: &Path, text: &str) -> Result<()> {
    let mut ids = HashSet::new();
    // a mutant's outcome depends on its parent's: parents are the run's verified claims
    let parents: std::collections::HashMap<&str, Outcome> = run
        .cases
        .iter()
        .filter(|c| c.kind == CaseKind::Original)
        .map(|c| {
            (
                c.id.as_str(),
                Outcome::of(c.role(), c.verdict.map(Label::flagged)),
            )
        })
        .collect();
    for c in &run.cases {
        check_case(run, c, &parents, &mut ids, path, text)?;
    }
    Ok(())
}

/// One case: its id not seen before in the run (`ids`), a score in [0, 1], a verdict or an
/// error, an outcome that follows from the verdict, its role and its parent's outcome
/// (`parents`), a review state for a mutant, an id that fits its operator, parent and text, and
/// flaky verdicts as `run --repeat` writes them.
fn check_case<'a>(
    run: &RecordRun,
    c: &'a RecordCase,
    parents: &std::collections::HashMap<&str, Outcome>,
    ids: &mut HashSet<&'a str>,
    path: &Path,
    text: &str,
) -> Result<()> {
    let at = || line_of(text, "id", &c.id);
    let bad = |msg: String| Error::input(path, at(), msg, RUN_HELP);
    if !ids.insert(c.id.as_str()) {
        return Err(bad(format!(
            "case `{}` appears twice in suite `{}`",
            c.id, run.suite
        )));
    }
    // within floating-point tolerance: a record written by an older build may hold
    // a cosine of 1.0000001
    if c.score
        .is_some_and(|s| !(-SCORE_TOLERANCE..=1.0 + SCORE_TOLERANCE).contains(&s))
    {
        return Err(bad(format!(
            "case `{}` has score {:?}, outside [0, 1]",
            c.id, c.score
        )));
    }
    if c.verdict.is_some() == c.error.is_some() {
        return Err(bad(format!(
            "case `{}` must have either a verdict or an error, not {}",
            c.id,
            if c.verdict.is_some() {
                "both"
            } else {
                "neither"
            }
        )));
    }
    let parent = c.parent.as_deref().and_then(|p| parents.get(p)).copied();
    let follows =
        Outcome::of(c.role(), c.verdict.map(Label::flagged)).given_parent(c.kind, c.role(), parent);
    if c.outcome != follows {
        return Err(bad(format!(
            "case `{}` has outcome `{}`, but its verdict `{}` on a {} gives `{}`",
            c.id,
            c.outcome.as_str(),
            c.verdict.map(Label::as_str).unwrap_or("error"),
            role_words(c.role()),
            follows.as_str()
        )));
    }
    if c.kind == CaseKind::Mutant && c.review.is_none() {
        return Err(bad(format!("mutant `{}` has no review state", c.id)));
    }
    // a mutant's id is the hash of its operator, parent and text: an edited parent
    // or text no longer fits it
    if let (CaseKind::Mutant | CaseKind::Rewrite, Some(op), Some(parent)) =
        (c.kind, c.fault_type.as_deref(), c.parent.as_deref())
    {
        let id = if c.compound {
            crate::mutate::compound_id(op, parent, &c.claim)
        } else {
            crate::mutate::mutant_id(op, parent, &c.claim)
        };
        if c.id.len() > 10 && id != c.id {
            return Err(bad(format!(
                "case `{}` does not fit its id: its operator, parent claim or text was edited",
                c.id
            )));
        }
    }
    check_flaky(run, c).map_err(bad)?;
    Ok(())
}

/// A case's flaky verdicts must be what `run --repeat` writes: one per repeat of a record
/// scored more than once, each a verdict or `error`, the first the case's own, and not all the
/// same. Anything else would let an edited record leave a regression out of the gate.
fn check_flaky(run: &RecordRun, c: &RecordCase) -> std::result::Result<(), String> {
    if run.repeats == 0 {
        return Err(format!(
            "suite `{}` has `repeats: 0`; a record is scored at least once",
            run.suite
        ));
    }
    let v = &c.flaky_verdicts;
    if v.is_empty() {
        return Ok(());
    }
    let known = |x: &str| {
        x == "error"
            || [Label::Supported, Label::Contradicted, Label::NotFound]
                .iter()
                .any(|l| l.as_str() == x)
    };
    if run.repeats < 2 {
        return Err(format!(
            "case `{}` has `flaky_verdicts`, but suite `{}` was scored once (`repeats` is {}); only `run --repeat N` writes them",
            c.id, run.suite, run.repeats
        ));
    }
    if v.len() != run.repeats {
        return Err(format!(
            "case `{}` has {} flaky verdicts for {} repeats; there is one per repeat",
            c.id,
            v.len(),
            run.repeats
        ));
    }
    if let Some(bad) = v.iter().find(|x| !known(x)) {
        return Err(format!(
            "case `{}` has the flaky verdict `{bad}`, which is not a verdict (supported, contradicted, not_found or error)",
            c.id
        ));
    }
    if v.iter().all(|x| x == &v[0]) {
        return Err(format!(
            "case `{}` has flaky verdicts that are all `{}`; a case is flaky only when its verdict changed between repeats",
            c.id, v[0]
        ));
    }
    let own = c.verdict.map(Label::as_str).unwrap_or("error");
    if v[0] != own {
        return Err(format!(
            "case `{}` has verdict `{own}`, but its first flaky verdict is `{}`; the first repeat is the case's own verdict",
            c.id, v[0]
        ));
    }
    Ok(())
}

fn role_words(r: Role) -> &'static str {
    match r {
        Role::FalseAlarmOpportunity => "faithful case",
        Role::Fault => "fault",
        Role::Invariance => "invariance case (a rewrite or an equivalent mutant)",
        Role::Unreviewed => "unreviewed mutant",
    }
}

/// The 1-based line of `"key": "value"` in pretty-printed JSON, for errors about a record.
fn line_of(text: &str, key: &str, value: &str) -> Option<usize> {
    let needle = format!(
        "\"{key}\": {}",
        serde_json::to_string(value).unwrap_or_default()
    );
    text.lines()
        .position(|l| l.contains(&needle))
        .map(|i| i + 1)
}
