//! The dataset_exporter actor: builds datasets from executions and writes the export formats.
//!
//! A build reads each execution's result (masked when the execution was) and writes one canonical JSON
//! Lines file of [`rows::DatasetRow`]s to blob storage. An export streams those rows through one of
//! the [`formats`] writers into a scratch file, uploads it, and records it with its retention time.
//! Parsing and writing run on blocking threads; the actor's own thread only schedules and awaits.

mod auto_export;
mod document_csv;
mod formats;
mod messages;
mod numbering;
mod rows;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use actix::Context;

use crate::blob::{Blobs, DataKey, Keys, Scratch};
use crate::clock::Clock;
use crate::metric_names as names;
use crate::runtime::{Cell, Logic, Outcome, Request};
use crate::settings::{DatasetsSettings, PlansSettings};
use crate::store::Store;
pub use auto_export::auto_export;
pub use document_csv::document_csv;
pub use formats::{write_export, write_rows, ExportFormat, FORMAT_NAMES};
pub use messages::{Build, Built, Export, Exported};
pub use rows::{schema_json, DatasetRow};

/// What the exporter needs from the rest of the system.
#[derive(Clone)]
pub struct ExportServices {
    pub store: Store,
    pub blobs: Blobs,
    pub clock: Clock,
    pub settings: DatasetsSettings,
    pub plans: PlansSettings,
    /// Where scratch files are written (under the data dir).
    pub scratch_dir: PathBuf,
}

/// State of the dataset_exporter actor.
#[derive(Default)]
pub struct DatasetExporter {
    services: Option<ExportServices>,
}

impl DatasetExporter {
    pub fn new(services: ExportServices) -> DatasetExporter {
        DatasetExporter {
            services: Some(services),
        }
    }
}

impl Logic for DatasetExporter {
    const NAME: &'static str = "dataset_exporter";
}

impl DatasetExporter {
    /// Runs `work` with the exporter's services, or answers at once that it has none.
    fn with_services<T, F>(
        &self,
        work: impl FnOnce(ExportServices) -> F,
    ) -> Outcome<Result<T, String>>
    where
        F: std::future::Future<Output = Result<T, String>> + Send + 'static,
    {
        match self.services.clone() {
            Some(services) => Outcome::Pending(Box::pin(work(services))),
            None => Outcome::Ready(Err("the dataset exporter runs without storage".to_string())),
        }
    }
}

impl Request<DatasetExporter> for Build {
    type Reply = Result<Built, String>;

    fn handle(
        self,
        exporter: &mut DatasetExporter,
        _ctx: &mut Context<Cell<DatasetExporter>>,
    ) -> Outcome<Self::Reply> {
        exporter.with_services(|services| async move {
            let started = Instant::now();
            let result = build_rows(&services, self.tenant_id, &self.dataset_id).await;
            metrics::histogram!(names::DATASET_BUILD_DURATION_SECONDS)
                .record(started.elapsed().as_secs_f64());
            result
        })
    }
}

impl Request<DatasetExporter> for Export {
    type Reply = Result<Exported, String>;

    fn handle(
        self,
        exporter: &mut DatasetExporter,
        _ctx: &mut Context<Cell<DatasetExporter>>,
    ) -> Outcome<Self::Reply> {
        exporter.with_services(|services| async move {
            let format = self.format;
            let result = export_format(&services, self.tenant_id, &self.dataset_id, format).await;
            let outcome = if result.is_ok() { "success" } else { "failure" };
            metrics::counter!(names::DATASET_EXPORTS_TOTAL,
                "format" => format.name(), "outcome" => outcome)
            .increment(1);
            if let Ok(exported) = &result {
                metrics::counter!(names::DATASET_EXPORT_BYTES_TOTAL, "format" => format.name())
                    .increment(exported.size_bytes.max(0) as u64);
            }
            result
        })
    }
}

/// A scratch file removed when dropped.
/// A scratch file in the exporter's folder.
fn scratch(services: &ExportServices, name: &str) -> Result<Scratch, String> {
    Scratch::in_folder(&services.scratch_dir, name)
        .map_err(|e| format!("cannot create the scratch folder: {e}"))
}

/// What a dataset row takes from a stored result (everything else in it is skipped unparsed).
#[derive(serde::Deserialize)]
struct StoredResult {
    #[serde(default)]
    document: StoredDocument,
}

#[derive(Default, serde::Deserialize)]
#[serde(default)]
struct StoredDocument {
    text: Option<String>,
    fields: serde_json::Value,
    tables: serde_json::Value,
}

/// What a dataset row takes from `executions.result_meta`.
#[derive(Default, serde::Deserialize)]
#[serde(default)]
struct StoredMeta {
    format: Option<String>,
    detected_language: Option<String>,
    quality: Option<StoredQuality>,
    pii_count: Option<i64>,
    pii_type_summary: Option<std::collections::BTreeMap<String, u64>>,
    policy_version: Option<i64>,
}

#[derive(Default, serde::Deserialize)]
#[serde(default)]
struct StoredQuality {
    grade: Option<String>,
}

/// The file name a row shows: a masked run's name as the engine masked it (`document-<id>.<format>`
/// for a run from before names were masked: never the name in clear), an unmasked run's as uploaded.
fn row_filename(input: &crate::store::BuildInput, key: Option<&DataKey>) -> String {
    let sealed: serde_json::Value = input
        .sealed_meta
        .as_deref()
        .and_then(|stored| {
            crate::store::Sealed::open_json(stored, key, crate::store::SealedField::ExecutionMeta)
        })
        .unwrap_or_default();
    if input.masked {
        match sealed["masked_filename"].as_str() {
            Some(name) => name.to_string(),
            None => format!("document-{}.{}", input.document_id, input.format),
        }
    } else {
        crate::store::Sealed::from_stored(input.filename.clone())
            .open_or_withheld(key, crate::store::SealedField::DocumentName)
    }
}

/// One execution's result blob as a dataset row.
fn row_of(
    input: crate::store::BuildInput,
    result: &[u8],
    key: Option<&DataKey>,
) -> Result<DatasetRow, String> {
    let result: StoredResult = serde_json::from_slice(result).map_err(|e| {
        format!(
            "the result of execution {} is unreadable: {e}",
            input.execution_id
        )
    })?;
    let meta: StoredMeta = serde_json::from_str(&input.result_meta).unwrap_or_default();
    let document = result.document;
    Ok(DatasetRow {
        execution_id: input.execution_id,
        document_id: input.document_id,
        filename: row_filename(&input, key),
        format: meta.format.unwrap_or(input.format),
        language: meta.detected_language.unwrap_or_default(),
        quality_grade: meta.quality.and_then(|q| q.grade).unwrap_or_default(),
        pii_count: meta.pii_count.unwrap_or(0),
        pii_type_summary: meta.pii_type_summary.unwrap_or_default(),
        text: document.text.unwrap_or_default(),
        fields: if document.fields.is_object() {
            document.fields
        } else {
            serde_json::json!({})
        },
        tables: if document.tables.is_array() {
            document.tables
        } else {
            serde_json::json!([])
        },
        masked: input.masked,
        policy_version: meta.policy_version.unwrap_or(0),
        created_at: crate::clock::rfc3339(input.created_at),
    })
}

fn store_error(error: crate::store::StoreError) -> String {
    format!("database error: {error}")
}

async fn load_dataset(
    services: &ExportServices,
    tenant_id: i64,
    dataset_id: &str,
) -> Result<crate::store::DatasetRecord, String> {
    services
        .store
        .dataset(tenant_id, dataset_id)
        .await
        .map_err(store_error)?
        .ok_or_else(|| DATASET_DELETED.to_string())
}

/// Why an export or build stopped when its dataset was deleted under it.
const DATASET_DELETED: &str = "the dataset was deleted";

type RowWriter = std::io::BufWriter<std::fs::File>;

/// Turns one batch of inputs and their result blobs into canonical lines (on a blocking thread).
fn write_batch(
    (mut out, mut numbering): (RowWriter, numbering::Numbering),
    key: Option<Arc<DataKey>>,
    batch: Vec<(
        crate::store::BuildInput,
        Result<bytes::Bytes, crate::blob::BlobError>,
    )>,
) -> Result<((RowWriter, numbering::Numbering), i64), String> {
    let mut written = 0_i64;
    for (input, bytes) in batch {
        let id = input.execution_id;
        let bytes =
            bytes.map_err(|e| format!("the result of execution {id} cannot be read: {e}"))?;
        let mut row = row_of(input, &bytes, key.as_deref())?;
        numbering.apply(&mut row);
        rows::write_line(&mut out, &row).map_err(|e| e.to_string())?;
        written += 1;
    }
    Ok(((out, numbering), written))
}

/// Builds the canonical rows of a dataset (what a `dataset_build` job runs). Executions are read in
/// batches of 1,000 (one query, one batch read of their result blobs); while one batch is turned into
/// lines on a blocking thread, the next one is read.
pub async fn build_rows(
    services: &ExportServices,
    tenant_id: i64,
    dataset_id: &str,
) -> Result<Built, String> {
    use std::io::Write;
    let dataset = load_dataset(services, tenant_id, dataset_id).await?;
    services
        .store
        .set_dataset_status(dataset_id, "building", None, None)
        .await
        .map_err(store_error)?;
    let ids: Vec<i64> = serde_json::from_str(&dataset.execution_ids).unwrap_or_default();
    let tenant_key = services
        .blobs
        .tenant_key(tenant_id)
        .await
        .map_err(|e| format!("the tenant's key: {e}"))?;
    let scratch = scratch(services, "rows.jsonl")?;
    let file = std::fs::File::create(&scratch.0).map_err(|e| format!("scratch file: {e}"))?;
    let out: RowWriter = std::io::BufWriter::with_capacity(256 * 1024, file);
    // The writer, with the numbers given so far, travels between batches through the task that
    // last used it.
    let start = (out, numbering::Numbering::default());
    let mut busy = tokio::task::spawn_blocking(move || Ok::<_, String>((start, 0_i64)));
    let mut count: i64 = 0;
    for chunk in ids.chunks(1000) {
        let inputs = services
            .store
            .build_inputs(tenant_id, chunk)
            .await
            .map_err(store_error)?;
        let keys = inputs
            .iter()
            .map(|input| {
                input
                    .result_blob_key
                    .clone()
                    .ok_or_else(|| format!("execution {} has no stored result", input.execution_id))
            })
            .collect::<Result<Vec<_>, String>>()?;
        let bodies = services.blobs.get_many(keys).await;
        let (out, written) = busy
            .await
            .map_err(|e| format!("the build thread failed: {e}"))??;
        count += written;
        let batch: Vec<_> = inputs.into_iter().zip(bodies).collect();
        let key = tenant_key.clone();
        busy = tokio::task::spawn_blocking(move || write_batch(out, key, batch));
    }
    let ((mut out, _), written) = busy
        .await
        .map_err(|e| format!("the build thread failed: {e}"))??;
    count += written;
    out.flush().map_err(|e| format!("scratch file: {e}"))?;
    drop(out);
    let key = crate::blob::Keys::dataset_rows(tenant_id, dataset_id);
    services
        .blobs
        .upload_from(&key, &scratch.0)
        .await
        .map_err(|e| format!("storing the rows failed: {e}"))?;
    Ok(Built {
        row_count: count,
        schema: serde_json::json!({"columns": rows::schema_json(), "rows_blob_key": key}),
    })
}

/// Writes one export format of a built dataset to blob storage and records it.
pub async fn export_format(
    services: &ExportServices,
    tenant_id: i64,
    dataset_id: &str,
    format: ExportFormat,
) -> Result<Exported, String> {
    let dataset = load_dataset(services, tenant_id, dataset_id).await?;
    let schema: serde_json::Value = dataset
        .schema_json
        .as_deref()
        .and_then(|s| serde_json::from_str(s).ok())
        .unwrap_or_default();
    let rows_key = schema["rows_blob_key"]
        .as_str()
        .ok_or("the dataset has not been built")?
        .to_string();
    let key = Keys::dataset_export(tenant_id, dataset_id, format.extension());
    let size = if format == ExportFormat::Jsonl {
        // The canonical rows are the JSON Lines export, written by the same serializer.
        services
            .blobs
            .copy(&rows_key, &key)
            .await
            .map_err(|e| format!("storing the export failed: {e}"))?
    } else {
        // On a local store the rows file is read where it lies; otherwise it is downloaded first.
        let mut downloaded = None;
        let canonical_path = match services.blobs.local_file(&rows_key) {
            Some(path) => path,
            None => {
                let scratch = scratch(services, "rows.jsonl")?;
                services
                    .blobs
                    .download_to(&rows_key, &scratch.0)
                    .await
                    .map_err(|e| format!("reading the rows failed: {e}"))?;
                downloaded.insert(scratch).0.clone()
            }
        };
        let output = scratch(services, &format!("export.{}", format.extension()))?;
        let output_path = output.0.clone();
        let name = dataset.name.clone();
        let scratch_dir = services.scratch_dir.clone();
        tokio::task::spawn_blocking(move || {
            formats::write_export(format, &canonical_path, &output_path, &name, &scratch_dir)
        })
        .await
        .map_err(|e| format!("the export thread failed: {e}"))?
        .map_err(|e| e.to_string())?;
        services
            .blobs
            .upload_from(&key, &output.0)
            .await
            .map_err(|e| format!("storing the export failed: {e}"))?
    };
    let now = services.clock.now();
    let plan = services
        .store
        .plan_in_force(tenant_id)
        .await
        .map_err(store_error)?;
    let days = services.plans.get(plan).export_retention_days;
    let expires_at = now + chrono::Duration::days(i64::from(days));
    let recorded = services
        .store
        .record_dataset_export(crate::store::NewExport {
            tenant_id,
            dataset_id,
            format: format.name(),
            blob_key: &key,
            size_bytes: size as i64,
            created_at: now,
            expires_at,
        })
        .await
        .map_err(store_error)?;
    if !recorded {
        // Deleted while it was written: the file goes too, and the caller hears what a moment
        // later it would have.
        if let Err(error) = services.blobs.delete(&key).await {
            tracing::warn!(%error, key, "cannot delete the export of a deleted dataset");
        }
        return Err(DATASET_DELETED.to_string());
    }
    Ok(Exported {
        blob_key: key,
        size_bytes: size as i64,
    })
}

/// What a cleanup removed.
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct CleanupReport {
    pub deleted: u64,
    pub bytes: u64,
}

/// Deletes every export file past its retention time (the datasets stay; exports are written again on
/// request).
pub async fn cleanup_expired_exports(
    store: &Store,
    blobs: &Blobs,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<CleanupReport, crate::store::StoreError> {
    let mut report = CleanupReport::default();
    loop {
        let expired = store.expired_exports(now, 500).await?;
        if expired.is_empty() {
            break;
        }
        for export in expired {
            if let Err(error) = blobs.delete(&export.blob_key).await {
                tracing::warn!(%error, key = %export.blob_key, "cannot delete an expired export; will retry");
                return Ok(report);
            }
            store.forget_export(export.id).await?;
            report.deleted += 1;
            report.bytes += export.size_bytes.max(0) as u64;
        }
    }
    metrics::counter!(names::DATASET_EXPORTS_EXPIRED_TOTAL).increment(report.deleted);
    Ok(report)
}
