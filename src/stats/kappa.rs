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

#[cfg(test)]
mod tests {
    use super::*;

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
