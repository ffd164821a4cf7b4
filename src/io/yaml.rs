//! The one module that names the YAML crate (serde_yaml; a test in `tests/layers.rs` holds
//! that): every YAML text faithprobe reads or writes goes through [`parse`], [`from_value`],
//! [`to_value`] and [`to_string`], and the files read in parts hold a [`Value`] or a [`Mapping`].
//! ARCHITECTURE.md says what moving to a maintained fork would take.
//!
//! Also a bound on what YAML aliases may expand to, checked on the text before any YAML input
//! (suite, log, config, rules) is parsed: one anchored 1 MB string repeated 2,000 times by alias
//! is 2 GB once read, from a file of 1 MB. serde_yaml already refuses aliases nested into a bomb;
//! this refuses many flat ones.

use crate::error::{Error, Location};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::collections::HashMap;
use std::path::Path;

/// A YAML document as a tree, for the files read one part at a time (a config's checkers, a side
/// file's reviews), so an error names the line of the part.
pub type Value = serde_yaml::Value;

/// A YAML mapping, its keys in the order written.
pub type Mapping = serde_yaml::Mapping;

/// What the YAML crate says went wrong; its `Display` is the message.
pub type YamlError = serde_yaml::Error;

/// Parses `text` as a `T`; an error is an input error naming `path`, the line and the column,
/// with `help`. Run [`check_aliases`] on an input first.
pub fn parse<T: DeserializeOwned>(path: &Path, text: &str, help: &str) -> Result<T, Error> {
    serde_yaml::from_str(text).map_err(|e| input_error(path, &e, help))
}

/// A part of a document read as [`Value`], now as a `T`.
pub fn from_value<T: DeserializeOwned>(value: Value) -> Result<T, YamlError> {
    serde_yaml::from_value(value)
}

/// `value` as a [`Value`].
pub fn to_value<T: Serialize>(value: &T) -> Result<Value, YamlError> {
    serde_yaml::to_value(value)
}

/// `value` as YAML text.
pub fn to_string<T: Serialize + ?Sized>(value: &T) -> Result<String, YamlError> {
    serde_yaml::to_string(value)
}

/// A YAML error as an input error that names the file and the line.
fn input_error(path: &Path, err: &YamlError, help: &str) -> Error {
    let (line, column) = match err.location() {
        Some(loc) => (Some(loc.line()), Some(loc.column())),
        None => (None, None),
    };
    let mut message = err.to_string();
    // serde_yaml appends " at line L column C"; the location prefix already says it.
    if let Some(pos) = message.find(" at line ") {
        message.truncate(pos);
    }
    Error::Input {
        location: Location::new(path, line, column),
        message,
        help: help.to_string(),
    }
}

/// The most bytes all aliases of one file may expand to: 16 MiB, or four times the file.
pub(crate) fn expansion_limit(text_len: usize) -> usize {
    (16 << 20).max(4 * text_len)
}

fn name_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '-'
}

/// `(column, name)` of every `&anchor` or `*alias` (by `sigil`) on a line, outside quotes, where
/// the sigil starts a node (after a space, `:`, `-`, `[`, `{`, `,` or at the line's start).
fn marks(line: &str, sigil: char) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let (mut single, mut double) = (false, false);
    let mut prev: Option<char> = None;
    let chars: Vec<(usize, char)> = line.char_indices().collect();
    for (k, &(i, c)) in chars.iter().enumerate() {
        match c {
            '\'' if !double => single = !single,
            '"' if !single && prev != Some('\\') => double = !double,
            '#' if !single && !double && prev.is_none_or(char::is_whitespace) => break,
            _ if c == sigil
                && !single
                && !double
                && prev.is_none_or(|p| p.is_whitespace() || ":-[{,".contains(p)) =>
            {
                let name: String = chars[k + 1..]
                    .iter()
                    .map(|(_, c)| *c)
                    .take_while(|c| name_char(*c))
                    .collect();
                if !name.is_empty() {
                    out.push((i, name));
                }
            }
            _ => {}
        }
        prev = Some(c);
    }
    out
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// Refuses a YAML text whose aliases would expand past [`expansion_limit`], naming the line of the
/// alias that crosses it. Sizes are estimated from the text: an anchored node runs from its
/// anchor to the next line indented no deeper than the anchor's line.
pub fn check_aliases(path: &Path, text: &str) -> Result<(), Error> {
    if !text.contains('*') || !text.contains('&') {
        return Ok(());
    }
    let lines: Vec<&str> = text.lines().collect();
    let mut sizes: HashMap<String, usize> = HashMap::new();
    for (n, line) in lines.iter().enumerate() {
        for (col, name) in marks(line, '&') {
            let rest = &line[col..];
            let mut size = rest.len();
            let base = indent(line);
            for next in &lines[n + 1..] {
                if !next.trim().is_empty() && indent(next) <= base {
                    break;
                }
                size += next.len() + 1;
            }
            sizes.insert(name, size);
        }
    }
    let limit = expansion_limit(text.len());
    let mut total = 0usize;
    for (n, line) in lines.iter().enumerate() {
        for (col, name) in marks(line, '*') {
            total = total.saturating_add(sizes.get(&name).copied().unwrap_or(0));
            if total > limit {
                return Err(Error::Input {
                    location: Location::new(path, Some(n + 1), Some(col + 1)),
                    message: format!(
                        "the aliases of this file expand to more than {} MB (this alias, *{name}, passes the limit of 16 MB or four times the file)",
                        limit >> 20
                    ),
                    help: "write the text out where it is needed, or use fewer aliases; a file is not read past this bound".into(),
                });
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn many_aliases_of_a_big_anchor_are_refused_with_the_line() {
        let big = "x".repeat(1 << 20);
        let mut t = format!("- &big \"{big}\"\n");
        for _ in 0..100 {
            t.push_str("- *big\n");
        }
        let err = check_aliases(Path::new("log.yaml"), &t)
            .unwrap_err()
            .to_string();
        assert!(err.contains("log.yaml:") && err.contains("*big"), "{err}");
    }

    #[test]
    fn a_few_small_aliases_and_look_alikes_pass() {
        let t = "defaults: &d {threshold: 0.5}\nchecker:\n  a: *d\n  b: *d\nclaim: \"costs *5 & more\" # *d in a comment\n";
        check_aliases(Path::new("c.yaml"), t).unwrap();
        assert!(marks("claim: \"a *b\" and 'c *d' *e", '*')
            .iter()
            .map(|m| m.1.as_str())
            .eq(["e"]));
    }
}
