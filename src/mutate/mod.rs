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
        }
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
