//! The durable job queue: documents with their jobs go in together, workers claim jobs with a lease,
//! renew it while they work, and finish a job only while they still hold it.
//!
//! Claims are one `UPDATE ... WHERE id = (SELECT ... LIMIT 1)`: on PostgreSQL the inner select takes
//! `FOR UPDATE SKIP LOCKED`, so several processes never claim the same row; SQLite serialises writers,
//! which gives the same guarantee. A completion writes the execution, the job's final state and the
//! webhook outbox rows in one transaction guarded by the lease, so a job whose lease was lost (its
//! process was presumed dead and someone else took it) can never add a second execution.

use chrono::{DateTime, Duration, Utc};
use sea_orm::{
    ActiveModelTrait, ConnectionTrait, DatabaseTransaction, QueryResult, Set, Statement, Value,
};

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
            Some(LEASE_EXPIRED | EXTRACTION_CRASHED)
        )
    }
}

/// The code of a job given back to the queue because its lease expired (its process died or hung).
pub const LEASE_EXPIRED: &str = "lease_expired";
/// The code of a job whose extraction worker died (a retry in isolation, then a failure).
pub const EXTRACTION_CRASHED: &str = "extraction_crashed";

/// What a finished job produced, written as an execution.
#[derive(Clone, Debug)]
pub struct NewExecution {
    pub document_id: i64,
    pub masked: bool,
    pub started_at: DateTime<Utc>,
    pub duration_ms: i64,
    pub result_blob_key: String,
    pub result_meta: serde_json::Value,
    /// Credits the work cost (its pages, at least one), debited with the execution.
    pub credits: i64,
    /// What the work adds to the tenant's usage counters, with the execution.
    pub usage: Usage,
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

/// A job that the reaper failed because its lease expired once too often.
#[derive(Clone, Debug)]
pub struct ExhaustedJob {
    pub id: String,
    pub tenant_id: i64,
    pub job_type: String,
    pub document_id: Option<i64>,
    /// `exhausted_retries`, or `extraction_crashed` for a job whose process died twice.
    pub code: &'static str,
    pub message: &'static str,
}

/// What the lease reaper did.
#[derive(Clone, Debug, Default)]
pub struct Reaped {
    pub requeued: u64,
    pub exhausted: Vec<ExhaustedJob>,
}

/// Jobs by state, for the queue-depth gauges.
#[derive(Clone, Debug, Default)]
pub struct QueueDepth {
    pub by_status: Vec<(String, i64)>,
    pub oldest_queued: Option<DateTime<Utc>>,
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

    /// Tenants that have queued jobs, in id order.
    pub async fn tenants_with_queued_jobs(&self) -> Result<Vec<i64>, StoreError> {
        let rows = self
            .connection()
            .query_all(self.statement(
                "SELECT DISTINCT tenant_id FROM jobs WHERE status = 'queued' ORDER BY tenant_id",
                vec![],
            ))
            .await?;
        rows.iter()
            .map(|row| row.try_get("", "tenant_id").map_err(StoreError::from))
            .collect()
    }

    /// Claims the tenant's oldest queued job for `worker` until `lease_until`, or None when another
    /// worker was faster or the tenant has nothing queued.
    pub async fn claim_next(
        &self,
        tenant_id: i64,
        worker: &str,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
    ) -> Result<Option<ClaimedJob>, StoreError> {
        let lock = match self.backend {
            Backend::Postgres => " FOR UPDATE SKIP LOCKED",
            Backend::Sqlite => "",
        };
        let sql = format!(
            "UPDATE jobs SET status = 'running', lease_owner = ?, lease_expires_at = ?, \
             attempts = attempts + 1, started_at = ?, updated_at = ? \
             WHERE status = 'queued' AND id = (SELECT id FROM jobs WHERE tenant_id = ? AND status = 'queued' \
             ORDER BY created_at, id LIMIT 1{lock}) RETURNING {}",
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
                ],
            ))
            .await?;
        row.as_ref().map(claimed_from).transpose()
    }

    /// Extends, in one statement, the leases `worker` still holds among `job_ids`; how many it extended
    /// (a job that has written its outcome, or whose lease another worker took, is left alone).
    pub async fn renew_leases(
        &self,
        worker: &str,
        job_ids: &[String],
        lease_until: DateTime<Utc>,
    ) -> Result<u64, StoreError> {
        if job_ids.is_empty() {
            return Ok(0);
        }
        let placeholders = vec!["?"; job_ids.len()].join(", ");
        let mut values: Vec<Value> = vec![lease_until.into(), worker.into()];
        values.extend(job_ids.iter().map(|id| Value::from(id.as_str())));
        let _turn = self.write_turn().await;
        let result = self
            .connection()
            .execute(self.statement(
                &format!(
                    "UPDATE jobs SET lease_expires_at = ? WHERE lease_owner = ? AND status = 'running' \
                     AND id IN ({placeholders})"
                ),
                values,
            ))
            .await?;
        Ok(result.rows_affected())
    }

    /// Writes the execution, marks the job completed and queues the events, all or nothing. None when
    /// the worker had lost the lease (nothing is written then).
    pub async fn complete_job(
        &self,
        job: &ClaimedJob,
        worker: &str,
        execution: NewExecution,
        events: Vec<OutboxEvent>,
        now: DateTime<Utc>,
    ) -> Result<Option<i64>, StoreError> {
        use super::entities::execution as execution_entity;
        let (_turn, txn) = self.begin_write().await?;
        let row = execution_entity::ActiveModel {
            tenant_id: Set(job.tenant_id),
            document_id: Set(execution.document_id),
            job_id: Set(Some(job.id.clone())),
            status: Set("completed".to_string()),
            masked: Set(execution.masked),
            started_at: Set(execution.started_at),
            finished_at: Set(Some(now)),
            duration_ms: Set(Some(execution.duration_ms)),
            result_blob_key: Set(Some(execution.result_blob_key)),
            result_meta: Set(execution.result_meta.to_string()),
            cross_validation_flag: Set(false),
            created_at: Set(now),
            ..Default::default()
        }
        .insert(&txn)
        .await?;
        let updated = txn
            .execute(self.statement(
                "UPDATE jobs SET status = 'completed', execution_id = ?, finished_at = ?, updated_at = ?, \
                 lease_owner = NULL, lease_expires_at = NULL, error_code = NULL, error_message = NULL \
                 WHERE id = ? AND lease_owner = ? AND status = 'running'",
                vec![row.id.into(), now.into(), now.into(), job.id.as_str().into(), worker.into()],
            ))
            .await?;
        if updated.rows_affected() != 1 {
            txn.rollback().await?;
            return Ok(None);
        }
        let events = events
            .into_iter()
            .map(|mut event| {
                if event.payload.get("execution_id").is_some() {
                    event.payload["execution_id"] = row.id.into();
                }
                event
            })
            .collect();
        self.queue_events(&txn, job.tenant_id, events, now).await?;
        // The tenant's lock last: the job's row is held already (the same order as the reaper's).
        self.lock_tenant(&txn, job.tenant_id).await?;
        let settled = self
            .settle_in(&txn, job.tenant_id, &job.id, execution.credits, now)
            .await?;
        // The usage counters with the execution they count: a crash counts both or neither.
        self.add_usage_in(&txn, job.tenant_id, execution.usage, now)
            .await?;
        txn.commit().await?;
        super::credits::settled_metrics(&settled);
        Ok(Some(row.id))
    }

    /// Fails the job for good (a bad document, a refused masking). False when the lease was lost.
    pub async fn fail_job(
        &self,
        job: &ClaimedJob,
        worker: &str,
        code: &str,
        message: &str,
        events: Vec<OutboxEvent>,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let (_turn, txn) = self.begin_write().await?;
        let updated = txn
            .execute(self.statement(
                "UPDATE jobs SET status = 'failed', error_code = ?, error_message = ?, finished_at = ?, \
                 updated_at = ?, lease_owner = NULL, lease_expires_at = NULL \
                 WHERE id = ? AND lease_owner = ? AND status = 'running'",
                vec![
                    code.into(),
                    message.into(),
                    now.into(),
                    now.into(),
                    job.id.as_str().into(),
                    worker.into(),
                ],
            ))
            .await?;
        if updated.rows_affected() != 1 {
            txn.rollback().await?;
            return Ok(false);
        }
        self.queue_events(&txn, job.tenant_id, events, now).await?;
        // A failed document job costs nothing: its reservation is given back.
        let settled = self
            .release_in(&txn, job.tenant_id, &job.id, &job.job_type, now)
            .await?;
        txn.commit().await?;
        super::credits::settled_metrics(&settled);
        Ok(true)
    }

    /// Gives the job back to the queue after a transient failure (it keeps its attempt count).
    pub async fn requeue_job(
        &self,
        job_id: &str,
        worker: &str,
        code: &str,
        message: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let _turn = self.write_turn().await;
        let updated = self
            .connection()
            .execute(self.statement(
                "UPDATE jobs SET status = 'queued', lease_owner = NULL, lease_expires_at = NULL, \
                 error_code = ?, error_message = ?, updated_at = ? \
                 WHERE id = ? AND lease_owner = ? AND status = 'running'",
                vec![
                    code.into(),
                    message.into(),
                    now.into(),
                    job_id.into(),
                    worker.into(),
                ],
            ))
            .await?;
        Ok(updated.rows_affected() == 1)
    }

    /// Puts back the jobs `worker` holds without counting the attempt (a clean shutdown).
    pub async fn release_leases(
        &self,
        worker: &str,
        now: DateTime<Utc>,
    ) -> Result<u64, StoreError> {
        let _turn = self.write_turn().await;
        let updated = self
            .connection()
            .execute(self.statement(
                "UPDATE jobs SET status = 'queued', lease_owner = NULL, lease_expires_at = NULL, \
                 attempts = CASE WHEN attempts > 0 THEN attempts - 1 ELSE 0 END, updated_at = ? \
                 WHERE lease_owner = ? AND status = 'running'",
                vec![now.into(), worker.into()],
            ))
            .await?;
        Ok(updated.rows_affected())
    }

    /// Jobs whose lease expired: queued again, or failed with `exhausted_retries` once they used all
    /// their attempts (with a `job.failed` event each).
    ///
    /// Runs every poll interval, and almost always finds nothing: it first looks with a plain read, and
    /// opens the write transaction only when a lease did expire. On SQLite an UPDATE takes the database's
    /// one write lock even when it matches no row, and every request writing meanwhile (an audit entry,
    /// an upload) waited on SQLite's busy handler, which sleeps in steps of milliseconds.
    pub async fn reap_expired_leases(
        &self,
        now: DateTime<Utc>,
        event: impl Fn(&ExhaustedJob) -> Option<OutboxEvent>,
    ) -> Result<Reaped, StoreError> {
        let expired = self
            .connection()
            .query_one(self.statement(
                "SELECT id FROM jobs WHERE status = 'running' AND lease_expires_at < ? LIMIT 1",
                vec![now.into()],
            ))
            .await?;
        if expired.is_none() {
            return Ok(Reaped::default());
        }
        let (_turn, txn) = self.begin_write().await?;
        // A document job whose previous attempt also died with its process (or its extraction
        // worker) is not given to a third process: it fails as a poison job.
        let poisoned = self
            .fail_expired(
                &txn,
                now,
                &format!(
                    "job_type = '{}' AND error_code IN ('{LEASE_EXPIRED}', '{EXTRACTION_CRASHED}')",
                    JobKind::DataProcess.as_str()
                ),
                EXTRACTION_CRASHED,
                "the process running the job died twice while reading its document",
            )
            .await?;
        let mut exhausted = self
            .fail_expired(
                &txn,
                now,
                "attempts >= max_attempts",
                "exhausted_retries",
                "the job was claimed the maximum number of times and its worker never finished it",
            )
            .await?;
        exhausted.extend(poisoned);
        for job in &exhausted {
            if let Some(outbox) = event(job) {
                self.queue_events(&txn, job.tenant_id, vec![outbox], now)
                    .await?;
            }
        }
        let requeued = txn
            .execute(self.statement(
                "UPDATE jobs SET status = 'queued', lease_owner = NULL, lease_expires_at = NULL, \
                 error_code = ?, error_message = 'the worker holding the job stopped renewing its lease', \
                 updated_at = ? WHERE status = 'running' AND lease_expires_at < ?",
                vec![LEASE_EXPIRED.into(), now.into(), now.into()],
            ))
            .await?
            .rows_affected();
        // The failed jobs' reservations are given back once every job row is written, tenants in id
        // order: a worker completing a job holds its job's row and then takes its tenant's lock, so
        // taking tenants before job rows here could wait on each other.
        let mut failed: Vec<&ExhaustedJob> = exhausted.iter().collect();
        failed.sort_by_key(|job| job.tenant_id);
        for job in failed {
            self.release_in(&txn, job.tenant_id, &job.id, &job.job_type, now)
                .await?;
        }
        txn.commit().await?;
        Ok(Reaped {
            requeued,
            exhausted,
        })
    }

    /// Fails the running jobs whose lease expired and that match `condition`, with `code`.
    async fn fail_expired(
        &self,
        txn: &sea_orm::DatabaseTransaction,
        now: DateTime<Utc>,
        condition: &str,
        code: &'static str,
        message: &'static str,
    ) -> Result<Vec<ExhaustedJob>, StoreError> {
        let rows = txn
            .query_all(self.statement(
                &format!(
                    "UPDATE jobs SET status = 'failed', error_code = ?, error_message = ?, \
                     finished_at = ?, updated_at = ?, lease_owner = NULL, lease_expires_at = NULL \
                     WHERE status = 'running' AND lease_expires_at < ? AND {condition} \
                     RETURNING id, tenant_id, job_type, document_id"
                ),
                vec![
                    code.into(),
                    message.into(),
                    now.into(),
                    now.into(),
                    now.into(),
                ],
            ))
            .await?;
        rows.iter()
            .map(|row| {
                Ok(ExhaustedJob {
                    id: row.try_get("", "id")?,
                    tenant_id: row.try_get("", "tenant_id")?,
                    job_type: row.try_get("", "job_type")?,
                    document_id: row.try_get("", "document_id")?,
                    code,
                    message,
                })
            })
            .collect()
    }

    /// Gives back a failed job's reservation under its tenant's lock; only document jobs reserve.
    async fn release_in(
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
    async fn add_usage_in(
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

    /// Writes one outbox row per active webhook of the tenant subscribed to each event.
    pub(crate) async fn queue_events(
        &self,
        txn: &DatabaseTransaction,
        tenant_id: i64,
        events: Vec<OutboxEvent>,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        if events.is_empty() {
            return Ok(());
        }
        let hooks = txn
            .query_all(self.statement(
                "SELECT id, events FROM webhooks WHERE tenant_id = ? AND active = ?",
                vec![tenant_id.into(), true.into()],
            ))
            .await?;
        for hook in &hooks {
            let webhook_id: i64 = hook.try_get("", "id")?;
            let subscribed: String = hook.try_get("", "events")?;
            let subscribed: Vec<String> = serde_json::from_str(&subscribed).unwrap_or_default();
            for event in &events {
                if !subscribed.iter().any(|name| name == event.event) {
                    continue;
                }
                txn.execute(self.statement(
                    "INSERT INTO webhook_deliveries (tenant_id, webhook_id, event, payload, status, attempts, \
                     next_attempt_at, created_at, updated_at) VALUES (?, ?, ?, ?, 'pending', 0, ?, ?, ?)",
                    vec![
                        tenant_id.into(),
                        webhook_id.into(),
                        event.event.into(),
                        event.payload.to_string().into(),
                        now.into(),
                        now.into(),
                        now.into(),
                    ],
                ))
                .await?;
            }
        }
        Ok(())
    }
}

/// `now + seconds`, for leases.
pub fn lease_until(now: DateTime<Utc>, seconds: u64) -> DateTime<Utc> {
    now + Duration::seconds(seconds.min(i64::MAX as u64) as i64)
}

#[cfg(test)]
mod tests {
    use chrono::Duration;

    use super::*;
    use crate::store::queue::{JobTarget, NewDocument, NewJob, ProcessPayload, RequestedBy};

    /// A store in `dir` with one tenant and `jobs` document jobs queued for it: the store, the tenant
    /// and the jobs' ids.
    async fn queued(
        dir: &std::path::Path,
        jobs: usize,
        now: DateTime<Utc>,
    ) -> (Store, i64, Vec<String>) {
        let store = Store::sqlite_for_tests(dir).await;
        let account = store
            .create_account("jobs@example.com", "hash", "token", now, now)
            .await
            .expect("account");
        let tenant = account.tenant_id;
        store
            .open_billing_period(tenant, &crate::store::billing::tests::plans(10), now)
            .await
            .expect("period");
        let jobs: Vec<NewJob> = (0..jobs)
            .map(|i| NewJob {
                id: new_id("job"),
                target: JobTarget::Upload(NewDocument {
                    filename: format!("{i}.txt"),
                    mime: "text/plain".to_string(),
                    format: "txt".to_string(),
                    size_bytes: 1,
                    sha256: "00".to_string(),
                    blob_key: format!("k{i}"),
                    origin: Default::default(),
                }),
                payload: JobPayload::DataProcess(ProcessPayload {
                    masked: true,
                    reprocess: false,
                    requested_by: RequestedBy::default(),
                }),
                max_attempts: 3,
            })
            .collect();
        let ids = jobs.iter().map(|job| job.id.clone()).collect();
        store
            .enqueue(tenant, jobs, None, now)
            .await
            .expect("queued");
        (store, tenant, ids)
    }

    /// One statement renews the leases a worker holds among the jobs it names, and no other: not a job
    /// another worker claimed, not one that has finished, not one of its own it does not name.
    #[tokio::test]
    async fn one_renewal_extends_exactly_the_leases_the_worker_holds_among_those_named() {
        let dir = tempfile::tempdir().expect("temp dir");
        let now = Utc::now();
        let (store, tenant, _) = queued(dir.path(), 4, now).await;
        let lease = now + Duration::seconds(3);
        assert_eq!(
            store.tenants_with_queued_jobs().await.expect("tenants"),
            vec![tenant]
        );
        let mut claimed = Vec::new();
        for worker in ["w1", "w2", "w1", "w1"] {
            let job = store
                .claim_next(tenant, worker, now, lease)
                .await
                .expect("claim")
                .expect("a job");
            claimed.push(job.id);
        }
        assert!(store
            .tenants_with_queued_jobs()
            .await
            .expect("tenants")
            .is_empty());
        store
            .connection()
            .execute(store.statement(
                "UPDATE jobs SET status = 'completed' WHERE id = ?",
                vec![claimed[2].clone().into()],
            ))
            .await
            .expect("complete one");
        let later = now + Duration::seconds(60);
        let renewed = store
            .renew_leases("w1", &claimed[..3], later)
            .await
            .expect("renew");
        assert_eq!(renewed, 1, "only the first job is w1's, running and named");
        for (index, id) in claimed.iter().enumerate() {
            let row = store
                .connection()
                .query_one(store.statement(
                    "SELECT lease_expires_at FROM jobs WHERE id = ?",
                    vec![id.clone().into()],
                ))
                .await
                .expect("read")
                .expect("row");
            let until: DateTime<Utc> = row.try_get("", "lease_expires_at").expect("lease");
            let expected = if index == 0 { later } else { lease };
            assert_eq!(until.timestamp(), expected.timestamp(), "job {index}");
        }
        assert_eq!(store.renew_leases("w1", &[], later).await.expect("none"), 0);
    }

    /// A document job whose process died while holding it is queued again once (marked
    /// `lease_expired`, so that its next attempt reads the document alone); when the process holding
    /// it dies again, the reaper fails it with `extraction_crashed` instead of handing it to a third.
    #[tokio::test]
    async fn a_job_whose_process_died_twice_fails_as_a_poison_job() {
        let dir = tempfile::tempdir().expect("temp dir");
        let now = Utc::now();
        let (store, tenant, ids) = queued(dir.path(), 1, now).await;
        let mut clock = now;
        for death in 1..=2 {
            let claimed = store
                .claim_next(tenant, "w", clock, clock + Duration::seconds(3))
                .await
                .expect("claim")
                .expect("a job");
            assert_eq!(claimed.after_a_crash(), death == 2, "attempt {death}");
            // The process dies: no renewal, the lease runs out.
            clock += Duration::seconds(10);
            let reaped = store
                .reap_expired_leases(clock, |_| None)
                .await
                .expect("reap");
            if death == 1 {
                assert_eq!(reaped.requeued, 1);
                assert!(reaped.exhausted.is_empty());
            } else {
                assert_eq!(reaped.requeued, 0);
                assert_eq!(reaped.exhausted.len(), 1);
                assert_eq!(reaped.exhausted[0].code, EXTRACTION_CRASHED);
            }
        }
        let row = store
            .connection()
            .query_one(store.statement(
                "SELECT status, error_code FROM jobs WHERE id = ?",
                vec![ids[0].clone().into()],
            ))
            .await
            .expect("read")
            .expect("row");
        let status: String = row.try_get("", "status").expect("status");
        let code: String = row.try_get("", "error_code").expect("code");
        assert_eq!(
            (status.as_str(), code.as_str()),
            ("failed", EXTRACTION_CRASHED)
        );
    }
}
