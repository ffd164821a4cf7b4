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
}

/// Phrases that make a sentence a non-claim (lower case, matched at the start or anywhere).
const NON_CLAIM_STARTS: &[&str] = &[
    "hi",
    "hello",
    "hey",
    "thanks",
    "thank you",
    "sorry",
    "we're sorry",
    "we're so sorry",
    "i'm so sorry",
    "we are so sorry",
    "we are sorry",
    "i'm sorry",
    "i am sorry",
    "apologies",
    "we apologize",
    "we apologise",
    "i understand",
    "i completely understand",
    "great question",
    "good question",
    "happy to help",
    "glad to help",
    "let me know",
    "feel free",
    "hope this helps",
    "i hope this helps",
    "is there anything else",
    "please let me know",
    "have a great day",
];

/// Phrases that mark an answer as a refusal: it declines to answer rather than asserting facts.
const REFUSALS: &[&str] = &[
    "i can't find",
    "i cannot find",
    "i could not find",
    "i couldn't find",
    "i don't have information",
    "i do not have information",
    "i don't have enough information",
    "i'm not able to find",
    "i am not able to find",
    "i don't know",
    "i do not know",
    "not in the help center",
    "no information about",
    "unable to find",
];

/// True when the answer declines to answer.
pub fn is_refusal(answer: &str) -> bool {
    let a = answer.to_lowercase().replace('’', "'");
    REFUSALS.iter().any(|r| a.contains(r))
}

fn non_claim(sentence: &str) -> bool {
    let s = sentence.to_lowercase().replace('’', "'");
    let s = s.trim_start_matches(|c: char| !c.is_alphanumeric());
    NON_CLAIM_STARTS.iter().any(|p| {
        s.starts_with(p)
            && s[p.len()..]
                .chars()
                .next()
                .is_none_or(|c| !c.is_alphanumeric())
    }) || s.split_whitespace().count() < 3
}

/// The built-in sentence splitter.
pub struct Sentences;

impl Decomposer for Sentences {
    fn name(&self) -> &str {
        "sentences"
    }

    fn describe(&self) -> String {
        "sentences (built in: one claim per sentence, non-claims dropped)".into()
    }

    fn decompose(&self, _question: &str, answer: &str) -> Result<Vec<String>, String> {
        Ok(split_sentences(answer)
            .into_iter()
            .map(|s| s.trim().to_string())
            // a trailing citation like "[p-2071, p-2072]" is not a claim
            .map(|s| match s.rfind(" [") {
                Some(i) if s.ends_with(']') => s[..i].trim_end().to_string(),
                _ => s,
            })
            .filter(|s| !non_claim(s))
            .collect())
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
}
