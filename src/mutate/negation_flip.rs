//! `negation_flip`: negate a positive claim, or make a negated claim positive.

use super::rules::NegationFlipRules;
use super::Mutator;
use crate::suite::EntityGroup;
use crate::text::find_word;

pub struct NegationFlip {
    rules: NegationFlipRules,
}

impl NegationFlip {
    pub fn new(rules: NegationFlipRules) -> Self {
        NegationFlip { rules }
    }
}

fn capitalised(w: &str) -> String {
    let mut c = w.chars();
    c.next()
        .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
        .unwrap_or_default()
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
    fn name(&self) -> &'static str {
        "negation_flip"
    }

    fn mutate(&self, claim: &str, _entities: &[EntityGroup]) -> Vec<String> {
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
                        crate::text::tidy(&format!("{}{}", &claim[..at], &claim[at + w.len()..]))
                    })
                })
            });
        flipped.into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mutate::Rules;

    fn flip(s: &str) -> Vec<String> {
        NegationFlip::new(Rules::builtin().negation_flip).mutate(s, &[])
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
