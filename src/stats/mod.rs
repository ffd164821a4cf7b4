//! Statistics: pure functions, no I/O.

pub mod agreement;
pub mod bootstrap;
pub mod cluster;
#[cfg(test)]
mod cluster_grid;
pub mod correct;
pub mod kappa;
pub mod mcnemar;
pub mod paired;
pub mod power;
pub mod sample_size;
pub mod stratified;
pub mod sweep;
pub mod wilson;

pub use cluster::{cluster_rate, cluster_rate_of, ClusterRate};
pub use kappa::{cohen_kappa, cohen_kappa_ci, Kappa};
pub use mcnemar::{mcnemar_exact, MAX_DISCORDANT};
pub use power::{detectable_drop, detectable_drop_of, Adjust};
pub use sample_size::sample_size;
pub use wilson::{wilson, Rate};

/// A small seeded generator (SplitMix64) for the simulation tests: the same numbers on every
/// machine, no dependency.
#[cfg(test)]
pub(crate) struct TestRng(pub u64);

#[cfg(test)]
impl TestRng {
    pub fn next_f64(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) as f64 / u64::MAX as f64
    }
}

/// A p-value for reading: four decimals, and "< 0.0001" below that (never "0.0000", which reads
/// as impossible).
pub fn fmt_p(p: f64) -> String {
    if p < 1e-4 {
        "< 0.0001".into()
    } else {
        format!("{p:.4}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_p_values_read_as_below_a_ten_thousandth_never_zero() {
        assert_eq!(fmt_p(0.00001), "< 0.0001");
        assert_eq!(fmt_p(0.0), "< 0.0001");
        assert_eq!(fmt_p(0.0078125), "0.0078");
        assert_eq!(fmt_p(1.0), "1.0000");
    }
}
