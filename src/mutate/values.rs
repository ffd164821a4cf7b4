//! The values a sentence states, by kind: counts of a thing, amounts, percentages, ages, years,
//! dates, months, weekdays and ordinals, each with where it is written and what it equals.
//! `conflation` reads them in a claim and in every sentence of its passages to find a value the
//! passages give for something else.

use crate::text::numbers::format_number;
use regex::Regex;
use std::collections::BTreeMap;

/// What a value is: a value is only ever replaced by one of the same kind.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Kind {
    Percent,
    /// An amount: its currency sign and its scale word ("million"; "" for none).
    Money(char, String),
    /// A count of something: the stem of the noun after it.
    Count(String),
    Age,
    Year,
    /// A day of a month: written day first or month first, with a year or without.
    Date {
        day_first: bool,
        year: bool,
    },
    MonthYear,
    Month,
    Weekday,
    /// An ordinal, written as a word ("fourteenth") or in digits ("14th").
    Ordinal {
        word: bool,
    },
    /// A name of the passages, of this kind (person, organisation, place).
    Name(String),
}

impl Kind {
    /// A kind with a size, which a bound before it ("at least") limits.
    pub(super) fn numeric(&self) -> bool {
        matches!(
            self,
            Kind::Percent | Kind::Money(..) | Kind::Count(_) | Kind::Age
        )
    }
}

/// A value found in a text.
#[derive(Debug, Clone)]
pub(super) struct Value {
    /// The bytes a replacement writes over.
    pub span: (usize, usize),
    /// The number in it (and its scale word), for kinds whose unit stays the claim's.
    pub num: (usize, usize),
    pub kind: Kind,
    /// What two values of one kind are equal by ("14", "2 march", "maria lopez").
    pub key: String,
    /// Its size, for the bounds ("at least 60").
    pub size: Option<f64>,
    /// Found inside a larger value (the year of a date): a candidate, never a slot of the claim.
    pub inner: bool,
}

impl Value {
    fn new(span: (usize, usize), kind: Kind, key: String) -> Value {
        Value {
            span,
            num: span,
            kind,
            key,
            size: None,
            inner: false,
        }
    }

    fn sized(span: (usize, usize), num: (usize, usize), kind: Kind, v: f64) -> Value {
        Value {
            span,
            num,
            kind,
            key: format_number(v),
            size: Some(v),
            inner: false,
        }
    }
}

/// The words the finder reads values by (from `conflation`'s rule file).
pub(super) struct Words {
    pub ordinals: Vec<String>,
    pub not_ordinal_before: Vec<String>,
    pub not_ordinal_after: Vec<String>,
    pub number_words: BTreeMap<String, f64>,
    pub months: Vec<String>,
    pub month_after: Vec<String>,
    pub weekdays: Vec<String>,
    pub age_before: Vec<String>,
    pub not_nouns: Vec<String>,
}

/// Finds the values of a text: each pattern claims its text in turn (a clock time first, which
/// has no value of its own, then dates, amounts, percentages, ages, ordinals, years, weekdays,
/// months and counts), so "2 March 2025" is one date, never a count and a year.
pub(super) struct Finder {
    words: Words,
    clock: Pattern,
    date_dm: Pattern,
    date_md: Pattern,
    month_year: Pattern,
    money: Pattern,
    percent: Pattern,
    age: Pattern,
    year_old: Pattern,
    ordinal_digits: Pattern,
    ordinal_word: Pattern,
    year: Pattern,
    weekday: Pattern,
    month: Pattern,
    count: Pattern,
    /// Any of the month names, anywhere: a text without one has no date and no month, so the
    /// four patterns that need one are not run on it.
    any_month: Regex,
    /// The ASCII form of every pattern above, in one search: which of them match anywhere in
    /// a text, so that the others are not run on it ([`Finder::has`]).
    ascii_set: std::sync::OnceLock<regex::RegexSet>,
}

/// Where each pattern is in [`Finder::ascii_set`] and its bit in [`Has::may`].
mod at {
    pub const CLOCK: u16 = 1 << 0;
    pub const DATE_DM: u16 = 1 << 1;
    pub const DATE_MD: u16 = 1 << 2;
    pub const MONTH_YEAR: u16 = 1 << 3;
    pub const MONEY: u16 = 1 << 4;
    pub const PERCENT: u16 = 1 << 5;
    pub const AGE: u16 = 1 << 6;
    pub const YEAR_OLD: u16 = 1 << 7;
    pub const ORDINAL_DIGITS: u16 = 1 << 8;
    pub const ORDINAL_WORD: u16 = 1 << 9;
    pub const YEAR: u16 = 1 << 10;
    pub const WEEKDAY: u16 = 1 << 11;
    pub const MONTH: u16 = 1 << 12;
    pub const COUNT: u16 = 1 << 13;
}

/// The patterns that need a digit: all but the ordinal words, the weekdays, the months after a
/// word and the counts.
const NEED_DIGIT: u16 = at::CLOCK
    | at::DATE_DM
    | at::DATE_MD
    | at::MONTH_YEAR
    | at::MONEY
    | at::PERCENT
    | at::AGE
    | at::YEAR_OLD
    | at::ORDINAL_DIGITS
    | at::YEAR;

/// The patterns that need a month name.
const NEED_MONTH: u16 = at::DATE_DM | at::DATE_MD | at::MONTH_YEAR | at::MONTH;

/// Which of [`Finder`]'s patterns to run on a text, and in which form.
#[derive(Clone, Copy)]
struct Has {
    /// Whether the text is searched with the ASCII patterns ([`ascii_words`]).
    ascii: bool,
    /// One bit a pattern ([`at`]): clear when the pattern matches nowhere in the text.
    may: u16,
}

impl Has {
    /// The pattern to search the text with, or none when it matches nowhere in it.
    fn pick<'p>(&self, p: &'p Pattern, bit: u16) -> Option<&'p Regex> {
        (self.may & bit != 0).then(|| p.on(self.ascii))
    }
}

/// A digit as the patterns' `\d` reads one: any Unicode decimal digit.
static DIGIT: std::sync::LazyLock<Regex> =
    std::sync::LazyLock::new(|| Regex::new(r"\d").expect("a valid regex"));

/// One of [`Finder`]'s patterns, compiled twice: as written, and with every `\b` an ASCII word
/// boundary. The regex crate runs a Unicode `\b` on its slow engines as soon as the text holds a
/// non-ASCII character (a `€`, a curly quote), about ten times the cost of the whole search; an
/// ASCII `\b` runs on its fast ones. The two are the same search on a text whose non-ASCII
/// characters are none of them word characters ([`ascii_words`]): every position is then a
/// boundary for both or for neither, and nothing else in the pattern changed.
struct Pattern {
    unicode: Regex,
    ascii: Regex,
}

impl Pattern {
    fn new(p: String) -> Pattern {
        let compile = |p: &str| Regex::new(p).expect("escaped words make a valid regex");
        Pattern {
            ascii: compile(&ascii_boundaries(&p)),
            unicode: compile(&p),
        }
    }

    /// The pattern to search a text with: `ascii` when [`ascii_words`] said so of it.
    fn on(&self, ascii: bool) -> &Regex {
        if ascii {
            &self.ascii
        } else {
            &self.unicode
        }
    }
}

/// `p` with each `\b` written `(?-u:\b)` (an escaped backslash, `\\b`, stays as it is).
fn ascii_boundaries(p: &str) -> String {
    let mut out = String::with_capacity(p.len() + 16);
    let mut chars = p.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('b') => out.push_str(r"(?-u:\b)"),
            Some(next) => {
                out.push('\\');
                out.push(next);
            }
            None => out.push('\\'),
        }
    }
    out
}

/// Whether every word character of `text` is ASCII: no letter, digit or mark beyond ASCII, by
/// the regex crate's own `\w`. Then an ASCII `\b` and a Unicode one agree everywhere in it.
fn ascii_words(text: &str) -> bool {
    static NON_ASCII_WORD: std::sync::LazyLock<Regex> =
        std::sync::LazyLock::new(|| Regex::new(r"[\w&&[^\x00-\x7F]]").expect("a valid regex"));
    // the non-ASCII characters of most texts are signs, quotes, dashes and spaces, none of them
    // a word character: a text with no other asks no regex
    text.is_ascii()
        || text.chars().all(|c| c.is_ascii() || NOT_WORD.contains(&c))
        || !NON_ASCII_WORD.is_match(text)
}

/// Non-ASCII characters that are no word characters (currency signs, quotes, dashes, spaces,
/// the ellipsis, the degree sign, bullets, primes).
const NOT_WORD: [char; 20] = [
    '€', '£', '¥', '’', '‘', '“', '”', '–', '—', '…', '\u{a0}', '\u{202f}', '\u{2009}', '°', '·',
    '•', '′', '″', '«', '»',
];

/// The words as regex alternatives, longest first ("at least" before "at").
pub(super) fn alt(words: &[String]) -> String {
    let mut w: Vec<&String> = words.iter().collect();
    w.sort_by_key(|x| std::cmp::Reverse(x.len()));
    w.iter()
        .map(|x| regex::escape(x))
        .collect::<Vec<_>>()
        .join("|")
}

/// A number as written ("1,842", "4.6", "3,50"), read.
fn read_number(s: &str) -> Option<f64> {
    let s = s.trim_end_matches(',');
    let thousands = s.contains(',')
        && s.split('.').next().is_some_and(|int| {
            let parts: Vec<&str> = int.split(',').collect();
            parts[0].len() <= 3 && parts[1..].iter().all(|p| p.len() == 3)
        });
    let plain = if thousands {
        s.replace(',', "")
    } else {
        s.replacen(',', ".", 1)
    };
    plain.parse().ok()
}

/// A scale word, written out, and its factor ("m" is "million").
fn scale_of(word: &str) -> (&'static str, f64) {
    match word.to_lowercase().as_str() {
        "m" | "million" => ("million", 1e6),
        "bn" | "billion" => ("billion", 1e9),
        "k" | "thousand" => ("thousand", 1e3),
        "trillion" => ("trillion", 1e12),
        _ => ("", 1.0),
    }
}

/// The values found so far and the text they hold.
#[derive(Default)]
struct Found {
    out: Vec<Value>,
    /// The spans taken, start to end; they never overlap, so a look-up finds a clash (a scan
    /// would be quadratic in a passage of thousands of values).
    taken: std::collections::BTreeMap<usize, usize>,
}

impl Found {
    fn free(&self, (s, e): (usize, usize)) -> bool {
        // the last span starting before `e` is the only one that can reach past `s`
        self.taken
            .range(..e)
            .next_back()
            .is_none_or(|(_, b)| *b <= s)
    }

    fn take(&mut self, (s, e): (usize, usize)) {
        self.taken.insert(s, e);
    }

    /// Keeps `v` when its text is not another value's already.
    fn push(&mut self, v: Value) -> bool {
        if !self.free(v.span) {
            return false;
        }
        self.take(v.span);
        self.out.push(v);
        true
    }

    /// A value inside one just kept (a date's month and year): a candidate of its own.
    fn inner(&mut self, m: regex::Match, kind: Kind, key: String) {
        let mut v = Value::new((m.start(), m.end()), kind, key);
        v.inner = true;
        self.out.push(v);
    }
}

impl Finder {
    pub(super) fn new(words: Words) -> Finder {
        let months = alt(&words.months);
        let re = Pattern::new;
        let numbers: Vec<String> = words.number_words.keys().cloned().collect();
        Finder {
            clock: re(
                r"(?i)\b\d{1,2}(?:[:.]\d\d)?\s?(?:a\.m\.|p\.m\.|am\b|pm\b)|\b\d{1,2}:\d\d\b".into(),
            ),
            date_dm: re(format!(
                r"(?i)\b(\d{{1,2}})(?:st|nd|rd|th)?\s+({months})\b(?:,?\s+((?:19|20)\d\d)\b)?"
            )),
            date_md: re(format!(
                r"(?i)\b({months})\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s+((?:19|20)\d\d)\b)?"
            )),
            month_year: re(format!(r"(?i)\b({months})\s+((?:19|20)\d\d)\b")),
            money: re(
                r"([€$£¥])\s?(\d[\d,]*(?:\.\d+)?)(?:\s?(million|billion|thousand|trillion|bn|m|k)\b)?"
                    .into(),
            ),
            percent: re(r"\b(\d+(?:[.,]\d+)?)\s?(?:%|per\s?cent\b|percent\b)".into()),
            age: re(format!(
                r"(?i)\b(?:{})\s+(\d{{1,3}})\b",
                alt(&words.age_before)
            )),
            year_old: re(r"\b(\d{1,3})-year-old".into()),
            ordinal_digits: re(r"\b(\d{1,3})(?:st|nd|rd|th)\b".into()),
            ordinal_word: re(format!(r"(?i)\b(?:{})\b", alt(&words.ordinals))),
            year: re(r"\b(?:19|20)\d\d\b".into()),
            weekday: re(format!(r"(?i)\b(?:{})\b", alt(&words.weekdays))),
            month: re(format!(
                r"(?i)\b(?:{})\s+({months})\b",
                alt(&words.month_after)
            )),
            count: re(format!(
                r"(?i)\b(\d[\d,]*(?:\.\d+)?|{})(?:\s+(million|billion|thousand))?\s+([a-z]+(?:-[a-z]+)?)\b",
                alt(&numbers)
            )),
            any_month: Regex::new(&format!("(?i)(?:{months})"))
                .expect("escaped words make a valid regex"),
            ascii_set: Default::default(),
            words,
        }
    }

    /// [`Finder::ascii_set`], compiled the first time a text is read.
    fn ascii_set(&self) -> &regex::RegexSet {
        self.ascii_set.get_or_init(|| {
            // in the order of the bits of `at`
            regex::RegexSet::new(
                [
                    &self.clock,
                    &self.date_dm,
                    &self.date_md,
                    &self.month_year,
                    &self.money,
                    &self.percent,
                    &self.age,
                    &self.year_old,
                    &self.ordinal_digits,
                    &self.ordinal_word,
                    &self.year,
                    &self.weekday,
                    &self.month,
                    &self.count,
                ]
                .map(|p| p.ascii.as_str()),
            )
            .expect("the patterns compile one by one, so together")
        })
    }

    /// Every value of `text`, in text order.
    pub(super) fn find(&self, text: &str) -> Vec<Value> {
        self.find_with(text, self.has(text))
    }

    /// Which patterns can match `text` at all. A text searched with the ASCII patterns
    /// ([`ascii_words`]) is asked all of them in one search. Of another, only what the patterns
    /// need is asked: a digit ([`NEED_DIGIT`]; `\d` is any Unicode digit, so a text beyond ASCII
    /// is asked with the same class) and a month name ([`NEED_MONTH`], matched as the patterns
    /// match it: the same alternatives, the same case folding).
    fn has(&self, text: &str) -> Has {
        if ascii_words(text) {
            let found = self.ascii_set().matches(text);
            return Has {
                ascii: true,
                may: found.iter().fold(0, |bits, i| bits | 1 << i),
            };
        }
        let mut may = u16::MAX;
        if !text.bytes().any(|b| b.is_ascii_digit()) && !DIGIT.is_match(text) {
            may &= !NEED_DIGIT;
        }
        if !self.any_month.is_match(text) {
            may &= !NEED_MONTH;
        }
        Has { ascii: false, may }
    }

    /// [`Finder::find`] running only the patterns `has` allows.
    fn find_with(&self, text: &str, has: Has) -> Vec<Value> {
        let mut f = Found::default();
        let clock = has.pick(&self.clock, at::CLOCK);
        for m in clock.into_iter().flat_map(|re| re.find_iter(text)) {
            f.take((m.start(), m.end()));
        }
        self.dates(text, has, &mut f);
        self.amounts(text, has, &mut f);
        self.ages(text, has, &mut f);
        self.ordinals(text, has, &mut f);
        self.calendar(text, has, &mut f);
        if let Some(re) = has.pick(&self.count, at::COUNT) {
            self.counts(re, text, &mut f);
        }
        f.out.sort_by_key(|v| v.span);
        f.out
    }

    /// "2 March 2025", "March 2", "May 2022": each with its month and year as inner values.
    fn dates(&self, text: &str, has: Has, f: &mut Found) {
        for (p, bit, day_first) in [
            (&self.date_dm, at::DATE_DM, true),
            (&self.date_md, at::DATE_MD, false),
        ] {
            let Some(re) = has.pick(p, bit) else {
                continue;
            };
            for c in re.captures_iter(text) {
                let whole = c.get(0).expect("a match");
                let (d, mo) = if day_first { (1, 2) } else { (2, 1) };
                let month = c.get(mo).expect("a month");
                let Some(day) = c[d].parse::<u32>().ok().filter(|d| (1..=31).contains(d)) else {
                    continue;
                };
                let year = c.get(3);
                let kind = Kind::Date {
                    day_first,
                    year: year.is_some(),
                };
                let key = format!("{day} {}", month.as_str().to_lowercase());
                if f.push(Value::new((whole.start(), whole.end()), kind, key)) {
                    f.inner(month, Kind::Month, month.as_str().to_lowercase());
                    if let Some(y) = year {
                        f.inner(y, Kind::Year, y.as_str().to_string());
                    }
                }
            }
        }
        let Some(re) = has.pick(&self.month_year, at::MONTH_YEAR) else {
            return;
        };
        for c in re.captures_iter(text) {
            let (whole, month, y) = (
                c.get(0).expect("a match"),
                c.get(1).expect("a month"),
                c.get(2).expect("a year"),
            );
            let key = format!("{} {}", month.as_str().to_lowercase(), y.as_str());
            if f.push(Value::new(
                (whole.start(), whole.end()),
                Kind::MonthYear,
                key,
            )) {
                f.inner(month, Kind::Month, month.as_str().to_lowercase());
                f.inner(y, Kind::Year, y.as_str().to_string());
            }
        }
    }

    /// "€410 million", "$1.2bn", "€3,50"; "4.6%", "12 per cent".
    fn amounts(&self, text: &str, has: Has, f: &mut Found) {
        let money = has.pick(&self.money, at::MONEY);
        for c in money.into_iter().flat_map(|re| re.captures_iter(text)) {
            let (whole, n) = (c.get(0).expect("a match"), c.get(2).expect("a number"));
            let cur = c[1].chars().next().unwrap_or('$');
            let scale = c.get(3).map_or("", |s| scale_of(s.as_str()).0);
            let end = c.get(3).map_or(n.end(), |s| s.end());
            let digits = n.as_str().trim_end_matches(',');
            let Some(v) = read_number(digits) else {
                continue;
            };
            f.push(Value::sized(
                (whole.start(), end),
                (n.start(), n.start() + digits.len()),
                Kind::Money(cur, scale.to_string()),
                v,
            ));
        }
        let percent = has.pick(&self.percent, at::PERCENT);
        for c in percent.into_iter().flat_map(|re| re.captures_iter(text)) {
            let (whole, n) = (c.get(0).expect("a match"), c.get(1).expect("a number"));
            if let Some(v) = read_number(n.as_str()) {
                f.push(Value::sized(
                    (whole.start(), whole.end()),
                    (n.start(), n.end()),
                    Kind::Percent,
                    v,
                ));
            }
        }
    }

    /// "aged 65", "then 59", "a 17-year-old".
    fn ages(&self, text: &str, has: Has, f: &mut Found) {
        let both = [
            has.pick(&self.age, at::AGE),
            has.pick(&self.year_old, at::YEAR_OLD),
        ];
        for re in both.into_iter().flatten() {
            for c in re.captures_iter(text) {
                let n = c.get(1).expect("a number");
                if let Ok(v) = n.as_str().parse::<f64>() {
                    let span = (n.start(), n.end());
                    f.push(Value::sized(span, span, Kind::Age, v));
                }
            }
        }
    }

    /// "14th", "fourteenth"; never one inside an expression ("for the first time", "at first").
    fn ordinals(&self, text: &str, has: Has, f: &mut Found) {
        let digits: Vec<regex::Captures> = has
            .pick(&self.ordinal_digits, at::ORDINAL_DIGITS)
            .map_or_else(Vec::new, |re| re.captures_iter(text).collect());
        for c in digits {
            let whole = c.get(0).expect("a match");
            let span = (whole.start(), whole.end());
            if !self.in_expression(text, span) {
                f.push(Value::new(
                    span,
                    Kind::Ordinal { word: false },
                    c[1].to_string(),
                ));
            }
        }
        let words = has.pick(&self.ordinal_word, at::ORDINAL_WORD);
        for m in words.into_iter().flat_map(|re| re.find_iter(text)) {
            let span = (m.start(), m.end());
            let lower = m.as_str().to_lowercase();
            let place = self
                .words
                .ordinals
                .iter()
                .position(|o| o.to_lowercase() == lower);
            if let (Some(n), false) = (place, self.in_expression(text, span)) {
                f.push(Value::new(
                    span,
                    Kind::Ordinal { word: true },
                    (n + 1).to_string(),
                ));
            }
        }
    }

    fn in_expression(&self, text: &str, (s, e): (usize, usize)) -> bool {
        let next = text[e..]
            .trim_start()
            .split(|c: char| !c.is_alphanumeric())
            .next()
            .unwrap_or("")
            .to_lowercase();
        let prev = text[..s]
            .trim_end()
            .rsplit(|c: char| !c.is_alphanumeric())
            .next()
            .unwrap_or("")
            .to_lowercase();
        text[e..].starts_with(',')
            || self.words.not_ordinal_before.contains(&next)
            || self.words.not_ordinal_after.contains(&prev)
    }

    /// Years ("in 2019"), weekdays, and months after a word that makes them one ("in May").
    fn calendar(&self, text: &str, has: Has, f: &mut Found) {
        let years: Vec<regex::Match> = has
            .pick(&self.year, at::YEAR)
            .map_or_else(Vec::new, |re| re.find_iter(text).collect());
        for m in years {
            let span = (m.start(), m.end());
            // "2,000 people" and "2000-01" are no years
            let glued = text[span.1..].starts_with([',', '-', '.'])
                && text[span.1 + 1..].starts_with(|c: char| c.is_ascii_digit());
            if !glued && !text[..span.0].ends_with([',', '.']) {
                f.push(Value::new(span, Kind::Year, m.as_str().to_string()));
            }
        }
        let weekdays = has.pick(&self.weekday, at::WEEKDAY);
        for m in weekdays.into_iter().flat_map(|re| re.find_iter(text)) {
            let span = (m.start(), m.end());
            f.push(Value::new(span, Kind::Weekday, m.as_str().to_lowercase()));
        }
        // "may" in small letters is a month only in text written all in small letters
        let small = !text.chars().any(char::is_uppercase);
        let Some(re) = has.pick(&self.month, at::MONTH) else {
            return;
        };
        for c in re.captures_iter(text) {
            let m = c.get(1).expect("a month");
            if m.as_str() != "may" || small {
                let span = (m.start(), m.end());
                f.push(Value::new(span, Kind::Month, m.as_str().to_lowercase()));
            }
        }
    }

    /// "1,842 votes", "two factories", "2.5 million people": a number and the noun it counts.
    fn counts(&self, re: &Regex, text: &str, f: &mut Found) {
        for c in re.captures_iter(text) {
            let (n, noun) = (c.get(1).expect("a number"), c.get(3).expect("a noun"));
            // a number glued to another ("3-1", "4.6", "S3") is no count, and neither is the
            // denominator of a rate ("1 in 10 people")
            let before = text[..n.start()].trim_end();
            let rate = before.strip_suffix(" in").is_some_and(|b| {
                let w = b.rsplit(' ').next().unwrap_or("").to_lowercase();
                w.starts_with(|c: char| c.is_ascii_digit())
                    || w == "one"
                    || self.words.number_words.contains_key(&w)
            });
            let not_noun = self
                .words
                .not_nouns
                .iter()
                .any(|w| w.eq_ignore_ascii_case(noun.as_str()));
            if rate
                || not_noun
                || n.as_str().ends_with(',')
                || text[..n.start()].ends_with(['-', '.', ',', '/', ':', '€', '$', '£', '¥', '#'])
            {
                continue;
            }
            let v = match self.words.number_words.get(&n.as_str().to_lowercase()) {
                Some(v) => *v,
                None => match read_number(n.as_str()) {
                    Some(v) => v,
                    None => continue,
                },
            };
            let (num_end, factor) = match c.get(2) {
                Some(s) => (s.end(), scale_of(s.as_str()).1),
                None => (n.end(), 1.0),
            };
            let stem = crate::text::tokens::stem(&noun.as_str().to_lowercase());
            f.push(Value::sized(
                (n.start(), noun.end()),
                (n.start(), num_end),
                Kind::Count(stem),
                v * factor,
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finder() -> Finder {
        let w = |s: &str| s.split(' ').map(str::to_string).collect::<Vec<_>>();
        Finder::new(Words {
            ordinals: w("first second third fourth fifth"),
            not_ordinal_before: w("time"),
            not_ordinal_after: w("at"),
            number_words: [("two".to_string(), 2.0)].into_iter().collect(),
            months: w("March May June"),
            month_after: w("in since"),
            weekdays: w("Monday Tuesday"),
            age_before: w("aged then"),
            not_nouns: w("per of in"),
        })
    }

    fn kinds(text: &str) -> Vec<(String, String)> {
        finder()
            .find(text)
            .into_iter()
            .filter(|v| !v.inner)
            .map(|v| (text[v.span.0..v.span.1].to_string(), v.key))
            .collect()
    }

    /// What a search found, comparable.
    fn seen(f: &Finder, text: &str, has: Has) -> Vec<String> {
        f.find_with(text, has)
            .iter()
            .map(|v| {
                format!(
                    "{:?} {:?} {:?} {} {:?}",
                    v.span, v.num, v.kind, v.key, v.size
                )
            })
            .collect()
    }

    /// The patterns [`Finder::has`] rules out (by the one search of them all, or by a text's
    /// digits and month names) find nothing in it: leaving them out gives what running every
    /// pattern gives (Unicode digits, case folding, no digit, no month).
    fn filtered_equals_every_pattern(text: &str) {
        static F: std::sync::LazyLock<Finder> = std::sync::LazyLock::new(finder);
        let f = &*F;
        let every = Has {
            ascii: ascii_words(text),
            may: u16::MAX,
        };
        assert_eq!(seen(f, text, f.has(text)), seen(f, text, every), "{text:?}");
    }

    #[test]
    fn a_text_without_digits_or_months_reads_as_with_every_pattern() {
        for text in [
            "",
            "Admins can delete a ticket within two days, since March, on Monday.",
            "The first team met in May; the second in June.",
            "Paid €12 on 3 March 2025 at 10:30 am, aged 65, the 14th of 20 people, 4.6%.",
            "Arabic-Indic digits: ٣ days, ١٤ March, the ٣rd; fullwidth: ３ months in ２０２４, the ４th.",
            "the ٣rd place", // an ordinal of digits beyond ASCII
            "Long s: 3 MARCH, 2 ma\u{17f}ch, mar\u{c7}h, the ſecond; Kelvin: \u{212a}.",
            "Sorry, but I can't say. Here is a summary: two people, fifth place.",
            "since may, in may 2020", // small letters
        ] {
            filtered_equals_every_pattern(text);
        }
    }

    proptest::proptest! {
        #[test]
        fn any_text_reads_as_with_every_pattern(parts in proptest::collection::vec(
            proptest::sample::select(vec![
                "3", "14", "2025", "٣", "３", "March", "MAY", "ſ", "june", "Monday", "in", "since",
                "aged", "then", "first", "two", "people", "th", "rd", "€", "%", "per cent", ":", ".",
                ",", "-", " ", " ", "\u{a0}", "a.m.", "pm", "é", "year-old",
            ]),
            0..16,
        )) {
            filtered_equals_every_pattern(&parts.concat());
        }
    }

    #[test]
    fn each_value_is_read_once_by_its_kind() {
        assert_eq!(
            kinds("Fares rise by 4.6 per cent from 2 March 2025, £1.5m in all."),
            [
                ("4.6 per cent", "4.6"),
                ("2 March 2025", "2 march"),
                ("£1.5m", "1.5")
            ]
            .map(|(a, b)| (a.to_string(), b.to_string()))
        );
        assert_eq!(
            kinds("Sir Paul, then 59, married on Tuesday in May 2002 for the first time."),
            [
                ("59", "59"),
                ("Tuesday", "tuesday"),
                ("May 2002", "may 2002")
            ]
            .map(|(a, b)| (a.to_string(), b.to_string()))
        );
        assert_eq!(
            kinds("Two factories and 1,842 votes, at 9 a.m., 1 in 10 people, its second album."),
            [
                ("Two factories", "2"),
                ("1,842 votes", "1842"),
                ("second", "2")
            ]
            .map(|(a, b)| (a.to_string(), b.to_string()))
        );
        // "may" the verb is no month; "€3,50" is three and a half
        assert!(kinds("Prices may rise in may.").is_empty());
        assert_eq!(kinds("It costs €3,50.")[0].1, "3.5");
    }

    #[test]
    fn the_listed_signs_and_quotes_are_no_word_characters() {
        let word = Regex::new(r"\w").unwrap();
        for c in NOT_WORD {
            assert!(!c.is_ascii() && !word.is_match(&c.to_string()), "{c:?}");
        }
        assert!(ascii_words("“€3,50” – 17 per cent…"));
        assert!(!ascii_words("“€3,50” – Zürich"));
    }

    #[test]
    fn the_ascii_patterns_find_what_the_unicode_ones_find_where_they_are_used() {
        assert_eq!(ascii_boundaries(r"\b(\d)\\b\s"), r"(?-u:\b)(\d)\\b\s");
        let f = finder();
        let texts = [
            "Fares rise by 4.6 per cent from 2 March 2025, €1.5m in all, at 9 a.m. “Two factories”.",
            "Sir Paul, then 59 — married on Tuesday in May 2002 for the second time; 3 ‘seats’ left.",
            "Café prices: 12 days, naïve 3 résumés, 2 Mayors, 14th, €5 per month\u{a0}and 7\u{a0}hours.",
        ];
        for text in texts {
            let both = |ascii: bool| {
                let mut out = Vec::new();
                for p in [
                    &f.clock,
                    &f.date_dm,
                    &f.date_md,
                    &f.month_year,
                    &f.money,
                    &f.percent,
                ]
                .into_iter()
                .chain([
                    &f.age,
                    &f.year_old,
                    &f.ordinal_digits,
                    &f.ordinal_word,
                    &f.year,
                ])
                .chain([&f.weekday, &f.month, &f.count])
                {
                    for c in p.on(ascii).captures_iter(text) {
                        out.push(c.iter().map(|m| m.map(|m| m.range())).collect::<Vec<_>>());
                    }
                }
                out
            };
            if ascii_words(text) {
                assert_eq!(both(true), both(false), "{text}");
            }
        }
        assert!(ascii_words(texts[0]) && ascii_words(texts[1]) && !ascii_words(texts[2]));
    }
}
