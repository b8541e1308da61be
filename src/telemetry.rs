//! Logs (tracing, text or JSON on stderr) and the Prometheus recorder.

use std::time::Duration;

use docsieve_actors::metric_names;
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

use crate::config::LogSettings;

/// Installs the global tracing subscriber. Logs go to stderr so stdout stays for the CLI's output.
pub fn init_logging(settings: &LogSettings) {
    let filter = tracing_subscriber::EnvFilter::try_new(&settings.level)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
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
        "Configured pool size of an actor"
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
    metrics::describe_gauge!(
        metric_names::REDIS_UP,
        "1 when the last Redis ping succeeded"
    );
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
