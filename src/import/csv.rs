//! Comma-separated values as RFC 4180 writes them (and pandas' `to_csv`): a header row naming
//! the columns, fields separated by commas, a field with a comma, a quote or a line break
//! inside double quotes, a quote in it doubled. Read one line at a time; a record may span lines.

use super::read;
use crate::error::{Error, Result};
use serde_json::{Map, Value};
use std::path::Path;

/// A record being read: its fields so far, where it started, whether a quote is open.
#[derive(Default)]
struct Partial {
    fields: Vec<String>,
    field: String,
    quoted: bool,
    /// The field's closing quote was read: only a comma or the end of the line may follow.
    closed: bool,
    start: usize,
}

impl Partial {
    /// Reads one line into the record; `Ok(true)` when the record is complete.
    fn feed(&mut self, line: &str) -> std::result::Result<bool, String> {
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            match (self.quoted, c) {
                (true, '"') if chars.peek() == Some(&'"') => {
                    chars.next();
                    self.field.push('"');
                }
                (true, '"') => {
                    self.quoted = false;
                    self.closed = true;
                }
                (true, c) => self.field.push(c),
                (false, ',') => {
                    self.fields.push(std::mem::take(&mut self.field));
                    self.closed = false;
                }
                (false, _) if self.closed => {
                    return Err(format!(
                        "field {} has text after its closing quote",
                        self.fields.len() + 1
                    ))
                }
                (false, '"') if self.field.is_empty() => self.quoted = true,
                (false, c) => self.field.push(c),
            }
        }
        if self.quoted {
            self.field.push('\n');
            return Ok(false);
        }
        self.fields.push(std::mem::take(&mut self.field));
        self.closed = false;
        Ok(true)
    }
}

/// Calls `each` with every record after the header, as (the line it starts on, its fields by
/// column name). Columns with an empty name (pandas' index) are dropped; blank lines are
/// skipped. Errors name the file and the line. Returns the number of records.
pub(crate) fn records(
    path: &Path,
    help: &str,
    mut each: impl FnMut(usize, Map<String, Value>) -> std::result::Result<(), String>,
) -> Result<usize> {
    let mut header: Option<Vec<String>> = None;
    let mut rec = Partial::default();
    let mut count = 0;
    read::lines(path, |n, line| {
        if !rec.quoted {
            if line.trim().is_empty() {
                return Ok(true);
            }
            rec.start = n;
        }
        let start = rec.start;
        let at = move |m: String| Error::input(path, Some(start), m, help);
        if !rec.feed(line).map_err(at)? {
            return Ok(true);
        }
        let fields = std::mem::take(&mut rec.fields);
        let Some(names) = &header else {
            header = Some(fields.into_iter().map(|f| f.trim().to_string()).collect());
            return Ok(true);
        };
        if fields.len() != names.len() {
            return Err(at(format!(
                "this record has {} fields, the header has {}",
                fields.len(),
                names.len()
            )));
        }
        let m: Map<String, Value> = names
            .iter()
            .zip(fields)
            .filter(|(k, _)| !k.is_empty())
            .map(|(k, v)| (k.clone(), Value::String(v)))
            .collect();
        count += 1;
        each(start, m).map_err(at)?;
        Ok(true)
    })?;
    if rec.quoted {
        return Err(Error::input(
            path,
            Some(rec.start),
            "a quoted field is not closed before the end of the file",
            help,
        ));
    }
    Ok(count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_fields_keep_commas_quotes_and_line_breaks() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("x.csv");
        std::fs::write(
            &p,
            ",doc,claim,label\n0,\"The mayor said, \"\"no\"\".\nThen she left.\",She left.,1\n\n1,Plain.,Plain.,0\n",
        )
        .unwrap();
        let mut got = Vec::new();
        let n = records(&p, "h", |line, m| {
            got.push((line, m));
            Ok(())
        })
        .unwrap();
        assert_eq!(n, 2);
        assert_eq!(got[0].0, 2);
        assert_eq!(got[0].1["doc"], "The mayor said, \"no\".\nThen she left.");
        assert!(!got[0].1.contains_key(""));
        assert_eq!(got[1].0, 5);
        assert_eq!(got[1].1["label"], "0");
    }

    #[test]
    fn a_short_record_or_an_open_quote_is_named_by_its_line() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("x.csv");
        std::fs::write(&p, "doc,claim,label\na,b,1\na,b\n").unwrap();
        let err = records(&p, "h", |_, _| Ok(())).unwrap_err().to_string();
        assert!(
            err.contains("x.csv:3: this record has 2 fields, the header has 3"),
            "{err}"
        );
        std::fs::write(&p, "doc,claim,label\n\"a,b,1\n").unwrap();
        let err = records(&p, "h", |_, _| Ok(())).unwrap_err().to_string();
        assert!(
            err.contains("x.csv:2: a quoted field is not closed"),
            "{err}"
        );
        std::fs::write(&p, "doc,claim,label\n\"a\"x,b,1\n").unwrap();
        let err = records(&p, "h", |_, _| Ok(())).unwrap_err().to_string();
        assert!(
            err.contains("x.csv:2: field 1 has text after its closing quote"),
            "{err}"
        );
    }
}
