//! Every metric name docsieve emits, in one place. Dashboards and alert rules query exactly these.
//!
//! Names are prefixed `docsieve_`, use base units, and counters end in `_total`. Histogram buckets are
//! declared next to the name so the exporter never falls back to summaries.

pub const BUILD_INFO: &str = "docsieve_build_info";
pub const HTTP_REQUESTS_TOTAL: &str = "docsieve_http_requests_total";
pub const HTTP_REQUEST_DURATION_SECONDS: &str = "docsieve_http_request_duration_seconds";
pub const HTTP_REQUESTS_IN_FLIGHT: &str = "docsieve_http_requests_in_flight";
pub const ACTOR_MAILBOX_DEPTH: &str = "docsieve_actor_mailbox_depth";
pub const ACTOR_MAILBOX_CAPACITY: &str = "docsieve_actor_mailbox_capacity";
pub const ACTOR_RESTARTS_TOTAL: &str = "docsieve_actor_restarts_total";
pub const ACTOR_PANICS_TOTAL: &str = "docsieve_actor_panics_total";
pub const WRITER_PANICS_TOTAL: &str = "docsieve_writer_panics_total";
pub const ACTOR_REJECTED_TOTAL: &str = "docsieve_actor_rejected_total";
pub const ACTOR_HEARTBEAT_AGE_SECONDS: &str = "docsieve_actor_heartbeat_age_seconds";
pub const ACTOR_POOL_SIZE: &str = "docsieve_actor_pool_size";
pub const HTTP_WORKERS: &str = "docsieve_http_workers";
pub const AVAILABLE_CORES: &str = "docsieve_available_cores";
pub const DATABASE_UP: &str = "docsieve_database_up";
pub const DATABASE_PING_SECONDS: &str = "docsieve_database_ping_seconds";
pub const REDIS_UP: &str = "docsieve_redis_up";
pub const POOL_SIZE: &str = "docsieve_pool_size";
pub const POOL_BUSY: &str = "docsieve_pool_busy";
pub const EXTRACTION_WORKERS_STARTED_TOTAL: &str = "docsieve_extraction_workers_started_total";
pub const EXTRACTION_WORKER_CRASHES_TOTAL: &str = "docsieve_extraction_worker_crashes_total";
pub const EXTRACTION_WORKER_TIMEOUTS_TOTAL: &str = "docsieve_extraction_worker_timeouts_total";
pub const JOBS_ENQUEUED_TOTAL: &str = "docsieve_jobs_enqueued_total";
pub const DB_STATEMENTS_TOTAL: &str = "docsieve_db_statements_total";
pub const STORE_GROUPS_TOTAL: &str = "docsieve_store_groups_total";
pub const STORE_GROUP_OUTCOMES: &str = "docsieve_store_group_outcomes";
pub const STORE_GROUP_HOLD_SECONDS: &str = "docsieve_store_group_hold_seconds";
pub const JOB_BATCH_SIZE: &str = "docsieve_job_batch_size";
pub const JOBS_FINISHED_TOTAL: &str = "docsieve_jobs_finished_total";
pub const JOB_DURATION_SECONDS: &str = "docsieve_job_duration_seconds";
pub const JOBS_QUEUE_DEPTH: &str = "docsieve_jobs_queue_depth";
pub const JOBS_OLDEST_QUEUED_AGE_SECONDS: &str = "docsieve_jobs_oldest_queued_age_seconds";
/// The memory estimate this process holds its budget for (the oldest large job, waiting for it to
/// fit), in bytes; 0 when none.
pub const JOBS_MEMORY_RESERVED_BYTES: &str = "docsieve_jobs_memory_reserved_bytes";
pub const JOB_WORKERS: &str = "docsieve_job_workers";
pub const JOB_WORKERS_BUSY: &str = "docsieve_job_workers_busy";
pub const JOB_LEASES_REAPED_TOTAL: &str = "docsieve_job_leases_reaped_total";
pub const UPLOADS_REJECTED_TOTAL: &str = "docsieve_uploads_rejected_total";
pub const WEBHOOK_DELIVERIES_TOTAL: &str = "docsieve_webhook_deliveries_total";
pub const WEBHOOK_DELIVERY_DURATION_SECONDS: &str = "docsieve_webhook_delivery_duration_seconds";
pub const DATASET_EXPORTS_TOTAL: &str = "docsieve_dataset_exports_total";
pub const DATASET_EXPORT_BYTES_TOTAL: &str = "docsieve_dataset_export_bytes_total";
pub const DATASET_EXPORTS_EXPIRED_TOTAL: &str = "docsieve_dataset_exports_expired_total";
pub const DATASET_BUILD_DURATION_SECONDS: &str = "docsieve_dataset_build_duration_seconds";
pub const CREDITS_GRANTED_TOTAL: &str = "docsieve_credits_granted_total";
pub const CREDITS_DEBITED_TOTAL: &str = "docsieve_credits_debited_total";
pub const CREDITS_EXPIRED_TOTAL: &str = "docsieve_credits_expired_total";
pub const CREDITS_REFUSED_TOTAL: &str = "docsieve_credits_refused_total";
pub const BILLING_PERIODS_OPENED_TOTAL: &str = "docsieve_billing_periods_opened_total";
pub const BILLING_PERIODS_CLOSED_TOTAL: &str = "docsieve_billing_periods_closed_total";
pub const BILLING_CYCLE_RUNS_TOTAL: &str = "docsieve_billing_cycle_runs_total";
pub const SCHEDULED_RUNS_TOTAL: &str = "docsieve_scheduled_runs_total";
pub const FINE_TUNE_JOBS_TOTAL: &str = "docsieve_fine_tune_jobs_total";
pub const FINE_TUNE_JOBS: &str = "docsieve_fine_tune_jobs";
pub const FINE_TUNE_PROVIDER_CALLS_TOTAL: &str = "docsieve_fine_tune_provider_calls_total";
pub const CONNECTOR_SYNCS_TOTAL: &str = "docsieve_connector_syncs_total";
pub const CONNECTOR_OBJECTS_LISTED_TOTAL: &str = "docsieve_connector_objects_listed_total";
pub const CONNECTOR_OBJECTS_QUEUED_TOTAL: &str = "docsieve_connector_objects_queued_total";
pub const CONNECTOR_OBJECTS_SKIPPED_TOTAL: &str = "docsieve_connector_objects_skipped_total";
pub const CONNECTOR_ERRORS_TOTAL: &str = "docsieve_connector_errors_total";
pub const CONNECTOR_BYTES_FETCHED_TOTAL: &str = "docsieve_connector_bytes_fetched_total";
pub const CONNECTOR_EXPORTS_TOTAL: &str = "docsieve_connector_exports_total";

/// Job durations (claim to completion): 10 ms to 10 min.
pub const JOB_DURATION_BUCKETS: &[f64] = &[
    0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0, 600.0,
];

/// Request latencies: 1 ms to 30 s.
pub const HTTP_DURATION_BUCKETS: &[f64] = &[
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
];

/// Database ping: 100 µs to 1 s.
pub const DATABASE_PING_BUCKETS: &[f64] =
    &[0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1.0];

/// Outcomes in one group commit, jobs in one claimed batch: 1 to 256.
pub const GROUP_SIZE_BUCKETS: &[f64] = &[1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0];

/// Every histogram with its buckets, for the exporter's set-up.
pub const HISTOGRAMS: &[(&str, &[f64])] = &[
    (HTTP_REQUEST_DURATION_SECONDS, HTTP_DURATION_BUCKETS),
    (DATABASE_PING_SECONDS, DATABASE_PING_BUCKETS),
    (JOB_DURATION_SECONDS, JOB_DURATION_BUCKETS),
    (DATASET_BUILD_DURATION_SECONDS, JOB_DURATION_BUCKETS),
    (WEBHOOK_DELIVERY_DURATION_SECONDS, HTTP_DURATION_BUCKETS),
    (STORE_GROUP_OUTCOMES, GROUP_SIZE_BUCKETS),
    (STORE_GROUP_HOLD_SECONDS, DATABASE_PING_BUCKETS),
    (JOB_BATCH_SIZE, GROUP_SIZE_BUCKETS),
];
