//! Mutation rule files: the words and patterns the operators use, as data.
//!
//! Every operator in [`super::REGISTRY`] names its rule file and parses it itself; this module
//! holds what they share (reading a file, finding the line of a problem) and [`Rules`], the set of
//! built operators a run uses. A `--mutators DIR` folder may hold any subset of the rule files:
//! each file there overrides its operator, every other operator keeps its built-in rules.

use super::{Mutator, Operator, REGISTRY};
use crate::error::{Error, Result};
use serde::de::DeserializeOwned;
use std::path::Path;
use std::sync::Arc;

/// Parses one rule file's YAML into an operator's rule struct, with the file's name in errors.
pub fn parse<T: DeserializeOwned>(path: &Path, text: &str) -> Result<T> {
    crate::io::yaml::check_aliases(path, text)?;
    crate::io::yaml::parse(
        path,
        text,
        "compare with the rule file of the same name shipped in mutators/ (faithprobe mutants --list names them)",
    )
}

/// The 1-based line of the first line of `text` that `hit` accepts.
pub fn line_of(text: &str, hit: &dyn Fn(&str) -> bool) -> Option<usize> {
    text.lines().position(hit).map(|i| i + 1)
}

/// A line that writes an empty word (`""`, `''`, `[,` or `, ,`) outside a comment.
pub fn writes_empty_word(line: &str) -> bool {
    let t = line.split('#').next().unwrap_or("");
    t.contains("\"\"") || t.contains("''") || t.contains("[,") || t.contains(", ,")
}

/// An error for a word list with an empty word, at its line.
pub fn empty_word_error(path: &Path, text: &str, what: &str) -> Error {
    Error::input(
        path,
        line_of(text, &writes_empty_word),
        format!("{what} is empty"),
        "every word must have at least one letter",
    )
}

/// The operators a run uses, each built from its rule file, in [`REGISTRY`] order.
#[derive(Clone)]
pub struct Rules {
    built: Vec<super::Built>,
    /// Where the rules came from, for reports.
    pub source: String,
    /// What the fingerprint is taken of: each operator's name and its rules' text (an LLM
    /// mutator's name, model and faults).
    identity: String,
    /// Compound faults and the cap on mutants per claim (off by default).
    pub generation: Generation,
}

/// How generation goes beyond each operator's own edits of a claim: compound faults (a fault
/// operator applied to each rewrite of the claim) and a cap on the mutants a claim keeps per
/// operator, sampled by `seed`. The default (neither) is what every suite had before.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Generation {
    pub compound: bool,
    pub max_per_claim: Option<usize>,
    pub seed: u64,
}

impl std::fmt::Debug for Rules {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rules")
            .field("operators", &self.built.len())
            .field("source", &self.source)
            .finish()
    }
}

/// One operator's part of the fingerprint: its name and text, each with its length, so no two
/// different sets of rules give the same bytes.
fn identity_of(name: &str, text: &str) -> String {
    format!("{}:{name}{}:{text}", name.len(), text.len())
}

impl Rules {
    /// The rules shipped in `mutators/`, compiled in (built once per process).
    pub fn builtin() -> Rules {
        static BUILT: std::sync::LazyLock<Rules> = std::sync::LazyLock::new(|| Rules {
            identity: REGISTRY
                .iter()
                .map(|op| identity_of(op.name, op.builtin))
                .collect(),
            built: REGISTRY
                .iter()
                .map(|op| {
                    let path = Path::new("mutators").join(op.rules);
                    let m = (op.build)(&path, op.builtin)
                        .expect("the shipped mutator rules are valid (tested)");
                    (op, Arc::from(m))
                })
                .collect(),
            source: "builtin".into(),
            generation: Generation::default(),
        });
        BUILT.clone()
    }

    /// Reads the rule files found in `dir`; an operator whose file is absent keeps its built-in
    /// rules. A `.yaml` file that is no operator's rule file is an error (most likely a typo).
    pub fn from_dir(dir: &Path) -> Result<Rules> {
        let listing = std::fs::read_dir(dir).map_err(|e| {
            Error::input(
                dir,
                None,
                format!("cannot read the mutator rule folder: {e}"),
                "pass a folder holding rule files such as number_swap.yaml (see mutators/)",
            )
        })?;
        let mut names: Vec<String> = listing
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".yaml") || n.ends_with(".yml"))
            .collect();
        names.sort();
        if let Some(stray) = names
            .iter()
            .find(|n| !REGISTRY.iter().any(|op| op.rules == n.as_str()))
        {
            let known: Vec<&str> = REGISTRY.iter().map(|op| op.rules).collect();
            return Err(Error::input(
                &dir.join(stray),
                None,
                "this file is no operator's rule file, so it would be ignored",
                format!(
                    "rename it to one of: {} (or move it out of the folder)",
                    known.join(", ")
                ),
            ));
        }
        let builtin = Rules::builtin();
        let mut built = Vec::with_capacity(REGISTRY.len());
        let mut overridden = Vec::new();
        let mut identity = String::new();
        for (op, default) in builtin.built {
            let path = dir.join(op.rules);
            if names.iter().any(|n| n == op.rules) {
                let text = crate::error::read_input(&path)?;
                built.push((op, Arc::from((op.build)(&path, &text)?)));
                overridden.push(op.name);
                identity.push_str(&identity_of(op.name, &text));
            } else {
                built.push((op, default));
                identity.push_str(&identity_of(op.name, op.builtin));
            }
        }
        Ok(Rules {
            identity,
            generation: Generation::default(),
            built,
            source: format!(
                "{} (overrides {}; the rest built in)",
                dir.display(),
                if overridden.is_empty() {
                    "nothing".to_string()
                } else {
                    overridden.join(", ")
                }
            ),
        })
    }

    /// These rules with more operators after the registry's (the LLM mutators of a config);
    /// `settings` says what makes them (model, faults) for the fingerprint.
    pub fn with(mut self, more: Vec<super::Built>, settings: &str) -> Rules {
        if !more.is_empty() {
            let names: Vec<&str> = more.iter().map(|(op, _)| op.name).collect();
            self.source = format!("{} and {}", self.source, names.join(", "));
            for name in names {
                self.identity.push_str(&identity_of(name, settings));
            }
        }
        self.built.extend(more);
        self
    }

    /// These rules generating with `g`; anything but the default is part of the fingerprint
    /// (the same rules with a cap or compound faults make other mutants).
    pub fn with_generation(mut self, g: Generation) -> Rules {
        if g != Generation::default() {
            let how = format!(
                "compound={} max_per_claim={:?} seed={}",
                g.compound, g.max_per_claim, g.seed
            );
            self.identity.push_str(&identity_of("generation", &how));
            let mut parts = Vec::new();
            if g.compound {
                parts.push("compound faults".to_string());
            }
            if let Some(c) = g.max_per_claim {
                parts.push(format!(
                    "at most {c} per claim and operator (seed {})",
                    g.seed
                ));
            }
            if !parts.is_empty() {
                self.source = format!("{}; {}", self.source, parts.join(", "));
            }
        }
        self.generation = g;
        self
    }

    /// These rules with only the operators named in `names` (the others dropped), for a
    /// benchmark that measures a set of operators, such as the thirteen a suite had before the
    /// later ones were added. The names kept are part of the fingerprint.
    #[doc(hidden)]
    pub fn keeping(mut self, names: &[&str]) -> Rules {
        self.built.retain(|(op, _)| names.contains(&op.name));
        let kept: Vec<&str> = self.built.iter().map(|(op, _)| op.name).collect();
        self.identity
            .push_str(&identity_of("only", &kept.join(",")));
        self.source = format!("{} (only {})", self.source, kept.join(", "));
        self
    }

    /// The SHA-256 (first 16 bytes, hex) of every operator's name and rules: two runs whose
    /// mutants were made by the same rules share it; records carry it, and `merge` joins only
    /// shards that share it.
    pub fn fingerprint(&self) -> String {
        crate::text::hash::sha256_hex(self.identity.as_bytes(), 16)
    }

    /// Every operator with its built mutator, in report order.
    pub fn operators(&self) -> impl Iterator<Item = (&'static Operator, &dyn Mutator)> {
        self.built.iter().map(|(op, m)| (*op, m.as_ref()))
    }

    /// The built mutator of the operator `name`.
    pub fn get(&self, name: &str) -> Option<&dyn Mutator> {
        self.operators()
            .find(|(op, _)| op.name == name)
            .map(|(_, m)| m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shipped_rule_file_parses_and_names_its_operator() {
        let r = Rules::builtin();
        assert_eq!(r.operators().count(), REGISTRY.len());
        for op in REGISTRY {
            assert_eq!(op.rules, format!("{}.yaml", op.name), "{}", op.name);
            assert!(
                op.builtin.starts_with(&format!("# {}:", op.name)),
                "{} opens with what it does",
                op.name
            );
        }
    }

    #[test]
    fn a_folder_overrides_some_operators_and_inherits_the_rest() {
        let dir = std::env::temp_dir().join(format!("fp-rules-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("negation_flip.yaml"),
            "# negation_flip: test\npairs: [[\"is not\", \"is\"]]\n",
        )
        .unwrap();
        let r = Rules::from_dir(&dir).unwrap();
        assert_eq!(r.operators().count(), REGISTRY.len());
        assert!(r.source.contains("overrides negation_flip"), "{}", r.source);
        std::fs::write(dir.join("negation.yaml"), "pairs: []\n").unwrap();
        let e = Rules::from_dir(&dir).unwrap_err().to_string();
        assert!(
            e.contains("negation.yaml") && e.contains("negation_flip.yaml"),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
