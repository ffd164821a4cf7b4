//! Reading inputs one record at a time: lines with their numbers (a UTF-8 byte-order mark
//! dropped, bytes that are not UTF-8 an error naming the line), JSON Lines of objects, and the
//! fields importers take from a record.

use crate::error::{Error, Result};
use serde_json::{Map, Value};
use std::io::BufRead;
use std::path::Path;

/// The error of an import a signal stopped.
pub(crate) fn interrupted(path: &Path) -> Error {
    Error::Interrupted(format!(
        "stopped while reading {}; nothing was written",
        path.display()
    ))
}

/// Opens an input for buffered reading.
pub(crate) fn open(path: &Path) -> Result<std::io::BufReader<std::fs::File>> {
    let f = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    Ok(std::io::BufReader::with_capacity(1 << 16, f))
}

/// Calls `each` with every line of `path` (1-based number, text without its line break),
/// reading one line at a time. `each` returns `false` to stop early.
pub(crate) fn lines(path: &Path, mut each: impl FnMut(usize, &str) -> Result<bool>) -> Result<()> {
    let mut r = open(path)?;
    let mut buf = Vec::new();
    let mut n = 0;
    loop {
        // a signal stops an import between records: nothing is written
        if crate::io::interrupt::requested() {
            return Err(interrupted(path));
        }
        buf.clear();
        if r.read_until(b'\n', &mut buf)
            .map_err(|e| Error::io(path, e))?
            == 0
        {
            return Ok(());
        }
        n += 1;
        let mut bytes = &buf[..];
        if n == 1 && bytes.starts_with(b"\xef\xbb\xbf") {
            bytes = &bytes[3..];
        }
        while let [rest @ .., b'\n' | b'\r'] = bytes {
            bytes = rest;
        }
        let text = std::str::from_utf8(bytes).map_err(|e| {
            Error::input(
                path,
                Some(n),
                format!("byte 0x{:02x} is not UTF-8", bytes[e.valid_up_to()]),
                "save the file as UTF-8",
            )
        })?;
        if !each(n, text)? {
            return Ok(());
        }
    }
}

/// Calls `each` with every JSON object of a JSON Lines file and its line number; blank lines
/// are skipped. A line that is not a JSON object, or that `each` rejects (its `Err` is the
/// message), is an error naming the file and the line, with `help`. Returns the number of
/// records.
pub(crate) fn json_lines(
    path: &Path,
    help: &str,
    mut each: impl FnMut(usize, Map<String, Value>) -> std::result::Result<(), String>,
) -> Result<usize> {
    let mut records = 0;
    lines(path, |n, line| {
        if line.trim().is_empty() {
            return Ok(true);
        }
        let at = |m: String| Error::input(path, Some(n), m, help);
        let v: Value = serde_json::from_str(line).map_err(|e| at(format!("not JSON: {e}")))?;
        let Value::Object(m) = v else {
            return Err(at(format!("not a JSON object but {}", kind(&v))));
        };
        records += 1;
        each(n, m).map_err(at)?;
        Ok(true)
    })?;
    Ok(records)
}

/// What a JSON value is, for messages.
pub(crate) fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// Takes the text field `key` of a record: a string (it may be empty), else an error message.
pub(crate) fn take_text(
    m: &mut Map<String, Value>,
    key: &str,
) -> std::result::Result<String, String> {
    match m.remove(key) {
        Some(Value::String(s)) => Ok(s),
        Some(v) => Err(format!("`{key}` must be a string, not {}", kind(&v))),
        None => Err(format!("`{key}` is missing")),
    }
}

/// Takes an optional text field: a string, or nothing when it is absent or null.
pub(crate) fn take_opt_text(
    m: &mut Map<String, Value>,
    key: &str,
) -> std::result::Result<Option<String>, String> {
    match m.remove(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(v) => Err(format!("`{key}` must be a string, not {}", kind(&v))),
    }
}

/// An id as text: a non-empty string as it is, an integer written out.
pub(crate) fn id_of(v: Option<&Value>) -> Option<String> {
    match v {
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s.clone()),
        Some(Value::Number(n)) if n.is_i64() || n.is_u64() => Some(n.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_drop_the_byte_order_mark_and_line_breaks_and_name_a_bad_byte() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("x.jsonl");
        std::fs::write(&p, b"\xef\xbb\xbf{\"a\": 1}\r\n\n{\"a\": 2}\n\xff\n").unwrap();
        let mut got = Vec::new();
        let err = lines(&p, |n, l| {
            got.push((n, l.to_string()));
            Ok(true)
        })
        .unwrap_err()
        .to_string();
        assert_eq!(got[0], (1, "{\"a\": 1}".to_string()));
        assert_eq!(got.len(), 3);
        assert!(err.contains("x.jsonl:4") && err.contains("0xff"), "{err}");
    }

    #[test]
    fn a_json_line_that_is_not_an_object_is_named_by_its_line() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("x.jsonl");
        std::fs::write(&p, "{\"a\": 1}\n\n[1, 2]\n").unwrap();
        let err = json_lines(&p, "help", |_, _| Ok(()))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("x.jsonl:3: not a JSON object but a list"),
            "{err}"
        );
        std::fs::write(&p, "{\"a\": 1}\n{\"a\": 2}\n").unwrap();
        let err = json_lines(&p, "help", |_, m| match m["a"].as_u64() {
            Some(2) => Err("two is wrong".into()),
            _ => Ok(()),
        })
        .unwrap_err()
        .to_string();
        assert!(err.contains("x.jsonl:2: two is wrong"), "{err}");
    }
}
