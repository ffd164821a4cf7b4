//! The gate: paired comparison of two records (run records of a suite in [`compare`], score
//! records of a log in [`answers`]) into one decision at a stated error rate. Both compose the
//! same parts: [`pair`] (the two sides matched by key), [`row`] (what a row is), [`family`] (the
//! rows decided together, Tarone + Holm through one implementation), [`failure`] (why it failed,
//! as values) and [`exit_code`].

pub mod answers;
pub mod compare;
pub mod failure;
pub mod family;
pub mod pair;
pub mod row;

use crate::error::Exit;

/// 1 when the gate failed; 3 when nothing failed but something could not be scored (no verdict,
/// never a pass); else 0.
pub fn exit_code(failures: &[failure::GateFailure], no_verdict: &[String]) -> Exit {
    if !failures.is_empty() {
        Exit::GateFailed
    } else if !no_verdict.is_empty() {
        Exit::CheckerFailed
    } else {
        Exit::Ok
    }
}
