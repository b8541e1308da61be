//! Each tenant's data key, wrapped by the server's master key (the store never sees it in clear). A
//! shredded key keeps its row, with nothing in `wrapped`: the record that the tenant's blobs are gone
//! for good, wherever copies of them went.

use chrono::{DateTime, Utc};
use sea_orm::ConnectionTrait;

use super::{Store, StoreError};

/// A tenant's wrapped data key; `wrapped` is None once shredded.
#[derive(Clone, Debug)]
pub struct DataKeyRecord {
    pub tenant_id: i64,
    pub wrapped: Option<String>,
    pub master_key_id: Option<String>,
    pub shredded_at: Option<DateTime<Utc>>,
}

fn record(row: sea_orm::QueryResult) -> Result<DataKeyRecord, StoreError> {
    Ok(DataKeyRecord {
        tenant_id: row.try_get("", "tenant_id")?,
        wrapped: row.try_get("", "wrapped")?,
        master_key_id: row.try_get("", "master_key_id")?,
        shredded_at: row.try_get("", "shredded_at")?,
    })
}

const COLUMNS: &str = "tenant_id, wrapped, master_key_id, shredded_at";

impl Store {
    /// The tenant's data key as stored; None before its first blob.
    pub async fn data_key(&self, tenant_id: i64) -> Result<Option<DataKeyRecord>, StoreError> {
        let row = self
            .connection()
            .query_one(self.statement(
                &format!("SELECT {COLUMNS} FROM tenant_data_keys WHERE tenant_id = ?"),
                vec![tenant_id.into()],
            ))
            .await?;
        row.map(record).transpose()
    }

    /// Every data key, shredded ones included, by tenant.
    pub async fn data_keys(&self) -> Result<Vec<DataKeyRecord>, StoreError> {
        let rows = self
            .connection()
            .query_all(self.statement(
                &format!("SELECT {COLUMNS} FROM tenant_data_keys ORDER BY tenant_id"),
                vec![],
            ))
            .await?;
        rows.into_iter().map(record).collect()
    }

    /// Keeps `wrapped` as the tenant's data key unless it has one (or had one) already: two first
    /// writes at once agree on the key that was stored first.
    pub async fn insert_data_key(
        &self,
        tenant_id: i64,
        wrapped: &str,
        master_key_id: &str,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.connection()
            .execute(self.statement(
                "INSERT INTO tenant_data_keys (tenant_id, wrapped, master_key_id, created_at) \
                 VALUES (?, ?, ?, ?) ON CONFLICT (tenant_id) DO NOTHING",
                vec![
                    tenant_id.into(),
                    wrapped.into(),
                    master_key_id.into(),
                    now.into(),
                ],
            ))
            .await?;
        Ok(())
    }

    /// Replaces the tenant's wrapped key with the same key wrapped under another master key, unless it
    /// changed meanwhile (then false).
    pub async fn rewrap_data_key(
        &self,
        tenant_id: i64,
        old: &str,
        wrapped: &str,
        master_key_id: &str,
    ) -> Result<bool, StoreError> {
        let updated = self
            .connection()
            .execute(self.statement(
                "UPDATE tenant_data_keys SET wrapped = ?, master_key_id = ? \
                 WHERE tenant_id = ? AND wrapped = ?",
                vec![
                    wrapped.into(),
                    master_key_id.into(),
                    tenant_id.into(),
                    old.into(),
                ],
            ))
            .await?;
        Ok(updated.rows_affected() == 1)
    }

    /// Destroys the tenant's data key (crypto-shredding): every blob sealed under it, copies
    /// included, can no longer be opened. A tenant without a key gets a shredded row, so that no key
    /// is ever made for it afterwards.
    pub async fn shred_data_key(
        &self,
        tenant_id: i64,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.connection()
            .execute(self.statement(
                "INSERT INTO tenant_data_keys (tenant_id, wrapped, master_key_id, created_at, shredded_at) \
                 VALUES (?, NULL, NULL, ?, ?) ON CONFLICT (tenant_id) DO UPDATE \
                 SET wrapped = NULL, master_key_id = NULL, shredded_at = excluded.shredded_at",
                vec![tenant_id.into(), now.into(), now.into()],
            ))
            .await?;
        Ok(())
    }
}
