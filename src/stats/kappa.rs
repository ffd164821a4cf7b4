//! Cohen's kappa: agreement between two raters beyond what chance would give.

/// Kappa for paired labels; None when there are no pairs or chance agreement is total.
pub fn cohen_kappa<T: PartialEq + Clone>(pairs: &[(T, T)]) -> Option<f64> {
    let n = pairs.len() as f64;
    if pairs.is_empty() {
        return None;
    }
    let mut cats: Vec<T> = Vec::new();
    for (a, b) in pairs {
        for x in [a, b] {
            if !cats.contains(x) {
                cats.push(x.clone());
            }
        }
    }
    let observed = pairs.iter().filter(|(a, b)| a == b).count() as f64 / n;
    let expected: f64 = cats
        .iter()
        .map(|c| {
            let pa = pairs.iter().filter(|(a, _)| a == c).count() as f64 / n;
            let pb = pairs.iter().filter(|(_, b)| b == c).count() as f64 / n;
            pa * pb
        })
        .sum();
    if (1.0 - expected).abs() < 1e-12 {
        return None;
    }
    Some((observed - expected) / (1.0 - expected))
}

/// Kappa with its large-sample standard error (Fleiss, Cohen and Everitt 1969, as statsmodels'
/// `cohens_kappa` reports it) and a normal interval at `confidence`, clamped to [-1, 1].
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Kappa {
    pub kappa: f64,
    pub std_err: f64,
    pub ci_low: f64,
    pub ci_high: f64,
    pub n: u64,
}

/// [`cohen_kappa`] with its standard error and interval; None where kappa is.
pub fn cohen_kappa_ci<T: PartialEq + Clone>(pairs: &[(T, T)], confidence: f64) -> Option<Kappa> {
    let k = cohen_kappa(pairs)?;
    let n = pairs.len() as f64;
    let mut cats: Vec<T> = Vec::new();
    for (a, b) in pairs {
        for x in [a, b] {
            if !cats.contains(x) {
                cats.push(x.clone());
            }
        }
    }
    let share = |f: &dyn Fn(&(T, T)) -> bool| pairs.iter().filter(|p| f(p)).count() as f64 / n;
    let row: Vec<f64> = cats.iter().map(|c| share(&|(a, _)| a == c)).collect();
    let col: Vec<f64> = cats.iter().map(|c| share(&|(_, b)| b == c)).collect();
    let pe: f64 = row.iter().zip(&col).map(|(r, c)| r * c).sum();
    let mut sum = 0.0;
    for (i, ci) in cats.iter().enumerate() {
        for (j, cj) in cats.iter().enumerate() {
            let pij = share(&|(a, b)| a == ci && b == cj);
            sum += if i == j {
                pij * (1.0 - (row[i] + col[i]) * (1.0 - k)).powi(2)
            } else {
                (1.0 - k).powi(2) * pij * (col[i] + row[j]).powi(2)
            };
        }
    }
    let var = (sum - (k - pe * (1.0 - k)).powi(2)) / (n * (1.0 - pe).powi(2));
    let std_err = var.max(0.0).sqrt();
    let z = super::wilson::z_for(confidence);
    Some(Kappa {
        kappa: k,
        std_err,
        ci_low: (k - z * std_err).max(-1.0),
        ci_high: (k + z * std_err).min(1.0),
        n: pairs.len() as u64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_interval_matches_statsmodels() {
        // statsmodels.stats.inter_rater.cohens_kappa([[20, 5], [10, 15]]): kappa 0.4,
        // std_kappa 0.126996..., interval [0.151092, 0.648908]; [[4, 1], [2, 3]]: std 0.283972
        let table = |a, b, c, d| {
            let mut pairs = vec![];
            pairs.extend(std::iter::repeat_n((1, 1), a));
            pairs.extend(std::iter::repeat_n((1, 0), b));
            pairs.extend(std::iter::repeat_n((0, 1), c));
            pairs.extend(std::iter::repeat_n((0, 0), d));
            pairs
        };
        let k = cohen_kappa_ci(&table(20, 5, 10, 15), 0.95).unwrap();
        assert!(
            (k.std_err - 0.126_996_062_931_100_33).abs() < 1e-12,
            "{k:?}"
        );
        assert!((k.ci_low - 0.151_092_290_476_661).abs() < 1e-9, "{k:?}");
        assert!((k.ci_high - 0.648_907_709_523_338_9).abs() < 1e-9, "{k:?}");
        assert_eq!(k.n, 50);
        let small = cohen_kappa_ci(&table(4, 1, 2, 3), 0.95).unwrap();
        assert!(
            (small.std_err - 0.283_971_829_588_781_53).abs() < 1e-12,
            "{small:?}"
        );
        assert!((small.ci_low - -0.156_574_558_617_957_66).abs() < 1e-9);
    }

    #[test]
    fn a_worked_two_by_two_table() {
        // 20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no: po = 0.7, pe = 0.5, kappa = 0.4
        let mut pairs = vec![];
        pairs.extend(std::iter::repeat_n((1, 1), 20));
        pairs.extend(std::iter::repeat_n((1, 0), 5));
        pairs.extend(std::iter::repeat_n((0, 1), 10));
        pairs.extend(std::iter::repeat_n((0, 0), 15));
        assert!((cohen_kappa(&pairs).unwrap() - 0.4).abs() < 1e-12);
    }

    #[test]
    fn perfect_agreement_is_one_and_no_pairs_is_none() {
        assert_eq!(cohen_kappa(&[("a", "a"), ("b", "b")]), Some(1.0));
        assert_eq!(cohen_kappa::<u8>(&[]), None);
    }
}
