//! /v1/auth/*: signup, email verification, login, refresh rotation, logout, password reset.
//! No authentication required; every rule of the spec's "Authentication" section is enforced here.

use std::time::Duration;

use actix_web::{post, web, HttpRequest, HttpResponse};
use docsieve_actors::store::{AuditRecord, RefreshOutcome, StoreError, TokenCheck};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use super::{envelope, Envelope};
use crate::accounts::{self, TokenPair};
use crate::auth::client_ip::client_ip;
use crate::auth::{password, tokens};
use crate::error::{ApiError, ErrorCode, ErrorKind};
use crate::state::AppState;
use crate::validation::ValidJson;

#[derive(Deserialize, ToSchema)]
pub struct SignupRequest {
    pub email: String,
    /// At least 8 characters.
    pub password: String,
}

#[derive(Serialize, ToSchema)]
pub struct SignupResponse {
    pub tenant_id: i64,
    pub user_id: i64,
    pub email: String,
    /// `pending_verification` until the emailed token is confirmed.
    pub status: &'static str,
}

#[derive(Deserialize, ToSchema)]
pub struct TokenRequest {
    pub token: String,
}

#[derive(Deserialize, ToSchema)]
pub struct EmailRequest {
    pub email: String,
}

#[derive(Deserialize, ToSchema)]
pub struct LoginRequest {
    pub email: String,
    pub password: String,
}

#[derive(Deserialize, ToSchema)]
pub struct RefreshRequest {
    pub refresh_token: String,
}

#[derive(Deserialize, ToSchema)]
pub struct ResetPasswordRequest {
    pub token: String,
    pub new_password: String,
}

#[derive(Serialize, ToSchema)]
pub struct Message {
    pub message: &'static str,
}

#[derive(Serialize, ToSchema)]
pub struct Verified {
    pub user_id: i64,
    pub status: &'static str,
}

fn bad_token(check: &TokenCheck) -> ApiError {
    match check {
        TokenCheck::AlreadyUsed => ApiError::new(
            ErrorKind::BadRequest,
            ErrorCode::TokenUsed,
            "this token has already been used",
        ),
        TokenCheck::Expired => ApiError::new(
            ErrorKind::BadRequest,
            ErrorCode::TokenExpired,
            "this token has expired; ask for a new one",
        ),
        _ => ApiError::new(
            ErrorKind::BadRequest,
            ErrorCode::InvalidToken,
            "this token is not valid",
        ),
    }
}

fn anonymous(
    action: &'static str,
    outcome: &'static str,
    ip: Option<String>,
    tenant_id: Option<i64>,
    user_id: Option<i64>,
) -> AuditRecord {
    AuditRecord {
        tenant_id,
        actor_type: if user_id.is_some() {
            "user"
        } else {
            "anonymous"
        },
        actor_id: user_id.map(|id| id.to_string()),
        action,
        target_type: user_id.map(|_| "user"),
        target_id: user_id.map(|id| id.to_string()),
        outcome,
        ip,
        details: serde_json::json!({}),
    }
}

/// An audit entry about a known user, filed in the user's current tenant.
async fn audit_user(
    state: &AppState,
    action: &'static str,
    outcome: &'static str,
    ip: Option<String>,
    user_id: i64,
) -> Result<(), ApiError> {
    let tenant_id = state.store.user_by_id(user_id).await?.map(|u| u.tenant_id);
    accounts::audit(
        state,
        anonymous(action, outcome, ip, tenant_id, Some(user_id)),
    )
    .await;
    Ok(())
}

fn ip_of(state: &AppState, request: &HttpRequest) -> Option<String> {
    client_ip(request, &state.settings.auth.trusted_proxies).map(|ip| ip.to_string())
}

/// Allows one mail of a kind per address per `auth.mail_interval_seconds`.
async fn mail_allowed(
    state: &AppState,
    kind: &str,
    email: &str,
) -> Result<Result<(), Duration>, ApiError> {
    let window = Duration::from_secs(state.settings.auth.mail_interval_seconds.max(1));
    let key = format!("mail:{kind}:{}", tokens::hash_token(email));
    let count = state
        .cache
        .hit(&key, window)
        .await
        .map_err(|error| ApiError::internal(&error))?;
    Ok(if count.count > 1 {
        Err(count.remaining)
    } else {
        Ok(())
    })
}

fn too_many(code: ErrorCode, message: &str, wait: Duration) -> ApiError {
    ApiError::too_many_requests(code, message, wait.as_secs().max(1))
}

/// Creates tenant, workspace and owner user; mails a verification token.
#[utoipa::path(post, path = "/v1/auth/signup", operation_id = "signup", tag = "auth", request_body = SignupRequest,
    responses((status = 201, body = Envelope<SignupResponse>), (status = 409, body = crate::error::ErrorBody), (status = 422, body = crate::error::ValidationErrorBody)))]
#[post("/v1/auth/signup")]
pub async fn signup(
    state: web::Data<AppState>,
    request: HttpRequest,
    body: ValidJson<SignupRequest>,
) -> Result<HttpResponse, ApiError> {
    let body = body.0;
    let mut problems = Vec::new();
    let email = accounts::normalize_email(&body.email)
        .map_err(|detail| problems.push(detail))
        .ok();
    if let Err(detail) = accounts::check_password(&body.password, "password") {
        problems.push(detail);
    }
    let (Some(email), true) = (email, problems.is_empty()) else {
        return Err(ApiError::validation(problems));
    };
    let hash = password::hash(body.password).await?;
    let token = tokens::random_token();
    let now = state.clock.now();
    let expires =
        now + chrono::Duration::hours(state.settings.auth.verification_token_ttl_hours as i64);
    let created = match state
        .store
        .create_account(&email, &hash, &tokens::hash_token(&token), expires, now)
        .await
    {
        Ok(created) => created,
        Err(StoreError::Duplicate) => {
            return Err(ApiError::new(
                ErrorKind::Conflict,
                ErrorCode::EmailTaken,
                "an account with this email already exists",
            ))
        }
        Err(error) => return Err(error.into()),
    };
    // The tenant's pseudonym key is made with it (were the store to fail here, at its first need).
    if let Err(error) = state.privacy.ensure_key(created.tenant_id).await {
        tracing::warn!(%error, tenant = created.tenant_id, "the new tenant's pseudonym key could not be made; it will be at its first use");
    }
    accounts::send_verification(&state, &email, &token);
    accounts::audit(
        &state,
        anonymous(
            "signup",
            "success",
            ip_of(&state, &request),
            Some(created.tenant_id),
            Some(created.user_id),
        ),
    )
    .await;
    Ok(HttpResponse::Created().json(Envelope {
        data: SignupResponse {
            tenant_id: created.tenant_id,
            user_id: created.user_id,
            email,
            status: "pending_verification",
        },
    }))
}

/// Confirms the emailed token; activates the account and its tenant.
#[utoipa::path(post, path = "/v1/auth/verify-email", operation_id = "verify_email", tag = "auth", request_body = TokenRequest,
    responses((status = 200, body = Envelope<Verified>), (status = 400, body = crate::error::ErrorBody)))]
#[post("/v1/auth/verify-email")]
pub async fn verify_email(
    state: web::Data<AppState>,
    request: HttpRequest,
    body: ValidJson<TokenRequest>,
) -> Result<web::Json<Envelope<Verified>>, ApiError> {
    let now = state.clock.now();
    let check = state
        .store
        .consume_email_token(
            "verify_email",
            &tokens::hash_token(body.0.token.trim()),
            now,
        )
        .await?;
    let TokenCheck::Consumed(user_id) = check else {
        return Err(bad_token(&check));
    };
    for tenant_id in state.store.activate_user(user_id, now).await? {
        // A verified tenant's first (trial) billing period, with its credits.
        state
            .store
            .first_period(tenant_id, &state.settings.plans, now)
            .await?;
    }
    audit_user(
        &state,
        "email_verified",
        "success",
        ip_of(&state, &request),
        user_id,
    )
    .await?;
    Ok(envelope(Verified {
        user_id,
        status: "active",
    }))
}

/// Sends a new verification mail (old tokens stop working). One per address per 60 s; the answer is
/// the same whether or not the address has an unverified account.
#[utoipa::path(post, path = "/v1/auth/resend-verification", operation_id = "resend_verification", tag = "auth", request_body = EmailRequest,
    responses((status = 200, body = Envelope<Message>), (status = 429, body = crate::error::ErrorBody)))]
#[post("/v1/auth/resend-verification")]
pub async fn resend_verification(
    state: web::Data<AppState>,
    body: ValidJson<EmailRequest>,
) -> Result<web::Json<Envelope<Message>>, ApiError> {
    let email = accounts::normalize_email(&body.0.email)
        .map_err(|detail| ApiError::validation(vec![detail]))?;
    if let Err(wait) = mail_allowed(&state, "verify_email", &email).await? {
        return Err(too_many(
            ErrorCode::ResendTooSoon,
            "a verification mail was sent to this address recently; try again later",
            wait,
        ));
    }
    if let Some(user) = state.store.user_by_email(&email).await? {
        if user.status == "pending_verification" {
            let token = tokens::random_token();
            let now = state.clock.now();
            let expires = now
                + chrono::Duration::hours(state.settings.auth.verification_token_ttl_hours as i64);
            state
                .store
                .replace_email_token(
                    user.id,
                    "verify_email",
                    &tokens::hash_token(&token),
                    expires,
                    now,
                )
                .await?;
            accounts::send_verification(&state, &email, &token);
        }
    }
    Ok(envelope(Message {
        message: "if this address has an unverified account, a new verification mail is on its way",
    }))
}

/// Exchanges email and password for an access token and a refresh token. Five consecutive failures
/// from one IP block it for five minutes (429 with Retry-After).
#[utoipa::path(post, path = "/v1/auth/login", operation_id = "login", tag = "auth", request_body = LoginRequest,
    responses((status = 200, body = Envelope<TokenPair>), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody), (status = 429, body = crate::error::ErrorBody)))]
#[post("/v1/auth/login")]
pub async fn login(
    state: web::Data<AppState>,
    request: HttpRequest,
    body: ValidJson<LoginRequest>,
) -> Result<web::Json<Envelope<TokenPair>>, ApiError> {
    Ok(envelope(sign_in(&state, &request, body.0).await?))
}

/// Checks a login's email and password (with the per-IP block) and opens a session: the token pair.
pub(super) async fn sign_in(
    state: &AppState,
    request: &HttpRequest,
    body: LoginRequest,
) -> Result<TokenPair, ApiError> {
    let ip = ip_of(state, request).unwrap_or_else(|| "unknown".to_string());
    let block_key = format!("login-block:{ip}");
    let failures_key = format!("login-failures:{ip}");
    let cache_error = |error: docsieve_actors::cache::CacheError| ApiError::internal(&error);
    if let Some(wait) = state
        .cache
        .remaining(&block_key)
        .await
        .map_err(cache_error)?
    {
        accounts::audit(
            state,
            anonymous("login_blocked", "denied", Some(ip.clone()), None, None),
        )
        .await;
        return Err(too_many(
            ErrorCode::TooManyFailedLogins,
            "too many failed logins from this address; try again later",
            wait,
        ));
    }
    let email = body.email.trim().to_lowercase();
    let user = state.store.user_by_email(&email).await?;
    let valid = password::verify(
        body.password,
        user.as_ref().map(|u| u.password_hash.clone()),
    )
    .await?;
    let Some(user) = user.filter(|_| valid) else {
        let window = Duration::from_secs(state.settings.auth.login_block_seconds);
        let failures = state
            .cache
            .hit(&failures_key, window)
            .await
            .map_err(cache_error)?;
        if failures.count >= state.settings.auth.login_max_failures {
            state
                .cache
                .hit(&block_key, window)
                .await
                .map_err(cache_error)?;
            state
                .cache
                .clear(&failures_key)
                .await
                .map_err(cache_error)?;
            tracing::warn!(%ip, "login blocked after repeated failures");
        }
        accounts::audit(
            state,
            anonymous("login_failed", "failure", Some(ip), None, None),
        )
        .await;
        return Err(ApiError::new(
            ErrorKind::Unauthenticated,
            ErrorCode::InvalidCredentials,
            "email or password is wrong",
        ));
    };
    state
        .cache
        .clear(&failures_key)
        .await
        .map_err(cache_error)?;
    if user.status != "active" {
        return Err(ApiError::new(ErrorKind::Forbidden, ErrorCode::EmailNotVerified, "confirm your email address first (see the verification mail, or POST /v1/auth/resend-verification)"));
    }
    let pair = accounts::new_session(state, user.id, user.tenant_id).await?;
    accounts::audit(
        state,
        anonymous(
            "login_succeeded",
            "success",
            Some(ip),
            Some(user.tenant_id),
            Some(user.id),
        ),
    )
    .await;
    Ok(pair)
}

/// Rotates a refresh token: the old one is revoked at once. Presenting a revoked token revokes its
/// whole family.
#[utoipa::path(post, path = "/v1/auth/refresh", operation_id = "refresh_tokens", tag = "auth", request_body = RefreshRequest,
    responses((status = 200, body = Envelope<TokenPair>), (status = 401, body = crate::error::ErrorBody)))]
#[post("/v1/auth/refresh")]
pub async fn refresh(
    state: web::Data<AppState>,
    request: HttpRequest,
    body: ValidJson<RefreshRequest>,
) -> Result<web::Json<Envelope<TokenPair>>, ApiError> {
    Ok(envelope(
        rotate(&state, &request, &body.0.refresh_token).await?,
    ))
}

/// Rotates `refresh_token` into a new pair (a reused one revokes its family).
pub(super) async fn rotate(
    state: &AppState,
    request: &HttpRequest,
    refresh_token: &str,
) -> Result<TokenPair, ApiError> {
    let new_token = tokens::random_token();
    let outcome = state
        .store
        .rotate_refresh_token(
            &tokens::hash_token(refresh_token.trim()),
            &tokens::hash_token(&new_token),
            accounts::refresh_expiry(state),
            state.clock.now(),
        )
        .await?;
    match outcome {
        RefreshOutcome::Rotated { user_id, tenant_id } => {
            let active = state
                .store
                .user_by_id(user_id)
                .await?
                .is_some_and(|u| u.status == "active");
            if !active {
                return Err(ApiError::new(
                    ErrorKind::Unauthenticated,
                    ErrorCode::InvalidRefreshToken,
                    "the refresh token is not valid",
                ));
            }
            Ok(TokenPair {
                access_token: accounts::access_token(state, user_id, tenant_id)?,
                refresh_token: new_token,
                token_type: "bearer",
                expires_in: state.settings.auth.access_token_ttl_seconds,
            })
        }
        RefreshOutcome::Reused { user_id, .. } => {
            let ip = ip_of(state, request);
            tracing::warn!(
                user_id,
                ip = ip.as_deref().unwrap_or(""),
                "security: revoked refresh token presented again; its family is revoked"
            );
            audit_user(state, "refresh_token_reused", "denied", ip, user_id).await?;
            Err(ApiError::new(ErrorKind::Unauthenticated, ErrorCode::RefreshTokenReused, "this refresh token was already used; every session of this login is revoked, log in again"))
        }
        RefreshOutcome::Expired => Err(ApiError::new(
            ErrorKind::Unauthenticated,
            ErrorCode::RefreshTokenExpired,
            "the refresh token has expired; log in again",
        )),
        RefreshOutcome::Unknown => Err(ApiError::new(
            ErrorKind::Unauthenticated,
            ErrorCode::InvalidRefreshToken,
            "the refresh token is not valid",
        )),
    }
}

/// Revokes the given refresh token (idempotent). The access token expires by itself.
#[utoipa::path(post, path = "/v1/auth/logout", operation_id = "logout", tag = "auth", request_body = RefreshRequest,
    responses((status = 200, body = Envelope<Message>)))]
#[post("/v1/auth/logout")]
pub async fn logout(
    state: web::Data<AppState>,
    request: HttpRequest,
    body: ValidJson<RefreshRequest>,
) -> Result<web::Json<Envelope<Message>>, ApiError> {
    revoke(&state, &request, &body.0.refresh_token).await?;
    Ok(envelope(Message {
        message: "logged out",
    }))
}

/// Revokes `refresh_token` (nothing when it is unknown or already revoked).
pub(super) async fn revoke(
    state: &AppState,
    request: &HttpRequest,
    refresh_token: &str,
) -> Result<(), ApiError> {
    if let Some(user_id) = state
        .store
        .revoke_refresh_token(&tokens::hash_token(refresh_token.trim()), state.clock.now())
        .await?
    {
        audit_user(state, "logout", "success", ip_of(state, request), user_id).await?;
    }
    Ok(())
}

/// Always 200. A registered address receives a reset token valid for one hour, usable once.
#[utoipa::path(post, path = "/v1/auth/forgot-password", operation_id = "forgot_password", tag = "auth", request_body = EmailRequest,
    responses((status = 200, body = Envelope<Message>)))]
#[post("/v1/auth/forgot-password")]
pub async fn forgot_password(
    state: web::Data<AppState>,
    body: ValidJson<EmailRequest>,
) -> Result<web::Json<Envelope<Message>>, ApiError> {
    let answer = Message {
        message: "if this address is registered, a password reset mail is on its way",
    };
    let Ok(email) = accounts::normalize_email(&body.0.email) else {
        return Ok(envelope(answer));
    };
    // Quietly limited like resend, so the endpoint cannot be used to flood a mailbox.
    if mail_allowed(&state, "reset_password", &email)
        .await?
        .is_err()
    {
        return Ok(envelope(answer));
    }
    if let Some(user) = state.store.user_by_email(&email).await? {
        let token = tokens::random_token();
        let now = state.clock.now();
        let expires =
            now + chrono::Duration::minutes(state.settings.auth.reset_token_ttl_minutes as i64);
        state
            .store
            .replace_email_token(
                user.id,
                "reset_password",
                &tokens::hash_token(&token),
                expires,
                now,
            )
            .await?;
        accounts::send_reset(&state, &email, &token);
    }
    Ok(envelope(answer))
}

/// Sets a new password with a reset token and revokes every refresh token of the account.
#[utoipa::path(post, path = "/v1/auth/reset-password", operation_id = "reset_password", tag = "auth", request_body = ResetPasswordRequest,
    responses((status = 200, body = Envelope<Message>), (status = 400, body = crate::error::ErrorBody), (status = 422, body = crate::error::ValidationErrorBody)))]
#[post("/v1/auth/reset-password")]
pub async fn reset_password(
    state: web::Data<AppState>,
    request: HttpRequest,
    body: ValidJson<ResetPasswordRequest>,
) -> Result<web::Json<Envelope<Message>>, ApiError> {
    let body = body.0;
    accounts::check_password(&body.new_password, "new_password")
        .map_err(|detail| ApiError::validation(vec![detail]))?;
    let hash = password::hash(body.new_password).await?;
    let now = state.clock.now();
    let check = state
        .store
        .consume_email_token(
            "reset_password",
            &tokens::hash_token(body.token.trim()),
            now,
        )
        .await?;
    let TokenCheck::Consumed(user_id) = check else {
        return Err(bad_token(&check));
    };
    state.store.set_password(user_id, &hash, now).await?;
    audit_user(
        &state,
        "password_reset",
        "success",
        ip_of(&state, &request),
        user_id,
    )
    .await?;
    Ok(envelope(Message {
        message: "password changed; every session was logged out",
    }))
}

/// This resource's routes.
pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(signup)
        .service(verify_email)
        .service(resend_verification)
        .service(login)
        .service(refresh)
        .service(logout)
        .service(forgot_password)
        .service(reset_password);
}
