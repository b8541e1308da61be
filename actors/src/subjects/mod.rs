//! Data-subject requests: find one person's values across everything the tenant holds (documents,
//! executions, the datasets built from them, their exports, the copies auto_export wrote to
//! connectors, the fine-tune jobs trained on them), give them what is held about them, or erase it
//! and sign a receipt. A person is named by identifiers (a TCKN, an e-mail, a phone...), which are
//! only ever hashed: under a key derived from the tenant's data key, in their normal form, as the
//! subject index keeps what every job found.

mod access;
mod closure;
mod erase;
mod text;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde::Serialize;

pub use access::{access_zip, AccessFile};
pub use closure::purge_due;
pub use erase::{erase, Erasure};
pub use text::subject_text;

use crate::blob::{Blobs, DataKey};
use crate::cache::Cache;
use crate::clock::Clock;
use crate::pii_masker::{normal_form, PiiType};
use crate::receipts::ReceiptSigner;
use crate::store::{ConnectorCopy, DatasetRecord, FineTuneRecord, Store, StoreError, SubjectHit};

/// What a subject request needs.
#[derive(Clone)]
pub struct SubjectServices {
    pub store: Store,
    pub blobs: Blobs,
    pub cache: Arc<dyn Cache>,
    pub clock: Clock,
    pub signer: Arc<ReceiptSigner>,
    /// The re-identification vault, whose pseudonyms of the person's values an erasure deletes.
    pub privacy: crate::privacy::Privacy,
    pub max_attempts: i32,
}

/// One identifier of the person: its type when the caller knows it, and its value.
#[derive(Clone, Debug)]
pub struct Identifier {
    pub pii_type: Option<PiiType>,
    pub value: String,
}

#[derive(Debug, thiserror::Error)]
pub enum SubjectError {
    #[error("{0}")]
    Key(#[from] crate::blob::KeyError),
    #[error("{0}")]
    Store(#[from] StoreError),
    #[error("{0}")]
    Blob(#[from] crate::blob::BlobError),
    #[error("{0}")]
    Privacy(#[from] crate::privacy::PrivacyError),
    #[error("{0}")]
    Queue(String),
}

/// The digests an identifier is looked up by: of its type, or of every type when none is given
/// (a digest names its type, so a value matches only where it was found as that type).
pub fn digests_of(key: &DataKey, identifier: &Identifier) -> Vec<(PiiType, String)> {
    let types: Vec<PiiType> = match identifier.pii_type {
        Some(ty) => vec![ty],
        None => PiiType::ALL.to_vec(),
    };
    types
        .into_iter()
        .filter_map(|ty| {
            let normal = normal_form(ty, identifier.value.trim());
            (!normal.is_empty()).then(|| (ty, key.subject_digest(ty.name(), &normal)))
        })
        .collect()
}

/// A dataset holding the person's rows.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct HeldDataset {
    pub id: String,
    pub name: String,
    pub version: i64,
    pub status: String,
    /// The person's executions among its rows.
    pub execution_ids: Vec<i64>,
}

/// A dataset export file holding the person's rows.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct HeldExport {
    pub dataset_id: String,
    pub format: String,
    pub size_bytes: i64,
}

/// A copy auto_export wrote to a connector's bucket.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct HeldCopy {
    pub dataset_id: String,
    pub connector_id: i64,
    pub webhook_id: i64,
    pub key: String,
    pub format: String,
}

/// A fine-tune job trained on a dataset holding the person's rows.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct HeldFineTune {
    pub id: String,
    pub dataset_id: String,
    pub status: String,
    pub model: String,
    pub provider_job_id: Option<String>,
    pub fine_tuned_model: Option<String>,
}

/// Everything the tenant holds with any of the identifiers.
#[derive(Clone, Debug, Default, Serialize, utoipa::ToSchema)]
pub struct Found {
    pub documents: Vec<i64>,
    pub executions: Vec<i64>,
    pub datasets: Vec<HeldDataset>,
    pub exports: Vec<HeldExport>,
    pub connector_copies: Vec<HeldCopy>,
    pub fine_tune_jobs: Vec<HeldFineTune>,
    /// How many times each type of the person's values occurs, over every document.
    pub counts_by_type: BTreeMap<String, i64>,
    /// How many of the identifiers were found somewhere.
    pub identifiers_found: usize,
    #[serde(skip)]
    pub hits: Vec<SubjectHit>,
    #[serde(skip)]
    pub dataset_records: Vec<DatasetRecord>,
    /// The digests searched for, per identifier in the request's order.
    #[serde(skip)]
    pub digests: Vec<Vec<String>>,
}

/// Finds everything the tenant holds with any of `identifiers`.
pub async fn search(
    services: &SubjectServices,
    tenant_id: i64,
    identifiers: &[Identifier],
) -> Result<Found, SubjectError> {
    let ring = services.blobs.key_ring().ok_or(SubjectError::Queue(
        "blobs are not sealed: no subject index".to_string(),
    ))?;
    let key = ring.data_key(tenant_id).await?;
    let per_identifier: Vec<Vec<String>> = identifiers
        .iter()
        .map(|identifier| {
            digests_of(&key, identifier)
                .into_iter()
                .map(|(_, digest)| digest)
                .collect()
        })
        .collect();
    let all: Vec<String> = per_identifier.iter().flatten().cloned().collect();
    // What completed jobs queued for the index and its writer has not moved yet, first.
    services.store.index_queued_subjects().await?;
    let hits = services.store.subject_hits(tenant_id, &all).await?;
    let found_digests: BTreeSet<&str> = hits.iter().map(|hit| hit.digest.as_str()).collect();
    let mut found = Found {
        identifiers_found: per_identifier
            .iter()
            .filter(|digests| digests.iter().any(|d| found_digests.contains(d.as_str())))
            .count(),
        digests: per_identifier,
        ..Found::default()
    };
    let documents: BTreeSet<i64> = hits.iter().map(|hit| hit.document_id).collect();
    let executions: BTreeSet<i64> = hits.iter().filter_map(|hit| hit.execution_id).collect();
    for hit in &hits {
        *found
            .counts_by_type
            .entry(hit.pii_type.clone())
            .or_default() += hit.occurrences;
    }
    found.documents = documents.into_iter().collect();
    found.executions = executions.into_iter().collect();
    let datasets = services
        .store
        .datasets_holding(tenant_id, &found.executions)
        .await?;
    for dataset in &datasets {
        let ids: Vec<i64> = serde_json::from_str::<Vec<i64>>(&dataset.execution_ids)
            .unwrap_or_default()
            .into_iter()
            .filter(|id| found.executions.contains(id))
            .collect();
        found.datasets.push(HeldDataset {
            id: dataset.id.clone(),
            name: dataset.name.clone(),
            version: dataset.version,
            status: dataset.status.clone(),
            execution_ids: ids,
        });
        for export in services.store.dataset_exports(&dataset.id).await? {
            found.exports.push(HeldExport {
                dataset_id: dataset.id.clone(),
                format: export.format,
                size_bytes: export.size_bytes,
            });
        }
        let copies: Vec<ConnectorCopy> = services
            .store
            .connector_copies(tenant_id, &dataset.id)
            .await?;
        found
            .connector_copies
            .extend(copies.into_iter().map(|copy| HeldCopy {
                dataset_id: copy.dataset_id,
                connector_id: copy.connector_id,
                webhook_id: copy.webhook_id,
                key: copy.key,
                format: copy.format,
            }));
    }
    let dataset_ids: Vec<String> = datasets.iter().map(|d| d.id.clone()).collect();
    let fine_tunes: Vec<FineTuneRecord> = services
        .store
        .fine_tunes_of(tenant_id, &dataset_ids)
        .await?;
    found.fine_tune_jobs = fine_tunes
        .into_iter()
        .map(|job| HeldFineTune {
            id: job.id,
            dataset_id: job.dataset_id,
            status: job.status,
            model: job.model,
            provider_job_id: job.provider_job_id,
            fine_tuned_model: job.fine_tuned_model,
        })
        .collect();
    found.hits = hits;
    found.dataset_records = datasets;
    Ok(found)
}
