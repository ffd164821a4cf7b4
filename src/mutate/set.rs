//! The mutants of a suite as the rest of faithprobe reads them: each [`Mutant`] with its review,
//! the edits skipped with the reason, the stale reviews, and the `reviews:` block a person pastes.

use super::{operator, Purpose};
use crate::model::case::MutantReview;
use crate::model::suite::Suite;
use serde::Serialize;
use std::collections::BTreeMap;

/// A generated fault.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Mutant {
    pub id: String,
    pub operator: &'static str,
    /// The id of the faithful claim it was made from.
    pub parent: String,
    /// Index of the parent's context set in the suite.
    #[serde(skip)]
    pub context: usize,
    pub text: String,
    pub review: MutantReview,
    /// A compound fault: the id of the rewrite of the parent claim this fault was made in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compound_of: Option<String>,
}

/// An edit an operator made that is not kept as a case, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Skipped {
    pub operator: &'static str,
    pub parent: String,
    pub text: String,
    pub why: &'static str,
    /// For a compound edit: the rewrite it was made in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compound_of: Option<String>,
}

impl Mutant {
    /// A meaning-preserving rewrite (an invariance case), not a fault.
    pub fn is_rewrite(&self) -> bool {
        operator(self.operator).is_some_and(|op| op.purpose == Purpose::Invariance)
    }
}

/// All mutants of a suite, and which operators produced none.
#[derive(Debug, Clone)]
pub struct MutantSet {
    pub mutants: Vec<Mutant>,
    /// Every operator that ran, in report order (the registry's, then any LLM mutators).
    pub operators: Vec<&'static str>,
    /// Edits that are not cases, each with the reason (see `skip_reason` in generation.rs).
    pub skipped: Vec<Skipped>,
    /// Operators that produced no mutant on this suite: reported, never silently absent.
    pub empty_operators: Vec<&'static str>,
    /// Edits that gave exactly a hard case of the same context (hard case id, operator, parent):
    /// left to the hard case, so one claim is never counted twice.
    pub same_as_hard_case: Vec<(String, &'static str, String)>,
    /// Reviews of mutant ids the suite no longer generates, in id order.
    pub stale_reviews: Vec<StaleReview>,
    /// The fingerprint of the rules that made these mutants ([`Rules::fingerprint`](super::Rules::fingerprint)).
    pub rules_sha256: String,
    /// The cap on mutants per claim and operator they were made under, if any.
    pub max_per_claim: Option<usize>,
}

/// A review whose mutant the suite no longer generates: its parent claim was edited, a rule
/// changed, or the id has a typo. It counts in nothing; `mutants --format yaml` leaves it out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StaleReview {
    pub id: String,
    /// The file the review is in: the suite or its side file.
    pub file: std::path::PathBuf,
    /// The line of the review in that file.
    pub line: Option<usize>,
}

impl MutantSet {
    /// One warning naming every stale review of `suite` and what to do, or `None`.
    pub fn stale_warning(&self, suite: &Suite) -> Option<String> {
        if self.stale_reviews.is_empty() {
            return None;
        }
        let list: Vec<String> = self
            .stale_reviews
            .iter()
            .map(|r| match r.line {
                Some(l) => format!("  {}:{l}: {}", r.file.display(), r.id),
                None => format!("  {}: {}", r.file.display(), r.id),
            })
            .collect();
        Some(format!(
            "warning: {} review{} of {} name{} a mutant the suite no longer generates (a claim was edited or a rule changed); {} count{} in nothing:\n{}\n  to remove them: faithprobe review {} --prune",
            self.stale_reviews.len(),
            if self.stale_reviews.len() == 1 { "" } else { "s" },
            suite.name,
            if self.stale_reviews.len() == 1 { "s" } else { "" },
            if self.stale_reviews.len() == 1 { "it" } else { "they" },
            if self.stale_reviews.len() == 1 { "s" } else { "" },
            list.join("\n"),
            crate::text::shell::shell_word(&suite.path.display().to_string()),
        ))
    }
}

impl MutantSet {
    /// Mutant count per operator that ran, in report order.
    pub fn counts(&self) -> Vec<(&'static str, usize)> {
        self.operators
            .iter()
            .map(|op| {
                (
                    *op,
                    self.mutants.iter().filter(|m| m.operator == *op).count(),
                )
            })
            .collect()
    }

    /// The mutants a person reviewed `broken`, counted per operator (in the order met): the
    /// operators' defects, in no rate.
    pub fn broken_by_operator(&self) -> Vec<(String, usize)> {
        let mut out: Vec<(String, usize)> = Vec::new();
        for m in &self.mutants {
            if matches!(m.review, MutantReview::Broken { .. }) {
                match out.iter_mut().find(|(op, _)| op == m.operator) {
                    Some((_, n)) => *n += 1,
                    None => out.push((m.operator.to_string(), 1)),
                }
            }
        }
        out
    }
}

/// Renders a `reviews:` block a person can paste into the suite and edit. Existing reviews are
/// kept; unreviewed mutants are proposed as `fault` with the text to check in a comment. Once
/// pasted, a `fault` is a review: the comment says it was proposed, never that it is unreviewed.
pub fn reviews_yaml(suite: &Suite, set: &MutantSet) -> String {
    let parents: BTreeMap<&str, &str> = suite
        .contexts
        .iter()
        .flat_map(|c| c.faithful.iter())
        .map(|c| (c.id.as_str(), c.text.as_str()))
        .collect();
    let mut out = String::from(
        "# Paste under the suite's top level. Read each mutant: keep `fault` when it is a real error,\n# or write `equivalent` with a `why` when it is still supported by the passages.\n",
    );
    for r in &set.stale_reviews {
        out.push_str(&format!(
            "# left out: the review of {} names a mutant the suite no longer generates\n",
            r.id
        ));
    }
    // decisions in the side file stay there: pasting them would review a mutant twice
    let in_side = |m: &Mutant| {
        suite
            .reviews
            .get(&m.id)
            .is_some_and(|r| r.file != suite.path)
    };
    let side = set.mutants.iter().filter(|m| in_side(m)).count();
    if let (Some(path), true) = (&suite.side_file, side > 0) {
        out.push_str(&format!(
            "# left out: {side} review{} already in {}\n",
            if side == 1 { "" } else { "s" },
            path.display()
        ));
    }
    out.push_str("reviews:\n");
    for m in set.mutants.iter().filter(|m| !in_side(m)) {
        out.push_str(&format!(
            "  # {} of {} ({}): {}\n",
            m.operator,
            m.parent,
            parents.get(m.parent.as_str()).copied().unwrap_or(""),
            m.text
        ));
        match &m.review {
            MutantReview::Equivalent { why } => out.push_str(&format!(
                "  {}: {{review: equivalent, why: {}}}\n",
                m.id,
                serde_json::to_string(why).unwrap_or_default()
            )),
            MutantReview::NotEquivalent { why } => out.push_str(&format!(
                "  {}: {{review: not_equivalent, why: {}}}\n",
                m.id,
                serde_json::to_string(why).unwrap_or_default()
            )),
            MutantReview::Fault => out.push_str(&format!("  {}: {{review: fault}}\n", m.id)),
            MutantReview::Broken { why: Some(why) } => out.push_str(&format!(
                "  {}: {{review: broken, why: {}}}\n",
                m.id,
                serde_json::to_string(why).unwrap_or_default()
            )),
            MutantReview::Broken { why: None } => {
                out.push_str(&format!("  {}: {{review: broken}}\n", m.id))
            }
            MutantReview::Unreviewed if m.is_rewrite() => out.push_str(&format!(
                "  {}: {{review: equivalent, why: \"says the same as its claim\"}}  # proposed: write `not_equivalent` if the meaning changed\n",
                m.id
            )),
            MutantReview::Unreviewed => out.push_str(&format!(
                "  {}: {{review: fault}}  # proposed: keep `fault` if this is a real error\n",
                m.id
            )),
        }
    }
    out
}
