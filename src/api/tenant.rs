//! /v1/tenant: closing the caller's tenant. `DELETE /v1/tenant` (the owner) schedules the closure
//! after `jobs.closure_grace_days`; `POST /v1/tenant/restore` cancels it until then. When it is due,
//! the destruction run destroys the tenant's data key first (crypto-shredding), deletes its blobs and
//! rows, and keeps a receipt signed with the server's key, which
//! `GET /v1/closure-receipts/{receipt_id}?token=` gives to whoever holds the token the closure
//! answered with (no account is left to log in with).

use actix_web::{delete, get, post, web, HttpResponse};
use rand::RngCore;
use serde::{Deserialize, Serialize};
use serde_json::json;
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use super::common::rfc3339;
use super::{envelope, Envelope};
use crate::accounts;
use crate::auth::Authenticated;
use crate::error::{ApiError, ErrorCode, ErrorKind, ValidationDetail};
use crate::state::AppState;
use crate::validation::{Query, ValidJson, Violations};

/// The closure request: the tenant's id again, so that no one closes a tenant by mistake.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ClosureRequest {
    /// The caller's tenant id (`GET /v1/me`).
    pub confirm: i64,
}

/// A scheduled closure.
#[derive(Serialize, ToSchema)]
pub struct Closure {
    pub tenant_id: i64,
    /// When the tenant is purged (restorable until then).
    pub closure_due_at: String,
    pub receipt_id: String,
    /// Shown once: with the receipt id, it fetches the signed receipt after the purge.
    pub receipt_token: String,
    /// `GET` it (with the token) once the closure is done.
    pub receipt_url: String,
}

/// A closure's receipt: pending until the purge, then issued.
#[derive(Serialize, ToSchema)]
pub struct ClosureReceipt {
    /// `pending` or `issued`.
    pub status: String,
    pub receipt_id: String,
    pub closure_due_at: String,
    pub issued_at: Option<String>,
    /// The signed receipt (`issued`): verify it with `docsieve receipts verify`.
    pub receipt: Option<docsieve_actors::receipts::Receipt>,
}

fn token_digest(token: &str) -> String {
    hex::encode(ring::digest::digest(&ring::digest::SHA256, token.as_bytes()).as_ref())
}

/// Schedules the closure of the caller's tenant (the owner; audited): after the grace period its
/// data key is destroyed, its blobs and rows deleted, and a signed receipt kept.
#[utoipa::path(delete, path = "/v1/tenant", operation_id = "close_tenant", tag = "compliance",
    request_body = ClosureRequest,
    responses(
        (status = 202, body = Envelope<Closure>),
        (status = 401, body = crate::error::ErrorBody),
        (status = 403, body = crate::error::ErrorBody),
        (status = 422, description = "`confirm` is not the caller's tenant id", body = crate::error::ValidationErrorBody)
    ),
    security(("api_key" = []), ("bearer" = [])))]
#[delete("/v1/tenant")]
pub async fn close(
    state: web::Data<AppState>,
    auth: Authenticated,
    body: ValidJson<ClosureRequest>,
) -> Result<HttpResponse, ApiError> {
    auth.require_role(&["owner"])?;
    if body.0.confirm != auth.tenant_id {
        return Err(ApiError::validation(vec![ValidationDetail::new(
            "body",
            "confirm",
            "must be the caller's tenant id",
            "value_error",
        )]));
    }
    let now = state.clock.now();
    let due = now + chrono::Duration::days(state.settings.jobs.closure_grace_days as i64);
    let mut bytes = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    let token = hex::encode(bytes);
    let receipt_id = docsieve_actors::store::new_id("rcpt");
    state
        .store
        .request_closure(auth.tenant_id, &receipt_id, &token_digest(&token), due, now)
        .await?;
    accounts::audit(
        &state,
        auth.audit(
            "tenant_closure_requested",
            None,
            json!({"closure_due_at": rfc3339(due), "receipt_id": receipt_id}),
        ),
    )
    .await;
    Ok(HttpResponse::Accepted().json(Envelope {
        data: Closure {
            tenant_id: auth.tenant_id,
            closure_due_at: rfc3339(due),
            receipt_url: format!("/v1/closure-receipts/{receipt_id}?token={token}"),
            receipt_id,
            receipt_token: token,
        },
    }))
}

/// Cancels the pending closure of the caller's tenant (the owner; audited).
#[utoipa::path(post, path = "/v1/tenant/restore", operation_id = "restore_tenant", tag = "compliance",
    responses(
        (status = 200, body = Envelope<Object>, description = "`{tenant_id, restored: true}`"),
        (status = 401, body = crate::error::ErrorBody),
        (status = 403, body = crate::error::ErrorBody),
        (status = 409, description = "no_closure_pending", body = crate::error::ErrorBody)
    ),
    security(("api_key" = []), ("bearer" = [])))]
#[post("/v1/tenant/restore")]
pub async fn restore(
    state: web::Data<AppState>,
    auth: Authenticated,
) -> Result<web::Json<Envelope<serde_json::Value>>, ApiError> {
    auth.require_role(&["owner"])?;
    if !state.store.cancel_closure(auth.tenant_id).await? {
        return Err(ApiError::new(
            ErrorKind::Conflict,
            ErrorCode::NoClosurePending,
            "the tenant has no pending closure",
        ));
    }
    accounts::audit(&state, auth.audit("tenant_restored", None, json!({}))).await;
    Ok(envelope(
        json!({"tenant_id": auth.tenant_id, "restored": true}),
    ))
}

/// A closure's signed receipt, for whoever holds its token (no account needed: the tenant is gone).
#[utoipa::path(get, path = "/v1/closure-receipts/{receipt_id}", operation_id = "get_closure_receipt", tag = "compliance",
    params(
        ("receipt_id" = String, Path, description = "The closure's receipt id"),
        ("token" = String, Query, description = "The token the closure answered with")
    ),
    responses(
        (status = 200, body = Envelope<ClosureReceipt>, description = "Issued: the signed receipt"),
        (status = 202, body = Envelope<ClosureReceipt>, description = "Pending: the closure is not due yet"),
        (status = 404, description = "receipt_not_found", body = crate::error::ErrorBody),
        (status = 422, body = crate::error::ValidationErrorBody)
    ),
    security(()))]
#[get("/v1/closure-receipts/{receipt_id}")]
pub async fn closure_receipt(
    state: web::Data<AppState>,
    path: web::Path<String>,
    query: Query,
) -> Result<HttpResponse, ApiError> {
    let mut violations = Violations::default();
    let token = query.get("token").map(str::to_string).unwrap_or_default();
    if token.is_empty() || token.len() > 128 {
        violations.push(ValidationDetail::new(
            "query",
            "token",
            "the token the closure answered with",
            "value_error",
        ));
    }
    violations.finish()?;
    let missing = || {
        ApiError::not_found(
            ErrorCode::ReceiptNotFound,
            "no closure receipt with this id and token".to_string(),
        )
    };
    let record = state
        .store
        .closure_receipt(&path)
        .await?
        .ok_or_else(missing)?;
    if record.token_digest != token_digest(&token) {
        return Err(missing());
    }
    let receipt = record
        .receipt
        .as_deref()
        .and_then(|text| serde_json::from_str(text).ok());
    let view = ClosureReceipt {
        status: if receipt.is_some() {
            "issued"
        } else {
            "pending"
        }
        .to_string(),
        receipt_id: record.id,
        closure_due_at: rfc3339(record.due_at),
        issued_at: record.issued_at.map(rfc3339),
        receipt,
    };
    Ok(if view.receipt.is_some() {
        HttpResponse::Ok().json(Envelope { data: view })
    } else {
        HttpResponse::Accepted().json(Envelope { data: view })
    })
}

/// This resource's routes.
pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(close).service(restore).service(closure_receipt);
}
