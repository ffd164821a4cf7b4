//! Settings: `faithgate.yaml` and the named checkers it configures.
//!
//! Precedence, in one place: command-line flags > the config file > built-in defaults. The
//! `lexical` checker always exists; configuring a checker named `lexical` changes its settings.

use crate::check::cache::Cache;
use crate::check::lexical::{LexicalChecker, LexicalSettings};
use crate::check::nli::{NliChecker, NliSettings};
use crate::check::similarity::{SimilarityChecker, SimilaritySettings};
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
    /// Model directory (`nli`, `similarity`), relative to the config file.
    #[serde(default)]
    pub model: Option<PathBuf>,
    #[serde(default)]
    pub batch_size: Option<usize>,
    #[serde(default)]
    pub threads: Option<usize>,
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

const HELP: &str = "faithgate.yaml has `checkers: {NAME: {kind: lexical|nli|similarity, threshold: ..., model: DIR, ...}}` and optional `mutators: DIR`; see README.md";

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
        let mut checkers = file.checkers;
        for c in checkers.values_mut() {
            c.model = c.model.take().map(|m| base.join(m));
        }
        let cfg = Config {
            mutators: file.mutators.map(|m| base.join(m)),
            checkers,
            path: Some(path),
            text,
        };
        for name in cfg.checkers.keys() {
            cfg.validate(name)?;
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

    /// Checks the settings of the checker configured under `name` without loading a model.
    pub fn validate(&self, name: &str) -> Result<()> {
        self.build(name, None, false).map(|_| ())
    }

    /// Builds the checker configured under `name`. Model checkers use the verdict cache at
    /// `cache` (None: no cache); a model that cannot be loaded is a config error naming it.
    pub fn checker(&self, name: &str, cache: Option<&Path>) -> Result<Box<dyn Checker>> {
        self.build(name, cache, true)
            .map(|c| c.expect("built when asked to load"))
    }

    /// The kind of the checker configured under `name` (`lexical` when not configured).
    pub fn kind_of(&self, name: &str) -> &str {
        self.checkers
            .get(name)
            .map(|c| c.kind.as_str())
            .unwrap_or("lexical")
    }

    fn build(
        &self,
        name: &str,
        cache: Option<&Path>,
        load: bool,
    ) -> Result<Option<Box<dyn Checker>>> {
        let cfg_path = self
            .path
            .clone()
            .unwrap_or_else(|| PathBuf::from(DEFAULT_CONFIG));
        let Some(c) = self.checkers.get(name) else {
            if name == "lexical" {
                return Ok(Some(Box::new(LexicalChecker::new(
                    "lexical",
                    LexicalSettings::default(),
                ))));
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
        if c.batch_size == Some(0) || c.threads == Some(0) {
            return Err(bad(
                format!("checker `{name}`: batch_size and threads must be at least 1"),
                "remove them to use the defaults, or set a positive number",
            ));
        }
        let model_kind = matches!(c.kind.as_str(), "nli" | "similarity");
        if c.kind == "lexical" {
            if c.model.is_some() || c.batch_size.is_some() || c.threads.is_some() {
                return Err(bad(
                    format!(
                        "checker `{name}` of kind `lexical` takes no model, batch_size or threads"
                    ),
                    "remove them, or use kind `nli` or `similarity`",
                ));
            }
            let d = LexicalSettings::default();
            return Ok(Some(Box::new(LexicalChecker::new(
                name,
                LexicalSettings {
                    threshold: c.threshold.unwrap_or(d.threshold),
                    topic_floor: c.topic_floor.unwrap_or(d.topic_floor),
                    max_window_sentences: c.max_window_sentences.unwrap_or(d.max_window_sentences),
                    indexed: true,
                },
            ))));
        }
        if !model_kind {
            return Err(bad(
                format!(
                    "checker `{name}` has kind `{}`, which this version does not have",
                    c.kind
                ),
                "available kinds: lexical, nli, similarity",
            ));
        }
        let Some(model) = c.model.clone() else {
            return Err(bad(
                format!("checker `{name}` of kind `{}` has no `model`", c.kind),
                "set `model:` to a folder holding model.onnx, tokenizer.json and config.json",
            ));
        };
        if c.topic_floor.is_some() {
            return Err(bad(
                format!("checker `{name}`: topic_floor is a lexical setting"),
                "remove it",
            ));
        }
        if !load {
            return Ok(None);
        }
        let cache = match cache {
            Some(p) => Some(std::sync::Arc::new(Cache::open(p).map_err(Error::Usage)?)),
            None => None,
        };
        let model_err = |e: String| {
            Error::input(
                &cfg_path,
                line,
                format!("checker `{name}`: {e}"),
                "check the `model:` folder and ONNX Runtime; `faithgate doctor` shows what it found",
            )
        };
        if c.kind == "nli" {
            let d = NliSettings::default();
            let s = NliSettings {
                threshold: c.threshold.unwrap_or(d.threshold),
                batch_size: c.batch_size.unwrap_or(d.batch_size),
                threads: c.threads.unwrap_or(d.threads),
                max_window_sentences: c.max_window_sentences.unwrap_or(d.max_window_sentences),
            };
            let checker = NliChecker::new(name, &model, s, cache).map_err(model_err)?;
            Ok(Some(Box::new(checker)))
        } else {
            let d = SimilaritySettings::default();
            let s = SimilaritySettings {
                threshold: c.threshold.unwrap_or(d.threshold),
                batch_size: c.batch_size.unwrap_or(d.batch_size),
                threads: c.threads.unwrap_or(d.threads),
                max_window_sentences: c.max_window_sentences.unwrap_or(d.max_window_sentences),
            };
            let checker = SimilarityChecker::new(name, &model, s, cache).map_err(model_err)?;
            Ok(Some(Box::new(checker)))
        }
    }
}
