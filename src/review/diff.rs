//! What changed between a claim and its mutant: a word diff (punctuation apart from words), and
//! the passage sentences nearest the change.

use crate::model::suite::Context;
use owo_colors::OwoColorize;
use std::collections::HashSet;

/// The tokens of a text for a word diff: words, with the punctuation around them apart, each
/// with whether a space came before it (so "month." and "month excluding VAT." differ by two
/// words, not by one).
fn diff_tokens(s: &str) -> Vec<(&str, bool)> {
    const OPEN: &[char] = &['(', '[', '"', '\'', '“', '‘'];
    const CLOSE: &[char] = &[
        '.', ',', ';', ':', '!', '?', ')', ']', '"', '\'', '”', '’', '…',
    ];
    let mut out = Vec::new();
    for word in s.split_whitespace() {
        let core_start = word.len() - word.trim_start_matches(OPEN).len();
        let core = &word[core_start..];
        let core_end = core.trim_end_matches(CLOSE).len();
        let mut pieces: Vec<&str> = Vec::new();
        // each punctuation mark its own token
        for (i, c) in word[..core_start].char_indices() {
            pieces.push(&word[i..i + c.len_utf8()]);
        }
        pieces.push(&core[..core_end]);
        let tail = &core[core_end..];
        for (i, c) in tail.char_indices() {
            pieces.push(&tail[i..i + c.len_utf8()]);
        }
        let mut first = true;
        for p in pieces.into_iter().filter(|p| !p.is_empty()) {
            out.push((p, first));
            first = false;
        }
    }
    out
}

/// The words that changed from `a` to `b`, removed ones struck through in red and added ones
/// in bold green when `color`, else in `[-...-]` and `{+...+}`.
pub fn word_diff(a: &str, b: &str, color: bool) -> String {
    let ta = diff_tokens(a);
    let tb = diff_tokens(b);
    let wa: Vec<&str> = ta.iter().map(|t| t.0).collect();
    let wb: Vec<&str> = tb.iter().map(|t| t.0).collect();
    // words are escaped before they are painted: the colour is the only sequence left raw
    let chunk = |toks: &[(&str, bool)]| {
        let mut s = String::new();
        for (i, (t, space)) in toks.iter().enumerate() {
            if i > 0 && *space {
                s.push(' ');
            }
            s.push_str(&crate::text::escape::printable(t));
        }
        s
    };
    let del = |s: String| {
        if color {
            s.red().strikethrough().to_string()
        } else {
            format!("[-{s}-]")
        }
    };
    let ins = |s: String| {
        if color {
            s.green().bold().to_string()
        } else {
            format!("{{+{s}+}}")
        }
    };
    let mut out = String::new();
    let put = |out: &mut String, space: bool, s: String| {
        if space && !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&s);
    };
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, &wa, &wb) {
        let (tag, old, new) = op.as_tag_tuple();
        match tag {
            similar::DiffTag::Equal => {
                for (t, space) in &ta[old] {
                    put(&mut out, *space, crate::text::escape::printable(t));
                }
            }
            similar::DiffTag::Delete => put(&mut out, ta[old.start].1, del(chunk(&ta[old]))),
            similar::DiffTag::Insert => put(&mut out, tb[new.start].1, ins(chunk(&tb[new]))),
            similar::DiffTag::Replace => {
                put(&mut out, ta[old.start].1, del(chunk(&ta[old])));
                put(&mut out, true, ins(chunk(&tb[new])));
            }
        }
    }
    out
}

/// The content words of a text, stemmed and lower-cased.
fn content_words(s: &str) -> HashSet<String> {
    crate::text::tokens::tokenize(s)
        .into_iter()
        .map(|t| s[t.start..t.end].to_lowercase())
        .filter(|w| w.chars().any(char::is_alphanumeric) && !crate::check::lexical::is_stopword(w))
        .map(|w| crate::text::tokens::stem(&w))
        .collect()
}

/// The passage sentences nearest the change from `claim` to `mutant`, best first, at most
/// `k`: a sentence scores two for each word the edit removed or added and one for each other
/// word of the claim it shares. Sentences that share nothing are left out.
pub fn nearest_sentences<'c>(
    context: &'c Context,
    claim: &str,
    mutant: &str,
    k: usize,
) -> Vec<(&'c str, &'c str)> {
    let before = content_words(claim);
    let after = content_words(mutant);
    let changed: HashSet<&String> = before.symmetric_difference(&after).collect();
    let mut scored: Vec<(usize, usize, &str, &str)> = Vec::new();
    for p in &context.passages {
        for s in crate::text::sentences::split_sentences(&p.text) {
            let words = content_words(s);
            let score: usize = words
                .iter()
                .map(|w| {
                    if changed.contains(w) {
                        2
                    } else if before.contains(w) {
                        1
                    } else {
                        0
                    }
                })
                .sum();
            if score > 0 {
                scored.push((score, scored.len(), p.id.as_str(), s));
            }
        }
    }
    // best first; ties in passage order
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    scored
        .into_iter()
        .take(k)
        .map(|(_, _, p, s)| (p, s))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::suite::Passage;

    #[test]
    fn the_nearest_sentence_is_the_one_holding_the_changed_words() {
        let ctx = Context {
            id: "c".into(),
            question: None,
            passages: vec![
                Passage {
                    id: "plans".into(),
                    text: "Larkspur has three plans. Refunds are issued within 14 days of cancellation. Support answers in 24 hours.".into(),
                },
                Passage {
                    id: "other".into(),
                    text: "Nothing about it here.".into(),
                },
            ],
            faithful: vec![],
            hard_cases: vec![],
            pending: vec![],
        };
        let near = nearest_sentences(
            &ctx,
            "Refunds are issued within 14 days.",
            "Refunds are issued within 30 days.",
            2,
        );
        assert_eq!(
            near[0],
            (
                "plans",
                "Refunds are issued within 14 days of cancellation."
            )
        );
        assert_eq!(near.len(), 1, "{near:?}");
    }

    #[test]
    fn the_plain_diff_marks_what_changed() {
        assert_eq!(
            word_diff("within 14 days", "within 30 days", false),
            "within [-14-] {+30+} days"
        );
        // punctuation is its own token: an added phrase before the stop is only that phrase
        assert_eq!(
            word_diff(
                "The Team plan costs €12 per user per month.",
                "The Team plan costs €12 per user per month excluding VAT.",
                false
            ),
            "The Team plan costs €12 per user per month {+excluding VAT+}."
        );
        assert_eq!(
            word_diff(
                "\"It is free,\" she said.",
                "\"It is not free,\" she said.",
                false
            ),
            "\"It is {+not+} free,\" she said."
        );
    }
}
