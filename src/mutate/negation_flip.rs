//! `negation_flip`: negate a positive claim, or make a negated claim positive.

use super::rules::{empty_word_error, parse};
use super::{Input, Mutator, Operator, Purpose};
use crate::error::Result;
use crate::text::words::capitalised;
use crate::text::words::find_word;
use serde::Deserialize;
use std::path::Path;

pub const OPERATOR: Operator = Operator {
    name: "negation_flip",
    purpose: Purpose::Fault,
    stands_for: "a statement negated, or a negated one made positive",
    typologies: "FRANK PredE; RAGTruth evident conflict; FaithBench intrinsic; TofuEval nuanced meaning shift",
    rules: "negation_flip.yaml",
    builtin: include_str!("../../mutators/negation_flip.yaml"),
    build: |path, text| Ok(Box::new(NegationFlip::load(path, text)?)),
    example: [
        "Team plans can be cancelled at any time.",
        "Team plans cannot be cancelled at any time.",
    ],
};

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Rules {
    /// `[negative, positive]` pairs.
    pairs: Vec<[String; 2]>,
    #[serde(default)]
    remove: Vec<String>,
}

pub struct NegationFlip {
    rules: Rules,
}

impl NegationFlip {
    fn load(path: &Path, text: &str) -> Result<NegationFlip> {
        let rules: Rules = parse(path, text)?;
        if rules
            .pairs
            .iter()
            .flatten()
            .chain(&rules.remove)
            .any(|w| crate::text::words::is_blank(w))
        {
            return Err(empty_word_error(path, text, "a negation word"));
        }
        Ok(NegationFlip { rules })
    }
}

/// Replaces the first whole-word `from` (or its capitalised form) with `to`.
fn replace_first(text: &str, from: &str, to: &str) -> Option<String> {
    if let Some(at) = find_word(text, from, 0) {
        return Some(format!("{}{}{}", &text[..at], to, &text[at + from.len()..]));
    }
    let cap = capitalised(from);
    find_word(text, &cap, 0).map(|at| {
        format!(
            "{}{}{}",
            &text[..at],
            capitalised(to),
            &text[at + cap.len()..]
        )
    })
}

impl Mutator for NegationFlip {
    fn mutate(&self, input: &Input<'_>) -> Vec<String> {
        let claim = input.claim;
        let flipped = self
            .rules
            .pairs
            .iter()
            .find_map(|[neg, pos]| replace_first(claim, neg, pos))
            .or_else(|| {
                self.rules
                    .pairs
                    .iter()
                    .find_map(|[neg, pos]| replace_first(claim, pos, neg))
            })
            .or_else(|| {
                self.rules.remove.iter().find_map(|w| {
                    find_word(claim, w, 0).map(|at| {
                        crate::text::words::tidy(&format!(
                            "{}{}",
                            &claim[..at],
                            &claim[at + w.len()..]
                        ))
                    })
                })
            });
        flipped.into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flip(s: &str) -> Vec<String> {
        NegationFlip::load(Path::new("n.yaml"), OPERATOR.builtin)
            .unwrap()
            .mutate(&Input::bare(s))
    }

    #[test]
    fn empty_words_are_rejected_with_their_line() {
        let e = NegationFlip::load(
            Path::new("negation_flip.yaml"),
            "pairs:\n  - [\"is not\", \"is\"]\n  - [\"\", \"can\"]\n",
        )
        .err()
        .unwrap()
        .to_string();
        assert!(
            e.contains("negation_flip.yaml:3") && e.contains("empty"),
            "{e}"
        );
    }

    #[test]
    fn negatives_are_flipped_before_positives() {
        assert_eq!(
            flip("The current month is not refunded when a Team plan is cancelled."),
            vec!["The current month is refunded when a Team plan is cancelled."]
        );
        assert_eq!(
            flip("Team plans can be cancelled at any time."),
            vec!["Team plans cannot be cancelled at any time."]
        );
    }

    #[test]
    fn a_claim_without_cues_gets_no_mutant() {
        assert!(flip("The Team plan costs €12 per user per month.").is_empty());
    }

    #[test]
    fn flipping_twice_gives_back_the_claim() {
        let once = flip("Storage is pooled across the workspace.");
        assert_eq!(
            flip(&once[0]),
            vec!["Storage is pooled across the workspace."]
        );
    }
}
