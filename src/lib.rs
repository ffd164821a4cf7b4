//! faithprobe tests the testers of RAG systems.
//!
//! It loads a suite (passages, claims a person verified as faithful, labelled hard cases),
//! generates known faults from the faithful claims, runs a checker over everything, and
//! summarises false alarms and per-fault-type catch rates with Wilson intervals.
//!
//! ```
//! use faithprobe::check::lexical::{LexicalChecker, LexicalSettings};
//! use faithprobe::mutate::{generate, Rules};
//! use faithprobe::engine::run::run_suite;
//! use faithprobe::model::suite::Suite;
//! use faithprobe::engine::summary::summarize;
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
pub mod check;
pub mod engine;
pub mod error;
pub mod gate;
pub mod import;
pub mod io;
pub mod model;
pub mod mutate;
pub mod report;
pub mod review;
pub mod stats;
pub mod text;

#[cfg(test)]
mod fuzz;
