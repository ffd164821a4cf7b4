//! Settings: `faithprobe.yaml`, its named checkers and decomposers.
//!
//! Loading parses and validates the file and nothing else: no prompt file is read, no API-key
//! variable looked at, no model opened. A checker is built (and only then reads what it needs)
//! when a command asks for it by name, so one broken judge never stops `stats`, `doctor` or a run
//! of another checker. Precedence, in one place: command-line flags > the config file > built-in
//! defaults. The `lexical` checker always exists; configuring a checker named `lexical` changes
//! its settings.
//!
//! Relative paths in the file (`model`, `prompt`, `mutators`, and a `command` checker's working
//! folder) resolve against the folder of the config file, not the working directory.

use crate::check::cache::Cache;
use crate::check::cascade::CascadeChecker;
pub use crate::check::cascade::CascadeConfig;
use crate::check::command::CommandChecker;
pub use crate::check::command::CommandConfig;
pub use crate::check::judge::JudgeConfig;
use crate::check::judge::{JudgeChecker, JudgeSettings, Mode};
pub use crate::check::lexical::LexicalConfig;
use crate::check::lexical::{LexicalChecker, LexicalSettings};
use crate::check::nli::NliChecker;
pub use crate::check::onnx::ModelConfig;
use crate::check::similarity::SimilarityChecker;
use crate::check::Checker;
use crate::error::{Error, Result};
pub use crate::io::llm::EndpointConfig;
use crate::io::llm::{LlmClient, LlmSettings, DEFAULT_MAX_WAIT};
use crate::io::yaml;
use crate::mutate::Rules;
use serde::Deserialize;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// The default config file, looked for in the working directory.
pub const DEFAULT_CONFIG: &str = "faithprobe.yaml";

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "a config: a mapping with optional `checkers`, `decomposers` and `mutators`"
)]
struct ConfigFile {
    /// Named checkers, each tagged by `kind`.
    #[serde(default)]
    #[schemars(with = "BTreeMap<String, CheckerConfig>")]
    checkers: BTreeMap<String, yaml::Value>,
    /// Named decomposers for `score`, each tagged by `kind`.
    #[serde(default)]
    #[schemars(with = "BTreeMap<String, DecomposerConfig>")]
    decomposers: BTreeMap<String, yaml::Value>,
    /// A folder of mutation rule files, or a mapping of `rules: DIR` and named LLM mutators.
    #[serde(default)]
    #[schemars(schema_with = "mutators_schema")]
    mutators: Option<yaml::Value>,
}

/// The JSON Schema of `faithprobe.yaml`, from [`ConfigFile`] and the settings types it names.
pub fn json_schema(generator: schemars::SchemaGenerator) -> schemars::Schema {
    generator.into_root_schema_for::<ConfigFile>()
}

/// `mutators:` by hand, as [`Config::from_yaml`] reads it: a folder, or a mapping of an optional
/// `rules: DIR` and LLM mutators by name.
fn mutators_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let llm = generator.subschema_for::<LlmMutatorConfig>();
    schemars::json_schema!({
        "anyOf": [
            {"type": "null"},
            {"type": "string", "description": "a folder of rule files such as number_swap.yaml"},
            {
                "type": "object",
                "properties": {
                    "rules": {"type": "string", "description": "a folder of rule files"}
                },
                "propertyNames": {"pattern": "^[A-Za-z0-9_-]+$"},
                "additionalProperties": llm
            }
        ]
    })
}

/// An LLM mutator as configured under `mutators:` (`kind: llm`): an OpenAI-compatible endpoint
/// and the faults to ask it for.
#[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "an LLM mutator: `kind: llm`, `base_url`, `model` and optional `faults`, `cache`, `api_key_env`, `prompt`, `timeout_s`, `max_retries`, `backoff_ms`, `max_wait_s`"
)]
pub struct LlmMutatorConfig {
    pub kind: LlmKind,
    pub base_url: String,
    pub model: String,
    pub api_key_env: Option<String>,
    pub prompt: Option<PathBuf>,
    pub timeout_s: Option<f64>,
    pub max_retries: Option<u32>,
    pub backoff_ms: Option<u64>,
    pub max_wait_s: Option<f64>,
    /// The faults to ask for (default: every fault the LLM mutator knows).
    pub faults: Option<Vec<String>>,
    /// The reply cache (default `.faithprobe/llm-mutants.json` beside the config).
    pub cache: Option<PathBuf>,
}

/// The one kind of configured mutator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LlmKind {
    Llm,
}

impl LlmMutatorConfig {
    fn endpoint(&self) -> EndpointConfig {
        EndpointConfig {
            base_url: self.base_url.clone(),
            model: self.model.clone(),
            api_key_env: self.api_key_env.clone(),
            prompt: self.prompt.clone(),
            timeout_s: self.timeout_s,
            max_retries: self.max_retries,
            backoff_ms: self.backoff_ms,
            max_wait_s: self.max_wait_s,
        }
    }

    /// The faults asked for, every known one by default.
    pub fn faults(&self) -> Vec<String> {
        self.faults.clone().unwrap_or_else(|| {
            crate::mutate::llm::FAULTS
                .iter()
                .map(|f| f.0.to_string())
                .collect()
        })
    }
}

/// One named checker as configured, tagged by `kind`.
#[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CheckerConfig {
    Lexical(LexicalConfig),
    Nli(ModelConfig),
    Similarity(ModelConfig),
    Judge(JudgeConfig),
    Cascade(CascadeConfig),
    Command(CommandConfig),
}

impl CheckerConfig {
    pub fn kind(&self) -> &'static str {
        match self {
            CheckerConfig::Lexical(_) => "lexical",
            CheckerConfig::Nli(_) => "nli",
            CheckerConfig::Similarity(_) => "similarity",
            CheckerConfig::Judge(_) => "judge",
            CheckerConfig::Cascade(_) => "cascade",
            CheckerConfig::Command(_) => "command",
        }
    }
}

/// One named decomposer as configured: `sentences`, or `llm` over an OpenAI-compatible server.
#[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DecomposerConfig {
    Sentences {},
    Llm(EndpointConfig),
}

/// Loaded, validated settings.
#[derive(Debug, Default)]
pub struct Config {
    pub path: Option<PathBuf>,
    pub checkers: BTreeMap<String, CheckerConfig>,
    pub decomposers: BTreeMap<String, DecomposerConfig>,
    /// Mutator rule directory, resolved against the config file's folder.
    pub mutators: Option<PathBuf>,
    /// LLM mutators by name (`mutators: {NAME: {kind: llm, ...}}`).
    pub llm_mutators: BTreeMap<String, LlmMutatorConfig>,
    /// The config file's folder: relative paths in it resolve here.
    pub base: PathBuf,
    /// Line of each checker's and decomposer's name, for errors about it.
    lines: BTreeMap<String, usize>,
}

const HELP: &str = "faithprobe.yaml has `checkers: {NAME: {kind: lexical|nli|similarity|judge|cascade|command, ...}}`, optional `decomposers:` and `mutators:` (a rule folder, or `{rules: DIR, NAME: {kind: llm, ...}}`); see README.md";

impl Config {
    /// Reads `explicit`, else `faithprobe.yaml` in the working directory if there is one.
    pub fn load(explicit: Option<&Path>) -> Result<Config> {
        let path = match explicit {
            Some(p) => p.to_path_buf(),
            None => {
                let p = PathBuf::from(DEFAULT_CONFIG);
                if !p.exists() {
                    return Ok(Config {
                        base: PathBuf::from("."),
                        ..Config::default()
                    });
                }
                p
            }
        };
        let bytes = std::fs::read(&path).map_err(|e| Error::io(&path, e))?;
        let text = String::from_utf8(bytes).map_err(|e| {
            Error::input(
                &path,
                Some(
                    1 + e.as_bytes()[..e.utf8_error().valid_up_to()]
                        .iter()
                        .filter(|b| **b == b'\n')
                        .count(),
                ),
                "the file is not UTF-8",
                "save it as UTF-8",
            )
        })?;
        Config::from_yaml(&path, text.strip_prefix('\u{feff}').unwrap_or(&text))
    }

    /// Parses and validates config text read from `path` (used for errors and relative paths).
    pub fn from_yaml(path: &Path, text: &str) -> Result<Config> {
        let file: ConfigFile = if text.trim().is_empty() {
            ConfigFile {
                checkers: BTreeMap::new(),
                decomposers: BTreeMap::new(),
                mutators: None,
            }
        } else {
            crate::io::yaml::check_aliases(path, text)?;
            crate::io::yaml::parse(path, text, HELP)?
        };
        let base = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("."));
        let line_of = |name: &str| {
            text.lines()
                .position(|l| {
                    let t = l.trim_start();
                    t.starts_with(&format!("{name}:"))
                        || t.starts_with(&format!("\"{name}\":"))
                        || t.starts_with(&format!("'{name}':"))
                })
                .map(|i| i + 1)
        };
        let mut lines = BTreeMap::new();
        let mut checkers = BTreeMap::new();
        for (name, value) in file.checkers {
            let line = line_of(&name);
            let c: CheckerConfig = yaml::from_value(value).map_err(|e| {
                Error::input(
                    path,
                    line,
                    format!("checker `{name}`: {e}"),
                    "each checker needs `kind:` (lexical, nli, similarity, judge, cascade or command) and only the settings of that kind; see README.md, 'Checkers'",
                )
            })?;
            if let Some(l) = line {
                lines.insert(name.clone(), l);
            }
            checkers.insert(name, c);
        }
        let mut decomposers = BTreeMap::new();
        for (name, value) in file.decomposers {
            let line = line_of(&name);
            let d: DecomposerConfig = yaml::from_value(value).map_err(|e| {
                Error::input(
                    path,
                    line,
                    format!("decomposer `{name}`: {e}"),
                    "a decomposer is `kind: sentences`, or `kind: llm` with base_url and model (and optionally prompt)",
                )
            })?;
            if let Some(l) = line {
                lines.insert(format!("decomposer:{name}"), l);
            }
            decomposers.insert(name, d);
        }
        // `mutators: DIR`, or a mapping of `rules: DIR` and named LLM mutators
        let mut rules_dir = None;
        let mut llm_mutators = BTreeMap::new();
        match file.mutators {
            None | Some(yaml::Value::Null) => {}
            Some(yaml::Value::String(dir)) => rules_dir = Some(base.join(dir)),
            Some(yaml::Value::Mapping(map)) => {
                for (k, v) in map {
                    let name = k.as_str().unwrap_or_default().to_string();
                    let line = line_of(&name);
                    if name == "rules" {
                        let dir = v.as_str().ok_or_else(|| {
                            Error::input(
                                path,
                                line,
                                "`mutators: rules:` must be a folder",
                                "write `rules: my-rules/` (a folder of rule files such as number_swap.yaml)",
                            )
                        })?;
                        rules_dir = Some(base.join(dir));
                        continue;
                    }
                    if name.is_empty()
                        || !name
                            .chars()
                            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
                    {
                        return Err(Error::input(
                            path,
                            line,
                            format!("mutator name {name:?} is not a simple name"),
                            "name an LLM mutator with letters, digits, `_` or `-` (its faults are reported as NAME_FAULT)",
                        ));
                    }
                    let m: LlmMutatorConfig = yaml::from_value(v).map_err(|e| {
                        Error::input(
                            path,
                            line,
                            format!("mutator `{name}`: {e}"),
                            "an LLM mutator is `{kind: llm, base_url: ..., model: ...}` with optional `faults: [nuanced_meaning_shift, reasoning_error, opinion_as_fact]`; see README.md, 'An LLM mutator'",
                        )
                    })?;
                    let problem = m.endpoint().validate().err().or_else(|| {
                        m.faults().iter().find_map(|f| {
                            (!crate::mutate::llm::FAULTS.iter().any(|k| k.0 == f)).then(|| {
                                format!(
                                    "unknown fault `{f}` (known: {})",
                                    crate::mutate::llm::FAULTS
                                        .iter()
                                        .map(|k| k.0)
                                        .collect::<Vec<_>>()
                                        .join(", ")
                                )
                            })
                        })
                    });
                    if let Some(p) = problem {
                        return Err(Error::input(
                            path,
                            line,
                            format!("mutator `{name}`: {p}"),
                            "see README.md, 'An LLM mutator'",
                        ));
                    }
                    if let Some(l) = line {
                        lines.insert(format!("mutator:{name}"), l);
                    }
                    llm_mutators.insert(name, m);
                }
            }
            Some(_) => {
                return Err(Error::input(
                    path,
                    line_of("mutators"),
                    "`mutators:` must be a folder or a mapping",
                    "write `mutators: DIR`, or `mutators: {rules: DIR, NAME: {kind: llm, base_url: ..., model: ...}}`",
                ))
            }
        }
        let cfg = Config {
            path: Some(path.to_path_buf()),
            mutators: rules_dir,
            llm_mutators,
            base,
            checkers,
            decomposers,
            lines,
        };
        for name in cfg.checkers.keys() {
            cfg.validate(name)?;
        }
        for name in cfg.decomposers.keys() {
            cfg.validate_decomposer(name)?;
        }
        Ok(cfg)
    }

    fn file(&self) -> PathBuf {
        self.path
            .clone()
            .unwrap_or_else(|| PathBuf::from(DEFAULT_CONFIG))
    }

    fn bad(&self, key: &str, msg: String, help: &str) -> Error {
        Error::input(&self.file(), self.lines.get(key).copied(), msg, help)
    }

    /// Where the LLM mutator `m` caches its replies.
    fn llm_mutant_cache(&self, m: &LlmMutatorConfig) -> PathBuf {
        match &m.cache {
            Some(c) => self.base.join(c),
            None => self.base.join(".faithprobe/llm-mutants.json"),
        }
    }

    /// The files the config's LLM mutators read their cached replies from: inputs of every
    /// command that generates mutants, so no output may be written over one.
    pub fn llm_mutant_caches(&self) -> Vec<PathBuf> {
        self.llm_mutators
            .values()
            .map(|m| self.llm_mutant_cache(m))
            .collect()
    }

    /// The mutator rules: `--mutators` beats the config file beats the built-in rules; then the
    /// config's LLM mutators, in name order.
    pub fn rules(&self, cli: Option<&Path>) -> Result<Rules> {
        let mut rules = match cli.or(self.mutators.as_deref()) {
            Some(dir) => Rules::from_dir(dir)?,
            None => Rules::builtin(),
        };
        for (name, m) in &self.llm_mutators {
            let key = format!("mutator:{name}");
            let failed = |e: String| {
                self.bad(
                    &key,
                    format!("mutator `{name}`: {e}"),
                    "see README.md, 'An LLM mutator'",
                )
            };
            let settings = self
                .llm_settings(
                    &m.endpoint(),
                    &m.prompt
                        .clone()
                        .unwrap_or_else(|| PathBuf::from(crate::io::prompts::MUTATE)),
                    &self.base,
                )
                .map_err(failed)?;
            let client =
                LlmClient::new(settings, &["{passages}", "{claim}", "{fault}"]).map_err(failed)?;
            let cache_path = self.llm_mutant_cache(m);
            let cache = crate::mutate::llm::ReplyCache::open(&cache_path).map_err(failed)?;
            let ops = crate::mutate::llm::LlmMutator::operators(
                name,
                client,
                &m.model,
                &m.faults(),
                cache,
            )
            .map_err(failed)?;
            rules = rules.with(ops, &format!("model={} faults={:?}", m.model, m.faults()));
        }
        Ok(rules)
    }

    /// The names of every checker there is: `lexical`, then the configured ones.
    pub fn checker_names(&self) -> Vec<&str> {
        std::iter::once("lexical")
            .chain(
                self.checkers
                    .keys()
                    .map(String::as_str)
                    .filter(|k| *k != "lexical"),
            )
            .collect()
    }

    fn get(&self, name: &str) -> Result<Option<&CheckerConfig>> {
        match self.checkers.get(name) {
            Some(c) => Ok(Some(c)),
            None if name == "lexical" => Ok(None),
            None => Err(Error::Usage(format!(
                "no checker named `{name}` (known: {}); configure it under `checkers:` in {}",
                self.checker_names().join(", "),
                self.file().display()
            ))),
        }
    }

    /// The kind of the checker named `name`.
    pub fn kind_of(&self, name: &str) -> Result<&'static str> {
        Ok(self
            .get(name)?
            .map(CheckerConfig::kind)
            .unwrap_or("lexical"))
    }

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

    fn validate_decomposer(&self, name: &str) -> Result<()> {
        match &self.decomposers[name] {
            DecomposerConfig::Sentences {} => Ok(()),
            DecomposerConfig::Llm(e) => e.validate().map_err(|m| {
                self.bad(
                    &format!("decomposer:{name}"),
                    format!("decomposer `{name}`: {m}"),
                    "see README.md, 'Scoring logged answers'",
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

    /// The model directory of a model checker, resolved against the config file's folder.
    pub fn model_dir(&self, name: &str) -> Option<PathBuf> {
        match self.checkers.get(name)? {
            CheckerConfig::Nli(m) | CheckerConfig::Similarity(m) => Some(self.base.join(&m.model)),
            _ => None,
        }
    }

    /// Builds the checker configured under `name`. Model checkers and the judge use the verdict
    /// cache at `cache` (None: no cache). A model, prompt or key that cannot be had is a config
    /// error naming the checker's line.
    pub fn checker(&self, name: &str, cache: Option<&Path>) -> Result<Box<dyn Checker>> {
        self.validate(name)?;
        Ok(Box::new(self.build(name, cache, &mut HashMap::new())?))
    }

    /// Builds `name`, each named checker once: a sub-checker several cascades share is one
    /// instance (one model loaded), however deep the chain.
    fn build(
        &self,
        name: &str,
        cache: Option<&Path>,
        built: &mut HashMap<String, Arc<dyn Checker>>,
    ) -> Result<Arc<dyn Checker>> {
        if let Some(c) = built.get(name) {
            return Ok(c.clone());
        }
        let Some(c) = self.get(name)? else {
            return Ok(Arc::new(LexicalChecker::new(
                "lexical",
                LexicalSettings::default(),
            )));
        };
        let failed = |e: String| {
            self.bad(
                name,
                format!("checker `{name}`: {e}"),
                "check the checker's settings; `faithprobe doctor` shows what it found",
            )
        };
        let open_cache = || -> Result<Option<Arc<Cache>>> {
            cache
                .map(|p| Cache::open(p).map(Arc::new).map_err(Error::Usage))
                .transpose()
        };
        let checker: Arc<dyn Checker> = match c {
            CheckerConfig::Lexical(l) => Arc::new(LexicalChecker::new(name, l.settings())),
            CheckerConfig::Nli(m) | CheckerConfig::Similarity(m) => {
                let kind = c.kind();
                let s = m.settings(kind);
                let dir = self.base.join(&m.model);
                let cache = open_cache()?;
                if kind == "nli" {
                    Arc::new(NliChecker::new(name, &dir, s, cache).map_err(failed)?)
                } else {
                    Arc::new(SimilarityChecker::new(name, &dir, s, cache).map_err(failed)?)
                }
            }
            CheckerConfig::Judge(j) => {
                let settings = JudgeSettings {
                    llm: self
                        .llm_settings(
                            &j.endpoint,
                            &j.endpoint.prompt_or(crate::io::prompts::JUDGE),
                            &self.base,
                        )
                        .map_err(failed)?,
                    mode: j.mode.unwrap_or(Mode::PerClaim),
                    batch_size: j.batch_size.unwrap_or(16),
                    concurrency: j.concurrency.unwrap_or(4),
                };
                Arc::new(JudgeChecker::new(name, settings, open_cache()?).map_err(failed)?)
            }
            CheckerConfig::Cascade(k) => Arc::new(CascadeChecker::new(
                name,
                Box::new(self.build(&k.front, cache, built)?),
                Box::new(self.build(&k.back, cache, built)?),
                k.route_below.unwrap_or(0.5),
                k.settle_below,
            )),
            CheckerConfig::Command(c) => Arc::new(CommandChecker::new(
                name,
                c.argv.clone(),
                self.base.clone(),
                c.limits(),
            )),
        };
        built.insert(name.to_string(), checker.clone());
        Ok(checker)
    }

    /// Settings for an endpoint with its prompt `written` as the user wrote it, read relative to
    /// `base` (or served from the binary when it names a built-in prompt that is not on disk).
    fn llm_settings(
        &self,
        e: &EndpointConfig,
        written: &Path,
        base: &Path,
    ) -> std::result::Result<LlmSettings, String> {
        let (text, from) = crate::io::prompts::read(written, &base.join(written))?;
        Ok(LlmSettings {
            base_url: e.base_url.clone(),
            model: e.model.clone(),
            api_key_env: e.api_key_env.clone(),
            prompt_path: from,
            prompt: text,
            timeout: Duration::from_secs_f64(e.timeout_s.unwrap_or(60.0)),
            max_retries: e.max_retries.unwrap_or(3),
            backoff: Duration::from_millis(e.backoff_ms.unwrap_or(500)),
            max_wait: e
                .max_wait_s
                .map(Duration::from_secs_f64)
                .unwrap_or(DEFAULT_MAX_WAIT),
        })
    }

    /// An LLM client with the connection settings of the judge checker `name` and another prompt
    /// (the omissions check, given on the command line), which must contain each of
    /// `placeholders`.
    pub fn llm_client(
        &self,
        name: &str,
        prompt: &Path,
        placeholders: &[&str],
    ) -> Result<LlmClient> {
        let Some(CheckerConfig::Judge(j)) = self.checkers.get(name) else {
            return Err(Error::Usage(format!(
                "no judge checker named `{name}` in {}; the omissions check uses a judge's server and model",
                self.file().display()
            )));
        };
        let failed = |e: String| {
            self.bad(
                name,
                format!("checker `{name}`: {e}"),
                "see README.md, 'LLM judge'",
            )
        };
        let settings = self
            .llm_settings(&j.endpoint, prompt, Path::new(""))
            .map_err(failed)?;
        LlmClient::new(settings, placeholders).map_err(failed)
    }

    /// Builds the decomposer named `name` (`sentences` always exists).
    pub fn decomposer(&self, name: &str) -> Result<Box<dyn crate::answers::decompose::Decomposer>> {
        use crate::answers::decompose::{LlmDecomposer, Sentences};
        let Some(d) = self.decomposers.get(name) else {
            if name == "sentences" {
                return Ok(Box::new(Sentences));
            }
            return Err(Error::Usage(format!(
                "no decomposer named `{name}` (known: sentences{}); configure it under `decomposers:` in {}",
                self.decomposers.keys().map(|k| format!(", {k}")).collect::<String>(),
                self.file().display()
            )));
        };
        match d {
            DecomposerConfig::Sentences {} => Ok(Box::new(Sentences)),
            DecomposerConfig::Llm(e) => {
                let failed = |m: String| {
                    self.bad(
                        &format!("decomposer:{name}"),
                        format!("decomposer `{name}`: {m}"),
                        "see prompts/decompose-v1.md",
                    )
                };
                let settings = self
                    .llm_settings(e, &e.prompt_or(crate::io::prompts::DECOMPOSE), &self.base)
                    .map_err(failed)?;
                let client =
                    LlmClient::new(settings, &["{question}", "{answer}"]).map_err(failed)?;
                Ok(Box::new(LlmDecomposer::new(name, client)))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(yaml: &str) -> Result<Config> {
        Config::from_yaml(Path::new("dir/faithprobe.yaml"), yaml)
    }

    #[test]
    fn a_judge_with_an_unset_key_and_a_missing_prompt_loads_and_fails_only_when_built() {
        let c = load(
            "checkers:\n  judge:\n    kind: judge\n    base_url: http://127.0.0.1:9/v1\n    model: m\n    api_key_env: FAITHPROBE_TEST_SURELY_UNSET\n    prompt: no-such-prompt.md\n",
        )
        .unwrap();
        assert_eq!(c.kind_of("judge").unwrap(), "judge");
        assert!(c.checker("lexical", None).is_ok());
        let err = c.checker("judge", None).err().unwrap().to_string();
        assert!(
            err.contains("dir/faithprobe.yaml:2") && err.contains("no-such-prompt.md"),
            "{err}"
        );
        let problems = c.problems("judge");
        assert_eq!(problems.len(), 2, "{problems:?}");
    }

    #[test]
    fn settings_of_another_kind_are_errors_naming_the_line() {
        let err = load("checkers:\n  x:\n    kind: lexical\n    model: m\n")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("faithprobe.yaml:2") && err.contains("unknown field `model`"),
            "{err}"
        );
        let err = load("checkers:\n  x:\n    kind: telepathy\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("unknown variant `telepathy`"), "{err}");
    }

    #[test]
    fn non_finite_or_huge_timeouts_are_rejected() {
        for t in [".inf", "1e300", "-1", ".nan", "0"] {
            let y = format!("decomposers:\n  d:\n    kind: llm\n    base_url: http://x/v1\n    model: m\n    prompt: p.md\n    timeout_s: {t}\n");
            let err = load(&y).unwrap_err().to_string();
            assert!(
                err.contains("timeout_s") && err.contains("faithprobe.yaml:2"),
                "{t}: {err}"
            );
        }
    }

    #[test]
    fn a_cascade_that_contains_itself_or_an_unknown_checker_is_an_error() {
        let err = load("checkers:\n  a:\n    kind: cascade\n    front: lexical\n    back: b\n  b:\n    kind: cascade\n    front: a\n    back: lexical\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("cannot contain itself"), "{err}");
        let err = load("checkers:\n  a:\n    kind: cascade\n    front: lexical\n    back: ghost\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("`ghost` is not a configured checker"), "{err}");
    }

    #[test]
    fn absurd_sizes_are_errors() {
        for (field, v) in [
            ("threads", "100000"),
            ("batch_size", "1000000"),
            ("max_window_sentences", "5000"),
        ] {
            let e = load(&format!(
                "checkers:\n  n:\n    kind: nli\n    model: m\n    {field}: {v}\n"
            ))
            .unwrap_err()
            .to_string();
            assert!(e.contains(field) && e.contains("faithprobe.yaml:2"), "{e}");
        }
    }

    #[test]
    fn concurrency_beyond_the_cap_is_an_error() {
        let err = load("checkers:\n  j:\n    kind: judge\n    base_url: http://x/v1\n    model: m\n    prompt: p.md\n    concurrency: 200000\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("concurrency 200000"), "{err}");
    }

    #[test]
    fn relative_paths_resolve_against_the_config_folder() {
        let c = load("checkers:\n  n:\n    kind: nli\n    model: models/x\n").unwrap();
        assert_eq!(c.model_dir("n").unwrap(), PathBuf::from("dir/models/x"));
    }

    #[test]
    fn an_unknown_checker_lists_the_known_ones() {
        let c = load("checkers:\n  strict:\n    kind: lexical\n    threshold: 0.9\n").unwrap();
        let err = c.checker("nope", None).err().unwrap().to_string();
        assert!(err.contains("known: lexical, strict"), "{err}");
    }
}
