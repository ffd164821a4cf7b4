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

/// Every entry's `when` and `unless` in one set each (borrow entries first, then details), so a
/// claim is read once for all of them, not twice per entry: which entries fit a claim is what
/// [`Fit::fits`] says of each. Patterns too large to compile together (a rules file's own)
/// leave it to each entry.
struct Fits {
    /// The `when` and the `unless` patterns as sets; `when_of` and `unless_of` the entry each of
    /// their patterns is of.
    sets: Option<(regex::RegexSet, regex::RegexSet)>,
    when_of: Vec<usize>,
    unless_of: Vec<usize>,
    entries: usize,
}

impl Fits {
    fn of(entries: &[&Fit]) -> Fits {
        let pick = |f: fn(&Fit) -> Option<&Regex>| {
            let (of, pats): (Vec<usize>, Vec<&str>) = entries
                .iter()
                .enumerate()
                .filter_map(|(i, e)| f(e).map(|r| (i, r.as_str())))
                .unzip();
            (regex::RegexSet::new(pats).ok(), of)
        };
        let (when, when_of) = pick(|e| e.when.as_ref());
        let (unless, unless_of) = pick(|e| e.unless.as_ref());
        Fits {
            sets: when.zip(unless),
            when_of,
            unless_of,
            entries: entries.len(),
        }
    }

    /// Whether each of `entries` (those the set was made from, in order) fits `claim`.
    fn of_claim<'f>(&self, entries: impl Iterator<Item = &'f Fit>, claim: &str) -> Vec<bool> {
        let Some((when, unless)) = &self.sets else {
            return entries.map(|f| f.fits(claim)).collect();
        };
        // an entry without `when` fits unless its `unless` matches
        let mut fits = vec![true; self.entries];
        for &e in &self.when_of {
            fits[e] = false;
        }
        for i in when.matches(claim).iter() {
            fits[self.when_of[i]] = true;
        }
        for i in unless.matches(claim).iter() {
            fits[self.unless_of[i]] = false;
        }
        fits
    }
}

pub struct AddedDetail {
    borrow: Vec<Fit>,
    details: Vec<Fit>,
    fits: Fits,
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
        let borrow: Vec<Fit> = rules
            .borrow
            .iter()
            .map(|e| fit(e, true))
            .collect::<Result<_>>()?;
        let details: Vec<Fit> = rules
            .details
            .iter()
            .map(|e| fit(e, false))
            .collect::<Result<_>>()?;
        let fits = Fits::of(&borrow.iter().chain(&details).collect::<Vec<_>>());
        Ok(AddedDetail {
            borrow,
            details,
            fits,
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
        // which entries fit the claim: borrow entries first, then details
        let fit = self
            .fits
            .of_claim(self.borrow.iter().chain(&self.details), input.claim);
        let (fit_borrow, fit_detail) = fit.split_at(self.borrow.len());
        // the passages (read once for the context's claims) and the claim, lower-cased
        let hay = input.hay();
        // every detail the suite's other contexts offer that fits this claim, then one of them
        // chosen by the claim, so that claims get different details (no phrase dominates)
        let mut candidates: Vec<String> = Vec::new();
        // what each pattern finds in the passages borrowed from, found once per context
        let found = input.memo(0, || Borrowable {
            each: self.borrow.iter().map(|_| Default::default()).collect(),
        });
        for ((f, found), &fits) in self.borrow.iter().zip(&found.each).zip(fit_borrow) {
            let Some(re) = f.pattern.as_ref().filter(|_| fits) else {
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
                .zip(fit_detail)
                .filter(|(_, &fits)| fits)
                .map(|(f, _)| &f.text)
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
    fn the_set_of_patterns_says_of_each_entry_what_the_entry_says() {
        let a = AddedDetail::load(Path::new("a.yaml"), OPERATOR.builtin).unwrap();
        let all: Vec<&Fit> = a.borrow.iter().chain(&a.details).collect();
        for claim in [
            "The council approved the budget.",
            "The council approved the budget on Tuesday in Leeds.",
            "Here is a summary: the fee rose 17 per cent last year.",
            "Staff on contracts may claim €3,50 per month without approval.",
            "Die Gebühr stieg im März; Ärzte said the drug’s dose fell.",
            "Subscriptions cost $ 160 million a year, including delivery.",
            "The team won by 12 votes and reached the final for the first time.",
            "",
        ] {
            let each: Vec<bool> = all.iter().map(|f| f.fits(claim)).collect();
            assert_eq!(a.fits.of_claim(all.iter().copied(), claim), each, "{claim}");
            let apart = Fits {
                sets: None,
                ..Fits::of(&all)
            };
            assert_eq!(apart.of_claim(all.iter().copied(), claim), each, "{claim}");
        }
    }

    proptest::proptest! {
        #[test]
        fn any_claim_fits_the_same_entries_read_together_or_one_by_one(
            words in proptest::collection::vec(
                "(said|rose|fell|costs?|staff|Tuesday|in|at|from|The|Leeds|2024|12|votes?|may|claim|without|approval|über|Ärzte|—|,|\\.)",
                0..14,
            )
        ) {
            let a = AddedDetail::load(Path::new("a.yaml"), OPERATOR.builtin).unwrap();
            let claim = words.join(" ");
            let each: Vec<bool> = a.borrow.iter().chain(&a.details).map(|f| f.fits(&claim)).collect();
            proptest::prop_assert_eq!(a.fits.of_claim(a.borrow.iter().chain(&a.details), &claim), each);
        }
    }

    #[test]
    fn a_claim_that_does_not_end_in_a_full_stop_gets_none() {
        assert!(add("Is it free?", &[], &[]).is_empty());
        assert!(add("She said: \"It is free.\"", &[], &[]).is_empty());
    }
}
