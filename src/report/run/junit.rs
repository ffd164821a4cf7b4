//! JUnit XML for `run`: one test case per case; missed faults and false alarms (on verified
//! claims, rewrites and equivalent mutants alike) fail, cases the checker could not score are
//! errors, unreviewed mutants are skipped (not scored).

use crate::engine::run::SuiteRun;

use crate::model::case::{Outcome, Role};
use crate::report::fmt_score;
use crate::text::escape::escape_markup;
use std::fmt::Write;

/// The `<testsuite>` element of one suite's run.
pub fn testsuite(run: &SuiteRun) -> String {
    let mut o = String::new();
    let failures = run
        .results
        .iter()
        .filter(|r| matches!(r.outcome, Outcome::Missed | Outcome::FalseAlarm))
        .filter(|r| r.case.role() != Role::Unreviewed)
        .count();
    let _ = writeln!(
        o,
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failures}\" errors=\"{}\">",
        escape_markup(&format!("{} · {}", run.suite, run.checker)),
        run.results.len(),
        run.errors()
    );
    for r in &run.results {
        let class = format!(
            "{}.{}",
            run.suite,
            r.case.fault_type.as_deref().unwrap_or(r.case.kind.as_str())
        );
        let (label, score) = match &r.result {
            Ok(v) => (v.label.as_str().to_string(), fmt_score(v.score)),
            Err(_) => ("error".into(), "-".into()),
        };
        let _ = write!(
            o,
            "    <testcase classname=\"{}\" name=\"{}\">",
            escape_markup(&class),
            escape_markup(&format!("{}: {}", r.case.id, r.case.claim))
        );
        let apart = (r.case.role() == Role::Unreviewed)
            .then(|| "unreviewed mutant (counted apart)".to_string());
        let on = if r.case.role() == Role::Invariance {
            "a rewrite or equivalent mutant that says what a verified claim says"
        } else {
            "a faithful claim"
        };
        match (r.outcome, apart) {
            (_, Some(msg)) => {
                let _ = write!(o, "<skipped message=\"{}\"/>", escape_markup(&msg));
            }
            (Outcome::Error, None) => {
                let msg = r
                    .result
                    .as_ref()
                    .err()
                    .map(|e| e.to_string())
                    .unwrap_or_default();
                let _ = write!(o, "<error message=\"{}\"/>", escape_markup(&msg));
            }
            (Outcome::Missed, None) => {
                let _ = write!(o, "<failure message=\"missed fault: checker said {label} ({score}), expected {}\"/>", r.case.expected.as_str());
            }
            (Outcome::FalseAlarm, None) => {
                let _ = write!(
                    o,
                    "<failure message=\"false alarm: checker said {label} ({score}) on {on}\"/>"
                );
            }
            _ => {}
        }
        let _ = writeln!(o, "</testcase>");
    }
    o.push_str("  </testsuite>\n");
    o
}

/// A whole JUnit document from suite elements.
pub fn document(suites: &[String]) -> String {
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"faithprobe\">\n{}</testsuites>\n",
        suites.concat()
    )
}
