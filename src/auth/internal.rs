//! The `X-Internal-Token` check of the /system admin routes.

use actix_web::dev::Payload;
use actix_web::{web, FromRequest, HttpRequest};
use futures_util::future::{ready, Ready};

use crate::error::{ApiError, ErrorCode, ErrorKind};
use crate::state::AppState;

pub const HEADER: &str = "X-Internal-Token";

/// Proof that the request carried the configured internal token. Add it as a handler argument.
pub struct InternalCaller;

fn check(request: &HttpRequest) -> Result<InternalCaller, ApiError> {
    let state = request.app_data::<web::Data<AppState>>().ok_or_else(|| {
        ApiError::new(
            ErrorKind::Internal,
            ErrorCode::InternalError,
            "application state missing",
        )
    })?;
    let expected = &state.settings.auth.internal_token;
    if expected.is_empty() {
        return Err(ApiError::new(
            ErrorKind::Forbidden,
            ErrorCode::InternalTokenNotConfigured,
            "administrative endpoints are disabled: set auth.internal_token (DOCSIEVE__AUTH__INTERNAL_TOKEN) to enable them",
        ));
    }
    let Some(given) = request.headers().get(HEADER) else {
        return Err(ApiError::new(
            ErrorKind::Unauthenticated,
            ErrorCode::InternalTokenMissing,
            "this endpoint requires the X-Internal-Token header",
        ));
    };
    if super::secrets_equal(given.as_bytes(), expected.as_bytes()) {
        Ok(InternalCaller)
    } else {
        Err(ApiError::new(
            ErrorKind::Forbidden,
            ErrorCode::InternalTokenInvalid,
            "the X-Internal-Token header does not match",
        ))
    }
}

impl FromRequest for InternalCaller {
    type Error = ApiError;
    type Future = Ready<Result<InternalCaller, ApiError>>;

    fn from_request(request: &HttpRequest, _payload: &mut Payload) -> Self::Future {
        ready(check(request))
    }
}
