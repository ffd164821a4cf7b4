//! `name_part`: an invented part of a name, or an invented modifier. Where the claim calls a
//! person of its passages by the surname alone, a first name the passages never give goes before
//! it ("Clarkson said" -> "David Clarkson said"); where a noun of the rule file follows an article
//! or a preposition, an adjective the passages never use goes before it ("the budget" -> "the
//! annual budget"). Either way one word the passages do not support reads as if it belonged.

use super::rules::parse;
use super::words::NameCues;
use super::{Hay, Input, Mutator, Operator, Purpose};
use crate::error::Result;
use crate::text::words::find_word;
use serde::Deserialize;
use std::path::Path;

pub const OPERATOR: Operator = Operator {
    name: "name_part",
    purpose: Purpose::Fault,
    stands_for: "an invented name part or modifier: a first name the passages never give, an adjective they never use",
    typologies: "FRANK OutE/EntE; RAGTruth subtle baseless info; FaithBench extrinsic; TofuEval extrinsic information",
    rules: "name_part.yaml",
    builtin: include_str!("../../mutators/name_part.yaml"),
    build: |path, text| Ok(Box::new(NamePart::load(path, text)?)),
    example: [
        "Lopez approved the budget.",
        "Anna Lopez approved the budget.",
    ],
};

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Gendered {
    #[serde(default)]
    female: Vec<String>,
    #[serde(default)]
    male: Vec<String>,
    #[serde(default)]
    either: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Adjective {
    adjective: String,
    nouns: Vec<String>,
    /// A claim this matches does not take the adjective.
    #[serde(default)]
    unless: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Rules {
    first_names: Gendered,
    titles: Gendered,
    pronouns: Gendered,
    #[serde(default)]
    adjectives: Vec<Adjective>,
    #[serde(default)]
    after: Vec<String>,
}

/// Who a person is, as far as the passages say.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Gender {
    Female,
    Male,
    Unknown,
}

pub struct NamePart {
    rules: Rules,
    /// Each adjective's compiled `unless`, in the rules' order.
    unless: Vec<Option<regex::Regex>>,
    /// How names are found: the same cues `entity_swap` uses.
    cues: NameCues,
}

/// `entity_swap`'s rule file: where the name cues live.
#[derive(Debug, Clone, Deserialize)]
struct EntityRules {
    automatic: Option<NameCues>,
}

/// A number chosen by `key`: the same claim always gets the same word, claims get different ones.
fn pick(key: &str, n: usize) -> usize {
    let h = crate::text::hash::sha256_hex(key.as_bytes(), 4);
    usize::from_str_radix(&h[..8], 16).unwrap_or(0) % n.max(1)
}

/// Whether `word` is a word of the passages or the claim (`hay`), ignoring case.
fn uses(hay: &Hay<'_>, word: &str) -> bool {
    let w = word.to_lowercase();
    hay.uses(&w) || (w.contains('-') && hay.uses(&w.replace('-', " ")))
}

impl NamePart {
    fn load(path: &Path, text: &str) -> Result<NamePart> {
        let rules: Rules = parse(path, text)?;
        let lists = [&rules.first_names, &rules.titles, &rules.pronouns];
        if lists
            .iter()
            .flat_map(|g| g.female.iter().chain(&g.male).chain(&g.either))
            .chain(
                rules
                    .adjectives
                    .iter()
                    .flat_map(|a| std::iter::once(&a.adjective).chain(&a.nouns)),
            )
            .chain(&rules.after)
            .any(|w| crate::text::words::is_blank(w))
        {
            return Err(super::rules::empty_word_error(path, text, "a word"));
        }
        let entity: EntityRules = parse(
            Path::new(super::entity_swap::OPERATOR.rules),
            super::entity_swap::OPERATOR.builtin,
        )
        .expect("the built-in entity_swap rules parse");
        let unless = rules
            .adjectives
            .iter()
            .map(|a| {
                a.unless
                    .as_deref()
                    .map(|p| {
                        regex::Regex::new(p).map_err(|e| {
                            crate::error::Error::input(
                                path,
                                super::rules::line_of(text, &|l| l.contains(p)),
                                format!("`{p}` is not a valid regular expression: {e}"),
                                "fix the regex (Rust `regex` syntax: no look-around or back-references)",
                            )
                        })
                    })
                    .transpose()
            })
            .collect::<Result<_>>()?;
        Ok(NamePart {
            unless,
            rules,
            cues: entity.automatic.unwrap_or(NameCues {
                not_names: Vec::new(),
                joiners: Vec::new(),
                kinds: Vec::new(),
                fingerprint: Default::default(),
            }),
        })
    }

    /// The person titles of the name cues ("Dr", "striker"): never a first name.
    fn is_title(&self, w: &str) -> bool {
        let t = &self.rules.titles;
        t.female
            .iter()
            .chain(&t.male)
            .chain(&t.either)
            .any(|x| x.eq_ignore_ascii_case(w))
            || self
                .cues
                .kinds
                .iter()
                .filter(|k| k.kind == "person")
                .flat_map(|k| &k.before)
                .any(|x| x.eq_ignore_ascii_case(w))
    }

    /// What the passages' pronouns say of the person `surname`: those after each mention in its
    /// sentence and in the next one, up to the next other person named.
    fn gender(&self, surname: &str, passages: &[&str], others: &[String]) -> Gender {
        let (mut f, mut m) = (0, 0);
        for p in passages {
            let sentences = crate::text::sentences::split_sentences(p);
            for (i, s) in sentences.iter().enumerate() {
                let Some(at) = find_word(s, surname, 0) else {
                    continue;
                };
                let after = &s[at + surname.len()..];
                let next = sentences.get(i + 1).copied().unwrap_or("");
                for part in [after, next] {
                    let cut = others
                        .iter()
                        .filter_map(|o| find_word(part, o, 0))
                        .min()
                        .unwrap_or(part.len());
                    for t in crate::text::tokens::tokenize(&part[..cut]) {
                        let w = part[t.start..t.end].to_lowercase();
                        f += usize::from(self.rules.pronouns.female.contains(&w));
                        m += usize::from(self.rules.pronouns.male.contains(&w));
                    }
                }
            }
        }
        match (f > 0, m > 0) {
            (true, false) => Gender::Female,
            (false, true) => Gender::Male,
            _ => Gender::Unknown,
        }
    }

    /// The claim with a first name added before a surname it uses alone, if any.
    fn first_name(&self, input: &Input<'_>, hay: &Hay<'_>) -> Option<String> {
        let claim = input.claim;
        let names = self.cues.in_passages(input);
        let persons: Vec<&str> = names
            .iter()
            .filter(|n| n.kind == "person")
            .map(|n| n.text.as_str())
            .collect();
        let mut borrowed: Option<Vec<String>> = None;
        for person in &persons {
            let words: Vec<&str> = person.split_whitespace().collect();
            let Some(&surname) = words.last() else {
                continue;
            };
            if surname.chars().count() < 2
                || !surname.chars().all(char::is_alphabetic)
                || !surname.starts_with(char::is_uppercase)
                || self.is_title(surname)
            {
                continue;
            }
            let Some(at) = find_word(claim, surname, 0) else {
                continue;
            };
            let before = claim[..at].trim_end();
            let prev = before.rsplit(' ').next().unwrap_or("");
            let next = claim[at + surname.len()..]
                .trim_start_matches(['\'', '’'])
                .trim_start_matches('s')
                .trim_start();
            // "Amira Khan" already has a first name; "Khan Foods" is another name
            let capital = |w: &str| w.starts_with(char::is_uppercase);
            let title = capital(prev) && self.is_title(prev.trim_end_matches('.'));
            if (capital(prev) && !title && !before.ends_with([',', ';', ':', '(', '"', '“']))
                || (next.starts_with(char::is_uppercase)
                    && !claim[at + surname.len()..].starts_with([',', '.', ';']))
            {
                continue;
            }
            let t = &self.rules.titles;
            let has = |l: &[String]| l.iter().any(|x| x == prev.trim_end_matches('.'));
            let gender = if title && has(&t.female) {
                Gender::Female
            } else if title && has(&t.male) {
                Gender::Male
            } else {
                let others: Vec<String> = persons
                    .iter()
                    .filter(|o| !o.split_whitespace().any(|w| w == surname))
                    .flat_map(|o| o.split_whitespace().map(str::to_string))
                    .collect();
                self.gender(surname, input.passages, &others)
            };
            // a name the passages give alone may be anything ("Varno said its", "Police in Harrow
            // said they"): a person only with a full name, a title or a pronoun for them
            let full = persons.iter().any(|o| {
                let w: Vec<&str> = o
                    .split_whitespace()
                    .skip_while(|w| self.is_title(w))
                    .collect();
                w.len() >= 2 && w.last() == Some(&surname)
            });
            if !full && !title && gender == Gender::Unknown {
                continue;
            }
            let borrowed = borrowed.get_or_insert_with(|| self.borrowed(input));
            let key = format!("{claim}\0{surname}");
            let Some(first) = self.choose(gender, borrowed, hay, &key) else {
                continue;
            };
            return Some(format!("{}{first} {}", &claim[..at], &claim[at..]));
        }
        None
    }

    /// The first names of the persons the suite's other contexts name: after the last title
    /// ("Transport Secretary Helen Ward"), two words are a first name and a surname, and a longer
    /// name counts only when it starts with a listed first name ("Swimmer Julia Marsh" opens a
    /// sentence with a role).
    fn borrowed(&self, input: &Input<'_>) -> Vec<String> {
        let f = &self.rules.first_names;
        self.cues
            .in_elsewhere(input)
            .into_iter()
            .filter(|n| n.kind == "person")
            .filter_map(|n| {
                let words: Vec<&str> = n.text.split_whitespace().collect();
                let start = words
                    .iter()
                    .rposition(|w| self.is_title(w))
                    .map_or(0, |i| i + 1);
                let words = &words[start..];
                let first = *words.first()?;
                let known = f
                    .female
                    .iter()
                    .chain(&f.male)
                    .chain(&f.either)
                    .any(|l| l == first);
                let fits = words.len() == 2 || (words.len() > 2 && known);
                (fits && first.chars().count() >= 3 && first.chars().all(char::is_alphabetic))
                    .then(|| first.to_string())
            })
            .collect()
    }

    /// A first name for a person of `gender` that the passages and the claim (`hay`) never use:
    /// one of the suite's where one fits (a name of the wrong list never does), else a listed
    /// one, chosen by `key`.
    fn choose(
        &self,
        gender: Gender,
        borrowed: &[String],
        hay: &Hay<'_>,
        key: &str,
    ) -> Option<String> {
        let f = &self.rules.first_names;
        let listed: Vec<&String> = match gender {
            Gender::Female => f.female.iter().chain(&f.either).collect(),
            Gender::Male => f.male.iter().chain(&f.either).collect(),
            Gender::Unknown => f.female.iter().chain(&f.male).chain(&f.either).collect(),
        };
        let fresh = |n: &str| !uses(hay, n);
        let borrowed: Vec<&String> = borrowed
            .iter()
            .filter(|b| gender == Gender::Unknown || listed.contains(b))
            .filter(|b| fresh(b))
            .collect();
        let listed: Vec<&String> = listed.into_iter().filter(|n| fresh(n)).collect();
        let from = if borrowed.is_empty() {
            listed
        } else {
            borrowed
        };
        (!from.is_empty()).then(|| from[pick(key, from.len())].clone())
    }

    /// The claim with an adjective the passages never use before one of its nouns, if one fits.
    fn adjective(&self, claim: &str, hay: &Hay<'_>) -> Option<String> {
        let mut fits: Vec<(usize, usize, &str)> = Vec::new();
        let lower = claim.to_lowercase();
        let words = super::words::Words::of(&lower);
        for (a, unless) in self.rules.adjectives.iter().zip(&self.unless) {
            if uses(hay, &a.adjective) || unless.as_ref().is_some_and(|u| u.is_match(claim)) {
                continue;
            }
            for noun in &a.nouns {
                // most nouns are not words of the claim: ruled out without a search
                if !words.may_hold(noun) {
                    continue;
                }
                let Some(at) = find_word(&lower, noun, 0) else {
                    continue;
                };
                let end = at + noun.len();
                let before = claim[..at].trim_end();
                let prev = before.rsplit(' ').next().unwrap_or("").to_lowercase();
                let opens = before.is_empty();
                let after_ok = self.rules.after.contains(&prev)
                    || (!prev.is_empty() && prev.chars().all(|c| c.is_ascii_digit() || c == ','));
                // "to review the plan": the noun is a verb there
                let next = lower[end..]
                    .trim_start()
                    .split(|c: char| !c.is_alphanumeric())
                    .next()
                    .unwrap_or("")
                    .to_string();
                let verb = [
                    "the", "a", "an", "its", "their", "his", "her", "this", "that", "these",
                    "those", "our", "your",
                ]
                .contains(&next.as_str());
                if (opens || after_ok) && !verb {
                    fits.push((at, end, a.adjective.as_str()));
                }
            }
        }
        if fits.is_empty() {
            return None;
        }
        fits.sort();
        let (at, end, adj) = fits[pick(claim, fits.len())];
        let noun = &claim[at..end];
        let before = &claim[..at];
        let (before, adj, noun) =
            if before.trim().is_empty() && noun.starts_with(char::is_uppercase) {
                // "Officials said" -> "Senior officials said"
                (
                    before.to_string(),
                    crate::text::words::capitalised(adj),
                    noun.to_lowercase(),
                )
            } else {
                (before.to_string(), adj.to_string(), noun.to_string())
            };
        // "a annual report" -> "an annual report"
        let trimmed = before.trim_end();
        let last = trimmed.rsplit(' ').next().unwrap_or("");
        let before = if ["a", "an", "A", "An"].contains(&last) && trimmed.len() < before.len() {
            let vowel = adj.to_lowercase().starts_with(['a', 'e', 'i', 'o', 'u']);
            let art = match (vowel, last.starts_with('A')) {
                (true, false) => "an",
                (false, false) => "a",
                (true, true) => "An",
                (false, true) => "A",
            };
            format!("{}{art} ", &trimmed[..trimmed.len() - last.len()])
        } else {
            before
        };
        Some(format!("{before}{adj} {noun}{}", &claim[end..]))
    }
}

impl Mutator for NamePart {
    fn mutate(&self, input: &Input<'_>) -> Vec<String> {
        // the passages (read once for the context's claims) and the claim, lower-cased
        let hay = input.hay();
        let mut out: Vec<String> = Vec::new();
        out.extend(self.first_name(input, &hay));
        out.extend(self.adjective(input.claim, &hay));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(claim: &str, passages: &[&str], elsewhere: &[&str]) -> Vec<String> {
        NamePart::load(Path::new("n.yaml"), OPERATOR.builtin)
            .unwrap()
            .mutate(&Input {
                passages,
                elsewhere,
                ..Input::bare(claim)
            })
    }

    fn rules() -> Rules {
        parse(Path::new("n.yaml"), OPERATOR.builtin).unwrap()
    }

    /// The word the mutant added before `before` in `claim`.
    fn added(claim: &str, mutant: &str, before: &str) -> String {
        let at = mutant.find(before).unwrap();
        assert_eq!(
            &mutant[at..],
            &claim[claim.find(before).unwrap()..],
            "{mutant}"
        );
        mutant[..at].trim().rsplit(' ').next().unwrap().to_string()
    }

    #[test]
    fn a_surname_the_passages_give_alone_gets_a_first_name_they_never_give() {
        let p = ["Top Gear will return next year, Clarkson said on Monday. He added that filming starts in May."];
        let claim = "Clarkson said Top Gear would return next year.";
        let got = m(claim, &p, &[]);
        assert_eq!(got.len(), 1, "{got:?}");
        // a man's first name (the passages say "he"), before the surname, nothing else changed
        let first = added(claim, &got[0], "Clarkson said");
        let r = rules();
        assert!(
            r.first_names
                .male
                .iter()
                .chain(&r.first_names.either)
                .any(|f| *f == first),
            "{got:?}"
        );
        // a woman's where the passages say "she"
        let p = ["\"We expect a decision by June,\" Okafor said, adding that she had asked for more time."];
        let got = m("Okafor said she expected a decision by June.", &p, &[]);
        let first = added(
            "Okafor said she expected a decision by June.",
            &got[0],
            "Okafor",
        );
        assert!(
            r.first_names
                .female
                .iter()
                .chain(&r.first_names.either)
                .any(|f| *f == first),
            "{got:?}"
        );
        // after a title, the first name goes between: "Dr Priya Nair", "Mrs Anna Hale"
        let p = ["The trial was stopped early, Dr Nair said."];
        let got = m("Dr Nair said the trial was stopped early.", &p, &[]);
        assert!(
            got[0].starts_with("Dr ")
                && got[0].ends_with(" Nair said the trial was stopped early."),
            "{got:?}"
        );
        let p = ["The tenant, Mrs Hale, won her appeal at the tribunal."];
        let got = m("Mrs Hale won her appeal.", &p, &[]);
        let first = added("Mrs Hale won her appeal.", &got[0], "Hale won");
        assert!(
            r.first_names
                .female
                .iter()
                .chain(&r.first_names.either)
                .any(|f| *f == first),
            "{got:?}"
        );
    }

    #[test]
    fn a_first_name_is_never_the_one_the_passages_give_and_comes_from_the_suite_where_one_fits() {
        let p = ["The Green Party's Amira Khan won the Hollins ward. Khan said residents had voted for cleaner streets."];
        let claim = "Khan said residents had voted for cleaner streets.";
        let got = m(claim, &p, &[]);
        assert_eq!(got.len(), 1, "{got:?}");
        assert!(!got[0].starts_with("Amira"), "{got:?}");
        // a person of another context lends a first name: "Helen Khan", not a listed one
        let elsewhere = ["Transport Secretary Helen Ward said the rise was fair."];
        assert_eq!(
            m(claim, &p, &elsewhere),
            vec!["Helen Khan said residents had voted for cleaner streets."]
        );
        // ... unless the passages use that name for anyone
        let p2 = [p[0], "Helen Ward chaired the count."];
        let got = m(claim, &p2, &elsewhere);
        assert!(!got[0].starts_with("Helen"), "{got:?}");
    }

    #[test]
    fn no_first_name_for_a_full_name_an_organisation_or_a_place_read_as_a_person() {
        let p = ["Amira Khan won the seat. Khan said residents had voted for change."];
        // the claim already gives the first name
        assert!(m("Amira Khan said residents had voted for change.", &p, &[]).is_empty());
        // "Varno said its ...": a company that speaks, with no full name, title or pronoun
        let p = [
            "The agency cut Varno to junk. Varno said its existing loans would not be affected.",
        ];
        assert!(m(
            "Varno said its existing loans would not be affected.",
            &p,
            &[]
        )
        .is_empty());
        // "Police in Harrow said they ...": a place
        let p = ["Police in Harrow said on Monday they had arrested two men."];
        assert!(m("Harrow police arrested two men.", &p, &[]).is_empty());
        // the surname inside a longer name
        let p = ["Tom Becker founded Becker Logistics in 2001; Becker said he would retire."];
        assert!(m("Becker Logistics was founded in 2001.", &p, &[]).is_empty());
    }

    #[test]
    fn an_adjective_the_passages_never_use_goes_before_a_noun_it_fits() {
        let claim = "Officials said the money cannot be used to buy weapons.";
        let got = m(
            claim,
            &["Officials said the money, €40 million, cannot be used to buy weapons."],
            &[],
        );
        assert_eq!(got.len(), 1, "{got:?}");
        assert!(
            ["Senior officials said", "Junior officials said"]
                .iter()
                .any(|s| got[0].starts_with(s))
                && got[0].ends_with(" officials said the money cannot be used to buy weapons."),
            "{got:?}"
        );
        // the article follows the adjective
        let claim = "The minister ordered a review of the rules.";
        let got = m(
            claim,
            &["The minister ordered a review of the rules on Tuesday."],
            &[],
        );
        assert!(
            got == ["The minister ordered an annual review of the rules."]
                || got == ["The minister ordered an independent review of the rules."],
            "{got:?}"
        );
        // after a number
        let got = m(
            "About 210 staff will be affected.",
            &["About 210 staff will be affected by the closures, the bank said."],
            &[],
        );
        assert_eq!(got.len(), 1, "{got:?}");
        assert!(
            got[0].starts_with("About 210 ") && got[0].ends_with(" staff will be affected."),
            "{got:?}"
        );
    }

    #[test]
    fn no_adjective_the_passages_use_none_where_the_noun_is_a_verb_and_none_that_says_nothing_new()
    {
        // the passages call it the annual budget: "annual" is theirs, and nothing else fits
        assert!(m(
            "The council approved the budget.",
            &["The council approved the annual budget on Tuesday."],
            &[]
        )
        .is_empty());
        // "to review the rules": a verb
        assert!(m(
            "The minister will review the rules.",
            &["The minister will review the rules next year."],
            &[]
        )
        .is_empty());
        // "older adults aged 65 and over" says no more than the claim did
        let got = m(
            "All adults aged 65 and over are offered the flu vaccine.",
            &["The flu vaccine is offered free to all adults aged 65 and over."],
            &[],
        );
        assert!(
            got.iter()
                .all(|g| !g.contains("older") && !g.contains("elderly")),
            "{got:?}"
        );
        // a noun after another noun or an adjective is left alone: "Team plans", "bond yields"
        assert!(m(
            "Team plans are billed monthly.",
            &["Team plans are billed monthly."],
            &[]
        )
        .is_empty());
    }
}
