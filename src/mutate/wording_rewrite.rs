//! `wording_rewrite`: the same claim in other words, which a checker should still pass
//! (CheckList's invariance test). A contraction is written out or contracted ("does not" <->
//! "doesn't"), a word is replaced with a synonym from the rule file, or a trailing condition is
//! moved to the front ("X if Y." -> "If Y, x."). Its cases are false-alarm opportunities in the
//! invariance row, never faults.

use super::rules::parse;
use super::words::PhraseRules;
use super::{Input, Mutator, Operator, Purpose};
use crate::error::{Error, Result};
use crate::text::words::capitalised;
use regex::Regex;
use serde::Deserialize;
use std::path::Path;

pub const OPERATOR: Operator = Operator {
    name: "wording_rewrite",
    purpose: Purpose::Invariance,
    stands_for:
        "the same claim in other words (contractions, synonyms, clause order): still supported",
    typologies: "CheckList invariance (INV); no fault: a false alarm on it is a false alarm",
    rules: "wording_rewrite.yaml",
    builtin: include_str!("../../mutators/wording_rewrite.yaml"),
    build: |path, text| Ok(Box::new(WordingRewrite::load(path, text)?)),
    example: [
        "Refunds are issued if the item arrived damaged.",
        "If the item arrived damaged, refunds are issued.",
    ],
};

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Rules {
    /// Pairs that say the same thing, applied both ways.
    same: Vec<[String; 2]>,
    /// Pairs `[formal, plain]` that say the same thing, applied from left to right only.
    #[serde(default)]
    plainer: Vec<[String; 2]>,
    /// Conjunctions whose trailing clause may move to the front.
    move_clauses: Vec<String>,
    /// Verbs of saying: a main clause with one keeps its trailing clause where it is.
    #[serde(default)]
    reported_by: Vec<String>,
}

pub struct WordingRewrite {
    same: PhraseRules,
    plainer: PhraseRules,
    clause: Option<Regex>,
    reported_by: Vec<String>,
}

impl WordingRewrite {
    fn load(path: &Path, text: &str) -> Result<WordingRewrite> {
        let rules: Rules = parse(path, text)?;
        if rules
            .same
            .iter()
            .chain(&rules.plainer)
            .flatten()
            .chain(&rules.move_clauses)
            .any(|w| crate::text::words::is_blank(w))
        {
            return Err(super::rules::empty_word_error(path, text, "a word"));
        }
        let clause = if rules.move_clauses.is_empty() {
            None
        } else {
            let alt: Vec<String> = rules
                .move_clauses
                .iter()
                .map(|c| regex::escape(c))
                .collect();
            Some(
                Regex::new(&format!(
                    r"^(?P<main>[^,;:]+?) (?P<conj>{}) (?P<sub>[^,;:]+)\.$",
                    alt.join("|")
                ))
                .map_err(|e| {
                    Error::input(
                        path,
                        None,
                        format!("`move_clauses` do not make a pattern: {e}"),
                        "list plain words",
                    )
                })?,
            )
        };
        Ok(WordingRewrite {
            same: PhraseRules {
                pairs: rules.same,
                both_ways: true,
                remove: Vec::new(),
                remove_before_numbers: false,
                index: Default::default(),
            },
            plainer: PhraseRules {
                pairs: rules.plainer,
                both_ways: false,
                remove: Vec::new(),
                remove_before_numbers: false,
                index: Default::default(),
            },
            clause,
            reported_by: rules.reported_by,
        })
    }
}

/// `main` with its first letter lower-cased, unless it begins a name: a word the passages
/// capitalise inside a sentence, or one written in capitals.
fn lower_start(main: &str, passages: &[&str]) -> String {
    let first = main.split_whitespace().next().unwrap_or("");
    let inside_a_sentence = |p: &str| {
        let mut from = 0;
        while let Some(at) = crate::text::words::find_word(p, first, from) {
            let before = p[..at].trim_end();
            if !before.is_empty() && !before.ends_with(['.', '!', '?', ':', '"', '“']) {
                return true;
            }
            from = at + first.len();
        }
        false
    };
    let name = first.chars().skip(1).any(char::is_uppercase)
        || passages.iter().any(|p| inside_a_sentence(p));
    if name {
        return main.to_string();
    }
    let mut c = main.chars();
    c.next()
        .map(|f| f.to_lowercase().collect::<String>() + c.as_str())
        .unwrap_or_default()
}

impl Mutator for WordingRewrite {
    fn mutate(&self, input: &Input<'_>) -> Vec<String> {
        let mut out = self.same.apply(input.claim);
        for m in self.plainer.apply(input.claim) {
            if !out.contains(&m) {
                out.push(m);
            }
        }
        if let Some(caps) = self
            .clause
            .as_ref()
            .and_then(|r| r.captures(input.claim.trim()))
            .filter(|c| {
                !self
                    .reported_by
                    .iter()
                    .any(|v| crate::text::words::find_word(&c["main"], v, 0).is_some())
            })
        {
            let main = lower_start(&caps["main"], input.passages);
            let moved = format!("{} {}, {main}.", capitalised(&caps["conj"]), &caps["sub"]);
            if !out.contains(&moved) {
                out.push(moved);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(s: &str, passages: &[&str]) -> Vec<String> {
        WordingRewrite::load(Path::new("w.yaml"), OPERATOR.builtin)
            .unwrap()
            .mutate(&Input {
                passages,
                ..Input::bare(s)
            })
    }

    #[test]
    fn rewrites_say_the_same() {
        assert_eq!(
            m(OPERATOR.example[0], &[]),
            vec![OPERATOR.example[1].to_string()]
        );
        assert_eq!(
            m("The Team plan does not include SSO.", &[]),
            vec!["The Team plan doesn't include SSO."]
        );
        // a name keeps its capital when the clause moves
        assert_eq!(
            m(
                "Larkspur refunds the fee if the item is damaged.",
                &["Customers of Larkspur get a refund."]
            ),
            vec!["If the item is damaged, Larkspur refunds the fee."]
        );
        // a reason inside what someone said stays there
        assert!(m("Weiss said demand was weak because of high rates.", &[]).is_empty());
    }
}
