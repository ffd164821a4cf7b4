//! Statistics: pure functions, no I/O.

pub mod wilson;

pub use wilson::{wilson, Rate};
