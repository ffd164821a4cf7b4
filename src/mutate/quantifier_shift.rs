//! `quantifier_shift`: quantifiers, comparatives and approximations. "some" becomes "all", "more
//! than" becomes "less than", "at least" becomes "at most", and an approximation ("nearly",
//! "about", "up to") is dropped, so a rough figure reads as an exact one.

use super::words::{PhraseRules, Phrases};
use super::{Operator, Purpose};

pub const OPERATOR: Operator = Operator {
    name: "quantifier_shift",
    purpose: Purpose::Fault,
    stands_for: "a quantifier, comparative or approximation changed: some for all, more for fewer, nearly dropped",
    typologies: "FRANK CircE; RAGTruth subtle conflict; FaithBench intrinsic; TofuEval nuanced meaning shift",
    rules: "quantifier_shift.yaml",
    builtin: include_str!("../../mutators/quantifier_shift.yaml"),
    build: |path, text| Ok(Box::new(Phrases(PhraseRules::load(path, text)?))),
    example: [
        "Nearly 36% of voters backed the plan.",
        "36% of voters backed the plan.",
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
