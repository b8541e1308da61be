//! GET /v1/jobs, /v1/jobs/stuck and /v1/jobs/{job_id}: job state, attempts, the error of a failed
//! job, and for a completed one its quality, PII counts, language and extracted fields.

use std::collections::HashMap;

use actix_web::{get, web, HttpResponse};
use docsieve_actors::store::JobKind;
use docsieve_actors::store::{ExecutionRecord, JobRecord};
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::api::common::{meta_of, page_request, rfc3339, tenant_key};
use crate::api::{vocab, Envelope, Page};
use crate::auth::Authenticated;
use crate::error::{ApiError, ErrorCode};
use crate::state::AppState;
use crate::validation::{Pagination, Query, Violations};
use docsieve_actors::blob::DataKey;

/// The `job_type` filter's choices: every kind of job.
pub const JOB_TYPES: [&str; 2] = [
    JobKind::DataProcess.as_str(),
    JobKind::DatasetBuild.as_str(),
];

/// A job's error: `code` is a stable code, `message` says what happened.
#[derive(Serialize, ToSchema)]
pub struct JobError {
    /// A record code of jobs (`exhausted_retries`, `lease_expired`, ...) or the error code a
    /// preview of the document would answer with (`empty_document`, `masking_refused`, ...).
    #[schema(value_type = docsieve_actors::error_code::RecordCode)]
    pub code: String,
    pub message: String,
}

/// A job: its state and attempts; when it failed, its error; when it completed, what it found.
#[derive(Serialize, ToSchema)]
pub struct JobView {
    pub job_id: String,
    #[schema(value_type = vocab::JobType)]
    pub job_type: String,
    #[schema(value_type = vocab::JobStatus)]
    pub status: String,
    pub document_id: Option<i64>,
    pub dataset_id: Option<String>,
    pub execution_id: Option<i64>,
    pub attempts: i32,
    pub max_attempts: i32,
    pub created_at: String,
    pub started_at: Option<String>,
    pub finished_at: Option<String>,
    pub updated_at: String,
    /// Whether the result is masked (data_process jobs).
    #[schema(value_type = Option<bool>)]
    pub masked: Value,
    /// Why it failed (status `failed`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<JobError>,
    /// A previous attempt's problem, while the job waits for or runs its next attempt.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_error: Option<JobError>,
    /// The result's quality grade, `A` to `F` (completed data_process jobs, as the keys below).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    pub quality_grade: Option<Value>,
    /// `{grade, score, signals}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub quality: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<u64>)]
    pub pii_count: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<u64>)]
    pub pii_findings_count: Option<Value>,
    /// Personal-data type -> count.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<HashMap<String, u64>>)]
    pub pii_type_summary: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    pub detected_language: Option<Value>,
    /// The fields extracted from structured documents (e-invoices, e-mails...).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub fields: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<i64>,
    /// Set while a queued job holds a process's memory budget: the oldest large job, whose estimate
    /// did not fit in what the running jobs left (`jobs.memory_budget_mb`) for
    /// `jobs.reserve_after_seconds`. That process claims nothing else until it fits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub waiting: Option<JobWaiting>,
}

/// Why a queued job has not started, and by when it will.
#[derive(Serialize, ToSchema)]
pub struct JobWaiting {
    /// `memory_budget`: the job waits for running jobs to leave room for its memory estimate.
    pub reason: String,
    /// The job's memory estimate (its document's size times its format's factor), in MiB.
    pub memory_estimate_mb: i64,
    /// The budget of the process holding it, in MiB.
    pub memory_budget_mb: u64,
    /// When the process began to hold its budget for it.
    pub reserved_at: String,
    /// The latest it starts: the running jobs end within their time limits (two waits of
    /// `2 x extraction.limits.max_seconds + 60` s: reading and masking) and nothing else is claimed.
    pub starts_by: String,
}

pub fn job_view(
    job: &JobRecord,
    execution: Option<&ExecutionRecord>,
    key: Option<&DataKey>,
) -> JobView {
    let error = || JobError {
        code: job
            .error_code
            .clone()
            .unwrap_or_else(|| "failed".to_string()),
        message: job.error_message.clone().unwrap_or_default(),
    };
    let completed = match (execution, job.status.as_str()) {
        (Some(execution), "completed") => Some((meta_of(execution, key), execution.duration_ms)),
        _ => None,
    };
    let meta = |key: &str| completed.as_ref().map(|(meta, _)| meta[key].clone());
    JobView {
        job_id: job.id.clone(),
        job_type: job.job_type.clone(),
        status: job.status.clone(),
        document_id: job.document_id,
        dataset_id: job.dataset_id.clone(),
        execution_id: job.execution_id,
        attempts: job.attempts,
        max_attempts: job.max_attempts,
        created_at: rfc3339(job.created_at),
        started_at: job.started_at.map(rfc3339),
        finished_at: job.finished_at.map(rfc3339),
        updated_at: rfc3339(job.updated_at),
        masked: serde_json::from_str::<Value>(&job.payload)
            .ok()
            .and_then(|p| p.get("masked").cloned())
            .unwrap_or(Value::Null),
        error: (job.status == "failed").then(error),
        last_error: (matches!(job.status.as_str(), "queued" | "running")
            && job.error_code.is_some())
        .then(error),
        quality_grade: completed
            .as_ref()
            .map(|(meta, _)| meta["quality"]["grade"].clone()),
        quality: meta("quality"),
        pii_count: meta("pii_count"),
        pii_findings_count: meta("pii_findings_count"),
        pii_type_summary: meta("pii_type_summary"),
        detected_language: meta("detected_language"),
        fields: meta("fields"),
        duration_ms: completed.as_ref().and_then(|(_, duration)| *duration),
        waiting: None,
    }
}

/// The jobs that have run longer or waited longer than the thresholds.
#[derive(Serialize, ToSchema)]
pub struct StuckJobs {
    pub total: usize,
    pub items: Vec<JobView>,
    pub running_threshold_minutes: i64,
    pub queued_threshold_minutes: i64,
}

async fn views(
    state: &AppState,
    tenant_id: i64,
    jobs: &[JobRecord],
) -> Result<Vec<JobView>, ApiError> {
    let ids = jobs.iter().filter_map(|j| j.execution_id).collect();
    let executions: HashMap<i64, ExecutionRecord> = state
        .store
        .executions_by_ids(tenant_id, ids)
        .await?
        .into_iter()
        .map(|e| (e.id, e))
        .collect();
    let key = tenant_key(state, tenant_id).await?;
    let mut views = Vec::with_capacity(jobs.len());
    for job in jobs {
        let execution = job.execution_id.and_then(|id| executions.get(&id));
        let mut view = job_view(job, execution, key.as_deref());
        view.waiting = waiting(state, job).await?;
        views.push(view);
    }
    Ok(views)
}

/// What a queued job that holds the memory budget waits for ([`JobWaiting`]).
async fn waiting(state: &AppState, job: &JobRecord) -> Result<Option<JobWaiting>, ApiError> {
    let Some(reserved_at) = job.reserved_at.filter(|_| job.status == "queued") else {
        return Ok(None);
    };
    let estimate = state.store.memory_estimate(&job.id).await?.unwrap_or(0);
    let longest = docsieve_actors::pipeline::longest_run(&state.settings.extraction.limits);
    let starts_by = reserved_at
        + chrono::Duration::from_std(longest).unwrap_or_else(|_| chrono::Duration::days(1));
    Ok(Some(JobWaiting {
        reason: "memory_budget".to_string(),
        memory_estimate_mb: estimate >> 20,
        memory_budget_mb: state.settings.jobs.memory_budget_mb,
        reserved_at: rfc3339(reserved_at),
        starts_by: rfc3339(starts_by),
    }))
}

/// The tenant's jobs, newest first, optionally of one type.
#[utoipa::path(get, path = "/v1/jobs", operation_id = "list_jobs", tag = "processing",
    params(
        ("page" = Option<i64>, Query, description = "Page, from 1 (default 1)"),
        ("page_size" = Option<i64>, Query, description = "1 to 100 (default 20)"),
        ("job_type" = Option<vocab::JobType>, Query, description = "Only jobs of this type")
    ),
    responses(
        (status = 200, description = "One page of jobs, newest first", body = Envelope<Page<JobView>>),
        (status = 401, body = crate::error::ErrorBody),
        (status = 422, body = crate::error::ValidationErrorBody)
    ),
    security(("api_key" = []), ("bearer" = [])))]
#[get("/v1/jobs")]
pub async fn list(
    state: web::Data<AppState>,
    auth: Authenticated,
    query: Query,
) -> Result<HttpResponse, ApiError> {
    let mut violations = Violations::default();
    let pagination = Pagination::read(&query, &mut violations);
    let job_type = query.choice("job_type", "", &JOB_TYPES, &mut violations);
    violations.finish()?;
    let job_type = (!job_type.is_empty()).then_some(job_type);
    let (jobs, total) = state
        .store
        .jobs_page(auth.tenant_id, job_type, page_request(pagination))
        .await?;
    Ok(crate::api::page_response(
        views(&state, auth.tenant_id, &jobs).await?,
        pagination,
        total,
    ))
}

/// Jobs running longer than `running_threshold_minutes` or queued longer than
/// `queued_threshold_minutes` (at most 500, oldest first).
#[utoipa::path(get, path = "/v1/jobs/stuck", operation_id = "list_stuck_jobs", tag = "processing",
    params(
        ("running_threshold_minutes" = Option<i64>, Query, description = "1 to 1440 (default 15)"),
        ("queued_threshold_minutes" = Option<i64>, Query, description = "1 to 1440 (default 30)")
    ),
    responses(
        (status = 200, description = "The stuck jobs, oldest first", body = Envelope<StuckJobs>),
        (status = 401, body = crate::error::ErrorBody),
        (status = 422, body = crate::error::ValidationErrorBody)
    ),
    security(("api_key" = []), ("bearer" = [])))]
#[get("/v1/jobs/stuck")]
pub async fn stuck(
    state: web::Data<AppState>,
    auth: Authenticated,
    query: Query,
) -> Result<HttpResponse, ApiError> {
    let mut violations = Violations::default();
    let running = query.int("running_threshold_minutes", 15, 1, 1440, &mut violations);
    let queued = query.int("queued_threshold_minutes", 30, 1, 1440, &mut violations);
    violations.finish()?;
    let now = state.clock.now();
    let jobs = state
        .store
        .stuck_jobs(
            auth.tenant_id,
            now - chrono::Duration::minutes(running),
            now - chrono::Duration::minutes(queued),
            500,
        )
        .await?;
    let items = views(&state, auth.tenant_id, &jobs).await?;
    Ok(HttpResponse::Ok().json(Envelope {
        data: StuckJobs {
            total: items.len(),
            items,
            running_threshold_minutes: running,
            queued_threshold_minutes: queued,
        },
    }))
}

/// One job.
#[utoipa::path(get, path = "/v1/jobs/{job_id}", operation_id = "get_job", tag = "processing",
    params(("job_id" = String, Path, description = "Job id (string)")),
    responses(
        (status = 200, description = "The job", body = Envelope<JobView>),
        (status = 401, body = crate::error::ErrorBody),
        (status = 404, body = crate::error::ErrorBody)
    ),
    security(("api_key" = []), ("bearer" = [])))]
#[get("/v1/jobs/{job_id}")]
pub async fn detail(
    state: web::Data<AppState>,
    auth: Authenticated,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let job_id = path.into_inner();
    let not_found = || {
        ApiError::not_found(
            ErrorCode::JobNotFound,
            format!("job {job_id} does not exist"),
        )
    };
    if job_id.len() > 64 {
        return Err(not_found());
    }
    let job = state
        .store
        .job(auth.tenant_id, &job_id)
        .await?
        .ok_or_else(not_found)?;
    let view = views(&state, auth.tenant_id, std::slice::from_ref(&job))
        .await?
        .pop()
        .ok_or_else(not_found)?;
    Ok(HttpResponse::Ok().json(Envelope { data: view }))
}

/// This resource's routes.
pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(list)
        // Before /v1/jobs/{job_id}, which would otherwise take "stuck" as an id.
        .service(stuck)
        .service(detail);
}
