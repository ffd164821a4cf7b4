//! Machine output: one JSON object per suite, one per line (JSON Lines).

use crate::engine::record::{RecordCase, RecordRun};
use crate::engine::run::SuiteRun;
use crate::engine::summary::Summary;
use crate::model::case::MutantReview;
use crate::model::case::Role;
use serde::Serialize;
use serde_json::{json, Value};

/// One case of `--format json`: the record's typed row (so machine output and records cannot
/// drift apart), plus what the record leaves out: the checker's reason, an equivalent mutant's
/// `why`, and the case's role.
#[derive(Serialize)]
pub struct CaseRow {
    #[serde(flatten)]
    pub case: RecordCase,
    pub why: Option<String>,
    pub reason: Option<String>,
    pub role: Role,
}

/// The JSON object for one suite's run.
pub fn to_value(run: &SuiteRun, summary: &Summary) -> Value {
    let record = RecordRun::from_run(run, "");
    let cases: Vec<CaseRow> = record
        .cases
        .into_iter()
        .zip(&run.results)
        .map(|(case, r)| CaseRow {
            why: match &r.case.review {
                Some(MutantReview::Equivalent { why }) => Some(why.clone()),
                _ => None,
            },
            reason: r.result.as_ref().ok().map(|v| v.reason.clone()),
            role: case.role(),
            case,
        })
        .collect();
    json!({
        "suite": run.suite,
        "path": run.suite_path,
        "checker": {"name": run.checker, "kind": run.checker_kind, "settings": run.settings},
        "summary": summary,
        "repeats": run.repeats,
        "flaky": run.flaky,
        "cases": cases,
    })
}

/// One line of JSON for one suite's run.
pub fn render(run: &SuiteRun, summary: &Summary) -> String {
    let mut s = to_value(run, summary).to_string();
    s.push('\n');
    s
}
