//! Signed receipts: what an erasure (or a tenant's closure) removed, signed with the server's
//! Ed25519 key so that anyone can check it offline with the public key
//! (`GET /v1/compliance/receipt-key`, or `docsieve receipts verify`). A receipt is
//! `{payload, signature, algorithm, key_id}`: `payload` is the JSON text that was signed, exactly as
//! signed, and `signature` its Ed25519 signature in base64.
//!
//! The signing key comes from `DOCSIEVE_RECEIPT_KEY` (the PKCS#8 document in hex), else from
//! `<data_dir>/receipt_key`, generated on first start (owner-only), like the JWT secret. An
//! operator makes one with `openssl genpkey -algorithm ed25519 -outform DER | xxd -p -c 256`.

use std::path::Path;

use base64::Engine;
use ring::signature::{Ed25519KeyPair, KeyPair, UnparsedPublicKey, ED25519};

/// The environment variable holding the receipt signing key (PKCS#8, hex).
pub const RECEIPT_KEY_ENV: &str = "DOCSIEVE_RECEIPT_KEY";

/// Signs receipts.
pub struct ReceiptSigner {
    pair: Ed25519KeyPair,
}

/// A signed receipt.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize, utoipa::ToSchema)]
pub struct Receipt {
    /// The JSON text that was signed, exactly as signed.
    pub payload: String,
    /// Ed25519 signature of `payload`'s UTF-8 bytes, base64.
    pub signature: String,
    /// `Ed25519`.
    pub algorithm: String,
    /// The first 16 hex digits of the SHA-256 of the public key.
    pub key_id: String,
}

/// The id of a public key: the first 16 hex digits of its SHA-256.
pub fn key_id(public: &[u8]) -> String {
    hex::encode(&ring::digest::digest(&ring::digest::SHA256, public).as_ref()[..8])
}

impl ReceiptSigner {
    /// The key from the environment, else from `<data_dir>/receipt_key` (made when missing).
    pub fn load(data_dir: &Path) -> Result<ReceiptSigner, String> {
        let from_hex = |text: &str| -> Result<ReceiptSigner, String> {
            let bytes =
                hex::decode(text.trim()).map_err(|_| "the receipt key is not hex".to_string())?;
            // PKCS#8 v2 (ring's own, with the public key) or v1 (`openssl genpkey`).
            let pair = Ed25519KeyPair::from_pkcs8_maybe_unchecked(&bytes)
                .map_err(|_| "the receipt key is not an Ed25519 PKCS#8 document".to_string())?;
            Ok(ReceiptSigner { pair })
        };
        if let Ok(text) = std::env::var(RECEIPT_KEY_ENV) {
            if !text.trim().is_empty() {
                return from_hex(&text);
            }
        }
        let path = data_dir.join("receipt_key");
        match std::fs::read_to_string(&path) {
            Ok(text) => from_hex(&text),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                let document = Ed25519KeyPair::generate_pkcs8(&ring::rand::SystemRandom::new())
                    .map_err(|_| "no random numbers".to_string())?;
                let text = hex::encode(document.as_ref());
                crate::blob::write_key_file(&path, std::slice::from_ref(&text))
                    .map_err(|e| e.to_string())?;
                from_hex(&text)
            }
            Err(error) => Err(format!("cannot read {}: {error}", path.display())),
        }
    }

    pub fn public_key(&self) -> &[u8] {
        self.pair.public_key().as_ref()
    }

    /// Signs `payload` (serialized once, and kept as that text).
    pub fn sign(&self, payload: &serde_json::Value) -> Receipt {
        let text = payload.to_string();
        let signature = self.pair.sign(text.as_bytes());
        Receipt {
            payload: text,
            signature: base64::engine::general_purpose::STANDARD.encode(signature.as_ref()),
            algorithm: "Ed25519".to_string(),
            key_id: key_id(self.public_key()),
        }
    }
}

/// Whether `receipt` was signed by the holder of `public_key` (32 bytes).
pub fn verify(receipt: &Receipt, public_key: &[u8]) -> bool {
    let Ok(signature) = base64::engine::general_purpose::STANDARD.decode(&receipt.signature) else {
        return false;
    };
    UnparsedPublicKey::new(&ED25519, public_key)
        .verify(receipt.payload.as_bytes(), &signature)
        .is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_receipt_verifies_with_its_key_and_not_once_altered() {
        let dir = tempfile::tempdir().expect("dir");
        let signer = ReceiptSigner::load(dir.path()).expect("signer");
        let again = ReceiptSigner::load(dir.path()).expect("the same key, read back");
        assert_eq!(signer.public_key(), again.public_key());
        let receipt = signer.sign(&serde_json::json!({"erased": {"documents": 2}}));
        assert!(verify(&receipt, signer.public_key()));
        let mut altered = receipt.clone();
        altered.payload = altered.payload.replace('2', "1");
        assert!(!verify(&altered, signer.public_key()));
        let other = tempfile::tempdir().expect("dir");
        // A key made by `openssl genpkey -algorithm ed25519 -outform DER` (PKCS#8 v1) is read too.
        std::fs::write(
            other.path().join("receipt_key"),
            "302e020100300506032b65700422042010a2f5f2b539e75fe64653eec48c8124e5e29e64679220d22d02e84bc4a6fa99",
        )
        .expect("write");
        let stranger = ReceiptSigner::load(other.path()).expect("an openssl key");
        assert!(!verify(&receipt, stranger.public_key()));
        assert!(verify(
            &stranger.sign(&serde_json::json!({})),
            stranger.public_key()
        ));
    }
}
