//! Reading a suite file into its schema types: JSON or YAML, with the line of every syntax or
//! schema error and a help text for the part of the suite it is in.

use super::schema;
use crate::error::{Error, Result};
use std::path::Path;

/// Parses suite text (JSON when it opens with `{`, else YAML) into the schema types, refusing
/// anchors, aliases and binary values first; `path` is used in error messages only.
pub(super) fn suite_file(path: &Path, text: &str) -> Result<schema::SuiteFile> {
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
    parsed.map_err(|err| {
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
    })
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

const SCHEMA_HELP: &str = "a suite has `suite`, optional `description`, `hard_case_source` and `entities`, `contexts` (each with `id`, optional `question`, `passages`, `faithful`, `hard_cases`) and optional `reviews`; see docs/src/reference/suite-format.md";

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
