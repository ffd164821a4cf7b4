//! Mutation operators: known faults made from claims a person verified as faithful.
//!
//! Each operator lives in its own file and takes its words from a rule file (`mutators/*.yaml`,
//! compiled in as the defaults; `--mutators DIR` reads another set). A mutant's id is a short
//! hash of its operator, its parent claim id and its text, so the same mutant keeps its id across
//! runs, suite reorderings and faithprobe versions, and a person's review of it stays attached.

mod added_detail;
mod attribution_swap;
mod date_shift;
mod dropped_condition;
mod dropped_qualifier;
mod entity_swap;
pub mod guard;
mod hedge_drop;
mod link_swap;
pub mod llm;
mod negation_flip;
mod number_rewrite;
mod number_swap;
mod predicate_shift;
mod pronoun_swap;
mod quantifier_shift;
mod relative_date;
mod role_reversal;
pub mod rules;
mod wording_rewrite;
pub mod words;

use crate::error::{Error, Result};
use crate::model::case::MutantReview;
use crate::model::suite::{EntityGroup, ReviewKind, Suite};
pub use rules::Rules;
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::Path;

/// What an operator sees of one claim.
#[derive(Debug, Clone, Copy)]
pub struct Input<'a> {
    /// The verified claim to mutate.
    pub claim: &'a str,
    /// The passages of the claim's own context.
    pub passages: &'a [&'a str],
    /// The suite's declared entity groups.
    pub entities: &'a [EntityGroup],
    /// The passages of some other contexts of the suite (the next few in suite order): where
    /// details the claim's own passages do not support can come from.
    pub elsewhere: &'a [&'a str],
}

impl<'a> Input<'a> {
    /// A claim with nothing around it (tests, fuzzing).
    pub fn bare(claim: &'a str) -> Input<'a> {
        Input {
            claim,
            passages: &[],
            entities: &[],
            elsewhere: &[],
        }
    }
}

/// One mutation operator, built from its rule file.
pub trait Mutator: Send + Sync {
    /// Mutant texts for one claim; each differs from the claim. Empty when the operator does not
    /// apply.
    fn mutate(&self, input: &Input<'_>) -> Vec<String>;

    /// Why the operator could not make its mutants (a model that did not answer): generation
    /// stops with this, so no claim is silently without them. Rule operators never fail.
    fn error(&self) -> Option<String> {
        None
    }

    /// A file the operator could not write (its reply cache): an output failure, exit 4, which
    /// stops generation before [`Mutator::error`] is reported.
    fn write_error(&self) -> Option<Error> {
        None
    }
}

/// An operator with its built mutator: what [`Rules`] holds, in report order.
pub type Built = (&'static Operator, std::sync::Arc<dyn Mutator>);

/// What an operator's cases are for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Purpose {
    /// Its mutants are faults the checker should flag (once a person reviews them).
    Fault,
    /// Its rewrites say the same as the claim: the checker should still pass them.
    Invariance,
}

/// One entry of the operator registry: everything the rest of faithprobe knows of an operator.
pub struct Operator {
    /// The operator's name: its mutants' fault type and the name of its row.
    pub name: &'static str,
    pub purpose: Purpose,
    /// What the fault type stands for, in a phrase.
    pub stands_for: &'static str,
    /// The same fault in the public typologies (FRANK, RAGTruth, FaithBench, TofuEval).
    pub typologies: &'static str,
    /// Its rule file's name, in `mutators/` and in a `--mutators DIR` folder.
    pub rules: &'static str,
    /// The shipped rule file's text.
    pub builtin: &'static str,
    /// Parses and checks a rule file (its path for errors) and builds the operator.
    pub build: fn(&Path, &str) -> Result<Box<dyn Mutator>>,
    /// A claim and one of its mutants, for `mutants --list` and the README.
    pub example: [&'static str; 2],
}

/// Every operator, in report order: one line per operator file.
pub static REGISTRY: &[Operator] = &[
    number_swap::OPERATOR,
    negation_flip::OPERATOR,
    // before entity_swap: a source swapped in an attribution frame is an attribution fault, and
    // of two operators that make the same edit the first keeps it
    attribution_swap::OPERATOR,
    entity_swap::OPERATOR,
    pronoun_swap::OPERATOR,
    role_reversal::OPERATOR,
    dropped_condition::OPERATOR,
    dropped_qualifier::OPERATOR,
    added_detail::OPERATOR,
    predicate_shift::OPERATOR,
    date_shift::OPERATOR,
    relative_date::OPERATOR,
    hedge_drop::OPERATOR,
    quantifier_shift::OPERATOR,
    link_swap::OPERATOR,
    number_rewrite::OPERATOR,
    wording_rewrite::OPERATOR,
];

/// The registry entry of `name`.
pub fn operator(name: &str) -> Option<&'static Operator> {
    REGISTRY.iter().find(|op| op.name == name)
}

/// The names of the operators, in report order.
pub fn operator_names() -> impl Iterator<Item = &'static str> {
    REGISTRY.iter().map(|op| op.name)
}

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
}

/// An edit an operator made that is not kept as a case, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Skipped {
    pub operator: &'static str,
    pub parent: String,
    pub text: String,
    pub why: &'static str,
}

/// The words of `s`, lower-cased and sorted: two texts with the same words in another order have
/// the same list.
fn sorted_words(s: &str) -> Vec<String> {
    let mut w: Vec<String> = crate::text::tokenize(s)
        .into_iter()
        .map(|t| s[t.start..t.end].to_lowercase())
        .collect();
    w.sort();
    w
}

/// A sentence as [`skip_reason`] compares it: trimmed, without its final stop, lower-cased.
fn sentence_key(s: &str) -> String {
    s.trim().trim_end_matches(['.', '!', '?']).to_lowercase()
}

/// Why an edit is not a case, or `None` when it is one: a fault that only reorders the claim's
/// words (the members of a list swapped) says the same thing, and a fault that is word for word a
/// sentence of the passages is supported by them. `claim_words` are the claim's
/// [`sorted_words`], `sentences` the passages' sentences as [`sentence_key`]s.
fn skip_reason(
    op: &Operator,
    claim_words: &[String],
    text: &str,
    sentences: &std::collections::HashSet<String>,
) -> Option<&'static str> {
    if op.purpose != Purpose::Fault {
        return None;
    }
    // a role reversal moves words by its nature: who did what to whom is in their order
    if sorted_words(text) == claim_words && op.name != role_reversal::OPERATOR.name {
        return Some("it only reorders the claim's words (e.g. two members of a list swapped), so it says the same thing");
    }
    if sentences.contains(&sentence_key(text)) {
        return Some("it is word for word a sentence of the passages, so they support it");
    }
    None
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
    /// Edits that are not cases, each with the reason (see [`skip_reason`]).
    pub skipped: Vec<Skipped>,
    /// Operators that produced no mutant on this suite: reported, never silently absent.
    pub empty_operators: Vec<&'static str>,
    /// Edits that gave exactly a hard case of the same context (hard case id, operator, parent):
    /// left to the hard case, so one claim is never counted twice.
    pub same_as_hard_case: Vec<(String, &'static str, String)>,
    /// Reviews of mutant ids the suite no longer generates, in id order.
    pub stale_reviews: Vec<StaleReview>,
    /// The fingerprint of the rules that made these mutants ([`Rules::fingerprint`]).
    pub rules_sha256: String,
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
            crate::text::shell_word(&suite.path.display().to_string()),
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
}

/// The stable id of a mutant: `m-` and the first 16 hex digits (64 bits) of a SHA-256 over the
/// operator, the parent claim id and the mutant text.
pub(crate) fn mutant_id(operator: &str, parent_id: &str, text: &str) -> String {
    let mut h = Sha256::new();
    for part in [operator, parent_id, text] {
        h.update(part.as_bytes());
        h.update([0u8]);
    }
    let digest = h.finalize();
    format!("m-{}", crate::text::hex(&digest[..8]))
}

/// How many other contexts (the next ones in suite order) an operator may borrow from.
const ELSEWHERE: usize = 4;

/// The length of a mutant id from faithprobe 0.1 (`m-` and 8 hex digits): the same hash, cut
/// shorter, so such an id is a prefix of today's. Reviews keyed by one still apply.
const LEGACY_ID_LEN: usize = 10;

/// Generates every mutant of a suite's faithful claims and attaches the suite's reviews. A review
/// of a mutant id the suite does not generate is stale: listed in the set, never an error.
pub fn generate(suite: &Suite, rules: &Rules) -> Result<MutantSet> {
    let mut mutants: Vec<Mutant> = Vec::new();
    let mut skipped: Vec<Skipped> = Vec::new();
    // id -> index in `mutants`
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut legacy: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    let mut same_as_hard_case = Vec::new();
    for (ci, ctx) in suite.contexts.iter().enumerate() {
        let passages: Vec<&str> = ctx.passages.iter().map(|p| p.text.as_str()).collect();
        // the next few contexts in suite order (wrapping): enough to borrow a detail from,
        // and a bounded cost per claim however large the suite
        let n = suite.contexts.len();
        let elsewhere: Vec<&str> = (1..n.min(ELSEWHERE + 1))
            .map(|k| &suite.contexts[(ci + k) % n])
            .flat_map(|c| c.passages.iter().map(|p| p.text.as_str()))
            .collect();
        let sentences: std::collections::HashSet<String> = passages
            .iter()
            .flat_map(|p| crate::text::split_sentences(p))
            .map(sentence_key)
            .collect();
        for claim in &ctx.faithful {
            // a signal stops generation within a claim's work, not after the whole suite
            if crate::io::interrupt::requested() {
                return Err(Error::Interrupted(format!(
                    "stopped while making the mutants of {}; nothing was scored or written",
                    suite.path.display()
                )));
            }
            let first_of_claim = mutants.len();
            let claim_words = sorted_words(&claim.text);
            let input = Input {
                claim: &claim.text,
                passages: &passages,
                entities: &suite.entities,
                elsewhere: &elsewhere,
            };
            for (op, m) in rules.operators() {
                for text in m.mutate(&input) {
                    if text == claim.text || crate::text::is_blank(&text) {
                        continue;
                    }
                    // this claim's mutants are the last ones pushed: look only at those
                    let twin = mutants[first_of_claim..]
                        .iter()
                        .any(|m| m.text == text && m.operator != op.name);
                    let why = skip_reason(op, &claim_words, &text, &sentences)
                        .or(twin.then_some(
                            "another operator made the same edit of this claim; it is kept there",
                        ))
                        .or_else(|| guard::refuse(&claim.text, &text));
                    if let Some(why) = why {
                        skipped.push(Skipped {
                            operator: op.name,
                            parent: claim.id.clone(),
                            text,
                            why,
                        });
                        continue;
                    }
                    if let Some(h) = ctx.hard_cases.iter().find(|h| h.text == text) {
                        let hit = (h.id.clone(), op.name, claim.id.clone());
                        if !same_as_hard_case.contains(&hit) {
                            same_as_hard_case.push(hit);
                        }
                        continue;
                    }
                    let id = mutant_id(op.name, &claim.id, &text);
                    if let Some(&other) = seen.get(&id) {
                        let o = &mutants[other];
                        if o.operator == op.name && o.parent == claim.id && o.text == text {
                            continue; // the same edit reached twice (e.g. two matching patterns)
                        }
                        return Err(Error::input(
                            &suite.path,
                            None,
                            format!(
                                "two different mutants share the id {id}: {:?} ({} of {}) and {text:?} ({} of {})",
                                o.text, o.operator, o.parent, op.name, claim.id
                            ),
                            "this is a 64-bit hash collision; rename one of the two parent claims' ids and report it",
                        ));
                    }
                    let full = suite.reviews.get_key_value(&id);
                    let short = suite.reviews.get_key_value(&id[..LEGACY_ID_LEN]);
                    if let (Some(f), Some(s)) = (full, short) {
                        return Err(reviewed_twice(suite, &id, f, s));
                    }
                    let key = full.or(short);
                    if let Some((k, _)) = key.filter(|(k, _)| k.len() == LEGACY_ID_LEN) {
                        legacy.entry(k.as_str()).or_default().push(id.clone());
                    }
                    let review = match key.map(|(_, r)| r) {
                        None => MutantReview::Unreviewed,
                        Some(r) => match (r.kind, op.purpose) {
                            (ReviewKind::Fault, Purpose::Fault) => MutantReview::Fault,
                            (ReviewKind::Equivalent, _) => MutantReview::Equivalent {
                                why: r.why.clone().unwrap_or_default(),
                            },
                            (ReviewKind::NotEquivalent, Purpose::Invariance) => {
                                MutantReview::NotEquivalent {
                                    why: r.why.clone().unwrap_or_default(),
                                }
                            }
                            (kind, purpose) => {
                                return Err(Error::input(
                                    &r.file,
                                    r.line,
                                    format!(
                                        "`{id}` is a {} of {} and cannot be reviewed `{}`",
                                        if purpose == Purpose::Fault {
                                            "mutant"
                                        } else {
                                            "rewrite"
                                        },
                                        op.name,
                                        kind.as_str()
                                    ),
                                    if purpose == Purpose::Fault {
                                        "review a mutant `fault` or `equivalent` (with a `why`)"
                                    } else {
                                        "review a rewrite `equivalent` or `not_equivalent` (with a `why`)"
                                    },
                                ));
                            }
                        },
                    };
                    seen.insert(id.clone(), mutants.len());
                    mutants.push(Mutant {
                        id,
                        operator: op.name,
                        parent: claim.id.clone(),
                        context: ci,
                        text,
                        review,
                    });
                }
            }
        }
    }
    for (short, ids) in &legacy {
        if ids.len() > 1 {
            return Err(Error::input(
                &suite.reviews[*short].file,
                suite.reviews[*short].line,
                format!(
                    "the review of `{short}` (a short id from an older faithprobe) now matches {} mutants: {}",
                    ids.len(),
                    ids.join(", ")
                ),
                "replace it with the full ids from `faithprobe mutants SUITE --format yaml`",
            ));
        }
    }
    // a review whose mutant is gone (its claim was edited, a rule changed, a typo) is stale:
    // listed, never a reason the suite cannot load
    let stale_reviews = suite
        .reviews
        .iter()
        .filter(|(id, _)| {
            !(seen.contains_key(*id)
                || (id.len() == LEGACY_ID_LEN && legacy.contains_key(id.as_str())))
        })
        .map(|(id, r)| StaleReview {
            id: id.clone(),
            file: r.file.clone(),
            line: r.line,
        })
        .collect();
    for (_, m) in rules.operators() {
        if let Some(e) = m.write_error() {
            return Err(e);
        }
    }
    for (op, m) in rules.operators() {
        if let Some(why) = m.error() {
            return Err(Error::Usage(format!(
                "the mutator {} could not make its mutants for {}: {why}; fix the server or the model, or remove it from `mutators:` in faithprobe.yaml (its replies so far are cached)",
                op.name,
                suite.path.display()
            )));
        }
    }
    let operators: Vec<&'static str> = rules.operators().map(|(op, _)| op.name).collect();
    let empty_operators = operators
        .iter()
        .copied()
        .filter(|name| !mutants.iter().any(|m| m.operator == *name))
        .collect();
    Ok(MutantSet {
        mutants,
        operators,
        skipped,
        empty_operators,
        same_as_hard_case,
        stale_reviews,
        rules_sha256: rules.fingerprint(),
    })
}

/// The error for a mutant reviewed under its full id and under its short one (from an older
/// faithprobe): named at the side file's line when one of the two is there, as a review in both
/// the suite and its side file is.
fn reviewed_twice(
    suite: &Suite,
    id: &str,
    full: (&String, &crate::model::suite::Review),
    short: (&String, &crate::model::suite::Review),
) -> Error {
    let (here, there) = if full.1.file != suite.path {
        (full, short)
    } else {
        (short, full)
    };
    Error::input(
        &here.1.file,
        here.1.line,
        format!(
            "`{}` is reviewed here and in {}{} (as `{}`): both are reviews of the mutant {id}",
            here.0,
            there.1.file.display(),
            there.1.line.map(|l| format!(":{l}")).unwrap_or_default(),
            there.0
        ),
        "keep one review: delete this line, or the other one",
    )
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_operator_makes_its_own_example() {
        // what `mutants --list` and the README show is what the operator does
        let passages = ["Finance director Maria Lopez approved the budget; her deputy, Tom Becker, said the vote was close.", "He founded the firm and she joined it in 2001.", "Arcadia Bank acquired the payments firm Quillpay in January. The plant closed last May, its 2021 report said."];
        let rules = Rules::builtin();
        for (op, m) in rules.operators() {
            let got = m.mutate(&Input {
                passages: &passages,
                ..Input::bare(op.example[0])
            });
            assert!(
                got.iter().any(|g| g == op.example[1]),
                "{}: {:?} gave {got:?}",
                op.name,
                op.example[0]
            );
        }
    }

    #[test]
    fn a_reordered_list_and_a_sentence_of_the_passages_are_skipped_with_the_reason() {
        let yaml = "suite: s\nentities:\n  item: [books, DVDs]\ncontexts:\n  - id: c\n    passages: [{id: p, text: \"Members borrow books and DVDs. Members borrow DVDs for a week.\"}]\n    faithful: [{id: f1, claim: \"Members borrow books and DVDs.\"}, {id: f2, claim: \"Members borrow books for a week.\"}]\n";
        let suite = Suite::from_yaml(std::path::Path::new("s.yaml"), yaml).unwrap();
        let set = generate(&suite, &Rules::builtin()).unwrap();
        assert!(set
            .mutants
            .iter()
            .all(|m| m.text != "Members borrow DVDs and books."));
        assert!(set
            .mutants
            .iter()
            .all(|m| m.text != "Members borrow DVDs for a week."));
        let why = |t: &str| set.skipped.iter().find(|s| s.text == t).map(|s| s.why);
        assert!(why("Members borrow DVDs and books.")
            .unwrap()
            .contains("reorders"));
        assert!(why("Members borrow DVDs for a week.")
            .unwrap()
            .contains("sentence of the passages"));
    }

    #[test]
    fn mutant_ids_are_short_stable_hashes() {
        let a = mutant_id("number_swap", "f01", "x");
        assert_eq!(a, mutant_id("number_swap", "f01", "x"));
        assert_ne!(a, mutant_id("negation_flip", "f01", "x"));
        assert_eq!(a.len(), 18, "m- and 16 hex digits: 64 bits");
        assert!(a.starts_with("m-"));
    }

    fn suite(reviews: &str) -> Suite {
        let yaml = format!(
            "suite: s\ncontexts:\n  - id: c\n    passages: [{{id: p, text: \"Refunds are issued within 14 days.\"}}]\n    faithful: [{{id: f1, claim: \"Refunds are issued within 14 days.\"}}]\n{reviews}"
        );
        Suite::from_yaml(std::path::Path::new("s.yaml"), &yaml).unwrap()
    }

    #[test]
    fn a_review_keyed_by_an_old_short_id_still_applies() {
        let set = generate(&suite(""), &Rules::builtin()).unwrap();
        let m = &set.mutants[0];
        let short = &m.id[..LEGACY_ID_LEN];
        let reviewed = generate(
            &suite(&format!(
                "reviews:\n  {short}: {{review: equivalent, why: \"still true\"}}\n"
            )),
            &Rules::builtin(),
        )
        .unwrap();
        let again = reviewed.mutants.iter().find(|x| x.id == m.id).unwrap();
        assert_eq!(
            again.review.state(),
            crate::model::case::ReviewState::Equivalent
        );
        // and a short id that matches nothing is a stale review
        let set = generate(
            &suite("reviews:\n  m-00000000: {review: fault}\n"),
            &Rules::builtin(),
        )
        .unwrap();
        assert_eq!(set.stale_reviews[0].id, "m-00000000");
    }

    #[test]
    fn stale_reviews_are_listed_in_one_warning_and_left_out_of_the_yaml_block() {
        let set = generate(&suite(""), &Rules::builtin()).unwrap();
        let live = &set.mutants[0].id;
        let s = suite(&format!(
            "reviews:\n  {live}: {{review: fault}}\n  m-1111111111111111: {{review: fault}}\n  m-2222222222222222: {{review: equivalent, why: old}}\n"
        ));
        let set = generate(&s, &Rules::builtin()).unwrap();
        let ids: Vec<&str> = set.stale_reviews.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, ["m-1111111111111111", "m-2222222222222222"]);
        let w = set.stale_warning(&s).unwrap();
        assert!(
            w.contains("2 reviews")
                && w.contains("s.yaml:8: m-1111111111111111")
                && w.contains("s.yaml:9: m-2222222222222222"),
            "{w}"
        );
        let yaml = reviews_yaml(&s, &set);
        assert!(
            yaml.contains(&format!("{live}: {{review: fault}}")),
            "{yaml}"
        );
        assert!(!yaml.contains("m-1111111111111111: {"), "{yaml}");
        // the block pastes back as a suite with no stale review
        let text = format!(
            "suite: s\ncontexts:\n  - id: c\n    passages: [{{id: p, text: \"Refunds are issued within 14 days.\"}}]\n    faithful: [{{id: f1, claim: \"Refunds are issued within 14 days.\"}}]\n{yaml}"
        );
        let pasted = Suite::from_yaml(std::path::Path::new("s.yaml"), &text).unwrap();
        assert!(generate(&pasted, &Rules::builtin())
            .unwrap()
            .stale_reviews
            .is_empty());
    }

    #[test]
    fn an_edit_that_gives_a_hard_case_is_left_to_the_hard_case() {
        let yaml = "suite: s\ncontexts:\n  - id: c\n    passages: [{id: p, text: \"Refunds are issued within 14 days.\"}]\n    faithful: [{id: f1, claim: \"Refunds are issued within 14 days.\"}]\n    hard_cases: [{id: h1, type: negation_flip, claim: \"Refunds are not issued within 14 days.\", label: contradicted}]\n";
        let suite = Suite::from_yaml(std::path::Path::new("s.yaml"), yaml).unwrap();
        let set = generate(&suite, &Rules::builtin()).unwrap();
        assert!(set
            .mutants
            .iter()
            .all(|m| m.text != "Refunds are not issued within 14 days."));
        assert_eq!(
            set.same_as_hard_case,
            vec![("h1".to_string(), "negation_flip", "f1".to_string())]
        );
    }
}
