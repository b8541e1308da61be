//! Leases on claimed jobs: renewed while their worker works, given back at a clean shutdown, and
//! reaped when they expire (the job queued again, or failed once it used all its attempts). Claims
//! and completions are `jobs`'.

use crate::error_code::RecordCode;

use chrono::{DateTime, Duration, Utc};
use sea_orm::{ConnectionTrait, Value};

use super::jobs::{OutboxEvent, EXTRACTION_CRASHED, LEASE_EXPIRED, PROCESS_DIED};
use super::queue::JobKind;
use super::{Store, StoreError};

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

impl Store {
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
    /// their attempts (with a `job.failed` event each). Several jobs of one owner expiring together
    /// are queued again as [`PROCESS_DIED`] (a dead process's batch); a lone one as [`LEASE_EXPIRED`]
    /// (its next attempt reads the document alone; a second death fails it as a poison job).
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
        // Several jobs of one owner expiring together are a dead process's work (a batch, or the
        // slots of a process that was killed), not a poison document: queued again as they were,
        // their next attempt in a batch like any other. A lone expired job is the suspect below.
        let died = txn
            .execute(self.statement(
                &format!(
                    "UPDATE jobs SET status = 'queued', lease_owner = NULL, lease_expires_at = NULL, \
                     error_code = '{PROCESS_DIED}', error_message = 'the process holding the job and others \
                     stopped renewing their leases', updated_at = ? \
                     WHERE status = 'running' AND lease_expires_at < ? AND attempts < max_attempts \
                     AND lease_owner IN (SELECT lease_owner FROM jobs WHERE status = 'running' \
                     AND lease_expires_at < ? GROUP BY lease_owner HAVING COUNT(*) > 1)"
                ),
                vec![now.into(), now.into(), now.into()],
            ))
            .await?
            .rows_affected();
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
                RecordCode::ExhaustedRetries.as_str(),
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
            requeued: requeued + died,
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
}

/// `now + seconds`, for leases.
pub fn lease_until(now: DateTime<Utc>, seconds: u64) -> DateTime<Utc> {
    now + Duration::seconds(seconds.min(i64::MAX as u64) as i64)
}

#[cfg(test)]
pub(crate) mod tests {
    use chrono::Duration;

    use super::*;
    use crate::store::jobs::{new_id, ClaimedJob};
    use crate::store::queue::{
        JobPayload, JobTarget, NewDocument, NewJob, ProcessPayload, RequestedBy,
    };

    /// A store in `dir` with one tenant and `jobs` document jobs queued for it: the store, the tenant
    /// and the jobs' ids.
    pub(crate) async fn queued(
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
                    filename: crate::store::Sealed::seal(
                        None::<&dyn crate::store::RowKey>,
                        crate::store::SealedField::DocumentName,
                        &format!("{i}.txt"),
                    )
                    .expect("kept"),
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

    /// A batch whose process died is a dead process's work: its jobs go back to the queue as
    /// `process_died`, run in a batch again (not alone), and a second death of their process does
    /// not fail them as poison; only their attempts bound them.
    #[tokio::test]
    async fn a_dead_process_batch_is_requeued_without_isolating_its_jobs() {
        let dir = tempfile::tempdir().expect("temp dir");
        let now = Utc::now();
        let (store, tenant, _) = queued(dir.path(), 3, now).await;
        let mut clock = now;
        for death in 1..=2 {
            let batch = store
                .claim_batch(tenant, "w", (clock, clock + Duration::seconds(3)), 32)
                .await
                .expect("claim");
            assert_eq!(batch.len(), 3, "death {death}");
            assert!(batch.iter().all(|(job, _)| !job.after_a_crash()));
            clock += Duration::seconds(10);
            let reaped = store
                .reap_expired_leases(clock, |_| None)
                .await
                .expect("reap");
            assert_eq!((reaped.requeued, reaped.exhausted.len()), (3, 0));
        }
        let queued_again: Vec<ClaimedJob> = store
            .claim_batch(tenant, "w", (clock, clock + Duration::seconds(3)), 32)
            .await
            .expect("claim")
            .into_iter()
            .map(|(job, _)| job)
            .collect();
        assert!(queued_again
            .iter()
            .all(|job| job.previous_error.as_deref() == Some(PROCESS_DIED) && job.attempts == 3));
        // Their last attempt used: the reaper fails them as exhausted.
        clock += Duration::seconds(10);
        let reaped = store
            .reap_expired_leases(clock, |_| None)
            .await
            .expect("reap");
        assert_eq!((reaped.requeued, reaped.exhausted.len()), (0, 3));
    }
}
