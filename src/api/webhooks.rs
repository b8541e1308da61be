//! /v1/webhooks: register receivers of `job.completed`, `job.failed`, `dataset.ready` and `subject.erased`, list and
//! delete them, read the delivery log and redeliver. The signing secret is shown once, at creation.

use actix_web::{delete, get, post, web, HttpResponse};
use docsieve_actors::cache::WEBHOOKS_WAKE;
use docsieve_actors::dataset_exporter::ExportFormat;
use docsieve_actors::egress;
use docsieve_actors::store::WebhookRecord;
use docsieve_actors::webhook_sender::new_secret;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::accounts;
use crate::api::common::{page_request, rfc3339};
use crate::api::{vocab, Envelope, Page};
use crate::auth::Authenticated;
use crate::error::{ApiError, ErrorCode, ValidationDetail};
use crate::state::AppState;
use crate::validation::{path_id, Pagination, Query};

pub const EVENTS: &[&str] = &[
    "job.completed",
    "job.failed",
    "dataset.ready",
    "subject.erased",
];

/// A webhook: where events are sent (its secret is shown once, when it is created).
#[derive(Serialize, ToSchema)]
pub struct WebhookView {
    pub id: i64,
    pub url: String,
    #[schema(value_type = Vec<vocab::WebhookEvent>)]
    pub events: Value,
    /// `{connector_id, format, prefix}`: on `dataset.ready`, the dataset is also written to this
    /// connector's bucket.
    #[schema(value_type = Option<AutoExport>)]
    pub auto_export: Option<Value>,
    pub active: bool,
    pub created_at: String,
    /// The signing secret (only in the answer that created the webhook).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub secret: Option<String>,
    /// Whether docsieve generated the secret (only in the answer that created the webhook).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub secret_generated: Option<bool>,
}

/// A dataset written to a connector's bucket when it is ready.
#[derive(Deserialize, Serialize, ToSchema)]
#[allow(dead_code)]
pub struct AutoExport {
    pub connector_id: i64,
    #[schema(value_type = vocab::ExportFormat)]
    pub format: String,
    /// Folder in the bucket (default `docsieve/`).
    pub prefix: Option<String>,
}

/// The body of `POST /v1/webhooks`.
#[derive(Deserialize, ToSchema)]
#[allow(dead_code)]
pub struct CreateWebhookRequest {
    /// `https://` (or `http://`), without credentials; private addresses are refused unless the
    /// operator allows them.
    pub url: String,
    #[schema(value_type = Vec<vocab::WebhookEvent>)]
    pub events: Vec<String>,
    /// The signing secret; generated when absent.
    pub secret: Option<String>,
    pub auto_export: Option<AutoExport>,
}

/// One delivery of an event, with its attempts.
#[derive(Serialize, ToSchema)]
pub struct DeliveryView {
    pub id: i64,
    /// The same as `id`.
    pub delivery_id: i64,
    #[schema(value_type = vocab::WebhookEvent)]
    pub event: String,
    #[schema(value_type = vocab::DeliveryStatus)]
    pub status: String,
    pub succeeded: bool,
    pub attempt_count: usize,
    pub attempts: Vec<DeliveryAttempt>,
    /// When the next attempt is due (pending deliveries).
    pub next_attempt_at: Option<String>,
    /// The JSON body sent.
    #[schema(value_type = Object)]
    pub payload: Value,
    pub created_at: String,
}

/// One attempt of a delivery.
#[derive(Serialize, ToSchema)]
pub struct DeliveryAttempt {
    pub attempt: i32,
    /// The receiver's HTTP status (none when it could not be reached).
    pub status_code: Option<i32>,
    pub error: Option<String>,
    pub duration_ms: i64,
    pub at: String,
}

/// A delivery queued again.
#[derive(Serialize, ToSchema)]
pub struct Redelivery {
    pub delivery_id: i64,
    #[schema(value_type = vocab::DeliveryStatus)]
    pub status: &'static str,
}

fn webhook_view(hook: &WebhookRecord) -> WebhookView {
    WebhookView {
        id: hook.id,
        url: hook.url.clone(),
        events: serde_json::from_str::<Value>(&hook.events).unwrap_or_default(),
        auto_export: hook
            .auto_export
            .as_deref()
            .and_then(|a| serde_json::from_str::<Value>(a).ok()),
        active: hook.active,
        created_at: rfc3339(hook.created_at),
        secret: None,
        secret_generated: None,
    }
}

fn not_found(webhook_id: i64) -> ApiError {
    ApiError::not_found(
        ErrorCode::WebhookNotFound,
        format!("webhook {webhook_id} does not exist"),
    )
}

fn problem(field: &str, message: impl Into<String>, kind: &str) -> ValidationDetail {
    ValidationDetail::new("body", field, message, kind)
}

/// `auto_export`: `{connector_id, format, prefix?}` with a connector of the caller.
async fn auto_export(
    state: &AppState,
    tenant_id: i64,
    raw: &Value,
    details: &mut Vec<ValidationDetail>,
) -> Result<Option<Value>, ApiError> {
    if raw.is_null() {
        return Ok(None);
    }
    let Some(object) = raw.as_object() else {
        details.push(problem(
            "auto_export",
            "must be an object {connector_id, format, prefix}",
            "model_type",
        ));
        return Ok(None);
    };
    let connector_id = match &object.get("connector_id") {
        Some(Value::Number(n)) => n.as_i64(),
        Some(Value::String(s)) => s.trim().parse().ok(),
        _ => None,
    };
    let format = object
        .get("format")
        .and_then(Value::as_str)
        .and_then(ExportFormat::parse);
    if format.is_none() {
        details.push(problem(
            "auto_export.format",
            "must be one of: jsonl, csv, parquet, markdown, xml, xlsx, arrow",
            "value_error.enum",
        ));
    }
    let prefix = match object.get("prefix") {
        None | Some(Value::Null) => None,
        Some(Value::String(prefix)) if prefix.len() <= 512 => Some(prefix.clone()),
        Some(_) => {
            details.push(problem(
                "auto_export.prefix",
                "must be a string of at most 512 characters",
                "string_type",
            ));
            None
        }
    };
    let Some(connector_id) = connector_id else {
        details.push(problem(
            "auto_export.connector_id",
            "must be an integer",
            "int_parsing",
        ));
        return Ok(None);
    };
    if state
        .store
        .connector(tenant_id, connector_id)
        .await?
        .is_none()
    {
        details.push(problem(
            "auto_export.connector_id",
            format!("connector {connector_id} does not exist"),
            "value_error.connector",
        ));
        return Ok(None);
    }
    Ok(format.map(
        |format| json!({"connector_id": connector_id, "format": format.name(), "prefix": prefix}),
    ))
}

/// Registers a webhook. Without `secret` one is generated; the secret is returned only in this answer.
#[utoipa::path(post, path = "/v1/webhooks", operation_id = "create_webhook", tag = "webhooks",
    request_body(content = CreateWebhookRequest, content_type = "application/json"),
    responses(
        (status = 201, description = "The webhook with `secret` (shown once)", body = Envelope<WebhookView>),
        (status = 401, body = crate::error::ErrorBody),
        (status = 422, description = "Bad URL (scheme, credentials, private address), events or auto_export", body = crate::error::ValidationErrorBody)
    ),
    security(("api_key" = []), ("bearer" = [])))]
#[post("/v1/webhooks")]
pub async fn create(
    state: web::Data<AppState>,
    auth: Authenticated,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let body: Value = crate::validation::json_body(&body)?;
    let mut details = Vec::new();
    let url = match body.get("url").and_then(Value::as_str) {
        None => {
            details.push(problem("url", "field required", "missing"));
            None
        }
        Some(raw) if raw.len() > 2048 => {
            details.push(problem("url", "at most 2048 characters", "string_too_long"));
            None
        }
        Some(raw) => {
            match egress::check_target(raw, state.settings.webhooks.allow_private_targets).await {
                Ok(url) => Some(url.to_string()),
                Err(reason) => {
                    details.push(problem("url", reason, "value_error.url"));
                    None
                }
            }
        }
    };
    let events: Vec<String> = match body.get("events").and_then(Value::as_array) {
        Some(items) if !items.is_empty() => {
            let mut events = Vec::new();
            for (index, item) in items.iter().enumerate() {
                match item.as_str().filter(|name| EVENTS.contains(name)) {
                    Some(name) if !events.iter().any(|e| e == name) => {
                        events.push(name.to_string())
                    }
                    Some(_) => {}
                    None => details.push(problem(
                        &format!("events.{index}"),
                        format!("must be one of: {}", EVENTS.join(", ")),
                        "value_error.enum",
                    )),
                }
            }
            events
        }
        _ => {
            details.push(problem(
                "events",
                format!("a non-empty list of: {}", EVENTS.join(", ")),
                "too_short",
            ));
            Vec::new()
        }
    };
    let given_secret = match body.get("secret") {
        None | Some(Value::Null) => None,
        Some(Value::String(secret)) if (16..=256).contains(&secret.len()) => Some(secret.clone()),
        Some(_) => {
            details.push(problem(
                "secret",
                "must be a string of 16 to 256 characters",
                "string_type",
            ));
            None
        }
    };
    let auto_export = auto_export(
        &state,
        auth.tenant_id,
        body.get("auto_export").unwrap_or(&Value::Null),
        &mut details,
    )
    .await?;
    if !details.is_empty() {
        return Err(ApiError::validation(details));
    }
    let Some(url) = url else {
        return Err(ApiError::validation(vec![problem(
            "url",
            "field required",
            "missing",
        )]));
    };
    let generated = given_secret.is_none();
    let secret = given_secret.unwrap_or_else(new_secret);
    let sealed = state
        .secrets
        .seal(&secret)
        .ok_or_else(|| ApiError::internal(&std::io::Error::other("cannot encrypt the secret")))?;
    let hook = state
        .store
        .create_webhook(
            auth.tenant_id,
            &url,
            &events,
            &sealed,
            auto_export,
            state.clock.now(),
        )
        .await?;
    accounts::audit(
        &state,
        auth.audit(
            "webhook_create",
            Some(("webhook", hook.id.to_string())),
            json!({"events": events}),
        ),
    )
    .await;
    let view = WebhookView {
        secret: Some(secret),
        secret_generated: Some(generated),
        ..webhook_view(&hook)
    };
    Ok(HttpResponse::Created().json(Envelope { data: view }))
}

/// The tenant's webhooks (without secrets).
#[utoipa::path(get, path = "/v1/webhooks", operation_id = "list_webhooks", tag = "webhooks",
    params(
        ("page" = Option<i64>, Query, description = "Page, from 1 (default 1)"),
        ("page_size" = Option<i64>, Query, description = "1 to 100 (default 20)")
    ),
    responses((status = 200, description = "One page of webhooks", body = Envelope<Page<WebhookView>>), (status = 422, body = crate::error::ValidationErrorBody)),
    security(("api_key" = []), ("bearer" = [])))]
#[get("/v1/webhooks")]
pub async fn list(
    state: web::Data<AppState>,
    auth: Authenticated,
    query: Query,
) -> Result<HttpResponse, ApiError> {
    let pagination = Pagination::only(&query)?;
    let (hooks, total) = state
        .store
        .webhooks_page(auth.tenant_id, page_request(pagination))
        .await?;
    Ok(crate::api::page_response(
        hooks.iter().map(webhook_view).collect(),
        pagination,
        total,
    ))
}

/// One webhook (without its secret).
#[utoipa::path(get, path = "/v1/webhooks/{webhook_id}", operation_id = "get_webhook", tag = "webhooks",
    params(("webhook_id" = i64, Path, description = "Webhook id")),
    responses((status = 200, description = "The webhook", body = Envelope<WebhookView>), (status = 404, body = crate::error::ErrorBody)),
    security(("api_key" = []), ("bearer" = [])))]
#[get("/v1/webhooks/{webhook_id}")]
pub async fn detail(
    state: web::Data<AppState>,
    auth: Authenticated,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let webhook_id = path_id(&path, "webhook_id")?;
    let hook = state
        .store
        .webhook(auth.tenant_id, webhook_id)
        .await?
        .ok_or_else(|| not_found(webhook_id))?;
    Ok(HttpResponse::Ok().json(Envelope {
        data: webhook_view(&hook),
    }))
}

/// Deletes the webhook and its delivery log.
#[utoipa::path(delete, path = "/v1/webhooks/{webhook_id}", operation_id = "delete_webhook", tag = "webhooks",
    params(("webhook_id" = i64, Path, description = "Webhook id")),
    responses((status = 204, description = "Deleted"), (status = 404, body = crate::error::ErrorBody)),
    security(("api_key" = []), ("bearer" = [])))]
#[delete("/v1/webhooks/{webhook_id}")]
pub async fn remove(
    state: web::Data<AppState>,
    auth: Authenticated,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let webhook_id = path_id(&path, "webhook_id")?;
    let found = state
        .store
        .delete_webhook(auth.tenant_id, webhook_id)
        .await?;
    super::common::deleted(
        &state,
        &auth,
        ("webhook_delete", "webhook", webhook_id),
        found,
        not_found,
    )
    .await
}

/// The delivery log: each event with every attempt (status code or error, duration, time) and whether
/// it finally succeeded.
#[utoipa::path(get, path = "/v1/webhooks/{webhook_id}/deliveries", operation_id = "list_webhook_deliveries", tag = "webhooks",
    params(
        ("webhook_id" = i64, Path, description = "Webhook id"),
        ("page" = Option<i64>, Query, description = "Page, from 1 (default 1)"),
        ("page_size" = Option<i64>, Query, description = "1 to 100 (default 20)")
    ),
    responses(
        (status = 200, description = "One page of deliveries, newest first", body = Envelope<Page<DeliveryView>>),
        (status = 404, body = crate::error::ErrorBody),
        (status = 422, body = crate::error::ValidationErrorBody)
    ),
    security(("api_key" = []), ("bearer" = [])))]
#[get("/v1/webhooks/{webhook_id}/deliveries")]
pub async fn deliveries(
    state: web::Data<AppState>,
    auth: Authenticated,
    path: web::Path<String>,
    query: Query,
) -> Result<HttpResponse, ApiError> {
    let webhook_id = path_id(&path, "webhook_id")?;
    let pagination = Pagination::only(&query)?;
    state
        .store
        .webhook(auth.tenant_id, webhook_id)
        .await?
        .ok_or_else(|| not_found(webhook_id))?;
    let (records, total) = state
        .store
        .deliveries_page(auth.tenant_id, webhook_id, page_request(pagination))
        .await?;
    let items: Vec<DeliveryView> = records
        .iter()
        .map(|record| {
            let delivery = &record.delivery;
            DeliveryView {
                id: delivery.id,
                delivery_id: delivery.id,
                event: delivery.event.clone(),
                status: delivery.status.clone(),
                succeeded: delivery.status == "delivered",
                attempt_count: record.attempts.len(),
                attempts: record
                    .attempts
                    .iter()
                    .map(|a| DeliveryAttempt {
                        attempt: a.attempt,
                        status_code: a.status_code,
                        error: a.error.clone(),
                        duration_ms: a.duration_ms,
                        at: rfc3339(a.created_at),
                    })
                    .collect(),
                next_attempt_at: (delivery.status == "pending")
                    .then(|| delivery.next_attempt_at.map(rfc3339))
                    .flatten(),
                payload: serde_json::from_str::<Value>(&delivery.payload).unwrap_or_default(),
                created_at: rfc3339(delivery.created_at),
            }
        })
        .collect();
    Ok(crate::api::page_response(items, pagination, total))
}

/// Sends a logged event again (a new delivery with the same body).
#[utoipa::path(post, path = "/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver", operation_id = "redeliver_webhook_delivery", tag = "webhooks",
    params(
        ("webhook_id" = i64, Path, description = "Webhook id"),
        ("delivery_id" = i64, Path, description = "Delivery id")
    ),
    responses((status = 202, description = "The new delivery, pending", body = Envelope<Redelivery>), (status = 404, body = crate::error::ErrorBody), (status = 422, body = crate::error::ValidationErrorBody)),
    security(("api_key" = []), ("bearer" = [])))]
#[post("/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver")]
pub async fn redeliver(
    state: web::Data<AppState>,
    auth: Authenticated,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (webhook_raw, delivery_raw) = path.into_inner();
    let webhook_id = path_id(&webhook_raw, "webhook_id")?;
    let delivery_id = path_id(&delivery_raw, "delivery_id")?;
    let copy = state
        .store
        .redeliver(auth.tenant_id, webhook_id, delivery_id, state.clock.now())
        .await?
        .ok_or_else(|| {
            ApiError::not_found(
                ErrorCode::DeliveryNotFound,
                format!("delivery {delivery_id} of webhook {webhook_id} does not exist"),
            )
        })?;
    crate::api::queue::wake(&state, WEBHOOKS_WAKE).await;
    Ok(HttpResponse::Accepted().json(Envelope {
        data: Redelivery {
            delivery_id: copy,
            status: "pending",
        },
    }))
}

/// This resource's routes.
pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(create)
        .service(list)
        .service(detail)
        .service(remove)
        .service(deliveries)
        .service(redeliver);
}
