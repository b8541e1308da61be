//! `Authenticated`: the typed tenant context every /v1 handler (except /v1/auth/*) receives.
//!
//! Accepts `X-API-KEY` or `Authorization: Bearer <access token>`. The membership is checked on every
//! request, so removing a member or revoking a key takes effect at once.

use actix_web::dev::Payload;
use actix_web::{web, FromRequest, HttpRequest};
use futures_util::future::LocalBoxFuture;

use super::{jwt, secrets_equal, tokens};
use crate::error::{ApiError, ErrorCode, ErrorKind};
use crate::state::AppState;

/// Who is calling.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Principal {
    User,
    ApiKey { key_id: i64 },
}

#[derive(Clone, Debug)]
pub struct Authenticated {
    pub tenant_id: i64,
    pub user_id: i64,
    /// `owner`, `admin` or `member`.
    pub role: String,
    pub principal: Principal,
    /// An API key's scope (None: the user's own session, which has none).
    pub key_scope: Option<super::scope::Scope>,
    /// The client's address (`X-Forwarded-For` only from `server.trusted_proxies`), for audit entries.
    pub ip: Option<std::net::IpAddr>,
}

impl Authenticated {
    /// 403 unless the caller has one of `roles`.
    pub fn require_role(&self, roles: &[&str]) -> Result<(), ApiError> {
        if roles.contains(&self.role.as_str()) {
            Ok(())
        } else {
            Err(ApiError::new(
                ErrorKind::Forbidden,
                ErrorCode::Forbidden,
                format!("this action needs the role {}", roles.join(" or ")),
            ))
        }
    }

    /// A successful audit entry of this caller in its tenant, on `target` (kind, id) when given.
    pub fn audit(
        &self,
        action: &'static str,
        target: Option<(&'static str, String)>,
        details: serde_json::Value,
    ) -> docsieve_actors::store::AuditRecord {
        self.audit_outcome(action, target, "success", details)
    }

    /// An audit entry of this caller in its tenant with its `outcome` (`success`, `failure`,
    /// `denied`), from the caller's address.
    pub fn audit_outcome(
        &self,
        action: &'static str,
        target: Option<(&'static str, String)>,
        outcome: &'static str,
        details: serde_json::Value,
    ) -> docsieve_actors::store::AuditRecord {
        let (actor_type, actor_id) = self.actor();
        let (target_type, target_id) = target.unzip();
        docsieve_actors::store::AuditRecord {
            tenant_id: Some(self.tenant_id),
            actor_type,
            actor_id: Some(actor_id),
            action,
            target_type,
            target_id,
            outcome,
            ip: self.ip.map(|ip| ip.to_string()),
            details,
        }
    }

    /// For audit entries: `("user", "<id>")` or `("api_key", "<id>")`.
    pub fn actor(&self) -> (&'static str, String) {
        match self.principal {
            Principal::User => ("user", self.user_id.to_string()),
            Principal::ApiKey { key_id } => ("api_key", key_id.to_string()),
        }
    }
}

fn unauthenticated(code: ErrorCode, message: &str) -> ApiError {
    ApiError::new(ErrorKind::Unauthenticated, code, message)
}

async fn from_api_key(state: &AppState, key: &str) -> Result<Authenticated, ApiError> {
    let invalid = || unauthenticated(ErrorCode::InvalidApiKey, "the API key is not valid");
    let prefix = tokens::api_key_prefix(key).ok_or_else(invalid)?;
    let (record, role) = state
        .store
        .active_api_key(prefix)
        .await?
        .ok_or_else(invalid)?;
    if !secrets_equal(
        tokens::hash_token(key).as_bytes(),
        record.key_hash.as_bytes(),
    ) {
        return Err(invalid());
    }
    let role = role.ok_or_else(invalid)?;
    // A scope this build does not know counts as the narrowest.
    let scope = super::scope::Scope::parse(&record.scope).unwrap_or(super::scope::Scope::ReadOnly);
    state
        .store
        .touch_api_key(&record, state.clock.now())
        .await?;
    Ok(Authenticated {
        tenant_id: record.tenant_id,
        user_id: record.user_id,
        role,
        principal: Principal::ApiKey { key_id: record.id },
        key_scope: Some(scope),
        ip: None,
    })
}

async fn from_bearer(state: &AppState, token: &str) -> Result<Authenticated, ApiError> {
    let (user_id, tenant_id) =
        jwt::verify(&state.settings.auth.jwt_secret, token, state.clock.now()).map_err(
            |error| match error {
                jwt::TokenError::Expired => unauthenticated(
                    ErrorCode::TokenExpired,
                    "the access token has expired; refresh it",
                ),
                jwt::TokenError::Invalid => {
                    unauthenticated(ErrorCode::InvalidToken, "the access token is not valid")
                }
            },
        )?;
    let user = state
        .store
        .user_by_id(user_id)
        .await?
        .filter(|user| user.status == "active")
        .ok_or_else(|| unauthenticated(ErrorCode::InvalidToken, "the access token is not valid"))?;
    let role = state
        .store
        .role_of(tenant_id, user.id)
        .await?
        .ok_or_else(|| {
            unauthenticated(
                ErrorCode::InvalidToken,
                "the access token is not valid for this tenant any more; log in again",
            )
        })?;
    Ok(Authenticated {
        tenant_id,
        user_id,
        role,
        principal: Principal::User,
        key_scope: None,
        ip: None,
    })
}

async fn authenticate(request: HttpRequest) -> Result<Authenticated, ApiError> {
    let state = request.app_data::<web::Data<AppState>>().ok_or_else(|| {
        ApiError::new(
            ErrorKind::Internal,
            ErrorCode::InternalError,
            "application state missing",
        )
    })?;
    if let Some(key) = request.headers().get("x-api-key") {
        let key = key
            .to_str()
            .map_err(|_| unauthenticated(ErrorCode::InvalidApiKey, "the API key is not valid"))?;
        let caller = from_api_key(state, key.trim()).await?;
        let needed = super::scope::needed(request.method().as_str(), request.path());
        if let Some(scope) = caller.key_scope.filter(|scope| *scope < needed) {
            return Err(ApiError::new(
                ErrorKind::Forbidden,
                ErrorCode::InsufficientScope,
                format!(
                    "this API key's scope is {}; {} {} needs {}",
                    scope.as_str(),
                    request.method(),
                    request.path(),
                    needed.as_str()
                ),
            ));
        }
        return Ok(caller);
    }
    if let Some(value) = request.headers().get("authorization") {
        let value = value.to_str().unwrap_or_default();
        let token = value
            .strip_prefix("Bearer ")
            .or_else(|| value.strip_prefix("bearer "))
            .ok_or_else(|| {
                unauthenticated(
                    ErrorCode::InvalidToken,
                    "the Authorization header must be 'Bearer <token>'",
                )
            })?;
        return from_bearer(state, token.trim()).await;
    }
    Err(unauthenticated(
        ErrorCode::NotAuthenticated,
        "send an X-API-KEY header or an Authorization: Bearer access token",
    ))
}

impl FromRequest for Authenticated {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Authenticated, ApiError>>;

    fn from_request(request: &HttpRequest, _payload: &mut Payload) -> Self::Future {
        let request = request.clone();
        Box::pin(async move {
            let mut caller = authenticate(request.clone()).await?;
            caller.ip = request.app_data::<web::Data<AppState>>().and_then(|state| {
                super::client_ip::client_ip(&request, &state.settings.auth.trusted_proxies)
            });
            Ok(caller)
        })
    }
}
