//! ApiError: the one way a handler fails. A closed [`ErrorKind`] decides the status; bodies are
//! FastAPI-compatible (`{"detail": "...", "code": "..."}`, or a `detail` list for 422).
//!
//! An internal error logs its whole cause chain and tells the client only an id to quote. Messages
//! here must never contain personal data or secrets.

use std::fmt;

use actix_web::http::header::{self, HeaderValue};
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use docsieve_actors::blob::BlobError;
use docsieve_actors::runtime::ActorError;
use docsieve_actors::store::StoreError;
use serde::Serialize;

pub use crate::error_code::ErrorCode;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    BadRequest,
    Unauthenticated,
    PaymentRequired,
    Forbidden,
    NotFound,
    MethodNotAllowed,
    Conflict,
    Gone,
    PayloadTooLarge,
    UnsupportedMediaType,
    Validation,
    TooManyRequests,
    BadGateway,
    Unavailable,
    Internal,
}

impl ErrorKind {
    pub fn status(self) -> StatusCode {
        match self {
            ErrorKind::BadRequest => StatusCode::BAD_REQUEST,
            ErrorKind::Unauthenticated => StatusCode::UNAUTHORIZED,
            ErrorKind::PaymentRequired => StatusCode::PAYMENT_REQUIRED,
            ErrorKind::Forbidden => StatusCode::FORBIDDEN,
            ErrorKind::NotFound => StatusCode::NOT_FOUND,
            ErrorKind::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            ErrorKind::Conflict => StatusCode::CONFLICT,
            ErrorKind::Gone => StatusCode::GONE,
            ErrorKind::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ErrorKind::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ErrorKind::Validation => StatusCode::UNPROCESSABLE_ENTITY,
            ErrorKind::TooManyRequests => StatusCode::TOO_MANY_REQUESTS,
            ErrorKind::BadGateway => StatusCode::BAD_GATEWAY,
            ErrorKind::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
            ErrorKind::Internal => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

/// One step of a 422's `loc`: a place (`"query"`, `"body"`), a field name, or an index into a list.
#[derive(Serialize, utoipa::ToSchema)]
#[serde(untagged)]
#[allow(dead_code)]
pub enum LocItem {
    Name(String),
    Index(u64),
}

/// One entry of a 422 body: where (`["query", "page_size"]`), what, and a machine-readable type.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct ValidationDetail {
    #[schema(value_type = Vec<LocItem>)]
    pub loc: Vec<serde_json::Value>,
    pub msg: String,
    #[serde(rename = "type")]
    pub kind: String,
}

impl ValidationDetail {
    pub fn new(location: &str, field: &str, message: impl Into<String>, kind: &str) -> Self {
        ValidationDetail {
            loc: vec![location.into(), field.into()],
            msg: message.into(),
            kind: kind.to_string(),
        }
    }
}

/// The body of every error but 422.
#[derive(Serialize, utoipa::ToSchema)]
pub struct ErrorBody {
    pub detail: String,
    pub code: ErrorCode,
}

/// The body of a 402: the error plus the credits left and the credits the request needed.
#[derive(Serialize, utoipa::ToSchema)]
pub struct InsufficientCreditsBody {
    pub detail: String,
    pub code: ErrorCode,
    /// Credits left in the open billing period (0 without one).
    pub balance: i64,
    /// Credits the request would have reserved.
    pub required: i64,
}

/// The body of a 422.
#[derive(Serialize, utoipa::ToSchema)]
pub struct ValidationErrorBody {
    pub detail: Vec<ValidationDetail>,
}

#[derive(Debug)]
pub struct ApiError {
    kind: ErrorKind,
    code: ErrorCode,
    message: String,
    retry_after_seconds: Option<u64>,
    allow: Option<String>,
    validation: Vec<ValidationDetail>,
    /// Keys added to the body beside `detail` and `code` (a 402's `balance` and `required`).
    extra: serde_json::Map<String, serde_json::Value>,
}

impl ApiError {
    pub fn new(kind: ErrorKind, code: ErrorCode, message: impl Into<String>) -> ApiError {
        debug_assert!(
            code.statuses().contains(&kind.status().as_u16()),
            "{code} is not documented with status {}",
            kind.status()
        );
        ApiError {
            kind,
            code,
            message: message.into(),
            retry_after_seconds: None,
            allow: None,
            validation: Vec::new(),
            extra: serde_json::Map::new(),
        }
    }

    /// Adds `key` to the body beside `detail` and `code`.
    pub fn with(mut self, key: &str, value: impl Into<serde_json::Value>) -> ApiError {
        self.extra.insert(key.to_string(), value.into());
        self
    }

    pub fn validation(details: Vec<ValidationDetail>) -> ApiError {
        ApiError {
            validation: details,
            ..ApiError::new(
                ErrorKind::Validation,
                ErrorCode::ValidationError,
                "request validation failed",
            )
        }
    }

    /// A 422 with a code of its own (shown beside the detail list, and as the type of its entry).
    pub fn coded(mut self, code: ErrorCode) -> ApiError {
        self.code = code;
        self
    }

    pub fn not_found(code: ErrorCode, message: impl Into<String>) -> ApiError {
        ApiError::new(ErrorKind::NotFound, code, message)
    }

    pub fn method_not_allowed(allowed: &[&str]) -> ApiError {
        ApiError {
            allow: Some(allowed.join(", ")),
            ..ApiError::new(
                ErrorKind::MethodNotAllowed,
                ErrorCode::MethodNotAllowed,
                format!(
                    "method not allowed; this path accepts {}",
                    allowed.join(", ")
                ),
            )
        }
    }

    pub fn payload_too_large(limit: usize) -> ApiError {
        ApiError::new(
            ErrorKind::PayloadTooLarge,
            ErrorCode::PayloadTooLarge,
            format!("request body is larger than the limit of {limit} bytes"),
        )
    }

    /// 503 with Retry-After.
    pub fn unavailable(
        code: ErrorCode,
        message: impl Into<String>,
        retry_after_seconds: u64,
    ) -> ApiError {
        ApiError {
            retry_after_seconds: Some(retry_after_seconds),
            ..ApiError::new(ErrorKind::Unavailable, code, message)
        }
    }

    /// 429 with Retry-After.
    pub fn too_many_requests(
        code: ErrorCode,
        message: impl Into<String>,
        retry_after_seconds: u64,
    ) -> ApiError {
        ApiError {
            retry_after_seconds: Some(retry_after_seconds),
            ..ApiError::new(ErrorKind::TooManyRequests, code, message)
        }
    }

    /// 500: logs `cause` with a fresh id; the client only sees the id.
    pub fn internal(cause: &(dyn std::error::Error + 'static)) -> ApiError {
        let id = error_id();
        let mut chain = cause.to_string();
        let mut source = cause.source();
        while let Some(next) = source {
            chain.push_str(": ");
            chain.push_str(&next.to_string());
            source = next.source();
        }
        tracing::error!(error_id = %id, cause = %chain, "internal error");
        ApiError::new(
            ErrorKind::Internal,
            ErrorCode::InternalError,
            format!("internal error; quote error id {id} when reporting it"),
        )
    }

    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    pub fn code(&self) -> ErrorCode {
        self.code
    }
}

fn error_id() -> String {
    use rand::Rng;
    let bytes: [u8; 8] = rand::thread_rng().gen();
    hex::encode(bytes)
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        self.kind.status()
    }

    fn error_response(&self) -> HttpResponse {
        let mut response = HttpResponse::build(self.status_code());
        if let Some(seconds) = self.retry_after_seconds {
            response.insert_header((header::RETRY_AFTER, seconds.to_string()));
        }
        if let Some(allow) = &self.allow {
            if let Ok(value) = HeaderValue::from_str(allow) {
                response.insert_header((header::ALLOW, value));
            }
        }
        if self.kind == ErrorKind::Validation && self.extra.is_empty() {
            response.json(ValidationErrorBody {
                detail: self.validation.clone(),
            })
        } else if self.kind == ErrorKind::Validation {
            // A 422 of its own kind: the detail list, plus its code and figures beside it.
            let mut body = self.extra.clone();
            body.insert("detail".to_string(), serde_json::json!(self.validation));
            body.insert("code".to_string(), self.code.as_str().into());
            response.json(body)
        } else if self.extra.is_empty() {
            response.json(ErrorBody {
                detail: self.message.clone(),
                code: self.code,
            })
        } else {
            let mut body = self.extra.clone();
            body.insert("detail".to_string(), self.message.clone().into());
            body.insert("code".to_string(), self.code.as_str().into());
            response.json(body)
        }
    }
}

impl From<ActorError> for ApiError {
    fn from(error: ActorError) -> ApiError {
        let retry = error.retry_after_seconds();
        match error {
            ActorError::Overloaded { .. } => {
                ApiError::unavailable(ErrorCode::Overloaded, error.to_string(), retry)
            }
            ActorError::Timeout { .. } => {
                ApiError::unavailable(ErrorCode::Timeout, error.to_string(), retry)
            }
            ActorError::Stopped { .. } | ActorError::Panicked { .. } => {
                ApiError::unavailable(ErrorCode::ActorUnavailable, error.to_string(), retry)
            }
        }
    }
}

impl From<StoreError> for ApiError {
    /// A foreign key that refused a write because a row was deleted meanwhile is the 409 a client
    /// would have got a moment later, not an internal error; SQLite's write lock held past the busy
    /// timeout is a 503 to retry. Every other database error is a 500 with its id.
    fn from(error: StoreError) -> ApiError {
        if error.is_missing_reference() {
            return ApiError::new(
                ErrorKind::Conflict,
                ErrorCode::ConcurrentChange,
                "something this request refers to was deleted while it ran; read it again",
            );
        }
        if error.is_busy() {
            return ApiError::unavailable(
                ErrorCode::DatabaseBusy,
                "the database is busy with other writes; retry",
                1,
            );
        }
        ApiError::internal(&error)
    }
}

impl From<BlobError> for ApiError {
    fn from(error: BlobError) -> ApiError {
        match error {
            BlobError::NotFound(_) => {
                ApiError::not_found(ErrorCode::BlobNotFound, "stored file not found")
            }
            other => ApiError::internal(&other),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::body::to_bytes;

    #[actix_web::test]
    async fn validation_errors_have_the_fastapi_shape() {
        let error = ApiError::validation(vec![ValidationDetail::new(
            "query",
            "page_size",
            "must be between 1 and 100",
            "value_error.range",
        )]);
        let response = error.error_response();
        assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
        let body = to_bytes(response.into_body()).await.expect("body");
        let json: serde_json::Value = serde_json::from_slice(&body).expect("json");
        assert_eq!(
            json["detail"][0]["loc"],
            serde_json::json!(["query", "page_size"])
        );
        assert_eq!(json["detail"][0]["type"], "value_error.range");
    }

    #[actix_web::test]
    async fn overloaded_actor_is_503_with_retry_after() {
        let error: ApiError = ActorError::Overloaded {
            actor: "pii_masker",
            capacity: 4,
        }
        .into();
        let response = error.error_response();
        assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(
            response
                .headers()
                .get(header::RETRY_AFTER)
                .map(|v| v.as_bytes()),
            Some(&b"1"[..])
        );
    }
}
