//! The store: sea-orm over SQLite (default) or PostgreSQL, chosen by the URL.
//!
//! The only place that writes SQL. Every query that reads tenant data takes the tenant id as an
//! argument; nothing here trusts a caller to filter afterwards.

mod accounts;
mod audit;
mod billing;
mod closure;
mod completer;
mod compliance;
mod connect;
mod connectors;
mod credits;
mod data_keys;
mod datasets;
mod fine_tune;
mod group;
mod jobs;
mod leases;
mod privacy;
mod processing;
mod queue;
mod retention;
mod sealed;
mod sessions;
mod subject_queue;
mod subjects;
mod team;
mod ticks;
mod usage;
mod webhooks;
pub use connect::default_sqlite_url;
mod entities;
mod quality;
mod schedules;

use std::sync::Arc;
use std::time::{Duration, Instant};

use sea_orm::{
    ConnectionTrait, DatabaseBackend, DatabaseConnection, DatabaseTransaction, DbErr, Statement,
    TransactionTrait,
};

pub use accounts::{CreatedAccount, TokenCheck};
pub use audit::AuditRecord;
pub use billing::{one_month_after, ClosedPeriod, CycleReport, PeriodError, PeriodRecord};
pub use closure::{ClosureRecord, TenantCounts};
pub use completer::{Committed, JobEnd, JobOutcome, Written};
pub use compliance::{Destinations, PiiCategory, TenantTable};
pub use connect::StoreSettings;
// The rows the store answers with, as records: the entities' models. Their sea-orm entities,
// columns and active models stay inside the store.
pub use connectors::ConnectorRecord;
pub use credits::{settled_metrics, CreditError, CreditTotals, Settlement, ShortOfCredits};
pub use data_keys::DataKeyRecord;
pub use datasets::{BuildInput, ExpiredExport, NewExport};
pub use entities::audit_entry::Model as AuditEntryRecord;
pub use entities::dataset::Model as DatasetRecord;
pub use entities::document::Model as DocumentRow;
pub use entities::execution::Model as ExecutionRecord;
pub use entities::job::Model as JobRecord;
pub use entities::webhook::Model as WebhookRecord;
pub use fine_tune::{FineTuneRecord, FineTuneStep, NewFineTune, ACTIVE_STATES, ALL_STATES};
pub use jobs::{
    new_id, ClaimedJob, NewExecution, OutboxEvent, QueueDepth, Usage, WaitingJob,
    EXTRACTION_CRASHED, EXTRACTION_TIMED_OUT, JOB_COST_SQL, LEASE_EXPIRED, PROCESS_DIED,
};
pub use leases::{lease_until, ExhaustedJob, Reaped};
pub use privacy::{PrivacyPolicyRecord, PseudonymKeyRecord, VaultEntry};
pub use processing::{DocumentFilter, DocumentRecord, ExecutionFilter, PageRequest};
pub use quality::FlaggedExecution;
pub use queue::{
    BuildPayload, EnqueueError, JobKind, JobPayload, JobTarget, NewDocument, NewJob, Origin,
    ProcessPayload, Queued, RequestedBy,
};
pub use retention::{Destruction, DestructionRecord, DueItem, RetentionChoice};
pub use schedules::{
    NewSchedule, ObjectFate, ObjectVersion, ScheduleError, ScheduleRecord, SyncOutcome,
    SyncRunRecord, STALE_CLAIM_MINUTES, SYNC_HEARTBEAT_SECONDS, SYNC_STALE_SECONDS,
};
pub use sealed::{ObjectKey, RowKey, SealError, Sealed, SealedField};
pub use sessions::{ApiKeyRecord, RefreshOutcome};
pub use subjects::{ConnectorCopy, ErasedRows, SubjectEntry, SubjectHit};
pub use team::{InvitationCheck, MemberRecord, RemoveOutcome};
pub use ticks::Mark;
pub use usage::UsageRecord;
pub use webhooks::{AttemptNext, AttemptRecord, ClaimedDelivery, DeliveryRecord};

/// Turns a unique-constraint violation into [`StoreError::Duplicate`].
pub(crate) fn unique(error: DbErr) -> StoreError {
    match error.sql_err() {
        Some(sea_orm::SqlErr::UniqueConstraintViolation(_)) => StoreError::Duplicate,
        _ => StoreError::Database(error),
    }
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("a row with the same unique value exists")]
    Duplicate,
    #[error("database error: {0}")]
    Database(#[from] DbErr),
    #[error("invalid database url: {0}")]
    InvalidUrl(String),
    #[error("cannot prepare the SQLite database at {path}: {source}")]
    SqliteFile {
        path: String,
        source: std::io::Error,
    },
}

impl StoreError {
    /// A foreign key refused the write: a row it refers to was deleted meanwhile (a concurrent
    /// delete), which the caller reports as the 404 or 409 it would have got a moment later.
    pub fn is_missing_reference(&self) -> bool {
        matches!(self, StoreError::Database(error)
            if matches!(error.sql_err(), Some(sea_orm::SqlErr::ForeignKeyConstraintViolation(_))))
    }

    /// SQLite's write lock stayed taken past the busy timeout ("database is locked").
    pub fn is_busy(&self) -> bool {
        matches!(self, StoreError::Database(error)
            if error.to_string().contains("database is locked"))
    }
}

/// Which engine the store runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

impl Backend {
    pub fn as_str(self) -> &'static str {
        match self {
            Backend::Sqlite => "sqlite",
            Backend::Postgres => "postgres",
        }
    }
}

#[derive(Clone)]
pub struct Store {
    db: DatabaseConnection,
    backend: Backend,
    /// The audit writer's queue (see [`audit::AuditQueue`]); `None` outside a runtime.
    audit: Option<audit::AuditQueue>,
    /// The credit writer's queue (see [`credits::CreditQueue`]); `None` outside a runtime.
    credits: Option<credits::CreditQueue>,
    /// The completer's queue (see [`completer::Completer`]); `None` outside a runtime.
    completer: Option<completer::Completer>,
    /// The subject index's writer (see [`subject_queue`]); `None` outside a runtime.
    subject_indexer: Option<subject_queue::SubjectIndexer>,
    /// On SQLite, this process's turn at the database's one write lock (see [`Store::write_turn`]).
    gate: Option<Arc<tokio::sync::Mutex<()>>>,
    /// Document jobs up to this size go to the small lane.
    small_max_bytes: i64,
}

/// A process's turn at SQLite's write lock, held until dropped (nothing on PostgreSQL).
pub(crate) type WriteTurn = Option<tokio::sync::OwnedMutexGuard<()>>;

impl Store {
    pub fn backend(&self) -> Backend {
        self.backend
    }

    pub fn connection(&self) -> &DatabaseConnection {
        &self.db
    }

    /// Waits for this process's turn to write, on SQLite: the writers of one process take turns here
    /// (in arrival order) before they ask for the database's one write lock. A writer that found the
    /// lock taken would otherwise sleep in SQLite's busy handler, in steps of 1 to 100 ms, however soon
    /// the lock came free: under a stream of uploads and job completions the lock sat idle between
    /// writers while they slept. Hold the turn across the whole write, and write nothing through the
    /// audit or credit writers while holding it (they wait for the same turn).
    pub(crate) async fn write_turn(&self) -> WriteTurn {
        match &self.gate {
            Some(gate) => Some(gate.clone().lock_owned().await),
            None => None,
        }
    }

    /// A write transaction begun in this process's turn ([`Store::write_turn`]); keep the turn until
    /// the transaction is committed or dropped.
    pub(crate) async fn begin_write(&self) -> Result<(WriteTurn, DatabaseTransaction), StoreError> {
        let turn = self.write_turn().await;
        let txn = self.db.begin().await?;
        Ok((turn, txn))
    }

    /// After deletions of personal data (an erasure, a retention run, a closure): on SQLite, the
    /// write-ahead log is checkpointed into the database and truncated to nothing, so that the old
    /// pages it held (with `secure_delete`, the main file's freed pages are already zeros) leave the
    /// disk now rather than at some later checkpoint. A reader holding an old snapshot can keep the
    /// log from being truncated: tried a few times, then left to the next call (answers whether the
    /// log was emptied). Nothing on PostgreSQL: what is personal there is sealed under the tenant's
    /// data key, so dead tuples hold ciphertext (docs/operations.md says what vacuum keeps).
    pub async fn scrub_freed(&self) -> Result<bool, StoreError> {
        if self.backend != Backend::Sqlite {
            return Ok(true);
        }
        for attempt in 0..5u64 {
            let row = {
                let _turn = self.write_turn().await;
                self.db
                    .query_one(Statement::from_string(
                        DatabaseBackend::Sqlite,
                        "PRAGMA wal_checkpoint(TRUNCATE)",
                    ))
                    .await?
            };
            let busy: i64 = match &row {
                Some(row) => row.try_get_by_index(0)?,
                None => 0,
            };
            if busy == 0 {
                return Ok(true);
            }
            tokio::time::sleep(Duration::from_millis(50 * (attempt + 1))).await;
        }
        tracing::warn!(
            "the write-ahead log could not be truncated (a long reader): left for later"
        );
        Ok(false)
    }

    /// One round trip to the database; how long it took.
    pub async fn ping(&self) -> Result<Duration, StoreError> {
        let started = Instant::now();
        let backend: DatabaseBackend = self.db.get_database_backend();
        self.db
            .query_one(Statement::from_string(backend, "SELECT 1"))
            .await?;
        Ok(started.elapsed())
    }

    /// Closes the pool, waiting for checked-out connections to come back.
    /// Connections checked out of the pool right now (a query or transaction under way).
    pub fn busy_connections(&self) -> usize {
        fn busy<DB: sea_orm::sqlx::Database>(pool: &sea_orm::sqlx::Pool<DB>) -> usize {
            (pool.size() as usize).saturating_sub(pool.num_idle())
        }
        match &self.db {
            DatabaseConnection::SqlxPostgresPoolConnection(_) => {
                busy(self.db.get_postgres_connection_pool())
            }
            DatabaseConnection::SqlxSqlitePoolConnection(_) => {
                busy(self.db.get_sqlite_connection_pool())
            }
            _ => 0,
        }
    }

    /// Waits, up to `limit`, for a moment when no connection is checked out: at shutdown, so that the
    /// actors' threads are not stopped in the middle of a query (a pooled connection dropped on a
    /// thread whose runtime is being torn down makes sqlx panic). Whether that moment came.
    pub async fn wait_idle(&self, limit: Duration) -> bool {
        let started = Instant::now();
        while self.busy_connections() > 0 {
            if started.elapsed() >= limit {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        true
    }

    /// One page of a tenant's rows of `table` (`columns` read by `read`), in `order`, with the
    /// tenant's total.
    pub(crate) async fn tenant_page<T>(
        &self,
        spec: (&str, &str, &str),
        tenant_id: i64,
        page: PageRequest,
        read: fn(&sea_orm::QueryResult) -> Result<T, StoreError>,
    ) -> Result<(Vec<T>, u64), StoreError> {
        self.page_where(spec, "tenant_id = ?", vec![tenant_id.into()], page, read)
            .await
    }

    /// One page of `table`'s rows meeting `condition` (with `params`), and how many meet it.
    pub(crate) async fn page_where<T>(
        &self,
        (table, columns, order): (&str, &str, &str),
        condition: &str,
        params: Vec<sea_orm::Value>,
        page: PageRequest,
        read: fn(&sea_orm::QueryResult) -> Result<T, StoreError>,
    ) -> Result<(Vec<T>, u64), StoreError> {
        let total: i64 = self
            .db
            .query_one(self.statement(
                &format!("SELECT COUNT(*) AS n FROM {table} WHERE {condition}"),
                params.clone(),
            ))
            .await?
            .map(|row| row.try_get("", "n"))
            .transpose()?
            .unwrap_or(0);
        let mut values = params;
        values.push((page.limit as i64).into());
        values.push((page.offset as i64).into());
        let rows = self
            .db
            .query_all(self.statement(
                &format!(
                    "SELECT {columns} FROM {table} WHERE {condition} ORDER BY {order} LIMIT ? OFFSET ?"
                ),
                values,
            ))
            .await?;
        let items = rows.iter().map(read).collect::<Result<_, _>>()?;
        Ok((items, total.max(0) as u64))
    }

    pub async fn close(self) -> Result<(), StoreError> {
        self.db.close().await?;
        Ok(())
    }
}
