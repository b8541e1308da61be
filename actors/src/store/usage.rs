//! Usage totals and plan credits of a tenant.

use sea_orm::EntityTrait;

use super::billing::PeriodRecord;
use super::credits::CreditTotals;
use super::entities::tenant_usage;
use super::{Store, StoreError};

#[derive(Clone, Debug)]
pub struct UsageRecord {
    /// The open billing period, if any.
    pub period: Option<PeriodRecord>,
    /// Its credits (zeros without an open period).
    pub credits: CreditTotals,
    pub documents_processed: i64,
    pub pages_processed: i64,
    pub bytes_processed: i64,
}

impl Store {
    /// Totals for the tenant: counters, the open billing period and its credits.
    pub async fn usage(&self, tenant_id: i64) -> Result<UsageRecord, StoreError> {
        let counters = tenant_usage::Entity::find_by_id(tenant_id)
            .one(self.connection())
            .await?;
        let period = self.open_period(tenant_id).await?;
        let credits = match &period {
            Some(period) => self.credit_totals(period.id).await?,
            None => CreditTotals::default(),
        };
        Ok(UsageRecord {
            period,
            credits,
            documents_processed: counters.as_ref().map_or(0, |c| c.documents_processed),
            pages_processed: counters.as_ref().map_or(0, |c| c.pages_processed),
            bytes_processed: counters.as_ref().map_or(0, |c| c.bytes_processed),
        })
    }
}
