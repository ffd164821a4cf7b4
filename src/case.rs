//! The vocabulary of cases, shared by engines, records and reporters: what a checker said
//! ([`Label`]), what a case is ([`CaseKind`]) and what a person expects of it ([`Expected`]),
//! where a mutant's review stands ([`ReviewState`]), what the case counts towards in every rate
//! ([`Role`], defined once here) and how it came out ([`Outcome`]). Engines (`run`, `check`,
//! `mutate`), records and reporters import these from here, not from each other.

use crate::suite::HumanLabel;
use serde::{Deserialize, Serialize};

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

/// Where a mutant's review stands, without the reason: one definition shared by runs, records,
/// comparisons, sweeps and reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReviewState {
    Fault,
    Equivalent,
    Unreviewed,
}

impl ReviewState {
    pub fn as_str(self) -> &'static str {
        match self {
            ReviewState::Fault => "fault",
            ReviewState::Equivalent => "equivalent",
            ReviewState::Unreviewed => "unreviewed",
        }
    }
}

/// What kind of case a claim is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CaseKind {
    /// A claim a person verified as faithful.
    Original,
    /// A labelled claim with a case type.
    HardCase,
    /// A generated fault.
    Mutant,
}

impl CaseKind {
    pub fn as_str(self) -> &'static str {
        match self {
            CaseKind::Original => "original",
            CaseKind::HardCase => "hard_case",
            CaseKind::Mutant => "mutant",
        }
    }
}

/// What a person expects the checker to say.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
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
        match self {
            Expected::Supported => "supported",
            Expected::Contradicted => "contradicted",
            Expected::NotFound => "not_found",
            Expected::Misleading => "misleading",
            Expected::Flagged => "flagged",
        }
    }
}

impl From<HumanLabel> for Expected {
    fn from(l: HumanLabel) -> Self {
        match l {
            HumanLabel::Supported => Expected::Supported,
            HumanLabel::Contradicted => Expected::Contradicted,
            HumanLabel::NotFound => Expected::NotFound,
            HumanLabel::Misleading => Expected::Misleading,
        }
    }
}

/// What a case counts towards in every rate. Defined once, here.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// A faithful case the checker should pass: a verified claim, or a hard case a person
    /// labelled `supported`. Flagging it is a false alarm.
    FalseAlarmOpportunity,
    /// A real fault of the case's fault type: a mutant reviewed `fault`, or a hard case labelled
    /// anything but `supported` (its fault type is the hard case's `type`).
    Fault,
    /// A mutant a person reviewed as still faithful: listed with the reason, in no rate.
    Equivalent,
    /// A mutant nobody reviewed yet: counted apart, in no rate.
    Unreviewed,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::FalseAlarmOpportunity => "false_alarm_opportunity",
            Role::Fault => "fault",
            Role::Equivalent => "equivalent",
            Role::Unreviewed => "unreviewed",
        }
    }

    /// The role of a case of `kind` with `expected` label and, for mutants, `review`.
    pub fn of(kind: CaseKind, expected: Expected, review: Option<ReviewState>) -> Role {
        match kind {
            CaseKind::Original => Role::FalseAlarmOpportunity,
            CaseKind::HardCase if expected == Expected::Supported => Role::FalseAlarmOpportunity,
            CaseKind::HardCase => Role::Fault,
            CaseKind::Mutant => match review {
                Some(ReviewState::Fault) => Role::Fault,
                Some(ReviewState::Equivalent) => Role::Equivalent,
                _ => Role::Unreviewed,
            },
        }
    }
}

/// How a case came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// A faithful case the checker supported.
    Passed,
    /// A faithful case the checker flagged.
    FalseAlarm,
    /// A fault the checker flagged.
    Caught,
    /// A fault the checker supported.
    Missed,
    /// An unreviewed mutant the checker flagged: no fault outcome until a person reviews it.
    FlaggedUnreviewed,
    /// An unreviewed mutant the checker supported.
    PassedUnreviewed,
    /// The checker could not score the case. Never a pass.
    Error,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Passed => "passed",
            Outcome::FalseAlarm => "false_alarm",
            Outcome::Caught => "caught",
            Outcome::Missed => "missed",
            Outcome::FlaggedUnreviewed => "flagged_unreviewed",
            Outcome::PassedUnreviewed => "passed_unreviewed",
            Outcome::Error => "error",
        }
    }

    /// The outcome of a case of `role` whose verdict was flagged or not (`None`: no verdict).
    pub fn of(role: Role, flagged: Option<bool>) -> Outcome {
        let Some(flagged) = flagged else {
            return Outcome::Error;
        };
        match (role, flagged) {
            (Role::FalseAlarmOpportunity | Role::Equivalent, false) => Outcome::Passed,
            (Role::FalseAlarmOpportunity | Role::Equivalent, true) => Outcome::FalseAlarm,
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
}
