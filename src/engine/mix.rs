//! The declared mix: the distribution of fault types the "all faults" row is weighted to.
//!
//! A suite's pooled count weighs each fault type by how many faults it happens to have, which is
//! how many claims the operator's rules matched, not how often the error occurs. `mix:` (in
//! `faithprobe.yaml`, or `--mix`) names the weights instead:
//!
//! - `pooled` (the default): every fault counts once, the plain count with its Wilson interval;
//! - `uniform`: every fault type with faults weighs the same;
//! - `file:PATH`: a YAML or JSON map of fault type to weight (any non-negative numbers; they are
//!   normalised over the fault types the suite has faults of).
//!
//! No public typology's shares ship yet: their figures were not checked against the papers, and
//! their classes (RAGTruth's evident and subtle conflict and baseless information, FaithBench's
//! intrinsic and extrinsic) each cover several fault types, so a split among them would be a
//! choice, not a figure. A team that wants one writes a weights file and says where the numbers
//! come from.
//!
//! A weighted rate is the stratified estimate `sum_k w_k k_k / n_k` with the interval of
//! [`crate::stats::stratified`], never Wilson on weighted counts.

use crate::error::{Error, Result};
use crate::stats::stratified::{stratified, Stratum};
use crate::stats::Rate;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What `mix:` and `--mix` accept, for errors.
pub const EXPECTING: &str = "`pooled` (the default), `uniform`, or `file:PATH` (a YAML or JSON map of fault type to weight)";

/// A declared mix of fault types.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Mix {
    /// Every fault counts once.
    #[default]
    Pooled,
    /// Every fault type with faults weighs the same.
    Uniform,
    /// Weights read from a file.
    File {
        /// The path as written after `file:`, which reports name.
        written: String,
        path: PathBuf,
        weights: BTreeMap<String, f64>,
    },
}

impl Mix {
    /// Reads a mix as written (`pooled`, `uniform`, `file:PATH`), a file's path resolved against
    /// `base`. `Err` is the problem in words, for the caller to place (a flag or a config line).
    pub fn parse(spec: &str, base: &Path) -> std::result::Result<Mix, MixProblem> {
        match spec.trim() {
            "pooled" => Ok(Mix::Pooled),
            "uniform" => Ok(Mix::Uniform),
            s => match s.strip_prefix("file:") {
                Some(p) if !p.trim().is_empty() => {
                    let path = base.join(p.trim());
                    let weights = read_weights(&path).map_err(MixProblem::File)?;
                    Ok(Mix::File {
                        written: p.trim().to_string(),
                        path,
                        weights,
                    })
                }
                _ => Err(MixProblem::Unknown(format!(
                    "unknown mix `{s}`: a mix is {EXPECTING}"
                ))),
            },
        }
    }

    /// The mix's name as reports print it: `pooled`, `uniform`, `file:PATH`.
    pub fn name(&self) -> String {
        match self {
            Mix::Pooled => "pooled".into(),
            Mix::Uniform => "uniform".into(),
            Mix::File { written, .. } => format!("file:{written}"),
        }
    }
}

/// Why a mix could not be read: an unknown name (the caller says where it was written), or a
/// weights file that does not read (the error names the file and line).
#[derive(Debug)]
pub enum MixProblem {
    Unknown(String),
    File(Error),
}

/// The 1-based line of `key:` in a weights file (quoted or not).
fn line_of(text: &str, key: &str) -> Option<usize> {
    text.lines()
        .position(|l| {
            let t = l.trim_start().trim_start_matches(['{', ',', ' ']);
            [
                format!("{key}:"),
                format!("\"{key}\":"),
                format!("'{key}':"),
            ]
            .iter()
            .any(|k| t.starts_with(k.as_str()))
        })
        .map(|i| i + 1)
}

/// What a weights file must look like, in every error about one.
const WEIGHTS_HELP: &str = "a weights file is a map of fault type to a non-negative number, e.g. `number_swap: 0.3` on each line (YAML) or {\"number_swap\": 0.3} (JSON); see docs/src/concepts/mix.md";

/// Reads a weights file: a map of fault type to a finite non-negative number, not all zero.
pub fn read_weights(path: &Path) -> Result<BTreeMap<String, f64>> {
    let text = crate::error::read_input(path)?;
    crate::io::yaml::check_aliases(path, &text)?;
    let value: crate::io::yaml::Value = crate::io::yaml::parse(path, &text, WEIGHTS_HELP)?;
    let crate::io::yaml::Value::Mapping(map) = value else {
        return Err(Error::input(
            path,
            Some(1),
            "the weights file is not a map of fault type to weight",
            WEIGHTS_HELP,
        ));
    };
    let mut weights = BTreeMap::new();
    for (k, v) in map {
        let Some(name) = k.as_str().map(str::to_string) else {
            return Err(Error::input(
                path,
                None,
                format!("a fault type must be a name, not {k:?}"),
                WEIGHTS_HELP,
            ));
        };
        let line = line_of(&text, &name);
        let w = v.as_f64().filter(|w| w.is_finite() && *w >= 0.0);
        let Some(w) = w else {
            return Err(Error::input(
                path,
                line,
                format!("the weight of `{name}` must be a non-negative number"),
                format!("write `{name}: 0.25` (weights need not sum to 1: they are normalised); {WEIGHTS_HELP}"),
            ));
        };
        weights.insert(name, w);
    }
    if weights.values().all(|w| *w == 0.0) {
        return Err(Error::input(
            path,
            Some(1),
            "the weights file gives no fault type a weight above 0",
            WEIGHTS_HELP,
        ));
    }
    Ok(weights)
}

/// The "all faults" row under a mix: the rate, its interval, and what it rests on.
#[derive(Debug, Clone, Serialize)]
pub struct MixedRate {
    /// The mix's name (`pooled`, `uniform`, `file:PATH`).
    pub mix: String,
    /// The row's label, with the mix and any cap: `all faults (mix: uniform)`.
    pub label: String,
    /// Faults caught and scored, over every weighted fault type.
    pub k: u64,
    pub n: u64,
    /// The weighted rate (the plain one under `pooled`); None when no fault type has faults.
    pub rate: Option<f64>,
    pub ci_low: f64,
    pub ci_high: f64,
    /// How the interval is made: `wilson` (pooled) or `stratified` (see `stats::stratified`).
    pub method: &'static str,
    /// The effective n a stratified interval is Wilson's on (the plain n under `pooled`).
    pub n_effective: f64,
    /// Each weighted fault type's normalised weight (empty under `pooled`).
    pub weights: BTreeMap<String, f64>,
    /// Fault types the mix weighs that this suite has no scored fault of: left out, the other
    /// weights renormalised.
    pub missing: Vec<String>,
    /// Fault types with faults the mix gives no weight (a weights file that does not name them).
    pub unweighted: Vec<String>,
    /// The cap on mutants per claim and operator the mutants were made under, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_per_claim: Option<usize>,
}

/// The label of the "all faults" row: the mix, and the cap on mutants per claim and operator
/// when one is set (`cap 2`: at most 2 mutants of a claim by one operator; see [`cap_note`]).
pub fn label(mix: &str, cap: Option<usize>) -> String {
    match cap {
        None => format!("all faults (mix: {mix})"),
        Some(c) => format!("all faults (mix: {mix}, cap {c})"),
    }
}

/// What `cap N` in a label means, said once under a table that has one.
pub fn cap_note(cap: usize) -> String {
    format!("cap {cap}: at most {cap} mutant(s) of a claim per operator were kept, a seeded sample (`max_per_claim`); the rest are skips with the reason `cap` in `faithprobe mutants`")
}

/// The "all faults" row of fault-type rows `(fault type, caught)` under `mix`; `pooled` is the
/// plain count of every fault, whatever the rows.
pub fn mixed_rate(
    mix: &Mix,
    rows: &[(&str, Rate)],
    pooled: Rate,
    cap: Option<usize>,
    confidence: f64,
) -> MixedRate {
    let with_faults: Vec<&(&str, Rate)> = rows.iter().filter(|(_, r)| r.n > 0).collect();
    let (weights, missing): (BTreeMap<String, f64>, Vec<String>) = match mix {
        Mix::Pooled => {
            return MixedRate {
                mix: mix.name(),
                label: label(&mix.name(), cap),
                k: pooled.k,
                n: pooled.n,
                rate: pooled.rate,
                ci_low: pooled.ci_low,
                ci_high: pooled.ci_high,
                method: "wilson",
                n_effective: pooled.n as f64,
                weights: BTreeMap::new(),
                missing: Vec::new(),
                unweighted: Vec::new(),
                max_per_claim: cap,
            }
        }
        Mix::Uniform => (
            with_faults
                .iter()
                .map(|(t, _)| (t.to_string(), 1.0))
                .collect(),
            Vec::new(),
        ),
        Mix::File { weights, .. } => (
            weights
                .iter()
                .filter(|(t, w)| **w > 0.0 && with_faults.iter().any(|(f, _)| f == t))
                .map(|(t, w)| (t.clone(), *w))
                .collect(),
            weights
                .iter()
                .filter(|(t, w)| **w > 0.0 && !with_faults.iter().any(|(f, _)| f == *t))
                .map(|(t, _)| t.clone())
                .collect(),
        ),
    };
    let total: f64 = weights.values().sum();
    let strata: Vec<Stratum> = with_faults
        .iter()
        .filter_map(|(t, r)| {
            weights.get(*t).map(|w| Stratum {
                k: r.k,
                n: r.n,
                weight: *w,
            })
        })
        .collect();
    let w = stratified(&strata, confidence);
    MixedRate {
        mix: mix.name(),
        label: label(&mix.name(), cap),
        k: strata.iter().map(|s| s.k).sum(),
        n: strata.iter().map(|s| s.n).sum(),
        rate: w.rate,
        ci_low: w.ci_low,
        ci_high: w.ci_high,
        method: "stratified",
        n_effective: w.n_effective,
        weights: weights
            .iter()
            .map(|(t, v)| (t.clone(), v / total))
            .collect(),
        unweighted: with_faults
            .iter()
            .filter(|(t, _)| !weights.contains_key(*t))
            .map(|(t, _)| t.to_string())
            .collect(),
        missing,
        max_per_claim: cap,
    }
}

impl MixedRate {
    /// The warning about the mix's fault types this suite has no faults of, or `None`.
    pub fn warning(&self, suite: &str) -> Option<String> {
        (!self.missing.is_empty()).then(|| {
            format!(
                "warning: {suite}: mix {} weighs fault types with no scored fault in this suite: {}; they are left out and the other weights renormalised",
                self.mix,
                self.missing.join(", ")
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows() -> Vec<(&'static str, Rate)> {
        vec![
            ("number_swap", Rate::new(6, 6, 0.95)),
            ("negation_flip", Rate::new(7, 9, 0.95)),
            ("attribution_swap", Rate::new(0, 0, 0.95)),
            ("dropped_condition", Rate::new(0, 2, 0.95)),
        ]
    }

    fn pooled() -> Rate {
        Rate::new(13, 17, 0.95)
    }

    #[test]
    fn pooled_is_the_plain_count_and_says_so() {
        let m = mixed_rate(&Mix::Pooled, &rows(), pooled(), None, 0.95);
        assert_eq!((m.k, m.n, m.rate), (13, 17, Some(13.0 / 17.0)));
        assert_eq!(m.label, "all faults (mix: pooled)");
        assert_eq!(m.method, "wilson");
    }

    #[test]
    fn uniform_weighs_each_fault_type_with_faults_the_same() {
        let m = mixed_rate(&Mix::Uniform, &rows(), pooled(), Some(2), 0.95);
        let want = (1.0 + 7.0 / 9.0 + 0.0) / 3.0;
        assert!((m.rate.unwrap() - want).abs() < 1e-12, "{m:?}");
        assert_eq!(m.weights.len(), 3);
        assert!(m.ci_low < want && want < m.ci_high);
        assert_eq!(m.label, "all faults (mix: uniform, cap 2)");
        assert!(m.missing.is_empty() && m.warning("larkspur").is_none());
    }

    #[test]
    fn a_file_mix_renormalises_over_the_fault_types_present_and_names_the_rest() {
        let weights: BTreeMap<String, f64> = [
            ("number_swap", 0.5),
            ("negation_flip", 0.25),
            ("date_shift", 0.25),
            ("attribution_swap", 0.1),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        let mix = Mix::File {
            written: "weights.yaml".into(),
            path: "weights.yaml".into(),
            weights,
        };
        let m = mixed_rate(&mix, &rows(), pooled(), None, 0.95);
        let want = (0.5 * 1.0 + 0.25 * 7.0 / 9.0) / 0.75;
        assert!((m.rate.unwrap() - want).abs() < 1e-12, "{m:?}");
        assert_eq!(m.missing, ["attribution_swap", "date_shift"]);
        assert_eq!(m.unweighted, ["dropped_condition"]);
        assert_eq!((m.k, m.n), (13, 15));
        let w = m.warning("larkspur").unwrap();
        assert!(w.contains("attribution_swap, date_shift"), "{w}");
    }

    #[test]
    fn a_mix_is_pooled_uniform_or_a_file() {
        let base = Path::new(".");
        assert_eq!(Mix::parse("pooled", base).unwrap(), Mix::Pooled);
        assert_eq!(Mix::parse(" uniform ", base).unwrap(), Mix::Uniform);
        let Err(MixProblem::Unknown(e)) = Mix::parse("ragtruth", base) else {
            panic!("ragtruth is no mix")
        };
        assert!(
            e.contains("unknown mix `ragtruth`") && e.contains("file:PATH"),
            "{e}"
        );
        assert!(matches!(
            Mix::parse("file:", base),
            Err(MixProblem::Unknown(_))
        ));
    }

    #[test]
    fn a_weights_file_reads_as_yaml_or_json_and_a_bad_one_names_its_line() {
        let dir = tempfile::tempdir().unwrap();
        let yaml = dir.path().join("w.yaml");
        std::fs::write(
            &yaml,
            "# shares from our own labelled logs\nnumber_swap: 0.3\nentity_swap: 0.7\n",
        )
        .unwrap();
        let w = read_weights(&yaml).unwrap();
        assert_eq!(w["entity_swap"], 0.7);
        let json = dir.path().join("w.json");
        std::fs::write(&json, "{\"number_swap\": 1, \"added_detail\": 3}").unwrap();
        assert_eq!(read_weights(&json).unwrap()["added_detail"], 3.0);
        let bad = dir.path().join("bad.yaml");
        std::fs::write(&bad, "number_swap: 0.3\nentity_swap: \"17 per cent\"\n").unwrap();
        let e = read_weights(&bad).unwrap_err().to_string();
        assert!(e.contains("bad.yaml:2"), "{e}");
        assert!(
            e.contains("`entity_swap` must be a non-negative number"),
            "{e}"
        );
        std::fs::write(&bad, "number_swap: -1\n").unwrap();
        assert!(read_weights(&bad)
            .unwrap_err()
            .to_string()
            .contains("bad.yaml:1"));
        std::fs::write(&bad, "- number_swap\n- entity_swap\n").unwrap();
        let e = read_weights(&bad).unwrap_err().to_string();
        assert!(e.contains("not a map of fault type to weight"), "{e}");
        std::fs::write(&bad, "number_swap: 0\n").unwrap();
        assert!(read_weights(&bad)
            .unwrap_err()
            .to_string()
            .contains("no fault type a weight above 0"));
    }
}
