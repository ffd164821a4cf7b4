//! Suites: loading, validation and the domain types the rest of the crate reads.
//!
//! A suite holds context sets; each has its passages, the claims a person verified as faithful
//! and labelled hard cases. Every error names the file and the line and says what to fix.

mod locate;
pub mod schema;
pub mod side;

use crate::error::{Error, Result};
use crate::model::case::HardCaseLabel;
pub(crate) use locate::Locator;
pub use schema::{CaseSource, ReviewKind};
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

/// A passage that was in the prompt.
#[derive(Debug, Clone, PartialEq)]
pub struct Passage {
    pub id: String,
    pub text: String,
}

/// A claim a person verified as supported by its context set.
#[derive(Debug, Clone, PartialEq)]
pub struct Claim {
    pub id: String,
    pub text: String,
}

/// A labelled claim that separates checkers.
#[derive(Debug, Clone, PartialEq)]
pub struct HardCase {
    pub id: String,
    pub case_type: String,
    pub text: String,
    pub label: HardCaseLabel,
    /// Written by a person, or a labelled piece of real output (see [`CaseSource`]).
    pub source: CaseSource,
}

impl HardCase {
    /// A real error: a hard case from labelled real output that is not labelled supported.
    pub fn is_real_error(&self) -> bool {
        self.source == CaseSource::Real && self.label != HardCaseLabel::Supported
    }
}

/// The passages of one prompt and the claims checked against them.
#[derive(Debug, Clone, PartialEq)]
pub struct Context {
    pub id: String,
    pub question: Option<String>,
    pub passages: Vec<Passage>,
    pub faithful: Vec<Claim>,
    pub hard_cases: Vec<HardCase>,
}

/// Names the entity-swap operator exchanges within.
#[derive(Debug, Clone, PartialEq)]
pub struct EntityGroup {
    pub name: String,
    pub members: Vec<String>,
}

/// A person's review of one mutant, by mutant id.
#[derive(Debug, Clone, PartialEq)]
pub struct Review {
    pub kind: ReviewKind,
    pub why: Option<String>,
    /// The file the review is written in: the suite, or its side file (see [`side`]).
    pub file: PathBuf,
    /// Line of the review in that file, for errors about it.
    pub line: Option<usize>,
}

/// A loaded, validated suite.
#[derive(Debug, Clone)]
pub struct Suite {
    pub name: String,
    pub description: Option<String>,
    pub path: PathBuf,
    pub entities: Vec<EntityGroup>,
    pub contexts: Vec<Context>,
    pub reviews: BTreeMap<String, Review>,
    /// The side file `faithprobe review` writes its decisions to, when it exists.
    pub side_file: Option<PathBuf>,
    /// SHA-256 of the suite file's text (and of its side file's, when there is one): the
    /// suite's fingerprint in records and reports.
    pub sha256: String,
}

/// The help for a schema error, by the part of the suite it is in (the path the YAML crate puts
/// before the message, e.g. `contexts[0].passages[1]: ...`).
fn schema_help(message: &str) -> &'static str {
    let path = message.split(": ").next().unwrap_or("");
    let last = path
        .rsplit('.')
        .next()
        .unwrap_or("")
        .split('[')
        .next()
        .unwrap_or("");
    let in_reviews = path.starts_with("reviews");
    match last {
        _ if in_reviews => "each review is `MUTANT_ID: {review: fault}` or `MUTANT_ID: {review: equivalent, why: \"...\"}`; `faithprobe mutants SUITE --format yaml` prints the block to paste",
        "passages" | "text" => "each passage is `{id: plans, text: \"...\"}`, under `passages:` as a list",
        "faithful" => "each verified claim is `{id: f1, claim: \"...\"}`, under `faithful:` as a list",
        "hard_cases" | "label" | "type" => "each hard case is `{id: h1, type: paraphrase, claim: \"...\", label: supported}`; label is supported, contradicted, not_found or misleading",
        "claim" => "a claim is a text; put it in quotes when it reads as a number, `null` or `true`",
        "question" => "`question` is the text of the question that was asked (optional)",
        "entities" => "entities are groups of names the entity_swap operator exchanges: `plan: [Team, Enterprise]`",
        "contexts" => "`contexts` is a list of context sets, each `{id, passages, faithful, hard_cases}`",
        _ => SCHEMA_HELP,
    }
}

const SCHEMA_HELP: &str = "a suite has `suite`, optional `description`, `hard_case_source` and `entities`, `contexts` (each with `id`, optional `question`, `passages`, `faithful`, `hard_cases`) and optional `reviews`; see README.md, 'Suite format'";

/// A YAML error that says only "at position N" (a stray control character in a scraped
/// passage) gets the line and column of that position.
fn located(err: Error, text: &str) -> Error {
    match err {
        Error::Input {
            location,
            message,
            help,
        } if location.line.is_none_or(|l| l <= 1) && message.contains("at position ") => {
            let pos: Option<usize> = message
                .rsplit("at position ")
                .next()
                .and_then(|p| p.split(|c: char| !c.is_ascii_digit()).next())
                .and_then(|p| p.parse().ok());
            match pos.filter(|p| *p <= text.len()) {
                Some(p) => {
                    let p = (0..=p)
                        .rev()
                        .find(|i| text.is_char_boundary(*i))
                        .unwrap_or(0);
                    let before = &text[..p];
                    let line = 1 + before.matches('\n').count();
                    let column = 1 + before.rsplit('\n').next().unwrap_or("").chars().count();
                    Error::Input {
                        location: crate::error::Location::new(
                            &location.path,
                            Some(line),
                            Some(column),
                        ),
                        message,
                        help,
                    }
                }
                None => Error::Input {
                    location,
                    message,
                    help,
                },
            }
        }
        other => other,
    }
}

impl Suite {
    /// Reads and validates a suite file. Mutant reviews are checked later, against the mutants
    /// the rules generate (see [`crate::mutate::generate`]).
    pub fn load(path: &Path) -> Result<Suite> {
        let text = crate::error::read_input(path)?;
        let mut suite = Suite::from_yaml(path, &text)?;
        if let Some((side, side_text)) = side::SideFile::read(&side::path_of(path))? {
            side.merge_into(&mut suite, &text, &side_text)?;
        }
        Ok(suite)
    }

    /// Parses and validates suite text; `path` is used in error messages only.
    pub fn from_yaml(path: &Path, text: &str) -> Result<Suite> {
        schema::check_plain_text(
            path,
            text,
            "write passages, claims and reasons as plain text",
        )?;
        // a suite written as JSON (Python's json.dump) is read as JSON: YAML readers refuse its
        // surrogate-pair escapes of emoji ("\ud83d\ude00"), which JSON allows
        let json = text.trim_start().starts_with('{');
        let parsed = if json {
            serde_json::from_str::<schema::SuiteFile>(text).map_err(|e| Error::Input {
                location: crate::error::Location::new(path, Some(e.line()), Some(e.column())),
                message: e
                    .to_string()
                    .split(" at line ")
                    .next()
                    .unwrap_or("")
                    .to_string(),
                help: SCHEMA_HELP.to_string(),
            })
        } else {
            crate::io::yaml::parse::<schema::SuiteFile>(path, text, SCHEMA_HELP)
                .map_err(|err| located(err, text))
        };
        let file: schema::SuiteFile = parsed.map_err(|err| {
            match err {
                Error::Input {
                    location, message, ..
                } => {
                    let help = if message.contains("control character") {
                        "a text holds a control character (often a stray byte of scraped text): replace it with a space".to_string()
                    } else {
                        schema_help(&message).to_string()
                    };
                    Error::Input {
                        location,
                        message,
                        help,
                    }
                }
                other => other,
            }
        })?;
        let loc = locate::Locator::new(text);
        let err =
            |line: Option<usize>, msg: String, help: &str| Error::input(path, line, msg, help);

        if crate::text::is_blank(&file.suite) {
            return Err(err(
                loc.key("suite"),
                "the suite has an empty name".into(),
                "give it a short name such as `billing-help`; reports and snapshot files use it",
            ));
        }
        if file
            .suite
            .chars()
            .any(|c| !(c.is_alphanumeric() || c == '-' || c == '_' || c == '.'))
        {
            return Err(err(
                loc.key("suite"),
                format!(
                    "suite name `{}` has characters a file name cannot safely carry",
                    file.suite
                ),
                "use letters, digits, `-`, `_` and `.` only",
            ));
        }
        if file.contexts.is_empty() {
            return Err(err(
                loc.key("contexts"),
                "the suite has no context sets".into(),
                "add at least one entry under `contexts:` with passages and claims",
            ));
        }

        let mut entities = Vec::new();
        for (name, members) in &file.entities {
            let line = loc.key(name);
            if members.len() < 2 {
                return Err(err(
                    line,
                    format!("entity group `{name}` has {} member(s)", members.len()),
                    "a group needs at least two names for entity_swap to exchange",
                ));
            }
            let mut seen = HashSet::new();
            for m in members {
                if crate::text::is_blank(m) {
                    return Err(err(
                        line,
                        format!("entity group `{name}` has an empty name"),
                        "remove it or write the name",
                    ));
                }
                if !seen.insert(m) {
                    return Err(err(
                        line,
                        format!("entity group `{name}` lists `{m}` twice"),
                        "list each name once",
                    ));
                }
            }
            entities.push(EntityGroup {
                name: name.clone(),
                members: members.clone(),
            });
        }

        let mut context_ids = HashSet::new();
        let mut case_ids: HashSet<String> = HashSet::new();
        let mut contexts = Vec::new();
        let default_source = file.hard_case_source;
        for c in file.contexts {
            let cline = loc.id(&c.id, 0);
            if crate::text::is_blank(&c.id) {
                return Err(err(
                    cline,
                    "a context set has an empty `id`".into(),
                    "give every context set an id",
                ));
            }
            if !context_ids.insert(c.id.clone()) {
                return Err(err(
                    loc.id(&c.id, 1),
                    format!("context id `{}` is used twice", c.id),
                    "give every context set its own id",
                ));
            }
            if c.passages.is_empty() {
                return Err(err(
                    cline,
                    format!("context `{}` has no passages", c.id),
                    "list the passages that were in the prompt under `passages:`",
                ));
            }
            let mut passage_ids = HashSet::new();
            for p in &c.passages {
                if !passage_ids.insert(p.id.clone()) {
                    return Err(err(
                        loc.id_after(&p.id, cline, 1),
                        format!("passage id `{}` is used twice in context `{}`", p.id, c.id),
                        "give every passage of a context set its own id",
                    ));
                }
                if crate::text::is_blank(&p.text) {
                    return Err(err(
                        loc.id_after(&p.id, cline, 0),
                        format!("passage `{}` has empty text", p.id),
                        "paste the passage text, or remove the passage",
                    ));
                }
            }
            let mut check_claim = |id: &str, claim: &str| -> Result<()> {
                if crate::text::is_blank(id) {
                    return Err(err(
                        loc.id_after(id, cline, 0),
                        "a claim has an empty `id`".into(),
                        "give every claim an id",
                    ));
                }
                if !case_ids.insert(id.to_string()) {
                    return Err(err(
                        loc.id(id, 1),
                        format!("claim id `{id}` is used twice"),
                        "claim ids (faithful and hard cases) must be unique across the suite",
                    ));
                }
                if crate::text::is_blank(claim) {
                    return Err(err(
                        loc.id(id, 0),
                        format!("claim `{id}` is empty"),
                        "write the claim as one standalone sentence, or remove the entry",
                    ));
                }
                Ok(())
            };
            for f in &c.faithful {
                check_claim(&f.id, &f.claim)?;
            }
            for h in &c.hard_cases {
                check_claim(&h.id, &h.claim)?;
                if crate::text::is_blank(&h.case_type) {
                    return Err(err(
                        loc.id(&h.id, 0),
                        format!("hard case `{}` has an empty `type`", h.id),
                        "name the kind of case, e.g. `paraphrase`",
                    ));
                }
            }
            contexts.push(Context {
                id: c.id,
                question: c.question,
                passages: c
                    .passages
                    .into_iter()
                    .map(|p| Passage {
                        id: p.id,
                        text: p.text.trim().to_string(),
                    })
                    .collect(),
                faithful: c
                    .faithful
                    .into_iter()
                    .map(|f| Claim {
                        id: f.id,
                        text: f.claim.trim().to_string(),
                    })
                    .collect(),
                hard_cases: c
                    .hard_cases
                    .into_iter()
                    .map(|h| HardCase {
                        id: h.id,
                        case_type: h.case_type,
                        text: h.claim.trim().to_string(),
                        label: h.label,
                        source: h.source.or(default_source).unwrap_or_default(),
                    })
                    .collect(),
            });
        }

        let mut reviews = BTreeMap::new();
        for (id, r) in file.reviews {
            let line = loc.key(&id);
            if r.kind_needs_why() {
                return Err(err(
                    line,
                    format!("review of `{id}` says `equivalent` without a `why`"),
                    "say why the mutant is still faithful, e.g. `why: \"still true: ...\"`",
                ));
            }
            reviews.insert(
                id,
                Review {
                    kind: r.review,
                    why: r.why.filter(|w| !crate::text::is_blank(w)),
                    file: path.to_path_buf(),
                    line,
                },
            );
        }

        let sha256 = crate::text::sha256_hex(text.as_bytes(), usize::MAX);
        Ok(Suite {
            sha256,
            name: file.suite,
            description: file.description,
            path: path.to_path_buf(),
            entities,
            contexts,
            reviews,
            side_file: None,
        })
    }
}

impl schema::ReviewFile {
    fn kind_needs_why(&self) -> bool {
        self.review == ReviewKind::Equivalent
            && self.why.as_deref().map(str::trim).unwrap_or("").is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str) -> Result<Suite> {
        Suite::from_yaml(Path::new("t.yaml"), text)
    }

    const GOOD: &str = "suite: t\ncontexts:\n  - id: c1\n    passages:\n      - {id: p1, text: \"The sky is blue.\"}\n    faithful:\n      - {id: f1, claim: \"The sky is blue.\"}\n";

    #[test]
    fn a_minimal_suite_loads() {
        let s = load(GOOD).unwrap();
        assert_eq!(s.contexts[0].faithful[0].text, "The sky is blue.");
    }

    #[test]
    fn an_unknown_key_names_its_line() {
        let text = GOOD.replace("    faithful:", "    colour: red\n    faithful:");
        let e = load(&text).unwrap_err().to_string();
        assert!(e.starts_with("t.yaml:6"), "{e}");
        assert!(e.contains("unknown field `colour`"), "{e}");
    }

    #[test]
    fn a_duplicate_claim_id_names_the_second_line() {
        let text = format!("{GOOD}      - {{id: f1, claim: \"Again.\"}}\n");
        let e = load(&text).unwrap_err().to_string();
        assert!(e.starts_with("t.yaml:8:"), "{e}");
        assert!(e.contains("used twice"), "{e}");
    }

    #[test]
    fn an_empty_claim_is_an_error_on_its_line() {
        let text = GOOD.replace("claim: \"The sky is blue.\"", "claim: \"  \"");
        let e = load(&text).unwrap_err().to_string();
        assert!(e.starts_with("t.yaml:7:"), "{e}");
        assert!(e.contains("claim `f1` is empty"), "{e}");
    }

    #[test]
    fn an_equivalent_review_needs_a_reason() {
        let text = format!("{GOOD}reviews:\n  m-00000000: {{review: equivalent}}\n");
        let e = load(&text).unwrap_err().to_string();
        assert!(e.starts_with("t.yaml:9:"), "{e}");
    }
}
