//! The `lexical` checker: the built-in default. No model, deterministic, fast.
//!
//! Rules, in order:
//! 1. Claims and passages are tokenised and lightly normalised: lower case, a light stemmer
//!    ("cancelled" meets "cancel", "refundable" meets "refunded"), and numbers read by value
//!    (digits, number words, currency signs and percentages: "fifty" meets "50", "€12" meets
//!    "€12" but not "$12"). Function words and negation cues are not content words.
//! 2. Each claim is compared with the sentence windows of its own context set (one sentence or
//!    `max_window_sentences` adjacent sentences of one passage, never across passages). The
//!    score of a window is its coverage: the share of the claim's content words and numbers the
//!    window contains. The best window is the one with the highest coverage, the shortest on a
//!    tie. Windows are found through an index from content word to window, so a claim is only
//!    compared with windows that share a word with it.
//! 3. Conflicts with the best window make the claim `contradicted` (when the window is on topic,
//!    coverage at least `topic_floor`):
//!    - a number in the claim that the window does not contain, while the window has numbers;
//!    - a negation mismatch: a word the claim negates that the window only states positively,
//!      or a word the claim states positively that the window only negates (a negation cue
//!      governs the next content word);
//!    - an entity swap: the claim names a member of a suite entity group, and the window's
//!      sentence that best matches the claim names another member of that group but not it.
//! 4. Otherwise the claim is `supported` when coverage reaches `threshold`, else `not_found`.
//!
//! The score is the coverage, cut to 30% of it on a conflict, so `supported` always means
//! "score at least the threshold". It is an honest baseline, not an NLI model: it cannot
//! paraphrase, multiply or read across passages, and the report shows where that costs it.

use super::windows::{passage_sentences, window_spans};
use super::ContextSet;
use super::{CheckInput, CheckResult, Checker, Evidence, Label, Verdict};
use crate::model::suite::EntityGroup;
use crate::text::words::find_word;
use crate::text::{
    hash::{WordMap, WordSet},
    numbers::{format_number, NumberTag},
    tokens::tokenize,
};
use std::collections::{BTreeMap, HashMap};

const STOPWORDS: &[&str] = &[
    "a", "an", "the", "and", "or", "but", "of", "to", "in", "on", "at", "for", "from", "by",
    "with", "as", "into", "onto", "per", "up", "is", "are", "was", "were", "be", "been", "being",
    "it", "its", "this", "that", "these", "those", "they", "them", "their", "there", "then",
    "than", "so", "if", "when", "which", "who", "whom", "what", "where", "all", "any", "each",
    "every", "can", "could", "will", "would", "shall", "should", "may", "might", "must", "do",
    "does", "did", "has", "have", "had", "you", "your", "we", "our", "us", "i", "he", "she", "his",
    "her", "only", "also", "just", "about", "after", "before", "within", "over", "under", "across",
    "via", "s",
    // the units of a number, which the number itself carries ("17 per cent" is 17%, "three
    // euros" is €3, "1.5 million" is 1,500,000)
    "cent", "percent", "euros", "euro", "pounds", "pound", "dollars", "dollar", "yen", "usd",
    "million", "billion", "thousand", "trillion", "mn", "bn", "eur", "gbp", "jpy", "sterling",
    "bucks", // "not ever" is "never"
    "ever",
];

const NEGATIONS: &[&str] = &[
    "nobody",
    "nothing",
    "noone",
    "no-one",
    "neither",
    "nowhere",
    "not",
    "no",
    "never",
    "cannot",
    "can't",
    "isn't",
    "aren't",
    "wasn't",
    "weren't",
    "won't",
    "doesn't",
    "don't",
    "didn't",
    "mustn't",
    "shouldn't",
    "without",
    "none",
    "nor",
];

/// Settings of the lexical checker.
#[derive(Debug, Clone)]
pub struct LexicalSettings {
    /// Coverage at or above which a conflict-free claim is `supported`.
    pub threshold: f64,
    /// Coverage at or above which a conflict makes the claim `contradicted` (below it, the
    /// window is off topic and the claim is `not_found`).
    pub topic_floor: f64,
    pub max_window_sentences: usize,
    /// Use the word index (true) or compare every claim with every window (false: the
    /// baseline the benchmark measures the index against).
    pub indexed: bool,
}

impl Default for LexicalSettings {
    fn default() -> Self {
        LexicalSettings {
            threshold: 0.75,
            topic_floor: 0.5,
            max_window_sentences: 2,
            indexed: true,
        }
    }
}

pub struct LexicalChecker {
    name: String,
    settings: LexicalSettings,
}

impl LexicalChecker {
    pub fn new(name: &str, settings: LexicalSettings) -> Self {
        LexicalChecker {
            name: name.to_string(),
            settings,
        }
    }
}

/// A function word, which says nothing about what a text is about.
pub(crate) fn is_stopword(w: &str) -> bool {
    static SET: std::sync::OnceLock<WordSet<&'static str>> = std::sync::OnceLock::new();
    SET.get_or_init(|| STOPWORDS.iter().copied().collect())
        .contains(w)
}

fn is_negation(w: &str) -> bool {
    NEGATIONS.contains(&w) || w.ends_with("n't")
}

/// The first sentence of the passages that states the quantity `n`, if any.
fn sentence_stating<'a>(n: &NumberTag, sentences: &'a [(String, Reading)]) -> Option<&'a str> {
    sentences
        .iter()
        .find(|(_, r)| r.numbers.iter().any(|m| n.same_as(m)))
        .map(|(s, _)| s.as_str())
}

/// A number as a reason shows it: with its currency sign and percent mark ("€12", "17%"), a
/// time as on a 24-hour clock ("9:00").
fn shown(n: &NumberTag) -> String {
    if n.clock {
        let minutes = (n.value * 60.0).round() as i64;
        return format!("{}:{:02}", minutes / 60, minutes % 60);
    }
    format!(
        "{}{}{}",
        n.currency.map(String::from).unwrap_or_default(),
        format_number(n.value),
        if n.percent { "%" } else { "" }
    )
}

/// The index key of a number: value and marks, so only the same quantity matches.
fn number_key(n: &NumberTag) -> String {
    format!(
        "#{}{}{}{}",
        format_number(n.value),
        n.currency.map(String::from).unwrap_or_default(),
        if n.percent { "%" } else { "" },
        if n.clock { "h" } else { "" }
    )
}

/// A text read for matching.
#[derive(Debug, Default)]
struct Reading {
    /// Content word -> how it is seen: one map for the word set and both polarities, so each
    /// word is hashed and stored once.
    words: WordMap<String, Marks>,
    numbers: Vec<NumberTag>,
}

/// How a content word is seen in a text.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Marks {
    /// (seen positive, seen negated), by the negation cue before it.
    polarity: (bool, bool),
    /// (seen in a clause without negation, seen in a negated clause): "No refunds are issued"
    /// and "Refunds are not issued" negate the same clause, so the cue's place alone is no
    /// contradiction.
    clause: (bool, bool),
}

impl Marks {
    fn union(&mut self, other: Marks) {
        self.polarity.0 |= other.polarity.0;
        self.polarity.1 |= other.polarity.1;
        self.clause.0 |= other.clause.0;
        self.clause.1 |= other.clause.1;
    }
}

/// Words that end a clause: the negation of one clause says nothing of the next.
const CLAUSE_WORDS: &[&str] = &[
    "but", "and", "or", "while", "whereas", "although", "though", "because", "which", "who",
    "unless", "except", "however", "yet",
];

fn read(text: &str) -> Reading {
    let mut r = Reading::default();
    let mut negate_next = false;
    // (content word, governed by a cue, clause number)
    let mut words: Vec<(String, bool, usize)> = Vec::new();
    let mut negated_clauses: Vec<usize> = Vec::new();
    let mut clause = 0;
    let mut prev_end = 0;
    let mut prev_no = false;
    // the token lower-cased, in one buffer for the whole text
    let mut raw = String::new();
    for tok in tokenize(text) {
        let between = &text[prev_end..tok.start];
        prev_end = tok.end;
        if between.contains([',', ';', ':', '(', ')', '—', '–', '.', '!', '?']) {
            clause += 1;
            negate_next = false;
        }
        raw.clear();
        // character by character: the word lists are ASCII, so the final-sigma rule of
        // `str::to_lowercase` changes no comparison
        for c in text[tok.start..tok.end].chars() {
            if c == '’' {
                raw.push('\'');
            } else {
                raw.extend(c.to_lowercase());
            }
        }
        let after_no = std::mem::replace(&mut prev_no, raw == "no");
        if CLAUSE_WORDS.contains(&raw.as_str()) {
            clause += 1;
            negate_next = false;
        }
        // "no one" is "nobody", never the number 1
        if is_negation(&raw) || (after_no && raw == "one") {
            negate_next = true;
            // "without" governs its object only; the other cues negate the clause
            if raw != "without" && negated_clauses.last() != Some(&clause) {
                negated_clauses.push(clause);
            }
            continue;
        }
        // the minutes or "a.m." of a time read with its hour
        if tok.norm.is_empty() {
            continue;
        }
        if let Some(n) = tok.number {
            r.numbers.push(n);
            continue;
        }
        if is_stopword(&raw) {
            continue;
        }
        words.push((tok.norm, negate_next, clause));
        negate_next = false;
    }
    r.words.reserve(words.len());
    for (w, governed, c) in words {
        let e = r.words.entry(w).or_default();
        if governed {
            e.polarity.1 = true;
        } else {
            e.polarity.0 = true;
        }
        // clause numbers only grow, so the list is sorted
        if negated_clauses.binary_search(&c).is_ok() {
            e.clause.1 = true;
        } else {
            e.clause.0 = true;
        }
    }
    r
}

impl Reading {
    /// The matching terms: content words and number keys, without repeats.
    fn terms(&self) -> Vec<std::borrow::Cow<'_, str>> {
        use std::borrow::Cow;
        let mut t: Vec<Cow<'_, str>> = self
            .words
            .keys()
            .map(|w| Cow::Borrowed(w.as_str()))
            .collect();
        t.extend(self.numbers.iter().map(|n| Cow::Owned(number_key(n))));
        t.sort();
        t.dedup();
        t
    }
}

impl Reading {
    /// Adds another text's reading to this one (a window is the union of its sentences).
    fn merge(&mut self, other: &Reading) {
        self.numbers.extend(other.numbers.iter().copied());
        for (w, m) in &other.words {
            match self.words.get_mut(w.as_str()) {
                Some(e) => e.union(*m),
                None => {
                    self.words.insert(w.clone(), *m);
                }
            }
        }
    }
}

struct IndexedWindow {
    passage: usize,
    /// Number of sentences in the window.
    len: usize,
    /// The window's sentences, as a range of [`ContextIndex::sentences`].
    sentences: std::ops::Range<usize>,
    /// The window's text and reading (the union of its sentences'), made the first time a
    /// claim's best window is this one: most windows are never any claim's best.
    full: std::cell::OnceCell<WindowReading>,
}

struct WindowReading {
    text: String,
    reading: Reading,
}

impl IndexedWindow {
    fn full<'a>(&'a self, sentences: &[(String, Reading)]) -> &'a WindowReading {
        self.full.get_or_init(|| {
            let sents = &sentences[self.sentences.clone()];
            let mut reading = Reading::default();
            for (_, r) in sents {
                reading.merge(r);
            }
            let text = sents
                .iter()
                .map(|(s, _)| s.as_str())
                .collect::<Vec<_>>()
                .join(" ");
            WindowReading { text, reading }
        })
    }
}

struct ContextIndex {
    /// Every sentence of the context set, read once.
    sentences: Vec<(String, Reading)>,
    windows: Vec<IndexedWindow>,
    /// Term (content word or number key) -> term id.
    vocab: WordMap<String, u32>,
    /// Term id -> windows containing it (the index).
    postings: Vec<Vec<u32>>,
    /// Window -> its sorted term ids (for the compare-every-window baseline).
    window_terms: Vec<Vec<u32>>,
}

impl ContextIndex {
    fn build(ctx: &ContextSet, max_sentences: usize) -> Self {
        let sents = passage_sentences(&ctx.passages);
        // every sentence is read once and its terms given ids; a window's terms are the union
        // of its sentences'
        let mut vocab: WordMap<String, u32> = WordMap::default();
        let mut starts = Vec::with_capacity(sents.len());
        let mut sentences: Vec<(String, Reading)> = Vec::new();
        let mut sentence_terms: Vec<Vec<u32>> = Vec::new();
        for ps in sents {
            starts.push(sentences.len());
            for s in ps {
                let r = read(&s);
                let ids = r
                    .terms()
                    .into_iter()
                    .map(|term| match vocab.get(term.as_ref()) {
                        Some(&id) => id,
                        None => {
                            let id = vocab.len() as u32;
                            vocab.insert(term.into_owned(), id);
                            id
                        }
                    })
                    .collect();
                sentence_terms.push(ids);
                sentences.push((s, r));
            }
        }
        let mut postings: Vec<Vec<u32>> = vec![Vec::new(); vocab.len()];
        let mut windows = Vec::new();
        let mut window_terms = Vec::new();
        let counts = (0..starts.len())
            .map(|pi| starts.get(pi + 1).copied().unwrap_or(sentences.len()) - starts[pi]);
        for (pi, first, len) in window_spans(counts, max_sentences) {
            let range = starts[pi] + first..starts[pi] + first + len;
            let mut ids: Vec<u32> = sentence_terms[range.clone()]
                .iter()
                .flatten()
                .copied()
                .collect();
            ids.sort_unstable();
            ids.dedup();
            let i = windows.len() as u32;
            for &id in &ids {
                postings[id as usize].push(i);
            }
            window_terms.push(ids);
            windows.push(IndexedWindow {
                passage: pi,
                len,
                sentences: range,
                full: std::cell::OnceCell::new(),
            });
        }
        ContextIndex {
            sentences,
            windows,
            vocab,
            postings,
            window_terms,
        }
    }
}

fn coverage(claim: &Reading, w: &Reading) -> f64 {
    let total = claim.words.len() + claim.numbers.len();
    if total == 0 {
        return 0.0;
    }
    let words = claim
        .words
        .keys()
        .filter(|c| w.words.contains_key(c.as_str()))
        .count();
    let nums = claim
        .numbers
        .iter()
        .filter(|n| w.numbers.iter().any(|m| n.same_as(m)))
        .count();
    (words + nums) as f64 / total as f64
}

fn conflicts(
    claim_text: &str,
    claim: &Reading,
    w: &IndexedWindow,
    sentences: &[(String, Reading)],
    entities: &[EntityGroup],
) -> Vec<String> {
    let mut out = Vec::new();
    let WindowReading { text, reading } = w.full(sentences);
    if !reading.numbers.is_empty() {
        for n in &claim.numbers {
            // a number the passages state elsewhere: at most not found (see `check`)
            if sentence_stating(n, sentences).is_none()
                && !reading.numbers.iter().any(|m| n.same_as(m))
                && derived_from(claim_text, n, text).is_none()
            {
                let says: Vec<String> = reading.numbers.iter().map(shown).collect();
                // each number with its marks: "12 is not in the window (it says €12, 10)" never
                // reads as a contradiction of itself
                out.push(format!(
                    "number {} is not in the window (it says {})",
                    shown(n),
                    says.join(", ")
                ));
            }
        }
    }
    let mut words: Vec<_> = claim.words.iter().collect();
    words.sort();
    for (word, marks) in words {
        let (pos, neg) = marks.polarity;
        let Some(wmarks) = reading.words.get(word.as_str()) else {
            continue;
        };
        let (wpos, wneg) = wmarks.polarity;
        // the word's clause must differ too: "No refunds are issued" is "Refunds are not
        // issued", "No one" is "Nobody"
        let ((cpos, cneg), (wcpos, wcneg)) = (marks.clause, wmarks.clause);
        if neg && !pos && wpos && !wneg && cneg && !cpos && wcpos && !wcneg {
            out.push(format!("the claim negates `{word}`; the window states it"));
        } else if pos && !neg && wneg && !wpos && cpos && !cneg && wcneg && !wcpos {
            out.push(format!("the claim states `{word}`; the window negates it"));
        }
    }
    // the window sentence that best matches the claim decides entity conflicts
    let best_sentence = sentences[w.sentences.clone()]
        .iter()
        .max_by(|a, b| {
            coverage(claim, &a.1)
                .partial_cmp(&coverage(claim, &b.1))
                .unwrap_or(std::cmp::Ordering::Equal)
                .then(std::cmp::Ordering::Greater)
        })
        .map(|(s, _)| s.as_str())
        .unwrap_or("");
    for g in entities {
        for named in g
            .members
            .iter()
            .filter(|m| find_word(claim_text, m, 0).is_some())
        {
            if find_word(best_sentence, named, 0).is_some() {
                continue;
            }
            if let Some(other) = g
                .members
                .iter()
                .find(|m| *m != named && find_word(best_sentence, m, 0).is_some())
            {
                out.push(format!(
                    "the claim names {named} ({}); the window names {other}",
                    g.name
                ));
            }
        }
    }
    out
}

impl LexicalChecker {
    fn check_one(
        &self,
        text: &str,
        ctx: &ContextSet,
        index: &ContextIndex,
        entities: &[EntityGroup],
    ) -> Verdict {
        let claim = read(text);
        let terms = claim.terms();
        let total = terms.len();
        // terms the context has never seen match no window but still count in the total
        let ids: Vec<u32> = terms
            .iter()
            .filter_map(|t| index.vocab.get(t.as_ref()).copied())
            .collect();
        let mut counts = vec![0u32; index.windows.len()];
        if self.settings.indexed {
            for id in &ids {
                for &w in &index.postings[*id as usize] {
                    counts[w as usize] += 1;
                }
            }
        } else {
            for (w, wt) in index.window_terms.iter().enumerate() {
                counts[w] = ids.iter().filter(|id| wt.binary_search(id).is_ok()).count() as u32;
            }
        }
        let best = counts
            .iter()
            .enumerate()
            .filter(|(_, c)| **c > 0)
            // most terms covered; on a tie the shorter window, then the earlier one
            .max_by(|(ia, ca), (ib, cb)| {
                ca.cmp(cb)
                    .then(index.windows[*ib].len.cmp(&index.windows[*ia].len))
                    .then(ib.cmp(ia))
            })
            .map(|(i, c)| (i, *c as f64 / total.max(1) as f64));
        let Some((bi, cov)) = best else {
            return Verdict {
                label: Label::NotFound,
                score: Some(0.0),
                evidence: None,
                reason: "no window shares a content word or number with the claim".into(),
            };
        };
        let w = &index.windows[bi];
        let found = conflicts(text, &claim, w, &index.sentences, entities);
        let full = w.full(&index.sentences);
        let evidence = Some(Evidence {
            passage: ctx.passages[w.passage].id.clone(),
            window: full.text.clone(),
        });
        let mut verdict = decide(&self.settings, cov, total, &found, evidence);
        // a number the window lacks but another sentence states: the claim may join two facts
        // from two places; at most not found, and the reason says where the number is
        let elsewhere: Vec<String> = claim
            .numbers
            .iter()
            .filter(|n| !full.reading.numbers.iter().any(|m| n.same_as(m)))
            .filter_map(|n| {
                sentence_stating(n, &index.sentences).map(|sentence| {
                    format!(
                        "number {} is not in this window but in \"{}\"",
                        shown(n),
                        crate::text::words::cut_chars(sentence.trim(), 80)
                    )
                })
            })
            .collect();
        // a figure one step from the window's ("under £3 per month" from "£30 a year"): the
        // checker cannot verify arithmetic, so at most not found, and the reason shows the step
        let derived: Vec<String> = claim
            .numbers
            .iter()
            .filter(|n| !full.reading.numbers.iter().any(|m| n.same_as(m)))
            .filter(|n| sentence_stating(n, &index.sentences).is_none())
            .filter_map(|n| derived_from(text, n, &full.text))
            .collect();
        let mut elsewhere = elsewhere;
        elsewhere.extend(derived);
        if !elsewhere.is_empty() {
            verdict.reason = format!("{}; {}", verdict.reason, elsewhere.join("; "));
            if verdict.label == Label::Supported {
                verdict.label = Label::NotFound;
                verdict.score = verdict.score.map(|x| x * 0.5);
            }
        }
        verdict
    }
}

/// How a number is bounded by the words before it ("under £3", "at least 14 days", "about
/// 40%").
#[derive(Debug, Clone, Copy, PartialEq)]
enum Bound {
    Below,
    AtMost,
    Above,
    AtLeast,
    About,
    Exactly,
}

/// The bound the words before a number put on it (`head`: the claim's text before the number,
/// currency sign included).
fn bound_before(head: &str) -> Bound {
    let h = head
        .trim_end_matches(|c: char| c.is_whitespace() || "€$£¥".contains(c))
        .to_lowercase();
    let h = h
        .trim_end_matches(" us$")
        .trim_end_matches(" usd")
        .trim_end_matches(" eur");
    let ends = |w: &str| h == w || h.strip_suffix(w).is_some_and(|r| r.ends_with(' '));
    if [
        "under",
        "less than",
        "below",
        "fewer than",
        "lower than",
        "cheaper than",
    ]
    .iter()
    .any(|w| ends(w))
    {
        Bound::Below
    } else if [
        "up to",
        "at most",
        "no more than",
        "not more than",
        "a maximum of",
        "max",
        "within",
    ]
    .iter()
    .any(|w| ends(w))
    {
        Bound::AtMost
    } else if ["over", "more than", "above", "higher than", "greater than"]
        .iter()
        .any(|w| ends(w))
    {
        Bound::Above
    } else if ["at least", "no less than", "a minimum of", "min"]
        .iter()
        .any(|w| ends(w))
    {
        Bound::AtLeast
    } else if [
        "about",
        "around",
        "roughly",
        "approximately",
        "nearly",
        "almost",
        "some",
        "circa",
        "~",
    ]
    .iter()
    .any(|w| ends(w))
    {
        Bound::About
    } else {
        Bound::Exactly
    }
}

/// How many of the period a figure is given for fit in a year ("per month" 12, "a week" 52,
/// "annually" 1), from the words after the number.
fn periods_per_year(tail: &str) -> Option<f64> {
    let t = tail.trim_start().to_lowercase();
    // "per user per month": the period may come after what the figure is per
    let words: Vec<&str> = t
        .split(|c: char| !c.is_alphanumeric() && c != '/')
        .filter(|w| !w.is_empty())
        .take(6)
        .collect();
    let joined = words.join(" ");
    for (names, n) in [
        (
            &[
                "per year",
                "a year",
                "per annum",
                "annually",
                "yearly",
                "/year",
                "each year",
                "every year",
            ][..],
            1.0,
        ),
        (
            &[
                "per month",
                "a month",
                "monthly",
                "/month",
                "each month",
                "every month",
            ][..],
            12.0,
        ),
        (
            &[
                "per week",
                "a week",
                "weekly",
                "/week",
                "each week",
                "every week",
            ][..],
            52.0,
        ),
        (
            &["per day", "a day", "daily", "/day", "each day", "every day"][..],
            365.0,
        ),
    ] {
        if names
            .iter()
            .any(|p| joined.starts_with(p) || joined.contains(&format!(" {p}")) || t.starts_with(p))
        {
            return Some(n);
        }
    }
    None
}

/// Each number of `text` with the text before and after it.
fn numbers_in(text: &str) -> Vec<(NumberTag, &str, &str)> {
    tokenize(text)
        .into_iter()
        .filter_map(|t| t.number.map(|n| (n, &text[..t.start], &text[t.end..])))
        .collect()
}

/// The step that gives the claim's number `n` from a number of the window, if one does: the same
/// figure for another period ("£30 a year" is £2.50 a month), or a bound the window's figure
/// meets ("under £3 per month"). Only amounts of one kind, never a count or a time.
fn derived_from(claim_text: &str, n: &NumberTag, window: &str) -> Option<String> {
    if n.clock {
        return None;
    }
    let (_, head, tail) = numbers_in(claim_text)
        .into_iter()
        .find(|(m, _, _)| m.same_as(n))?;
    let bound = bound_before(head);
    let period = periods_per_year(tail);
    if bound == Bound::Exactly && period.is_none() {
        return None;
    }
    let f = format_number;
    // what the figure counts: its currency or percent mark, else the word after it ("8
    // tablets" is no bound on "24 hours")
    let unit = |tail: &str| {
        tail.split(|c: char| !c.is_alphanumeric())
            .find(|w| !w.is_empty())
            .map(|w| crate::text::tokens::stem(&w.to_lowercase()))
    };
    let marked = n.currency.is_some() || n.percent;
    numbers_in(window)
        .into_iter()
        .find_map(|(m, whead, wtail)| {
            if !marked && (unit(tail).is_none() || unit(tail) != unit(wtail)) {
                return None;
            }
            // a bound of the window's ("up to 10 users") gives no other bound: "up to 12" is a
            // different figure
            if m.percent != n.percent
                || m.currency != n.currency
                || m.clock
                || bound_before(whead) != Bound::Exactly
            {
                return None;
            }
            let (value, step) = match (period, periods_per_year(wtail)) {
                (Some(pc), Some(pm)) if pc != pm => {
                    let v = m.value * pm / pc;
                    let step = if pc > pm {
                        format!("{} / {} = {}", f(m.value), f(pc / pm), f(v))
                    } else {
                        format!("{} × {} = {}", f(m.value), f(pm / pc), f(v))
                    };
                    (v, step)
                }
                (Some(_), None) | (None, Some(_)) => return None,
                _ => (m.value, f(m.value)),
            };
            let c = n.value;
            let close = (value - c).abs() <= 0.005 * c.abs().max(1.0);
            let holds = match bound {
                Bound::Below => value < c,
                Bound::AtMost => value <= c || close,
                Bound::Above => value > c,
                Bound::AtLeast => value >= c || close,
                Bound::About => (value - c).abs() <= 0.1 * c.abs(),
                Bound::Exactly => close,
            };
            let said = match bound {
                Bound::Below => "under",
                Bound::AtMost => "at most",
                Bound::Above => "over",
                Bound::AtLeast => "at least",
                Bound::About => "about",
                Bound::Exactly => "exactly",
            };
            holds.then(|| {
                format!(
                    "number {} is derived, not stated: {step}, {said} {}",
                    shown(n),
                    f(c)
                )
            })
        })
}

/// The verdict rule of the lexical checker, given the best window's coverage of the claim's
/// content words and numbers (`cov` of `total`) and the conflicts found with it: `contradicted`
/// when a conflict is found and the window is on the claim's topic (`cov` at least
/// `topic_floor`); else `supported` when nothing conflicts and `cov` reaches `threshold`; else
/// `not_found` (a conflict lowers the score).
pub fn decide(
    settings: &LexicalSettings,
    cov: f64,
    total: usize,
    found: &[String],
    evidence: Option<Evidence>,
) -> Verdict {
    let covered = (cov * total as f64).round() as usize;
    let cover_note = format!("covers {covered}/{total} content words and numbers");
    if !found.is_empty() && cov >= settings.topic_floor {
        return Verdict {
            label: Label::Contradicted,
            score: Some(cov * 0.3),
            evidence,
            reason: format!("{cover_note}; {}", found.join("; ")),
        };
    }
    let (label, score) = if found.is_empty() && cov >= settings.threshold {
        (Label::Supported, cov)
    } else if found.is_empty() {
        (Label::NotFound, cov)
    } else {
        (Label::NotFound, cov * 0.3)
    };
    Verdict {
        label,
        score: Some(score),
        evidence,
        reason: cover_note,
    }
}

impl Checker for LexicalChecker {
    fn name(&self) -> &str {
        &self.name
    }

    fn kind(&self) -> &'static str {
        "lexical"
    }

    fn settings(&self) -> BTreeMap<String, String> {
        let s = &self.settings;
        BTreeMap::from([
            ("threshold".into(), format!("{}", s.threshold)),
            ("topic_floor".into(), format!("{}", s.topic_floor)),
            (
                "max_window_sentences".into(),
                s.max_window_sentences.to_string(),
            ),
        ])
    }

    /// Context sets are scored side by side, one thread per core, each worker indexing one set
    /// at a time, scoring its claims and dropping the index; verdicts keep the claims' order.
    fn check(&self, input: &CheckInput<'_>, progress: &mut dyn FnMut(usize)) -> Vec<CheckResult> {
        use std::sync::atomic::{AtomicUsize, Ordering};
        // the claims of each context set (by its passages), in order of first appearance
        let mut groups: Vec<Vec<usize>> = Vec::new();
        let mut group_of: HashMap<usize, usize> = HashMap::new();
        for (i, c) in input.claims.iter().enumerate() {
            let key = input.contexts[c.context].passages_key();
            let g = *group_of.entry(key).or_insert_with(|| {
                groups.push(Vec::new());
                groups.len() - 1
            });
            groups[g].push(i);
        }
        let workers = std::thread::available_parallelism()
            .map_or(1, std::num::NonZeroUsize::get)
            .min(groups.len())
            .max(1);
        let next = AtomicUsize::new(0);
        let mut out: Vec<Option<CheckResult>> = (0..input.claims.len()).map(|_| None).collect();
        let (tx, rx) = std::sync::mpsc::channel::<Vec<(usize, CheckResult)>>();
        std::thread::scope(|scope| {
            for _ in 0..workers {
                let (tx, next, groups) = (tx.clone(), &next, &groups);
                scope.spawn(move || loop {
                    let Some(members) = groups.get(next.fetch_add(1, Ordering::Relaxed)) else {
                        return;
                    };
                    let first = &input.contexts[input.claims[members[0]].context];
                    let index = ContextIndex::build(first, self.settings.max_window_sentences);
                    for part in members.chunks(256) {
                        // a signal stops scoring at once: the rest are unscored, never passes
                        if crate::io::interrupt::requested() {
                            return;
                        }
                        let done = part
                            .iter()
                            .map(|&i| {
                                let c = &input.claims[i];
                                let ctx = &input.contexts[c.context];
                                (i, Ok(self.check_one(c.text, ctx, &index, input.entities)))
                            })
                            .collect();
                        if tx.send(done).is_err() {
                            return;
                        }
                    }
                });
            }
            drop(tx);
            let mut count = 0;
            for done in rx {
                count += done.len();
                for (i, r) in done {
                    out[i] = Some(r);
                }
                progress(count);
            }
        });
        progress(input.claims.len());
        out.into_iter()
            .map(|r| r.unwrap_or(Err(super::CheckError::Interrupted)))
            .collect()
    }
}

/// `kind: lexical` settings.
#[derive(Debug, Clone, Default, PartialEq, serde::Deserialize, schemars::JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "lexical settings: optional `threshold`, `topic_floor`, `max_window_sentences`"
)]
pub struct LexicalConfig {
    pub threshold: Option<f64>,
    pub topic_floor: Option<f64>,
    pub max_window_sentences: Option<usize>,
}

impl LexicalConfig {
    /// The settings' own checks (the config adds file, line and checker name).
    pub fn validate(&self) -> Result<(), super::SettingsProblem> {
        super::unit("threshold", self.threshold)?;
        super::unit("topic_floor", self.topic_floor)?;
        super::positive(
            "max_window_sentences",
            self.max_window_sentences,
            super::MAX_WINDOW_SENTENCES,
        )
    }

    /// The settings with every default filled in.
    pub fn settings(&self) -> LexicalSettings {
        let d = LexicalSettings::default();
        LexicalSettings {
            threshold: self.threshold.unwrap_or(d.threshold),
            topic_floor: self.topic_floor.unwrap_or(d.topic_floor),
            max_window_sentences: self.max_window_sentences.unwrap_or(d.max_window_sentences),
            indexed: true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::suite::Passage;

    fn ctx() -> ContextSet {
        ContextSet {
            id: "c".into(),
            question: None,
            passages: vec![
                Passage {
                    id: "billing".into(),
                    text: "Team plans are billed monthly and can be cancelled at any time, but the current month is not refunded. Annual Enterprise contracts can be refunded in full within 14 days of signing; after that they are not refundable.".into(),
                },
                Passage {
                    id: "storage".into(),
                    text: "Each user on the Team plan gets 50 GB of storage, pooled across the workspace.".into(),
                },
            ]
            .into(),
        }
    }

    fn plans() -> Vec<EntityGroup> {
        vec![EntityGroup {
            name: "plan".into(),
            members: vec!["Team".into(), "Enterprise".into()],
        }]
    }

    fn check(claim: &str) -> Verdict {
        let c = [ctx()];
        let e = plans();
        let input = CheckInput {
            contexts: &c,
            entities: &e,
            claims: vec![super::super::ClaimToCheck {
                context: 0,
                text: claim,
            }],
        };
        LexicalChecker::new("lexical", LexicalSettings::default())
            .check(&input, &mut |_| {})
            .remove(0)
            .unwrap()
    }

    #[test]
    fn a_claim_copied_from_a_sentence_is_supported_with_its_evidence() {
        let v = check("Team plans can be cancelled at any time.");
        assert_eq!(v.label, Label::Supported, "{v:?}");
        assert_eq!(v.evidence.unwrap().passage, "billing");
    }

    #[test]
    fn a_flipped_negation_is_contradicted() {
        let v = check("The current month is refunded when a Team plan is cancelled.");
        assert_eq!(v.label, Label::Contradicted, "{v:?}");
        assert!(v.reason.contains("negates"), "{}", v.reason);
    }

    #[test]
    fn a_swapped_number_is_contradicted_and_a_number_word_is_read() {
        assert_eq!(
            check("Each Team user gets 100 GB of storage.").label,
            Label::Contradicted
        );
        assert_eq!(
            check("Each Team user gets fifty GB of storage.").label,
            Label::Supported
        );
    }

    #[test]
    fn a_swapped_entity_is_contradicted_even_in_a_two_sentence_window() {
        let v = check("Enterprise plans are billed monthly.");
        assert_eq!(v.label, Label::Contradicted, "{v:?}");
        assert!(v.reason.contains("names Enterprise"), "{}", v.reason);
    }

    #[test]
    fn an_unrelated_claim_is_not_found() {
        let v = check("Exports are encrypted with AES-256.");
        assert_eq!(v.label, Label::NotFound);
    }

    #[test]
    fn the_index_gives_the_same_verdicts_as_comparing_every_window() {
        let c = [ctx()];
        let e = plans();
        let claims = [
            "Team plans can be cancelled at any time.",
            "Enterprise plans are billed monthly.",
            "Each Team user gets 100 GB of storage.",
            "Nothing here matches.",
        ];
        let input = CheckInput {
            contexts: &c,
            entities: &e,
            claims: claims
                .iter()
                .map(|t| super::super::ClaimToCheck {
                    context: 0,
                    text: t,
                })
                .collect(),
        };
        let fast = LexicalChecker::new("a", LexicalSettings::default()).check(&input, &mut |_| {});
        let slow = LexicalChecker::new(
            "b",
            LexicalSettings {
                indexed: false,
                ..Default::default()
            },
        )
        .check(&input, &mut |_| {});
        assert_eq!(fast, slow);
    }

    /// The default lexical checker's verdict on `claim` against one passage.
    fn verdict_of(passage: &str, claim: &str) -> Verdict {
        let c = [ContextSet {
            id: "c".into(),
            question: None,
            passages: vec![Passage {
                id: "p".into(),
                text: passage.to_string(),
            }]
            .into(),
        }];
        let input = CheckInput {
            contexts: &c,
            entities: &[],
            claims: vec![super::super::ClaimToCheck {
                context: 0,
                text: claim,
            }],
        };
        LexicalChecker::new("lexical", LexicalSettings::default())
            .check(&input, &mut |_| {})
            .remove(0)
            .unwrap()
    }

    /// Issue 24's numbers, as a table: (passage, claim, the verdict a person would give or the
    /// verdicts allowed, a word the reason must hold).
    #[test]
    fn numbers_written_any_way_are_compared_as_values_with_their_units() {
        use Label::*;
        let cases: &[(&str, &str, &[Label], &str)] = &[
            ("Turnout rose to 17 per cent, officials said.", "Turnout rose to 17%.", &[Supported], ""),
            ("Turnout rose to 17%, officials said.", "Turnout rose to 17 per cent.", &[Supported], ""),
            ("Turnout rose to 17 percent, officials said.", "Turnout rose to 17%.", &[Supported], ""),
            ("A ticket costs three euros at the door.", "A ticket costs €3 at the door.", &[Supported], ""),
            ("A ticket costs €3 at the door.", "A ticket costs 3 euros at the door.", &[Supported], ""),
            ("The charity raised 1.5 million pounds last year.", "The charity raised £1.5m last year.", &[Supported], ""),
            ("The charity raised £1,500,000 last year.", "The charity raised £1.5m last year.", &[Supported], ""),
            ("The charity raised $40k last year.", "The charity raised $40,000 last year.", &[Supported], ""),
            // a hyphenated number carries its number
            ("The 17-year-old forward Jo Beckford scored twice.", "Jo Beckford, 17, scored twice.", &[Supported, NotFound], ""),
            ("Arsenal won 3-1 at home.", "Arsenal won 3-1 at home.", &[Supported], ""),
            // a number stated elsewhere in the passages: at most not found, and the reason says where
            (
                "Robert Hardy is auctioning items from his career. The sale includes scripts and props. Bidding opens on Monday. The actor, who is 89, won a BAFTA in 1979.",
                "Robert Hardy is auctioning 89 items from his career.",
                &[NotFound],
                "but in \"The actor, who is 89",
            ),
            // a different quantity with the same value is still a conflict, and the reason shows
            // each number with its marks, so it never reads as "12 ... (it says 12)"
            (
                "The Team plan costs €12 per user per month and includes up to 10 users.",
                "The Team plan includes up to 12 users.",
                &[Contradicted],
                "number 12 is not in the window (it says €12, 10)",
            ),
        ];
        for (passage, claim, want, reason) in cases {
            let v = verdict_of(passage, claim);
            assert!(
                want.contains(&v.label),
                "{claim:?} against {passage:?}: {v:?}"
            );
            assert!(v.reason.contains(reason), "{claim:?}: {}", v.reason);
            // no reason ever says a number is missing while naming it
            assert!(
                !v.reason.contains("not in the window (it says 17)"),
                "{}",
                v.reason
            );
        }
    }

    #[test]
    fn a_spaced_currency_and_a_scale_word_are_the_same_number() {
        // "$ 160 million" in a passage used to contradict "$160 million" in a claim
        for claim in [
            "The film grossed $160 million worldwide.",
            "The film grossed $160,000,000 worldwide.",
        ] {
            let v = verdict_of(
                "The film grossed $ 160 million worldwide. It opened in 2001.",
                claim,
            );
            assert_eq!(v.label, Label::Supported, "{claim}: {v:?}");
        }
    }

    /// Round 3: numbers as Europe, currency codes and clocks write them, and negations written
    /// another way, as (passage, claim, the verdict a person would give).
    #[test]
    #[allow(clippy::too_many_lines)] // one table of round-3 cases
    fn decimal_commas_spaced_thousands_currency_codes_clock_times_and_negations_are_read_as_meant()
    {
        use Label::*;
        let cases: &[(&str, &str, Label)] = &[
            // item 6: "€3,50" is three euros fifty, "1 000" one thousand
            (
                "A coffee costs €3,50 at the kiosk.",
                "A coffee costs €3.50 at the kiosk.",
                Supported,
            ),
            (
                "A coffee costs €3,50 at the kiosk.",
                "A coffee costs €350 at the kiosk.",
                Contradicted,
            ),
            (
                "A coffee costs €3.50 at the kiosk.",
                "A coffee costs 3,50 € at the kiosk.",
                Supported,
            ),
            (
                "The festival drew 120 000 visitors in 2023.",
                "The festival drew 120,000 visitors in 2023.",
                Supported,
            ),
            (
                "The festival drew 1\u{a0}000 visitors in 2023.",
                "The festival drew 1,000 visitors in 2023.",
                Supported,
            ),
            (
                "The festival drew 120 000 visitors in 2023.",
                "The festival drew 120 visitors in 2023.",
                Contradicted,
            ),
            (
                "The rent is €1.250,00 a month.",
                "The rent is €1,250 a month.",
                Supported,
            ),
            (
                "Rooms 1,2 and 3 are closed.",
                "Rooms 1, 2 and 3 are closed.",
                Supported,
            ),
            // item 16: currency codes and clock times
            (
                "The Team plan costs €12 per user.",
                "The Team plan costs EUR 12 per user.",
                Supported,
            ),
            (
                "The Team plan costs EUR 12 per user.",
                "The Team plan costs €12 per user.",
                Supported,
            ),
            (
                "The film grossed $ 160 million worldwide.",
                "The film grossed USD 160 million worldwide.",
                Supported,
            ),
            (
                "The film grossed $ 160 million worldwide.",
                "The film grossed 160 million US dollars worldwide.",
                Supported,
            ),
            (
                "The film grossed $ 160 million worldwide.",
                "The film grossed EUR 160 million worldwide.",
                Contradicted,
            ),
            (
                "The museum opens at 9:00 on weekdays.",
                "The museum opens at 9 a.m. on weekdays.",
                Supported,
            ),
            (
                "The museum opens at 9 a.m. on weekdays.",
                "The museum opens at 9:00 on weekdays.",
                Supported,
            ),
            (
                "The museum closes at 17:30 on weekdays.",
                "The museum closes at 5:30 pm on weekdays.",
                Supported,
            ),
            (
                "The museum opens at 9:00 on weekdays.",
                "The museum opens at 9 p.m. on weekdays.",
                Contradicted,
            ),
            (
                "The museum opens at 9:00 on weekdays.",
                "The museum opens at 10:00 on weekdays.",
                Contradicted,
            ),
            // item 17: negations written another way
            (
                "Refunds are not issued after 14 days.",
                "No refunds are issued after 14 days.",
                Supported,
            ),
            (
                "No refunds are issued after 14 days.",
                "Refunds are not issued after 14 days.",
                Supported,
            ),
            (
                "Nobody was injured in the fire at the depot.",
                "No one was injured in the fire at the depot.",
                Supported,
            ),
            (
                "The museum has never charged for entry.",
                "The museum has not ever charged for entry.",
                Supported,
            ),
            // the flips a negation_flip mutant makes are still caught
            (
                "Refunds are not issued after 14 days.",
                "Refunds are issued after 14 days.",
                Contradicted,
            ),
            (
                "Refunds are issued within 14 days.",
                "No refunds are issued within 14 days.",
                Contradicted,
            ),
            (
                "Somebody was injured in the fire at the depot.",
                "Nobody was injured in the fire at the depot.",
                Contradicted,
            ),
        ];
        for (passage, claim, want) in cases {
            let v = verdict_of(passage, claim);
            assert_eq!(v.label, *want, "{claim:?} against {passage:?}: {v:?}");
        }
    }

    #[test]
    fn a_true_derived_figure_is_never_a_contradiction_and_a_false_one_is() {
        let passage = "The Basic plan costs £30 a year. Support replies in 2 days.";
        for (claim, want, reason) in [
            (
                "The Basic plan costs under £3 per month.",
                Label::NotFound,
                "30 / 12 = 2.5, under 3",
            ),
            (
                "The Basic plan costs £2.50 a month.",
                Label::NotFound,
                "derived",
            ),
            (
                "The Basic plan costs about £2.50 per month.",
                Label::NotFound,
                "derived",
            ),
            (
                "Support replies in under 3 days.",
                Label::NotFound,
                "under 3",
            ),
            (
                "The Basic plan costs under £2 per month.",
                Label::Contradicted,
                "not in the window",
            ),
            (
                "The Basic plan costs £3.50 a month.",
                Label::Contradicted,
                "not in the window",
            ),
            (
                "Support replies in over 3 days.",
                Label::Contradicted,
                "not in the window",
            ),
        ] {
            let v = verdict_of(passage, claim);
            assert_eq!(v.label, want, "{claim}: {v:?}");
            assert!(v.reason.contains(reason), "{claim}: {}", v.reason);
        }
    }
}
