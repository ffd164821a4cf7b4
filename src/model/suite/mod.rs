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
    /// The rule a borderline case was decided by (`why`).
    pub why: Option<String>,
}

/// A claim taken from a logged answer that nobody has verified yet: in no rate until a person
/// decides it (`faithprobe review`).
#[derive(Debug, Clone, PartialEq)]
pub struct PendingClaim {
    pub id: String,
    pub text: String,
    /// The logged answer it came from, and that answer's tag.
    pub answer: Option<String>,
    pub tag: Option<String>,
}

/// A pending claim a person decided, and what it became.
#[derive(Debug, Clone, PartialEq)]
pub struct ClaimDecision {
    pub context: usize,
    pub claim: PendingClaim,
    pub review: Review,
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
    /// Claims still waiting for a person's decision.
    pub pending: Vec<PendingClaim>,
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
    /// A pending claim made a hard case: its type.
    pub case_type: Option<String>,
    /// A pending claim decided `borderline`: the label its rule gives it.
    pub label: Option<HardCaseLabel>,
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
    /// The pending claims a person decided (they are now verified claims or hard cases, or
    /// dropped as no claim), in suite order.
    pub decided_claims: Vec<ClaimDecision>,
    /// The suite's declared mix for the "all faults" row (`mix:`) and its line.
    pub mix: Option<(String, Option<usize>)>,
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
        suite.resolve_pending()?;
        Ok(suite)
    }

    /// Applies the decisions about pending claims: `supported` makes a verified claim,
    /// `contradicted`, `not_found` and `borderline` a real hard case (with its type, and a
    /// borderline's label and rule), `not_a_claim` drops it. The decision leaves `reviews` (which
    /// hold mutant reviews) for `decided_claims`; an undecided claim stays pending.
    pub fn resolve_pending(&mut self) -> Result<()> {
        for (ci, ctx) in self.contexts.iter_mut().enumerate() {
            let mut still = Vec::new();
            for p in std::mem::take(&mut ctx.pending) {
                if let Some(r) = self
                    .reviews
                    .get(&p.id)
                    .filter(|r| !r.kind.is_claim_decision())
                {
                    return Err(crate::error::Error::input(
                        &r.file,
                        r.line,
                        format!(
                            "`{}` is a pending claim and cannot be reviewed `{}`",
                            p.id,
                            r.kind.as_str()
                        ),
                        "decide a pending claim supported, contradicted, not_found (with a `type`), borderline (with `type`, `label` and the rule as `why`) or not_a_claim",
                    ));
                }
                let Some(r) = self
                    .reviews
                    .get(&p.id)
                    .filter(|r| r.kind.is_claim_decision())
                    .cloned()
                else {
                    still.push(p);
                    continue;
                };
                self.reviews.remove(&p.id);
                let hard = |label: HardCaseLabel| HardCase {
                    id: p.id.clone(),
                    case_type: r.case_type.clone().unwrap_or_default(),
                    text: p.text.clone(),
                    label,
                    source: CaseSource::Real,
                    why: r.why.clone(),
                };
                match r.kind {
                    ReviewKind::Supported => ctx.faithful.push(Claim {
                        id: p.id.clone(),
                        text: p.text.clone(),
                    }),
                    ReviewKind::Contradicted => {
                        ctx.hard_cases.push(hard(HardCaseLabel::Contradicted))
                    }
                    ReviewKind::NotFound => ctx.hard_cases.push(hard(HardCaseLabel::NotFound)),
                    ReviewKind::Borderline => ctx
                        .hard_cases
                        .push(hard(r.label.unwrap_or(HardCaseLabel::Supported))),
                    _ => {} // not a claim: dropped
                }
                self.decided_claims.push(ClaimDecision {
                    context: ci,
                    claim: p,
                    review: r,
                });
            }
            ctx.pending = still;
        }
        Ok(())
    }

    /// The pending claims nobody has decided yet, with their context's index.
    pub fn pending(&self) -> impl Iterator<Item = (usize, &PendingClaim)> {
        self.contexts
            .iter()
            .enumerate()
            .flat_map(|(ci, c)| c.pending.iter().map(move |p| (ci, p)))
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
            decided_claims: Vec::new(),
            mix: file.mix.map(|m| (m, loc.key("mix"))),
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
    fn pending_claims_become_what_a_person_decided_and_no_other_review_fits_them() {
        let text = "suite: t\ncontexts:\n  - id: c1\n    passages:\n      - {id: p1, text: \"Refunds take 3 to 5 business days.\"}\n    pending:\n      - {id: a1-1, claim: \"Refunds take 3 to 5 business days.\", answer: a1}\n      - {id: a1-2, claim: \"Refunds take 7 days.\", answer: a1}\n      - {id: a1-3, claim: \"Thanks for asking!\"}\n      - {id: a1-4, claim: \"Refunds are quick.\"}\nreviews:\n  a1-1: {review: supported}\n  a1-2: {review: contradicted, type: number_swap}\n  a1-3: {review: not_a_claim, why: manners}\n";
        let mut s = load(text).unwrap();
        s.resolve_pending().unwrap();
        let c = &s.contexts[0];
        assert_eq!(c.faithful[0].id, "a1-1");
        assert_eq!(c.hard_cases[0].id, "a1-2");
        assert!(c.hard_cases[0].is_real_error());
        assert_eq!(c.pending.len(), 1, "a1-4 is still pending");
        assert_eq!(s.decided_claims.len(), 3);
        assert!(
            s.reviews.is_empty(),
            "claim decisions leave the mutant reviews"
        );
        let wrong = text.replace("a1-1: {review: supported}", "a1-1: {review: fault}");
        let e = load(&wrong)
            .unwrap()
            .resolve_pending()
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("t.yaml:12") && e.contains("is a pending claim"),
            "{e}"
        );
    }

    #[test]
    fn an_equivalent_review_needs_a_reason() {
        let text = format!("{GOOD}reviews:\n  m-00000000: {{review: equivalent}}\n");
        let e = load(&text).unwrap_err().to_string();
        assert!(e.starts_with("t.yaml:9:"), "{e}");
    }
}
