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
    /// again) and returns the new key's version.
    pub async fn rotate_pseudonym_key(
        &self,
        tenant_id: i64,
        sealed: &str,
        now: DateTime<Utc>,
    ) -> Result<i64, StoreError> {
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
        Ok(self
            .pseudonym_key(tenant_id)
            .await?
            .map_or(1, |record| record.version))
    }
}
