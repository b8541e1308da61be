//! Signatures of webhook deliveries and new webhook secrets.
//!
//! `X-Service-Signature` is the hex HMAC-SHA256 of the exact body keyed with the webhook's secret. The
//! Standard Webhooks headers add replay protection: `webhook-id`, `webhook-timestamp` (Unix seconds)
//! and `webhook-signature` = `v1,` + base64 HMAC-SHA256 of `{id}.{timestamp}.{body}` with the same key.
//! The secrets themselves are kept sealed ([`crate::secrets`]).

use base64::Engine;
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
        assert!(new_secret().starts_with("whsec_"));
    }
}
