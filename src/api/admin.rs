//! The /system administrative endpoints of the interface. All require X-Internal-Token.
//!
//! Inputs are validated here for every route.

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
use crate::validation::{path_id, Query, Violations};

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

/// Deletes dataset export files past their plan's retention time, and the originals of uploads that
/// never committed (no document refers to them) written more than `orphans_older_than_seconds` ago
/// (default `jobs.orphan_grace_seconds`); answers what it deleted. The datasets stay, and the next
/// export request writes the file again.
#[utoipa::path(
    post,
    path = "/system/admin/storage/cleanup", operation_id = "clean_up_storage",
    tag = "admin",
    params(("orphans_older_than_seconds" = Option<i64>, Query, description = "Age from which an unreferenced upload original is swept (0..=86400; default jobs.orphan_grace_seconds)")),
    responses(
        (status = 200, body = super::ReportEnvelope, description = "`{deleted, bytes, orphans: {deleted, bytes}}`: export files removed and their total size, and orphaned upload originals removed"),
        (status = 422, body = crate::error::ValidationErrorBody),
        (status = 401, body = crate::error::ErrorBody),
        (status = 403, body = crate::error::ErrorBody)
    ),
    security(("internal_token" = []))
)]
#[post("/system/admin/storage/cleanup")]
pub async fn storage_cleanup(
    _caller: InternalCaller,
    state: web::Data<AppState>,
    query: Query,
) -> Result<HttpResponse, ApiError> {
    let mut violations = Violations::default();
    let grace = query.int(
        "orphans_older_than_seconds",
        state.settings.jobs.orphan_grace_seconds as i64,
        0,
        86_400,
        &mut violations,
    );
    violations.finish()?;
    let before = state.clock.now() - chrono::Duration::seconds(grace);
    let orphans = docsieve_actors::blob::sweep_orphan_uploads(&state.store, &state.blobs, before)
        .await
        .map_err(|error| ApiError::internal(&std::io::Error::other(error)))?;
    let report = docsieve_actors::dataset_exporter::cleanup_expired_exports(
        &state.store,
        &state.blobs,
        state.clock.now(),
    )
    .await?;
    tracing::info!(
        deleted = report.deleted,
        bytes = report.bytes,
        "export cleanup"
    );
    Ok(HttpResponse::Ok().json(super::ReportEnvelope {
        data: serde_json::json!({
            "deleted": report.deleted,
            "bytes": report.bytes,
            "orphans": orphans,
        }),
    }))
}

/// Everything a tenant holds, as one ZIP (data-subject access): see `crate::data_export` for the files.
#[utoipa::path(
    get,
    path = "/system/admin/tenants/{tenant_id}/data-export", operation_id = "export_tenant_data",
    tag = "admin",
    params(("tenant_id" = i64, Path, description = "Tenant id")),
    responses(
        (status = 200, description = "application/zip: manifest.json (every file with sha256 and bytes), account.json, api_keys.json, documents/<id>/original.<ext> and metadata.json, executions/<id>.json, datasets/<id>.jsonl and .json, webhooks.json, deliveries.jsonl, connectors.json, billing.json, audit.jsonl; no secrets or their digests", content(
            (String = "application/zip"),
            (String = "application/octet-stream")
        )),
        (status = 401, body = crate::error::ErrorBody),
        (status = 403, body = crate::error::ErrorBody),
        (status = 404, description = "`tenant_not_found`", body = crate::error::ErrorBody),
        (status = 422, body = crate::error::ValidationErrorBody)
    ),
    security(("internal_token" = []))
)]
#[get("/system/admin/tenants/{tenant_id}/data-export")]
pub async fn tenant_data_export(
    _caller: InternalCaller,
    request: actix_web::HttpRequest,
    state: web::Data<AppState>,
    tenant_id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let tenant_id = path_id(&tenant_id, "tenant_id")?;
    if state.store.tenant_by_id(tenant_id).await?.is_none() {
        return Err(ApiError::not_found(
            crate::error::ErrorCode::TenantNotFound,
            format!("tenant {tenant_id} does not exist"),
        ));
    }
    let sources = docsieve_actors::tenant_export::Sources {
        store: &state.store,
        blobs: &state.blobs,
        clock: &state.clock,
        scratch_dir: &state.settings.storage.data_dir.join("tmp"),
    };
    let (scratch, size) = docsieve_actors::tenant_export::export_tenant(&sources, tenant_id)
        .await
        .map_err(|message| ApiError::internal(&std::io::Error::other(message)))?;
    crate::accounts::audit(
        &state,
        super::billing::system_audit(
            tenant_id,
            "tenant_data_export",
            serde_json::json!({"bytes": size}),
        ),
    )
    .await;
    let file = tokio::fs::File::open(&scratch.0)
        .await
        .map_err(|error| ApiError::internal(&error))?;
    // The scratch file goes with the stream, deleted once it is sent (or the client leaves).
    let body = futures_util::stream::unfold((file, scratch), |(mut file, scratch)| async move {
        use tokio::io::AsyncReadExt;
        let mut buffer = vec![0u8; 64 * 1024];
        match file.read(&mut buffer).await {
            Ok(0) => None,
            Ok(n) => {
                buffer.truncate(n);
                Some((
                    Ok::<_, std::io::Error>(bytes::Bytes::from(buffer)),
                    (file, scratch),
                ))
            }
            Err(error) => Some((Err(error), (file, scratch))),
        }
    });
    Ok(HttpResponse::Ok()
        .content_type(super::common::download_type(&request, "application/zip"))
        .insert_header((
            actix_web::http::header::CONTENT_DISPOSITION,
            format!("attachment; filename=\"tenant-{tenant_id}-export.zip\""),
        ))
        .insert_header((actix_web::http::header::CONTENT_LENGTH, size.to_string()))
        .streaming(body))
}
/// Reads every source of `oss_metrics.sources` and stores a snapshot of each (a failing source is
/// stored with its error; the others still are).
#[utoipa::path(
    post,
    path = "/system/admin/oss-metrics/fetch", operation_id = "fetch_oss_metrics",
    tag = "admin",
    responses(
        (status = 200, body = super::ReportEnvelope, description = "`{fetched_at, snapshots: [{kind, name, downloads, stars, forks, open_issues, latest_version, error}]}`"),
        (status = 401, body = crate::error::ErrorBody),
        (status = 403, body = crate::error::ErrorBody)
    ),
    security(("internal_token" = []))
)]
#[post("/system/admin/oss-metrics/fetch")]
pub async fn oss_metrics_fetch(
    _caller: InternalCaller,
    state: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    let now = state.clock.now();
    let snapshots = docsieve_actors::oss_metrics::fetch_and_store(
        &state.store,
        &state.settings.oss_metrics,
        now,
    )
    .await?;
    Ok(HttpResponse::Ok().json(super::ReportEnvelope {
        data: serde_json::json!({
            "fetched_at": docsieve_actors::clock::rfc3339(now),
            "snapshots": snapshots,
        }),
    }))
}

/// The latest snapshot of each source and its trend over the period.
#[utoipa::path(
    get,
    path = "/system/admin/oss-metrics", operation_id = "get_oss_metrics",
    tag = "admin",
    params(("period" = Option<String>, Query, description = "`7d`, `30d` (default) or `90d`")),
    responses(
        (status = 200, body = super::ReportEnvelope, description = "`{period, sources: [{kind, name, latest, change {downloads, stars, forks, open_issues}, daily [{day, downloads, stars, forks, open_issues}]}]}`"),
        (status = 401, body = crate::error::ErrorBody),
        (status = 403, body = crate::error::ErrorBody),
        (status = 422, body = crate::error::ValidationErrorBody)
    ),
    security(("internal_token" = []))
)]
#[get("/system/admin/oss-metrics")]
pub async fn oss_metrics(
    _caller: InternalCaller,
    state: web::Data<AppState>,
    query: Query,
) -> Result<HttpResponse, ApiError> {
    let mut violations = Violations::default();
    let period = query.choice("period", "30d", &["7d", "30d", "90d"], &mut violations);
    violations.finish()?;
    let days: i64 = period.trim_end_matches('d').parse().unwrap_or(30);
    let since = state.clock.now() - chrono::Duration::days(days);
    let sources = docsieve_actors::oss_metrics::report(&state.store, since).await?;
    Ok(
        HttpResponse::Ok()
            .json(serde_json::json!({"data": {"period": period, "sources": sources}})),
    )
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
        .service(storage_cleanup)
        .service(tenant_data_export)
        .service(oss_metrics_fetch)
        .service(oss_metrics)
        .service(quality_cross_validate)
        .service(quality_pii_precision)
        .service(quality_pii_precision_report);
}
