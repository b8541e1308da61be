//! Plans, billing periods and the credit ledger they hold (the moves on it, reservations and
//! settlements, are in `credits`).
//!
//! Credits are never a balance column alone: every change is a ledger entry, and a period's balance is
//! the sum of its entries. The period row keeps that sum as a running `balance`, moved in the same
//! transaction as each entry, so that admission reads one row instead of summing a ledger that grows
//! with every document (a test checks that the two agree). Entries of one kind are unique per reference, so no job is reserved, debited or
//! released twice:
//! - `grant` (+): the plan's credits when a period opens (reference `period:<id>`);
//! - `reserve` (-): one credit held when an upload or reprocess is accepted (reference: the job id),
//!   or when a preview is (reference `preview:<id>`);
//! - `release` (+): the reservation given back when its work ends, with
//! - `debit` (-): what the work cost, one credit per processed page (a document without pages: one),
//!   written in the transaction that records its execution; never more than the credits left, so a
//!   balance never goes below zero (the pages beyond are not charged);
//! - `expire` (-): what is left when a period closes (reference `period:<id>`), and what a reservation
//!   settled after its period closed gives back (reference: the job id).
//!
//! Every change of a tenant's credits first locks the tenant's row (see [`Store::lock_tenant`]), so
//! concurrent admissions see each other's reservations.

use chrono::{DateTime, Months, Utc};
use sea_orm::{ConnectionTrait, DatabaseTransaction, QueryResult, TransactionTrait};
use serde::Serialize;

use super::{Backend, Store, StoreError};
use crate::metric_names as names;
use crate::settings::{Plan, PlansSettings};

/// One billing period.
#[derive(Clone, Debug, Serialize)]
pub struct PeriodRecord {
    pub id: i64,
    pub tenant_id: i64,
    pub plan: String,
    pub status: String,
    pub starts_at: DateTime<Utc>,
    pub ends_at: DateTime<Utc>,
    pub credits_granted: i64,
    /// What may still be reserved: the sum of the period's ledger entries, which every ledger write
    /// moves in the same transaction (a test checks it against the ledger).
    pub balance: i64,
    pub closed_at: Option<DateTime<Utc>>,
}

pub(super) fn period_from(row: &QueryResult) -> Result<PeriodRecord, StoreError> {
    Ok(PeriodRecord {
        id: row.try_get("", "id")?,
        tenant_id: row.try_get("", "tenant_id")?,
        plan: row.try_get("", "plan")?,
        status: row.try_get("", "status")?,
        starts_at: row.try_get("", "starts_at")?,
        ends_at: row.try_get("", "ends_at")?,
        credits_granted: row.try_get("", "credits_granted")?,
        balance: row.try_get("", "balance")?,
        closed_at: row.try_get("", "closed_at")?,
    })
}

pub(super) const PERIOD_COLUMNS: &str =
    "id, tenant_id, plan, status, starts_at, ends_at, credits_granted, balance, closed_at";

/// A period that was closed, with the credits that expired with it.
#[derive(Clone, Debug, Serialize)]
pub struct ClosedPeriod {
    #[serde(flatten)]
    pub period: PeriodRecord,
    pub expired: i64,
}

#[derive(Debug, thiserror::Error)]
pub enum PeriodError {
    #[error("tenant {0} does not exist")]
    TenantNotFound(i64),
    #[error("tenant {} already has an open billing period (id {}, until {})", .0.tenant_id, .0.id, .0.ends_at)]
    AlreadyOpen(Box<PeriodRecord>),
    #[error("tenant {0} has no open billing period")]
    NoOpenPeriod(i64),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<sea_orm::DbErr> for PeriodError {
    fn from(error: sea_orm::DbErr) -> PeriodError {
        PeriodError::Store(error.into())
    }
}

/// What one run of the cycle did.
#[derive(Clone, Debug, Default, Serialize)]
pub struct CycleReport {
    pub closed: Vec<ClosedPeriod>,
    pub opened: Vec<PeriodRecord>,
}

/// One month after `start` (the last day of a shorter month when the day does not exist).
pub fn one_month_after(start: DateTime<Utc>) -> DateTime<Utc> {
    start
        .checked_add_months(Months::new(1))
        .unwrap_or(start + chrono::Duration::days(30))
}

impl Store {
    /// Locks the tenant's row until the transaction ends; false when the tenant does not exist.
    /// PostgreSQL: `SELECT ... FOR NO KEY UPDATE`, which leaves foreign-key checks on the row free;
    /// SQLite: a no-op write, which takes the database's write lock before anything is read.
    pub(crate) async fn lock_tenant<C: ConnectionTrait>(
        &self,
        txn: &C,
        tenant_id: i64,
    ) -> Result<bool, StoreError> {
        match self.backend {
            Backend::Postgres => Ok(txn
                .query_one(self.statement(
                    "SELECT id FROM tenants WHERE id = ? FOR NO KEY UPDATE",
                    vec![tenant_id.into()],
                ))
                .await?
                .is_some()),
            // A column no foreign key refers to: writing the key would make SQLite check every table
            // that refers to tenants.
            Backend::Sqlite => Ok(txn
                .execute(self.statement(
                    "UPDATE tenants SET status = status WHERE id = ?",
                    vec![tenant_id.into()],
                ))
                .await?
                .rows_affected()
                == 1),
        }
    }

    pub(super) async fn open_period_of<C: ConnectionTrait>(
        &self,
        connection: &C,
        tenant_id: i64,
    ) -> Result<Option<PeriodRecord>, StoreError> {
        connection
            .query_one(self.statement(
                &format!(
                    "SELECT {PERIOD_COLUMNS} FROM billing_periods WHERE tenant_id = ? AND status = 'open' \
                     ORDER BY id DESC LIMIT 1"
                ),
                vec![tenant_id.into()],
            ))
            .await?
            .as_ref()
            .map(period_from)
            .transpose()
    }

    /// The tenant's open period, if any.
    pub async fn open_period(&self, tenant_id: i64) -> Result<Option<PeriodRecord>, StoreError> {
        self.open_period_of(self.connection(), tenant_id).await
    }

    /// The sum of a period's ledger entries (what its running balance must equal).
    #[cfg(test)]
    pub(super) async fn ledger_sum(&self, period_id: i64) -> Result<i64, StoreError> {
        let row = self
            .connection()
            .query_one(self.statement(
                "SELECT CAST(COALESCE(SUM(amount), 0) AS BIGINT) AS total FROM credit_ledger WHERE billing_period_id = ?",
                vec![period_id.into()],
            ))
            .await?;
        Ok(match row {
            Some(row) => row.try_get("", "total")?,
            None => 0,
        })
    }

    /// Writes ledger entries of one period (kind, amount, reference) and moves the period's running
    /// balance by their sum, in the caller's transaction: one INSERT and one UPDATE however many.
    pub(super) async fn post<C: ConnectionTrait>(
        &self,
        connection: &C,
        (tenant_id, period_id): (i64, i64),
        entries: &[(&str, i64, &str)],
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        if entries.is_empty() {
            return Ok(());
        }
        let rows = vec!["(?, ?, ?, ?, ?, ?)"; entries.len()].join(", ");
        let mut values = Vec::with_capacity(entries.len() * 6);
        for (kind, amount, reference) in entries {
            values.extend([
                tenant_id.into(),
                period_id.into(),
                (*kind).into(),
                (*amount).into(),
                (*reference).into(),
                now.into(),
            ]);
        }
        connection
            .execute(self.statement(
                &format!(
                    "INSERT INTO credit_ledger (tenant_id, billing_period_id, entry_type, amount, reference, created_at) \
                     VALUES {rows}"
                ),
                values,
            ))
            .await
            .map_err(super::unique)?;
        let total: i64 = entries.iter().map(|(_, amount, _)| amount).sum();
        connection
            .execute(self.statement(
                "UPDATE billing_periods SET balance = balance + ? WHERE id = ?",
                vec![total.into(), period_id.into()],
            ))
            .await?;
        Ok(())
    }

    /// Opens a period from `starts_at` to one month later on the tenant's plan, granting its credits.
    /// The caller holds the tenant's lock and has checked that none is open.
    async fn insert_period(
        &self,
        txn: &DatabaseTransaction,
        tenant_id: i64,
        plans: &PlansSettings,
        starts_at: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<PeriodRecord, StoreError> {
        let plan: String = txn
            .query_one(self.statement(
                "SELECT plan FROM tenants WHERE id = ?",
                vec![tenant_id.into()],
            ))
            .await?
            .map(|row| row.try_get("", "plan"))
            .transpose()?
            .unwrap_or_else(|| Plan::Trial.as_str().to_string());
        let plan = Plan::from_stored(&plan);
        let credits = plans.get(plan).credits_per_period;
        let ends_at = one_month_after(starts_at);
        let row = txn
            .query_one(self.statement(
                &format!(
                    "INSERT INTO billing_periods (tenant_id, plan, status, starts_at, ends_at, credits_granted, \
                     closed_at, created_at) VALUES (?, ?, 'open', ?, ?, ?, NULL, ?) RETURNING {PERIOD_COLUMNS}"
                ),
                vec![
                    tenant_id.into(),
                    plan.as_str().into(),
                    starts_at.into(),
                    ends_at.into(),
                    credits.into(),
                    now.into(),
                ],
            ))
            .await?
            .ok_or_else(|| StoreError::Database(sea_orm::DbErr::RecordNotInserted))?;
        let mut period = period_from(&row)?;
        let reference = format!("period:{}", period.id);
        self.post(
            txn,
            (tenant_id, period.id),
            &[("grant", credits, &reference)],
            now,
        )
        .await?;
        period.balance = credits;
        Ok(period)
    }

    /// Expires what is left of the open period and closes it. The caller holds the tenant's lock.
    async fn close_in(
        &self,
        txn: &DatabaseTransaction,
        period: PeriodRecord,
        now: DateTime<Utc>,
    ) -> Result<ClosedPeriod, StoreError> {
        let left = period.balance;
        if left > 0 {
            let reference = format!("period:{}", period.id);
            self.post(
                txn,
                (period.tenant_id, period.id),
                &[("expire", -left, &reference)],
                now,
            )
            .await?;
        }
        txn.execute(self.statement(
            "UPDATE billing_periods SET status = 'closed', closed_at = ? WHERE id = ?",
            vec![now.into(), period.id.into()],
        ))
        .await?;
        Ok(ClosedPeriod {
            period: PeriodRecord {
                status: "closed".to_string(),
                balance: period.balance - left.max(0),
                closed_at: Some(now),
                ..period
            },
            expired: left.max(0),
        })
    }

    /// `POST /system/billing/open-period`: a period from now to one month later with the plan's credits.
    pub async fn open_billing_period(
        &self,
        tenant_id: i64,
        plans: &PlansSettings,
        now: DateTime<Utc>,
    ) -> Result<PeriodRecord, PeriodError> {
        let txn = self.connection().begin().await?;
        if !self.lock_tenant(&txn, tenant_id).await? {
            return Err(PeriodError::TenantNotFound(tenant_id));
        }
        if let Some(open) = self.open_period_of(&txn, tenant_id).await? {
            return Err(PeriodError::AlreadyOpen(Box::new(open)));
        }
        let period = self.insert_period(&txn, tenant_id, plans, now, now).await?;
        txn.commit().await?;
        opened_metrics(&period);
        Ok(period)
    }

    /// `POST /system/billing/close-period`: expires the unused credits and closes the open period.
    pub async fn close_billing_period(
        &self,
        tenant_id: i64,
        now: DateTime<Utc>,
    ) -> Result<ClosedPeriod, PeriodError> {
        let txn = self.connection().begin().await?;
        if !self.lock_tenant(&txn, tenant_id).await? {
            return Err(PeriodError::TenantNotFound(tenant_id));
        }
        let Some(open) = self.open_period_of(&txn, tenant_id).await? else {
            return Err(PeriodError::NoOpenPeriod(tenant_id));
        };
        let closed = self.close_in(&txn, open, now).await?;
        txn.commit().await?;
        closed_metrics(&closed);
        Ok(closed)
    }

    /// The monthly cycle: every open period whose end has passed is closed and the next one opened
    /// (starting where the old one ended, or at the latest month boundary before now when months were
    /// missed) on the tenant's current plan; an active tenant that never had a period gets its first.
    /// Each tenant is handled in its own transaction under its lock and checked again there, so a
    /// second run, or one in another process, finds nothing to do.
    pub async fn run_billing_cycle(
        &self,
        plans: &PlansSettings,
        now: DateTime<Utc>,
    ) -> Result<CycleReport, StoreError> {
        let mut report = CycleReport::default();
        let due = self
            .connection()
            .query_all(self.statement(
                "SELECT DISTINCT tenant_id FROM billing_periods WHERE status = 'open' AND ends_at <= ? ORDER BY tenant_id",
                vec![now.into()],
            ))
            .await?;
        for row in &due {
            let tenant_id: i64 = row.try_get("", "tenant_id")?;
            let txn = self.connection().begin().await?;
            self.lock_tenant(&txn, tenant_id).await?;
            let Some(open) = self.open_period_of(&txn, tenant_id).await? else {
                continue;
            };
            if open.ends_at > now {
                continue;
            }
            let mut starts_at = open.ends_at;
            while one_month_after(starts_at) <= now {
                starts_at = one_month_after(starts_at);
            }
            let closed = self.close_in(&txn, open, now).await?;
            let opened = self
                .insert_period(&txn, tenant_id, plans, starts_at, now)
                .await?;
            txn.commit().await?;
            closed_metrics(&closed);
            opened_metrics(&opened);
            report.closed.push(closed);
            report.opened.push(opened);
        }
        let never = self
            .connection()
            .query_all(self.statement(
                "SELECT id FROM tenants WHERE status = 'active' AND NOT EXISTS \
                 (SELECT 1 FROM billing_periods WHERE billing_periods.tenant_id = tenants.id) ORDER BY id",
                vec![],
            ))
            .await?;
        for row in &never {
            let tenant_id: i64 = row.try_get("", "id")?;
            match self.first_period(tenant_id, plans, now).await? {
                Some(period) => report.opened.push(period),
                None => continue,
            }
        }
        Ok(report)
    }

    /// Opens the tenant's first period (at verification); None when it already had one.
    pub async fn first_period(
        &self,
        tenant_id: i64,
        plans: &PlansSettings,
        now: DateTime<Utc>,
    ) -> Result<Option<PeriodRecord>, StoreError> {
        let txn = self.connection().begin().await?;
        if !self.lock_tenant(&txn, tenant_id).await? {
            return Ok(None);
        }
        let any = txn
            .query_one(self.statement(
                "SELECT id FROM billing_periods WHERE tenant_id = ? LIMIT 1",
                vec![tenant_id.into()],
            ))
            .await?;
        if any.is_some() {
            return Ok(None);
        }
        let period = self.insert_period(&txn, tenant_id, plans, now, now).await?;
        txn.commit().await?;
        opened_metrics(&period);
        Ok(Some(period))
    }

    /// Sets the tenant's plan (its next period is opened on it); the plan it had, or None for an
    /// unknown tenant.
    pub async fn set_tenant_plan(
        &self,
        tenant_id: i64,
        plan: Plan,
        now: DateTime<Utc>,
    ) -> Result<Option<String>, StoreError> {
        let txn = self.connection().begin().await?;
        // The lock first: on SQLite a transaction that reads, then writes, fails at once with
        // "database is locked" when another writer committed in between (twenty concurrent plan
        // changes answered 500 six to nine times).
        if !self.lock_tenant(&txn, tenant_id).await? {
            return Ok(None);
        }
        let old = txn
            .query_one(self.statement(
                "SELECT plan FROM tenants WHERE id = ?",
                vec![tenant_id.into()],
            ))
            .await?;
        let Some(old) = old else {
            return Ok(None);
        };
        let old: String = old.try_get("", "plan")?;
        txn.execute(self.statement(
            "UPDATE tenants SET plan = ?, updated_at = ? WHERE id = ?",
            vec![plan.as_str().into(), now.into(), tenant_id.into()],
        ))
        .await?;
        txn.commit().await?;
        Ok(Some(old))
    }

    /// The plan in force for the tenant: its open period's, else the tenant's own.
    pub async fn plan_in_force(&self, tenant_id: i64) -> Result<Plan, StoreError> {
        if let Some(period) = self.open_period(tenant_id).await? {
            return Ok(Plan::from_stored(&period.plan));
        }
        let row = self
            .connection()
            .query_one(self.statement(
                "SELECT plan FROM tenants WHERE id = ?",
                vec![tenant_id.into()],
            ))
            .await?;
        Ok(match row {
            Some(row) => Plan::from_stored(&row.try_get::<String>("", "plan")?),
            None => Plan::Trial,
        })
    }
}

fn opened_metrics(period: &PeriodRecord) {
    metrics::counter!(names::BILLING_PERIODS_OPENED_TOTAL, "plan" => period.plan.clone())
        .increment(1);
    metrics::counter!(names::CREDITS_GRANTED_TOTAL).increment(period.credits_granted.max(0) as u64);
}

fn closed_metrics(closed: &ClosedPeriod) {
    metrics::counter!(names::BILLING_PERIODS_CLOSED_TOTAL).increment(1);
    metrics::counter!(names::CREDITS_EXPIRED_TOTAL).increment(closed.expired.max(0) as u64);
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Every plan granting `credits`.
    pub(crate) fn plans(credits: i64) -> PlansSettings {
        PlansSettings::uniform(credits)
    }
}
