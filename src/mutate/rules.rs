//! Mutation rule files: the words and patterns the operators use, as data.

use crate::error::{Error, Result};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NumberSwapRules {
    pub changes: Vec<NumberChange>,
    #[serde(default)]
    pub number_words: BTreeMap<String, f64>,
}

/// One way to change a number: exactly one of `multiply` or `add`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NumberChange {
    #[serde(default)]
    pub multiply: Option<f64>,
    #[serde(default)]
    pub add: Option<f64>,
}

impl NumberChange {
    /// The changed value, or None when the entry sets neither or both.
    pub fn apply(&self, v: f64) -> Option<f64> {
        match (self.multiply, self.add) {
            (Some(f), None) => Some(v * f),
            (None, Some(a)) => Some(v + a),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NegationFlipRules {
    /// `[negative, positive]` pairs.
    pub pairs: Vec<[String; 2]>,
    #[serde(default)]
    pub remove: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Alternatives {
    Next,
    All,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Articles {
    pub before_vowel: String,
    pub before_consonant: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EntitySwapRules {
    pub alternatives: Alternatives,
    pub articles: Option<Articles>,
    #[serde(default)]
    pub vowels: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConditionPattern {
    pub name: String,
    pub regex: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DroppedConditionRules {
    pub patterns: Vec<ConditionPattern>,
}

/// The rule set for all four operators.
#[derive(Debug, Clone)]
pub struct Rules {
    pub number_swap: NumberSwapRules,
    pub negation_flip: NegationFlipRules,
    pub entity_swap: EntitySwapRules,
    pub dropped_condition: DroppedConditionRules,
    /// Where the rules came from, for fingerprints and reports.
    pub source: String,
}

const FILES: [&str; 4] = [
    "number_swap.yaml",
    "negation_flip.yaml",
    "entity_swap.yaml",
    "dropped_condition.yaml",
];

const BUILTIN: [&str; 4] = [
    include_str!("../../mutators/number_swap.yaml"),
    include_str!("../../mutators/negation_flip.yaml"),
    include_str!("../../mutators/entity_swap.yaml"),
    include_str!("../../mutators/dropped_condition.yaml"),
];

impl Rules {
    /// The rules shipped in `mutators/`, compiled in (parsed once per process).
    pub fn builtin() -> Rules {
        static PARSED: std::sync::LazyLock<Rules> = std::sync::LazyLock::new(|| {
            Rules::parse(
                Path::new("mutators"),
                [BUILTIN[0], BUILTIN[1], BUILTIN[2], BUILTIN[3]],
                "builtin",
            )
            .expect("the shipped mutator rules are valid (tested)")
        });
        PARSED.clone()
    }

    /// Reads the four rule files from a directory.
    pub fn from_dir(dir: &Path) -> Result<Rules> {
        let mut texts = Vec::new();
        for f in FILES {
            let p = dir.join(f);
            texts.push(crate::error::read_input(&p)?);
        }
        Rules::parse(
            dir,
            [&texts[0], &texts[1], &texts[2], &texts[3]],
            &dir.display().to_string(),
        )
    }

    fn parse(dir: &Path, texts: [&str; 4], source: &str) -> Result<Rules> {
        fn one<T: for<'de> Deserialize<'de>>(dir: &Path, name: &str, text: &str) -> Result<T> {
            let path = dir.join(name);
            crate::yaml::check_aliases(&path, text)?;
            serde_yaml::from_str(text).map_err(|e| {
                Error::from_yaml(
                    &path,
                    &e,
                    "compare with the rule files shipped in mutators/",
                )
            })
        }
        let rules = Rules {
            number_swap: one(dir, FILES[0], texts[0])?,
            negation_flip: one(dir, FILES[1], texts[1])?,
            entity_swap: one(dir, FILES[2], texts[2])?,
            dropped_condition: one(dir, FILES[3], texts[3])?,
            source: source.to_string(),
        };
        // the 1-based line of the first line of `text` that `hit` accepts
        let line =
            |text: &str, hit: &dyn Fn(&str) -> bool| text.lines().position(hit).map(|i| i + 1);
        let empty_word = |l: &str| {
            let t = l.split('#').next().unwrap_or("");
            t.contains("\"\"") || t.contains("''") || t.contains("[,") || t.contains(", ,")
        };
        let blank = |w: &str| crate::text::is_blank(w);
        if rules
            .negation_flip
            .pairs
            .iter()
            .flatten()
            .chain(&rules.negation_flip.remove)
            .any(|w| blank(w))
        {
            return Err(Error::input(
                &dir.join(FILES[1]),
                line(texts[1], &empty_word),
                "a negation word is empty",
                "every word in `pairs` and `remove` must have at least one letter",
            ));
        }
        if let Some(a) = &rules.entity_swap.articles {
            if blank(&a.before_vowel) || blank(&a.before_consonant) {
                return Err(Error::input(
                    &dir.join(FILES[2]),
                    line(texts[2], &|l| l.contains("before_")),
                    "an article is empty",
                    "write both articles, e.g. `before_vowel: an` and `before_consonant: a`",
                ));
            }
        }
        for p in &rules.dropped_condition.patterns {
            let at = line(texts[3], &|l| l.contains(&p.name));
            if p.regex.is_empty() {
                return Err(Error::input(
                    &dir.join(FILES[3]),
                    at,
                    format!("pattern `{}` is empty", p.name),
                    "write a regular expression that matches the condition to drop",
                ));
            }
            if let Err(e) = regex::Regex::new(&p.regex) {
                return Err(Error::input(
                    &dir.join(FILES[3]),
                    at,
                    format!(
                        "pattern `{}` is not a valid regular expression: {e}",
                        p.name
                    ),
                    "fix the regex (Rust `regex` syntax: no look-around or back-references)",
                ));
            }
        }
        if rules
            .number_swap
            .changes
            .iter()
            .any(|c| c.multiply.is_some() == c.add.is_some())
        {
            return Err(Error::input(
                &dir.join(FILES[0]),
                line(texts[0], &|l| l.contains("changes")),
                "a change sets neither or both of `multiply` and `add`",
                "write each change as `- multiply: N` or `- add: N`",
            ));
        }
        if rules.number_swap.changes.is_empty() {
            return Err(Error::input(
                &dir.join(FILES[0]),
                line(texts[0], &|l| l.contains("changes")),
                "`changes` is empty",
                "list at least one change, e.g. `- multiply: 2`",
            ));
        }
        Ok(rules)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(file: usize, text: &str) -> Result<Rules> {
        let mut t = BUILTIN;
        t[file] = text;
        Rules::parse(Path::new("rules"), t, "test")
    }

    #[test]
    fn empty_words_are_rejected_with_their_line() {
        let e = with(1, "pairs:\n  - [\"is not\", \"is\"]\n  - [\"\", \"can\"]\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("negation_flip.yaml:3") && e.contains("empty"),
            "{e}"
        );
        let e = with(1, "pairs: []\nremove: [\" \"]\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("negation word is empty"), "{e}");
        let e = with(0, "changes: []\n").unwrap_err().to_string();
        assert!(
            e.contains("number_swap.yaml:1") && e.contains("`changes` is empty"),
            "{e}"
        );
        let e = with(3, "patterns:\n  - {name: broken, regex: \"(\"}\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("dropped_condition.yaml:2") && e.contains("broken"),
            "{e}"
        );
    }

    #[test]
    fn the_shipped_rules_parse() {
        let r = Rules::builtin();
        assert!(!r.negation_flip.pairs.is_empty());
        assert_eq!(r.dropped_condition.patterns.len(), 3);
    }
}
