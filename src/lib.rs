//! faithprobe tests the testers of RAG systems.
//!
//! It loads a suite (passages, claims a person verified as faithful, labelled hard cases),
//! generates known faults from the faithful claims, runs a checker over everything, and
//! summarises false alarms and per-fault-type catch rates with Wilson intervals.
//!
//! ```
//! use faithprobe::check::lexical::{LexicalChecker, LexicalSettings};
//! use faithprobe::mutate::{generate, Rules};
//! use faithprobe::run::run_suite;
//! use faithprobe::suite::Suite;
//! use faithprobe::summary::summarize;
//!
//! let yaml = r#"
//! suite: refunds
//! contexts:
//!   - id: policy
//!     passages:
//!       - {id: p1, text: "Refunds are paid within 5 working days."}
//!     faithful:
//!       - {id: f1, claim: "Refunds are paid within 5 working days."}
//! "#;
//! let suite = Suite::from_yaml(std::path::Path::new("refunds.yaml"), yaml)?;
//! let mutants = generate(&suite, &Rules::builtin())?;
//! let checker = LexicalChecker::new("lexical", LexicalSettings::default());
//! let run = run_suite(&suite, &mutants, &checker, &mut |_, _| {});
//! let summary = summarize(&run, 0.95);
//! assert_eq!(summary.false_alarms.k, 0);
//! let negation = &summary.fault_types[1];
//! assert_eq!(negation.fault_type, "negation_flip");
//! assert_eq!(negation.mutants, 1); // "Refunds are not paid within 5 working days."
//! # Ok::<(), faithprobe::error::Error>(())
//! ```

pub mod answers;
pub mod case;
pub mod check;
pub mod compare;
pub mod config;
pub mod error;
pub mod import;
pub mod interrupt;
pub mod llm;
pub mod merge;
pub mod mutate;
pub mod notes;
pub mod paths;
pub mod prompts;
pub mod proxy;
pub mod record;
pub mod report;
pub mod review;
pub mod run;
pub mod shard;
pub mod snapshot;
pub mod stats;
pub mod suite;
pub mod summary;
pub mod sweep;
pub mod text;
pub mod write;
pub mod yaml;

#[cfg(test)]
mod fuzz;
