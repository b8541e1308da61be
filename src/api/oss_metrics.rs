//! The /system/admin/oss-metrics routes: snapshots of the project's open-source figures and their
//! trends (`docsieve_actors::oss_metrics`). All require X-Internal-Token.

use actix_web::{get, post, web, HttpResponse};
use utoipa_actix_web::service_config::ServiceConfig;

use crate::auth::internal::InternalCaller;
use crate::error::ApiError;
use crate::state::AppState;
use crate::validation::{Query, Violations};

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

/// This resource's routes.
pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(oss_metrics_fetch).service(oss_metrics);
}
