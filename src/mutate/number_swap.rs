//! `number_swap`: one mutant per quantity in the claim, with that quantity moved to a plausible
//! other value written the same way.
//!
//! A number changes by its kind: a percentage stays within 0-100 (unless it was above 100), an
//! ordinal stays an ordinal ("3rd" -> "4th"), an hour stays on the clock, and any other count or
//! amount moves by the rule file's changes, rounded to the decimals it was written with, keeping
//! its currency sign, scale word and thousands separators. Years and days of the month are dates:
//! `date_shift` changes those, within the calendar.

use super::rules::{line_of, parse};
use super::{Input, Mutator, Operator, Purpose};
use crate::error::{Error, Result};
use crate::text::{
    numbers::{format_number, with_thousands},
    tokens::tokenize,
};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

pub const OPERATOR: Operator = Operator {
    name: "number_swap",
    purpose: Purpose::Fault,
    stands_for: "a count, amount, percentage or ordinal changed to a plausible other value",
    typologies: "FRANK CircE/EntE; RAGTruth evident conflict; FaithBench intrinsic; TofuEval mis-referencing",
    rules: "number_swap.yaml",
    builtin: include_str!("../../mutators/number_swap.yaml"),
    build: |path, text| Ok(Box::new(NumberSwap::load(path, text)?)),
    example: [
        "Revenue rose 17 per cent to $ 160 million.",
        "Revenue rose 34 per cent to $ 160 million.",
    ],
};

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Rules {
    changes: Vec<NumberChange>,
    #[serde(default)]
    number_words: BTreeMap<String, f64>,
    /// Words that make the number next to them a date (month names): left to `date_shift`.
    #[serde(default)]
    date_words: Vec<String>,
    /// Four-digit numbers in this range, written without separators, are years.
    years: [f64; 2],
    /// Words after a number that make it an hour of the clock ("4 p.m.").
    #[serde(default)]
    clock_words: Vec<String>,
    /// Words before a number that make it an age ("aged 65", "adults over 65")...
    #[serde(default)]
    age_before: Vec<String>,
    /// ...and words after it ("17-year-old", "40 years old").
    #[serde(default)]
    age_after: Vec<String>,
    /// The oldest age a changed age may reach.
    #[serde(default = "oldest")]
    oldest_age: f64,
}

fn oldest() -> f64 {
    110.0
}

/// One way to change a number: exactly one of `multiply` or `add`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct NumberChange {
    #[serde(default)]
    multiply: Option<f64>,
    #[serde(default)]
    add: Option<f64>,
}

impl NumberChange {
    fn apply(&self, v: f64) -> Option<f64> {
        match (self.multiply, self.add) {
            (Some(f), None) => Some(v * f),
            (None, Some(a)) => Some(v + a),
            _ => None,
        }
    }
}

pub struct NumberSwap {
    rules: Rules,
}

/// What a number is, which bounds its new value.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    /// A percentage written up to 100: stays within 0-100.
    Percent,
    /// An ordinal in digits ("3rd"): becomes the next one.
    Ordinal,
    /// An hour before a clock word: stays within 1-12.
    Hour,
    /// A person's age: stays within 0 and the oldest age.
    Age,
    /// A year or a day of the month: `date_shift`'s.
    Date,
    /// Minutes after a colon: left alone.
    Minutes,
    /// Any other count or amount.
    Amount,
}

fn ordinal_suffix(n: u64) -> &'static str {
    match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    }
}

/// Units a number may be joined to by a hyphen and still be a quantity ("14-day", "3-hour").
const UNITS: [&str; 12] = [
    "year", "day", "week", "month", "hour", "minute", "second", "mile", "page", "seat", "person",
    "point",
];

/// The digits of `raw` ("1,200", "2.4bn", "3rd"): the number part and what is glued after it.
fn split_glued(raw: &str) -> (&str, &str) {
    let end = raw
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_digit() || *c == '.' || *c == ','))
        .map(|(i, _)| i)
        .unwrap_or(raw.len());
    (&raw[..end], &raw[end..])
}

fn decimals(digits: &str) -> usize {
    digits.split_once('.').map(|(_, f)| f.len()).unwrap_or(0)
}

/// `rest` with the word that opens it (after one space) in the plural: "day" -> "days",
/// "currency" -> "currencies". Words already ending in "s", and anything but a lower-case word,
/// are left alone.
fn plural_after(rest: &str) -> String {
    let Some(tail) = rest.strip_prefix(' ') else {
        return rest.to_string();
    };
    let end = tail
        .find(|c: char| !c.is_ascii_lowercase())
        .unwrap_or(tail.len());
    let word = &tail[..end];
    // "one of", "one or two", "1 in 10", "3-1 to": a function word has no plural
    if word.len() < 2 || word.ends_with('s') || super::guard::is_function_word(word) {
        return rest.to_string();
    }
    let plural = match word.strip_suffix('y') {
        Some(stem) if !stem.ends_with(['a', 'e', 'i', 'o', 'u']) => format!("{stem}ies"),
        _ if word.ends_with("ch") || word.ends_with("sh") || word.ends_with('x') => {
            format!("{word}es")
        }
        _ => format!("{word}s"),
    };
    format!(" {plural}{}", &tail[end..])
}

impl NumberSwap {
    fn load(path: &Path, text: &str) -> Result<NumberSwap> {
        let rules: Rules = parse(path, text)?;
        if rules.changes.is_empty() {
            return Err(Error::input(
                path,
                line_of(text, &|l| l.contains("changes")),
                "`changes` is empty",
                "list at least one change, e.g. `- multiply: 2`",
            ));
        }
        if rules
            .changes
            .iter()
            .any(|c| c.multiply.is_some() == c.add.is_some())
        {
            return Err(Error::input(
                path,
                line_of(text, &|l| l.contains("changes")),
                "a change sets neither or both of `multiply` and `add`",
                "write each change as `- multiply: N` or `- add: N`",
            ));
        }
        Ok(NumberSwap { rules })
    }

    fn word_for(&self, v: f64) -> Option<&str> {
        self.rules
            .number_words
            .iter()
            .find(|(_, n)| (**n - v).abs() < 1e-9)
            .map(|(w, _)| w.as_str())
    }

    fn is_date_word(&self, w: &str) -> bool {
        let w = w.trim_end_matches('.');
        self.rules
            .date_words
            .iter()
            .any(|d| d.eq_ignore_ascii_case(w))
    }

    /// The kind of the number token `claim[start..end]` with value `v`.
    fn kind(&self, claim: &str, start: usize, end: usize, v: f64, percent: bool) -> Kind {
        let raw = &claim[start..end];
        let (digits, glued) = split_glued(raw);
        let before = claim[..start].trim_end();
        let after = claim[end..].trim_start();
        if before.ends_with(':') && digits.len() == 2 {
            return Kind::Minutes;
        }
        if after.starts_with(':') {
            return Kind::Hour;
        }
        let prev_word = before
            .rsplit(|c: char| !c.is_alphanumeric() && c != '.')
            .next()
            .unwrap_or("");
        let next_word = after
            .split(|c: char| !c.is_alphanumeric() && c != '.')
            .next()
            .unwrap_or("");
        let day = v.fract() == 0.0 && (1.0..=31.0).contains(&v);
        if day && (self.is_date_word(prev_word) || self.is_date_word(next_word)) {
            return Kind::Date;
        }
        // "the 3rd of March"
        if day && ["st", "nd", "rd", "th"].contains(&glued) && {
            let rest = after.strip_prefix("of ").unwrap_or("");
            self.is_date_word(
                rest.split(|c: char| !c.is_alphabetic())
                    .next()
                    .unwrap_or(""),
            )
        } {
            return Kind::Date;
        }
        if glued.is_empty()
            && digits.len() == 4
            && !digits.contains([',', '.'])
            && (self.rules.years[0]..=self.rules.years[1]).contains(&v)
            && !percent
            && !before.ends_with(|c: char| "€$£¥".contains(c))
        {
            return Kind::Date;
        }
        if ["st", "nd", "rd", "th"].contains(&glued) {
            return Kind::Ordinal;
        }
        if self
            .rules
            .clock_words
            .iter()
            .any(|w| after.to_lowercase().starts_with(&w.to_lowercase()))
            && (1.0..=12.0).contains(&v)
        {
            return Kind::Hour;
        }
        if percent && v <= 100.0 {
            return Kind::Percent;
        }
        let lower_before = before.to_lowercase();
        let lower_after = format!("{glued}{}", &claim[end..]).to_lowercase();
        if self
            .rules
            .age_before
            .iter()
            .any(|w| lower_before.ends_with(&w.to_lowercase()))
            || self
                .rules
                .age_after
                .iter()
                .any(|w| lower_after.starts_with(&w.to_lowercase()))
        {
            return Kind::Age;
        }
        Kind::Amount
    }

    /// The new value of `v` of `kind`, written with `places` decimals, strictly between the
    /// `bounds` (the other end of a range it is part of), or None.
    fn change(&self, v: f64, kind: Kind, places: usize, bounds: (f64, f64)) -> Option<f64> {
        match kind {
            Kind::Date | Kind::Minutes => None,
            Kind::Ordinal => Some(v + 1.0),
            // 12 p.m. is noon: an hour later is 1 p.m., never 11 p.m. (eleven hours on)
            Kind::Hour if v == 12.0 => Some(1.0),
            Kind::Hour => Some(if v >= 11.0 { v - 1.0 } else { v + 1.0 }),
            Kind::Percent | Kind::Amount | Kind::Age => {
                let scale = 10f64.powi(places as i32);
                self.rules
                    .changes
                    .iter()
                    .filter_map(|c| c.apply(v))
                    .map(|n| (n * scale).round() / scale)
                    .find(|n| {
                        n.is_finite()
                            && (n - v).abs() > 1e-9
                            && *n >= 0.0
                            && (kind != Kind::Percent || *n <= 100.0)
                            && (kind != Kind::Age || *n <= self.rules.oldest_age)
                            && *n > bounds.0
                            && *n < bounds.1
                    })
            }
        }
    }
}

impl Mutator for NumberSwap {
    fn mutate(&self, input: &Input<'_>) -> Vec<String> {
        let claim = input.claim;
        let mut out = Vec::new();
        for tok in tokenize(claim) {
            let raw = &claim[tok.start..tok.end];
            let (digits, glued) = split_glued(raw);
            // "2.4bn", "3rd", and a unit joined by a hyphen ("14-day", "17-year-old")
            let hyphen_unit = glued.strip_prefix('-').is_some_and(|rest| {
                let unit = rest.split('-').next().unwrap_or("");
                UNITS.contains(&unit.to_ascii_lowercase().as_str())
            });
            let numeric = !digits.is_empty()
                && digits.starts_with(|c: char| c.is_ascii_digit())
                && (hyphen_unit
                    || ["", "st", "nd", "rd", "th", "bn", "mn", "m", "k"]
                        .contains(&glued.to_ascii_lowercase().as_str()));
            // "€3,50": a comma before one or two final digits is a decimal comma, not thousands
            let decimal_comma = digits.split_once(',').is_some_and(|(a, b)| {
                !a.is_empty() && !b.contains(',') && (1..=2).contains(&b.len())
            });
            let digits_read = if decimal_comma {
                digits.replace(',', ".")
            } else {
                digits.replace(',', "")
            };
            // "one of their MEPs" is a choice of one, not a count: left alone
            if claim[tok.end..].trim_start().starts_with("of ")
                && (raw.eq_ignore_ascii_case("one") || raw == "1")
            {
                continue;
            }
            let (value, percent) = if numeric {
                match digits_read.parse::<f64>() {
                    Ok(v) => (v, tok.number.is_some_and(|n| n.percent)),
                    Err(_) => continue,
                }
            } else {
                match self.rules.number_words.get(&raw.to_lowercase()) {
                    Some(v) => (*v, tok.number.is_some_and(|n| n.percent)),
                    None => continue,
                }
            };
            let kind = self.kind(claim, tok.start, tok.end, value, percent);
            let places = if numeric { decimals(&digits_read) } else { 0 };
            let bounds = range_bounds(claim, tok.start, tok.end);
            let Some(new) = self.change(value, kind, places, bounds) else {
                continue;
            };
            let replacement = if numeric {
                let mut s = format!("{new:.places$}");
                if decimal_comma {
                    s = s.replace('.', ",");
                } else if digits.contains(',') {
                    s = with_thousands(&s);
                }
                if kind == Kind::Ordinal {
                    s.push_str(ordinal_suffix(new as u64));
                } else {
                    s.push_str(glued);
                }
                s
            } else {
                match self.word_for(new) {
                    Some(w) if raw.chars().next().is_some_and(char::is_uppercase) => {
                        crate::text::words::capitalised(w)
                    }
                    Some(w) => w.to_string(),
                    None => format_number(new),
                }
            };
            // "one day" becomes "two days": the noun after a one takes the plural
            let mut rest = claim[tok.end..].to_string();
            if value == 1.0 && matches!(kind, Kind::Amount | Kind::Age) {
                rest = plural_after(&rest);
            }
            out.push(format!("{}{}{}", &claim[..tok.start], replacement, rest));
        }
        out
    }
}

/// The number at the other end of a range the number `claim[start..end]` is part of, as
/// (lower bound, upper bound) for its new value: "4 to 6" bounds the 4 below 6 and the 6 above
/// 4; "between 2 and 5" likewise. No range: unbounded.
fn range_bounds(claim: &str, start: usize, end: usize) -> (f64, f64) {
    let num = |w: &str| -> Option<f64> {
        let w = w.trim_matches(|c: char| !c.is_ascii_digit() && c != '.' && c != ',');
        (!w.is_empty() && w.starts_with(|c: char| c.is_ascii_digit()))
            .then(|| w.replace(',', "").parse().ok())
            .flatten()
    };
    let after: Vec<&str> = claim[end..].split_whitespace().take(2).collect();
    let before: Vec<&str> = claim[..start].split_whitespace().rev().take(3).collect();
    let mut lo = f64::NEG_INFINITY;
    let mut hi = f64::INFINITY;
    if after.len() == 2 && matches!(after[0], "to" | "and" | "-" | "–") {
        let between = after[0] != "and" || before.first() == Some(&"between");
        if let (true, Some(m)) = (between, num(after[1])) {
            hi = m;
        }
    }
    if before.len() >= 2 && matches!(before[0], "to" | "and" | "-" | "–") {
        let between = before[0] != "and" || before.get(2) == Some(&"between");
        if let (true, Some(m)) = (between, num(before[1])) {
            lo = m;
        }
    }
    (lo, hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_quoted_broken_mutants_are_no_longer_made() {
        // no pluralised function word, no "one of" rewritten
        assert_eq!(
            swap("One of their MEPs voted against."),
            Vec::<String>::new()
        );
        assert_eq!(
            swap("It may not affect up to 1 in 10 people."),
            vec![
                "It may not affect up to 2 in 10 people.",
                "It may not affect up to 1 in 20 people."
            ]
        );
        assert!(!swap("Adults can take one or two 200 mg tablets.")
            .iter()
            .any(|m| m.contains("ors")));
        assert!(!swap("Leeds won 3-1 to reach the final.")
            .iter()
            .any(|m| m.contains("tos")));
        // a range keeps its ends in order
        assert_eq!(
            swap("Take one every 4 to 6 hours."),
            vec![
                "Take two every 4 to 6 hours.",
                "Take one every 2 to 6 hours.",
                "Take one every 4 to 12 hours."
            ]
        );
        assert_eq!(
            swap("Sales grew between 20 and 30 per cent."),
            vec![
                "Sales grew between 10 and 30 per cent.",
                "Sales grew between 20 and 60 per cent."
            ]
        );
        // a decimal comma stays a decimal comma: €3,50 is three euros fifty
        assert_eq!(swap("A pack costs €3,50."), vec!["A pack costs €7,00."]);
        assert_eq!(swap("It costs €1,200."), vec!["It costs €2,400."]);
        // noon moves to 1 p.m., not to 11 p.m.
        assert_eq!(
            swap("The shop closes at 12 p.m. on Sundays."),
            vec!["The shop closes at 1 p.m. on Sundays."]
        );
    }

    fn swap(s: &str) -> Vec<String> {
        NumberSwap::load(Path::new("n.yaml"), OPERATOR.builtin)
            .unwrap()
            .mutate(&Input::bare(s))
    }

    #[test]
    fn each_quantity_gives_one_mutant_written_the_same_way() {
        assert_eq!(
            swap("Refunds take 4 to 6 days and cost €1,200."),
            vec![
                "Refunds take 2 to 6 days and cost €1,200.",
                "Refunds take 4 to 12 days and cost €1,200.",
                "Refunds take 4 to 6 days and cost €2,400.",
            ]
        );
        assert_eq!(
            swap("Profit was $ 2.5 million."),
            vec!["Profit was $ 5.0 million."]
        );
        assert_eq!(swap("It raised £1.5m."), vec!["It raised £3.0m."]);
    }

    #[test]
    fn values_stay_possible() {
        // a percentage stays within 0-100, an ordinal stays an ordinal, dates are left alone
        assert_eq!(swap("80% of students."), vec!["40% of students."]);
        assert_eq!(swap("30% of students."), vec!["60% of students."]);
        assert_eq!(swap("It came 3rd."), vec!["It came 4th."]);
        assert_eq!(
            swap("It is offered to adults aged 65 and over."),
            vec!["It is offered to adults aged 33 and over."]
        );
        assert_eq!(swap("A 17-year-old won."), vec!["A 34-year-old won."]);
        assert_eq!(swap("It came 21st."), vec!["It came 22nd."]);
        assert!(swap("It was released in 1995.").is_empty());
        assert!(swap("It opened on November 28.").is_empty());
        assert!(swap("It opened on 28 November 1972.").is_empty());
        assert_eq!(swap("Doors open at 11 a.m."), vec!["Doors open at 10 a.m."]);
        assert_eq!(swap("Doors open at 10:30."), vec!["Doors open at 11:30."]);
    }

    #[test]
    fn zero_falls_through_to_the_next_change_and_words_stay_words() {
        assert_eq!(swap("It has 0 fees."), vec!["It has 1 fees."]);
        assert_eq!(swap("Two users."), vec!["Four users."]);
        assert_eq!(
            swap("Cancel at least one day ahead."),
            vec!["Cancel at least two days ahead."]
        );
        assert!(swap("S3 and p-2071.").is_empty());
    }
}
