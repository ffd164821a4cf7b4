//! `number_swap`: one mutant per number in the claim, with that number changed.

use super::rules::{NumberChange, NumberSwapRules};
use super::Mutator;
use crate::suite::EntityGroup;
use crate::text::{format_number, tokenize};

pub struct NumberSwap {
    rules: NumberSwapRules,
}

impl NumberSwap {
    pub fn new(rules: NumberSwapRules) -> Self {
        NumberSwap { rules }
    }

    fn change(&self, v: f64) -> Option<f64> {
        self.rules
            .changes
            .iter()
            .filter_map(|c: &NumberChange| c.apply(v))
            .find(|n| (n - v).abs() > 1e-9 && n.is_finite())
    }

    fn word_for(&self, v: f64) -> Option<&str> {
        self.rules
            .number_words
            .iter()
            .find(|(_, n)| (**n - v).abs() < 1e-9)
            .map(|(w, _)| w.as_str())
    }
}

fn with_thousands(v: f64) -> String {
    let s = format_number(v);
    let (int, frac) = match s.split_once('.') {
        Some((i, f)) => (i.to_string(), format!(".{f}")),
        None => (s.clone(), String::new()),
    };
    let digits: Vec<char> = int.chars().collect();
    let mut out = String::new();
    for (i, c) in digits.iter().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(*c);
    }
    out + &frac
}

impl Mutator for NumberSwap {
    fn name(&self) -> &'static str {
        "number_swap"
    }

    fn mutate(&self, claim: &str, _entities: &[EntityGroup]) -> Vec<String> {
        let mut out = Vec::new();
        for tok in tokenize(claim) {
            let raw = &claim[tok.start..tok.end];
            let digits = raw
                .chars()
                .all(|c| c.is_ascii_digit() || c == '.' || c == ',');
            let value = if digits {
                raw.replace(',', "").parse::<f64>().ok()
            } else {
                self.rules.number_words.get(&raw.to_lowercase()).copied()
            };
            let Some(value) = value else { continue };
            let Some(new) = self.change(value) else {
                continue;
            };
            let replacement = if digits {
                if raw.contains(',') {
                    with_thousands(new)
                } else {
                    format_number(new)
                }
            } else {
                match self.word_for(new) {
                    Some(w) if raw.chars().next().is_some_and(char::is_uppercase) => {
                        let mut c = w.chars();
                        c.next()
                            .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
                            .unwrap_or_default()
                    }
                    Some(w) => w.to_string(),
                    None => format_number(new),
                }
            };
            out.push(format!(
                "{}{}{}",
                &claim[..tok.start],
                replacement,
                &claim[tok.end..]
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mutate::Rules;

    fn op() -> NumberSwap {
        NumberSwap::new(Rules::builtin().number_swap)
    }

    #[test]
    fn each_number_gives_one_mutant() {
        let m = op().mutate("Refunds take 3 to 5 days and cost €1,200.", &[]);
        assert_eq!(
            m,
            vec![
                "Refunds take 6 to 5 days and cost €1,200.",
                "Refunds take 3 to 10 days and cost €1,200.",
                "Refunds take 3 to 5 days and cost €2,400.",
            ]
        );
    }

    #[test]
    fn zero_falls_through_to_the_next_change_and_words_stay_words() {
        assert_eq!(op().mutate("It has 0 fees.", &[]), vec!["It has 1 fees."]);
        assert_eq!(op().mutate("Fifty users.", &[]), vec!["Hundred users."]);
        assert_eq!(op().mutate("S3 and p-2071.", &[]), Vec::<String>::new());
    }
}
