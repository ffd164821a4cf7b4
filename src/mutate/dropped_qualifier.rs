//! `dropped_qualifier`: a qualifier dropped, so the claim says more than the passages. A word
//! that limits a role, a time or an extent goes ("formerly", "deputy", "interim", "partly",
//! "initially"): "formerly associated" becomes "associated", a deputy becomes the office holder.

use super::words::{PhraseRules, Phrases};
use super::{Operator, Purpose};

pub const OPERATOR: Operator = Operator {
    name: "dropped_qualifier",
    purpose: Purpose::Fault,
    stands_for: "a qualifier of a role, time or extent dropped: formerly, deputy, interim, partly",
    typologies: "FRANK CircE; RAGTruth subtle conflict; FaithBench intrinsic; TofuEval nuanced meaning shift",
    rules: "dropped_qualifier.yaml",
    builtin: include_str!("../../mutators/dropped_qualifier.yaml"),
    build: |path, text| Ok(Box::new(Phrases(PhraseRules::load(path, text)?))),
    example: [
        "The singer was formerly associated with the label.",
        "The singer was associated with the label.",
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
    fn a_qualifier_of_a_role_time_or_extent_is_dropped() {
        assert_eq!(
            m("The deputy mayor opened the bridge."),
            vec!["The mayor opened the bridge."]
        );
        assert_eq!(
            m("The project was partly funded by the council."),
            vec!["The project was funded by the council."]
        );
        assert_eq!(
            m("Initially, the plant employed 40 people."),
            vec!["The plant employed 40 people."]
        );
        assert!(m("The mayor opened the bridge.").is_empty());
    }
}
