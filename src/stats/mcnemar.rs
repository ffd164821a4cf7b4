//! The exact McNemar test for paired outcomes.
//!
//! Only the discordant pairs carry information: `b` cases changed one way, `c` the other. Under
//! "no real difference" each is a fair coin flip, so the two-sided p-value is twice the smaller
//! binomial tail of Binomial(b + c, 1/2), capped at 1.
//!
//! The tail is summed from its largest term down, each term from the one before by the exact
//! ratio i / (n - i + 1), until the rest cannot change the sum; the largest term comes from
//! Loader's saddle-point form of the binomial density (the one R's `dbinom` uses), which keeps
//! full precision where log-gamma differences of numbers near 10^9 would lose it. Checked against
//! scipy's `binomtest` up to b + c = 2·10^9.

/// The largest `b + c` computed exactly: beyond 2^53 counts are no longer exact in an f64.
pub const MAX_DISCORDANT: u64 = 1 << 53;

/// Two-sided exact McNemar p-value for `b` and `c` discordant pairs. With no discordant pair
/// there is no evidence of a difference: 1. Counts whose sum passes [`MAX_DISCORDANT`] are
/// clamped there (callers reject them first).
pub fn mcnemar_exact(b: u64, c: u64) -> f64 {
    let n = b.saturating_add(c).min(MAX_DISCORDANT);
    if n == 0 {
        return 1.0;
    }
    let k = b.min(c).min(n / 2);
    let p = 2.0 * half_tail(k, n);
    if p >= 1.0 - 1e-12 {
        1.0
    } else {
        p
    }
}

/// P(X <= k) for X ~ Binomial(n, 1/2), k <= n/2.
pub(crate) fn half_tail(k: u64, n: u64) -> f64 {
    let log_top = log_dbinom_half(k, n);
    if log_top < -745.0 - (n as f64).ln() {
        return 0.0; // below the smallest f64 even summed over every term
    }
    // terms below k, relative to the term at k
    let mut sum = 1.0f64;
    let mut term = 1.0f64;
    let mut i = k;
    while i > 0 {
        term *= i as f64 / (n - i + 1) as f64;
        sum += term;
        if term < sum * 1e-17 {
            break;
        }
        i -= 1;
    }
    (log_top + sum.ln()).exp()
}

/// log P(X = x) for X ~ Binomial(n, 1/2), accurate for n up to 2^53.
pub(crate) fn log_dbinom_half(x: u64, n: u64) -> f64 {
    let ln2 = std::f64::consts::LN_2;
    if x == 0 || x == n {
        return -(n as f64) * ln2;
    }
    let (x, n) = (x as f64, n as f64);
    let np = n / 2.0;
    let lc = stirlerr(n) - stirlerr(x) - stirlerr(n - x) - bd0(x, np) - bd0(n - x, np);
    let lf = (2.0 * std::f64::consts::PI).ln() + x.ln() + (-x / n).ln_1p();
    lc - 0.5 * lf
}

/// log(n!) - log(sqrt(2 pi n) (n / e)^n), the error of Stirling's formula.
fn stirlerr(n: f64) -> f64 {
    const S0: f64 = 1.0 / 12.0;
    const S1: f64 = 1.0 / 360.0;
    const S2: f64 = 1.0 / 1260.0;
    const S3: f64 = 1.0 / 1680.0;
    const S4: f64 = 1.0 / 1188.0;
    if n <= 15.0 {
        // small n: the definition, where ln_gamma is exact enough
        return statrs::function::gamma::ln_gamma(n + 1.0) - (n + 0.5) * n.ln() + n
            - 0.5 * (2.0 * std::f64::consts::PI).ln();
    }
    let nn = n * n;
    if n > 500.0 {
        (S0 - S1 / nn) / n
    } else if n > 80.0 {
        (S0 - (S1 - S2 / nn) / nn) / n
    } else if n > 35.0 {
        (S0 - (S1 - (S2 - S3 / nn) / nn) / nn) / n
    } else {
        (S0 - (S1 - (S2 - (S3 - S4 / nn) / nn) / nn) / nn) / n
    }
}

/// x log(x / np) + np - x, without the cancellation of the naive form when x is near np.
fn bd0(x: f64, np: f64) -> f64 {
    if (x - np).abs() < 0.1 * (x + np) {
        let mut v = (x - np) / (x + np);
        let mut s = (x - np) * v;
        let mut ej = 2.0 * x * v;
        v *= v;
        for j in 1..1000 {
            ej *= v;
            let s1 = s + ej / (2 * j + 1) as f64;
            if s1 == s {
                return s1;
            }
            s = s1;
        }
        s
    } else {
        x * (x / np).ln() + np - x
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
    fn matches_scipy_binomtest_up_to_two_billion_discordant_pairs() {
        // scipy 1.17.1: scipy.stats.binomtest(min(b, c), b + c, 0.5).pvalue
        let table: [(u64, u64, f64); 21] = [
            (18, 7, 0.043285250663757324),
            (0, 0, 1.0),
            (1, 0, 1.0),
            (5, 5, 1.0),
            (0, 10, 0.001953125),
            (30, 12, 0.007915897334896727),
            (100, 130, 0.05561357778139238),
            (3, 9, 0.14599609375),
            (500, 460, 0.2081086007351347),
            (1_000_000, 1_000_000, 1.0),
            (1_000_000, 1_002_000, 0.15771445281314467),
            (1_000_000, 1_005_000, 0.0004149032657183009),
            (100_000_000, 100_000_000, 1.0),
            (100_000_000, 100_020_000, 0.15734071918388778),
            (100_000_000, 100_030_000, 0.033914182195927324),
            (500_000_000, 500_040_000, 0.20592361784293295),
            (500_000_000, 500_070_000, 0.02686420769908673),
            (1_000_000_000, 1_000_100_000, 0.025352444671534274),
            (1_000_000_000, 1_000_000_000, 1.0),
            (999_999_000, 1_000_001_000, 0.9643472316894268),
            (12, 1_000_000_000, 0.0),
        ];
        for (b, c, p) in table {
            let got = mcnemar_exact(b, c);
            let ok = if p == 0.0 {
                got == 0.0
            } else {
                ((got - p) / p).abs() < 1e-9
            };
            assert!(ok, "{b},{c}: {got} vs scipy {p}");
        }
    }

    #[test]
    fn huge_counts_never_overflow_or_leave_0_1() {
        for (b, c) in [(u64::MAX, u64::MAX), (u64::MAX, 0), (1 << 60, 3)] {
            let p = mcnemar_exact(b, c);
            assert!((0.0..=1.0).contains(&p), "{b},{c}: {p}");
        }
    }

    proptest! {
        #[test]
        fn symmetric_in_b_and_c_and_never_above_1(b in 0u64..3000, c in 0u64..3000) {
            let p = mcnemar_exact(b, c);
            prop_assert!((p - mcnemar_exact(c, b)).abs() < 1e-12);
            prop_assert!((0.0..=1.0).contains(&p));
        }

        #[test]
        fn matches_the_direct_sum_for_small_tables(b in 0u64..60, c in 0u64..60) {
            // exact rational arithmetic is out of reach, but for n < 120 the direct sum of
            // binomial coefficients in f64 is exact to rounding
            let n = b + c;
            let k = b.min(c);
            let mut coef = 1.0f64;
            let mut tail = 0.0f64;
            for i in 0..=k {
                if i > 0 {
                    coef = coef * (n - i + 1) as f64 / i as f64;
                }
                tail += coef;
            }
            let direct = (2.0 * tail * 0.5f64.powi(n as i32)).min(1.0);
            let got = mcnemar_exact(b, c);
            prop_assert!((got - direct).abs() <= 1e-12 * direct.max(1e-300), "{b},{c}: {got} vs {direct}");
        }
    }
}
