//! Dataset build benchmark, end to end below HTTP: a SQLite store and a local blob folder hold N
//! completed executions (each with a ~1.5 KB masked result document); the dataset exporter's build
//! reads them into canonical rows, then Parquet and JSON Lines are exported to blob storage. Prints the
//! seconds of each step and the peak RSS.
//!
//! `cargo bench -p docsieve-actors --bench dataset_build [-- N]` (default 100,000)

use std::time::Instant;

use bytes::Bytes;
use docsieve_actors::blob::Blobs;
use docsieve_actors::clock::Clock;
use docsieve_actors::dataset_exporter::ExportFormat;
use docsieve_actors::dataset_exporter::{build_rows, export_format, ExportServices};
use docsieve_actors::settings::{DatasetsSettings, PlansSettings};
use docsieve_actors::store::{
    new_id, BuildPayload, JobPayload, JobTarget, NewJob, Store, StoreSettings,
};
use futures_util::StreamExt;
use sea_orm::ConnectionTrait;

#[path = "common/mod.rs"]
mod common;
use common::peak_rss_mib;

#[tokio::main]
async fn main() {
    let n: usize = std::env::args()
        .skip(1)
        .find_map(|arg| arg.parse().ok())
        .unwrap_or(100_000);
    let dir = tempfile::tempdir().expect("temp dir");
    let settings = StoreSettings::sqlite_in(dir.path());
    Store::migrate(&settings).await.expect("migrate");
    let store = Store::connect(&settings).await.expect("connect");
    let blobs = Blobs::open("", dir.path()).expect("blobs");
    let clock = Clock::default();
    let now = clock.now();
    let account = store
        .create_account("bench@example.com", "x", "y", now, now)
        .await
        .expect("account");
    let tenant = account.tenant_id;

    let setup = Instant::now();
    let text = "Sayın [MASKED_PERSON_NAME], başvurunuz alınmıştır. Fatura tutarı 1.250,00 TL olup [MASKED_IBAN_TR] hesabına ödenecektir. İletişim: [MASKED_EMAIL]. ".repeat(8);
    let meta =
        serde_json::json!({"format": "docx", "detected_language": "tr", "quality": {"grade": "A"},
        "pii_count": 3, "pii_type_summary": {"email": 1, "iban_tr": 1, "person_name": 1}})
        .to_string();
    let stamp = now.to_rfc3339();
    for start in (0..n).step_by(1000) {
        let end = (start + 1000).min(n);
        let documents: Vec<String> = (start..end)
            .map(|i| format!("({}, {tenant}, 'belge-{i}.docx', 'application/x', 'docx', 1000, 'h', 'upload', 'k', '{stamp}')", i + 1))
            .collect();
        store.connection().execute_unprepared(&format!(
            "INSERT INTO documents (id, tenant_id, filename, mime, format, size_bytes, sha256, source, blob_key, created_at) VALUES {}",
            documents.join(", ")
        )).await.expect("documents");
        let executions: Vec<String> = (start..end)
            .map(|i| format!("({}, {tenant}, {}, 'completed', 1, '{stamp}', '{stamp}', 10, 'bench/r{i}.json', '{}', 0, '{stamp}')", i + 1, i + 1, meta.replace('\'', "''")))
            .collect();
        store.connection().execute_unprepared(&format!(
            "INSERT INTO executions (id, tenant_id, document_id, status, masked, started_at, finished_at, duration_ms, result_blob_key, result_meta, cross_validation_flag, created_at) VALUES {}",
            executions.join(", ")
        )).await.expect("executions");
        let writes = (start..end).map(|i| {
            let blobs = blobs.clone();
            let body = serde_json::json!({"document": {"text": format!("{i}: {text}"), "fields": {"invoice": format!("F-{i}")}, "tables": []}}).to_string();
            async move { blobs.put(&format!("bench/r{i}.json"), Bytes::from(body)).await }
        });
        futures_util::stream::iter(writes)
            .buffer_unordered(64)
            .for_each(|r| async {
                r.expect("blob");
            })
            .await;
    }
    println!(
        "setup: {n} executions and result blobs in {:.1} s",
        setup.elapsed().as_secs_f64()
    );

    let ids: Vec<i64> = (1..=n as i64).collect();
    let dataset_id = new_id("ds");
    store
        .enqueue(
            tenant,
            vec![NewJob {
                id: new_id("job"),
                target: JobTarget::NewDataset {
                    id: dataset_id.clone(),
                    name: "bench".to_string(),
                    execution_ids: ids,
                },
                payload: JobPayload::DatasetBuild(BuildPayload::default()),
                max_attempts: 3,
            }],
            None,
            now,
        )
        .await
        .expect("dataset");
    let services = ExportServices {
        store: store.clone(),
        blobs: blobs.clone(),
        clock: clock.clone(),
        settings: DatasetsSettings {
            max_executions: n,
            retention_days_trial: None,
            retention_days_starter: None,
            retention_days_pro: None,
            retention_days_enterprise: None,
            cleanup_interval_seconds: 86_400,
        },
        plans: PlansSettings::uniform(0),
        scratch_dir: dir.path().join("tmp"),
    };
    let rss_before = peak_rss_mib();
    let started = Instant::now();
    let built = build_rows(&services, tenant, &dataset_id)
        .await
        .expect("build");
    println!(
        "build: {} rows in {:.2} s ({:.0} rows/s), peak RSS {:.0} MiB (after setup {:.0} MiB)",
        built.row_count,
        started.elapsed().as_secs_f64(),
        built.row_count as f64 / started.elapsed().as_secs_f64(),
        peak_rss_mib(),
        rss_before
    );
    store
        .connection()
        .execute_unprepared(&format!(
            "UPDATE datasets SET status = 'ready', row_count = {}, schema_json = '{}' WHERE id = '{dataset_id}'",
            built.row_count,
            built.schema.to_string().replace('\'', "''")
        ))
        .await
        .expect("ready");
    for format in [ExportFormat::Parquet, ExportFormat::Jsonl] {
        let started = Instant::now();
        let exported = export_format(&services, tenant, &dataset_id, format)
            .await
            .expect("export");
        println!(
            "export {:<8}: {:.2} s, {:.1} MB, peak RSS {:.0} MiB",
            format.name(),
            started.elapsed().as_secs_f64(),
            exported.size_bytes as f64 / 1e6,
            peak_rss_mib()
        );
    }
}
