//! The suite file format as serde types. Unknown keys are errors (`deny_unknown_fields`); every
//! type says what it expects in the words of the guide (never a Rust type name), and texts must
//! be strings: `claim: 5`, `claim: null` or `claim: !!binary ...` are errors, not the claims "5",
//! "null" or decoded bytes.

use crate::model::case::HardCaseLabel;
use serde::de::{Deserializer, Visitor};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A text field: a YAML string only.
pub fn text<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    struct Text;
    impl<'de> Visitor<'de> for Text {
        type Value = String;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a text (a number, `null`, `true` or a tagged value is not one: put the text in quotes)")
        }
        fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<String, E> {
            Ok(v.to_string())
        }
        fn visit_string<E: serde::de::Error>(self, v: String) -> Result<String, E> {
            Ok(v)
        }
    }
    d.deserialize_any(Text)
}

/// An optional text field: a YAML string, or `null` / absent for none.
pub(crate) fn opt_text<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    struct OptText;
    impl<'de> Visitor<'de> for OptText {
        type Value = Option<String>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a text or null (a number, `true` or a tagged value is not a text: put it in quotes)")
        }
        fn visit_none<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_some<D2: Deserializer<'de>>(self, d: D2) -> Result<Self::Value, D2::Error> {
            text(d).map(Some)
        }
        fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
            Ok(Some(v.to_string()))
        }
        fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Self::Value, E> {
            Ok(Some(v))
        }
    }
    d.deserialize_any(OptText)
}

/// Refuses YAML text a suite or its side file must not carry: anchors and aliases (see
/// [`crate::io::yaml::check_aliases`]) and `!!binary` values (`help` says what to write instead).
pub(crate) fn check_plain_text(
    path: &std::path::Path,
    text: &str,
    help: &str,
) -> crate::error::Result<()> {
    crate::io::yaml::check_aliases(path, text)?;
    if let Some((line, column)) = binary_tag(text) {
        return Err(crate::error::Error::Input {
            location: crate::error::Location::new(path, Some(line), Some(column)),
            message: "a `!!binary` value: binary data is not a text".into(),
            help: help.into(),
        });
    }
    Ok(())
}

/// The first `!!binary` tag in a YAML text, as (1-based line, 1-based column): binary data is
/// never a text, so an input that carries one is refused rather than decoded into a claim.
pub(crate) fn binary_tag(text: &str) -> Option<(usize, usize)> {
    for (i, line) in text.lines().enumerate() {
        let mut from = 0;
        while let Some(p) = line[from..].find("!!binary") {
            let at = from + p;
            let before = line[..at].chars().next_back();
            // a tag starts a node: after a space, `:`, `-`, `[`, `{`, `,` or at the line's start
            if before.is_none_or(|c| c.is_whitespace() || ":-[{,".contains(c)) {
                // and is not inside a quoted string: an even number of quotes before it
                let quotes = line[..at].matches('"').count() + line[..at].matches('\'').count();
                if quotes % 2 == 0 {
                    return Some((i + 1, at + 1));
                }
            }
            from = at + "!!binary".len();
        }
    }
    None
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "a suite: a mapping with `suite`, `contexts` and optional `description`, `hard_case_source`, `entities`, `mix` and `reviews`"
)]
pub(crate) struct SuiteFile {
    /// The suite's name, in reports, records and snapshot file names.
    pub suite: String,
    #[serde(default, deserialize_with = "opt_text")]
    pub description: Option<String>,
    /// Where the suite's hard cases come from unless a hard case says otherwise.
    #[serde(default)]
    pub hard_case_source: Option<CaseSource>,
    /// Names the entity_swap operator exchanges, by kind (`plan: [Team, Enterprise]`).
    #[serde(default)]
    pub entities: BTreeMap<String, Vec<String>>,
    /// The context sets: each the passages that were in one prompt, with its claims.
    pub contexts: Vec<ContextFile>,
    /// Reviews of the generated mutants and rewrites, by id (`faithprobe mutants --format
    /// yaml` writes the block; `faithprobe review` writes a side file instead).
    #[serde(default)]
    pub reviews: BTreeMap<String, ReviewFile>,
    /// The fault-type mix this suite's "all faults" row is weighted to (`pooled`, `uniform`,
    /// `file:PATH` beside the suite); `--mix` overrides it, and it overrides `faithprobe.yaml`.
    #[serde(default, deserialize_with = "opt_text")]
    pub mix: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "a context set: a mapping with `id`, `passages` and optional `question`, `faithful`, `hard_cases` and `pending`"
)]
pub(crate) struct ContextFile {
    pub id: String,
    #[serde(default, deserialize_with = "opt_text")]
    pub question: Option<String>,
    pub passages: Vec<PassageFile>,
    /// Claims a person verified as supported by the passages.
    #[serde(default)]
    pub faithful: Vec<FaithfulFile>,
    /// Labelled claims that probe the checker.
    #[serde(default)]
    pub hard_cases: Vec<HardCaseFile>,
    /// Claims taken from logged answers (`faithprobe suite from-log`) that nobody has verified
    /// yet: in no rate until `faithprobe review` decides each.
    #[serde(default)]
    pub pending: Vec<PendingFile>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "a pending claim: a mapping such as {id: a17-1, claim: \"...\", answer: a17, tag: gpt-4o}"
)]
pub(crate) struct PendingFile {
    pub id: String,
    #[serde(deserialize_with = "text")]
    pub claim: String,
    /// The id of the logged answer the claim came from.
    #[serde(default, deserialize_with = "opt_text")]
    pub answer: Option<String>,
    /// The logged answer's tag (the generating model or prompt version).
    #[serde(default, deserialize_with = "opt_text")]
    pub tag: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "a passage: a mapping such as {id: plans, text: \"...\"}"
)]
pub(crate) struct PassageFile {
    pub id: String,
    #[serde(deserialize_with = "text")]
    pub text: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "a verified claim: a mapping such as {id: f1, claim: \"...\"}"
)]
pub(crate) struct FaithfulFile {
    pub id: String,
    #[serde(deserialize_with = "text")]
    pub claim: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "a hard case: a mapping such as {id: h1, type: paraphrase, claim: \"...\", label: supported} (and optional `source: real` or `source: written`)"
)]
pub(crate) struct HardCaseFile {
    pub id: String,
    /// The case type: an operator's name (`number_swap`, ...) joins that operator's row.
    #[serde(rename = "type")]
    pub case_type: String,
    #[serde(deserialize_with = "text")]
    pub claim: String,
    pub label: HardCaseLabel,
    #[serde(default)]
    pub source: Option<CaseSource>,
    /// The rule a person decided a borderline case by, kept so the line holds at the next
    /// prompt edit.
    #[serde(default, deserialize_with = "opt_text")]
    pub why: Option<String>,
}

/// The JSON Schema of a suite file, from [`SuiteFile`] and the types it names.
pub fn json_schema(generator: schemars::SchemaGenerator) -> schemars::Schema {
    generator.into_root_schema_for::<SuiteFile>()
}

/// Where a hard case comes from: a person wrote it to probe the checker (`written`, the default),
/// or it is a labelled error (or verified sentence) of real generated output (`real`: imported from
/// a labelled data set, or verified from a log). Real errors are what the gap between mutation
/// scores and recall is measured on.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, schemars::JsonSchema,
)]
#[serde(
    rename_all = "snake_case",
    expecting = "`real` (labelled real output) or `written` (a hard case a person wrote)"
)]
pub enum CaseSource {
    #[default]
    Written,
    Real,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "a review: {review: fault} or {review: equivalent, why: \"...\"}, or for a pending claim {review: supported} or {review: contradicted, type: number}"
)]
pub(crate) struct ReviewFile {
    pub review: ReviewKind,
    #[serde(default, deserialize_with = "opt_text")]
    pub why: Option<String>,
    /// A pending claim decided `contradicted`, `not_found` or `borderline`: the hard case's type.
    #[serde(default, rename = "type", deserialize_with = "opt_text")]
    pub case_type: Option<String>,
    /// A pending claim decided `borderline`: the label the rule in `why` gives it.
    #[serde(default)]
    pub label: Option<HardCaseLabel>,
}

/// A person's review of a generated mutant, as written in a suite.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Deserialize,
    Serialize,
    strum::IntoStaticStr,
    strum::VariantArray,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum ReviewKind {
    Fault,
    Equivalent,
    /// A rewrite that does not say what its claim says.
    NotEquivalent,
    /// A mutant that is no sentence a generator would write (ungrammatical, nonsense): a defect
    /// of its operator, in no rate.
    Broken,
    /// A pending claim the passages support: it becomes a verified claim.
    Supported,
    /// A pending claim the passages contradict: it becomes a real hard case (with its `type`).
    Contradicted,
    /// A pending claim the passages do not state: it becomes a real hard case (with its `type`).
    NotFound,
    /// A pending claim on the line, decided by a rule (`why`) with a `label`: a real hard case
    /// that keeps the rule, so the line holds at the next prompt edit.
    Borderline,
    /// A pending "claim" that is none (a greeting, an opinion, a question): dropped.
    NotAClaim,
}

impl ReviewKind {
    /// The name as written in a suite (`fault`, `equivalent`, `not_equivalent`).
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// Whether the decision makes a pending claim a hard case (and so needs its `type`).
    pub fn makes_hard_case(self) -> bool {
        matches!(
            self,
            ReviewKind::Contradicted | ReviewKind::NotFound | ReviewKind::Borderline
        )
    }

    /// Whether the decision is about a pending claim (not a mutant or rewrite).
    pub fn is_claim_decision(self) -> bool {
        matches!(
            self,
            ReviewKind::Supported
                | ReviewKind::Contradicted
                | ReviewKind::NotFound
                | ReviewKind::Borderline
                | ReviewKind::NotAClaim
        )
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_review_kind_is_named_as_serde_names_it() {
        crate::model::case::assert_strum_names_are_serde_names::<super::ReviewKind>();
    }
}
