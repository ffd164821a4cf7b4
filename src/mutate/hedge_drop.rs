//! `hedge_drop`: a hedge or modality dropped. A hedge is removed ("reportedly", "allegedly") or a
//! modal strengthened ("may" -> "will", "is expected to" -> "will", "plans to" -> "will"): only
//! towards more certainty, since a weaker claim is usually still supported.

use super::words::{PhraseRules, Phrases};
use super::{Operator, Purpose};

pub const OPERATOR: Operator = Operator {
    name: "hedge_drop",
    purpose: Purpose::Fault,
    stands_for: "a hedge removed or a modal strengthened: a possibility or report stated as fact",
    typologies: "TofuEval tense/modality and opinion stated as fact; RAGTruth subtle conflict; FaithBench intrinsic",
    rules: "hedge_drop.yaml",
    builtin: include_str!("../../mutators/hedge_drop.yaml"),
    build: |path, text| Ok(Box::new(Phrases(PhraseRules::load(path, text)?))),
    example: [
        "The drug may reduce the risk of stroke.",
        "The drug will reduce the risk of stroke.",
    ],
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mutate::Input;
    use std::path::Path;

    fn m(s: &str) -> Vec<String> {
        (OPERATOR.build)(Path::new("r.yaml"), OPERATOR.builtin)
            .unwrap()
            .mutate(&Input::bare(s))
    }

    #[test]
    fn the_example_is_what_it_makes() {
        assert!(m(OPERATOR.example[0]).contains(&OPERATOR.example[1].to_string()));
    }
}
