//! Text helpers shared by the mutators, the sentence windows and the lexical checker:
//! sentence splitting, word tokens with light stemming, and number reading.

/// Words that end with a full stop without ending a sentence (compared in lower case).
const ABBREVIATIONS: [&str; 56] = [
    "e.g", "i.e", "etc", "vs", "mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "no", "nos",
    "fig", "figs", "approx", "incl", "inc", "ltd", "co", "corp", "dept", "est", "vol", "ca", "cf",
    "al", "u.s", "u.k", "a.m", "p.m", "jan", "feb", "gov", "sen", "rep", "gen", "col", "lt", "sgt",
    "capt", "cmdr", "adm", "rev", "hon", "pres", "supt", "mt", "ft", "aug", "sept", "oct", "nov",
    "dec", "ave",
];

/// Abbreviations that may also end a sentence ("at 4 p.m. The board...", "Chris Eubank Jr. Chris
/// Eubank competed"): a capitalised word after one starts a new sentence. The others (titles,
/// "e.g.", "No.") never end one.
const ENDING_ABBREVIATIONS: [&str; 11] = [
    "etc", "a.m", "p.m", "jr", "sr", "inc", "ltd", "co", "corp", "approx", "al",
];

/// A list marker at the start of a line (`- `, `* `, `• `, `1. `, `2) `): its length in bytes.
fn list_marker(line: &str) -> Option<usize> {
    let t = line.trim_start();
    let indent = line.len() - t.len();
    for m in ["- ", "* ", "• ", "– ", "+ "] {
        if t.starts_with(m) {
            return Some(indent + m.len());
        }
    }
    let digits = t.chars().take_while(char::is_ascii_digit).count();
    if (1..=3).contains(&digits) {
        let rest = &t[digits..];
        if rest.starts_with(". ") || rest.starts_with(") ") {
            return Some(indent + digits + 2);
        }
    }
    None
}

/// Splits text into sentences, the way a person reads an answer or a passage:
/// - at `.`, `!`, `?` (and `…`) followed by space and the start of a sentence, in any case, so
///   lower-cased text splits too; closing quotes and brackets stay with their sentence;
/// - at a full stop glued to the next sentence ("(AP).Less") when a lower-case word or a bracket
///   ends before it and a capitalised word starts after it;
/// - never after an abbreviation ("e.g.", "Dr.", "Jr.", "U.S."), an initial ("J.", "J.R.R."), or
///   inside a number ("3.5", "1,000.50");
/// - at blank lines, at list items (`- `, `* `, `1. `, `2) `: the marker is dropped), and at a
///   line break after a line that ends a sentence or with a colon; a line break inside a wrapped
///   sentence joins the lines.
pub fn split_sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    // first, blocks of lines that belong together
    let mut blocks: Vec<&str> = Vec::new();
    let mut start: Option<usize> = None;
    let mut prev_end = 0;
    let mut prev_line: &str = "";
    let mut offset = 0;
    for raw in text.split_inclusive('\n') {
        let line = raw.trim_end_matches(['\n', '\r']);
        let here = offset;
        offset += raw.len();
        if line.trim().is_empty() {
            if let Some(s) = start.take() {
                blocks.push(&text[s..prev_end]);
            }
            prev_line = "";
            continue;
        }
        let marker = list_marker(line);
        let body_start = here + marker.unwrap_or(0);
        let p = prev_line.trim_end();
        let continues = start.is_some()
            && marker.is_none()
            && !p.ends_with(['.', '!', '?', ':', '…', ';'])
            && !line.trim_start().starts_with('#')
            && !p.trim_start().starts_with('#');
        if !continues {
            if let Some(s) = start.take() {
                blocks.push(&text[s..prev_end]);
            }
            start = Some(body_start);
        }
        prev_end = here + line.len();
        prev_line = line;
    }
    if let Some(s) = start {
        blocks.push(&text[s..prev_end]);
    }
    for block in blocks {
        split_block(block, &mut out);
    }
    out
}

/// Splits one block (no blank lines, no list items) at sentence ends.
fn split_block<'a>(text: &'a str, out: &mut Vec<&'a str>) {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    // quote counts before each character, and where the last quotes are: each full stop asks
    // whether it is inside a quotation in constant time (a scan per stop is quadratic in the
    // length of a passage)
    let mut before: Vec<[u32; 3]> = Vec::with_capacity(chars.len() + 1);
    let mut counts = [0u32; 3];
    let (mut last_straight, mut last_close) = (None, None);
    for (at, ch) in &chars {
        before.push(counts);
        match ch {
            '"' => {
                counts[0] += 1;
                last_straight = Some(*at);
            }
            '“' => counts[1] += 1,
            '”' => {
                counts[2] += 1;
                last_close = Some(*at);
            }
            _ => {}
        }
    }
    before.push(counts);
    let mut start = 0;
    let mut start_i = 0;
    let mut i = 0;
    let push = |out: &mut Vec<&'a str>, s: &'a str| {
        let s = s.trim();
        if !s.is_empty() && s.chars().any(char::is_alphanumeric) {
            out.push(s);
        }
    };
    while i < chars.len() {
        let (at, c) = chars[i];
        if !matches!(c, '.' | '!' | '?' | '…') {
            i += 1;
            continue;
        }
        // the run of ending punctuation and closing quotes or brackets
        let mut j = i + 1;
        while j < chars.len() && matches!(chars[j].1, '.' | '!' | '?' | '…') {
            j += 1;
        }
        while j < chars.len() && matches!(chars[j].1, '"' | '\'' | ')' | ']' | '”' | '’') {
            j += 1;
        }
        let end = chars.get(j).map_or(text.len(), |x| x.0);
        let mut k = j;
        while k < chars.len() && chars[k].1.is_whitespace() {
            k += 1;
        }
        let spaced = k > j;
        let next = chars.get(k).map(|x| x.1);
        // the word the punctuation ends
        let word_start = chars[..i]
            .iter()
            .rposition(|(_, ch)| ch.is_whitespace() || matches!(ch, '(' | '"' | '“'))
            .map_or(0, |p| chars[p].0 + chars[p].1.len_utf8());
        let word = &text[word_start..at];
        let lower = word.to_lowercase();
        let letters: Vec<char> = word.chars().filter(|ch| ch.is_alphabetic()).collect();
        let stem = lower.trim_end_matches('.');
        // "4 p.m. The board": an abbreviation that may end a sentence, before a capitalised word
        let ends_here = ENDING_ABBREVIATIONS.contains(&stem)
            && spaced
            && chars
                .get(k)
                .is_some_and(|x| x.1.is_uppercase() || x.1 == '"' || x.1 == '“');
        let abbreviation = c == '.'
            && !ends_here
            && (ABBREVIATIONS.contains(&stem)
                // an initial or a run of initials: "J.", "J.R.R.", "U.S."
                || (!letters.is_empty()
                    && word
                        .split('.')
                        .all(|part| part.chars().count() <= 1)
                    && letters.iter().all(|ch| ch.is_uppercase())));
        let prev = if i > 0 { Some(chars[i - 1].1) } else { None };
        let in_number = c == '.'
            && prev.is_some_and(|p| p.is_ascii_digit())
            && next.is_some_and(|n| n.is_ascii_digit())
            && !spaced;
        // anything but punctuation that continues a clause can start the next sentence
        let starts_sentence = |n: char| !matches!(n, ',' | ';' | ':' | ')' | ']' | '}' | '%');
        // inside a quotation that closes later in the block: the quotation's own full stops do
        // not end the sentence ("'It's too late. You're food.'")
        let within = |q: usize| before[i][q] - before[start_i][q];
        let opened = within(0) % 2 == 1 || within(1) > within(2);
        let closes_later =
            last_straight.is_some_and(|p| p >= end) || last_close.is_some_and(|p| p >= end);
        let in_quote = opened && closes_later && end <= text.len();
        let split = match next {
            None => false,
            _ if in_quote => false,
            Some(n) if spaced => starts_sentence(n) && !abbreviation && !in_number,
            // glued: "(AP).Less", "word.Next" (not "3.5", not "e.g.the", not "example.com")
            Some(n) => {
                c == '.'
                    && n.is_uppercase()
                    && prev.is_some_and(|p| p.is_lowercase() || p == ')')
                    && !abbreviation
                    && chars.get(k + 1).is_some_and(|x| x.1.is_lowercase())
            }
        };
        if split {
            push(out, &text[start..end]);
            start = chars[k].0;
            start_i = k;
            i = k;
            continue;
        }
        i = j.max(i + 1);
    }
    push(out, &text[start..]);
}

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

fn number_word(word: &str) -> Option<f64> {
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
    let word: String = t.chars().take_while(|c| c.is_alphabetic()).collect();
    let lower = word.to_lowercase();
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
fn digit_comma_joins(text: &str, chars: &[(usize, char)], at: usize) -> bool {
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
fn spaced_thousands_join(chars: &[(usize, char)], at: usize) -> bool {
    let so_far: String = chars[..at].iter().map(|(_, c)| *c).collect();
    let groups: Vec<&str> = so_far.split(is_group_space).collect();
    let shape = groups.iter().enumerate().all(|(k, g)| {
        g.chars().all(|c| c.is_ascii_digit())
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

/// Splits text into tokens: runs of letters and digits (with inner `.`/`,` between digits and
/// inner apostrophes or hyphens between letters). Currency signs before and `%` after a number
/// are folded into its [`NumberTag`]; digits glued to letters ("S3", "p-2071") stay words.
pub fn tokenize(text: &str) -> Vec<Token> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut out = Vec::new();
    let mut i = 0;
    // the end of a scale word already folded into the number before it
    let mut scaled_until = 0;
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
            let digits_so_far = chars[i..j].iter().all(|(_, c)| c.is_ascii_digit());
            let joins = match ch {
                ',' => digit_comma_joins(text, &chars[i..], j - i),
                '.' => prev.is_ascii_digit() && next_alnum && chars[j + 1].1.is_ascii_digit(),
                // "1 000", "120 000 visitors": spaced thousands (a no-break or thin space, or a
                // plain one between groups of three)
                ' ' | '\u{a0}' | '\u{202f}' | '\u{2009}' => {
                    spaced_thousands_join(&chars[i..], j - i)
                }
                '-' if digits_so_far => false,
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
        let raw = &text[start..end];
        // "2.4bn", "160mn": a number with its scale glued on (not "S3" or "p-2071"); after a
        // currency sign also "£1.5m" and "$40k"
        let after_currency = text[..start]
            .trim_end_matches([' ', '\u{a0}'])
            .ends_with(|c: char| CURRENCY.contains(c));
        let glued = [("bn", 1e9), ("mn", 1e6), ("m", 1e6), ("k", 1e3)]
            .iter()
            .filter(|(suffix, _)| suffix.len() == 2 || after_currency)
            .find_map(|(suffix, scale)| {
                let lower = raw.to_ascii_lowercase();
                let digits = lower.strip_suffix(suffix)?;
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
        let number = if all_numeric {
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
                scaled_until = scaled_until.max(scaled);
                NumberTag {
                    value,
                    percent,
                    currency,
                    clock: false,
                }
            })
        } else if start < scaled_until {
            None // "million" in "160 million": part of the number before it
        } else {
            number_word(&raw.to_lowercase()).map(|value| {
                // "three euros", "two million pounds", "ten per cent"
                let (value, tail) = match scale_after(&text[end..]) {
                    Some((scale, len)) => {
                        scaled_until = scaled_until.max(end + len);
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
        };
        let norm = match &number {
            Some(n) => format_number(n.value),
            None => stem(&raw.to_lowercase()),
        };
        out.push(Token {
            start,
            end,
            norm,
            number,
        });
        i = j;
    }
    read_clock_times(text, &mut out);
    out
}

/// Reads times of day: "9:00", "09:30", "9 a.m.", "9am", "5.30 pm", "5:30 p.m.", "9 o'clock". The
/// hour's token carries the time ([`NumberTag::clock`], the hour on a 24-hour clock); the tokens
/// after it that belong to the time (minutes, "a.m.") carry no number and an empty `norm`.
fn read_clock_times(text: &str, tokens: &mut [Token]) {
    let mut k = 0;
    while k < tokens.len() {
        let raw = &text[tokens[k].start..tokens[k].end];
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
        let lower_tail = tail.to_ascii_lowercase();
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

/// `w` with its first letter in capitals.
pub fn capitalised(w: &str) -> String {
    let mut c = w.chars();
    c.next()
        .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
        .unwrap_or_default()
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

/// `s` cut to at most `n` characters, with an ellipsis where it was cut.
pub fn cut_chars(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        return s.to_string();
    }
    let mut out: String = s.chars().take(n.saturating_sub(1)).collect();
    out.push('…');
    out
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

/// Light stemming: folds plural, past, gerund and `-able` endings and a doubled final consonant,
/// so "cancelled", "cancels" and "cancel" meet, and so do "refunded" and "refundable". Applied
/// the same way to claims and passages, so consistency matters more than linguistic accuracy.
pub fn stem(word: &str) -> String {
    let mut w: String = word
        .trim_end_matches("'s")
        .trim_end_matches("’s")
        .to_string();
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

/// Tidies a claim after a piece was cut out: single spaces, no space before punctuation, and a
/// capital first letter.
pub(crate) fn tidy(text: &str) -> String {
    let mut s = text.split_whitespace().collect::<Vec<_>>().join(" ");
    for p in [" .", " ,", " ;", " :", " !", " ?"] {
        while let Some(pos) = s.find(p) {
            s.remove(pos);
        }
    }
    while s.contains(",.") || s.contains(", .") {
        s = s.replace(", .", ".").replace(",.", ".");
    }
    let s = s.trim().trim_start_matches([',', ';']).trim().to_string();
    let mut chars = s.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().collect::<String>() + chars.as_str(),
        None => String::new(),
    }
}

/// Finds the first whole-word occurrence of `word` at or after byte `from`: it must not touch a
/// letter or digit on either side.
pub fn find_word(text: &str, word: &str, from: usize) -> Option<usize> {
    if word.is_empty() || from > text.len() || !text.is_char_boundary(from) {
        return None; // an empty word matches nowhere (and would never advance)
    }
    let mut start = from;
    while let Some(pos) = text[start..].find(word) {
        let at = start + pos;
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        let boundary = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric());
        if boundary(before) && boundary(after) {
            return Some(at);
        }
        start = at + word.len().max(1);
        while !text.is_char_boundary(start) {
            start += 1;
        }
    }
    None
}

/// Like [`find_word`], ignoring case: the first whole-word match of `word` at or after byte
/// `from`, as (start, end) byte offsets into `text` (the match may differ in length from `word`).
pub(crate) fn find_word_ignoring_case(
    text: &str,
    word: &str,
    from: usize,
) -> Option<(usize, usize)> {
    if word.is_empty() || from > text.len() || !text.is_char_boundary(from) {
        return None;
    }
    let boundary = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric());
    let want: Vec<char> = word.chars().flat_map(char::to_lowercase).collect();
    for (start, _) in text[from..].char_indices().map(|(i, c)| (i + from, c)) {
        if !boundary(text[..start].chars().next_back()) {
            continue;
        }
        // walk the text while its lowercase form matches the word's
        let mut got = 0;
        let mut end = start;
        for (i, c) in text[start..].char_indices() {
            if got == want.len() {
                break;
            }
            let lower: Vec<char> = c.to_lowercase().collect();
            if want.get(got..got + lower.len()) != Some(lower.as_slice()) {
                break;
            }
            got += lower.len();
            end = start + i + c.len_utf8();
        }
        if got == want.len() && boundary(text[end..].chars().next()) {
            return Some((start, end));
        }
    }
    None
}

/// Whether a name is written in capitals (an acronym such as `EU`, `US`, `SSO`, `R&D`): at least
/// two letters, none of them lower case.
pub fn is_acronym(name: &str) -> bool {
    name.chars().filter(|c| c.is_alphabetic()).count() >= 2 && !name.chars().any(char::is_lowercase)
}

/// The first whole-word match of an entity name at or after byte `from`: a name written in
/// capitals matches only in capitals ("US" is not "us"), any other name ignoring case.
pub fn find_name(text: &str, name: &str, from: usize) -> Option<(usize, usize)> {
    if !is_acronym(name) {
        return find_word_ignoring_case(text, name, from);
    }
    let mut at = from;
    while let Some((s, e)) = find_word_ignoring_case(text, name, at) {
        if &text[s..e] == name {
            return Some((s, e));
        }
        at = e;
    }
    None
}

/// Escapes text for HTML and XML (element text and double-quoted attributes): the one escaper
/// every HTML page, SVG chart and judge prompt uses (JUnit XML is escaped by quick-junit).
pub fn escape_markup(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            // XML 1.0 cannot carry most control characters (nor U+FFFE, U+FFFF), even escaped
            c if !xml_char(c) || (c.is_control() && !matches!(c, '\n' | '\t' | '\r')) => {
                o.push('\u{fffd}')
            }
            c => o.push(c),
        }
    }
    o
}

/// True for a character of XML 1.0's `Char` production: tab, line feed, carriage return,
/// U+0020-U+D7FF, U+E000-U+FFFD and U+10000 up (a Rust `char` is never a surrogate).
pub fn xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
}

/// Escapes text from input (claims, answers, ids, types, titles) for Markdown, in a table cell,
/// a list item or a heading: the one Markdown escaper of every report. Nothing in it goes live
/// in a pull-request comment: HTML (`</details>`, `<img>`) is shown as text, link and image
/// brackets are escaped, a `|` cannot split a table row, line breaks become spaces and control
/// characters are shown as `\u{..}`.
pub fn escape_md_cell(s: &str) -> String {
    let one_line = s.replace("\r\n", " ").replace(['\n', '\r'], " ");
    let mut o = String::with_capacity(one_line.len());
    let mut chars = printable(&one_line)
        .chars()
        .collect::<Vec<_>>()
        .into_iter()
        .peekable();
    while let Some(c) = chars.next() {
        match c {
            // a link or image needs `](` or `][`: escaping that `]` is enough, so intervals
            // (`[0.61, 1.00]`) read as they are; `_` is left alone too, as GitHub never reads
            // it inside a word (`number_swap`), and backquotes (a code span only makes HTML
            // and links inert)
            ']' if matches!(chars.peek(), Some('(' | '[')) => o.push_str("\\]"),
            '\\' | '|' | '*' | '~' => {
                o.push('\\');
                o.push(c);
            }
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '&' => o.push_str("&amp;"),
            c => o.push(c),
        }
    }
    o
}

/// Text from input for inside a Markdown code span (`` `...` ``), where backslash escapes do not
/// work: a backquote (which would end the span) becomes `'`, line breaks spaces, control
/// characters `\u{..}`; HTML and links are inert inside the span.
pub fn escape_md_code(s: &str) -> String {
    printable(&s.replace("\r\n", " ").replace(['\n', '\r'], " ")).replace('`', "'")
}

/// `w` as one word for a POSIX shell: as it is when it holds only plain path characters, else in
/// single quotes. Every command faithprobe prints for a person to run quotes its paths this way.
pub fn shell_word(w: &str) -> String {
    if !w.is_empty()
        && w.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+,=:@".contains(c))
    {
        w.to_string()
    } else {
        format!("'{}'", w.replace('\'', "'\\''"))
    }
}

/// Bytes as lower-case hex.
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The first `keep` bytes of the SHA-256 of `data`, in hex (`usize::MAX`: all of it): the one
/// fingerprint of suites, models, prompts, logs and URLs.
pub(crate) fn sha256_hex(data: &[u8], keep: usize) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(data);
    hex(&digest[..keep.min(digest.len())])
}

/// Text safe to print to a terminal: escape sequences, carriage returns and every other control
/// character (C0, DEL, C1; all but tab and line feed) shown as `\u{..}`, so suite or program text
/// cannot drive the terminal. The one escaping path of everything faithprobe prints: the stdout
/// and stderr writers of the CLI pass all their text through it.
pub fn printable(s: &str) -> String {
    printable_with(s, false)
}

/// [`printable`], keeping the colour sequences (SGR: `ESC [ digits;... m`) faithprobe's own
/// painter writes when colour is on. Input text is escaped before it is painted, so what is left
/// raw can only be those.
pub fn printable_keeping_color(s: &str) -> String {
    printable_with(s, true)
}

fn printable_with(s: &str, keep_sgr: bool) -> String {
    // control characters, and the invisible ones that reorder or hide text (bidi overrides
    // and isolates, zero-width characters, the byte-order mark): "Trojan source" in a terminal
    // or a PR comment
    let unsafe_char = |c: char| {
        (c.is_control() && !matches!(c, '\n' | '\t'))
            || matches!(c, '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{FEFF}' | '\u{2060}'..='\u{2064}')
    };
    if !s.chars().any(unsafe_char) {
        return s.to_string();
    }
    let mut o = String::with_capacity(s.len() + 16);
    let mut rest = s;
    while let Some(c) = rest.chars().next() {
        if keep_sgr && c == '\u{1b}' {
            if let Some(len) = sgr_len(rest) {
                o.push_str(&rest[..len]);
                rest = &rest[len..];
                continue;
            }
        }
        if unsafe_char(c) {
            o.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            o.push(c);
        }
        rest = &rest[c.len_utf8()..];
    }
    o
}

/// The length of the SGR sequence `s` starts with (`ESC [`, digits and `;`, `m`), if it does.
fn sgr_len(s: &str) -> Option<usize> {
    let body = s.strip_prefix("\u{1b}[")?;
    let params = body
        .bytes()
        .take_while(|b| b.is_ascii_digit() || *b == b';')
        .count();
    (body.as_bytes().get(params) == Some(&b'm')).then_some(2 + params + 1)
}

/// True when a text has nothing a person could read: only whitespace, control characters and
/// invisible format characters (zero-width spaces and joiners, byte-order marks).
pub fn is_blank(s: &str) -> bool {
    s.chars().all(|c| {
        c.is_whitespace()
            || c.is_control()
            || matches!(
                c,
                '\u{200b}' | '\u{200c}' | '\u{200d}' | '\u{2060}' | '\u{feff}' | '\u{00ad}'
            )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_and_markdown_cells_are_escaped_once_and_completely() {
        assert_eq!(
            escape_markup(r#"<a href="x">'&'</a>"#),
            "&lt;a href=&quot;x&quot;&gt;'&amp;'&lt;/a&gt;"
        );
        assert_eq!(escape_markup("bell\u{7}"), "bell\u{fffd}");
        assert_eq!(escape_md_cell("a|b\nc\r\nd"), "a\\|b c d");
    }

    #[test]
    fn markdown_from_input_never_goes_live() {
        assert_eq!(
            escape_md_cell("</details><img src=x onerror=alert(1)>"),
            "&lt;/details&gt;&lt;img src=x onerror=alert(1)&gt;"
        );
        assert_eq!(
            escape_md_cell("[link](https://evil.example) ![i](x) [ref][1] [0.61, 1.00]"),
            "[link\\](https://evil.example) ![i\\](x) [ref\\][1] [0.61, 1.00]"
        );
        // a backslash cannot undo the escape of the pipe after it
        assert_eq!(escape_md_cell("a\\|b"), "a\\\\\\|b");
        assert_eq!(
            escape_md_cell("R&D **bold** `x`"),
            "R&amp;D \\*\\*bold\\*\\* `x`"
        );
        assert_eq!(
            escape_md_cell("bell\u{7}\u{1b}[2J"),
            "bell\\\\u{7}\\\\u{1b}[2J"
        );
        assert_eq!(escape_md_code("a`b\nc\u{7}"), "a'b c\\u{7}");
    }

    #[test]
    fn control_characters_are_shown_not_sent_to_the_terminal() {
        assert_eq!(printable("red \u{1b}[31mX"), "red \\u{1b}[31mX");
        assert_eq!(printable("a\tb\nc"), "a\tb\nc");
    }

    #[test]
    fn invisible_text_is_blank() {
        assert!(is_blank("\u{200b}"));
        assert!(is_blank(" \u{feff}\t\n"));
        assert!(!is_blank("\u{200b}a"));
    }

    #[test]
    fn whole_words_ignoring_case() {
        assert_eq!(
            find_word_ignoring_case("Books are lent", "books", 0),
            Some((0, 5))
        );
        assert_eq!(find_word_ignoring_case("the DVDs", "dvds", 0), Some((4, 8)));
        assert_eq!(find_word_ignoring_case("bookshelf", "books", 0), None);
        assert_eq!(find_word_ignoring_case("ÉTÉ été", "été", 0), Some((0, 5)));
        assert_eq!(find_word_ignoring_case("ÉTÉ été", "été", 2), Some((6, 11)));
        assert_eq!(
            find_word_ignoring_case("ÉTÉ été", "été", 1),
            None,
            "not a char boundary"
        );
        assert_eq!(find_word_ignoring_case("x", "", 0), None);
    }

    #[test]
    fn sentences_split_as_a_person_reads_them() {
        let table: &[(&str, &[&str])] = &[
            // plain prose
            (
                "Team plans are billed monthly. They can be cancelled.",
                &["Team plans are billed monthly.", "They can be cancelled."],
            ),
            (
                "Is it billed monthly? Yes! It is.",
                &["Is it billed monthly?", "Yes!", "It is."],
            ),
            (
                "One sentence without a stop",
                &["One sentence without a stop"],
            ),
            ("", &[]),
            ("   ", &[]),
            ("...", &[]),
            ("Wait... What happened?", &["Wait...", "What happened?"]),
            ("It ended… Then it began.", &["It ended…", "Then it began."]),
            // quotes and brackets close with their sentence
            (
                "He said \"stop.\" Then he left.",
                &["He said \"stop.\"", "Then he left."],
            ),
            (
                "It is cheap (about €12.) Buy it.",
                &["It is cheap (about €12.)", "Buy it."],
            ),
            (
                "The plan is \"Pro\". The rest is free.",
                &["The plan is \"Pro\".", "The rest is free."],
            ),
            ("“Yes.” She agreed.", &["“Yes.”", "She agreed."]),
            // lower-case text
            (
                "the film was released in 2001. it grossed $ 160 million.",
                &[
                    "the film was released in 2001.",
                    "it grossed $ 160 million.",
                ],
            ),
            (
                "prices rose. costs fell. profits doubled.",
                &["prices rose.", "costs fell.", "profits doubled."],
            ),
            // numbers, decimals, money
            (
                "It costs 3.5 million dollars. That is a lot.",
                &["It costs 3.5 million dollars.", "That is a lot."],
            ),
            (
                "Revenue was $1,000.50 in Q3. It rose.",
                &["Revenue was $1,000.50 in Q3.", "It rose."],
            ),
            (
                "Version 2.0.1 is out. Update now.",
                &["Version 2.0.1 is out.", "Update now."],
            ),
            (
                "The rate is 4.5%. It was 3.9% before.",
                &["The rate is 4.5%.", "It was 3.9% before."],
            ),
            ("Call 555.123.4567 today.", &["Call 555.123.4567 today."]),
            (
                "It ended in 1999. 2000 was different.",
                &["It ended in 1999.", "2000 was different."],
            ),
            (
                "It costs €12. €15 with tax.",
                &["It costs €12.", "€15 with tax."],
            ),
            // abbreviations
            (
                "Some plans, e.g. Team, are monthly. Others are not.",
                &["Some plans, e.g. Team, are monthly.", "Others are not."],
            ),
            (
                "Use a list, i.e. a bullet list. Then stop.",
                &["Use a list, i.e. a bullet list.", "Then stop."],
            ),
            (
                "Dr. Smith saw Mr. Jones. They talked.",
                &["Dr. Smith saw Mr. Jones.", "They talked."],
            ),
            (
                "Martin Luther King Jr. spoke. People listened.",
                &["Martin Luther King Jr. spoke.", "People listened."],
            ),
            (
                "Apples, pears, etc. are fruit. Carrots are not.",
                &["Apples, pears, etc. are fruit.", "Carrots are not."],
            ),
            (
                "See fig. 3 for details. It is clear.",
                &["See fig. 3 for details.", "It is clear."],
            ),
            (
                "It opens at 9 a.m. and closes at 5 p.m. daily.",
                &["It opens at 9 a.m. and closes at 5 p.m. daily."],
            ),
            (
                "Acme Inc. reported gains. Shares rose.",
                &["Acme Inc. reported gains.", "Shares rose."],
            ),
            (
                "Cats vs. dogs is an old debate. Neither wins.",
                &["Cats vs. dogs is an old debate.", "Neither wins."],
            ),
            (
                "Order No. 4021 shipped. It arrives soon.",
                &["Order No. 4021 shipped.", "It arrives soon."],
            ),
            (
                "Smith et al. found it. Others agreed.",
                &["Smith et al. found it.", "Others agreed."],
            ),
            // initials
            (
                "J.R.R. Tolkien wrote it. It sold well.",
                &["J.R.R. Tolkien wrote it.", "It sold well."],
            ),
            (
                "George W. Bush spoke. The crowd cheered.",
                &["George W. Bush spoke.", "The crowd cheered."],
            ),
            (
                "The U.S. economy grew. Jobs rose.",
                &["The U.S. economy grew.", "Jobs rose."],
            ),
            (
                "Written by J. K. Rowling. Published in 1997.",
                &["Written by J. K. Rowling.", "Published in 1997."],
            ),
            // missing spaces
            (
                "WASHINGTON (AP).Less than a year ago it began.",
                &["WASHINGTON (AP).", "Less than a year ago it began."],
            ),
            (
                "It was cold.The roads froze.",
                &["It was cold.", "The roads froze."],
            ),
            (
                "Visit example.com for more. It is free.",
                &["Visit example.com for more.", "It is free."],
            ),
            (
                "The file is report.PDF and big.",
                &["The file is report.PDF and big."],
            ),
            // line breaks and framing
            (
                "Here is a concise summary:\n\nThe film was a hit. It made money.",
                &[
                    "Here is a concise summary:",
                    "The film was a hit.",
                    "It made money.",
                ],
            ),
            (
                "Here is a summary:\nThe film was a hit.",
                &["Here is a summary:", "The film was a hit."],
            ),
            (
                "The film was a hit\nwith critics and audiences.",
                &["The film was a hit\nwith critics and audiences."],
            ),
            (
                "First paragraph.\n\nSecond paragraph.",
                &["First paragraph.", "Second paragraph."],
            ),
            ("Line one.\nLine two.", &["Line one.", "Line two."]),
            (
                "Windows line.\r\nNext line.",
                &["Windows line.", "Next line."],
            ),
            ("Title\n\nBody text here.", &["Title", "Body text here."]),
            (
                "## Summary\nThe plan is monthly.",
                &["## Summary", "The plan is monthly."],
            ),
            // lists
            (
                "Key points:\n- Team plans are monthly.\n- SSO needs Enterprise.",
                &[
                    "Key points:",
                    "Team plans are monthly.",
                    "SSO needs Enterprise.",
                ],
            ),
            ("* one item\n* two items", &["one item", "two items"]),
            (
                "1. First step.\n2. Second step.",
                &["First step.", "Second step."],
            ),
            (
                "1) Open settings\n2) Click export",
                &["Open settings", "Click export"],
            ),
            ("• Bullet one\n• Bullet two", &["Bullet one", "Bullet two"]),
            (
                "Steps:\n  - indented item\n  - another",
                &["Steps:", "indented item", "another"],
            ),
            (
                "- A list item that wraps\n  onto a second line.\n- Next item.",
                &[
                    "A list item that wraps\n  onto a second line.",
                    "Next item.",
                ],
            ),
            (
                "The answer has - a dash inside. It stays.",
                &["The answer has - a dash inside.", "It stays."],
            ),
            // refusals and hedges stay sentences (the decomposer drops them)
            (
                "I apologize, but I cannot help. The passage does not say.",
                &[
                    "I apologize, but I cannot help.",
                    "The passage does not say.",
                ],
            ),
            (
                "Based on the provided text, refunds take 14 days.",
                &["Based on the provided text, refunds take 14 days."],
            ),
            // other scripts and punctuation
            ("Café au lait. Très bien!", &["Café au lait.", "Très bien!"]),
            (
                "Das kostet 12,50 €. Danke.",
                &["Das kostet 12,50 €.", "Danke."],
            ),
            ("It's done. 🙂 Next one.", &["It's done.", "🙂 Next one."]),
            ("Really?! Yes.", &["Really?!", "Yes."]),
            (
                "A sentence; another clause. End.",
                &["A sentence; another clause.", "End."],
            ),
        ];
        assert!(table.len() >= 60, "{} cases", table.len());
        for (input, want) in table {
            assert_eq!(&split_sentences(input), want, "input: {input:?}");
        }
    }

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
    }

    #[test]
    fn whole_words_only() {
        assert_eq!(find_word("cannot can", "can", 0), Some(7));
        assert_eq!(find_word("is this", "is", 0), Some(0));
        assert_eq!(find_word("this", "is", 0), None);
        assert_eq!(find_word("anything", "", 0), None);
        assert_eq!(find_word("é", "x", 1), None);
    }

    #[test]
    fn sentences_split_at_terminal_punctuation_before_a_capital() {
        let s = split_sentences(
            "The Team plan costs €12 per user per month and includes up to 10 users. Single sign-on (SSO) is available only on the Enterprise plan.",
        );
        assert_eq!(s.len(), 2);
        assert!(s[1].starts_with("Single"));
    }

    #[test]
    fn abbreviations_and_decimals_do_not_end_sentences() {
        let s = split_sentences("Pay e.g. by card. It costs 3.5 euros. Done");
        assert_eq!(s, vec!["Pay e.g. by card.", "It costs 3.5 euros.", "Done"]);
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
    fn tidy_fixes_spacing_and_capitalises() {
        assert_eq!(tidy("export links expire ."), "Export links expire.");
        assert_eq!(tidy("a ,  b"), "A, b");
    }
}
