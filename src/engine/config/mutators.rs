//! The mutators a config names: a rule folder, and LLM mutators (`kind: llm`) with their
//! endpoints, faults and reply caches.

use super::Config;
use crate::error::{Error, Result};
use crate::io::llm::EndpointConfig;
use crate::io::llm::LlmClient;
use crate::mutate::Rules;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// An LLM mutator as configured under `mutators:` (`kind: llm`): an OpenAI-compatible endpoint
/// and the faults to ask it for.
#[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "an LLM mutator: `kind: llm`, `base_url`, `model` and optional `faults`, `examples`, `cache`, `api_key_env`, `prompt`, `timeout_s`, `max_retries`, `backoff_ms`, `max_wait_s`, `batch`"
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
    /// Where `--batch` sends this mutator's requests (default: the OpenAI Batch API at
    /// `base_url`).
    pub batch: Option<Box<crate::io::replies::BatchConfig>>,
    /// The faults to ask for (default: every fault the LLM mutator knows).
    pub faults: Option<Vec<String>>,
    /// The reply cache (default `.faithprobe/llm-mutants.json` beside the config).
    pub cache: Option<PathBuf>,
    /// `real_hard_cases`: show the model a few of the suite's real errors (default: none).
    #[serde(default)]
    pub examples: crate::mutate::llm::Examples,
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
            batch: self.batch.clone(),
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

/// The rule folder, the LLM mutators by name, and how generation goes (compound faults, the cap).
type Mutators = (
    Option<PathBuf>,
    BTreeMap<String, LlmMutatorConfig>,
    crate::mutate::Generation,
);

/// `compound`, `max_per_claim` and `seed` under `mutators:`: true when `name` is one of them
/// (its value then set in `g`), false for any other name.
fn generation_key(
    path: &Path,
    line: Option<usize>,
    name: &str,
    v: &crate::io::yaml::Value,
    g: &mut crate::mutate::Generation,
) -> Result<bool> {
    let bad = |what: &str, fix: &str| Error::input(path, line, what.to_string(), fix.to_string());
    match name {
        "compound" => {
            g.compound = v.as_bool().ok_or_else(|| {
                bad(
                    "`mutators: compound:` must be true or false",
                    "write `compound: true` to add compound faults (a fault in each rewrite of a claim)",
                )
            })?;
        }
        "max_per_claim" => {
            let n = v.as_u64().filter(|n| *n >= 1).ok_or_else(|| {
                bad(
                    "`mutators: max_per_claim:` must be a whole number of at least 1",
                    "write `max_per_claim: 3` to keep at most 3 mutants per claim and operator",
                )
            })?;
            g.max_per_claim = Some(usize::try_from(n).unwrap_or(usize::MAX));
        }
        "seed" => {
            g.seed = v.as_u64().ok_or_else(|| {
                bad(
                    "`mutators: seed:` must be a whole number",
                    "write `seed: 7`: the seed of the cap's sample (the same seed keeps the same mutants)",
                )
            })?;
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// `mutators:` as written: `DIR`, or a mapping of `rules: DIR` and named LLM mutators; the rule
/// folder (resolved against `base`) and the LLM mutators, their lines going into `lines` as
/// `mutator:NAME`.
pub(super) fn parse(
    path: &Path,
    text: &str,
    base: &Path,
    value: Option<crate::io::yaml::Value>,
    lines: &mut BTreeMap<String, usize>,
) -> Result<Mutators> {
    let line_of = |name: &str| super::parse::line_of(text, name);
    // `mutators: DIR`, or a mapping of `rules: DIR` and named LLM mutators
    let mut rules_dir = None;
    let mut llm_mutators = BTreeMap::new();
    let mut generation = crate::mutate::Generation::default();
    match value {
        None | Some(crate::io::yaml::Value::Null) => {}
        Some(crate::io::yaml::Value::String(dir)) => rules_dir = Some(base.join(dir)),
        Some(crate::io::yaml::Value::Mapping(map)) => {
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
                if generation_key(path, line, &name, &v, &mut generation)? {
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
                let m: LlmMutatorConfig = crate::io::yaml::from_value(v).map_err(|e| {
                    Error::input(
                        path,
                        line,
                        format!("mutator `{name}`: {e}"),
                        "an LLM mutator is `{kind: llm, base_url: ..., model: ...}` with optional `faults: [nuanced_meaning_shift, reasoning_error, opinion_as_fact]`; see docs/src/how-to/mutators.md, 'An LLM mutator'",
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
                        "see docs/src/how-to/mutators.md, 'An LLM mutator'",
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
                "write `mutators: DIR`, or `mutators: {rules: DIR, compound: true, max_per_claim: N, seed: N, NAME: {kind: llm, base_url: ..., model: ...}}`",
            ))
        }
    }
    Ok((rules_dir, llm_mutators, generation))
}

impl Config {
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

    /// How generation goes: `--compound` or `compound: true` adds compound faults;
    /// `--max-per-claim` beats `max_per_claim:`; the seed is the config's (default 0).
    pub fn generation(
        &self,
        compound: bool,
        max_per_claim: Option<usize>,
    ) -> crate::mutate::Generation {
        crate::mutate::Generation {
            compound: compound || self.generation.compound,
            max_per_claim: max_per_claim.or(self.generation.max_per_claim),
            seed: self.generation.seed,
        }
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
                    "see docs/src/how-to/mutators.md, 'An LLM mutator'",
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
            use crate::mutate::llm::Examples;
            // examples need a place in the prompt
            let needed: &[&str] = match m.examples {
                Examples::None => &["{passages}", "{claim}", "{fault}"],
                Examples::RealHardCases => &["{passages}", "{claim}", "{fault}", "{examples}"],
            };
            let client = LlmClient::new(settings, needed).map_err(failed)?;
            let cache_path = self.llm_mutant_cache(m);
            let cache = crate::mutate::llm::ReplyCache::open(&cache_path).map_err(failed)?;
            let ops = crate::mutate::llm::LlmMutator::operators(
                name,
                client,
                &m.model,
                &m.faults(),
                m.examples,
                cache,
            )
            .map_err(failed)?;
            let mut made_by = format!("model={} faults={:?}", m.model, m.faults());
            if m.examples == Examples::RealHardCases {
                made_by.push_str(" examples=real_hard_cases");
            }
            rules = rules.with(ops, &made_by);
        }
        Ok(rules)
    }
}
