//! Authentication: passwords (argon2id), opaque tokens (stored as SHA-256), access tokens (JWT HS256),
//! the `Authenticated` extractor for /v1 and the internal token of /system. Secrets are compared in
//! constant time and never logged.

pub mod client_ip;
pub mod extractor;
pub mod internal;
pub mod jwt;
pub mod password;
pub mod scope;
pub mod tokens;

pub use extractor::{Authenticated, Principal};

/// Constant-time equality of two secrets of any length: both are hashed first, so neither the
/// comparison time nor an early length check reveals anything about the expected value.
pub fn secrets_equal(given: &[u8], expected: &[u8]) -> bool {
    let given = ring::digest::digest(&ring::digest::SHA256, given);
    let expected = ring::digest::digest(&ring::digest::SHA256, expected);
    given
        .as_ref()
        .iter()
        .zip(expected.as_ref())
        .fold(0u8, |difference, (a, b)| difference | (a ^ b))
        == 0
}

#[cfg(test)]
mod tests {
    use super::secrets_equal;

    #[test]
    fn compares_values_not_lengths() {
        assert!(secrets_equal(b"token", b"token"));
        assert!(!secrets_equal(b"token", b"tokem"));
        assert!(!secrets_equal(b"", b"token"));
        assert!(!secrets_equal(b"token-and-more", b"token"));
    }
}
