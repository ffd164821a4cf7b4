//! `dropped_condition`: remove a time limit or an if/unless clause the claim depends on.

use super::rules::DroppedConditionRules;
use super::Mutator;
use crate::suite::EntityGroup;
use crate::text::tidy;
use regex::Regex;

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
    pub fn new(rules: DroppedConditionRules) -> Self {
        DroppedCondition {
            patterns: rules.patterns.iter().map(|p| compiled(&p.regex)).collect(),
        }
    }
}

impl Mutator for DroppedCondition {
    fn name(&self) -> &'static str {
        "dropped_condition"
    }

    fn mutate(&self, claim: &str, _entities: &[EntityGroup]) -> Vec<String> {
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
    use crate::mutate::Rules;

    fn drop(s: &str) -> Vec<String> {
        DroppedCondition::new(Rules::builtin().dropped_condition).mutate(s, &[])
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
