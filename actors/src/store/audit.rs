//! Audit entries: who did what, when, from where. Never raw personal data, file content or secrets.
//!
//! Each caller waits until its entry is committed, so an entry is durable before the request that made
//! it is answered. When no other entry is being written, the caller inserts its own. Otherwise it hands
//! the entry to one writer task and waits for the batch holding it: entries of concurrent requests
//! gather in the writer's queue while a write is in flight and go in the next multi-row INSERT, so
//! under load one statement (one SQLite write transaction, one round trip) stands for many entries.
//!
//! Entries of HTTP requests ([`Store::record_audit_gathered`]) always go to the writer, which waits
//! `linger` after the first of a batch for more to arrive. Under preview load nearly every entry was
//! otherwise a write transaction of its own, and each wrote three pages of SQLite's log (table, index,
//! `sqlite_sequence`): the log filled several times a second, and the request whose commit checkpointed
//! it waited for two fsyncs, with everyone queued behind it. Document jobs' entries do not come here:
//! the completer writes them in the transaction that records the job's outcome; a dataset build's
//! entry is written directly, without a linger.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use sea_orm::{DatabaseConnection, DbErr, EntityTrait, Set};
use tokio::sync::oneshot;

use super::entities::audit_entry;
use super::{Store, StoreError};
use crate::runtime::{Batched, Batcher, BatcherSettings, Home};

/// One audit entry to write.
#[derive(Clone, Debug)]
pub struct AuditRecord {
    pub tenant_id: Option<i64>,
    /// `user`, `api_key`, `anonymous` or `system`.
    pub actor_type: &'static str,
    pub actor_id: Option<String>,
    pub action: &'static str,
    pub target_type: Option<&'static str>,
    pub target_id: Option<String>,
    /// `success`, `failure` or `denied`.
    pub outcome: &'static str,
    pub ip: Option<String>,
    pub details: serde_json::Value,
}

/// Most entries in one INSERT (ten columns each: well under SQLite's bound-parameter limit).
const BATCH: usize = 64;
/// Entries waiting for the writer before callers wait for room.
const QUEUE: usize = 4096;

struct Queued {
    entry: audit_entry::ActiveModel,
    gather: Gather,
    /// The outcome of the entry's INSERT (a message: database errors cannot be cloned across a batch).
    written: oneshot::Sender<Result<(), String>>,
}

impl Batched for Queued {
    fn lingers(&self) -> bool {
        self.gather == Gather::Linger
    }
}

/// The audit writer's queue, and how many audit writes are in flight.
#[derive(Clone)]
pub(super) struct AuditQueue {
    writer: Batcher<Queued>,
    writing: Arc<AtomicUsize>,
}

/// Whether an entry may wait for others to share its write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Gather {
    /// Inserted at once by its caller when no other audit write is in flight.
    Direct,
    /// Sent to the writer, which waits its linger for more entries.
    Linger,
}

/// One audit write in flight, counted while it lives (also when its future is dropped midway).
struct Writing(Arc<AtomicUsize>);

impl Writing {
    /// Counts a write; `true` when no other write was in flight.
    fn enter(writing: &Arc<AtomicUsize>) -> (Writing, bool) {
        let alone = writing.fetch_add(1, Ordering::AcqRel) == 0;
        (Writing(writing.clone()), alone)
    }
}

impl Drop for Writing {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

impl AuditQueue {
    /// Starts the writer on the current runtime (`None` outside one: entries are then written
    /// directly). The task ends when the last clone of the store is dropped.
    pub(super) fn start(
        db: &DatabaseConnection,
        linger: Duration,
        gate: Option<Arc<tokio::sync::Mutex<()>>>,
    ) -> Option<AuditQueue> {
        let writing = Arc::new(AtomicUsize::new(0));
        let db = db.clone();
        let counter = writing.clone();
        let writer = Batcher::start(
            BatcherSettings {
                name: "audit_writer",
                queue: QUEUE,
                max: BATCH,
                linger,
                home: Home::Runtime,
            },
            move |batch| {
                let (db, counter, gate) = (db.clone(), counter.clone(), gate.clone());
                async move {
                    let (_guard, _) = Writing::enter(&counter);
                    let _turn = match &gate {
                        Some(gate) => Some(gate.lock().await),
                        None => None,
                    };
                    write_batch(&db, batch).await;
                }
            },
        )?;
        Some(AuditQueue { writer, writing })
    }
}

async fn insert_one(db: &DatabaseConnection, entry: audit_entry::ActiveModel) -> Result<(), DbErr> {
    // Written without reading the row back: on SQLite, sea-orm's `insert` follows the INSERT with a
    // SELECT of the new row, a second statement for an id nobody uses.
    audit_entry::Entity::insert(entry)
        .exec_without_returning(db)
        .await
        .map(drop)
}

/// One INSERT for the whole batch; if it fails, each entry alone, so that one bad entry fails only
/// its own caller.
async fn write_batch(db: &DatabaseConnection, mut batch: Vec<Queued>) {
    if batch.len() > 1 {
        let entries = batch.iter().map(|queued| queued.entry.clone());
        let written = audit_entry::Entity::insert_many(entries)
            .exec_without_returning(db)
            .await;
        if written.is_ok() {
            for queued in batch.drain(..) {
                let _ = queued.written.send(Ok(()));
            }
            return;
        }
    }
    for queued in batch.drain(..) {
        let result = insert_one(db, queued.entry).await;
        let _ = queued
            .written
            .send(result.map_err(|error| error.to_string()));
    }
}

pub(super) fn entry_of(record: AuditRecord, now: DateTime<Utc>) -> audit_entry::ActiveModel {
    audit_entry::ActiveModel {
        tenant_id: Set(record.tenant_id),
        actor_type: Set(record.actor_type.to_string()),
        actor_id: Set(record.actor_id),
        action: Set(record.action.to_string()),
        target_type: Set(record.target_type.map(str::to_string)),
        target_id: Set(record.target_id),
        outcome: Set(record.outcome.to_string()),
        ip: Set(record.ip),
        details: Set(record.details.to_string()),
        created_at: Set(now),
        ..Default::default()
    }
}

impl Store {
    /// Writes one audit entry; returns once it is committed.
    pub async fn record_audit(
        &self,
        record: AuditRecord,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.write_audit(entry_of(record, now), Gather::Direct)
            .await
    }

    /// [`Store::record_audit`] for HTTP requests: the entry always joins the writer's next batch, which
    /// waits `database.audit_linger_ms` for other requests' entries. Returns once it is committed.
    pub async fn record_audit_gathered(
        &self,
        record: AuditRecord,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.write_audit(entry_of(record, now), Gather::Linger)
            .await
    }

    async fn write_audit(
        &self,
        mut entry: audit_entry::ActiveModel,
        gather: Gather,
    ) -> Result<(), StoreError> {
        // Held while this caller inserts its own entry: it counts as the audit write in flight.
        let mut own_write = None;
        if let Some(AuditQueue { writer, writing }) = &self.audit {
            if gather == Gather::Direct {
                // Alone, a direct entry has nothing to gather with: no hop to the writer.
                let (guard, alone) = Writing::enter(writing);
                own_write = alone.then_some(guard);
            }
            if own_write.is_none() {
                match Self::queue_audit(writer, entry, gather).await {
                    Ok(outcome) => return outcome,
                    // The writer is gone (its runtime ended): write directly.
                    Err(returned) => entry = returned,
                }
            }
        }
        insert_one(&self.db, entry).await?;
        Ok(())
    }

    /// Hands `entry` to the writer and waits for the batch holding it; gives the entry back when the
    /// writer is gone.
    async fn queue_audit(
        writer: &Batcher<Queued>,
        entry: audit_entry::ActiveModel,
        gather: Gather,
    ) -> Result<Result<(), StoreError>, audit_entry::ActiveModel> {
        let (written, outcome) = oneshot::channel();
        let queued = Queued {
            entry,
            gather,
            written,
        };
        if let Err(queued) = writer.send(queued).await {
            return Err(queued.entry);
        }
        Ok(match outcome.await {
            Ok(result) => result.map_err(|message| DbErr::Custom(message).into()),
            // The writer's runtime ended while the batch was in flight.
            Err(_) => Err(DbErr::Custom(
                "the audit writer stopped before confirming the entry".to_string(),
            )
            .into()),
        })
    }
}

#[cfg(test)]
mod tests {
    use sea_orm::{ColumnTrait, PaginatorTrait, QueryFilter};

    use super::*;

    async fn store(dir: &std::path::Path) -> Store {
        Store::sqlite_for_tests(dir).await
    }

    fn record(n: usize) -> AuditRecord {
        AuditRecord {
            tenant_id: None,
            actor_type: "system",
            actor_id: None,
            action: "test_entry",
            target_type: Some("entry"),
            target_id: Some(n.to_string()),
            outcome: "success",
            ip: None,
            details: serde_json::json!({"n": n}),
        }
    }

    async fn rows_for(store: &Store, n: usize) -> u64 {
        audit_entry::Entity::find()
            .filter(audit_entry::Column::TargetId.eq(n.to_string()))
            .count(store.connection())
            .await
            .expect("count")
    }

    /// Many entries at once go through the writer in batches; each call returns only once its own
    /// entry is committed, and every entry is written exactly once, gathered or not.
    #[tokio::test]
    async fn concurrent_entries_are_each_committed_before_their_call_returns() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = store(dir.path()).await;
        assert!(store.audit.is_some(), "the writer runs inside a runtime");
        // Job entries (direct when alone) and HTTP entries (always gathered, with a linger) mixed.
        let calls = (0..300).map(|n| {
            let store = store.clone();
            async move {
                let written = if n % 2 == 0 {
                    store.record_audit(record(n), Utc::now()).await
                } else {
                    store.record_audit_gathered(record(n), Utc::now()).await
                };
                written.expect("written");
                rows_for(&store, n).await
            }
        });
        let seen = futures_util::future::join_all(calls).await;
        assert!(seen.iter().all(|&rows| rows == 1), "{seen:?}");
        let total = audit_entry::Entity::find()
            .filter(audit_entry::Column::Action.eq("test_entry"))
            .count(store.connection())
            .await
            .expect("count");
        assert_eq!(total, 300);
    }

    /// A store whose writer is gone (its runtime ended) writes its entries directly.
    #[tokio::test]
    async fn without_a_writer_entries_are_written_directly() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut store = store(dir.path()).await;
        let writing = Arc::new(AtomicUsize::new(0));
        store.audit = Some(AuditQueue {
            writer: Batcher::gone(),
            writing: writing.clone(),
        });
        // Another write in flight: the entry goes to the (gone) writer first.
        let _other = Writing::enter(&writing);
        store
            .record_audit(record(7), Utc::now())
            .await
            .expect("written");
        assert_eq!(rows_for(&store, 7).await, 1);
        // A gathered entry always goes to the writer first, in flight or not.
        drop(_other);
        store
            .record_audit_gathered(record(9), Utc::now())
            .await
            .expect("written");
        assert_eq!(rows_for(&store, 9).await, 1);
        store.audit = None;
        store
            .record_audit(record(8), Utc::now())
            .await
            .expect("written");
        assert_eq!(rows_for(&store, 8).await, 1);
    }
}
