//! The keys blobs are sealed under. Each tenant has a data key of its own (32 random bytes, made with
//! its first blob), stored wrapped (AES-256-GCM) by the server's master key; the master key never
//! reaches the database and a data key never reaches storage in clear. Rotating the master key
//! re-wraps the data keys without touching a blob; shredding a tenant's data key makes every blob
//! sealed under it unreadable, copies and backups included.
//!
//! The master key comes from `DOCSIEVE_MASTER_KEY` (hex; several separated by commas, the first one
//! current), else from `storage.master_key_file`, else from `<data_dir>/master_key`, generated on
//! first start like the JWT secret. A key file may hold several keys, one per line, the first
//! current: each data key records the id of the master key that wrapped it, so that any listed key
//! opens it while a rotation is under way.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ring::aead::{Aad, LessSafeKey, Nonce, UnboundKey, AES_256_GCM, NONCE_LEN};
use ring::rand::{SecureRandom, SystemRandom};

use super::seal::DataKey;
use crate::store::Store;

/// The environment variable that holds the master key(s), as hex.
pub const MASTER_KEY_ENV: &str = "DOCSIEVE_MASTER_KEY";
/// How long an opened data key is kept in memory (a key shredded by another process stops opening
/// blobs here within this time).
const CACHED_FOR: Duration = Duration::from_secs(60);

#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    #[error("tenant {0}'s data key was destroyed (crypto-shredded): its blobs cannot be opened")]
    Shredded(i64),
    #[error("tenant {tenant_id}'s data key is wrapped by master key {master_key_id}, which is not configured (storage.master_key_file, {MASTER_KEY_ENV})")]
    UnknownMaster {
        tenant_id: i64,
        master_key_id: String,
    },
    #[error("tenant {0}'s data key does not open under the configured master key")]
    Unwrap(i64),
    #[error("the master key: {0}")]
    Master(String),
    #[error("the data key store: {0}")]
    Store(String),
}

/// Where the master keys were read from, for a rotation that writes the new one back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MasterSource {
    Env,
    File(PathBuf),
}

/// The master keys in force: the first one wraps new data keys, every one opens what it wrapped.
#[derive(Clone)]
pub struct MasterKeys {
    keys: Vec<([u8; 32], String)>,
    pub source: MasterSource,
}

/// A master key's id: the first 8 bytes of a SHA-256 of it, as hex (names the key, reveals nothing).
pub fn master_key_id(key: &[u8; 32]) -> String {
    let mut input = b"docsieve master key id\0".to_vec();
    input.extend_from_slice(key);
    hex::encode(&ring::digest::digest(&ring::digest::SHA256, &input).as_ref()[..8])
}

/// 32 random bytes as hex: a new master key.
pub fn generate_master_key() -> Result<String, KeyError> {
    let mut key = [0u8; 32];
    SystemRandom::new()
        .fill(&mut key)
        .map_err(|_| KeyError::Master("no random numbers".to_string()))?;
    Ok(hex::encode(key))
}

fn aead(key: &[u8; 32]) -> LessSafeKey {
    LessSafeKey::new(UnboundKey::new(&AES_256_GCM, key).expect("a 32-byte key"))
}

fn wrap_aad(tenant_id: i64) -> [u8; 25] {
    let mut aad = [0u8; 25];
    aad[..17].copy_from_slice(b"docsieve data key");
    aad[17..].copy_from_slice(&tenant_id.to_be_bytes());
    aad
}

impl MasterKeys {
    /// Parses keys written as 64 hex digits, separated by commas, spaces or new lines (`#` starts a
    /// comment line).
    pub fn parse(text: &str, source: MasterSource) -> Result<MasterKeys, KeyError> {
        let mut keys = Vec::new();
        for word in text
            .lines()
            .filter(|line| !line.trim_start().starts_with('#'))
            .flat_map(|line| line.split([',', ' ', '\t']))
            .filter(|word| !word.is_empty())
        {
            let bytes = hex::decode(word.trim())
                .ok()
                .and_then(|bytes| <[u8; 32]>::try_from(bytes).ok())
                .ok_or_else(|| {
                    KeyError::Master("a master key is 64 hex digits (32 bytes)".to_string())
                })?;
            keys.push((bytes, master_key_id(&bytes)));
        }
        if keys.is_empty() {
            return Err(KeyError::Master("no master key given".to_string()));
        }
        Ok(MasterKeys { keys, source })
    }

    /// Reads the master keys: the environment variable, else `file`, else `<data_dir>/master_key`
    /// (made, owner-only, when missing).
    pub fn load(file: Option<&Path>, data_dir: &Path) -> Result<MasterKeys, KeyError> {
        if let Ok(text) = std::env::var(MASTER_KEY_ENV) {
            if !text.trim().is_empty() {
                return MasterKeys::parse(&text, MasterSource::Env);
            }
        }
        let (path, generate) = match file {
            Some(path) => (path.to_path_buf(), false),
            None => (data_dir.join("master_key"), true),
        };
        match std::fs::read_to_string(&path) {
            Ok(text) => MasterKeys::parse(&text, MasterSource::File(path)),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound && generate => {
                let key = generate_master_key()?;
                write_key_file(&path, std::slice::from_ref(&key))?;
                MasterKeys::parse(&key, MasterSource::File(path))
            }
            Err(error) => Err(KeyError::Master(format!(
                "cannot read {}: {error}",
                path.display()
            ))),
        }
    }

    pub fn current_id(&self) -> &str {
        &self.keys[0].1
    }

    pub fn ids(&self) -> Vec<String> {
        self.keys.iter().map(|(_, id)| id.clone()).collect()
    }

    /// The keys as hex, current first (what a key file holds).
    pub fn to_hex(&self) -> Vec<String> {
        self.keys.iter().map(|(key, _)| hex::encode(key)).collect()
    }

    /// `data_key` wrapped under the current master key: hex of nonce and sealed key.
    pub fn wrap(&self, tenant_id: i64, data_key: &[u8; 32]) -> Result<String, KeyError> {
        let mut nonce = [0u8; NONCE_LEN];
        SystemRandom::new()
            .fill(&mut nonce)
            .map_err(|_| KeyError::Master("no random numbers".to_string()))?;
        let mut sealed = data_key.to_vec();
        aead(&self.keys[0].0)
            .seal_in_place_append_tag(
                Nonce::assume_unique_for_key(nonce),
                Aad::from(wrap_aad(tenant_id)),
                &mut sealed,
            )
            .map_err(|_| KeyError::Master("cannot wrap".to_string()))?;
        let mut stored = nonce.to_vec();
        stored.extend_from_slice(&sealed);
        Ok(hex::encode(stored))
    }

    /// Opens a wrapped data key with the master key that wrapped it.
    pub fn unwrap(
        &self,
        tenant_id: i64,
        wrapped: &str,
        master_key_id: &str,
    ) -> Result<[u8; 32], KeyError> {
        let (master, _) = self
            .keys
            .iter()
            .find(|(_, id)| id == master_key_id)
            .ok_or_else(|| KeyError::UnknownMaster {
                tenant_id,
                master_key_id: master_key_id.to_string(),
            })?;
        let bytes = hex::decode(wrapped).map_err(|_| KeyError::Unwrap(tenant_id))?;
        if bytes.len() < NONCE_LEN {
            return Err(KeyError::Unwrap(tenant_id));
        }
        let (nonce, sealed) = bytes.split_at(NONCE_LEN);
        let nonce =
            Nonce::try_assume_unique_for_key(nonce).map_err(|_| KeyError::Unwrap(tenant_id))?;
        let mut sealed = sealed.to_vec();
        let plain = aead(master)
            .open_in_place(nonce, Aad::from(wrap_aad(tenant_id)), &mut sealed)
            .map_err(|_| KeyError::Unwrap(tenant_id))?;
        <[u8; 32]>::try_from(&plain[..]).map_err(|_| KeyError::Unwrap(tenant_id))
    }
}

/// Writes a key file (owner-only) through a temporary file and a rename, so that a crash leaves the
/// old file or the new one, never half of one.
pub fn write_key_file(path: &Path, keys: &[String]) -> Result<(), KeyError> {
    let fail = |error: std::io::Error| {
        KeyError::Master(format!("cannot write {}: {error}", path.display()))
    };
    if let Some(folder) = path.parent() {
        std::fs::create_dir_all(folder).map_err(fail)?;
    }
    let temporary = path.with_extension("tmp");
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    {
        use std::io::Write;
        let mut file = options.open(&temporary).map_err(fail)?;
        file.write_all(format!("{}\n", keys.join("\n")).as_bytes())
            .map_err(fail)?;
        file.sync_all().map_err(fail)?;
    }
    std::fs::rename(&temporary, path).map_err(fail)
}

/// Hands out tenants' data keys: opened from the store (and kept a minute), made on first use.
pub struct KeyRing {
    store: Store,
    masters: Mutex<Arc<MasterKeys>>,
    cache: Mutex<HashMap<i64, (Arc<DataKey>, Instant)>>,
}

impl KeyRing {
    pub fn new(store: Store, masters: MasterKeys) -> KeyRing {
        KeyRing {
            store,
            masters: Mutex::new(Arc::new(masters)),
            cache: Mutex::new(HashMap::new()),
        }
    }

    fn masters(&self) -> Arc<MasterKeys> {
        self.masters.lock().expect("master keys").clone()
    }

    /// Reads a key file again (a rotation by `docsieve keys rotate` while the server runs).
    fn reload(&self) -> Arc<MasterKeys> {
        let current = self.masters();
        if let MasterSource::File(path) = &current.source {
            if let Ok(text) = std::fs::read_to_string(path) {
                if let Ok(fresh) = MasterKeys::parse(&text, current.source.clone()) {
                    let fresh = Arc::new(fresh);
                    *self.masters.lock().expect("master keys") = fresh.clone();
                    return fresh;
                }
            }
        }
        current
    }

    /// The tenant's data key, made and stored on its first use.
    pub async fn data_key(&self, tenant_id: i64) -> Result<Arc<DataKey>, KeyError> {
        if let Some((key, at)) = self.cache.lock().expect("key cache").get(&tenant_id) {
            if at.elapsed() < CACHED_FOR {
                return Ok(key.clone());
            }
        }
        let store = |error: crate::store::StoreError| KeyError::Store(error.to_string());
        let mut stored = self.store.data_key(tenant_id).await.map_err(store)?;
        if stored.is_none() {
            let mut bytes = [0u8; 32];
            SystemRandom::new()
                .fill(&mut bytes)
                .map_err(|_| KeyError::Master("no random numbers".to_string()))?;
            // A new key is wrapped under the key file as it is now (it may have been rotated).
            let masters = self.reload();
            let wrapped = masters.wrap(tenant_id, &bytes)?;
            self.store
                .insert_data_key(
                    tenant_id,
                    &wrapped,
                    masters.current_id(),
                    chrono::Utc::now(),
                )
                .await
                .map_err(store)?;
            stored = self.store.data_key(tenant_id).await.map_err(store)?;
        }
        let record = stored.ok_or(KeyError::Unwrap(tenant_id))?;
        let (Some(wrapped), Some(master_id)) = (record.wrapped, record.master_key_id) else {
            self.cache.lock().expect("key cache").remove(&tenant_id);
            return Err(KeyError::Shredded(tenant_id));
        };
        let bytes = match self.masters().unwrap(tenant_id, &wrapped, &master_id) {
            Err(KeyError::UnknownMaster { .. }) => {
                self.reload().unwrap(tenant_id, &wrapped, &master_id)?
            }
            other => other?,
        };
        let key = Arc::new(DataKey::new(&bytes, tenant_id));
        self.cache
            .lock()
            .expect("key cache")
            .insert(tenant_id, (key.clone(), Instant::now()));
        Ok(key)
    }

    /// Destroys the tenant's data key here and in the store.
    pub async fn shred(&self, tenant_id: i64) -> Result<(), KeyError> {
        self.cache.lock().expect("key cache").remove(&tenant_id);
        self.store
            .shred_data_key(tenant_id, chrono::Utc::now())
            .await
            .map_err(|error| KeyError::Store(error.to_string()))
    }
}

/// What a rotation did.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Rotation {
    pub master_key_id: String,
    pub rewrapped: u64,
    pub already_current: u64,
    pub shredded: u64,
}

/// Re-wraps every data key under `new`'s current key (the blobs are not touched). Each key must open
/// under `old` (or `new`); a key that changed meanwhile is read again.
pub async fn rewrap_all(
    store: &Store,
    old: &MasterKeys,
    new: &MasterKeys,
) -> Result<Rotation, KeyError> {
    let fail = |error: crate::store::StoreError| KeyError::Store(error.to_string());
    let mut rotation = Rotation {
        master_key_id: new.current_id().to_string(),
        ..Rotation::default()
    };
    for record in store.data_keys().await.map_err(fail)? {
        let tenant_id = record.tenant_id;
        let mut record = Some(record);
        for _ in 0..8 {
            let Some(current) = record.take() else { break };
            let (Some(wrapped), Some(master_id)) = (current.wrapped, current.master_key_id) else {
                rotation.shredded += 1;
                break;
            };
            if master_id == new.current_id() {
                rotation.already_current += 1;
                break;
            }
            let bytes = match old.unwrap(tenant_id, &wrapped, &master_id) {
                Ok(bytes) => bytes,
                Err(_) => new.unwrap(tenant_id, &wrapped, &master_id)?,
            };
            let rewrapped = new.wrap(tenant_id, &bytes)?;
            if store
                .rewrap_data_key(tenant_id, &wrapped, &rewrapped, new.current_id())
                .await
                .map_err(fail)?
            {
                rotation.rewrapped += 1;
                break;
            }
            record = store.data_key(tenant_id).await.map_err(fail)?;
        }
    }
    Ok(rotation)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_keys_open_only_under_the_master_key_and_tenant_that_wrapped_them() {
        let one = MasterKeys::parse(&"11".repeat(32), MasterSource::Env).expect("one");
        let two = MasterKeys::parse(
            &format!("{},{}", "22".repeat(32), "11".repeat(32)),
            MasterSource::Env,
        )
        .expect("two");
        assert_eq!(two.ids()[1], one.current_id());
        let data = [7u8; 32];
        let wrapped = one.wrap(5, &data).expect("wrap");
        assert!(!wrapped.contains(&hex::encode(data)));
        assert_eq!(
            one.unwrap(5, &wrapped, one.current_id()).expect("open"),
            data
        );
        // A key file listing the old key after the new one still opens it.
        assert_eq!(
            two.unwrap(5, &wrapped, one.current_id()).expect("open"),
            data
        );
        assert!(matches!(
            one.unwrap(6, &wrapped, one.current_id()),
            Err(KeyError::Unwrap(6))
        ));
        assert!(matches!(
            one.unwrap(5, &wrapped, two.current_id()),
            Err(KeyError::UnknownMaster { .. })
        ));
        assert!(MasterKeys::parse("abc", MasterSource::Env).is_err());
        assert!(MasterKeys::parse("# nothing\n", MasterSource::Env).is_err());
    }
}
