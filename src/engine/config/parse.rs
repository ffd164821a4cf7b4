//! Reading `faithprobe.yaml` into its named checkers and decomposers, each parsed by its `kind`,
//! with the line of every name for the errors about it.

use super::{CheckerConfig, DecomposerConfig, HELP};
use crate::error::{Error, Result};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

#[derive(Debug, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a config: a mapping with optional `checkers`, `decomposers` and `mutators`"
)]
pub(super) struct ConfigFile {
    #[serde(default)]
    pub checkers: BTreeMap<String, serde_yaml::Value>,
    #[serde(default)]
    pub decomposers: BTreeMap<String, serde_yaml::Value>,
    #[serde(default)]
    pub mutators: Option<serde_yaml::Value>,
}

/// The file's top level: empty text is a config with nothing configured.
pub(super) fn config_file(path: &Path, text: &str) -> Result<ConfigFile> {
    Ok(if text.trim().is_empty() {
        ConfigFile {
            checkers: BTreeMap::new(),
            decomposers: BTreeMap::new(),
            mutators: None,
        }
    } else {
        crate::io::yaml::check_aliases(path, text)?;
        serde_yaml::from_str(text).map_err(|e| Error::from_yaml(path, &e, HELP))?
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
    values: BTreeMap<String, serde_yaml::Value>,
    lines: &mut BTreeMap<String, usize>,
) -> Result<BTreeMap<String, CheckerConfig>> {
    let line_of = |name: &str| line_of(text, name);
    let mut checkers = BTreeMap::new();
    for (name, value) in values {
        let line = line_of(&name);
        let c: CheckerConfig = serde_yaml::from_value(value).map_err(|e| {
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
    Ok(checkers)
}

/// The decomposers under `decomposers:`; their lines go into `lines` as `decomposer:NAME`.
pub(super) fn decomposers(
    path: &Path,
    text: &str,
    values: BTreeMap<String, serde_yaml::Value>,
    lines: &mut BTreeMap<String, usize>,
) -> Result<BTreeMap<String, DecomposerConfig>> {
    let line_of = |name: &str| line_of(text, name);
    let mut decomposers = BTreeMap::new();
    for (name, value) in values {
        let line = line_of(&name);
        let d: DecomposerConfig = serde_yaml::from_value(value).map_err(|e| {
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
