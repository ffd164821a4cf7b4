//! Settings: `faithgate.yaml` and the named checkers it configures.
//!
//! Precedence, in one place: command-line flags > the config file > built-in defaults. The
//! `lexical` checker always exists; configuring a checker named `lexical` changes its settings.

use crate::check::lexical::{LexicalChecker, LexicalSettings};
use crate::check::Checker;
use crate::error::{Error, Result};
use crate::mutate::Rules;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The default config file, looked for in the working directory.
pub const DEFAULT_CONFIG: &str = "faithgate.yaml";

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    #[serde(default)]
    checkers: BTreeMap<String, CheckerConfig>,
    #[serde(default)]
    mutators: Option<PathBuf>,
}

/// One named checker as configured.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckerConfig {
    pub kind: String,
    #[serde(default)]
    pub threshold: Option<f64>,
    #[serde(default)]
    pub topic_floor: Option<f64>,
    #[serde(default)]
    pub max_window_sentences: Option<usize>,
}

/// Loaded settings.
#[derive(Debug, Default)]
pub struct Config {
    pub path: Option<PathBuf>,
    pub checkers: BTreeMap<String, CheckerConfig>,
    /// Mutator rule directory, resolved against the config file's folder.
    pub mutators: Option<PathBuf>,
    text: String,
}

const HELP: &str = "faithgate.yaml has `checkers: {NAME: {kind: lexical, threshold: 0.75, ...}}` and optional `mutators: DIR`; see README.md";

impl Config {
    /// Reads `explicit`, else `faithgate.yaml` in the working directory if there is one.
    pub fn load(explicit: Option<&Path>) -> Result<Config> {
        let path = match explicit {
            Some(p) => p.to_path_buf(),
            None => {
                let p = PathBuf::from(DEFAULT_CONFIG);
                if !p.exists() {
                    return Ok(Config::default());
                }
                p
            }
        };
        let text = std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?;
        let file: ConfigFile = if text.trim().is_empty() {
            ConfigFile {
                checkers: BTreeMap::new(),
                mutators: None,
            }
        } else {
            serde_yaml::from_str(&text).map_err(|e| Error::from_yaml(&path, &e, HELP))?
        };
        let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let cfg = Config {
            mutators: file.mutators.map(|m| base.join(m)),
            checkers: file.checkers,
            path: Some(path),
            text,
        };
        for name in cfg.checkers.keys() {
            cfg.checker(name)?;
        }
        Ok(cfg)
    }

    fn line_of(&self, name: &str) -> Option<usize> {
        self.text
            .lines()
            .position(|l| l.trim_start().starts_with(&format!("{name}:")))
            .map(|i| i + 1)
    }

    /// The mutator rules: `--mutators` beats the config file beats the built-in rules.
    pub fn rules(&self, cli: Option<&Path>) -> Result<Rules> {
        match cli.or(self.mutators.as_deref()) {
            Some(dir) => Rules::from_dir(dir),
            None => Ok(Rules::builtin()),
        }
    }

    /// Builds the checker configured under `name`.
    pub fn checker(&self, name: &str) -> Result<Box<dyn Checker>> {
        let cfg_path = self
            .path
            .clone()
            .unwrap_or_else(|| PathBuf::from(DEFAULT_CONFIG));
        let Some(c) = self.checkers.get(name) else {
            if name == "lexical" {
                return Ok(Box::new(LexicalChecker::new(
                    "lexical",
                    LexicalSettings::default(),
                )));
            }
            let known: Vec<&str> = std::iter::once("lexical")
                .chain(
                    self.checkers
                        .keys()
                        .map(String::as_str)
                        .filter(|k| *k != "lexical"),
                )
                .collect();
            return Err(Error::Usage(format!(
                "no checker named `{name}` (known: {}); configure it under `checkers:` in {}",
                known.join(", "),
                cfg_path.display()
            )));
        };
        let line = self.line_of(name);
        let bad = |msg: String, help: &str| Error::input(&cfg_path, line, msg, help);
        for (field, v) in [("threshold", c.threshold), ("topic_floor", c.topic_floor)] {
            if let Some(v) = v {
                if !(0.0..=1.0).contains(&v) {
                    return Err(bad(
                        format!("checker `{name}`: {field} {v} is outside [0, 1]"),
                        "use a value between 0 and 1",
                    ));
                }
            }
        }
        if c.max_window_sentences == Some(0) {
            return Err(bad(
                format!("checker `{name}`: max_window_sentences is 0"),
                "use 1 (single sentences) or more",
            ));
        }
        match c.kind.as_str() {
            "lexical" => {
                let d = LexicalSettings::default();
                Ok(Box::new(LexicalChecker::new(
                    name,
                    LexicalSettings {
                        threshold: c.threshold.unwrap_or(d.threshold),
                        topic_floor: c.topic_floor.unwrap_or(d.topic_floor),
                        max_window_sentences: c
                            .max_window_sentences
                            .unwrap_or(d.max_window_sentences),
                        indexed: true,
                    },
                )))
            }
            other => Err(bad(
                format!("checker `{name}` has kind `{other}`, which this version does not have"),
                "available kinds: lexical",
            )),
        }
    }
}
