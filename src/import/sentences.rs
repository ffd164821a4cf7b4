//! Sentence-labelled summaries, as QAGS ships its human judgements (github.com/W4ngatang/qags,
//! `data/mturk_cnndm.jsonl` and `data/mturk_xsum.jsonl`, read there): one JSON object per line,
//! an `article` and its summary as `summary_sentences`, a list of {`sentence`, `responses`:
//! [{`worker_id`, `response`: "yes" or "no"}]}, each response a crowd worker's answer to "is this
//! sentence supported by the article?".
//!
//! The rule that turns votes into a label (`--rule`): `majority` (the default) calls a sentence
//! supported when more than half of its votes are yes, so a tie (possible only with an even number
//! of votes; QAGS has three) is unsupported, as the definition says, and counted apart;
//! `unanimous` calls it supported only when every vote is yes. A sentence with no vote is left
//! out.
//!
//! What becomes what: the log has one answer per line (the summary's sentences joined by spaces,
//! labelled hallucinated when any sentence is unsupported, with every sentence's votes in the
//! label). The suite has one context per distinct article; a supported sentence is a verified
//! claim, an unsupported one a real error, `not_found` (the workers only said whether the article
//! supports it), type `qags_unsupported`. Ids are `<file name>-<line>` and `…-s<sentence>`.

use super::read::{self, kind, take_text};
use super::{doc_id, Built, Imported, Outputs};
use crate::error::Result;
use crate::model::case::HardCaseLabel;
use serde_json::{json, Map, Value};
use std::path::Path;

const HELP: &str = "sentence-labelled summaries as QAGS ships them (mturk_cnndm.jsonl, mturk_xsum.jsonl): one JSON object per line with `article` and `summary_sentences` ([{sentence, responses: [{worker_id, response: \"yes\"|\"no\"}]}])";

/// How votes become a label.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Rule {
    /// Supported when more than half the votes are yes (a tie is unsupported).
    #[default]
    Majority,
    /// Supported only when every vote is yes.
    Unanimous,
}

impl Rule {
    pub fn as_str(self) -> &'static str {
        match self {
            Rule::Majority => "majority",
            Rule::Unanimous => "unanimous",
        }
    }

    /// Whether `yes` of `votes` make a sentence supported (`None` with no vote).
    fn supported(self, yes: usize, votes: usize) -> Option<bool> {
        (votes > 0).then(|| match self {
            Rule::Majority => 2 * yes > votes,
            Rule::Unanimous => yes == votes,
        })
    }
}

/// One sentence with its votes.
#[derive(Debug, Clone, PartialEq)]
struct Sentence {
    text: String,
    yes: usize,
    no: usize,
}

/// One line as read.
#[derive(Debug, Clone, PartialEq)]
struct Summary {
    article: String,
    sentences: Vec<Sentence>,
    extra: Map<String, Value>,
}

/// A sentence's `responses`: the yes and no votes.
fn votes(v: Option<&Value>) -> std::result::Result<(usize, usize), String> {
    let list = match v {
        Some(Value::Array(l)) => l,
        None | Some(Value::Null) => return Ok((0, 0)),
        Some(v) => return Err(format!("`responses` must be a list, not {}", kind(v))),
    };
    let (mut yes, mut no) = (0, 0);
    // one vote per worker: a worker who answered twice counts once, with the first answer
    let mut voted: std::collections::HashSet<String> = std::collections::HashSet::new();
    for (k, r) in list.iter().enumerate() {
        if let Some(w) = r.get("worker_id").filter(|w| !w.is_null()) {
            if !voted.insert(w.to_string()) {
                continue;
            }
        }
        let answer = r.get("response").and_then(Value::as_str).unwrap_or("");
        match answer.trim().to_lowercase().as_str() {
            "yes" => yes += 1,
            "no" => no += 1,
            _ => {
                return Err(format!(
                    "response {} must have `response` \"yes\" or \"no\", not {}",
                    k + 1,
                    r.get("response").map_or("nothing".into(), Value::to_string)
                ))
            }
        }
    }
    Ok((yes, no))
}

fn summary(mut m: Map<String, Value>) -> std::result::Result<Summary, String> {
    let article = take_text(&mut m, "article")?;
    let list = match m.remove("summary_sentences") {
        Some(Value::Array(l)) => l,
        Some(v) => {
            return Err(format!(
                "`summary_sentences` must be a list, not {}",
                kind(&v)
            ))
        }
        None => return Err("`summary_sentences` is missing".into()),
    };
    let mut sentences = Vec::new();
    for (j, s) in list.iter().enumerate() {
        let at = |e: String| format!("summary sentence {}: {e}", j + 1);
        let text = match s.get("sentence") {
            Some(Value::String(t)) if !t.trim().is_empty() => t.trim().to_string(),
            _ => return Err(at("`sentence` is missing or empty".into())),
        };
        let (yes, no) = votes(s.get("responses")).map_err(at)?;
        sentences.push(Sentence { text, yes, no });
    }
    Ok(Summary {
        article,
        sentences,
        extra: m,
    })
}

/// Adds line `n` (id `id`) to what is being built under `rule`.
fn add(built: &mut Built, id: &str, s: Summary, rule: Rule) {
    let ctx = doc_id("qags", &s.article);
    let mut labels = Vec::new();
    let mut any_unsupported = false;
    if let Some(b) = &mut built.suite {
        b.context(&ctx, None, &s.article);
    }
    for (k, sen) in s.sentences.iter().enumerate() {
        let votes = sen.yes + sen.no;
        let supported = rule.supported(sen.yes, votes);
        labels.push(
            json!({"sentence": sen.text, "yes": sen.yes, "no": sen.no, "supported": supported}),
        );
        let claim_id = format!("{id}-s{}", k + 1);
        if rule == Rule::Majority && votes > 0 && 2 * sen.yes == votes {
            built.counts.ties += 1;
        }
        any_unsupported |= supported == Some(false);
        match (supported, &mut built.suite) {
            (None, _) => built.counts.left_out += 1,
            (Some(true), Some(b)) => b.verified(&ctx, &claim_id, &sen.text),
            (Some(false), Some(b)) => b.error(
                &ctx,
                &claim_id,
                &sen.text,
                "qags_unsupported",
                HardCaseLabel::NotFound,
            ),
            (_, None) => {}
        }
    }
    if let Some(l) = &mut built.log {
        l.context(&ctx, &s.article);
        let answer: Vec<&str> = s.sentences.iter().map(|x| x.text.as_str()).collect();
        let types: &[&str] = if any_unsupported {
            &["unsupported"]
        } else {
            &[]
        };
        let mut line = Map::new();
        line.insert("id".into(), json!(id));
        line.insert("question".into(), Value::Null);
        line.insert("answer".into(), json!(answer.join(" ")));
        line.insert("context".into(), json!(ctx));
        line.insert(
            "label".into(),
            json!({"hallucinated": any_unsupported, "types": types, "rule": rule.as_str(), "sentences": labels}),
        );
        super::carry(&mut line, s.extra, "qags");
        l.answer(line);
    }
}

/// Imports sentence-labelled summaries: the log and its contexts file, and the suite, as
/// `outputs` asks.
pub fn sentences(path: &Path, outputs: &Outputs, rule: Rule) -> Result<Imported> {
    let stem = super::suite_name(path, "qags");
    let mut built = Built::new(outputs, || {
        (stem.clone(), format!("Imported from sentence-labelled summaries in {} (QAGS' format), votes read with --rule {}: supported sentences are verified claims, unsupported ones real errors (not_found).", path.display(), rule.as_str()))
    });
    let records = read::json_lines(path, HELP, |n, m| {
        let s = summary(m)?;
        if s.sentences.is_empty() {
            return Err("`summary_sentences` is empty".into());
        }
        add(&mut built, &format!("{stem}-{n}"), s, rule);
        Ok(())
    })?;
    super::finish(built, outputs, (path, records, HELP))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn majority_needs_more_than_half_and_unanimous_every_vote() {
        assert_eq!(Rule::Majority.supported(2, 3), Some(true));
        assert_eq!(Rule::Majority.supported(1, 3), Some(false));
        assert_eq!(
            Rule::Majority.supported(2, 4),
            Some(false),
            "a tie is unsupported"
        );
        assert_eq!(Rule::Unanimous.supported(2, 3), Some(false));
        assert_eq!(Rule::Unanimous.supported(3, 3), Some(true));
        assert_eq!(Rule::Majority.supported(0, 0), None);
    }

    #[test]
    fn votes_are_yes_or_no_and_anything_else_is_named() {
        let v = json!([{"worker_id": 1, "response": "yes"}, {"worker_id": 2, "response": "No"}]);
        assert_eq!(votes(Some(&v)), Ok((1, 1)));
        // a worker who answered twice counts once
        let v = json!([{"worker_id": "w1", "response": "yes"}, {"worker_id": "w1", "response": "no"}, {"worker_id": "w2", "response": "yes"}]);
        assert_eq!(votes(Some(&v)), Ok((2, 0)));
        let v = json!([{"worker_id": 1, "response": "maybe"}]);
        assert_eq!(
            votes(Some(&v)).unwrap_err(),
            "response 1 must have `response` \"yes\" or \"no\", not \"maybe\""
        );
        let m: Map<String, Value> = serde_json::from_str(
            r#"{"article": "A.", "summary_sentences": [{"sentence": "", "responses": []}]}"#,
        )
        .unwrap();
        assert!(summary(m).unwrap_err().starts_with("summary sentence 1:"));
    }
}
