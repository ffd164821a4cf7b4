//! How many labelled cases it takes to pin a rate.

use super::wilson::z_for;

/// Cases needed to estimate a rate near `rate` to within `margin` at `confidence`
/// (normal approximation, rounded up): about 139 for 0.9 within ±0.05 at 95%.
pub fn sample_size(rate: f64, margin: f64, confidence: f64) -> u64 {
    let z = z_for(confidence);
    (z * z * rate * (1.0 - rate) / (margin * margin)).ceil() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seed_figure_holds() {
        assert_eq!(sample_size(0.9, 0.05, 0.95), 139);
    }

    #[test]
    fn a_rate_of_one_half_needs_the_most() {
        assert_eq!(sample_size(0.5, 0.05, 0.95), 385);
        assert!(sample_size(0.5, 0.05, 0.95) > sample_size(0.8, 0.05, 0.95));
    }
}
