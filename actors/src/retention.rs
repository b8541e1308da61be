//! Retention: each tenant's originals and stored results are destroyed when their days are up (the
//! tenant's choice, else its plan's; 0 keeps them until the document is deleted), and every
//! destruction is logged: when, what category, how many, why (the KVKK periodic-destruction record).
//! The scheduler runs it on `jobs.retention_interval_seconds`; a run destroys only what was not
//! destroyed before, so running it twice destroys nothing twice.

use chrono::{DateTime, Utc};

use crate::blob::{Blobs, Keys};
use crate::settings::PlansSettings;
use crate::store::{Destruction, DueItem, RetentionChoice, Store, StoreError};

/// Most items destroyed per batch (one transaction marks them and logs the batch).
const BATCH: u64 = 500;

/// The retention in force for a tenant: days per category, None for no limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct RetentionInForce {
    pub originals_days: Option<i64>,
    pub results_days: Option<i64>,
}

/// The days in force: the tenant's choice where it made one, else the plan's (0: none).
pub fn in_force(
    choice: RetentionChoice,
    plan_originals: u32,
    plan_results: u32,
) -> RetentionInForce {
    let plan = |days: u32| (days > 0).then_some(i64::from(days));
    RetentionInForce {
        originals_days: choice.originals_days.or(plan(plan_originals)),
        results_days: choice.results_days.or(plan(plan_results)),
    }
}

/// The tenant's retention in force now.
pub async fn retention_of(
    store: &Store,
    plans: &PlansSettings,
    tenant_id: i64,
) -> Result<RetentionInForce, StoreError> {
    let plan = plans.get(store.plan_in_force(tenant_id).await?);
    let choice = store.retention_choice(tenant_id).await?;
    Ok(in_force(
        choice,
        plan.originals_retention_days,
        plan.results_retention_days,
    ))
}

/// What one destruction run removed.
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct DestructionReport {
    pub originals: u64,
    pub results: u64,
    pub bytes: u64,
}

/// Destroys every tenant's originals and results past their retention at `now`, and logs it.
pub async fn run_destruction(
    store: &Store,
    blobs: &Blobs,
    plans: &PlansSettings,
    now: DateTime<Utc>,
) -> Result<DestructionReport, String> {
    let mut report = DestructionReport::default();
    for tenant_id in store.tenant_ids().await.map_err(|e| e.to_string())? {
        let retention = retention_of(store, plans, tenant_id)
            .await
            .map_err(|e| e.to_string())?;
        if let Some(days) = retention.originals_days {
            let (items, bytes) =
                destroy(store, blobs, tenant_id, Category::Originals, days, now).await?;
            report.originals += items;
            report.bytes += bytes;
        }
        if let Some(days) = retention.results_days {
            let (items, _) = destroy(store, blobs, tenant_id, Category::Results, days, now).await?;
            report.results += items;
        }
    }
    if report.originals + report.results > 0 {
        store.scrub_freed().await.map_err(|e| e.to_string())?;
        tracing::info!(
            originals = report.originals,
            results = report.results,
            bytes = report.bytes,
            "retention: destroyed what was due"
        );
    }
    Ok(report)
}

#[derive(Clone, Copy)]
enum Category {
    Originals,
    Results,
}

impl Category {
    fn name(self) -> &'static str {
        match self {
            Category::Originals => "originals",
            Category::Results => "results",
        }
    }
}

/// Destroys one tenant's due items of one category, a batch at a time: blobs first, then the marks
/// and the log entry in one transaction (a crash in between deletes the blobs again next run, which
/// is harmless). Answers the items and bytes destroyed.
async fn destroy(
    store: &Store,
    blobs: &Blobs,
    tenant_id: i64,
    category: Category,
    days: i64,
    now: DateTime<Utc>,
) -> Result<(u64, u64), String> {
    let before = now - chrono::Duration::days(days);
    let reason = format!("retention ended: {} kept {days} days", category.name());
    let (mut items, mut bytes) = (0u64, 0u64);
    loop {
        let due: Vec<DueItem> = match category {
            Category::Originals => store.originals_due(tenant_id, before, BATCH).await,
            Category::Results => store.results_due(tenant_id, before, BATCH).await,
        }
        .map_err(|e| e.to_string())?;
        if due.is_empty() {
            return Ok((items, bytes));
        }
        for item in &due {
            if let Some(key) = &item.blob_key {
                blobs.delete(key).await.map_err(|e| e.to_string())?;
            }
            if let Some(job_id) = &item.job_id {
                let copy = Keys::job_result(tenant_id, job_id);
                blobs.delete(&copy).await.map_err(|e| e.to_string())?;
            }
        }
        let ids: Vec<i64> = due.iter().map(|item| item.id).collect();
        let batch_bytes: i64 = due.iter().map(|item| item.bytes.max(0)).sum();
        let detail = serde_json::json!({
            "ids": ids,
            "retention_days": days,
            "received_before": before.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            "method": "deleted from blob storage (sealed under the tenant's data key)",
        })
        .to_string();
        store
            .record_destruction(
                tenant_id,
                Destruction {
                    category: category.name(),
                    ids: &ids,
                    reason: &reason,
                    bytes: batch_bytes,
                    detail: &detail,
                },
                now,
            )
            .await
            .map_err(|e| e.to_string())?;
        items += ids.len() as u64;
        bytes += batch_bytes as u64;
        if (due.len() as u64) < BATCH {
            return Ok((items, bytes));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tenant_choice_wins_over_the_plan_and_zero_means_no_limit() {
        let none = RetentionChoice::default();
        assert_eq!(
            in_force(none, 30, 0),
            RetentionInForce {
                originals_days: Some(30),
                results_days: None
            }
        );
        let chosen = RetentionChoice {
            originals_days: Some(7),
            results_days: None,
        };
        assert_eq!(in_force(chosen, 30, 90).originals_days, Some(7));
        assert_eq!(in_force(chosen, 30, 90).results_days, Some(90));
    }
}
