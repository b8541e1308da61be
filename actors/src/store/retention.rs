//! Retention: the days a tenant chose over its plan's, what is due for destruction, the marks of what
//! was destroyed, and the destruction log (the KVKK periodic-destruction record: never deleted here,
//! and kept after the tenant is gone).

use chrono::{DateTime, Utc};
use sea_orm::{ConnectionTrait, TransactionTrait};

use super::{Store, StoreError};

/// The days a tenant chose (None: its plan's).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RetentionChoice {
    pub originals_days: Option<i64>,
    pub results_days: Option<i64>,
}

/// Something due for destruction: a document's original or an execution's stored result.
#[derive(Clone, Debug)]
pub struct DueItem {
    /// The document's or the execution's id.
    pub id: i64,
    /// Its blob (None: nothing stored).
    pub blob_key: Option<String>,
    /// The job whose result copy goes with an execution's result.
    pub job_id: Option<String>,
    pub bytes: i64,
}

/// What one batch of a destruction run destroyed, for the log.
#[derive(Clone, Debug)]
pub struct Destruction<'a> {
    /// `originals` or `results`.
    pub category: &'a str,
    /// The documents' (originals) or executions' (results) ids.
    pub ids: &'a [i64],
    pub reason: &'a str,
    pub bytes: i64,
    /// JSON for the log entry's `detail`.
    pub detail: &'a str,
}

/// One entry of the destruction log.
#[derive(Clone, Debug)]
pub struct DestructionRecord {
    pub id: i64,
    pub tenant_id: i64,
    pub destroyed_at: DateTime<Utc>,
    /// `originals` or `results`.
    pub category: String,
    pub reason: String,
    pub items: i64,
    pub bytes: i64,
    /// JSON: the ids destroyed and the rule applied.
    pub detail: String,
}

impl Store {
    pub async fn retention_choice(&self, tenant_id: i64) -> Result<RetentionChoice, StoreError> {
        let row = self
            .connection()
            .query_one(self.statement(
                "SELECT originals_retention_days, results_retention_days FROM tenants WHERE id = ?",
                vec![tenant_id.into()],
            ))
            .await?;
        Ok(match row {
            Some(row) => RetentionChoice {
                originals_days: row.try_get("", "originals_retention_days")?,
                results_days: row.try_get("", "results_retention_days")?,
            },
            None => RetentionChoice::default(),
        })
    }

    pub async fn set_retention_choice(
        &self,
        tenant_id: i64,
        choice: RetentionChoice,
    ) -> Result<(), StoreError> {
        self.connection()
            .execute(self.statement(
                "UPDATE tenants SET originals_retention_days = ?, results_retention_days = ? WHERE id = ?",
                vec![
                    choice.originals_days.into(),
                    choice.results_days.into(),
                    tenant_id.into(),
                ],
            ))
            .await?;
        Ok(())
    }

    /// Up to `limit` originals received before `before` and not destroyed yet, oldest first.
    pub async fn originals_due(
        &self,
        tenant_id: i64,
        before: DateTime<Utc>,
        limit: u64,
    ) -> Result<Vec<DueItem>, StoreError> {
        self.due(
            "SELECT id, blob_key, CAST(NULL AS TEXT) AS job_id, size_bytes FROM documents WHERE tenant_id = ? \
             AND created_at < ? AND original_destroyed_at IS NULL",
            tenant_id,
            before,
            limit,
        )
        .await
    }

    /// Up to `limit` executions made before `before` whose results are not destroyed yet.
    pub async fn results_due(
        &self,
        tenant_id: i64,
        before: DateTime<Utc>,
        limit: u64,
    ) -> Result<Vec<DueItem>, StoreError> {
        self.due(
            "SELECT id, result_blob_key AS blob_key, job_id, CAST(0 AS BIGINT) AS size_bytes FROM executions \
             WHERE tenant_id = ? AND created_at < ? AND result_destroyed_at IS NULL",
            tenant_id,
            before,
            limit,
        )
        .await
    }

    async fn due(
        &self,
        select: &str,
        tenant_id: i64,
        before: DateTime<Utc>,
        limit: u64,
    ) -> Result<Vec<DueItem>, StoreError> {
        let rows = self
            .connection()
            .query_all(self.statement(
                &format!("{select} ORDER BY id LIMIT {limit}"),
                vec![tenant_id.into(), before.into()],
            ))
            .await?;
        rows.into_iter()
            .map(|row| {
                Ok(DueItem {
                    id: row.try_get("", "id")?,
                    blob_key: row.try_get("", "blob_key")?,
                    job_id: row.try_get("", "job_id")?,
                    bytes: row.try_get("", "size_bytes")?,
                })
            })
            .collect()
    }

    /// Marks originals or results destroyed (`category` `originals` or `results`) and logs the
    /// destruction, in one transaction.
    pub async fn record_destruction(
        &self,
        tenant_id: i64,
        destruction: Destruction<'_>,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let Destruction {
            category,
            ids,
            reason,
            bytes,
            detail,
        } = destruction;
        if ids.is_empty() {
            return Ok(());
        }
        let list = ids.iter().map(i64::to_string).collect::<Vec<_>>().join(",");
        let mark = match category {
            "originals" => format!(
                "UPDATE documents SET original_destroyed_at = ? WHERE tenant_id = ? AND id IN ({list})"
            ),
            _ => format!(
                "UPDATE executions SET result_destroyed_at = ?, result_blob_key = NULL, \
                 sealed_meta = NULL WHERE tenant_id = ? AND id IN ({list})"
            ),
        };
        let transaction = self.connection().begin().await?;
        transaction
            .execute(self.statement(&mark, vec![now.into(), tenant_id.into()]))
            .await?;
        transaction
            .execute(self.statement(
                "INSERT INTO destruction_log (tenant_id, destroyed_at, category, reason, items, bytes, detail) \
                 VALUES (?, ?, ?, ?, ?, ?, ?)",
                vec![
                    tenant_id.into(),
                    now.into(),
                    category.into(),
                    reason.into(),
                    (ids.len() as i64).into(),
                    bytes.into(),
                    detail.into(),
                ],
            ))
            .await?;
        transaction.commit().await?;
        Ok(())
    }

    /// One page of the tenant's destruction log, newest first, and the total.
    pub async fn destruction_log(
        &self,
        tenant_id: i64,
        offset: u64,
        limit: u64,
    ) -> Result<(Vec<DestructionRecord>, u64), StoreError> {
        let rows = self
            .connection()
            .query_all(self.statement(
                &format!(
                    "SELECT id, tenant_id, destroyed_at, category, reason, items, bytes, detail \
                     FROM destruction_log WHERE tenant_id = ? ORDER BY id DESC LIMIT {limit} OFFSET {offset}"
                ),
                vec![tenant_id.into()],
            ))
            .await?;
        let total = self
            .connection()
            .query_one(self.statement(
                "SELECT COUNT(*) AS n FROM destruction_log WHERE tenant_id = ?",
                vec![tenant_id.into()],
            ))
            .await?
            .map(|row| row.try_get::<i64>("", "n"))
            .transpose()?
            .unwrap_or(0);
        let records = rows
            .into_iter()
            .map(|row| {
                Ok(DestructionRecord {
                    id: row.try_get("", "id")?,
                    tenant_id: row.try_get("", "tenant_id")?,
                    destroyed_at: row.try_get("", "destroyed_at")?,
                    category: row.try_get("", "category")?,
                    reason: row.try_get("", "reason")?,
                    items: row.try_get("", "items")?,
                    bytes: row.try_get("", "bytes")?,
                    detail: row.try_get("", "detail")?,
                })
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        Ok((records, total.max(0) as u64))
    }
}
