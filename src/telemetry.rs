//! Logs (tracing, text or JSON on stderr) and the Prometheus recorder.

use std::time::Duration;

use docsieve_actors::metric_names;
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

use crate::config::LogSettings;

/// Installs the global tracing subscriber. Logs go to stderr so stdout stays for the CLI's output.
pub fn init_logging(settings: &LogSettings) {
    let filter = tracing_subscriber::EnvFilter::try_new(&settings.level)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    // Colour codes only when a person reads a terminal; never in files, pipes or collectors.
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_writer(std::io::stderr);
    let _ = if settings.format == "json" {
        builder
            .json()
            .flatten_event(true)
            .with_current_span(true)
            .try_init()
    } else {
        builder.try_init()
    };
    // Panics are caught and turned into errors by the actor runtime; log them through tracing so
    // they land in the same stream with the same format.
    std::panic::set_hook(Box::new(|info| {
        let location = info
            .location()
            .map(|l| format!("{}:{}", l.file(), l.line()))
            .unwrap_or_default();
        tracing::error!(panic = %docsieve_panic_message(info), %location, "panic");
    }));
}

fn docsieve_panic_message(info: &std::panic::PanicHookInfo<'_>) -> String {
    if let Some(text) = info.payload().downcast_ref::<&str>() {
        (*text).to_string()
    } else if let Some(text) = info.payload().downcast_ref::<String>() {
        text.clone()
    } else {
        "non-string panic payload".to_string()
    }
}

/// Installs the process-wide Prometheus recorder with explicit buckets for every histogram.
pub fn install_metrics() -> anyhow::Result<PrometheusHandle> {
    let mut builder = PrometheusBuilder::new();
    for (name, buckets) in metric_names::HISTOGRAMS {
        builder = builder.set_buckets_for_metric(Matcher::Full((*name).to_string()), buckets)?;
    }
    let handle = builder.install_recorder()?;
    metrics::describe_counter!(
        metric_names::HTTP_REQUESTS_TOTAL,
        "HTTP requests by method, route template and status"
    );
    metrics::describe_histogram!(
        metric_names::HTTP_REQUEST_DURATION_SECONDS,
        metrics::Unit::Seconds,
        "HTTP request latency by method and route template"
    );
    metrics::describe_gauge!(
        metric_names::HTTP_REQUESTS_IN_FLIGHT,
        "HTTP requests being served"
    );
    metrics::describe_gauge!(
        metric_names::BUILD_INFO,
        "Always 1; labels carry version and backends"
    );
    metrics::describe_gauge!(
        metric_names::ACTOR_MAILBOX_DEPTH,
        "Requests waiting for or running in an actor"
    );
    metrics::describe_gauge!(
        metric_names::ACTOR_MAILBOX_CAPACITY,
        "Configured mailbox capacity of an actor"
    );
    metrics::describe_gauge!(
        metric_names::ACTOR_POOL_SIZE,
        "Pool size in force of an actor (0 in the configuration: sized from the cores)"
    );
    metrics::describe_gauge!(
        metric_names::HTTP_WORKERS,
        "HTTP worker threads in force (server.workers; 0 in the configuration: one per core)"
    );
    metrics::describe_gauge!(
        metric_names::AVAILABLE_CORES,
        "CPU cores this process may use (its CPU affinity and cgroup quota)"
    );
    metrics::describe_counter!(
        metric_names::ACTOR_RESTARTS_TOTAL,
        "Actor restarts after a panic"
    );
    metrics::describe_counter!(
        metric_names::ACTOR_PANICS_TOTAL,
        "Panics caught inside actors"
    );
    metrics::describe_counter!(
        metric_names::WRITER_PANICS_TOTAL,
        "Batches whose write panicked in one of the store's batching writers (their callers got an error; the writer went on)"
    );
    metrics::describe_counter!(
        metric_names::ACTOR_REJECTED_TOTAL,
        "Requests refused because an actor was at capacity"
    );
    metrics::describe_gauge!(
        metric_names::ACTOR_HEARTBEAT_AGE_SECONDS,
        metrics::Unit::Seconds,
        "Time since an actor's last heartbeat"
    );
    metrics::describe_gauge!(
        metric_names::DATABASE_UP,
        "1 when the last database ping succeeded"
    );
    metrics::describe_histogram!(
        metric_names::DATABASE_PING_SECONDS,
        metrics::Unit::Seconds,
        "Database round-trip time of health checks"
    );
    metrics::describe_histogram!(
        metric_names::STORE_GROUP_HOLD_SECONDS,
        metrics::Unit::Seconds,
        "How long one group transaction of job outcomes held the write turn, from BEGIN to COMMIT"
    );
    metrics::describe_histogram!(
        metric_names::STORE_GROUP_OUTCOMES,
        "Job outcomes written by one group transaction"
    );
    metrics::describe_histogram!(
        metric_names::JOB_BATCH_SIZE,
        "Jobs taken by one claim (small-lane batches; large-lane claims take one)"
    );
    metrics::describe_gauge!(
        metric_names::REDIS_UP,
        "1 when the last Redis ping succeeded"
    );
    for (name, help) in [
        (
            metric_names::JOBS_ENQUEUED_TOTAL,
            "Jobs queued, by job type",
        ),
        (
            metric_names::DB_STATEMENTS_TOTAL,
            "SQL statements this process sent to the database, by kind (read: SELECT; write: INSERT, UPDATE, DELETE and the rest)",
        ),
        (
            metric_names::JOBS_FINISHED_TOTAL,
            "Job attempts that ended, by job type and outcome",
        ),
        (
            metric_names::STORE_GROUPS_TOTAL,
            "Group transactions the completer committed (each writes every job outcome that was waiting)",
        ),
        (
            metric_names::JOB_LEASES_REAPED_TOTAL,
            "Jobs whose lease expired, requeued or failed",
        ),
        (
            metric_names::UPLOADS_REJECTED_TOTAL,
            "Uploaded files listed in `rejected`, by code",
        ),
        (
            metric_names::DATASET_EXPORTS_TOTAL,
            "Dataset export files written, by format and outcome",
        ),
        (
            metric_names::DATASET_EXPORT_BYTES_TOTAL,
            "Bytes of dataset export files written, by format",
        ),
        (
            metric_names::DATASET_EXPORTS_EXPIRED_TOTAL,
            "Export files deleted by the retention cleanup",
        ),
        (
            metric_names::WEBHOOK_DELIVERIES_TOTAL,
            "Webhook delivery attempts, by outcome",
        ),
        (
            metric_names::EXTRACTION_WORKERS_STARTED_TOTAL,
            "Extraction worker processes started",
        ),
        (
            metric_names::EXTRACTION_WORKER_CRASHES_TOTAL,
            "Extraction worker processes that died reading a document",
        ),
        (
            metric_names::EXTRACTION_WORKER_TIMEOUTS_TOTAL,
            "Extraction worker processes killed at a document's time limit",
        ),
        (
            crate::mail::MAIL_TOTAL,
            "Mails sent or given up, by kind and outcome",
        ),
        (
            metric_names::CONNECTOR_SYNCS_TOTAL,
            "Connector syncs (scheduled and triggered), by outcome (succeeded, failed)",
        ),
        (
            metric_names::CONNECTOR_OBJECTS_LISTED_TOTAL,
            "Objects listed in connectors' buckets, by connector type",
        ),
        (
            metric_names::CONNECTOR_OBJECTS_QUEUED_TOTAL,
            "Connector objects queued for processing, by connector type",
        ),
        (
            metric_names::CONNECTOR_OBJECTS_SKIPPED_TOTAL,
            "Connector objects a sync skipped because the same version was taken before",
        ),
        (
            metric_names::CONNECTOR_ERRORS_TOTAL,
            "Failures talking to a storage provider, by code (bad_credentials, bucket_not_found, permission_denied, object_not_found, unreachable, timeout, provider_error, target_refused)",
        ),
        (
            metric_names::CONNECTOR_BYTES_FETCHED_TOTAL,
            "Bytes read from storage connectors, by connector type",
        ),
        (
            metric_names::CONNECTOR_EXPORTS_TOTAL,
            "Dataset exports written to connectors (auto_export), by outcome",
        ),
        (
            metric_names::CREDITS_GRANTED_TOTAL,
            "Credits granted by opened billing periods",
        ),
        (
            metric_names::CREDITS_DEBITED_TOTAL,
            "Credits debited for processed pages",
        ),
        (
            metric_names::CREDITS_EXPIRED_TOTAL,
            "Unused credits expired when their period closed",
        ),
        (
            metric_names::CREDITS_REFUSED_TOTAL,
            "Uploads and previews refused with 402 insufficient_credits",
        ),
        (
            metric_names::BILLING_PERIODS_OPENED_TOTAL,
            "Billing periods opened, by plan",
        ),
        (
            metric_names::BILLING_PERIODS_CLOSED_TOTAL,
            "Billing periods closed",
        ),
        (
            metric_names::BILLING_CYCLE_RUNS_TOTAL,
            "Billing cycles run, by trigger (clock or api)",
        ),
        (
            metric_names::SCHEDULED_RUNS_TOTAL,
            "Runs of the scheduler's timed duties, by duty and trigger (firing: claimed once across processes; start: this process's start)",
        ),
        (
            metric_names::FINE_TUNE_JOBS_TOTAL,
            "Fine-tune jobs that reached a status, by status",
        ),
        (
            metric_names::FINE_TUNE_PROVIDER_CALLS_TOTAL,
            "Calls to the fine-tuning provider, by call and outcome",
        ),
    ] {
        metrics::describe_counter!(name, help);
    }
    for (name, help) in [
        (
            metric_names::JOBS_QUEUE_DEPTH,
            "Jobs queued and running, all tenants",
        ),
        (
            metric_names::JOBS_OLDEST_QUEUED_AGE_SECONDS,
            "Age of the oldest queued job in seconds",
        ),
        (
            metric_names::JOBS_MEMORY_RESERVED_BYTES,
            "Memory estimate this process holds its job budget for (the oldest large job, until it fits); 0 when none",
        ),
        (
            metric_names::FINE_TUNE_JOBS,
            "Fine-tune jobs by status, all tenants",
        ),
        (
            metric_names::JOB_WORKERS,
            "Job router slots in this process, both lanes (a small-lane slot runs a batch)",
        ),
        (
            metric_names::JOB_WORKERS_BUSY,
            "Job router slots in use (a batch or a job each)",
        ),
        (
            metric_names::POOL_SIZE,
            "Threads of a CPU pool (extractor, masker)",
        ),
        (metric_names::POOL_BUSY, "Busy threads of a CPU pool"),
    ] {
        metrics::describe_gauge!(name, help);
    }
    for (name, help) in [
        (
            metric_names::JOB_DURATION_SECONDS,
            "Job run time from claim to result",
        ),
        (
            metric_names::DATASET_BUILD_DURATION_SECONDS,
            "Dataset build time",
        ),
        (
            metric_names::WEBHOOK_DELIVERY_DURATION_SECONDS,
            "Webhook request time",
        ),
    ] {
        metrics::describe_histogram!(name, metrics::Unit::Seconds, help);
    }
    Ok(handle)
}

/// Drains histogram buffers periodically; the exporter does not do it by itself.
pub fn spawn_upkeep(handle: PrometheusHandle, every: Duration) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut interval = tokio::time::interval(every);
        loop {
            interval.tick().await;
            handle.run_upkeep();
        }
    })
}
