//! The subject index (keyed digests of the values each job found, never the values) and what a
//! data-subject request reads and erases: the documents and executions holding a person's values,
//! the datasets built from them, their exports, the fine-tune jobs trained on them, and the copies
//! auto_export wrote to connectors.

use chrono::{DateTime, Utc};
use sea_orm::{ConnectionTrait, TransactionTrait, Value};

use super::{DatasetRecord, FineTuneRecord, Store, StoreError};

/// One value a job found, as the index keeps it.
#[derive(Clone, Debug)]
pub struct SubjectEntry {
    pub digest: String,
    pub pii_type: String,
    pub occurrences: i64,
    pub first_position: i64,
}

/// Where a digest was found: the document, the job, and the job's execution (None while the job
/// has not completed, or when it failed).
#[derive(Clone, Debug)]
pub struct SubjectHit {
    pub digest: String,
    pub pii_type: String,
    pub document_id: i64,
    pub job_id: String,
    pub execution_id: Option<i64>,
    pub occurrences: i64,
}

/// A copy of a dataset that auto_export wrote to a connector's bucket.
#[derive(Clone, Debug)]
pub struct ConnectorCopy {
    pub dataset_id: String,
    pub webhook_id: i64,
    pub connector_id: i64,
    pub key: String,
    pub format: String,
}

/// What erasing documents removed from the database: their blobs, for the caller to delete.
#[derive(Clone, Debug, Default)]
pub struct ErasedRows {
    pub documents: Vec<i64>,
    pub executions: Vec<i64>,
    /// Originals, stored results and jobs' result copies (by job id).
    pub blob_keys: Vec<String>,
    pub job_ids: Vec<String>,
}

impl Store {
    /// Every place one of `digests` was found in the tenant's documents.
    pub async fn subject_hits(
        &self,
        tenant_id: i64,
        digests: &[String],
    ) -> Result<Vec<SubjectHit>, StoreError> {
        let mut hits = Vec::new();
        for chunk in digests.chunks(400) {
            let marks = vec!["?"; chunk.len()].join(", ");
            let mut parameters: Vec<Value> = vec![tenant_id.into()];
            parameters.extend(chunk.iter().map(|digest| Value::from(digest.clone())));
            let rows = self
                .connection()
                .query_all(self.statement(
                    &format!(
                        "SELECT s.digest, s.pii_type, s.document_id, s.job_id, s.occurrences, \
                         e.id AS execution_id FROM subject_index s \
                         LEFT JOIN executions e ON e.job_id = s.job_id \
                         WHERE s.tenant_id = ? AND s.digest IN ({marks}) ORDER BY s.document_id, s.id"
                    ),
                    parameters,
                ))
                .await?;
            for row in rows {
                hits.push(SubjectHit {
                    digest: row.try_get("", "digest")?,
                    pii_type: row.try_get("", "pii_type")?,
                    document_id: row.try_get("", "document_id")?,
                    job_id: row.try_get("", "job_id")?,
                    execution_id: row.try_get("", "execution_id")?,
                    occurrences: row.try_get("", "occurrences")?,
                });
            }
        }
        Ok(hits)
    }

    /// The tenant's datasets built from any of `execution_ids`.
    pub async fn datasets_holding(
        &self,
        tenant_id: i64,
        execution_ids: &[i64],
    ) -> Result<Vec<DatasetRecord>, StoreError> {
        use super::entities::dataset;
        use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder};
        let all = dataset::Entity::find()
            .filter(dataset::Column::TenantId.eq(tenant_id))
            .order_by_asc(dataset::Column::CreatedAt)
            .all(self.connection())
            .await?;
        Ok(all
            .into_iter()
            .filter(|record| {
                serde_json::from_str::<Vec<i64>>(&record.execution_ids)
                    .unwrap_or_default()
                    .iter()
                    .any(|id| execution_ids.contains(id))
            })
            .collect())
    }

    /// The tenant's fine-tune jobs trained on any of `dataset_ids`.
    pub async fn fine_tunes_of(
        &self,
        tenant_id: i64,
        dataset_ids: &[String],
    ) -> Result<Vec<FineTuneRecord>, StoreError> {
        let mut found = Vec::new();
        for dataset_id in dataset_ids {
            found.extend(self.fine_tunes_of_dataset(tenant_id, dataset_id).await?);
        }
        Ok(found)
    }

    /// The copies auto_export wrote of `dataset_id` to connectors (from the delivery log).
    pub async fn connector_copies(
        &self,
        tenant_id: i64,
        dataset_id: &str,
    ) -> Result<Vec<ConnectorCopy>, StoreError> {
        let rows = self
            .connection()
            .query_all(self.statement(
                "SELECT webhook_id, payload FROM webhook_deliveries WHERE tenant_id = ? \
                 AND event = 'dataset.ready' AND payload LIKE ?",
                vec![tenant_id.into(), format!("%{dataset_id}%").into()],
            ))
            .await?;
        let mut copies = Vec::new();
        for row in rows {
            let payload: String = row.try_get("", "payload")?;
            let payload: serde_json::Value = serde_json::from_str(&payload).unwrap_or_default();
            let export = &payload["export"];
            if payload["dataset_id"] != dataset_id || export["key"].as_str().is_none() {
                continue;
            }
            copies.push(ConnectorCopy {
                dataset_id: dataset_id.to_string(),
                webhook_id: row.try_get("", "webhook_id")?,
                connector_id: export["connector_id"].as_i64().unwrap_or_default(),
                key: export["key"].as_str().unwrap_or_default().to_string(),
                format: export["format"].as_str().unwrap_or_default().to_string(),
            });
        }
        Ok(copies)
    }

    /// Queues webhook events for the tenant's subscribed webhooks (outside a job's completion).
    pub async fn notify(
        &self,
        tenant_id: i64,
        events: Vec<super::OutboxEvent>,
        now: DateTime<Utc>,
    ) -> Result<u64, StoreError> {
        let transaction = self.connection().begin().await?;
        // The write lock (SQLite) or the tenant's row (PostgreSQL) before the webhooks are read.
        self.lock_tenant(&transaction, tenant_id).await?;
        let queued = self
            .queue_events(&transaction, tenant_id, events, now)
            .await?;
        transaction.commit().await?;
        Ok(queued)
    }

    /// A dataset every row of which was erased: no executions, no rows, failed with a message
    /// saying so, one version more.
    pub async fn empty_dataset(
        &self,
        tenant_id: i64,
        dataset_id: &str,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.connection()
            .execute(self.statement(
                "UPDATE datasets SET execution_ids = '[]', row_count = 0, schema_json = NULL, \
                 status = 'failed', error_message = 'every row was erased by a data-subject request', \
                 finished_at = ?, version = version + 1 WHERE id = ? AND tenant_id = ?",
                vec![now.into(), dataset_id.into(), tenant_id.into()],
            ))
            .await?;
        Ok(())
    }

    /// Deletes the documents with their jobs, executions and index rows, in one transaction;
    /// answers what went and the blobs they had.
    pub async fn erase_documents(
        &self,
        tenant_id: i64,
        document_ids: &[i64],
    ) -> Result<ErasedRows, StoreError> {
        let mut erased = ErasedRows::default();
        if document_ids.is_empty() {
            return Ok(erased);
        }
        let list = document_ids
            .iter()
            .map(i64::to_string)
            .collect::<Vec<_>>()
            .join(",");
        let transaction = self.connection().begin().await?;
        // The write lock (SQLite) or the tenant's row (PostgreSQL) before the reads.
        self.lock_tenant(&transaction, tenant_id).await?;
        let documents = transaction
            .query_all(self.statement(
                &format!(
                    "SELECT id, blob_key FROM documents WHERE tenant_id = ? AND id IN ({list})"
                ),
                vec![tenant_id.into()],
            ))
            .await?;
        for row in documents {
            erased.documents.push(row.try_get("", "id")?);
            erased.blob_keys.push(row.try_get("", "blob_key")?);
        }
        let executions = transaction
            .query_all(self.statement(
                &format!(
                    "SELECT id, result_blob_key FROM executions WHERE tenant_id = ? AND document_id IN ({list})"
                ),
                vec![tenant_id.into()],
            ))
            .await?;
        for row in executions {
            erased.executions.push(row.try_get("", "id")?);
            if let Some(key) = row.try_get::<Option<String>>("", "result_blob_key")? {
                erased.blob_keys.push(key);
            }
        }
        let jobs = transaction
            .query_all(self.statement(
                &format!("SELECT id FROM jobs WHERE tenant_id = ? AND document_id IN ({list})"),
                vec![tenant_id.into()],
            ))
            .await?;
        for row in jobs {
            erased.job_ids.push(row.try_get("", "id")?);
        }
        for table in [
            "subject_index",
            "subject_queue",
            "executions",
            "jobs",
            "documents",
        ] {
            let column = if table == "documents" {
                "id"
            } else {
                "document_id"
            };
            transaction
                .execute(self.statement(
                    &format!("DELETE FROM {table} WHERE tenant_id = ? AND {column} IN ({list})"),
                    vec![tenant_id.into()],
                ))
                .await?;
        }
        transaction.commit().await?;
        Ok(erased)
    }
}
