//! The vocabulary: cases and what counts where, suites as loaded and validated, shards. Everything
//! above reads these types; nothing here runs a checker, writes a report or parses a command line.

pub mod case;
pub mod shard;
pub mod suite;
