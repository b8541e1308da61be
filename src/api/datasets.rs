//! /v1/datasets: build a dataset from executions (a `dataset_build` job), list, inspect, delete, and
//! download it in seven formats. Export files are written once per format and served from blob
//! storage until the retention cleanup removes them; the next request writes them again.

use actix_web::{delete, get, post, web, HttpResponse};
use docsieve_actors::dataset_exporter::{ExportFormat, FORMAT_NAMES};
use docsieve_actors::store::DatasetRecord;
use docsieve_actors::store::{new_id, BuildPayload, JobPayload, JobTarget, NewJob};
use futures_util::StreamExt;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::accounts;
use crate::api::common::{page_request, rfc3339};
use crate::api::{queue, vocab, Envelope, Page};
use crate::auth::Authenticated;
use crate::error::{ApiError, ErrorCode, ErrorKind, ValidationDetail};
use crate::state::AppState;
use crate::validation::{Pagination, Query};

fn not_found(dataset_id: &str) -> ApiError {
    ApiError::not_found(
        ErrorCode::DatasetNotFound,
        format!("dataset {dataset_id} does not exist"),
    )
}

/// A dataset built from executions.
#[derive(Serialize, ToSchema)]
pub struct DatasetView {
    pub id: String,
    /// The same as `id`.
    pub dataset_id: String,
    pub name: String,
    #[schema(value_type = vocab::DatasetStatus)]
    pub status: String,
    /// The `dataset_build` job that builds it.
    pub job_id: Option<String>,
    /// 1 when created; one more each time a data-subject erasure built it again without the erased
    /// rows (`POST /v1/subjects/erase`).
    pub version: i64,
    pub row_count: i64,
    pub execution_count: usize,
    /// The columns of its rows: `[{name, type, description}]`.
    #[schema(value_type = Vec<Object>)]
    pub schema: Value,
    pub created_at: String,
    pub finished_at: Option<String>,
    /// Why the build failed (status `failed`).
    pub error: Option<String>,
    /// The executions it was built from (one dataset's detail only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub execution_ids: Option<Vec<i64>>,
    /// The formats exported so far (one dataset's detail only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exports: Option<Vec<DatasetExport>>,
    /// Every format it can be exported in (one dataset's detail only).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Vec<vocab::ExportFormat>>)]
    pub formats: Option<Vec<&'static str>>,
}

/// An export file kept in storage until `expires_at` (written again on the next request after).
#[derive(Serialize, ToSchema)]
pub struct DatasetExport {
    #[schema(value_type = vocab::ExportFormat)]
    pub format: String,
    pub size_bytes: i64,
    pub created_at: String,
    pub expires_at: String,
}

/// The body of `POST /v1/datasets`.
#[derive(Deserialize, ToSchema)]
#[allow(dead_code)]
pub struct CreateDatasetRequest {
    /// 1 to 200 characters.
    pub name: String,
    /// Completed executions of this account (integers or numeric strings), at most
    /// `datasets.max_executions`.
    #[schema(value_type = Vec<i64>)]
    pub execution_ids: Vec<Value>,
    /// Executions processed under different versions of the tenant's privacy policy are refused
    /// (their rows would be masked in different ways, and keyed pseudonyms would not match) unless this
    /// is true. Each row carries its `policy_version`. Default false.
    #[serde(default)]
    pub allow_mixed_policies: bool,
}

/// A dataset whose build was queued.
#[derive(Serialize, ToSchema)]
pub struct QueuedDataset {
    pub id: String,
    pub job_id: String,
    #[schema(value_type = vocab::DatasetStatus)]
    pub status: &'static str,
}

async fn dataset_view(
    state: &AppState,
    dataset: &DatasetRecord,
    with_exports: bool,
) -> Result<DatasetView, ApiError> {
    let schema: Value = dataset
        .schema_json
        .as_deref()
        .and_then(|s| serde_json::from_str(s).ok())
        .unwrap_or_default();
    let execution_ids: Vec<i64> = serde_json::from_str(&dataset.execution_ids).unwrap_or_default();
    let mut view = DatasetView {
        id: dataset.id.clone(),
        dataset_id: dataset.id.clone(),
        name: dataset.name.clone(),
        status: dataset.status.clone(),
        job_id: dataset.job_id.clone(),
        version: dataset.version,
        row_count: dataset.row_count,
        execution_count: execution_ids.len(),
        schema: if schema["columns"].is_array() {
            schema["columns"].clone()
        } else {
            docsieve_actors::dataset_exporter::schema_json()
        },
        created_at: rfc3339(dataset.created_at),
        finished_at: dataset.finished_at.map(rfc3339),
        error: dataset.error_message.clone(),
        execution_ids: None,
        exports: None,
        formats: None,
    };
    if with_exports {
        let exports = state.store.dataset_exports(&dataset.id).await?;
        view.exports = Some(
            exports
                .iter()
                .map(|e| DatasetExport {
                    format: e.format.clone(),
                    size_bytes: e.size_bytes,
                    created_at: rfc3339(e.created_at),
                    expires_at: rfc3339(e.expires_at),
                })
                .collect(),
        );
        view.execution_ids = Some(execution_ids);
        view.formats = Some(FORMAT_NAMES[..7].to_vec());
    }
    Ok(view)
}

/// `execution_ids`: integers or numeric strings.
fn execution_ids(body: &Value, max: usize) -> Result<Vec<i64>, Vec<ValidationDetail>> {
    let problem =
        |msg: String, kind: &str| ValidationDetail::new("body", "execution_ids", msg, kind);
    let Some(items) = body.get("execution_ids").and_then(Value::as_array) else {
        return Err(vec![problem(
            "field required: a list of execution ids".to_string(),
            "missing",
        )]);
    };
    if items.is_empty() {
        return Err(vec![problem("must not be empty".to_string(), "too_short")]);
    }
    if items.len() > max {
        return Err(vec![problem(
            format!("at most {max} executions per dataset"),
            "too_long",
        )]);
    }
    let mut ids = Vec::with_capacity(items.len());
    let mut bad = Vec::new();
    for (index, item) in items.iter().enumerate() {
        let id = match item {
            Value::Number(n) => n.as_i64(),
            Value::String(s) => s.trim().parse::<i64>().ok(),
            _ => None,
        };
        match id.filter(|id| *id > 0) {
            Some(id) if !ids.contains(&id) => ids.push(id),
            Some(_) => {}
            None => bad.push(ValidationDetail::new(
                "body",
                &format!("execution_ids.{index}"),
                "must be an integer or a numeric string",
                "int_parsing",
            )),
        }
    }
    if bad.is_empty() {
        Ok(ids)
    } else {
        Err(bad)
    }
}

/// Builds a dataset from completed executions (202; the build runs as a `dataset_build` job).
#[utoipa::path(post, path = "/v1/datasets", operation_id = "create_dataset", tag = "datasets",
    request_body(content = CreateDatasetRequest, content_type = "application/json"),
    responses(
        (status = 202, description = "The dataset, queued for its build", body = Envelope<QueuedDataset>),
        (status = 401, body = crate::error::ErrorBody),
        (status = 422, description = "Bad body, executions that are unknown, another tenant's or not completed (named), or executions processed under different privacy policy versions without `allow_mixed_policies` (`value_error.mixed_policies`, the versions named)", body = crate::error::ValidationErrorBody)
    ),
    security(("api_key" = []), ("bearer" = [])))]
#[post("/v1/datasets")]
pub async fn create(
    state: web::Data<AppState>,
    auth: Authenticated,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let body: Value = crate::validation::json_body(&body)?;
    let mut details = Vec::new();
    let name = body
        .get("name")
        .and_then(Value::as_str)
        .map(str::trim)
        .unwrap_or_default();
    if name.is_empty() || name.chars().count() > 200 {
        details.push(ValidationDetail::new(
            "body",
            "name",
            "name is required (1 to 200 characters)",
            "string_type",
        ));
    }
    let ids = match execution_ids(&body, state.settings.datasets.max_executions) {
        Ok(ids) => ids,
        Err(mut bad) => {
            details.append(&mut bad);
            Vec::new()
        }
    };
    let allow_mixed_policies = match body.get("allow_mixed_policies") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(allowed)) => *allowed,
        Some(_) => {
            details.push(ValidationDetail::new(
                "body",
                "allow_mixed_policies",
                "must be true or false",
                "bool_type",
            ));
            false
        }
    };
    if !details.is_empty() {
        return Err(ApiError::validation(details));
    }
    let unusable = state
        .store
        .unusable_executions(auth.tenant_id, &ids)
        .await?;
    if !unusable.is_empty() {
        let shown: Vec<String> = unusable.iter().take(20).map(i64::to_string).collect();
        return Err(ApiError::validation(vec![ValidationDetail::new(
            "body",
            "execution_ids",
            format!(
                "not completed executions of this account: {}{}",
                shown.join(", "),
                if unusable.len() > 20 {
                    format!(" and {} more", unusable.len() - 20)
                } else {
                    String::new()
                }
            ),
            "value_error.executions",
        )]));
    }
    let versions = state
        .store
        .execution_policy_versions(auth.tenant_id, &ids)
        .await?;
    if versions.len() > 1 && !allow_mixed_policies {
        let shown: Vec<String> = versions
            .iter()
            .map(|(version, count)| format!("version {version} ({count})"))
            .collect();
        return Err(ApiError::validation(vec![ValidationDetail::new(
            "body",
            "execution_ids",
            format!(
                "the executions were processed under different privacy policy versions: {}; \
                 reprocess them under the policy in force, or set allow_mixed_policies",
                shown.join(", ")
            ),
            "value_error.mixed_policies",
        )]));
    }
    let dataset_id = new_id("ds");
    let job_id = new_id("job");
    let executions = ids.len();
    queue::enqueue(
        &state,
        auth.tenant_id,
        vec![NewJob {
            id: job_id.clone(),
            target: JobTarget::NewDataset {
                id: dataset_id.clone(),
                name: name.to_string(),
                execution_ids: ids,
            },
            payload: JobPayload::DatasetBuild(BuildPayload {
                requested_by: queue::requested_by(&auth),
            }),
            max_attempts: state.settings.jobs.max_attempts as i32,
        }],
        queue::Limit::Exempt,
    )
    .await?;
    accounts::audit(
        &state,
        auth.audit(
            "dataset_create",
            Some(("dataset", dataset_id.clone())),
            json!({"job_id": job_id, "executions": executions}),
        ),
    )
    .await;
    Ok(HttpResponse::Accepted().json(Envelope {
        data: QueuedDataset {
            id: dataset_id,
            job_id,
            status: "queued",
        },
    }))
}

/// The tenant's datasets, newest first.
#[utoipa::path(get, path = "/v1/datasets", operation_id = "list_datasets", tag = "datasets",
    params(
        ("page" = Option<i64>, Query, description = "Page, from 1 (default 1)"),
        ("page_size" = Option<i64>, Query, description = "1 to 100 (default 20)")
    ),
    responses(
        (status = 200, description = "One page of datasets, newest first", body = Envelope<Page<DatasetView>>),
        (status = 401, body = crate::error::ErrorBody),
        (status = 422, body = crate::error::ValidationErrorBody)
    ),
    security(("api_key" = []), ("bearer" = [])))]
#[get("/v1/datasets")]
pub async fn list(
    state: web::Data<AppState>,
    auth: Authenticated,
    query: Query,
) -> Result<HttpResponse, ApiError> {
    let pagination = Pagination::only(&query)?;
    let (datasets, total) = state
        .store
        .datasets_page(auth.tenant_id, page_request(pagination))
        .await?;
    let mut items = Vec::with_capacity(datasets.len());
    for dataset in &datasets {
        items.push(dataset_view(&state, dataset, false).await?);
    }
    Ok(crate::api::page_response(items, pagination, total))
}

/// One dataset: status, row count, schema, the formats already exported with their sizes.
#[utoipa::path(get, path = "/v1/datasets/{dataset_id}", operation_id = "get_dataset", tag = "datasets",
    params(("dataset_id" = String, Path, description = "Dataset id")),
    responses(
        (status = 200, description = "The dataset, with its executions and exports", body = Envelope<DatasetView>),
        (status = 401, body = crate::error::ErrorBody),
        (status = 404, body = crate::error::ErrorBody)
    ),
    security(("api_key" = []), ("bearer" = [])))]
#[get("/v1/datasets/{dataset_id}")]
pub async fn detail(
    state: web::Data<AppState>,
    auth: Authenticated,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let dataset_id = path.into_inner();
    let dataset = state
        .store
        .dataset(auth.tenant_id, &dataset_id)
        .await?
        .ok_or_else(|| not_found(&dataset_id))?;
    Ok(HttpResponse::Ok().json(Envelope {
        data: dataset_view(&state, &dataset, true).await?,
    }))
}

/// Deletes the dataset and its files (the executions stay).
#[utoipa::path(delete, path = "/v1/datasets/{dataset_id}", operation_id = "delete_dataset", tag = "datasets",
    params(("dataset_id" = String, Path, description = "Dataset id")),
    responses(
        (status = 204, description = "Deleted"),
        (status = 401, body = crate::error::ErrorBody),
        (status = 404, body = crate::error::ErrorBody)
    ),
    security(("api_key" = []), ("bearer" = [])))]
#[delete("/v1/datasets/{dataset_id}")]
pub async fn remove(
    state: web::Data<AppState>,
    auth: Authenticated,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let dataset_id = path.into_inner();
    let keys = state
        .store
        .delete_dataset(auth.tenant_id, &dataset_id)
        .await?
        .ok_or_else(|| not_found(&dataset_id))?;
    for key in keys {
        if let Err(error) = state.blobs.delete(&key).await {
            tracing::warn!(%error, %key, "cannot delete a file of a deleted dataset");
        }
    }
    accounts::audit(
        &state,
        auth.audit("dataset_delete", Some(("dataset", dataset_id)), json!({})),
    )
    .await;
    Ok(HttpResponse::NoContent().finish())
}

/// A file name made of the dataset's name.
fn file_name(name: &str, format: ExportFormat) -> String {
    let safe: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .take(80)
        .collect();
    let safe = safe.trim_matches('_');
    format!(
        "{}.{}",
        if safe.is_empty() { "dataset" } else { safe },
        format.extension()
    )
}

/// Downloads the dataset in one format: `jsonl`, `csv`, `parquet`, `markdown`, `xml`, `xlsx`, `arrow`
/// (alias `hf`: a ZIP of a HuggingFace `save_to_disk` folder).
#[utoipa::path(get, path = "/v1/datasets/{dataset_id}/export", operation_id = "export_dataset", tag = "datasets",
    params(
        ("dataset_id" = String, Path, description = "Dataset id"),
        ("format" = vocab::ExportFormat, Query, description = "The file's format (`hf` is accepted as another name of `arrow`)")
    ),
    responses(
        (status = 200, description = "The file, as an attachment, under its format's media type (or `application/octet-stream` when the request's Accept asks for that)", content(
            (String = "application/octet-stream"),
            (String = "application/x-ndjson"),
            (String = "text/csv"),
            (String = "application/vnd.apache.parquet"),
            (String = "text/markdown"),
            (String = "application/xml"),
            (String = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"),
            (String = "application/zip")
        )),
        (status = 401, body = crate::error::ErrorBody),
        (status = 404, body = crate::error::ErrorBody),
        (status = 409, description = "dataset_not_ready", body = crate::error::ErrorBody),
        (status = 422, description = "Unknown format (the valid ones are listed)", body = crate::error::ValidationErrorBody),
        (status = 503, body = crate::error::ErrorBody)
    ),
    security(("api_key" = []), ("bearer" = [])))]
#[get("/v1/datasets/{dataset_id}/export")]
pub async fn export(
    request: actix_web::HttpRequest,
    state: web::Data<AppState>,
    auth: Authenticated,
    path: web::Path<String>,
    query: Query,
) -> Result<HttpResponse, ApiError> {
    let raw = query.get("format").unwrap_or_default();
    let Some(format) = ExportFormat::parse(raw) else {
        return Err(ApiError::validation(vec![ValidationDetail::new(
            "query",
            "format",
            format!("must be one of: {}", FORMAT_NAMES.join(", ")),
            "value_error.enum",
        )]));
    };
    let dataset_id = path.into_inner();
    let dataset = state
        .store
        .dataset(auth.tenant_id, &dataset_id)
        .await?
        .ok_or_else(|| not_found(&dataset_id))?;
    if dataset.status != "ready" {
        return Err(ApiError::new(
            ErrorKind::Conflict,
            ErrorCode::DatasetNotReady,
            format!(
                "the dataset is {}; exports are available once it is ready",
                dataset.status
            ),
        ));
    }
    let existing = state
        .store
        .dataset_export(&dataset_id, format.name())
        .await?;
    let (key, size) = match existing {
        Some(export) => (export.blob_key, export.size_bytes),
        None => {
            let exported = state
                .actors
                .export(auth.tenant_id, &dataset_id, format)
                .await?;
            match exported {
                Ok(exported) => (exported.blob_key, exported.size_bytes),
                // Deleted while its export was written (its rows file, or its record, went with
                // it): a 404, as a moment later.
                Err(_)
                    if state
                        .store
                        .dataset(auth.tenant_id, &dataset_id)
                        .await?
                        .is_none() =>
                {
                    return Err(not_found(&dataset_id))
                }
                Err(message) => {
                    return Err(ApiError::new(
                        ErrorKind::Conflict,
                        ErrorCode::ExportFailed,
                        message,
                    ))
                }
            }
        }
    };
    let stream = match state.blobs.stream(&key).await {
        Ok(stream) => stream,
        Err(docsieve_actors::blob::BlobError::NotFound(_)) => {
            // The dataset was deleted meanwhile (its files with it), or the file is being replaced.
            if state
                .store
                .dataset(auth.tenant_id, &dataset_id)
                .await?
                .is_none()
            {
                return Err(not_found(&dataset_id));
            }
            return Err(ApiError::unavailable(
                ErrorCode::ExportMissing,
                "the export file is being replaced; retry",
                1,
            ));
        }
        Err(error) => return Err(error.into()),
    };
    accounts::audit(
        &state,
        auth.audit(
            "dataset_export",
            Some(("dataset", dataset_id.clone())),
            json!({"format": format.name(), "bytes": size}),
        ),
    )
    .await;
    let body = stream.map(|chunk| chunk.map_err(actix_web::error::ErrorInternalServerError));
    Ok(HttpResponse::Ok()
        .content_type(super::common::download_type(
            &request,
            format.content_type(),
        ))
        .insert_header((
            "Content-Disposition",
            format!(
                "attachment; filename=\"{}\"",
                file_name(&dataset.name, format)
            ),
        ))
        .no_chunking(size.max(0) as u64)
        .streaming(body))
}

/// This resource's routes.
pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(create)
        .service(list)
        .service(export)
        .service(detail)
        .service(remove);
}
