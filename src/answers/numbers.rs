//! Numbers in claims that no passage states: flagged, and where one arithmetic step on stated
//! numbers gives them (a product, sum or difference of two, like 8 users at €12 each making €96),
//! marked `derived` with the arithmetic, since an NLI model cannot multiply.

use crate::text::{
    numbers::{format_number, NumberTag},
    tokens::tokenize,
};
use serde::Serialize;

/// A number of a claim that no passage contains.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NumberNote {
    pub number: String,
    /// `derived` (one arithmetic step from stated numbers), `from_question` (the question states
    /// it), or `not_in_passages`.
    pub status: String,
    /// The arithmetic for `derived`, e.g. "8 × 12 = 96".
    pub arithmetic: Option<String>,
}

fn tags(text: &str) -> Vec<NumberTag> {
    tokenize(text).iter().filter_map(|t| t.number).collect()
}

fn values(text: &str) -> Vec<f64> {
    tags(text).iter().map(|n| n.value).collect()
}

fn same(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9 * a.abs().max(1.0)
}

/// Notes on every number of `claim` that appears in no passage.
pub fn check(claim: &str, passages: &[&str], question: &str) -> Vec<NumberNote> {
    check_stated(claim, &stated(passages), question)
}

/// The numbers `passages` state, for [`check_stated`]: read once for every claim on them.
pub fn stated(passages: &[&str]) -> Vec<NumberTag> {
    passages.iter().flat_map(|p| tags(p)).collect()
}

/// [`check`] with the passages' numbers already read by [`stated`].
pub fn check_stated(claim: &str, stated: &[NumberTag], question: &str) -> Vec<NumberNote> {
    // a question's "8-person team" states 8 too
    let mut in_question = values(question);
    for t in tokenize(question) {
        let raw = &question[t.start..t.end];
        if let Some((head, _)) = raw.split_once('-') {
            if let Ok(v) = head.parse::<f64>() {
                in_question.push(v);
            }
        }
    }
    let claim_tags = tags(claim);
    let in_claim: Vec<f64> = claim_tags.iter().map(|n| n.value).collect();
    let question_tags: Vec<NumberTag> = in_question
        .iter()
        .map(|&value| NumberTag::plain(value))
        .collect();
    let mut out = Vec::new();
    for (i, &n) in in_claim.iter().enumerate() {
        let want = claim_tags[i];
        // the same quantity: "12 users" is not "€12"
        if stated.iter().any(|p| p.same_as(&want)) {
            continue;
        }
        // operands: stated numbers, the question's, and the claim's own other numbers
        let mut pool: Vec<NumberTag> = stated.to_vec();
        pool.extend(&question_tags);
        pool.extend(
            claim_tags
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .map(|(_, t)| *t),
        );
        pool.sort_by(|a, b| a.value.total_cmp(&b.value));
        pool.dedup_by(|a, b| a.same_as(b));
        // a small count ("two goals", "three boxers") is read as a count of things, never
        // explained by coincidental arithmetic; nor is a year
        let count = n.fract() == 0.0
            && (0.0..=12.0).contains(&n)
            && !want.percent
            && want.currency.is_none();
        let year = want.clock
            || n.fract() == 0.0
                && (1000.0..=2100.0).contains(&n)
                && !want.percent
                && want.currency.is_none();
        let kind =
            |t: &NumberTag| t.percent == want.percent && t.currency == want.currency && !t.clock;
        let plain = |t: &NumberTag| !t.percent && t.currency.is_none() && !t.clock;
        let mut arithmetic = None;
        if !count && !year {
            'search: for (ai, a) in pool.iter().enumerate() {
                for b in &pool[ai..] {
                    let f = format_number;
                    let (x, y) = (a.value, b.value);
                    // a sum or difference of two of the same kind; a product of a count and an
                    // amount of the result's kind (8 users at €12 is €96)
                    let same_kind = kind(a) && kind(b);
                    let scaled = (kind(a) && plain(b)) || (plain(a) && kind(b));
                    // the text is written only for the step that gives the number
                    for (ok, result, (l, op, r)) in [
                        (scaled, x * y, (x, '×', y)),
                        (same_kind, x + y, (x, '+', y)),
                        (same_kind, y - x, (y, '−', x)),
                    ] {
                        if ok && same(result, n) && !same(x, n) && !same(y, n) {
                            arithmetic = Some(format!("{} {op} {} = {}", f(l), f(r), f(n)));
                            break 'search;
                        }
                    }
                }
            }
        }
        let status = if arithmetic.is_some() {
            "derived"
        } else if in_question.iter().any(|&q| same(q, n)) {
            "from_question"
        } else {
            "not_in_passages"
        };
        out.push(NumberNote {
            number: format_number(n),
            status: status.into(),
            arithmetic,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLANS: &str = "The Team plan costs €12 per user per month and includes up to 10 users.";
    const STORAGE: &str =
        "Each user on the Team plan gets 50 GB of storage, pooled across the workspace.";

    #[test]
    fn small_counts_and_years_are_never_explained_by_coincidental_arithmetic() {
        // "1 + 1 = 2" and "2017 − 2015 = 2" used to be offered for "two goals", "two boxers"
        let n = check(
            "He scored two goals as the two boxers met again.",
            &["He scored once in 2015 and once in 2017; 1 was a penalty."],
            "",
        );
        assert!(n.iter().all(|x| x.arithmetic.is_none()), "{n:?}");
        // sums of two amounts of one kind still are
        let n = check(
            "Together they cost €30.",
            &["The bag costs €12 and the shoes cost €18."],
            "",
        );
        assert_eq!(n[0].arithmetic.as_deref(), Some("12 + 18 = 30"));
        // a percentage is never the sum of two amounts
        let n = check(
            "Costs rose 30%.",
            &["The bag costs €12 and the shoes cost €18."],
            "",
        );
        assert!(n[0].arithmetic.is_none(), "{n:?}");
    }

    #[test]
    fn each_arithmetic_step_writes_its_own_text_and_the_passages_numbers_are_read_once() {
        let passages = ["Tickets cost €36,50 at the door and €29,50 online."];
        let stated = stated(&passages);
        let n = check_stated("Buying online saves €7.", &stated, "");
        assert_eq!(n[0].arithmetic.as_deref(), Some("36.5 − 29.5 = 7"), "{n:?}");
        // the same notes as reading the passages for the claim
        for claim in [
            "Buying online saves €7.",
            "Two tickets cost €66 in all.",
            "About 17 per cent of tickets sold online.",
        ] {
            assert_eq!(
                check_stated(claim, &stated, "How much are tickets?"),
                check(claim, &passages, "How much are tickets?"),
                "{claim}"
            );
        }
    }

    #[test]
    fn a_derived_number_shows_its_arithmetic() {
        let n = check(
            "Eight users would pay €96 a month.",
            &[PLANS],
            "We're moving our 8-person team.",
        );
        let n96 = n.iter().find(|x| x.number == "96").unwrap();
        assert_eq!(n96.status, "derived");
        assert_eq!(n96.arithmetic.as_deref(), Some("8 × 12 = 96"));
        let n8 = n.iter().find(|x| x.number == "8").unwrap();
        assert_eq!(n8.status, "from_question");
    }

    #[test]
    fn a_right_and_a_wrong_derived_number_are_told_apart() {
        let ok = check(
            "A Team workspace with 8 users has 400 GB of pooled storage.",
            &[STORAGE],
            "",
        );
        assert_eq!(
            ok.iter()
                .find(|x| x.number == "400")
                .unwrap()
                .arithmetic
                .as_deref(),
            Some("8 × 50 = 400")
        );
        let bad = check(
            "A Team workspace with 8 users has 500 GB of pooled storage.",
            &[STORAGE],
            "",
        );
        assert_eq!(
            bad.iter().find(|x| x.number == "500").unwrap().status,
            "not_in_passages"
        );
    }

    #[test]
    fn a_stated_number_is_not_flagged() {
        assert!(check("The Team plan includes up to 10 users.", &[PLANS], "").is_empty());
        assert_eq!(
            check("The Team plan includes up to 12 users.", &[PLANS], "")[0].status,
            "not_in_passages"
        );
    }

    #[test]
    fn a_number_spelt_differently_in_the_passage_is_stated() {
        let news = "The film grossed $ 160 million worldwide and sold 1.5 million copies.";
        for claim in [
            "It grossed $160 million.",
            "It grossed $160,000,000.",
            "It sold 1,500,000 copies.",
        ] {
            assert!(
                check(claim, &[news], "").is_empty(),
                "{claim}: {:?}",
                check(claim, &[news], "")
            );
        }
        assert_eq!(
            check("It grossed $170 million.", &[news], "")[0].status,
            "not_in_passages"
        );
    }
}
