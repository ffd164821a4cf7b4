//! `date_shift`: dates and temporal anchors moved to realistic neighbours. A year moves by a
//! few years (never further than the rule file's bound past the latest year the passages or the
//! claim mention), a month or a weekday becomes an adjacent one, a day of the month moves by one
//! within the month's length, and an anchor before a date changes ("since 2019" -> "until 2019").
//! Every value it writes is a possible date.

use super::rules::parse;
use super::{Input, Mutator, Operator, Purpose};
use crate::error::{Error, Result};
use crate::text::words::find_word;
use serde::Deserialize;
use std::path::Path;

pub const OPERATOR: Operator = Operator {
    name: "date_shift",
    purpose: Purpose::Fault,
    stands_for:
        "a date or temporal anchor moved: another year, month, weekday or day, since for until",
    typologies:
        "FRANK CircE; RAGTruth evident conflict; FaithBench intrinsic; TofuEval mis-referencing",
    rules: "date_shift.yaml",
    builtin: include_str!("../../mutators/date_shift.yaml"),
    build: |path, text| Ok(Box::new(DateShift::load(path, text)?)),
    example: [
        "The bridge opened on 22 July 1947.",
        "The bridge opened on 22 July 1948.",
    ],
};

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Rules {
    /// Month names in calendar order, each with its length in days (February: 28).
    months: Vec<(String, u32)>,
    /// Weekday names in order.
    weekdays: Vec<String>,
    /// Four-digit numbers in this range are years.
    years: [u32; 2],
    /// How a year moves: the first step that stays within `max_ahead` of the latest year seen.
    year_steps: Vec<i32>,
    max_ahead: u32,
    /// Words before a month that make it a date ("in May"), so "May" the verb is left alone.
    month_cues: Vec<String>,
    /// Anchor pairs `[from, to]` applied before a year or a month.
    #[serde(default)]
    anchors: Vec<[String; 2]>,
}

pub struct DateShift {
    rules: Rules,
}

/// The latest year the passages give (0 when none), as kept for a context.
struct LatestYear(u32);

fn years_in(text: &str, range: [u32; 2]) -> Vec<(usize, usize, u32)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i + 4 <= b.len() {
        let word_start = i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b',');
        if word_start && b[i..i + 4].iter().all(u8::is_ascii_digit) {
            let after = b.get(i + 4).copied();
            let ends = after.is_none_or(|c| !(c.is_ascii_alphanumeric() || c == b'%'))
                && !(after == Some(b',') && b.get(i + 5).is_some_and(u8::is_ascii_digit))
                && !(after == Some(b'.') && b.get(i + 5).is_some_and(u8::is_ascii_digit));
            let money = text[..i].trim_end().ends_with(|c: char| "€$£¥".contains(c));
            if ends && !money {
                let y: u32 = text[i..i + 4].parse().unwrap_or(0);
                if (range[0]..=range[1]).contains(&y) {
                    out.push((i, i + 4, y));
                }
                i += 4;
                continue;
            }
        }
        i += 1;
    }
    out
}

impl DateShift {
    fn load(path: &Path, text: &str) -> Result<DateShift> {
        let rules: Rules = parse(path, text)?;
        if rules.months.len() != 12 || rules.months.iter().any(|(_, d)| !(28..=31).contains(d)) {
            return Err(Error::input(
                path,
                super::rules::line_of(text, &|l| l.contains("months")),
                "`months` must list the twelve months, each with 28 to 31 days",
                "write `months: [[January, 31], [February, 28], ...]`",
            ));
        }
        if rules.weekdays.len() != 7 || rules.year_steps.is_empty() {
            return Err(Error::input(
                path,
                super::rules::line_of(text, &|l| {
                    l.contains("weekdays") || l.contains("year_steps")
                }),
                "`weekdays` must list seven days and `year_steps` at least one step",
                "compare with mutators/date_shift.yaml",
            ));
        }
        Ok(DateShift { rules })
    }

    fn month_at(&self, claim: &str, from: usize) -> Vec<(usize, usize, usize)> {
        let mut out = Vec::new();
        for (mi, (name, _)) in self.rules.months.iter().enumerate() {
            let mut start = from;
            while let Some(at) = find_word(claim, name, start) {
                let end = at + name.len();
                let prev = claim[..at]
                    .trim_end()
                    .rsplit(|c: char| c.is_whitespace())
                    .next()
                    .unwrap_or("")
                    .trim_matches(|c: char| !c.is_alphanumeric())
                    .to_lowercase();
                let next_is_digit = claim[end..]
                    .trim_start_matches([' ', ','])
                    .starts_with(|c: char| c.is_ascii_digit());
                let prev_is_digit = prev.chars().next().is_some_and(|c| c.is_ascii_digit());
                if next_is_digit || prev_is_digit || self.rules.month_cues.contains(&prev) {
                    out.push((at, end, mi));
                }
                start = end;
            }
        }
        out.sort();
        out
    }
}

fn splice(text: &str, at: usize, end: usize, with: &str) -> String {
    format!("{}{}{}", &text[..at], with, &text[end..])
}

impl Mutator for DateShift {
    fn mutate(&self, input: &Input<'_>) -> Vec<String> {
        let claim = input.claim;
        let r = &self.rules;
        let mut out: Vec<String> = Vec::new();
        // years; the latest one of the passages read once per context, and only for a claim
        // with a year
        let years = years_in(claim, r.years);
        let latest = if years.is_empty() {
            0
        } else {
            let passages = input.memo(u64::from(r.years[0]) << 32 | u64::from(r.years[1]), || {
                LatestYear(
                    input
                        .passages
                        .iter()
                        .flat_map(|t| years_in(t, r.years))
                        .map(|(_, _, y)| y)
                        .max()
                        .unwrap_or(0),
                )
            });
            years.iter().map(|y| y.2).max().unwrap_or(0).max(passages.0)
        };
        for (at, end, y) in years {
            let new = r.year_steps.iter().map(|s| y as i64 + *s as i64).find(|n| {
                *n >= r.years[0] as i64 && *n <= (latest + r.max_ahead).min(r.years[1]) as i64
            });
            if let Some(n) = new {
                out.push(splice(claim, at, end, &n.to_string()));
            }
        }
        // months, and the day of the month next to one
        let months = self.month_at(claim, 0);
        for &(at, end, mi) in &months {
            let next = if mi == 11 { 10 } else { mi + 1 };
            out.push(splice(claim, at, end, &r.months[next].0));
            // "22 July" or "July 22"
            let len = r.months[mi].1;
            let after = &claim[end..];
            let day_after = after
                .strip_prefix(' ')
                .map(|t| t.chars().take_while(char::is_ascii_digit).count())
                .filter(|n| (1..=2).contains(n))
                .map(|n| (end + 1, end + 1 + n));
            let before = claim[..at].strip_suffix(' ').unwrap_or("");
            let digits = before
                .chars()
                .rev()
                .take_while(char::is_ascii_digit)
                .count();
            let day_before = (digits > 0 && digits <= 2)
                .then(|| (at - 1 - digits, at - 1))
                .filter(|(s, _)| *s == 0 || !claim[..*s].ends_with(|c: char| c.is_alphanumeric()));
            for (s, e) in day_after.into_iter().chain(day_before) {
                if claim[e..].starts_with(|c: char| c.is_ascii_digit()) {
                    continue;
                }
                let Ok(d) = claim[s..e].parse::<u32>() else {
                    continue;
                };
                if !(1..=len).contains(&d) {
                    continue;
                }
                let nd = if d < len { d + 1 } else { d - 1 };
                out.push(splice(claim, s, e, &nd.to_string()));
            }
        }
        // weekdays
        for (wi, day) in r.weekdays.iter().enumerate() {
            if let Some(at) = find_word(claim, day, 0) {
                let next = &r.weekdays[(wi + 1) % 7];
                out.push(splice(claim, at, at + day.len(), next));
            }
        }
        // anchors before a date
        for [from, to] in &r.anchors {
            let mut start = 0;
            while let Some((at, end, cap)) = super::words::find_phrase(claim, from, start) {
                let rest = claim[end..].trim_start();
                let dated = years_in(rest, r.years)
                    .first()
                    .is_some_and(|(at, _, _)| *at == 0)
                    || r.months.iter().any(|(m, _)| rest.starts_with(m.as_str()));
                if dated {
                    let to = if cap {
                        crate::text::words::capitalised(to)
                    } else {
                        to.clone()
                    };
                    out.push(splice(claim, at, end, &to));
                    break;
                }
                start = end;
            }
        }
        out.dedup();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shift(s: &str, passages: &[&str]) -> Vec<String> {
        DateShift::load(Path::new("d.yaml"), OPERATOR.builtin)
            .unwrap()
            .mutate(&Input {
                passages,
                ..Input::bare(s)
            })
    }

    #[test]
    fn dates_move_to_possible_neighbours() {
        assert_eq!(
            shift("The bridge opened on 22 July 1947.", &[]),
            vec![
                "The bridge opened on 22 July 1948.",
                "The bridge opened on 22 August 1947.",
                "The bridge opened on 23 July 1947.",
            ]
        );
        assert_eq!(
            shift("It aired on November 30, 1972.", &[]),
            vec![
                "It aired on November 30, 1973.",
                "It aired on December 30, 1972.",
                "It aired on November 29, 1972.",
            ]
        );
        assert_eq!(
            shift("Talks resume on Friday.", &[]),
            vec!["Talks resume on Saturday."]
        );
        assert_eq!(
            shift("Prices have been frozen since 2019.", &[]),
            vec![
                "Prices have been frozen since 2020.",
                "Prices have been frozen until 2019."
            ]
        );
    }

    #[test]
    fn words_that_only_look_like_dates_are_left_alone() {
        assert!(shift("Officials may review it. It costs $2000.", &[]).is_empty());
        assert!(shift("The fund holds 1,995 homes and 2019.5 tonnes.", &[]).is_empty());
        // "by" before an amount is no anchor
        assert!(shift("Tax could rise by 4.99 per cent.", &[]).is_empty());
    }

    #[test]
    fn a_year_never_moves_past_the_passages_by_more_than_the_bound() {
        // the latest year in the passages is 2026: 2026 + 1 is within max_ahead
        assert_eq!(
            shift(
                "The plan ends in 2026.",
                &["The plan runs from 2024 to 2026."]
            ),
            vec!["The plan ends in 2027."]
        );
    }
}
