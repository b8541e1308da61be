//! Store micro-benchmark of the job engine (#62): on the real schema, no HTTP and no extraction, it
//! queues `--jobs` small document jobs for one tenant, then drains them with `--slots` concurrent
//! loops, each claiming a batch of `--batch` jobs (`claim_batch`) and writing their completions
//! through the completer (`finish_jobs`: executions, job states, credit settlement, usage, outbox and
//! audit entries in group transactions). Prints jobs/s for the drain, statements and group commits
//! per job. `--database-url postgres://...` runs it on a fresh database of that server (dropped
//! after); the default is a SQLite file in a temporary folder (`--dir PATH` to choose where: tmpfs
//! or ext4). `STORE_BENCH_LOG=sqlx::query=debug` logs every statement with its time on stderr.
//!
//! ```sh
//! cargo run --release --example store_bench -- --jobs 20000 --batch 32
//! cargo run --release --example store_bench -- --batch 32 --database-url postgres://postgres@127.0.0.1:5432/test
//! ```

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Utc;
use docsieve_actors::settings::PlansSettings;
use docsieve_actors::store::{
    new_id, AuditRecord, ClaimedJob, JobEnd, JobOutcome, JobPayload, JobTarget, NewDocument,
    NewExecution, NewJob, OutboxEvent, ProcessPayload, RequestedBy, Store, StoreSettings, Usage,
    Written,
};

struct Args {
    jobs: usize,
    batch: usize,
    slots: usize,
    database_url: Option<String>,
    dir: Option<std::path::PathBuf>,
}

fn args() -> Args {
    let mut args = Args {
        jobs: 20_000,
        batch: 32,
        slots: 4,
        database_url: None,
        dir: None,
    };
    let raw: Vec<String> = std::env::args().skip(1).collect();
    let mut raw = raw.into_iter();
    while let Some(flag) = raw.next() {
        let value = raw.next().unwrap_or_else(|| panic!("{flag} needs a value"));
        match flag.as_str() {
            "--jobs" => args.jobs = value.parse().expect("--jobs N"),
            "--batch" => args.batch = value.parse().expect("--batch N"),
            "--slots" => args.slots = value.parse().expect("--slots N"),
            "--database-url" => args.database_url = Some(value),
            "--dir" => args.dir = Some(value.into()),
            other => panic!("unknown argument {other}"),
        }
    }
    args
}

fn outcome(job: &ClaimedJob, now: chrono::DateTime<Utc>) -> JobOutcome {
    JobOutcome {
        job: job.clone(),
        worker: "bench".to_string(),
        end: JobEnd::Completed(NewExecution {
            document_id: job.document_id.expect("a document job"),
            masked: true,
            started_at: now,
            duration_ms: 1,
            result_blob_key: format!("results/{}", job.id),
            result_meta: serde_json::json!({"pii_count": 1, "format": "txt"}),
            // A file name and one field, sealed as the worker seals them.
            sealed_meta: Some(
                docsieve_actors::store::Sealed::seal(
                    Some(&docsieve_actors::blob::DataKey::new(
                        &[1; 32],
                        job.tenant_id,
                    )),
                    docsieve_actors::store::SealedField::ExecutionMeta,
                    r#"{"filename":"fatura-2026-11.txt","fields":{"fatura_no":"A-1"}}"#,
                )
                .expect("sealed"),
            ),
            credits: 1,
            usage: Usage {
                documents: 1,
                pages: 1,
                bytes: 170,
            },
            subjects: Vec::new(),
        }),
        events: vec![OutboxEvent {
            event: "job.completed",
            payload: serde_json::json!({"job_id": job.id, "execution_id": 0}),
        }],
        audit: Some(AuditRecord {
            tenant_id: Some(job.tenant_id),
            actor_type: "api_key",
            actor_id: Some("1".to_string()),
            action: "process",
            target_type: Some("job"),
            target_id: Some(job.id.clone()),
            outcome: "success",
            ip: None,
            details: serde_json::json!({"execution_id": 0, "document_id": job.document_id}),
        }),
        now,
    }
}

/// Statements the process sent so far, from the recorder installed below.
fn statements(handle: &metrics_exporter_prometheus::PrometheusHandle) -> f64 {
    handle
        .render()
        .lines()
        .filter(|line| line.starts_with("docsieve_db_statements_total"))
        .filter_map(|line| line.rsplit(' ').next()?.parse::<f64>().ok())
        .sum()
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let args = args();
    // `STORE_BENCH_LOG=sqlx::query=debug`: every statement with its time, on stderr.
    if let Ok(filter) = std::env::var("STORE_BENCH_LOG") {
        tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::new(filter))
            .with_writer(std::io::stderr)
            .init();
    }
    let recorder = metrics_exporter_prometheus::PrometheusBuilder::new().build_recorder();
    let handle = recorder.handle();
    metrics::set_global_recorder(recorder).expect("recorder");
    let temp = tempfile::tempdir_in(args.dir.clone().unwrap_or_else(std::env::temp_dir))
        .expect("temp dir");
    let (settings, drop_database) = match &args.database_url {
        Some(url) => {
            let name = format!("store_bench_{}", std::process::id());
            let admin = sea_orm::Database::connect(url.as_str())
                .await
                .expect("connect");
            use sea_orm::ConnectionTrait;
            admin
                .execute_unprepared(&format!("CREATE DATABASE {name}"))
                .await
                .expect("create database");
            let base = url.rsplit_once('/').map_or(url.as_str(), |(base, _)| base);
            let settings = StoreSettings {
                url: format!("{base}/{name}"),
                max_connections: 8,
                ..StoreSettings::sqlite_in(temp.path())
            };
            (settings, Some((admin, name)))
        }
        None => (
            StoreSettings {
                max_connections: 8,
                ..StoreSettings::sqlite_in(temp.path())
            },
            None,
        ),
    };
    Store::migrate(&settings).await.expect("migrate");
    let store = Store::connect(&settings).await.expect("connect");
    let now = Utc::now();
    let account = store
        .create_account("bench@example.com", "hash", "token", now, now)
        .await
        .expect("account");
    let tenant = account.tenant_id;
    store
        .open_billing_period(tenant, &PlansSettings::uniform(10_000_000), now)
        .await
        .expect("period");
    // File names are sealed as the server seals them.
    let data_key = docsieve_actors::blob::DataKey::new(&[1; 32], tenant);
    let queue_started = Instant::now();
    for chunk in (0..args.jobs).collect::<Vec<_>>().chunks(100) {
        let jobs = chunk
            .iter()
            .map(|i| NewJob {
                id: new_id("job"),
                target: JobTarget::Upload(NewDocument {
                    filename: docsieve_actors::store::Sealed::seal(
                        Some(&data_key),
                        docsieve_actors::store::SealedField::DocumentName,
                        &format!("{i}.txt"),
                    )
                    .expect("sealed"),
                    mime: "text/plain".to_string(),
                    format: "txt".to_string(),
                    size_bytes: 170,
                    sha256: "00".to_string(),
                    blob_key: format!("uploads/{i}"),
                    origin: Default::default(),
                }),
                payload: JobPayload::DataProcess(ProcessPayload {
                    masked: true,
                    reprocess: false,
                    requested_by: RequestedBy::new("api_key", "1"),
                }),
                max_attempts: 3,
            })
            .collect();
        store
            .enqueue(tenant, jobs, None, Utc::now())
            .await
            .expect("queued");
    }
    println!(
        "{} on {}: {} jobs queued in {:.2} s",
        env!("CARGO_PKG_NAME"),
        store.backend().as_str(),
        args.jobs,
        queue_started.elapsed().as_secs_f64()
    );
    let before = statements(&handle);
    let done = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let mut slots = Vec::new();
    for _ in 0..args.slots {
        let (store, done, batch) = (store.clone(), done.clone(), args.batch);
        slots.push(tokio::spawn(async move {
            loop {
                let now = Utc::now();
                let claimed = store
                    .claim_batch(
                        tenant,
                        "bench",
                        (now, now + chrono::Duration::seconds(60)),
                        batch,
                    )
                    .await
                    .expect("claim");
                if claimed.is_empty() {
                    return;
                }
                let outcomes = claimed.iter().map(|(job, _)| outcome(job, now)).collect();
                let committed = store.finish_jobs(outcomes).await;
                let completed = committed
                    .written
                    .iter()
                    .filter(|fate| matches!(fate, Ok(Written::Completed { .. })))
                    .count();
                assert_eq!(completed, claimed.len(), "{:?}", committed.written);
                done.fetch_add(completed as u64, Ordering::Relaxed);
            }
        }));
    }
    for slot in slots {
        slot.await.expect("slot");
    }
    let elapsed = started.elapsed();
    let jobs = done.load(Ordering::Relaxed) as f64;
    let rendered = handle.render();
    let series = |name: &str| -> f64 {
        rendered
            .lines()
            .find_map(|line| line.strip_prefix(name)?.trim().parse().ok())
            .unwrap_or(0.0)
    };
    let groups = series("docsieve_store_groups_total");
    println!(
        "drained {jobs:.0} jobs at a batch of {} with {} slots in {:.2} s: {:.0} jobs/s; \
         {:.2} statements per job; {} group commits ({:.1} outcomes each, {:.2} ms of write turn each)",
        args.batch,
        args.slots,
        elapsed.as_secs_f64(),
        jobs / elapsed.as_secs_f64(),
        (statements(&handle) - before) / jobs.max(1.0),
        groups,
        series("docsieve_store_group_outcomes_sum") / groups.max(1.0),
        series("docsieve_store_group_hold_seconds_sum") * 1000.0 / groups.max(1.0),
    );
    drop(store);
    tokio::time::sleep(Duration::from_millis(100)).await;
    if let Some((admin, name)) = drop_database {
        use sea_orm::ConnectionTrait;
        let _ = admin
            .execute_unprepared(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
            .await;
    }
}
