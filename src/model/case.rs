//! The vocabulary of cases, shared by engines, records and reporters: what a checker said
//! ([`Label`]), what a case is ([`CaseKind`]) and what a person expects of it ([`Expected`]),
//! where a mutant's review stands ([`ReviewState`]), what the case counts towards in every rate
//! ([`Role`], defined once here) and how it came out ([`Outcome`]). Engines (`run`, `check`,
//! `mutate`), records and reporters import these from here, not from each other.

use serde::{Deserialize, Serialize};
use strum::{IntoStaticStr, VariantArray};

/// What a checker says about a claim.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Serialize,
    serde::Deserialize,
    IntoStaticStr,
    VariantArray,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum Label {
    Supported,
    Contradicted,
    NotFound,
}

impl Label {
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// A verdict other than `supported`.
    pub fn flagged(self) -> bool {
        self != Label::Supported
    }
}

/// Where a mutant's review stands, without the reason: one definition shared by runs, records,
/// comparisons, sweeps and reports.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    IntoStaticStr,
    VariantArray,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum ReviewState {
    Fault,
    Equivalent,
    Unreviewed,
    /// A rewrite a person found changes the meaning: it is no case (never in a record's rates).
    NotEquivalent,
    /// A mutant a person found is no sentence a generator would write: a defect of its
    /// operator, no case.
    Broken,
}

impl ReviewState {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// What kind of case a claim is.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    IntoStaticStr,
    VariantArray,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum CaseKind {
    /// A claim a person verified as faithful.
    Original,
    /// A labelled claim with a case type.
    HardCase,
    /// A generated fault.
    Mutant,
    /// A generated meaning-preserving rewrite of a verified claim (an invariance case).
    Rewrite,
}

impl CaseKind {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// What a person expects the checker to say.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    IntoStaticStr,
    VariantArray,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum Expected {
    Supported,
    Contradicted,
    NotFound,
    Misleading,
    /// Any verdict other than `supported` (a mutant that is a fault, or not yet reviewed).
    Flagged,
}

impl Expected {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// What a person says about a hard case.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Deserialize,
    Serialize,
    IntoStaticStr,
    VariantArray,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum HardCaseLabel {
    Supported,
    Contradicted,
    NotFound,
    Misleading,
}

impl HardCaseLabel {
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// A label as a person types it: its name, with `-` or a space for `_` (`not found`).
    pub fn parse(s: &str) -> Option<HardCaseLabel> {
        let s = s.trim().replace([' ', '-'], "_");
        <HardCaseLabel as strum::VariantArray>::VARIANTS
            .iter()
            .copied()
            .find(|l| l.as_str() == s)
    }
}

impl From<HardCaseLabel> for Expected {
    fn from(l: HardCaseLabel) -> Self {
        match l {
            HardCaseLabel::Supported => Expected::Supported,
            HardCaseLabel::Contradicted => Expected::Contradicted,
            HardCaseLabel::NotFound => Expected::NotFound,
            HardCaseLabel::Misleading => Expected::Misleading,
        }
    }
}

/// What a case counts towards in every rate. Defined once, here.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    IntoStaticStr,
    VariantArray,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum Role {
    /// A faithful case the checker should pass: a verified claim, or a hard case a person
    /// labelled `supported`. Flagging it is a false alarm.
    FalseAlarmOpportunity,
    /// A real fault of the case's fault type: a mutant reviewed `fault`, or a hard case labelled
    /// anything but `supported` (its fault type is the hard case's `type`).
    Fault,
    /// A claim that still says what a verified claim says: a rewrite, or a mutant a person
    /// reviewed `equivalent`. Flagging it is a false alarm, counted in the invariance row (apart
    /// from the verified claims' false alarms).
    Invariance,
    /// A mutant nobody reviewed yet: counted apart, in no rate.
    Unreviewed,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// The role of a case of `kind` with `expected` label and, for mutants, `review`.
    pub fn of(kind: CaseKind, expected: Expected, review: Option<ReviewState>) -> Role {
        match kind {
            CaseKind::Original => Role::FalseAlarmOpportunity,
            CaseKind::HardCase if expected == Expected::Supported => Role::FalseAlarmOpportunity,
            CaseKind::HardCase => Role::Fault,
            CaseKind::Mutant => match review {
                Some(ReviewState::Fault) => Role::Fault,
                Some(ReviewState::Equivalent) => Role::Invariance,
                _ => Role::Unreviewed,
            },
            CaseKind::Rewrite => match review {
                Some(ReviewState::NotEquivalent | ReviewState::Broken) => Role::Unreviewed,
                _ => Role::Invariance,
            },
        }
    }
}

/// How a case came out.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    IntoStaticStr,
    VariantArray,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum Outcome {
    /// A faithful case the checker supported.
    Passed,
    /// A faithful case the checker flagged.
    FalseAlarm,
    /// A fault the checker flagged.
    Caught,
    /// A fault the checker supported.
    Missed,
    /// A fault mutant of a claim the checker did not support (it flagged the parent claim, or
    /// could not score it): flagging the mutant says nothing about the fault, since the checker
    /// flags its parent anyway, so it is counted in no catch rate and shown apart as "parent
    /// already flagged" (mutation testing's rule: a mutant counts only when the suite passes on
    /// the original).
    ParentFlagged,
    /// An unreviewed mutant the checker flagged: no fault outcome until a person reviews it.
    FlaggedUnreviewed,
    /// An unreviewed mutant the checker supported.
    PassedUnreviewed,
    /// The checker could not score the case. Never a pass.
    Error,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// The outcome of a case of `role` whose verdict was flagged or not (`None`: no verdict).
    pub fn of(role: Role, flagged: Option<bool>) -> Outcome {
        let Some(flagged) = flagged else {
            return Outcome::Error;
        };
        match (role, flagged) {
            (Role::FalseAlarmOpportunity | Role::Invariance, false) => Outcome::Passed,
            (Role::FalseAlarmOpportunity | Role::Invariance, true) => Outcome::FalseAlarm,
            (Role::Fault, true) => Outcome::Caught,
            (Role::Fault, false) => Outcome::Missed,
            (Role::Unreviewed, true) => Outcome::FlaggedUnreviewed,
            (Role::Unreviewed, false) => Outcome::PassedUnreviewed,
        }
    }

    /// The outcome the case should have: passed for a faithful case, caught for a fault.
    pub fn good(self) -> bool {
        matches!(self, Outcome::Passed | Outcome::Caught)
    }

    /// The outcome once the parent claim's outcome is known: a fault mutant whose parent the
    /// checker did not pass (`parent` is the parent's outcome, None when it is not in the run) is
    /// [`Outcome::ParentFlagged`]; every other case keeps its outcome. An error stays an error.
    pub fn given_parent(self, kind: CaseKind, role: Role, parent: Option<Outcome>) -> Outcome {
        let informative = parent == Some(Outcome::Passed);
        if kind == CaseKind::Mutant
            && role == Role::Fault
            && !informative
            && matches!(self, Outcome::Caught | Outcome::Missed)
        {
            Outcome::ParentFlagged
        } else {
            self
        }
    }

    /// Whether the case is in no rate: an error, or a mutant of a flagged parent.
    pub fn uncounted(self) -> bool {
        matches!(self, Outcome::Error | Outcome::ParentFlagged)
    }
}

/// A person's review of a mutant, as the run sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "review", rename_all = "snake_case")]
pub enum MutantReview {
    /// A real fault: the checker should flag it.
    Fault,
    /// Still faithful; kept visible with the reason, never scored as a miss.
    Equivalent { why: String },
    /// Nobody has looked yet: a mutant is counted apart from the rates; a rewrite counts in the
    /// invariance row until a person says otherwise.
    Unreviewed,
    /// A rewrite that changes the meaning after all: no case, listed with the reason.
    NotEquivalent { why: String },
    /// Ungrammatical or nonsense: a defect of the operator that made it, in no rate, listed per
    /// operator (the reason is optional).
    Broken { why: Option<String> },
}

impl MutantReview {
    pub fn as_str(&self) -> &'static str {
        self.state().as_str()
    }

    /// The review without its reason: what records store and roles are decided by.
    pub fn state(&self) -> ReviewState {
        match self {
            MutantReview::Fault => ReviewState::Fault,
            MutantReview::Equivalent { .. } => ReviewState::Equivalent,
            MutantReview::Unreviewed => ReviewState::Unreviewed,
            MutantReview::NotEquivalent { .. } => ReviewState::NotEquivalent,
            MutantReview::Broken { .. } => ReviewState::Broken,
        }
    }
}

/// One claim to check and what a person says it is.
#[derive(Debug, Clone, Serialize)]
pub struct Case {
    pub id: String,
    pub kind: CaseKind,
    /// Operator name for mutants, case type for hard cases.
    pub fault_type: Option<String>,
    pub claim: String,
    pub expected: Expected,
    /// The faithful claim a mutant was made from.
    pub parent: Option<String>,
    /// Mutants only.
    pub review: Option<MutantReview>,
    /// A hard case from labelled real output that is not labelled supported (a real error).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub real: bool,
    /// A compound fault: a fault operator's edit of a rewrite of the claim, not of the claim.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub compound: bool,
    #[serde(skip)]
    pub context: usize,
    /// The id of the context the case is checked against.
    #[serde(skip)]
    pub context_id: String,
}

impl Case {
    /// What this case counts towards: see [`Role`].
    pub fn role(&self) -> Role {
        Role::of(
            self.kind,
            self.expected,
            self.review.as_ref().map(MutantReview::state),
        )
    }
}

/// Fails unless every variant's strum name (`as_str`) is the name serde writes for it: the two
/// derives spell each name from one `rename_all`/`serialize_all` pair, and this holds them equal.
#[cfg(test)]
pub(crate) fn assert_strum_names_are_serde_names<T>()
where
    T: VariantArray + Serialize + Copy + std::fmt::Debug + Into<&'static str>,
{
    assert!(!T::VARIANTS.is_empty());
    for &v in T::VARIANTS {
        let strum: &'static str = v.into();
        assert_eq!(
            serde_json::to_value(v).unwrap(),
            serde_json::Value::from(strum),
            "{v:?}: strum and serde disagree"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn as_str_is_the_name_serde_writes() {
        for o in [
            Outcome::Passed,
            Outcome::FalseAlarm,
            Outcome::Caught,
            Outcome::Missed,
            Outcome::ParentFlagged,
            Outcome::FlaggedUnreviewed,
            Outcome::PassedUnreviewed,
            Outcome::Error,
        ] {
            assert_eq!(
                serde_json::to_value(o).unwrap(),
                serde_json::Value::from(o.as_str())
            );
        }
        assert_eq!(
            Role::FalseAlarmOpportunity.as_str(),
            "false_alarm_opportunity"
        );
        assert_eq!(Label::NotFound.as_str(), "not_found");
        assert_eq!(CaseKind::HardCase.as_str(), "hard_case");
        assert_eq!(ReviewState::Unreviewed.as_str(), "unreviewed");
        assert_eq!(Expected::Flagged.as_str(), "flagged");
    }

    #[test]
    fn strum_names_every_variant_as_serde_does() {
        assert_strum_names_are_serde_names::<Label>();
        assert_strum_names_are_serde_names::<ReviewState>();
        assert_strum_names_are_serde_names::<CaseKind>();
        assert_strum_names_are_serde_names::<Expected>();
        assert_strum_names_are_serde_names::<HardCaseLabel>();
        assert_strum_names_are_serde_names::<Role>();
        assert_strum_names_are_serde_names::<Outcome>();
    }
}
