//! `role_reversal`: who did what to whom, swapped. Where a claim names two people or
//! organisations of its passages on either side of a verb of the rule file ("Arcadia Bank acquired
//! Quillpay", "Leeds beat York 2-1"), the two exchange places, so the passages' facts are read
//! with the roles the wrong way round.

use super::rules::parse;
use super::words::NameCues;
use super::{Input, Mutator, Operator, Purpose};
use crate::error::Result;
use crate::text::words::find_name;
use serde::Deserialize;
use std::path::Path;

pub const OPERATOR: Operator = Operator {
    name: "role_reversal",
    purpose: Purpose::Fault,
    stands_for: "who did what to whom swapped between two entities the passages name",
    typologies: "FRANK EntE/PredE; RAGTruth evident conflict; FaithBench intrinsic; TofuEval mis-referencing",
    rules: "role_reversal.yaml",
    builtin: include_str!("../../mutators/role_reversal.yaml"),
    build: |path, text| Ok(Box::new(RoleReversal::load(path, text)?)),
    example: [
        "Arcadia Bank acquired Quillpay in January.",
        "Quillpay acquired Arcadia Bank in January.",
    ],
};

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Rules {
    verbs: Vec<String>,
}

pub struct RoleReversal {
    verbs: Vec<String>,
    /// How names are found: the same cues `entity_swap` uses.
    cues: NameCues,
}

/// `entity_swap`'s rule file: where the name cues live.
#[derive(Debug, Clone, Deserialize)]
struct EntityRules {
    automatic: Option<NameCues>,
}

impl RoleReversal {
    fn load(path: &Path, text: &str) -> Result<RoleReversal> {
        let rules: Rules = parse(path, text)?;
        if rules.verbs.iter().any(|w| crate::text::words::is_blank(w)) {
            return Err(super::rules::empty_word_error(path, text, "a verb"));
        }
        let entity: EntityRules = parse(
            Path::new(super::entity_swap::OPERATOR.rules),
            super::entity_swap::OPERATOR.builtin,
        )
        .expect("the built-in entity_swap rules parse");
        Ok(RoleReversal {
            verbs: rules.verbs,
            cues: entity.automatic.unwrap_or(NameCues {
                not_names: Vec::new(),
                joiners: Vec::new(),
                kinds: Vec::new(),
                fingerprint: Default::default(),
            }),
        })
    }
}

impl Mutator for RoleReversal {
    fn mutate(&self, input: &Input<'_>) -> Vec<String> {
        let claim = input.claim;
        let names = self.cues.in_passages(input);
        // the names of the passages the claim uses, where it uses them, longest first so that
        // "Arcadia Bank" wins over "Arcadia"
        let mut found: Vec<(usize, usize)> = Vec::new();
        let mut by_len: Vec<&str> = names.iter().map(|n| n.text.as_str()).collect();
        by_len.sort_by_key(|n| std::cmp::Reverse(n.len()));
        for n in by_len {
            if let Some((s, e)) = find_name(claim, n, 0) {
                if !found.iter().any(|(a, b)| s < *b && *a < e) {
                    found.push((s, e));
                }
            }
        }
        found.sort();
        for pair in found.windows(2) {
            let ((s1, e1), (s2, e2)) = (pair[0], pair[1]);
            let between = claim[e1..s2].trim().to_lowercase();
            let between = between.trim_end_matches([',', ' ']);
            // an article before a name would stay behind ("The High Court ruled against X" ->
            // "The X ruled against High Court"): such a pair is left alone
            let article_before = |s: usize| {
                let w = claim[..s]
                    .trim_end()
                    .rsplit(' ')
                    .next()
                    .unwrap_or("")
                    .to_lowercase();
                ["the", "a", "an"].contains(&w.as_str())
            };
            if article_before(s1) || article_before(s2) {
                continue;
            }
            if self.verbs.iter().any(|v| {
                between == v.as_str()
                    || between.ends_with(&format!(" {v}"))
                    || between.starts_with(&format!("{v} "))
            }) {
                let (a, b) = (&claim[s1..e1], &claim[s2..e2]);
                return vec![format!(
                    "{}{b}{}{a}{}",
                    &claim[..s1],
                    &claim[e1..s2],
                    &claim[e2..]
                )];
            }
        }
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(claim: &str, passages: &[&str]) -> Vec<String> {
        RoleReversal::load(Path::new("r.yaml"), OPERATOR.builtin)
            .unwrap()
            .mutate(&Input {
                passages,
                ..Input::bare(claim)
            })
    }

    #[test]
    fn two_names_on_either_side_of_a_verb_exchange_places() {
        let p = ["Arcadia Bank acquired the payments firm Quillpay in January for $1.1 billion."];
        assert_eq!(
            m("Arcadia Bank acquired Quillpay in January.", &p),
            vec!["Quillpay acquired Arcadia Bank in January."]
        );
        let p = ["Leeds United beat York City 2-1 on Saturday, a late goal from Cole deciding it."];
        assert_eq!(
            m("Leeds United beat York City 2-1.", &p),
            vec!["York City beat Leeds United 2-1."]
        );
        // no verb of the list between them: nothing
        assert!(m("Leeds United and York City drew.", &p).is_empty());
    }
}
