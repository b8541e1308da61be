//! The OpenAPI document completed with the answers every route shares, so that it names every status a
//! route can return (schemathesis checks it against the live server in CI).
//!
//! The rules follow the server's own layers, not each handler: a route with a security requirement can
//! answer 401; one with a path or query parameter or a body can answer 422 (the extractors validate
//! before the handler runs); one with a body can answer 413 (`server.max_request_bytes`, checked before
//! the body is read) and 415 (a body of the wrong media type). What a handler adds (404, 409, 429, 503,
//! ...) stays in its own `#[utoipa::path]`.

use utoipa::openapi::path::Operation;
use utoipa::openapi::security::SecurityRequirement;
use utoipa::openapi::{ContentBuilder, OpenApi, Ref, RefOr, Response, ResponseBuilder};

fn error_response(description: &str, schema: &str) -> RefOr<Response> {
    RefOr::T(
        ResponseBuilder::new()
            .description(description)
            .content(
                "application/json",
                ContentBuilder::new()
                    .schema(Some(Ref::from_schema_name(schema)))
                    .build(),
            )
            .build(),
    )
}

fn add(operation: &mut Operation, status: &str, description: &str, schema: &str) {
    operation
        .responses
        .responses
        .entry(status.to_string())
        .or_insert_with(|| error_response(description, schema));
}

fn complete_operation(operation: &mut Operation, secured_by_default: bool) {
    let secured = match &operation.security {
        Some(requirements) => !requirements.is_empty(),
        None => secured_by_default,
    };
    let has_parameters = operation
        .parameters
        .as_ref()
        .is_some_and(|parameters| !parameters.is_empty());
    let has_body = operation.request_body.is_some();
    if secured {
        add(
            operation,
            "401",
            "Missing, invalid or expired credentials",
            "ErrorBody",
        );
    }
    if has_parameters || has_body {
        add(
            operation,
            "422",
            "A parameter or the body is invalid; `detail` names each problem",
            "ValidationErrorBody",
        );
    }
    if has_body {
        add(
            operation,
            "413",
            "The body is larger than server.max_request_bytes",
            "ErrorBody",
        );
        add(
            operation,
            "415",
            "The body is not of the media type the route reads",
            "ErrorBody",
        );
    }
}

/// Writes the scope an API key needs ([`crate::auth::scope::needed`]) into the operation's `api_key`
/// requirement (OpenAPI 3.1 lets a non-OAuth scheme list the roles it needs), and the 403 such a key
/// gets beyond it.
fn scope_operation(operation: &mut Operation, method: &str, path: &str) {
    let Some(requirements) = operation.security.as_mut() else {
        return;
    };
    let mut keyed = false;
    for requirement in requirements.iter_mut() {
        let named = serde_json::to_value(&*requirement)
            .ok()
            .and_then(|value| value.as_object().map(|o| o.contains_key("api_key")))
            .unwrap_or(false);
        if named {
            let scope = crate::auth::scope::needed(method, path);
            *requirement = SecurityRequirement::new("api_key", [scope.as_str()]);
            keyed = true;
        }
    }
    if keyed {
        add(
            operation,
            "403",
            "Not allowed: the role (`forbidden`) or the API key's scope (`insufficient_scope`) does not cover this route",
            "ErrorBody",
        );
    }
}

/// Adds the shared answers to every operation of `openapi`, and the scope each needs of an API key.
pub fn complete(mut openapi: OpenApi) -> OpenApi {
    let secured_by_default = openapi
        .security
        .as_ref()
        .is_some_and(|requirements| !requirements.is_empty());
    for (path, item) in openapi.paths.paths.iter_mut() {
        for (method, operation) in [
            ("GET", &mut item.get),
            ("PUT", &mut item.put),
            ("POST", &mut item.post),
            ("DELETE", &mut item.delete),
            ("PATCH", &mut item.patch),
            ("HEAD", &mut item.head),
            ("OPTIONS", &mut item.options),
            ("TRACE", &mut item.trace),
        ] {
            if let Some(operation) = operation {
                complete_operation(operation, secured_by_default);
                scope_operation(operation, method, path);
            }
        }
    }
    openapi
}

/// A `multipart/form-data` body with one document: what the preview and the CSV export read.
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
pub struct FileUpload {
    /// The document (its name, from the part's filename, is kept for the audit log and downloads).
    #[schema(value_type = String, format = Binary)]
    pub file: Vec<u8>,
}

/// A `multipart/form-data` body of `POST /v1/data-process/async`: documents, or objects of a connector.
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
pub struct AsyncUpload {
    /// The documents, one part each (repeat the field).
    #[schema(value_type = Option<Vec<String>>, format = Binary)]
    pub files: Option<Vec<Vec<u8>>>,
    /// Instead of files: JSON text `{"connector_id": 1, "keys": ["in/a.pdf"]}`: objects of a storage
    /// connector, by their full keys in the bucket; each is read, checked and queued like a file.
    pub source: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use utoipa::openapi::path::{OperationBuilder, PathItem};
    use utoipa::openapi::request_body::RequestBodyBuilder;
    use utoipa::openapi::security::SecurityRequirement;
    use utoipa::openapi::{HttpMethod, OpenApiBuilder, PathsBuilder};

    #[test]
    fn shared_answers_follow_the_route_s_inputs_and_security() {
        let secured = OperationBuilder::new()
            .security(SecurityRequirement::new("bearer", Vec::<String>::new()))
            .request_body(Some(RequestBodyBuilder::new().build()))
            .build();
        let open = OperationBuilder::new().build();
        let paths = PathsBuilder::new()
            .path("/a", PathItem::new(HttpMethod::Post, secured))
            .path("/b", PathItem::new(HttpMethod::Get, open))
            .build();
        let openapi = complete(OpenApiBuilder::new().paths(paths).build());
        let statuses = |path: &str, post: bool| -> Vec<String> {
            let item = &openapi.paths.paths[path];
            let operation = if post { &item.post } else { &item.get };
            operation
                .as_ref()
                .expect("operation")
                .responses
                .responses
                .keys()
                .cloned()
                .collect()
        };
        assert_eq!(statuses("/a", true), ["401", "413", "415", "422"]);
        assert!(statuses("/b", false).is_empty());
    }
}
