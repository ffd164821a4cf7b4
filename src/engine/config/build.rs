//! Building what a config names, on demand: each named checker once (a sub-checker several
//! cascades share is one instance), with its model, prompt, key and verdict cache; LLM clients
//! and decomposers.

use super::{CheckerConfig, Config, DecomposerConfig};
use crate::check::cache::Cache;
use crate::check::cascade::CascadeChecker;
use crate::check::command::CommandChecker;
use crate::check::judge::{JudgeChecker, JudgeSettings, Mode};
use crate::check::lexical::{LexicalChecker, LexicalSettings};
use crate::check::nli::NliChecker;
use crate::check::similarity::SimilarityChecker;
use crate::check::Checker;
use crate::error::{Error, Result};
use crate::io::llm::EndpointConfig;
use crate::io::llm::{LlmClient, LlmSettings, DEFAULT_MAX_WAIT};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

impl Config {
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
    pub(super) fn llm_settings(
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
            price: self.prices.get(&e.model).copied(),
            batch: e.batch.as_deref().cloned(),
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
            return Err(crate::error::Refusal::UnknownName.with(format!(
                "no judge checker named `{name}` in {}; the omissions check uses a judge's server and model",
                self.file().display()
            )));
        };
        let failed = |e: String| {
            self.bad(
                name,
                format!("checker `{name}`: {e}"),
                "see docs/src/how-to/llm-judge.md",
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
            return Err(crate::error::Refusal::UnknownName.with(format!(
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
