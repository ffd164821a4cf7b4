//! The gate: paired comparison of two records (run records of a suite, score records of a log)
//! into one decision at a stated error rate.

// the gate is being rewritten (compare runs 387 lines); drop this with the rewrite
#[allow(clippy::too_many_lines)]
pub mod compare;
