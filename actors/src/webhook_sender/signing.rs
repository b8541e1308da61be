//! Signatures of webhook deliveries and the encryption of webhook secrets at rest.
//!
//! `X-Service-Signature` is the hex HMAC-SHA256 of the exact body keyed with the webhook's secret. The
//! Standard Webhooks headers add replay protection: `webhook-id`, `webhook-timestamp` (Unix seconds)
//! and `webhook-signature` = `v1,` + base64 HMAC-SHA256 of `{id}.{timestamp}.{body}` with the same key.
//! Secrets are stored encrypted with AES-256-GCM under a key derived from the server's secret; they
//! never appear in logs or API answers after creation.

use base64::Engine;
use ring::aead::{Aad, LessSafeKey, Nonce, UnboundKey, AES_256_GCM, NONCE_LEN};
use ring::hmac;
use ring::rand::{SecureRandom, SystemRandom};

/// The hex HMAC-SHA256 of `body` (the `X-Service-Signature` header).
pub fn service_signature(secret: &str, body: &[u8]) -> String {
    let key = hmac::Key::new(hmac::HMAC_SHA256, secret.as_bytes());
    hex::encode(hmac::sign(&key, body).as_ref())
}

/// The Standard Webhooks `webhook-signature` header value.
pub fn standard_signature(secret: &str, id: &str, timestamp: i64, body: &[u8]) -> String {
    let key = hmac::Key::new(hmac::HMAC_SHA256, secret.as_bytes());
    let mut context = hmac::Context::with_key(&key);
    context.update(format!("{id}.{timestamp}.").as_bytes());
    context.update(body);
    format!(
        "v1,{}",
        base64::engine::general_purpose::STANDARD.encode(context.sign().as_ref())
    )
}

/// A new random webhook secret: `whsec_` + 32 random bytes in hex.
pub fn new_secret() -> String {
    let mut bytes = [0u8; 32];
    let _ = SystemRandom::new().fill(&mut bytes);
    format!("whsec_{}", hex::encode(bytes))
}

/// Encrypts and decrypts webhook secrets (AES-256-GCM; the stored form is hex of nonce + ciphertext).
#[derive(Clone)]
pub struct SecretBox {
    key: [u8; 32],
}

impl SecretBox {
    /// A box whose key is derived from `server_secret` (the JWT secret, kept in the data dir).
    pub fn from_server_secret(server_secret: &str) -> SecretBox {
        let digest = ring::digest::digest(
            &ring::digest::SHA256,
            format!("docsieve webhook secrets v1\0{server_secret}").as_bytes(),
        );
        let mut key = [0u8; 32];
        key.copy_from_slice(digest.as_ref());
        SecretBox { key }
    }

    fn key(&self) -> Option<LessSafeKey> {
        UnboundKey::new(&AES_256_GCM, &self.key)
            .ok()
            .map(LessSafeKey::new)
    }

    pub fn seal(&self, plain: &str) -> Option<String> {
        let key = self.key()?;
        let mut nonce = [0u8; NONCE_LEN];
        SystemRandom::new().fill(&mut nonce).ok()?;
        let mut data = plain.as_bytes().to_vec();
        key.seal_in_place_append_tag(Nonce::assume_unique_for_key(nonce), Aad::empty(), &mut data)
            .ok()?;
        let mut stored = nonce.to_vec();
        stored.extend_from_slice(&data);
        Some(hex::encode(stored))
    }

    pub fn open(&self, stored: &str) -> Option<String> {
        let key = self.key()?;
        let bytes = hex::decode(stored).ok()?;
        if bytes.len() < NONCE_LEN {
            return None;
        }
        let (nonce, sealed) = bytes.split_at(NONCE_LEN);
        let nonce = Nonce::try_assume_unique_for_key(nonce).ok()?;
        let mut data = sealed.to_vec();
        let plain = key.open_in_place(nonce, Aad::empty(), &mut data).ok()?;
        String::from_utf8(plain.to_vec()).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_match_an_independent_hmac() {
        let body = br#"{"event":"job.completed"}"#;
        let signature = service_signature("s3cret", body);
        let key = hmac::Key::new(hmac::HMAC_SHA256, b"s3cret");
        let expected = hmac::sign(&key, body);
        assert_eq!(
            hex::decode(&signature).ok().as_deref(),
            Some(expected.as_ref())
        );
        assert!(standard_signature("s3cret", "msg_1", 1_700_000_000, body).starts_with("v1,"));
    }

    #[test]
    fn secrets_round_trip_and_do_not_open_under_another_key() {
        let secret_box = SecretBox::from_server_secret("a server secret of enough length....");
        let sealed = secret_box.seal("whsec_abc").expect("seals");
        assert!(!sealed.contains("whsec_abc"));
        assert_eq!(secret_box.open(&sealed).as_deref(), Some("whsec_abc"));
        let other = SecretBox::from_server_secret("another server secret of enough length");
        assert_eq!(other.open(&sealed), None);
        assert!(new_secret().starts_with("whsec_"));
    }
}
