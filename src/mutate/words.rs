//! What several operators share: finding a phrase as whole words in the case it is written, and
//! the rule shape "replace one phrase with another" that the word-list operators use.

use super::Input;
use crate::error::Result;
use crate::text::hash::WordMap;
use crate::text::words::find_word;
use serde::Deserialize;
use std::path::Path;

use crate::text::words::{capitalised, strip_all_suffixes};

/// The first whole-word occurrence of `from` (as written, or with a capital first letter at the
/// start of a sentence: "May" in "in May 2024" is not "may") at or after byte `start`, as (start,
/// end, capitalised).
pub fn find_phrase(text: &str, from: &str, start: usize) -> Option<(usize, usize, bool)> {
    let lower = find_word(text, from, start).map(|at| (at, at + from.len(), false));
    let sentence_start = |at: usize| {
        let before = text[..at].trim_end();
        before.is_empty() || before.ends_with(['.', '!', '?', ':', '"', '“'])
    };
    // the phrase with a capital: most phrases open with an ASCII letter, looked for by its
    // capital byte and the rest without building the capitalised phrase
    let first = from.as_bytes().first().copied();
    let built;
    let (cap_first, cap_rest, cap_len) = match first {
        None => (None, &[][..], 0),
        Some(b) if b.is_ascii() => {
            let up = b.to_ascii_uppercase();
            (
                Some(up).filter(|&u| u != b),
                &from.as_bytes()[1..],
                from.len(),
            )
        }
        Some(_) => {
            built = capitalised(from);
            let b = built.as_bytes();
            let differs = built != from;
            (differs.then_some(b[0]), &b[1..], built.len())
        }
    };
    let upper = cap_first.and_then(|up| {
        let mut from_at = start;
        while let Some(at) = crate::text::words::find_word_opening(text, up, cap_rest, from_at) {
            if sentence_start(at) {
                return Some((at, at + cap_len, true));
            }
            from_at = at + cap_len;
        }
        None
    });
    match (lower, upper) {
        (Some(a), Some(b)) => Some(if a.0 <= b.0 { a } else { b }),
        (a, b) => a.or(b),
    }
}

/// `text` with its first whole-word `from` replaced by `to` (capitalised where `from` was).
pub fn replace_first(text: &str, from: &str, to: &str) -> Option<String> {
    find_phrase(text, from, 0).map(|hit| replace_at(text, hit, to))
}

/// `text` with the phrase [`find_phrase`] found at `hit` replaced by `to`.
fn replace_at(text: &str, (at, end, cap): (usize, usize, bool), to: &str) -> String {
    let to = if cap { capitalised(to) } else { to.to_string() };
    crate::text::words::tidy(&format!("{}{}{}", &text[..at], to, &text[end..]))
}

/// Rules of a word-list operator: pairs of phrases, each written `[from, to]`. With `both_ways`
/// a pair also applies from right to left.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PhraseRules {
    pub pairs: Vec<[String; 2]>,
    #[serde(default)]
    pub both_ways: bool,
    /// Phrases removed outright (a hedge word such as "reportedly"): `to` is empty.
    #[serde(default)]
    pub remove: Vec<String>,
    /// Remove a phrase of `remove` only right before a number ("about 40", not "know little
    /// about the species", where "about" is a preposition).
    #[serde(default)]
    pub remove_before_numbers: bool,
    /// The phrases by their lead word, made the first time the rules are applied.
    #[serde(skip)]
    pub index: std::sync::OnceLock<PhraseIndex>,
}

/// [`PhraseRules::apply`]'s steps (each phrase looked for, in the order it looks for them) by
/// the lead word of their phrase, so a claim's words name the few steps that can find anything
/// in it: the steps [`Words::may_hold`] would not rule out, and no others.
#[derive(Debug, Clone, Default)]
pub struct PhraseIndex {
    /// Step numbers by lead word, as written.
    by_lead: WordMap<String, Vec<u32>>,
    /// Steps whose phrase has no ASCII first byte, which no lead word rules out.
    always: Vec<u32>,
}

/// A step of [`PhraseRules::apply`]: look for `from`, replace it with `to` ("" to remove it).
fn steps(rules: &PhraseRules) -> impl Iterator<Item = (&str, &str, bool)> {
    let pairs = rules.pairs.iter().flat_map(move |[from, to]| {
        let back = rules
            .both_ways
            .then_some((to.as_str(), from.as_str(), false));
        std::iter::once((from.as_str(), to.as_str(), false)).chain(back)
    });
    pairs.chain(rules.remove.iter().map(|w| (w.as_str(), "", true)))
}

/// The word a phrase opens with: its letters and digits up to the first other character.
fn lead_of(phrase: &str) -> &str {
    phrase
        .find(|c: char| !c.is_alphanumeric())
        .map_or(phrase, |end| &phrase[..end])
}

impl PhraseIndex {
    fn of(rules: &PhraseRules) -> PhraseIndex {
        let mut index = PhraseIndex::default();
        for (i, (from, _, _)) in steps(rules).enumerate() {
            let lead = lead_of(from);
            if lead.as_bytes().first().is_some_and(u8::is_ascii) {
                index
                    .by_lead
                    .entry(lead.to_string())
                    .or_default()
                    .push(i as u32);
            } else {
                index.always.push(i as u32);
            }
        }
        index
    }

    /// The steps that may find their phrase in a text of `words`, in order: those whose lead
    /// word is one of the words as written, or with its capital first letter made small (a
    /// phrase is found with a capital first letter too), and those with no ASCII lead.
    fn candidates(&self, words: &Words<'_>) -> Vec<u32> {
        let mut out = self.always.clone();
        let mut small = String::new();
        for w in &words.words {
            if let Some(steps) = self.by_lead.get(*w) {
                out.extend(steps);
            }
            if w.as_bytes()[0].is_ascii_uppercase() {
                small.clear();
                small.push(w.as_bytes()[0].to_ascii_lowercase() as char);
                small.push_str(&w[1..]);
                if let Some(steps) = self.by_lead.get(&small) {
                    out.extend(steps);
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// A word-list operator: its mutants are [`PhraseRules::apply`]'s.
pub struct Phrases(pub PhraseRules);

impl super::Mutator for Phrases {
    fn mutate(&self, input: &super::Input<'_>) -> Vec<String> {
        self.0.apply(input.claim)
    }
}

impl PhraseRules {
    /// Parses and checks a rule file of this shape.
    pub fn load(path: &Path, text: &str) -> Result<PhraseRules> {
        let rules: PhraseRules = super::rules::parse(path, text)?;
        if rules
            .pairs
            .iter()
            .flatten()
            .chain(&rules.remove)
            .any(|w| crate::text::words::is_blank(w))
        {
            return Err(super::rules::empty_word_error(path, text, "a phrase"));
        }
        Ok(rules)
    }

    /// One mutant per pair (and removal) that applies, each changing the first occurrence only.
    /// A pair whose phrase starts where an earlier pair's did ("more than" -> "less than", then
    /// "more" -> "fewer") gives no second mutant of the same fault.
    pub fn apply(&self, claim: &str) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let mut starts: Vec<usize> = Vec::new();
        let words = Words::of(claim);
        let index = self.index.get_or_init(|| PhraseIndex::of(self));
        let mut wanted = index.candidates(&words).into_iter().peekable();
        // each phrase found once: where it starts, and the mutant that replaces it
        for (i, (from, to, removal)) in steps(self).enumerate() {
            if wanted.peek() != Some(&(i as u32)) {
                continue;
            }
            wanted.next();
            if removal && self.remove_before_numbers && !before_number(claim, from) {
                continue;
            }
            let Some(hit) = find_phrase(claim, from, 0) else {
                continue;
            };
            let m = replace_at(claim, hit, to);
            if m == claim || out.contains(&m) || starts.contains(&hit.0) {
                continue;
            }
            starts.push(hit.0);
            out.push(m);
        }
        out
    }
}

/// The words of a text (its runs of letters and digits), to rule out at a glance most phrases
/// [`find_phrase`] would look for in it.
pub(crate) struct Words<'a> {
    words: Vec<&'a str>,
    /// A 256-bit filter of the words' [`Words::key`]s: a phrase whose lead word's key is not in
    /// it is ruled out without comparing it with every word.
    seen: [u64; 4],
}

impl<'a> Words<'a> {
    pub(crate) fn of(text: &'a str) -> Words<'a> {
        let words: Vec<&str> = text
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .collect();
        let mut seen = [0u64; 4];
        for w in &words {
            if let Some(k) = Self::key(w.as_bytes()) {
                seen[k / 64] |= 1 << (k % 64);
            }
        }
        Words { words, seen }
    }

    /// Where a word falls in the filter: its length and its first and last bytes in small
    /// letters, so a word and its capitalised form fall in one place. `None` for a word that
    /// does not open with an ASCII byte, which [`Words::may_hold`] never compares.
    fn key(w: &[u8]) -> Option<usize> {
        let (&first, &last) = (w.first()?, w.last()?);
        if !first.is_ascii() {
            return None;
        }
        let mix = (w.len() as u32)
            .wrapping_mul(0x9E37_79B1)
            .wrapping_add(u32::from(first.to_ascii_lowercase()) << 8)
            .wrapping_add(u32::from(last.to_ascii_lowercase()))
            .wrapping_mul(0x85EB_CA77);
        Some((mix >> 24) as usize)
    }

    /// False only when [`find_phrase`] cannot find `phrase` in the text: a phrase that opens
    /// with a word (an ASCII letter or digit first) is found only where the text has that word,
    /// as written or with a capital first letter.
    pub(crate) fn may_hold(&self, phrase: &str) -> bool {
        let lead = lead_of(phrase);
        let Some(&first) = lead.as_bytes().first().filter(|b| b.is_ascii()) else {
            return true; // no word first, or a first letter with a case table of its own
        };
        // a word the phrase's lead could be has the lead's key: not in the filter, no such word
        if let Some(k) = Self::key(lead.as_bytes()) {
            if self.seen[k / 64] & (1 << (k % 64)) == 0 {
                return false;
            }
        }
        let up = first.to_ascii_uppercase();
        self.words.iter().any(|w| {
            w.len() == lead.len()
                && w.as_bytes()[1..] == lead.as_bytes()[1..]
                && (w.as_bytes()[0] == first || w.as_bytes()[0] == up)
        })
    }
}

/// Whether the first whole-word `phrase` of `text` is followed by a number (digits, or a number
/// word such as "forty").
fn before_number(text: &str, phrase: &str) -> bool {
    const WORDS: &[&str] = &[
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
        "twenty",
        "thirty",
        "forty",
        "fifty",
        "sixty",
        "seventy",
        "eighty",
        "ninety",
        "a",
        "half",
        "hundred",
        "hundreds",
        "thousand",
        "thousands",
        "million",
        "billion",
    ];
    let Some((_, end, _)) = find_phrase(text, phrase, 0) else {
        return false;
    };
    let next = text[end..]
        .trim_start()
        .trim_start_matches(['€', '$', '£', '¥'])
        .trim_start();
    next.starts_with(|c: char| c.is_ascii_digit()) || {
        let w: String = next
            .chars()
            .take_while(|c| c.is_alphabetic())
            .collect::<String>()
            .to_lowercase();
        WORDS.contains(&w.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`find_phrase`] as it was written before it looked for the capital byte: the reference.
    fn find_phrase_by_capitalising(
        text: &str,
        from: &str,
        start: usize,
    ) -> Option<(usize, usize, bool)> {
        let lower = find_word(text, from, start).map(|at| (at, at + from.len(), false));
        let cap = capitalised(from);
        let sentence_start = |at: usize| {
            let before = text[..at].trim_end();
            before.is_empty() || before.ends_with(['.', '!', '?', ':', '"', '“'])
        };
        let mut upper = None;
        if cap != from {
            let mut from_at = start;
            while let Some(at) = find_word(text, &cap, from_at) {
                if sentence_start(at) {
                    upper = Some((at, at + cap.len(), true));
                    break;
                }
                from_at = at + cap.len();
            }
        }
        match (lower, upper) {
            (Some(a), Some(b)) => Some(if a.0 <= b.0 { a } else { b }),
            (a, b) => a.or(b),
        }
    }

    #[test]
    fn a_phrase_is_found_where_the_capitalising_search_finds_it() {
        let texts = [
            "May 2024. may be. In May it rained.",
            "Été comme été. été fini. « Été »: Été",
            "ǆungla: ǅungla ǆ. Ǆ",
            "ßig. SSig ßig",
            "\"More than\" more than. More than 40.",
            "",
        ];
        let phrases = [
            "may",
            "May",
            "été",
            "Été",
            "ǆungla",
            "ǆ",
            "ßig",
            "more than",
            "40",
            "",
        ];
        for t in texts {
            for p in phrases {
                for from in 0..=t.len() {
                    if t.is_char_boundary(from) {
                        assert_eq!(
                            find_phrase(t, p, from),
                            find_phrase_by_capitalising(t, p, from),
                            "{t:?} {p:?} {from}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn a_phrase_ruled_out_by_the_words_is_one_find_phrase_does_not_find() {
        let texts = [
            "More than 40 people came. more came later.",
            "It rose 17 per cent; sales fell.",
            "Reportedly, the plan costs €3,50 (about $4).",
            "The U.S. team won. e.g. this one.",
            "Ärzte said so. Über alles, über all.",
            "",
        ];
        let phrases = [
            "more than",
            "more",
            "More",
            "rose",
            "fell",
            "reportedly",
            "reportedly,",
            "about",
            "e.g.",
            "u.s.",
            "U.S.",
            "über",
            "ärzte",
            "(about",
            "per cent",
            "cent;",
            "plan costs",
            "plans",
            "17",
            "40 people",
            "team won",
            "x",
        ];
        for t in texts {
            let words = Words::of(t);
            for p in phrases {
                if find_phrase(t, p, 0).is_some() {
                    assert!(words.may_hold(p), "{p:?} in {t:?}");
                }
            }
        }
        assert!(!Words::of("Sales rose.").may_hold("fell"));
        assert!(!Words::of("Sales rose.").may_hold("rosé"));
    }

    /// [`Words::may_hold`] as it was before its filter: every word compared.
    fn may_hold_by_every_word(text: &str, phrase: &str) -> bool {
        let lead = phrase
            .find(|c: char| !c.is_alphanumeric())
            .map_or(phrase, |end| &phrase[..end]);
        let Some(&first) = lead.as_bytes().first().filter(|b| b.is_ascii()) else {
            return true;
        };
        let up = first.to_ascii_uppercase();
        text.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .any(|w| {
                w.len() == lead.len()
                    && w.as_bytes()[1..] == lead.as_bytes()[1..]
                    && (w.as_bytes()[0] == first || w.as_bytes()[0] == up)
            })
    }

    proptest::proptest! {
        #[test]
        fn the_word_filter_rules_out_only_what_every_word_would(
            text in proptest::collection::vec(proptest::sample::select(vec![
                "a", "A", "an", "at", "At", "ta", "plan", "Plan", "PLAN", "plans", "nalp", "pro",
                "Pro", "17", "71", "1", "é", "Émile", "ß", "x", "X", " ", ", ", "-", ".", "'",
            ]), 0..14),
            phrase in proptest::collection::vec(proptest::sample::select(vec![
                "a", "A", "an", "at", "ta", "plan", "Plan", "plans", "pro", "Pro", "17", "1",
                "é", "Émile", "x", "X", " ", "-", "'",
            ]), 0..4),
        ) {
            let (text, phrase) = (text.concat(), phrase.concat());
            proptest::prop_assert_eq!(
                Words::of(&text).may_hold(&phrase),
                may_hold_by_every_word(&text, &phrase),
                "{:?} in {:?}", phrase, text
            );
        }

        #[test]
        fn the_phrase_index_names_the_steps_the_word_filter_keeps(
            text in proptest::collection::vec(proptest::sample::select(vec![
                "a", "A", "an", "at", "At", "plan", "Plan", "PLAN", "plans", "pro", "Pro", "17",
                "é", "Émile", "x", "X", " ", ", ", "-", "'",
            ]), 0..14),
            pairs in proptest::collection::vec(proptest::collection::vec(proptest::sample::select(vec![
                "a", "A", "an", "at", "plan", "Plan", "pro", "Pro", "17", "é", "Émile", "x",
                " ", "-", "'",
            ]), 0..4), 0..8),
            both_ways: bool,
        ) {
            let text = text.concat();
            let phrases: Vec<String> = pairs.iter().map(|p| p.concat()).collect();
            let rules = PhraseRules {
                pairs: phrases.chunks_exact(2).map(|p| [p[0].clone(), p[1].clone()]).collect(),
                both_ways,
                remove: phrases.iter().step_by(3).cloned().collect(),
                remove_before_numbers: false,
                index: Default::default(),
            };
            let words = Words::of(&text);
            let kept: Vec<u32> = steps(&rules)
                .enumerate()
                .filter(|(_, (from, _, _))| words.may_hold(from))
                .map(|(i, _)| i as u32)
                .collect();
            proptest::prop_assert_eq!(PhraseIndex::of(&rules).candidates(&words), kept);
        }
    }

    #[test]
    fn the_word_filter_keeps_every_word_of_a_long_text() {
        // more words than the filter has bits: each is still found, alone and leading a phrase
        let words: Vec<String> = (0..600).map(|i| format!("w{i}x")).collect();
        let text = words.join(" ");
        let held = Words::of(&text);
        for w in &words {
            assert!(held.may_hold(w), "{w}");
            assert!(held.may_hold(&format!("{w} plan")), "{w}");
        }
        assert!(!held.may_hold("w600x"));
        assert!(
            !held.may_hold("W1x"),
            "a capital in the phrase matches only a capital"
        );
    }

    #[test]
    fn an_approximation_is_dropped_only_before_a_number_and_one_fault_gives_one_mutant() {
        let rules = PhraseRules {
            pairs: vec![
                ["more than".into(), "less than".into()],
                ["more".into(), "fewer".into()],
            ],
            both_ways: false,
            remove: vec!["about".into()],
            remove_before_numbers: true,
            index: Default::default(),
        };
        assert!(rules
            .apply("Researchers know little about the species.")
            .is_empty());
        assert_eq!(
            rules.apply("About 40 people came."),
            vec!["40 people came."]
        );
        assert_eq!(
            rules.apply("It has about $ 160 million."),
            vec!["It has $ 160 million."]
        );
        // "more than" -> "less than" and "more" -> "fewer" are the same fault: one mutant
        assert_eq!(
            rules.apply("More than 20 staff remain."),
            vec!["Less than 20 staff remain."]
        );
    }

    #[test]
    fn phrases_match_whole_words_and_keep_the_capital() {
        assert_eq!(
            replace_first("Sales rose 4 per cent.", "rose", "fell").as_deref(),
            Some("Sales fell 4 per cent.")
        );
        assert_eq!(
            replace_first("Reportedly, it closed.", "reportedly,", "").as_deref(),
            Some("It closed.")
        );
        assert_eq!(
            replace_first("Prose rose.", "rose", "fell").as_deref(),
            Some("Prose fell.")
        );
        assert_eq!(replace_first("arose", "rose", "fell"), None);
    }
}

/// How names are found in passages when a suite declares no entity groups: runs of capitalised
/// words, sorted into kinds by the words around them.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NameCues {
    /// Capitalised words that are never names on their own ("The", "However", month names).
    #[serde(default)]
    pub not_names: Vec<String>,
    /// Lower-case words that may join the parts of one name ("Bank of England").
    #[serde(default)]
    pub joiners: Vec<String>,
    /// Kinds of names, each with its cues; a name takes the first kind whose cue any of its
    /// mentions meets, and names with no cue are of kind `other`.
    #[serde(default)]
    pub kinds: Vec<NameKind>,
    /// A hash of the cues, taken once: what their names are kept under.
    #[serde(skip)]
    pub fingerprint: std::sync::OnceLock<u64>,
}

impl std::hash::Hash for NameCues {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.key().hash(h);
    }
}

/// The names of the passages borrowed from ([`Input::elsewhere`]), as kept for a context.
struct ElsewhereNames(Vec<Name>);

#[derive(Debug, Clone, Hash, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NameKind {
    pub kind: String,
    /// Words right before a mention ("Dr", "in").
    #[serde(default)]
    pub before: Vec<String>,
    /// Words right after a mention ("said").
    #[serde(default)]
    pub after: Vec<String>,
    /// Words of the name itself ("Bank", "University"): "Bank of England" is an organisation.
    #[serde(default)]
    pub ends_with: Vec<String>,
}

/// A name found in passages, with its kind.
#[derive(Debug, Clone, PartialEq)]
pub struct Name {
    pub text: String,
    pub kind: String,
}

/// A mention of a name: the name, the word before it (`"\u{0}"` for a one-word name opening a
/// sentence), the word after it, and the index of its last word in the sentence.
type Mention = (String, String, String, usize);

impl NameCues {
    /// The cues' hash ([`NameCues::fingerprint`]).
    pub(super) fn key(&self) -> u64 {
        *self.fingerprint.get_or_init(|| {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            (&self.not_names, &self.joiners, &self.kinds).hash(&mut h);
            h.finish()
        })
    }

    /// The names of the claim's passages, found once for all the claims of a context.
    pub(crate) fn in_passages(&self, input: &Input<'_>) -> std::sync::Arc<Vec<Name>> {
        input.memo(self.key(), || {
            let sentences = input.sentences();
            self.kinds_of(&self.mentions(sentences.into_iter().flatten()))
        })
    }

    /// The names of the passages borrowed from, found once for all the claims of a context.
    pub(crate) fn in_elsewhere(&self, input: &Input<'_>) -> Vec<Name> {
        input
            .memo(self.key(), || ElsewhereNames(self.names(input.elsewhere)))
            .0
            .clone()
    }

    /// The names the texts mention, in order of first mention, each once.
    pub fn names(&self, texts: &[&str]) -> Vec<Name> {
        use std::hash::{Hash, Hasher};
        // each operator that finds names asks for the same passages' names once per claim: the
        // last few answers are kept, by the cues and the texts they were found with
        static KEPT: std::sync::Mutex<Vec<(u64, usize, Vec<Name>)>> =
            std::sync::Mutex::new(Vec::new());
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (self, texts).hash(&mut h);
        let (key, len) = (h.finish(), texts.iter().map(|t| t.len()).sum::<usize>());
        // the most recently used last, so that the names of a context's passages stay while its
        // claims (and those of the context another thread makes) are mutated
        if let Some(hit) = KEPT.lock().ok().and_then(|mut k| {
            let at = k.iter().position(|(k, l, _)| *k == key && *l == len)?;
            let e = k.remove(at);
            let names = e.2.clone();
            k.push(e);
            Some(names)
        }) {
            return hit;
        }
        let names = self.find_names(texts);
        if let Ok(mut kept) = KEPT.lock() {
            if kept.len() >= 32 {
                kept.remove(0);
            }
            kept.push((key, len, names.clone()));
        }
        names
    }

    fn find_names(&self, texts: &[&str]) -> Vec<Name> {
        let sentences = texts
            .iter()
            .flat_map(|t| crate::text::sentences::split_sentences(t));
        self.kinds_of(&self.mentions(sentences))
    }

    /// The mentions of names in these sentences: name, word before, word after, index of its
    /// last word in the sentence.
    fn mentions<'s>(&self, sentences: impl Iterator<Item = &'s str>) -> Vec<Mention> {
        let mut mentions: Vec<Mention> = Vec::new();
        for sentence in sentences {
            self.mentions_in(sentence, &mut mentions);
        }
        mentions
    }

    /// The mentions of names in one sentence, added to `mentions` (whose last one may pass its
    /// cue on to a name listed after it).
    fn mentions_in(&self, sentence: &str, mentions: &mut Vec<Mention>) {
        let words: Vec<&str> = sentence.split_whitespace().collect();
        // each word once: cleaned, and whether it may be part of a name
        let cleaned: Vec<&str> = words
            .iter()
            .map(|w| {
                strip_all_suffixes(
                    strip_all_suffixes(w.trim_matches(|c: char| !c.is_alphanumeric()), "'s"),
                    "’s",
                )
            })
            .collect();
        let nameable: Vec<bool> = cleaned
            .iter()
            .map(|c| {
                let capital = c.chars().next().is_some_and(char::is_uppercase)
                    && c.chars().any(char::is_lowercase)
                    || c.len() >= 2 && c.chars().all(|ch| ch.is_ascii_uppercase());
                capital && !self.not_names.iter().any(|n| n == c)
            })
            .collect();
        let clean = |k: usize| cleaned[k].to_string();
        let mut i = 0;
        while i < words.len() {
            if !nameable[i] {
                i += 1;
                continue;
            }
            let j = self.name_end(&words, &nameable, &cleaned, i);
            let name = words[i..j]
                .iter()
                .map(|w| w.to_string())
                .collect::<Vec<_>>()
                .join(" ");
            let name = strip_all_suffixes(
                strip_all_suffixes(name.trim_matches(|c: char| !c.is_alphanumeric()), "'s"),
                "’s",
            )
            .to_string();
            // the first word of a sentence is capitalised anyway: a one-word name there
            // counts only when it is also met inside a sentence
            let initial = i == 0 && j == 1;
            let mut before = if i > 0 { clean(i - 1) } else { String::new() };
            // a name in a list takes the cue of the name before it: "in London, New
            // York and Tokyo" are all places
            let listed =
                i > 1 && (words[i - 1].ends_with(',') || ["and", "or"].contains(&words[i - 1]));
            if listed {
                if let Some(prev) = mentions.last() {
                    // (a sentence's first name has no cue to pass on: "Labour's
                    // candidate, Peter Doyle" keeps its own)
                    if (prev.3 + 1 == i || prev.3 + 2 == i) && prev.1 != "\u{0}" {
                        before = prev.1.clone();
                    }
                }
            }
            let after = if j < words.len() {
                clean(j)
            } else {
                String::new()
            };
            if !name.is_empty() {
                mentions.push((
                    name,
                    if initial { "\u{0}".into() } else { before },
                    after,
                    j - 1,
                ));
            }
            i = j;
        }
    }

    /// Where the name that starts at word `i` ends (the index after its last word): at
    /// punctuation, before a possessive followed by a name of two words or more, and where the
    /// words stop being part of a name (a joiner such as "of" continues it before a capital).
    fn name_end(&self, words: &[&str], nameable: &[bool], cleaned: &[&str], i: usize) -> usize {
        let capital = |k: usize| {
            let c = cleaned[k];
            c.chars().next().is_some_and(char::is_uppercase) && c.chars().any(char::is_lowercase)
                || c.len() >= 2 && c.chars().all(|ch| ch.is_ascii_uppercase())
        };
        let mut j = i + 1;
        // a name ends at punctuation after a word ("Acme, Inc" is two)
        let ends = |w: &str| w.ends_with([',', ';', ':', '.', ')', '"', '”']);
        // ... and after a possessive followed by a name of two words or more: "the
        // Green Party's Amira Khan" is two names, "St Mark's School" one
        let possessive_split = |k: usize| {
            (words[k].ends_with("'s") || words[k].ends_with("’s"))
                && k + 2 < words.len()
                && nameable[k + 1]
                && nameable[k + 2]
        };
        if !ends(words[i]) && !possessive_split(i) {
            while j < words.len() {
                if nameable[j] {
                    j += 1;
                } else if self.joiners.iter().any(|x| x == words[j])
                    && j + 1 < words.len()
                    && capital(j + 1)
                {
                    j += 2;
                } else {
                    break;
                }
                if ends(words[j - 1]) || possessive_split(j - 1) {
                    break;
                }
            }
        }
        j
    }

    /// Each name once, in order of first mention, with its kind: from its own words ("Bank",
    /// "Senate"), else the words around any of its mentions, else the kind of a cued name whose
    /// first or last word is its last word; a name only ever met opening a sentence is left out.
    fn kinds_of(&self, mentions: &[Mention]) -> Vec<Name> {
        // the kind a mention's own cues give it, if any
        // the name's own words ("Bank", "Senate") first, then the words around it
        let cued = |name: &str, before: &str, after: &str| -> Option<String> {
            self.kinds
                .iter()
                .find(|k| {
                    name.split_whitespace()
                        .any(|w| k.ends_with.iter().any(|e| e == w))
                })
                .or_else(|| {
                    self.kinds.iter().find(|k| {
                        k.before.iter().any(|b| b.eq_ignore_ascii_case(before))
                            || k.after.iter().any(|a| a.eq_ignore_ascii_case(after))
                    })
                })
                .map(|k| k.kind.clone())
        };
        // a name's last word names the same thing: "Khan said" (even opening a sentence) makes
        // "Amira Khan" a person, "Nordvik Foods" an organisation makes "Nordvik" one
        let mut by_last: std::collections::HashMap<String, String> = Default::default();
        for (name, before, after, _) in mentions {
            if let (Some(kind), Some(last)) =
                (cued(name, before, after), name.split_whitespace().last())
            {
                by_last.entry(last.to_string()).or_insert(kind.clone());
                if let Some(first) = name.split_whitespace().next() {
                    by_last.entry(first.to_string()).or_insert(kind);
                }
            }
        }
        // each name's mentions, gathered once (a scan per mention is quadratic in a long
        // passage), in the order of first mention
        let mut order: Vec<&str> = Vec::new();
        let mut by_name: std::collections::HashMap<&str, Vec<&(String, String, String, usize)>> =
            Default::default();
        for m in mentions {
            let e = by_name.entry(m.0.as_str()).or_default();
            if e.is_empty() {
                order.push(m.0.as_str());
            }
            e.push(m);
        }
        let mut out: Vec<Name> = Vec::new();
        for name in order {
            let of = &by_name[name];
            if of.iter().all(|m| m.1 == "\u{0}") {
                continue; // only ever sentence-initial
            }

            let kind = self
                .kinds
                .iter()
                .find(|k| {
                    name.split_whitespace()
                        .any(|w| k.ends_with.iter().any(|e| e == w))
                })
                .or_else(|| {
                    self.kinds.iter().find(|k| {
                        of.iter().any(|m| {
                            k.before.iter().any(|b| b.eq_ignore_ascii_case(&m.1))
                                || k.after.iter().any(|a| a.eq_ignore_ascii_case(&m.2))
                        })
                    })
                })
                .map(|k| k.kind.clone())
                .or_else(|| {
                    name.split_whitespace()
                        .last()
                        .and_then(|l| by_last.get(l).cloned())
                })
                .unwrap_or_else(|| "other".into());
            out.push(Name {
                text: name.to_string(),
                kind,
            });
        }
        out
    }
}
