//! Reading and writing record files: any record (run or score) read once and validated, a file
//! that is not a record named for what it is, a score record streamed one answer per line.

use super::{AnyRecord, RUN_HELP};
use crate::answers::score::ScoreRecord;
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::path::Path;

impl AnyRecord {
    /// Writes the record as pretty JSON, atomically (a score record with one answer per line).
    pub fn write(&self, path: &Path) -> Result<()> {
        if let AnyRecord::Score(r) = self {
            let empty = ScoreRecord {
                answers: Vec::new(),
                ..r.clone_head()
            };
            return write_score_record(path, &empty, &mut r.answers.iter().cloned().map(Ok));
        }
        let text = serde_json::to_string_pretty(self).expect("records serialise") + "\n";
        crate::io::write::write_atomic(path, text.as_bytes())
    }

    /// Reads any record once, says what the file is when it is not a record, and validates it.
    pub fn load(path: &Path) -> Result<AnyRecord> {
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        AnyRecord::from_bytes(path, bytes)
    }

    /// Whether `bytes` are a JSON object with a `type` key: what a record is, as opposed to a
    /// suite (scanned without building the document).
    pub fn looks_like_record(bytes: &[u8]) -> bool {
        #[derive(Deserialize)]
        struct Sniff {
            #[serde(rename = "type")]
            kind: Option<serde::de::IgnoredAny>,
        }
        let bytes = bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(bytes);
        serde_json::from_slice::<Sniff>(bytes).is_ok_and(|s| s.kind.is_some())
    }

    /// [`AnyRecord::load`] on bytes already read from `path`.
    pub fn from_bytes(path: &Path, bytes: Vec<u8>) -> Result<AnyRecord> {
        let text = String::from_utf8(bytes).map_err(|e| {
            Error::input(
                path,
                None,
                format!(
                    "not UTF-8 (invalid byte at offset {})",
                    e.utf8_error().valid_up_to()
                ),
                RUN_HELP,
            )
        })?;
        let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
        let value: serde_json::Value = serde_json::from_str(text).map_err(|e| {
            Error::input(
                path,
                Some(e.line()),
                format!("not JSON: {e}"),
                "compare takes files written by `--record`",
            )
        })?;
        let kind = value.get("type").and_then(|t| t.as_str());
        if !matches!(kind, Some("run") | Some("score")) {
            return Err(Error::input(
                path,
                None,
                format!("not a faithprobe record: {}", what_it_is(&value)),
                "write records with `faithprobe run SUITE --record FILE.json` or `faithprobe score LOG --record FILE.json`",
            ));
        }
        let record: AnyRecord = serde_json::from_str(text).map_err(|e| {
            Error::input(
                path,
                Some(e.line()),
                format!("malformed {} record: {e}", kind.unwrap_or("")),
                RUN_HELP,
            )
        })?;
        let mut record = record;
        match &mut record {
            AnyRecord::Run(r) => {
                r.validate(path, text)?;
                for c in r.runs.iter_mut().flat_map(|run| run.cases.iter_mut()) {
                    c.score = c.score.map(|s| s.clamp(0.0, 1.0));
                }
            }
            AnyRecord::Score(s) => s.validate(path)?,
        }
        Ok(record)
    }
}

/// Writes a score record atomically from its head (`answers` ignored) and its answers, one
/// answer per line, so a record of any size is written without holding it in memory. An error
/// from `answers` leaves nothing behind.
pub fn write_score_record(
    path: &Path,
    head: &ScoreRecord,
    answers: &mut dyn Iterator<Item = Result<crate::answers::score::AnswerResult>>,
) -> Result<()> {
    fn s<T: Serialize + ?Sized>(v: &T) -> String {
        serde_json::to_string(v).expect("serialises")
    }
    crate::io::write::write_atomic_from(path, &mut |w| {
        let io = |e: std::io::Error| Error::write(path, e);
        let mut lead = format!(
            "{{\n  \"type\": \"score\",\n  \"version\": {},\n  \"log\": {},\n  \"log_sha256\": {},\n  \"checker\": {},\n  \"checker_settings\": {},\n  \"decomposer\": {},\n  \"lines_not_read\": {},\n",
            head.version,
            s(&head.log),
            s(&head.log_sha256),
            s(&head.checker),
            s(&head.checker_settings),
            s(&head.decomposer),
            head.lines_not_read
        );
        if let Some(sh) = &head.shard {
            lead.push_str(&format!("  \"shard\": {},\n", s(sh)));
        }
        lead.push_str("  \"answers\": [");
        w.write_all(lead.as_bytes()).map_err(io)?;
        let mut first = true;
        for a in &mut *answers {
            let a = a?;
            w.write_all(if first { b"\n    " } else { b",\n    " })
                .map_err(io)?;
            first = false;
            serde_json::to_writer(&mut *w, &a).map_err(|e| io(e.into()))?;
        }
        w.write_all(format!("{}]\n}}\n", if first { "" } else { "\n  " }).as_bytes())
            .map_err(io)
    })
}

/// A guess at what a JSON file that is not a record is, for the error message.
fn what_it_is(v: &serde_json::Value) -> String {
    let has = |k: &str| v.get(k).is_some();
    if has("faithprobe_record") || has("faithprobe_score_record") {
        "a record from an older faithprobe version; re-run the checker with this version".into()
    } else if has("suite") && has("summary") && has("cases") {
        "it looks like the report of `faithprobe run --format json`, not a record".into()
    } else if has("rows") && has("regressions") {
        "it looks like the report of `faithprobe compare --format json`".into()
    } else if has("summary") && has("answers") {
        "it looks like the report of `faithprobe score --format json`, not a record".into()
    } else if has("points") {
        "it looks like the report of `faithprobe sweep --format json`".into()
    } else {
        "it has no `type` field of `run` or `score`".into()
    }
}
