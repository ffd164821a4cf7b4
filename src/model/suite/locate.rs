//! Finds the line of a key or an id in YAML source text. The YAML crate (behind `io::yaml`)
//! gives positions for syntax and schema errors only; the semantic checks (duplicate ids, empty
//! claims, unknown reviews) use this to point at the line a person has to edit.

use std::collections::HashMap;

/// Line indexes of a YAML text, built in one pass so that locating thousands of ids stays linear.
pub(crate) struct Locator {
    /// First line of each mapping key (`key:` at the start of a line, after `- `).
    keys: HashMap<String, usize>,
    /// Every line holding `id: VALUE`, per value, in order.
    ids: HashMap<String, Vec<usize>>,
}

impl Locator {
    pub fn new(text: &str) -> Self {
        let mut keys = HashMap::new();
        let mut ids: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, line) in text.lines().enumerate() {
            if let Some(k) = leading_key(line) {
                keys.entry(k).or_insert(i + 1);
            }
            for v in id_values(line) {
                let lines = ids.entry(v).or_default();
                if lines.last() != Some(&(i + 1)) {
                    lines.push(i + 1);
                }
            }
        }
        Locator { keys, ids }
    }

    /// 1-based line of the first mapping key `key:` (block or flow style).
    pub fn key(&self, key: &str) -> Option<usize> {
        self.keys.get(key).copied()
    }

    /// 1-based line of the `nth` (0-based) `id: VALUE` entry.
    pub fn id(&self, value: &str, nth: usize) -> Option<usize> {
        self.id_after(value, Some(1), nth)
    }

    /// Like [`Locator::id`], searching from line `from` (1-based) on.
    pub fn id_after(&self, value: &str, from: Option<usize>, nth: usize) -> Option<usize> {
        let from = from.unwrap_or(1);
        self.ids
            .get(value)?
            .iter()
            .filter(|l| **l >= from)
            .nth(nth)
            .copied()
    }
}

/// The key a line starts with (`key:`, `"key":`, `'key':`, after indentation and `- `).
fn leading_key(line: &str) -> Option<String> {
    let t = line.trim_start().trim_start_matches("- ");
    let (key, rest) = if let Some(q @ ('"' | '\'')) = t.chars().next() {
        let end = t[1..].find(q)? + 1;
        (&t[1..end], &t[end + 1..])
    } else {
        let end = t.find(':')?;
        (&t[..end], &t[end..])
    };
    (rest.starts_with(':') && !key.is_empty()).then(|| key.to_string())
}

/// The values of every `id:` entry on a line (flow style may hold several).
fn id_values(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(pos) = rest.find("id:") {
        let before = rest[..pos].chars().next_back();
        let after = rest[pos + 3..].trim_start();
        if before.is_none_or(|c| !c.is_alphanumeric() && c != '_') {
            let value = match after.chars().next() {
                Some(q @ ('"' | '\'')) => after[1..].split(q).next().unwrap_or(""),
                _ => after.split([',', '}', ' ', '#']).next().unwrap_or(""),
            };
            if !value.is_empty() {
                out.push(value.to_string());
            }
        }
        rest = &rest[pos + 3..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_flow_and_block_ids_but_not_prefixes() {
        let l = Locator::new("a:\n  - {id: f10, claim: x}\n  - id: f1\n    claim: y\n");
        assert_eq!(l.id("f1", 0), Some(3));
        assert_eq!(l.id("f10", 0), Some(2));
        assert_eq!(l.key("a"), Some(1));
    }

    #[test]
    fn quoted_ids_and_keys_and_several_ids_on_a_line() {
        let l = Locator::new("reviews:\n  \"m-1\": {review: fault}\n  m-2: {review: fault}\nx: [{id: 'a b', k: 1}, {id: c}]\n");
        assert_eq!(l.key("m-1"), Some(2));
        assert_eq!(l.key("m-2"), Some(3));
        assert_eq!(l.id("a b", 0), Some(4));
        assert_eq!(l.id("c", 0), Some(4));
        assert_eq!(l.id("c", 1), None);
    }
}
