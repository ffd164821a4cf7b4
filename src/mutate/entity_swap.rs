//! `entity_swap`: a misreferenced entity. A name is exchanged for another member of its suite
//! entity group; where the suite declares no group the claim names, for another name of the same
//! kind that the claim's own passages mention (people, organisations, places, found by the rule
//! file's cues). Pronouns are `pronoun_swap`'s: a coreference error is a fault type of its own.

use super::rules::parse;
use super::words::NameCues;
use super::{Input, Mutator, Operator, Purpose};
use crate::error::{Error, Result};
use crate::text::words::find_name;
use serde::Deserialize;
use std::path::Path;

pub const OPERATOR: Operator = Operator {
    name: "entity_swap",
    purpose: Purpose::Fault,
    stands_for: "a misreferenced entity: what one person, organisation, place or product did or has given to another",
    typologies: "FRANK EntE/CorefE; RAGTruth evident conflict; FaithBench intrinsic; TofuEval mis-referencing",
    rules: "entity_swap.yaml",
    builtin: include_str!("../../mutators/entity_swap.yaml"),
    build: |path, text| Ok(Box::new(EntitySwap::load(path, text)?)),
    example: [
        "Maria Lopez, the finance director, approved the budget.",
        "Tom Becker, the finance director, approved the budget.",
    ],
};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Alternatives {
    Next,
    All,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Articles {
    before_vowel: String,
    before_consonant: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Rules {
    alternatives: Alternatives,
    articles: Option<Articles>,
    #[serde(default)]
    vowels: String,
    /// Names found in the passages when no declared group applies.
    #[serde(default)]
    automatic: Option<NameCues>,
    /// No longer read here (see `pronoun_swap`): refused with a message saying where it went.
    #[serde(default)]
    pronouns: Vec<[String; 2]>,
}

pub struct EntitySwap {
    rules: Rules,
}

impl EntitySwap {
    fn load(path: &Path, text: &str) -> Result<EntitySwap> {
        let rules: Rules = parse(path, text)?;
        if let Some(a) = &rules.articles {
            if crate::text::words::is_blank(&a.before_vowel)
                || crate::text::words::is_blank(&a.before_consonant)
            {
                return Err(Error::input(
                    path,
                    super::rules::line_of(text, &|l| l.contains("before_")),
                    "an article is empty",
                    "write both articles, e.g. `before_vowel: an` and `before_consonant: a`",
                ));
            }
        }
        if !rules.pronouns.is_empty() {
            return Err(Error::input(
                path,
                super::rules::line_of(text, &|l| l.starts_with("pronouns")),
                "`pronouns` moved to pronoun_swap.yaml: a pronoun swap is a coreference error, a fault type of its own",
                "move the `pronouns:` list to pronoun_swap.yaml as `pairs:`",
            ));
        }
        Ok(EntitySwap { rules })
    }

    /// Mutants from names the passages mention: each name of the claim given to the next other
    /// name of its kind that the claim does not already mention.
    fn names_of_the_passages(&self, input: &Input<'_>) -> Vec<String> {
        let Some(cues) = &self.rules.automatic else {
            return Vec::new();
        };
        let claim = input.claim;
        let read = input.memo(cues.key(), || PassageNames::read(input.passages, cues));
        let (lower, names) = (read.lower, &read.names);
        let mut out = Vec::new();
        let mut elsewhere: Option<Vec<super::words::Name>> = None;
        for (i, n) in names.iter().enumerate() {
            // a name with no kind cue may be anything (a product, a file format): not swapped
            if n.kind == "other" || find_name(claim, &n.text, 0).is_none() {
                continue;
            }
            // "Orrin" inside "Orrin Motors" is the longer name's: swap that one
            if names.iter().any(|m| {
                m.text.len() > n.text.len()
                    && m.text.contains(&n.text)
                    && find_name(claim, &m.text, 0).is_some()
            }) {
                continue;
            }
            // the new name shares no word with the claim ("Jonas Berg ... will replace Berg")
            let shares_word = |o: &str| {
                o.split_whitespace()
                    .any(|w| w.len() > 2 && find_name(claim, w, 0).is_some())
            };
            let other = names[i + 1..].iter().chain(&names[..i]).find(|o| {
                o.kind == n.kind
                    && find_name(claim, &o.text, 0).is_none()
                    && !shares_word(&o.text)
                    && !o.text.contains(&n.text)
                    && !n.text.contains(&o.text)
            });
            if let Some(o) = other {
                out.push(self.exchange(claim, &n.text, &o.text));
                continue;
            }
            // no other person here (one person quoted): a person of another context of the
            // suite, whom the claim's passages never mention, without a title of their own
            if n.kind != "person" {
                continue;
            }
            let titles: Vec<&String> = cues
                .kinds
                .iter()
                .filter(|k| k.kind == "person")
                .flat_map(|k| &k.before)
                .collect();
            let elsewhere = elsewhere.get_or_insert_with(|| cues.in_elsewhere(input));
            let borrowed = elsewhere
                .iter()
                .filter(|o| o.kind == "person")
                .map(|o| {
                    let mut words: Vec<&str> = o.text.split_whitespace().collect();
                    while words.len() > 1 && titles.iter().any(|t| t.eq_ignore_ascii_case(words[0]))
                    {
                        words.remove(0);
                    }
                    words.join(" ")
                })
                .find(|o| {
                    o.split_whitespace().count() >= 2
                        && !shares_word(o)
                        && !input.passages.iter().any(|p| find_name(p, o, 0).is_some())
                });
            if let Some(o) = borrowed {
                let to = if lower { o.to_lowercase() } else { o };
                out.push(self.exchange(claim, &n.text, &to));
            }
        }
        out
    }
}

/// The names of a context's passages as `entity_swap` reads them, the same for each of its
/// claims: read once per context, not once per claim.
struct PassageNames {
    /// Whether the passages are written in lower case throughout ([`lower_cased`]).
    lower: bool,
    /// Their names, in lower case when the passages are.
    names: Vec<super::words::Name>,
}

impl PassageNames {
    fn read(passages: &[&str], cues: &NameCues) -> PassageNames {
        // lower-cased text (scraped or normalised) has no capitals to find names by: give the
        // words in name positions their capitals first, and write the swapped names back in
        // lower case
        let lower = lower_cased(passages);
        let recased: Vec<String> = if lower {
            passages.iter().map(|p| recase(p, cues)).collect()
        } else {
            Vec::new()
        };
        let texts: Vec<&str> = if lower {
            recased.iter().map(String::as_str).collect()
        } else {
            passages.to_vec()
        };
        let mut names = cues.names(&texts);
        if lower {
            for n in &mut names {
                n.text = n.text.to_lowercase();
            }
        }
        PassageNames { lower, names }
    }
}

/// Whether the passages are written in lower case throughout (fewer than one word in fifty
/// starts with a capital).
fn lower_cased(passages: &[&str]) -> bool {
    let (mut words, mut capitals) = (0usize, 0usize);
    for w in passages.iter().flat_map(|p| p.split_whitespace()) {
        if let Some(c) = w.chars().find(|c| c.is_alphabetic()) {
            words += 1;
            capitals += usize::from(c.is_uppercase());
        }
    }
    words >= 20 && capitals * 50 < words
}

/// Words that never start a name in lower-cased text.
const COMMON: &[&str] = &[
    "the",
    "a",
    "an",
    "of",
    "in",
    "on",
    "at",
    "to",
    "for",
    "with",
    "by",
    "from",
    "and",
    "or",
    "but",
    "not",
    "no",
    "is",
    "are",
    "was",
    "were",
    "be",
    "been",
    "being",
    "has",
    "have",
    "had",
    "will",
    "would",
    "could",
    "should",
    "may",
    "might",
    "can",
    "must",
    "it",
    "its",
    "they",
    "their",
    "them",
    "he",
    "she",
    "his",
    "her",
    "him",
    "we",
    "our",
    "you",
    "your",
    "this",
    "that",
    "these",
    "those",
    "which",
    "who",
    "whom",
    "what",
    "when",
    "where",
    "why",
    "how",
    "all",
    "any",
    "some",
    "most",
    "more",
    "less",
    "least",
    "many",
    "much",
    "few",
    "each",
    "every",
    "other",
    "such",
    "only",
    "also",
    "very",
    "than",
    "then",
    "there",
    "here",
    "as",
    "so",
    "if",
    "because",
    "after",
    "before",
    "during",
    "until",
    "while",
    "about",
    "into",
    "over",
    "under",
    "up",
    "down",
    "out",
    "off",
    "again",
    "still",
    "yet",
    "just",
    "last",
    "first",
    "next",
    "new",
    "said",
    "says",
    "told",
    "per",
    "cent",
    "people",
    "year",
    "years",
    "month",
    "months",
    "week",
    "weeks",
    "day",
    "days",
    "time",
    "early",
    "late",
    "one",
    "two",
    "three",
    "four",
    "five",
    "ten",
    "least",
    "residents",
    "officials",
    "police",
    "staff",
    "it's",
    "now",
    "later",
    "already",
    "since",
    "around",
    "nearly",
    "almost",
];

/// Words that open a noun phrase: a name may start right after one.
const OPENERS: &[&str] = &[
    "the", "a", "an", "at", "in", "of", "for", "by", "from", "with", "to", "and", "or", "near",
    "against", "beat", "joined", "said", "that",
];

/// `text` with a capital on each word that sits where a name does: the words before a verb of
/// saying ("the county fire service said"), after a place word ("in lower marsh"), and before
/// an organisation's last word ("the environment agency"), as the cues of `cues` name them.
fn recase(text: &str, cues: &super::words::NameCues) -> String {
    let words: Vec<&str> = text.split(' ').collect();
    let bare = |w: &str| {
        w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'')
            .to_lowercase()
    };
    let nameable = |w: &str| {
        let b = bare(w);
        b.len() >= 2
            && b.chars().next().is_some_and(char::is_alphabetic)
            && !COMMON.contains(&b.as_str())
    };
    let mut cap = vec![false; words.len()];
    let is = |list: &[String], w: &str| list.iter().any(|x| x.eq_ignore_ascii_case(&bare(w)));
    for (i, w) in words.iter().enumerate() {
        for k in &cues.kinds {
            // "... X Y said": up to three words back
            if is(&k.after, w) {
                let mut j = i;
                while j > 0 && i - j < 3 && nameable(words[j - 1]) && !words[j - 1].ends_with(',') {
                    j -= 1;
                    cap[j] = true;
                }
            }
            // "in X Y": up to three words on, to the end of the phrase
            if is(&k.before, w) && !w.ends_with([',', '.']) {
                let mut j = i + 1;
                while j < words.len() && j - i <= 3 && nameable(words[j]) {
                    cap[j] = true;
                    if words[j].ends_with([',', '.', ';', ':']) {
                        break;
                    }
                    j += 1;
                }
            }
            // "the environment agency": the organisation word and up to two words before it,
            // as far back as an article or preposition starts the phrase ("will face leigh
            // wanderers" is "Leigh Wanderers", not "Face Leigh Wanderers")
            if k.ends_with.iter().any(|e| e.eq_ignore_ascii_case(&bare(w))) && nameable(w) {
                let mut j = i;
                while j > 0 && i - j < 2 && nameable(words[j - 1]) && !words[j - 1].ends_with(',') {
                    j -= 1;
                }
                let opens = |j: usize| {
                    j == 0
                        || words[j - 1].ends_with([',', '.', ';', ':'])
                        || OPENERS.contains(&bare(words[j - 1]).as_str())
                };
                let mut start = j;
                while start < i && !opens(start) {
                    start += 1;
                }
                if start == i && !opens(i) {
                    start = i.saturating_sub(1).max(j);
                }
                for c in cap.iter_mut().take(i + 1).skip(start) {
                    *c = true;
                }
            }
        }
    }
    words
        .iter()
        .zip(&cap)
        .map(|(w, c)| {
            if *c {
                crate::text::words::capitalised(w)
            } else {
                w.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

impl EntitySwap {
    /// Rewrites the text with `from` and `to` exchanged (whole words, ignoring case unless the
    /// name is written in capitals, which matches only in capitals: `US` is not "us"), fixing the
    /// article before each rewritten name. A name written in lower case in the group takes a
    /// capital where the word it replaces had one ("Books are lent" -> "DVDs are lent",
    /// "DVDs are lent" -> "Books are lent").
    fn exchange(&self, text: &str, from: &str, to: &str) -> String {
        let mut out = String::with_capacity(text.len() + 16);
        let mut i = 0;
        while i < text.len() {
            let hit = [(from, to), (to, from)]
                .into_iter()
                .filter_map(|(a, b)| find_name(text, a, i).map(|(s, e)| (s, e, b)))
                .min_by_key(|(s, e, _)| (*s, usize::MAX - e));
            let Some((at, end, b)) = hit else { break };
            out.push_str(&text[i..at]);
            let replaced = &text[at..end];
            // a capital only where the replaced word was capitalised as a word ("Books"), not
            // where it is written in capitals ("DVDs")
            let before = format!("{out}{}", &text[i..at]);
            let starts_sentence =
                before.trim_end().is_empty() || before.trim_end().ends_with(['.', '!', '?', ':']);
            let b = if replaced.chars().next().is_some_and(char::is_uppercase)
                && (starts_sentence || !replaced.chars().skip(1).any(char::is_uppercase))
                && b.chars().next().is_some_and(char::is_lowercase)
            {
                let mut c = b.chars();
                c.next()
                    .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
                    .unwrap_or_default()
            } else {
                b.to_string()
            };
            self.fix_article(&mut out, &b);
            out.push_str(&b);
            i = end;
        }
        out.push_str(&text[i.min(text.len())..]);
        out
    }

    fn fix_article(&self, out: &mut String, next: &str) {
        let Some(articles) = &self.rules.articles else {
            return;
        };
        let trimmed = out.trim_end_matches(' ');
        if trimmed.len() == out.len() {
            return; // no space before the name: not preceded by a separate word
        }
        // the byte after the last non-letter: its own length, since it may be multi-byte ("—")
        let word_start = trimmed
            .char_indices()
            .rev()
            .find(|(_, c)| !c.is_alphabetic())
            .map(|(p, c)| p + c.len_utf8())
            .unwrap_or(0);
        let word = &trimmed[word_start..];
        let lower = word.to_lowercase();
        if lower != articles.before_vowel && lower != articles.before_consonant {
            return;
        }
        let vowel = next
            .chars()
            .next()
            .is_some_and(|c| self.rules.vowels.contains(c));
        let mut article = if vowel {
            articles.before_vowel.clone()
        } else {
            articles.before_consonant.clone()
        };
        if word.chars().next().is_some_and(char::is_uppercase) {
            let mut c = article.chars();
            article = c
                .next()
                .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
                .unwrap_or_default();
        }
        let spaces = out.len() - trimmed.len();
        out.truncate(word_start);
        out.push_str(&article);
        out.push_str(&" ".repeat(spaces));
    }
}

impl Mutator for EntitySwap {
    fn mutate(&self, input: &Input<'_>) -> Vec<String> {
        let claim = input.claim;
        let mut out = Vec::new();
        for group in input.entities {
            let first = group
                .members
                .iter()
                .enumerate()
                .filter_map(|(i, m)| find_name(claim, m, 0).map(|(at, _)| (at, i)))
                .min();
            let Some((_, idx)) = first else { continue };
            let n = group.members.len();
            let targets: Vec<usize> = match self.rules.alternatives {
                Alternatives::Next => vec![(idx + 1) % n],
                Alternatives::All => (1..n).map(|k| (idx + k) % n).collect(),
            };
            for t in targets {
                out.push(self.exchange(claim, &group.members[idx], &group.members[t]));
            }
        }
        // declared groups take precedence: names found in the passages only where none applies
        if out.is_empty() {
            out = self.names_of_the_passages(input);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::suite::EntityGroup;

    fn op() -> EntitySwap {
        EntitySwap::load(Path::new("e.yaml"), OPERATOR.builtin).unwrap()
    }

    fn with(s: &str, groups: &[EntityGroup]) -> Vec<String> {
        op().mutate(&Input {
            entities: groups,
            ..Input::bare(s)
        })
    }

    fn plans() -> Vec<EntityGroup> {
        vec![EntityGroup {
            name: "plan".into(),
            members: vec!["Team".into(), "Enterprise".into()],
        }]
    }

    fn swap(s: &str) -> Vec<String> {
        with(s, &plans())
    }

    #[test]
    fn the_article_follows_the_new_name() {
        assert_eq!(
            swap("The current month is not refunded when a Team plan is cancelled."),
            vec!["The current month is not refunded when an Enterprise plan is cancelled."]
        );
    }

    #[test]
    fn two_named_members_are_exchanged() {
        assert_eq!(
            swap("SSO is on Enterprise, not Team."),
            vec!["SSO is on Team, not Enterprise."]
        );
    }

    #[test]
    fn a_name_in_capitals_matches_only_in_capitals() {
        let regions = vec![EntityGroup {
            name: "region".into(),
            members: vec!["EU".into(), "US".into()],
        }];
        assert!(with("Call us on 1234.", &regions).is_empty());
        assert!(with("Data from the eu- region.", &regions).is_empty());
        assert_eq!(
            with("Tell us: data stays in the EU.", &regions),
            vec!["Tell us: data stays in the US."]
        );
        // a name in ordinary case still matches any case
        assert_eq!(
            swap("team plans are billed monthly."),
            vec!["Enterprise plans are billed monthly."]
        );
    }

    #[test]
    fn names_inside_other_words_are_left_alone() {
        assert!(swap("Teams and Teamwork.").is_empty());
    }

    #[test]
    fn a_multi_byte_character_before_the_name_is_not_cut() {
        // used to panic: the article fix-up assumed a one-byte character before the word
        assert_eq!(
            swap("SSO — Enterprise plan only."),
            vec!["SSO — Team plan only."]
        );
        assert_eq!(swap("Café·Team plan"), vec!["Café·Enterprise plan"]);
    }

    #[test]
    fn names_match_in_any_case_and_keep_the_sentence_capital() {
        let items = vec![EntityGroup {
            name: "item".into(),
            members: vec!["books".into(), "DVDs".into()],
        }];
        let swap = |s: &str| with(s, &items);
        assert_eq!(
            swap("Books are lent for 3 weeks."),
            vec!["DVDs are lent for 3 weeks."]
        );
        assert_eq!(
            swap("DVDs are lent for 1 week."),
            vec!["Books are lent for 1 week."]
        );
        assert_eq!(
            swap("Members borrow books and dvds."),
            vec!["Members borrow DVDs and books."]
        );
    }

    #[test]
    fn without_declared_groups_names_come_from_the_passages() {
        let passages = ["The council's finance director, Maria Lopez, said the budget was approved on Tuesday. Her deputy, Tom Becker, said the vote was close. The plan was first proposed in Leeds, not in Bradford."];
        let m = |claim: &str| {
            op().mutate(&Input {
                passages: &passages,
                ..Input::bare(claim)
            })
        };
        assert_eq!(
            m("Maria Lopez said the budget was approved."),
            vec!["Tom Becker said the budget was approved."]
        );
        assert_eq!(
            m("The plan was first proposed in Leeds."),
            vec!["The plan was first proposed in Bradford."]
        );
        // "Her" in the passages but no "his": no pronoun swap; a name the claim does not use: none
        assert!(m("Her deputy said the vote was close.").is_empty());
        // a declared group that applies takes precedence
        let groups = [EntityGroup {
            name: "city".into(),
            members: vec!["Leeds".into(), "York".into()],
        }];
        assert_eq!(
            op().mutate(&Input {
                passages: &passages,
                entities: &groups,
                ..Input::bare("The plan was first proposed in Leeds.")
            }),
            vec!["The plan was first proposed in York."]
        );
    }

    #[test]
    fn names_are_found_in_lower_cased_text_by_where_they_stand() {
        let passages = ["the river ashby burst its banks early on sunday, flooding at least 60 homes in lower marsh. the county fire service said no one was injured. the environment agency warned that levels could rise again overnight."];
        let got = op().mutate(&Input {
            passages: &passages,
            ..Input::bare("according to the county fire service, no one was injured.")
        });
        assert_eq!(
            got,
            vec!["according to the environment agency, no one was injured."]
        );
    }
}
