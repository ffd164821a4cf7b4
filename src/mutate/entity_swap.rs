//! `entity_swap`: a misreferenced entity. A name is exchanged for another member of its suite
//! entity group; where the suite declares no group the claim names, for another name of the same
//! kind that the claim's own passages mention (people, organisations, places, found by the rule
//! file's cues). Pronouns are `pronoun_swap`'s: a coreference error is a fault type of its own.

use super::rules::parse;
use super::words::NameCues;
use super::{Input, Mutator, Operator, Purpose};
use crate::error::{Error, Result};
use crate::text::find_name;
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
            if crate::text::is_blank(&a.before_vowel) || crate::text::is_blank(&a.before_consonant)
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
        let names = cues.names(input.passages);
        let mut out = Vec::new();
        for (i, n) in names.iter().enumerate() {
            // a name with no kind cue may be anything (a product, a file format): not swapped
            if n.kind == "other" || find_name(claim, &n.text, 0).is_none() {
                continue;
            }
            let other = names[i + 1..].iter().chain(&names[..i]).find(|o| {
                o.kind == n.kind
                    && find_name(claim, &o.text, 0).is_none()
                    && !o.text.contains(&n.text)
                    && !n.text.contains(&o.text)
            });
            if let Some(o) = other {
                out.push(self.exchange(claim, &n.text, &o.text));
            }
        }
        out
    }

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
    use crate::suite::EntityGroup;

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
}
