//! A draft suite from logged answers (`faithprobe suite from-log`): each answer's passages become
//! a context (or the shared context it cites), its claims become *pending* claims a person
//! verifies in `faithprobe review`. Claims can be sampled by a stable seed and spread over a
//! key of the log; an existing suite can be extended, keeping every byte of it.

use crate::answers::decompose::Decomposer;
use crate::answers::LoggedAnswer;
use crate::error::{Error, Result};
use std::collections::{BTreeMap, HashSet};
use std::path::Path;

/// What to take from the log.
#[derive(Debug, Clone, Default)]
pub struct FromLogOptions {
    /// At most this many claims (all when None), chosen by `seed`.
    pub sample: Option<usize>,
    pub seed: u64,
    /// Spread the sample over the values of this key (`tag`, `question`, `context` or a key of
    /// the log): each value in turn.
    pub stratify_by: Option<String>,
    /// The suite's name (for a new suite).
    pub name: String,
}

/// One claim taken from the log.
#[derive(Debug, Clone, PartialEq)]
pub struct Taken {
    pub context: String,
    pub id: String,
    pub claim: String,
    pub answer: String,
    pub tag: Option<String>,
    pub stratum: String,
}

/// What the build did, for the summary line.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Built {
    pub answers: usize,
    pub claims_found: usize,
    pub taken: usize,
    /// Answers the decomposer failed on (their error), and answers with no claim.
    pub failed: Vec<(String, String)>,
    pub without_claims: usize,
    /// Claims already in the suite (same answer and text), left out.
    pub already: usize,
    /// Answers left out because they have no passage text (nothing to verify a claim against).
    pub without_passages: Vec<String>,
    pub contexts: usize,
}

/// The value of `key` for an answer: its tag, question or context, or a key of the log.
pub fn key_of(a: &LoggedAnswer, key: &str) -> Option<String> {
    match key {
        "id" => Some(a.id.clone()),
        "tag" => a.tag.clone(),
        "question" => (!a.question.is_empty()).then(|| a.question.clone()),
        "context" => a.context.clone(),
        k => a.metadata.get(k).map(|v| match v {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        }),
    }
}

/// A stable pseudo-random rank of `id` under `seed` (FNV-1a then SplitMix64): the same seed
/// picks the same claims on every machine.
fn rank(seed: u64, id: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ seed;
    for b in id.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    let mut z = h.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The id of the `n`th claim of answer `answer`, `ANSWER-N` (with `+` added until no claim of
/// `used` has it), taken into `used`.
pub fn claim_id(used: &mut HashSet<String>, answer: &str, n: usize) -> String {
    let mut id = format!("{answer}-{}", n + 1);
    while used.contains(&id) {
        id.push('+');
    }
    used.insert(id.clone());
    id
}

/// The claims of every answer, decomposed, with ids `ANSWER-N` (made unique against `used`).
pub fn claims_of(
    answers: &[LoggedAnswer],
    decomposer: &dyn Decomposer,
    opts: &FromLogOptions,
    used: &mut HashSet<String>,
    built: &mut Built,
) -> Vec<Taken> {
    let mut out = Vec::new();
    for a in answers {
        built.answers += 1;
        if a.passages
            .iter()
            .all(|p| crate::text::words::is_blank(&p.text))
        {
            built.without_passages.push(a.id.clone());
            continue;
        }
        let claims = match decomposer.decompose(&a.question, &a.answer) {
            Ok(c) => c,
            Err(e) => {
                built.failed.push((a.id.clone(), e));
                continue;
            }
        };
        if claims.is_empty() {
            built.without_claims += 1;
        }
        let context = a
            .context
            .clone()
            .unwrap_or_else(|| format!("answer-{}", a.id));
        let stratum = opts
            .stratify_by
            .as_deref()
            .and_then(|k| key_of(a, k))
            .unwrap_or_default();
        for (n, claim) in claims.into_iter().enumerate() {
            built.claims_found += 1;
            let id = claim_id(used, &a.id, n);
            out.push(Taken {
                context: context.clone(),
                id,
                claim,
                answer: a.id.clone(),
                tag: a.tag.clone(),
                stratum: stratum.clone(),
            });
        }
    }
    out
}

/// The claims to keep: all, or `sample` of them by the seed's rank, taking each stratum in turn
/// (so a sample spreads over the key's values), then back in log order.
pub fn sample(mut taken: Vec<Taken>, opts: &FromLogOptions) -> Vec<Taken> {
    let Some(n) = opts.sample.filter(|n| *n < taken.len()) else {
        return taken;
    };
    let order: BTreeMap<String, usize> = taken
        .iter()
        .enumerate()
        .map(|(i, t)| (t.id.clone(), i))
        .collect();
    let mut strata: BTreeMap<String, Vec<Taken>> = BTreeMap::new();
    for t in taken.drain(..) {
        strata.entry(t.stratum.clone()).or_default().push(t);
    }
    for v in strata.values_mut() {
        v.sort_by_key(|t| std::cmp::Reverse(rank(opts.seed, &t.id)));
    }
    let mut picked = Vec::new();
    while picked.len() < n {
        let mut any = false;
        for v in strata.values_mut() {
            if picked.len() < n {
                if let Some(t) = v.pop() {
                    picked.push(t);
                    any = true;
                }
            }
        }
        if !any {
            break;
        }
    }
    picked.sort_by_key(|t| order[&t.id]);
    picked
}

/// A text as a YAML double-quoted scalar (JSON's escaping is YAML's).
fn q(s: &str) -> String {
    serde_json::to_string(s).expect("a string serialises")
}

/// The context sets the claims need, rendered as YAML list items at `indent`: each answer's
/// passages once per context id, then its pending claims.
pub fn render_contexts(
    taken: &[Taken],
    answers: &[LoggedAnswer],
    indent: &str,
    skip_contexts: &HashSet<String>,
) -> (String, usize) {
    // each context's claims in order of first appearance, and each answer by id: one pass each
    let by_answer: std::collections::HashMap<&str, &LoggedAnswer> =
        answers.iter().map(|a| (a.id.as_str(), a)).collect();
    let mut order: Vec<&str> = Vec::new();
    let mut claims: std::collections::HashMap<&str, Vec<&Taken>> = Default::default();
    for t in taken {
        let list = claims.entry(t.context.as_str()).or_default();
        if list.is_empty() {
            order.push(&t.context);
        }
        list.push(t);
    }
    let mut o = String::new();
    let mut n = 0;
    for ctx in order {
        let these = &claims[ctx];
        let answer = by_answer[these[0].answer.as_str()];
        let mut id = ctx.to_string();
        while skip_contexts.contains(&id) {
            id.push('+');
        }
        n += 1;
        o.push_str(&format!("{indent}- id: {}\n", q(&id)));
        if !answer.question.is_empty() {
            o.push_str(&format!("{indent}  question: {}\n", q(&answer.question)));
        }
        o.push_str(&format!("{indent}  passages:\n"));
        for p in answer.passages.iter() {
            o.push_str(&format!(
                "{indent}    - {{id: {}, text: {}}}\n",
                q(&p.id),
                q(&p.text)
            ));
        }
        o.push_str(&format!("{indent}  pending:\n"));
        for t in these {
            o.push_str(&format!(
                "{indent}    - {{id: {}, claim: {}, answer: {}{}}}\n",
                q(&t.id),
                q(&t.claim),
                q(&t.answer),
                t.tag
                    .as_deref()
                    .map(|g| format!(", tag: {}", q(g)))
                    .unwrap_or_default()
            ));
        }
    }
    (o, n)
}

/// A new suite's text.
pub fn new_suite(name: &str, log: &Path, contexts: &str) -> String {
    format!(
        "# A draft suite from {}: every claim is pending until a person verifies it\n# (faithprobe review SUITE, or review SUITE --set ID=supported|contradicted|not_found|borderline|not_a_claim).\nsuite: {}\ndescription: {}\ncontexts:\n{contexts}",
        log.display(),
        q(name),
        q(&format!("Claims from the answers logged in {}", log.display())),
    )
}

/// `text` (an existing suite) with `contexts` (rendered items) added at the head of its
/// `contexts:` list, every other byte kept; the indent of its list items, to render with.
pub fn list_indent(text: &str, path: &Path) -> Result<(usize, String)> {
    let mut offset = 0;
    let mut lines = text.split_inclusive('\n').peekable();
    while let Some(line) = lines.next() {
        offset += line.len();
        if line.trim_end() == "contexts:" {
            let indent = lines
                .find(|l| {
                    let t = l.trim_start();
                    !t.is_empty() && !t.starts_with('#')
                })
                .map(|l| {
                    let spaces = l.len() - l.trim_start().len();
                    l[..spaces].to_string()
                })
                .unwrap_or_else(|| "  ".into());
            return Ok((offset, indent));
        }
    }
    Err(Error::input(
        path,
        None,
        "--append needs a `contexts:` line at the top level of the suite (a block list), to add context sets under",
        "write the suite's contexts as a block list (`contexts:` on its own line), or build a new suite with another --out",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn taken(id: &str, stratum: &str) -> Taken {
        Taken {
            context: "c".into(),
            id: id.into(),
            claim: "x".into(),
            answer: "a".into(),
            tag: None,
            stratum: stratum.into(),
        }
    }

    #[test]
    fn a_sample_is_stable_spread_over_strata_and_in_log_order() {
        let all: Vec<Taken> = (0..30)
            .map(|i| taken(&format!("a{i}-1"), if i < 25 { "gpt" } else { "llama" }))
            .collect();
        let opts = FromLogOptions {
            sample: Some(6),
            seed: 7,
            stratify_by: Some("tag".into()),
            name: "s".into(),
        };
        let a = sample(all.clone(), &opts);
        let b = sample(all.clone(), &opts);
        assert_eq!(a, b, "the same seed picks the same claims");
        assert_eq!(a.len(), 6);
        assert_eq!(
            a.iter().filter(|t| t.stratum == "llama").count(),
            3,
            "{a:?}"
        );
        let pos: Vec<usize> = a
            .iter()
            .map(|t| all.iter().position(|x| x.id == t.id).unwrap())
            .collect();
        assert!(pos.windows(2).all(|w| w[0] < w[1]), "log order: {pos:?}");
        let other = sample(all, &FromLogOptions { seed: 8, ..opts });
        assert_ne!(a, other, "another seed, another sample");
    }

    #[test]
    fn the_list_indent_of_a_suite_is_found_after_comments() {
        let text = "suite: s\ncontexts:\n  # the first\n    - id: c1\n";
        let (at, indent) = list_indent(text, Path::new("s.yaml")).unwrap();
        assert_eq!(&text[..at], "suite: s\ncontexts:\n");
        assert_eq!(indent, "    ");
        assert!(list_indent("suite: s\ncontexts: []\n", Path::new("s.yaml")).is_err());
    }
}
