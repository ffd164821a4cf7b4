//! Sharding: `--shard K/N` on `run` and `score` takes part K of N of the cases or answers, by a
//! hash of their id (deterministic, independent of order, like nextest's `--partition
//! hash:K/N`), so a large job runs on whatever batch engine a team has (a CI matrix, Kubernetes
//! indexed Jobs, a Slurm array). A plain value that records and runs carry; joining shard records
//! is [`crate::engine::merge`]'s.

use serde::{Deserialize, Serialize};

/// Which part of a log a run takes: `K/N`, by a hash of the answer id (or case id), so the parts
/// are disjoint, cover everything, and do not depend on the order of the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Shard {
    pub k: u32,
    pub n: u32,
}

impl Shard {
    pub fn parse(s: &str) -> std::result::Result<Shard, String> {
        let bad = || format!("--shard {s:?} is not K/N with 1 <= K <= N (e.g. 2/8)");
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let (k, n): (u32, u32) = (
            k.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if k == 0 || n == 0 || k > n {
            return Err(bad());
        }
        Ok(Shard { k, n })
    }

    /// True when `id` belongs to this shard: the first 8 bytes of SHA-256 of the id, mod N.
    pub fn owns(&self, id: &str) -> bool {
        use sha2::{Digest, Sha256};
        let h = Sha256::digest(id.as_bytes());
        let x = u64::from_be_bytes(h[..8].try_into().expect("8 bytes"));
        (x % self.n as u64) as u32 == self.k - 1
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.k, self.n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_are_disjoint_cover_every_id_and_ignore_order() {
        let ids: Vec<String> = (0..1000).map(|i| format!("a-{i}")).collect();
        let n = 4;
        let mut count = 0;
        for id in &ids {
            let owners = (1..=n).filter(|k| Shard { k: *k, n }.owns(id)).count();
            assert_eq!(owners, 1, "{id}");
            count += 1;
        }
        assert_eq!(count, 1000);
        // roughly balanced
        let first = ids.iter().filter(|i| Shard { k: 1, n }.owns(i)).count();
        assert!((180..320).contains(&first), "{first}");
        assert!(Shard::parse("0/3").is_err());
        assert!(Shard::parse("4/3").is_err());
        assert!(Shard::parse("x").is_err());
        assert_eq!(Shard::parse("2/3").unwrap(), Shard { k: 2, n: 3 });
    }
}
