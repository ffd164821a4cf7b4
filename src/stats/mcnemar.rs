//! The exact McNemar test for paired outcomes.
//!
//! Only the discordant pairs carry information: `b` cases changed one way, `c` the other. Under
//! "no real difference" each is a fair coin flip, so the two-sided p-value is twice the smaller
//! binomial tail of Binomial(b + c, 1/2), capped at 1.

use statrs::distribution::{Binomial, DiscreteCDF};

/// Two-sided exact McNemar p-value for `b` and `c` discordant pairs. With no discordant pair
/// there is no evidence of a difference: 1.
pub fn mcnemar_exact(b: u64, c: u64) -> f64 {
    let n = b + c;
    if n == 0 {
        return 1.0;
    }
    let k = b.min(c);
    let dist = Binomial::new(0.5, n).expect("p = 0.5 is valid");
    let p = 2.0 * dist.cdf(k);
    // the incomplete-beta evaluation leaves rounding dust below 1 for balanced tables
    if p > 1.0 - 1e-12 {
        1.0
    } else {
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_seed_figure_holds() {
        // 18 answers fixed, 7 broken of 25 that changed: p = 0.043
        assert!((mcnemar_exact(18, 7) - 0.043).abs() < 0.0005);
    }

    #[test]
    fn matches_scipy_binomtest_on_a_table_of_inputs() {
        // scipy.stats.binomtest(min(b, c), b + c, 0.5).pvalue
        let table = [
            (18, 7, 0.043285250663757324),
            (0, 0, 1.0),
            (1, 0, 1.0),
            (5, 5, 1.0),
            (0, 10, 0.001953125),
            (30, 12, 0.007915897334896727),
            (100, 130, 0.05561357778139238),
            (3, 9, 0.14599609375),
            (500, 460, 0.2081086007351347),
        ];
        for (b, c, p) in table {
            let got = mcnemar_exact(b, c);
            assert!((got - p).abs() < 1e-9, "{b},{c}: {got} vs {p}");
        }
    }

    proptest! {
        #[test]
        fn symmetric_in_b_and_c_and_never_above_1(b in 0u64..3000, c in 0u64..3000) {
            let p = mcnemar_exact(b, c);
            prop_assert!((p - mcnemar_exact(c, b)).abs() < 1e-12);
            prop_assert!((0.0..=1.0).contains(&p));
        }
    }
}
