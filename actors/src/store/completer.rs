//! The completer: every job outcome of the process (completion, failure, retry) goes through one
//! writer, and whatever arrived while the previous commit ran forms the next group transaction. One
//! group writes the job states (each guarded by its lease), the executions, credit settlement, usage
//! counters, webhook outbox rows and the jobs' audit entries in a few set statements
//! ([`group`](super::group)), so a batch of 32 documents costs about the statements one job did, and a
//! kill -9 can no longer fall between a completion and its audit entry.
//!
//! The writer is a [`Batcher`] on a thread of its own, with its own single-threaded runtime: nothing
//! else waits on that thread, so the write lock is not held across another task's turn. There is no
//! linger timer: a group is what is queued when the writer comes back, up to [`GROUP_MAX`] outcomes.
//! If a group's transaction fails, it is rolled back and its outcomes are written one by one, so that
//! one bad outcome fails only itself. Nothing is answered before its commit.

use std::time::Instant;

use sea_orm::TransactionTrait;
use tokio::sync::oneshot;

use super::jobs::{ClaimedJob, NewExecution, OutboxEvent};
use super::{AuditRecord, Settlement, Store, StoreError};
use crate::metric_names as names;
use crate::runtime::{Batcher, BatcherSettings, Home};

/// Most job outcomes in one group transaction (bounds how long the write lock is held).
pub const GROUP_MAX: usize = 256;
/// Submissions waiting for the writer before submitters wait for room (backpressure: slots that
/// cannot hand over their outcomes stop claiming).
const QUEUE: usize = 1024;

/// How a job ended, to be written.
#[derive(Clone, Debug)]
pub enum JobEnd {
    /// The work is done: an execution, a credit debit and the usage it adds.
    Completed(NewExecution),
    /// The document's own problem, or the last attempt: the job fails for good and gives back its
    /// reservation.
    Failed { code: String, message: String },
    /// A problem of the service: the job goes back to the queue (its attempts are kept).
    Requeued { code: String, message: String },
}

/// One job's outcome, with what is written with it.
#[derive(Clone, Debug)]
pub struct JobOutcome {
    pub job: ClaimedJob,
    /// The lease owner that claimed it: the outcome is written only while it still holds the job.
    pub worker: String,
    pub end: JobEnd,
    /// Outbox events (an `execution_id` in a payload is filled with the execution's id).
    pub events: Vec<OutboxEvent>,
    /// The job's audit entry, written in the same transaction (not for a retry).
    pub audit: Option<AuditRecord>,
    pub now: chrono::DateTime<chrono::Utc>,
}

/// What was written for one outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Written {
    Completed {
        execution_id: i64,
    },
    Failed,
    Requeued,
    /// Another worker holds the job now: nothing was written.
    LeaseLost,
}

/// The answer to one submission: each outcome's fate, in order, and how many webhook outbox rows
/// the commit wrote (the webhook senders are worth waking only then).
#[derive(Debug, Default)]
pub struct Committed {
    pub written: Vec<Result<Written, StoreError>>,
    pub outbox_rows: u64,
}

pub(super) struct Submission {
    outcomes: Vec<JobOutcome>,
    reply: oneshot::Sender<Committed>,
}

impl crate::runtime::Batched for Submission {
    fn weight(&self) -> usize {
        self.outcomes.len()
    }
}

/// The completer's queue.
pub(super) type Completer = Batcher<Submission>;

/// Starts the completer on a thread of its own (`None` outside a runtime: outcomes are then written
/// by their caller). The thread ends when the last clone of the store holding the queue is dropped.
pub(super) fn start(store: &Store) -> Option<Completer> {
    let store = store.clone();
    Batcher::start(
        BatcherSettings {
            name: "completer",
            queue: QUEUE,
            max: GROUP_MAX,
            linger: std::time::Duration::ZERO,
            home: Home::Thread,
        },
        move |submissions| {
            let store = store.clone();
            async move { store.commit_submissions(submissions).await }
        },
    )
}

impl Store {
    /// Writes the outcomes of finished jobs, through the completer when there is one (grouped with
    /// whatever else finished meanwhile), and returns once they are committed.
    pub async fn finish_jobs(&self, outcomes: Vec<JobOutcome>) -> Committed {
        if outcomes.is_empty() {
            return Committed::default();
        }
        let count = outcomes.len();
        let mut outcomes = outcomes;
        if let Some(completer) = &self.completer {
            let (reply, answer) = oneshot::channel();
            match completer.send(Submission { outcomes, reply }).await {
                Ok(()) => {
                    // Without an answer the writer stopped with the submission: its outcomes are
                    // unknown (the leases expire and the jobs run again; a job commits at most once).
                    return answer.await.unwrap_or_else(|_| Committed {
                        written: (0..count).map(|_| Err(gone())).collect(),
                        outbox_rows: 0,
                    });
                }
                // The writer is gone (its thread ended): written here instead.
                Err(submission) => outcomes = submission.outcomes,
            }
        }
        let (reply, answer) = oneshot::channel();
        self.commit_submissions(vec![Submission { outcomes, reply }])
            .await;
        answer.await.unwrap_or_default()
    }

    /// Writes submissions as one group (or, when the group fails, outcome by outcome) and answers
    /// each after the commit.
    async fn commit_submissions(&self, submissions: Vec<Submission>) {
        let mut outcomes = Vec::new();
        let mut replies = Vec::with_capacity(submissions.len());
        for submission in submissions {
            replies.push((submission.reply, submission.outcomes.len()));
            outcomes.extend(submission.outcomes);
        }
        let (written, outbox_rows) = self.commit_group(&outcomes).await;
        // Completed jobs queued what they found: the subject index's writer takes it from there.
        if outcomes
            .iter()
            .any(|o| matches!(&o.end, JobEnd::Completed(e) if !e.subjects.is_empty()))
        {
            self.nudge_subject_indexer();
        }
        let mut written = written.into_iter();
        for (reply, count) in replies {
            let _ = reply.send(Committed {
                written: written.by_ref().take(count).collect(),
                outbox_rows,
            });
        }
    }

    /// One transaction for all of `outcomes`; if it fails, one per outcome.
    async fn commit_group(
        &self,
        outcomes: &[JobOutcome],
    ) -> (Vec<Result<Written, StoreError>>, u64) {
        let started = Instant::now();
        let all: Vec<&JobOutcome> = outcomes.iter().collect();
        match self.write_once(&all).await {
            Ok((written, outbox, settled)) => {
                record_group(outcomes.len(), started);
                for settlement in &settled {
                    super::credits::settled_metrics(settlement);
                }
                (written.into_iter().map(Ok).collect(), outbox)
            }
            Err(error) if outcomes.len() > 1 => {
                tracing::warn!(%error, outcomes = outcomes.len(),
                    "a group of job outcomes failed; writing them one by one");
                let mut written = Vec::with_capacity(outcomes.len());
                let mut rows = 0;
                for outcome in outcomes {
                    match self.write_once(&[outcome]).await {
                        Ok((mut one, outbox, settled)) => {
                            rows += outbox;
                            for settlement in &settled {
                                super::credits::settled_metrics(settlement);
                            }
                            written.push(Ok(one.pop().unwrap_or(Written::LeaseLost)));
                        }
                        Err(error) => written.push(Err(error)),
                    }
                }
                record_group(outcomes.len(), started);
                (written, rows)
            }
            Err(error) => (vec![Err(error)], 0),
        }
    }

    /// Writes `outcomes` in one transaction in this process's write turn.
    async fn write_once(
        &self,
        outcomes: &[&JobOutcome],
    ) -> Result<(Vec<Written>, u64, Vec<Settlement>), StoreError> {
        let _turn = self.write_turn().await;
        let held = Instant::now();
        let txn = self.connection().begin().await?;
        let written = match self.write_group(&txn, outcomes).await {
            Ok(written) => written,
            Err(error) => {
                let _ = txn.rollback().await;
                return Err(error);
            }
        };
        txn.commit().await?;
        metrics::histogram!(names::STORE_GROUP_HOLD_SECONDS).record(held.elapsed().as_secs_f64());
        Ok(written)
    }
}

fn record_group(outcomes: usize, started: Instant) {
    metrics::histogram!(names::STORE_GROUP_OUTCOMES).record(outcomes as f64);
    metrics::counter!(names::STORE_GROUPS_TOTAL).increment(1);
    tracing::trace!(
        outcomes,
        micros = started.elapsed().as_micros() as u64,
        "group committed"
    );
}

fn gone() -> StoreError {
    StoreError::Database(sea_orm::DbErr::Custom(
        "the completer stopped before confirming the outcome".to_string(),
    ))
}

#[cfg(test)]
mod tests {
    use chrono::{Duration, Utc};
    use sea_orm::ConnectionTrait;

    use super::*;
    use crate::store::jobs::Usage;
    use crate::store::leases::tests::queued;

    fn completed(job: &ClaimedJob, now: chrono::DateTime<Utc>) -> JobOutcome {
        JobOutcome {
            job: job.clone(),
            worker: "w".to_string(),
            end: JobEnd::Completed(NewExecution {
                document_id: job.document_id.expect("a document job"),
                masked: true,
                started_at: now,
                duration_ms: 1,
                result_blob_key: format!("results/{}", job.id),
                result_meta: serde_json::json!({"pii_count": 0}),
                sealed_meta: None,
                credits: 1,
                usage: Usage {
                    documents: 1,
                    pages: 1,
                    bytes: 10,
                },
                subjects: Vec::new(),
            }),
            events: vec![OutboxEvent {
                event: "job.completed",
                payload: serde_json::json!({"job_id": job.id, "execution_id": 0}),
            }],
            audit: Some(AuditRecord {
                tenant_id: Some(job.tenant_id),
                actor_type: "system",
                actor_id: None,
                action: "process",
                target_type: Some("job"),
                target_id: Some(job.id.clone()),
                outcome: "success",
                ip: None,
                details: serde_json::json!({"execution_id": 0}),
            }),
            now,
        }
    }

    async fn count(store: &Store, sql: &str) -> i64 {
        let row = store
            .connection()
            .query_one(store.statement(sql, vec![]))
            .await
            .expect("count")
            .expect("a row");
        row.try_get_by_index(0).expect("a number")
    }

    /// One group writes the outcomes of a batch: an execution and a debit per completed job (its
    /// job row pointing at it), a released reservation for the failed one, the usage counted once
    /// per job, the outbox row of a subscribed webhook and the audit entries with their execution
    /// ids; a job whose lease another worker took gets nothing, and a job cannot complete twice.
    #[tokio::test]
    async fn a_group_writes_each_outcome_once_and_nothing_for_a_lost_lease() {
        let dir = tempfile::tempdir().expect("temp dir");
        let now = Utc::now();
        let (store, tenant, _) = queued(dir.path(), 6, now).await;
        store
            .connection()
            .execute(store.statement(
                "INSERT INTO webhooks (tenant_id, url, secret_encrypted, events, active, created_at) \
                 VALUES (?, 'http://hook.invalid/', 's', '[\"job.completed\"]', ?, ?)",
                vec![tenant.into(), true.into(), now.into()],
            ))
            .await
            .expect("webhook");
        let batch = store
            .claim_batch(tenant, "w", (now, now + Duration::seconds(60)), 32)
            .await
            .expect("claim");
        assert_eq!(batch.len(), 6, "one claim takes the whole small batch");
        let jobs: Vec<ClaimedJob> = batch.into_iter().map(|(job, _)| job).collect();
        store
            .connection()
            .execute(store.statement(
                "UPDATE jobs SET lease_owner = 'other' WHERE id = ?",
                vec![jobs[5].id.clone().into()],
            ))
            .await
            .expect("lease taken");
        let mut outcomes: Vec<JobOutcome> = jobs.iter().map(|job| completed(job, now)).collect();
        outcomes[4].end = JobEnd::Failed {
            code: "unreadable".to_string(),
            message: "bad bytes".to_string(),
        };
        outcomes[4].audit.as_mut().expect("audit").outcome = "failure";
        outcomes[4].events[0].event = "job.failed";
        let committed = store.finish_jobs(outcomes.clone()).await;
        let written: Vec<Written> = committed
            .written
            .into_iter()
            .map(|fate| fate.expect("written"))
            .collect();
        assert_eq!(written.len(), 6);
        assert!(matches!(written[..4], [Written::Completed { .. }, ..]));
        assert_eq!(written[4], Written::Failed);
        assert_eq!(written[5], Written::LeaseLost);
        assert_eq!(
            committed.outbox_rows, 4,
            "the failed job's event is not subscribed"
        );
        assert_eq!(count(&store, "SELECT COUNT(*) FROM executions").await, 4);
        assert_eq!(
            count(
                &store,
                "SELECT COUNT(*) FROM jobs j JOIN executions e ON e.id = j.execution_id \
                 WHERE j.status = 'completed' AND e.job_id = j.id"
            )
            .await,
            4
        );
        for (kind, expected) in [("debit", 4), ("release", 5), ("reserve", 6)] {
            let sql = format!("SELECT COUNT(*) FROM credit_ledger WHERE entry_type = '{kind}'");
            assert_eq!(count(&store, &sql).await, expected, "{kind}");
        }
        assert_eq!(
            count(&store, "SELECT documents_processed FROM tenant_usage").await,
            4
        );
        assert_eq!(
            count(
                &store,
                "SELECT COUNT(*) FROM audit_entries a JOIN executions e \
                 ON a.details LIKE '%\"execution_id\":' || e.id || '%' WHERE a.outcome = 'success'"
            )
            .await,
            4,
            "each completion's entry names its execution"
        );
        assert_eq!(
            count(
                &store,
                "SELECT COUNT(*) FROM audit_entries WHERE action = 'process'"
            )
            .await,
            5
        );
        assert_eq!(
            count(
                &store,
                "SELECT COUNT(*) FROM webhook_deliveries WHERE payload LIKE '%\"execution_id\":0%'"
            )
            .await,
            0
        );
        // A second completion of a completed job, even with a lease it claims to hold: nothing.
        store
            .connection()
            .execute(store.statement(
                "UPDATE jobs SET status = 'running', lease_owner = 'w' WHERE id = ?",
                vec![jobs[0].id.clone().into()],
            ))
            .await
            .expect("make it look held");
        let again = store.finish_jobs(vec![outcomes[0].clone()]).await;
        assert!(again.written[0].is_err(), "{:?}", again.written);
        assert_eq!(count(&store, "SELECT COUNT(*) FROM executions").await, 4);
    }

    /// When one outcome of a group cannot be written (its execution names a document that is gone),
    /// the group is written again outcome by outcome: the others complete, the bad one fails alone.
    #[tokio::test]
    async fn a_failing_group_is_written_again_one_by_one() {
        let dir = tempfile::tempdir().expect("temp dir");
        let now = Utc::now();
        let (store, tenant, _) = queued(dir.path(), 3, now).await;
        let jobs: Vec<ClaimedJob> = store
            .claim_batch(tenant, "w", (now, now + Duration::seconds(60)), 32)
            .await
            .expect("claim")
            .into_iter()
            .map(|(job, _)| job)
            .collect();
        let mut outcomes: Vec<JobOutcome> = jobs.iter().map(|job| completed(job, now)).collect();
        if let JobEnd::Completed(execution) = &mut outcomes[1].end {
            execution.document_id = 999_999;
        }
        let committed = store.finish_jobs(outcomes).await;
        assert!(matches!(
            committed.written[0],
            Ok(Written::Completed { .. })
        ));
        assert!(committed.written[1].is_err());
        assert!(matches!(
            committed.written[2],
            Ok(Written::Completed { .. })
        ));
        assert_eq!(count(&store, "SELECT COUNT(*) FROM executions").await, 2);
        assert_eq!(
            count(&store, "SELECT COUNT(*) FROM jobs WHERE status = 'running'").await,
            1,
            "the bad one's lease runs out and it is claimed again"
        );
    }

    /// A batch claim finds the picked jobs by their key and the picked ones by the claim index in
    /// order: its cost does not grow with the backlog (on a database without statistics, as a new
    /// one is, the planner otherwise walked every queued job through the status index).
    #[tokio::test]
    async fn a_batch_claim_reads_only_what_it_picks() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = Store::sqlite_for_tests(dir.path()).await;
        let now = Utc::now();
        let steps = store
            .query_plan(
                &crate::store::jobs::sqlite_batch_claim(),
                vec![
                    "w".into(),
                    now.into(),
                    now.into(),
                    now.into(),
                    1i64.into(),
                    32i64.into(),
                ],
            )
            .await;
        assert!(
            steps
                .iter()
                .any(|step| step.contains("sqlite_autoindex_jobs_1 (id=?)")),
            "{steps:?}"
        );
        assert!(
            steps.iter().any(|step| step.contains(
                "ix_jobs_status_tenant_id_lane_created_at_id (status=? AND tenant_id=? AND lane=?)"
            )),
            "{steps:?}"
        );
        assert!(
            !steps
                .iter()
                .any(|step| step.ends_with("(status=?)") || step.contains("TEMP B-TREE")),
            "{steps:?}"
        );
    }
}
