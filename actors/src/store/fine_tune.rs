//! Fine-tune jobs: created by the API, worked by the fine_tuner actor one step at a time under a
//! lease (so that with several processes one works a job at a time, and a job whose process died is
//! taken up again once its lease ends), every step's outcome written before the next one starts (so
//! that a restart resumes where the job was and never asks the provider for a second job).

use chrono::{DateTime, Utc};
use sea_orm::{ConnectionTrait, QueryResult};
use serde::Serialize;

use super::{PageRequest, RequestedBy, Store, StoreError};

/// States in which the fine_tuner still has work to do.
pub const ACTIVE_STATES: [&str; 4] = ["queued", "uploading", "validating", "running"];
/// Every state, for the gauges.
pub const ALL_STATES: [&str; 7] = [
    "queued",
    "uploading",
    "validating",
    "running",
    "succeeded",
    "failed",
    "cancelled",
];

/// One fine-tune job.
#[derive(Clone, Debug, Serialize)]
pub struct FineTuneRecord {
    pub id: String,
    pub tenant_id: i64,
    pub dataset_id: String,
    pub model: String,
    pub suffix: Option<String>,
    pub status: String,
    pub training_file_id: Option<String>,
    pub provider_job_id: Option<String>,
    pub fine_tuned_model: Option<String>,
    pub training_rows: i64,
    pub error_code: Option<String>,
    pub error_message: Option<String>,
    pub attempts: i32,
    pub next_action_at: DateTime<Utc>,
    pub requested_by: Option<String>,
    /// The job's own message templates (JSON `{"system", "user", "assistant"}`), if it was given any.
    pub templates: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub finished_at: Option<DateTime<Utc>>,
}

const COLUMNS: &str = "id, tenant_id, dataset_id, model, suffix, status, training_file_id, provider_job_id, \
     fine_tuned_model, training_rows, error_code, error_message, attempts, next_action_at, requested_by, \
     templates, created_at, updated_at, finished_at";

fn record_from(row: &QueryResult) -> Result<FineTuneRecord, StoreError> {
    Ok(FineTuneRecord {
        id: row.try_get("", "id")?,
        tenant_id: row.try_get("", "tenant_id")?,
        dataset_id: row.try_get("", "dataset_id")?,
        model: row.try_get("", "model")?,
        suffix: row.try_get("", "suffix")?,
        status: row.try_get("", "status")?,
        training_file_id: row.try_get("", "training_file_id")?,
        provider_job_id: row.try_get("", "provider_job_id")?,
        fine_tuned_model: row.try_get("", "fine_tuned_model")?,
        training_rows: row.try_get("", "training_rows")?,
        error_code: row.try_get("", "error_code")?,
        error_message: row.try_get("", "error_message")?,
        attempts: row.try_get("", "attempts")?,
        next_action_at: row.try_get("", "next_action_at")?,
        requested_by: row.try_get("", "requested_by")?,
        templates: row.try_get("", "templates")?,
        created_at: row.try_get("", "created_at")?,
        updated_at: row.try_get("", "updated_at")?,
        finished_at: row.try_get("", "finished_at")?,
    })
}

/// A fine-tune job to create.
#[derive(Clone, Debug)]
pub struct NewFineTune {
    pub id: String,
    pub dataset_id: String,
    pub model: String,
    pub suffix: Option<String>,
    pub requested_by: RequestedBy,
    /// Message templates of its own (JSON), or None for the configured ones.
    pub templates: Option<String>,
}

/// What one step of the fine_tuner found: the job's new state. `None` fields keep their value.
#[derive(Clone, Debug, Default)]
pub struct FineTuneStep {
    pub status: Option<String>,
    pub training_file_id: Option<String>,
    pub training_rows: Option<i64>,
    pub provider_job_id: Option<String>,
    pub fine_tuned_model: Option<String>,
    pub error: Option<(String, String)>,
    /// Failed attempts in a row (0 after a success).
    pub attempts: i32,
    pub next_action_at: DateTime<Utc>,
    /// Whether the lease ends with this step (false: the step goes on, e.g. after the upload).
    pub release: bool,
}

impl Store {
    pub async fn create_fine_tune_job(
        &self,
        tenant_id: i64,
        job: NewFineTune,
        now: DateTime<Utc>,
    ) -> Result<FineTuneRecord, StoreError> {
        let requested_by = serde_json::to_string(&job.requested_by).unwrap_or_default();
        let row = self
            .connection()
            .query_one(self.statement(
                &format!(
                    "INSERT INTO fine_tune_jobs (id, tenant_id, dataset_id, model, suffix, status, training_rows, \
                     attempts, next_action_at, requested_by, templates, created_at, updated_at) \
                     VALUES (?, ?, ?, ?, ?, 'queued', 0, 0, ?, ?, ?, ?, ?) RETURNING {COLUMNS}"
                ),
                vec![
                    job.id.into(),
                    tenant_id.into(),
                    job.dataset_id.into(),
                    job.model.into(),
                    job.suffix.into(),
                    now.into(),
                    requested_by.into(),
                    job.templates.into(),
                    now.into(),
                    now.into(),
                ],
            ))
            .await?
            .ok_or_else(|| StoreError::Database(sea_orm::DbErr::RecordNotInserted))?;
        record_from(&row)
    }

    pub async fn fine_tune_job(
        &self,
        tenant_id: i64,
        job_id: &str,
    ) -> Result<Option<FineTuneRecord>, StoreError> {
        self.connection()
            .query_one(self.statement(
                &format!("SELECT {COLUMNS} FROM fine_tune_jobs WHERE id = ? AND tenant_id = ?"),
                vec![job_id.into(), tenant_id.into()],
            ))
            .await?
            .as_ref()
            .map(record_from)
            .transpose()
    }

    pub async fn fine_tune_jobs_page(
        &self,
        tenant_id: i64,
        page: PageRequest,
    ) -> Result<(Vec<FineTuneRecord>, u64), StoreError> {
        self.tenant_page(
            ("fine_tune_jobs", COLUMNS, "created_at DESC, id DESC"),
            tenant_id,
            page,
            record_from,
        )
        .await
    }

    /// Claims up to `limit` jobs due for a step, each under a lease for `owner` until `lease_until`.
    pub async fn claim_fine_tune_jobs(
        &self,
        owner: &str,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        limit: u64,
    ) -> Result<Vec<FineTuneRecord>, StoreError> {
        let candidates = self
            .connection()
            .query_all(self.statement(
                "SELECT id FROM fine_tune_jobs WHERE status IN ('queued', 'uploading', 'validating', 'running') \
                 AND next_action_at <= ? AND (lease_owner IS NULL OR lease_expires_at < ?) \
                 ORDER BY next_action_at LIMIT ?",
                vec![now.into(), now.into(), (limit as i64).into()],
            ))
            .await?;
        let mut claimed = Vec::new();
        for candidate in &candidates {
            let id: String = candidate.try_get("", "id")?;
            let row = self
                .connection()
                .query_one(self.statement(
                    &format!(
                        "UPDATE fine_tune_jobs SET lease_owner = ?, lease_expires_at = ? WHERE id = ? \
                         AND (lease_owner IS NULL OR lease_expires_at < ?) RETURNING {COLUMNS}"
                    ),
                    vec![owner.into(), lease_until.into(), id.into(), now.into()],
                ))
                .await?;
            if let Some(row) = row {
                claimed.push(record_from(&row)?);
            }
        }
        Ok(claimed)
    }

    /// Writes a step's outcome while `owner` still holds the job; false when it lost the lease.
    pub async fn record_fine_tune_step(
        &self,
        job_id: &str,
        owner: &str,
        step: FineTuneStep,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let terminal = step
            .status
            .as_deref()
            .is_some_and(|status| !ACTIVE_STATES.contains(&status));
        let (error_code, error_message) = step.error.unzip();
        let release = step.release || terminal;
        let updated = self
            .connection()
            .execute(self.statement(
                "UPDATE fine_tune_jobs SET status = COALESCE(?, status), \
                 training_file_id = COALESCE(?, training_file_id), training_rows = COALESCE(?, training_rows), \
                 provider_job_id = COALESCE(?, provider_job_id), fine_tuned_model = COALESCE(?, fine_tuned_model), \
                 error_code = COALESCE(?, error_code), error_message = COALESCE(?, error_message), \
                 attempts = ?, next_action_at = ?, updated_at = ?, \
                 finished_at = CASE WHEN ? THEN ? ELSE finished_at END, \
                 lease_owner = CASE WHEN ? THEN NULL ELSE lease_owner END, \
                 lease_expires_at = CASE WHEN ? THEN NULL ELSE lease_expires_at END \
                 WHERE id = ? AND lease_owner = ?",
                vec![
                    step.status.into(),
                    step.training_file_id.into(),
                    step.training_rows.into(),
                    step.provider_job_id.into(),
                    step.fine_tuned_model.into(),
                    error_code.into(),
                    error_message.into(),
                    step.attempts.into(),
                    step.next_action_at.into(),
                    now.into(),
                    terminal.into(),
                    now.into(),
                    release.into(),
                    release.into(),
                    job_id.into(),
                    owner.into(),
                ],
            ))
            .await?;
        Ok(updated.rows_affected() == 1)
    }

    /// Gives back the leases `owner` holds (a clean shutdown): another process, or the next start,
    /// takes the jobs up at once.
    /// The tenant's fine-tune jobs trained on `dataset_id`, oldest first.
    pub async fn fine_tunes_of_dataset(
        &self,
        tenant_id: i64,
        dataset_id: &str,
    ) -> Result<Vec<FineTuneRecord>, StoreError> {
        let rows = self
            .connection()
            .query_all(self.statement(
                &format!(
                    "SELECT {COLUMNS} FROM fine_tune_jobs WHERE tenant_id = ? AND dataset_id = ? \
                     ORDER BY created_at, id"
                ),
                vec![tenant_id.into(), dataset_id.into()],
            ))
            .await?;
        rows.iter().map(record_from).collect()
    }

    pub async fn release_fine_tune_leases(&self, owner: &str) -> Result<u64, StoreError> {
        Ok(self
            .connection()
            .execute(self.statement(
                "UPDATE fine_tune_jobs SET lease_owner = NULL, lease_expires_at = NULL WHERE lease_owner = ?",
                vec![owner.into()],
            ))
            .await?
            .rows_affected())
    }

    /// Jobs by state, over every tenant (for the gauge).
    pub async fn fine_tune_counts(&self) -> Result<Vec<(String, i64)>, StoreError> {
        let rows = self
            .connection()
            .query_all(self.statement(
                "SELECT status, COUNT(*) AS n FROM fine_tune_jobs GROUP BY status",
                vec![],
            ))
            .await?;
        rows.iter()
            .map(|row| Ok((row.try_get("", "status")?, row.try_get("", "n")?)))
            .collect()
    }
}
