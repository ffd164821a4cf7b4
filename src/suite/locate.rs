//! Finds the line of a key or an id in YAML source text. serde_yaml gives positions for syntax
//! and schema errors only; the semantic checks (duplicate ids, empty claims, unknown reviews)
//! use this to point at the line a person has to edit.

pub struct Locator<'a> {
    lines: Vec<&'a str>,
}

impl<'a> Locator<'a> {
    pub fn new(text: &'a str) -> Self {
        Locator {
            lines: text.lines().collect(),
        }
    }

    /// 1-based line of the first mapping key `key:` (block or flow style).
    pub fn key(&self, key: &str) -> Option<usize> {
        self.lines
            .iter()
            .position(|l| {
                let t = l.trim_start().trim_start_matches("- ");
                [key.to_string(), format!("\"{key}\""), format!("'{key}'")]
                    .iter()
                    .any(|k| t.starts_with(&format!("{k}:")))
            })
            .map(|i| i + 1)
    }

    /// 1-based line of the `nth` (0-based) `id: VALUE` entry.
    pub fn id(&self, value: &str, nth: usize) -> Option<usize> {
        self.id_after(value, Some(1), nth)
    }

    /// Like [`Locator::id`], searching from line `from` (1-based) on.
    pub fn id_after(&self, value: &str, from: Option<usize>, nth: usize) -> Option<usize> {
        let start = from.unwrap_or(1).saturating_sub(1);
        self.lines
            .iter()
            .enumerate()
            .skip(start)
            .filter(|(_, l)| has_id(l, value))
            .nth(nth)
            .map(|(i, _)| i + 1)
    }
}

fn has_id(line: &str, value: &str) -> bool {
    let mut rest = line;
    while let Some(pos) = rest.find("id:") {
        let before = rest[..pos].chars().next_back();
        let after = rest[pos + 3..].trim_start();
        let after = after.trim_start_matches(['"', '\'']);
        if before.is_none_or(|c| !c.is_alphanumeric() && c != '_') && after.starts_with(value) {
            let tail = after[value.len()..].chars().next();
            if tail.is_none_or(|c| matches!(c, '"' | '\'' | ',' | '}' | ' ' | '#')) {
                return true;
            }
        }
        rest = &rest[pos + 3..];
    }
    false
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
}
