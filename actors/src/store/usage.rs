//! Usage totals and plan credits of a tenant.

use chrono::{DateTime, Utc};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder};
use serde::Serialize;

use super::entities::{billing_period, credit_entry, tenant_usage};
use super::{Store, StoreError};

#[derive(Clone, Debug, Serialize)]
pub struct CreditTotals {
    pub granted: i64,
    pub used: i64,
    pub remaining: i64,
}

#[derive(Clone, Debug)]
pub struct UsageRecord {
    pub period: Option<(DateTime<Utc>, DateTime<Utc>)>,
    pub credits: CreditTotals,
    pub documents_processed: i64,
    pub pages_processed: i64,
    pub bytes_processed: i64,
}

impl Store {
    /// Totals for the tenant: counters, the open billing period and its credit balance (all-time when
    /// no period is open).
    pub async fn usage(&self, tenant_id: i64) -> Result<UsageRecord, StoreError> {
        let counters = tenant_usage::Entity::find_by_id(tenant_id)
            .one(self.connection())
            .await?;
        let period = billing_period::Entity::find()
            .filter(billing_period::Column::TenantId.eq(tenant_id))
            .filter(billing_period::Column::Status.eq("open"))
            .order_by_desc(billing_period::Column::Id)
            .one(self.connection())
            .await?;
        let mut entries =
            credit_entry::Entity::find().filter(credit_entry::Column::TenantId.eq(tenant_id));
        if let Some(period) = &period {
            entries = entries.filter(credit_entry::Column::BillingPeriodId.eq(period.id));
        }
        let entries = entries.all(self.connection()).await?;
        let granted: i64 = entries
            .iter()
            .filter(|e| e.entry_type == "grant")
            .map(|e| e.amount)
            .sum();
        let used: i64 = entries
            .iter()
            .filter(|e| e.entry_type == "usage")
            .map(|e| -e.amount)
            .sum();
        let expired: i64 = entries
            .iter()
            .filter(|e| e.entry_type == "expiry")
            .map(|e| -e.amount)
            .sum();
        Ok(UsageRecord {
            period: period.map(|p| (p.starts_at, p.ends_at)),
            credits: CreditTotals {
                granted,
                used,
                remaining: (granted - used - expired).max(0),
            },
            documents_processed: counters.as_ref().map_or(0, |c| c.documents_processed),
            pages_processed: counters.as_ref().map_or(0, |c| c.pages_processed),
            bytes_processed: counters.as_ref().map_or(0, |c| c.bytes_processed),
        })
    }
}
