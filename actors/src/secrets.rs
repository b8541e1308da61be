//! Secrets at rest: webhook signing secrets and storage connectors' credentials are stored sealed with
//! AES-256-GCM under a key derived from the server's secret; they never appear in logs or API answers
//! after creation. One box for every owner of a secret (the webhook sender, the connectors, the front
//! that seals them on creation).

use ring::aead::{Aad, LessSafeKey, Nonce, UnboundKey, AES_256_GCM, NONCE_LEN};
use ring::rand::{SecureRandom, SystemRandom};

/// Seals and opens stored secrets (AES-256-GCM; the stored form is hex of nonce + ciphertext).
#[derive(Clone)]
pub struct SecretBox {
    key: [u8; 32],
}

impl SecretBox {
    /// A box whose key is derived from `server_secret` (the JWT secret, kept in the data dir). The
    /// derivation's label predates the connectors and stays: it opens every secret stored so far.
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
    fn secrets_round_trip_and_do_not_open_under_another_key() {
        let secret_box = SecretBox::from_server_secret("a server secret of enough length....");
        let sealed = secret_box.seal("whsec_abc").expect("seals");
        assert!(!sealed.contains("whsec_abc"));
        assert_eq!(secret_box.open(&sealed).as_deref(), Some("whsec_abc"));
        let other = SecretBox::from_server_secret("another server secret of enough length");
        assert_eq!(other.open(&sealed), None);
    }
}
