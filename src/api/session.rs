//! /v1/auth/session: a signed-in browser's session, for the web console (and any browser client).
//!
//! The login and refresh routes hand a refresh token to the caller, who keeps it; a page would have to
//! keep it in `localStorage`, where any script running on the page (an injected one too) can read it.
//! Here the refresh token lives in a cookie the page's scripts cannot read (`HttpOnly`), sent only to
//! these routes (`Path=/v1/auth/session`) and only by pages of this origin (`SameSite=Strict`;
//! `Secure` when the request came over HTTPS: see [`over_https`]). The page keeps the short-lived access token in memory
//! and calls the API with it as a bearer token, like any client: no other route reads the cookie, so
//! no other route can be driven by a forged cross-site request. These routes additionally require the
//! `X-Docsieve-Browser: 1` header, which a cross-site form cannot send and a cross-site script can send
//! only after a CORS preflight this server never grants (the OWASP custom-header defence), so that
//! not even a browser that ignores SameSite lets another site sign a user in or out.

use actix_web::http::header;
use actix_web::{delete, post, web, HttpRequest, HttpResponse};
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use super::auth::{revoke, rotate, sign_in, LoginRequest, Message};
use super::{envelope, Envelope};
use crate::accounts::TokenPair;
use crate::error::{ApiError, ErrorCode, ErrorKind};
use crate::state::AppState;
use crate::validation::ValidJson;

/// The cookie holding a browser session's refresh token.
pub const COOKIE: &str = "docsieve_session";
/// The header a browser-session call must carry (value `1`).
pub const HEADER: &str = "X-Docsieve-Browser";
const PATH: &str = "/v1/auth/session";

/// A browser session's access token (its refresh token is in the `docsieve_session` cookie).
#[derive(Serialize, ToSchema)]
pub struct BrowserSession {
    pub access_token: String,
    /// Always `bearer`.
    pub token_type: &'static str,
    /// Lifetime of the access token in seconds: refresh the session before it ends.
    pub expires_in: u64,
}

/// The CSRF guard: refuses a call without `X-Docsieve-Browser: 1`.
fn guard(request: &HttpRequest) -> Result<(), ApiError> {
    let present = request
        .headers()
        .get(HEADER)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.trim() == "1");
    if present {
        Ok(())
    } else {
        Err(ApiError::new(
            ErrorKind::Forbidden,
            ErrorCode::BrowserHeaderMissing,
            "browser-session calls carry the header X-Docsieve-Browser: 1 (a guard against cross-site requests)",
        ))
    }
}

/// The session cookie's value, when the request carries it.
fn cookie_of(request: &HttpRequest) -> Option<String> {
    request
        .headers()
        .get_all(header::COOKIE)
        .filter_map(|value| value.to_str().ok())
        .flat_map(|line| line.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == COOKIE)
        .map(|(_, value)| value.trim().to_string())
        .filter(|value| !value.is_empty())
}

/// The `Set-Cookie` line for `value` (empty with `Max-Age=0`: the cookie is removed).
fn set_cookie(state: &AppState, request: &HttpRequest, value: &str) -> String {
    let max_age = if value.is_empty() {
        0
    } else {
        state.settings.auth.refresh_token_ttl_days * 86_400
    };
    let secure = if over_https(state, request) {
        "; Secure"
    } else {
        ""
    };
    format!("{COOKIE}={value}; Path={PATH}; Max-Age={max_age}; HttpOnly; SameSite=Strict{secure}")
}

/// Whether the browser reached the service over HTTPS: the public base URL is an `https` one, the
/// server itself speaks TLS, or a configured proxy (`server.trusted_proxies`) says so in
/// `Forwarded`/`X-Forwarded-Proto`. Such a header from any other peer is anyone's word and is not taken.
fn over_https(state: &AppState, request: &HttpRequest) -> bool {
    if state.settings.mail.public_base_url.starts_with("https://") || request.app_config().secure()
    {
        return true;
    }
    let trusted = request
        .peer_addr()
        .is_some_and(|peer| state.settings.auth.trusted_proxies.contains(&peer.ip()));
    trusted && request.connection_info().scheme() == "https"
}

/// The answer of a route that opened or renewed a session: the access token, and the cookie.
fn opened(state: &AppState, request: &HttpRequest, pair: TokenPair) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header((
            header::SET_COOKIE,
            set_cookie(state, request, &pair.refresh_token),
        ))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(envelope(BrowserSession {
            access_token: pair.access_token,
            token_type: pair.token_type,
            expires_in: pair.expires_in,
        }))
}

fn no_session() -> ApiError {
    ApiError::new(
        ErrorKind::Unauthenticated,
        ErrorCode::NoBrowserSession,
        "this browser has no session (its cookie is missing): sign in",
    )
}

/// Signs a browser in: email and password as for `/v1/auth/login` (the same per-IP block), the
/// refresh token set as the `docsieve_session` cookie, the access token answered.
#[utoipa::path(post, path = "/v1/auth/session", operation_id = "start_browser_session", tag = "auth", request_body = LoginRequest,
    params(("X-Docsieve-Browser" = String, Header, description = "Must be `1` (the guard against cross-site requests)")),
    responses((status = 200, body = Envelope<BrowserSession>, headers(("Set-Cookie" = String, description = "docsieve_session: the refresh token, HttpOnly, SameSite=Strict"))),
        (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody),
        (status = 422, body = crate::error::ValidationErrorBody), (status = 429, body = crate::error::ErrorBody)))]
#[post("/v1/auth/session")]
pub async fn start(
    state: web::Data<AppState>,
    request: HttpRequest,
    body: ValidJson<LoginRequest>,
) -> Result<HttpResponse, ApiError> {
    guard(&request)?;
    let pair = sign_in(&state, &request, body.0).await?;
    Ok(opened(&state, &request, pair))
}

/// Renews a browser session: the cookie's refresh token is rotated (a reused one revokes the whole
/// session family, as for `/v1/auth/refresh`) and a new access token answered.
#[utoipa::path(post, path = "/v1/auth/session/refresh", operation_id = "refresh_browser_session", tag = "auth",
    params(("X-Docsieve-Browser" = String, Header, description = "Must be `1` (the guard against cross-site requests)")),
    responses((status = 200, body = Envelope<BrowserSession>, headers(("Set-Cookie" = String, description = "docsieve_session: the new refresh token"))),
        (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)))]
#[post("/v1/auth/session/refresh")]
pub async fn renew(
    state: web::Data<AppState>,
    request: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    guard(&request)?;
    let token = cookie_of(&request).ok_or_else(no_session)?;
    let pair = rotate(&state, &request, &token).await?;
    Ok(opened(&state, &request, pair))
}

/// Signs a browser out: the cookie's refresh token is revoked and the cookie removed (idempotent).
#[utoipa::path(delete, path = "/v1/auth/session", operation_id = "end_browser_session", tag = "auth",
    params(("X-Docsieve-Browser" = String, Header, description = "Must be `1` (the guard against cross-site requests)")),
    responses((status = 200, body = Envelope<Message>, headers(("Set-Cookie" = String, description = "docsieve_session, emptied"))),
        (status = 403, body = crate::error::ErrorBody)))]
#[delete("/v1/auth/session")]
pub async fn end(
    state: web::Data<AppState>,
    request: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    guard(&request)?;
    if let Some(token) = cookie_of(&request) {
        revoke(&state, &request, &token).await?;
    }
    Ok(HttpResponse::Ok()
        .insert_header((header::SET_COOKIE, set_cookie(&state, &request, "")))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(envelope(Message {
            message: "logged out",
        })))
}

/// This resource's routes.
pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(start).service(renew).service(end);
}

#[cfg(test)]
mod tests {
    use actix_web::test::TestRequest;

    use super::*;

    #[test]
    fn the_session_cookie_is_found_among_others() {
        let request = TestRequest::default()
            .insert_header((header::COOKIE, "a=1; docsieve_session=abc ; b=2"))
            .to_http_request();
        assert_eq!(cookie_of(&request).as_deref(), Some("abc"));
        let none = TestRequest::default()
            .insert_header((header::COOKIE, "docsieve_sessionx=1; docsieve_session="))
            .to_http_request();
        assert_eq!(cookie_of(&none), None);
    }

    #[test]
    fn the_guard_wants_its_header() {
        assert!(guard(&TestRequest::default().to_http_request()).is_err());
        let with = TestRequest::default()
            .insert_header((HEADER, "1"))
            .to_http_request();
        assert!(guard(&with).is_ok());
    }
}
