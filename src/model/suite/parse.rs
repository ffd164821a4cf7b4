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
    } else if let Some(file) = in_parts(text, PARTS_FROM, pieces(text.len()), threads()) {
        Ok(file)
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

/// The size from which a YAML suite's context sets are read on several threads.
const PARTS_FROM: usize = 1 << 20;

/// About how many bytes of the list one piece holds: small enough that the YAML reader's
/// events for a piece stay in the cache and its memory is reused by the next piece, instead of
/// one list of events for half the file growing (and being copied) to hundreds of megabytes.
const PIECE_BYTES: usize = 512 << 10;

/// How many threads read a large suite: one per core, at most eight.
fn threads() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(8)
}

/// How many pieces a suite of `len` bytes is read in: one a thread at least, one every
/// `PIECE_BYTES` bytes.
fn pieces(len: usize) -> usize {
    threads().max(len / PIECE_BYTES).max(2)
}

/// A YAML suite of at least `from` bytes read in `parts` pieces, `threads` at a time: the list under a
/// top-level `contexts:` cut at `parts - 1` of its items' first lines (a line of the first item's
/// indentation opening with `- `), each piece read as a list of context sets, and the rest of the
/// file with `contexts: []` in its place. `None` (read it whole) when the file is small, has no
/// such list, or any piece does not read; so an error is always the whole file's, with its line.
///
/// The pieces read as the whole file does: a piece starts where the whole file's reading has
/// a list item start (the first piece at the list's first item; by induction the next at the
/// cut, unless the cut fell inside a quoted or bracketed text that goes on past it, and then the
/// piece before it ends inside that text and does not read). A block text (`|`) ends at a line
/// of its list's indentation, and an alias whose anchor is in another piece does not read.
fn in_parts(text: &str, from: usize, parts: usize, threads: usize) -> Option<schema::SuiteFile> {
    if text.len() < from || parts < 2 || text.starts_with('\u{feff}') {
        return None;
    }
    // each line: its start, its text without the line break
    let mut lines: Vec<(usize, &str)> = Vec::new();
    let mut at = 0;
    for l in text.split_inclusive('\n') {
        lines.push((at, l.trim_end_matches(['\n', '\r'])));
        at += l.len();
    }
    // a directive or a second document: read it whole
    if lines
        .iter()
        .any(|(_, l)| l.starts_with('%') || l.starts_with("---") || l.starts_with("..."))
    {
        return None;
    }
    let key = lines
        .iter()
        .position(|(_, l)| l.trim_end() == "contexts:")?;
    let quiet = |l: &str| {
        let t = l.trim_start_matches(' ');
        t.is_empty() || t.starts_with('#')
    };
    let indent = |l: &str| l.len() - l.trim_start_matches(' ').len();
    let item = |l: &str, d: usize| {
        indent(l) == d && {
            let r = &l[d..];
            r.starts_with("- ") || r.trim_end() == "-"
        }
    };
    let first = (key + 1..lines.len()).find(|&i| !quiet(lines[i].1))?;
    let d = indent(lines[first].1);
    if !item(lines[first].1, d) {
        return None; // `contexts: [...]` or something else the whole reading should see
    }
    let mut starts = vec![first];
    let mut end = lines.len();
    for (i, (_, l)) in lines.iter().enumerate().skip(first + 1) {
        if quiet(l) {
            continue;
        }
        if l.starts_with('\t') {
            return None;
        }
        if item(l, d) {
            starts.push(i);
        } else if indent(l) < d || (d == 0 && indent(l) == 0) {
            end = i;
            break;
        }
    }
    let offset = |i: usize| lines.get(i).map_or(text.len(), |(a, _)| *a);
    let (begin, stop) = (offset(first), offset(end));
    // cuts at the first item start past each equal share of the list's bytes
    let mut cuts = vec![first];
    let mut next = 0; // the first item start not yet passed: the wanted offsets only grow
    for k in 1..parts {
        let want = begin + (stop - begin) * k / parts;
        while next < starts.len() && offset(starts[next]) < want {
            next += 1;
        }
        if let Some(&i) = starts.get(next) {
            if i > *cuts.last().unwrap_or(&first) {
                cuts.push(i);
            }
        }
    }
    if cuts.len() < 2 {
        return None;
    }
    cuts.push(end);
    let pieces: Vec<&str> = cuts
        .windows(2)
        .map(|w| &text[offset(w[0])..offset(w[1])])
        .collect();
    let rest = format!("{}contexts: []\n{}", &text[..offset(key)], &text[stop..]);
    read_side_by_side(&pieces, &rest, threads)
}

/// `rest` (the file without its contexts) and each of `pieces` (a list of context sets each)
/// read on `threads` threads, each taking the next piece not yet taken, joined in order; `None`
/// if any does not read.
fn read_side_by_side(pieces: &[&str], rest: &str, threads: usize) -> Option<schema::SuiteFile> {
    // a piece that does not read stops them all
    let taken = std::sync::atomic::AtomicUsize::new(0);
    let failed = std::sync::atomic::AtomicBool::new(false);
    let read_pieces = || {
        let mut got: Vec<(usize, Vec<schema::ContextFile>)> = Vec::new();
        while !failed.load(std::sync::atomic::Ordering::Relaxed) {
            let i = taken.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let Some(p) = pieces.get(i) else { break };
            match serde_yaml::from_str::<Vec<schema::ContextFile>>(p) {
                Ok(read) => got.push((i, read)),
                Err(_) => failed.store(true, std::sync::atomic::Ordering::Relaxed),
            }
        }
        got
    };
    let (head, read) = std::thread::scope(|scope| {
        let handles: Vec<_> = (1..threads.clamp(1, pieces.len()))
            .map(|_| scope.spawn(read_pieces))
            .collect();
        let head = serde_yaml::from_str::<schema::SuiteFile>(rest).ok();
        let mut read = read_pieces();
        for h in handles {
            match h.join() {
                Ok(got) => read.extend(got),
                Err(_) => failed.store(true, std::sync::atomic::Ordering::Relaxed),
            }
        }
        (head, read)
    });
    let mut file = head?;
    if !file.contexts.is_empty()
        || failed.load(std::sync::atomic::Ordering::Relaxed)
        || read.len() != pieces.len()
    {
        return None;
    }
    let mut read = read;
    read.sort_unstable_by_key(|(i, _)| *i);
    file.contexts
        .reserve(read.iter().map(|(_, r)| r.len()).sum());
    for (_, piece) in read {
        file.contexts.extend(piece);
    }
    Some(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The whole file's reading, as text to compare.
    fn whole(text: &str) -> Option<String> {
        serde_yaml::from_str::<schema::SuiteFile>(text)
            .ok()
            .map(|f| format!("{f:?}"))
    }

    /// Read in pieces, the file reads as it does whole, or is left to the whole reading.
    fn same(text: &str) -> bool {
        let mut any = false;
        for parts in 2..=5 {
            for threads in 1..=3 {
                if let Some(f) = in_parts(text, 0, parts, threads) {
                    any = true;
                    assert_eq!(
                        Some(format!("{f:?}")),
                        whole(text),
                        "{parts} parts on {threads} threads of {text:?}"
                    );
                }
            }
        }
        any
    }

    #[test]
    fn every_suite_of_the_project_reads_the_same_in_pieces() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut read = 0;
        for dir in ["suites", "tests/fixtures"] {
            for entry in std::fs::read_dir(root.join(dir)).unwrap() {
                let path = entry.unwrap().path();
                if path.extension().is_some_and(|e| e == "yaml") {
                    let text = std::fs::read_to_string(&path).unwrap();
                    if whole(&text).is_some() && same(&text) {
                        read += 1;
                    }
                }
            }
        }
        // the suites of one context set have no place to cut
        assert!(read >= 3, "only {read} suites were read in pieces");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 300, failure_persistence: None, ..Default::default() })]

        /// Passages written every way YAML allows, with line breaks, dashes, colons and quotes
        /// in them: read in pieces, each suite reads as it does whole, and one that does not
        /// read whole does not read in pieces.
        #[test]
        fn any_suite_reads_the_same_in_pieces_or_is_left_whole(
            texts in proptest::collection::vec(("[a-c €\\-:#'\"\n|{}\\[\\],]{0,30}", 0..5usize), 2..10),
            flush in proptest::bool::ANY,
        ) {
            let mut body = String::new();
            for (i, (t, style)) in texts.iter().enumerate() {
                let passage = match style {
                    0 => format!("\"{t}\""),
                    1 => format!("'{t}'"),
                    2 => format!("|\n          {}", t.replace('\n', "\n          ")),
                    3 => t.clone(),
                    _ => format!("\"{}\"", t.replace('"', "\\\"")),
                };
                body.push_str(&format!("  - id: c{i}\n    passages:\n      - id: p\n        text: {passage}\n    faithful:\n      - {{id: f{i}, claim: \"Refunds take {i} days.\"}}\n"));
            }
            let mut text = format!("suite: s\ncontexts:\n{body}reviews: {{}}\n");
            if flush {
                text = text.replace("\n  - id:", "\n- id:");
            }
            for parts in [2, 3, 4, 9] {
                let got = in_parts(&text, 0, parts, 1 + parts % 3).map(|f| format!("{f:?}"));
                if got.is_some() {
                    proptest::prop_assert_eq!(got, whole(&text), "{} parts of {:?}", parts, text);
                }
            }
        }
    }

    fn context(i: usize, passage: &str) -> String {
        format!(
            "  - id: c{i}\n    passages:\n      - {{id: p, text: {passage}}}\n    faithful:\n      - {{id: f{i}, claim: \"Refunds take {i} days.\"}}\n"
        )
    }

    #[test]
    fn a_suite_read_in_pieces_is_the_suite_read_whole() {
        let body: String = (0..12)
            .map(|i| context(i, "\"Refunds take 14 days, or €3,50 a month.\""))
            .collect();
        let plain = format!("suite: s\nentities:\n  plan: [Basic, Pro]\ncontexts:\n{body}reviews:\n  m-0123456789abcdef: {{review: fault}}\n");
        assert!(same(&plain), "read in pieces");
        // the list at the left margin, comments and blank lines between items, CRLF endings
        let flush = plain
            .replace("\n  - id:", "\n- id:")
            .replace("\n    ", "\n  ");
        assert!(same(&flush));
        assert!(same(
            &plain.replace("  - id: c5", "# the fifth\n\n  - id: c5")
        ));
        assert!(same(&plain.replace('\n', "\r\n")));
        // a block text whose lines look like list items is never cut inside
        let block = plain.replace(
            "text: \"Refunds take 14 days, or €3,50 a month.\"}",
            "text: \"x\"}\n      - id: q\n        text: |\n          - id: not a context\n          - id: nor this",
        );
        assert!(same(&block));
    }

    #[test]
    fn a_cut_inside_a_quoted_text_or_a_bracket_leaves_the_file_to_the_whole_reading() {
        // a quoted passage that runs over lines looking like list items
        let mut body: String = (0..6).map(|i| context(i, "\"short\"")).collect();
        body.push_str(&context(6, "\"Here is a summary:\n  - id: c99\n    passages: it goes on\n  - id: c100\n and ends.\""));
        body.extend((7..12).map(|i| context(i, "'single quoted,\n  - id: c200\n still text'")));
        let text = format!("suite: s\ncontexts:\n{body}");
        assert!(whole(&text).is_some(), "a suite the whole reading takes");
        same(&text);
        // an alias whose anchor is before the cut, in the list or above it
        let anchored = format!(
            "suite: s\ndescription: &d \"Refunds\"\ncontexts:\n{}{}",
            (0..5).map(|i| context(i, "&t \"t\"")).collect::<String>(),
            (5..10).map(|i| context(i, "*t")).collect::<String>()
        );
        assert!(whole(&anchored).is_some());
        assert!(!same(&anchored));
        assert!(!same(&anchored.replace("*t", "*d")));
        // a flow list over lines
        let flow = "suite: s\ncontexts: [\n  {id: a, passages: [{id: p, text: t}]},\n  {id: b, passages: [{id: p, text: t}]}\n]\n";
        assert!(!same(flow));
        // `contexts:` inside a quoted description
        let desc = format!(
            "suite: s\ndescription: \"see\ncontexts:\n  - id: x\"\ncontexts:\n{}",
            (0..4).map(|i| context(i, "t")).collect::<String>()
        );
        assert!(whole(&desc).is_some());
        assert!(!same(&desc));
        // no `contexts:` line, two documents, a directive: read whole
        assert!(!same("suite: s\n"));
        let two = context(0, "t") + &context(1, "t");
        assert!(!same(&format!("suite: s\ncontexts:\n{two}---\n")));
        assert!(!same(&format!(
            "%YAML 1.2\n---\nsuite: s\ncontexts:\n{}",
            context(0, "t") + &context(1, "t")
        )));
    }

    #[test]
    fn a_broken_piece_is_never_read_as_part_of_a_suite() {
        let body: String = (0..8).map(|i| context(i, "t")).collect();
        // an unknown key in one context, two `contexts:` keys, a stray line at the list's margin
        for text in [
            format!(
                "suite: s\ncontexts:\n{}",
                body.replace(
                    "    faithful:\n      - {id: f5",
                    "    colour: red\n    faithful:\n      - {id: f5"
                )
            ),
            format!("suite: s\ncontexts:\n{body}contexts:\n{body}"),
            format!("suite: s\ncontexts:\n{body}  stray: line\n"),
        ] {
            assert_eq!(whole(&text), None);
            for parts in 2..=9 {
                for threads in 1..=3 {
                    assert!(in_parts(&text, 0, parts, threads).is_none(), "{text}");
                }
            }
        }
    }
}
