//! Decomposers: an answer into claims.
//!
//! - `sentences` (built in, no model) splits into sentences, drops non-claims (greetings,
//!   apologies, offers to help, empathy) and keeps conditionals whole. It does not split a
//!   sentence that carries several facts: a merged claim is judged as one.
//! - `llm` makes one call per answer over the judge's OpenAI-compatible client with a prompt of
//!   its own. It sees the question and the answer, never the passages (a decomposer that sees the
//!   evidence splits along it). Its output is validated as strictly as the judge's.

use crate::check::judge::extract_json;
use crate::io::llm::LlmClient;
use crate::text::{sentences::split_sentences, words::capitalised};

/// Turns an answer into claims.
pub trait Decomposer: Send + Sync {
    fn name(&self) -> &str;
    /// Settings for reports (kind, prompt version).
    fn describe(&self) -> String;
    fn decompose(&self, question: &str, answer: &str) -> Result<Vec<String>, String>;

    /// What the decomposer spent, for stderr after a run (an LLM's calls, tokens and cost).
    fn notes(&self) -> Vec<String> {
        Vec::new()
    }

    /// The claims and the sentences left out with their reasons (a decomposer that drops
    /// nothing explicitly reports nothing dropped).
    fn decompose_explained(&self, question: &str, answer: &str) -> Result<Decomposition, String> {
        Ok(Decomposition {
            claims: self.decompose(question, answer)?,
            dropped: Vec::new(),
        })
    }
}

/// The rules of the `sentences` decomposer, from `decomposer/sentences.yaml` (compiled in).
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct SentenceRules {
    non_claim: Vec<String>,
    framing: Vec<String>,
    framing_prefixes: Vec<String>,
    refusals: Vec<String>,
    lead_in_verbs: Vec<String>,
    vacuous_lead_ins: Vec<String>,
    wrapper_sources: Vec<String>,
    wrapper_verbs: Vec<String>,
    note_prefixes: Vec<String>,
    truncation_words: Vec<String>,
    framing_openers: Vec<String>,
    source_determiners: Vec<String>,
    source_adjectives: Vec<String>,
    source_nouns: Vec<String>,
    openings: Vec<String>,
    silent_source_verbs: Vec<String>,
}

fn rules() -> &'static SentenceRules {
    static RULES: std::sync::LazyLock<SentenceRules> = std::sync::LazyLock::new(|| {
        crate::io::yaml::parse(
            std::path::Path::new("decomposer/sentences.yaml"),
            include_str!("../../decomposer/sentences.yaml"),
            "",
        )
        .expect("the shipped decomposer rules are valid (tested)")
    });
    &RULES
}

fn lower(s: &str) -> String {
    s.to_lowercase().replace(['’', '‘'], "'")
}

/// True when `s` (lower case) starts with `phrase` as whole words.
fn starts_with_phrase(s: &str, phrase: &str) -> bool {
    s.starts_with(phrase)
        && s[phrase.len()..]
            .chars()
            .next()
            .is_none_or(|c| !c.is_alphanumeric())
}

/// `s` in lower case with contractions spelt out ("don't" is "do not", "I'm" is "I am"), so one
/// refusal rule matches every spelling of it.
fn spelt_out(s: &str) -> String {
    let t: String = lower(s)
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '\'' {
                c
            } else {
                ' '
            }
        })
        .collect();
    let mut t = format!(" {t} ");
    for (from, to) in [
        ("can't", "cannot"),
        ("won't", "will not"),
        ("n't", " not"),
        ("i'm", "i am"),
        ("'re ", " are "),
        ("'ve ", " have "),
        ("'ll ", " will "),
        ("can not", "cannot"),
    ] {
        t = t.replace(from, to);
    }
    format!(" {} ", t.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// The length in bytes of a source of the answer at the start of `s` (lower case): "the
/// document", "the provided passages", "this leaflet", "the help center".
fn source_at(s: &str) -> Option<usize> {
    let r = rules();
    let mut at = 0;
    let skip = |at: usize, words: &[String]| {
        words
            .iter()
            .filter(|w| starts_with_phrase(&s[at..], w))
            .map(|w| at + w.len() + s[at + w.len()..].len() - s[at + w.len()..].trim_start().len())
            .max()
    };
    if let Some(n) = skip(at, &r.source_determiners) {
        at = n;
    }
    if let Some(n) = skip(at, &r.source_adjectives) {
        at = n;
    }
    r.source_nouns
        .iter()
        .filter(|w| starts_with_phrase(&s[at..], w))
        .map(|w| at + w.len())
        .max()
}

/// True when `s` (spelt out) says a source is silent: "the passage does not mention the price".
fn says_source_is_silent(s: &str) -> bool {
    let s = s.trim();
    let r = rules();
    s.char_indices()
        .filter(|(i, _)| *i == 0 || s.as_bytes()[i - 1] == b' ')
        .any(|(i, _)| {
            let Some(n) = source_at(&s[i..]) else {
                return false;
            };
            let rest = s[i + n..].trim_start();
            let rest = ["does not ", "do not ", "did not "]
                .iter()
                .find_map(|p| rest.strip_prefix(p));
            rest.is_some_and(|rest| {
                r.silent_source_verbs.iter().any(|v| {
                    starts_with_phrase(rest, v) || starts_with_phrase(rest, &format!("{v}s"))
                })
            })
        })
}

/// True when `text` holds one of the refusal phrases, in any spelling of its contractions.
fn has_refusal_phrase(text: &str) -> bool {
    static REFUSALS: std::sync::LazyLock<Vec<String>> =
        std::sync::LazyLock::new(|| rules().refusals.iter().map(|r| spelt_out(r)).collect());
    // both sides padded with one space: phrases match whole words only
    let t = spelt_out(text);
    REFUSALS.iter().any(|r| t.contains(r.as_str()))
}

/// True when `text` declines to answer: one of the refusal phrases, or a source said to be
/// silent ("the document doesn't say"), in any spelling of its contractions.
fn declines(text: &str) -> bool {
    has_refusal_phrase(text) || says_source_is_silent(&spelt_out(text))
}

/// True when the answer contains a phrase that declines to answer.
pub(crate) fn is_refusal(answer: &str) -> bool {
    declines(answer)
}

/// Why a sentence is not a claim, if it is not one.
fn not_a_claim(sentence: &str) -> Option<&'static str> {
    let s = lower(sentence);
    let s = s.trim_start_matches(|c: char| !c.is_alphanumeric());
    let r = rules();
    if has_refusal_phrase(s) {
        return Some("refusal");
    }
    if r.framing.iter().any(|p| starts_with_phrase(s, p)) {
        return Some("framing: about the answer or the source, not the world");
    }
    if says_source_is_silent(&spelt_out(s)) {
        return Some("refusal");
    }
    if r.non_claim.iter().any(|p| starts_with_phrase(s, p)) {
        return Some("not a claim: manners");
    }
    let t = sentence.trim();
    if (t.starts_with('[') && t.ends_with(']')) || (t.starts_with('(') && t.ends_with(')')) {
        return Some("citation: not a claim");
    }
    // "He resigned." and "Sales doubled." are claims; one word is not
    if s.split_whitespace().count() < 2 {
        return Some("not a claim: one word");
    }
    if s.trim_end().ends_with(':') {
        return Some("lead-in: it introduces what follows");
    }
    None
}

/// `sentence` without a note opening ("Note: The passage does not mention X" -> "The passage
/// does not mention X"), so the framing rules see it.
fn strip_note(sentence: &str) -> String {
    let s = lower(sentence);
    for p in &rules().note_prefixes {
        if starts_with_phrase(&s, p) || (p.ends_with(':') && s.starts_with(p.as_str())) {
            let rest = sentence.get(p.len()..).unwrap_or("").trim_start();
            return capitalised(rest);
        }
    }
    sentence.to_string()
}

/// The claim inside a wrapper about the source ("The passage states that profit fell by half"
/// -> "Profit fell by half"), or the sentence as it is.
fn unwrap_source(sentence: &str) -> String {
    // one apostrophe, so the lower-cased text and the sentence share their byte offsets
    let sentence = &sentence.replace(['’', '‘'], "'");
    let s = lower(sentence);
    let r = rules();
    // the listed sources, and any source of the answer ("The leaflet says that ...")
    let lengths = r
        .wrapper_sources
        .iter()
        .filter(|src| starts_with_phrase(&s, src))
        .map(|src| (src.len(), src == "it"))
        .chain(source_at(&s).map(|n| (n, false)));
    for (src_len, is_it) in lengths {
        let after = s[src_len..].trim_start();
        let skipped = s.len() - after.len();
        // "It's noted that": the verb list spells the contraction with its apostrophe
        let (after, skipped) = match after.strip_prefix('\'') {
            Some(a) if is_it => (a, skipped + 1),
            _ => (after, skipped),
        };
        for v in &r.wrapper_verbs {
            let v_trim = v.trim_start_matches('\'');
            if starts_with_phrase(after, v_trim) || starts_with_phrase(after, v) {
                let used = if starts_with_phrase(after, v) {
                    v.len()
                } else {
                    v_trim.len()
                };
                let rest = sentence.get(skipped + used..).unwrap_or("").trim_start();
                if rest.split_whitespace().count() >= 2 {
                    return capitalised(rest);
                }
            }
        }
    }
    sentence.to_string()
}

/// The sentence without a framing opening ("Based on the provided text, refunds take..." ->
/// "Refunds take..."), capitalised again.
fn strip_framing(sentence: &str) -> String {
    // one apostrophe, so the lower-cased text and the sentence share their byte offsets
    let sentence = &sentence.replace(['’', '‘'], "'");
    let s = lower(sentence);
    for p in &rules().framing_prefixes {
        if s.starts_with(p.as_str()) && s.is_char_boundary(p.len()) {
            return strip_framing(&capitalised(sentence[p.len()..].trim_start()));
        }
    }
    if let Some(at) = framing_opener_end(&s).or_else(|| opening_end(&s)) {
        let rest = sentence.get(at..).unwrap_or("").trim_start();
        if rest.split_whitespace().count() >= 2 {
            return strip_framing(&capitalised(rest));
        }
    }
    // a lead-in on the claim's own line ("Here is what the help center says: Team plans
    // are...") frames it: the part after the colon is the claim
    if let Some(at) = sentence.find(": ") {
        let head = lower(&sentence[..at]);
        let rest = sentence[at + 2..].trim_start();
        if head.split_whitespace().count() <= 10
            && rest.split_whitespace().count() >= 3
            && rules()
                .vacuous_lead_ins
                .iter()
                .any(|v| starts_with_phrase(&head, v))
        {
            return capitalised(rest);
        }
    }
    sentence.to_string()
}

/// Where the claim starts after "<opener> <source>," ("According to the document, ...", "Based
/// on the leaflet you sent, ..."), in `s` (lower case).
fn framing_opener_end(s: &str) -> Option<usize> {
    let r = rules();
    let opener = r
        .framing_openers
        .iter()
        .find(|o| starts_with_phrase(s, o))?;
    let after = &s[opener.len()..];
    let src_start = opener.len() + after.len() - after.trim_start().len();
    let src = source_at(&s[src_start..])?;
    // a few words may follow the source ("the document you shared") before the comma
    let tail = &s[src_start + src..];
    let comma = tail.find([',', ':'])?;
    (tail[..comma].split_whitespace().count() <= 4).then_some(src_start + src + comma + 1)
}

/// Where the claim starts after an opening word that asserts nothing ("Unfortunately,", "No,",
/// "Yes:"), in `s` (lower case).
fn opening_end(s: &str) -> Option<usize> {
    rules().openings.iter().find_map(|o| {
        let rest = s.strip_prefix(o.as_str())?;
        let sep = [",", ":", ";", " -", " —", " –"]
            .iter()
            .find(|p| rest.starts_with(*p))?;
        Some(o.len() + sep.len())
    })
}

/// Separators between an opening and the claim after it, and between a claim and a clause after
/// it: (separator, whether it may end an opening only).
const CLAUSE_SEPARATORS: [(&str, bool); 9] = [
    (", but ", false),
    ("; ", false),
    (" but ", false),
    (" — ", false),
    (" – ", false),
    (" - ", false),
    (", however, ", false),
    (": ", true),
    (", ", true),
];

/// What a sentence that is not a claim as a whole still claims: after an opening that asserts
/// nothing ("Sorry, but X", "Thanks for asking: X", "I don't know Y, but X", "The passage does
/// not mention Y; X"), or before a clause that asserts nothing ("X, but I don't know Y"). Returns
/// the claim, if any, and the parts left out with their reasons; a claim keeps a framing clause
/// after it out too ("X; the passage does not mention Y").
fn peel(sentence: &str) -> (Option<String>, Vec<(String, String)>) {
    let whole = not_a_claim(sentence);
    let claim_like = |t: &str| t.split_whitespace().count() >= 2 && not_a_claim(t).is_none();
    for (at, _) in sentence.char_indices() {
        let Some((sep, opening_only)) = CLAUSE_SEPARATORS
            .iter()
            .find(|(p, _)| sentence[at..].starts_with(p))
        else {
            continue;
        };
        let head = sentence[..at].trim();
        let rest = sentence[at + sep.len()..].trim();
        if head.is_empty() || rest.is_empty() {
            continue;
        }
        let head_why = not_a_claim(head).filter(|w| !w.starts_with("lead-in"));
        // an opening: manners, a refusal or framing, then the claim
        if let Some(why) = head_why {
            if !why.ends_with("one word") && head.split_whitespace().count() <= 12 {
                let rest = unwrap_source(&strip_framing(&capitalised(rest)));
                let (claim, mut dropped) = peel(&rest);
                dropped.insert(0, (head.to_string(), why.to_string()));
                if claim.is_some() || whole.is_some() {
                    return (claim, dropped);
                }
            }
            continue;
        }
        // a claim, then a clause that asserts nothing
        if !opening_only && claim_like(head) {
            if let Some(why) = not_a_claim(rest).filter(|w| !w.ends_with("one word")) {
                let claim = format!("{}.", head.trim_end_matches([',', ';', ':']));
                return (Some(claim), vec![(rest.to_string(), why.to_string())]);
            }
        }
    }
    match whole {
        Some(why) => (None, vec![(sentence.to_string(), why.to_string())]),
        None => (Some(sentence.to_string()), Vec::new()),
    }
}

/// The sentence without inline list markers ("pay 1) by card, 2) by transfer" -> "pay by card, by
/// transfer"): a marker's number is no quantity of the claim.
fn strip_inline_markers(sentence: &str) -> String {
    let words: Vec<&str> = sentence.split(' ').collect();
    let is_marker = |w: &str| {
        let digits = w.trim_start_matches('(').trim_end_matches(')');
        w.ends_with(')')
            && (1..=2).contains(&digits.len())
            && digits.chars().all(|c| c.is_ascii_digit())
    };
    let markers = words.iter().filter(|w| is_marker(w)).count();
    // "(see 2)" closes a bracket it opened; markers come in runs of two or more
    if markers < 2 {
        return sentence.to_string();
    }
    let kept: Vec<&str> = words
        .iter()
        .enumerate()
        .filter(|(i, w)| {
            !(is_marker(w) && (w.starts_with('(') || !sentence_has_open_bracket(&words[..*i])))
        })
        .map(|(_, w)| *w)
        .collect();
    kept.join(" ")
}

fn sentence_has_open_bracket(words: &[&str]) -> bool {
    let text = words.join(" ");
    text.matches('(').count() > text.matches(')').count()
}

/// What a lead-in gives the list items under it.
#[derive(Debug, Clone, PartialEq)]
enum Lead {
    /// "Notable items include:": the item follows the lead-in ("Notable items include a
    /// diorama.").
    Subject(String),
    /// "The following features are not included in the Team plan:": the item is the subject of
    /// the predicate ("Audit logs are not included in the Team plan.").
    Predicate(String),
    /// A lead-in that negates and fits neither form ("Features we do not offer:"): the item keeps
    /// it in front ("Features we do not offer: audit logs."), never bare.
    Negated(String),
}

/// True when `s` (lower case) negates.
fn negates(s: &str) -> bool {
    spelt_out(s).split_whitespace().any(|w| {
        matches!(
            w,
            "not" | "no" | "never" | "cannot" | "without" | "none" | "nor" | "excluded" | "except"
        )
    })
}

/// What the lead-in `s` (ending with ":") gives its list items, if anything.
fn lead_of(s: &str) -> Option<Lead> {
    let r = rules();
    let text = s.trim_end().trim_end_matches(':').trim_end();
    let l = lower(text);
    let words: Vec<&str> = l.split_whitespace().collect();
    // "The following features are not included in the Team plan:", "These are not covered:",
    // "Not included:"
    let be = ["is", "are", "was", "were"];
    let predicate_from = if l.starts_with("the following") || l.starts_with("these") {
        words.iter().position(|w| be.contains(w)).map(|i| i + 1)
    } else if words.first() == Some(&"not") {
        Some(0)
    } else {
        None
    };
    if let Some(from) = predicate_from.filter(|&f| f < words.len()) {
        // the predicate as written, from the word after the verb
        let original: Vec<&str> = text.split_whitespace().collect();
        let p = original[from..].join(" ");
        // "Not included:" -> "... is not included."
        let p = if from == 0 {
            lower(&p[..1]) + &p[1..]
        } else {
            p
        };
        return Some(Lead::Predicate(p));
    }
    // "The Team plan does not include the following features:" -> "The Team plan does not include"
    let mut text = text.to_string();
    for tail in [
        " the following",
        " these",
        " the following items",
        " the following features",
    ] {
        if let Some(at) = lower(&text).rfind(tail) {
            let after = lower(&text[at + tail.len()..]);
            if after.split_whitespace().count() <= 1 {
                text.truncate(at);
            }
        }
    }
    let l = lower(&text);
    let verb = l.split_whitespace().last().unwrap_or("");
    if r.lead_in_verbs.iter().any(|v| v == verb)
        && !r.vacuous_lead_ins.iter().any(|v| starts_with_phrase(&l, v))
    {
        return Some(Lead::Subject(text));
    }
    negates(&l).then(|| Lead::Negated(s.trim_end().trim_end_matches(':').to_string()))
}

impl Lead {
    /// The claim a list item under this lead-in makes, if it makes one with it.
    fn claim(&self, item: &str) -> Option<String> {
        let item = item.trim().trim_end_matches(['.', ';', ',']);
        // an item of a sentence's length is a claim of its own, unless the lead-in negates it
        let long = item.split_whitespace().count() > 12;
        let first = item.split_whitespace().next().unwrap_or("");
        // "A diorama" -> "a diorama", but a name keeps its capital
        let lowered = if first.chars().skip(1).all(char::is_lowercase)
            && [
                "a", "an", "the", "one", "two", "three", "some", "several", "many",
            ]
            .contains(&first.to_lowercase().as_str())
        {
            let mut c = item.chars();
            c.next()
                .map(|f| f.to_lowercase().collect::<String>() + c.as_str())
                .unwrap_or_default()
        } else {
            item.to_string()
        };
        match self {
            Lead::Subject(l) if !long => Some(format!("{l} {lowered}.")),
            Lead::Subject(_) => None,
            Lead::Predicate(p) => {
                let last = lower(item.split_whitespace().last().unwrap_or(""));
                let plural =
                    (last.ends_with('s') && !last.ends_with("ss")) || item.contains(" and ");
                let be = if plural { "are" } else { "is" };
                Some(format!("{} {be} {p}.", capitalised(item)))
            }
            Lead::Negated(l) => Some(format!("{l}: {lowered}.")),
        }
    }
}

/// An answer split into claims, with the sentences left out and why.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Decomposition {
    pub claims: Vec<String>,
    /// (sentence, reason)
    pub dropped: Vec<(String, String)>,
}

/// True when `sentence` (a slice of `answer`) starts a list item: its line opens with a marker.
fn list_item(answer: &str, sentence: &str) -> bool {
    let base = answer.as_ptr() as usize;
    let at = (sentence.as_ptr() as usize).wrapping_sub(base);
    if at > answer.len() {
        return false;
    }
    let line_start = answer[..at].rfind('\n').map_or(0, |i| i + 1);
    let head = answer[line_start..at].trim();
    !head.is_empty()
        && (["-", "*", "•", "–", "+"].contains(&head)
            || head
                .trim_end_matches(['.', ')'])
                .chars()
                .all(|c| c.is_ascii_digit())
                && head.len() <= 4)
}

/// The built-in sentence splitter.
pub struct Sentences;

impl Decomposer for Sentences {
    fn name(&self) -> &str {
        "sentences"
    }

    fn describe(&self) -> String {
        "sentences (built in: one claim per sentence; manners, framing and refusals dropped)".into()
    }

    fn decompose(&self, question: &str, answer: &str) -> Result<Vec<String>, String> {
        Ok(self.decompose_explained(question, answer)?.claims)
    }

    fn decompose_explained(&self, _question: &str, answer: &str) -> Result<Decomposition, String> {
        let mut d = Decomposition::default();
        let r = rules();
        let sentences = split_sentences(answer);
        // the lead-in ("Notable items include:") whose subject the list items under it take
        let mut lead: Option<Lead> = None;
        for (n, raw) in sentences.iter().enumerate() {
            let s = raw.trim().to_string();
            // a trailing citation like "[p-2071, p-2072]" is not part of the claim
            let s = match s.rfind(" [") {
                Some(i) if s.ends_with(']') => s[..i].trim_end().to_string(),
                _ => s,
            };
            // a cut-off last sentence ("Despite retiring from") is not a claim
            let last_word = lower(&s)
                .split_whitespace()
                .last()
                .unwrap_or("")
                .trim_matches(|c: char| !c.is_alphanumeric())
                .to_string();
            if n + 1 == sentences.len()
                && !s.ends_with(['.', '!', '?', '…', '"', '\'', '”', ')', ']', ':'])
                && r.truncation_words.contains(&last_word)
            {
                d.dropped
                    .push((s, "truncated: the answer stops mid-sentence".into()));
                continue;
            }
            let is_item = list_item(answer, raw);
            let s = strip_inline_markers(&unwrap_source(&strip_framing(&strip_note(&s))));
            if s.trim_end().ends_with(':') {
                // "Here is a summary:" is framing first, a lead-in second
                let framing = not_a_claim(&s).filter(|w| !w.starts_with("lead-in"));
                lead = lead_of(&s);
                let why = framing.unwrap_or("lead-in: it introduces what follows");
                d.dropped.push((s, why.into()));
                continue;
            }
            // a list item under a lead-in takes its subject, predicate and polarity
            let s = match (&lead, is_item) {
                (Some(l), true) => l.claim(&s).unwrap_or(s),
                (_, false) => {
                    lead = None;
                    s
                }
                _ => s,
            };
            let (claim, dropped) = peel(&s);
            d.dropped.extend(dropped);
            d.claims.extend(claim);
        }
        Ok(d)
    }
}

/// One call per answer to an LLM.
pub struct LlmDecomposer {
    name: String,
    client: LlmClient,
}

impl LlmDecomposer {
    pub fn new(name: &str, client: LlmClient) -> Self {
        LlmDecomposer {
            name: name.to_string(),
            client,
        }
    }
}

/// A decomposer reply: a JSON list of non-empty strings, or `{"claims": [...]}`.
pub fn parse_claims(reply: &str) -> Result<Vec<String>, String> {
    let items = extract_json(reply)?;
    items
        .iter()
        .enumerate()
        .map(|(i, v)| match v.as_str().map(str::trim) {
            Some(s) if !s.is_empty() => Ok(s.to_string()),
            _ => Err(format!("claim {} is not a non-empty string", i + 1)),
        })
        .collect()
}

impl Decomposer for LlmDecomposer {
    fn name(&self) -> &str {
        &self.name
    }

    fn describe(&self) -> String {
        format!("llm (prompt version {})", self.client.prompt_version())
    }

    fn notes(&self) -> Vec<String> {
        let u = self.client.usage();
        vec![format!(
            "decomposer {}: {} calls ({} retries), {} prompt + {} completion tokens, {:.1} s of requests; {}",
            self.name,
            u.calls,
            u.retries,
            u.prompt_tokens,
            u.completion_tokens,
            u.millis as f64 / 1000.0,
            self.client.cost_note()
        )]
    }

    fn decompose(&self, question: &str, answer: &str) -> Result<Vec<String>, String> {
        let prompt = self
            .client
            .fill(&[("question", question), ("answer", answer)]);
        self.client
            .complete(&prompt, &parse_claims)
            .map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 24's answers, as a person would extract their claims: (answer, claims, dropped
    /// sentences with a word of their reason).
    #[test]
    fn real_answers_give_the_claims_a_person_would_extract() {
        type Case<'a> = (&'a str, &'a [&'a str], &'a [(&'a str, &'a str)]);
        let cases: &[Case] = &[
            (
                "Here is what the help center says: Team plans are billed monthly at €12 per user.",
                &["Team plans are billed monthly at €12 per user."],
                &[],
            ),
            (
                "The passage says: refunds take 14 days. The ranger said: \"Stay in the car.\"",
                &["Refunds take 14 days.", "The ranger said: \"Stay in the car.\""],
                &[],
            ),
            (
                "Kansas Gov. Sam Brownback signed the bill on Friday.",
                &["Kansas Gov. Sam Brownback signed the bill on Friday."],
                &[],
            ),
            (
                "The ranger said: \"If you see the tiger, it's too late. You're food.\" Visitors were told to stay in their cars.",
                &[
                    "The ranger said: \"If you see the tiger, it's too late. You're food.\"",
                    "Visitors were told to stay in their cars.",
                ],
                &[],
            ),
            (
                "The meeting ended at 4 p.m. The board then voted to close the branch.",
                &["The meeting ended at 4 p.m.", "The board then voted to close the branch."],
                &[],
            ),
            (
                "He lost to Chris Eubank Jr. Chris Eubank competed at middleweight for a decade.",
                &["He lost to Chris Eubank Jr.", "Chris Eubank competed at middleweight for a decade."],
                &[],
            ),
            (
                "He resigned. Sales doubled. Yes.",
                &["He resigned.", "Sales doubled."],
                &[("Yes.", "one word")],
            ),
            (
                "Here is a summary:\nKey points include:\n- Revenue rose 17 per cent to $ 160 million.\n- The CEO, Anna Weiss, will step down in March.",
                &[
                    "Revenue rose 17 per cent to $ 160 million.",
                    "The CEO, Anna Weiss, will step down in March.",
                ],
                &[("Here is a summary:", "framing"), ("Key points include:", "lead-in")],
            ),
            (
                "Notable items include:\n1. A diorama of Agincourt\n2. Letters from Winston Churchill",
                &[
                    "Notable items include a diorama of Agincourt.",
                    "Notable items include Letters from Winston Churchill.",
                ],
                &[("Notable items include:", "lead-in")],
            ),
            (
                "As of February 22, 2020:\n- The outbreak had spread to 26 countries.\n- However, if I were to extract a summary, it would be:",
                &["The outbreak had spread to 26 countries."],
                &[
                    ("As of February 22, 2020:", "lead-in"),
                    ("However, if I were to extract a summary, it would be:", "lead-in"),
                ],
            ),
            (
                "The passage states that profit fell by half. It's noted that the chief executive left in May. According to the article, shares fell 6%.",
                &[
                    "Profit fell by half.",
                    "The chief executive left in May.",
                    "Shares fell 6%.",
                ],
                &[],
            ),
            (
                "Morton beat Alloa 2-1. Note: The passage does not mention the attendance.",
                &["Morton beat Alloa 2-1."],
                &[("The passage does not mention the attendance.", "framing")],
            ),
            (
                "Beckford scored twice for the visitors. Despite retiring from",
                &["Beckford scored twice for the visitors."],
                &[("Despite retiring from", "truncated")],
            ),
        ];
        for (answer, claims, dropped) in cases {
            let d = Sentences.decompose_explained("", answer).unwrap();
            assert_eq!(d.claims, *claims, "{answer:?}: dropped {:?}", d.dropped);
            for (sentence, why) in *dropped {
                assert!(
                    d.dropped
                        .iter()
                        .any(|(s, w)| s == sentence && w.contains(why)),
                    "{answer:?}: {sentence:?} ({why}) not in {:?}",
                    d.dropped
                );
            }
        }
    }

    #[test]
    fn non_claims_are_dropped_and_conditionals_kept_whole() {
        let c = Sentences
            .decompose(
                "",
                "We're so sorry your blender arrived damaged. If the item arrived damaged, you're eligible for a full refund. Let me know if that helps!",
            )
            .unwrap();
        assert_eq!(
            c,
            vec!["If the item arrived damaged, you're eligible for a full refund."]
        );
    }

    #[test]
    fn refusals_are_recognised() {
        assert!(is_refusal("I can't find that in the help center."));
        assert!(!is_refusal("Team plans are billed monthly."));
    }

    #[test]
    fn decomposer_replies_are_validated() {
        assert_eq!(
            parse_claims("{\"claims\": [\"A.\", \"B.\"]}").unwrap(),
            vec!["A.", "B."]
        );
        assert!(parse_claims("[\"A.\", \"\"]").is_err());
        assert!(parse_claims("[\"A.\",]").is_err());
    }

    #[test]
    fn the_shipped_rules_parse_and_framing_openings_are_stripped() {
        assert!(!rules().framing.is_empty() && !rules().refusals.is_empty());
        assert_eq!(
            strip_framing("Based on the provided text, refunds take 14 days."),
            "Refunds take 14 days."
        );
        assert_eq!(
            strip_framing("Refunds take 14 days."),
            "Refunds take 14 days."
        );
        assert_eq!(
            not_a_claim("Here’s a concise summary of the article:"),
            Some("framing: about the answer or the source, not the world")
        );
        assert_eq!(not_a_claim("Refunds take 14 days."), None);
    }

    /// Round 3's answers: a claim behind manners, a refusal or framing is kept and only what
    /// asserts nothing is dropped; list items take their lead-in's subject and polarity; wrappers
    /// about any source are unwrapped; inline list markers are no numbers.
    #[test]
    #[allow(clippy::too_many_lines)] // one table of round-3 answers and the claims each keeps
    fn a_claim_behind_an_opening_is_kept_and_only_what_asserts_nothing_is_dropped() {
        type Case<'a> = (&'a str, &'a [&'a str], &'a [(&'a str, &'a str)]);
        let cases: &[Case] = &[
            (
                "Sorry, but the Team plan does not include single sign-on.",
                &["The Team plan does not include single sign-on."],
                &[("Sorry", "manners")],
            ),
            (
                "Thanks for asking: refunds take 14 days to reach your card.",
                &["Refunds take 14 days to reach your card."],
                &[("Thanks for asking", "manners")],
            ),
            (
                "I'm sorry for the confusion, but the museum opened in 1998.",
                &["The museum opened in 1998."],
                &[("I'm sorry for the confusion", "manners")],
            ),
            (
                "I don’t know the exact opening date, but the museum has 40 rooms.",
                &["The museum has 40 rooms."],
                &[("I don't know the exact opening date", "refusal")],
            ),
            (
                "Unfortunately, the passage does not mention the price; the Team plan includes 50 GB of storage.",
                &["The Team plan includes 50 GB of storage."],
                &[("The passage does not mention the price", "framing")],
            ),
            (
                "The Team plan costs €12 per user, but I don't have information about discounts.",
                &["The Team plan costs €12 per user."],
                &[("I don't have information about discounts.", "refusal")],
            ),
            (
                "Hi Sam, thanks for reaching out. Refunds are issued within 14 days. Let me know if that helps!",
                &["Refunds are issued within 14 days."],
                &[("Let me know if that helps!", "manners")],
            ),
            (
                "No, refunds are not issued after 14 days.",
                &["Refunds are not issued after 14 days."],
                &[],
            ),
            (
                "Yes - the Team plan includes 50 GB of storage per user.",
                &["The Team plan includes 50 GB of storage per user."],
                &[],
            ),
            (
                "According to the document, refunds take 14 days. Based on the leaflet you sent, parking is free. The leaflet says that the museum opens at 9 a.m.",
                &["Refunds take 14 days.", "Parking is free.", "The museum opens at 9 a.m."],
                &[],
            ),
            (
                "According to the police, the driver was not injured.",
                &["According to the police, the driver was not injured."],
                &[],
            ),
            (
                "You can pay in two ways: 1) by card or 2) by bank transfer.",
                &["You can pay in two ways: by card or by bank transfer."],
                &[],
            ),
            (
                "The fee (see note 2) is waived for students.",
                &["The fee (see note 2) is waived for students."],
                &[],
            ),
            (
                "The following features are not included in the Team plan:\n- Single sign-on\n- Audit logs",
                &[
                    "Single sign-on is not included in the Team plan.",
                    "Audit logs are not included in the Team plan.",
                ],
                &[("The following features are not included in the Team plan:", "lead-in")],
            ),
            (
                "The Team plan does not include the following:\n- Single sign-on\n- Priority support",
                &[
                    "The Team plan does not include Single sign-on.",
                    "The Team plan does not include Priority support.",
                ],
                &[],
            ),
            (
                "Features we do not offer on the Team plan:\n* single sign-on\n* audit logs",
                &[
                    "Features we do not offer on the Team plan: single sign-on.",
                    "Features we do not offer on the Team plan: audit logs.",
                ],
                &[],
            ),
            (
                "Not included:\n1. Single sign-on",
                &["Single sign-on is not included."],
                &[],
            ),
        ];
        for (answer, claims, dropped) in cases {
            let d = Sentences.decompose_explained("", answer).unwrap();
            assert_eq!(d.claims, *claims, "{answer:?}: dropped {:?}", d.dropped);
            for (sentence, why) in *dropped {
                assert!(
                    d.dropped
                        .iter()
                        .any(|(s, w)| s == sentence && w.contains(why)),
                    "{answer:?}: {sentence:?} ({why}) not in {:?}",
                    d.dropped
                );
            }
        }
    }

    #[test]
    fn refusals_are_recognised_in_every_spelling() {
        for refusal in [
            "I do not have enough information to answer that question.",
            "I don't have enough information to answer that question.",
            "I don’t have enough information to answer that.",
            "I'm afraid I cannot answer that from the passages provided.",
            "The passage does not mention the price.",
            "The provided documents don't specify a date.",
            "The leaflet doesn't say.",
            "I am not able to answer this based on the context.",
        ] {
            assert!(is_refusal(refusal), "{refusal}");
            assert!(
                Sentences.decompose("", refusal).unwrap().is_empty(),
                "{refusal}"
            );
        }
        for claim in [
            "Refunds are issued within 14 days.",
            "The wifi cannot find printers on the guest network.",
            "The report does not include figures for 2019, the company said.",
        ] {
            assert!(!is_refusal(claim), "{claim}");
        }
    }
}
