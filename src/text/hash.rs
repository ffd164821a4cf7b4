//! Fingerprints: SHA-256 in hex, the one hash of suites, models, prompts, logs and URLs; and
//! [`WordMap`], a hash map for the short words a checker looks up many times per claim.

/// Bytes as lower-case hex.
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The first `keep` bytes of the SHA-256 of `data`, in hex (`usize::MAX`: all of it): the one
/// fingerprint of suites, models, prompts, logs and URLs.
pub fn sha256_hex(data: &[u8], keep: usize) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(data);
    hex(&digest[..keep.min(digest.len())])
}

/// A map from short keys (words, number keys) hashed with a multiply-and-rotate hash (the one
/// rustc uses for its own tables) instead of SipHash: a word's look-up costs a few instructions,
/// not a few dozen. The keys come from the user's own suite and passages, so resistance to
/// crafted collisions (what SipHash buys) is not needed; the map's contents and answers are the
/// same as with any hasher.
pub(crate) type WordMap<K, V> = std::collections::HashMap<K, V, WordHash>;

/// A set hashed as [`WordMap`] is.
pub(crate) type WordSet<K> = std::collections::HashSet<K, WordHash>;

/// The builder of [`WordMap`]'s hasher.
pub(crate) type WordHash = std::hash::BuildHasherDefault<WordHasher>;

/// The hasher of [`WordMap`]: eight bytes at a time, each folded in with a rotate, an xor and a
/// multiply by a fixed odd constant.
#[derive(Default, Clone, Copy)]
pub(crate) struct WordHasher(u64);

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl WordHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl std::hash::Hasher for WordHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().expect("eight bytes")));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut last = [0u8; 8];
            last[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(last));
        }
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(i as u64);
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(i as u64);
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_word_map_finds_what_was_put_in_it_and_nothing_else() {
        // keys of every length round the eight-byte chunks, multi-byte text and a key that is a
        // prefix of another ("refund" in "refunds"): str's hash ends with a 0xff byte, so a
        // prefix hashes apart
        let keys = [
            "",
            "a",
            "refund",
            "refunds",
            "eightchr",
            "eightchrs",
            "€3,50",
            "#12€%",
            "prémium",
            "sixteen-character",
        ];
        let mut m: WordMap<String, usize> = WordMap::default();
        for (i, k) in keys.iter().enumerate() {
            m.insert(k.to_string(), i);
        }
        assert_eq!(m.len(), keys.len());
        for (i, k) in keys.iter().enumerate() {
            assert_eq!(m.get(*k), Some(&i), "{k}");
        }
        assert_eq!(m.get("refun"), None);
        assert_eq!(m.get("eightch"), None);
        use std::hash::BuildHasher;
        let h = WordHash::default();
        assert_ne!(h.hash_one("refund"), h.hash_one("refunds"));
        assert_ne!(h.hash_one("ab"), h.hash_one("ba"));
    }
}
