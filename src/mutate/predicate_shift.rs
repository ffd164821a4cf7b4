//! `predicate_shift`: a predicate or meaning shift. A verb or adjective is replaced with a related
//! one that means something else ("rose" -> "fell", "appeared in" -> "starred in", "approved" ->
//! "rejected"), from the rule file's pairs, each in both directions.

use super::words::{PhraseRules, Phrases};
use super::{Operator, Purpose};

pub const OPERATOR: Operator = Operator {
    name: "predicate_shift",
    purpose: Purpose::Fault,
    stands_for: "a verb or adjective replaced with a related one of a different meaning",
    typologies: "FRANK RelE/PredE; RAGTruth subtle conflict; FaithBench intrinsic; TofuEval nuanced meaning shift",
    rules: "predicate_shift.yaml",
    builtin: include_str!("../../mutators/predicate_shift.yaml"),
    build: |path, text| Ok(Box::new(Phrases(PhraseRules::load(path, text)?))),
    example: [
        "Shares rose 4 per cent after the results.",
        "Shares fell 4 per cent after the results.",
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
