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

mod build;
mod mutators;
mod parse;
mod validate;

pub use crate::check::cascade::CascadeConfig;
pub use crate::check::command::CommandConfig;
pub use crate::check::judge::JudgeConfig;
pub use crate::check::lexical::LexicalConfig;
pub use crate::check::onnx::ModelConfig;
use crate::error::{Error, Result};
pub use crate::io::llm::EndpointConfig;
pub use mutators::{LlmKind, LlmMutatorConfig};
pub use parse::json_schema;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The default config file, looked for in the working directory.
pub const DEFAULT_CONFIG: &str = "faithprobe.yaml";

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
    /// `compound`, `max_per_claim` and `seed` under `mutators:`.
    pub generation: crate::mutate::Generation,
    /// The config file's folder: relative paths in it resolve here.
    pub base: PathBuf,
    /// `mix:` as written (checked when loaded; read again by [`Config::mix`]).
    pub mix: Option<String>,
    /// `prices:` by model.
    pub prices: BTreeMap<String, crate::io::llm::Price>,
    /// Line of each checker's and decomposer's name, for errors about it.
    lines: BTreeMap<String, usize>,
}

const HELP: &str = "faithprobe.yaml has `checkers: {NAME: {kind: lexical|nli|similarity|judge|cascade|command, ...}}`, optional `decomposers:` and `mutators:` (a rule folder, or `{rules: DIR, NAME: {kind: llm, ...}}`); see docs/src/reference/config.md";

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
        let file = parse::config_file(path, text)?;
        let base = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("."));
        let mut lines = BTreeMap::new();
        let checkers = parse::checkers(path, text, file.checkers, &mut lines)?;
        let decomposers = parse::decomposers(path, text, file.decomposers, &mut lines)?;
        let (rules_dir, llm_mutators, generation) =
            mutators::parse(path, text, &base, file.mutators, &mut lines)?;
        if let Some(l) = parse::line_of(text, "mix") {
            lines.insert("mix".into(), l);
        }
        for (model, p) in &file.prices {
            let bad = [p.input_per_million, p.output_per_million]
                .iter()
                .any(|x| !x.is_finite() || *x < 0.0)
                || p.batch_discount.is_some_and(|d| !(d > 0.0 && d <= 1.0));
            if bad {
                return Err(Error::input(
                    path,
                    parse::line_of(text, model),
                    format!("the price of `{model}` is not a price"),
                    "write `MODEL: {input_per_million: 2.5, output_per_million: 10}` with non-negative numbers (and `batch_discount` in (0, 1])",
                ));
            }
        }
        let cfg = Config {
            mix: file.mix,
            prices: file.prices,
            path: Some(path.to_path_buf()),
            mutators: rules_dir,
            llm_mutators,
            generation,
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
        cfg.mix(None)?;
        Ok(cfg)
    }

    /// The mix of the "all faults" row: `--mix` beats `mix:` in the file beats `pooled`. A flag's
    /// weights file is relative to the working directory, the file's to the config's folder.
    pub fn mix(&self, cli: Option<&str>) -> Result<crate::engine::mix::Mix> {
        use crate::engine::mix::{Mix, MixProblem};
        let (spec, base) = match (cli, &self.mix) {
            (Some(s), _) => (s, Path::new(".")),
            (None, Some(s)) => (s.as_str(), self.base.as_path()),
            (None, None) => return Ok(Mix::Pooled),
        };
        Mix::parse(spec, base).map_err(|p| match p {
            MixProblem::File(e) => e,
            MixProblem::Unknown(msg) if cli.is_some() => Error::Usage(format!("--mix: {msg}")),
            MixProblem::Unknown(msg) => self.bad(
                "mix",
                format!("`mix:` {msg}"),
                "write `mix: uniform`, or `mix: file:weights.yaml`; see docs/src/concepts/mix.md",
            ),
        })
    }

    fn file(&self) -> PathBuf {
        self.path
            .clone()
            .unwrap_or_else(|| PathBuf::from(DEFAULT_CONFIG))
    }

    fn bad(&self, key: &str, msg: String, help: &str) -> Error {
        Error::input(&self.file(), self.lines.get(key).copied(), msg, help)
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
            None => Err(crate::error::Refusal::UnknownName.with(format!(
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

    /// The model directory of a model checker, resolved against the config file's folder.
    pub fn model_dir(&self, name: &str) -> Option<PathBuf> {
        match self.checkers.get(name)? {
            CheckerConfig::Nli(m) | CheckerConfig::Similarity(m) => Some(self.base.join(&m.model)),
            _ => None,
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
