//! Datasets and their export files: creation with the build job, the build's inputs, completion with
//! the `dataset.ready` outbox row, export bookkeeping and retention.

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};
use sea_orm::{
    ColumnTrait, ConnectionTrait, EntityTrait, FromQueryResult, PaginatorTrait, QueryFilter,
    QueryOrder, QuerySelect, TransactionTrait,
};

use super::entities::{dataset, dataset_export, execution};
use super::jobs::{ClaimedJob, OutboxEvent};
use super::processing::PageRequest;
use super::{Store, StoreError};

/// An execution with what a dataset row needs from its document.
#[derive(Clone, Debug, FromQueryResult)]
pub struct BuildInput {
    pub execution_id: i64,
    pub document_id: i64,
    pub masked: bool,
    pub result_blob_key: Option<String>,
    /// JSON text, as in `executions.result_meta`.
    pub result_meta: String,
    /// As in `executions.sealed_meta` (a [`super::Sealed`] value): the file name, masked for a masked
    /// run.
    pub sealed_meta: Option<String>,
    pub created_at: DateTime<Utc>,
    /// As in `documents.filename`: sealed (`SealedField::DocumentName`).
    pub filename: String,
    pub format: String,
}

/// An export file to record.
#[derive(Clone, Debug)]
pub struct NewExport<'a> {
    pub tenant_id: i64,
    pub dataset_id: &'a str,
    pub format: &'a str,
    pub blob_key: &'a str,
    pub size_bytes: i64,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
}

/// An export file past its retention time.
#[derive(Clone, Debug)]
pub struct ExpiredExport {
    pub id: i64,
    pub blob_key: String,
    pub size_bytes: i64,
}

impl Store {
    /// Of `ids`, those that are not completed executions of the tenant (unknown, another tenant's, or
    /// not completed), in the order given.
    pub async fn unusable_executions(
        &self,
        tenant_id: i64,
        ids: &[i64],
    ) -> Result<Vec<i64>, StoreError> {
        let mut usable = BTreeSet::new();
        for chunk in ids.chunks(900) {
            let found: Vec<i64> = execution::Entity::find()
                .select_only()
                .column(execution::Column::Id)
                .filter(execution::Column::TenantId.eq(tenant_id))
                .filter(execution::Column::Status.eq("completed"))
                .filter(execution::Column::Id.is_in(chunk.to_vec()))
                .into_tuple()
                .all(self.connection())
                .await?;
            usable.extend(found);
        }
        Ok(ids
            .iter()
            .copied()
            .filter(|id| !usable.contains(id))
            .collect())
    }

    /// The privacy policy versions that `ids` (executions of the tenant) were processed under, each
    /// with how many of them; an execution older than policies counts as version 0, the default.
    pub async fn execution_policy_versions(
        &self,
        tenant_id: i64,
        ids: &[i64],
    ) -> Result<std::collections::BTreeMap<i64, usize>, StoreError> {
        #[derive(Default, serde::Deserialize)]
        struct Meta {
            #[serde(default)]
            policy_version: i64,
        }
        let mut versions = std::collections::BTreeMap::new();
        for chunk in ids.chunks(900) {
            let metas: Vec<String> = execution::Entity::find()
                .select_only()
                .column(execution::Column::ResultMeta)
                .filter(execution::Column::TenantId.eq(tenant_id))
                .filter(execution::Column::Id.is_in(chunk.to_vec()))
                .into_tuple()
                .all(self.connection())
                .await?;
            for meta in metas {
                let meta: Meta = serde_json::from_str(&meta).unwrap_or_default();
                *versions.entry(meta.policy_version).or_default() += 1;
            }
        }
        Ok(versions)
    }

    pub async fn dataset(
        &self,
        tenant_id: i64,
        dataset_id: &str,
    ) -> Result<Option<dataset::Model>, StoreError> {
        Ok(dataset::Entity::find_by_id(dataset_id.to_string())
            .filter(dataset::Column::TenantId.eq(tenant_id))
            .one(self.connection())
            .await?)
    }

    pub async fn datasets_page(
        &self,
        tenant_id: i64,
        page: PageRequest,
    ) -> Result<(Vec<dataset::Model>, u64), StoreError> {
        let query = dataset::Entity::find().filter(dataset::Column::TenantId.eq(tenant_id));
        let total = query.clone().count(self.connection()).await?;
        let items = query
            .order_by_desc(dataset::Column::CreatedAt)
            .order_by_desc(dataset::Column::Id)
            .offset(page.offset)
            .limit(page.limit)
            .all(self.connection())
            .await?;
        Ok((items, total))
    }

    /// Deletes the dataset (its export rows go with it); returns the blob keys to delete.
    pub async fn delete_dataset(
        &self,
        tenant_id: i64,
        dataset_id: &str,
    ) -> Result<Option<Vec<String>>, StoreError> {
        let txn = self.connection().begin().await?;
        // The write lock (SQLite) or the tenant's row (PostgreSQL) first: a read-then-write
        // transaction on SQLite fails with "database is locked" when another writer commits between.
        if !self.lock_tenant(&txn, tenant_id).await? {
            return Ok(None);
        }
        let Some(found) = dataset::Entity::find_by_id(dataset_id.to_string())
            .filter(dataset::Column::TenantId.eq(tenant_id))
            .one(&txn)
            .await?
        else {
            return Ok(None);
        };
        let mut keys: Vec<String> = dataset_export::Entity::find()
            .filter(dataset_export::Column::DatasetId.eq(dataset_id))
            .all(&txn)
            .await?
            .into_iter()
            .map(|export| export.blob_key)
            .collect();
        if let Some(rows_key) = found
            .schema_json
            .as_deref()
            .and_then(|s| serde_json::from_str::<serde_json::Value>(s).ok())
            .and_then(|s| s["rows_blob_key"].as_str().map(str::to_string))
        {
            keys.push(rows_key);
        }
        // Jobs keep their history; they only lose the link.
        txn.execute(self.statement(
            "UPDATE jobs SET dataset_id = NULL WHERE dataset_id = ? AND tenant_id = ?",
            vec![dataset_id.into(), tenant_id.into()],
        ))
        .await?;
        dataset::Entity::delete_by_id(dataset_id.to_string())
            .exec(&txn)
            .await?;
        txn.commit().await?;
        Ok(Some(keys))
    }

    pub async fn set_dataset_status(
        &self,
        dataset_id: &str,
        status: &str,
        error: Option<&str>,
        now: Option<DateTime<Utc>>,
    ) -> Result<(), StoreError> {
        self.connection()
            .execute(self.statement(
                "UPDATE datasets SET status = ?, error_message = ?, finished_at = ? WHERE id = ?",
                vec![status.into(), error.into(), now.into(), dataset_id.into()],
            ))
            .await?;
        Ok(())
    }

    /// A batch of the build's executions with their documents' names and formats, in the order of
    /// `ids` (one query; ids of other tenants are absent).
    pub async fn build_inputs(
        &self,
        tenant_id: i64,
        ids: &[i64],
    ) -> Result<Vec<BuildInput>, StoreError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let placeholders = vec!["?"; ids.len()].join(", ");
        let mut values: Vec<sea_orm::Value> = Vec::with_capacity(ids.len() + 1);
        values.push(tenant_id.into());
        values.extend(ids.iter().map(|id| sea_orm::Value::from(*id)));
        let sql = format!(
            "SELECT e.id AS execution_id, e.document_id, e.masked, e.result_blob_key, e.result_meta, \
             e.sealed_meta, e.created_at, COALESCE(d.filename, '') AS filename, COALESCE(d.format, '') AS format \
             FROM executions e LEFT JOIN documents d ON d.id = e.document_id AND d.tenant_id = e.tenant_id \
             WHERE e.tenant_id = ? AND e.id IN ({placeholders})"
        );
        let mut by_id: std::collections::HashMap<i64, BuildInput> =
            BuildInput::find_by_statement(self.statement(&sql, values))
                .all(self.connection())
                .await?
                .into_iter()
                .map(|input| (input.execution_id, input))
                .collect();
        Ok(ids.iter().filter_map(|id| by_id.remove(id)).collect())
    }

    /// Marks the dataset ready and its job completed, with the `dataset.ready` outbox rows, guarded by
    /// the job's lease. False when the lease was lost.
    pub async fn complete_dataset_job(
        &self,
        job: &ClaimedJob,
        worker: &str,
        row_count: i64,
        schema_json: &serde_json::Value,
        events: Vec<OutboxEvent>,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let (_turn, txn) = self.begin_write().await?;
        let updated = txn
            .execute(self.statement(
                "UPDATE jobs SET status = 'completed', finished_at = ?, updated_at = ?, lease_owner = NULL, \
                 lease_expires_at = NULL, error_code = NULL, error_message = NULL \
                 WHERE id = ? AND lease_owner = ? AND status = 'running'",
                vec![now.into(), now.into(), job.id.as_str().into(), worker.into()],
            ))
            .await?;
        if updated.rows_affected() != 1 {
            txn.rollback().await?;
            return Ok(false);
        }
        txn.execute(self.statement(
            "UPDATE datasets SET status = 'ready', row_count = ?, schema_json = ?, finished_at = ?, \
             error_message = NULL WHERE id = ?",
            vec![
                row_count.into(),
                schema_json.to_string().into(),
                now.into(),
                job.dataset_id.clone().unwrap_or_default().into(),
            ],
        ))
        .await?;
        self.queue_events(&txn, job.tenant_id, events, now).await?;
        txn.commit().await?;
        Ok(true)
    }

    pub async fn dataset_export(
        &self,
        dataset_id: &str,
        format: &str,
    ) -> Result<Option<dataset_export::Model>, StoreError> {
        Ok(dataset_export::Entity::find()
            .filter(dataset_export::Column::DatasetId.eq(dataset_id))
            .filter(dataset_export::Column::Format.eq(format))
            .one(self.connection())
            .await?)
    }

    pub async fn dataset_exports(
        &self,
        dataset_id: &str,
    ) -> Result<Vec<dataset_export::Model>, StoreError> {
        Ok(dataset_export::Entity::find()
            .filter(dataset_export::Column::DatasetId.eq(dataset_id))
            .order_by_asc(dataset_export::Column::Format)
            .all(self.connection())
            .await?)
    }

    /// Records a written export file (replacing an earlier row of the same format); false when the
    /// dataset was deleted meanwhile (nothing recorded).
    pub async fn record_dataset_export(&self, export: NewExport<'_>) -> Result<bool, StoreError> {
        // One statement: two writers of the same export at once (two auto_export webhooks, two
        // downloads) both land, the later one's record standing; a delete-then-insert let both miss the
        // row on PostgreSQL and then collide on the unique index.
        let written = self
            .connection()
            .execute(self.statement(
                "INSERT INTO dataset_exports (tenant_id, dataset_id, format, blob_key, size_bytes, created_at, expires_at) \
                 VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (dataset_id, format) DO UPDATE SET \
                 tenant_id = excluded.tenant_id, blob_key = excluded.blob_key, size_bytes = excluded.size_bytes, \
                 created_at = excluded.created_at, expires_at = excluded.expires_at",
                vec![
                    export.tenant_id.into(),
                    export.dataset_id.into(),
                    export.format.into(),
                    export.blob_key.into(),
                    export.size_bytes.into(),
                    export.created_at.into(),
                    export.expires_at.into(),
                ],
            ))
            .await;
        match written {
            Ok(_) => Ok(true),
            Err(error) => {
                let error = StoreError::from(error);
                match error.is_missing_reference() {
                    true => Ok(false),
                    false => Err(error),
                }
            }
        }
    }

    /// Export files whose retention ended before `now`.
    pub async fn expired_exports(
        &self,
        now: DateTime<Utc>,
        limit: u64,
    ) -> Result<Vec<ExpiredExport>, StoreError> {
        Ok(dataset_export::Entity::find()
            .filter(dataset_export::Column::ExpiresAt.lt(now))
            .order_by_asc(dataset_export::Column::ExpiresAt)
            .limit(limit)
            .all(self.connection())
            .await?
            .into_iter()
            .map(|e| ExpiredExport {
                id: e.id,
                blob_key: e.blob_key,
                size_bytes: e.size_bytes,
            })
            .collect())
    }

    pub async fn forget_export(&self, export_id: i64) -> Result<(), StoreError> {
        dataset_export::Entity::delete_by_id(export_id)
            .exec(self.connection())
            .await?;
        Ok(())
    }
}
