//! The completer's group statements: the outcomes of many jobs written in one transaction with a
//! handful of set statements, whatever the group's size (see [`completer`](super::completer)).
//!
//! In order: the completed jobs' states, each guarded by its lease (`UPDATE ... RETURNING id`: only
//! the jobs still held go on, the others are [`Written::LeaseLost`]); their executions in one
//! multi-row INSERT (a UNIQUE index on `executions.job_id` backs the guard); the execution ids onto
//! the jobs; failures and retries (rare: a statement each); then per tenant, in id order (the lock
//! order of every other writer): the tenant's lock on PostgreSQL, the webhook outbox, the credit
//! settlement of every job in one read of the ledger and one write per period, the usage counters;
//! last the audit entries of the finished jobs.

use std::collections::{BTreeMap, HashMap, HashSet};

use chrono::{DateTime, Utc};
use sea_orm::{ConnectionTrait, DatabaseTransaction, EntityTrait, QueryResult, Value};

use super::completer::{JobEnd, JobOutcome, Written};
use super::credits::{settling, standing, Held, Standing, SETTLEMENT_ENTRIES};
use super::jobs::Usage;
use super::queue::JobKind;
use super::{Backend, Settlement, Store, StoreError};

/// Most rows one statement names (bound parameters stay well under both engines' limits).
const CHUNK: usize = 256;

/// `?, ?, ...` with `count` placeholders.
pub(super) fn placeholders(count: usize) -> String {
    vec!["?"; count].join(", ")
}

/// What a group wrote: each outcome's fate, the outbox rows, the credit settlements.
pub(super) type GroupWritten = (Vec<Written>, u64, Vec<Settlement>);

impl Store {
    /// Writes `outcomes` inside `txn` (see the module documentation).
    pub(super) async fn write_group(
        &self,
        txn: &DatabaseTransaction,
        outcomes: &[&JobOutcome],
    ) -> Result<GroupWritten, StoreError> {
        let now = outcomes
            .iter()
            .map(|outcome| outcome.now)
            .max()
            .unwrap_or_else(Utc::now);
        let mut written = vec![Written::LeaseLost; outcomes.len()];
        self.write_completions(txn, outcomes, &mut written, now)
            .await?;
        for (index, outcome) in outcomes.iter().enumerate() {
            let (status, code, message) = match &outcome.end {
                JobEnd::Completed(_) => continue,
                JobEnd::Failed { code, message } => ("failed", code, message),
                JobEnd::Requeued { code, message } => ("queued", code, message),
            };
            let finished: Value = if status == "failed" {
                now.into()
            } else {
                Value::ChronoDateTimeUtc(None)
            };
            let updated = txn
                .execute(self.statement(
                    "UPDATE jobs SET status = ?, error_code = ?, error_message = ?, \
                     finished_at = COALESCE(?, finished_at), updated_at = ?, lease_owner = NULL, \
                     lease_expires_at = NULL WHERE id = ? AND lease_owner = ? AND status = 'running'",
                    vec![
                        status.into(),
                        code.as_str().into(),
                        message.as_str().into(),
                        finished,
                        now.into(),
                        outcome.job.id.as_str().into(),
                        outcome.worker.as_str().into(),
                    ],
                ))
                .await?;
            if updated.rows_affected() == 1 {
                written[index] = if status == "failed" {
                    Written::Failed
                } else {
                    Written::Requeued
                };
            }
        }
        // The finished jobs (not the retries) by tenant, in id order.
        let mut tenants: BTreeMap<i64, Vec<usize>> = BTreeMap::new();
        for (index, outcome) in outcomes.iter().enumerate() {
            if matches!(written[index], Written::Completed { .. } | Written::Failed) {
                tenants
                    .entry(outcome.job.tenant_id)
                    .or_default()
                    .push(index);
            }
        }
        let mut outbox = 0;
        let mut settled = Vec::new();
        for (tenant_id, indices) in &tenants {
            if self.backend == Backend::Postgres {
                self.lock_tenant(txn, *tenant_id).await?;
            }
            let mut events = Vec::new();
            let mut references = Vec::new();
            let mut usage = Usage::default();
            for &index in indices {
                let outcome = outcomes[index];
                for event in &outcome.events {
                    let mut event = event.clone();
                    with_execution_id(&mut event.payload, written[index]);
                    events.push(event);
                }
                match &outcome.end {
                    JobEnd::Completed(execution) => {
                        references.push((outcome.job.id.as_str(), execution.credits));
                        usage.documents += execution.usage.documents;
                        usage.pages += execution.usage.pages;
                        usage.bytes += execution.usage.bytes;
                    }
                    // A failed document job costs nothing: its reservation is given back.
                    JobEnd::Failed { .. }
                        if outcome.job.job_type == JobKind::DataProcess.as_str() =>
                    {
                        references.push((outcome.job.id.as_str(), 0));
                    }
                    _ => {}
                }
            }
            outbox += self.queue_events(txn, *tenant_id, events, now).await?;
            settled.extend(self.settle_group(txn, *tenant_id, &references, now).await?);
            if usage.documents > 0 {
                self.add_usage_in(txn, *tenant_id, usage, now).await?;
            }
        }
        let entries: Vec<_> = tenants
            .values()
            .flatten()
            .filter_map(|&index| {
                let mut record = outcomes[index].audit.clone()?;
                with_execution_id(&mut record.details, written[index]);
                Some(super::audit::entry_of(record, now))
            })
            .collect();
        for chunk in entries.chunks(CHUNK / 4) {
            super::entities::audit_entry::Entity::insert_many(chunk.to_vec())
                .exec_without_returning(txn)
                .await?;
        }
        Ok((written, outbox, settled))
    }

    /// The completed jobs of the group: their states under the lease guard, their executions, and
    /// the executions' ids on the jobs. Fills `written` for the jobs still held.
    async fn write_completions(
        &self,
        txn: &DatabaseTransaction,
        outcomes: &[&JobOutcome],
        written: &mut [Written],
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let mut by_worker: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for (index, outcome) in outcomes.iter().enumerate() {
            if matches!(outcome.end, JobEnd::Completed(_)) {
                by_worker
                    .entry(outcome.worker.as_str())
                    .or_default()
                    .push(index);
            }
        }
        // The first outcome of each job still held (the same job twice in a group: the second
        // finds it completed).
        let mut held = Vec::new();
        let mut seen = HashSet::new();
        for (worker, indices) in &by_worker {
            for chunk in indices.chunks(CHUNK) {
                let mut values: Vec<Value> = vec![now.into(), now.into(), (*worker).into()];
                values.extend(chunk.iter().map(|&i| outcomes[i].job.id.as_str().into()));
                let rows = txn
                    .query_all(self.statement(
                        &format!(
                            "UPDATE jobs SET status = 'completed', finished_at = ?, updated_at = ?, \
                             lease_owner = NULL, lease_expires_at = NULL, error_code = NULL, \
                             error_message = NULL WHERE lease_owner = ? AND status = 'running' \
                             AND id IN ({}) RETURNING id",
                            placeholders(chunk.len())
                        ),
                        values,
                    ))
                    .await?;
                let kept: HashSet<String> = rows
                    .iter()
                    .map(|row| row.try_get::<String>("", "id"))
                    .collect::<Result<_, _>>()?;
                for &index in chunk {
                    let id = &outcomes[index].job.id;
                    if kept.contains(id) && seen.insert(id.clone()) {
                        held.push(index);
                    }
                }
            }
        }
        for chunk in held.chunks(CHUNK) {
            let mut values: Vec<Value> = Vec::with_capacity(chunk.len() * 12);
            for &index in chunk {
                let outcome = outcomes[index];
                let JobEnd::Completed(execution) = &outcome.end else {
                    continue;
                };
                values.extend([
                    outcome.job.tenant_id.into(),
                    execution.document_id.into(),
                    outcome.job.id.as_str().into(),
                    execution.masked.into(),
                    execution.started_at.into(),
                    now.into(),
                    execution.duration_ms.into(),
                    execution.result_blob_key.as_str().into(),
                    execution.result_meta.to_string().into(),
                    execution
                        .sealed_meta
                        .as_ref()
                        .map(|sealed| sealed.stored().to_string())
                        .into(),
                    false.into(),
                    now.into(),
                ]);
            }
            let rows =
                vec!["(?, ?, ?, 'completed', ?, ?, ?, ?, ?, ?, ?, ?, ?)"; chunk.len()].join(", ");
            let inserted = txn
                .query_all(self.statement(
                    &format!(
                        "INSERT INTO executions (tenant_id, document_id, job_id, status, masked, \
                         started_at, finished_at, duration_ms, result_blob_key, result_meta, \
                         sealed_meta, cross_validation_flag, created_at) VALUES {rows} \
                         RETURNING id, job_id"
                    ),
                    values,
                ))
                .await?;
            let ids: HashMap<String, i64> = inserted
                .iter()
                .map(|row| Ok((row.try_get("", "job_id")?, row.try_get("", "id")?)))
                .collect::<Result<_, StoreError>>()?;
            let mut subjects = Vec::new();
            for &index in chunk {
                if let Some(&execution_id) = ids.get(&outcomes[index].job.id) {
                    written[index] = Written::Completed { execution_id };
                }
                let outcome = outcomes[index];
                if let JobEnd::Completed(execution) = &outcome.end {
                    let place = (
                        outcome.job.tenant_id,
                        execution.document_id,
                        outcome.job.id.as_str(),
                    );
                    subjects.push((place, execution.subjects.as_slice()));
                }
            }
            // What the jobs found, queued for the subject index's writer (one row per job).
            self.queue_subjects(txn, &subjects, now).await?;
            txn.execute(self.statement(
                &format!(
                    "UPDATE jobs SET execution_id = (SELECT e.id FROM executions e WHERE e.job_id = jobs.id) \
                     WHERE id IN ({})",
                    placeholders(chunk.len())
                ),
                chunk
                    .iter()
                    .map(|&i| outcomes[i].job.id.as_str().into())
                    .collect(),
            ))
            .await?;
        }
        Ok(())
    }

    /// Settles the reservations of `references` (job id, credits to debit) of one tenant, inside a
    /// transaction holding the tenant: one read of their ledger entries, one INSERT and one UPDATE
    /// per period. Each settlement sees the balance the earlier ones of the group left.
    async fn settle_group(
        &self,
        txn: &DatabaseTransaction,
        tenant_id: i64,
        references: &[(&str, i64)],
        now: DateTime<Utc>,
    ) -> Result<Vec<Settlement>, StoreError> {
        let mut entries: HashMap<String, Vec<QueryResult>> = HashMap::new();
        for chunk in references.chunks(CHUNK) {
            let sql = SETTLEMENT_ENTRIES.replace(
                "l.reference = ?",
                &format!("l.reference IN ({})", placeholders(chunk.len())),
            );
            let mut values: Vec<Value> = chunk.iter().map(|(id, _)| (*id).into()).collect();
            values.push(tenant_id.into());
            for row in txn.query_all(self.statement(&sql, values)).await? {
                let reference: String = row.try_get("", "reference")?;
                entries.entry(reference).or_default().push(row);
            }
        }
        let mut open_period: Option<Option<(i64, i64)>> = None;
        let mut moved: HashMap<i64, i64> = HashMap::new();
        let mut posts: BTreeMap<i64, Vec<(&'static str, i64, &str)>> = BTreeMap::new();
        let mut settled = Vec::new();
        for &(reference, credits) in references {
            let rows = entries.get(reference).map(Vec::as_slice).unwrap_or(&[]);
            let mut held = match standing(rows)? {
                Standing::Settled => continue,
                Standing::Reserved(held) => held,
                Standing::Unreserved if credits <= 0 => continue,
                Standing::Unreserved => {
                    if open_period.is_none() {
                        open_period = Some(
                            self.open_period_of(txn, tenant_id)
                                .await?
                                .map(|period| (period.id, period.balance)),
                        );
                    }
                    match open_period.flatten() {
                        Some((id, balance)) => Held::unreserved(id, balance),
                        None => continue,
                    }
                }
            };
            held.balance += moved.get(&held.period_id).copied().unwrap_or(0);
            let (moves, settlement) = settling(&held, credits);
            for (kind, amount) in moves {
                *moved.entry(held.period_id).or_default() += amount;
                posts
                    .entry(held.period_id)
                    .or_default()
                    .push((kind, amount, reference));
            }
            settled.push(settlement);
        }
        for (period_id, entries) in &posts {
            for chunk in entries.chunks(CHUNK) {
                self.post(txn, (tenant_id, *period_id), chunk, now).await?;
            }
        }
        Ok(settled)
    }
}

/// Fills the `execution_id` an event or audit entry of a completed job names (written 0 before its
/// execution existed) with the execution's id.
fn with_execution_id(value: &mut serde_json::Value, written: Written) {
    if let Written::Completed { execution_id } = written {
        if value.get("execution_id").is_some() {
            value["execution_id"] = execution_id.into();
        }
    }
}
