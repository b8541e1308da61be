//! Reading documents, executions, jobs and the audit trail of one tenant. Every query takes the tenant
//! id; another tenant's row is simply not found.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use sea_orm::{
    ColumnTrait, Condition, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter, QueryOrder,
    QuerySelect,
};

use super::entities::{audit_entry, document, execution, job};
use super::{Store, StoreError};

/// A page cut: offset and size.
#[derive(Clone, Copy, Debug)]
pub struct PageRequest {
    pub offset: u64,
    pub limit: u64,
}

/// Which of a tenant's documents a page lists (every one when all are `None`).
#[derive(Clone, Debug, Default)]
pub struct DocumentFilter {
    /// Names containing this text, whatever the letter case.
    pub filename: Option<String>,
    /// Read as this format (`pdf`, `docx`...).
    pub format: Option<String>,
    /// `upload` or `connector`.
    pub source: Option<String>,
    /// Read from this connector.
    pub connector_id: Option<i64>,
}

/// Which of a tenant's executions a page lists (every one when all are `None`).
#[derive(Clone, Debug, Default)]
pub struct ExecutionFilter {
    /// `completed` or `failed`.
    pub status: Option<String>,
    /// Masked results only (`true`) or unmasked ones only (`false`).
    pub masked: Option<bool>,
    /// Of this document.
    pub document_id: Option<i64>,
}

/// A document with its most recent job and execution.
#[derive(Clone, Debug)]
pub struct DocumentRecord {
    pub document: document::Model,
    pub latest_job: Option<job::Model>,
    pub latest_execution: Option<execution::Model>,
}

impl Store {
    /// One page of the tenant's documents, newest first, and the total. Names are sealed, so the
    /// `filename` filter opens every name of the tenant's documents that the other filters leave
    /// under `key` and compares them here (one AES-GCM opening of a short value each); a name that
    /// does not open matches nothing.
    pub async fn documents_page<K: super::RowKey>(
        &self,
        tenant_id: i64,
        filter: &DocumentFilter,
        page: PageRequest,
        key: Option<&K>,
    ) -> Result<(Vec<DocumentRecord>, u64), StoreError> {
        let mut query = document::Entity::find().filter(document::Column::TenantId.eq(tenant_id));
        if let Some(format) = &filter.format {
            query = query.filter(document::Column::Format.eq(format.to_lowercase()));
        }
        if let Some(source) = &filter.source {
            query = query.filter(document::Column::Source.eq(source.as_str()));
        }
        if let Some(connector_id) = filter.connector_id {
            query = query.filter(document::Column::ConnectorId.eq(connector_id));
        }
        if let Some(text) = &filter.filename {
            let wanted = text.to_lowercase();
            let names: Vec<(i64, String)> = query
                .clone()
                .select_only()
                .column(document::Column::Id)
                .column(document::Column::SealedFilename)
                .order_by_desc(document::Column::CreatedAt)
                .order_by_desc(document::Column::Id)
                .into_tuple()
                .all(self.connection())
                .await?;
            let matching: Vec<i64> = names
                .into_iter()
                .filter(|(_, stored)| {
                    super::Sealed::from_stored(stored.clone())
                        .open(key, super::SealedField::DocumentName)
                        .is_ok_and(|name| name.to_lowercase().contains(&wanted))
                })
                .map(|(id, _)| id)
                .collect();
            let total = matching.len() as u64;
            let ids: Vec<i64> = matching
                .into_iter()
                .skip(page.offset as usize)
                .take(page.limit as usize)
                .collect();
            let documents = document::Entity::find()
                .filter(document::Column::TenantId.eq(tenant_id))
                .filter(document::Column::Id.is_in(ids))
                .order_by_desc(document::Column::CreatedAt)
                .order_by_desc(document::Column::Id)
                .all(self.connection())
                .await?;
            return Ok((self.with_latest(tenant_id, documents).await?, total));
        }
        let total = query.clone().count(self.connection()).await?;
        let documents = query
            .order_by_desc(document::Column::CreatedAt)
            .order_by_desc(document::Column::Id)
            .offset(page.offset)
            .limit(page.limit)
            .all(self.connection())
            .await?;
        Ok((self.with_latest(tenant_id, documents).await?, total))
    }

    pub async fn document(
        &self,
        tenant_id: i64,
        document_id: i64,
    ) -> Result<Option<DocumentRecord>, StoreError> {
        let found = document::Entity::find_by_id(document_id)
            .filter(document::Column::TenantId.eq(tenant_id))
            .one(self.connection())
            .await?;
        let Some(found) = found else {
            return Ok(None);
        };
        Ok(self.with_latest(tenant_id, vec![found]).await?.pop())
    }

    /// Of `keys`, those a document refers to (its stored original).
    pub async fn known_blob_keys(
        &self,
        keys: &[String],
    ) -> Result<std::collections::HashSet<String>, StoreError> {
        if keys.is_empty() {
            return Ok(Default::default());
        }
        Ok(document::Entity::find()
            .select_only()
            .column(document::Column::BlobKey)
            .filter(document::Column::BlobKey.is_in(keys.iter().cloned()))
            .into_tuple::<String>()
            .all(self.connection())
            .await?
            .into_iter()
            .collect())
    }

    /// Every tenant's id.
    pub async fn tenant_ids(&self) -> Result<Vec<i64>, StoreError> {
        let rows = self
            .connection()
            .query_all(self.statement("SELECT id FROM tenants ORDER BY id", vec![]))
            .await?;
        rows.iter()
            .map(|row| row.try_get::<i64>("", "id").map_err(StoreError::from))
            .collect()
    }

    /// The document row alone, for the worker (no tenant filter: the job names its tenant).
    pub async fn document_for_job(
        &self,
        tenant_id: i64,
        document_id: i64,
    ) -> Result<Option<document::Model>, StoreError> {
        Ok(document::Entity::find_by_id(document_id)
            .filter(document::Column::TenantId.eq(tenant_id))
            .one(self.connection())
            .await?)
    }

    /// The document rows of a batch's jobs, of one tenant, in one read.
    pub async fn documents_for_jobs(
        &self,
        tenant_id: i64,
        document_ids: &[i64],
    ) -> Result<HashMap<i64, document::Model>, StoreError> {
        if document_ids.is_empty() {
            return Ok(HashMap::new());
        }
        Ok(document::Entity::find()
            .filter(document::Column::TenantId.eq(tenant_id))
            .filter(document::Column::Id.is_in(document_ids.to_vec()))
            .all(self.connection())
            .await?
            .into_iter()
            .map(|document| (document.id, document))
            .collect())
    }

    async fn with_latest(
        &self,
        tenant_id: i64,
        documents: Vec<document::Model>,
    ) -> Result<Vec<DocumentRecord>, StoreError> {
        let ids: Vec<i64> = documents.iter().map(|d| d.id).collect();
        let mut latest_jobs: HashMap<i64, job::Model> = HashMap::new();
        let mut latest_executions: HashMap<i64, execution::Model> = HashMap::new();
        if !ids.is_empty() {
            let jobs = job::Entity::find()
                .filter(job::Column::TenantId.eq(tenant_id))
                .filter(job::Column::DocumentId.is_in(ids.clone()))
                .order_by_asc(job::Column::CreatedAt)
                .order_by_asc(job::Column::Id)
                .all(self.connection())
                .await?;
            for found in jobs {
                if let Some(document_id) = found.document_id {
                    latest_jobs.insert(document_id, found);
                }
            }
            let executions = execution::Entity::find()
                .filter(execution::Column::TenantId.eq(tenant_id))
                .filter(execution::Column::DocumentId.is_in(ids))
                .order_by_asc(execution::Column::Id)
                .all(self.connection())
                .await?;
            for found in executions {
                latest_executions.insert(found.document_id, found);
            }
        }
        Ok(documents
            .into_iter()
            .map(|document| DocumentRecord {
                latest_job: latest_jobs.remove(&document.id),
                latest_execution: latest_executions.remove(&document.id),
                document,
            })
            .collect())
    }

    pub async fn executions_page(
        &self,
        tenant_id: i64,
        filter: &ExecutionFilter,
        page: PageRequest,
    ) -> Result<(Vec<execution::Model>, u64), StoreError> {
        let mut query = execution::Entity::find().filter(execution::Column::TenantId.eq(tenant_id));
        if let Some(status) = &filter.status {
            query = query.filter(execution::Column::Status.eq(status.as_str()));
        }
        if let Some(masked) = filter.masked {
            query = query.filter(execution::Column::Masked.eq(masked));
        }
        if let Some(document_id) = filter.document_id {
            query = query.filter(execution::Column::DocumentId.eq(document_id));
        }
        let total = query.clone().count(self.connection()).await?;
        let items = query
            .order_by_desc(execution::Column::Id)
            .offset(page.offset)
            .limit(page.limit)
            .all(self.connection())
            .await?;
        Ok((items, total))
    }

    pub async fn execution(
        &self,
        tenant_id: i64,
        execution_id: i64,
    ) -> Result<Option<execution::Model>, StoreError> {
        Ok(execution::Entity::find_by_id(execution_id)
            .filter(execution::Column::TenantId.eq(tenant_id))
            .one(self.connection())
            .await?)
    }

    pub async fn jobs_page(
        &self,
        tenant_id: i64,
        job_type: Option<&str>,
        page: PageRequest,
    ) -> Result<(Vec<job::Model>, u64), StoreError> {
        let mut query = job::Entity::find().filter(job::Column::TenantId.eq(tenant_id));
        if let Some(job_type) = job_type {
            query = query.filter(job::Column::JobType.eq(job_type));
        }
        let total = query.clone().count(self.connection()).await?;
        let items = query
            .order_by_desc(job::Column::CreatedAt)
            .order_by_desc(job::Column::Id)
            .offset(page.offset)
            .limit(page.limit)
            .all(self.connection())
            .await?;
        Ok((items, total))
    }

    pub async fn job(
        &self,
        tenant_id: i64,
        job_id: &str,
    ) -> Result<Option<job::Model>, StoreError> {
        Ok(job::Entity::find_by_id(job_id.to_string())
            .filter(job::Column::TenantId.eq(tenant_id))
            .one(self.connection())
            .await?)
    }

    /// Running jobs started before `running_before` and queued jobs created before `queued_before`.
    pub async fn stuck_jobs(
        &self,
        tenant_id: i64,
        running_before: DateTime<Utc>,
        queued_before: DateTime<Utc>,
        limit: u64,
    ) -> Result<Vec<job::Model>, StoreError> {
        Ok(job::Entity::find()
            .filter(job::Column::TenantId.eq(tenant_id))
            .filter(
                Condition::any()
                    .add(
                        Condition::all()
                            .add(job::Column::Status.eq("running"))
                            .add(job::Column::StartedAt.lt(running_before)),
                    )
                    .add(
                        Condition::all()
                            .add(job::Column::Status.eq("queued"))
                            .add(job::Column::CreatedAt.lt(queued_before)),
                    ),
            )
            .order_by_asc(job::Column::CreatedAt)
            .limit(limit)
            .all(self.connection())
            .await?)
    }

    /// The tenant's audit entries in `[from, to)`, oldest first, after entry id `after_id`.
    pub async fn audit_entries(
        &self,
        tenant_id: i64,
        from: Option<DateTime<Utc>>,
        to: Option<DateTime<Utc>>,
        after_id: i64,
        limit: u64,
    ) -> Result<Vec<audit_entry::Model>, StoreError> {
        let mut query = audit_entry::Entity::find()
            .filter(audit_entry::Column::TenantId.eq(tenant_id))
            .filter(audit_entry::Column::Id.gt(after_id));
        if let Some(from) = from {
            query = query.filter(audit_entry::Column::CreatedAt.gte(from));
        }
        if let Some(to) = to {
            query = query.filter(audit_entry::Column::CreatedAt.lt(to));
        }
        Ok(query
            .order_by_asc(audit_entry::Column::Id)
            .limit(limit)
            .all(self.connection())
            .await?)
    }

    /// The tenant's executions with these ids (for job views).
    pub async fn executions_by_ids(
        &self,
        tenant_id: i64,
        ids: Vec<i64>,
    ) -> Result<Vec<execution::Model>, StoreError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        Ok(execution::Entity::find()
            .filter(execution::Column::TenantId.eq(tenant_id))
            .filter(execution::Column::Id.is_in(ids))
            .all(self.connection())
            .await?)
    }
}
