//! /v1/subjects/search, /access and /erase: data-subject requests (GDPR Art. 15 and 17, KVKK Art. 11
//! and 7) by the tenant's owner or admin, each audited. The identifiers are only ever hashed (under
//! a key derived from the tenant's data key, as the subject index keeps what every job found); no
//! value is logged or stored. And /v1/compliance/receipt-key, the key erasure receipts are signed with.

use std::collections::BTreeSet;

use actix_web::{get, post, web, HttpResponse};
use docsieve_actors::pii_masker::PiiType;
use docsieve_actors::receipts::key_id;
use docsieve_actors::subjects::{
    self, access_zip, AccessFile, Erasure, Found, Identifier, SubjectError, SubjectServices,
};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use super::common::rfc3339;
use super::{envelope, Envelope};
use crate::accounts;
use crate::auth::Authenticated;
use crate::error::{ApiError, ValidationDetail};
use crate::state::AppState;
use crate::validation::ValidJson;

/// The roles that may make a data-subject request.
const MANAGERS: &[&str] = &["owner", "admin"];
/// Most identifiers in one request.
const MAX_IDENTIFIERS: usize = 20;

/// One identifier of the person.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SubjectIdentifier {
    /// Its type (`national_id_tr`, `email`, `phone_tr`...); absent: looked up as every type.
    #[serde(rename = "type", default)]
    pub pii_type: Option<String>,
    /// The value as the person gives it (any layout: spaces, dashes, case).
    pub value: String,
}

/// A data-subject request: the person's identifiers.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SubjectRequest {
    /// 1 to 20 identifiers.
    pub identifiers: Vec<SubjectIdentifier>,
}

/// The public key erasure and closure receipts are signed with.
#[derive(Serialize, ToSchema)]
pub struct ReceiptKey {
    /// `Ed25519`.
    pub algorithm: String,
    /// The 32-byte public key, hex.
    pub public_key: String,
    /// The first 16 hex digits of its SHA-256 (a receipt's `key_id`).
    pub key_id: String,
}

fn services(state: &AppState) -> SubjectServices {
    SubjectServices {
        store: state.store.clone(),
        blobs: state.blobs.clone(),
        cache: state.cache.clone(),
        clock: state.clock.clone(),
        signer: state.receipts.clone(),
        privacy: state.privacy.clone(),
        max_attempts: state.settings.jobs.max_attempts as i32,
    }
}

/// The identifiers, validated: 1 to 20, each a known type (or none) and a value of 1 to 256 characters.
fn identifiers(request: SubjectRequest) -> Result<Vec<Identifier>, ApiError> {
    let mut problems = Vec::new();
    if request.identifiers.is_empty() || request.identifiers.len() > MAX_IDENTIFIERS {
        problems.push(ValidationDetail::new(
            "body",
            "identifiers",
            format!("between 1 and {MAX_IDENTIFIERS} identifiers"),
            "value_error",
        ));
    }
    let mut out = Vec::new();
    for (index, identifier) in request.identifiers.into_iter().enumerate() {
        let pii_type = match identifier.pii_type.as_deref() {
            None => None,
            Some(name) => match PiiType::from_name(name) {
                Some(ty) => Some(ty),
                None => {
                    problems.push(ValidationDetail::new(
                        "body",
                        &format!("identifiers[{index}].type"),
                        format!("'{name}' is not a personal-data type (see GET /v1/pii-types)"),
                        "value_error",
                    ));
                    None
                }
            },
        };
        let length = identifier.value.trim().chars().count();
        if length == 0 || length > 256 {
            problems.push(ValidationDetail::new(
                "body",
                &format!("identifiers[{index}].value"),
                "1 to 256 characters",
                "value_error",
            ));
        }
        out.push(Identifier {
            pii_type,
            value: identifier.value,
        });
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(ApiError::validation(problems))
    }
}

fn subject_error(error: SubjectError) -> ApiError {
    match error {
        SubjectError::Store(error) => error.into(),
        SubjectError::Blob(error) => error.into(),
        other => ApiError::internal(&other),
    }
}

/// What the audit log keeps of a request: counts, never the identifiers.
fn audit_details(found: &Found, identifiers: usize) -> Value {
    json!({
        "identifiers": identifiers,
        "identifiers_found": found.identifiers_found,
        "documents": found.documents.len(),
        "executions": found.executions.len(),
        "datasets": found.datasets.len(),
        "fine_tune_jobs": found.fine_tune_jobs.len(),
    })
}

/// Every document, execution, dataset, export, connector copy and fine-tune job holding any of the
/// person's identifiers, with how often each type of their values occurs (owner or admin; audited).
#[utoipa::path(post, path = "/v1/subjects/search", operation_id = "search_subject", tag = "compliance",
    request_body = SubjectRequest,
    responses(
        (status = 200, body = Envelope<Found>),
        (status = 401, body = crate::error::ErrorBody),
        (status = 403, body = crate::error::ErrorBody),
        (status = 422, body = crate::error::ValidationErrorBody)
    ),
    security(("api_key" = []), ("bearer" = [])))]
#[post("/v1/subjects/search")]
pub async fn search(
    state: web::Data<AppState>,
    auth: Authenticated,
    body: ValidJson<SubjectRequest>,
) -> Result<web::Json<Envelope<Found>>, ApiError> {
    auth.require_role(MANAGERS)?;
    let identifiers = identifiers(body.0)?;
    let found = subjects::search(&services(&state), auth.tenant_id, &identifiers)
        .await
        .map_err(subject_error)?;
    accounts::audit(
        &state,
        auth.audit(
            "subject_searched",
            None,
            audit_details(&found, identifiers.len()),
        ),
    )
    .await;
    Ok(envelope(found))
}

/// What docsieve holds about the person, as a ZIP (owner or admin; audited): `documents/<id>.txt`
/// (each document's text with only the person's values in clear, read again from its original;
/// the stored masked result when the original is gone), `executions/<id>.json`, `where.json`
/// (datasets, exports, connector copies, webhooks, the fine-tune provider's jobs and models),
/// `subject.json` (counts per type, the identifiers' keyed digests), and `manifest.json` (every file
/// with its SHA-256 and size).
#[utoipa::path(post, path = "/v1/subjects/access", operation_id = "access_subject", tag = "compliance",
    request_body = SubjectRequest,
    responses(
        (status = 200, description = "application/zip: documents/<id>.txt and .json, executions/<id>.json, where.json, subject.json, manifest.json (every file with sha256 and bytes)", content(
            (String = "application/zip"),
            (String = "application/octet-stream")
        )),
        (status = 401, body = crate::error::ErrorBody),
        (status = 403, body = crate::error::ErrorBody),
        (status = 422, body = crate::error::ValidationErrorBody)
    ),
    security(("api_key" = []), ("bearer" = [])))]
#[post("/v1/subjects/access")]
pub async fn access(
    state: web::Data<AppState>,
    auth: Authenticated,
    body: ValidJson<SubjectRequest>,
) -> Result<HttpResponse, ApiError> {
    auth.require_role(MANAGERS)?;
    let identifiers = identifiers(body.0)?;
    let services = services(&state);
    let found = subjects::search(&services, auth.tenant_id, &identifiers)
        .await
        .map_err(subject_error)?;
    let key = state
        .blobs
        .key_ring()
        .ok_or_else(|| ApiError::internal(&std::io::Error::other("blobs are not sealed")))?
        .data_key(auth.tenant_id)
        .await
        .map_err(|error| ApiError::internal(&error))?;
    let subject: BTreeSet<String> = found.hits.iter().map(|hit| hit.digest.clone()).collect();
    let limits = state
        .settings
        .extraction
        .preview_limits(state.settings.actors.call_timeout_ms);
    let mut files = Vec::new();
    for &document_id in &found.documents {
        let Some(record) = state.store.document(auth.tenant_id, document_id).await? else {
            continue;
        };
        let document = &record.document;
        let text = match state.blobs.get(&document.blob_key).await {
            Ok(bytes) if document.original_destroyed_at.is_none() => {
                match state
                    .actors
                    .read_and_mask(auth.tenant_id, bytes, limits.clone())
                    .await
                {
                    Ok((read, masked)) => {
                        subjects::subject_text(&read.full_text(), &masked, &key, &subject)
                    }
                    Err(error) => format!("(the original could not be read again: {error})"),
                }
            }
            _ => {
                "(the original is no longer held: its retention ended or it was a connector's copy)"
                    .to_string()
            }
        };
        files.push(AccessFile {
            path: format!("documents/{document_id}.txt"),
            bytes: text.into_bytes(),
        });
        files.push(AccessFile {
            path: format!("documents/{document_id}.json"),
            bytes: serde_json::to_vec_pretty(&json!({
                "id": document_id,
                "filename": docsieve_actors::store::Sealed::from_stored(document.sealed_filename.clone())
                    .open_or_withheld(Some(&*key), docsieve_actors::store::SealedField::DocumentName),
                "format": document.format,
                "size": document.size_bytes,
                "source": document.source,
                "received_at": rfc3339(document.created_at),
                "original_destroyed_at": document.original_destroyed_at.map(rfc3339),
            }))
            .unwrap_or_default(),
        });
    }
    for &execution_id in &found.executions {
        if let Some(execution) = state.store.execution(auth.tenant_id, execution_id).await? {
            let view = super::executions::execution_view(&execution, Some(&*key));
            files.push(AccessFile {
                path: format!("executions/{execution_id}.json"),
                bytes: serde_json::to_vec_pretty(&view).unwrap_or_default(),
            });
        }
    }
    let page = docsieve_actors::store::PageRequest {
        offset: 0,
        limit: 1000,
    };
    let (hooks, _) = state.store.webhooks_page(auth.tenant_id, page).await?;
    let provider = &state.settings.fine_tune.provider_url;
    let destinations = json!({
        "datasets": found.datasets,
        "exports": found.exports,
        "connector_copies": found.connector_copies,
        "webhooks": hooks.iter().map(|hook| json!({
            "id": hook.id,
            "host": url::Url::parse(&hook.url).ok().and_then(|u| u.host_str().map(str::to_string)),
            "events": serde_json::from_str::<Value>(&hook.events).unwrap_or(Value::Null),
        })).collect::<Vec<_>>(),
        "fine_tune_provider": url::Url::parse(provider).ok().and_then(|u| u.host_str().map(str::to_string)),
        "fine_tune_jobs": found.fine_tune_jobs,
    });
    files.push(AccessFile {
        path: "where.json".to_string(),
        bytes: serde_json::to_vec_pretty(&destinations).unwrap_or_default(),
    });
    files.push(AccessFile {
        path: "subject.json".to_string(),
        bytes: serde_json::to_vec_pretty(&json!({
            "identifiers": identifiers.len(),
            "identifiers_found": found.identifiers_found,
            "counts_by_type": found.counts_by_type,
            "documents": found.documents,
            "executions": found.executions,
        }))
        .unwrap_or_default(),
    });
    let head = json!({
        "kind": "subject_access",
        "tenant_id": auth.tenant_id,
        "generated_at": rfc3339(state.clock.now()),
    });
    let zip = access_zip(head, files).map_err(|e| ApiError::internal(&std::io::Error::other(e)))?;
    accounts::audit(
        &state,
        auth.audit(
            "subject_accessed",
            None,
            audit_details(&found, identifiers.len()),
        ),
    )
    .await;
    Ok(HttpResponse::Ok()
        .content_type("application/zip")
        .insert_header((
            "Content-Disposition",
            "attachment; filename=\"subject-access.zip\"",
        ))
        .body(zip))
}

/// Erases what docsieve holds about the person (owner or admin; audited): their documents with their
/// originals, jobs, executions and results; their rows from every dataset (each built again as its
/// next version, its export files deleted); and answers a receipt signed with the server's key,
/// naming the connector copies and fine-tune jobs (and provider models) that hold copies docsieve
/// cannot reach. Webhooks subscribed to `subject.erased` are told.
#[utoipa::path(post, path = "/v1/subjects/erase", operation_id = "erase_subject", tag = "compliance",
    request_body = SubjectRequest,
    responses(
        (status = 200, body = Envelope<Erasure>),
        (status = 401, body = crate::error::ErrorBody),
        (status = 403, body = crate::error::ErrorBody),
        (status = 422, body = crate::error::ValidationErrorBody)
    ),
    security(("api_key" = []), ("bearer" = [])))]
#[post("/v1/subjects/erase")]
pub async fn erase(
    state: web::Data<AppState>,
    auth: Authenticated,
    body: ValidJson<SubjectRequest>,
) -> Result<web::Json<Envelope<Erasure>>, ApiError> {
    auth.require_role(MANAGERS)?;
    let identifiers = identifiers(body.0)?;
    let erasure = subjects::erase(
        &services(&state),
        auth.tenant_id,
        &identifiers,
        super::queue::requested_by(&auth),
    )
    .await
    .map_err(subject_error)?;
    let mut details = audit_details(&erasure.found, identifiers.len());
    details["receipt_id"] = erasure.receipt_id.clone().into();
    accounts::audit(&state, auth.audit("subject_erased", None, details)).await;
    Ok(envelope(erasure))
}

/// The public key that signs erasure and closure receipts. A receipt verifies offline:
/// `docsieve receipts verify RECEIPT.json --public-key <hex>`.
#[utoipa::path(get, path = "/v1/compliance/receipt-key", operation_id = "get_receipt_key", tag = "compliance",
    responses(
        (status = 200, body = Envelope<ReceiptKey>),
        (status = 401, body = crate::error::ErrorBody)
    ),
    security(("api_key" = []), ("bearer" = [])))]
#[get("/v1/compliance/receipt-key")]
pub async fn receipt_key(
    state: web::Data<AppState>,
    _auth: Authenticated,
) -> web::Json<Envelope<ReceiptKey>> {
    let public = state.receipts.public_key();
    envelope(ReceiptKey {
        algorithm: "Ed25519".to_string(),
        public_key: hex::encode(public),
        key_id: key_id(public),
    })
}

/// This resource's routes.
pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(search)
        .service(access)
        .service(erase)
        .service(receipt_key);
}
