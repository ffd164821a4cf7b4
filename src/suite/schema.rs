//! The suite file format as serde types. Unknown keys are errors (`deny_unknown_fields`).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SuiteFile {
    pub suite: String,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub entities: BTreeMap<String, Vec<String>>,
    pub contexts: Vec<ContextFile>,
    #[serde(default)]
    pub reviews: BTreeMap<String, ReviewFile>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContextFile {
    pub id: String,
    #[serde(default)]
    pub question: Option<String>,
    pub passages: Vec<PassageFile>,
    #[serde(default)]
    pub faithful: Vec<FaithfulFile>,
    #[serde(default)]
    pub hard_cases: Vec<HardCaseFile>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PassageFile {
    pub id: String,
    pub text: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FaithfulFile {
    pub id: String,
    pub claim: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HardCaseFile {
    pub id: String,
    #[serde(rename = "type")]
    pub case_type: String,
    pub claim: String,
    pub label: HumanLabel,
}

/// What a person says about a hard case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HumanLabel {
    Supported,
    Contradicted,
    NotFound,
    Misleading,
}

impl HumanLabel {
    pub fn as_str(self) -> &'static str {
        match self {
            HumanLabel::Supported => "supported",
            HumanLabel::Contradicted => "contradicted",
            HumanLabel::NotFound => "not_found",
            HumanLabel::Misleading => "misleading",
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReviewFile {
    pub review: ReviewKind,
    #[serde(default)]
    pub why: Option<String>,
}

/// A person's review of a generated mutant, as written in a suite.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ReviewKind {
    Fault,
    Equivalent,
}
