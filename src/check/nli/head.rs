//! How an NLI model's outputs are read: which output means supported and which contradicted
//! (from a `labels:` mapping, else from id2label's NLI words; never guessed), and how logits
//! become the probabilities stored and decided on.

use super::super::batch::Output;
use super::super::onnx::{LabelMap, LabelRef, Model};
use super::super::CheckError;

/// How the model's outputs become probabilities and which one is which.
#[derive(Debug, Clone, PartialEq)]
pub enum OutputHead {
    /// Softmax over the outputs; the supported and (if any) contradicted positions.
    Softmax {
        width: usize,
        supported: usize,
        contradicted: Option<usize>,
    },
    /// One logit; its sigmoid is P(supported), or P(unsupported) when `inverted`.
    Sigmoid { inverted: bool },
}

impl OutputHead {
    /// What the head reads, for `doctor` and the cache fingerprint.
    pub fn describe(&self, labels: &[String]) -> String {
        let name = |i: usize| {
            labels
                .get(i)
                .map(|l| format!("`{l}` (output {i})"))
                .unwrap_or_else(|| format!("output {i}"))
        };
        match self {
            OutputHead::Softmax {
                width,
                supported,
                contradicted,
            } => format!(
                "softmax over {width} outputs; supported = {}; contradicted = {}",
                name(*supported),
                contradicted.map(name).unwrap_or_else(|| "none (unsupported claims are not_found)".into())
            ),
            OutputHead::Sigmoid { inverted: false } => {
                "one logit; sigmoid = probability of supported; no contradiction".into()
            }
            OutputHead::Sigmoid { inverted: true } => {
                "one logit; sigmoid = probability of unsupported (1 - it is supported); no contradiction".into()
            }
        }
    }

    /// The row of probabilities stored and read: softmax, or [P(supported)] for one logit.
    pub(super) fn probabilities(&self, logits: &[f32]) -> Output {
        match self {
            OutputHead::Softmax { .. } => softmax(logits),
            OutputHead::Sigmoid { inverted } => {
                let x = logits[0];
                if !x.is_finite() {
                    return Err(CheckError::NonFinite(format!(
                        "the model returned a non-finite logit {x}"
                    )));
                }
                let p = 1.0 / (1.0 + (-x).exp());
                Ok(vec![if *inverted { 1.0 - p } else { p }])
            }
        }
    }

    pub(super) fn supported(&self) -> usize {
        match self {
            OutputHead::Softmax { supported, .. } => *supported,
            OutputHead::Sigmoid { .. } => 0,
        }
    }

    pub(super) fn contradicted(&self) -> Option<usize> {
        match self {
            OutputHead::Softmax { contradicted, .. } => *contradicted,
            OutputHead::Sigmoid { .. } => None,
        }
    }

    pub(super) fn width(&self) -> usize {
        match self {
            OutputHead::Softmax { width, .. } => *width,
            OutputHead::Sigmoid { .. } => 1,
        }
    }
}

/// The id2label names read as "supported" without a `labels:` mapping (compared whole, in any
/// case, after `-`, `_` and spaces are removed): never a substring, so `not_entailment` is not
/// entailment.
pub(crate) const SUPPORTED_NAMES: &[&str] = &["entailment", "entail", "entailed", "entails"];
/// The id2label names read as "contradicted".
pub(crate) const CONTRADICTED_NAMES: &[&str] =
    &["contradiction", "contradict", "contradicted", "contradicts"];

fn find_label(labels: &[String], names: &[&str]) -> Option<usize> {
    let norm = |l: &str| -> String {
        l.chars()
            .filter(|c| !matches!(c, '-' | '_' | ' '))
            .flat_map(char::to_lowercase)
            .collect()
    };
    labels
        .iter()
        .position(|l| names.contains(&norm(l).as_str()))
}

/// The head of a model: from the `labels:` mapping when given, else from id2label's NLI words.
/// A model whose outputs faithprobe cannot read is an error that lists them and shows the mapping
/// to write; nothing is guessed.
#[allow(clippy::too_many_lines)] // every way of reading a model's outputs, each with its error
pub fn resolve_head(model: &Model, map: Option<&LabelMap>) -> Result<OutputHead, String> {
    let config = model.dir.join("config.json");
    let width = model
        .output_width
        .or((!model.labels.is_empty()).then_some(model.labels.len()))
        .unwrap_or(0);
    let listed = if model.labels.is_empty() {
        "no id2label".to_string()
    } else {
        model
            .labels
            .iter()
            .enumerate()
            .map(|(i, l)| format!("{i}: {l}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let index_of = |r: &LabelRef, what: &str| -> Result<usize, String> {
        let i = match r {
            LabelRef::Index(i) => *i,
            LabelRef::Name(n) => model
                .labels
                .iter()
                .position(|l| l == &n.to_lowercase())
                .ok_or_else(|| {
                    format!(
                        "labels: {what}: `{n}` is not a label of {} (it has {listed})",
                        config.display()
                    )
                })?,
        };
        if width > 0 && i >= width {
            return Err(format!(
                "labels: {what}: output {i} does not exist; the model has {width} output(s) ({listed})"
            ));
        }
        Ok(i)
    };
    if width == 1 {
        return match map {
            Some(LabelMap {
                supported: Some(r),
                unsupported: None,
                contradicted: None,
            }) => index_of(r, "supported").map(|_| OutputHead::Sigmoid { inverted: false }),
            Some(LabelMap {
                supported: None,
                unsupported: Some(r),
                contradicted: None,
            }) => index_of(r, "unsupported").map(|_| OutputHead::Sigmoid { inverted: true }),
            Some(_) => Err(format!(
                "model {}: it has one output (a score), so `labels:` takes exactly one of `supported: 0` or `unsupported: 0`, and no `contradicted`",
                model.dir.display()
            )),
            None => Err(format!(
                "model {}: it has one output (a score) and faithprobe does not guess what it means: add `labels: {{supported: 0}}` to the checker if its sigmoid is the probability that the claim is supported, or `labels: {{unsupported: 0}}` if it is the probability of a hallucination",
                model.dir.display()
            )),
        };
    }
    match map {
        Some(m) => {
            if m.unsupported.is_some() {
                return Err("labels: `unsupported` is for models with one output; name the supported output with `supported:`".into());
            }
            let Some(sup) = &m.supported else {
                return Err(
                    "labels: needs `supported:` (the output that means the claim is supported)"
                        .into(),
                );
            };
            let supported = index_of(sup, "supported")?;
            let contradicted = m
                .contradicted
                .as_ref()
                .map(|c| index_of(c, "contradicted"))
                .transpose()?;
            if contradicted == Some(supported) {
                return Err("labels: `supported` and `contradicted` name the same output".into());
            }
            if width < 2 {
                return Err(format!(
                    "model {}: config.json has no id2label and the graph does not fix its output width, so faithprobe cannot check the mapping; export the model with id2label",
                    model.dir.display()
                ));
            }
            Ok(OutputHead::Softmax {
                width,
                supported,
                contradicted,
            })
        }
        None => {
            if let Some(w) = model.output_width {
                if !model.labels.is_empty() && w != model.labels.len() {
                    return Err(format!(
                        "{}: id2label names {} labels ({listed}) but the model has {w} outputs; the file does not describe this model, so its labels cannot be trusted: fix config.json or say which output is which with `labels:`",
                        config.display(),
                        model.labels.len()
                    ));
                }
            }
            let Some(supported) = find_label(&model.labels, SUPPORTED_NAMES) else {
                let example = match model.labels.len() {
                    2 => format!(
                        "labels: {{supported: {}, contradicted: {}}}",
                        model.labels[1], model.labels[0]
                    ),
                    _ => "labels: {supported: LABEL_1}".into(),
                };
                return Err(format!(
                    "{}: id2label has no entailment label (it has: {listed}); faithprobe never guesses an output, so say which one means supported in the checker's config, e.g. `{example}` (check the model card: the order differs between models)",
                    config.display()
                ));
            };
            Ok(OutputHead::Softmax {
                width: model.labels.len(),
                supported,
                contradicted: find_label(&model.labels, CONTRADICTED_NAMES),
            })
        }
    }
}

pub fn softmax(logits: &[f32]) -> Result<Vec<f32>, CheckError> {
    if logits.iter().any(|x| !x.is_finite()) {
        return Err(CheckError::NonFinite(format!(
            "the model returned non-finite logits {logits:?}"
        )));
    }
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let exps: Vec<f32> = logits.iter().map(|x| (x - max).exp()).collect();
    let sum: f32 = exps.iter().sum();
    Ok(exps.iter().map(|e| e / sum).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_names_match_whole_never_as_substrings() {
        let l = |xs: &[&str]| xs.iter().map(|x| x.to_lowercase()).collect::<Vec<String>>();
        for labels in [
            ["not_entailment", "entailment"],
            ["NOT_ENTAILMENT", "ENTAILMENT"],
            ["non-entailment", "entailment"],
            ["Non Entailment", "Entailment"],
        ] {
            assert_eq!(
                find_label(&l(&labels), SUPPORTED_NAMES),
                Some(1),
                "{labels:?}"
            );
        }
        assert_eq!(
            find_label(&l(&["not_entailment", "label_1"]), SUPPORTED_NAMES),
            None
        );
        assert_eq!(
            find_label(&l(&["non-contradiction", "neutral"]), CONTRADICTED_NAMES),
            None
        );
        assert_eq!(
            find_label(&l(&["CONTRADICTION", "x"]), CONTRADICTED_NAMES),
            Some(0)
        );
    }

    #[test]
    fn softmax_is_stable_and_rejects_nan() {
        let p = softmax(&[1000.0, 1000.0]).unwrap();
        assert!((p[0] - 0.5).abs() < 1e-6);
        assert!(softmax(&[f32::NAN, 1.0]).is_err());
        assert!(softmax(&[f32::INFINITY, 1.0]).is_err());
    }
}
