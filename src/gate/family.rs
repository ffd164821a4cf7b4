//! The family of rows one gate decides on: Tarone's rule leaves out the rows that cannot reach
//! significance, and the rest are adjusted together (Holm or Bonferroni) through
//! [`crate::stats::paired::adjust_family`], the one implementation both comparisons use.

use crate::stats::paired::adjust_family;
use crate::stats::Adjust;

/// One row's part in the decision.
#[derive(Debug, Clone, Copy)]
pub struct Member {
    /// The smallest p the row's changes could reach (for Tarone's rule).
    pub min_p: f64,
    /// The row's one-sided p that the candidate is worse.
    pub p_worse: f64,
}

/// The family's outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct Family {
    /// Tarone's m: the number of rows alpha is divided among.
    pub size: usize,
    /// Each member's adjusted p; None for a row outside the family (it cannot fail).
    pub adjusted: Vec<Option<f64>>,
    /// The level one row must meet for the detectable change it prints (alpha, or alpha over the
    /// number of members when adjusted).
    pub row_alpha: f64,
}

/// Decides the family of `members` at `alpha`.
pub fn decide(members: &[Member], alpha: f64, adjust: Adjust) -> Family {
    let min_p: Vec<f64> = members.iter().map(|m| m.min_p).collect();
    let p: Vec<f64> = members.iter().map(|m| m.p_worse).collect();
    let (size, adjusted) = adjust_family(&min_p, &p, alpha, adjust);
    let row_alpha = match adjust {
        Adjust::None => alpha,
        _ => alpha / members.len().max(1) as f64,
    };
    Family {
        size,
        adjusted,
        row_alpha,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_that_cannot_reach_significance_is_outside_the_family() {
        let members = [
            Member {
                min_p: 0.5f64.powi(8),
                p_worse: 0.5f64.powi(8),
            },
            // two changed clusters: at best p = 0.25, never below alpha / m
            Member {
                min_p: 0.25,
                p_worse: 0.25,
            },
        ];
        let f = decide(&members, 0.05, Adjust::Holm);
        assert_eq!(f.size, 1);
        assert_eq!(f.adjusted[1], None);
        assert!((f.adjusted[0].unwrap() - 0.00390625).abs() < 1e-15);
        assert!((f.row_alpha - 0.025).abs() < 1e-15);
        assert_eq!(decide(&members, 0.05, Adjust::None).row_alpha, 0.05);
    }
}
