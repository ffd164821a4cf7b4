//! JUnit XML for `run`: one test case per case; missed faults and false alarms fail, cases the
//! checker could not score are errors, equivalent and unreviewed mutants are skipped (not scored).

use crate::mutate::MutantReview;
use crate::report::fmt_score;
use crate::run::{Outcome, SuiteRun};
use crate::text::escape_markup;
use std::fmt::Write;

/// The `<testsuite>` element of one suite's run.
pub fn testsuite(run: &SuiteRun) -> String {
    let mut o = String::new();
    let failures = run
        .results
        .iter()
        .filter(|r| matches!(r.outcome, Outcome::Missed | Outcome::FalseAlarm))
        .filter(|r| {
            !matches!(
                r.case.review,
                Some(MutantReview::Equivalent { .. }) | Some(MutantReview::Unreviewed)
            )
        })
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
        let apart = match &r.case.review {
            Some(MutantReview::Equivalent { why }) => {
                Some(format!("equivalent mutant (not scored): {why}"))
            }
            Some(MutantReview::Unreviewed) => Some("unreviewed mutant (counted apart)".to_string()),
            _ => None,
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
                let _ = write!(o, "<failure message=\"false alarm: checker said {label} ({score}) on a faithful claim\"/>");
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
