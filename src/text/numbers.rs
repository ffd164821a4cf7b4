//! Reading numbers from text: values written in digits or words, with their thousands and decimal
//! separators, scale words, currency, percent and times of day; and writing them back.

use super::tokens::Token;

/// A number read from text, with the unit marks that make two numbers comparable.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NumberTag {
    pub value: f64,
    pub percent: bool,
    pub currency: Option<char>,
    /// A time of day: `value` is the hour on a 24-hour clock ("9 a.m." and "9:00" are 9, "5:30
    /// pm" is 17.5).
    pub clock: bool,
}

impl NumberTag {
    /// A plain number (no unit marks).
    pub fn plain(value: f64) -> NumberTag {
        NumberTag {
            value,
            percent: false,
            currency: None,
            clock: false,
        }
    }

    /// Same quantity: equal value and the same percent, currency and clock marks ("12 users" is
    /// not "€12", "9:00" is not "9 days").
    pub fn same_as(&self, other: &NumberTag) -> bool {
        (self.value - other.value).abs() < 1e-9
            && self.percent == other.percent
            && self.currency == other.currency
            && self.clock == other.clock
    }
}

/// Number words read as values by the checker (the mutators take theirs from rule files).
const NUMBER_WORDS: [(&str, f64); 33] = [
    ("zero", 0.0),
    ("one", 1.0),
    ("two", 2.0),
    ("three", 3.0),
    ("four", 4.0),
    ("five", 5.0),
    ("six", 6.0),
    ("seven", 7.0),
    ("eight", 8.0),
    ("nine", 9.0),
    ("ten", 10.0),
    ("eleven", 11.0),
    ("twelve", 12.0),
    ("thirteen", 13.0),
    ("fourteen", 14.0),
    ("fifteen", 15.0),
    ("sixteen", 16.0),
    ("seventeen", 17.0),
    ("eighteen", 18.0),
    ("nineteen", 19.0),
    ("twenty", 20.0),
    ("thirty", 30.0),
    ("forty", 40.0),
    ("fifty", 50.0),
    ("sixty", 60.0),
    ("seventy", 70.0),
    ("eighty", 80.0),
    ("ninety", 90.0),
    ("hundred", 100.0),
    ("thousand", 1000.0),
    ("million", 1_000_000.0),
    ("billion", 1_000_000_000.0),
    ("trillion", 1_000_000_000_000.0),
];

/// Words that scale the number before them ("1.5 million" is 1,500,000).
const SCALE_WORDS: [(&str, f64); 6] = [
    ("thousand", 1e3),
    ("million", 1e6),
    ("mn", 1e6),
    ("billion", 1e9),
    ("bn", 1e9),
    ("trillion", 1e12),
];

/// The scale word that follows a number in `rest` (after spaces), with its length in bytes.
fn scale_after(rest: &str) -> Option<(f64, usize)> {
    let t = rest.trim_start_matches([' ', '\u{a0}']);
    let skipped = rest.len() - t.len();
    SCALE_WORDS.iter().find_map(|(w, v)| {
        let head = t.get(..w.len())?;
        let boundary = t[w.len()..]
            .chars()
            .next()
            .is_none_or(|c| !c.is_alphanumeric());
        (head.eq_ignore_ascii_case(w) && boundary).then_some((*v, skipped + w.len()))
    })
}

/// The value of a number written as a word (lower case: "fourteen"), or `None`.
pub(crate) fn number_word(word: &str) -> Option<f64> {
    NUMBER_WORDS
        .iter()
        .find(|(w, _)| *w == word)
        .map(|(_, v)| *v)
}

const CURRENCY: &str = "€$£¥";

/// Currency words after a number, as the sign they mean ("12 euros" is "€12").
const CURRENCY_WORDS: [(&str, char); 13] = [
    ("euros", '€'),
    ("euro", '€'),
    ("eur", '€'),
    ("pounds", '£'),
    ("pound", '£'),
    ("gbp", '£'),
    ("sterling", '£'),
    ("dollars", '$'),
    ("dollar", '$'),
    ("usd", '$'),
    ("yen", '¥'),
    ("jpy", '¥'),
    ("bucks", '$'),
];

/// ISO codes written before a number ("EUR 12", "USD 160 million", "US$ 5"), as the sign they
/// mean.
const CURRENCY_CODES: [(&str, char); 5] = [
    ("eur", '€'),
    ("usd", '$'),
    ("gbp", '£'),
    ("jpy", '¥'),
    ("us$", '$'),
];

/// The currency a word right after a number names (`tail` is the text after the number): "12
/// euros", "12 EUR", "160 million US dollars".
fn currency_word_after(tail: &str) -> Option<char> {
    let t = tail.trim_start_matches([' ', '\u{a0}']);
    let len = t
        .char_indices()
        .find(|(_, c)| !c.is_alphabetic())
        .map_or(t.len(), |(i, _)| i);
    let word = &t[..len];
    // an ASCII word (most are) compared without a lower-cased copy
    let owned;
    let lower: &str = if word.bytes().all(|b| b.is_ascii_lowercase()) {
        word
    } else {
        owned = word.to_lowercase();
        &owned
    };
    // "US dollars", "U.S. dollars"
    if lower == "us" || lower == "u" {
        let rest = t[word.len()..].trim_start_matches(['.', 's', 'S']);
        let next = rest.trim_start_matches([' ', '\u{a0}', '.']);
        return next
            .get(..6)
            .filter(|w| w.eq_ignore_ascii_case("dollar"))
            .map(|_| '$');
    }
    CURRENCY_WORDS
        .iter()
        .find(|(w, _)| *w == lower)
        .map(|(_, c)| *c)
}

/// The currency an ISO code right before a number names (`head` is the text before it).
fn currency_code_before(head: &str) -> Option<char> {
    let h = head.trim_end_matches([' ', '\u{a0}']);
    CURRENCY_CODES.iter().find_map(|(code, sign)| {
        let n = code.len();
        let at = h.len().checked_sub(n)?;
        let word = h.get(at..)?;
        let boundary = h[..at]
            .chars()
            .next_back()
            .is_none_or(|c| !c.is_alphanumeric());
        (word.eq_ignore_ascii_case(code) && boundary).then_some(*sign)
    })
}

/// Whether the text after a number makes it a percentage: "%", "percent", "per cent".
fn percent_after(tail: &str) -> bool {
    let t = tail.trim_start_matches([' ', '\u{a0}']);
    t.starts_with('%')
        || t.get(..7)
            .is_some_and(|w| w.eq_ignore_ascii_case("percent"))
        || t.get(..8)
            .is_some_and(|w| w.eq_ignore_ascii_case("per cent"))
}

/// A space that may separate groups of thousands ("1 000", "1\u{a0}000").
fn is_group_space(c: char) -> bool {
    matches!(c, ' ' | '\u{a0}' | '\u{202f}' | '\u{2009}')
}

/// The length of the run of ASCII digits at the start of `chars`.
fn digit_run(chars: &[(usize, char)]) -> usize {
    chars.iter().take_while(|(_, c)| c.is_ascii_digit()).count()
}

/// Whether the comma at `at` of a number that starts at `chars[0]` joins the digits around it:
/// a thousands separator before exactly three digits ("1,500,000"), or a decimal comma before one
/// or two digits that end an amount or a share ("€3,50", "3,50 €", "EUR 3,50", "12,5%", "1,5
/// million"), never in a list ("rooms 1,2 and 3").
pub(super) fn digit_comma_joins(text: &str, chars: &[(usize, char)], at: usize) -> bool {
    let so_far = &chars[..at];
    if !so_far.last().is_some_and(|(_, c)| c.is_ascii_digit())
        || !so_far
            .iter()
            .all(|(_, c)| c.is_ascii_digit() || matches!(c, ',' | '.') || is_group_space(*c))
    {
        return false;
    }
    let after = &chars[at + 1..];
    let run = digit_run(after);
    match run {
        3 => true,
        // a decimal comma: the first comma of the number, then the end of an amount or a share
        1 | 2 if !so_far.iter().any(|(_, c)| *c == ',') => {
            let Some(&(first, _)) = chars.first() else {
                return false;
            };
            let end = after.get(run).map_or(text.len(), |(b, _)| *b);
            let tail = &text[end..];
            let glued_scale = after.get(run).is_some_and(|(_, c)| c.is_alphabetic())
                && ["bn", "mn", "m", "k"].iter().any(|w| {
                    tail.get(..w.len())
                        .is_some_and(|t| t.eq_ignore_ascii_case(w))
                        && tail[w.len()..]
                            .chars()
                            .next()
                            .is_none_or(|c| !c.is_alphanumeric())
                });
            if after.get(run).is_some_and(|(_, c)| c.is_alphanumeric()) && !glued_scale {
                return false;
            }
            let head = text[..first].trim_end_matches([' ', '\u{a0}']);
            let t = tail.trim_start_matches([' ', '\u{a0}']);
            glued_scale
                || head.ends_with(|c: char| CURRENCY.contains(c))
                || currency_code_before(head).is_some()
                || t.starts_with(|c: char| CURRENCY.contains(c))
                || percent_after(tail)
                || scale_after(tail).is_some()
                || currency_word_after(tail).is_some()
        }
        _ => false,
    }
}

/// Whether the space at `at` of a number that starts at `chars[0]` joins it to the next group of
/// three digits: the number so far is groups of digits (the first of one to three, the others of
/// three) and the next group has exactly three digits and ends the number.
pub(super) fn spaced_thousands_join(chars: &[(usize, char)], at: usize) -> bool {
    let so_far = &chars[..at];
    // most spaces follow a word: no digit before them, no group
    if !so_far.last().is_some_and(|(_, c)| c.is_ascii_digit()) {
        return false;
    }
    let shape = so_far
        .split(|(_, c)| is_group_space(*c))
        .enumerate()
        .all(|(k, g)| {
            g.iter().all(|(_, c)| c.is_ascii_digit())
                && if k == 0 {
                    (1..=3).contains(&g.len())
                } else {
                    g.len() == 3
                }
        });
    let after = &chars[at + 1..];
    let run = digit_run(after);
    shape && run == 3 && after.get(run).is_none_or(|(_, c)| !c.is_alphanumeric())
}

/// The value of the digits of a number as written: thousands commas, dots or spaces dropped, a
/// decimal comma read as a point ("3,50" is 3.5, "1.000,50" is 1000.5, "1 000" is 1000).
fn number_value(digits: &str) -> Option<f64> {
    if digits.bytes().all(|b| b.is_ascii_digit()) {
        return digits.parse::<f64>().ok(); // no separator to drop or read
    }
    let d: String = digits.chars().filter(|c| !is_group_space(*c)).collect();
    let last_comma = d.rfind(',');
    let decimal_comma = last_comma.is_some_and(|at| {
        let tail = &d[at + 1..];
        (1..=2).contains(&tail.len()) || d[..at].contains('.')
    });
    let plain = if decimal_comma {
        let at = last_comma.unwrap_or(0);
        format!("{}.{}", d[..at].replace(['.', ','], ""), &d[at + 1..])
    } else {
        d.replace(',', "")
    };
    plain.parse::<f64>().ok()
}

/// The number the token at `start..end` of `text` carries, if any: digits (a scale glued on,
/// "2.4bn", or a scale word after, "160 million"; a currency sign or code before or after; a
/// percent after) or a number word ("three euros", "ten per cent"). `scaled_until` is the end of
/// a scale word already folded into the number before, which carries no number of its own; a
/// scale word this number takes moves it on. `lower` is the token lower-cased.
pub(super) fn number_at(
    text: &str,
    start: usize,
    end: usize,
    scaled_until: &mut usize,
    lower: &str,
) -> Option<NumberTag> {
    let raw = &text[start..end];
    // a word (most tokens) can be neither a number in digits nor one with its scale glued on,
    // both of which open with a digit: only a number word
    if !raw.is_empty() && !raw.starts_with(|c: char| c.is_ascii_digit()) {
        return in_words(text, (start, end), scaled_until, lower);
    }
    // "2.4bn", "160mn": a number with its scale glued on (not "S3" or "p-2071"); after a
    // currency sign also "£1.5m" and "$40k"
    let after_currency = text[..start]
        .trim_end_matches([' ', '\u{a0}'])
        .ends_with(|c: char| CURRENCY.contains(c));
    // digits alone have no scale glued on
    let digits_only = raw.bytes().all(|b| b.is_ascii_digit());
    let ascii_lower = if digits_only {
        String::new()
    } else {
        raw.to_ascii_lowercase()
    };
    let glued = [("bn", 1e9), ("mn", 1e6), ("m", 1e6), ("k", 1e3)]
        .iter()
        .filter(|_| !digits_only)
        .filter(|(suffix, _)| suffix.len() == 2 || after_currency)
        .find_map(|(suffix, scale)| {
            let digits = ascii_lower.strip_suffix(suffix)?;
            (!digits.is_empty()
                && digits.starts_with(|c: char| c.is_ascii_digit())
                && digits
                    .chars()
                    .all(|ch| ch.is_ascii_digit() || ch == '.' || ch == ','))
            .then_some((digits.len(), *scale))
        });
    let all_numeric = glued.is_some()
        || raw
            .chars()
            .all(|ch| ch.is_ascii_digit() || matches!(ch, '.' | ',') || is_group_space(ch));
    if all_numeric {
        let (digits, glued_scale) = match glued {
            Some((len, scale)) => (&raw[..len], scale),
            None => (raw, 1.0),
        };
        let value: Option<f64> = number_value(digits).map(|v| v * glued_scale);
        value.filter(|v| v.is_finite()).map(|value| {
            // a currency sign before the number (spaces allowed: "$ 160") or after it
            // ("12 €"), one normal form for every spelling
            let before = text[..start]
                .trim_end_matches([' ', '\u{a0}'])
                .chars()
                .next_back();
            let (value, scaled) = match scale_after(&text[end..]) {
                Some((scale, len)) => (value * scale, end + len),
                None => (value, 0),
            };
            let tail = &text[end.max(scaled)..];
            let after = tail.trim_start_matches([' ', '\u{a0}']).chars().next();
            let currency = before
                .filter(|ch| CURRENCY.contains(*ch))
                .or_else(|| currency_code_before(&text[..start]))
                .or(after.filter(|ch| CURRENCY.contains(*ch)))
                .or_else(|| currency_word_after(tail));
            let percent = percent_after(tail);
            *scaled_until = (*scaled_until).max(scaled);
            NumberTag {
                value,
                percent,
                currency,
                clock: false,
            }
        })
    } else {
        in_words(text, (start, end), scaled_until, lower)
    }
}

/// [`number_at`] for a token that is not all digits (`lower`: the token lower-cased): a number
/// word ("three euros", "two million pounds", "ten per cent"), or nothing.
fn in_words(
    text: &str,
    (start, end): (usize, usize),
    scaled_until: &mut usize,
    lower: &str,
) -> Option<NumberTag> {
    if start < *scaled_until {
        return None; // "million" in "160 million": part of the number before it
    }
    number_word(lower).map(|value| {
        let (value, tail) = match scale_after(&text[end..]) {
            Some((scale, len)) => {
                *scaled_until = (*scaled_until).max(end + len);
                (value * scale, &text[end + len..])
            }
            None => (value, &text[end..]),
        };
        NumberTag {
            value,
            percent: percent_after(tail),
            currency: currency_word_after(tail),
            clock: false,
        }
    })
}

/// Reads times of day: "9:00", "09:30", "9 a.m.", "9am", "5.30 pm", "5:30 p.m.", "9 o'clock". The
/// hour's token carries the time ([`NumberTag::clock`], the hour on a 24-hour clock); the tokens
/// after it that belong to the time (minutes, "a.m.") carry no number and an empty `norm`.
pub(super) fn read_clock_times(text: &str, tokens: &mut [Token]) {
    let mut k = 0;
    while k < tokens.len() {
        let raw = &text[tokens[k].start..tokens[k].end];
        // an hour is one or two ASCII digits: a word (most tokens) is none, read no further
        if !raw.starts_with(|c: char| c.is_ascii_digit()) {
            k += 1;
            continue;
        }
        // "5.30" is a time only with "pm" after it
        let dotted = raw.contains('.');
        let (hours, mut minutes) = match raw.split_once('.') {
            Some((h, m)) if m.len() == 2 => (h, m.parse::<f64>().ok()),
            Some(_) => {
                k += 1;
                continue;
            }
            None => (raw, None),
        };
        let Ok(h) = hours.parse::<f64>() else {
            k += 1;
            continue;
        };
        if hours.len() > 2 || !hours.chars().all(|c| c.is_ascii_digit()) {
            k += 1;
            continue;
        }
        let mut last = k;
        // ":MM" right after the hour
        if minutes.is_none() && text[tokens[k].end..].starts_with(':') {
            if let Some(next) = tokens.get(k + 1) {
                let m = &text[next.start..next.end];
                if next.start == tokens[k].end + 1
                    && m.len() == 2
                    && m.chars().all(|c| c.is_ascii_digit())
                {
                    minutes = m.parse::<f64>().ok();
                    last = k + 1;
                }
            }
        }
        let tail = text[tokens[last].end..].trim_start_matches([' ', '\u{a0}']);
        // the longest mark ("o’clock", 7 characters) and the character after it are all that is
        // compared: only the first few characters are lower-cased, not the rest of the text
        let lower_tail = match tail.char_indices().nth(10) {
            Some((cut, _)) => tail[..cut].to_ascii_lowercase(),
            None => tail.to_ascii_lowercase(),
        };
        let meridiem = [
            "a.m.",
            "a.m",
            "am",
            "p.m.",
            "p.m",
            "pm",
            "o'clock",
            "o’clock",
        ]
        .iter()
        .find(|w| {
            lower_tail.starts_with(*w)
                && lower_tail[w.len()..]
                    .chars()
                    .next()
                    .is_none_or(|c| !c.is_alphanumeric())
        })
        .copied();
        if (meridiem.is_none() && (minutes.is_none() || dotted))
            || minutes.is_some_and(|m| m >= 60.0)
            || h > 24.0
            || (meridiem.is_some_and(|w| w != "o'clock" && w != "o’clock")
                && !(1.0..=12.0).contains(&h))
        {
            k += 1;
            continue;
        }
        let pm = meridiem.is_some_and(|w| w.starts_with('p'));
        let am = meridiem.is_some_and(|w| w.starts_with('a'));
        let hour = match (pm, am) {
            (true, _) if h < 12.0 => h + 12.0,
            (_, true) if h == 12.0 => 0.0,
            _ => h,
        };
        let value = hour + minutes.unwrap_or(0.0) / 60.0;
        tokens[k].number = Some(NumberTag {
            clock: true,
            ..NumberTag::plain(value)
        });
        tokens[k].norm = format_number(value);
        // the minutes and the "a.m." tokens belong to the time
        let end = tokens[last].end
            + (text[tokens[last].end..].len() - tail.len())
            + meridiem.map_or(0, str::len);
        let mut j = k + 1;
        while j < tokens.len() && tokens[j].start < end {
            tokens[j].number = None;
            tokens[j].norm = String::new();
            j += 1;
        }
        k = j;
    }
}

/// Digits of a number written with a thousands separator every three digits before the point
/// ("1500000.5" -> "1,500,000.5").
pub(crate) fn with_thousands(s: &str) -> String {
    let (int, frac) = match s.split_once('.') {
        Some((i, f)) => (i.to_string(), format!(".{f}")),
        None => (s.to_string(), String::new()),
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

/// Writes a number without a trailing `.0`.
pub(crate) fn format_number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        let s = format!("{v:.6}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

#[cfg(test)]
mod tests {
    use crate::text::tokens::tokenize;

    #[test]
    fn decimal_commas_spaced_thousands_and_clock_times_are_one_number_each() {
        let nums = |t: &str| -> Vec<(f64, Option<char>, bool)> {
            tokenize(t)
                .into_iter()
                .filter_map(|x| x.number)
                .map(|n| (n.value, n.currency, n.clock))
                .collect()
        };
        assert_eq!(nums("€3,50"), vec![(3.5, Some('€'), false)]);
        assert_eq!(nums("3,50 €"), vec![(3.5, Some('€'), false)]);
        assert_eq!(nums("EUR 3,50"), vec![(3.5, Some('€'), false)]);
        assert_eq!(nums("€1.250,00"), vec![(1250.0, Some('€'), false)]);
        assert_eq!(nums("1 000 visitors"), vec![(1000.0, None, false)]);
        assert_eq!(nums("10 000 000 visitors"), vec![(1e7, None, false)]);
        assert_eq!(nums("1\u{202f}000 visitors"), vec![(1000.0, None, false)]);
        // a list and a year before a count stay apart
        assert_eq!(nums("rooms 1,2 and 3").len(), 3);
        assert_eq!(nums("in 2019 300 people").len(), 2);
        assert_eq!(nums("USD 160 million"), vec![(160e6, Some('$'), false)]);
        assert_eq!(
            nums("160 million US dollars"),
            vec![(160e6, Some('$'), false)]
        );
        assert_eq!(nums("at 9 a.m."), vec![(9.0, None, true)]);
        assert_eq!(nums("at 9:00"), vec![(9.0, None, true)]);
        assert_eq!(nums("at 5.30 pm"), vec![(17.5, None, true)]);
        assert_eq!(nums("costs 5.30 a day"), vec![(5.3, None, false)]);
    }

    #[test]
    fn one_number_for_every_spelling_of_it() {
        let nums = |t: &str| -> Vec<(f64, Option<char>, bool)> {
            tokenize(t)
                .into_iter()
                .filter_map(|x| x.number)
                .map(|n| (n.value, n.currency, n.percent))
                .collect()
        };
        let want = vec![(160e6, Some('$'), false)];
        assert_eq!(nums("It grossed $ 160 million."), want);
        assert_eq!(nums("It grossed $160 million."), want);
        assert_eq!(nums("It grossed $160,000,000."), want);
        assert_eq!(nums("It grossed 160 million $."), want);
        assert_eq!(nums("1.5 million users"), vec![(1.5e6, None, false)]);
        assert_eq!(nums("1,500,000 users"), vec![(1.5e6, None, false)]);
        assert_eq!(nums("$2.4bn deal"), vec![(2.4e9, Some('$'), false)]);
        assert_eq!(nums("a thousand users"), vec![(1000.0, None, false)]);
        assert_eq!(nums("12 %"), vec![(12.0, None, true)]);
        assert_eq!(nums("twelve percent"), vec![(12.0, None, true)]);
        // a currency word in any case, an accented one, and a word that only starts like one
        assert_eq!(nums("12 EUROS"), vec![(12.0, Some('€'), false)]);
        assert_eq!(nums("12 Euros"), vec![(12.0, Some('€'), false)]);
        assert_eq!(nums("12 eurosé"), vec![(12.0, None, false)]);
        assert_eq!(nums("12 euro-zone"), vec![(12.0, Some('€'), false)]);
        assert_eq!(nums("12 eurozone"), vec![(12.0, None, false)]);
    }

    #[test]
    fn a_time_of_day_is_read_however_long_the_text_after_it() {
        let clock = |t: &str| -> Vec<f64> {
            tokenize(t)
                .into_iter()
                .filter_map(|x| x.number.filter(|n| n.clock).map(|n| n.value))
                .collect()
        };
        let long = " and then the meeting went on".repeat(200);
        assert_eq!(clock(&format!("At 9 o’clock{long}.")), vec![9.0]);
        assert_eq!(clock(&format!("At 5:30 P.M.{long}.")), vec![17.5]);
        assert_eq!(clock(&format!("At 9 o’clocks{long}.")), Vec::<f64>::new());
        assert_eq!(clock("At 9 o’clock"), vec![9.0]);
        assert_eq!(clock("At 9 pm"), vec![21.0]);
        assert_eq!(clock("At 9 pmx"), Vec::<f64>::new());
    }

    #[test]
    fn numbers_carry_currency_and_percent_and_glued_digits_stay_words() {
        let t = tokenize("€12 per user, 50% off, S3 and p-2071, fifty GB, 1,200 seats");
        let nums: Vec<_> = t.iter().filter_map(|t| t.number).collect();
        assert_eq!(nums.len(), 4);
        assert_eq!(nums[0].currency, Some('€'));
        assert!(nums[1].percent);
        assert_eq!(nums[2].value, 50.0);
        assert_eq!(nums[3].value, 1200.0);
        assert!(t.iter().any(|t| t.norm == "s3"));
        assert!(t.iter().any(|t| t.norm == "p-2071"));
    }
}
