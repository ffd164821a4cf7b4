//! `entity_swap`: exchange a named entity for another member of its suite entity group.

use super::rules::{Alternatives, EntitySwapRules};
use super::Mutator;
use crate::suite::EntityGroup;
use crate::text::find_name;

pub struct EntitySwap {
    rules: EntitySwapRules,
}

impl EntitySwap {
    pub fn new(rules: EntitySwapRules) -> Self {
        EntitySwap { rules }
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
            let b = if replaced.chars().next().is_some_and(char::is_uppercase)
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
    fn name(&self) -> &'static str {
        "entity_swap"
    }

    fn mutate(&self, claim: &str, entities: &[EntityGroup]) -> Vec<String> {
        let mut out = Vec::new();
        for group in entities {
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
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mutate::Rules;

    fn plans() -> Vec<EntityGroup> {
        vec![EntityGroup {
            name: "plan".into(),
            members: vec!["Team".into(), "Enterprise".into()],
        }]
    }

    fn swap(s: &str) -> Vec<String> {
        EntitySwap::new(Rules::builtin().entity_swap).mutate(s, &plans())
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
        let m = EntitySwap::new(Rules::builtin().entity_swap);
        assert!(m.mutate("Call us on 1234.", &regions).is_empty());
        assert!(m.mutate("Data from the eu- region.", &regions).is_empty());
        assert_eq!(
            m.mutate("Tell us: data stays in the EU.", &regions),
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
        let swap = |s: &str| EntitySwap::new(Rules::builtin().entity_swap).mutate(s, &items);
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
}
