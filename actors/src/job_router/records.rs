//! What a finished job leaves besides its row: its metrics and its audit entry.

use std::time::Instant;

use serde_json::json;

use crate::store::{AuditRecord, ClaimedJob, JobKind, RequestedBy};

use super::worker::Finish;

/// Counts a finished attempt and its duration.
pub(super) fn finished_metrics(job: &ClaimedJob, finish: &Finish, started: Instant) {
    let outcome = match finish {
        Finish::Completed { .. } | Finish::Built { .. } => "completed",
        Finish::Failed { .. } => "failed",
        Finish::Retry { .. } => "retried",
        Finish::LeaseLost => {
            tracing::warn!(job_id = %job.id, "the job's lease was taken before its outcome was written; its result is discarded");
            "lease_lost"
        }
    };
    metrics::counter!(crate::metric_names::JOBS_FINISHED_TOTAL,
        "job_type" => job.job_type.clone(), "outcome" => outcome)
    .increment(1);
    metrics::histogram!(crate::metric_names::JOB_DURATION_SECONDS, "job_type" => job.job_type.clone())
        .record(started.elapsed().as_secs_f64());
}

/// The audit entry of a finished job (none for a retry); a completion's `execution_id` is filled in
/// by the completer.
pub(super) fn audit_record(
    job: &ClaimedJob,
    requested_by: &RequestedBy,
    finish: &Finish,
    meta: Option<&serde_json::Value>,
) -> Option<AuditRecord> {
    let details = match finish {
        Finish::Completed { execution_id } => {
            let meta = meta.cloned().unwrap_or_default();
            json!({
                "document_id": job.document_id,
                "execution_id": execution_id,
                "attempt": job.attempts,
                "masked": meta["masked"],
                "format": meta["format"],
                "pii_count": meta["pii_count"],
                "pii_type_summary": meta["pii_type_summary"],
                "policy_version": meta["policy_version"],
            })
        }
        Finish::Built { row_count } => json!({
            "dataset_id": job.dataset_id,
            "row_count": row_count,
            "attempt": job.attempts,
        }),
        Finish::Failed { code, .. } => json!({
            "document_id": job.document_id,
            "dataset_id": job.dataset_id,
            "attempt": job.attempts,
            "error_code": code,
        }),
        Finish::Retry { .. } | Finish::LeaseLost => return None,
    };
    Some(AuditRecord {
        tenant_id: Some(job.tenant_id),
        actor_type: requested_by.audit_type(),
        actor_id: requested_by.id.clone(),
        action: if job.job_type == JobKind::DatasetBuild.as_str() {
            "dataset_build"
        } else {
            "process"
        },
        target_type: Some("job"),
        target_id: Some(job.id.clone()),
        outcome: if matches!(finish, Finish::Completed { .. } | Finish::Built { .. }) {
            "success"
        } else {
            "failure"
        },
        ip: None,
        details,
    })
}
