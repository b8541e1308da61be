//! /v1/me and /v1/me/api-keys: the caller's account and its API keys.

use actix_web::{delete, get, post, web, HttpResponse};
use chrono::{DateTime, Utc};
use docsieve_actors::store::ApiKeyRecord;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use super::{envelope, Envelope, Page};
use crate::accounts;
use crate::auth::scope::Scope;
use crate::auth::{tokens, Authenticated};
use crate::error::{ApiError, ErrorCode, ErrorKind, ValidationDetail};
use crate::state::AppState;
use crate::validation::{path_id, Pagination, Query, ValidJson};

#[derive(Serialize, ToSchema)]
pub struct Me {
    pub user_id: i64,
    pub email: String,
    pub tenant_id: i64,
    #[schema(value_type = crate::api::vocab::Role)]
    pub role: String,
    #[schema(value_type = crate::api::vocab::Plan)]
    pub plan: String,
    pub tenant_status: String,
}

/// The caller: user, current tenant, role and plan.
#[utoipa::path(get, path = "/v1/me", operation_id = "get_me", tag = "account", responses((status = 200, body = Envelope<Me>), (status = 401, body = crate::error::ErrorBody)),
    security(("api_key" = []), ("bearer" = [])))]
#[get("/v1/me")]
pub async fn me(
    state: web::Data<AppState>,
    auth: Authenticated,
) -> Result<web::Json<Envelope<Me>>, ApiError> {
    let user = state
        .store
        .user_by_id(auth.user_id)
        .await?
        .ok_or_else(|| ApiError::not_found(ErrorCode::UserNotFound, "user not found"))?;
    let tenant = state
        .store
        .tenant_by_id(auth.tenant_id)
        .await?
        .ok_or_else(|| ApiError::not_found(ErrorCode::TenantNotFound, "tenant not found"))?;
    Ok(envelope(Me {
        user_id: user.id,
        email: user.email,
        tenant_id: tenant.id,
        role: auth.role,
        plan: tenant.plan,
        tenant_status: tenant.status,
    }))
}

#[derive(Deserialize, ToSchema, Default)]
pub struct CreateApiKeyRequest {
    /// A label to recognise the key by (default `default`).
    pub name: Option<String>,
    /// What the key may do (default `admin`: everything its user's role allows): `read_only` (every
    /// GET), `processing` (that, and processing documents: previews, uploads, reprocessing, CSV
    /// exports, datasets, fine-tuning, a connector's test, a schedule's trigger) or `admin`. A route
    /// beyond the key's scope answers 403 `insufficient_scope`.
    #[schema(value_type = Option<crate::auth::scope::Scope>)]
    pub scope: Option<String>,
}

#[derive(Serialize, ToSchema)]
pub struct CreatedApiKey {
    pub id: i64,
    pub name: String,
    /// Public part of the key, shown in listings.
    pub prefix: String,
    /// The whole key. Shown only in this response; store it now.
    pub api_key: String,
    #[schema(value_type = crate::auth::scope::Scope)]
    pub scope: String,
    pub created_at: DateTime<Utc>,
}

#[derive(Serialize, ToSchema)]
pub struct ApiKeyView {
    pub id: i64,
    pub name: String,
    pub prefix: String,
    pub user_id: i64,
    #[schema(value_type = crate::auth::scope::Scope)]
    pub scope: String,
    pub created_at: DateTime<Utc>,
    pub last_used_at: Option<DateTime<Utc>>,
    pub revoked_at: Option<DateTime<Utc>>,
}

impl From<ApiKeyRecord> for ApiKeyView {
    fn from(key: ApiKeyRecord) -> Self {
        ApiKeyView {
            id: key.id,
            name: key.name,
            prefix: key.prefix,
            user_id: key.user_id,
            scope: key.scope,
            created_at: key.created_at,
            last_used_at: key.last_used_at,
            revoked_at: key.revoked_at,
        }
    }
}

/// Creates an API key for the caller's tenant (verified, active accounts only). Send it as
/// `X-API-KEY`.
#[utoipa::path(post, path = "/v1/me/api-keys", operation_id = "create_api_key", tag = "account", request_body(content = CreateApiKeyRequest, description = "Optional; may be empty"),
    responses((status = 201, body = Envelope<CreatedApiKey>), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)),
    security(("api_key" = []), ("bearer" = [])))]
#[post("/v1/me/api-keys")]
pub async fn create_api_key(
    state: web::Data<AppState>,
    auth: Authenticated,
    body: ValidJson<CreateApiKeyRequest>,
) -> Result<HttpResponse, ApiError> {
    let CreateApiKeyRequest { name, scope } = body.0;
    let name = name
        .unwrap_or_else(|| "default".to_string())
        .trim()
        .to_string();
    let mut problems = Vec::new();
    if name.is_empty() || name.chars().count() > 100 {
        problems.push(ValidationDetail::new(
            "body",
            "name",
            "must be 1 to 100 characters",
            "value_error.any_str.length",
        ));
    }
    let scope = match scope.as_deref().map(Scope::parse) {
        None => Some(Scope::Admin),
        Some(Some(scope)) => Some(scope),
        Some(None) => {
            problems.push(ValidationDetail::new(
                "body",
                "scope",
                "must be one of read_only, processing, admin",
                "value_error.enum",
            ));
            None
        }
    };
    let Some(scope) = scope.filter(|_| problems.is_empty()) else {
        return Err(ApiError::validation(problems));
    };
    // A key never gets more than the key that makes it.
    if let Some(own) = auth.key_scope {
        if scope > own {
            return Err(ApiError::new(
                ErrorKind::Forbidden,
                ErrorCode::InsufficientScope,
                format!(
                    "this API key is {}: it cannot make a key of scope {}",
                    own.as_str(),
                    scope.as_str()
                ),
            ));
        }
    }
    let tenant = state.store.tenant_by_id(auth.tenant_id).await?;
    if tenant.is_none_or(|t| t.status != "active") {
        return Err(ApiError::new(
            ErrorKind::Forbidden,
            ErrorCode::AccountNotActive,
            "API keys can only be created for a verified, active account",
        ));
    }
    let key = tokens::new_api_key();
    let record = state
        .store
        .create_api_key(
            auth.tenant_id,
            auth.user_id,
            (&name, scope.as_str()),
            &key.prefix,
            &tokens::hash_token(&key.key),
            state.clock.now(),
        )
        .await?;
    accounts::audit(
        &state,
        auth.audit(
            "api_key_created",
            Some(("api_key", record.id.to_string())),
            serde_json::json!({"scope": scope.as_str()}),
        ),
    )
    .await;
    Ok(HttpResponse::Created().json(Envelope {
        data: CreatedApiKey {
            id: record.id,
            name: record.name,
            prefix: record.prefix,
            api_key: key.key,
            scope: record.scope,
            created_at: record.created_at,
        },
    }))
}

/// The tenant's API keys, without their secrets.
#[utoipa::path(get, path = "/v1/me/api-keys", operation_id = "list_api_keys", tag = "account",
    params(("page" = Option<u64>, Query), ("page_size" = Option<u64>, Query)),
    responses((status = 200, body = Envelope<Page<ApiKeyView>>), (status = 401, body = crate::error::ErrorBody)),
    security(("api_key" = []), ("bearer" = [])))]
#[get("/v1/me/api-keys")]
pub async fn list_api_keys(
    state: web::Data<AppState>,
    auth: Authenticated,
    query: Query,
) -> Result<web::Json<Envelope<Page<ApiKeyView>>>, ApiError> {
    let pagination = Pagination::only(&query)?;
    let keys = state.store.list_api_keys(auth.tenant_id).await?;
    Ok(envelope(Page::slice(
        keys.into_iter().map(ApiKeyView::from).collect(),
        pagination,
    )))
}

/// Revokes one of the tenant's API keys.
#[utoipa::path(delete, path = "/v1/me/api-keys/{id}", operation_id = "revoke_api_key", tag = "account",
    params(("id" = i64, Path)),
    responses((status = 200, body = Envelope<ApiKeyView>), (status = 404, body = crate::error::ErrorBody)),
    security(("api_key" = []), ("bearer" = [])))]
#[delete("/v1/me/api-keys/{id}")]
pub async fn revoke_api_key(
    state: web::Data<AppState>,
    auth: Authenticated,
    id: web::Path<String>,
) -> Result<web::Json<Envelope<ApiKeyView>>, ApiError> {
    let id = path_id(&id, "id")?;
    if !state
        .store
        .revoke_api_key(auth.tenant_id, id, state.clock.now())
        .await?
    {
        return Err(ApiError::not_found(
            ErrorCode::ApiKeyNotFound,
            "no such API key",
        ));
    }
    accounts::audit(
        &state,
        auth.audit(
            "api_key_revoked",
            Some(("api_key", id.to_string())),
            serde_json::json!({}),
        ),
    )
    .await;
    let key = state
        .store
        .list_api_keys(auth.tenant_id)
        .await?
        .into_iter()
        .find(|key| key.id == id)
        .ok_or_else(|| ApiError::not_found(ErrorCode::ApiKeyNotFound, "no such API key"))?;
    Ok(envelope(ApiKeyView::from(key)))
}

/// This resource's routes.
pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(me)
        .service(create_api_key)
        .service(list_api_keys)
        .service(revoke_api_key);
}
