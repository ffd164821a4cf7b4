//! Reading `faithprobe.yaml` into its named checkers and decomposers, each parsed by its `kind`,
//! with the line of every name for the errors about it.

use super::{CheckerConfig, DecomposerConfig, HELP};
use crate::error::{Error, Result};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "a config: a mapping with optional `checkers`, `decomposers`, `mutators` and `mix`"
)]
pub(super) struct ConfigFile {
    /// Named checkers, each tagged by `kind`.
    #[serde(default)]
    #[schemars(with = "BTreeMap<String, super::CheckerConfig>")]
    pub checkers: BTreeMap<String, crate::io::yaml::Value>,
    /// Named decomposers for `score`, each tagged by `kind`.
    #[serde(default)]
    #[schemars(with = "BTreeMap<String, super::DecomposerConfig>")]
    pub decomposers: BTreeMap<String, crate::io::yaml::Value>,
    /// A folder of mutation rule files, or a mapping of `rules: DIR` and named LLM mutators.
    #[serde(default)]
    #[schemars(schema_with = "mutators_schema")]
    pub mutators: Option<crate::io::yaml::Value>,
    /// The fault-type mix the "all faults" row is weighted to: `pooled` (the default),
    /// `uniform`, or `file:PATH` (a YAML or JSON map of fault type to weight, relative to this
    /// file's folder).
    #[serde(default)]
    pub mix: Option<String>,
    /// Prices per model, in your currency per million tokens: `MODEL: {input_per_million: 2.5,
    /// output_per_million: 10, batch_discount: 0.5}`. Every run, score and report with an LLM says
    /// its cost from them, and `--max-cost` keeps a run under a budget.
    #[serde(default)]
    pub prices: BTreeMap<String, crate::io::llm::Price>,
}

/// The JSON Schema of `faithprobe.yaml`, from [`ConfigFile`] and the settings types it names.
pub fn json_schema(generator: schemars::SchemaGenerator) -> schemars::Schema {
    generator.into_root_schema_for::<ConfigFile>()
}

/// `mutators:` by hand, as the config reads it: a folder, or a mapping of an optional
/// `rules: DIR` and LLM mutators by name.
fn mutators_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let llm = generator.subschema_for::<super::mutators::LlmMutatorConfig>();
    schemars::json_schema!({
        "anyOf": [
            {"type": "null"},
            {"type": "string", "description": "a folder of rule files such as number_swap.yaml"},
            {
                "type": "object",
                "properties": {
                    "rules": {"type": "string", "description": "a folder of rule files"},
                    "compound": {"type": "boolean", "description": "add compound faults: each fault operator applied to each rewrite of a claim"},
                    "max_per_claim": {"type": "integer", "minimum": 1, "description": "keep at most this many mutants per claim and operator, a seeded sample"},
                    "seed": {"type": "integer", "minimum": 0, "description": "the seed of the max_per_claim sample"}
                },
                "propertyNames": {"pattern": "^[A-Za-z0-9_-]+$"},
                "additionalProperties": llm
            }
        ]
    })
}

/// The file's top level: empty text is a config with nothing configured.
pub(super) fn config_file(path: &Path, text: &str) -> Result<ConfigFile> {
    Ok(if text.trim().is_empty() {
        ConfigFile {
            checkers: BTreeMap::new(),
            decomposers: BTreeMap::new(),
            mutators: None,
            mix: None,
            prices: BTreeMap::new(),
        }
    } else {
        crate::io::yaml::check_aliases(path, text)?;
        crate::io::yaml::parse(path, text, HELP)?
    })
}

/// The 1-based line where `name:` opens a mapping entry (quoted or not), if any.
pub(super) fn line_of(text: &str, name: &str) -> Option<usize> {
    text.lines()
        .position(|l| {
            let t = l.trim_start();
            t.starts_with(&format!("{name}:"))
                || t.starts_with(&format!("\"{name}\":"))
                || t.starts_with(&format!("'{name}':"))
        })
        .map(|i| i + 1)
}

/// The checkers under `checkers:`, each by its `kind`; their lines go into `lines`.
pub(super) fn checkers(
    path: &Path,
    text: &str,
    values: BTreeMap<String, crate::io::yaml::Value>,
    lines: &mut BTreeMap<String, usize>,
) -> Result<BTreeMap<String, CheckerConfig>> {
    let line_of = |name: &str| line_of(text, name);
    let mut checkers = BTreeMap::new();
    for (name, value) in values {
        let line = line_of(&name);
        let c: CheckerConfig = crate::io::yaml::from_value(value).map_err(|e| {
            Error::input(
                path,
                line,
                format!("checker `{name}`: {e}"),
                "each checker needs `kind:` (lexical, nli, similarity, judge, cascade or command) and only the settings of that kind; see docs/src/how-to/checkers.md",
            )
        })?;
        if let Some(l) = line {
            lines.insert(name.clone(), l);
        }
        checkers.insert(name, c);
    }
    Ok(checkers)
}

/// The decomposers under `decomposers:`; their lines go into `lines` as `decomposer:NAME`.
pub(super) fn decomposers(
    path: &Path,
    text: &str,
    values: BTreeMap<String, crate::io::yaml::Value>,
    lines: &mut BTreeMap<String, usize>,
) -> Result<BTreeMap<String, DecomposerConfig>> {
    let line_of = |name: &str| line_of(text, name);
    let mut decomposers = BTreeMap::new();
    for (name, value) in values {
        let line = line_of(&name);
        let d: DecomposerConfig = crate::io::yaml::from_value(value).map_err(|e| {
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
    Ok(decomposers)
}
