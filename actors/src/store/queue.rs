//! Queuing jobs: what kinds there are, what each one's payload holds, and the one way in,
//! [`Store::enqueue`], which checks the tenant's queue limit, reserves a credit per document job and
//! inserts the rows in one transaction.
//!
//! Neither the limit nor the balance can be passed by requests that arrive together: the transaction
//! first locks the tenant's row ([`Store::lock_tenant`]), so each transaction counts the queue and the
//! credits after the one before it has committed.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use sea_orm::{ActiveModelTrait, ConnectionTrait, EntityTrait, Set};
use serde::{Deserialize, Serialize};

use super::credits::{CreditError, ShortOfCredits};
use super::entities::{dataset, document, job};
use super::{Store, StoreError};
use crate::cache::Cache;
use crate::metric_names as names;

/// What a job does; its name is what `jobs.job_type` holds and what the API shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum JobKind {
    /// Extract (and mask) one document into an execution.
    DataProcess,
    /// Build a dataset from executions.
    DatasetBuild,
}

impl JobKind {
    pub const ALL: [JobKind; 2] = [JobKind::DataProcess, JobKind::DatasetBuild];

    pub const fn as_str(self) -> &'static str {
        match self {
            JobKind::DataProcess => "data_process",
            JobKind::DatasetBuild => "dataset_build",
        }
    }

    pub fn parse(name: &str) -> Option<JobKind> {
        JobKind::ALL.into_iter().find(|kind| kind.as_str() == name)
    }
}

impl std::fmt::Display for JobKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Who asked for a job, for its audit entry: `type` is `user`, `api_key` or `system`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequestedBy {
    #[serde(rename = "type")]
    pub actor_type: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
}

impl Default for RequestedBy {
    fn default() -> Self {
        RequestedBy {
            actor_type: "system".to_string(),
            id: None,
        }
    }
}

impl RequestedBy {
    pub fn new(actor_type: &str, id: impl Into<String>) -> RequestedBy {
        RequestedBy {
            actor_type: actor_type.to_string(),
            id: Some(id.into()),
        }
    }

    /// The audit log's actor type: the stored one when it is known, `system` otherwise.
    pub fn audit_type(&self) -> &'static str {
        match self.actor_type.as_str() {
            "user" => "user",
            "api_key" => "api_key",
            _ => "system",
        }
    }
}

fn masked_by_default() -> bool {
    true
}

/// A `data_process` job's payload.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProcessPayload {
    /// Store masked results (the API's default) or detect only.
    #[serde(default = "masked_by_default")]
    pub masked: bool,
    /// Queued by `POST /v1/documents/{id}/reprocess` rather than by an upload.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reprocess: bool,
    #[serde(default)]
    pub requested_by: RequestedBy,
}

/// A `dataset_build` job's payload.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BuildPayload {
    #[serde(default)]
    pub requested_by: RequestedBy,
}

/// A job's payload, which also says its kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JobPayload {
    DataProcess(ProcessPayload),
    DatasetBuild(BuildPayload),
}

impl JobPayload {
    pub fn kind(&self) -> JobKind {
        match self {
            JobPayload::DataProcess(_) => JobKind::DataProcess,
            JobPayload::DatasetBuild(_) => JobKind::DatasetBuild,
        }
    }

    pub fn requested_by(&self) -> &RequestedBy {
        match self {
            JobPayload::DataProcess(payload) => &payload.requested_by,
            JobPayload::DatasetBuild(payload) => &payload.requested_by,
        }
    }

    fn to_json(&self) -> String {
        let value = match self {
            JobPayload::DataProcess(payload) => serde_json::to_string(payload),
            JobPayload::DatasetBuild(payload) => serde_json::to_string(payload),
        };
        // Plain structs of strings and booleans always serialise.
        value.unwrap_or_else(|_| "{}".to_string())
    }

    /// A stored job's payload from its row; an error names what this version cannot run.
    pub fn from_row(job_type: &str, payload: &serde_json::Value) -> Result<JobPayload, String> {
        let unreadable = |error: serde_json::Error| {
            format!("the payload of a {job_type} job is unreadable: {error}")
        };
        match JobKind::parse(job_type) {
            Some(JobKind::DataProcess) => ProcessPayload::deserialize(payload)
                .map(JobPayload::DataProcess)
                .map_err(unreadable),
            Some(JobKind::DatasetBuild) => BuildPayload::deserialize(payload)
                .map(JobPayload::DatasetBuild)
                .map_err(unreadable),
            None => Err(format!("this version cannot run jobs of type {job_type}")),
        }
    }
}

/// A stored original to register with its first job.
#[derive(Clone, Debug)]
pub struct NewDocument {
    /// Sealed under the tenant's data key (`SealedField::DocumentName`).
    pub filename: super::Sealed,
    pub mime: String,
    pub format: String,
    pub size_bytes: i64,
    pub sha256: String,
    pub blob_key: String,
    pub origin: Origin,
}

/// Where a document came from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Origin {
    /// Uploaded in a request.
    #[default]
    Upload,
    /// Fetched from a storage connector: the object's key (sealed, and its digest) and ETag.
    Connector {
        connector_id: i64,
        key: super::ObjectKey,
        etag: Option<String>,
    },
}

/// What a new job works on.
#[derive(Clone, Debug)]
pub enum JobTarget {
    /// A file just uploaded: its document row goes in with the job.
    Upload(NewDocument),
    /// A document already stored (a reprocess).
    Document(i64),
    /// A dataset created with its build job.
    NewDataset {
        id: String,
        name: String,
        execution_ids: Vec<i64>,
    },
    /// A dataset built again from fewer executions (a data-subject erasure removed some): its next
    /// version.
    Rebuild { id: String, execution_ids: Vec<i64> },
}

/// Formats whose pages may be drawn and read by OCR: few bytes can take seconds or minutes, so they
/// are never small-lane work (a batch runs its documents one after another), whatever their size.
pub const OCR_FORMATS: [&str; 4] = ["pdf", "tiff", "png", "jpeg"];

/// A job to queue.
#[derive(Clone, Debug)]
pub struct NewJob {
    pub id: String,
    pub target: JobTarget,
    pub payload: JobPayload,
    pub max_attempts: i32,
}

/// A job that was queued, with the document row its upload created.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Queued {
    pub job_id: String,
    pub kind: JobKind,
    pub document_id: Option<i64>,
}

#[derive(Debug, thiserror::Error)]
pub enum EnqueueError {
    /// Queuing would take the tenant past its limit: nothing was queued.
    #[error("this account has {queued} queued jobs; at most {limit} may wait at once")]
    QueueFull { queued: u64, limit: u64 },
    /// The tenant's open period has fewer credits left than the jobs reserve: nothing was queued.
    #[error("{} credits are needed and {} are left", .0.required, .0.balance)]
    InsufficientCredits(ShortOfCredits),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl Store {
    /// Queues `jobs` for the tenant, all or none (within `limit` queued jobs when given, each document job
    /// reserving its credit), counts them and wakes every process's job router. The one way work is
    /// queued, from a request or from a connector sync.
    pub async fn queue_jobs(
        &self,
        cache: &Arc<dyn Cache>,
        tenant_id: i64,
        jobs: Vec<NewJob>,
        limit: Option<u64>,
        now: chrono::DateTime<chrono::Utc>,
    ) -> Result<Vec<Queued>, EnqueueError> {
        if jobs.is_empty() {
            return Ok(Vec::new());
        }
        let queued = self.enqueue(tenant_id, jobs, limit, now).await?;
        for job in &queued {
            metrics::counter!(names::JOBS_ENQUEUED_TOTAL, "job_type" => job.kind.as_str())
                .increment(1);
        }
        // A failed wake-up only delays the work until the routers' next poll.
        if let Err(error) = cache.wake(crate::cache::JOBS_WAKE).await {
            tracing::warn!(%error, "cannot send a wake-up; the next poll finds the work");
        }
        Ok(queued)
    }

    /// Queues `jobs` for the tenant, all or none. With a `limit`, refuses them with
    /// [`EnqueueError::QueueFull`] when the tenant's queued jobs and these would exceed it, counted
    /// under a lock on the tenant so that concurrent calls cannot pass it together.
    pub async fn enqueue(
        &self,
        tenant_id: i64,
        jobs: Vec<NewJob>,
        limit: Option<u64>,
        now: DateTime<Utc>,
    ) -> Result<Vec<Queued>, EnqueueError> {
        let (_turn, txn) = self.begin_write().await?;
        // Document jobs cost credits: each reserves one, under its job id.
        let reservations: Vec<String> = jobs
            .iter()
            .filter(|job| job.payload.kind() == JobKind::DataProcess)
            .map(|job| job.id.clone())
            .collect();
        if limit.is_some() || !reservations.is_empty() {
            self.lock_tenant(&txn, tenant_id).await?;
        }
        if let Some(limit) = limit {
            let queued = self.queued_count(&txn, tenant_id).await?;
            if queued + jobs.len() as u64 > limit {
                return Err(EnqueueError::QueueFull { queued, limit });
            }
        }
        self.reserve_in(&txn, tenant_id, &reservations, now)
            .await
            .map_err(|error| match error {
                CreditError::Insufficient(short) => EnqueueError::InsufficientCredits(short),
                CreditError::Store(error) => EnqueueError::Store(error),
            })?;
        let mut queued = Vec::with_capacity(jobs.len());
        for new_job in jobs {
            let kind = new_job.payload.kind();
            let mut lane = "large";
            let (document_id, dataset_id) = match new_job.target {
                JobTarget::Upload(new_document) => {
                    if new_document.size_bytes <= self.small_max_bytes
                        && !OCR_FORMATS.contains(&new_document.format.as_str())
                    {
                        lane = "small";
                    }
                    let row = insert_document(&txn, tenant_id, new_document, now).await?;
                    (Some(row), None)
                }
                JobTarget::Document(id) => (Some(id), None),
                JobTarget::NewDataset {
                    id,
                    name,
                    execution_ids,
                } => {
                    let row = dataset::ActiveModel {
                        id: Set(id.clone()),
                        tenant_id: Set(tenant_id),
                        name: Set(name),
                        status: Set("queued".to_string()),
                        job_id: Set(Some(new_job.id.clone())),
                        execution_ids: Set(
                            serde_json::to_string(&execution_ids).unwrap_or_default()
                        ),
                        row_count: Set(0),
                        schema_json: Set(None),
                        error_message: Set(None),
                        created_at: Set(now),
                        finished_at: Set(None),
                        version: Set(1),
                    };
                    dataset::Entity::insert(row)
                        .exec_without_returning(&txn)
                        .await
                        .map_err(StoreError::from)?;
                    (None, Some(id))
                }
                JobTarget::Rebuild { id, execution_ids } => {
                    txn.execute(self.statement(
                        "UPDATE datasets SET execution_ids = ?, status = 'queued', job_id = ?, \
                         row_count = 0, schema_json = NULL, error_message = NULL, finished_at = NULL, \
                         version = version + 1 WHERE id = ? AND tenant_id = ?",
                        vec![
                            serde_json::to_string(&execution_ids)
                                .unwrap_or_default()
                                .into(),
                            new_job.id.clone().into(),
                            id.clone().into(),
                            tenant_id.into(),
                        ],
                    ))
                    .await
                    .map_err(StoreError::from)?;
                    (None, Some(id))
                }
            };
            job::Entity::insert(job::ActiveModel {
                id: Set(new_job.id.clone()),
                tenant_id: Set(tenant_id),
                job_type: Set(kind.as_str().to_string()),
                status: Set("queued".to_string()),
                document_id: Set(document_id),
                dataset_id: Set(dataset_id),
                execution_id: Set(None),
                payload: Set(new_job.payload.to_json()),
                attempts: Set(0),
                max_attempts: Set(new_job.max_attempts),
                lease_owner: Set(None),
                lease_expires_at: Set(None),
                error_code: Set(None),
                error_message: Set(None),
                created_at: Set(now),
                started_at: Set(None),
                finished_at: Set(None),
                updated_at: Set(now),
                lane: Set(lane.to_string()),
                reserved_at: Set(None),
            })
            // The id is ours: no need to read the row back.
            .exec_without_returning(&txn)
            .await
            .map_err(StoreError::from)?;
            queued.push(Queued {
                job_id: new_job.id,
                kind,
                document_id,
            });
        }
        txn.commit().await.map_err(StoreError::from)?;
        Ok(queued)
    }

    /// How many jobs of the tenant wait in the queue.
    async fn queued_count<C: ConnectionTrait>(
        &self,
        connection: &C,
        tenant_id: i64,
    ) -> Result<u64, StoreError> {
        let row = connection
            .query_one(self.statement(
                "SELECT COUNT(*) AS n FROM jobs WHERE tenant_id = ? AND status = 'queued'",
                vec![tenant_id.into()],
            ))
            .await?;
        let count: i64 = match row {
            Some(row) => row.try_get("", "n")?,
            None => 0,
        };
        Ok(count.max(0) as u64)
    }
}

async fn insert_document<C: ConnectionTrait>(
    connection: &C,
    tenant_id: i64,
    new_document: NewDocument,
    now: DateTime<Utc>,
) -> Result<i64, StoreError> {
    let row = document::ActiveModel {
        tenant_id: Set(tenant_id),
        sealed_filename: Set(new_document.filename.stored().to_string()),
        mime: Set(new_document.mime),
        format: Set(new_document.format),
        size_bytes: Set(new_document.size_bytes),
        sha256: Set(new_document.sha256),
        source: Set(match new_document.origin {
            Origin::Upload => "upload",
            Origin::Connector { .. } => "connector",
        }
        .to_string()),
        connector_id: Set(match &new_document.origin {
            Origin::Connector { connector_id, .. } => Some(*connector_id),
            Origin::Upload => None,
        }),
        sealed_source_key: Set(match &new_document.origin {
            Origin::Connector { key, .. } => Some(key.sealed.stored().to_string()),
            Origin::Upload => None,
        }),
        source_digest: Set(match &new_document.origin {
            Origin::Connector { key, .. } => Some(key.digest.clone()),
            Origin::Upload => None,
        }),
        source_etag: Set(match new_document.origin {
            Origin::Connector { etag, .. } => etag,
            Origin::Upload => None,
        }),
        blob_key: Set(new_document.blob_key),
        created_at: Set(now),
        ..Default::default()
    }
    .insert(connection)
    .await?;
    Ok(row.id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_round_trip_by_name_and_payloads_by_row() {
        for kind in JobKind::ALL {
            assert_eq!(JobKind::parse(kind.as_str()), Some(kind));
        }
        let payload = JobPayload::DataProcess(ProcessPayload {
            masked: false,
            reprocess: true,
            requested_by: RequestedBy::new("api_key", "7"),
        });
        let stored: serde_json::Value = serde_json::from_str(&payload.to_json()).expect("json");
        assert_eq!(
            stored,
            serde_json::json!({"masked": false, "reprocess": true,
                "requested_by": {"type": "api_key", "id": "7"}})
        );
        assert_eq!(JobPayload::from_row("data_process", &stored), Ok(payload));
        // Rows written before payloads were typed, or by hand, still read: defaults fill the gaps.
        assert_eq!(
            JobPayload::from_row("data_process", &serde_json::json!({})),
            Ok(JobPayload::DataProcess(ProcessPayload {
                masked: true,
                reprocess: false,
                requested_by: RequestedBy::default(),
            }))
        );
        let unknown = JobPayload::from_row("connector_sync", &serde_json::json!({}));
        assert!(unknown.is_err_and(|reason| reason.contains("connector_sync")));
    }
}
