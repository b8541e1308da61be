//! GET /v1/usage: plan, billing period, credits and processing totals of the caller's tenant.

use actix_web::{get, web};
use chrono::{DateTime, Utc};
use docsieve_actors::store::CreditTotals;
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use super::{envelope, Envelope};
use crate::auth::Authenticated;
use crate::error::{ApiError, ErrorCode};
use crate::state::AppState;

#[derive(Serialize, ToSchema)]
pub struct Period {
    pub start: DateTime<Utc>,
    pub end: DateTime<Utc>,
}

#[derive(Serialize, ToSchema)]
pub struct Usage {
    pub tenant_id: i64,
    pub plan: String,
    /// The open billing period, or null when none is open.
    pub period: Option<Period>,
    /// Credits of the open period (granted, used, remaining).
    #[schema(value_type = Object)]
    pub credits: CreditTotals,
    pub documents_processed: i64,
    pub pages_processed: i64,
    pub bytes_processed: i64,
}

#[utoipa::path(get, path = "/v1/usage", tag = "account",
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
    Ok(envelope(Usage {
        tenant_id: tenant.id,
        plan: tenant.plan,
        period: usage.period.map(|(start, end)| Period { start, end }),
        credits: usage.credits,
        documents_processed: usage.documents_processed,
        pages_processed: usage.pages_processed,
        bytes_processed: usage.bytes_processed,
    }))
}

/// This resource's routes.
pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(usage);
}
