//! `conflation`: two facts of the passages mixed up. A value of the claim that the passages state
//! (a count, an amount, a percentage, an age, a year, a date, a month, a weekday, an ordinal, a
//! name) is replaced by a value of the same kind from another sentence of the passages, one that
//! does not state the claim's value: "Export links expire after 7 days" becomes "after 14 days",
//! the 14 days being the passages' refund window. Unlike `number_swap`, the new value is no
//! stranger to the passages: every word of the mutant is one of theirs or the claim's, so only a
//! checker that reads which value belongs to which event catches it.

use super::rules::parse;
use super::values::{Finder, Kind, Value};
use super::words::NameCues;
use super::{Input, Mutator, Operator, Purpose};
use crate::error::Result;
use crate::text::hash::WordSet;
use crate::text::words::find_name;
use crate::text::words::find_word;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

pub const OPERATOR: Operator = Operator {
    name: "conflation",
    purpose: Purpose::Fault,
    stands_for: "a number, date, ordinal or name from another sentence of the passages attached to this claim's event",
    typologies: "FRANK CircE/EntE; RAGTruth subtle conflict; FaithBench intrinsic; TofuEval mis-referencing",
    rules: "conflation.yaml",
    builtin: include_str!("../../mutators/conflation.yaml"),
    build: |path, text| Ok(Box::new(Conflation::load(path, text)?)),
    example: [
        "She joined the firm in 2001.",
        "She joined the firm in 2021.",
    ],
};

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Rules {
    ordinals: Vec<String>,
    #[serde(default)]
    not_ordinal_before: Vec<String>,
    #[serde(default)]
    not_ordinal_after: Vec<String>,
    #[serde(default)]
    number_words: BTreeMap<String, f64>,
    months: Vec<String>,
    #[serde(default)]
    month_after: Vec<String>,
    #[serde(default)]
    weekdays: Vec<String>,
    #[serde(default)]
    age_before: Vec<String>,
    #[serde(default)]
    not_nouns: Vec<String>,
    #[serde(default)]
    time_units: Vec<String>,
    #[serde(default)]
    larger_after: Vec<String>,
    #[serde(default)]
    smaller_after: Vec<String>,
    #[serde(default)]
    name_kinds: Vec<String>,
    #[serde(default)]
    ignore: Vec<String>,
}

pub struct Conflation {
    rules: Rules,
    finder: Finder,
    cues: NameCues,
    /// The rules' `ignore` words, to look a word up in.
    ignore: WordSet<String>,
}

/// `entity_swap`'s rule file: where the name cues live.
#[derive(Debug, Clone, Deserialize)]
struct EntityRules {
    automatic: Option<NameCues>,
}

impl Conflation {
    fn load(path: &Path, text: &str) -> Result<Conflation> {
        let mut rules: Rules = parse(path, text)?;
        if rules
            .ordinals
            .iter()
            .chain(&rules.months)
            .chain(&rules.weekdays)
            .chain(&rules.age_before)
            .chain(&rules.larger_after)
            .chain(&rules.smaller_after)
            .chain(rules.number_words.keys())
            .any(|w| crate::text::words::is_blank(w))
        {
            return Err(super::rules::empty_word_error(path, text, "a word"));
        }
        let entity: EntityRules = parse(
            Path::new(super::entity_swap::OPERATOR.rules),
            super::entity_swap::OPERATOR.builtin,
        )
        .expect("the built-in entity_swap rules parse");
        let finder = Finder::new(super::values::Words {
            ordinals: rules.ordinals.clone(),
            not_ordinal_before: rules.not_ordinal_before.clone(),
            not_ordinal_after: rules.not_ordinal_after.clone(),
            number_words: rules.number_words.clone(),
            months: rules.months.clone(),
            month_after: rules.month_after.clone(),
            weekdays: rules.weekdays.clone(),
            age_before: rules.age_before.clone(),
            not_nouns: rules.not_nouns.clone(),
        });
        Ok(Conflation {
            ignore: std::mem::take(&mut rules.ignore).into_iter().collect(),
            finder,
            cues: entity.automatic.unwrap_or(NameCues {
                not_names: Vec::new(),
                joiners: Vec::new(),
                kinds: Vec::new(),
                fingerprint: Default::default(),
            }),
            rules,
        })
    }

    /// The names of the passages (of the kinds the rules name) that `text` mentions, as values.
    fn names_in(&self, text: &str, names: &[super::words::Name]) -> Vec<Value> {
        let mut out: Vec<Value> = Vec::new();
        let mut by_len: Vec<&super::words::Name> = names
            .iter()
            .filter(|n| self.rules.name_kinds.contains(&n.kind))
            .collect();
        by_len.sort_by_key(|n| std::cmp::Reverse(n.text.len()));
        for n in by_len {
            if let Some((mut s, e)) = find_name(text, &n.text, 0) {
                // "Guard Marcus Lee scored": a role opening the sentence is no part of the name
                let words: Vec<&str> = text[s..e].split(' ').collect();
                if n.kind == "person" && words.len() >= 3 && text[..s].trim().is_empty() {
                    s += words[0].len() + 1;
                }
                if !out.iter().any(|v| s < v.span.1 && v.span.0 < e) {
                    out.push(Value {
                        span: (s, e),
                        num: (s, e),
                        kind: Kind::Name(n.kind.clone()),
                        key: text[s..e].to_lowercase(),
                        size: None,
                        inner: false,
                    });
                }
            }
        }
        out
    }

    /// The words of `text` that say what it is about: stems, without numbers and ignored words.
    fn content(&self, text: &str) -> WordSet<String> {
        crate::text::tokens::tokenize(text)
            .into_iter()
            .filter(|t| t.number.is_none() && t.norm.len() > 2)
            .filter(|t| !self.ignore.contains(&t.norm))
            .map(|t| t.norm)
            .collect()
    }

    /// Which way a numeric value of the claim may move: +1 larger only, -1 smaller only, 0 any.
    fn bound(&self, claim: &str, at: usize) -> i8 {
        let before = claim[..at].trim_end().to_lowercase();
        let ends = |p: &String| {
            before.ends_with(p.as_str())
                && before[..before.len() - p.len()]
                    .chars()
                    .next_back()
                    .is_none_or(|c| !c.is_alphanumeric())
        };
        if self.rules.larger_after.iter().any(ends) {
            1
        } else if self.rules.smaller_after.iter().any(ends) {
            -1
        } else {
            0
        }
    }
}

/// Whether `a` is the same value as `b`: what a sentence must hold to support the claim's `a`.
fn same_value(a: &Value, b: &Value, units: &[String]) -> bool {
    if a.key != b.key {
        return false;
    }
    match (&a.kind, &b.kind) {
        // "900 employees" is "900 people"; "14 days" is never "14 weeks"
        (Kind::Count(x), Kind::Count(y)) => x == y || !(units.contains(x) || units.contains(y)),
        (Kind::Date { .. }, Kind::Date { .. }) => true,
        (x, y) => x == y,
    }
}

/// Whether the number of `v` in `text` is written in digits.
fn digits(text: &str, v: &Value) -> bool {
    text[v.num.0..].starts_with(|c: char| c.is_ascii_digit())
}

/// `a` wrapped into the case of `like`: a capital where it had one, and a word that was
/// capitalised only to open its sentence written small inside one.
fn case_like(a: &str, like: &str, word: bool) -> String {
    let upper = like.chars().next().is_some_and(char::is_uppercase);
    if upper {
        crate::text::words::capitalised(a)
    } else if word {
        let mut c = a.chars();
        c.next()
            .map(|f| f.to_lowercase().collect::<String>() + c.as_str())
            .unwrap_or_default()
    } else {
        a.to_string()
    }
}

/// `a` or `an` for a word, by how it is said.
fn article_for(word: &str) -> &'static str {
    let w = word.to_lowercase();
    let vowel = w.starts_with(['a', 'e', 'i', 'o'])
        || (w.starts_with('u') && !w.starts_with("uni") && !w.starts_with("use"))
        || w.starts_with('8')
        || ((w.starts_with("11") || w.starts_with("18"))
            && !w[2..].starts_with(|c: char| c.is_ascii_digit()));
    if vowel {
        "an"
    } else {
        "a"
    }
}

/// What `conflation` reads of a context's passages: the same for each of its claims, so it is
/// kept in the context's shared reading, and a long passage is read once, not once per claim.
struct Passages {
    names: std::sync::Arc<Vec<super::words::Name>>,
    /// Each sentence as (passage, start, end) in bytes.
    sentences: Vec<(usize, usize, usize)>,
    /// Each sentence's values and names.
    found: Vec<Vec<Value>>,
    /// Each sentence's words ([`Conflation::content`]), read the first time a claim needs them.
    content: Vec<std::sync::OnceLock<WordSet<String>>>,
}

/// The claim and its passages as `conflation` reads them.
struct Reading<'a> {
    claim: &'a str,
    /// The claim in small letters, to find a name's words in.
    lower: String,
    sentences: Vec<&'a str>,
    /// Each sentence's values and names.
    found: &'a [Vec<Value>],
    /// Each sentence's words, as [`Passages::content`].
    content: &'a [std::sync::OnceLock<WordSet<String>>],
    /// The claim's words ([`Conflation::content`]), to find the sentence nearest it.
    words: WordSet<String>,
    /// Every value of the claim (those inside a date too) and its names.
    held: Vec<Value>,
    /// The stems of the time units.
    units: Vec<String>,
}

impl Conflation {
    /// The value of another sentence to put in place of `slot`: of its kind, from a sentence that
    /// does not state the claim's value, the nearest to the claim's words.
    fn candidate<'r>(&self, r: &'r Reading, slot: &Value) -> Option<(usize, &'r Value)> {
        let units = &r.units;
        let supporting: Vec<usize> = (0..r.sentences.len())
            .filter(|&i| r.found[i].iter().any(|v| same_value(slot, v, units)))
            .collect();
        // which sentences state it, by index: a look-up per sentence, never a scan (a passage
        // may have thousands of sentences that all state it)
        let mut supports = vec![false; r.sentences.len()];
        for &i in &supporting {
            supports[i] = true;
        }
        if supporting.is_empty() {
            return None; // the passages do not state it (a derived or rewritten value)
        }
        // the nouns the supporting sentences count the same thing with
        let nouns: Vec<&String> = supporting
            .iter()
            .flat_map(|&i| &r.found[i])
            .filter(|v| same_value(slot, v, units))
            .filter_map(|v| match &v.kind {
                Kind::Count(n) => Some(n),
                _ => None,
            })
            .collect();
        let bound = if slot.kind.numeric() {
            self.bound(r.claim, slot.span.0)
        } else {
            0
        };
        let fits = |i: usize, v: &Value| -> bool {
            let kind = match (&slot.kind, &v.kind) {
                // a count in words takes one in words, digits take digits ("one or two
                // tablets", never "one or 8 tablets")
                (Kind::Count(a), Kind::Count(b)) => {
                    (a == b || (!units.contains(a) && nouns.contains(&b)))
                        && digits(r.claim, slot) == digits(r.sentences[i], v)
                }
                (a, b) => a == b,
            };
            // a value the claim already holds ("from 34% to 34%"), or a name that shares a
            // word with one of its names ("Khan" for "Amira Khan")
            let claimed = r.held.iter().any(|c| {
                c.key == v.key && std::mem::discriminant(&c.kind) == std::mem::discriminant(&v.kind)
            });
            let shares = matches!(v.kind, Kind::Name(_))
                && v.key
                    .split_whitespace()
                    .any(|w| w.chars().count() > 2 && find_word(&r.lower, w, 0).is_some());
            let bounded = match (bound, slot.size, v.size) {
                (1, Some(a), Some(b)) => b > a,
                (-1, Some(a), Some(b)) => b < a,
                _ => true,
            };
            kind && v.key != slot.key && !claimed && !shares && bounded
        };
        let candidates: Vec<(usize, &Value)> = (0..r.sentences.len())
            .filter(|i| !supports[*i])
            .flat_map(|i| {
                r.found[i]
                    .iter()
                    .filter(move |v| fits(i, v))
                    .map(move |v| (i, v))
            })
            .collect();
        // the sentence nearest the claim's words (read only for the sentences with a candidate);
        // in a tie the first, and its first value
        let mut overlap: std::collections::HashMap<usize, usize> = Default::default();
        for (i, _) in &candidates {
            overlap.entry(*i).or_insert_with(|| {
                r.content[*i]
                    .get_or_init(|| self.content(r.sentences[*i]))
                    .intersection(&r.words)
                    .count()
            });
        }
        candidates.into_iter().max_by_key(|(i, v)| {
            (
                overlap[i],
                std::cmp::Reverse(*i),
                std::cmp::Reverse(v.span.0),
            )
        })
    }
}

impl Conflation {
    /// What `conflation` reads of the input's passages. Their names are the context's shared
    /// ones ([`NameCues::in_passages`]), found once for every operator with these cues.
    fn read(&self, input: &Input<'_>) -> Passages {
        let passages = input.passages;
        let names = self.cues.in_passages(input);
        let mut sentences = Vec::new();
        for (i, (p, split)) in passages.iter().zip(input.sentences().iter()).enumerate() {
            for s in split {
                let at = s.as_ptr() as usize - p.as_ptr() as usize;
                sentences.push((i, at, at + s.len()));
            }
        }
        // the values of each passage, found once over its whole text (a search per sentence
        // costs a passage of thousands of sentences dearly) and given to the sentence they are in
        let mut found: Vec<Vec<Value>> = vec![Vec::new(); sentences.len()];
        for (i, p) in passages.iter().enumerate() {
            let mine: Vec<usize> = (0..sentences.len())
                .filter(|&k| sentences[k].0 == i)
                .collect();
            for mut v in self.finder.find(p) {
                let at = mine.partition_point(|&k| sentences[k].2 <= v.span.0);
                let Some(&k) = mine.get(at) else {
                    continue;
                };
                let (_, a, b) = sentences[k];
                if v.span.0 < a || v.span.1 > b {
                    continue; // across two sentences: no value of either
                }
                v.span = (v.span.0 - a, v.span.1 - a);
                v.num = (v.num.0 - a, v.num.1 - a);
                found[k].push(v);
            }
        }
        for (k, &(i, a, b)) in sentences.iter().enumerate() {
            found[k].extend(self.names_in(&passages[i][a..b], &names));
        }
        Passages {
            content: (0..sentences.len()).map(|_| Default::default()).collect(),
            found,
            names,
            sentences,
        }
    }
}

impl Mutator for Conflation {
    fn mutate(&self, input: &Input<'_>) -> Vec<String> {
        let claim = input.claim;
        let held = self.finder.find(claim);
        let mut slots: Vec<Value> = held.iter().filter(|v| !v.inner).cloned().collect();
        let passages = input.memo(0, || self.read(input));
        let claim_names = self.names_in(claim, &passages.names);
        for n in &claim_names {
            if !slots
                .iter()
                .any(|v| n.span.0 < v.span.1 && v.span.0 < n.span.1)
            {
                slots.push(n.clone());
            }
        }
        if slots.is_empty() {
            return Vec::new();
        }
        slots.sort_by_key(|v| v.span);
        let reading = Reading {
            claim,
            lower: crate::text::words::lowercase(claim),
            sentences: passages
                .sentences
                .iter()
                .map(|&(i, a, b)| &input.passages[i][a..b])
                .collect(),
            found: &passages.found,
            content: &passages.content,
            words: self.content(claim),
            held: held.into_iter().chain(claim_names).collect(),
            units: self
                .rules
                .time_units
                .iter()
                .map(|u| crate::text::tokens::stem(u))
                .collect(),
        };
        let mut out: Vec<String> = Vec::new();
        for slot in &slots {
            let Some((i, cand)) = self.candidate(&reading, slot) else {
                continue;
            };
            if let Some(text) = self.rewrite(claim, slot, reading.sentences[i], cand) {
                if text != claim && !out.contains(&text) {
                    out.push(text);
                }
            }
        }
        out
    }
}

impl Conflation {
    /// The claim with the value `slot` replaced by `cand`, found in `sentence`.
    fn rewrite(&self, claim: &str, slot: &Value, sentence: &str, cand: &Value) -> Option<String> {
        let whole = |v: &Value| &sentence[v.span.0..v.span.1];
        let number = |v: &Value| &sentence[v.num.0..v.num.1];
        let (at, end, new) = match (&slot.kind, &cand.kind) {
            // the same thing counted: the passages' words, noun and all ("1 day", not "1 days")
            (Kind::Count(a), Kind::Count(b)) if a == b => {
                (slot.span.0, slot.span.1, whole(cand).to_string())
            }
            (Kind::Count(_), _) => {
                if cand.size == Some(1.0) {
                    return None; // "1 employees"
                }
                (slot.num.0, slot.num.1, number(cand).to_string())
            }
            (Kind::Percent | Kind::Money(..) | Kind::Age, _) => {
                (slot.num.0, slot.num.1, number(cand).to_string())
            }
            _ => (slot.span.0, slot.span.1, whole(cand).to_string()),
        };
        let old = &claim[at..end];
        let word = matches!(slot.kind, Kind::Ordinal { word: true } | Kind::Count(_));
        let new = if matches!(slot.kind, Kind::Name(_)) {
            new
        } else {
            case_like(&new, old, word)
        };
        let mut before = claim[..at].to_string();
        // "a fourteenth album" -> "an eighth album"
        let trimmed = before.trim_end_matches(' ');
        let last = trimmed.rsplit(' ').next().unwrap_or("");
        if ["a", "an", "A", "An"].contains(&last) && trimmed.len() < before.len() {
            let art = article_for(&new);
            let art = if last.starts_with('A') {
                crate::text::words::capitalised(art)
            } else {
                art.to_string()
            };
            before = format!("{}{art} ", &trimmed[..trimmed.len() - last.len()]);
        }
        Some(format!("{before}{new}{}", &claim[end..]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn m(claim: &str, passages: &[&str]) -> Vec<String> {
        Conflation::load(Path::new("c.yaml"), OPERATOR.builtin)
            .unwrap()
            .mutate(&Input {
                passages,
                ..Input::bare(claim)
            })
    }

    /// Every word of every mutant is a word of the claim or of its passages.
    fn only_their_words(claim: &str, passages: &[&str], got: &[String]) {
        let known: HashSet<String> = std::iter::once(claim)
            .chain(passages.iter().copied())
            .flat_map(|t| {
                crate::text::tokens::tokenize(t)
                    .into_iter()
                    .map(move |k| t[k.start..k.end].to_lowercase())
            })
            .collect();
        for g in got {
            for t in crate::text::tokens::tokenize(g) {
                let w = g[t.start..t.end].to_lowercase();
                assert!(
                    known.contains(&w),
                    "{g:?} has {w:?}, a word of neither the claim nor the passages"
                );
            }
        }
    }

    #[test]
    fn a_value_of_another_sentence_takes_the_place_of_the_claims() {
        let p = ["Annual Enterprise contracts can be refunded in full within 14 days of signing; after that they are not refundable. Export links expire after 7 days."];
        assert_eq!(
            m("Export links expire after 7 days.", &p),
            vec!["Export links expire after 14 days."]
        );
        assert_eq!(
            m(
                "Annual Enterprise contracts are not refundable after 14 days.",
                &p
            ),
            vec!["Annual Enterprise contracts are not refundable after 7 days."]
        );
        // "within 7 days" would still be true of a 14-day window: a limit only grows
        assert!(m(
            "Annual Enterprise contracts can be refunded in full within 14 days of signing.",
            &p
        )
        .is_empty());
    }

    #[test]
    fn an_age_a_year_or_an_ordinal_of_another_event_is_attached_to_this_one() {
        // the real errors: "Sir Paul, then 59, went through a divorce in 2008", where 59 was his
        // age at the wedding; "James Taylor's fourteenth studio album" for another album
        let p = ["Sir Paul, then 59, married Heather Mills in June 2002. The couple divorced in 2008, when Sir Paul, aged 65, was on tour."];
        let claim = "Sir Paul, aged 65, went through a divorce in 2008.";
        let got = m(claim, &p);
        assert_eq!(
            got,
            vec![
                "Sir Paul, aged 59, went through a divorce in 2008.",
                "Sir Paul, aged 65, went through a divorce in 2002.",
            ]
        );
        only_their_words(claim, &p, &got);
        let p = ["Hourglass, released in 1997, is the fourteenth studio album by James Taylor. His fifteenth album, October Road, followed in 2002."];
        let claim = "Hourglass is James Taylor's fourteenth studio album.";
        assert_eq!(
            m(claim, &p),
            vec!["Hourglass is James Taylor's fifteenth studio album."]
        );
        // the article follows the new ordinal
        let p = [
            "Leeds won a third league title in 2019. Their eighth cup final came two years later.",
        ];
        let got = m("Leeds won a third league title in 2019.", &p);
        assert_eq!(got, vec!["Leeds won an eighth league title in 2019."]);
    }

    #[test]
    fn amounts_percentages_days_and_names_come_from_the_sentence_nearest_the_claim() {
        let p = ["Nordvik Foods has agreed to acquire the Danish snack maker Krisp A/S for €410 million, the companies said on Monday. Krisp's sales grew by 12% last year to €188 million."];
        let claim = "Nordvik Foods agreed to buy Krisp A/S for €410 million.";
        let got = m(claim, &p);
        assert!(
            got.contains(&"Nordvik Foods agreed to buy Krisp A/S for €188 million.".to_string()),
            "{got:?}"
        );
        only_their_words(claim, &p, &got);
        // the claim writes "€188m": the new amount keeps the claim's way of writing it
        let got = m("Krisp's sales rose 12 per cent last year to €188m.", &p);
        assert!(
            got.contains(&"Krisp's sales rose 12 per cent last year to €410m.".to_string()),
            "{got:?}"
        );
        let p = ["SkyLink Airways carried 4.2 million passengers in July, up 17 per cent on a year earlier. It filled 93% of its seats, the highest load factor in its history."];
        assert_eq!(
            m("SkyLink filled 93% of its seats.", &p),
            vec!["SkyLink filled 17% of its seats."]
        );
        let p = ["The river burst its banks early on Sunday. A rest centre was opened at St Mark's School and will stay open until Tuesday."];
        assert_eq!(
            m(
                "The rest centre at St Mark's School will stay open until Tuesday.",
                &p
            ),
            vec!["The rest centre at St Mark's School will stay open until Sunday."]
        );
        // a person of another sentence takes the place of the one the claim quotes
        let p = ["The Green Party's Amira Khan won the Hollins ward with 1,842 votes. Labour's candidate, Peter Doyle, came second with 1,310 votes. Khan said residents had voted for change."];
        let got = m("Peter Doyle finished second with 1,310 votes.", &p);
        assert!(
            got.contains(&"Amira Khan finished second with 1,310 votes.".to_string()),
            "{got:?}"
        );
        assert!(
            got.contains(&"Peter Doyle finished second with 1,842 votes.".to_string()),
            "{got:?}"
        );
    }

    #[test]
    fn no_mutant_without_a_value_the_passages_state_and_one_of_the_same_kind_elsewhere() {
        // one sentence: nothing to mix up
        assert!(m(
            "Turnout was 27%.",
            &["Turnout was 27 per cent, down from 34 per cent."]
        )
        .is_empty());
        // the claim's value is its own (derived): not the passages'
        assert!(m(
            "Turnout fell by 7 points.",
            &["Turnout was 27%. In 2022 it was 34%."]
        )
        .is_empty());
        // a count of another thing is no candidate: homes are not people
        let p = ["At least 60 homes were flooded. Fire crews rescued 14 people by boat."];
        assert!(m("At least 60 homes were flooded.", &p).is_empty());
        // after "at least" only a larger count: "at least 150 runners" would still be true
        let p = ["At least 200 runners were treated for heat exhaustion. Another 150 runners dropped out."];
        assert!(m("At least 200 runners were treated for heat exhaustion.", &p).is_empty());
        // a rate's denominator, an expression and a clock time are no values
        let p = [
            "Headache may affect more than 1 in 10 people. About 40 people in the trial had one.",
        ];
        assert!(m("Headache may affect more than 1 in 10 people.", &p).is_empty());
        let p = ["The Greens won the seat for the first time. Labour came second."];
        assert!(m("The Greens won the seat for the first time.", &p).is_empty());
        // a count in words takes one in words: never "one or 8 tablets"
        let p = ["Adults can take one or two tablets every 4 hours. Do not take more than 8 tablets in 24 hours."];
        let got = m("Adults can take one or two tablets every 4 hours.", &p);
        assert!(got.iter().all(|g| !g.contains("or 8")), "{got:?}");
    }

    #[test]
    fn a_contexts_reading_is_kept_for_its_next_claim_and_never_lent_to_another() {
        let op = Conflation::load(Path::new("c.yaml"), OPERATOR.builtin).unwrap();
        let m = |claim: &str, passages: &[&str]| {
            op.mutate(&Input {
                passages,
                ..Input::bare(claim)
            })
        };
        let a = ["Export links expire after 7 days. Refunds are paid within 14 days."];
        let b = ["Export links expire after 30 days. Refunds are paid within 60 days."];
        for _ in 0..2 {
            assert_eq!(
                m("Export links expire after 7 days.", &a),
                ["Export links expire after 14 days."]
            );
            assert_eq!(
                m("Export links expire after 30 days.", &b),
                ["Export links expire after 60 days."]
            );
        }
    }

    #[test]
    fn lower_cased_text_and_a_month_that_is_a_verb() {
        let p = ["the river ashby burst its banks early on sunday. a rest centre will stay open until tuesday."];
        assert_eq!(
            m("the rest centre will stay open until tuesday.", &p),
            vec!["the rest centre will stay open until sunday."]
        );
        // "may" the verb is no month
        let p = ["Prices may rise in March. The plant closed in June."];
        assert!(m("Prices may rise.", &p).is_empty());
        assert_eq!(
            m("Prices may rise in March.", &p),
            vec!["Prices may rise in June."]
        );
    }
}
