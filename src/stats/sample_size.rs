//! How many labelled cases it takes to pin a rate.

use super::wilson::z_for;

/// Cases needed to estimate a rate near `rate` to within `margin` at `confidence`
/// (normal approximation, rounded up): about 139 for 0.9 within ±0.05 at 95%.
///
/// At a rate of exactly 0 or 1 the normal approximation says 0, which is never true: there the
/// answer is the number of cases whose Wilson interval, with no miss at all, reaches no further
/// than `margin` from the rate (73 for ±0.05 at 95%).
pub fn sample_size(rate: f64, margin: f64, confidence: f64) -> u64 {
    let z = z_for(confidence);
    if rate <= 0.0 || rate >= 1.0 {
        // Wilson upper bound with k = 0: z^2 / (n + z^2) <= margin
        return (z * z * (1.0 - margin) / margin).ceil() as u64;
    }
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
    fn a_rate_of_zero_or_one_needs_the_cases_that_bound_the_interval() {
        let n = sample_size(0.0, 0.05, 0.95);
        assert_eq!(n, 73);
        assert_eq!(sample_size(1.0, 0.05, 0.95), n);
        // with that many and no miss, the Wilson interval ends within the margin
        let r = crate::stats::Rate::new(0, n, 0.95);
        assert!(r.ci_high <= 0.05 && crate::stats::Rate::new(0, n - 1, 0.95).ci_high > 0.05);
    }

    #[test]
    fn a_rate_of_one_half_needs_the_most() {
        assert_eq!(sample_size(0.5, 0.05, 0.95), 385);
        assert!(sample_size(0.5, 0.05, 0.95) > sample_size(0.8, 0.05, 0.95));
    }
}
