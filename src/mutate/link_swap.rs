//! `link_swap`: causal and temporal links. "because of" becomes "despite", "after" becomes
//! "before", "led to" becomes "followed", "therefore" becomes "however": the facts stay, the
//! relation between them changes.

use super::words::{PhraseRules, Phrases};
use super::{Operator, Purpose};

pub const OPERATOR: Operator = Operator {
    name: "link_swap",
    purpose: Purpose::Fault,
    stands_for: "a causal or temporal link changed: because for despite, before for after",
    typologies:
        "FRANK LinkE; TofuEval reasoning error; RAGTruth subtle conflict; FaithBench intrinsic",
    rules: "link_swap.yaml",
    builtin: include_str!("../../mutators/link_swap.yaml"),
    build: |path, text| Ok(Box::new(Phrases(PhraseRules::load(path, text)?))),
    example: [
        "The match was postponed because of the storm.",
        "The match was postponed despite the storm.",
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
