//! Reporters: turn a finished run into text. They never re-run a checker.

pub mod answers;
pub mod audit;
pub mod compare;
pub mod junit;
pub mod proxy;
pub mod run;
pub mod snapshot;
pub mod svg;
pub mod sweep;

use owo_colors::OwoColorize;

/// Colours for human output; off means plain text.
#[derive(Debug, Clone, Copy)]
pub struct Paint {
    pub color: bool,
}

impl Paint {
    pub fn good(&self, s: &str) -> String {
        if self.color {
            s.green().to_string()
        } else {
            s.to_string()
        }
    }
    pub fn bad(&self, s: &str) -> String {
        if self.color {
            s.red().to_string()
        } else {
            s.to_string()
        }
    }
    pub fn head(&self, s: &str) -> String {
        if self.color {
            s.bold().to_string()
        } else {
            s.to_string()
        }
    }
    pub fn dim(&self, s: &str) -> String {
        if self.color {
            s.dimmed().to_string()
        } else {
            s.to_string()
        }
    }
}

/// `0.xx`, or `-` when there is no rate.
pub fn fmt_rate(r: Option<f64>) -> String {
    r.map(|x| format!("{x:.2}")).unwrap_or_else(|| "-".into())
}

/// `[lo, hi]` to two decimals.
pub(crate) fn fmt_ci(lo: f64, hi: f64) -> String {
    format!("[{lo:.2}, {hi:.2}]")
}

/// A corrected rate: `rate [lo, hi]`, or `undefined` (its reason is printed apart).
pub(crate) fn fmt_corrected(c: &crate::stats::correct::Corrected) -> String {
    match c.estimate {
        Some(e) => format!("{} {}", fmt_rate(Some(e)), fmt_ci(c.ci_low, c.ci_high)),
        None => "undefined".into(),
    }
}

/// How a corrected rate was made, in words: the method and the checker's sensitivity and
/// specificity behind it.
pub(crate) fn corrected_basis(c: &crate::stats::correct::Corrected) -> String {
    let f = |x: Option<f64>| x.map_or_else(|| "unknown".to_string(), |x| format!("{x:.2}"));
    format!(
        "{}; sensitivity {}, specificity {}",
        c.method.as_str(),
        f(c.sensitivity),
        f(c.specificity)
    )
}

/// `k/n rate [lo, hi]`: a rate with its count and interval, as every table prints it.
pub(crate) fn fmt_kn(r: &crate::stats::Rate) -> String {
    format!(
        "{}/{} {} {}",
        r.k,
        r.n,
        fmt_rate(r.rate),
        fmt_ci(r.ci_low, r.ci_high)
    )
}

/// A score to three decimals, or `-`.
pub(crate) fn fmt_score(s: Option<f64>) -> String {
    s.map(|x| format!("{x:.3}")).unwrap_or_else(|| "-".into())
}

/// Settings as `k=v, k=v`.
pub(crate) fn fmt_settings(s: &std::collections::BTreeMap<String, String>) -> String {
    s.iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `s` cut to `n` characters, an ellipsis marking the cut.
pub(crate) fn trunc(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        s.chars().take(n - 1).collect::<String>() + "…"
    }
}

/// `n` and the word in the number it needs: `1 refusal`, `2 refusals`.
pub fn count(n: impl Into<u64>, one: &str, many: &str) -> String {
    let n = n.into();
    format!("{n} {}", if n == 1 { one } else { many })
}
