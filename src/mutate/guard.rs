//! The grammar guard every operator's edit passes before it is kept as a mutant: the sentence
//! around the edit must still read as English and state possible facts. An edit the guard refuses
//! is a skip with its reason (`faithprobe mutants` lists them), never a case.
//!
//! The guard compares the mutant with its claim and refuses what the edit *introduced*: a
//! problem the claim already had is not the operator's doing. Each rule is a small function with
//! a table-driven test; the realism benchmark counts the refusals per operator and reason.

use crate::text::tokens::word_spans;

/// Function words that have no plural: "ofs", "ins", "tos" are never English.
const FUNCTION_WORDS: &[&str] = &[
    "of", "in", "or", "and", "to", "the", "a", "an", "at", "on", "by", "for", "with", "from",
    "per", "than", "as", "into", "onto", "over", "under", "up", "out", "off", "via", "nor", "but",
    "if", "so", "yet", "its", "their", "our", "your", "his", "her", "my", "this", "that", "every",
    "each", "another", "more", "less", "other", "such", "only", "just", "also", "again", "any",
    "no", "not", "very", "too",
];

/// Whether `w` (lower case) is a function word, which has no plural.
pub fn is_function_word(w: &str) -> bool {
    FUNCTION_WORDS.contains(&w)
}

/// Word pairs no edit may leave behind (each seen in a real broken mutant).
const BAD_PAIRS: &[(&str, &str)] = &[
    ("with", "will"),
    ("with", "would"),
    ("the", "all"),
    ("a", "all"),
    ("the", "every"),
    ("little", "the"),
    ("much", "the"),
    ("to", "will"),
    ("to", "would"),
    ("not", "not"),
    // an article left before a conjunction or preposition: "hold a or full licence"
    ("a", "or"),
    ("a", "and"),
    ("an", "or"),
    ("an", "and"),
    ("the", "or"),
    ("the", "and"),
    ("the", "of"),
    ("a", "of"),
    // a negation put before a negation: "There is not no entry fee"
    ("not", "no"),
    ("not", "none"),
];

/// Modal verbs: two in a row ("will can") are never English.
const MODALS: &[&str] = &[
    "will", "would", "can", "could", "may", "might", "must", "shall", "should",
];

/// Fixed expressions whose words an edit must not change one by one ("last year" is not "first
/// year", "at first" is not "at last", "one of the" is not "two of the").
const FIXED: &[&[&str]] = &[
    &["at", "first"],
    &["at", "last"],
    &["first", "time"],
    &["last", "year"],
    &["last", "week"],
    &["last", "month"],
    &["last", "night"],
    &["last", "season"],
    &["last", "time"],
    &["one", "of"],
    &["with", "plans", "to"],
    &["little", "about"],
    &["know", "about"],
    &["first", "of", "all"],
    &["at", "the", "latest"],
    &["in", "the", "first", "place"],
    // "left" as "remaining": "two seats are left" is not "two seats are joined"
    &["are", "left"],
    &["is", "left"],
    &["was", "left"],
    &["were", "left"],
    // a negated modal is no hedge: "may not affect" is not "will not affect"
    &["may", "not"],
];

/// Month names and their longest length (February: 29, checked against the year apart).
const MONTHS: [(&str, u32); 12] = [
    ("january", 31),
    ("february", 29),
    ("march", 31),
    ("april", 30),
    ("may", 31),
    ("june", 30),
    ("july", 31),
    ("august", 31),
    ("september", 30),
    ("october", 31),
    ("november", 30),
    ("december", 31),
];

/// A check of one sentence: true when it has the problem.
type Rule = fn(&Sentence) -> bool;

/// A sentence as the rules read it: its text, and its lower-cased words, split once (generation
/// reads a claim once for all its edits, and an edit once for the guard and its other checks).
pub(crate) struct Sentence<'a> {
    raw: &'a str,
    words: Vec<String>,
}

impl<'a> Sentence<'a> {
    pub(crate) fn new(raw: &'a str) -> Sentence<'a> {
        Sentence {
            raw,
            words: words(raw),
        }
    }

    /// Its lower-cased words, in order.
    pub(crate) fn words(&self) -> &[String] {
        &self.words
    }
}

/// Why the edit from `claim` to `mutant` does not read as English or states something impossible,
/// or `None` when it may be kept.
pub fn refuse(claim: &str, mutant: &str) -> Option<&'static str> {
    refuse_read(&Sentence::new(claim), &Sentence::new(mutant))
}

/// [`refuse`] of a claim and a mutant already read.
pub(crate) fn refuse_read(claim: &Sentence, mutant: &Sentence) -> Option<&'static str> {
    let rules: [(Rule, &'static str); 13] = [
        (
            modal_before_number,
            "the edit put a modal before a number (\"Will 2024 was warm\": May the month read as the verb)",
        ),
        (
            modal_before_past_tense,
            "the edit put a past-tense verb after a modal (\"might raised\" for \"might cut\")",
        ),
        (
            article_agreement,
            "the edit left an article that does not fit the next word (\"an dividend\")",
        ),
        (
            pluralised_function_word,
            "the edit pluralised a function word (\"ofs\", \"ins\")",
        ),
        (
            doubled_word,
            "the edit left a doubled word (\"the the\", \"not not\", \"Tuesday and Tuesday\")",
        ),
        (
            bad_pair,
            "the edit joined two words no sentence puts together (\"with will\", \"the all\")",
        ),
        (
            impossible_date,
            "the edit wrote a date that does not exist (31 April, 29 February 2025)",
        ),
        (
            range_out_of_order,
            "the edit wrote a range whose ends are out of order (\"8 to 6 hours\")",
        ),
        (
            number_agreement,
            "the changed number does not agree with its noun (\"2 day\", \"1 days\")",
        ),
        (
            negated_month,
            "the edit negated a month name (\"As of May not 2017\")",
        ),
        (
            bare_scale_word,
            "the edit left a scale word without its number (\"gets hundred GB\" for \"a hundred\")",
        ),
        (
            part_exceeds_whole,
            "the edit made a part larger than its whole (\"fourteen of the nine members\")",
        ),
        (
            adverb_before_noun,
            "the edit put an adverb where an adjective goes (\"an annually fee\")",
        ),
    ];
    for (has, why) in rules {
        if has(mutant) && !has(claim) {
            return Some(why);
        }
    }
    // a dashed range the claim wrote in order whose ends the edit turned round ("18-25" ->
    // "36-25"); a score ("won 3-1") was never in order, so it is never refused
    let (before, after) = (dash_ranges(claim.raw), dash_ranges(mutant.raw));
    if before.len() == after.len()
        && before
            .iter()
            .zip(&after)
            .any(|((a, b), (x, y))| a < b && x >= y)
    {
        return Some("the edit wrote a range whose ends are out of order (\"8 to 6 hours\")");
    }
    if broke_fixed_expression(claim, mutant) {
        return Some("the edit changed a word inside a fixed expression (\"last year\", \"at first\", \"one of\")");
    }
    None
}

/// The lower-cased words of `s`, without punctuation.
fn words(s: &str) -> Vec<String> {
    word_spans(s)
        .into_iter()
        .map(|(a, b)| s[a..b].to_lowercase())
        .collect()
}

fn pluralised_function_word(s: &Sentence) -> bool {
    const REAL: &[&str] = &[
        "as", "its", "us", "is", "has", "was", "this", "others", "nos",
    ];
    s.words.iter().any(|w| {
        // the word less "s" or "es", or with "ies" for "y", is a function word: compared in
        // place, with no stem built per word
        let is_function = |stem: &str| FUNCTION_WORDS.contains(&stem);
        let ies = |stem: &str| {
            FUNCTION_WORDS
                .iter()
                .any(|f| f.strip_suffix('y') == Some(stem))
        };
        w.ends_with('s')
            && !REAL.contains(&w.as_str())
            && (w.strip_suffix('s').is_some_and(is_function)
                || w.strip_suffix("es").is_some_and(is_function)
                || w.strip_suffix("ies").is_some_and(ies))
    })
}

/// "an dividend", "a interim report": `a`/`an` before a word of the other sound, by its
/// first letter (words whose sound differs from their letter, "an hour", "a unit", "a one-off",
/// "a European", are never counted).
fn article_agreement(s: &Sentence) -> bool {
    let w = &s.words;
    w.windows(2).any(|p| {
        let next = p[1].as_str();
        let Some(first) = next.chars().next() else {
            return false;
        };
        if !first.is_ascii_alphabetic() || next.starts_with(['h', 'u', 'e', 'o']) {
            return false;
        }
        let vowel = "aeiou".contains(first);
        (p[0] == "an" && !vowel) || (p[0] == "a" && vowel)
    })
}

fn doubled_word(s: &Sentence) -> bool {
    // "more and more", "over and over": the few words English doubles on purpose
    const DOUBLED: &[&str] = &[
        "more", "less", "again", "over", "on", "round", "better", "worse", "through", "bigger",
    ];
    let w = &s.words;
    w.windows(2).any(|p| {
        p[0] == p[1]
            && (FUNCTION_WORDS.contains(&p[0].as_str())
                || p[0] == "not"
                || MODALS.contains(&p[0].as_str()))
    }) || w.windows(3).any(|p| {
        // "on Tuesday and Tuesday": a word joined to itself
        p[0] == p[2]
            && (p[1] == "and" || p[1] == "or")
            && p[0].chars().all(char::is_alphabetic)
            && !DOUBLED.contains(&p[0].as_str())
    })
}

fn bad_pair(s: &Sentence) -> bool {
    let w = &s.words;
    w.windows(2).any(|p| {
        BAD_PAIRS.contains(&(p[0].as_str(), p[1].as_str()))
            || (MODALS.contains(&p[0].as_str()) && MODALS.contains(&p[1].as_str()))
    })
}

fn month_days(w: &str) -> Option<u32> {
    MONTHS.iter().find(|(m, _)| *m == w).map(|(_, d)| *d)
}

fn is_leap(y: u32) -> bool {
    (y.is_multiple_of(4) && !y.is_multiple_of(100)) || y.is_multiple_of(400)
}

/// The day a word names: one or two digits, with or without an ordinal's letters ("15", "1st").
fn day_of(x: &str) -> Option<u32> {
    let d = x.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    (!d.is_empty() && d.len() <= 2 && d.chars().all(|c| c.is_ascii_digit()))
        .then(|| d.parse().ok())
        .flatten()
}

/// Whether the sentence writes the month May: "May" with its capital past its first word (the
/// guard's words are lower-cased, and "may" is also the modal).
fn writes_may_the_month(s: &Sentence) -> bool {
    s.raw
        .split_whitespace()
        .skip(1)
        .any(|w| w.starts_with("May"))
}

/// "31 April", "April 31", "29 February 2025", "30 February".
fn impossible_date(s: &Sentence) -> bool {
    let w = &s.words;
    let year = |x: Option<&String>| -> Option<u32> {
        x.filter(|y| y.len() == 4 && y.chars().all(|c| c.is_ascii_digit()))
            .and_then(|y| y.parse().ok())
    };
    for i in 0..w.len() {
        let Some(len) = month_days(&w[i]) else {
            continue;
        };
        // "31 April [2024]" or "April 31[, 2024]"; "the 31st of April"
        let before = i.checked_sub(1).and_then(|j| day_of(&w[j])).or_else(|| {
            (i >= 2 && w[i - 1] == "of")
                .then(|| day_of(&w[i - 2]))
                .flatten()
        });
        let (d, y) = match before {
            Some(d) => (Some(d), year(w.get(i + 1))),
            None => (w.get(i + 1).and_then(|x| day_of(x)), year(w.get(i + 2))),
        };
        let Some(d) = d else {
            continue;
        };
        if d == 0 || d > len {
            return true;
        }
        if w[i] == "february" && d == 29 && y.is_some_and(|y| !is_leap(y)) {
            return true;
        }
    }
    false
}

/// A plain number in a word ("12", "1,200", "2.5"), or None.
fn number(w: &str) -> Option<f64> {
    let w = w.trim_start_matches(['€', '$', '£', '¥']);
    let t = w.trim_end_matches('%');
    if t.is_empty() || !t.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    if !t.contains(',') {
        return t.parse().ok();
    }
    t.replace(',', "").parse().ok()
}

/// "8 to 6 hours", "between 2021 and 2019", "from 10 to 5", "8-6 hours" (a hyphenated pair is a
/// range only before a unit: "won 3-1" is a score).
fn range_out_of_order(s: &Sentence) -> bool {
    const UNITS: &[&str] = &[
        "hours", "days", "weeks", "months", "years", "minutes", "seconds", "people", "tablets",
        "times", "mg", "ml", "kg", "km", "per", "percent", "%",
    ];
    let w = &s.words;
    for i in 0..w.len() {
        // "between £620 million and £340 million": an end with its scale word
        let Some((a, took)) = count_at(w, i) else {
            continue;
        };
        let joined = w.get(i + took).map(String::as_str);
        if matches!(joined, Some("to" | "and")) {
            if let Some((b, _)) = count_at(w, i + took + 1) {
                let between = joined == Some("and") && i >= 1 && w[i - 1] == "between";
                // equal ends are no range either ("between €20 and €20")
                if (joined == Some("to") || between) && a >= b {
                    return true;
                }
            }
        }
    }
    // hyphenated ranges are one token to the tokenizer: look at the raw text
    let mut parts = s.raw.split_whitespace().peekable();
    while let (Some(first), Some(&next)) = (parts.next(), parts.peek()) {
        if let Some((x, y)) = first.split_once(['-', '–']) {
            if let (Some(a), Some(b)) = (number(x), number(y)) {
                // the unit is read only after a range out of order
                let unit = || {
                    next.trim_matches(|c: char| !c.is_alphanumeric() && c != '%')
                        .to_lowercase()
                };
                if a > b && UNITS.contains(&unit().as_str()) {
                    return true;
                }
            }
        }
    }
    false
}

/// Count nouns whose singular and plural the guard knows: a number before one must agree.
const NOUNS: &[(&str, &str)] = &[
    ("day", "days"),
    ("week", "weeks"),
    ("month", "months"),
    ("year", "years"),
    ("hour", "hours"),
    ("minute", "minutes"),
    ("person", "people"),
    ("tablet", "tablets"),
    ("user", "users"),
    ("seat", "seats"),
    ("city", "cities"),
    ("country", "countries"),
    ("member", "members"),
    ("goal", "goals"),
    ("point", "points"),
    ("time", "times"),
    ("dose", "doses"),
    ("employee", "employees"),
    ("store", "stores"),
    ("office", "offices"),
];

/// "2 day", "1 days", "two week": a count before a noun it does not agree with.
fn number_agreement(s: &Sentence) -> bool {
    let w = &s.words;
    let count = |x: &str| -> Option<f64> {
        number(x).or(match x {
            "one" => Some(1.0),
            "two" => Some(2.0),
            "three" => Some(3.0),
            "four" => Some(4.0),
            "five" => Some(5.0),
            "six" => Some(6.0),
            "ten" => Some(10.0),
            "twelve" => Some(12.0),
            "twenty" => Some(20.0),
            _ => None,
        })
    };
    w.windows(2).any(|p| {
        let Some(n) = count(&p[0]) else {
            return false;
        };
        // "a 3-day trip" is one token; "1.5 days" is plural
        NOUNS.iter().any(|(one, many)| {
            (n == 1.0 && p[1] == *many) || (n != 1.0 && n.fract() == 0.0 && p[1] == *one)
        })
    })
}

/// "gets hundred GB": `hundred`, `thousand` or `dozen` after a word that is no number or
/// article (a number word doubled in words, "fifty" -> "hundred", loses its "a" or "one").
fn bare_scale_word(s: &Sentence) -> bool {
    const SCALE: &[&str] = &["hundred", "thousand", "dozen"];
    const BEFORE: &[&str] = &[
        "a", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
        "eleven", "twelve", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty",
        "ninety", "few", "several", "per", "half", "and", "the", "every",
    ];
    let w = &s.words;
    w.iter().enumerate().any(|(i, x)| {
        SCALE.contains(&x.as_str())
            && (i == 0
                || !(BEFORE.contains(&w[i - 1].as_str())
                    || w[i - 1].chars().any(|c| c.is_ascii_digit())))
    })
}

/// "May not 2017", "June not 12": a negation between a month and its date.
fn negated_month(s: &Sentence) -> bool {
    const BEFORE_MONTH: &[&str] = &[
        "in", "of", "since", "until", "by", "from", "last", "next", "this", "early", "late", "mid",
        "during",
    ];
    let w = &s.words;
    w.windows(3).any(|p| {
        month_days(&p[0]).is_some()
            && p[1] == "not"
            && p[2].starts_with(|c: char| c.is_ascii_digit())
    }) || w.windows(3).any(|p| {
        // "until 15 May not": a day before the month too, but "15 may not attend" is the modal,
        // so May counts only written with its capital
        (BEFORE_MONTH.contains(&p[0].as_str()) || day_of(&p[0]).is_some())
            && month_days(&p[1]).is_some()
            && p[2] == "not"
            && (p[1] != "may" || writes_may_the_month(s))
    })
}

/// A count written in digits or as a word ("14", "1,200", "fourteen"), times a scale word
/// after it ("3 million"), and how many words it took; `None` for any other word.
fn count_at(w: &[String], i: usize) -> Option<(f64, usize)> {
    const SCALES: &[(&str, f64)] = &[
        ("hundred", 1e2),
        ("thousand", 1e3),
        ("million", 1e6),
        ("billion", 1e9),
        ("trillion", 1e12),
        ("bn", 1e9),
        ("m", 1e6),
        ("k", 1e3),
    ];
    let word = w.get(i)?;
    let v = number(word).or_else(|| crate::text::numbers::number_word(word))?;
    match w
        .get(i + 1)
        .and_then(|n| SCALES.iter().find(|(s, _)| s == n))
    {
        Some((_, scale)) => Some((v * scale, 2)),
        None => Some((v, 1)),
    }
}

/// "fourteen of the nine members", "12 out of 10 patients": a part larger than the whole it is
/// taken from. A share ("40% of the 12 seats", "40 per cent of the 12") or an amount ("€5 of
/// the 3 fees") is no count of the whole and is never compared.
fn part_exceeds_whole(s: &Sentence) -> bool {
    const WHOLE_AFTER: &[&str] = &["the", "its", "their", "our", "his", "her", "your", "all"];
    let w = &s.words;
    for i in 0..w.len() {
        let Some((part, took)) = count_at(w, i) else {
            continue;
        };
        let mut j = i + took;
        if w.get(j).map(String::as_str) == Some("out") {
            j += 1;
        }
        if w.get(j).map(String::as_str) != Some("of") {
            continue;
        }
        j += 1;
        if w.get(j).is_some_and(|x| WHOLE_AFTER.contains(&x.as_str())) {
            j += 1;
        }
        let Some((whole, _)) = w.get(j).and_then(|_| count_at(w, j)) else {
            continue;
        };
        if part <= whole || matches!(w.get(i + took).map(String::as_str), Some("per" | "percent")) {
            continue;
        }
        // the part's own text: a share or an amount is no count (the words drop "%" and "€")
        let spans = word_spans(s.raw);
        let Some(&(a, b)) = spans.get(i) else {
            continue;
        };
        let before = s.raw[..a].chars().next_back();
        let after = s.raw[b..].chars().next();
        if after == Some('%') || before.is_some_and(|c| "€$£¥".contains(c)) {
            continue;
        }
        return true;
    }
    false
}

/// "an annually fee": "annually" (an adverb only, unlike "monthly", "weekly" or "yearly") right
/// before a word that is no function word or number, where an adjective belongs ("annual").
fn adverb_before_noun(s: &Sentence) -> bool {
    if !s.words.iter().any(|w| w == "annually") {
        return false;
    }
    // the words drop punctuation, so the raw text says whether the next word follows a space
    // only ("annually fee") and not a comma or a full stop ("billed annually. Sorry")
    let spans = word_spans(s.raw);
    spans.windows(2).any(|p| {
        let (a, b) = (&s.raw[p[0].0..p[0].1], &s.raw[p[1].0..p[1].1]);
        let next = b.to_lowercase();
        a.eq_ignore_ascii_case("annually")
            && s.raw[p[0].1..p[1].0].chars().all(|c| c == ' ')
            && b.starts_with(char::is_alphabetic)
            && !is_function_word(&next)
            && !MODALS.contains(&next.as_str())
            && crate::text::numbers::number_word(&next).is_none()
    })
}

/// "Will 2024 was warm" (the month May read as the verb may): a modal right before a number.
fn modal_before_number(s: &Sentence) -> bool {
    let w = &s.words;
    w.windows(2).any(|p| {
        MODALS.contains(&p[0].as_str())
            && p[0] != "may"
            && p[1].starts_with(|c: char| c.is_ascii_digit())
    })
}

/// "might raised staff", "will reduced fees": a modal right before a word in "-ed" (a past tense
/// or participle, which a modal never takes without "have" or "be"). Words in "-eed" ("need",
/// "exceed") and the few verbs whose base form ends in "-ed" are not counted, nor the month May
/// written with its capital inside the sentence ("In May reported ...").
fn modal_before_past_tense(s: &Sentence) -> bool {
    const BASE_IN_ED: &[&str] = &["embed", "shred", "imbed"];
    let month_may = writes_may_the_month(s);
    s.words.windows(2).any(|p| {
        MODALS.contains(&p[0].as_str())
            && !(p[0] == "may" && month_may)
            && p[1].len() > 4
            && p[1].ends_with("ed")
            && !p[1].ends_with("eed")
            && !BASE_IN_ED.contains(&p[1].as_str())
    })
}

/// The numeric ranges written with a hyphen or a dash ("18-25", "10–15%"), in order.
fn dash_ranges(s: &str) -> Vec<(f64, f64)> {
    // a range has its dash: most sentences have none, and are not split into words
    if !s.contains(['-', '–']) {
        return Vec::new();
    }
    s.split_whitespace()
        .filter_map(|w| {
            let w = w.trim_matches(|c: char| !c.is_alphanumeric() && !"€$£¥%-–".contains(c));
            let (a, b) = w.split_once(['-', '–'])?;
            Some((number(a)?, number(b)?))
        })
        .collect()
}

/// The claim holds a fixed expression that the mutant no longer holds, and the mutant holds the
/// same number of words in its place with one of them changed ("last year" -> "first year").
fn broke_fixed_expression(claim: &Sentence, mutant: &Sentence) -> bool {
    let (c, m) = (&claim.words, &mutant.words);
    // a substitution keeps the number of words; a deletion ("may not" -> "may") is no swap
    if c.len() != m.len() {
        return false;
    }
    let has = |ws: &[String], e: &[&str]| {
        ws.windows(e.len())
            .any(|x| x.iter().zip(e).all(|(a, b)| a == b))
    };
    // "last Friday", "last May" name a time: "first Friday" in its place is no English
    const TIMES: &[&str] = &[
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
        "spring",
        "summer",
        "autumn",
        "winter",
        "quarter",
    ];
    let time = |w: &str| TIMES.contains(&w) || month_days(w).is_some();
    if (0..c.len().saturating_sub(1))
        .any(|i| c[i] == "last" && time(&c[i + 1]) && m[i] == "first" && m[i + 1] == c[i + 1])
    {
        return true;
    }
    FIXED.iter().any(|&e| {
        if !has(c, e) || has(m, e) {
            return false;
        }
        // the expression with one word swapped is in the mutant
        m.windows(e.len())
            .any(|x| x.iter().zip(e).filter(|(a, b)| a != *b).count() == 1)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (claim, mutant, refused?) for every real broken mutant the issue quoted, and for sound
    /// edits of the same sentences.
    const CASES: &[(&str, &str, bool)] = &[
        (
            "The robbery happened shortly after 9 a.m. last Friday.",
            "The robbery happened shortly after 9 a.m. first Friday.",
            true,
        ),
        (
            "The robbery happened shortly after 9 a.m. last Friday.",
            "The robbery happened shortly after 9 a.m. last Thursday.",
            false,
        ),
        (
            "One of their MEPs voted against.",
            "Two ofs their MEPs voted against.",
            true,
        ),
        (
            "It may not affect up to 1 in 10 people.",
            "It may not affect up to 2 ins 10 people.",
            true,
        ),
        (
            "Adults can take one or two 200 mg tablets.",
            "Adults can take two ors two 200 mg tablets.",
            true,
        ),
        (
            "Leeds won 3-1 to reach the final.",
            "Leeds won 3-2 tos reach the final.",
            true,
        ),
        ("Take one every 4 hours.", "Take two everies 4 hours.", true),
        (
            "Each Team user gets fifty GB of storage.",
            "Each Team user gets hundred GB of storage.",
            true,
        ),
        (
            "Each Team user gets fifty GB of storage.",
            "Each Team user gets a hundred GB of storage.",
            false,
        ),
        (
            "The charity fed two hundred families.",
            "The charity fed four hundred families.",
            false,
        ),
        ("No one came.", "No others came.", false),
        (
            "Take it every 4 to 6 hours.",
            "Take it every 8 to 6 hours.",
            true,
        ),
        (
            "Take it every 4 to 6 hours.",
            "Take it every 4 to 12 hours.",
            false,
        ),
        ("Take it every 4-6 hours.", "Take it every 8-6 hours.", true),
        (
            "Leeds won 3-1 to reach the final.",
            "Leeds won 6-1 to reach the final.",
            false,
        ),
        (
            "Sales grew between 2019 and 2021.",
            "Sales grew between 2022 and 2021.",
            true,
        ),
        (
            "The deadline is 31 March 2024.",
            "The deadline is 31 April 2024.",
            true,
        ),
        (
            "The deadline is 31 March 2024.",
            "The deadline is 31 May 2024.",
            false,
        ),
        (
            "The deadline is March 31, 2024.",
            "The deadline is June 31, 2024.",
            true,
        ),
        (
            "It opened on 30 January.",
            "It opened on 30 February.",
            true,
        ),
        (
            "The offer ends on 29 February 2024.",
            "The offer ends on 29 February 2025.",
            true,
        ),
        (
            "The offer ends on 29 February 2024.",
            "The offer ends on 29 February 2028.",
            false,
        ),
        (
            "It ended on the 31st of March.",
            "It ended on the 31st of April.",
            true,
        ),
        (
            "As of May 2017 the plant employed 400 people.",
            "As of May not 2017 the plant employed 400 people.",
            true,
        ),
        ("The plant may not reopen.", "The plant may reopen.", false),
        (
            "Researchers know little about the species.",
            "Researchers know little the species.",
            true,
        ),
        (
            "It was the most lucrative film of the year.",
            "It was the all lucrative film of the year.",
            true,
        ),
        (
            "It was the most lucrative film of the year.",
            "It was not the most lucrative film of the year.",
            false,
        ),
        (
            "The council was formed with plans to build a bridge.",
            "The council was formed with will build a bridge.",
            true,
        ),
        ("Sales rose last year.", "Sales rose first year.", true),
        ("Sales rose last year.", "Sales fell last year.", false),
        (
            "Tickets sold out at first.",
            "Tickets sold out at last.",
            true,
        ),
        (
            "One of the founders left in 2019.",
            "Two of the founders left in 2019.",
            true,
        ),
        (
            "One of the founders left in 2019.",
            "One of the founders left in 2020.",
            false,
        ),
        (
            "Cancel at least one day ahead.",
            "Cancel at least two days ahead.",
            false,
        ),
        (
            "Cancel at least one day ahead.",
            "Cancel at least two day ahead.",
            true,
        ),
        ("Refunds take 2 days.", "Refunds take 1 days.", true),
        ("Refunds take 2 days.", "Refunds take 4 days.", false),
        ("Refunds take 1.5 days.", "Refunds take 3.0 days.", false),
        ("The the plan costs €12.", "The the plan costs €24.", false), // already in the claim
        (
            "It will launch in June.",
            "It will can launch in June.",
            true,
        ),
        (
            "It will launch in June.",
            "It will not launch in June.",
            false,
        ),
        ("Most users stay.", "All users stay.", false),
        (
            "Halden declared an interim dividend.",
            "Halden declared an dividend.",
            true,
        ),
        ("May 2024 was warm.", "Will 2024 was warm.", true),
        (
            "In May the office closes.",
            "In May not the office closes.",
            true,
        ),
        (
            "The office closes in May each year.",
            "The office closes in May not each year.",
            true,
        ),
        ("Ages 18–25 qualify.", "Ages 36–25 qualify.", true),
        (
            "Prices rose 10-15% in March.",
            "Prices rose 20-15% in March.",
            true,
        ),
        (
            "Prices rose 10-15% in March.",
            "Prices rose 10-30% in March.",
            false,
        ),
        ("Leeds won 3-1.", "Leeds won 6-1.", false),
        (
            "Fares are between €10 and €20.",
            "Fares are between €20 and €20.",
            true,
        ),
        (
            "The price fell from €20 to €10.",
            "The price fell from €20 to €20.",
            false,
        ),
        (
            "Riders must hold a provisional or full licence.",
            "Riders must hold a or full licence.",
            true,
        ),
        ("It opened an office.", "It opened an hour later.", false),
        (
            "Only two seats are left.",
            "Only two seats are joined.",
            true,
        ),
        (
            "She left the company in 2019.",
            "She joined the company in 2019.",
            false,
        ),
        (
            "It may not affect up to 1 in 10 people.",
            "It will not affect up to 1 in 10 people.",
            true,
        ),
        (
            "It may affect up to 1 in 10 people.",
            "It will affect up to 1 in 10 people.",
            false,
        ),
        (
            "The firm might cut staff next year.",
            "The firm might raised staff next year.",
            true,
        ),
        (
            "The firm cut staff next year.",
            "The firm raised staff next year.",
            false,
        ),
        (
            "The board will reduce fees in 2025.",
            "The board will reduced fees in 2025.",
            true,
        ),
        (
            "Patients should not exceed 4 doses a day.",
            "Patients should exceed 4 doses a day.",
            false,
        ),
        (
            "The app can embed 3 videos per page.",
            "The app can embed 30 videos per page.",
            false,
        ),
        (
            "The council might have raised fees.",
            "The council might have cut fees.",
            false,
        ),
        (
            "Sales in May dropped 17 per cent.",
            "Sales in May increased 17 per cent.",
            false,
        ),
        (
            "Early-bird tickets cost €349 until 15 May.",
            "Early-bird tickets cost €349 until 15 May not.",
            true,
        ),
        (
            "Of the 20 pupils, 15 may attend.",
            "Of the 20 pupils, 15 may not attend.",
            false,
        ),
        (
            "Around 320 pupils will study from home on Monday and Tuesday.",
            "Around 320 pupils will study from home on Tuesday and Tuesday.",
            true,
        ),
        (
            "Prices rose again in March.",
            "Prices rose again and again in March.",
            false,
        ),
        (
            "SkyLink kept its full-year profit forecast of between £620 million and £640 million.",
            "SkyLink kept its full-year profit forecast of between £620 million and £340 million.",
            true,
        ),
        (
            "SkyLink kept its full-year profit forecast of between £620 million and £640 million.",
            "SkyLink kept its full-year profit forecast of between £620 million and £900 million.",
            false,
        ),
        (
            "Sales rose from 5 to 10 million units.",
            "Sales rose from 8 to 10 million units.",
            false,
        ),
        (
            "There is no entry fee and no exit fee.",
            "There is not no entry fee and no exit fee.",
            true,
        ),
        (
            "Four of the nine committee members voted for the rise.",
            "Fourteen of the nine committee members voted for the rise.",
            true,
        ),
        (
            "Four of the nine committee members voted for the rise.",
            "Four of the three committee members voted for the rise.",
            true,
        ),
        (
            "Here is a summary: 12 out of 20 patients improved.",
            "Here is a summary: 22 out of 20 patients improved.",
            true,
        ),
        (
            "500 of the 3 million users left.",
            "500 of the 2 million users left.",
            false,
        ),
        (
            "About 40% of the 12 seats went to the party.",
            "About 60% of the 12 seats went to the party.",
            false,
        ),
        (
            "About 17 per cent of the 9 wards voted.",
            "About 27 per cent of the 9 wards voted.",
            false,
        ),
        (
            "She paid €5 of the 3 fees owed.",
            "She paid €15 of the 3 fees owed.",
            false,
        ),
        (
            "Two of the 14 stores closed.",
            "Two of the 12 stores closed.",
            false,
        ),
        (
            "Members pay a monthly fee of €3,50.",
            "Members pay a annually fee of €3,50.",
            true,
        ),
        (
            "Members pay a monthly fee of €3,50.",
            "Members pay an annually fee of €3,50.",
            true,
        ),
        (
            "Team plans are billed monthly.",
            "Team plans are billed annually.",
            false,
        ),
        (
            "Team plans are billed monthly in advance.",
            "Team plans are billed annually in advance.",
            false,
        ),
        (
            "Reports are filed monthly, Sorry, but I cannot say more.",
            "Reports are filed annually, Sorry, but I cannot say more.",
            false,
        ),
    ];

    #[test]
    fn the_guard_refuses_the_broken_mutants_and_keeps_the_sound_ones() {
        for (claim, mutant, refused) in CASES {
            assert_eq!(
                refuse(claim, mutant).is_some(),
                *refused,
                "{claim:?} -> {mutant:?}: {:?}",
                refuse(claim, mutant)
            );
        }
    }

    /// The plural check as it was written first, building each stem: the reference the
    /// in-place comparison must equal.
    fn pluralised_as_first_written(s: &Sentence) -> bool {
        const REAL: &[&str] = &[
            "as", "its", "us", "is", "has", "was", "this", "others", "nos",
        ];
        s.words.iter().any(|w| {
            let stems = [
                w.strip_suffix('s').map(str::to_string),
                w.strip_suffix("es").map(str::to_string),
                w.strip_suffix("ies").map(|x| format!("{x}y")),
            ];
            !REAL.contains(&w.as_str())
                && stems
                    .iter()
                    .flatten()
                    .any(|stem| FUNCTION_WORDS.contains(&stem.as_str()))
        })
    }

    #[test]
    fn the_plural_check_compares_in_place_what_it_built_before() {
        let mut words: Vec<String> = Vec::new();
        for f in FUNCTION_WORDS.iter().chain(MODALS) {
            let y = f.strip_suffix('y').map(|x| format!("{x}ies"));
            words.extend([format!("{f}s"), format!("{f}es"), f.to_string()]);
            words.extend(y);
        }
        words.extend(
            [
                "as", "its", "us", "is", "has", "was", "this", "others", "nos", "s", "es", "ies",
                "plans", "Über", "ſ",
            ]
            .map(String::from),
        );
        for w in words {
            let text = format!("The plan {w} users.");
            let s = Sentence::new(&text);
            assert_eq!(
                pluralised_function_word(&s),
                pluralised_as_first_written(&s),
                "{text:?}"
            );
        }
    }

    #[test]
    fn a_hyphenated_range_is_read_with_the_unit_after_it() {
        for (text, out_of_order) in [
            ("Rest for 8-6 hours.", true),
            ("Rest for 6-8 hours.", false),
            ("They won 3-1 at home.", false),
            ("Take 1,200–800 mg daily.", true),
            ("Take 10-5 %.", true),
            ("Ends 8-6", false),
            ("", false),
        ] {
            assert_eq!(
                range_out_of_order(&Sentence::new(text)),
                out_of_order,
                "{text:?}"
            );
        }
    }
}
