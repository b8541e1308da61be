//! The re-identification vault's cryptography: what a pseudonym and its value become in the store.
//!
//! Everything derives from the tenant's pseudonym key, so the store holds nothing it could read, and
//! rotating the key leaves old rows unreadable (they are deleted then):
//! - the pseudonym's digest: a keyed hash of its [`fold`] (letters and digits in lower case), so that
//!   `Fatma Kaya`, `FATMA KAYA` and `fatma.kaya` look up one entry;
//! - the value's digest: a keyed hash of the value's normal form (one row per value a pseudonym
//!   stands for: two values whose surrogates met give two rows, both answered);
//! - the value sealed with AES-256-GCM under a key derived from the tenant's key, bound to the tenant
//!   and the pseudonym's digest (a row copied to another tenant or pseudonym does not open).

use ring::aead::{self, Aad, LessSafeKey, Nonce, UnboundKey, AES_256_GCM, NONCE_LEN};
use ring::rand::{SecureRandom, SystemRandom};

use crate::pii_masker::{fold, normal_form, PiiType, Pseudonym, SurrogateKey};
use crate::store::VaultEntry;

/// The digest a pseudonym is kept and looked up under.
pub(super) fn pseudonym_digest(key: &SurrogateKey, pseudonym: &str) -> String {
    hex::encode(key.mac(&[b"vault-pseudonym", fold(pseudonym).as_bytes()], 0))
}

pub(super) fn value_digest(key: &SurrogateKey, ty: PiiType, value: &str) -> String {
    let normal = normal_form(ty, value);
    hex::encode(key.mac(
        &[b"vault-value", ty.name().as_bytes(), normal.as_bytes()],
        0,
    ))
}

fn sealing_key(key: &SurrogateKey) -> LessSafeKey {
    let bytes = key.mac(&[b"vault-seal"], 0);
    // A 32-byte key is what AES-256 takes: this cannot fail.
    let unbound = UnboundKey::new(&AES_256_GCM, &bytes).expect("a 32-byte AES-256 key");
    LessSafeKey::new(unbound)
}

fn aad(tenant_id: i64, digest: &str) -> Vec<u8> {
    let mut aad = tenant_id.to_be_bytes().to_vec();
    aad.extend_from_slice(digest.as_bytes());
    aad
}

/// The vault rows for a masking's pseudonyms (each pseudonym and value once); None when the
/// system's random source fails (nothing is kept then).
pub(super) fn entries(
    key: &SurrogateKey,
    tenant_id: i64,
    pseudonyms: &[Pseudonym],
) -> Option<Vec<VaultEntry>> {
    let sealing = sealing_key(key);
    let random = SystemRandom::new();
    let mut seen = std::collections::HashSet::new();
    let mut entries = Vec::new();
    for pseudonym in pseudonyms {
        let pseudonym_digest = pseudonym_digest(key, &pseudonym.written);
        let value_digest = value_digest(key, pseudonym.pii_type, &pseudonym.value);
        if !seen.insert((pseudonym_digest.clone(), value_digest.clone())) {
            continue;
        }
        let mut nonce = [0u8; NONCE_LEN];
        random.fill(&mut nonce).ok()?;
        let mut sealed = pseudonym.value.as_bytes().to_vec();
        sealing
            .seal_in_place_append_tag(
                Nonce::assume_unique_for_key(nonce),
                Aad::from(aad(tenant_id, &pseudonym_digest)),
                &mut sealed,
            )
            .ok()?;
        let mut stored = nonce.to_vec();
        stored.extend_from_slice(&sealed);
        entries.push(VaultEntry {
            pseudonym_digest,
            value_digest,
            pii_type: pseudonym.pii_type.name().to_string(),
            sealed: hex::encode(stored),
        });
    }
    Some(entries)
}

/// The value a vault row keeps; None when it does not open under this key (another key's row, or
/// one altered).
pub(super) fn open(key: &SurrogateKey, tenant_id: i64, entry: &VaultEntry) -> Option<String> {
    let stored = hex::decode(&entry.sealed).ok()?;
    if stored.len() < NONCE_LEN + aead::AES_256_GCM.tag_len() {
        return None;
    }
    let (nonce, sealed) = stored.split_at(NONCE_LEN);
    let nonce = Nonce::try_assume_unique_for_key(nonce).ok()?;
    let mut sealed = sealed.to_vec();
    let value = sealing_key(key)
        .open_in_place(
            nonce,
            Aad::from(aad(tenant_id, &entry.pseudonym_digest)),
            &mut sealed,
        )
        .ok()?;
    String::from_utf8(value.to_vec()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_value_opens_under_its_key_tenant_and_pseudonym_only() {
        let key = SurrogateKey::new(b"tenant key");
        let pseudonyms = vec![
            Pseudonym {
                pii_type: PiiType::PersonName,
                value: "Ayşe Yılmaz".into(),
                written: "Fatma Kaya".into(),
            },
            // The same person written otherwise: one row.
            Pseudonym {
                pii_type: PiiType::PersonName,
                value: "AYŞE YILMAZ".into(),
                written: "FATMA KAYA".into(),
            },
            Pseudonym {
                pii_type: PiiType::NationalIdTr,
                value: "10000000146".into(),
                written: "38167243950".into(),
            },
        ];
        let entries = entries(&key, 7, &pseudonyms).expect("sealed");
        assert_eq!(entries.len(), 2);
        assert!(entries.iter().all(|entry| !entry.sealed.contains("Ay")));
        assert_eq!(open(&key, 7, &entries[0]).as_deref(), Some("Ayşe Yılmaz"));
        assert_eq!(
            entries[0].pseudonym_digest,
            pseudonym_digest(&key, "fatma kaya")
        );
        assert_eq!(open(&key, 7, &entries[1]).as_deref(), Some("10000000146"));
        // Another tenant, another key, another pseudonym, an altered row: nothing opens.
        assert_eq!(open(&key, 8, &entries[0]), None);
        assert_eq!(open(&SurrogateKey::new(b"rotated"), 7, &entries[0]), None);
        let mut moved = entries[0].clone();
        moved.pseudonym_digest = entries[1].pseudonym_digest.clone();
        assert_eq!(open(&key, 7, &moved), None);
        let mut altered = entries[0].clone();
        let flipped = if &altered.sealed[30..31] == "0" {
            "1"
        } else {
            "0"
        };
        altered.sealed.replace_range(30..31, flipped);
        assert_eq!(open(&key, 7, &altered), None);
    }
}
