//! Erasure (GDPR Art. 17, KVKK Art. 7): the person's documents go with their originals, jobs,
//! executions, stored results and index entries; every dataset built from them is built again
//! without their rows (its next version) and its export files are deleted; the copies auto_export
//! wrote to connectors and the fine-tune jobs (with the provider's models) trained on them are named,
//! since docsieve cannot reach into a customer's bucket nor untrain a model; the tenant's webhooks
//! subscribed to `subject.erased` are told (Art. 19); and the answer is a receipt signed with the
//! server's key.

use std::collections::BTreeSet;

use serde_json::json;

use super::{search, Found, Identifier, SubjectError, SubjectServices};
use crate::blob::Keys;
use crate::receipts::Receipt;
use crate::store::{new_id, BuildPayload, JobPayload, JobTarget, NewJob, OutboxEvent, RequestedBy};

/// What an erasure did, with its signed receipt.
#[derive(Clone, Debug, serde::Serialize, utoipa::ToSchema)]
pub struct Erasure {
    pub receipt_id: String,
    /// What was found before the erasure (the same as a search).
    pub found: Found,
    pub documents_erased: usize,
    pub executions_erased: usize,
    pub blobs_deleted: usize,
    /// The datasets built again without the person's rows: `{id, version, job_id}` (job_id null
    /// when no row was left: the dataset is emptied and marked failed).
    #[schema(value_type = Vec<Object>)]
    pub datasets_rebuilt: Vec<serde_json::Value>,
    pub exports_deleted: usize,
    /// Pseudonyms of the person's values deleted from the re-identification vault.
    pub vault_entries_deleted: u64,
    pub webhooks_notified: u64,
    pub receipt: Receipt,
}

/// Erases what the tenant holds with any of `identifiers`.
pub async fn erase(
    services: &SubjectServices,
    tenant_id: i64,
    identifiers: &[Identifier],
    requested_by: RequestedBy,
) -> Result<Erasure, SubjectError> {
    let found = search(services, tenant_id, identifiers).await?;
    let now = services.clock.now();
    let erased = services
        .store
        .erase_documents(tenant_id, &found.documents)
        .await?;
    let mut keys: Vec<String> = erased.blob_keys.clone();
    keys.extend(
        erased
            .job_ids
            .iter()
            .map(|job| Keys::job_result(tenant_id, job)),
    );
    for key in &keys {
        services.blobs.delete(key).await?;
    }
    let erased_executions: BTreeSet<i64> = erased.executions.iter().copied().collect();
    let mut rebuilt = Vec::new();
    let mut exports_deleted = 0;
    for dataset in &found.dataset_records {
        for export in services.store.dataset_exports(&dataset.id).await? {
            services.blobs.delete(&export.blob_key).await?;
            services.store.forget_export(export.id).await?;
            exports_deleted += 1;
        }
        let remaining: Vec<i64> = serde_json::from_str::<Vec<i64>>(&dataset.execution_ids)
            .unwrap_or_default()
            .into_iter()
            .filter(|id| !erased_executions.contains(id))
            .collect();
        if remaining.is_empty() {
            services
                .blobs
                .delete(&Keys::dataset_rows(tenant_id, &dataset.id))
                .await?;
            services
                .store
                .empty_dataset(tenant_id, &dataset.id, now)
                .await?;
            rebuilt.push(json!({"id": dataset.id, "version": dataset.version + 1, "job_id": null}));
            continue;
        }
        let job_id = new_id("job");
        services
            .store
            .queue_jobs(
                &services.cache,
                tenant_id,
                vec![NewJob {
                    id: job_id.clone(),
                    target: JobTarget::Rebuild {
                        id: dataset.id.clone(),
                        execution_ids: remaining,
                    },
                    payload: JobPayload::DatasetBuild(BuildPayload {
                        requested_by: requested_by.clone(),
                    }),
                    max_attempts: services.max_attempts,
                }],
                None,
                now,
            )
            .await
            .map_err(|error| SubjectError::Queue(error.to_string()))?;
        rebuilt.push(json!({"id": dataset.id, "version": dataset.version + 1, "job_id": job_id}));
    }
    let values: Vec<_> = identifiers
        .iter()
        .map(|identifier| (identifier.pii_type, identifier.value.clone()))
        .collect();
    let vault_entries_deleted = services.privacy.forget_values(tenant_id, &values).await?;
    let receipt_id = new_id("rcpt");
    let identifiers_hashed: Vec<serde_json::Value> = identifiers
        .iter()
        .zip(&found.digests)
        .map(|(identifier, digests)| {
            let digests: Vec<&String> = digests
                .iter()
                .filter(|digest| found.hits.iter().any(|hit| &hit.digest == *digest))
                .collect();
            json!({"type": identifier.pii_type.map(|ty| ty.name()), "digests": digests})
        })
        .collect();
    let payload = json!({
        "receipt_id": receipt_id,
        "kind": "subject_erasure",
        "tenant_id": tenant_id,
        "issued_at": crate::clock::rfc3339(now),
        "requested_by": requested_by,
        "identifiers": identifiers_hashed,
        "counts_by_type": found.counts_by_type,
        "erased": {
            "documents": erased.documents,
            "executions": erased.executions,
            "blobs": keys.len(),
            "dataset_exports": exports_deleted,
            "vault_entries": vault_entries_deleted,
        },
        "datasets_rebuilt": rebuilt,
        "connector_copies": found.connector_copies,
        "fine_tune_jobs": found.fine_tune_jobs,
        "models_note": "a model trained on the person's data cannot be untrained: the fine-tune jobs and provider models above hold what they learned; ask the provider to delete them",
        "connector_note": "the connector copies above are in the customer's own buckets: delete them there",
    });
    let receipt = services.signer.sign(&payload);
    let webhooks_notified = services
        .store
        .notify(
            tenant_id,
            vec![OutboxEvent {
                event: "subject.erased",
                payload: json!({
                    "receipt_id": receipt_id,
                    "erased_at": crate::clock::rfc3339(now),
                    "documents": erased.documents,
                    "executions": erased.executions,
                    "datasets_rebuilt": rebuilt,
                    "connector_copies": found.connector_copies,
                    "fine_tune_jobs": found.fine_tune_jobs,
                }),
            }],
            now,
        )
        .await?;
    // The erased rows' bytes out of the write-ahead log as well (SQLite; see Store::scrub_freed).
    services.store.scrub_freed().await?;
    Ok(Erasure {
        receipt_id,
        documents_erased: erased.documents.len(),
        executions_erased: erased.executions.len(),
        blobs_deleted: keys.len(),
        datasets_rebuilt: rebuilt,
        exports_deleted,
        vault_entries_deleted,
        webhooks_notified,
        receipt,
        found,
    })
}
