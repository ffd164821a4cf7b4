//! Mutation operators: known faults made from claims a person verified as faithful.
//!
//! Each operator lives in its own file and takes its words from a rule file (`mutators/*.yaml`,
//! compiled in as the defaults; `--mutators DIR` reads another set). A mutant's id is a short
//! hash of its operator, its parent claim id and its text, so the same mutant keeps its id across
//! runs, suite reorderings and faithprobe versions, and a person's review of it stays attached.

mod added_detail;
mod attribution_swap;
mod conflation;
mod date_shift;
mod dropped_condition;
mod dropped_qualifier;
mod entity_swap;
mod generation;
pub mod guard;
mod hedge_drop;
mod link_swap;
pub mod llm;
mod name_part;
mod negation_flip;
mod number_rewrite;
mod number_swap;
mod predicate_shift;
mod pronoun_swap;
mod quantifier_shift;
mod relative_date;
mod role_reversal;
pub mod rules;
mod set;
mod values;
mod wording_rewrite;
pub mod words;

use crate::error::{Error, Result};
use crate::model::suite::EntityGroup;
pub use generation::generate;
pub(crate) use generation::{compound_id, mutant_id};
pub use rules::{Generation, Rules};
use serde::Serialize;
pub use set::{reviews_yaml, Mutant, MutantSet, Skipped, StaleReview};
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
    /// The suite's real errors, those of other contexts first (see [`RealError`]): what a model
    /// asked for examples imitates.
    pub real_errors: &'a [RealError<'a>],
    /// The reading of `passages` that the context's claims share (see [`Shared`]); `None` to
    /// read them for this claim alone.
    pub shared: Option<&'a Shared<'a>>,
}

impl<'a> Input<'a> {
    /// A claim with nothing around it (tests, fuzzing).
    pub fn bare(claim: &'a str) -> Input<'a> {
        Input {
            claim,
            passages: &[],
            entities: &[],
            elsewhere: &[],
            real_errors: &[],
            shared: None,
        }
    }

    /// The passages lower-cased with their words: the context's shared reading when it is of
    /// these very passages, else read now.
    pub(crate) fn lowered(&self) -> std::borrow::Cow<'_, Lowered> {
        match self.here() {
            Some(s) => std::borrow::Cow::Borrowed(s.lowered()),
            None => std::borrow::Cow::Owned(Lowered::of(self.passages)),
        }
    }

    /// The shared reading when it is of these very passages and borrowed passages.
    fn here(&self) -> Option<&'a Shared<'a>> {
        self.shared.filter(|s| {
            std::ptr::eq(s.passages, self.passages) && std::ptr::eq(s.elsewhere, self.elsewhere)
        })
    }

    /// What an operator reads of the passages, `read` once per context and kept in the shared
    /// reading (under its type and `key`), or read now when there is none.
    pub(crate) fn memo<T: std::any::Any + Send + Sync>(
        &self,
        key: u64,
        read: impl FnOnce() -> T,
    ) -> std::sync::Arc<T> {
        match self.here() {
            Some(s) => s.memo(key, read),
            None => std::sync::Arc::new(read()),
        }
    }

    /// Each passage's sentences ([`crate::text::sentences::split_sentences`]): the context's
    /// shared split when it is of these very passages, else split now.
    pub(crate) fn sentences(&self) -> Vec<Vec<&'a str>> {
        match self.here() {
            Some(s) => s
                .sentences()
                .iter()
                .zip(self.passages)
                .map(|(spans, p)| spans.iter().map(|&(a, b)| &p[a..b]).collect())
                .collect(),
            None => split_each(self.passages),
        }
    }

    /// Where an operator looks for a word the passages or the claim use: both lower-cased.
    pub(crate) fn hay(&self) -> Hay<'_> {
        Hay {
            passages: self.lowered(),
            claim: Lowered::of(&[self.claim]),
        }
    }
}

/// What the operators read of one context's passages that is the same for all its claims (and
/// their rewrites), read the first time a claim needs it and kept for the others.
pub struct Shared<'a> {
    passages: &'a [&'a str],
    elsewhere: &'a [&'a str],
    lowered: std::sync::OnceLock<Lowered>,
    /// Each passage's sentences as byte ranges, split once for every operator (and generation)
    /// that reads them (ranges, not slices, so that the reading stays covariant in `'a`).
    sentences: std::sync::OnceLock<Vec<Vec<(usize, usize)>>>,
    /// Operators' own readings, by their type and key.
    memo: std::sync::Mutex<Vec<Memo>>,
}

/// One operator's reading in [`Shared`]: its type, its key, the reading.
type Memo = (
    std::any::TypeId,
    u64,
    std::sync::Arc<dyn std::any::Any + Send + Sync>,
);

impl std::fmt::Debug for Shared<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared")
            .field("passages", &self.passages.len())
            .finish_non_exhaustive()
    }
}

impl<'a> Shared<'a> {
    /// The shared reading of `passages` and the passages borrowed from (`elsewhere`): pass the
    /// same slices as the [`Input`]'s, or it is not used.
    pub fn new(passages: &'a [&'a str], elsewhere: &'a [&'a str]) -> Shared<'a> {
        Shared {
            passages,
            elsewhere,
            lowered: std::sync::OnceLock::new(),
            sentences: std::sync::OnceLock::new(),
            memo: std::sync::Mutex::new(Vec::new()),
        }
    }

    fn memo<T: std::any::Any + Send + Sync>(
        &self,
        key: u64,
        read: impl FnOnce() -> T,
    ) -> std::sync::Arc<T> {
        let ty = std::any::TypeId::of::<T>();
        let found = self.memo.lock().ok().and_then(|m| {
            m.iter()
                .find(|(t, k, _)| *t == ty && *k == key)
                .map(|(_, _, v)| v.clone())
        });
        if let Some(v) = found.and_then(|v| v.downcast::<T>().ok()) {
            return v;
        }
        // read outside the lock: a context's claims come from one thread, so nobody waits
        let v = std::sync::Arc::new(read());
        if let Ok(mut m) = self.memo.lock() {
            m.push((ty, key, v.clone()));
        }
        v
    }

    fn lowered(&self) -> &Lowered {
        self.lowered.get_or_init(|| Lowered::of(self.passages))
    }

    /// Each passage's sentences, split the first time anyone asks.
    fn sentences(&self) -> &[Vec<(usize, usize)>] {
        self.sentences.get_or_init(|| {
            split_each(self.passages)
                .iter()
                .zip(self.passages)
                .map(|(split, p)| {
                    let base = p.as_ptr() as usize;
                    split
                        .iter()
                        .map(|s| {
                            let a = s.as_ptr() as usize - base;
                            (a, a + s.len())
                        })
                        .collect()
                })
                .collect()
        })
    }
}

/// Each text's sentences.
fn split_each<'a>(texts: &[&'a str]) -> Vec<Vec<&'a str>> {
    texts
        .iter()
        .map(|t| crate::text::sentences::split_sentences(t))
        .collect()
}

/// Texts joined by line breaks and lower-cased, with the set of their words (runs of letters and
/// digits), so that asking whether they use a word is a look-up, not a scan.
#[derive(Debug, Clone)]
pub(crate) struct Lowered {
    pub text: String,
    words: crate::text::hash::WordSet<String>,
}

impl Lowered {
    pub fn of(texts: &[&str]) -> Lowered {
        let text = crate::text::words::lowercase(&texts.join("\n"));
        // a word met again is looked up, not copied again
        let mut words = crate::text::hash::WordSet::<String>::default();
        for w in text.split(|c: char| !c.is_alphanumeric()) {
            if !w.is_empty() && !words.contains(w) {
                words.insert(w.to_string());
            }
        }
        Lowered { text, words }
    }

    /// Whether `word` (lower-cased) is a whole word of the texts: for a word of letters and
    /// digits only, whether it is one of their words; else [`crate::text::words::find_word`].
    pub fn uses(&self, word: &str) -> bool {
        // an empty word is used nowhere, as find_word says
        if word.is_empty() {
            return false;
        }
        // every run of letters and digits of a word the texts use is one of their words (it
        // is bounded by the word's other characters or by the match's own boundaries), so a
        // run that is not rules the word out without a scan
        let mut runs = word
            .split(|c: char| !c.is_alphanumeric())
            .filter(|r| !r.is_empty());
        if !runs.all(|r| self.words.contains(r)) {
            return false;
        }
        word.chars().all(char::is_alphanumeric)
            || crate::text::words::find_word(&self.text, word, 0).is_some()
    }
}

/// The passages and the claim, lower-cased, as an operator asks whether either uses a word.
pub(crate) struct Hay<'a> {
    pub passages: std::borrow::Cow<'a, Lowered>,
    pub claim: Lowered,
}

impl Hay<'_> {
    /// Whether the passages or the claim use `word` (lower-cased) as a whole word.
    pub fn uses(&self, word: &str) -> bool {
        self.passages.uses(word) || self.claim.uses(word)
    }
}

/// A real error of the suite: a hard case from labelled real output (`source: real`) that is not
/// labelled supported, with the passages of its context.
#[derive(Debug, Clone, Copy)]
pub struct RealError<'a> {
    pub claim: &'a str,
    /// Its case type as the suite names it (`added_detail`, `number`, ...).
    pub case_type: &'a str,
    /// Its label: `contradicted`, `not_found` or `misleading`.
    pub label: &'static str,
    pub passages: &'a [&'a str],
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

    /// Whether generation may call this operator from several threads at once for different
    /// contexts. A rule operator may; one that calls a model (in order, through one cache and
    /// one failure) says it may not, and generation keeps to one thread.
    fn side_by_side(&self) -> bool {
        true
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
    /// A claim and one of its mutants, for `mutants --list` and the guide's operators page.
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
    conflation::OPERATOR,
    name_part::OPERATOR,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_word_is_used_where_a_scan_of_the_text_finds_it() {
        // the look-up in the word set says what find_word over the lower-cased text says
        let texts = [
            "Dr Ann-Marie Lee's long-term plan, São Paulo; ΣΟΦΟΣ.",
            "€3,50 a month — 17 per cent off",
        ];
        let l = Lowered::of(&texts);
        for w in [
            "ann-marie",
            "ann marie",
            "ann",
            "marie",
            "lee's",
            "lee",
            "long-term",
            "long term",
            "são paulo",
            "são",
            "σοφος",
            "σοφοσ",
            "€3",
            "3,50",
            "50",
            "17 per cent",
            "per",
            "",
            "plan,",
            "month —",
            "x",
            "paulo;",
        ] {
            assert_eq!(
                l.uses(w),
                crate::text::words::find_word(&l.text, w, 0).is_some(),
                "{w:?}"
            );
        }
    }

    #[test]
    fn every_operator_makes_its_own_example() {
        // what `mutants --list` and the guide show is what the operator does
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
}
