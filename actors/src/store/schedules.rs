//! Connector schedules, the syncs they run (and manual triggers), and the objects syncs have taken.
//!
//! Once across processes: a schedule's firing is claimed by moving its `last_due_at` mark forward
//! ([`Store::claim_firing`], the scheme of every timed duty); an object version (connector, key,
//! ETag) is claimed by inserting its row, which the unique index lets only one sync do.

use chrono::{DateTime, Utc};
use sea_orm::{ConnectionTrait, QueryResult, TransactionTrait};

use super::{Backend, PageRequest, Store, StoreError};

/// How old a claim on an object version must be before another sync may take it over (its sync died
/// between the claim and the queueing: fetches are bounded by `connectors.request_timeout_ms`).
pub const STALE_CLAIM_MINUTES: i64 = 30;
/// How often a running sync writes its heartbeat.
pub const SYNC_HEARTBEAT_SECONDS: u64 = 5;
/// A sync whose heartbeat is older than this is one whose process stopped: it is marked
/// `interrupted` and the object versions it claimed become claimable again.
pub const SYNC_STALE_SECONDS: i64 = 20;

/// A document made from the object version of the `connector_objects` row at hand (SQL): the sync
/// that claimed it queued it, even if it died before it could say so.
const QUEUED_AS_DOCUMENT: &str =
    "FROM documents d WHERE d.connector_id = connector_objects.connector_id \
     AND d.source_digest = connector_objects.object_key AND (d.source_etag = connector_objects.etag \
     OR (d.source_etag IS NULL AND d.created_at >= connector_objects.created_at))";

/// One schedule as stored.
#[derive(Clone, Debug)]
pub struct ScheduleRecord {
    pub id: i64,
    pub tenant_id: i64,
    pub connector_id: i64,
    pub name: Option<String>,
    pub cron: String,
    pub prefix: Option<String>,
    pub enabled: bool,
    pub last_run_at: Option<DateTime<Utc>>,
    pub last_due_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
}

const SCHEDULE_COLUMNS: &str =
    "id, tenant_id, connector_id, name, cron, prefix, enabled, last_run_at, last_due_at, created_at";

fn schedule_from(row: &QueryResult) -> Result<ScheduleRecord, StoreError> {
    Ok(ScheduleRecord {
        id: row.try_get("", "id")?,
        tenant_id: row.try_get("", "tenant_id")?,
        connector_id: row.try_get("", "connector_id")?,
        name: row.try_get("", "name")?,
        cron: row.try_get("", "cron")?,
        prefix: row.try_get("", "prefix")?,
        enabled: row.try_get("", "enabled")?,
        last_run_at: row.try_get("", "last_run_at")?,
        last_due_at: row.try_get("", "last_due_at")?,
        created_at: row.try_get("", "created_at")?,
    })
}

/// A new schedule.
#[derive(Clone, Debug)]
pub struct NewSchedule {
    pub connector_id: i64,
    pub name: Option<String>,
    pub cron: String,
    pub prefix: Option<String>,
}

/// Why a schedule was not created.
#[derive(Debug, thiserror::Error)]
pub enum ScheduleError {
    #[error("the connector already has {count} schedules, the plan's maximum is {limit}")]
    LimitReached { count: u64, limit: u64 },
    /// The connector was deleted (before or while the schedule was being created).
    #[error("the connector does not exist")]
    ConnectorGone,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// One sync: what it listed, queued, skipped (taken before) and rejected, and how it ended.
#[derive(Clone, Debug)]
pub struct SyncRunRecord {
    pub id: i64,
    pub tenant_id: i64,
    pub connector_id: i64,
    pub schedule_id: Option<i64>,
    /// `cron` or `manual`.
    pub trigger: String,
    /// `running`, `succeeded` or `failed`.
    pub status: String,
    pub prefix: Option<String>,
    pub listed: i64,
    pub queued: i64,
    pub skipped: i64,
    pub rejected: i64,
    pub job_ids: Vec<String>,
    pub error_code: Option<String>,
    pub error_message: Option<String>,
    pub started_at: DateTime<Utc>,
    pub finished_at: Option<DateTime<Utc>>,
}

const RUN_COLUMNS: &str =
    "id, tenant_id, connector_id, schedule_id, trigger, status, prefix, listed, queued, \
     skipped, rejected, job_ids, error_code, error_message, started_at, finished_at";

fn run_from(row: &QueryResult) -> Result<SyncRunRecord, StoreError> {
    let job_ids: String = row.try_get("", "job_ids")?;
    Ok(SyncRunRecord {
        id: row.try_get("", "id")?,
        tenant_id: row.try_get("", "tenant_id")?,
        connector_id: row.try_get("", "connector_id")?,
        schedule_id: row.try_get("", "schedule_id")?,
        trigger: row.try_get("", "trigger")?,
        status: row.try_get("", "status")?,
        prefix: row.try_get("", "prefix")?,
        listed: row.try_get("", "listed")?,
        queued: row.try_get("", "queued")?,
        skipped: row.try_get("", "skipped")?,
        rejected: row.try_get("", "rejected")?,
        job_ids: serde_json::from_str(&job_ids).unwrap_or_default(),
        error_code: row.try_get("", "error_code")?,
        error_message: row.try_get("", "error_message")?,
        started_at: row.try_get("", "started_at")?,
        finished_at: row.try_get("", "finished_at")?,
    })
}

/// How a sync ended.
#[derive(Clone, Debug, Default)]
pub struct SyncOutcome {
    pub listed: i64,
    pub queued: i64,
    pub skipped: i64,
    pub rejected: i64,
    pub job_ids: Vec<String>,
    /// The code and message of the failure that ended it, if one did.
    pub error: Option<(String, String)>,
}

/// One version of an object: its key's keyed digest ([`super::ObjectKey::digest`]: the store never
/// holds a bucket's paths in clear), its ETag (or size and time when the provider gives none) and size.
#[derive(Clone, Copy, Debug)]
pub struct ObjectVersion<'a> {
    pub key: &'a str,
    pub etag: &'a str,
    pub size: i64,
}

/// An object version a sync took: what became of it.
#[derive(Clone, Debug)]
pub enum ObjectFate {
    Queued { document_id: i64, job_id: String },
    Rejected,
}

impl Store {
    /// Creates a schedule unless the connector already has `max_per_connector` (checked under the
    /// tenant's lock, so two requests cannot both take the last place).
    pub async fn create_schedule(
        &self,
        tenant_id: i64,
        schedule: &NewSchedule,
        max_per_connector: u64,
        now: DateTime<Utc>,
    ) -> Result<ScheduleRecord, ScheduleError> {
        let txn = self.connection().begin().await.map_err(StoreError::from)?;
        self.lock_tenant(&txn, tenant_id).await?;
        // The connector is held until the schedule is committed (PostgreSQL: a delete waits; SQLite:
        // the write lock is this transaction's), and a delete that came first is a 404.
        let lock = match self.backend {
            Backend::Postgres => " FOR KEY SHARE",
            Backend::Sqlite => "",
        };
        let connector = txn
            .query_one(self.statement(
                &format!("SELECT id FROM connectors WHERE id = ? AND tenant_id = ?{lock}"),
                vec![schedule.connector_id.into(), tenant_id.into()],
            ))
            .await
            .map_err(StoreError::from)?;
        if connector.is_none() {
            return Err(ScheduleError::ConnectorGone);
        }
        let count: i64 = txn
            .query_one(self.statement(
                "SELECT COUNT(*) AS n FROM schedules WHERE connector_id = ? AND tenant_id = ?",
                vec![schedule.connector_id.into(), tenant_id.into()],
            ))
            .await
            .map_err(StoreError::from)?
            .map(|row| row.try_get("", "n"))
            .transpose()
            .map_err(StoreError::from)?
            .unwrap_or(0);
        if count as u64 >= max_per_connector {
            return Err(ScheduleError::LimitReached {
                count: count as u64,
                limit: max_per_connector,
            });
        }
        // A new schedule's first firing is the first one after its creation.
        let row = txn
            .query_one(self.statement(
                &format!(
                    "INSERT INTO schedules (tenant_id, connector_id, name, cron, prefix, enabled, last_due_at, \
                     created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING {SCHEDULE_COLUMNS}"
                ),
                vec![
                    tenant_id.into(),
                    schedule.connector_id.into(),
                    schedule.name.clone().into(),
                    schedule.cron.clone().into(),
                    schedule.prefix.clone().into(),
                    true.into(),
                    now.into(),
                    now.into(),
                    now.into(),
                ],
            ))
            .await
            .map_err(StoreError::from)
            .map_err(|error| match error.is_missing_reference() {
                true => ScheduleError::ConnectorGone,
                false => error.into(),
            })?
            .ok_or_else(|| StoreError::Database(sea_orm::DbErr::RecordNotInserted))?;
        let record = schedule_from(&row)?;
        txn.commit().await.map_err(StoreError::from)?;
        Ok(record)
    }

    pub async fn schedule(
        &self,
        tenant_id: i64,
        connector_id: i64,
        schedule_id: i64,
    ) -> Result<Option<ScheduleRecord>, StoreError> {
        self.connection()
            .query_one(self.statement(
                &format!(
                    "SELECT {SCHEDULE_COLUMNS} FROM schedules WHERE id = ? AND connector_id = ? AND tenant_id = ?"
                ),
                vec![schedule_id.into(), connector_id.into(), tenant_id.into()],
            ))
            .await?
            .as_ref()
            .map(schedule_from)
            .transpose()
    }

    pub async fn schedules_page(
        &self,
        tenant_id: i64,
        connector_id: i64,
        page: PageRequest,
    ) -> Result<(Vec<ScheduleRecord>, u64), StoreError> {
        self.page_where(
            ("schedules", SCHEDULE_COLUMNS, "id DESC"),
            "tenant_id = ? AND connector_id = ?",
            vec![tenant_id.into(), connector_id.into()],
            page,
            schedule_from,
        )
        .await
    }

    /// Deletes the schedule and its runs; false when it does not exist.
    pub async fn delete_schedule(
        &self,
        tenant_id: i64,
        connector_id: i64,
        schedule_id: i64,
    ) -> Result<bool, StoreError> {
        let deleted = self
            .connection()
            .execute(self.statement(
                "DELETE FROM schedules WHERE id = ? AND connector_id = ? AND tenant_id = ?",
                vec![schedule_id.into(), connector_id.into(), tenant_id.into()],
            ))
            .await?;
        Ok(deleted.rows_affected() == 1)
    }

    /// Every enabled schedule of every tenant (the scheduler's pass).
    pub async fn enabled_schedules(&self) -> Result<Vec<ScheduleRecord>, StoreError> {
        let rows = self
            .connection()
            .query_all(self.statement(
                &format!("SELECT {SCHEDULE_COLUMNS} FROM schedules WHERE enabled = ? ORDER BY id"),
                vec![true.into()],
            ))
            .await?;
        rows.iter().map(schedule_from).collect()
    }

    /// Records a sync as started.
    pub async fn start_sync_run(
        &self,
        tenant_id: i64,
        connector_id: i64,
        schedule_id: Option<i64>,
        trigger: &str,
        prefix: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<i64, StoreError> {
        let row = self
            .connection()
            .query_one(self.statement(
                "INSERT INTO sync_runs (tenant_id, connector_id, schedule_id, trigger, status, prefix, job_ids, \
                 started_at) VALUES (?, ?, ?, ?, 'running', ?, '[]', ?) RETURNING id",
                vec![
                    tenant_id.into(),
                    connector_id.into(),
                    schedule_id.into(),
                    trigger.into(),
                    prefix.map(str::to_string).into(),
                    now.into(),
                ],
            ))
            .await?
            .ok_or_else(|| StoreError::Database(sea_orm::DbErr::RecordNotInserted))?;
        Ok(row.try_get("", "id")?)
    }

    /// Records how a sync ended.
    pub async fn finish_sync_run(
        &self,
        run_id: i64,
        outcome: &SyncOutcome,
        now: DateTime<Utc>,
    ) -> Result<SyncRunRecord, StoreError> {
        let (code, message) = match &outcome.error {
            Some((code, message)) => (Some(code.clone()), Some(message.clone())),
            None => (None, None),
        };
        let status = if outcome.error.is_some() {
            "failed"
        } else {
            "succeeded"
        };
        let row = self
            .connection()
            .query_one(self.statement(
                &format!(
                    "UPDATE sync_runs SET status = ?, listed = ?, queued = ?, skipped = ?, rejected = ?, job_ids = ?, \
                     error_code = ?, error_message = ?, finished_at = ? WHERE id = ? RETURNING {RUN_COLUMNS}"
                ),
                vec![
                    status.into(),
                    outcome.listed.into(),
                    outcome.queued.into(),
                    outcome.skipped.into(),
                    outcome.rejected.into(),
                    serde_json::to_string(&outcome.job_ids)
                        .unwrap_or_else(|_| "[]".into())
                        .into(),
                    code.into(),
                    message.into(),
                    now.into(),
                    run_id.into(),
                ],
            ))
            .await?
            .ok_or_else(|| StoreError::Database(sea_orm::DbErr::RecordNotFound(run_id.to_string())))?;
        run_from(&row)
    }

    /// A running sync's heartbeat: its process is alive.
    pub async fn beat_sync_run(&self, run_id: i64, now: DateTime<Utc>) -> Result<(), StoreError> {
        self.connection()
            .execute(self.statement(
                "UPDATE sync_runs SET heartbeat_at = ? WHERE id = ? AND status = 'running'",
                vec![now.into(), run_id.into()],
            ))
            .await?;
        Ok(())
    }

    /// Ends the syncs still `running` whose last heartbeat (or start, before the first) is older than
    /// `before` (their process stopped): failed with `interrupted`, and the object versions they
    /// claimed but neither queued nor rejected are released, so the next sync takes them. Reads only
    /// when there is none (the scheduler asks on every poll). Returns how many.
    pub async fn interrupt_stale_runs(
        &self,
        before: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<u64, StoreError> {
        let stale_where = "status = 'running' AND COALESCE(heartbeat_at, started_at) < ?";
        let stale = self
            .connection()
            .query_all(self.statement(
                &format!("SELECT id FROM sync_runs WHERE {stale_where}"),
                vec![before.into()],
            ))
            .await?;
        if stale.is_empty() {
            return Ok(0);
        }
        let ids = stale
            .iter()
            .map(|row| row.try_get::<i64>("", "id"))
            .collect::<Result<Vec<i64>, _>>()?;
        let list = ids
            .iter()
            .map(i64::to_string)
            .collect::<Vec<_>>()
            .join(", ");
        let (_turn, txn) = self.begin_write().await?;
        let ended = txn
            .execute(self.statement(
                &format!(
                    "UPDATE sync_runs SET status = 'failed', error_code = 'interrupted', \
                     error_message = 'the process running this sync stopped before it finished', \
                     finished_at = ? WHERE id IN ({list}) AND {stale_where}"
                ),
                vec![now.into(), before.into()],
            ))
            .await?;
        // A claim whose document was queued before the process died is settled as queued; the rest
        // are released for the next sync.
        txn.execute(self.statement(
            &format!(
                "UPDATE connector_objects SET status = 'queued', \
                 document_id = (SELECT d.id {QUEUED_AS_DOCUMENT} ORDER BY d.id LIMIT 1) \
                 WHERE status = 'claimed' AND sync_run_id IN ({list}) AND EXISTS (SELECT 1 {QUEUED_AS_DOCUMENT})"
            ),
            vec![],
        ))
        .await?;
        txn.execute(self.statement(
            &format!(
                "DELETE FROM connector_objects WHERE status = 'claimed' AND sync_run_id IN ({list})"
            ),
            vec![],
        ))
        .await?;
        txn.commit().await?;
        Ok(ended.rows_affected())
    }

    pub async fn sync_runs_page(
        &self,
        tenant_id: i64,
        schedule_id: i64,
        page: PageRequest,
    ) -> Result<(Vec<SyncRunRecord>, u64), StoreError> {
        self.page_where(
            ("sync_runs", RUN_COLUMNS, "id DESC"),
            "tenant_id = ? AND schedule_id = ?",
            vec![tenant_id.into(), schedule_id.into()],
            page,
            run_from,
        )
        .await
    }

    /// Claims an object version for a sync: true when no sync took it before, or when the sync that
    /// claimed it ended (interrupted: its process stopped) or claimed it `STALE_CLAIM_MINUTES` ago
    /// without queuing or rejecting it.
    pub async fn claim_object(
        &self,
        (tenant_id, connector_id): (i64, i64),
        version: ObjectVersion<'_>,
        run_id: i64,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let ObjectVersion { key, etag, size } = version;
        let inserted = self
            .connection()
            .execute(self.statement(
                &format!("INSERT INTO connector_objects (tenant_id, connector_id, object_key, etag, size_bytes, status, \
                 sync_run_id, created_at) VALUES (?, ?, ?, ?, ?, 'claimed', ?, ?) \
                 ON CONFLICT (connector_id, object_key, etag) DO UPDATE SET sync_run_id = excluded.sync_run_id, \
                 created_at = excluded.created_at \
                 WHERE connector_objects.status = 'claimed' AND (connector_objects.created_at < ? \
                 OR connector_objects.sync_run_id IN (SELECT id FROM sync_runs WHERE status <> 'running')) \
                 AND NOT EXISTS (SELECT 1 {QUEUED_AS_DOCUMENT})"),
                vec![
                    tenant_id.into(),
                    connector_id.into(),
                    key.into(),
                    etag.into(),
                    size.into(),
                    run_id.into(),
                    now.into(),
                    (now - chrono::Duration::minutes(STALE_CLAIM_MINUTES)).into(),
                ],
            ))
            .await?;
        Ok(inserted.rows_affected() == 1)
    }

    /// What became of a claimed object version.
    pub async fn settle_object(
        &self,
        connector_id: i64,
        ObjectVersion { key, etag, .. }: ObjectVersion<'_>,
        fate: &ObjectFate,
    ) -> Result<(), StoreError> {
        let (status, document_id, job_id) = match fate {
            ObjectFate::Queued {
                document_id,
                job_id,
            } => ("queued", Some(*document_id), Some(job_id.clone())),
            ObjectFate::Rejected => ("rejected", None, None),
        };
        self.connection()
            .execute(self.statement(
                "UPDATE connector_objects SET status = ?, document_id = ?, job_id = ? \
                 WHERE connector_id = ? AND object_key = ? AND etag = ?",
                vec![
                    status.into(),
                    document_id.into(),
                    job_id.into(),
                    connector_id.into(),
                    key.into(),
                    etag.into(),
                ],
            ))
            .await?;
        Ok(())
    }

    /// Gives a claimed object version back (it could not be queued now; the next sync tries again).
    pub async fn release_object(
        &self,
        connector_id: i64,
        ObjectVersion { key, etag, .. }: ObjectVersion<'_>,
    ) -> Result<(), StoreError> {
        self.connection()
            .execute(self.statement(
                "DELETE FROM connector_objects WHERE connector_id = ? AND object_key = ? AND etag = ? \
                 AND status = 'claimed'",
                vec![connector_id.into(), key.into(), etag.into()],
            ))
            .await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use chrono::Duration;

    use super::*;

    /// An object version is taken once; a claim whose sync died before settling it is taken over
    /// after `STALE_CLAIM_MINUTES`, a settled one never.
    #[tokio::test]
    async fn object_versions_are_claimed_once_and_dead_claims_taken_over() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = Store::sqlite_for_tests(dir.path()).await;
        let now = Utc::now();
        let account = store
            .create_account("claims@example.com", "hash", "token", now, now)
            .await
            .expect("account");
        let tenant = account.tenant_id;
        let connector = store
            .create_connector(tenant, "s3", "c", &serde_json::json!({}), "sealed", now)
            .await
            .expect("connector");
        let ids = (tenant, connector.id);
        let run = store
            .start_sync_run(tenant, connector.id, None, "manual", None, now)
            .await
            .expect("run");
        let version = |key| ObjectVersion {
            key,
            etag: "e1",
            size: 1,
        };
        assert!(store
            .claim_object(ids, version("a"), run, now)
            .await
            .expect("claim"));
        assert!(!store
            .claim_object(ids, version("a"), run, now)
            .await
            .expect("again"));
        // A new ETag is a new version.
        let changed = ObjectVersion {
            etag: "e2",
            ..version("a")
        };
        assert!(store
            .claim_object(ids, changed, run, now)
            .await
            .expect("changed"));
        // The first claim's sync died: after the stale time another takes it over, once.
        let later = now + Duration::minutes(STALE_CLAIM_MINUTES + 1);
        assert!(store
            .claim_object(ids, version("a"), run, later)
            .await
            .expect("over"));
        assert!(!store
            .claim_object(ids, version("a"), run, later)
            .await
            .expect("once"));
        // A settled version stays taken.
        store
            .settle_object(connector.id, changed, &ObjectFate::Rejected)
            .await
            .expect("settle");
        let much_later = later + Duration::days(1);
        assert!(!store
            .claim_object(ids, changed, run, much_later)
            .await
            .expect("settled"));
        // A released one is free at once.
        store
            .release_object(connector.id, version("a"))
            .await
            .expect("release");
        assert!(store
            .claim_object(ids, version("a"), run, much_later)
            .await
            .expect("free"));
        // The run left `running` is ended by the interrupted sweep.
        assert_eq!(
            store
                .interrupt_stale_runs(later, later)
                .await
                .expect("sweep"),
            1
        );
    }
}
