//! The gate: paired comparison of two records (run records of a suite, score records of a log)
//! into one decision at a stated error rate.

pub mod compare;
