//! /v1/fine-tune: fine-tune a model of the configured OpenAI-compatible provider on a ready dataset
//! (pro and enterprise plans). The fine_tuner actor does the work; these routes create, list and
//! show the jobs.

use actix_web::{get, post, web, HttpResponse};
use docsieve_actors::store::{new_id, FineTuneRecord, NewFineTune};
use serde::Serialize;
use serde_json::{json, Value};
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use super::common::{page_request, rfc3339};
use super::{envelope, Envelope};
use crate::accounts;
use crate::auth::Authenticated;
use crate::error::{ApiError, ErrorCode, ErrorKind, ValidationDetail};
use crate::state::AppState;
use crate::validation::{Pagination, Query};

/// A job's error.
#[derive(Serialize, ToSchema)]
pub struct FineTuneError {
    /// `dataset_not_masked`, `training_data_refused`, `empty_training_file`, `dataset_unavailable`,
    /// `training_file_failed`, `provider_rejected`, `provider_unavailable` or `provider_job_failed`.
    pub code: String,
    pub message: String,
}

/// A fine-tune job.
#[derive(Serialize, ToSchema)]
pub struct FineTuneView {
    pub job_id: String,
    pub dataset_id: String,
    pub model: String,
    pub suffix: Option<String>,
    /// `queued` (accepted), `uploading` (training file being built and sent), `validating` (the
    /// provider checks the file or waits to start), `running`, then `succeeded`, `failed` or
    /// `cancelled`.
    pub status: String,
    /// The provider's job id, once created.
    pub provider_job_id: Option<String>,
    /// The provider's id of the uploaded training file.
    pub training_file_id: Option<String>,
    /// Examples in the training file.
    pub training_rows: i64,
    /// The resulting model, once succeeded.
    pub fine_tuned_model: Option<String>,
    pub error: Option<FineTuneError>,
    pub created_at: String,
    pub updated_at: String,
    pub finished_at: Option<String>,
}

impl From<FineTuneRecord> for FineTuneView {
    fn from(job: FineTuneRecord) -> FineTuneView {
        let error = match (job.error_code, job.error_message) {
            (Some(code), message) => Some(FineTuneError {
                code,
                message: message.unwrap_or_default(),
            }),
            _ => None,
        };
        FineTuneView {
            job_id: job.id,
            dataset_id: job.dataset_id,
            model: job.model,
            suffix: job.suffix,
            status: job.status,
            provider_job_id: job.provider_job_id,
            training_file_id: job.training_file_id,
            training_rows: job.training_rows,
            fine_tuned_model: job.fine_tuned_model,
            error,
            created_at: rfc3339(job.created_at),
            updated_at: rfc3339(job.updated_at),
            finished_at: job.finished_at.map(rfc3339),
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct FineTuneCreated {
    pub job_id: String,
    /// `queued`.
    pub status: String,
}

/// A body string: required and 1..=max characters, or optional.
fn text_field(
    body: &Value,
    name: &str,
    max: usize,
    required: bool,
    details: &mut Vec<ValidationDetail>,
) -> Option<String> {
    match body.get(name) {
        None | Some(Value::Null) if !required => None,
        Some(Value::String(text)) if !text.trim().is_empty() && text.chars().count() <= max => {
            Some(text.trim().to_string())
        }
        _ => {
            details.push(ValidationDetail::new(
                "body",
                name,
                format!(
                    "{name} must be a string of 1 to {max} characters{}",
                    if required { "" } else { " when given" }
                ),
                "string_type",
            ));
            None
        }
    }
}

/// The body of `POST /v1/fine-tune`.
#[derive(serde::Deserialize, utoipa::ToSchema)]
#[allow(dead_code)]
pub struct CreateFineTuneRequest {
    /// A ready dataset of this account.
    pub dataset_id: String,
    /// The provider's base model id.
    pub model: String,
    /// Up to 64 characters, labelling the resulting model.
    pub suffix: Option<String>,
}

/// Starts fine-tuning `model` on a ready dataset. The dataset's rows become the provider's chat
/// JSONL (rows with `messages` as they are, others through `fine_tune.*_template`), the whole file
/// is re-scanned for personal data (a finding fails the job: nothing unmasked leaves), uploaded, and
/// the provider's job is followed until it ends.
#[utoipa::path(post, path = "/v1/fine-tune", operation_id = "create_fine_tune_job", tag = "fine-tune",
    request_body(content = CreateFineTuneRequest, content_type = "application/json", description = "`{dataset_id, model, suffix?}`: `model` is the provider's base model id; `suffix` (up to 64 characters) labels the resulting model"),
    responses(
        (status = 202, body = Envelope<FineTuneCreated>),
        (status = 401, body = crate::error::ErrorBody),
        (status = 403, description = "The plan in force is below pro (`plan_required`)", body = crate::error::ErrorBody),
        (status = 404, description = "Unknown dataset (`dataset_not_found`)", body = crate::error::ErrorBody),
        (status = 409, description = "The dataset is not ready (`dataset_not_ready`)", body = crate::error::ErrorBody),
        (status = 422, body = crate::error::ValidationErrorBody),
        (status = 503, description = "Fine-tuning is off (`fine_tune_unavailable`)", body = crate::error::ErrorBody)
    ),
    security(("api_key" = []), ("bearer" = [])))]
#[post("/v1/fine-tune")]
pub async fn create(
    state: web::Data<AppState>,
    auth: Authenticated,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let body: Value = crate::validation::json_body(&body)?;
    let mut details = Vec::new();
    let dataset_id = text_field(&body, "dataset_id", 64, true, &mut details);
    let model = text_field(&body, "model", 200, true, &mut details);
    let suffix = text_field(&body, "suffix", 64, false, &mut details);
    let (Some(dataset_id), Some(model)) = (dataset_id, model) else {
        return Err(ApiError::validation(details));
    };
    if !details.is_empty() {
        return Err(ApiError::validation(details));
    }
    if !state.settings.fine_tune.enabled() {
        return Err(ApiError::new(
            ErrorKind::Unavailable,
            ErrorCode::FineTuneUnavailable,
            "fine-tuning is not configured on this server (fine_tune.provider_url)",
        ));
    }
    let plan = state.store.plan_in_force(auth.tenant_id).await?;
    if !state.settings.plans.get(plan).fine_tune {
        return Err(ApiError::new(
            ErrorKind::Forbidden,
            ErrorCode::PlanRequired,
            format!("fine-tuning is not part of the {plan} plan; it needs pro or enterprise"),
        ));
    }
    let dataset = state
        .store
        .dataset(auth.tenant_id, &dataset_id)
        .await?
        .ok_or_else(|| {
            ApiError::not_found(
                ErrorCode::DatasetNotFound,
                format!("dataset {dataset_id} does not exist"),
            )
        })?;
    if dataset.status != "ready" {
        return Err(ApiError::new(
            ErrorKind::Conflict,
            ErrorCode::DatasetNotReady,
            format!(
                "dataset {dataset_id} is {}; fine-tuning needs a ready dataset",
                dataset.status
            ),
        ));
    }
    let job = state
        .store
        .create_fine_tune_job(
            auth.tenant_id,
            NewFineTune {
                id: new_id("ft"),
                dataset_id: dataset_id.clone(),
                model: model.clone(),
                suffix,
                requested_by: super::queue::requested_by(&auth),
            },
            state.clock.now(),
        )
        .await?;
    metrics::counter!(docsieve_actors::metric_names::FINE_TUNE_JOBS_TOTAL, "status" => "queued")
        .increment(1);
    accounts::audit(
        &state,
        auth.audit(
            "fine_tune_create",
            Some(("fine_tune_job", job.id.clone())),
            json!({"dataset_id": dataset_id, "model": model}),
        ),
    )
    .await;
    super::queue::wake(&state, docsieve_actors::fine_tuner::WAKE_CHANNEL).await;
    Ok(HttpResponse::Accepted().json(Envelope {
        data: FineTuneCreated {
            job_id: job.id,
            status: job.status,
        },
    }))
}

/// The caller's fine-tune jobs, newest first.
#[utoipa::path(get, path = "/v1/fine-tune", operation_id = "list_fine_tune_jobs", tag = "fine-tune",
    params(
        ("page" = Option<u64>, Query, description = "From 1 (default 1)"),
        ("page_size" = Option<u64>, Query, description = "1 to 100 (default 20)")
    ),
    responses(
        (status = 200, description = "A page of fine-tune jobs (`items`, `page`, `page_size`, `total`)", body = Envelope<super::Page<FineTuneView>>),
        (status = 401, body = crate::error::ErrorBody),
        (status = 422, body = crate::error::ValidationErrorBody)
    ),
    security(("api_key" = []), ("bearer" = [])))]
#[get("/v1/fine-tune")]
pub async fn list(
    state: web::Data<AppState>,
    auth: Authenticated,
    query: Query,
) -> Result<HttpResponse, ApiError> {
    let pagination = Pagination::only(&query)?;
    let (jobs, total) = state
        .store
        .fine_tune_jobs_page(auth.tenant_id, page_request(pagination))
        .await?;
    let items: Vec<FineTuneView> = jobs.into_iter().map(FineTuneView::from).collect();
    Ok(super::page_response(items, pagination, total))
}

/// One fine-tune job: status, provider job id, resulting model, error, times.
#[utoipa::path(get, path = "/v1/fine-tune/{job_id}", operation_id = "get_fine_tune_job", tag = "fine-tune",
    params(("job_id" = String, Path, description = "Fine-tune job id")),
    responses(
        (status = 200, body = Envelope<FineTuneView>),
        (status = 401, body = crate::error::ErrorBody),
        (status = 404, description = "`fine_tune_job_not_found`", body = crate::error::ErrorBody)
    ),
    security(("api_key" = []), ("bearer" = [])))]
#[get("/v1/fine-tune/{job_id}")]
pub async fn detail(
    state: web::Data<AppState>,
    auth: Authenticated,
    job_id: web::Path<String>,
) -> Result<web::Json<Envelope<FineTuneView>>, ApiError> {
    let job = state
        .store
        .fine_tune_job(auth.tenant_id, &job_id)
        .await?
        .ok_or_else(|| {
            ApiError::not_found(
                ErrorCode::FineTuneJobNotFound,
                format!("fine-tune job {job_id} does not exist"),
            )
        })?;
    Ok(envelope(FineTuneView::from(job)))
}

/// This resource's routes.
pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(create).service(list).service(detail);
}
