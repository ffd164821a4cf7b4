//! Decomposers: an answer into claims.
//!
//! - `sentences` (built in, no model) splits into sentences, drops non-claims (greetings,
//!   apologies, offers to help, empathy) and keeps conditionals whole. It does not split a
//!   sentence that carries several facts: a merged claim is judged as one.
//! - `llm` makes one call per answer over the judge's OpenAI-compatible client with a prompt of
//!   its own. It sees the question and the answer, never the passages (a decomposer that sees the
//!   evidence splits along it). Its output is validated as strictly as the judge's.

use crate::check::judge::extract_json;
use crate::llm::LlmClient;
use crate::text::{capitalised, split_sentences};

/// Turns an answer into claims.
pub trait Decomposer: Send + Sync {
    fn name(&self) -> &str;
    /// Settings for reports (kind, prompt version).
    fn describe(&self) -> String;
    fn decompose(&self, question: &str, answer: &str) -> Result<Vec<String>, String>;

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
}

fn rules() -> &'static SentenceRules {
    static RULES: std::sync::LazyLock<SentenceRules> = std::sync::LazyLock::new(|| {
        serde_yaml::from_str(include_str!("../../decomposer/sentences.yaml"))
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

/// True when the answer contains a phrase that declines to answer.
pub(crate) fn is_refusal(answer: &str) -> bool {
    let a = lower(answer);
    rules().refusals.iter().any(|r| a.contains(r.as_str()))
}

/// Why a sentence is not a claim, if it is not one.
fn not_a_claim(sentence: &str) -> Option<&'static str> {
    let s = lower(sentence);
    let s = s.trim_start_matches(|c: char| !c.is_alphanumeric());
    let r = rules();
    if r.refusals.iter().any(|p| s.contains(p.as_str())) {
        return Some("refusal");
    }
    if r.framing.iter().any(|p| starts_with_phrase(s, p)) {
        return Some("framing: about the answer or the source, not the world");
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
    for src in &r.wrapper_sources {
        if !starts_with_phrase(&s, src) {
            continue;
        }
        let after = s[src.len()..].trim_start();
        let skipped = s.len() - after.len();
        // "It's noted that": the verb list spells the contraction with its apostrophe
        let (after, skipped) = match after.strip_prefix('\'') {
            Some(a) if src == "it" => (a, skipped + 1),
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
    let s = lower(sentence);
    for p in &rules().framing_prefixes {
        if s.starts_with(p.as_str()) && s.is_char_boundary(p.len()) {
            return capitalised(sentence[p.len()..].trim_start());
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
        let mut lead: Option<String> = None;
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
            let s = unwrap_source(&strip_framing(&strip_note(&s)));
            if s.trim_end().ends_with(':') {
                // "Here is a summary:" is framing first, a lead-in second
                let framing = not_a_claim(&s).filter(|w| !w.starts_with("lead-in"));
                let l = lower(s.trim_end().trim_end_matches(':'));
                let verb = l.split_whitespace().last().unwrap_or("").to_string();
                lead = (r.lead_in_verbs.contains(&verb)
                    && !r.vacuous_lead_ins.iter().any(|v| starts_with_phrase(&l, v)))
                .then(|| s.trim_end().trim_end_matches(':').trim_end().to_string());
                let why = framing.unwrap_or("lead-in: it introduces what follows");
                d.dropped.push((s, why.into()));
                continue;
            }
            // a list item under a lead-in with a subject keeps the subject
            let s = match (&lead, is_item) {
                (Some(l), true) if s.split_whitespace().count() <= 12 => {
                    let item = s.trim_end_matches(['.', ';', ',']);
                    let first = item.split_whitespace().next().unwrap_or("");
                    // "A diorama" -> "a diorama", but a name keeps its capital
                    let item = if first.chars().skip(1).all(char::is_lowercase)
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
                    format!("{l} {item}.")
                }
                (_, false) => {
                    lead = None;
                    s
                }
                _ => s,
            };
            match not_a_claim(&s) {
                Some(why) => d.dropped.push((s, why.to_string())),
                None => d.claims.push(s),
            }
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
}
