//! Word tokens: the runs of letters and digits of a text, each with its normal form (lower case,
//! light stemming) and, for a number, the value it carries.

use super::numbers::{
    digit_comma_joins, format_number, number_at, read_clock_times, spaced_thousands_join, NumberTag,
};

/// A word of a text, as written and in normalised form.
#[derive(Debug, Clone, PartialEq)]
pub struct Token {
    /// Byte range in the source text.
    pub start: usize,
    pub end: usize,
    /// Lower-cased, light-stemmed form used for matching.
    pub norm: String,
    /// The value when the token is a number (digits or a number word).
    pub number: Option<NumberTag>,
}

/// Splits text into tokens: runs of letters and digits (with inner `.`/`,` between digits and
/// inner apostrophes or hyphens between letters). Currency signs before and `%` after a number
/// are folded into its [`NumberTag`]; digits glued to letters ("S3", "p-2071") stay words.
pub fn tokenize(text: &str) -> Vec<Token> {
    // the end of a scale word already folded into the number before it
    let mut scaled_until = 0;
    let mut out: Vec<Token> = word_spans(text)
        .into_iter()
        .map(|(start, end)| {
            // lower-cased once, for the number words and the stem
            let lower = text[start..end].to_lowercase();
            let number = number_at(text, start, end, &mut scaled_until, &lower);
            let norm = match &number {
                Some(n) => format_number(n.value),
                None => stem_owned(lower),
            };
            Token {
                start,
                end,
                norm,
                number,
            }
        })
        .collect();
    read_clock_times(text, &mut out);
    out
}

/// The byte ranges of [`tokenize`]'s tokens, without reading them: for a caller that needs
/// only where the words are (the grammar guard's lower-cased words), not their stems or values.
/// Numbers and clock times change what a token carries, never where it starts or ends.
pub fn word_spans(text: &str) -> Vec<(usize, usize)> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let (start, c) = chars[i];
        if !c.is_alphanumeric() {
            i += 1;
            continue;
        }
        let mut j = i + 1;
        while j < chars.len() {
            let ch = chars[j].1;
            if ch.is_alphanumeric() {
                j += 1;
                continue;
            }
            let next_alnum = j + 1 < chars.len() && chars[j + 1].1.is_alphanumeric();
            let prev = chars[j - 1].1;
            // a number before a hyphen is its own token: "17-year-old" carries 17, "3-1" two
            // numbers; "p-2071" and "COVID-19" stay names
            let joins = match ch {
                ',' => digit_comma_joins(text, &chars[i..], j - i),
                '.' => prev.is_ascii_digit() && next_alnum && chars[j + 1].1.is_ascii_digit(),
                // "1 000", "120 000 visitors": spaced thousands (a no-break or thin space, or a
                // plain one between groups of three)
                ' ' | '\u{a0}' | '\u{202f}' | '\u{2009}' => {
                    spaced_thousands_join(&chars[i..], j - i)
                }
                '-' if chars[i..j].iter().all(|(_, c)| c.is_ascii_digit()) => false,
                '\'' | '’' | '-' => prev.is_alphanumeric() && next_alnum,
                _ => false,
            };
            if joins {
                j += 2;
            } else {
                break;
            }
        }
        let end = if j < chars.len() {
            chars[j].0
        } else {
            text.len()
        };
        out.push((start, end));
        i = j;
    }
    out
}

/// Light stemming: folds plural, past, gerund and `-able` endings and a doubled final consonant,
/// so "cancelled", "cancels" and "cancel" meet, and so do "refunded" and "refundable". Applied
/// the same way to claims and passages, so consistency matters more than linguistic accuracy.
pub fn stem(word: &str) -> String {
    stem_owned(word.to_string())
}

/// [`stem`] of a word already owned, edited in place.
fn stem_owned(mut w: String) -> String {
    use super::words::strip_all_suffixes;
    let kept = strip_all_suffixes(strip_all_suffixes(&w, "'s"), "’s").len();
    w.truncate(kept);
    if w.chars().count() <= 3 {
        return w;
    }
    for (suffix, replacement, min_left) in [
        ("ies", "y", 3),
        ("able", "", 4),
        ("ing", "", 3),
        ("ed", "", 3),
        ("es", "", 4),
        ("s", "", 3),
        ("ly", "", 4),
    ] {
        if w.ends_with(suffix) && w.len() - suffix.len() >= min_left {
            if suffix == "s" && (w.ends_with("ss") || w.ends_with("us")) {
                continue;
            }
            w.truncate(w.len() - suffix.len());
            w.push_str(replacement);
            break;
        }
    }
    if w.len() > 3 && w.ends_with('e') {
        w.pop();
    }
    let b = w.as_bytes();
    if b.len() > 3 && b[b.len() - 1] == b[b.len() - 2] && b[b.len() - 1].is_ascii_alphabetic() {
        w.pop();
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stemming_meets_inflections_of_the_same_word() {
        assert_eq!(stem("cancelled"), stem("cancel"));
        assert_eq!(stem("refunded"), stem("refundable"));
        assert_eq!(stem("plans"), stem("plan"));
        assert_eq!(stem("expires"), stem("expire"));
        assert_eq!(stem("expired"), stem("expire"));
        assert_eq!(stem("billed"), stem("bill"));
    }

    #[test]
    fn the_word_spans_are_where_the_tokens_are() {
        for text in [
            "Here is a summary: the fee is €3,50, or $ 160 million, up 17 per cent.",
            "Doors open at 10:30 a.m. and close at 5.30 pm; 120 000 visitors, 1\u{a0}000 seats.",
            "The 17-year-old scored 3-1 in COVID-19 week; p-2071 and S3 hold 1,200.5 GB.",
            "Sorry, but I can't say \"fifty-five\" of O’Neill’s 2nd-best plans… 七十 Ünïcödé",
            "",
            " \t\n,.;",
            "a",
            "12:",
            "9 o’clock, twelve hundred thousand, 1.5bn, 4.6.7, 1,23,456",
        ] {
            let spans: Vec<(usize, usize)> =
                tokenize(text).iter().map(|t| (t.start, t.end)).collect();
            assert_eq!(word_spans(text), spans, "{text:?}");
        }
    }
}
