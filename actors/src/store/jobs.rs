//! The durable job queue: documents with their jobs go in together, workers claim jobs with a lease,
//! renew it while they work, and finish a job only while they still hold it.
//!
//! Jobs are in one of two lanes. A large-lane claim is one `UPDATE ... WHERE id = (SELECT ... LIMIT 1)`;
//! a small-lane claim takes a batch of up to `jobs.batch_max_jobs` in one statement. On PostgreSQL the
//! inner select takes `FOR UPDATE SKIP LOCKED`, so several processes never claim the same row; SQLite
//! serialises writers, which gives the same guarantee. Outcomes are written by the completer
//! (`completer`, `group`) in group transactions guarded by each job's lease, so a job whose lease was
//! lost (its process was presumed dead and someone else took it) can never add a second execution.
//! Renewing, giving back and reaping leases is `leases`'.

use crate::error_code::{ErrorCode, RecordCode};

use chrono::{DateTime, Utc};
use sea_orm::{ConnectionTrait, DatabaseTransaction, QueryResult, Statement, Value};

use super::queue::{JobKind, JobPayload};
use super::{Backend, Store, StoreError};

/// A new time-ordered identifier: `<prefix>_` + 12 hex digits of milliseconds + 8 random hex digits,
/// so ids sort by creation and never collide across processes.
pub fn new_id(prefix: &str) -> String {
    use ring::rand::SecureRandom;
    let mut random = [0u8; 4];
    // SystemRandom only fails when the OS has no entropy source; fall back to the clock's nanoseconds.
    if ring::rand::SystemRandom::new().fill(&mut random).is_err() {
        let nanos = Utc::now().timestamp_subsec_nanos();
        random = nanos.to_le_bytes();
    }
    let millis = Utc::now().timestamp_millis().max(0) as u64;
    format!(
        "{prefix}_{:012x}{:08x}",
        millis & 0xffff_ffff_ffff,
        u32::from_le_bytes(random)
    )
}

/// A job this worker now holds.
#[derive(Clone, Debug)]
pub struct ClaimedJob {
    pub id: String,
    pub tenant_id: i64,
    pub job_type: String,
    pub document_id: Option<i64>,
    pub dataset_id: Option<String>,
    pub payload: serde_json::Value,
    pub attempts: i32,
    pub max_attempts: i32,
    pub created_at: DateTime<Utc>,
    /// The code the previous attempt ended with, when it was given back to the queue
    /// (`lease_expired`: its process died; `extraction_crashed`: its worker process did).
    pub previous_error: Option<String>,
}

impl ClaimedJob {
    /// What the job is to do, from its kind and payload; an error names what this version cannot run.
    pub fn work(&self) -> Result<JobPayload, String> {
        JobPayload::from_row(&self.job_type, &self.payload)
    }

    /// The previous attempt died with its process or its extraction worker: this one reads the
    /// document alone, and fails the job if it dies again.
    pub fn after_a_crash(&self) -> bool {
        matches!(
            self.previous_error.as_deref(),
            Some(LEASE_EXPIRED | EXTRACTION_CRASHED | EXTRACTION_TIMED_OUT)
        )
    }
}

/// What processing a job's document holds in the server at its peak, estimated from the document's
/// size and format (SQL, on a `jobs` row): the bytes, the document model the worker sends back (its
/// text about twice, whole and in its elements), the masked copy and the findings. The factors are
/// measured over text (a 60 MB file: 880 MB), CSV (64 MB of distinct customers: 1,509 MB) and e-mail
/// (62 MB: 590 MB), see docs/api.md ("Memory of async jobs"); Office files count their compressed size, and are given the factor
/// of text. A job without a document (a dataset build) costs 0.
pub const JOB_COST_SQL: &str = "COALESCE((SELECT d.size_bytes * CASE d.format \
     WHEN 'txt' THEN 16 WHEN 'csv' THEN 24 WHEN 'eml' THEN 10 WHEN 'html' THEN 16 WHEN 'xml' THEN 16 \
     WHEN 'pdf' THEN 4 WHEN 'png' THEN 1 WHEN 'jpeg' THEN 1 WHEN 'tiff' THEN 1 ELSE 16 END \
     FROM documents d WHERE d.id = jobs.document_id), 0)";

/// The oldest queued large job ([`Store::oldest_waiting_large`]).
#[derive(Clone, Debug)]
pub struct WaitingJob {
    pub id: String,
    pub tenant_id: i64,
    pub created_at: DateTime<Utc>,
    /// When a process began to hold its budget for it, if one has.
    pub reserved_at: Option<DateTime<Utc>>,
    /// Its memory estimate, in bytes.
    pub cost: i64,
}

/// The code of a job given back to the queue because its lease expired (its process died or hung).
pub const LEASE_EXPIRED: &str = RecordCode::LeaseExpired.as_str();
/// The code of a job given back to the queue because its process died holding it with others (a
/// batch): the next attempt runs like the first, in a batch; only a job's own crashes isolate it.
pub const PROCESS_DIED: &str = RecordCode::ProcessDied.as_str();
/// The code of a job whose extraction worker died (a retry in isolation, then a failure).
pub const EXTRACTION_CRASHED: &str = ErrorCode::ExtractionCrashed.as_str();
/// The code of a job whose extraction worker was killed at the document's time limit (a retry in
/// isolation, then a failure with `limit_exceeded`).
pub const EXTRACTION_TIMED_OUT: &str = RecordCode::ExtractionTimedOut.as_str();

/// What a finished job produced, written as an execution.
#[derive(Clone, Debug)]
pub struct NewExecution {
    pub document_id: i64,
    pub masked: bool,
    pub started_at: DateTime<Utc>,
    pub duration_ms: i64,
    pub result_blob_key: String,
    /// What the run recorded that came from no document: counts, format, language, quality, engine
    /// versions (and a masked run's masked file name).
    pub result_meta: serde_json::Value,
    /// What it read from its document beyond that (`filename`, `fields`), sealed.
    pub sealed_meta: Option<super::Sealed>,
    /// Credits the work cost (its pages, at least one), debited with the execution.
    pub credits: i64,
    /// What the work adds to the tenant's usage counters, with the execution.
    pub usage: Usage,
    /// The values it found, as the subject index keeps them (keyed digests), with the execution.
    pub subjects: Vec<super::SubjectEntry>,
}

/// Additions to a tenant's usage counters (`tenant_usage`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Usage {
    pub documents: i64,
    pub pages: i64,
    pub bytes: i64,
}

/// An event to put in the webhook outbox in the same transaction as the state change it reports.
#[derive(Clone, Debug)]
pub struct OutboxEvent {
    pub event: &'static str,
    pub payload: serde_json::Value,
}

/// Jobs by state, for the queue-depth gauges.
#[derive(Clone, Debug, Default)]
pub struct QueueDepth {
    pub by_status: Vec<(String, i64)>,
    pub oldest_queued: Option<DateTime<Utc>>,
}

/// A small-lane claim's pick: the tenant's oldest queued small jobs (tenant, then how many).
const BATCH_PICKED: &str = "SELECT id FROM jobs WHERE tenant_id = ? AND status = 'queued' \
     AND lane = 'small' ORDER BY created_at, id LIMIT ?";
/// What a claim writes (worker, lease end, now, now).
const CLAIM_SET: &str = "SET status = 'running', lease_owner = ?, lease_expires_at = ?, \
     attempts = attempts + 1, started_at = ?, updated_at = ?";

/// The SQLite batch claim without its RETURNING: the picked rows found by their key.
pub(super) fn sqlite_batch_claim() -> String {
    format!("UPDATE jobs {CLAIM_SET} WHERE id IN ({BATCH_PICKED}) AND +status = 'queued'")
}

fn claimed_columns() -> &'static str {
    "id, tenant_id, job_type, document_id, dataset_id, payload, attempts, max_attempts, created_at, \
     error_code"
}

fn claimed_from(row: &QueryResult) -> Result<ClaimedJob, StoreError> {
    let payload: String = row.try_get("", "payload")?;
    Ok(ClaimedJob {
        id: row.try_get("", "id")?,
        tenant_id: row.try_get("", "tenant_id")?,
        job_type: row.try_get("", "job_type")?,
        document_id: row.try_get("", "document_id")?,
        dataset_id: row.try_get("", "dataset_id")?,
        payload: serde_json::from_str(&payload).unwrap_or(serde_json::Value::Null),
        attempts: row.try_get("", "attempts")?,
        max_attempts: row.try_get("", "max_attempts")?,
        created_at: row.try_get("", "created_at")?,
        previous_error: row.try_get("", "error_code")?,
    })
}

impl Store {
    /// A statement written with `?` placeholders, numbered `$1, $2, ...` for PostgreSQL.
    pub(crate) fn statement(&self, sql: &str, values: Vec<Value>) -> Statement {
        let sql = match self.backend {
            Backend::Sqlite => sql.to_string(),
            Backend::Postgres => {
                let mut numbered = String::with_capacity(sql.len() + 16);
                let mut index = 0;
                for character in sql.chars() {
                    if character == '?' {
                        index += 1;
                        numbered.push('$');
                        numbered.push_str(&index.to_string());
                    } else {
                        numbered.push(character);
                    }
                }
                numbered
            }
        };
        Statement::from_sql_and_values(self.db.get_database_backend(), sql, values)
    }

    /// Tenants that have queued jobs, in id order: a loose index scan (one seek of the
    /// `(status, tenant_id, ...)` index per tenant), so its cost follows the number of tenants, not
    /// the backlog (a `SELECT DISTINCT` read one index entry per queued job, on every claim round).
    pub async fn tenants_with_queued_jobs(&self) -> Result<Vec<i64>, StoreError> {
        let rows = self
            .connection()
            .query_all(self.statement(
                "WITH RECURSIVE queued(tenant_id) AS ( \
                   SELECT MIN(tenant_id) FROM jobs WHERE status = 'queued' \
                   UNION ALL \
                   SELECT (SELECT MIN(j.tenant_id) FROM jobs j WHERE j.status = 'queued' \
                           AND j.tenant_id > queued.tenant_id) \
                   FROM queued WHERE queued.tenant_id IS NOT NULL) \
                 SELECT tenant_id FROM queued WHERE tenant_id IS NOT NULL",
                vec![],
            ))
            .await?;
        rows.iter()
            .map(|row| row.try_get("", "tenant_id").map_err(StoreError::from))
            .collect()
    }

    /// Claims the tenant's oldest queued job, in either lane, for `worker` until `lease_until`, or None
    /// when another worker was faster or the tenant has nothing queued.
    pub async fn claim_next(
        &self,
        tenant_id: i64,
        worker: &str,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
    ) -> Result<Option<ClaimedJob>, StoreError> {
        Ok(self
            .claim_one(tenant_id, worker, (now, lease_until), i64::MAX, "")
            .await?
            .map(|(job, _)| job))
    }

    /// Claims the tenant's oldest queued large-lane job when its memory estimate ([`JOB_COST_SQL`]) is
    /// at most `max_cost` bytes; else nothing: the job stays queued, first in its tenant's line (a
    /// smaller one behind it is not taken instead, so a large document is never starved by small
    /// ones). The claimed job comes with its estimate, read in the same statement.
    pub async fn claim_within(
        &self,
        tenant_id: i64,
        worker: &str,
        lease: (DateTime<Utc>, DateTime<Utc>),
        max_cost: i64,
    ) -> Result<Option<(ClaimedJob, i64)>, StoreError> {
        self.claim_one(tenant_id, worker, lease, max_cost, "AND lane = 'large' ")
            .await
    }

    async fn claim_one(
        &self,
        tenant_id: i64,
        worker: &str,
        (now, lease_until): (DateTime<Utc>, DateTime<Utc>),
        max_cost: i64,
        lane: &str,
    ) -> Result<Option<(ClaimedJob, i64)>, StoreError> {
        let lock = match self.backend {
            Backend::Postgres => " FOR UPDATE SKIP LOCKED",
            Backend::Sqlite => "",
        };
        let sql = format!(
            "UPDATE jobs {CLAIM_SET} \
             WHERE status = 'queued' AND id = (SELECT id FROM jobs WHERE tenant_id = ? AND status = 'queued' \
             {lane}ORDER BY created_at, id LIMIT 1{lock}) AND {JOB_COST_SQL} <= ? \
             RETURNING {}, {JOB_COST_SQL} AS cost",
            claimed_columns()
        );
        let _turn = self.write_turn().await;
        let row = self
            .connection()
            .query_one(self.statement(
                &sql,
                vec![
                    worker.into(),
                    lease_until.into(),
                    now.into(),
                    now.into(),
                    tenant_id.into(),
                    max_cost.into(),
                ],
            ))
            .await?;
        row.as_ref()
            .map(|row| Ok((claimed_from(row)?, row.try_get::<i64>("", "cost")?)))
            .transpose()
    }

    /// The oldest queued large-lane job over every tenant, with its memory estimate
    /// ([`JOB_COST_SQL`]): the job a process's memory budget is held for when it does not fit.
    pub async fn oldest_waiting_large(&self) -> Result<Option<WaitingJob>, StoreError> {
        let sql = format!(
            "SELECT id, tenant_id, created_at, reserved_at, {JOB_COST_SQL} AS cost FROM jobs \
             WHERE status = 'queued' AND lane = 'large' ORDER BY created_at, id LIMIT 1"
        );
        let row = self
            .connection()
            .query_one(self.statement(&sql, vec![]))
            .await?;
        row.map(|row| {
            Ok(WaitingJob {
                id: row.try_get("", "id")?,
                tenant_id: row.try_get("", "tenant_id")?,
                created_at: row.try_get("", "created_at")?,
                reserved_at: row.try_get("", "reserved_at")?,
                cost: row.try_get("", "cost")?,
            })
        })
        .transpose()
    }

    /// Records that `job_id`, still queued, holds a process's memory budget from `now` (once: the
    /// first process to reserve for it sets the time).
    pub async fn mark_reserved(&self, job_id: &str, now: DateTime<Utc>) -> Result<(), StoreError> {
        let _turn = self.write_turn().await;
        self.connection()
            .execute(self.statement(
                "UPDATE jobs SET reserved_at = ? \
                 WHERE id = ? AND status = 'queued' AND reserved_at IS NULL",
                vec![now.into(), job_id.into()],
            ))
            .await?;
        Ok(())
    }

    /// A job's memory estimate in bytes ([`JOB_COST_SQL`]), when it exists.
    pub async fn memory_estimate(&self, job_id: &str) -> Result<Option<i64>, StoreError> {
        let sql = format!("SELECT {JOB_COST_SQL} AS cost FROM jobs WHERE id = ?");
        let row = self
            .connection()
            .query_one(self.statement(&sql, vec![job_id.into()]))
            .await?;
        row.map(|row| row.try_get::<i64>("", "cost").map_err(StoreError::from))
            .transpose()
    }

    /// Gives back a failed job's reservation under its tenant's lock; only document jobs reserve.
    pub(super) async fn release_in(
        &self,
        txn: &DatabaseTransaction,
        tenant_id: i64,
        job_id: &str,
        job_type: &str,
        now: DateTime<Utc>,
    ) -> Result<super::Settlement, StoreError> {
        if job_type != JobKind::DataProcess.as_str() {
            return Ok(super::Settlement::default());
        }
        self.lock_tenant(txn, tenant_id).await?;
        self.settle_in(txn, tenant_id, job_id, 0, now).await
    }

    /// Jobs by state and the oldest queued job's creation time, over every tenant.
    pub async fn queue_depth(&self) -> Result<QueueDepth, StoreError> {
        let rows = self
            .connection()
            .query_all(self.statement(
                "SELECT status, COUNT(*) AS n FROM jobs WHERE status IN ('queued', 'running') GROUP BY status",
                vec![],
            ))
            .await?;
        let mut by_status = Vec::new();
        for row in &rows {
            by_status.push((row.try_get("", "status")?, row.try_get("", "n")?));
        }
        let oldest = self
            .connection()
            .query_one(self.statement(
                "SELECT MIN(created_at) AS oldest FROM jobs WHERE status = 'queued'",
                vec![],
            ))
            .await?;
        let oldest_queued = match oldest {
            Some(row) => row
                .try_get::<Option<DateTime<Utc>>>("", "oldest")
                .unwrap_or(None),
            None => None,
        };
        Ok(QueueDepth {
            by_status,
            oldest_queued,
        })
    }

    /// Adds processed work to the tenant's usage counters, inside the transaction that records it.
    pub(super) async fn add_usage_in(
        &self,
        txn: &DatabaseTransaction,
        tenant_id: i64,
        usage: Usage,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        txn.execute(self.statement(
            "UPDATE tenant_usage SET documents_processed = documents_processed + ?, \
             pages_processed = pages_processed + ?, bytes_processed = bytes_processed + ?, updated_at = ? \
             WHERE tenant_id = ?",
            vec![
                usage.documents.into(),
                usage.pages.into(),
                usage.bytes.into(),
                now.into(),
                tenant_id.into(),
            ],
        ))
        .await?;
        Ok(())
    }

    /// Claims up to `max_jobs` of the tenant's oldest queued small-lane jobs (documents of at most
    /// `jobs.small_max_bytes`) for `worker` until `lease_until`, oldest first, with their memory
    /// estimates: one statement (on PostgreSQL the rows are picked with `FOR UPDATE SKIP LOCKED` in a
    /// CTE, so the LIMIT holds and several processes never take the same job). On SQLite the outer
    /// UPDATE finds the picked rows by their key (`+status` keeps the planner off the status index,
    /// which made every claim walk the whole backlog: 6,700 jobs/s at 20,000 queued against 11,100 at
    /// 5,000 in the store micro-benchmark).
    pub async fn claim_batch(
        &self,
        tenant_id: i64,
        worker: &str,
        (now, lease_until): (DateTime<Utc>, DateTime<Utc>),
        max_jobs: usize,
    ) -> Result<Vec<(ClaimedJob, i64)>, StoreError> {
        let (picked, set) = (BATCH_PICKED, CLAIM_SET);
        let returning = format!("RETURNING {}, {JOB_COST_SQL} AS cost", claimed_columns());
        let (sql, values): (String, Vec<Value>) = match self.backend {
            Backend::Postgres => (
                format!(
                    "WITH picked AS ({picked} FOR UPDATE SKIP LOCKED) UPDATE jobs {set} \
                     WHERE id IN (SELECT id FROM picked) {returning}"
                ),
                vec![
                    tenant_id.into(),
                    (max_jobs as i64).into(),
                    worker.into(),
                    lease_until.into(),
                    now.into(),
                    now.into(),
                ],
            ),
            Backend::Sqlite => (
                format!("{} {returning}", sqlite_batch_claim()),
                vec![
                    worker.into(),
                    lease_until.into(),
                    now.into(),
                    now.into(),
                    tenant_id.into(),
                    (max_jobs as i64).into(),
                ],
            ),
        };
        let _turn = self.write_turn().await;
        let rows = self
            .connection()
            .query_all(self.statement(&sql, values))
            .await?;
        let mut claimed = rows
            .iter()
            .map(|row| Ok((claimed_from(row)?, row.try_get::<i64>("", "cost")?)))
            .collect::<Result<Vec<_>, StoreError>>()?;
        // RETURNING promises no order: oldest first, as they were picked.
        claimed.sort_by(|(a, _), (b, _)| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
        Ok(claimed)
    }

    /// Writes one outbox row per active webhook of the tenant subscribed to each event, in one
    /// INSERT (per 256 rows); how many rows.
    pub(crate) async fn queue_events(
        &self,
        txn: &DatabaseTransaction,
        tenant_id: i64,
        events: Vec<OutboxEvent>,
        now: DateTime<Utc>,
    ) -> Result<u64, StoreError> {
        if events.is_empty() {
            return Ok(0);
        }
        let hooks = txn
            .query_all(self.statement(
                "SELECT id, events FROM webhooks WHERE tenant_id = ? AND active = ?",
                vec![tenant_id.into(), true.into()],
            ))
            .await?;
        let mut rows: Vec<[Value; 7]> = Vec::new();
        for hook in &hooks {
            let webhook_id: i64 = hook.try_get("", "id")?;
            let subscribed: String = hook.try_get("", "events")?;
            let subscribed: Vec<String> = serde_json::from_str(&subscribed).unwrap_or_default();
            for event in &events {
                if subscribed.iter().any(|name| name == event.event) {
                    rows.push([
                        tenant_id.into(),
                        webhook_id.into(),
                        event.event.into(),
                        event.payload.to_string().into(),
                        now.into(),
                        now.into(),
                        now.into(),
                    ]);
                }
            }
        }
        for chunk in rows.chunks(256) {
            let values = vec!["(?, ?, ?, ?, 'pending', 0, ?, ?, ?)"; chunk.len()].join(", ");
            txn.execute(self.statement(
                &format!(
                    "INSERT INTO webhook_deliveries (tenant_id, webhook_id, event, payload, status, \
                     attempts, next_attempt_at, created_at, updated_at) VALUES {values}"
                ),
                chunk.iter().flatten().cloned().collect(),
            ))
            .await?;
        }
        Ok(rows.len() as u64)
    }
}
