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
