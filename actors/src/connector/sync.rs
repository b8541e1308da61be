//! A sync: list the prefix (the schedule's, else the connector's), take each object version no sync
//! took before (by key and ETag; a changed object has a new ETag and is taken again), queue it like an
//! upload, and record what happened. Several syncs of one connector may run at once (two processes,
//! a trigger during a cron run): the claim on each object version lets only one of them queue it.

use chrono::{DateTime, Utc};
use futures_util::StreamExt;

use super::ingest::{fetch_document, process_job, Fetched};
use super::{Connector, ConnectorServices};
use crate::error_code::{ErrorCode, RecordCode};
use crate::metric_names as names;
use crate::store::{
    ConnectorRecord, EnqueueError, ObjectFate, ObjectKey, ObjectVersion, RequestedBy,
    ScheduleRecord, StoreError, SyncOutcome, SyncRunRecord,
};

/// How a sync was started.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trigger {
    Cron,
    Manual,
}

impl Trigger {
    fn as_str(self) -> &'static str {
        match self {
            Trigger::Cron => "cron",
            Trigger::Manual => "manual",
        }
    }
}

/// The version of an object a sync compares: its ETag, or its size and modification time when the
/// provider gives none.
fn version(meta: &object_store::ObjectMeta) -> String {
    match &meta.e_tag {
        Some(etag) if !etag.is_empty() => etag.clone(),
        _ => format!("{}-{}", meta.size, meta.last_modified.timestamp_millis()),
    }
}

/// Stops a spawned task when dropped (the sync ended, or its future was dropped).
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Runs one sync of `schedule` (or of the connector alone) and records it.
pub async fn run_sync(
    services: &ConnectorServices,
    record: &ConnectorRecord,
    schedule: Option<&ScheduleRecord>,
    trigger: Trigger,
    requested_by: RequestedBy,
) -> Result<SyncRunRecord, StoreError> {
    let store = &services.store;
    let connector = Connector::open(record, &services.secrets, &services.settings);
    let prefix = schedule
        .and_then(|s| s.prefix.clone())
        .or_else(|| connector.as_ref().ok().and_then(|c| c.prefix.clone()));
    let run_id = store
        .start_sync_run(
            record.tenant_id,
            record.id,
            schedule.map(|s| s.id),
            trigger.as_str(),
            prefix.as_deref(),
            services.clock.now(),
        )
        .await?;
    // The heartbeat, while this sync runs: a process that dies stops it, and the scheduler of any
    // process then marks the run interrupted and releases its claims.
    let beating = {
        let (store, clock) = (store.clone(), services.clock.clone());
        tokio::spawn(async move {
            let every = std::time::Duration::from_secs(crate::store::SYNC_HEARTBEAT_SECONDS);
            loop {
                tokio::time::sleep(every).await;
                if let Err(error) = store.beat_sync_run(run_id, clock.now()).await {
                    tracing::debug!(%error, run_id, "a sync's heartbeat was not written");
                }
            }
        })
    };
    let _stop_beating = AbortOnDrop(beating);
    let outcome = match connector {
        Ok(connector) => {
            sync_objects(
                services,
                &connector,
                prefix.as_deref(),
                run_id,
                requested_by,
            )
            .await?
        }
        Err(error) => SyncOutcome {
            error: Some((error.code.as_str().to_string(), error.message)),
            ..SyncOutcome::default()
        },
    };
    let result = if outcome.error.is_some() {
        "failed"
    } else {
        "succeeded"
    };
    metrics::counter!(names::CONNECTOR_SYNCS_TOTAL, "outcome" => result).increment(1);
    let finished = store
        .finish_sync_run(run_id, &outcome, services.clock.now())
        .await?;
    tracing::info!(
        run_id,
        connector_id = record.id,
        schedule_id = ?schedule.map(|s| s.id),
        trigger = trigger.as_str(),
        listed = outcome.listed,
        queued = outcome.queued,
        skipped = outcome.skipped,
        rejected = outcome.rejected,
        error = ?outcome.error.as_ref().map(|(code, _)| code),
        "connector sync finished"
    );
    Ok(finished)
}

async fn sync_objects(
    services: &ConnectorServices,
    connector: &Connector,
    prefix: Option<&str>,
    run_id: i64,
    requested_by: RequestedBy,
) -> Result<SyncOutcome, StoreError> {
    let store = &services.store;
    let mut outcome = SyncOutcome::default();
    // The listing goes on past the versions taken before; at most `max_objects_per_sync` new ones are
    // taken per run, the rest by the next.
    // Object keys are compared by their keyed digests under the tenant's data key.
    let tenant_key = match services.blobs.tenant_key(connector.tenant_id).await {
        Ok(key) => key,
        Err(error) => {
            outcome.error = Some((
                RecordCode::StorageError.as_str().to_string(),
                format!("the tenant's data key cannot be read: {error}"),
            ));
            return Ok(outcome);
        }
    };
    let mut listing = connector.listing(prefix);
    let mut taken = 0;
    let kind = connector.kind.clone();
    while taken < services.settings.max_objects_per_sync {
        let meta = match listing.next().await {
            Some(Ok(meta)) => meta,
            Some(Err(error)) => {
                outcome.error = Some((error.code.as_str().to_string(), error.message));
                break;
            }
            None => break,
        };
        outcome.listed += 1;
        let key = meta.location.to_string();
        let etag = version(&meta);
        let digest = ObjectKey::digest_of(tenant_key.as_deref(), connector.id, &key);
        let object = ObjectVersion {
            key: &digest,
            etag: &etag,
            size: meta.size as i64,
        };
        let now: DateTime<Utc> = services.clock.now();
        if !store
            .claim_object((connector.tenant_id, connector.id), object, run_id, now)
            .await?
        {
            outcome.skipped += 1;
            metrics::counter!(names::CONNECTOR_OBJECTS_SKIPPED_TOTAL, "type" => kind.clone())
                .increment(1);
            continue;
        }
        taken += 1;
        let document = match fetch_document(services, connector, &key).await {
            Ok(Fetched::Document(document)) => document,
            Ok(Fetched::Refused(refusal)) => {
                tracing::info!(run_id, key = %digest, code = %refusal.code, "connector object not queued");
                store
                    .settle_object(connector.id, object, &ObjectFate::Rejected)
                    .await?;
                outcome.rejected += 1;
                continue;
            }
            Err(error) => {
                store.release_object(connector.id, object).await?;
                outcome.error = Some((error.code.as_str().to_string(), error.message));
                break;
            }
        };
        let blob_key = document.blob_key.clone();
        let job = process_job(
            document,
            true,
            requested_by.clone(),
            services.jobs.max_attempts,
        );
        match store
            .queue_jobs(
                &services.cache,
                connector.tenant_id,
                vec![job],
                Some(services.jobs.max_queued_per_tenant),
                services.clock.now(),
            )
            .await
        {
            Ok(queued) => {
                let Some(job) = queued.into_iter().next() else {
                    continue;
                };
                let fate = ObjectFate::Queued {
                    document_id: job.document_id.unwrap_or_default(),
                    job_id: job.job_id.clone(),
                };
                store.settle_object(connector.id, object, &fate).await?;
                outcome.queued += 1;
                outcome.job_ids.push(job.job_id);
                metrics::counter!(names::CONNECTOR_OBJECTS_QUEUED_TOTAL, "type" => kind.clone())
                    .increment(1);
            }
            Err(error) => {
                // Not queued now (the queue or the credits are exhausted): the next sync tries again.
                store.release_object(connector.id, object).await?;
                if let Err(delete) = services.blobs.delete(&blob_key).await {
                    tracing::warn!(%delete, key = %blob_key, "cannot delete the copy of an object not queued");
                }
                let code = match &error {
                    EnqueueError::QueueFull { .. } => ErrorCode::QueueFull.as_str(),
                    EnqueueError::InsufficientCredits(_) => ErrorCode::InsufficientCredits.as_str(),
                    EnqueueError::Store(_) => RecordCode::StorageError.as_str(),
                };
                outcome.error = Some((code.to_string(), error.to_string()));
                break;
            }
        }
    }
    Ok(outcome)
}
