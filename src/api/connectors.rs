//! /v1/connectors: the tenant's storage connectors (S3, Azure Blob, GCS). Each type's configuration is
//! checked field by field; secrets are sealed at rest (AES-256-GCM, the key of webhook secrets) and come
//! back as `"***"`; every field that becomes part of a URL follows its provider's rules (bucket, region,
//! account and container names, prefix), and an `endpoint` passes the egress guard unless
//! `connectors.allow_private_endpoints` is set (checked again whenever the connector is used).

use actix_web::{delete, get, post, web, HttpResponse};
use docsieve_actors::connector::{Connector, TestOutcome};
use docsieve_actors::egress;
use docsieve_actors::store::ConnectorRecord;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::accounts;
use crate::api::common::{page_request, rfc3339};
use crate::api::{vocab, Envelope, Page};
use crate::auth::Authenticated;
use crate::error::{ApiError, ErrorCode, ValidationDetail};
use crate::state::AppState;
use crate::validation::{path_id, Pagination, Query};

/// One configuration field of a connector type.
struct Field {
    name: &'static str,
    required: bool,
    secret: bool,
    /// The GCS key: a JSON object, or a string holding one.
    json_object: bool,
}

const fn field(name: &'static str, required: bool, secret: bool) -> Field {
    Field {
        name,
        required,
        secret,
        json_object: false,
    }
}

/// The connector types and their fields.
const TYPES: [(&str, &[Field]); 3] = [
    (
        "s3",
        &[
            field("bucket", true, false),
            field("region", true, false),
            field("aws_access_key_id", true, false),
            field("aws_secret_access_key", true, true),
            field("prefix", false, false),
            field("endpoint", false, false),
        ],
    ),
    (
        "azure_blob",
        &[
            field("account_name", true, false),
            field("container_name", true, false),
            field("account_key", true, true),
            field("prefix", false, false),
            field("endpoint", false, false),
        ],
    ),
    (
        "gcs",
        &[
            field("bucket", true, false),
            // Required unless an emulator `endpoint` is given (checked below).
            Field {
                name: "service_account_key",
                required: false,
                secret: true,
                json_object: true,
            },
            field("prefix", false, false),
            field("endpoint", false, false),
        ],
    ),
];

/// A problem with the body's `field` (also the schedules' body).
pub(crate) fn problem(field: &str, message: impl Into<String>, kind: &str) -> ValidationDetail {
    ValidationDetail::new("body", field, message, kind)
}

fn type_names() -> String {
    TYPES
        .iter()
        .map(|(name, _)| *name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The configuration split into its public part and its secrets, or the problems found.
async fn check_config(
    state: &AppState,
    connector_type: &str,
    fields: &[Field],
    config: &Value,
    details: &mut Vec<ValidationDetail>,
) -> (Map<String, Value>, Map<String, Value>) {
    let mut public = Map::new();
    let mut secrets = Map::new();
    let Some(given) = config.as_object() else {
        details.push(problem("config", "config must be an object", "dict_type"));
        return (public, secrets);
    };
    for key in given.keys() {
        if !fields.iter().any(|field| field.name == key) {
            details.push(problem(
                &format!("config.{key}"),
                format!(
                    "not a field of a {connector_type} connector (fields: {})",
                    fields.iter().map(|f| f.name).collect::<Vec<_>>().join(", ")
                ),
                "extra_forbidden",
            ));
        }
    }
    let has_endpoint = given.get("endpoint").is_some_and(|v| !v.is_null());
    for field in fields {
        let location = format!("config.{}", field.name);
        let required = field.required || (field.json_object && !has_endpoint);
        let value = match given.get(field.name) {
            None | Some(Value::Null) => {
                if required {
                    details.push(problem(&location, "field required", "missing"));
                }
                continue;
            }
            Some(value) => value,
        };
        let value = if field.json_object {
            let object = match value {
                Value::Object(object) => Some(Value::Object(object.clone())),
                Value::String(text) => serde_json::from_str::<Value>(text)
                    .ok()
                    .filter(Value::is_object),
                _ => None,
            };
            match object {
                Some(object) => {
                    let steering = docsieve_actors::connector::STEERING_KEY_FIELDS
                        .iter()
                        .find(|key| object.get(**key).is_some());
                    if let Some(key) = steering {
                        details.push(problem(
                            &format!("{location}.{key}"),
                            "a key may not say where requests go: give an emulator's address as `endpoint`",
                            "extra_forbidden",
                        ));
                        continue;
                    }
                    object
                }
                None => {
                    details.push(problem(
                        &location,
                        "must be the service account's JSON key, as an object or a string",
                        "value_error.json",
                    ));
                    continue;
                }
            }
        } else {
            match value.as_str().map(str::trim) {
                Some(text) if !text.is_empty() && text.len() <= 2048 => {
                    Value::String(text.to_string())
                }
                Some("") if !required => continue,
                _ => {
                    details.push(problem(
                        &location,
                        "must be a non-empty string of at most 2048 characters",
                        "string_type",
                    ));
                    continue;
                }
            }
        };
        if let Err(reason) = docsieve_actors::connector::check_field(
            connector_type,
            field.name,
            value.as_str().unwrap_or_default(),
        ) {
            details.push(problem(&location, reason, "value_error"));
            continue;
        }
        if field.name == "endpoint" {
            let raw = value.as_str().unwrap_or_default();
            if let Err(reason) =
                egress::check_target(raw, state.settings.connectors.allow_private_endpoints).await
            {
                details.push(problem(&location, reason, "value_error.url"));
                continue;
            }
        }
        if field.secret {
            secrets.insert(field.name.to_string(), value);
        } else {
            public.insert(field.name.to_string(), value);
        }
    }
    (public, secrets)
}

/// A storage connector; every secret of its configuration shows as `"***"`.
#[derive(Serialize, ToSchema)]
pub struct ConnectorView {
    pub id: i64,
    #[serde(rename = "type")]
    #[schema(value_type = vocab::ConnectorType)]
    pub connector_type: String,
    pub name: String,
    /// The fields of its type (see `CreateConnectorRequest`), secrets as `"***"`.
    #[schema(value_type = Object)]
    pub config: Value,
    pub created_at: String,
    pub updated_at: String,
}

/// An S3 bucket (or an S3-compatible store at `endpoint`, path-style).
#[derive(Deserialize, ToSchema)]
#[allow(dead_code)]
pub struct S3Config {
    pub bucket: String,
    pub region: String,
    pub aws_access_key_id: String,
    pub aws_secret_access_key: String,
    pub prefix: Option<String>,
    pub endpoint: Option<String>,
}

/// An Azure Blob container (or Azurite at `endpoint`).
#[derive(Deserialize, ToSchema)]
#[allow(dead_code)]
pub struct AzureBlobConfig {
    pub account_name: String,
    pub container_name: String,
    pub account_key: String,
    pub prefix: Option<String>,
    pub endpoint: Option<String>,
}

/// A Google Cloud Storage bucket (or an emulator at `endpoint`).
#[derive(Deserialize, ToSchema)]
#[allow(dead_code)]
pub struct GcsConfig {
    pub bucket: String,
    /// The service account's JSON key, as an object or a string holding one; not needed with an
    /// emulator `endpoint`.
    #[schema(value_type = Option<Object>)]
    pub service_account_key: Option<Value>,
    pub prefix: Option<String>,
    pub endpoint: Option<String>,
}

/// The body of `POST /v1/connectors`: a name, and the configuration of its `type`.
#[derive(Deserialize, ToSchema)]
#[serde(tag = "type")]
#[allow(dead_code)]
pub enum CreateConnectorRequest {
    #[serde(rename = "s3")]
    S3 { name: String, config: S3Config },
    #[serde(rename = "azure_blob")]
    AzureBlob {
        name: String,
        config: AzureBlobConfig,
    },
    #[serde(rename = "gcs")]
    Gcs { name: String, config: GcsConfig },
}

fn connector_view(connector: &ConnectorRecord) -> ConnectorView {
    let mut config = connector.config_public.clone();
    if let Some((_, fields)) = TYPES
        .iter()
        .find(|(name, _)| *name == connector.connector_type)
    {
        for field in fields.iter().filter(|field| field.secret) {
            config[field.name] = json!("***");
        }
    }
    ConnectorView {
        id: connector.id,
        connector_type: connector.connector_type.clone(),
        name: connector.name.clone(),
        config,
        created_at: rfc3339(connector.created_at),
        updated_at: rfc3339(connector.updated_at),
    }
}

pub fn not_found(connector_id: i64) -> ApiError {
    ApiError::not_found(
        ErrorCode::ConnectorNotFound,
        format!("connector {connector_id} does not exist"),
    )
}

/// The tenant's connector `connector_id`, or 404 `connector_not_found`.
pub async fn found(
    state: &AppState,
    auth: &Authenticated,
    connector_id: i64,
) -> Result<ConnectorRecord, ApiError> {
    state
        .store
        .connector(auth.tenant_id, connector_id)
        .await?
        .ok_or_else(|| not_found(connector_id))
}

/// Registers a storage connector.
#[utoipa::path(post, path = "/v1/connectors", operation_id = "create_connector", tag = "connectors",
    request_body(content = CreateConnectorRequest, content_type = "application/json", description = "`{type, name, config}`. `s3`: bucket, region, aws_access_key_id, aws_secret_access_key, prefix?, endpoint? (an S3-compatible store, path-style). `azure_blob`: account_name, container_name, account_key, prefix?, endpoint? (Azurite). `gcs`: bucket, service_account_key (the JSON key, object or string; not needed with an emulator endpoint), prefix?, endpoint?"),
    responses(
        (status = 201, description = "The connector; secrets shown as `***`", body = Envelope<ConnectorView>),
        (status = 401, body = crate::error::ErrorBody),
        (status = 422, description = "An unknown type (the three listed), or each missing, empty, wrong-typed or unknown field named; an endpoint at a private address", body = crate::error::ValidationErrorBody)
    ),
    security(("api_key" = []), ("bearer" = [])))]
#[post("/v1/connectors")]
pub async fn create(
    state: web::Data<AppState>,
    auth: Authenticated,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let body: Value = crate::validation::json_body(&body)?;
    let mut details = Vec::new();
    let name = match body.get("name").and_then(Value::as_str).map(str::trim) {
        Some(name) if !name.is_empty() && name.chars().count() <= 200 => Some(name.to_string()),
        _ => {
            details.push(problem(
                "name",
                "name is required (1 to 200 characters)",
                "string_type",
            ));
            None
        }
    };
    let kind = body.get("type").and_then(Value::as_str);
    let fields = match TYPES.iter().find(|(name, _)| Some(*name) == kind) {
        Some((name, fields)) => Some((*name, *fields)),
        None => {
            details.push(problem(
                "type",
                format!("type must be one of: {}", type_names()),
                "value_error.enum",
            ));
            None
        }
    };
    let mut config = None;
    if let Some((kind, fields)) = fields {
        let raw = body.get("config").cloned().unwrap_or(Value::Null);
        if raw.is_null() {
            details.push(problem("config", "field required", "missing"));
        } else {
            config = Some(check_config(&state, kind, fields, &raw, &mut details).await);
        }
    }
    if !details.is_empty() {
        return Err(ApiError::validation(details));
    }
    let (Some(name), Some((kind, _)), Some((public, secrets))) = (name, fields, config) else {
        return Err(ApiError::validation(details));
    };
    let sealed = state
        .secrets
        .seal(&Value::Object(secrets).to_string())
        .ok_or_else(|| ApiError::internal(&std::io::Error::other("cannot encrypt the secrets")))?;
    let connector = state
        .store
        .create_connector(
            auth.tenant_id,
            kind,
            &name,
            &Value::Object(public),
            &sealed,
            state.clock.now(),
        )
        .await?;
    accounts::audit(
        &state,
        auth.audit(
            "connector_create",
            Some(("connector", connector.id.to_string())),
            json!({"type": kind}),
        ),
    )
    .await;
    Ok(HttpResponse::Created().json(Envelope {
        data: connector_view(&connector),
    }))
}

/// The tenant's connectors, newest first (secrets as `***`).
#[utoipa::path(get, path = "/v1/connectors", operation_id = "list_connectors", tag = "connectors",
    params(
        ("page" = Option<i64>, Query, description = "Page, from 1 (default 1)"),
        ("page_size" = Option<i64>, Query, description = "1 to 100 (default 20)")
    ),
    responses(
        (status = 200, description = "One page of connectors, newest first", body = Envelope<Page<ConnectorView>>),
        (status = 401, body = crate::error::ErrorBody),
        (status = 422, body = crate::error::ValidationErrorBody)
    ),
    security(("api_key" = []), ("bearer" = [])))]
#[get("/v1/connectors")]
pub async fn list(
    state: web::Data<AppState>,
    auth: Authenticated,
    query: Query,
) -> Result<HttpResponse, ApiError> {
    let pagination = Pagination::only(&query)?;
    let (connectors, total) = state
        .store
        .connectors_page(auth.tenant_id, page_request(pagination))
        .await?;
    Ok(crate::api::page_response(
        connectors.iter().map(connector_view).collect(),
        pagination,
        total,
    ))
}

/// One connector (secrets as `***`).
#[utoipa::path(get, path = "/v1/connectors/{connector_id}", operation_id = "get_connector", tag = "connectors",
    params(("connector_id" = i64, Path, description = "Connector id")),
    responses(
        (status = 200, description = "The connector", body = Envelope<ConnectorView>),
        (status = 401, body = crate::error::ErrorBody),
        (status = 404, description = "`connector_not_found`", body = crate::error::ErrorBody),
        (status = 422, body = crate::error::ValidationErrorBody)
    ),
    security(("api_key" = []), ("bearer" = [])))]
#[get("/v1/connectors/{connector_id}")]
pub async fn detail(
    state: web::Data<AppState>,
    auth: Authenticated,
    connector_id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let connector_id = path_id(&connector_id, "connector_id")?;
    let connector = found(&state, &auth, connector_id).await?;
    Ok(HttpResponse::Ok().json(Envelope {
        data: connector_view(&connector),
    }))
}

/// Tests the connection: lists one page under the connector's prefix and reads the first object.
/// A provider's refusal is an answer, not an error: `ok: false` with its code.
#[utoipa::path(post, path = "/v1/connectors/{connector_id}/test", operation_id = "test_connector", tag = "connectors",
    params(("connector_id" = i64, Path, description = "Connector id")),
    responses(
        (status = 200, body = Envelope<TestOutcome>, description = "`{ok: true, objects_seen, latency_ms}`, or `{ok: false, code, message}` with code one of bad_credentials, bucket_not_found, permission_denied (the message names list or read), unreachable, timeout, provider_error, target_refused (the egress guard refused where the connector points: the message names the field)"),
        (status = 401, body = crate::error::ErrorBody),
        (status = 404, description = "`connector_not_found`", body = crate::error::ErrorBody),
        (status = 422, body = crate::error::ValidationErrorBody)
    ),
    security(("api_key" = []), ("bearer" = [])))]
#[post("/v1/connectors/{connector_id}/test")]
pub async fn test(
    state: web::Data<AppState>,
    auth: Authenticated,
    connector_id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let connector_id = path_id(&connector_id, "connector_id")?;
    let record = found(&state, &auth, connector_id).await?;
    let services = &state.connectors;
    let outcome = match Connector::open(&record, &services.secrets, &services.settings) {
        Ok(connector) => connector.test().await,
        Err(error) => TestOutcome::Failed {
            ok: false,
            code: error.code.as_str(),
            message: error.message,
        },
    };
    let ok = matches!(outcome, TestOutcome::Ok { .. });
    accounts::audit(
        &state,
        auth.audit(
            "connector_test",
            Some(("connector", connector_id.to_string())),
            json!({"ok": ok}),
        ),
    )
    .await;
    Ok(HttpResponse::Ok().json(Envelope { data: outcome }))
}

/// Deletes a connector with its schedules; documents it brought stay.
#[utoipa::path(delete, path = "/v1/connectors/{connector_id}", operation_id = "delete_connector", tag = "connectors",
    params(("connector_id" = i64, Path, description = "Connector id")),
    responses(
        (status = 204, description = "Deleted"),
        (status = 401, body = crate::error::ErrorBody),
        (status = 404, description = "`connector_not_found`", body = crate::error::ErrorBody),
        (status = 422, body = crate::error::ValidationErrorBody)
    ),
    security(("api_key" = []), ("bearer" = [])))]
#[delete("/v1/connectors/{connector_id}")]
pub async fn remove(
    state: web::Data<AppState>,
    auth: Authenticated,
    connector_id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let connector_id = path_id(&connector_id, "connector_id")?;
    let found = state
        .store
        .delete_connector(auth.tenant_id, connector_id)
        .await?;
    super::common::deleted(
        &state,
        &auth,
        ("connector_delete", "connector", connector_id),
        found,
        not_found,
    )
    .await
}

/// This resource's routes.
pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(create)
        .service(list)
        .service(detail)
        .service(test)
        .service(remove);
}
