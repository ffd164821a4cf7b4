//! `dropped_condition`: remove a time limit or an if/unless clause the claim depends on.

use super::rules::{line_of, parse};
use super::{Input, Mutator, Operator, Purpose};
use crate::error::{Error, Result};
use crate::text::words::tidy;
use regex::Regex;
use serde::Deserialize;
use std::path::Path;

pub const OPERATOR: Operator = Operator {
    name: "dropped_condition",
    purpose: Purpose::Fault,
    stands_for: "a time limit or an if/unless condition the claim depends on removed",
    typologies: "FRANK CircE; RAGTruth subtle conflict; FaithBench intrinsic; TofuEval nuanced meaning shift",
    rules: "dropped_condition.yaml",
    builtin: include_str!("../../mutators/dropped_condition.yaml"),
    build: |path, text| Ok(Box::new(DroppedCondition::load(path, text)?)),
    example: [
        "Refunds are issued within 14 days of purchase.",
        "Refunds are issued.",
    ],
};

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Pattern {
    name: String,
    regex: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Rules {
    patterns: Vec<Pattern>,
}

pub struct DroppedCondition {
    patterns: Vec<Regex>,
}

/// Compiled patterns by source: a rule set is compiled once per process, not once per suite.
fn compiled(source: &str) -> Regex {
    use std::collections::HashMap;
    use std::sync::{LazyLock, Mutex};
    static CACHE: LazyLock<Mutex<HashMap<String, Regex>>> = LazyLock::new(Default::default);
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    cache
        .entry(source.to_string())
        .or_insert_with(|| Regex::new(source).expect("validated when the rules were loaded"))
        .clone()
}

impl DroppedCondition {
    fn load(path: &Path, text: &str) -> Result<DroppedCondition> {
        let rules: Rules = parse(path, text)?;
        for p in &rules.patterns {
            let at = line_of(text, &|l| l.contains(&p.name));
            if p.regex.is_empty() {
                return Err(Error::input(
                    path,
                    at,
                    format!("pattern `{}` is empty", p.name),
                    "write a regular expression that matches the condition to drop",
                ));
            }
            if let Err(e) = Regex::new(&p.regex) {
                return Err(Error::input(
                    path,
                    at,
                    format!(
                        "pattern `{}` is not a valid regular expression: {e}",
                        p.name
                    ),
                    "fix the regex (Rust `regex` syntax: no look-around or back-references)",
                ));
            }
        }
        Ok(DroppedCondition {
            patterns: rules.patterns.iter().map(|p| compiled(&p.regex)).collect(),
        })
    }
}

impl Mutator for DroppedCondition {
    fn mutate(&self, input: &Input<'_>) -> Vec<String> {
        let claim = input.claim;
        let mut out: Vec<String> = Vec::new();
        for re in &self.patterns {
            for m in re.find_iter(claim) {
                let rest = tidy(&format!("{}{}", &claim[..m.start()], &claim[m.end()..]));
                // a mutant needs something left to assert
                if rest.split_whitespace().count() >= 2 && !out.contains(&rest) {
                    out.push(rest);
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drop(s: &str) -> Vec<String> {
        DroppedCondition::load(Path::new("d.yaml"), OPERATOR.builtin)
            .unwrap()
            .mutate(&Input::bare(s))
    }

    #[test]
    fn a_broken_pattern_is_named_with_its_line() {
        let e = DroppedCondition::load(
            Path::new("dropped_condition.yaml"),
            "patterns:\n  - {name: broken, regex: \"(\"}\n",
        )
        .err()
        .unwrap()
        .to_string();
        assert!(
            e.contains("dropped_condition.yaml:2") && e.contains("broken"),
            "{e}"
        );
    }

    #[test]
    fn time_limits_in_any_unit_are_dropped() {
        assert_eq!(
            drop("Annual Enterprise contracts can be refunded in full within 14 days of signing."),
            vec!["Annual Enterprise contracts can be refunded in full."]
        );
        assert_eq!(
            drop("Support replies within 24 hours."),
            vec!["Support replies."]
        );
        assert_eq!(drop("Trials end after two weeks."), vec!["Trials end."]);
    }

    #[test]
    fn if_and_unless_clauses_are_dropped() {
        assert_eq!(
            drop("Refunds are issued if the item arrived damaged."),
            vec!["Refunds are issued."]
        );
        assert_eq!(
            drop("Unless you opt out, invoices are emailed."),
            vec!["Invoices are emailed."]
        );
    }

    #[test]
    fn a_claim_without_conditions_gets_no_mutant() {
        assert!(drop("Team plans can be cancelled at any time.").is_empty());
    }
}
