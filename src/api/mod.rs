//! The HTTP API: one module per resource, the OpenAPI document, and the JSON fallback for unknown
//! routes and wrong methods.

pub mod admin;
pub mod audit;
pub mod auth;
pub mod billing;
pub mod common;
pub mod compliance;
pub mod connectors;
pub mod datasets;
pub mod documents;
pub mod executions;
pub mod fine_tune;
pub mod jobs;
pub mod me;
pub mod openapi;
pub mod oss_metrics;
pub mod privacy;
pub mod process;
pub mod quality;
pub mod queue;
pub mod redaction;
pub mod retention;
pub mod schedules;
pub mod session;
pub mod subjects;
pub mod system;
pub mod team;
pub mod tenant;
pub mod testing;
pub mod uploads;
pub mod usage;
pub mod vocab;
pub mod webhooks;

use actix_web::{web, HttpRequest};
use serde::Serialize;
use utoipa::openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi, ToSchema};

use crate::error::{ApiError, ErrorCode};

/// Every documented route, resource by resource (`testing` is mounted only when enabled).
pub fn configure(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    system::configure(cfg);
    auth::configure(cfg);
    session::configure(cfg);
    me::configure(cfg);
    usage::configure(cfg);
    process::configure(cfg);
    redaction::configure(cfg);
    uploads::configure(cfg);
    documents::configure(cfg);
    executions::configure(cfg);
    jobs::configure(cfg);
    audit::configure(cfg);
    datasets::configure(cfg);
    fine_tune::configure(cfg);
    webhooks::configure(cfg);
    connectors::configure(cfg);
    schedules::configure(cfg);
    compliance::configure(cfg);
    retention::configure(cfg);
    subjects::configure(cfg);
    tenant::configure(cfg);
    privacy::configure(cfg);
    team::configure(cfg);
    admin::configure(cfg);
    quality::configure(cfg);
    oss_metrics::configure(cfg);
    billing::configure(cfg);
}

/// `{"data": ...}`: every successful JSON body.
#[derive(Serialize, ToSchema)]
pub struct Envelope<T> {
    pub data: T,
}

/// `{"data": {...}}` of a report whose keys the route's description lists (administrative and
/// compliance reports): an object, typed no further.
#[derive(Serialize, ToSchema)]
pub struct ReportEnvelope {
    #[schema(value_type = Object)]
    pub data: serde_json::Value,
}

/// The body of the quality routes: the execution to analyse.
#[derive(serde::Deserialize, ToSchema)]
#[allow(dead_code)]
pub struct ExecutionRef {
    pub execution_id: i64,
}

/// One page of a list: `{"items": [...], "page": 1, "page_size": 20, "total": 123}`.
#[derive(Serialize, ToSchema)]
pub struct Page<T> {
    pub items: Vec<T>,
    pub page: u64,
    pub page_size: u64,
    pub total: u64,
}

impl<T> Page<T> {
    /// A page cut from a complete (small) list.
    pub fn slice(all: Vec<T>, pagination: crate::validation::Pagination) -> Page<T> {
        let total = all.len() as u64;
        let items = all
            .into_iter()
            .skip(pagination.offset() as usize)
            .take(pagination.page_size as usize)
            .collect();
        Page {
            items,
            page: pagination.page,
            page_size: pagination.page_size,
            total,
        }
    }
}

/// `{"data": {"items", "page", "page_size", "total"}}` for a page the store already cut.
pub fn page_response<T: Serialize>(
    items: Vec<T>,
    pagination: crate::validation::Pagination,
    total: u64,
) -> actix_web::HttpResponse {
    actix_web::HttpResponse::Ok().json(Envelope {
        data: Page {
            items,
            page: pagination.page,
            page_size: pagination.page_size,
            total,
        },
    })
}

pub fn envelope<T: Serialize>(data: T) -> web::Json<Envelope<T>> {
    web::Json(Envelope { data })
}

struct SecuritySchemes;

impl Modify for SecuritySchemes {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "internal_token",
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description(
                crate::auth::internal::HEADER,
                "Token of the /system administrative endpoints (config auth.internal_token).",
            ))),
        );
        components.add_security_scheme(
            "api_key",
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description(
                "X-API-KEY",
                "API key created with POST /v1/me/api-keys. Each key has a scope (read_only < processing < admin): an operation's api_key requirement names the scope it needs, and a key beyond its scope gets 403 insufficient_scope.",
            ))),
        );
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("JWT")
                    .build(),
            ),
        );
    }
}

#[derive(OpenApi)]
#[openapi(
    info(
        title = "docsieve",
        description = "Privacy-aware document processing and dataset export service. Errors: 422 bodies are `{\"detail\": [{\"loc\", \"msg\", \"type\"}]}`; every other error is `{\"detail\": \"message\", \"code\": \"stable_code\"}`. 429 and 503 carry Retry-After; a 402 `insufficient_credits` also carries `balance` and `required`. Error codes are an open set: a code keeps its meaning, later versions add codes, and a client should treat a code it does not know by the answer's HTTP status. Successful JSON answers are `{\"data\": ...}`; lists are pages (`items`, `page`, `page_size`, `total`).",
        license(name = "Apache-2.0", identifier = "Apache-2.0")
    ),
    modifiers(&SecuritySchemes),
    components(schemas(
        crate::error::ErrorBody,
        crate::error::ValidationErrorBody,
        crate::error::LocItem,
        openapi::FileUpload,
        openapi::AsyncUpload,
        vocab::JobStatus,
        vocab::JobType,
        vocab::SubmissionStatus,
        vocab::ExecutionStatus,
        vocab::DocumentSource,
        vocab::DatasetStatus,
        vocab::ExportFormat,
        vocab::DeliveryStatus,
        vocab::WebhookEvent,
        vocab::RecordFormat,
        vocab::AuditFormat,
        vocab::ConnectorType,
        vocab::RunTrigger,
        vocab::RunStatus,
        vocab::Role,
        vocab::InviteRole,
        vocab::Plan,
        vocab::PeriodStatus,
        vocab::FineTuneStatus,
        vocab::HealthStatus,
        vocab::ComponentStatus,
        vocab::LlmState
    )),
    tags(
        (name = "system", description = "Health, metrics and the OpenAPI document"),
        (name = "auth", description = "Signup, verification, login, token refresh, password reset; no authentication"),
        (name = "account", description = "The caller, API keys and usage"),
        (name = "team", description = "Invitations and members"),
        (name = "processing", description = "Extraction and masking: synchronous preview and CSV export, async jobs, documents, executions, jobs"),
        (name = "datasets", description = "Datasets built from executions and their exports in seven formats"),
        (name = "fine-tune", description = "Fine-tuning a model of an OpenAI-compatible provider on a ready dataset (pro and enterprise plans)"),
        (name = "webhooks", description = "Signed deliveries of job and dataset events, retries, delivery log"),
        (name = "connectors", description = "Storage connectors: S3, Azure Blob, GCS (secrets sealed at rest, shown as ***), their connection test, schedules and syncs"),
        (name = "privacy", description = "The tenant's masking policy (types, confidence, an operator per type: placeholder, numbered, surrogate, hash, redact), versioned, and its pseudonym key"),
        (name = "compliance", description = "The tenant's record of processing (GDPR Art. 30, KVKK's VERBİS inventory)"),
        (name = "audit", description = "The tenant's audit log"),
        (name = "admin", description = "Internal operations (billing periods, plans, storage cleanup, quality); X-Internal-Token required"),
        (name = "testing", description = "Fault injection and clock control; only with testing.enabled")
    )
)]
pub struct ApiDoc;

/// Path templates with their methods, from the OpenAPI document, to tell 404 from 405.
#[derive(Clone, Default)]
pub struct RouteTable {
    routes: Vec<(regex::Regex, Vec<&'static str>)>,
}

impl RouteTable {
    pub fn from_openapi(
        openapi: &utoipa::openapi::OpenApi,
        extra: &[(&str, &[&'static str])],
    ) -> RouteTable {
        use utoipa::openapi::path::HttpMethod;
        let placeholder = regex::Regex::new(r"\{[^}/]+\}").ok();
        let mut routes = Vec::new();
        let mut add = |template: &str, methods: Vec<&'static str>| {
            let Some(placeholder) = &placeholder else {
                return;
            };
            // "/v1/documents/{document_id}" -> "^/v1/documents/[^/]+$"
            let literal_parts: Vec<String> =
                placeholder.split(template).map(regex::escape).collect();
            if let Ok(pattern) = regex::Regex::new(&format!("^{}$", literal_parts.join("[^/]+"))) {
                routes.push((pattern, methods));
            }
        };
        for (template, item) in &openapi.paths.paths {
            let mut methods = Vec::new();
            let pairs: [(HttpMethod, &Option<utoipa::openapi::path::Operation>); 8] = [
                (HttpMethod::Get, &item.get),
                (HttpMethod::Head, &item.head),
                (HttpMethod::Post, &item.post),
                (HttpMethod::Put, &item.put),
                (HttpMethod::Patch, &item.patch),
                (HttpMethod::Delete, &item.delete),
                (HttpMethod::Options, &item.options),
                (HttpMethod::Trace, &item.trace),
            ];
            for (method, operation) in pairs {
                if operation.is_some() {
                    methods.push(method_name(method));
                }
            }
            add(template, methods);
        }
        for (template, methods) in extra {
            add(template, methods.to_vec());
        }
        RouteTable { routes }
    }

    /// The methods a path accepts, if it names a route at all.
    pub fn methods_for(&self, path: &str) -> Option<Vec<&'static str>> {
        let mut found: Vec<&'static str> = Vec::new();
        for (pattern, methods) in &self.routes {
            if pattern.is_match(path) {
                found.extend(methods.iter().copied());
            }
        }
        if found.is_empty() {
            None
        } else {
            found.sort_unstable();
            found.dedup();
            Some(found)
        }
    }
}

fn method_name(method: utoipa::openapi::path::HttpMethod) -> &'static str {
    use utoipa::openapi::path::HttpMethod;
    match method {
        HttpMethod::Get => "GET",
        HttpMethod::Head => "HEAD",
        HttpMethod::Post => "POST",
        HttpMethod::Put => "PUT",
        HttpMethod::Patch => "PATCH",
        HttpMethod::Delete => "DELETE",
        HttpMethod::Options => "OPTIONS",
        HttpMethod::Trace => "TRACE",
    }
}

/// The app's default service: 405 (with Allow) for a known path, 404 otherwise. Always JSON.
pub async fn fallback(
    request: HttpRequest,
    routes: web::Data<RouteTable>,
) -> Result<actix_web::HttpResponse, ApiError> {
    Err(match routes.methods_for(request.path()) {
        Some(methods) => ApiError::method_not_allowed(&methods),
        None => ApiError::not_found(
            ErrorCode::RouteNotFound,
            format!("no route for {} {}", request.method(), request.path()),
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn route_table_matches_templates() {
        let mut openapi = ApiDoc::openapi();
        openapi.paths.paths.insert(
            "/v1/documents/{document_id}".to_string(),
            utoipa::openapi::path::PathItem::new(
                utoipa::openapi::path::HttpMethod::Get,
                utoipa::openapi::path::Operation::new(),
            ),
        );
        let table = RouteTable::from_openapi(&openapi, &[("/metrics", &["GET"])]);
        assert_eq!(table.methods_for("/v1/documents/12"), Some(vec!["GET"]));
        assert_eq!(table.methods_for("/v1/documents/12/x"), None);
        assert_eq!(table.methods_for("/metrics"), Some(vec!["GET"]));
        assert_eq!(table.methods_for("/nothing"), None);
    }
}
