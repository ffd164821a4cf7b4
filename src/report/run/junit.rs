//! JUnit XML for `run`: one test case per case; missed faults and false alarms (on verified
//! claims, rewrites and equivalent mutants alike) fail, cases the checker could not score are
//! errors, unreviewed mutants are skipped (not scored). Written by [`crate::report::junit`].

use crate::engine::run::SuiteRun;

use crate::model::case::{Outcome, Role};
use crate::report::fmt_score;
use crate::report::junit::{self, Status};
use quick_junit::TestSuite;

/// The `<testsuite>` of one suite's run.
pub fn testsuite(run: &SuiteRun) -> TestSuite {
    let cases = run.results.iter().map(|r| {
        let class = format!(
            "{}.{}",
            run.suite,
            r.case.fault_type.as_deref().unwrap_or(r.case.kind.as_str())
        );
        let (label, score) = match &r.result {
            Ok(v) => (v.label.as_str().to_string(), fmt_score(v.score)),
            Err(_) => ("error".into(), "-".into()),
        };
        let on = if r.case.role() == Role::Invariance {
            "a rewrite or equivalent mutant that says what a verified claim says"
        } else {
            "a faithful claim"
        };
        let status = match r.outcome {
            _ if r.case.role() == Role::Unreviewed => Status::Skipped {
                message: "unreviewed mutant (counted apart)".into(),
            },
            Outcome::Error => Status::Error {
                message: r
                    .result
                    .as_ref()
                    .err()
                    .map(|e| e.to_string())
                    .unwrap_or_default(),
                text: None,
            },
            Outcome::Missed => Status::Failed {
                message: format!(
                    "missed fault: checker said {label} ({score}), expected {}",
                    r.case.expected.as_str()
                ),
                text: None,
            },
            Outcome::FalseAlarm => Status::Failed {
                message: format!("false alarm: checker said {label} ({score}) on {on}"),
                text: None,
            },
            _ => Status::Passed,
        };
        junit::case(&class, &format!("{}: {}", r.case.id, r.case.claim), status)
    });
    let mut suite = junit::suite(&format!("{} · {}", run.suite, run.checker), cases);
    // every case the checker could not score, an unreviewed mutant's too (shown as skipped)
    suite.errors = run.errors();
    suite
}

/// The whole JUnit document of a run's suites.
pub fn document(suites: Vec<TestSuite>) -> String {
    junit::document("faithprobe", suites)
}
