//! The credit ledger's moves: reservations when work is accepted, settlements when it ends (debit,
//! release, expiry), the totals `/v1/usage` shows, and the credit writer that runs the previews'
//! operations in batches. The periods and plans they belong to are `billing`'s (see its module
//! documentation for the entry kinds).

use chrono::{DateTime, Utc};
use sea_orm::{ConnectionTrait, DatabaseTransaction, TransactionTrait};
use serde::Serialize;
use tokio::sync::oneshot;

use super::{Store, StoreError};
use crate::metric_names as names;
use crate::runtime::{Batcher, BatcherSettings, Home};

/// Credits of one period by entry kind, as `/v1/usage` shows them.
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub struct CreditTotals {
    pub granted: i64,
    /// Held by accepted work that has not finished.
    pub reserved: i64,
    pub used: i64,
    pub expired: i64,
    /// What new work may still reserve: granted - reserved - used - expired.
    pub remaining: i64,
}

/// Admission refused for want of credits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShortOfCredits {
    /// Credits left in the open period (0 without one).
    pub balance: i64,
    pub required: i64,
    /// Whether the tenant has an open period at all.
    pub period_open: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum CreditError {
    #[error("{} credits are needed and {} are left", .0.required, .0.balance)]
    Insufficient(ShortOfCredits),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// How a reservation was settled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Settlement {
    pub debited: i64,
    pub released: i64,
    pub expired: i64,
}

/// Most credit operations in one transaction.
const CREDIT_BATCH: usize = 64;

/// The ledger entries of one piece of work (`reference`, a job id) with their period, for settling it.
/// `+l.tenant_id` keeps SQLite off the (tenant, created_at) index: without statistics its planner
/// rated that index as good as the reference's, and walked every entry the tenant ever had, inside the
/// write lock of every job's completion (the cost grew with the tenant's history: 1.3 ms a job after
/// 3,000). The reference's own index finds the two or three rows; the tenant condition still holds.
pub(super) const SETTLEMENT_ENTRIES: &str =
    "SELECT l.reference AS reference, l.entry_type AS entry_type, l.amount AS amount, l.billing_period_id AS period_id, \
     p.status AS status, p.balance AS balance FROM credit_ledger l \
     JOIN billing_periods p ON p.id = l.billing_period_id WHERE l.reference = ? AND +l.tenant_id = ?";

/// What one reference's reservation holds, from its ledger entries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Held {
    pub period_id: i64,
    /// Credits the reservation holds (0: work accepted before credits existed).
    pub held: i64,
    /// Whether its period is still open.
    pub open: bool,
    /// The period's balance when it was read.
    pub balance: i64,
}

impl Held {
    /// Work without a reservation, debited from the open period within its balance.
    pub fn unreserved(period_id: i64, balance: i64) -> Held {
        Held {
            period_id,
            held: 0,
            open: true,
            balance,
        }
    }
}

/// Where a reference stands, from its ledger entries ([`SETTLEMENT_ENTRIES`]' columns).
pub(super) enum Standing {
    /// A release or debit is there: settling again changes nothing.
    Settled,
    Reserved(Held),
    /// No entry at all.
    Unreserved,
}

pub(super) fn standing(entries: &[sea_orm::QueryResult]) -> Result<Standing, StoreError> {
    let mut found = Standing::Unreserved;
    for entry in entries {
        let kind: String = entry.try_get("", "entry_type")?;
        match kind.as_str() {
            "reserve" => {
                let amount: i64 = entry.try_get("", "amount")?;
                let status: String = entry.try_get("", "status")?;
                found = Standing::Reserved(Held {
                    period_id: entry.try_get("", "period_id")?,
                    held: -amount,
                    open: status == "open",
                    balance: entry.try_get("", "balance")?,
                });
            }
            "release" | "debit" => return Ok(Standing::Settled),
            _ => {}
        }
    }
    Ok(found)
}

/// The ledger moves (kind, amount) that settle `held` with `credits` debited: the reservation
/// released, the debit (at most what the period has left with it returned, or what it held once its
/// period closed), the rest of a closed period's reservation expired. Zero moves are left out.
pub(super) fn settling(held: &Held, credits: i64) -> (Vec<(&'static str, i64)>, Settlement) {
    let available = if held.open {
        held.balance + held.held
    } else {
        held.held
    };
    let debited = credits.clamp(0, available.max(0));
    let expired = if held.open { 0 } else { held.held - debited };
    let moves = [
        ("release", held.held),
        ("debit", -debited),
        ("expire", -expired),
    ]
    .into_iter()
    .filter(|(_, amount)| *amount != 0)
    .collect();
    (
        moves,
        Settlement {
            debited,
            released: held.held,
            expired,
        },
    )
}

/// The credit writer: previews reserve and settle their credit through one task that runs every
/// operation waiting at that moment in one transaction. Under preview load that is one write (one
/// SQLite write lock, one commit) for many requests instead of two per request, each of which waited
/// for the others in SQLite's busy handler (sleeps of up to 100 ms).
pub(super) type CreditQueue = Batcher<CreditOp>;

impl crate::runtime::Batched for CreditOp {}

/// Starts the credit writer on the current runtime (`None` outside one: operations then run
/// directly). The task ends when the last clone of the store holding the queue is dropped. Each batch
/// waits for the process's write turn ([`Store::write_turn`]) on SQLite.
pub(super) fn start(store: &Store) -> Option<CreditQueue> {
    let store = store.clone();
    Batcher::start(
        BatcherSettings {
            name: "credit_writer",
            queue: 4096,
            max: CREDIT_BATCH,
            linger: std::time::Duration::ZERO,
            home: Home::Runtime,
        },
        move |batch| {
            let store = store.clone();
            async move {
                let _turn = store.write_turn().await;
                store.write_credit_batch(batch).await;
            }
        },
    )
}

/// One operation for the credit writer, with where its answer goes.
pub(super) enum CreditOp {
    Reserve {
        tenant_id: i64,
        reference: String,
        now: DateTime<Utc>,
        reply: oneshot::Sender<Result<(), CreditError>>,
    },
    Settle {
        tenant_id: i64,
        reference: String,
        credits: i64,
        now: DateTime<Utc>,
        reply: oneshot::Sender<Result<Settlement, StoreError>>,
    },
}

impl CreditOp {
    fn tenant_id(&self) -> i64 {
        match self {
            CreditOp::Reserve { tenant_id, .. } | CreditOp::Settle { tenant_id, .. } => *tenant_id,
        }
    }

    /// Answers with a database error.
    fn fail(self, message: &str) {
        let error = || StoreError::Database(sea_orm::DbErr::Custom(message.to_string()));
        match self {
            CreditOp::Reserve { reply, .. } => {
                let _ = reply.send(Err(CreditError::Store(error())));
            }
            CreditOp::Settle { reply, .. } => {
                let _ = reply.send(Err(error()));
            }
        }
    }
}

/// An operation's answer, sent once its transaction's fate is known.
enum Answer {
    Reserved(
        oneshot::Sender<Result<(), CreditError>>,
        Result<(), CreditError>,
    ),
    Settled(oneshot::Sender<Result<Settlement, StoreError>>, Settlement),
}

impl Answer {
    fn deliver(self, committed: &Result<(), String>) {
        let error =
            |message: &String| StoreError::Database(sea_orm::DbErr::Custom(message.clone()));
        match (self, committed) {
            (Answer::Reserved(reply, answer), Ok(())) => {
                let _ = reply.send(answer);
            }
            (Answer::Reserved(reply, _), Err(message)) => {
                let _ = reply.send(Err(CreditError::Store(error(message))));
            }
            (Answer::Settled(reply, settled), Ok(())) => {
                let _ = reply.send(Ok(settled));
            }
            (Answer::Settled(reply, _), Err(message)) => {
                let _ = reply.send(Err(error(message)));
            }
        }
    }
}

impl Store {
    /// Reserves `amount` credits for each reference in the open period, all or none, inside the
    /// caller's transaction, which holds the tenant's lock.
    pub(crate) async fn reserve_in(
        &self,
        txn: &DatabaseTransaction,
        tenant_id: i64,
        references: &[String],
        now: DateTime<Utc>,
    ) -> Result<(), CreditError> {
        if references.is_empty() {
            return Ok(());
        }
        let required = references.len() as i64;
        let Some(period) = self.open_period_of(txn, tenant_id).await? else {
            return Err(CreditError::Insufficient(ShortOfCredits {
                balance: 0,
                required,
                period_open: false,
            }));
        };
        if period.balance < required {
            return Err(CreditError::Insufficient(ShortOfCredits {
                balance: period.balance.max(0),
                required,
                period_open: true,
            }));
        }
        let entries: Vec<(&str, i64, &str)> = references
            .iter()
            .map(|reference| ("reserve", -1, reference.as_str()))
            .collect();
        self.post(txn, (tenant_id, period.id), &entries, now)
            .await?;
        Ok(())
    }

    /// Reserves one credit for a synchronous request (a preview) under `reference`, through the
    /// credit writer (see [`CreditQueue`]) when there is one.
    pub async fn reserve_credit(
        &self,
        tenant_id: i64,
        reference: &str,
        now: DateTime<Utc>,
    ) -> Result<(), CreditError> {
        let op = |reply| CreditOp::Reserve {
            tenant_id,
            reference: reference.to_string(),
            now,
            reply,
        };
        match self.through_writer(op).await {
            Some(answer) => answer,
            None => {
                let txn = self.connection().begin().await.map_err(StoreError::from)?;
                self.lock_tenant(&txn, tenant_id).await?;
                self.reserve_in(&txn, tenant_id, &[reference.to_string()], now)
                    .await?;
                txn.commit().await.map_err(StoreError::from)?;
                Ok(())
            }
        }
    }

    /// Settles a synchronous request's reservation: `credits` debited (0: released only).
    pub async fn settle_credit(
        &self,
        tenant_id: i64,
        reference: &str,
        credits: i64,
        now: DateTime<Utc>,
    ) -> Result<Settlement, StoreError> {
        let op = |reply| CreditOp::Settle {
            tenant_id,
            reference: reference.to_string(),
            credits,
            now,
            reply,
        };
        let settled = match self.through_writer(op).await {
            Some(answer) => answer?,
            None => {
                let txn = self.connection().begin().await?;
                self.lock_tenant(&txn, tenant_id).await?;
                let settled = self
                    .settle_in(&txn, tenant_id, reference, credits, now)
                    .await?;
                txn.commit().await?;
                settled
            }
        };
        settled_metrics(&settled);
        Ok(settled)
    }

    /// Hands an operation to the credit writer and waits for its answer; None without a writer (or
    /// when it is gone), for the caller to run it itself.
    async fn through_writer<T>(
        &self,
        op: impl FnOnce(oneshot::Sender<T>) -> CreditOp,
    ) -> Option<T> {
        let queue = self.credits.as_ref()?;
        let (reply, answer) = oneshot::channel();
        queue.send(op(reply)).await.ok()?;
        answer.await.ok()
    }

    /// Runs a batch of credit operations in one transaction, tenants in id order (so that processes
    /// writing batches at once lock them in the same order), and answers each.
    async fn write_credit_batch(&self, mut batch: Vec<CreditOp>) {
        batch.sort_by_key(CreditOp::tenant_id);
        let txn = match self.connection().begin().await {
            Ok(txn) => txn,
            Err(error) => {
                let message = error.to_string();
                for op in batch {
                    op.fail(&message);
                }
                return;
            }
        };
        let mut answers = Vec::with_capacity(batch.len());
        let mut locked = None;
        let mut broken: Option<String> = None;
        for op in batch {
            if let Some(message) = &broken {
                op.fail(message);
                continue;
            }
            let tenant_id = op.tenant_id();
            if locked != Some(tenant_id) {
                if let Err(error) = self.lock_tenant(&txn, tenant_id).await {
                    broken = Some(error.to_string());
                    op.fail(&error.to_string());
                    continue;
                }
                locked = Some(tenant_id);
            }
            match op {
                CreditOp::Reserve {
                    tenant_id,
                    reference,
                    now,
                    reply,
                } => match self.reserve_in(&txn, tenant_id, &[reference], now).await {
                    Err(CreditError::Store(error)) => {
                        broken = Some(error.to_string());
                        let _ = reply.send(Err(CreditError::Store(error)));
                    }
                    answer => answers.push(Answer::Reserved(reply, answer)),
                },
                CreditOp::Settle {
                    tenant_id,
                    reference,
                    credits,
                    now,
                    reply,
                } => match self
                    .settle_in(&txn, tenant_id, &reference, credits, now)
                    .await
                {
                    Ok(settled) => answers.push(Answer::Settled(reply, settled)),
                    Err(error) => {
                        broken = Some(error.to_string());
                        let _ = reply.send(Err(error));
                    }
                },
            }
        }
        let committed = match broken {
            Some(message) => {
                let _ = txn.rollback().await;
                Err(message)
            }
            None => txn.commit().await.map_err(|error| error.to_string()),
        };
        for answer in answers {
            answer.deliver(&committed);
        }
    }

    /// Gives back the reservation of `reference` and debits `credits` (at most what the period has
    /// left with the reservation returned), inside the caller's transaction, which holds the tenant's
    /// lock (so that no reservation is made between reading the balance and debiting). A reservation whose
    /// period has closed debits from what it held and expires the rest. Work accepted before credits
    /// existed has no reservation: it is debited from the open period, within its balance. Settling
    /// twice changes nothing.
    pub(crate) async fn settle_in<C: ConnectionTrait>(
        &self,
        connection: &C,
        tenant_id: i64,
        reference: &str,
        credits: i64,
        now: DateTime<Utc>,
    ) -> Result<Settlement, StoreError> {
        let entries = connection
            .query_all(self.statement(SETTLEMENT_ENTRIES, vec![reference.into(), tenant_id.into()]))
            .await?;
        let held = match standing(&entries)? {
            Standing::Settled => return Ok(Settlement::default()),
            Standing::Reserved(held) => held,
            // Nothing held and nothing to charge: nothing to write.
            Standing::Unreserved if credits <= 0 => return Ok(Settlement::default()),
            Standing::Unreserved => match self.open_period_of(connection, tenant_id).await? {
                Some(period) => Held::unreserved(period.id, period.balance),
                None => return Ok(Settlement::default()),
            },
        };
        let (moves, settled) = settling(&held, credits);
        let entries: Vec<(&str, i64, &str)> = moves
            .iter()
            .map(|(kind, amount)| (*kind, *amount, reference))
            .collect();
        self.post(connection, (tenant_id, held.period_id), &entries, now)
            .await?;
        Ok(settled)
    }

    /// The open period's credits by kind (zeros without an open period).
    pub async fn credit_totals(&self, period_id: i64) -> Result<CreditTotals, StoreError> {
        let rows = self
            .connection()
            .query_all(self.statement(
                "SELECT entry_type, CAST(COALESCE(SUM(amount), 0) AS BIGINT) AS total FROM credit_ledger \
                 WHERE billing_period_id = ? GROUP BY entry_type",
                vec![period_id.into()],
            ))
            .await?;
        let mut totals = CreditTotals::default();
        let mut reserve = 0;
        let mut release = 0;
        for row in &rows {
            let kind: String = row.try_get("", "entry_type")?;
            let total: i64 = row.try_get("", "total")?;
            match kind.as_str() {
                "grant" => totals.granted += total,
                "reserve" => reserve += -total,
                "release" => release += total,
                "debit" => totals.used += -total,
                "expire" => totals.expired += -total,
                _ => {}
            }
        }
        totals.reserved = (reserve - release).max(0);
        totals.remaining = totals.granted - totals.reserved - totals.used - totals.expired;
        Ok(totals)
    }
}

/// Counts a settlement (call after its transaction committed).
pub fn settled_metrics(settled: &Settlement) {
    metrics::counter!(names::CREDITS_DEBITED_TOTAL).increment(settled.debited.max(0) as u64);
    metrics::counter!(names::CREDITS_EXPIRED_TOTAL).increment(settled.expired.max(0) as u64);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::billing::tests::plans;
    use crate::store::billing::{period_from, PERIOD_COLUMNS};

    /// Settling a job finds its entries by their reference, not by walking the tenant's history: the
    /// plan SQLite picks for the statement, on a database without statistics (as a new one is).
    #[tokio::test]
    async fn settling_searches_the_ledger_by_reference() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = Store::sqlite_for_tests(dir.path()).await;
        let steps = store
            .query_plan(SETTLEMENT_ENTRIES, vec!["job".into(), 1i64.into()])
            .await;
        assert!(
            steps
                .iter()
                .any(|step| step.contains("ix_credit_ledger_reference_entry_type (reference=?)")),
            "{steps:?}"
        );
        assert!(
            !steps.iter().any(|step| step.contains("tenant_id")),
            "{steps:?}"
        );
    }

    /// Work still running when its period closes is charged to that period (within what it held)
    /// and the rest of its reservation expires: a closed period's entries sum to zero.
    #[tokio::test]
    async fn a_reservation_settled_after_its_period_closed_leaves_it_at_zero() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = Store::sqlite_for_tests(dir.path()).await;
        let now = Utc::now();
        let tenant = store
            .create_account("ledger@example.com", "hash", "token", now, now)
            .await
            .expect("account")
            .tenant_id;
        let period = store
            .open_billing_period(tenant, &plans(5), now)
            .await
            .expect("open");
        for reference in ["a", "b"] {
            store
                .reserve_credit(tenant, reference, now)
                .await
                .expect("reserve");
        }
        // Settling twice changes nothing.
        let settled = store
            .settle_credit(tenant, "a", 1, now)
            .await
            .expect("settle");
        assert_eq!(
            settled,
            Settlement {
                debited: 1,
                released: 1,
                expired: 0
            }
        );
        let again = store
            .settle_credit(tenant, "a", 1, now)
            .await
            .expect("settle");
        assert_eq!(again, Settlement::default());
        // "b" still holds one credit when the period closes: the three left expire.
        let closed = store
            .close_billing_period(tenant, now)
            .await
            .expect("close");
        assert_eq!(closed.expired, 3);
        // "b" read three pages but held one: one is debited, nothing more.
        let late = store
            .settle_credit(tenant, "b", 3, now)
            .await
            .expect("settle");
        assert_eq!(
            late,
            Settlement {
                debited: 1,
                released: 1,
                expired: 0
            }
        );
        let row = store
            .connection()
            .query_one(store.statement(
                &format!("SELECT {PERIOD_COLUMNS} FROM billing_periods WHERE id = ?"),
                vec![period.id.into()],
            ))
            .await
            .expect("read")
            .expect("row");
        assert_eq!(period_from(&row).expect("period").balance, 0);
        assert_eq!(store.ledger_sum(period.id).await.expect("sum"), 0);
        let totals = store.credit_totals(period.id).await.expect("totals");
        assert_eq!(
            totals,
            CreditTotals {
                granted: 5,
                reserved: 0,
                used: 2,
                expired: 3,
                remaining: 0
            }
        );
        // Without an open period nothing can be reserved.
        match store.reserve_credit(tenant, "c", now).await {
            Err(CreditError::Insufficient(short)) => assert!(!short.period_open),
            other => panic!("reserved without a period: {other:?}"),
        }
    }
}
