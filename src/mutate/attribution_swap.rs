//! `attribution_swap`: a statement given to the wrong source. The source in an attribution
//! frame ("according to X", "X said", "a study by X") is replaced with another person or
//! organisation the passages mention, and a generic source with another ("the study found" ->
//! "the agency found"), so the words stay and who said them changes.

use super::rules::parse;
use super::words::{find_phrase, NameCues};
use super::{Input, Mutator, Operator, Purpose};
use crate::error::Result;
use crate::text::words::capitalised;
use crate::text::words::find_name;
use serde::Deserialize;
use std::path::Path;

pub const OPERATOR: Operator = Operator {
    name: "attribution_swap",
    purpose: Purpose::Fault,
    stands_for: "a statement attributed to the wrong source: another person, organisation or kind of source",
    typologies: "FRANK CorefE/EntE; RAGTruth subtle conflict; FaithBench intrinsic; TofuEval mis-referencing",
    rules: "attribution_swap.yaml",
    builtin: include_str!("../../mutators/attribution_swap.yaml"),
    build: |path, text| Ok(Box::new(AttributionSwap::load(path, text)?)),
    example: [
        "The study defines obesity as a BMI of 30 or more.",
        "The agency defines obesity as a BMI of 30 or more.",
    ],
};

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Rules {
    /// Verbs of saying after a source ("said", "found").
    verbs: Vec<String>,
    /// Phrases before a source ("according to", "a study by").
    frames: Vec<String>,
    /// Generic sources `[from, to]`, replaced before a verb of saying or after a frame.
    sources: Vec<[String; 2]>,
    /// Kinds of names that can be a source.
    source_kinds: Vec<String>,
    /// How names are found in the passages.
    names: NameCues,
}

pub struct AttributionSwap {
    rules: Rules,
}

impl AttributionSwap {
    fn load(path: &Path, text: &str) -> Result<AttributionSwap> {
        let rules: Rules = parse(path, text)?;
        if rules
            .verbs
            .iter()
            .chain(&rules.frames)
            .chain(rules.sources.iter().flatten())
            .any(|w| crate::text::words::is_blank(w))
        {
            return Err(super::rules::empty_word_error(path, text, "a word"));
        }
        Ok(AttributionSwap { rules })
    }

    fn is_verb(&self, w: &str) -> bool {
        let w = w.trim_matches(|c: char| !c.is_alphanumeric());
        self.rules.verbs.iter().any(|v| v == w)
    }
}

impl Mutator for AttributionSwap {
    fn mutate(&self, input: &Input<'_>) -> Vec<String> {
        let claim = input.claim;
        let mut out: Vec<String> = Vec::new();
        let lower = claim.to_lowercase();
        let speaks = self
            .rules
            .verbs
            .iter()
            .any(|v| crate::text::words::find_word(&lower, v, 0).is_some())
            || self.rules.frames.iter().any(|f| lower.contains(f.as_str()));
        if !speaks {
            return out;
        }
        let names = self.rules.names.in_passages(input);
        let sources: Vec<&super::words::Name> = names
            .iter()
            .filter(|n| self.rules.source_kinds.contains(&n.kind))
            .collect();
        // a named source in a frame: the last other source of the passages the claim does not name
        for n in &sources {
            let Some((at, end)) = find_name(claim, &n.text, 0) else {
                continue;
            };
            let before = claim[..at].trim_end().to_lowercase();
            let framed = self
                .rules
                .frames
                .iter()
                .any(|f| before.ends_with(f.as_str()) || before.ends_with(&format!("{f} the")));
            let said = claim[end..]
                .split_whitespace()
                .next()
                .is_some_and(|w| self.is_verb(w));
            if !(framed || said) {
                continue;
            }
            let other = sources.iter().rev().find(|o| {
                o.text != n.text
                    && find_name(claim, &o.text, 0).is_none()
                    && !o.text.contains(&n.text)
                    && !n.text.contains(&o.text)
                    && (o.kind == n.kind
                        || sources.iter().all(|s| s.kind != n.kind || s.text == n.text))
            });
            if let Some(o) = other {
                out.push(format!("{}{}{}", &claim[..at], o.text, &claim[end..]));
            }
        }
        // a generic source before a verb of saying or after a frame
        for [from, to] in &self.rules.sources {
            let mut start = 0;
            while let Some((at, end, cap)) = find_phrase(claim, from, start) {
                let said = claim[end..]
                    .split_whitespace()
                    .next()
                    .is_some_and(|w| self.is_verb(w));
                let before = claim[..at].trim_end().to_lowercase();
                let framed = self.rules.frames.iter().any(|f| {
                    before.ends_with(f.as_str())
                        || before.ends_with(&format!("{f} the"))
                        || before.ends_with(&format!("{f} a"))
                });
                if said || framed {
                    let to = if cap { capitalised(to) } else { to.clone() };
                    let m = format!("{}{}{}", &claim[..at], to, &claim[end..]);
                    if !out.contains(&m) {
                        out.push(m);
                    }
                    break;
                }
                start = end;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn swap(s: &str, passages: &[&str]) -> Vec<String> {
        AttributionSwap::load(Path::new("a.yaml"), OPERATOR.builtin)
            .unwrap()
            .mutate(&Input {
                passages,
                ..Input::bare(s)
            })
    }

    #[test]
    fn a_named_source_is_swapped_for_another_source_of_the_passages() {
        let passages = ["The council's finance director, Maria Lopez, said the budget was balanced. Opposition leader Tom Becker said it relied on one-off savings. The figures were checked by the Audit Office."];
        assert_eq!(
            swap("Maria Lopez said the budget was balanced.", &passages),
            vec!["Tom Becker said the budget was balanced."]
        );
        assert_eq!(
            swap(
                "According to Tom Becker, it relied on one-off savings.",
                &passages
            ),
            vec!["According to Maria Lopez, it relied on one-off savings."]
        );
        // a name that is no source here is left to entity_swap
        assert!(swap("Maria Lopez balanced the budget.", &passages).is_empty());
    }

    #[test]
    fn a_generic_source_is_swapped_only_where_it_speaks() {
        assert_eq!(
            swap(OPERATOR.example[0], &[]),
            vec![OPERATOR.example[1].to_string()]
        );
        assert!(swap("The study took three years.", &[]).is_empty());
    }
}
