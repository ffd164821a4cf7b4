//! The one JUnit XML writer, built on quick-junit: the JUnit reports of `run`, of `compare` of
//! run records and of `compare` of score records build their test cases with [`case`], their
//! `<testsuite>` with [`suite`] and the document with [`document`]; quick-junit does the
//! escaping, the counts and the layout.

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

/// How one test case came out.
#[derive(Debug, Clone, PartialEq)]
pub enum Status {
    Passed,
    /// A `<failure>` with its message and, when given, a text.
    Failed {
        message: String,
        text: Option<String>,
    },
    /// An `<error>`: the case could not be scored.
    Error {
        message: String,
        text: Option<String>,
    },
    /// `<skipped>`: counted apart.
    Skipped {
        message: String,
    },
}

/// One `<testcase>`.
pub fn case(classname: &str, name: &str, status: Status) -> TestCase {
    let status = match status {
        Status::Passed => TestCaseStatus::success(),
        Status::Failed { message, text } => non_success(NonSuccessKind::Failure, &message, text),
        Status::Error { message, text } => non_success(NonSuccessKind::Error, &message, text),
        Status::Skipped { message } => {
            let mut s = TestCaseStatus::skipped();
            s.set_message(xml_text(&message));
            s
        }
    };
    let mut c = TestCase::new(xml_text(name), status);
    c.set_classname(xml_text(classname));
    c
}

fn non_success(kind: NonSuccessKind, message: &str, text: Option<String>) -> TestCaseStatus {
    let mut s = TestCaseStatus::non_success(kind);
    s.set_message(xml_text(message));
    if let Some(text) = text {
        s.set_description(xml_text(&text));
    }
    s
}

/// One `<testsuite>` of `cases`, its counts taken from them.
pub fn suite(name: &str, cases: impl IntoIterator<Item = TestCase>) -> TestSuite {
    let mut s = TestSuite::new(xml_text(name));
    s.add_test_cases(cases);
    s
}

/// The whole document: `<testsuites name="NAME">` over `suites`, with their counts summed.
pub fn document(name: &str, suites: impl IntoIterator<Item = TestSuite>) -> String {
    let mut report = Report::new(xml_text(name));
    report.add_test_suites(suites);
    report
        .to_string()
        .expect("a JUnit report written to memory cannot fail")
}

/// Text XML 1.0 can carry: a character it cannot (most control characters, U+FFFE, U+FFFF) is
/// U+FFFD, as [`crate::text::escape_markup`] writes it, rather than dropped without a trace.
fn xml_text(s: &str) -> String {
    s.chars()
        .map(|c| {
            if !crate::text::escape::xml_char(c)
                || (c.is_control() && !matches!(c, '\n' | '\t' | '\r'))
            {
                '\u{fffd}'
            } else {
                c
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_document_counts_its_cases_and_escapes_their_text() {
        let xml = document(
            "faithprobe",
            [suite(
                "a & b",
                [
                    case("s.original", "f01: <ok>", Status::Passed),
                    case(
                        "s.number_swap",
                        "m-1: \"x\"",
                        Status::Failed {
                            message: "missed fault".into(),
                            text: Some("base 1 < 2".into()),
                        },
                    ),
                    case(
                        "s",
                        "e\u{1b}[31m\u{0}",
                        Status::Error {
                            message: "not scored".into(),
                            text: None,
                        },
                    ),
                    case(
                        "s",
                        "u",
                        Status::Skipped {
                            message: "unreviewed".into(),
                        },
                    ),
                ],
            )],
        );
        let back = Report::deserialize_from_str(&xml).unwrap();
        assert_eq!(
            (back.tests, back.failures, back.errors, back.skipped),
            (4, 1, 1, 1)
        );
        let s = &back.test_suites[0];
        assert_eq!(s.name.as_str(), "a & b");
        assert_eq!(s.test_cases[0].name.as_str(), "f01: <ok>");
        assert_eq!(s.test_cases[1].name.as_str(), "m-1: \"x\"");
        assert_eq!(s.test_cases[2].name.as_str(), "e\u{fffd}[31m\u{fffd}");
        assert!(xml.contains("base 1 &lt; 2</failure>"), "{xml}");
    }
}
