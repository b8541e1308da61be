//! GET /v1/executions and /v1/executions/{execution_id}: the tenant's processing runs, with their
//! `result_meta`; the detail adds the result document (masked when the run was masked).

use actix_web::{get, web, HttpResponse};
use docsieve_actors::store::{ExecutionFilter, ExecutionRecord};
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::api::common::{meta_of, page_request, rfc3339, tenant_key};
use crate::api::{vocab, Envelope, Page};
use crate::auth::Authenticated;
use crate::error::{ApiError, ErrorCode, ErrorKind};
use crate::state::AppState;
use crate::validation::{path_id, Pagination, Query, Violations};
use docsieve_actors::blob::DataKey;

/// One processing run of a document.
#[derive(Serialize, ToSchema)]
pub struct ExecutionView {
    pub execution_id: i64,
    /// The same as `execution_id`.
    pub id: i64,
    pub document_id: i64,
    pub job_id: Option<String>,
    #[schema(value_type = vocab::ExecutionStatus)]
    pub status: String,
    /// Whether the stored result was masked.
    pub masked: bool,
    pub started_at: String,
    pub finished_at: Option<String>,
    pub duration_ms: Option<i64>,
    pub created_at: String,
    /// When the destruction run deleted the stored result (the tenant's results retention ended):
    /// the record stays, `result` is null from then on.
    pub result_destroyed_at: Option<String>,
    /// Set when the LLM cross-validation disagreed with the deterministic fields.
    pub cross_validation_flag: bool,
    /// `A` to `F`.
    #[schema(value_type = Option<String>)]
    pub quality_grade: Value,
    #[schema(value_type = Option<u64>)]
    pub pii_count: Value,
    /// ISO 639-1 code, or `und`.
    #[schema(value_type = Option<String>)]
    pub detected_language: Value,
    /// What the run recorded: masked, filename, format, mime, pages, bytes, pii_type_summary
    /// (type -> count), pii_count, pii_findings_count, detected_language, language, quality,
    /// fields, engine versions, attempt, worker, and `masked_filename` for a masked run (its file name
    /// masked by the same engine and policy). `filename`, `masked_filename` and `fields` come from the
    /// document and are kept sealed under the tenant's data key: they are absent once the result is
    /// destroyed (`result_destroyed_at`).
    #[schema(value_type = Object)]
    pub result_meta: Value,
}

/// An execution with its result.
#[derive(Serialize, ToSchema)]
pub struct ExecutionDetail {
    #[serde(flatten)]
    pub execution: ExecutionView,
    /// The result: `{document, pii: {findings, pii_type_summary, pii_count}}`, masked when the run
    /// was; null when it is no longer stored.
    #[schema(value_type = Option<Object>)]
    pub result: Value,
}

pub fn execution_view(execution: &ExecutionRecord, key: Option<&DataKey>) -> ExecutionView {
    let meta = meta_of(execution, key);
    ExecutionView {
        execution_id: execution.id,
        id: execution.id,
        document_id: execution.document_id,
        job_id: execution.job_id.clone(),
        status: execution.status.clone(),
        masked: execution.masked,
        started_at: rfc3339(execution.started_at),
        finished_at: execution.finished_at.map(rfc3339),
        duration_ms: execution.duration_ms,
        created_at: rfc3339(execution.created_at),
        result_destroyed_at: execution.result_destroyed_at.map(rfc3339),
        cross_validation_flag: execution.cross_validation_flag,
        quality_grade: meta["quality"]["grade"].clone(),
        pii_count: meta["pii_count"].clone(),
        detected_language: meta["detected_language"].clone(),
        result_meta: meta,
    }
}

/// The tenant's executions, newest first; the filters narrow the list (all of them must hold).
#[utoipa::path(get, path = "/v1/executions", operation_id = "list_executions", tag = "processing",
    params(
        ("page" = Option<i64>, Query, description = "Page, from 1 (default 1)"),
        ("page_size" = Option<i64>, Query, description = "1 to 100 (default 20)"),
        ("status" = Option<vocab::ExecutionStatus>, Query, description = "Only executions that ended so"),
        ("masked" = Option<bool>, Query, description = "Only masked results (true) or only unmasked ones (false)"),
        ("document_id" = Option<i64>, Query, description = "Only the executions of this document")
    ),
    responses(
        (status = 200, description = "One page of executions, newest first", body = Envelope<Page<ExecutionView>>),
        (status = 401, body = crate::error::ErrorBody),
        (status = 422, body = crate::error::ValidationErrorBody)
    ),
    security(("api_key" = []), ("bearer" = [])))]
#[get("/v1/executions")]
pub async fn list(
    state: web::Data<AppState>,
    auth: Authenticated,
    query: Query,
) -> Result<HttpResponse, ApiError> {
    let mut violations = Violations::default();
    let pagination = Pagination::read(&query, &mut violations);
    let status = query.choice(
        "status",
        "",
        vocab::ExecutionStatus::VALUES,
        &mut violations,
    );
    let filter = ExecutionFilter {
        status: (!status.is_empty()).then(|| status.to_string()),
        masked: query.optional_boolean("masked", &mut violations),
        document_id: query.optional_int("document_id", 1, i64::MAX, &mut violations),
    };
    violations.finish()?;
    let (items, total) = state
        .store
        .executions_page(auth.tenant_id, &filter, page_request(pagination))
        .await?;
    let key = tenant_key(&state, auth.tenant_id).await?;
    Ok(crate::api::page_response(
        items
            .iter()
            .map(|execution| execution_view(execution, key.as_deref()))
            .collect::<Vec<_>>(),
        pagination,
        total,
    ))
}

/// One execution with its result document (`result`: `{document, pii}`).
#[utoipa::path(get, path = "/v1/executions/{execution_id}", operation_id = "get_execution", tag = "processing",
    params(("execution_id" = i64, Path, description = "Execution id")),
    responses(
        (status = 200, description = "The execution with its result", body = Envelope<ExecutionDetail>),
        (status = 401, body = crate::error::ErrorBody),
        (status = 404, body = crate::error::ErrorBody),
        (status = 422, body = crate::error::ValidationErrorBody)
    ),
    security(("api_key" = []), ("bearer" = [])))]
#[get("/v1/executions/{execution_id}")]
pub async fn detail(
    state: web::Data<AppState>,
    auth: Authenticated,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let (_, execution) = execution_at(&state, &auth, &path).await?;
    let key = tenant_key(&state, auth.tenant_id).await?;
    let view = execution_view(&execution, key.as_deref());
    let result = match &execution.result_blob_key {
        Some(key) => match state.blobs.get(key).await {
            Ok(bytes) => serde_json::from_slice::<Value>(&bytes).unwrap_or(Value::Null),
            Err(docsieve_actors::blob::BlobError::NotFound(_)) => Value::Null,
            Err(error) => return Err(error.into()),
        },
        None => Value::Null,
    };
    Ok(HttpResponse::Ok().json(Envelope {
        data: ExecutionDetail {
            execution: view,
            result,
        },
    }))
}

/// A completed masked execution's document given back in its own format, masked by the tenant's
/// privacy policy as it is now (made from the stored original, sealed under its retention).
#[utoipa::path(get, path = "/v1/executions/{execution_id}/file", operation_id = "get_execution_file", tag = "processing",
    params(("execution_id" = i64, Path, description = "Execution id")),
    responses(
        (status = 200, content_type = "application/octet-stream", description = "The execution's document in its own format, masked, as `POST /v1/data-process/redact` answers it (the same headers; docs/redaction.md). Made from the stored original by the tenant's policy as it is now (`X-Docsieve-Policy-Version`); costs no credit"),
        (status = 401, body = crate::error::ErrorBody),
        (status = 404, body = crate::error::ErrorBody),
        (status = 409, description = "`execution_not_masked` (the run was not masked) or `execution_not_completed`", body = crate::error::ErrorBody),
        (status = 410, description = "`original_expired`: the original was destroyed when its retention ended", body = crate::error::ErrorBody),
        (status = 413, body = crate::error::ErrorBody),
        (status = 415, description = "`redaction_unsupported`: a format without a writer, or a part that cannot be read", body = crate::error::ErrorBody),
        (status = 422, body = crate::error::ValidationErrorBody),
        (status = 503, body = crate::error::ErrorBody)
    ),
    security(("api_key" = []), ("bearer" = [])))]
#[get("/v1/executions/{execution_id}/file")]
pub async fn file(
    state: web::Data<AppState>,
    auth: Authenticated,
    request: actix_web::HttpRequest,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let (execution_id, execution) = execution_at(&state, &auth, &path).await?;
    let conflict = |code, message: String| ApiError::new(ErrorKind::Conflict, code, message);
    if execution.status != "completed" {
        return Err(conflict(
            ErrorCode::ExecutionNotCompleted,
            format!("execution {execution_id} did not complete: it has no masked file"),
        ));
    }
    if !execution.masked {
        return Err(conflict(
            ErrorCode::ExecutionNotMasked,
            format!("execution {execution_id} was not masked: process the document with masked=true for a masked file"),
        ));
    }
    let gone = || {
        ApiError::new(
            ErrorKind::Gone,
            ErrorCode::OriginalExpired,
            format!("the original of execution {execution_id}'s document is no longer stored (its retention ended); upload it again"),
        )
    };
    let record = state
        .store
        .document(auth.tenant_id, execution.document_id)
        .await?
        .ok_or_else(gone)?;
    if record.document.original_destroyed_at.is_some() {
        return Err(gone());
    }
    let bytes = match state.blobs.get(&record.document.blob_key).await {
        Ok(bytes) => bytes.to_vec(),
        Err(docsieve_actors::blob::BlobError::NotFound(_)) => return Err(gone()),
        Err(error) => return Err(error.into()),
    };
    let key = tenant_key(&state, auth.tenant_id).await?;
    let filename =
        docsieve_actors::store::Sealed::from_stored(record.document.sealed_filename.clone())
            .open(
                key.as_deref(),
                docsieve_actors::store::SealedField::DocumentName,
            )
            .unwrap_or_else(|_| "document".to_string());
    let masked_name = meta_of(&execution, key.as_deref())["masked_filename"]
        .as_str()
        .map(str::to_string);
    let limits = state
        .settings
        .extraction
        .preview_limits(state.settings.actors.call_timeout_ms);
    let narrowing = docsieve_actors::privacy::Narrowing::default();
    let redaction = crate::api::redaction::Redaction {
        filename: &filename,
        masked_name,
        narrowing: &narrowing,
        credit: None,
        audit: (
            "execution_file",
            Some(("execution", execution_id.to_string())),
        ),
    };
    crate::api::redaction::redacted_answer(&state, &auth, &request, bytes, limits, redaction).await
}

/// The execution the path names, of the caller's tenant; 404 when there is none.
async fn execution_at(
    state: &AppState,
    auth: &Authenticated,
    path: &str,
) -> Result<(i64, ExecutionRecord), ApiError> {
    let execution_id = path_id(path, "execution_id")?;
    let execution = state
        .store
        .execution(auth.tenant_id, execution_id)
        .await?
        .ok_or_else(|| not_found(execution_id))?;
    Ok((execution_id, execution))
}

/// 404 `execution_not_found`.
pub(crate) fn not_found(execution_id: i64) -> ApiError {
    ApiError::not_found(
        ErrorCode::ExecutionNotFound,
        format!("execution {execution_id} does not exist"),
    )
}

/// This resource's routes.
pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(list).service(detail).service(file);
}
