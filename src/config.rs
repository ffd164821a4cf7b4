//! Settings: `faithgate.yaml` and the named checkers it configures.
//!
//! Precedence, in one place: command-line flags > the config file > built-in defaults. The
//! `lexical` checker always exists; configuring a checker named `lexical` changes its settings.

use crate::check::cache::Cache;
use crate::check::cascade::CascadeChecker;
use crate::check::command::CommandChecker;
use crate::check::judge::{JudgeChecker, JudgeSettings, Mode};
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
    decomposers: BTreeMap<String, DecomposerConfig>,
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
    /// Model directory (`nli`, `similarity`, relative to the config file) or model name (`judge`).
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub batch_size: Option<usize>,
    #[serde(default)]
    pub threads: Option<usize>,
    // judge
    #[serde(default)]
    pub base_url: Option<String>,
    #[serde(default)]
    pub api_key_env: Option<String>,
    /// Prompt template file, relative to the config file.
    #[serde(default)]
    pub prompt: Option<String>,
    #[serde(default)]
    pub mode: Option<String>,
    #[serde(default)]
    pub concurrency: Option<usize>,
    #[serde(default)]
    pub timeout_s: Option<f64>,
    #[serde(default)]
    pub max_retries: Option<u32>,
    #[serde(default)]
    pub backoff_ms: Option<u64>,
    // cascade
    #[serde(default)]
    pub front: Option<String>,
    #[serde(default)]
    pub back: Option<String>,
    #[serde(default)]
    pub route_below: Option<f64>,
    #[serde(default)]
    pub settle_below: Option<f64>,
    // command
    #[serde(default)]
    pub argv: Option<Vec<String>>,
}

/// One named decomposer as configured: `sentences`, or `llm` over an OpenAI-compatible server.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DecomposerConfig {
    pub kind: String,
    #[serde(default)]
    pub base_url: Option<String>,
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub api_key_env: Option<String>,
    #[serde(default)]
    pub prompt: Option<String>,
    #[serde(default)]
    pub timeout_s: Option<f64>,
    #[serde(default)]
    pub max_retries: Option<u32>,
    #[serde(default)]
    pub backoff_ms: Option<u64>,
}

/// Loaded settings.
#[derive(Debug, Default)]
pub struct Config {
    pub path: Option<PathBuf>,
    pub checkers: BTreeMap<String, CheckerConfig>,
    pub decomposers: BTreeMap<String, DecomposerConfig>,
    /// Mutator rule directory, resolved against the config file's folder.
    pub mutators: Option<PathBuf>,
    /// The config file's folder: relative paths in it resolve here.
    pub base: PathBuf,
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
                decomposers: BTreeMap::new(),
                mutators: None,
            }
        } else {
            serde_yaml::from_str(&text).map_err(|e| Error::from_yaml(&path, &e, HELP))?
        };
        let base = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("."));
        let cfg = Config {
            mutators: file.mutators.map(|m| base.join(m)),
            base,
            checkers: file.checkers,
            decomposers: file.decomposers,
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
        self.build(name, None, false, 0).map(|_| ())
    }

    /// An LLM client with the connection settings of the judge checker `name` and another prompt
    /// (the omissions check), which must contain each of `placeholders`.
    pub fn llm_client(
        &self,
        name: &str,
        prompt: &Path,
        placeholders: &[&str],
    ) -> Result<JudgeChecker> {
        let cfg_path = self
            .path
            .clone()
            .unwrap_or_else(|| PathBuf::from(DEFAULT_CONFIG));
        let c = self.checkers.get(name).filter(|c| c.kind == "judge").ok_or_else(|| {
            Error::Usage(format!("no judge checker named `{name}` in {}; the omissions check uses a judge's server and model", cfg_path.display()))
        })?;
        let (Some(base_url), Some(model)) = (&c.base_url, &c.model) else {
            return Err(Error::input(
                &cfg_path,
                self.line_of(name),
                format!("checker `{name}` needs `base_url` and `model`"),
                "see README.md",
            ));
        };
        let text = std::fs::read_to_string(prompt).map_err(|e| Error::io(prompt, e))?;
        let settings = llm_settings(
            base_url,
            model,
            &c.api_key_env,
            prompt.display().to_string(),
            text,
            (c.timeout_s, c.max_retries, c.backoff_ms),
        );
        JudgeChecker::with_placeholders(name, settings, None, placeholders).map_err(Error::Usage)
    }

    /// Builds the decomposer named `name` (`sentences` always exists).
    pub fn decomposer(&self, name: &str) -> Result<Box<dyn crate::answers::decompose::Decomposer>> {
        use crate::answers::decompose::{LlmDecomposer, Sentences};
        let cfg_path = self
            .path
            .clone()
            .unwrap_or_else(|| PathBuf::from(DEFAULT_CONFIG));
        let Some(d) = self.decomposers.get(name) else {
            if name == "sentences" {
                return Ok(Box::new(Sentences));
            }
            return Err(Error::Usage(format!(
                "no decomposer named `{name}` (known: sentences{}); configure it under `decomposers:` in {}",
                self.decomposers.keys().map(|k| format!(", {k}")).collect::<String>(),
                cfg_path.display()
            )));
        };
        let line = self.line_of(name);
        let bad = |msg: String, help: &str| Error::input(&cfg_path, line, msg, help);
        match d.kind.as_str() {
            "sentences" => Ok(Box::new(Sentences)),
            "llm" => {
                let (Some(base_url), Some(model), Some(prompt)) =
                    (&d.base_url, &d.model, &d.prompt)
                else {
                    return Err(bad(format!("decomposer `{name}` of kind `llm` needs `base_url`, `model` and `prompt`"), "e.g. prompt: prompts/decompose-v1.md"));
                };
                let prompt_path = self.base.join(prompt);
                let text = std::fs::read_to_string(&prompt_path).map_err(|e| {
                    bad(
                        format!(
                            "decomposer `{name}`: cannot read prompt {}: {e}",
                            prompt_path.display()
                        ),
                        "point `prompt:` at a template file",
                    )
                })?;
                let settings = llm_settings(
                    base_url,
                    model,
                    &d.api_key_env,
                    prompt.clone(),
                    text,
                    (d.timeout_s, d.max_retries, d.backoff_ms),
                );
                let client = JudgeChecker::with_placeholders(
                    name,
                    settings,
                    None,
                    &["{question}", "{answer}"],
                )
                .map_err(|e| {
                    bad(
                        format!("decomposer `{name}`: {e}"),
                        "see prompts/decompose-v1.md",
                    )
                })?;
                Ok(Box::new(LlmDecomposer::new(name, client)))
            }
            other => Err(bad(
                format!("decomposer `{name}` has kind `{other}`"),
                "available kinds: sentences, llm",
            )),
        }
    }

    /// The model directory of a model checker, resolved against the config file's folder.
    pub fn model_dir(&self, name: &str) -> Option<PathBuf> {
        let c = self.checkers.get(name)?;
        matches!(c.kind.as_str(), "nli" | "similarity")
            .then(|| c.model.as_ref().map(|m| self.base.join(m)))
            .flatten()
    }

    /// Builds the checker configured under `name`. Model checkers use the verdict cache at
    /// `cache` (None: no cache); a model that cannot be loaded is a config error naming it.
    pub fn checker(&self, name: &str, cache: Option<&Path>) -> Result<Box<dyn Checker>> {
        self.build(name, cache, true, 0)
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
        depth: usize,
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
        let model_kind = matches!(c.kind.as_str(), "nli" | "similarity");
        // which settings each kind takes: anything else is a mistake worth naming
        let allowed: &[&str] = match c.kind.as_str() {
            "lexical" => &["threshold", "topic_floor", "max_window_sentences"],
            "nli" | "similarity" => &[
                "threshold",
                "max_window_sentences",
                "model",
                "batch_size",
                "threads",
            ],
            "judge" => &[
                "model",
                "base_url",
                "api_key_env",
                "prompt",
                "mode",
                "batch_size",
                "concurrency",
                "timeout_s",
                "max_retries",
                "backoff_ms",
            ],
            "cascade" => &["front", "back", "route_below", "settle_below"],
            "command" => &["argv"],
            other => {
                return Err(bad(
                    format!(
                        "checker `{name}` has kind `{other}`, which this version does not have"
                    ),
                    "available kinds: lexical, nli, similarity, judge, cascade, command",
                ))
            }
        };
        let given: Vec<&str> = [
            ("threshold", c.threshold.is_some()),
            ("topic_floor", c.topic_floor.is_some()),
            ("max_window_sentences", c.max_window_sentences.is_some()),
            ("model", c.model.is_some()),
            ("batch_size", c.batch_size.is_some()),
            ("threads", c.threads.is_some()),
            ("base_url", c.base_url.is_some()),
            ("api_key_env", c.api_key_env.is_some()),
            ("prompt", c.prompt.is_some()),
            ("mode", c.mode.is_some()),
            ("concurrency", c.concurrency.is_some()),
            ("timeout_s", c.timeout_s.is_some()),
            ("max_retries", c.max_retries.is_some()),
            ("backoff_ms", c.backoff_ms.is_some()),
            ("front", c.front.is_some()),
            ("back", c.back.is_some()),
            ("route_below", c.route_below.is_some()),
            ("settle_below", c.settle_below.is_some()),
            ("argv", c.argv.is_some()),
        ]
        .into_iter()
        .filter(|(_, set)| *set)
        .map(|(k, _)| k)
        .collect();
        if let Some(extra) = given.iter().find(|k| !allowed.contains(k)) {
            return Err(bad(
                format!(
                    "checker `{name}` of kind `{}` does not take `{extra}`",
                    c.kind
                ),
                &format!("a `{}` checker takes: {}", c.kind, allowed.join(", ")),
            ));
        }
        if c.batch_size == Some(0) || c.threads == Some(0) || c.concurrency == Some(0) {
            return Err(bad(
                format!("checker `{name}`: batch_size, threads and concurrency must be at least 1"),
                "remove them to use the defaults, or set a positive number",
            ));
        }
        let open_cache = |cache: Option<&Path>| -> Result<Option<std::sync::Arc<Cache>>> {
            match cache {
                Some(p) if load => Ok(Some(std::sync::Arc::new(
                    Cache::open(p).map_err(Error::Usage)?,
                ))),
                _ => Ok(None),
            }
        };
        let load_err = |e: String| {
            Error::input(
                &cfg_path,
                line,
                format!("checker `{name}`: {e}"),
                "check the checker's settings; `faithgate doctor` shows what it found",
            )
        };
        match c.kind.as_str() {
            "lexical" => {
                let d = LexicalSettings::default();
                Ok(Some(Box::new(LexicalChecker::new(
                    name,
                    LexicalSettings {
                        threshold: c.threshold.unwrap_or(d.threshold),
                        topic_floor: c.topic_floor.unwrap_or(d.topic_floor),
                        max_window_sentences: c
                            .max_window_sentences
                            .unwrap_or(d.max_window_sentences),
                        indexed: true,
                    },
                ))))
            }
            _ if model_kind => {
                let Some(model) = c.model.as_ref().map(|m| self.base.join(m)) else {
                    return Err(bad(
                        format!("checker `{name}` of kind `{}` has no `model`", c.kind),
                        "set `model:` to a folder holding model.onnx, tokenizer.json and config.json",
                    ));
                };
                if !load {
                    return Ok(None);
                }
                let cache = open_cache(cache)?;
                if c.kind == "nli" {
                    let d = NliSettings::default();
                    let s = NliSettings {
                        threshold: c.threshold.unwrap_or(d.threshold),
                        batch_size: c.batch_size.unwrap_or(d.batch_size),
                        threads: c.threads.unwrap_or(d.threads),
                        max_window_sentences: c
                            .max_window_sentences
                            .unwrap_or(d.max_window_sentences),
                    };
                    Ok(Some(Box::new(
                        NliChecker::new(name, &model, s, cache).map_err(load_err)?,
                    )))
                } else {
                    let d = SimilaritySettings::default();
                    let s = SimilaritySettings {
                        threshold: c.threshold.unwrap_or(d.threshold),
                        batch_size: c.batch_size.unwrap_or(d.batch_size),
                        threads: c.threads.unwrap_or(d.threads),
                        max_window_sentences: c
                            .max_window_sentences
                            .unwrap_or(d.max_window_sentences),
                    };
                    Ok(Some(Box::new(
                        SimilarityChecker::new(name, &model, s, cache).map_err(load_err)?,
                    )))
                }
            }
            "judge" => {
                let (Some(base_url), Some(model), Some(prompt)) =
                    (&c.base_url, &c.model, &c.prompt)
                else {
                    return Err(bad(
                        format!("checker `{name}` of kind `judge` needs `base_url`, `model` and `prompt`"),
                        "e.g. base_url: http://127.0.0.1:8000/v1, model: qwen3-4b, prompt: prompts/judge-v1.md",
                    ));
                };
                let mode = match c.mode.as_deref().unwrap_or("per_claim") {
                    "per_claim" => Mode::PerClaim,
                    "batch" => Mode::Batch,
                    other => {
                        return Err(bad(
                            format!("checker `{name}`: mode `{other}`"),
                            "use `per_claim` or `batch`",
                        ))
                    }
                };
                if c.timeout_s.is_some_and(|t| t.is_nan() || t <= 0.0) {
                    return Err(bad(
                        format!("checker `{name}`: timeout_s must be positive"),
                        "e.g. timeout_s: 60",
                    ));
                }
                let prompt_path = self.base.join(prompt);
                let text = std::fs::read_to_string(&prompt_path).map_err(|e| {
                    Error::input(
                        &cfg_path,
                        line,
                        format!(
                            "checker `{name}`: cannot read prompt {}: {e}",
                            prompt_path.display()
                        ),
                        "point `prompt:` at a template file (see prompts/)",
                    )
                })?;
                let settings = JudgeSettings {
                    mode,
                    batch_size: c.batch_size.unwrap_or(16),
                    concurrency: c.concurrency.unwrap_or(4),
                    ..llm_settings(
                        base_url,
                        model,
                        &c.api_key_env,
                        prompt.clone(),
                        text,
                        (c.timeout_s, c.max_retries, c.backoff_ms),
                    )
                };
                let cache = open_cache(cache)?;
                let judge = JudgeChecker::new(name, settings, cache).map_err(load_err)?;
                Ok(load.then(|| Box::new(judge) as Box<dyn Checker>))
            }
            "cascade" => {
                let (Some(front), Some(back)) = (&c.front, &c.back) else {
                    return Err(bad(
                        format!("checker `{name}` of kind `cascade` needs `front` and `back`"),
                        "name two configured checkers, e.g. front: nli, back: judge",
                    ));
                };
                for v in [c.route_below, c.settle_below].into_iter().flatten() {
                    if !(0.0..=1.0).contains(&v) {
                        return Err(bad(
                            format!(
                                "checker `{name}`: route_below and settle_below must be in [0, 1]"
                            ),
                            "use scores on the front checker's scale",
                        ));
                    }
                }
                if depth > 4 || front == name || back == name {
                    return Err(bad(
                        format!("checker `{name}`: a cascade cannot contain itself"),
                        "name other checkers as front and back",
                    ));
                }
                let f = self.build(front, cache, load, depth + 1)?;
                let b = self.build(back, cache, load, depth + 1)?;
                match (f, b) {
                    (Some(f), Some(b)) => Ok(Some(Box::new(CascadeChecker::new(
                        name,
                        f,
                        b,
                        c.route_below.unwrap_or(0.5),
                        c.settle_below,
                    )))),
                    _ => Ok(None),
                }
            }
            _ => {
                let argv = c.argv.clone().unwrap_or_default();
                if argv.is_empty() {
                    return Err(bad(
                        format!("checker `{name}` of kind `command` needs `argv`"),
                        "e.g. argv: [python3, my_checker.py]",
                    ));
                }
                Ok(Some(Box::new(CommandChecker::new(
                    name,
                    argv,
                    self.base.clone(),
                ))))
            }
        }
    }
}

/// Connection settings for one LLM endpoint (judge, decomposer, omissions check): one claim per
/// call, one call at a time, unless the caller says otherwise. Defaults: 60 s timeout, 3 retries,
/// 500 ms first backoff.
fn llm_settings(
    base_url: &str,
    model: &str,
    api_key_env: &Option<String>,
    prompt_path: String,
    prompt: String,
    (timeout_s, max_retries, backoff_ms): (Option<f64>, Option<u32>, Option<u64>),
) -> JudgeSettings {
    JudgeSettings {
        base_url: base_url.to_string(),
        model: model.to_string(),
        api_key_env: api_key_env.clone(),
        prompt_path,
        prompt,
        mode: Mode::PerClaim,
        batch_size: 1,
        concurrency: 1,
        timeout: std::time::Duration::from_secs_f64(timeout_s.unwrap_or(60.0).max(0.001)),
        max_retries: max_retries.unwrap_or(3),
        backoff: std::time::Duration::from_millis(backoff_ms.unwrap_or(500)),
    }
}
