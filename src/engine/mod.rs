//! The engines: run a checker over a suite, summarise it, sweep thresholds, compare a mutation
//! score with real errors, merge shards, and the records and settings they read and write (and
//! their JSON Schemas). They return typed results; words and layout are `report/`'s, never an
//! engine's.

pub mod config;
pub mod from_log;
pub mod merge;
pub mod mix;
pub mod proxy;
pub mod record;
pub mod run;
pub mod schemas;
pub mod summary;
pub mod sweep;
