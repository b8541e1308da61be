//! Helpers that every resource's handlers share: pages of the store, timestamps, stored execution
//! metadata. (Queuing work lives in [`super::queue`].)

use docsieve_actors::blob::DataKey;
use docsieve_actors::store::{ExecutionRecord, PageRequest, Sealed, SealedField};
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

/// What an execution recorded: its stored `result_meta` (an empty object if it cannot be parsed),
/// with what it read from its document (`filename`, `fields`) opened from its sealed column under the
/// tenant's `key`. Nothing sealed is shown once the result is destroyed, nor when it does not open
/// (the key shredded, the value altered): those keys are then absent.
pub fn meta_of(execution: &ExecutionRecord, key: Option<&DataKey>) -> Value {
    let mut meta: Value =
        serde_json::from_str(&execution.result_meta).unwrap_or_else(|_| json!({}));
    if execution.result_destroyed_at.is_some() {
        return meta;
    }
    let opened = execution
        .sealed_meta
        .as_deref()
        .and_then(|stored| Sealed::open_json(stored, key, SealedField::ExecutionMeta));
    if let (Some(Value::Object(sealed)), Some(meta)) = (opened, meta.as_object_mut()) {
        meta.extend(sealed);
    }
    meta
}

/// The tenant's data key, to open what the store keeps sealed (None only without a key ring).
pub async fn tenant_key(
    state: &crate::state::AppState,
    tenant_id: i64,
) -> Result<Option<std::sync::Arc<DataKey>>, crate::error::ApiError> {
    Ok(state.blobs.tenant_key(tenant_id).await?)
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

/// The 422 of a multipart body that cannot be read, on `field`: a part whose headers do not parse is
/// named as such (a control character in a file name is the usual cause: header values may not hold
/// one), anything else with the parser's own words.
pub fn multipart_failure(
    field: &str,
    error: &actix_multipart::MultipartError,
) -> crate::error::ApiError {
    use actix_web::error::ParseError;
    let (message, kind) = match error {
        actix_multipart::MultipartError::Parse(ParseError::Header) => (
            "a part's headers cannot be read: a header value holds a control character (NUL, a line \
             break, DEL...), most likely the file name in Content-Disposition; send the name without \
             them, or percent-encoded as filename*=UTF-8''..."
                .to_string(),
            "value_error.control_character",
        ),
        other => (
            format!("the multipart body cannot be read: {other}"),
            "multipart",
        ),
    };
    crate::error::ApiError::validation(vec![crate::error::ValidationDetail::new(
        "body", field, message, kind,
    )])
}

/// An uploaded file's name as kept: without any path, control characters or invisible format
/// characters (bidirectional overrides that would show `txt.exe` as `exe.txt`), at most 255
/// characters; `upload` when nothing is left.
pub fn clean_filename(raw: &str) -> String {
    let base = raw.rsplit(['/', '\\']).next().unwrap_or(raw).trim();
    let invisible = |c: char| {
        c.is_control()
            || matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{206f}' | '\u{feff}')
    };
    let name: String = base.chars().filter(|c| !invisible(*c)).take(255).collect();
    let name = name.trim().to_string();
    if name.is_empty() {
        "upload".to_string()
    } else {
        name
    }
}

/// The media type a file download is answered with: its own (`real`), or
/// `application/octet-stream` when the request's `Accept` asks for bytes and not for that type
/// (generated clients read octet-stream as a file; both are declared in the OpenAPI document).
pub fn download_type(request: &actix_web::HttpRequest, real: &'static str) -> &'static str {
    const BYTES: &str = "application/octet-stream";
    let essence = |media: &str| {
        media
            .split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase()
    };
    let accepted: Vec<String> = request
        .headers()
        .get_all(actix_web::http::header::ACCEPT)
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .map(essence)
        .collect();
    let wants_bytes = accepted.iter().any(|media| media == BYTES);
    let wants_real = accepted.iter().any(|media| *media == essence(real));
    if wants_bytes && !wants_real {
        BYTES
    } else {
        real
    }
}
