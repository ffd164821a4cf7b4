//! Statistics: pure functions, no I/O.

pub mod cluster;
pub mod kappa;
pub mod mcnemar;
pub mod power;
pub mod sample_size;
pub mod sweep;
pub mod wilson;

pub use cluster::{cluster_rate, ClusterRate};
pub use kappa::cohen_kappa;
pub use mcnemar::{mcnemar_exact, MAX_DISCORDANT};
pub use power::{adjust, detectable_drop, Adjust};
pub use sample_size::sample_size;
pub use wilson::{wilson, Rate};
