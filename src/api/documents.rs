//! GET /v1/documents, /v1/documents/{document_id} and POST /v1/documents/{document_id}/reprocess.

use actix_web::{get, post, web, HttpResponse};
use docsieve_actors::blob::DataKey;
use docsieve_actors::store::{
    new_id, DocumentFilter, DocumentRecord, JobPayload, JobTarget, NewJob, ProcessPayload, Sealed,
    SealedField,
};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::accounts;
use crate::api::common::{page_request, rfc3339, tenant_key};
use crate::api::{queue, vocab, Envelope, Page};
use crate::auth::Authenticated;
use crate::error::{ApiError, ErrorCode, ErrorKind, ValidationDetail};
use crate::state::AppState;
use crate::validation::{path_id, Pagination, Query, Violations};

/// A document: an uploaded file or a storage connector's object, with its latest job and execution.
#[derive(Serialize, ToSchema)]
pub struct DocumentView {
    pub id: i64,
    /// The same as `id`.
    pub document_id: i64,
    pub filename: String,
    pub mime: String,
    /// The format it was read as (`pdf`, `docx`, `csv`, ...).
    pub format: String,
    /// Size in bytes.
    pub size: i64,
    pub sha256: String,
    #[schema(value_type = vocab::DocumentSource)]
    pub source: String,
    /// The connector it came from (connector documents).
    pub connector_id: Option<i64>,
    /// Its key in the connector's bucket (connector documents).
    pub source_key: Option<String>,
    /// The object's ETag when it was fetched (connector documents).
    pub source_etag: Option<String>,
    pub created_at: String,
    /// When the destruction run deleted the original (the tenant's originals retention ended): the
    /// record stays, reprocessing answers 410 `original_expired`.
    pub original_destroyed_at: Option<String>,
    pub latest_job: Option<DocumentJob>,
    pub latest_execution: Option<DocumentExecution>,
}

/// A document's latest job.
#[derive(Serialize, ToSchema)]
pub struct DocumentJob {
    pub job_id: String,
    #[schema(value_type = vocab::JobStatus)]
    pub status: String,
    pub created_at: String,
}

/// A document's latest execution.
#[derive(Serialize, ToSchema)]
pub struct DocumentExecution {
    pub execution_id: i64,
    #[schema(value_type = vocab::ExecutionStatus)]
    pub status: String,
    pub masked: bool,
    pub created_at: String,
}

fn document_view(record: &DocumentRecord, key: Option<&DataKey>) -> DocumentView {
    let document = &record.document;
    DocumentView {
        id: document.id,
        document_id: document.id,
        filename: Sealed::from_stored(document.sealed_filename.clone())
            .open_or_withheld(key, SealedField::DocumentName),
        mime: document.mime.clone(),
        format: document.format.clone(),
        size: document.size_bytes,
        sha256: document.sha256.clone(),
        source: document.source.clone(),
        connector_id: document.connector_id,
        source_key: document.sealed_source_key.clone().map(|stored| {
            Sealed::from_stored(stored).open_or_withheld(key, SealedField::SourceKey)
        }),
        source_etag: document.source_etag.clone(),
        created_at: rfc3339(document.created_at),
        original_destroyed_at: document.original_destroyed_at.map(rfc3339),
        latest_job: record.latest_job.as_ref().map(|job| DocumentJob {
            job_id: job.id.clone(),
            status: job.status.clone(),
            created_at: rfc3339(job.created_at),
        }),
        latest_execution: record
            .latest_execution
            .as_ref()
            .map(|execution| DocumentExecution {
                execution_id: execution.id,
                status: execution.status.clone(),
                masked: execution.masked,
                created_at: rfc3339(execution.created_at),
            }),
    }
}

/// The body of `POST /v1/documents/{document_id}/reprocess` (optional: no body, `{}`, or this).
#[derive(Deserialize, ToSchema)]
#[allow(dead_code)]
pub struct ReprocessRequest {
    /// Mask the new execution's result (default true).
    pub masked: Option<bool>,
}

/// A job queued for one document.
#[derive(Serialize, ToSchema)]
pub struct QueuedJob {
    pub job_id: String,
    #[schema(value_type = vocab::JobStatus)]
    pub status: &'static str,
    pub document_id: i64,
}

fn not_found(document_id: i64) -> ApiError {
    ApiError::not_found(
        ErrorCode::DocumentNotFound,
        format!("document {document_id} does not exist"),
    )
}

/// The tenant's documents, newest first; the filters narrow the list (all of them must hold).
#[utoipa::path(get, path = "/v1/documents", operation_id = "list_documents", tag = "processing",
    params(
        ("page" = Option<i64>, Query, description = "Page, from 1 (default 1)"),
        ("page_size" = Option<i64>, Query, description = "1 to 100 (default 20)"),
        ("filename" = Option<String>, Query, description = "Only documents whose name contains this text (any letter case; up to 200 characters)"),
        ("format" = Option<String>, Query, description = "Only documents read as this format (`pdf`, `docx`, `csv`...)"),
        ("source" = Option<vocab::DocumentSource>, Query, description = "Only uploaded documents, or only those read from a connector"),
        ("connector_id" = Option<i64>, Query, description = "Only documents read from this connector")
    ),
    responses(
        (status = 200, description = "One page of documents, newest first", body = Envelope<Page<DocumentView>>),
        (status = 401, body = crate::error::ErrorBody),
        (status = 422, body = crate::error::ValidationErrorBody)
    ),
    security(("api_key" = []), ("bearer" = [])))]
#[get("/v1/documents")]
pub async fn list(
    state: web::Data<AppState>,
    auth: Authenticated,
    query: Query,
) -> Result<HttpResponse, ApiError> {
    let mut violations = Violations::default();
    let pagination = Pagination::read(&query, &mut violations);
    let source = query.choice("source", "", vocab::DocumentSource::VALUES, &mut violations);
    let filter = DocumentFilter {
        filename: query.text("filename", 200, &mut violations),
        format: query.text("format", 16, &mut violations),
        source: (!source.is_empty()).then(|| source.to_string()),
        connector_id: query.optional_int("connector_id", 1, i64::MAX, &mut violations),
    };
    violations.finish()?;
    let key = tenant_key(&state, auth.tenant_id).await?;
    let (records, total) = state
        .store
        .documents_page(
            auth.tenant_id,
            &filter,
            page_request(pagination),
            key.as_deref(),
        )
        .await?;
    Ok(crate::api::page_response(
        records
            .iter()
            .map(|record| document_view(record, key.as_deref()))
            .collect::<Vec<_>>(),
        pagination,
        total,
    ))
}

/// One document with its latest job and execution.
#[utoipa::path(get, path = "/v1/documents/{document_id}", operation_id = "get_document", tag = "processing",
    params(("document_id" = i64, Path, description = "Document id")),
    responses(
        (status = 200, description = "The document", body = Envelope<DocumentView>),
        (status = 401, body = crate::error::ErrorBody),
        (status = 404, body = crate::error::ErrorBody),
        (status = 422, body = crate::error::ValidationErrorBody)
    ),
    security(("api_key" = []), ("bearer" = [])))]
#[get("/v1/documents/{document_id}")]
pub async fn detail(
    state: web::Data<AppState>,
    auth: Authenticated,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let document_id = path_id(&path, "document_id")?;
    let record = state
        .store
        .document(auth.tenant_id, document_id)
        .await?
        .ok_or_else(|| not_found(document_id))?;
    let key = tenant_key(&state, auth.tenant_id).await?;
    Ok(HttpResponse::Ok().json(Envelope {
        data: document_view(&record, key.as_deref()),
    }))
}

/// `masked` from the optional reprocess body (`{}` or empty: the default, true).
fn reprocess_masked(body: &[u8]) -> Result<bool, ApiError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(true);
    }
    let invalid = |message: String, kind: &str| {
        ApiError::validation(vec![ValidationDetail::new("body", "masked", message, kind)])
    };
    let value: Value = serde_json::from_slice(body)
        .map_err(|e| invalid(format!("the body is not valid JSON: {e}"), "json_invalid"))?;
    let Some(object) = value.as_object() else {
        return Err(invalid(
            "the body must be a JSON object".to_string(),
            "model_type",
        ));
    };
    match object.get("masked") {
        None | Some(Value::Null) => Ok(true),
        Some(Value::Bool(masked)) => Ok(*masked),
        Some(_) => Err(invalid("masked must be a boolean".to_string(), "bool_type")),
    }
}

/// Queues the stored original again (optionally with a different `masked`). Documents that came
/// from a storage connector are not stored locally: 400 `reprocess_not_local`.
#[utoipa::path(post, path = "/v1/documents/{document_id}/reprocess", operation_id = "reprocess_document", tag = "processing",
    params(("document_id" = i64, Path, description = "Document id")),
    request_body(content = ReprocessRequest, content_type = "application/json", description = "Optional: `{}` or `{\"masked\": false}` (default masked true)"),
    responses(
        (status = 202, description = "The job that reads the document again", body = Envelope<QueuedJob>),
        (status = 400, description = "reprocess_not_local", body = crate::error::ErrorBody),
        (status = 401, body = crate::error::ErrorBody),
        (status = 404, body = crate::error::ErrorBody),
        (status = 410, description = "original_expired: the original was destroyed when its retention ended", body = crate::error::ErrorBody),
        (status = 422, body = crate::error::ValidationErrorBody),
        (status = 402, description = "Too few credits left: one is reserved per document (`insufficient_credits`, with `balance` and `required`)", body = crate::error::InsufficientCreditsBody),
        (status = 429, body = crate::error::ErrorBody)
    ),
    security(("api_key" = []), ("bearer" = [])))]
#[post("/v1/documents/{document_id}/reprocess")]
pub async fn reprocess(
    state: web::Data<AppState>,
    auth: Authenticated,
    path: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let document_id = path_id(&path, "document_id")?;
    let masked = reprocess_masked(&body)?;
    let record = state
        .store
        .document(auth.tenant_id, document_id)
        .await?
        .ok_or_else(|| not_found(document_id))?;
    if let Some(destroyed) = record.document.original_destroyed_at {
        return Err(ApiError::new(
            ErrorKind::Gone,
            ErrorCode::OriginalExpired,
            format!(
                "the original of document {document_id} was destroyed on {} when its retention ended; upload it again to process it",
                rfc3339(destroyed)
            ),
        ));
    }
    if record.document.source != "upload" {
        return Err(ApiError::new(
            ErrorKind::BadRequest,
            ErrorCode::ReprocessNotLocal,
            "this document came from a storage connector and is not stored locally; trigger the connector's schedule to fetch it again",
        ));
    }
    let job_id = new_id("job");
    queue::enqueue(
        &state,
        auth.tenant_id,
        vec![NewJob {
            id: job_id.clone(),
            target: JobTarget::Document(document_id),
            payload: JobPayload::DataProcess(ProcessPayload {
                masked,
                reprocess: true,
                requested_by: queue::requested_by(&auth),
            }),
            max_attempts: state.settings.jobs.max_attempts as i32,
        }],
        queue::Limit::Applies,
    )
    .await?;
    accounts::audit(
        &state,
        auth.audit(
            "reprocess",
            Some(("document", document_id.to_string())),
            json!({"job_id": job_id, "masked": masked}),
        ),
    )
    .await;
    Ok(HttpResponse::Accepted().json(Envelope {
        data: QueuedJob {
            job_id,
            status: "queued",
            document_id,
        },
    }))
}

/// This resource's routes.
pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(list).service(detail).service(reprocess);
}
