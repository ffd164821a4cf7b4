//! `relative_date`: a time anchored differently from the passages. A relative time is made
//! absolute ("last May" -> "May 2023", with the latest year the passages mention, which they never
//! tie to it), or an absolute one made relative ("in May 2021" -> "last May"): either way the claim
//! now says when, and the passages do not.

use super::rules::parse;
use super::{Input, Mutator, Operator, Purpose};
use crate::error::Result;
use regex::Regex;
use serde::Deserialize;
use std::path::Path;

pub const OPERATOR: Operator = Operator {
    name: "relative_date",
    purpose: Purpose::Fault,
    stands_for: "a relative time made absolute, or an absolute one relative: last May for May 2021",
    typologies:
        "FRANK CircE; RAGTruth subtle baseless info; FaithBench extrinsic; TofuEval mis-referencing",
    rules: "relative_date.yaml",
    builtin: include_str!("../../mutators/relative_date.yaml"),
    build: |path, text| Ok(Box::new(RelativeDate::load(path, text)?)),
    example: [
        "The plant closed last May.",
        "The plant closed in May 2021.",
    ],
};

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Rules {
    relative: Vec<String>,
    months: Vec<String>,
    #[serde(default)]
    seasons: Vec<String>,
}

pub struct RelativeDate {
    /// "last May", "next spring": (whole match, the month or season).
    relative: Regex,
    /// "in May 2021": (whole match, the month).
    absolute: Regex,
}

impl RelativeDate {
    fn load(path: &Path, text: &str) -> Result<RelativeDate> {
        let rules: Rules = parse(path, text)?;
        if rules
            .relative
            .iter()
            .chain(&rules.months)
            .any(|w| crate::text::words::is_blank(w))
        {
            return Err(super::rules::empty_word_error(path, text, "a word"));
        }
        let alt = |ws: &[String]| {
            ws.iter()
                .map(|w| regex::escape(w))
                .collect::<Vec<_>>()
                .join("|")
        };
        let times: Vec<String> = rules.months.iter().chain(&rules.seasons).cloned().collect();
        let relative = Regex::new(&format!(
            r"\b(?i:{})\s+({})\b",
            alt(&rules.relative),
            alt(&times)
        ))
        .expect("escaped words make a valid regex");
        let absolute = Regex::new(&format!(
            r"\bin\s+({})\s+((?:19|20)\d\d)\b",
            alt(&rules.months)
        ))
        .expect("escaped words make a valid regex");
        Ok(RelativeDate { relative, absolute })
    }
}

/// The latest four-digit year (1900-2099) the texts mention.
fn latest_year(texts: &[&str]) -> Option<u32> {
    let re = Regex::new(r"\b(?:19|20)\d\d\b").expect("a valid regex");
    texts
        .iter()
        .flat_map(|t| re.find_iter(t).filter_map(|m| m.as_str().parse().ok()))
        .max()
}

impl Mutator for RelativeDate {
    fn mutate(&self, input: &Input<'_>) -> Vec<String> {
        let claim = input.claim;
        let mut out = Vec::new();
        if let Some(c) = self.relative.captures(claim) {
            let (whole, time) = (c.get(0).expect("match"), &c[1]);
            // a month gets a year ("in May 2023"); a season too ("in the spring of 2023")
            let is_month = time.chars().next().is_some_and(char::is_uppercase);
            if let Some(year) = latest_year(input.passages).or_else(|| latest_year(&[claim])) {
                let before = claim[..whole.start()].trim_end();
                // after a preposition of its own ("since last May") the date takes no "in"
                let prep = before
                    .rsplit(' ')
                    .next()
                    .map(str::to_lowercase)
                    .is_some_and(|w| {
                        [
                            "since", "until", "till", "by", "from", "before", "after", "to", "in",
                            "of", "during",
                        ]
                        .contains(&w.as_str())
                    });
                let absolute = match (is_month, prep) {
                    (true, false) => format!("in {time} {year}"),
                    (true, true) => format!("{time} {year}"),
                    (false, false) => format!("in the {time} of {year}"),
                    (false, true) => format!("the {time} of {year}"),
                };
                // "closed last May" -> "closed in May 2023"; "Last May, ..." -> "In May 2023, ..."
                let text = if before.is_empty() {
                    format!(
                        "{}{}",
                        crate::text::words::capitalised(&absolute),
                        &claim[whole.end()..]
                    )
                } else {
                    format!(
                        "{}{}{}",
                        &claim[..whole.start()],
                        absolute,
                        &claim[whole.end()..]
                    )
                };
                out.push(text);
            }
        }
        if let Some(c) = self.absolute.captures(claim) {
            let whole = c.get(0).expect("match");
            let relative = format!("last {}", &c[1]);
            let text = if claim[..whole.start()].trim().is_empty() {
                format!(
                    "{}{}",
                    crate::text::words::capitalised(&relative),
                    &claim[whole.end()..]
                )
            } else {
                format!(
                    "{}{}{}",
                    &claim[..whole.start()],
                    relative,
                    &claim[whole.end()..]
                )
            };
            out.push(text);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(claim: &str, passages: &[&str]) -> Vec<String> {
        RelativeDate::load(Path::new("r.yaml"), OPERATOR.builtin)
            .unwrap()
            .mutate(&Input {
                passages,
                ..Input::bare(claim)
            })
    }

    #[test]
    fn a_relative_time_is_made_absolute_and_an_absolute_one_relative() {
        let p =
            ["The plant, opened in 2019, closed last May, the company said in its 2021 report."];
        assert_eq!(
            m("The plant closed last May.", &p),
            vec!["The plant closed in May 2021."]
        );
        assert_eq!(
            m("Last May, the plant closed.", &p),
            vec!["In May 2021, the plant closed."]
        );
        assert_eq!(
            m("Sales rose next spring.", &p),
            vec!["Sales rose in the spring of 2021."]
        );
        assert_eq!(
            m("The plant closed in May 2021.", &p),
            vec!["The plant closed last May."]
        );
        assert_eq!(
            m("It was the fastest growth since last May.", &p),
            vec!["It was the fastest growth since May 2021."]
        );
        // no year anywhere: nothing to anchor a relative time to
        assert!(m("The plant closed last May.", &["It closed last May."]).is_empty());
        // "may" the verb is no month
        assert!(m("The plant may close last year.", &p).is_empty());
    }
}
