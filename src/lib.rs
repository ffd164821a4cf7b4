//! faithgate tests the testers of RAG systems.
pub mod check;
pub mod config;
pub mod error;
pub mod mutate;
pub mod report;
pub mod run;
pub mod snapshot;
pub mod stats;
pub mod suite;
pub mod summary;
pub mod text;
