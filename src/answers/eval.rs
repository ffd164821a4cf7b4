//! Evaluating a decomposer against a person's hand decomposition of the same answers: missed,
//! merged and invented claims per answer and in total. The decomposer sets the denominator of
//! every faithfulness score, and almost nobody measures it.

use super::decompose::Decomposer;
use crate::error::Result;
use crate::text::tokens::tokenize;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::path::Path;

/// One answer with a person's claims.
#[derive(Debug, Clone, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "an answer with its hand decomposition"
)]
pub struct HandDecomposition {
    pub id: String,
    #[serde(default)]
    pub question: String,
    pub answer: String,
    pub claims: Vec<String>,
}

/// How a decomposer did on one answer.
#[derive(Debug, Clone, Serialize)]
pub struct AnswerEval {
    pub id: String,
    pub person: Vec<String>,
    pub decomposer: Vec<String>,
    /// A person's claims no decomposer claim covers.
    pub missed: Vec<String>,
    /// Decomposer claims that cover two or more of a person's claims.
    pub merged: Vec<String>,
    /// Decomposer claims that cover none of a person's claims.
    pub invented: Vec<String>,
    pub error: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct DecomposeEval {
    pub decomposer: String,
    pub answers: Vec<AnswerEval>,
    pub person_claims: usize,
    pub decomposer_claims: usize,
    pub missed: usize,
    pub merged: usize,
    pub invented: usize,
}

fn words(s: &str) -> HashSet<String> {
    tokenize(s)
        .into_iter()
        .filter(|t| !crate::check::lexical::is_stopword(&s[t.start..t.end].to_lowercase()))
        .map(|t| t.norm)
        .filter(|w| w.len() > 2 || w.chars().all(|c| c.is_ascii_digit()))
        .collect()
}

/// The decomposer claim that best covers a person's claim: it must hold at least half of the
/// person's claim's words; ties go to the closer claim (higher Jaccard overlap).
fn best_cover(h: &HashSet<String>, ds: &[HashSet<String>]) -> Option<usize> {
    if h.is_empty() {
        return None;
    }
    ds.iter()
        .enumerate()
        .map(|(i, d)| {
            let common = d.intersection(h).count() as f64;
            (
                i,
                common / h.len() as f64,
                common / d.union(h).count().max(1) as f64,
            )
        })
        .filter(|(_, cover, _)| *cover >= 0.5)
        .max_by(|a, b| a.1.total_cmp(&b.1).then(a.2.total_cmp(&b.2)))
        .map(|(i, _, _)| i)
}

pub fn load(path: &Path) -> Result<Vec<HandDecomposition>> {
    let text = crate::error::read_input(path)?;
    crate::io::yaml::check_aliases(path, &text)?;
    crate::io::yaml::parse(
        path,
        &text,
        "a list of {id, question, answer, claims: [...]}: a person's claims for each answer",
    )
}

pub fn evaluate(items: &[HandDecomposition], decomposer: &dyn Decomposer) -> DecomposeEval {
    let mut answers = Vec::new();
    for it in items {
        let (got, error) = match decomposer.decompose(&it.question, &it.answer) {
            Ok(c) => (c, None),
            Err(e) => (Vec::new(), Some(e)),
        };
        let hw: Vec<HashSet<String>> = it.claims.iter().map(|c| words(c)).collect();
        let dw: Vec<HashSet<String>> = got.iter().map(|c| words(c)).collect();
        // each person's claim goes to the decomposer claim that best covers it
        let assigned: Vec<Option<usize>> = hw.iter().map(|h| best_cover(h, &dw)).collect();
        let count = |di: usize| assigned.iter().filter(|a| **a == Some(di)).count();
        let missed = it
            .claims
            .iter()
            .zip(&assigned)
            .filter(|(_, a)| a.is_none())
            .map(|(c, _)| c.clone())
            .collect();
        let merged = got
            .iter()
            .enumerate()
            .filter(|(i, _)| count(*i) >= 2)
            .map(|(_, c)| c.clone())
            .collect();
        let invented = got
            .iter()
            .enumerate()
            .filter(|(i, _)| count(*i) == 0)
            .map(|(_, c)| c.clone())
            .collect();
        answers.push(AnswerEval {
            id: it.id.clone(),
            person: it.claims.clone(),
            decomposer: got,
            missed,
            merged,
            invented,
            error,
        });
    }
    DecomposeEval {
        decomposer: decomposer.describe(),
        person_claims: answers.iter().map(|a| a.person.len()).sum(),
        decomposer_claims: answers.iter().map(|a| a.decomposer.len()).sum(),
        missed: answers.iter().map(|a| a.missed.len()).sum(),
        merged: answers.iter().map(|a| a.merged.len()).sum(),
        invented: answers.iter().map(|a| a.invented.len()).sum(),
        answers,
    }
}

/// The human report.
pub fn render(e: &DecomposeEval) -> String {
    use std::fmt::Write;
    let mut o = format!(
        "decomposer {}: {} answers, {} claims by a person, {} by the decomposer\n  missed {}  merged {}  invented {}\n",
        e.decomposer,
        e.answers.len(),
        e.person_claims,
        e.decomposer_claims,
        e.missed,
        e.merged,
        e.invented
    );
    for a in &e.answers {
        let _ = writeln!(
            o,
            "\n{}: person {} claims, decomposer {}; missed {}, merged {}, invented {}",
            a.id,
            a.person.len(),
            a.decomposer.len(),
            a.missed.len(),
            a.merged.len(),
            a.invented.len()
        );
        if let Some(err) = &a.error {
            let _ = writeln!(o, "  error: {err}");
        }
        for (what, list) in [
            ("missed", &a.missed),
            ("merged", &a.merged),
            ("invented", &a.invented),
        ] {
            for c in list {
                let _ = writeln!(o, "  {what:<9} {c}");
            }
        }
    }
    o
}

/// An answer with the omitted conditions a person confirmed (possibly none).
#[derive(Debug, Clone, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "an answer with the omissions a person found"
)]
pub struct OmissionCase {
    pub id: String,
    #[serde(default)]
    pub question: String,
    pub answer: String,
    pub passages: Vec<super::LoggedPassage>,
    /// Conditions the answer really leaves out, per a person.
    pub omissions: Vec<String>,
}

impl OmissionCase {
    pub fn logged(&self) -> super::LoggedAnswer {
        super::LoggedAnswer {
            id: self.id.clone(),
            question: self.question.clone(),
            answer: self.answer.clone(),
            passages: self.passages.clone().into(),
            ..Default::default()
        }
    }
}

/// Precision and recall of the omissions check against a person's labels.
#[derive(Debug, Clone, Serialize)]
pub struct OmissionEval {
    pub answers: usize,
    pub flagged: usize,
    /// Flags that match an omission a person confirmed.
    pub true_flags: usize,
    pub confirmed: usize,
    /// Confirmed omissions some flag matches.
    pub found: usize,
    pub precision: Option<f64>,
    pub recall: Option<f64>,
    /// (answer id, flag, matched a confirmed omission)
    pub flags: Vec<(String, String, bool)>,
    pub errors: Vec<(String, String)>,
}

pub fn load_omission_cases(path: &Path) -> Result<Vec<OmissionCase>> {
    let text = crate::error::read_input(path)?;
    crate::io::yaml::check_aliases(path, &text)?;
    crate::io::yaml::parse(path, &text, "a list of logged answers (id, question, answer, passages) each with `omissions: [...]` a person confirmed")
}

/// Scores the flags the omissions check raised (`flags[i]` for `cases[i]`).
pub fn evaluate_omissions(
    cases: &[OmissionCase],
    flags: &[std::result::Result<Vec<String>, String>],
) -> OmissionEval {
    let mut e = OmissionEval {
        answers: cases.len(),
        flagged: 0,
        true_flags: 0,
        confirmed: 0,
        found: 0,
        precision: None,
        recall: None,
        flags: Vec::new(),
        errors: Vec::new(),
    };
    for (c, f) in cases.iter().zip(flags) {
        let confirmed: Vec<HashSet<String>> = c.omissions.iter().map(|o| words(o)).collect();
        e.confirmed += confirmed.len();
        let got = match f {
            Ok(g) => g,
            Err(err) => {
                e.errors.push((c.id.clone(), err.clone()));
                continue;
            }
        };
        let gw: Vec<HashSet<String>> = got.iter().map(|g| words(g)).collect();
        for (g, w) in got.iter().zip(&gw) {
            let hit = confirmed
                .iter()
                .any(|h| best_cover(h, std::slice::from_ref(w)).is_some());
            e.flagged += 1;
            e.true_flags += hit as usize;
            e.flags.push((c.id.clone(), g.clone(), hit));
        }
        e.found += confirmed
            .iter()
            .filter(|h| best_cover(h, &gw).is_some())
            .count();
    }
    e.precision = (e.flagged > 0).then(|| e.true_flags as f64 / e.flagged as f64);
    e.recall = (e.confirmed > 0).then(|| e.found as f64 / e.confirmed as f64);
    e
}
