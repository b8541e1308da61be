//! The OpenAPI document completed with the answers every route shares, so that it names every status a
//! route can return (schemathesis checks it against the live server in CI).
//!
//! The rules follow the server's own layers, not each handler: a route with a security requirement can
//! answer 401; one with a path or query parameter or a body can answer 422 (the extractors validate
//! before the handler runs); one with a body can answer 413 (`server.max_request_bytes`, checked before
//! the body is read) and 415 (a body of the wrong media type). What a handler adds (404, 409, 429, 503,
//! ...) stays in its own path annotation.

use utoipa::openapi::path::Operation;
use utoipa::openapi::security::SecurityRequirement;
use utoipa::openapi::{ContentBuilder, OpenApi, Ref, RefOr, Response, ResponseBuilder, Schema};

use crate::error::ErrorCode;

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

/// Files and other non-JSON answers as what they are: `text/plain` a string, everything else (an
/// export, a ZIP, CSV or Markdown to save) bytes, `format: binary`, whatever the route declared.
fn binary_answers(operation: &mut Operation) {
    use utoipa::openapi::schema::{KnownFormat, ObjectBuilder, SchemaFormat, SchemaType, Type};
    for (status, response) in operation.responses.responses.iter_mut() {
        let RefOr::T(response) = response else {
            continue;
        };
        if !status.starts_with('2') {
            continue;
        }
        for (media_type, content) in response.content.iter_mut() {
            if media_type.contains("json") && !media_type.contains("ndjson") {
                continue;
            }
            let schema = ObjectBuilder::new().schema_type(SchemaType::new(Type::String));
            let schema = match media_type.starts_with("text/plain") {
                true => schema,
                false => schema.format(Some(SchemaFormat::KnownFormat(KnownFormat::Binary))),
            };
            content.schema = Some(RefOr::T(schema.into()));
        }
    }
}

/// The operations that answer a document in its own format, masked.
const REDACTED_FILE_OPERATIONS: [&str; 2] = ["redact_document", "get_execution_file"];

/// A redacted file's answer: every media type a writer answers with (from the writers' table, the one
/// list of them), beside `application/octet-stream`, and the headers that say what was masked.
fn redacted_file_answer(operation: &mut Operation) {
    use utoipa::openapi::header::HeaderBuilder;
    use utoipa::openapi::schema::{ObjectBuilder, SchemaType, Type};
    if !REDACTED_FILE_OPERATIONS.contains(&operation.operation_id.as_deref().unwrap_or_default()) {
        return;
    }
    let Some(RefOr::T(response)) = operation.responses.responses.get_mut("200") else {
        return;
    };
    for (_, _, media, _) in docsieve_actors::redaction::WRITERS {
        let essence = media.split(';').next().unwrap_or(media).trim().to_string();
        response
            .content
            .entry(essence)
            .or_insert_with(|| ContentBuilder::new().build());
    }
    let header = |kind: Type, description: &str| {
        HeaderBuilder::new()
            .schema(ObjectBuilder::new().schema_type(SchemaType::new(kind)))
            .description(Some(description))
            .build()
    };
    for (name, kind, description) in [
        ("X-Docsieve-Policy-Version", Type::Integer, "The version of the tenant's privacy policy the file was masked under (0: the default)"),
        ("X-Docsieve-Pii-Count", Type::Integer, "How many values were found in the document's text"),
        ("X-Docsieve-Pii-Types", Type::String, "Type=count pairs, comma-separated (`email=2,phone_tr=1`)"),
        ("X-Docsieve-Redaction-Notes", Type::String, "What was kept or replaced without being masked (images inside office files, a thumbnail, a text re-encoded), `; `-separated; absent when nothing"),
    ] {
        response
            .headers
            .insert(name.to_string(), header(kind, description));
    }
}

fn complete_operation(operation: &mut Operation, secured_by_default: bool) {
    redacted_file_answer(operation);
    binary_answers(operation);
    let secured = match &operation.security {
        Some(requirements) => !requirements.is_empty(),
        None => secured_by_default,
    };
    if !secured {
        // Public: `security: []` says so to generators and Swagger UI (no lock, no credentials sent).
        operation.security = Some(Vec::new());
    }
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

/// The error code an example of `status` on `path` shows: one the response's description names,
/// else the missing resource of a 404 (from the path's last parameter), else the status's usual one.
fn example_code(status: u16, path: &str, description: &str) -> Option<ErrorCode> {
    let fits = |code: &ErrorCode| code.statuses().contains(&status);
    let named = ErrorCode::ALL.iter().copied().filter(fits).find(|code| {
        description
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .any(|word| word == code.as_str())
    });
    if named.is_some() {
        return named;
    }
    if status == 404 {
        let missing = path
            .rsplit('/')
            .find_map(|segment| segment.strip_prefix('{')?.strip_suffix("_id}"))
            .map(|resource| format!("{resource}_not_found"));
        if let Some(code) = missing.as_deref().and_then(ErrorCode::named) {
            return Some(code);
        }
    }
    let usual = match status {
        400 => ErrorCode::InvalidToken,
        401 if path.starts_with("/system/") => ErrorCode::InternalTokenMissing,
        401 => ErrorCode::NotAuthenticated,
        402 => ErrorCode::InsufficientCredits,
        403 if path.starts_with("/system/") => ErrorCode::InternalTokenInvalid,
        403 => ErrorCode::Forbidden,
        404 => ErrorCode::RouteNotFound,
        405 => ErrorCode::MethodNotAllowed,
        409 => ErrorCode::ConcurrentChange,
        413 => ErrorCode::PayloadTooLarge,
        415 => ErrorCode::UnsupportedMediaType,
        429 => ErrorCode::QueueFull,
        500 => ErrorCode::InternalError,
        502 => ErrorCode::LlmBadResponse,
        503 => ErrorCode::Overloaded,
        _ => return None,
    };
    Some(usual)
}

/// Gives every `{detail, code}` answer of an operation an example whose code fits its status and
/// route (a schema's example would show one code for every status).
fn exemplify_errors(operation: &mut Operation, path: &str) {
    for (status, response) in operation.responses.responses.iter_mut() {
        let (Ok(status), RefOr::T(response)) = (status.parse::<u16>(), response) else {
            continue;
        };
        if status < 400 || status == 422 {
            continue;
        }
        let Some(code) = example_code(status, path, &response.description) else {
            continue;
        };
        for content in response.content.values_mut() {
            if content.example.is_none() && content.examples.is_empty() {
                let mut example =
                    serde_json::json!({"detail": code.meaning(), "code": code.as_str()});
                if code == ErrorCode::InsufficientCredits {
                    example["balance"] = 0.into();
                    example["required"] = 1.into();
                }
                content.example = Some(example);
            }
        }
    }
}

/// A schema written out with its keys sorted, to compare two schemas whatever their keys' order.
fn canonical(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::Object(map) => {
            let sorted: std::collections::BTreeMap<&String, String> =
                map.iter().map(|(k, v)| (k, canonical(v))).collect();
            let parts: Vec<String> = sorted
                .into_iter()
                .map(|(k, v)| format!("{}:{v}", serde_json::Value::from(k.as_str())))
                .collect();
            format!("{{{}}}", parts.join(","))
        }
        serde_json::Value::Array(items) => {
            let parts: Vec<String> = items.iter().map(canonical).collect();
            format!("[{}]", parts.join(","))
        }
        other => other.to_string(),
    }
}

type Named = std::collections::HashMap<String, String>;

/// An object with properties, or a composition (`oneOf`, `allOf`, `anyOf`): what is worth a name
/// (not a plain string or number, which many fields share).
fn is_composite(schema: &Schema) -> bool {
    match schema {
        Schema::Object(object) => !object.properties.is_empty(),
        Schema::OneOf(_) | Schema::AllOf(_) | Schema::AnyOf(_) => true,
        _ => false,
    }
}

/// `schema` itself when it is an inline copy of a named object schema, as a `$ref` to that name;
/// else the same walk below it.
fn refer(schema: &mut RefOr<Schema>, named: &Named) {
    let RefOr::T(inner) = schema else {
        return;
    };
    if is_composite(inner) {
        {
            let name = serde_json::to_value(&*inner)
                .ok()
                .and_then(|value| named.get(&canonical(&value)));
            if let Some(name) = name {
                *schema = RefOr::Ref(Ref::from_schema_name(name.clone()));
                return;
            }
        }
    }
    refer_below(inner, named);
}

/// The walk of [`refer`] below `schema` (never `schema` itself).
fn refer_below(schema: &mut Schema, named: &Named) {
    use utoipa::openapi::schema::{AdditionalProperties, ArrayItems};
    match schema {
        Schema::Object(object) => {
            for property in object.properties.values_mut() {
                refer(property, named);
            }
            if let Some(AdditionalProperties::RefOr(inner)) =
                object.additional_properties.as_deref_mut()
            {
                refer(inner, named);
            }
        }
        Schema::Array(array) => {
            if let ArrayItems::RefOrSchema(items) = &mut array.items {
                refer(items, named);
            }
        }
        Schema::OneOf(one_of) => one_of.items.iter_mut().for_each(|s| refer(s, named)),
        Schema::AllOf(all_of) => all_of.items.iter_mut().for_each(|s| refer(s, named)),
        Schema::AnyOf(any_of) => any_of.items.iter_mut().for_each(|s| refer(s, named)),
        _ => {}
    }
}

/// Generic envelopes (`Envelope<Page<DocumentView>>`) are written with their data inline: each
/// inline copy of a named object schema becomes a `$ref` to it, so that generators make one type
/// per resource (not one per envelope) and the named schemas are the ones clients see.
fn refer_to_named_schemas(openapi: &mut OpenApi) {
    let Some(components) = openapi.components.as_mut() else {
        return;
    };
    let named: Named = components
        .schemas
        .iter()
        .filter_map(|(name, schema)| match schema {
            RefOr::T(inner) if is_composite(inner) => {
                let value = serde_json::to_value(schema).ok()?;
                Some((canonical(&value), name.clone()))
            }
            _ => None,
        })
        .collect();
    for schema in components.schemas.values_mut() {
        if let RefOr::T(schema) = schema {
            refer_below(schema, &named);
        }
    }
    for item in openapi.paths.paths.values_mut() {
        for operation in [
            &mut item.get,
            &mut item.put,
            &mut item.post,
            &mut item.delete,
            &mut item.patch,
            &mut item.head,
        ]
        .into_iter()
        .flatten()
        {
            let responses = operation.responses.responses.values_mut();
            let answers = responses.filter_map(|response| match response {
                RefOr::T(response) => Some(response.content.values_mut()),
                RefOr::Ref(_) => None,
            });
            let bodies = operation
                .request_body
                .as_mut()
                .map(|body| body.content.values_mut());
            for content in answers.flatten().chain(bodies.into_iter().flatten()) {
                if let Some(schema) = content.schema.as_mut() {
                    refer(schema, &named);
                }
            }
        }
    }
}

/// Adds the shared answers to every operation of `openapi`, the scope each needs of an API key, an
/// example per error answer, and the server the document describes (`mail.public_base_url`, the
/// address users reach).
pub fn complete(mut openapi: OpenApi, public_base_url: &str) -> OpenApi {
    openapi.servers = Some(vec![utoipa::openapi::server::ServerBuilder::new()
        .url(public_base_url.trim_end_matches('/'))
        .description(Some(
            "This deployment (configuration: mail.public_base_url)",
        ))
        .build()]);
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
                exemplify_errors(operation, path);
            }
        }
    }
    refer_to_named_schemas(&mut openapi);
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
    // Optional, never null: a nullable array is not seen as one by some generators (orval), which
    // then append the whole array as one part instead of repeating it.
    #[schema(value_type = Vec<String>, format = Binary, required = false)]
    pub files: Vec<Vec<u8>>,
    /// Instead of files: JSON text `{"connector_id": 1, "keys": ["in/a.pdf"]}`: objects of a storage
    /// connector, by their full keys in the bucket; each is read, checked and queued like a file.
    #[schema(required = false)]
    pub source: String,
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
        let openapi = complete(OpenApiBuilder::new().paths(paths).build(), "http://x/");
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
