//! The /system/admin/quality routes: flagged executions, LLM cross-validation, PII precision and its
//! report. All require X-Internal-Token; the audits themselves are `docsieve_actors::quality`'s.

use actix_web::{get, post, web, HttpResponse};
use docsieve_actors::llm::LlmError;
use docsieve_actors::quality::{AuditError, Audits};
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use super::{envelope, Envelope};
use crate::auth::internal::InternalCaller;
use crate::error::{ApiError, ErrorCode, ErrorKind};
use crate::state::AppState;
use crate::validation::{Query, Violations};

#[derive(Serialize, ToSchema)]
pub struct FlaggedList {
    /// Executions whose cross-validation delta exceeded 20 percent, newest first.
    #[schema(value_type = Vec<Object>)]
    pub items: Vec<docsieve_actors::store::FlaggedExecution>,
    pub limit: i64,
    pub tenant_id: Option<i64>,
}

/// Executions with `cross_validation_flag` true.
#[utoipa::path(
    get,
    path = "/system/admin/quality/flagged", operation_id = "list_flagged_executions",
    tag = "admin",
    params(
        ("tenant_id" = Option<i64>, Query, description = "Only this tenant's executions"),
        ("limit" = Option<i64>, Query, minimum = 1, maximum = 500, description = "Default 100")
    ),
    responses(
        (status = 200, body = Envelope<FlaggedList>),
        (status = 401, body = crate::error::ErrorBody),
        (status = 403, body = crate::error::ErrorBody),
        (status = 422, body = crate::error::ValidationErrorBody)
    ),
    security(("internal_token" = []))
)]
#[get("/system/admin/quality/flagged")]
pub async fn quality_flagged(
    _caller: InternalCaller,
    state: web::Data<AppState>,
    query: Query,
) -> Result<web::Json<Envelope<FlaggedList>>, ApiError> {
    let mut violations = Violations::default();
    let tenant_id = query.optional_int("tenant_id", 1, i64::MAX, &mut violations);
    let limit = query.int("limit", 100, 1, 500, &mut violations);
    violations.finish()?;
    let items = state
        .store
        .flagged_executions(tenant_id, limit as u64)
        .await?;
    Ok(envelope(FlaggedList {
        items,
        limit,
        tenant_id,
    }))
}

/// What the quality audits work with, from the state.
fn audits(state: &AppState) -> Audits<'_> {
    Audits {
        store: &state.store,
        blobs: &state.blobs,
        clock: &state.clock,
        actors: &state.actors,
        limits: &state.settings.extraction.limits,
        llm: &state.llm,
        max_input_chars: state.settings.llm.max_input_chars,
    }
}

/// An audit's failure as the API answers it.
fn audit_error(error: AuditError) -> ApiError {
    match error {
        AuditError::ExecutionNotFound(id) => super::executions::not_found(id),
        not_masked @ AuditError::NotMasked(_) => ApiError::new(
            ErrorKind::Conflict,
            ErrorCode::ExecutionNotMasked,
            not_masked.to_string(),
        ),
        not_completed @ AuditError::NotCompleted(_) => ApiError::new(
            ErrorKind::Conflict,
            ErrorCode::ExecutionNotCompleted,
            not_completed.to_string(),
        ),
        AuditError::Llm(LlmError::BadResponse(message)) => ApiError::new(
            ErrorKind::BadGateway,
            ErrorCode::LlmBadResponse,
            format!("{message}; the execution is unchanged"),
        ),
        llm @ AuditError::Llm(_) => ApiError::new(
            ErrorKind::Unavailable,
            ErrorCode::LlmUnavailable,
            llm.to_string(),
        ),
        AuditError::Process(error) => super::process::process_error(error),
        AuditError::Store(error) => error.into(),
        AuditError::Blob(error) => error.into(),
    }
}

/// The positive `execution_id` of a JSON body.
fn execution_id(body: &[u8]) -> Result<i64, ApiError> {
    let body: serde_json::Value = crate::validation::json_body(body)?;
    body.get("execution_id")
        .and_then(serde_json::Value::as_i64)
        .filter(|id| *id > 0)
        .ok_or_else(|| {
            ApiError::validation(vec![crate::error::ValidationDetail::new(
                "body",
                "execution_id",
                "execution_id is required: a positive integer",
                "int_parsing",
            )])
        })
}

/// Cross-validates an execution: its deterministic key-value fields and table columns against the
/// LLM's reading of the same masked text (see the README for the formula); above 20 % disagreement
/// the execution is flagged. The outcome is kept in `result_meta.cross_validation`.
#[utoipa::path(
    post,
    path = "/system/admin/quality/cross-validate", operation_id = "cross_validate_quality",
    tag = "admin",
    request_body(content = super::ExecutionRef, content_type = "application/json"),
    responses(
        (status = 200, body = super::ReportEnvelope, description = "`{execution_id, tenant_id, cross_validation: {delta, flag, threshold, counts {key_value, tabular, llm}, disagreements [{field, deterministic, llm}], model, at}}`"),
        (status = 401, body = crate::error::ErrorBody),
        (status = 403, body = crate::error::ErrorBody),
        (status = 404, description = "`execution_not_found`", body = crate::error::ErrorBody),
        (status = 409, description = "`execution_not_masked`: no original left and an unmasked result", body = crate::error::ErrorBody),
        (status = 422, body = crate::error::ValidationErrorBody),
        (status = 502, description = "`llm_bad_response`: the execution is unchanged", body = crate::error::ErrorBody),
        (status = 503, description = "`llm_unavailable` (disabled, unreachable, timing out, failing): the execution is unchanged", body = crate::error::ErrorBody)
    ),
    security(("internal_token" = []))
)]
#[post("/system/admin/quality/cross-validate")]
pub async fn quality_cross_validate(
    _caller: InternalCaller,
    state: web::Data<AppState>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let execution_id = execution_id(&body)?;
    let outcome = docsieve_actors::quality::cross_validate(&audits(&state), execution_id)
        .await
        .map_err(audit_error)?;
    Ok(HttpResponse::Ok().json(super::ReportEnvelope {
        data: serde_json::to_value(outcome).map_err(|error| ApiError::internal(&error))?,
    }))
}

/// The PII precision of an execution, per detector: `masked` (its own count), `expected` from a
/// second opinion (check digits recomputed for checksummed types; the LLM judging each placeholder
/// from its masked surroundings for the others), `over_masking_ratio` = (masked - expected) / masked,
/// flagged above 15 %. Kept in `result_meta.pii_precision`.
#[utoipa::path(
    post,
    path = "/system/admin/quality/pii-precision", operation_id = "analyse_pii_precision",
    tag = "admin",
    request_body(content = super::ExecutionRef, content_type = "application/json"),
    responses(
        (status = 200, body = super::ReportEnvelope, description = "`{execution_id, tenant_id, pii_precision: {detectors [{detector, method (checksum | llm), masked, expected, over_masking_ratio, flag, judged, confirmed}], flagged [detector], threshold, source (original | stored_result), model, at}}`"),
        (status = 401, body = crate::error::ErrorBody),
        (status = 403, body = crate::error::ErrorBody),
        (status = 404, description = "`execution_not_found`", body = crate::error::ErrorBody),
        (status = 409, description = "`execution_not_completed` (no pii_type_summary), or `execution_not_masked`: no original left and an unmasked result", body = crate::error::ErrorBody),
        (status = 422, body = crate::error::ValidationErrorBody),
        (status = 502, description = "`llm_bad_response`: the execution is unchanged", body = crate::error::ErrorBody),
        (status = 503, description = "`llm_unavailable` (disabled, unreachable, timing out, failing) while placeholders need judging: the execution is unchanged", body = crate::error::ErrorBody)
    ),
    security(("internal_token" = []))
)]
#[post("/system/admin/quality/pii-precision")]
pub async fn quality_pii_precision(
    _caller: InternalCaller,
    state: web::Data<AppState>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let execution_id = execution_id(&body)?;
    let outcome = docsieve_actors::quality::pii_precision(&audits(&state), execution_id)
        .await
        .map_err(audit_error)?;
    Ok(HttpResponse::Ok().json(super::ReportEnvelope {
        data: serde_json::to_value(outcome).map_err(|error| ApiError::internal(&error))?,
    }))
}

/// PII precision over the latest completed executions, per detector: what every execution in range
/// masked (`executions` that masked any, `masked` in all), and where a precision run verified it
/// (`analysed` executions, their `analysed_masked`, the `expected` of the second opinion,
/// `over_masking_ratio`, `flagged`; `unverified` where it could not), worst ratio first; and the
/// cross-validations among them (`executions`, `flagged`, `mean_delta`).
#[utoipa::path(
    get,
    path = "/system/admin/quality/pii-precision/report", operation_id = "get_pii_precision_report",
    tag = "admin",
    params(
        ("tenant_id" = Option<i64>, Query, description = "Only this tenant's executions"),
        ("limit" = Option<i64>, Query, minimum = 1, maximum = 2000, description = "The latest completed executions considered; default 500")
    ),
    responses(
        (status = 200, body = super::ReportEnvelope, description = "`{tenant_id, limit, executions, analysed, threshold, detectors [{detector, executions, masked, analysed, analysed_masked, expected, over_masking_ratio, flagged, unverified}], cross_validation {executions, flagged, mean_delta}}`"),
        (status = 401, body = crate::error::ErrorBody),
        (status = 403, body = crate::error::ErrorBody),
        (status = 422, body = crate::error::ValidationErrorBody)
    ),
    security(("internal_token" = []))
)]
#[get("/system/admin/quality/pii-precision/report")]
pub async fn quality_pii_precision_report(
    _caller: InternalCaller,
    state: web::Data<AppState>,
    query: Query,
) -> Result<HttpResponse, ApiError> {
    let mut violations = Violations::default();
    let tenant_id = query.optional_int("tenant_id", 1, i64::MAX, &mut violations);
    let limit = query.int("limit", 500, 1, 2000, &mut violations);
    violations.finish()?;
    let metas = state
        .store
        .latest_completed_metas(tenant_id, limit as u64)
        .await?;
    let mut report = docsieve_actors::quality::precision_report(&metas);
    report["tenant_id"] = tenant_id.into();
    report["limit"] = limit.into();
    Ok(HttpResponse::Ok().json(super::ReportEnvelope { data: report }))
}

/// This resource's routes.
pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(quality_flagged)
        .service(quality_cross_validate)
        .service(quality_pii_precision)
        .service(quality_pii_precision_report);
}
