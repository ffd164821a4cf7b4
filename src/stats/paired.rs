//! The gate's paired test: one-sided, by clusters, over a family trimmed by Tarone's rule.
//!
//! **By clusters.** A checker change flips a parent claim's mutants together, so the changed
//! cases of a row are not independent and McNemar, which counts each as one, rejects too often
//! (an unchanged checker failed one row 20% of the time at nominal 5% in the audit's
//! simulation). The test here works on each cluster's net change D_j = better - worse: under the
//! null hypothesis (the candidate is no worse than the base) a cluster is as likely to move one
//! way as the other, so every sign pattern of the D_j is equally likely, and the p-value is the
//! share of the 2^k sign flips whose total is at most the observed one. The distribution is
//! computed exactly by convolution over the clusters that changed (an integer sum), so there is
//! no seed and no Monte Carlo error. With one case per cluster it is the one-sided exact
//! McNemar (sign) test.
//!
//! **One-sided.** The gate fails only when a row got worse, so it asks only that question: the
//! one-sided p is half the two-sided one where the change is all one way.
//!
//! **Tarone's rule.** A row with k clusters that changed can reach no p below 0.5^k; a row with
//! nothing changed, none below 1. Such rows cannot reject, so dividing alpha among them only
//! weakens the rows that can. Tarone (1990) takes the smallest m for which at most m rows can
//! reach alpha / m and adjusts over those rows only, with m in place of the number of rows; the
//! family-wise error stays at most alpha.

/// The one-sided p-value that the candidate is worse, from the clusters' net changes (better -
/// worse per cluster): the probability under random sign flips of a total at most the observed.
pub fn sign_flip_p_worse(net: &[i64]) -> f64 {
    let sizes: Vec<usize> = net
        .iter()
        .filter(|d| **d != 0)
        .map(|d| d.unsigned_abs() as usize)
        .collect();
    if sizes.is_empty() {
        return 1.0;
    }
    let total: usize = sizes.iter().sum();
    // dist[s] = P(sum of the flipped sizes = s - total)
    let mut dist = vec![0.0f64; 2 * total + 1];
    dist[total] = 1.0;
    let mut reach = 0usize;
    for &m in &sizes {
        let mut next = vec![0.0f64; 2 * total + 1];
        for s in total - reach..=total + reach {
            let p = dist[s];
            if p == 0.0 {
                continue;
            }
            next[s + m] += 0.5 * p;
            next[s - m] += 0.5 * p;
        }
        dist = next;
        reach += m;
    }
    let observed: i64 = net.iter().sum();
    let at = (observed + total as i64) as usize;
    dist[..=at].iter().sum::<f64>().min(1.0)
}

/// The smallest p-value a row whose clusters' net changes are `net` could reach: every changed
/// cluster worse, 0.5^k.
pub fn min_p_worse(net: &[i64]) -> f64 {
    0.5f64.powi(net.iter().filter(|d| **d != 0).count() as i32)
}

/// Tarone's m: the smallest m for which at most m of the rows can reach `alpha / m` (their
/// smallest reachable p-values are `min_p`). 0 when there are no rows.
pub fn tarone_m(min_p: &[f64], alpha: f64) -> usize {
    (1..=min_p.len())
        .find(|&m| min_p.iter().filter(|p| **p <= alpha / m as f64).count() <= m)
        .unwrap_or(min_p.len())
}

/// Adjusts `p` (the rows of Tarone's family, those whose smallest reachable p is at most
/// alpha / m) as Holm or Bonferroni would over `m` rows.
pub fn adjust_within(p: &[f64], m: usize, method: super::Adjust) -> Vec<f64> {
    let m = m.max(p.len()) as f64;
    match method {
        super::Adjust::None => p.to_vec(),
        super::Adjust::Bonferroni => p.iter().map(|x| (x * m).min(1.0)).collect(),
        super::Adjust::Holm => {
            let mut order: Vec<usize> = (0..p.len()).collect();
            order.sort_by(|a, b| p[*a].total_cmp(&p[*b]));
            let mut out = vec![1.0; p.len()];
            let mut running: f64 = 0.0;
            for (rank, &i) in order.iter().enumerate() {
                running = running.max(((m - rank as f64) * p[i]).min(1.0));
                out[i] = running;
            }
            out
        }
    }
}

/// The gate's adjustment in one step: from each row's smallest reachable p (`min_p`) and its
/// one-sided p (`p`), Tarone's m and each row's adjusted p, `None` for a row outside the family
/// (it cannot reach significance). With `Adjust::None` every row is in and m is their number.
pub fn adjust_family(
    min_p: &[f64],
    p: &[f64],
    alpha: f64,
    method: super::Adjust,
) -> (usize, Vec<Option<f64>>) {
    let m = match method {
        super::Adjust::None => min_p.len(),
        _ => tarone_m(min_p, alpha),
    };
    let family: Vec<usize> = (0..min_p.len())
        .filter(|i| method == super::Adjust::None || min_p[*i] <= alpha / m.max(1) as f64)
        .collect();
    let raw: Vec<f64> = family.iter().map(|i| p[*i]).collect();
    let mut out = vec![None; min_p.len()];
    for (i, q) in family.iter().zip(adjust_within(&raw, m, method)) {
        out[*i] = Some(q);
    }
    (m, out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::mcnemar_exact;

    #[test]
    fn one_case_per_cluster_is_the_one_sided_exact_mcnemar_test() {
        for (better, worse) in [(0u64, 5u64), (1, 7), (3, 3), (2, 9), (0, 1), (8, 0)] {
            let net: Vec<i64> = std::iter::repeat_n(1, better as usize)
                .chain(std::iter::repeat_n(-1, worse as usize))
                .collect();
            let p = sign_flip_p_worse(&net);
            if worse > better {
                // half the two-sided p where the change leans to worse
                let two = mcnemar_exact(better, worse);
                assert!(
                    (p - two / 2.0).abs() < 1e-12,
                    "{better} {worse}: {p} vs {two}"
                );
            } else {
                assert!(p >= 0.5, "{better} {worse}: {p}");
            }
        }
        // 20/20 -> 12/20: 8 worse, 0 better, p = 0.5^8
        let p = sign_flip_p_worse(&[-1; 8]);
        assert!((p - 0.00390625).abs() < 1e-15);
    }

    #[test]
    fn changes_that_move_together_count_as_one() {
        // 8 worse cases from 2 claims of 4: two sign flips, not eight
        assert!((sign_flip_p_worse(&[-4, -4]) - 0.25).abs() < 1e-15);
        // from 8 claims: 0.5^8
        assert!((sign_flip_p_worse(&[-1; 8]) - 0.5f64.powi(8)).abs() < 1e-15);
        // nets -3, -1, +1 (observed total -3); the sign flips of (3, 1, 1) total
        // 5, 3, 3, 1, -1, -3, -3, -5: three of eight are at most -3
        assert!((sign_flip_p_worse(&[-3, -1, 1]) - 3.0 / 8.0).abs() < 1e-15);
        assert_eq!(min_p_worse(&[-3, 0, 1]), 0.25);
        assert_eq!(sign_flip_p_worse(&[0, 0]), 1.0);
    }

    #[test]
    fn tarone_leaves_out_the_rows_that_cannot_reject() {
        // the audit's example: one row 20/20 -> 12/20 (8 worse), eight rows with nothing changed
        let mut min_p = vec![1.0; 8];
        min_p.push(0.5f64.powi(8));
        let m = tarone_m(&min_p, 0.05);
        assert_eq!(m, 1);
        let adj = adjust_within(&[0.5f64.powi(8)], m, crate::stats::Adjust::Holm);
        assert!(adj[0] < 0.05, "{adj:?}");
        // rows that can all reach: m is the number of rows, as Holm
        assert_eq!(tarone_m(&[1e-6, 1e-6, 1e-6], 0.05), 3);
        // one row of 3 changed clusters (min p 0.125) cannot reach 0.05 at all
        assert_eq!(tarone_m(&[0.125, 1e-4], 0.05), 1);
    }
}
