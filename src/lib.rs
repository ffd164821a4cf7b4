//! faithgate tests the testers of RAG systems.
pub mod check;
pub mod error;
pub mod suite;
pub mod text;
pub mod mutate;
pub mod stats;
pub mod run;
pub mod summary;
pub mod report;
pub mod config;
pub mod snapshot;
