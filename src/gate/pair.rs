//! Pairing the two sides of a comparison: every item of the candidate with the base's item of the
//! same key, and what each side has that the other lacks (listed, never silently dropped).

use std::collections::HashMap;
use std::hash::Hash;

/// The two sides, paired.
#[derive(Debug)]
pub struct Paired<'a, K, T> {
    /// (key, base, candidate), in the candidate's order.
    pub pairs: Vec<(K, &'a T, &'a T)>,
    /// The base's items with no partner, in the base's order.
    pub only_in_base: Vec<(K, &'a T)>,
    /// The candidate's items with no partner, in the candidate's order.
    pub only_in_candidate: Vec<(K, &'a T)>,
}

/// Pairs `candidate` with `base` by key. When a side has a key twice, its last item is the one
/// paired (callers that must refuse duplicates check before).
pub fn pair<'a, K, T>(
    base: impl IntoIterator<Item = (K, &'a T)>,
    candidate: impl IntoIterator<Item = (K, &'a T)>,
) -> Paired<'a, K, T>
where
    K: Eq + Hash + Clone,
{
    let mut order: Vec<K> = Vec::new();
    let mut by_key: HashMap<K, &'a T> = HashMap::new();
    for (k, t) in base {
        if by_key.insert(k.clone(), t).is_none() {
            order.push(k);
        }
    }
    let mut seen: std::collections::HashSet<K> = Default::default();
    let mut pairs = Vec::new();
    let mut only_in_candidate = Vec::new();
    for (k, t) in candidate {
        match by_key.get(&k) {
            Some(b) => {
                seen.insert(k.clone());
                pairs.push((k, *b, t));
            }
            None => only_in_candidate.push((k, t)),
        }
    }
    let only_in_base = order
        .into_iter()
        .filter(|k| !seen.contains(k))
        .map(|k| {
            let t = by_key[&k];
            (k, t)
        })
        .collect();
    Paired {
        pairs,
        only_in_base,
        only_in_candidate,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_in_candidate_order_and_lists_both_sides_leftovers() {
        let base = [("a", 1), ("b", 2), ("c", 3)];
        let cand = [("c", 30), ("d", 40), ("a", 10)];
        let p = pair(
            base.iter().map(|(k, v)| (*k, v)),
            cand.iter().map(|(k, v)| (*k, v)),
        );
        let pairs: Vec<_> = p.pairs.iter().map(|(k, b, c)| (*k, **b, **c)).collect();
        assert_eq!(pairs, [("c", 3, 30), ("a", 1, 10)]);
        let ob: Vec<_> = p.only_in_base.iter().map(|(k, _)| *k).collect();
        let oc: Vec<_> = p.only_in_candidate.iter().map(|(k, _)| *k).collect();
        assert_eq!((ob, oc), (vec!["b"], vec!["d"]));
    }
}
