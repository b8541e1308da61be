//! Plans and billing periods, for internal operations (X-Internal-Token): open and close a tenant's
//! period, run the monthly cycle, change a tenant's plan. Credits themselves are reserved by uploads
//! and previews and debited by the jobs; `/v1/usage` shows them.

use actix_web::{post, put, web};
use docsieve_actors::metric_names as names;
use docsieve_actors::settings::Plan;
use docsieve_actors::store::{
    AuditRecord, ClosedPeriod, CycleReport, PeriodError, PeriodRecord, ShortOfCredits,
};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use super::{envelope, Envelope};
use crate::accounts;
use crate::auth::internal::InternalCaller;
use crate::error::{ApiError, ErrorCode, ErrorKind, ValidationDetail};
use crate::state::AppState;
use crate::validation::{path_id, ValidJson};

/// 402 `insufficient_credits`, with the balance left and the credits the request needed.
pub fn insufficient_credits(short: &ShortOfCredits) -> ApiError {
    metrics::counter!(names::CREDITS_REFUSED_TOTAL).increment(1);
    let message = if short.period_open {
        format!(
            "this request needs {} credit(s) and the billing period has {} left; credits are granted again when the next period opens",
            short.required, short.balance
        )
    } else {
        "this account has no open billing period, so no credits to spend".to_string()
    };
    ApiError::new(
        ErrorKind::PaymentRequired,
        ErrorCode::InsufficientCredits,
        message,
    )
    .with("balance", short.balance)
    .with("required", short.required)
}

fn period_error(error: PeriodError) -> ApiError {
    match error {
        PeriodError::TenantNotFound(_) => {
            ApiError::not_found(ErrorCode::TenantNotFound, "tenant not found")
        }
        open @ PeriodError::AlreadyOpen(_) => ApiError::new(
            ErrorKind::Conflict,
            ErrorCode::PeriodAlreadyOpen,
            open.to_string(),
        ),
        none @ PeriodError::NoOpenPeriod(_) => ApiError::new(
            ErrorKind::Conflict,
            ErrorCode::NoOpenPeriod,
            none.to_string(),
        ),
        PeriodError::Store(error) => error.into(),
    }
}

pub(crate) fn system_audit(
    tenant_id: i64,
    action: &'static str,
    details: serde_json::Value,
) -> AuditRecord {
    AuditRecord {
        tenant_id: Some(tenant_id),
        actor_type: "system",
        actor_id: Some("internal_token".to_string()),
        action,
        target_type: Some("tenant"),
        target_id: Some(tenant_id.to_string()),
        outcome: "success",
        ip: None,
        details,
    }
}

/// A billing period as the API shows it.
#[derive(Serialize, ToSchema)]
pub struct PeriodView {
    pub id: i64,
    pub tenant_id: i64,
    /// The plan the period was opened on (its credits, and what the tenant may do during it).
    #[schema(value_type = crate::api::vocab::Plan)]
    pub plan: String,
    /// `open` or `closed`.
    #[schema(value_type = crate::api::vocab::PeriodStatus)]
    pub status: String,
    pub starts_at: String,
    pub ends_at: String,
    pub credits_granted: i64,
    pub closed_at: Option<String>,
    /// Credits expired when it closed (closed periods only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub credits_expired: Option<i64>,
}

impl PeriodView {
    fn of(period: &PeriodRecord, expired: Option<i64>) -> PeriodView {
        PeriodView {
            id: period.id,
            tenant_id: period.tenant_id,
            plan: period.plan.clone(),
            status: period.status.clone(),
            starts_at: super::common::rfc3339(period.starts_at),
            ends_at: super::common::rfc3339(period.ends_at),
            credits_granted: period.credits_granted,
            closed_at: period.closed_at.map(super::common::rfc3339),
            credits_expired: expired,
        }
    }

    fn closed(closed: &ClosedPeriod) -> PeriodView {
        PeriodView::of(&closed.period, Some(closed.expired))
    }
}

/// Opens a billing period for the tenant: from now to one calendar month later (UTC), on the
/// tenant's plan, granting the plan's `credits_per_period`.
#[utoipa::path(post, path = "/system/billing/open-period/{tenant_id}", operation_id = "open_billing_period", tag = "admin",
    params(("tenant_id" = i64, Path, description = "The tenant")),
    responses(
        (status = 200, body = Envelope<PeriodView>),
        (status = 401, body = crate::error::ErrorBody),
        (status = 403, body = crate::error::ErrorBody),
        (status = 404, description = "Unknown tenant (`tenant_not_found`)", body = crate::error::ErrorBody),
        (status = 409, description = "The tenant has an open period (`period_already_open`)", body = crate::error::ErrorBody),
        (status = 422, body = crate::error::ValidationErrorBody)
    ),
    security(("internal_token" = [])))]
#[post("/system/billing/open-period/{tenant_id}")]
pub async fn open_period(
    _caller: InternalCaller,
    state: web::Data<AppState>,
    tenant_id: web::Path<String>,
) -> Result<web::Json<Envelope<PeriodView>>, ApiError> {
    let tenant_id = path_id(&tenant_id, "tenant_id")?;
    let period = state
        .store
        .open_billing_period(tenant_id, &state.settings.plans, state.clock.now())
        .await
        .map_err(period_error)?;
    accounts::audit(
        &state,
        system_audit(
            tenant_id,
            "billing_period_opened",
            serde_json::json!({"period_id": period.id, "plan": period.plan, "credits": period.credits_granted}),
        ),
    )
    .await;
    Ok(envelope(PeriodView::of(&period, None)))
}

/// Closes the tenant's open period: its unused credits expire (`credits_expired`). Work accepted
/// during it still finishes and is charged to it.
#[utoipa::path(post, path = "/system/billing/close-period/{tenant_id}", operation_id = "close_billing_period", tag = "admin",
    params(("tenant_id" = i64, Path, description = "The tenant")),
    responses(
        (status = 200, body = Envelope<PeriodView>),
        (status = 401, body = crate::error::ErrorBody),
        (status = 403, body = crate::error::ErrorBody),
        (status = 404, description = "Unknown tenant (`tenant_not_found`)", body = crate::error::ErrorBody),
        (status = 409, description = "No open period (`no_open_period`)", body = crate::error::ErrorBody),
        (status = 422, body = crate::error::ValidationErrorBody)
    ),
    security(("internal_token" = [])))]
#[post("/system/billing/close-period/{tenant_id}")]
pub async fn close_period(
    _caller: InternalCaller,
    state: web::Data<AppState>,
    tenant_id: web::Path<String>,
) -> Result<web::Json<Envelope<PeriodView>>, ApiError> {
    let tenant_id = path_id(&tenant_id, "tenant_id")?;
    let closed = state
        .store
        .close_billing_period(tenant_id, state.clock.now())
        .await
        .map_err(period_error)?;
    accounts::audit(
        &state,
        system_audit(
            tenant_id,
            "billing_period_closed",
            serde_json::json!({"period_id": closed.period.id, "expired": closed.expired}),
        ),
    )
    .await;
    Ok(envelope(PeriodView::closed(&closed)))
}

/// What a cycle did.
#[derive(Serialize, ToSchema)]
pub struct CycleView {
    /// Periods past their end that it closed.
    pub closed: Vec<PeriodView>,
    /// Periods it opened: the next one of each closed period, and the first one of an active tenant
    /// that never had one.
    pub opened: Vec<PeriodView>,
}

impl From<&CycleReport> for CycleView {
    fn from(report: &CycleReport) -> CycleView {
        CycleView {
            closed: report.closed.iter().map(PeriodView::closed).collect(),
            opened: report
                .opened
                .iter()
                .map(|period| PeriodView::of(period, None))
                .collect(),
        }
    }
}

/// The monthly cycle (what the scheduler runs on `billing.cycle_cron`): closes every period
/// past its end and opens the next one on the tenant's current plan. Running it again at once
/// finds nothing to do.
#[utoipa::path(post, path = "/system/billing/cycle", operation_id = "run_billing_cycle", tag = "admin",
    responses(
        (status = 200, body = Envelope<CycleView>),
        (status = 401, body = crate::error::ErrorBody),
        (status = 403, body = crate::error::ErrorBody)
    ),
    security(("internal_token" = [])))]
#[post("/system/billing/cycle")]
pub async fn cycle(
    _caller: InternalCaller,
    state: web::Data<AppState>,
) -> Result<web::Json<Envelope<CycleView>>, ApiError> {
    let report = state
        .store
        .run_billing_cycle(&state.settings.plans, state.clock.now())
        .await?;
    metrics::counter!(names::BILLING_CYCLE_RUNS_TOTAL, "trigger" => "api").increment(1);
    tracing::info!(
        closed = report.closed.len(),
        opened = report.opened.len(),
        "billing cycle"
    );
    Ok(envelope(CycleView::from(&report)))
}

#[derive(Deserialize, ToSchema)]
pub struct PlanRequest {
    /// `trial`, `starter`, `pro` or `enterprise`.
    #[schema(value_type = crate::api::vocab::Plan)]
    pub plan: String,
}

#[derive(Serialize, ToSchema)]
pub struct PlanChange {
    pub tenant_id: i64,
    #[schema(value_type = crate::api::vocab::Plan)]
    pub plan: String,
    #[schema(value_type = crate::api::vocab::Plan)]
    pub previous_plan: String,
    /// When the new plan takes effect: the end of the open period, or null when the tenant has none
    /// (its next period, opened by the cycle or open-period, is on the new plan).
    pub effective_from: Option<String>,
}

/// Changes a tenant's plan. The period under way keeps its plan and credits; the change applies from
/// the next period. Audited.
#[utoipa::path(put, path = "/system/admin/tenants/{tenant_id}/plan", operation_id = "set_tenant_plan", tag = "admin",
    params(("tenant_id" = i64, Path, description = "The tenant")),
    request_body = PlanRequest,
    responses(
        (status = 200, body = Envelope<PlanChange>),
        (status = 401, body = crate::error::ErrorBody),
        (status = 403, body = crate::error::ErrorBody),
        (status = 404, description = "Unknown tenant (`tenant_not_found`)", body = crate::error::ErrorBody),
        (status = 422, description = "An unknown plan (the message lists the plans)", body = crate::error::ValidationErrorBody)
    ),
    security(("internal_token" = [])))]
#[put("/system/admin/tenants/{tenant_id}/plan")]
pub async fn set_plan(
    _caller: InternalCaller,
    state: web::Data<AppState>,
    tenant_id: web::Path<String>,
    body: ValidJson<PlanRequest>,
) -> Result<web::Json<Envelope<PlanChange>>, ApiError> {
    let tenant_id = path_id(&tenant_id, "tenant_id")?;
    let Some(plan) = Plan::parse(body.0.plan.trim()) else {
        let names: Vec<&str> = Plan::ALL.iter().map(|plan| plan.as_str()).collect();
        return Err(ApiError::validation(vec![ValidationDetail::new(
            "body",
            "plan",
            format!("unknown plan; use one of: {}", names.join(", ")),
            "value_error.plan",
        )]));
    };
    let now = state.clock.now();
    let previous = state
        .store
        .set_tenant_plan(tenant_id, plan, now)
        .await?
        .ok_or_else(|| ApiError::not_found(ErrorCode::TenantNotFound, "tenant not found"))?;
    let open = state.store.open_period(tenant_id).await?;
    accounts::audit(
        &state,
        system_audit(
            tenant_id,
            "plan_changed",
            serde_json::json!({"from": previous, "to": plan.as_str()}),
        ),
    )
    .await;
    Ok(envelope(PlanChange {
        tenant_id,
        plan: plan.as_str().to_string(),
        previous_plan: previous,
        effective_from: open.map(|period| super::common::rfc3339(period.ends_at)),
    }))
}

/// This resource's routes.
pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(open_period)
        .service(close_period)
        .service(cycle)
        .service(set_plan);
}
