//! `number_rewrite`: numbers and dates written another way, which a checker should still pass
//! (CheckList's invariance test): "14" <-> "fourteen", "50%" -> "half", "17%" <-> "17 per cent",
//! "$1.5 million" <-> "$1,500,000", "July 22, 1947" <-> "22 July 1947". Its cases are
//! false-alarm opportunities in the invariance row, never faults.

use super::rules::parse;
use super::{Input, Mutator, Operator, Purpose};
use crate::error::Result;
use regex::Regex;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::LazyLock;

pub const OPERATOR: Operator = Operator {
    name: "number_rewrite",
    purpose: Purpose::Invariance,
    stands_for: "a number or date written another way (14/fourteen, 50%/half, $1.5 million/$1,500,000): still supported",
    typologies: "CheckList invariance (INV); no fault: a false alarm on it is a false alarm",
    rules: "number_rewrite.yaml",
    builtin: include_str!("../../mutators/number_rewrite.yaml"),
    build: |path, text| Ok(Box::new(NumberRewrite::load(path, text)?)),
    example: [
        "Refunds are issued within 14 days.",
        "Refunds are issued within fourteen days.",
    ],
};

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Rules {
    /// Whole numbers written as words, and back.
    number_words: BTreeMap<String, u64>,
    /// Percentages with a word for them ("50": "half").
    #[serde(default)]
    percent_words: BTreeMap<String, String>,
    /// How "%" is written out ("per cent").
    percent_spelled: String,
    /// Scale words and their values, for "$1.5 million" <-> "$1,500,000".
    scales: BTreeMap<String, u64>,
    /// Month names, for "July 22, 1947" <-> "22 July 1947".
    months: Vec<String>,
}

pub struct NumberRewrite {
    rules: Rules,
    /// "July 22, 1947" and "22 July 1947", built from the rule file's months once.
    us_date: Regex,
    uk_date: Regex,
}

static PERCENT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(\d+(?:\.\d+)?)(%| per ?cent\b| percent\b)").expect("valid"));
static AMOUNT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"([€$£¥] ?)(\d+(?:\.\d+)?) (million|billion|thousand)\b|([€$£¥] ?)(\d{1,3}(?:,\d{3})+)\b",
    )
    .expect("valid")
});

impl NumberRewrite {
    fn load(path: &Path, text: &str) -> Result<NumberRewrite> {
        let rules: Rules = parse(path, text)?;
        if rules
            .number_words
            .keys()
            .any(|w| crate::text::words::is_blank(w))
            || crate::text::words::is_blank(&rules.percent_spelled)
        {
            return Err(super::rules::empty_word_error(path, text, "a word"));
        }
        let months: Vec<String> = rules.months.iter().map(|m| regex::escape(m)).collect();
        let months = months.join("|");
        let date = |p: String| {
            Regex::new(&p).map_err(|e| {
                crate::error::Error::input(
                    path,
                    super::rules::line_of(text, &|l| l.contains("months")),
                    format!("`months` do not make a pattern: {e}"),
                    "list month names as plain words",
                )
            })
        };
        Ok(NumberRewrite {
            us_date: date(format!(r"\b({months}) (\d{{1,2}}), (\d{{4}})\b"))?,
            uk_date: date(format!(r"\b(\d{{1,2}}) ({months}) (\d{{4}})\b"))?,
            rules,
        })
    }

    fn word_of(&self, n: u64) -> Option<&str> {
        self.rules
            .number_words
            .iter()
            .find(|(_, v)| **v == n)
            .map(|(w, _)| w.as_str())
    }
}

/// `text` with `text[at..end]` replaced by `with`, capitalised at the start of the text.
fn splice(text: &str, at: usize, end: usize, with: &str) -> String {
    let with = if at == 0 {
        crate::text::words::capitalised(with)
    } else {
        with.to_string()
    };
    format!("{}{}{}", &text[..at], with, &text[end..])
}

impl Mutator for NumberRewrite {
    #[allow(clippy::too_many_lines)] // every rewrite of one number, in one pass
    fn mutate(&self, input: &Input<'_>) -> Vec<String> {
        let claim = input.claim;
        let r = &self.rules;
        let mut out: Vec<String> = Vec::new();
        let mut push = |m: String| {
            if m != claim && !out.contains(&m) {
                out.push(m);
            }
        };
        // a small whole number in digits <-> in words (not a percentage, year, time or part of a
        // larger figure)
        for tok in crate::text::tokens::tokenize(claim) {
            let raw = &claim[tok.start..tok.end];
            let before = claim[..tok.start].chars().next_back();
            let after = claim[tok.end..].chars().next();
            let glued = |c: Option<char>| c.is_some_and(|c| "€$£¥:/-%,".contains(c));
            let bare = !glued(before)
                && !glued(after)
                && !claim[tok.end..].trim_start().starts_with(['%', ':'])
                && !claim[tok.end..].trim_start().starts_with("per cent")
                && !claim[tok.end..].trim_start().starts_with("percent")
                && !["a.m.", "p.m.", "am ", "pm ", "o'clock"]
                    .iter()
                    .any(|w| claim[tok.end..].trim_start().starts_with(w));
            if !bare {
                continue;
            }
            if raw.chars().all(|c| c.is_ascii_digit()) {
                if let Some(w) = raw.parse::<u64>().ok().and_then(|n| self.word_of(n)) {
                    push(splice(claim, tok.start, tok.end, w));
                    break;
                }
            } else if let Some(n) = r.number_words.get(&raw.to_lowercase()) {
                push(splice(claim, tok.start, tok.end, &n.to_string()));
                break;
            }
        }
        // percentages
        if let Some(c) = PERCENT.captures(claim) {
            let (all, num, mark) = (c.get(0).unwrap(), &c[1], &c[2]);
            if let Some(word) = r.percent_words.get(num) {
                push(splice(claim, all.start(), all.end(), word));
            }
            let other = if mark == "%" {
                format!("{num} {}", r.percent_spelled)
            } else {
                format!("{num}%")
            };
            push(splice(claim, all.start(), all.end(), &other));
        }
        // amounts with a scale word <-> in full
        if let Some(c) = AMOUNT.captures(claim) {
            let all = c.get(0).unwrap();
            if let (Some(sign), Some(num), Some(scale)) = (c.get(1), c.get(2), c.get(3)) {
                let value = r
                    .scales
                    .get(scale.as_str())
                    .and_then(|s| num.as_str().parse::<f64>().ok().map(|v| v * *s as f64));
                if let Some(v) = value.filter(|v| v.fract() == 0.0 && *v < 1e15) {
                    push(splice(
                        claim,
                        all.start(),
                        all.end(),
                        &format!(
                            "{}{}",
                            sign.as_str(),
                            crate::text::numbers::with_thousands(&(v as u64).to_string())
                        ),
                    ));
                }
            } else if let (Some(sign), Some(full)) = (c.get(4), c.get(5)) {
                let v: u64 = full.as_str().replace(',', "").parse().unwrap_or(0);
                if let Some((name, s)) = r
                    .scales
                    .iter()
                    .filter(|(_, s)| {
                        v >= **s && v.checked_mul(100).is_some_and(|h| h.is_multiple_of(**s))
                    })
                    .max_by_key(|(_, s)| **s)
                {
                    let short = crate::text::numbers::format_number(v as f64 / *s as f64);
                    push(splice(
                        claim,
                        all.start(),
                        all.end(),
                        &format!("{}{short} {name}", sign.as_str()),
                    ));
                }
            }
        }
        // dates: "July 22, 1947" <-> "22 July 1947"
        if let Some(c) = self.us_date.captures(claim) {
            let all = c.get(0).unwrap();
            push(splice(
                claim,
                all.start(),
                all.end(),
                &format!("{} {} {}", &c[2], &c[1], &c[3]),
            ));
        }
        if let Some(c) = self.uk_date.captures(claim) {
            let all = c.get(0).unwrap();
            push(splice(
                claim,
                all.start(),
                all.end(),
                &format!("{} {}, {}", &c[2], &c[1], &c[3]),
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(s: &str) -> Vec<String> {
        NumberRewrite::load(Path::new("n.yaml"), OPERATOR.builtin)
            .unwrap()
            .mutate(&Input::bare(s))
    }

    #[test]
    fn numbers_and_dates_are_written_another_way() {
        assert_eq!(
            m(OPERATOR.example[0]),
            vec![OPERATOR.example[1].to_string()]
        );
        assert_eq!(
            m("50% of staff work remotely."),
            vec![
                "Half of staff work remotely.",
                "50 per cent of staff work remotely."
            ]
        );
        assert_eq!(m("Turnout rose 17 per cent."), vec!["Turnout rose 17%."]);
        assert_eq!(m("It raised $1.5 million."), vec!["It raised $1,500,000."]);
        assert_eq!(
            m("It raised $ 160,000,000."),
            vec!["It raised $ 160 million."]
        );
        assert_eq!(
            m("The bridge opened on July 22, 1947."),
            vec!["The bridge opened on 22 July 1947."]
        );
        // a year, a time and a figure with decimals are left alone
        assert!(m("It opened in 1995 at 10:30 with 2.5 staff.").is_empty());
        assert!(m("Open from 8 a.m. daily.").is_empty());
    }
}
