//! `added_detail`: extrinsic information. One specific, fluent detail the passages do not
//! support is added to the end of the claim: a time, place, amount, reason or qualifier, taken
//! from another context of the suite where one matches the rule file's patterns (one of all that
//! fit, chosen by the claim, so no phrase dominates), else from the rule file's lists (one of
//! those that fit, chosen the same way). A detail any of whose words the claim's own passages use is never added
//! (they might support it), so the mutant reads naturally but says more than the sources.

use super::rules::{line_of, parse};
use super::{Hay, Input, Mutator, Operator, Purpose};
use crate::error::{Error, Result};
use regex::Regex;
use serde::Deserialize;
use std::path::Path;

pub const OPERATOR: Operator = Operator {
    name: "added_detail",
    purpose: Purpose::Fault,
    stands_for: "an unsupported detail added: a time, place, amount, reason or qualifier no passage gives",
    typologies: "FRANK OutE; RAGTruth evident/subtle baseless info; FaithBench extrinsic; TofuEval extrinsic information",
    rules: "added_detail.yaml",
    builtin: include_str!("../../mutators/added_detail.yaml"),
    build: |path, text| Ok(Box::new(AddedDetail::load(path, text)?)),
    example: [
        "The council approved the budget.",
        "The council approved the budget on Tuesday.",
    ],
};

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Rules {
    /// Patterns of details to borrow from the suite's other contexts, in order of preference.
    borrow: Vec<Entry>,
    /// Details to add; one that fits is chosen per claim.
    details: Vec<Entry>,
    /// Words that do not count when checking whether the passages use a detail's words.
    ignore: Vec<String>,
}

/// A detail (or, under `borrow`, a pattern that finds one) and what a claim must match (`when`)
/// and must not match (`unless`) for the detail to fit it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    #[serde(alias = "pattern")]
    text: String,
    #[serde(default)]
    when: Option<String>,
    #[serde(default)]
    unless: Option<String>,
    /// Under `borrow`: a found detail that matches this is not taken ("in April" is no place).
    #[serde(default)]
    reject: Option<String>,
}

/// An entry with its patterns compiled.
struct Fit {
    text: String,
    /// The compiled `text` of a borrow pattern.
    pattern: Option<Regex>,
    when: Option<Regex>,
    unless: Option<Regex>,
    reject: Option<Regex>,
}

impl Fit {
    fn fits(&self, claim: &str) -> bool {
        self.when.as_ref().is_none_or(|w| w.is_match(claim))
            && !self.unless.as_ref().is_some_and(|u| u.is_match(claim))
    }
}

pub struct AddedDetail {
    borrow: Vec<Fit>,
    details: Vec<Fit>,
    ignore: Vec<String>,
}

impl AddedDetail {
    fn load(path: &Path, text: &str) -> Result<AddedDetail> {
        let rules: Rules = parse(path, text)?;
        let compile = |p: &str| -> Result<Regex> {
            if p.is_empty() {
                return Err(super::rules::empty_word_error(path, text, "a pattern"));
            }
            Regex::new(p).map_err(|e| {
                Error::input(
                    path,
                    line_of(text, &|l| l.contains(p)),
                    format!("`{p}` is not a valid regular expression: {e}"),
                    "fix the regex (Rust `regex` syntax: no look-around or back-references)",
                )
            })
        };
        let fit = |e: &Entry, borrowed: bool| -> Result<Fit> {
            if crate::text::words::is_blank(&e.text) {
                return Err(super::rules::empty_word_error(path, text, "a detail"));
            }
            Ok(Fit {
                text: e.text.clone(),
                pattern: if borrowed {
                    Some(compile(&e.text)?)
                } else {
                    None
                },
                when: e.when.as_deref().map(compile).transpose()?,
                unless: e.unless.as_deref().map(compile).transpose()?,
                reject: e.reject.as_deref().map(compile).transpose()?,
            })
        };
        Ok(AddedDetail {
            borrow: rules
                .borrow
                .iter()
                .map(|e| fit(e, true))
                .collect::<Result<_>>()?,
            details: rules
                .details
                .iter()
                .map(|e| fit(e, false))
                .collect::<Result<_>>()?,
            ignore: rules.ignore,
        })
    }

    /// True when the passages or the claim (`hay`, lower-cased) use any word of `detail` that is
    /// not ignored.
    fn used(&self, detail: &str, hay: &Hay<'_>) -> bool {
        crate::text::tokens::tokenize(detail).iter().any(|t| {
            let w = detail[t.start..t.end].to_lowercase();
            !self.ignore.iter().any(|i| i.eq_ignore_ascii_case(&w)) && hay.uses(&w)
        })
    }
}

/// What each borrowing pattern finds in the passages borrowed from, in their order: the same for
/// every claim of a context, found the first time a claim fits the pattern.
struct Borrowable {
    each: Vec<std::sync::OnceLock<Vec<String>>>,
}

/// How many borrowable details are gathered per claim: enough to spread, bounded in cost.
const MAX_CANDIDATES: usize = 64;

/// The claim with `detail` added before its final full stop; None when it ends otherwise (a
/// quotation, a question, a list).
fn append(claim: &str, detail: &str) -> Option<String> {
    let body = claim.trim_end().strip_suffix('.')?;
    if body.ends_with(['"', '”', ')', ':']) || body.is_empty() {
        return None;
    }
    let sep = if detail.starts_with(',') { "" } else { " " };
    Some(format!("{body}{sep}{detail}."))
}

impl Mutator for AddedDetail {
    fn mutate(&self, input: &Input<'_>) -> Vec<String> {
        let mut out = Vec::new();
        // the passages (read once for the context's claims) and the claim, lower-cased
        let hay = input.hay();
        // every detail the suite's other contexts offer that fits this claim, then one of them
        // chosen by the claim, so that claims get different details (no phrase dominates)
        let mut candidates: Vec<String> = Vec::new();
        // what each pattern finds in the passages borrowed from, found once per context
        let found = input.memo(0, || Borrowable {
            each: self.borrow.iter().map(|_| Default::default()).collect(),
        });
        for (f, found) in self.borrow.iter().zip(&found.each) {
            let Some(re) = f.pattern.as_ref().filter(|_| f.fits(input.claim)) else {
                continue;
            };
            let found = found.get_or_init(|| {
                input
                    .elsewhere
                    .iter()
                    .flat_map(|p| re.find_iter(p).map(|m| m.as_str().trim().to_string()))
                    .collect()
            });
            for d in found {
                if candidates.len() >= MAX_CANDIDATES {
                    break;
                }
                if !f.reject.as_ref().is_some_and(|r| r.is_match(d))
                    && !candidates.contains(d)
                    && !self.used(d, &hay)
                {
                    candidates.push(d.clone());
                }
            }
        }
        let pick = crate::text::hash::sha256_hex(input.claim.as_bytes(), 4);
        let pick = usize::from_str_radix(&pick[..8], 16).unwrap_or(0);
        let borrowed =
            (!candidates.is_empty()).then(|| candidates[pick % candidates.len()].clone());
        if let Some(d) = borrowed.as_deref().and_then(|d| append(input.claim, d)) {
            out.push(d);
        }
        // a listed detail only where the suite offers none to borrow, chosen by the claim so
        // that claims get different ones: the suite's own details come first
        if out.is_empty() && !self.details.is_empty() {
            let fitting: Vec<&String> = self
                .details
                .iter()
                .filter(|f| f.fits(input.claim))
                .map(|f| &f.text)
                .filter(|d| borrowed.as_deref() != Some(d.as_str()) && !self.used(d, &hay))
                .collect();
            // among the details that fit, one chosen by the claim: evenly spread
            let listed = (!fitting.is_empty()).then(|| fitting[pick % fitting.len()]);
            if let Some(d) = listed.and_then(|d| append(input.claim, d)) {
                if !out.contains(&d) {
                    out.push(d);
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn add(claim: &str, passages: &[&str], elsewhere: &[&str]) -> Vec<String> {
        AddedDetail::load(Path::new("a.yaml"), OPERATOR.builtin)
            .unwrap()
            .mutate(&Input {
                passages,
                elsewhere,
                ..Input::bare(claim)
            })
    }

    #[test]
    fn a_detail_is_borrowed_from_another_context_when_the_passages_lack_it() {
        let m = add(
            "The council approved the budget.",
            &["The council approved the budget after a long debate."],
            &["The library reopened in Leeds on Tuesday after repairs."],
        );
        // a detail of the suite's own comes first, and then no listed one is added
        assert_eq!(m, vec!["The council approved the budget on Tuesday."]);
        // never a detail the claim's own passages use
        let m = add(
            "The council approved the budget.",
            &["The council approved the budget on Tuesday."],
            &["The library reopened on Tuesday."],
        );
        assert!(m.iter().all(|x| !x.contains("Tuesday")), "{m:?}");
    }

    #[test]
    fn a_claim_that_does_not_end_in_a_full_stop_gets_none() {
        assert!(add("Is it free?", &[], &[]).is_empty());
        assert!(add("She said: \"It is free.\"", &[], &[]).is_empty());
    }
}
