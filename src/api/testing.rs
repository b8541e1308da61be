//! /system/testing/*: fault injection and clock control for the black-box test suite and for drills.
//! Registered only when `testing.enabled` is true, and still behind the internal token.

use actix_web::{post, web};
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use super::{envelope, Envelope};
use crate::auth::internal::InternalCaller;
use crate::error::{ApiError, ErrorCode};
use crate::state::AppState;
use crate::validation::{Query, Violations};

#[derive(Serialize, ToSchema)]
pub struct PanicInjected {
    pub actor: String,
    pub injected: bool,
}

/// Makes the named actor panic inside its message handler; supervision restarts it.
#[utoipa::path(
    post,
    path = "/system/testing/actors/{actor}/panic", operation_id = "inject_actor_panic",
    tag = "testing",
    params(("actor" = String, Path, description = "Actor name, e.g. pii_masker")),
    responses((status = 202, body = Envelope<PanicInjected>), (status = 404, body = crate::error::ErrorBody)),
    security(("internal_token" = []))
)]
#[post("/system/testing/actors/{actor}/panic")]
pub async fn inject_panic(
    _caller: InternalCaller,
    state: web::Data<AppState>,
    actor: web::Path<String>,
) -> Result<actix_web::HttpResponse, ApiError> {
    let handle = state.actors.find(&actor).ok_or_else(|| {
        ApiError::not_found(
            ErrorCode::ActorNotFound,
            format!("no actor named '{actor}'"),
        )
    })?;
    handle.inject_panic()?;
    Ok(actix_web::HttpResponse::Accepted().json(Envelope {
        data: PanicInjected {
            actor: actor.into_inner(),
            injected: true,
        },
    }))
}

#[derive(Serialize, ToSchema)]
pub struct ClockOffset {
    pub offset_seconds: i64,
    pub now: chrono::DateTime<chrono::Utc>,
}

/// Moves the service clock forward by `seconds` (time-based rules are tested without sleeping).
#[utoipa::path(
    post,
    path = "/system/testing/clock/advance", operation_id = "advance_clock",
    tag = "testing",
    params(("seconds" = i64, Query, description = "Seconds to move forward, 1 to 31536000")),
    responses((status = 200, body = Envelope<ClockOffset>), (status = 422, body = crate::error::ValidationErrorBody)),
    security(("internal_token" = []))
)]
#[post("/system/testing/clock/advance")]
pub async fn advance_clock(
    _caller: InternalCaller,
    state: web::Data<AppState>,
    query: Query,
) -> Result<web::Json<Envelope<ClockOffset>>, ApiError> {
    let mut violations = Violations::default();
    let seconds = query.required_int("seconds", 1, 31_536_000, &mut violations);
    violations.finish()?;
    state.clock.advance(seconds.unwrap_or(0));
    Ok(envelope(ClockOffset {
        offset_seconds: state.clock.offset_seconds(),
        now: state.clock.now(),
    }))
}

/// This resource's routes.
pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(inject_panic).service(advance_clock);
}
