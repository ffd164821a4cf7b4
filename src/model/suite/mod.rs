//! Suites: loading, validation and the domain types the rest of the crate reads.
//!
//! A suite holds context sets; each has its passages, the claims a person verified as faithful
//! and labelled hard cases. Every error names the file and the line and says what to fix.

mod locate;
mod parse;
pub mod schema;
pub mod side;
mod validate;

use crate::error::Result;
use crate::model::case::HardCaseLabel;
pub(crate) use locate::Locator;
pub use schema::{CaseSource, ReviewKind};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A passage that was in the prompt.
#[derive(Debug, Clone, PartialEq)]
pub struct Passage {
    pub id: String,
    pub text: String,
}

/// A claim a person verified as supported by its context set.
#[derive(Debug, Clone, PartialEq)]
pub struct Claim {
    pub id: String,
    pub text: String,
}

/// A labelled claim that separates checkers.
#[derive(Debug, Clone, PartialEq)]
pub struct HardCase {
    pub id: String,
    pub case_type: String,
    pub text: String,
    pub label: HardCaseLabel,
    /// Written by a person, or a labelled piece of real output (see [`CaseSource`]).
    pub source: CaseSource,
}

impl HardCase {
    /// A real error: a hard case from labelled real output that is not labelled supported.
    pub fn is_real_error(&self) -> bool {
        self.source == CaseSource::Real && self.label != HardCaseLabel::Supported
    }
}

/// The passages of one prompt and the claims checked against them.
#[derive(Debug, Clone, PartialEq)]
pub struct Context {
    pub id: String,
    pub question: Option<String>,
    pub passages: Vec<Passage>,
    pub faithful: Vec<Claim>,
    pub hard_cases: Vec<HardCase>,
}

/// Names the entity-swap operator exchanges within.
#[derive(Debug, Clone, PartialEq)]
pub struct EntityGroup {
    pub name: String,
    pub members: Vec<String>,
}

/// A person's review of one mutant, by mutant id.
#[derive(Debug, Clone, PartialEq)]
pub struct Review {
    pub kind: ReviewKind,
    pub why: Option<String>,
    /// The file the review is written in: the suite, or its side file (see [`side`]).
    pub file: PathBuf,
    /// Line of the review in that file, for errors about it.
    pub line: Option<usize>,
}

/// A loaded, validated suite.
#[derive(Debug, Clone)]
pub struct Suite {
    pub name: String,
    pub description: Option<String>,
    pub path: PathBuf,
    pub entities: Vec<EntityGroup>,
    pub contexts: Vec<Context>,
    pub reviews: BTreeMap<String, Review>,
    /// The side file `faithprobe review` writes its decisions to, when it exists.
    pub side_file: Option<PathBuf>,
    /// SHA-256 of the suite file's text (and of its side file's, when there is one): the
    /// suite's fingerprint in records and reports.
    pub sha256: String,
}

impl Suite {
    /// Reads and validates a suite file. Mutant reviews are checked later, against the mutants
    /// the rules generate (see [`crate::mutate::generate`]).
    pub fn load(path: &Path) -> Result<Suite> {
        let text = crate::error::read_input(path)?;
        let mut suite = Suite::from_yaml(path, &text)?;
        if let Some((side, side_text)) = side::SideFile::read(&side::path_of(path))? {
            side.merge_into(&mut suite, &text, &side_text)?;
        }
        Ok(suite)
    }

    /// Parses and validates suite text; `path` is used in error messages only.
    pub fn from_yaml(path: &Path, text: &str) -> Result<Suite> {
        let file = parse::suite_file(path, text)?;
        let loc = locate::Locator::new(text);
        let at = validate::At { path, loc: &loc };
        validate::suite_name(&at, &file.suite)?;
        validate::has_contexts(&at, &file.contexts)?;
        let entities = validate::entity_groups(&at, &file.entities)?;
        let contexts = validate::contexts(&at, file.contexts, file.hard_case_source)?;
        let reviews = validate::reviews(&at, file.reviews)?;
        let sha256 = crate::text::hash::sha256_hex(text.as_bytes(), usize::MAX);
        Ok(Suite {
            sha256,
            name: file.suite,
            description: file.description,
            path: path.to_path_buf(),
            entities,
            contexts,
            reviews,
            side_file: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str) -> Result<Suite> {
        Suite::from_yaml(Path::new("t.yaml"), text)
    }

    const GOOD: &str = "suite: t\ncontexts:\n  - id: c1\n    passages:\n      - {id: p1, text: \"The sky is blue.\"}\n    faithful:\n      - {id: f1, claim: \"The sky is blue.\"}\n";

    #[test]
    fn a_minimal_suite_loads() {
        let s = load(GOOD).unwrap();
        assert_eq!(s.contexts[0].faithful[0].text, "The sky is blue.");
    }

    #[test]
    fn an_unknown_key_names_its_line() {
        let text = GOOD.replace("    faithful:", "    colour: red\n    faithful:");
        let e = load(&text).unwrap_err().to_string();
        assert!(e.starts_with("t.yaml:6"), "{e}");
        assert!(e.contains("unknown field `colour`"), "{e}");
    }

    #[test]
    fn a_duplicate_claim_id_names_the_second_line() {
        let text = format!("{GOOD}      - {{id: f1, claim: \"Again.\"}}\n");
        let e = load(&text).unwrap_err().to_string();
        assert!(e.starts_with("t.yaml:8:"), "{e}");
        assert!(e.contains("used twice"), "{e}");
    }

    #[test]
    fn an_empty_claim_is_an_error_on_its_line() {
        let text = GOOD.replace("claim: \"The sky is blue.\"", "claim: \"  \"");
        let e = load(&text).unwrap_err().to_string();
        assert!(e.starts_with("t.yaml:7:"), "{e}");
        assert!(e.contains("claim `f1` is empty"), "{e}");
    }

    #[test]
    fn an_equivalent_review_needs_a_reason() {
        let text = format!("{GOOD}reviews:\n  m-00000000: {{review: equivalent}}\n");
        let e = load(&text).unwrap_err().to_string();
        assert!(e.starts_with("t.yaml:9:"), "{e}");
    }
}
