//! Checking a config's settings without any side effect: each checker's own checks with the
//! file, line and name added, cascades that name configured checkers and never contain
//! themselves, decomposers' endpoints; and, for `doctor`, what building a checker would meet.

use super::{CheckerConfig, Config, DecomposerConfig};
use crate::error::Result;
use std::collections::HashSet;

impl Config {
    /// Checks the settings of the checker `name` without any side effect: numbers in range and
    /// finite, cascades naming checkers that exist and never containing themselves.
    pub fn validate(&self, name: &str) -> Result<()> {
        self.validate_at(name, &mut Vec::new(), &mut HashSet::new())
    }

    /// Validates `name` once: a checker shared by several cascades (a chain of cascades over
    /// the same sub-checkers) is checked the first time only, so validation is linear in the
    /// number of named checkers, never exponential in the depth.
    fn validate_at(
        &self,
        name: &str,
        path: &mut Vec<String>,
        done: &mut HashSet<String>,
    ) -> Result<()> {
        if done.contains(name) {
            return Ok(());
        }
        let Some(c) = self.get(name)? else {
            return Ok(());
        };
        let bad =
            |msg: String, help: &str| self.bad(name, format!("checker `{name}`: {msg}"), help);
        // each kind checks its own settings (check/<kind>.rs); here they get file, line and name
        let own = |p: crate::check::SettingsProblem| bad(p.message, &p.help);
        match c {
            CheckerConfig::Lexical(l) => l.validate().map_err(own)?,
            CheckerConfig::Nli(m) => m.validate("nli").map_err(own)?,
            CheckerConfig::Similarity(m) => m.validate("similarity").map_err(own)?,
            CheckerConfig::Judge(j) => j.validate().map_err(own)?,
            CheckerConfig::Command(c) => c.validate().map_err(own)?,
            CheckerConfig::Cascade(k) => {
                k.validate().map_err(own)?;
                path.push(name.to_string());
                for part in [&k.front, &k.back] {
                    if path.iter().any(|p| p == part) {
                        return Err(bad(
                            format!(
                                "a cascade cannot contain itself ({} → {part})",
                                path.join(" → ")
                            ),
                            "name other checkers as front and back",
                        ));
                    }
                    if !self.checkers.contains_key(part.as_str()) && part != "lexical" {
                        return Err(bad(
                            format!("`{part}` is not a configured checker"),
                            &format!("known: {}", self.checker_names().join(", ")),
                        ));
                    }
                    self.validate_at(part, path, done)?;
                }
                path.pop();
            }
        }
        done.insert(name.to_string());
        Ok(())
    }

    pub(super) fn validate_decomposer(&self, name: &str) -> Result<()> {
        match &self.decomposers[name] {
            DecomposerConfig::Sentences {} => Ok(()),
            DecomposerConfig::Llm(e) => e.validate().map_err(|m| {
                self.bad(
                    &format!("decomposer:{name}"),
                    format!("decomposer `{name}`: {m}"),
                    "see docs/src/how-to/scoring-logs.md",
                )
            }),
        }
    }

    /// Every problem building the checker `name` would meet (a prompt that cannot be read, an
    /// unset API-key variable, a missing model folder), without building it: for `doctor`.
    pub fn problems(&self, name: &str) -> Vec<String> {
        let mut out = Vec::new();
        if let Err(e) = self.validate(name) {
            out.push(e.to_string());
            return out;
        }
        match self.checkers.get(name) {
            Some(CheckerConfig::Judge(j)) => {
                let written = j.endpoint.prompt_or(crate::io::prompts::JUDGE);
                if let Err(e) = crate::io::prompts::read(&written, &self.base.join(&written)) {
                    out.push(e);
                }
                if let Some(var) = &j.endpoint.api_key_env {
                    if std::env::var_os(var).is_none() {
                        out.push(format!(
                            "the environment variable {var} (api_key_env) is not set"
                        ));
                    }
                }
            }
            Some(CheckerConfig::Nli(m) | CheckerConfig::Similarity(m)) => {
                let dir = self.base.join(&m.model);
                if !dir.is_dir() {
                    out.push(format!("model folder {} does not exist", dir.display()));
                }
            }
            _ => {}
        }
        out
    }
}
