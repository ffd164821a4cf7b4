//! Every end-to-end test in one binary (as ripgrep does): one link instead of ten, one
//! executable under target/ instead of ten of 110-150 MB each. Each file is a module named for
//! what it tests; `cargo test NAME` still runs one test.

mod common;

mod answers;
mod batch;
mod cli;
mod docs;
mod families;
mod from_log;
mod gate;
mod generation;
mod importers;
mod informative;
mod judge;
mod logs;
mod mix;
mod mutators_prop;
mod nli;
mod outputs;
mod python_checkers;
mod realism;
mod review;
mod schemas;
