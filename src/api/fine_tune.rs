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
    /// `training_file_failed`, `provider_rejected`, `provider_unavailable`, `provider_job_failed` or
    /// `storage_error` (the record codes of a fine-tune job).
    #[schema(value_type = docsieve_actors::error_code::RecordCode)]
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
    #[schema(value_type = crate::api::vocab::FineTuneStatus)]
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
    #[schema(value_type = crate::api::vocab::FineTuneStatus)]
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
    /// How a dataset row without `messages` becomes a chat example, for this job: any of the three
    /// (the configured ones fill the rest). Without it, the configured templates, and for a plain
    /// document (no extracted fields) the configured plain-document templates.
    pub templates: Option<FineTuneTemplates>,
}

/// A job's own message templates: `{column}` stands for the row's column (`text`, `filename`,
/// `format`, `language`, `quality_grade`, `fields` and `tables` as JSON); each up to 4,000 characters.
#[derive(serde::Deserialize, utoipa::ToSchema)]
#[allow(dead_code)]
pub struct FineTuneTemplates {
    /// The system message; empty: none.
    pub system: Option<String>,
    pub user: Option<String>,
    pub assistant: Option<String>,
}

/// `templates` of the body as the job stores them (JSON), or the problems found.
fn templates_field(body: &Value, details: &mut Vec<ValidationDetail>) -> Option<String> {
    let given = match body.get("templates") {
        None | Some(Value::Null) => return None,
        Some(Value::Object(given)) => given,
        Some(_) => {
            details.push(ValidationDetail::new(
                "body",
                "templates",
                "templates must be an object with any of system, user, assistant",
                "dict_type",
            ));
            return None;
        }
    };
    let before = details.len();
    for (key, value) in given {
        let location = format!("templates.{key}");
        match (key.as_str(), value) {
            ("system" | "user" | "assistant", Value::String(text))
                if text.chars().count() > 4000 =>
            {
                details.push(ValidationDetail::new(
                    "body",
                    &location,
                    "at most 4,000 characters",
                    "string_too_long",
                ));
            }
            ("user" | "assistant", Value::String(text)) if text.trim().is_empty() => {
                details.push(ValidationDetail::new(
                    "body",
                    &location,
                    "must not be empty",
                    "string_too_short",
                ));
            }
            ("system" | "user" | "assistant", Value::String(_)) => {}
            ("system" | "user" | "assistant", _) => {
                details.push(ValidationDetail::new(
                    "body",
                    &location,
                    "must be a string",
                    "string_type",
                ));
            }
            _ => details.push(ValidationDetail::new(
                "body",
                &location,
                "not a template (system, user, assistant)",
                "extra_forbidden",
            )),
        }
    }
    (details.len() == before).then(|| Value::Object(given.clone()).to_string())
}

/// Whether the dataset's rows make at least one training example under `template`, read from the
/// start of its rows file and stopped at the first that does (a 422 now, not a job that fails
/// later): `Err` names why not.
async fn check_rows(
    state: &AppState,
    dataset: &docsieve_actors::store::DatasetRecord,
    template: &docsieve_actors::fine_tuner::Template,
) -> Result<(), ApiError> {
    use docsieve_actors::fine_tuner::{row_use, RowUse};
    use futures_util::StreamExt;
    let schema: Value = dataset
        .schema_json
        .as_deref()
        .and_then(|s| serde_json::from_str(s).ok())
        .unwrap_or_default();
    // A dataset without a rows file fails in the job, as before (`dataset_unavailable`).
    let Some(key) = schema["rows_blob_key"].as_str() else {
        return Ok(());
    };
    let mut stream = state.blobs.stream(key).await?;
    let mut pending: Vec<u8> = Vec::new();
    let verdict = |line: &[u8]| -> Option<RowUse> {
        let row: Value = serde_json::from_slice(line).ok()?;
        match row_use(&row, template) {
            RowUse::Nothing => None,
            decided => Some(decided),
        }
    };
    let mut decided = None;
    'read: while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|error| ApiError::internal(&error))?;
        pending.extend_from_slice(&chunk);
        while let Some(end) = pending.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = pending.drain(..=end).collect();
            decided = verdict(&line);
            if decided.is_some() {
                break 'read;
            }
        }
    }
    if decided.is_none() && !pending.is_empty() {
        decided = verdict(&pending);
    }
    let problem = |message: String, kind: &str| {
        ApiError::validation(vec![ValidationDetail::new(
            "body",
            "dataset_id",
            message,
            kind,
        )])
    };
    match decided {
        Some(RowUse::Example) => Ok(()),
        Some(RowUse::Unmasked) => Err(problem(
            docsieve_actors::fine_tuner::TrainingError::Unmasked { rows: 1 }.to_string(),
            "value_error.dataset_not_masked",
        )),
        _ => Err(problem(
            docsieve_actors::fine_tuner::TrainingError::Empty.to_string(),
            "value_error.empty_training_file",
        )),
    }
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
        (status = 422, description = "A bad body, or a dataset that would give no training example (`type` `value_error.empty_training_file`: no row makes a chat example under the templates; `value_error.dataset_not_masked`: rows of unmasked executions), named on `dataset_id`", body = crate::error::ValidationErrorBody),
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
    let templates = templates_field(&body, &mut details);
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
    let template =
        docsieve_actors::fine_tuner::templates(&state.settings.fine_tune, templates.as_deref())
            .map_err(|message| {
                ApiError::validation(vec![ValidationDetail::new(
                    "body",
                    "templates",
                    message,
                    "value_error",
                )])
            })?;
    check_rows(&state, &dataset, &template).await?;
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
                templates,
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
    super::queue::wake(&state, docsieve_actors::cache::FINE_TUNE_WAKE).await;
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
