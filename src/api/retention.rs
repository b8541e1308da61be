//! /v1/compliance/retention and /v1/compliance/destruction-log: how long the tenant's originals and
//! results are kept (its plan's days, or fewer of its own choosing) and the record of every
//! destruction the scheduled run made (the KVKK periodic-destruction record, kept at least three
//! years: nothing deletes it, not even the tenant's closure).

use actix_web::{get, put, web, HttpResponse};
use docsieve_actors::retention::{retention_of, RetentionInForce};
use docsieve_actors::store::RetentionChoice;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use super::common::rfc3339;
use super::{envelope, Envelope, Page};
use crate::accounts;
use crate::auth::Authenticated;
use crate::error::{ApiError, ValidationDetail};
use crate::state::AppState;
use crate::validation::{Pagination, Query, ValidJson, Violations};

/// The roles that may change the retention or read the destruction log.
const MANAGERS: &[&str] = &["owner", "admin"];
/// The longest retention a tenant may choose when its plan sets none (100 years).
const MAX_DAYS: i64 = 36_500;

/// The tenant's retention: its plan's, its own choice, and what is in force.
#[derive(Serialize, ToSchema)]
pub struct Retention {
    /// The plan in force.
    pub plan: String,
    /// The plan's days for originals (null: kept until the document is deleted).
    pub plan_originals_retention_days: Option<i64>,
    /// The plan's days for stored results (null: kept until the document is deleted).
    pub plan_results_retention_days: Option<i64>,
    /// The tenant's own choice for originals (null: the plan's).
    pub originals_retention_days: Option<i64>,
    /// The tenant's own choice for results (null: the plan's).
    pub results_retention_days: Option<i64>,
    /// The days in force for originals (null: no limit).
    pub originals_in_force_days: Option<i64>,
    /// The days in force for results (null: no limit).
    pub results_in_force_days: Option<i64>,
    /// How often the destruction run looks for what is due, in seconds.
    pub destruction_interval_seconds: u64,
}

/// The tenant's choice: fewer days than the plan's (or any when the plan sets none); null or absent
/// goes back to the plan's.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RetentionChange {
    /// Days an original is kept after it arrived (1 to the plan's days; null: the plan's).
    #[serde(default)]
    pub originals_retention_days: Option<i64>,
    /// Days a stored result is kept after its execution (1 to the plan's days; null: the plan's).
    #[serde(default)]
    pub results_retention_days: Option<i64>,
}

/// One destruction: what category, how many items, why, and their ids.
#[derive(Serialize, ToSchema)]
pub struct DestructionEntry {
    pub id: i64,
    pub destroyed_at: String,
    /// `originals` or `results`.
    pub category: String,
    pub reason: String,
    pub items: i64,
    /// The originals' size (0 for results).
    pub bytes: i64,
    /// `{ids, retention_days, received_before, method}`: the documents' (originals) or executions'
    /// (results) ids destroyed.
    #[schema(value_type = Object)]
    pub detail: Value,
}

async fn view(state: &AppState, tenant_id: i64) -> Result<Retention, ApiError> {
    let plan = state.store.plan_in_force(tenant_id).await?;
    let plan_settings = state.settings.plans.get(plan);
    let choice = state.store.retention_choice(tenant_id).await?;
    let in_force: RetentionInForce =
        retention_of(&state.store, &state.settings.plans, tenant_id).await?;
    let days = |days: u32| (days > 0).then_some(i64::from(days));
    Ok(Retention {
        plan: plan.as_str().to_string(),
        plan_originals_retention_days: days(plan_settings.originals_retention_days),
        plan_results_retention_days: days(plan_settings.results_retention_days),
        originals_retention_days: choice.originals_days,
        results_retention_days: choice.results_days,
        originals_in_force_days: in_force.originals_days,
        results_in_force_days: in_force.results_days,
        destruction_interval_seconds: state.settings.jobs.retention_interval_seconds,
    })
}

/// The tenant's retention of originals and results.
#[utoipa::path(get, path = "/v1/compliance/retention", operation_id = "get_retention", tag = "compliance",
    responses(
        (status = 200, body = Envelope<Retention>),
        (status = 401, body = crate::error::ErrorBody)
    ),
    security(("api_key" = []), ("bearer" = [])))]
#[get("/v1/compliance/retention")]
pub async fn get_retention(
    state: web::Data<AppState>,
    auth: Authenticated,
) -> Result<web::Json<Envelope<Retention>>, ApiError> {
    Ok(envelope(view(&state, auth.tenant_id).await?))
}

/// Sets the tenant's retention (owner or admin; audited). Fewer days than the plan's take effect at
/// the next destruction run: what is older than the new days is destroyed then.
#[utoipa::path(put, path = "/v1/compliance/retention", operation_id = "set_retention", tag = "compliance",
    request_body = RetentionChange,
    responses(
        (status = 200, body = Envelope<Retention>),
        (status = 401, body = crate::error::ErrorBody),
        (status = 403, body = crate::error::ErrorBody),
        (status = 422, description = "A day count out of range (1 to the plan's days)", body = crate::error::ValidationErrorBody)
    ),
    security(("api_key" = []), ("bearer" = [])))]
#[put("/v1/compliance/retention")]
pub async fn set_retention(
    state: web::Data<AppState>,
    auth: Authenticated,
    body: ValidJson<RetentionChange>,
) -> Result<web::Json<Envelope<Retention>>, ApiError> {
    auth.require_role(MANAGERS)?;
    let body = body.0;
    let plan = state
        .settings
        .plans
        .get(state.store.plan_in_force(auth.tenant_id).await?);
    let mut problems = Vec::new();
    for (field, value, plan_days) in [
        (
            "originals_retention_days",
            body.originals_retention_days,
            plan.originals_retention_days,
        ),
        (
            "results_retention_days",
            body.results_retention_days,
            plan.results_retention_days,
        ),
    ] {
        let most = if plan_days > 0 {
            i64::from(plan_days)
        } else {
            MAX_DAYS
        };
        if let Some(days) = value.filter(|days| !(1..=most).contains(days)) {
            problems.push(ValidationDetail::new(
                "body",
                field,
                format!("must be between 1 and {most} days (the plan's limit), got {days}"),
                "value_error",
            ));
        }
    }
    if !problems.is_empty() {
        return Err(ApiError::validation(problems));
    }
    let choice = RetentionChoice {
        originals_days: body.originals_retention_days,
        results_days: body.results_retention_days,
    };
    state
        .store
        .set_retention_choice(auth.tenant_id, choice)
        .await?;
    accounts::audit(
        &state,
        auth.audit(
            "retention_changed",
            None,
            serde_json::json!({
                "originals_retention_days": choice.originals_days,
                "results_retention_days": choice.results_days,
            }),
        ),
    )
    .await;
    Ok(envelope(view(&state, auth.tenant_id).await?))
}

/// The tenant's destruction log, newest first (owner or admin).
#[utoipa::path(get, path = "/v1/compliance/destruction-log", operation_id = "list_destructions", tag = "compliance",
    params(
        ("page" = Option<i64>, Query, description = "Page, from 1 (default 1)"),
        ("page_size" = Option<i64>, Query, description = "1 to 100 (default 20)")
    ),
    responses(
        (status = 200, body = Envelope<Page<DestructionEntry>>),
        (status = 401, body = crate::error::ErrorBody),
        (status = 403, body = crate::error::ErrorBody),
        (status = 422, body = crate::error::ValidationErrorBody)
    ),
    security(("api_key" = []), ("bearer" = [])))]
#[get("/v1/compliance/destruction-log")]
pub async fn destruction_log(
    state: web::Data<AppState>,
    auth: Authenticated,
    query: Query,
) -> Result<HttpResponse, ApiError> {
    auth.require_role(MANAGERS)?;
    let mut violations = Violations::default();
    let pagination = Pagination::read(&query, &mut violations);
    violations.finish()?;
    let (records, total) = state
        .store
        .destruction_log(auth.tenant_id, pagination.offset(), pagination.page_size)
        .await?;
    let items = records
        .into_iter()
        .map(|record| DestructionEntry {
            id: record.id,
            destroyed_at: rfc3339(record.destroyed_at),
            category: record.category,
            reason: record.reason,
            items: record.items,
            bytes: record.bytes,
            detail: serde_json::from_str(&record.detail).unwrap_or(Value::Null),
        })
        .collect();
    Ok(super::page_response(items, pagination, total))
}

/// This resource's routes.
pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(get_retention)
        .service(set_retention)
        .service(destruction_log);
}
