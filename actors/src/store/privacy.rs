//! A tenant's privacy policy, one row per version (the newest is in force), and its pseudonym key,
//! stored sealed (the store never sees it in clear).

use chrono::{DateTime, Utc};
use sea_orm::ConnectionTrait;

use super::{Store, StoreError};

/// One version of a tenant's privacy policy: `body` is the policy as JSON.
#[derive(Clone, Debug)]
pub struct PrivacyPolicyRecord {
    pub version: i64,
    pub body: String,
    pub created_by: Option<i64>,
    pub created_at: DateTime<Utc>,
}

/// A tenant's pseudonym key, sealed, and how many times it was rotated (1: the first key).
#[derive(Clone, Debug)]
pub struct PseudonymKeyRecord {
    pub version: i64,
    pub sealed: String,
    pub created_at: DateTime<Utc>,
}

fn policy_record(row: sea_orm::QueryResult) -> Result<PrivacyPolicyRecord, StoreError> {
    Ok(PrivacyPolicyRecord {
        version: row.try_get("", "version")?,
        body: row.try_get("", "body")?,
        created_by: row.try_get("", "created_by")?,
        created_at: row.try_get("", "created_at")?,
    })
}

impl Store {
    /// The tenant's policy in force (its newest version); None while it has never set one.
    pub async fn privacy_policy(
        &self,
        tenant_id: i64,
    ) -> Result<Option<PrivacyPolicyRecord>, StoreError> {
        let row = self
            .connection()
            .query_one(self.statement(
                "SELECT version, body, created_by, created_at FROM privacy_policies \
                 WHERE tenant_id = ? ORDER BY version DESC LIMIT 1",
                vec![tenant_id.into()],
            ))
            .await?;
        row.map(policy_record).transpose()
    }

    /// Every version of the tenant's policy, oldest first.
    pub async fn privacy_policies(
        &self,
        tenant_id: i64,
    ) -> Result<Vec<PrivacyPolicyRecord>, StoreError> {
        let rows = self
            .connection()
            .query_all(self.statement(
                "SELECT version, body, created_by, created_at FROM privacy_policies \
                 WHERE tenant_id = ? ORDER BY version",
                vec![tenant_id.into()],
            ))
            .await?;
        rows.into_iter().map(policy_record).collect()
    }

    /// Keeps `body` as the tenant's next policy version, and returns that version. Two writers at
    /// once: the unique (tenant, version) lets one win, and the other writes the version after it.
    pub async fn put_privacy_policy(
        &self,
        tenant_id: i64,
        body: &str,
        created_by: Option<i64>,
        now: DateTime<Utc>,
    ) -> Result<i64, StoreError> {
        let mut tries = 0;
        loop {
            let current = self.privacy_policy(tenant_id).await?;
            let version = current.map_or(1, |record| record.version + 1);
            let inserted = self
                .connection()
                .execute(self.statement(
                    "INSERT INTO privacy_policies (tenant_id, version, body, created_by, created_at) \
                     VALUES (?, ?, ?, ?, ?) ON CONFLICT (tenant_id, version) DO NOTHING",
                    vec![
                        tenant_id.into(),
                        version.into(),
                        body.into(),
                        created_by.into(),
                        now.into(),
                    ],
                ))
                .await?;
            tries += 1;
            if inserted.rows_affected() == 1 {
                return Ok(version);
            }
            if tries >= 8 {
                return Err(StoreError::Duplicate);
            }
        }
    }

    /// The tenant's pseudonym key, sealed; None before its first.
    pub async fn pseudonym_key(
        &self,
        tenant_id: i64,
    ) -> Result<Option<PseudonymKeyRecord>, StoreError> {
        let row = self
            .connection()
            .query_one(self.statement(
                "SELECT version, sealed, created_at FROM pseudonym_keys WHERE tenant_id = ?",
                vec![tenant_id.into()],
            ))
            .await?;
        row.map(|row| {
            Ok(PseudonymKeyRecord {
                version: row.try_get("", "version")?,
                sealed: row.try_get("", "sealed")?,
                created_at: row.try_get("", "created_at")?,
            })
        })
        .transpose()
    }

    /// Keeps `sealed` as the tenant's first key unless it has one already (then the one it has stays:
    /// two first uses at once agree on one key).
    pub async fn insert_pseudonym_key(
        &self,
        tenant_id: i64,
        sealed: &str,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.connection()
            .execute(self.statement(
                "INSERT INTO pseudonym_keys (tenant_id, version, sealed, created_at) \
                 VALUES (?, 1, ?, ?) ON CONFLICT (tenant_id) DO NOTHING",
                vec![tenant_id.into(), sealed.into(), now.into()],
            ))
            .await?;
        Ok(())
    }

    /// Replaces the tenant's key by `sealed` (the old one is gone: its mapping cannot be made
    /// again) and returns the new key.
    pub async fn rotate_pseudonym_key(
        &self,
        tenant_id: i64,
        sealed: &str,
        now: DateTime<Utc>,
    ) -> Result<PseudonymKeyRecord, StoreError> {
        let updated = self
            .connection()
            .execute(self.statement(
                "UPDATE pseudonym_keys SET sealed = ?, version = version + 1, created_at = ? \
                 WHERE tenant_id = ?",
                vec![sealed.into(), now.into(), tenant_id.into()],
            ))
            .await?;
        if updated.rows_affected() == 0 {
            self.insert_pseudonym_key(tenant_id, sealed, now).await?;
        }
        self.pseudonym_key(tenant_id)
            .await?
            .ok_or(StoreError::Database(sea_orm::DbErr::RecordNotFound(
                "the pseudonym key just written".into(),
            )))
    }
}

/// One pseudonym of the re-identification vault: keyed digests of the pseudonym and of its value,
/// and the value sealed under the tenant's key (see `privacy::vault`).
#[derive(Clone, Debug)]
pub struct VaultEntry {
    pub pseudonym_digest: String,
    pub value_digest: String,
    pub pii_type: String,
    pub sealed: String,
}

/// Rows per INSERT statement when the vault takes a document's pseudonyms.
const VAULT_BATCH: usize = 100;

impl Store {
    /// Keeps the pseudonyms of `entries` made under key `key_version` (one already kept stays);
    /// returns how many were new.
    pub async fn vault_insert(
        &self,
        tenant_id: i64,
        key_version: i64,
        entries: &[VaultEntry],
        now: DateTime<Utc>,
    ) -> Result<u64, StoreError> {
        let mut inserted = 0;
        for batch in entries.chunks(VAULT_BATCH) {
            let rows = vec!["(?, ?, ?, ?, ?, ?, ?)"; batch.len()].join(", ");
            let mut values = Vec::with_capacity(batch.len() * 7);
            for entry in batch {
                values.extend([
                    tenant_id.into(),
                    key_version.into(),
                    entry.pseudonym_digest.clone().into(),
                    entry.value_digest.clone().into(),
                    entry.pii_type.clone().into(),
                    entry.sealed.clone().into(),
                    now.into(),
                ]);
            }
            inserted += self
                .connection()
                .execute(self.statement(
                    &format!(
                        "INSERT INTO pseudonym_vault (tenant_id, key_version, pseudonym_digest, \
                         value_digest, pii_type, sealed, created_at) VALUES {rows} \
                         ON CONFLICT (tenant_id, pseudonym_digest, value_digest) DO NOTHING"
                    ),
                    values,
                ))
                .await?
                .rows_affected();
        }
        Ok(inserted)
    }

    /// The vault's entries for these pseudonym digests, made under key `key_version`.
    pub async fn vault_lookup(
        &self,
        tenant_id: i64,
        key_version: i64,
        digests: &[String],
    ) -> Result<Vec<VaultEntry>, StoreError> {
        if digests.is_empty() {
            return Ok(Vec::new());
        }
        let marks = vec!["?"; digests.len()].join(", ");
        let mut values: Vec<sea_orm::Value> = vec![tenant_id.into(), key_version.into()];
        values.extend(digests.iter().map(|digest| digest.clone().into()));
        let rows = self
            .connection()
            .query_all(self.statement(
                &format!(
                    "SELECT pseudonym_digest, value_digest, pii_type, sealed FROM pseudonym_vault \
                     WHERE tenant_id = ? AND key_version = ? AND pseudonym_digest IN ({marks}) \
                     ORDER BY id"
                ),
                values,
            ))
            .await?;
        rows.into_iter()
            .map(|row| {
                Ok(VaultEntry {
                    pseudonym_digest: row.try_get("", "pseudonym_digest")?,
                    value_digest: row.try_get("", "value_digest")?,
                    pii_type: row.try_get("", "pii_type")?,
                    sealed: row.try_get("", "sealed")?,
                })
            })
            .collect()
    }

    /// How many pseudonyms the tenant's vault holds.
    pub async fn vault_size(&self, tenant_id: i64) -> Result<i64, StoreError> {
        let row = self
            .connection()
            .query_one(self.statement(
                "SELECT COUNT(*) AS n FROM pseudonym_vault WHERE tenant_id = ?",
                vec![tenant_id.into()],
            ))
            .await?;
        Ok(row
            .map(|row| row.try_get("", "n"))
            .transpose()?
            .unwrap_or(0))
    }

    /// Deletes the tenant's vault, or only its rows made under `key_version`; returns how many
    /// pseudonyms went.
    pub async fn destroy_vault(
        &self,
        tenant_id: i64,
        key_version: Option<i64>,
    ) -> Result<u64, StoreError> {
        let statement = match key_version {
            None => self.statement(
                "DELETE FROM pseudonym_vault WHERE tenant_id = ?",
                vec![tenant_id.into()],
            ),
            Some(version) => self.statement(
                "DELETE FROM pseudonym_vault WHERE tenant_id = ? AND key_version = ?",
                vec![tenant_id.into(), version.into()],
            ),
        };
        Ok(self.connection().execute(statement).await?.rows_affected())
    }

    /// Deletes the tenant's vault rows for any of `value_digests` (a data-subject erasure); how many.
    pub async fn vault_forget(
        &self,
        tenant_id: i64,
        value_digests: &[String],
    ) -> Result<u64, StoreError> {
        let mut gone = 0;
        for chunk in value_digests.chunks(400) {
            let marks = vec!["?"; chunk.len()].join(", ");
            let mut values: Vec<sea_orm::Value> = vec![tenant_id.into()];
            values.extend(
                chunk
                    .iter()
                    .map(|digest| sea_orm::Value::from(digest.clone())),
            );
            gone += self
                .connection()
                .execute(self.statement(
                    &format!(
                        "DELETE FROM pseudonym_vault WHERE tenant_id = ? AND value_digest IN ({marks})"
                    ),
                    values,
                ))
                .await?
                .rows_affected();
        }
        Ok(gone)
    }
}
