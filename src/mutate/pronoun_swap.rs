//! `pronoun_swap`: a coreference error. A pronoun is exchanged for its counterpart ("she" for
//! "he") where the claim's own passages use both, so the claim now points at the other person the
//! passages speak of. Kept apart from `entity_swap`, whose faults are named entities.

use super::rules::parse;
use super::{Input, Mutator, Operator, Purpose};
use crate::error::Result;
use serde::Deserialize;
use std::path::Path;

pub const OPERATOR: Operator = Operator {
    name: "pronoun_swap",
    purpose: Purpose::Fault,
    stands_for: "a pronoun that points at the wrong person: she for he, her for his",
    typologies:
        "FRANK CorefE; RAGTruth subtle conflict; FaithBench intrinsic; TofuEval mis-referencing",
    rules: "pronoun_swap.yaml",
    builtin: include_str!("../../mutators/pronoun_swap.yaml"),
    build: |path, text| Ok(Box::new(PronounSwap::load(path, text)?)),
    example: [
        "She joined the firm in 2001.",
        "He joined the firm in 2001.",
    ],
};

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Rules {
    /// Pronoun pairs swapped where the passages use both.
    pairs: Vec<[String; 2]>,
}

pub struct PronounSwap {
    rules: Rules,
}

impl PronounSwap {
    fn load(path: &Path, text: &str) -> Result<PronounSwap> {
        let rules: Rules = parse(path, text)?;
        if rules
            .pairs
            .iter()
            .flatten()
            .any(|w| crate::text::words::is_blank(w))
        {
            return Err(super::rules::empty_word_error(path, text, "a pronoun"));
        }
        Ok(PronounSwap { rules })
    }
}

impl Mutator for PronounSwap {
    fn mutate(&self, input: &Input<'_>) -> Vec<String> {
        let used = |w: &str| {
            input.passages.iter().any(|p| {
                crate::text::words::find_word(p, w, 0).is_some()
                    || crate::text::words::find_word(p, &crate::text::words::capitalised(w), 0)
                        .is_some()
            })
        };
        // a pair neither of whose pronouns the claim uses makes no mutant: the claim is looked
        // at before the passages are searched
        let in_claim = |w: &str| super::words::find_phrase(input.claim, w, 0).is_some();
        for [a, b] in &self.rules.pairs {
            if !(in_claim(a) || in_claim(b)) || !(used(a) && used(b)) {
                continue;
            }
            for (from, to) in [(a, b), (b, a)] {
                if let Some(m) = super::words::replace_first(input.claim, from, to) {
                    return vec![m];
                }
            }
        }
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op() -> PronounSwap {
        PronounSwap::load(Path::new("p.yaml"), OPERATOR.builtin).unwrap()
    }

    #[test]
    fn pronouns_swap_where_the_passages_use_both() {
        let passages = ["He founded the firm in 1998 and she joined him in 2001."];
        assert_eq!(
            op().mutate(&Input {
                passages: &passages,
                ..Input::bare("She joined the firm in 2001.")
            }),
            vec!["He joined the firm in 2001."]
        );
        // "her" in the passages but no "his": nothing to swap
        let passages = ["Her report was published."];
        assert!(op()
            .mutate(&Input {
                passages: &passages,
                ..Input::bare("Her report was published.")
            })
            .is_empty());
    }
}
