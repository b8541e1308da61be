//! Helpers that every resource's handlers share: pages of the store, timestamps, stored execution
//! metadata. (Queuing work lives in [`super::queue`].)

use docsieve_actors::store::entities::execution;
use docsieve_actors::store::PageRequest;
use serde_json::{json, Value};

use crate::validation::Pagination;

pub use docsieve_actors::clock::rfc3339;

/// The store's page for a validated `page`/`page_size`.
pub fn page_request(pagination: Pagination) -> PageRequest {
    PageRequest {
        offset: pagination.offset(),
        limit: pagination.page_size,
    }
}

/// An execution's stored `result_meta`, parsed (an empty object if it cannot be).
pub fn meta_of(execution: &execution::Model) -> Value {
    serde_json::from_str(&execution.result_meta).unwrap_or_else(|_| json!({}))
}

/// The answer of a DELETE: the `missing` error when nothing was deleted, else the audit entry
/// (`action` on `target_type` `id`) and 204.
pub async fn deleted(
    state: &crate::state::AppState,
    auth: &crate::auth::Authenticated,
    (action, target_type, id): (&'static str, &'static str, i64),
    found: bool,
    missing: impl FnOnce(i64) -> crate::error::ApiError,
) -> Result<actix_web::HttpResponse, crate::error::ApiError> {
    if !found {
        return Err(missing(id));
    }
    crate::accounts::audit(
        state,
        auth.audit(action, Some((target_type, id.to_string())), json!({})),
    )
    .await;
    Ok(actix_web::HttpResponse::NoContent().finish())
}
