//! Checkers: what decides, claim by claim, whether a context set supports a claim.
//!
//! A checker sees claims and their passages, never the label a person gave; the run compares
//! the two afterwards. Each checker kind lives in its own file.

pub mod cache;
pub mod cascade;
pub mod command;
pub mod judge;
pub mod lexical;
pub mod nli;
pub mod onnx;
pub mod similarity;
pub mod windows;

use crate::suite::{Context, EntityGroup};
use serde::Serialize;
use std::collections::BTreeMap;

/// What a checker says about a claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Label {
    Supported,
    Contradicted,
    NotFound,
}

impl Label {
    pub fn as_str(self) -> &'static str {
        match self {
            Label::Supported => "supported",
            Label::Contradicted => "contradicted",
            Label::NotFound => "not_found",
        }
    }

    /// A verdict other than `supported`.
    pub fn flagged(self) -> bool {
        self != Label::Supported
    }
}

/// Where a verdict's support (or conflict) was found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Evidence {
    pub passage: String,
    pub window: String,
}

/// A checker's verdict on one claim.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Verdict {
    pub label: Label,
    /// In [0, 1], higher is more supported, where the checker has a score.
    pub score: Option<f64>,
    pub evidence: Option<Evidence>,
    pub reason: String,
}

/// A verdict, or why the checker could not score the claim. An error is never a pass.
pub type CheckResult = Result<Verdict, String>;

/// One claim to check, against the passages of one context set.
#[derive(Debug, Clone, Copy)]
pub struct ClaimToCheck<'a> {
    pub context: usize,
    pub text: &'a str,
}

/// Everything a checker may read: the context sets, the suite's entity groups and the claims.
pub struct CheckInput<'a> {
    pub contexts: &'a [Context],
    pub entities: &'a [EntityGroup],
    pub claims: Vec<ClaimToCheck<'a>>,
}

/// A faithfulness checker.
pub trait Checker: Send + Sync {
    /// The name it was configured under (`lexical` for the built-in default).
    fn name(&self) -> &str;
    /// Its kind (`lexical`, `nli`, ...).
    fn kind(&self) -> &'static str;
    /// Its settings, for reports, snapshots and fingerprints.
    fn settings(&self) -> BTreeMap<String, String>;
    /// One result per claim, in order. `progress` is called with the number of claims done.
    fn check(&self, input: &CheckInput<'_>, progress: &mut dyn FnMut(usize)) -> Vec<CheckResult>;

    /// Lines for stderr after a run: what it cost, what came from the cache.
    fn notes(&self) -> Vec<String> {
        Vec::new()
    }

    /// Scores one premise and claim and returns every number the checker has for the pair
    /// (label probabilities, a cosine, a coverage), for `faithgate probe`.
    fn probe(&self, premise: &str, claim: &str) -> Result<Vec<(String, f64)>, String> {
        let ctx = [crate::suite::Context {
            id: "probe".into(),
            question: None,
            passages: vec![crate::suite::Passage {
                id: "premise".into(),
                text: premise.into(),
            }],
            faithful: vec![],
            hard_cases: vec![],
        }];
        let input = CheckInput {
            contexts: &ctx,
            entities: &[],
            claims: vec![ClaimToCheck {
                context: 0,
                text: claim,
            }],
        };
        let v = self.check(&input, &mut |_| {}).remove(0)?;
        Ok(vec![("score".into(), v.score.unwrap_or(f64::NAN))])
    }
}
