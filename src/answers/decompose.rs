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
use crate::text::split_sentences;

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
    if s.split_whitespace().count() < 3 {
        return Some("not a claim: fewer than three words");
    }
    None
}

/// The sentence without a framing opening ("Based on the provided text, refunds take..." ->
/// "Refunds take..."), capitalised again.
fn strip_framing(sentence: &str) -> String {
    let s = lower(sentence);
    for p in &rules().framing_prefixes {
        if s.starts_with(p.as_str()) && s.is_char_boundary(p.len()) {
            let rest = sentence[p.len()..].trim_start();
            let mut c = rest.chars();
            return match c.next() {
                Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
                None => String::new(),
            };
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
        for s in split_sentences(answer) {
            let s = s.trim().to_string();
            // a trailing citation like "[p-2071, p-2072]" is not part of the claim
            let s = match s.rfind(" [") {
                Some(i) if s.ends_with(']') => s[..i].trim_end().to_string(),
                _ => s,
            };
            let s = strip_framing(&s);
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
