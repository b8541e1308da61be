//! GET /v1/usage: plan, billing period, credits and processing totals of the caller's tenant.

use actix_web::{get, web};
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use super::common::rfc3339;
use super::{envelope, Envelope};
use crate::auth::Authenticated;
use crate::error::{ApiError, ErrorCode};
use crate::state::AppState;

#[derive(Serialize, ToSchema)]
pub struct Period {
    pub id: i64,
    pub start: String,
    /// When the period ends: its unused credits expire then.
    pub end: String,
    /// The plan the period was opened on.
    pub plan: String,
}

/// Credits of the open period. Every upload or preview reserves one credit when it is accepted; when
/// its work ends the reservation is given back and one credit per processed page (a document without
/// pages: one) is used.
#[derive(Serialize, ToSchema)]
pub struct Credits {
    pub granted: i64,
    /// Held by accepted work that has not finished.
    pub reserved: i64,
    pub used: i64,
    pub expired: i64,
    /// What new work may still reserve: granted - reserved - used - expired.
    pub remaining: i64,
    /// When the remaining credits expire (the period's end); null without an open period.
    pub expires_at: Option<String>,
}

#[derive(Serialize, ToSchema)]
pub struct Usage {
    pub tenant_id: i64,
    /// The plan in force: the open period's.
    #[schema(value_type = crate::api::vocab::Plan)]
    pub plan: String,
    /// The plan the next period opens on, when it differs (a plan change waiting for it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_plan: Option<String>,
    /// The open billing period, or null when none is open.
    pub period: Option<Period>,
    pub credits: Credits,
    pub documents_processed: i64,
    pub pages_processed: i64,
    pub bytes_processed: i64,
}

/// The caller's plan, credits left in the open billing period, and what was processed in it.
#[utoipa::path(get, path = "/v1/usage", operation_id = "get_usage", tag = "account",
    responses((status = 200, body = Envelope<Usage>), (status = 401, body = crate::error::ErrorBody)),
    security(("api_key" = []), ("bearer" = [])))]
#[get("/v1/usage")]
pub async fn usage(
    state: web::Data<AppState>,
    auth: Authenticated,
) -> Result<web::Json<Envelope<Usage>>, ApiError> {
    let tenant = state
        .store
        .tenant_by_id(auth.tenant_id)
        .await?
        .ok_or_else(|| ApiError::not_found(ErrorCode::TenantNotFound, "tenant not found"))?;
    let usage = state.store.usage(auth.tenant_id).await?;
    let plan = usage
        .period
        .as_ref()
        .map_or_else(|| tenant.plan.clone(), |period| period.plan.clone());
    let credits = usage.credits;
    Ok(envelope(Usage {
        tenant_id: tenant.id,
        next_plan: (plan != tenant.plan).then(|| tenant.plan.clone()),
        plan,
        credits: Credits {
            granted: credits.granted,
            reserved: credits.reserved,
            used: credits.used,
            expired: credits.expired,
            remaining: credits.remaining,
            expires_at: usage.period.as_ref().map(|period| rfc3339(period.ends_at)),
        },
        period: usage.period.map(|period| Period {
            id: period.id,
            start: rfc3339(period.starts_at),
            end: rfc3339(period.ends_at),
            plan: period.plan,
        }),
        documents_processed: usage.documents_processed,
        pages_processed: usage.pages_processed,
        bytes_processed: usage.bytes_processed,
    }))
}

/// This resource's routes.
pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(usage);
}
