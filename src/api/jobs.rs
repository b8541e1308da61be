//! GET /v1/jobs, /v1/jobs/stuck and /v1/jobs/{job_id}: job state, attempts, the error of a failed
//! job, and for a completed one its quality, PII counts, language and extracted fields.

use std::collections::HashMap;

use actix_web::{get, web, HttpResponse};
use docsieve_actors::store::entities::{execution, job};
use docsieve_actors::store::JobKind;
use serde_json::{json, Value};
use utoipa_actix_web::service_config::ServiceConfig;

use crate::api::common::{meta_of, page_request, rfc3339};
use crate::auth::Authenticated;
use crate::error::{ApiError, ErrorCode};
use crate::state::AppState;
use crate::validation::{Pagination, Query, Violations};

/// The `job_type` filter's choices: every kind of job.
pub const JOB_TYPES: [&str; 2] = [
    JobKind::DataProcess.as_str(),
    JobKind::DatasetBuild.as_str(),
];

pub fn job_view(job: &job::Model, execution: Option<&execution::Model>) -> Value {
    let mut view = json!({
        "job_id": job.id,
        "job_type": job.job_type,
        "status": job.status,
        "document_id": job.document_id,
        "dataset_id": job.dataset_id,
        "execution_id": job.execution_id,
        "attempts": job.attempts,
        "max_attempts": job.max_attempts,
        "created_at": rfc3339(job.created_at),
        "started_at": job.started_at.map(rfc3339),
        "finished_at": job.finished_at.map(rfc3339),
        "updated_at": rfc3339(job.updated_at),
        "masked": serde_json::from_str::<Value>(&job.payload).ok().and_then(|p| p.get("masked").cloned()),
    });
    match job.status.as_str() {
        "failed" => {
            view["error"] = json!({
                "code": job.error_code.clone().unwrap_or_else(|| "failed".to_string()),
                "message": job.error_message.clone().unwrap_or_default(),
            });
        }
        "queued" | "running" if job.error_code.is_some() => {
            // A previous attempt's problem, while the job waits for or runs its next attempt.
            view["last_error"] = json!({
                "code": job.error_code,
                "message": job.error_message,
            });
        }
        _ => {}
    }
    if let (Some(execution), "completed") = (execution, job.status.as_str()) {
        let meta = meta_of(execution);
        view["quality_grade"] = meta["quality"]["grade"].clone();
        view["quality"] = meta["quality"].clone();
        view["pii_count"] = meta["pii_count"].clone();
        view["pii_findings_count"] = meta["pii_findings_count"].clone();
        view["pii_type_summary"] = meta["pii_type_summary"].clone();
        view["detected_language"] = meta["detected_language"].clone();
        view["fields"] = meta["fields"].clone();
        view["duration_ms"] = execution.duration_ms.into();
    }
    view
}

async fn views(
    state: &AppState,
    tenant_id: i64,
    jobs: &[job::Model],
) -> Result<Vec<Value>, ApiError> {
    let ids = jobs.iter().filter_map(|j| j.execution_id).collect();
    let executions: HashMap<i64, execution::Model> = state
        .store
        .executions_by_ids(tenant_id, ids)
        .await?
        .into_iter()
        .map(|e| (e.id, e))
        .collect();
    Ok(jobs
        .iter()
        .map(|j| job_view(j, j.execution_id.and_then(|id| executions.get(&id))))
        .collect())
}

/// The tenant's jobs, newest first, optionally of one type.
#[utoipa::path(get, path = "/v1/jobs", tag = "processing",
    params(
        ("page" = Option<i64>, Query, description = "Page, from 1 (default 1)"),
        ("page_size" = Option<i64>, Query, description = "1 to 100 (default 20)"),
        ("job_type" = Option<String>, Query, description = "`data_process` or `dataset_build`")
    ),
    responses(
        (status = 200, description = "`{items: [job], page, page_size, total}`"),
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
#[utoipa::path(get, path = "/v1/jobs/stuck", tag = "processing",
    params(
        ("running_threshold_minutes" = Option<i64>, Query, description = "1 to 1440 (default 15)"),
        ("queued_threshold_minutes" = Option<i64>, Query, description = "1 to 1440 (default 30)")
    ),
    responses(
        (status = 200, description = "`{items: [job], total, running_threshold_minutes, queued_threshold_minutes}`"),
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
    Ok(HttpResponse::Ok().json(json!({"data": {
        "total": items.len(),
        "items": items,
        "running_threshold_minutes": running,
        "queued_threshold_minutes": queued,
    }})))
}

/// One job.
#[utoipa::path(get, path = "/v1/jobs/{job_id}", tag = "processing",
    params(("job_id" = String, Path, description = "Job id (string)")),
    responses(
        (status = 200, description = "job_id, job_type, status, attempts, timestamps; `error {code, message}` when failed; when completed quality_grade, quality, pii_count, pii_findings_count, detected_language, document_id, execution_id, fields"),
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
        .unwrap_or_default();
    Ok(HttpResponse::Ok().json(json!({"data": view})))
}

/// This resource's routes.
pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(list)
        // Before /v1/jobs/{job_id}, which would otherwise take "stuck" as an id.
        .service(stuck)
        .service(detail);
}
