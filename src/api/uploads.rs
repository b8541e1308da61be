//! POST /v1/data-process/async: files (multipart `files`) or connector objects (`source`) become
//! stored documents with queued `data_process` jobs. Invalid items are listed in `rejected`, valid
//! ones are stored and queued; nothing is processed here. Never keeps file content outside the blob
//! store, never logs it.

use super::common::{clean_filename, multipart_failure};
use actix_multipart::Multipart;
use actix_web::{post, web, HttpRequest, HttpResponse};
use bytes::Bytes;
use docsieve_actors::blob::Keys;
use docsieve_actors::connector::Connector;
use docsieve_actors::connector::{fetch_document, object_name, process_job, Fetched};
use docsieve_actors::error_code::RecordCode;
use docsieve_actors::extractor_pool::admit;
use docsieve_actors::metric_names as names;
use docsieve_actors::store::{
    new_id, JobPayload, JobTarget, NewDocument, NewJob, Origin, ProcessPayload, Sealed, SealedField,
};
use futures_util::TryStreamExt;
use serde::Serialize;
use serde_json::json;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::accounts;
use crate::api::{queue, vocab, Envelope};
use crate::auth::Authenticated;
use crate::error::{ApiError, ErrorCode, ErrorKind, ValidationDetail};
use crate::state::AppState;
use crate::validation::{Query, Violations};

/// One item that was not queued, and why.
#[derive(Serialize, Debug, utoipa::ToSchema)]
pub struct Rejected {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub filename: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// Why: a record code (`file_too_large`, `too_many_files`, `duplicate_key`, a connector's
    /// failure code) or an error code (`unsupported_format`, `empty_document`).
    #[schema(value_type = docsieve_actors::error_code::RecordCode)]
    pub code: String,
    pub reason: String,
}

/// An accepted file or object: its document and job.
#[derive(Serialize, Debug, utoipa::ToSchema)]
pub struct Accepted {
    /// The object's full key in the bucket (source mode).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    pub filename: String,
    pub document_id: i64,
    pub job_id: String,
}

/// What an asynchronous upload queued and refused. `status` is `queued` when at least one
/// document was queued, `rejected` when every one was refused (nothing runs).
#[derive(Serialize, Debug, utoipa::ToSchema)]
pub struct Submission<'a> {
    #[schema(value_type = Vec<String>)]
    pub job_ids: &'a [&'a str],
    #[schema(value_type = vocab::SubmissionStatus)]
    pub status: &'static str,
    #[schema(value_type = Vec<Rejected>)]
    pub rejected: &'a [Rejected],
    #[schema(value_type = Vec<Accepted>)]
    pub accepted: &'a [Accepted],
}

fn reject(filename: &str, code: &str, reason: impl Into<String>) -> Rejected {
    metrics::counter!(names::UPLOADS_REJECTED_TOTAL, "code" => code.to_string()).increment(1);
    Rejected {
        filename: Some(filename.to_string()),
        key: None,
        code: code.to_string(),
        reason: reason.into(),
    }
}

/// A file read from the request, or the reason it cannot be queued.
struct Upload {
    filename: String,
    bytes: Result<Vec<u8>, Rejected>,
}

/// What the multipart body held.
#[derive(Default)]
struct Parts {
    uploads: Vec<Upload>,
    source: Option<String>,
}

async fn read_parts(
    mut payload: Multipart,
    max_file_bytes: u64,
    max_files: usize,
) -> Result<Parts, ApiError> {
    let mut parts = Parts::default();
    while let Some(mut field) = payload
        .try_next()
        .await
        .map_err(|e| multipart_failure("files", &e))?
    {
        let name = field.name().unwrap_or_default().to_string();
        let is_file = name == "files" || name == "file";
        let filename = clean_filename(
            field
                .content_disposition()
                .and_then(|cd| cd.get_filename())
                .unwrap_or("upload"),
        );
        let mut bytes = Vec::new();
        let mut too_large = false;
        while let Some(chunk) = field
            .try_next()
            .await
            .map_err(|e| multipart_failure("files", &e))?
        {
            if too_large || !(is_file || name == "source") {
                continue;
            }
            if (bytes.len() + chunk.len()) as u64 > max_file_bytes {
                too_large = true;
                bytes = Vec::new();
                continue;
            }
            bytes.extend_from_slice(&chunk);
        }
        if name == "source" {
            parts.source = Some(String::from_utf8_lossy(&bytes).into_owned());
        } else if is_file {
            let bytes = if too_large {
                Err(reject(
                    &filename,
                    RecordCode::FileTooLarge.as_str(),
                    format!("the file is larger than the limit of {max_file_bytes} bytes"),
                ))
            } else if parts.uploads.len() >= max_files {
                Err(reject(
                    &filename,
                    RecordCode::TooManyFiles.as_str(),
                    format!("at most {max_files} files are accepted per request"),
                ))
            } else {
                Ok(bytes)
            };
            parts.uploads.push(Upload { filename, bytes });
        }
    }
    Ok(parts)
}

/// The format of a file, or why it is refused.
fn classify(filename: &str, bytes: &[u8]) -> Result<(&'static str, &'static str), Rejected> {
    admit(filename, bytes).map_err(|refusal| reject(filename, &refusal.code, refusal.reason))
}

/// `{connector_id, keys}` from the `source` field or body.
fn parse_source(raw: &serde_json::Value) -> Result<(i64, Vec<String>), ApiError> {
    let source = raw.get("source").unwrap_or(raw);
    let mut details = Vec::new();
    let connector_id = match &source["connector_id"] {
        serde_json::Value::Number(n) => n.as_i64(),
        serde_json::Value::String(s) => s.trim().parse::<i64>().ok(),
        _ => None,
    };
    if connector_id.is_none() {
        details.push(ValidationDetail::new(
            "body",
            "connector_id",
            "source.connector_id must be an integer",
            "int_parsing",
        ));
    }
    let keys: Option<Vec<String>> = source["keys"].as_array().and_then(|keys| {
        keys.iter()
            .map(|key| key.as_str().filter(|k| !k.is_empty()).map(str::to_string))
            .collect()
    });
    let keys = keys.filter(|keys| !keys.is_empty());
    if keys.is_none() {
        details.push(ValidationDetail::new(
            "body",
            "keys",
            "source.keys must be a non-empty list of object keys",
            "list_type",
        ));
    }
    match (connector_id, keys) {
        (Some(id), Some(keys)) if details.is_empty() => Ok((id, keys)),
        _ => Err(ApiError::validation(details)),
    }
}

fn one_mode_error(message: &str) -> ApiError {
    ApiError::validation(vec![ValidationDetail::new(
        "body",
        "files",
        message,
        "value_error",
    )])
}

/// Queues documents for processing: multipart `files` (one or more), or `source` `{connector_id,
/// keys}` as a form field holding JSON or as the JSON body. Exactly one mode per request.
#[utoipa::path(post, path = "/v1/data-process/async", operation_id = "submit_async", tag = "processing",
    params(("masked" = Option<bool>, Query, description = "Store masked results (default true)")),
    request_body(content_type = "multipart/form-data", content = super::openapi::AsyncUpload,
        description = "Form fields `files` (repeatable) or `source` (JSON {connector_id, keys}); or a JSON body {\"source\": {...}}"),
    responses(
        (status = 202, body = Envelope<Submission>, description = "What was queued and what was refused, and why. A file or key is rejected with object_not_found, file_too_large, unsupported_format, empty_document, duplicate_key, too_many_files, or the connector's failure (bad_credentials, bucket_not_found, permission_denied, unreachable, timeout, target_refused)"),
        (status = 401, body = crate::error::ErrorBody),
        (status = 404, description = "The connector does not exist", body = crate::error::ErrorBody),
        (status = 413, body = crate::error::ErrorBody),
        (status = 422, body = crate::error::ValidationErrorBody),
        (status = 402, description = "Too few credits left: one is reserved per document (`insufficient_credits`, with `balance` and `required`)", body = crate::error::InsufficientCreditsBody),
        (status = 429, description = "Too many queued jobs for this tenant", body = crate::error::ErrorBody)
    ),
    security(("api_key" = []), ("bearer" = [])))]
#[post("/v1/data-process/async")]
pub async fn submit(
    state: web::Data<AppState>,
    auth: Authenticated,
    query: Query,
    request: HttpRequest,
    body: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let mut violations = Violations::default();
    let masked = query.boolean("masked", true, &mut violations);
    violations.finish()?;
    let content_type = request
        .headers()
        .get(actix_web::http::header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default()
        .to_ascii_lowercase();
    let jobs = &state.settings.jobs;
    if content_type.starts_with("application/json") {
        let bytes = body
            .to_bytes_limited(1024 * 1024)
            .await
            .map_err(|_| ApiError::payload_too_large(1024 * 1024))?
            .map_err(|e| one_mode_error(&format!("the body cannot be read: {e}")))?;
        let value: serde_json::Value = serde_json::from_slice(&bytes).map_err(|error| {
            ApiError::validation(vec![ValidationDetail::new(
                "body",
                "source",
                format!("the body is not valid JSON: {error}"),
                "json_invalid",
            )])
        })?;
        return submit_source(&state, &auth, &value, masked).await;
    }
    if !content_type.starts_with("multipart/form-data") {
        return Err(ApiError::new(
            ErrorKind::UnsupportedMediaType,
            ErrorCode::UnsupportedMediaType,
            "send multipart/form-data with `files`, or application/json with `source`",
        ));
    }
    let multipart = Multipart::new(request.headers(), body);
    let parts = read_parts(multipart, jobs.max_file_bytes, jobs.max_files_per_request).await?;
    match (parts.uploads.is_empty(), &parts.source) {
        (false, Some(_)) => {
            return Err(one_mode_error(
                "send either `files` or `source`, not both in one request",
            ))
        }
        (true, None) => {
            return Err(one_mode_error(
                "field required: send one or more `files`, or a `source` {connector_id, keys}",
            ))
        }
        (true, Some(raw)) => {
            let value: serde_json::Value = serde_json::from_str(raw).map_err(|error| {
                ApiError::validation(vec![ValidationDetail::new(
                    "body",
                    "source",
                    format!("source is not valid JSON: {error}"),
                    "json_invalid",
                )])
            })?;
            return submit_source(&state, &auth, &value, masked).await;
        }
        (false, None) => {}
    }
    submit_files(&state, &auth, parts.uploads, masked).await
}

async fn submit_source(
    state: &AppState,
    auth: &Authenticated,
    value: &serde_json::Value,
    masked: bool,
) -> Result<HttpResponse, ApiError> {
    let (connector_id, keys) = parse_source(value)?;
    let record = crate::api::connectors::found(state, auth, connector_id).await?;
    let services = &state.connectors;
    let max_keys = state.settings.jobs.max_files_per_request;
    let mut rejected = Vec::new();
    let mut documents = Vec::new();
    let mut seen = std::collections::HashSet::new();
    // A failure of the connector itself (credentials, bucket, network) ends the fetching: the keys
    // left are rejected with the same code instead of each waiting for the same failure.
    let mut connector = Connector::open(&record, &services.secrets, &services.settings)
        .map_err(|error| (error.code.as_str(), error.message));
    for key in keys {
        let refuse = |code: &str, reason: String| Rejected {
            filename: None,
            key: Some(key.clone()),
            code: code.to_string(),
            reason,
        };
        if !seen.insert(key.clone()) {
            rejected.push(refuse(
                RecordCode::DuplicateKey.as_str(),
                "the key is listed twice in this request".into(),
            ));
            continue;
        }
        if documents.len() + rejected.len() >= max_keys {
            rejected.push(refuse(
                RecordCode::TooManyFiles.as_str(),
                format!("at most {max_keys} keys are accepted per request"),
            ));
            continue;
        }
        let client = match &connector {
            Ok(client) => client,
            Err((code, message)) => {
                rejected.push(refuse(code, message.clone()));
                continue;
            }
        };
        match fetch_document(services, client, &key).await {
            Ok(Fetched::Document(document)) => documents.push((key, document)),
            Ok(Fetched::Refused(refusal)) => rejected.push(refuse(&refusal.code, refusal.reason)),
            Err(error) => {
                rejected.push(refuse(error.code.as_str(), error.message.clone()));
                connector = Err((error.code.as_str(), error.message));
            }
        }
    }
    for rejection in &rejected {
        metrics::counter!(names::UPLOADS_REJECTED_TOTAL, "code" => rejection.code.clone())
            .increment(1);
    }
    let requested_by = queue::requested_by(auth);
    let blob_keys: Vec<String> = documents.iter().map(|(_, d)| d.blob_key.clone()).collect();
    let (keys, jobs): (Vec<String>, Vec<NewJob>) = documents
        .into_iter()
        .map(|(key, document)| {
            let job = process_job(
                document,
                masked,
                requested_by.clone(),
                state.settings.jobs.max_attempts,
            );
            (key, job)
        })
        .unzip();
    let queued = match queue::enqueue(state, auth.tenant_id, jobs, queue::Limit::Applies).await {
        Ok(queued) => queued,
        Err(error) => {
            forget(state, &blob_keys).await;
            return Err(error);
        }
    };
    let accepted: Vec<Accepted> = keys
        .iter()
        .zip(&queued)
        .map(|(key, job)| Accepted {
            key: Some(key.clone()),
            filename: object_name(key).to_string(),
            document_id: job.document_id.unwrap_or_default(),
            job_id: job.job_id.clone(),
        })
        .collect();
    let job_ids: Vec<&str> = queued.iter().map(|job| job.job_id.as_str()).collect();
    answer(
        state,
        auth,
        (&accepted, &rejected, &job_ids),
        masked,
        Some(connector_id),
    )
    .await
}

/// The 202 of a submission, audited as `upload`.
async fn answer(
    state: &AppState,
    auth: &Authenticated,
    (accepted, rejected, job_ids): (&[Accepted], &[Rejected], &[&str]),
    masked: bool,
    connector_id: Option<i64>,
) -> Result<HttpResponse, ApiError> {
    let mut details = json!({
        "accepted": accepted.len(),
        "rejected": rejected.len(),
        "rejected_codes": rejected.iter().map(|r| r.code.as_str()).collect::<Vec<_>>(),
        "job_ids": job_ids,
        "masked": masked,
    });
    if let Some(connector_id) = connector_id {
        details["connector_id"] = json!(connector_id);
    }
    accounts::audit(state, auth.audit("upload", None, details)).await;
    Ok(HttpResponse::Accepted().json(Envelope {
        data: Submission {
            job_ids,
            status: if accepted.is_empty() {
                "rejected"
            } else {
                "queued"
            },
            rejected,
            accepted,
        },
    }))
}

async fn submit_files(
    state: &AppState,
    auth: &Authenticated,
    uploads: Vec<Upload>,
    masked: bool,
) -> Result<HttpResponse, ApiError> {
    let mut rejected = Vec::new();
    let mut valid = Vec::new();
    for upload in uploads {
        let bytes = match upload.bytes {
            Ok(bytes) => bytes,
            Err(rejection) => {
                rejected.push(rejection);
                continue;
            }
        };
        let filename = upload.filename;
        let checked = web::block(move || {
            let verdict = classify(&filename, &bytes);
            (filename, bytes, verdict)
        })
        .await
        .map_err(|e| ApiError::internal(&e))?;
        match checked {
            (filename, bytes, Ok((format, mime))) => valid.push((filename, bytes, format, mime)),
            (_, _, Err(rejection)) => rejected.push(rejection),
        }
    }
    // Every original is stored first; then the documents and their jobs go in together, all or
    // none, within the tenant's queue limit. Whatever was not queued loses its stored original.
    let requested_by = queue::requested_by(auth);
    // File names are personal data as often as contents are: kept sealed under the tenant's key.
    let tenant_key = super::common::tenant_key(state, auth.tenant_id).await?;
    let mut stored = Vec::with_capacity(valid.len());
    let mut new_jobs = Vec::with_capacity(valid.len());
    for (filename, bytes, format, mime) in valid {
        let sha256 = hex::encode(ring::digest::digest(&ring::digest::SHA256, &bytes));
        let size = bytes.len() as i64;
        let blob_key = Keys::upload(auth.tenant_id, &new_id("u"));
        if let Err(error) = state.blobs.put(&blob_key, Bytes::from(bytes)).await {
            forget(state, &stored).await;
            return Err(error.into());
        }
        stored.push(blob_key.clone());
        new_jobs.push((
            filename.clone(),
            NewJob {
                id: new_id("job"),
                target: JobTarget::Upload(NewDocument {
                    filename: Sealed::seal(
                        tenant_key.as_deref(),
                        SealedField::DocumentName,
                        &filename,
                    )
                    .map_err(|error| ApiError::internal(&error))?,
                    mime: mime.to_string(),
                    format: format.to_string(),
                    size_bytes: size,
                    sha256,
                    blob_key,
                    origin: Origin::Upload,
                }),
                payload: JobPayload::DataProcess(ProcessPayload {
                    masked,
                    reprocess: false,
                    requested_by: requested_by.clone(),
                }),
                max_attempts: state.settings.jobs.max_attempts as i32,
            },
        ));
    }
    let (filenames, jobs): (Vec<String>, Vec<NewJob>) = new_jobs.into_iter().unzip();
    let queued = match queue::enqueue(state, auth.tenant_id, jobs, queue::Limit::Applies).await {
        Ok(queued) => queued,
        Err(error) => {
            forget(state, &stored).await;
            return Err(error);
        }
    };
    let accepted: Vec<Accepted> = filenames
        .into_iter()
        .zip(queued)
        .map(|(filename, job)| Accepted {
            key: None,
            filename,
            document_id: job.document_id.unwrap_or_default(),
            job_id: job.job_id,
        })
        .collect();
    let job_ids: Vec<&str> = accepted.iter().map(|a| a.job_id.as_str()).collect();
    answer(state, auth, (&accepted, &rejected, &job_ids), masked, None).await
}

/// Deletes stored originals whose rows were never written.
async fn forget(state: &AppState, blob_keys: &[String]) {
    for key in blob_keys {
        if let Err(error) = state.blobs.delete(key).await {
            tracing::warn!(%error, key, "cannot delete the original of a refused upload");
        }
    }
}

/// This resource's routes.
pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(submit);
}
