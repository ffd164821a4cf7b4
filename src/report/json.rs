//! Machine output: one JSON object per suite, one per line (JSON Lines).

use crate::mutate::MutantReview;
use crate::run::SuiteRun;
use crate::summary::Summary;
use serde_json::{json, Value};

/// The JSON object for one suite's run.
pub fn to_value(run: &SuiteRun, summary: &Summary) -> Value {
    let cases: Vec<Value> = run
        .results
        .iter()
        .map(|r| {
            let (verdict, score, evidence, reason, error) = match &r.result {
                Ok(v) => (
                    json!(v.label.as_str()),
                    json!(v.score),
                    json!(v.evidence),
                    json!(v.reason),
                    Value::Null,
                ),
                Err(e) => (
                    Value::Null,
                    Value::Null,
                    Value::Null,
                    Value::Null,
                    json!(e.to_string()),
                ),
            };
            let (review, why) = match &r.case.review {
                None => (Value::Null, Value::Null),
                Some(MutantReview::Equivalent { why }) => (json!("equivalent"), json!(why)),
                Some(other) => (json!(other.as_str()), Value::Null),
            };
            json!({
                "id": r.case.id,
                "kind": r.case.kind.as_str(),
                "fault_type": r.case.fault_type,
                "parent": r.case.parent,
                "claim": r.case.claim,
                "expected": r.case.expected.as_str(),
                "review": review,
                "why": why,
                "verdict": verdict,
                "score": score,
                "evidence": evidence,
                "reason": reason,
                "error": error,
                "role": r.case.role(),
                "outcome": r.outcome.as_str(),
            })
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
