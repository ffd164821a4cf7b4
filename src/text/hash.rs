//! Fingerprints: SHA-256 in hex, the one hash of suites, models, prompts, logs and URLs.

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
