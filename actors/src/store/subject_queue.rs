//! The subject index's writer. A completed job's values (keyed digests, never the values) are queued
//! with its execution, in the group commit, as one `subject_queue` row per job: a short append. This
//! writer spreads them into `subject_index` rows (one per value and job, under an index keyed by the
//! digest) in batches of its own, off the jobs' completion path: the digests are random, so each row
//! written in the group commit dirtied a page of that index of its own, inside the write lock every
//! job's completion waits for. Gathering two seconds' worth of jobs touches each page once for many
//! rows, in transactions of 100 jobs that give the write turn back in between.
//!
//! Nothing is lost across a crash: a queued row is deleted in the transaction that writes its index
//! rows (`DELETE ... RETURNING` claims it, so two processes never index one job twice), and whatever
//! is still queued is indexed at the next nudge. A data-subject request drains the queue before it
//! reads the index ([`Store::index_queued_subjects`]), so a completed job is always found.

use chrono::{DateTime, Utc};
use sea_orm::{ConnectionTrait, Value};

use super::{Store, StoreError, SubjectEntry};
use crate::runtime::{Batched, Batcher, BatcherSettings, Home};

/// Queued jobs indexed per transaction (a few hundred rows: the write turn is given back between
/// transactions, so the jobs' group commits wait for one at most).
const CHUNK: usize = 100;
/// Index rows per INSERT.
const ROWS_PER_INSERT: usize = 200;
/// How long the writer gathers after a nudge before it writes (more rows per page of the digest index
/// per transaction).
const LINGER: std::time::Duration = std::time::Duration::from_secs(2);

/// Where a job's values were found: `(tenant, document, job)`.
type Place<'a> = (i64, i64, &'a str);

/// A completed job's place and the values it found.
pub(crate) type JobSubjects<'a> = (Place<'a>, &'a [SubjectEntry]);

/// A wake-up for the writer: there are queued rows.
pub(super) struct Nudge;

impl Batched for Nudge {
    fn lingers(&self) -> bool {
        true
    }
}

/// The writer's queue of nudges.
pub(super) type SubjectIndexer = Batcher<Nudge>;

/// Starts the writer on a thread of its own (`None` outside a runtime: the queue is then drained by
/// the next data-subject request).
pub(super) fn start(store: &Store) -> Option<SubjectIndexer> {
    let store = store.clone();
    Batcher::start(
        BatcherSettings {
            name: "subject_index_writer",
            queue: 1,
            max: 1,
            linger: LINGER,
            home: Home::Thread,
        },
        move |_nudges| {
            let store = store.clone();
            async move {
                if let Err(error) = store.index_queued_subjects().await {
                    tracing::warn!(%error, "the subject index writer failed; the rows stay queued");
                }
            }
        },
    )
}

/// A job's entries as queued: `[[pii_type, digest, occurrences, first_position], ...]`.
fn encode(entries: &[SubjectEntry]) -> String {
    serde_json::Value::Array(
        entries
            .iter()
            .map(|entry| {
                serde_json::json!([
                    entry.pii_type,
                    entry.digest,
                    entry.occurrences,
                    entry.first_position
                ])
            })
            .collect(),
    )
    .to_string()
}

fn decode(text: &str) -> Result<Vec<SubjectEntry>, StoreError> {
    let rows: Vec<(String, String, i64, i64)> = serde_json::from_str(text).map_err(|error| {
        StoreError::Database(sea_orm::DbErr::Custom(format!(
            "a queued subject entry: {error}"
        )))
    })?;
    Ok(rows
        .into_iter()
        .map(
            |(pii_type, digest, occurrences, first_position)| SubjectEntry {
                digest,
                pii_type,
                occurrences,
                first_position,
            },
        )
        .collect())
}

impl Store {
    /// Queues what completed jobs found, inside the transaction that records their executions: one
    /// row per job with values, 200 rows per INSERT.
    pub(crate) async fn queue_subjects<C: ConnectionTrait>(
        &self,
        connection: &C,
        jobs: &[JobSubjects<'_>],
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let rows: Vec<Vec<Value>> = jobs
            .iter()
            .filter(|(_, entries)| !entries.is_empty())
            .map(|((tenant_id, document_id, job_id), entries)| {
                vec![
                    (*tenant_id).into(),
                    (*document_id).into(),
                    (*job_id).into(),
                    encode(entries).into(),
                    now.into(),
                ]
            })
            .collect();
        self.insert_rows(
            connection,
            "subject_queue (tenant_id, document_id, job_id, entries, created_at)",
            5,
            rows,
        )
        .await
    }

    /// INSERTs `rows` (each `width` values, in the order of the columns named in `table`) into
    /// `table`, 200 rows per statement.
    async fn insert_rows<C: ConnectionTrait>(
        &self,
        connection: &C,
        table: &str,
        width: usize,
        rows: Vec<Vec<Value>>,
    ) -> Result<(), StoreError> {
        let placeholder = format!("({})", vec!["?"; width].join(", "));
        for chunk in rows.chunks(ROWS_PER_INSERT) {
            let values = vec![placeholder.as_str(); chunk.len()].join(", ");
            let parameters: Vec<Value> = chunk.iter().flatten().cloned().collect();
            connection
                .execute(
                    self.statement(&format!("INSERT INTO {table} VALUES {values}"), parameters),
                )
                .await?;
        }
        Ok(())
    }

    /// Wakes the subject index's writer (nothing when it is already awake or there is none).
    pub fn nudge_subject_indexer(&self) {
        if let Some(indexer) = &self.subject_indexer {
            indexer.offer(Nudge);
        }
    }

    /// Moves every queued job's values into the subject index; how many jobs it moved. Runs in
    /// transactions of up to 100 jobs, each claiming its rows by deleting them.
    pub async fn index_queued_subjects(&self) -> Result<usize, StoreError> {
        let mut moved = 0;
        loop {
            let claimed = self.index_queued_chunk().await?;
            moved += claimed;
            if claimed < CHUNK {
                return Ok(moved);
            }
        }
    }

    async fn index_queued_chunk(&self) -> Result<usize, StoreError> {
        // A look outside the write turn first: most nudges of an idle queue end here.
        let any = self
            .connection()
            .query_one(self.statement("SELECT id FROM subject_queue LIMIT 1", vec![]))
            .await?;
        if any.is_none() {
            return Ok(0);
        }
        let (_turn, txn) = self.begin_write().await?;
        let claimed = txn
            .query_all(self.statement(
                "DELETE FROM subject_queue WHERE id IN \
                 (SELECT id FROM subject_queue ORDER BY id LIMIT ?) \
                 RETURNING tenant_id, document_id, job_id, entries, created_at",
                vec![(CHUNK as i64).into()],
            ))
            .await?;
        let mut jobs = Vec::with_capacity(claimed.len());
        for row in &claimed {
            let place: (i64, i64, String) = (
                row.try_get("", "tenant_id")?,
                row.try_get("", "document_id")?,
                row.try_get("", "job_id")?,
            );
            let entries = decode(&row.try_get::<String>("", "entries")?)?;
            let queued_at: DateTime<Utc> = row.try_get("", "created_at")?;
            jobs.push((place, entries, queued_at));
        }
        let rows: Vec<Vec<Value>> = jobs
            .iter()
            .flat_map(|((tenant_id, document_id, job_id), entries, at)| {
                entries.iter().map(move |entry| {
                    vec![
                        (*tenant_id).into(),
                        entry.digest.clone().into(),
                        entry.pii_type.clone().into(),
                        (*document_id).into(),
                        job_id.clone().into(),
                        entry.occurrences.into(),
                        entry.first_position.into(),
                        (*at).into(),
                    ]
                })
            })
            .collect();
        self.insert_rows(
            &txn,
            "subject_index (tenant_id, digest, pii_type, document_id, job_id, occurrences, \
             first_position, created_at)",
            8,
            rows,
        )
        .await?;
        txn.commit().await?;
        Ok(claimed.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queued_entries_read_back_as_written() {
        let entries = vec![
            SubjectEntry {
                digest: "ab".repeat(32),
                pii_type: "TR_TCKN".into(),
                occurrences: 3,
                first_position: 17,
            },
            SubjectEntry {
                digest: "c\"d".into(),
                pii_type: "EMAIL".into(),
                occurrences: 1,
                first_position: 0,
            },
        ];
        let back = decode(&encode(&entries)).unwrap();
        assert_eq!(back.len(), 2);
        for (a, b) in entries.iter().zip(&back) {
            assert_eq!(
                (&a.digest, &a.pii_type, a.occurrences, a.first_position),
                (&b.digest, &b.pii_type, b.occurrences, b.first_position)
            );
        }
        assert!(decode("[[1]]").is_err());
    }
}
