//! Middleware of the HTTP front: request size guard, tracing span (with the request's id, also sent
//! back as `X-Request-Id`), and the request metrics.

use std::time::Instant;

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::CONTENT_LENGTH;
use actix_web::middleware::Next;
use actix_web::{web, Error, ResponseError};
use docsieve_actors::metric_names;
use tracing::Instrument;

use crate::error::ApiError;
use crate::state::AppState;

fn declared_length(request: &ServiceRequest) -> Option<usize> {
    request
        .headers()
        .get(CONTENT_LENGTH)?
        .to_str()
        .ok()?
        .parse()
        .ok()
}

/// The caller's `X-Request-Id` when it is a plain token (letters, digits, `-`, `_`, `.`, at most 64),
/// otherwise a new random one: the id that ties a request's log lines together.
fn request_id(request: &ServiceRequest) -> String {
    request
        .headers()
        .get("x-request-id")
        .and_then(|value| value.to_str().ok())
        .filter(|value| {
            !value.is_empty()
                && value.len() <= 64
                && value
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        })
        .map(str::to_string)
        .unwrap_or_else(|| crate::auth::tokens::random_hex(8))
}

/// Wraps every request: refuses bodies over `server.max_request_bytes` before reading them, and
/// records `docsieve_http_requests_total` and `docsieve_http_request_duration_seconds` by route
/// template (never by raw path, which would carry ids).
pub async fn observe(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, Error> {
    let started = Instant::now();
    let method = request.method().to_string();
    let limit = request
        .app_data::<web::Data<AppState>>()
        .map(|state| state.settings.server.max_request_bytes);
    if let (Some(limit), Some(length)) = (limit, declared_length(&request)) {
        if length > limit {
            let response = ApiError::payload_too_large(limit).error_response();
            record(&method, "oversized", 413, started);
            return Ok(request.into_response(response).map_into_right_body());
        }
    }
    let id = request_id(&request);
    // At ERROR level so that the span (and the request id in every line logged under it) exists at
    // any log level that lets a warning through; a span below the filter's level would be dropped.
    let span = tracing::error_span!(
        "http",
        request_id = %id,
        method = %method,
        path = %request.path(),
        status = tracing::field::Empty
    );
    metrics::gauge!(metric_names::HTTP_REQUESTS_IN_FLIGHT).increment(1.0);
    let outcome = next.call(request).instrument(span.clone()).await;
    metrics::gauge!(metric_names::HTTP_REQUESTS_IN_FLIGHT).decrement(1.0);
    match outcome {
        Ok(response) => {
            let route = response
                .request()
                .match_pattern()
                .unwrap_or_else(|| "unmatched".to_string());
            let status = response.status().as_u16();
            span.record("status", status);
            record(&method, &route, status, started);
            let mut response = response;
            if route.starts_with("/docs") {
                docs_headers(&mut response);
            }
            if let Ok(value) = actix_web::http::header::HeaderValue::from_str(&id) {
                response.headers_mut().insert(
                    actix_web::http::header::HeaderName::from_static("x-request-id"),
                    value,
                );
            }
            Ok(response.map_into_left_body())
        }
        Err(error) => {
            let status = error.as_response_error().status_code().as_u16();
            record(&method, "unmatched", status, started);
            Err(error)
        }
    }
}

/// The API reference's pages (`/docs/`, Swagger UI's own files) under a policy as strict as the
/// console's, but for the inline styles the reference's scripts set: its scripts and styles from this
/// server only, requests to this server and the public base URL (its "Try it out"), no frame around
/// it, no image from elsewhere (Swagger UI's badge that would send the document to an outside
/// validator stays unloaded).
fn docs_headers<B>(response: &mut ServiceResponse<B>) {
    use actix_web::http::header::{HeaderName, HeaderValue};
    let public = response
        .request()
        .app_data::<web::Data<AppState>>()
        .and_then(|state| url::Url::parse(&state.settings.mail.public_base_url).ok())
        .map(|url| url.origin().ascii_serialization())
        .filter(|origin| origin != "null")
        .unwrap_or_default();
    let policy = format!(
        "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
         img-src 'self' data:; font-src 'self' data:; connect-src 'self' {public}; \
         form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    );
    let headers = response.headers_mut();
    if let Ok(value) = HeaderValue::from_str(&policy) {
        headers.insert(HeaderName::from_static("content-security-policy"), value);
    }
    for (name, value) in [
        ("x-frame-options", "DENY"),
        ("x-content-type-options", "nosniff"),
        ("referrer-policy", "no-referrer"),
    ] {
        headers.insert(
            HeaderName::from_static(name),
            HeaderValue::from_static(value),
        );
    }
}

fn record(method: &str, route: &str, status: u16, started: Instant) {
    let labels = [
        ("method", method.to_string()),
        ("route", route.to_string()),
        ("status", status.to_string()),
    ];
    metrics::counter!(metric_names::HTTP_REQUESTS_TOTAL, &labels).increment(1);
    metrics::histogram!(metric_names::HTTP_REQUEST_DURATION_SECONDS, &labels[..2])
        .record(started.elapsed().as_secs_f64());
    tracing::debug!(
        method,
        route,
        status,
        elapsed_ms = started.elapsed().as_millis() as u64,
        "request finished"
    );
}
