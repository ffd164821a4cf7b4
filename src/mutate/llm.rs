//! The LLM mutator: faults that rules cannot write (a nuanced meaning shift, a reasoning error, an
//! opinion stated as fact), asked of an OpenAI-compatible model through [`crate::io::llm`].
//!
//! Each reply is validated before it becomes a mutant: one JSON object `{"mutant": "..."}` (or
//! one bare line), a length near the claim's, different from the claim and from every sentence of
//! the passages, and one localised change (at most two runs of changed words, twelve words in
//! all, by a word diff). An invalid reply is retried like any invalid model reply; a mutator that
//! still has none is an error for the whole generation, never a claim silently without mutants.
//! Replies are cached by the SHA-256 of the model and the filled prompt, in a JSON file, so a
//! rerun makes the same mutants without the server. Its mutants start unreviewed, like every
//! mutant.
//!
//! With `examples: real_hard_cases` the prompt also shows a few of the suite's real errors, each
//! with the sentences of its passages nearest it, as the kind of error to imitate
//! ([`examples_block`]); the reply is checked the same way.

use super::{Input, Mutator, Operator, Purpose};
use crate::io::llm::LlmClient;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The faults the LLM mutator can be asked for: name, what it stands for (also the prompt's
/// `{fault_description}`), and the typologies. An operator is named `<mutator>_<fault>`
/// (`llm_reasoning_error` for a mutator named `llm`).
pub const FAULTS: &[(&str, &str, &str)] = &[
    (
        "nuanced_meaning_shift",
        "a subtle change of meaning in one word or phrase: a near-synonym that says something the passages do not",
        "TofuEval nuanced meaning shift; FRANK PredE; RAGTruth subtle conflict",
    ),
    (
        "reasoning_error",
        "a conclusion, cause or comparison the passages do not draw, from facts they do give",
        "TofuEval reasoning error; FRANK LinkE; RAGTruth subtle baseless info",
    ),
    (
        "opinion_as_fact",
        "an opinion, estimate or hedged view from the passages stated as established fact",
        "TofuEval opinion stated as fact; RAGTruth subtle conflict",
    ),
];

/// Replies by key, in a JSON file. Each new reply is written under a lock beside the file
/// (`NAME.lock`): the file is read again, the reply merged in, and the whole written through the
/// safe writer, so two commands sharing one cache keep every reply either made, and a symlink
/// or a directory at the path is never replaced.
pub struct ReplyCache {
    path: PathBuf,
    entries: Mutex<BTreeMap<String, String>>,
}

impl ReplyCache {
    /// The cache at `path` (empty when the file does not exist yet).
    pub fn open(path: &Path) -> Result<ReplyCache, String> {
        Ok(ReplyCache {
            path: path.to_path_buf(),
            entries: Mutex::new(Self::read(path)?),
        })
    }

    /// The file where the cache lives: an input of every command that may use it.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn read(path: &Path) -> Result<BTreeMap<String, String>, String> {
        match std::fs::read_to_string(path) {
            Ok(text) => serde_json::from_str(&text).map_err(|e| {
                format!(
                    "{}: not a cache of LLM mutants ({e}); delete it to start again",
                    path.display()
                )
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(BTreeMap::new()),
            Err(e) => Err(format!("{}: {e}", path.display())),
        }
    }

    fn get(&self, key: &str) -> Option<String> {
        self.entries.lock().ok()?.get(key).cloned()
    }

    /// Adds a reply and writes the cache: a failure is an output failure (exit 4).
    fn put(&self, key: String, text: String) -> crate::error::Result<()> {
        let io = |e: String| crate::error::Error::write(&self.path, std::io::Error::other(e));
        let mut mine = self
            .entries
            .lock()
            .map_err(|_| io("the cache lock is poisoned".into()))?;
        mine.insert(key, text);
        if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| crate::error::Error::write(dir, e))?;
        }
        let _lock = crate::io::write::Lock::acquire(&self.path)?;
        // what another command added meanwhile stays: its replies and ours, merged
        let mut all = Self::read(&self.path).map_err(io)?;
        all.extend(mine.iter().map(|(k, v)| (k.clone(), v.clone())));
        *mine = all;
        let json = serde_json::to_string_pretty(&*mine).map_err(|e| io(e.to_string()))?;
        crate::io::write::write_atomic(&self.path, json.as_bytes())
    }
}

/// What an LLM mutator shows the model besides the claim and its passages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Examples {
    /// Nothing: the prompt as written (the default).
    #[default]
    None,
    /// A few of the suite's real errors (hard cases with `source: real` not labelled supported),
    /// with their passages trimmed, as examples of the errors to imitate.
    RealHardCases,
}

/// How many real errors a prompt shows.
pub const MAX_EXAMPLES: usize = 3;

/// The most sentences of an example's passages a prompt shows, and the most characters of each.
const EXAMPLE_SENTENCES: usize = 2;
const EXAMPLE_SENTENCE_CHARS: usize = 300;

/// The `{examples}` block of a prompt: up to [`MAX_EXAMPLES`] real errors, each with the
/// sentences of its passages that share the most words with it (in passage order, each cut to a
/// length), or "" when there are none. It ends in a blank line, so the template can put
/// `{examples}` right before the next heading and read the same without them.
pub fn examples_block(errors: &[super::RealError<'_>]) -> String {
    if errors.is_empty() {
        return String::new();
    }
    let words = |s: &str| -> std::collections::HashSet<String> {
        crate::text::tokens::tokenize(s)
            .into_iter()
            .filter(|t| t.norm.chars().count() > 2)
            .map(|t| t.norm)
            .collect()
    };
    let mut out = String::from(
        "Real errors that a person found in this system's output, each against its own passages. Imitate how they go wrong, not what they say:\n\n",
    );
    for (i, e) in errors.iter().take(MAX_EXAMPLES).enumerate() {
        let sentences: Vec<&str> = e
            .passages
            .iter()
            .flat_map(|p| crate::text::sentences::split_sentences(p))
            .collect();
        let theirs = words(e.claim);
        let mut nearest: Vec<(usize, usize)> = sentences
            .iter()
            .enumerate()
            .map(|(k, s)| (words(s).intersection(&theirs).count(), k))
            .collect();
        // most shared words first, the earlier sentence in a tie; then back in passage order
        nearest.sort_by_key(|(n, k)| (std::cmp::Reverse(*n), *k));
        let mut keep: Vec<usize> = nearest
            .iter()
            .take(EXAMPLE_SENTENCES)
            .map(|(_, k)| *k)
            .collect();
        keep.sort();
        let excerpt = keep
            .iter()
            .map(|k| crate::text::words::cut_chars(sentences[*k].trim(), EXAMPLE_SENTENCE_CHARS))
            .collect::<Vec<_>>()
            .join(" … ");
        out.push_str(&format!(
            "Example {} ({}, judged {}):\nPassages (excerpt): {excerpt}\nUnfaithful claim: {}\n\n",
            i + 1,
            e.case_type,
            e.label.replace('_', " "),
            e.claim
        ));
    }
    out
}

/// One fault type asked of one model.
pub struct LlmMutator {
    client: Arc<LlmClient>,
    model: String,
    fault: &'static str,
    description: &'static str,
    examples: Examples,
    cache: Arc<ReplyCache>,
    /// The first failure: generation stops with it.
    error: Mutex<Option<String>>,
    /// A cache that could not be written: an output failure, reported as such.
    write_error: Mutex<Option<crate::error::Error>>,
}

impl LlmMutator {
    /// The operators of the mutator `name` for `faults` (names from [`FAULTS`]), sharing one
    /// client and one cache; `examples` says what the prompts show besides the claim.
    pub fn operators(
        name: &str,
        client: LlmClient,
        model: &str,
        faults: &[String],
        examples: Examples,
        cache: ReplyCache,
    ) -> Result<Vec<super::Built>, String> {
        let client = Arc::new(client);
        let cache = Arc::new(cache);
        let mut out: Vec<super::Built> = Vec::new();
        for f in faults {
            let Some(&(fault, stands_for, typologies)) = FAULTS.iter().find(|(n, ..)| n == f)
            else {
                return Err(format!(
                    "unknown fault `{f}`; the LLM mutator writes: {}",
                    FAULTS.iter().map(|f| f.0).collect::<Vec<_>>().join(", ")
                ));
            };
            let op_name: &'static str = Box::leak(format!("{name}_{fault}").into_boxed_str());
            let op: &'static Operator = Box::leak(Box::new(Operator {
                name: op_name,
                purpose: Purpose::Fault,
                stands_for,
                typologies,
                rules: "faithprobe.yaml",
                builtin: "",
                build: |path, _| {
                    Err(crate::error::Error::input(
                        path,
                        None,
                        "an LLM mutator has no rule file",
                        "configure it under `mutators:` in faithprobe.yaml",
                    ))
                },
                example: ["", ""],
            }));
            out.push((
                op,
                Arc::new(LlmMutator {
                    client: client.clone(),
                    model: model.to_string(),
                    fault,
                    description: stands_for,
                    examples,
                    cache: cache.clone(),
                    error: Mutex::new(None),
                    write_error: Mutex::new(None),
                }),
            ));
        }
        Ok(out)
    }

    fn fail(&self, why: String) {
        if let Ok(mut e) = self.error.lock() {
            e.get_or_insert(why);
        }
    }
}

/// Reads the mutant out of a reply and checks it against the claim and the passages.
pub fn validate(reply: &str, claim: &str, passages: &[&str]) -> Result<String, String> {
    let t = reply.trim();
    let t = t
        .strip_prefix("```json")
        .or_else(|| t.strip_prefix("```"))
        .and_then(|x| x.strip_suffix("```"))
        .map(str::trim)
        .unwrap_or(t);
    let text = if t.starts_with('{') {
        let v: serde_json::Value =
            serde_json::from_str(t).map_err(|e| format!("the reply is not JSON: {e}"))?;
        v.get("mutant")
            .and_then(|m| m.as_str())
            .ok_or("the reply's JSON has no string `mutant`")?
            .trim()
            .to_string()
    } else if t.lines().count() == 1 && !t.contains(['{', '}']) {
        t.trim_matches('"').to_string()
    } else {
        return Err(r#"the reply must be one JSON object {"mutant": "..."}"#.into());
    };
    if crate::text::words::is_blank(&text) {
        return Err("the mutant is empty".into());
    }
    // a line break would break the `reviews:` block `mutants --format yaml` prints; a control or
    // invisible character (NUL, a zero-width space, a soft hyphen) makes the claim look changed
    // when it reads the same
    if let Some(c) = text.chars().find(|c| invisible(*c)) {
        return Err(format!(
            "the mutant holds the character U+{:04X} (a line break, control or invisible character): write it as plain text on one line",
            c as u32
        ));
    }
    let (n, c) = (text.chars().count(), claim.chars().count());
    if n * 2 < c || n > 2 * c + 40 {
        return Err(format!(
            "the mutant has {n} characters against the claim's {c}: not one small change"
        ));
    }
    let norm = |s: &str| {
        s.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .trim_end_matches(['.', '!', '?'])
            .to_lowercase()
    };
    if norm(&text) == norm(claim) {
        return Err("the mutant is the claim itself".into());
    }
    if passages
        .iter()
        .flat_map(|p| crate::text::sentences::split_sentences(p))
        .any(|s| norm(s) == norm(&text))
    {
        return Err("the mutant is a sentence of the passages, which support it".into());
    }
    // the same words in another order says the same: no fault (and generation would skip it,
    // leaving the claim without a mutant)
    if super::generation::sorted_words(&text) == super::generation::sorted_words(claim) {
        return Err("the mutant only reorders the claim's words, so it says the same thing".into());
    }
    let (runs, words) = changes(claim, &text);
    if runs > 2 || words > 12 {
        return Err(format!(
            "the mutant changes {words} words in {runs} places: not one localised change"
        ));
    }
    Ok(text)
}

/// A character no mutant may hold: a control character (line breaks included) or an invisible
/// format character (zero-width spaces and joiners, the byte-order mark, a soft hyphen, bidi
/// controls).
fn invisible(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{00AD}' | '\u{200B}'..='\u{200F}' | '\u{2028}'..='\u{202E}' | '\u{2060}'..='\u{2064}' | '\u{FEFF}')
}

/// Word-level changes from `a` to `b`: (runs of changed words, words deleted plus inserted).
fn changes(a: &str, b: &str) -> (usize, usize) {
    let wa: Vec<&str> = a.split_whitespace().collect();
    let wb: Vec<&str> = b.split_whitespace().collect();
    let ops = similar::capture_diff_slices(similar::Algorithm::Myers, &wa, &wb);
    let mut runs = 0;
    let mut words = 0;
    let mut in_run = false;
    for op in &ops {
        match op {
            similar::DiffOp::Equal { .. } => in_run = false,
            other => {
                if !in_run {
                    runs += 1;
                    in_run = true;
                }
                let (_, old, new) = other.as_tag_tuple();
                words += old.len() + new.len();
            }
        }
    }
    (runs, words)
}

/// The change from `a` to `b` word by word: removed words in `[-...-]`, added in `{+...+}`.
pub fn word_diff(a: &str, b: &str) -> String {
    let wa: Vec<&str> = a.split_whitespace().collect();
    let wb: Vec<&str> = b.split_whitespace().collect();
    let mut out: Vec<String> = Vec::new();
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, &wa, &wb) {
        let (tag, old, new) = op.as_tag_tuple();
        match tag {
            similar::DiffTag::Equal => out.extend(wa[old].iter().map(|w| w.to_string())),
            similar::DiffTag::Delete => out.push(format!("[-{}-]", wa[old].join(" "))),
            similar::DiffTag::Insert => out.push(format!("{{+{}+}}", wb[new].join(" "))),
            similar::DiffTag::Replace => {
                out.push(format!("[-{}-]", wa[old].join(" ")));
                out.push(format!("{{+{}+}}", wb[new].join(" ")));
            }
        }
    }
    out.join(" ")
}

impl Mutator for LlmMutator {
    fn mutate(&self, input: &Input<'_>) -> Vec<String> {
        if self.error.lock().map(|e| e.is_some()).unwrap_or(true) {
            return Vec::new(); // one failure stops this mutator
        }
        let passages = input
            .passages
            .iter()
            .enumerate()
            .map(|(i, p)| format!("[{}] {p}", i + 1))
            .collect::<Vec<_>>()
            .join("\n");
        // without examples `{examples}` is empty: the prompt (and its cache key) is as before
        let examples = match self.examples {
            Examples::None => String::new(),
            Examples::RealHardCases => examples_block(input.real_errors),
        };
        let prompt = self.client.fill(&[
            ("examples", &examples),
            ("passages", &passages),
            ("claim", input.claim),
            ("fault", self.fault),
            ("fault_description", self.description),
        ]);
        let key = crate::text::hash::sha256_hex(format!("{}\0{prompt}", self.model).as_bytes(), 32);
        if let Some(text) = self.cache.get(&key) {
            // a cached reply is checked again: the claim or passages may have been edited
            if let Ok(t) = validate(&text, input.claim, input.passages) {
                return vec![t];
            }
        }
        match self.client.complete(&prompt, &|reply| {
            validate(reply, input.claim, input.passages)
        }) {
            Ok(text) => {
                let json = serde_json::json!({ "mutant": text }).to_string();
                if let Err(e) = self.cache.put(key, json) {
                    self.fail(format!("could not write the mutant cache: {e}"));
                    if let Ok(mut w) = self.write_error.lock() {
                        w.get_or_insert(e);
                    }
                }
                vec![text]
            }
            // queued for a batch (`--batch submit`): no mutant until the reply is collected
            Err(crate::io::llm::LlmError::Batch(_)) => Vec::new(),
            Err(e) => {
                self.fail(e.to_string());
                Vec::new()
            }
        }
    }

    fn error(&self) -> Option<String> {
        self.error.lock().ok().and_then(|e| e.clone())
    }

    fn side_by_side(&self) -> bool {
        false
    }

    fn write_error(&self) -> Option<crate::error::Error> {
        self.write_error.lock().ok().and_then(|mut e| e.take())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLAIM: &str = "The authors said the drug may benefit patients with diabetes.";
    const PASSAGES: [&str; 1] = ["The authors said the drug may benefit patients with diabetes, but that more research is needed."];

    #[test]
    fn a_reply_is_one_small_change_or_an_error_that_says_why() {
        let ok = validate(
            r#"{"mutant": "The authors said the drug will cure patients with diabetes."}"#,
            CLAIM,
            &PASSAGES,
        );
        assert_eq!(
            ok.as_deref(),
            Ok("The authors said the drug will cure patients with diabetes.")
        );
        // fenced, or one bare line
        assert!(validate(
            "```json\n{\"mutant\": \"The authors proved the drug may benefit patients with diabetes.\"}\n```",
            CLAIM,
            &PASSAGES
        )
        .is_ok());
        for (reply, why) in [
            (
                r#"{"mutant": "The authors said the drug may benefit patients with diabetes."}"#,
                "the claim itself",
            ),
            (r#"{"mutant": ""}"#, "empty"),
            (r#"{"text": "x"}"#, "no string `mutant`"),
            (
                r#"{"mutant": "Patients with diabetes should never take any drug that the authors studied in any trial."}"#,
                "localised",
            ),
            (
                "Sure! Here is the claim:\nThe authors said...",
                "one JSON object",
            ),
        ] {
            let e = validate(reply, CLAIM, &PASSAGES).unwrap_err();
            assert!(e.contains(why), "{reply}: {e}");
        }
        let passage_sentence = "The flu vaccine is offered free to adults aged 65 and over.";
        let e = validate(
            &format!("{{\"mutant\": \"{passage_sentence}\"}}"),
            "The flu vaccine is offered free to adults aged 64 and over.",
            &[passage_sentence],
        )
        .unwrap_err();
        assert!(e.contains("sentence of the passages"), "{e}");
    }

    #[test]
    fn the_examples_are_at_most_three_real_errors_with_the_sentences_nearest_each() {
        assert_eq!(
            examples_block(&[]),
            "",
            "no real errors: nothing in the prompt"
        );
        let leaflet = ["Adults can take one or two tablets every 4 to 6 hours. Do not take more than six tablets in 24 hours. Children under 12 should not take this medicine. A pack of 16 tablets costs €3,50 in most pharmacies."];
        let e = |claim| super::super::RealError {
            claim,
            case_type: "number",
            label: "not_found",
            passages: &leaflet,
        };
        let errors = [
            e("Do not take more than eight tablets in 24 hours."),
            e("Children should not take this medicine."),
            e("A pack of 16 tablets costs €5."),
            e("The tablets are best taken with food."),
        ];
        let b = examples_block(&errors);
        assert_eq!(b.matches("Unfaithful claim:").count(), 3, "{b}");
        assert!(!b.contains("best taken with food"), "{b}");
        assert!(b.contains("Example 1 (number, judged not found):\nPassages (excerpt): Adults can take one or two tablets every 4 to 6 hours. … Do not take more than six tablets in 24 hours.\nUnfaithful claim: Do not take more than eight tablets in 24 hours.\n"), "{b}");
        assert!(
            b.ends_with("\n\n"),
            "a blank line before the prompt's next heading"
        );
    }

    #[test]
    fn the_diff_marks_the_changed_words() {
        assert_eq!(
            word_diff(
                "the drug may benefit patients",
                "the drug will cure patients"
            ),
            "the drug [-may benefit-] {+will cure+} patients"
        );
    }
}
