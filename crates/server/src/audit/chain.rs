//! The hash chain that makes the audit trail tamper-evident: every line carries `prev`, the
//! hex SHA-256 of the previous line's exact bytes (without its newline). The first line of a
//! brand-new trail chains from [`GENESIS`]; the first line of a file started by rotation
//! chains from the last line of the file it replaced, so the rotated files and the current
//! one form one chain.

use sha2::{Digest, Sha256};

/// The `prev` of the very first line of a trail: 64 zeros.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// The hash a following line carries as its `prev`: hex SHA-256 of `line` (no newline).
pub fn line_hash(line: &[u8]) -> String {
    hex::encode(Sha256::digest(line))
}

/// The first characters of a hash, for messages.
pub(crate) fn short(hash: &str) -> &str {
    hash.get(..12).unwrap_or(hash)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_is_hex_sha256_of_the_exact_bytes() {
        assert_eq!(
            line_hash(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(GENESIS.len(), 64);
        assert_ne!(line_hash(b"abc"), line_hash(b"abc "));
    }
}
