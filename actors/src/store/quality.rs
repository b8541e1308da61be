//! Queries behind the admin quality endpoints.

use chrono::{DateTime, Utc};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};
use serde::Serialize;

use super::entities::execution;
use super::{Store, StoreError};

/// An execution whose cross-validation delta exceeded the threshold.
#[derive(Clone, Debug, Serialize)]
pub struct FlaggedExecution {
    pub execution_id: i64,
    pub tenant_id: i64,
    pub document_id: i64,
    pub job_id: Option<String>,
    /// `result_meta.cross_validation` as written by the cross-validation run.
    pub cross_validation: serde_json::Value,
    pub created_at: DateTime<Utc>,
}

impl Store {
    /// Executions with `cross_validation_flag` set, newest first, optionally for one tenant.
    pub async fn flagged_executions(
        &self,
        tenant_id: Option<i64>,
        limit: u64,
    ) -> Result<Vec<FlaggedExecution>, StoreError> {
        let mut query = execution::Entity::find()
            .filter(execution::Column::CrossValidationFlag.eq(true))
            .order_by_desc(execution::Column::Id)
            .limit(limit);
        if let Some(tenant_id) = tenant_id {
            query = query.filter(execution::Column::TenantId.eq(tenant_id));
        }
        let rows = query.all(self.connection()).await?;
        Ok(rows
            .into_iter()
            .map(|row| {
                let meta: serde_json::Value =
                    serde_json::from_str(&row.result_meta).unwrap_or(serde_json::Value::Null);
                FlaggedExecution {
                    execution_id: row.id,
                    tenant_id: row.tenant_id,
                    document_id: row.document_id,
                    job_id: row.job_id,
                    cross_validation: meta
                        .get("cross_validation")
                        .cloned()
                        .unwrap_or(serde_json::Value::Null),
                    created_at: row.created_at,
                }
            })
            .collect())
    }

    /// Any tenant's execution (the admin quality routes).
    pub async fn execution_any(
        &self,
        execution_id: i64,
    ) -> Result<Option<execution::Model>, StoreError> {
        Ok(execution::Entity::find_by_id(execution_id)
            .one(self.connection())
            .await?)
    }

    /// Keeps an audit's outcome as `result_meta.<key>` of an execution (and sets its
    /// `cross_validation_flag` when `flag` is given). The update is a compare-and-set on the meta it
    /// read, retried, so that two audits of one execution at once both keep their outcome.
    pub async fn record_quality(
        &self,
        execution_id: i64,
        key: &str,
        outcome: &serde_json::Value,
        flag: Option<bool>,
    ) -> Result<(), StoreError> {
        for _ in 0..20 {
            let Some(execution) = self.execution_any(execution_id).await? else {
                return Ok(());
            };
            let mut meta: serde_json::Value = serde_json::from_str(&execution.result_meta)
                .unwrap_or_else(|_| serde_json::json!({}));
            if !meta.is_object() {
                meta = serde_json::json!({});
            }
            meta[key] = outcome.clone();
            let flag = flag.unwrap_or(execution.cross_validation_flag);
            let updated = self
                .connection()
                .execute(self.statement(
                    "UPDATE executions SET result_meta = ?, cross_validation_flag = ? \
                     WHERE id = ? AND result_meta = ?",
                    vec![
                        meta.to_string().into(),
                        flag.into(),
                        execution.id.into(),
                        execution.result_meta.into(),
                    ],
                ))
                .await?;
            if updated.rows_affected() == 1 {
                return Ok(());
            }
        }
        Err(StoreError::Database(sea_orm::DbErr::Custom(format!(
            "execution {execution_id}'s result_meta kept changing while an audit was being recorded"
        ))))
    }

    /// The `result_meta` of the latest completed executions, newest first, optionally for one
    /// tenant.
    pub async fn latest_completed_metas(
        &self,
        tenant_id: Option<i64>,
        limit: u64,
    ) -> Result<Vec<serde_json::Value>, StoreError> {
        let mut query = execution::Entity::find()
            .select_only()
            .column(execution::Column::ResultMeta)
            .filter(execution::Column::Status.eq("completed"))
            .order_by_desc(execution::Column::Id)
            .limit(limit);
        if let Some(tenant_id) = tenant_id {
            query = query.filter(execution::Column::TenantId.eq(tenant_id));
        }
        let metas: Vec<String> = query.into_tuple().all(self.connection()).await?;
        Ok(metas
            .iter()
            .map(|meta| serde_json::from_str(meta).unwrap_or(serde_json::Value::Null))
            .collect())
    }
}
