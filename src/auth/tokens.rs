//! Opaque random tokens (refresh, email, invitation, API keys) and their stored form (SHA-256 hex).

use rand::RngCore;

/// 32 random bytes, hex-encoded.
pub fn random_token() -> String {
    let mut bytes = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    hex::encode(bytes)
}

/// `n` random bytes, hex-encoded (ids, key prefixes).
pub fn random_hex(n: usize) -> String {
    let mut bytes = vec![0u8; n];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    hex::encode(bytes)
}

/// What the database stores instead of the token.
pub fn hash_token(token: &str) -> String {
    hex::encode(ring::digest::digest(
        &ring::digest::SHA256,
        token.as_bytes(),
    ))
}

/// API keys look like `dsk_<prefix>_<secret>`: the prefix finds the row, the whole key is compared
/// (as a hash, in constant time).
pub const API_KEY_SCHEME: &str = "dsk";

pub struct NewApiKey {
    pub prefix: String,
    pub key: String,
}

pub fn new_api_key() -> NewApiKey {
    let prefix = random_hex(6);
    let key = format!("{API_KEY_SCHEME}_{prefix}_{}", random_token());
    NewApiKey { prefix, key }
}

/// The prefix of a presented API key, if it has the right shape.
pub fn api_key_prefix(key: &str) -> Option<&str> {
    let mut parts = key.splitn(3, '_');
    let scheme = parts.next()?;
    let prefix = parts.next()?;
    let secret = parts.next()?;
    (scheme == API_KEY_SCHEME
        && prefix.len() == 12
        && prefix.bytes().all(|b| b.is_ascii_hexdigit())
        && secret.len() == 64)
        .then_some(prefix)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_keys_round_trip_their_prefix() {
        let key = new_api_key();
        assert_eq!(api_key_prefix(&key.key), Some(key.prefix.as_str()));
        assert_eq!(api_key_prefix("dsk_short_x"), None);
        assert_eq!(api_key_prefix("Bearer abc"), None);
        assert_ne!(hash_token(&key.key), key.key);
        assert_eq!(hash_token("a").len(), 64);
    }
}
