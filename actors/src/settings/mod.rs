//! The configuration this crate reads. The binary embeds these structs in its `Settings`, so every key
//! here appears (documented, with its default) in `config/default.toml` under `[actors]`.

use serde::{Deserialize, Serialize};

mod outbound;
mod plans;
pub use outbound::{
    ConnectorsSettings, FineTuneSettings, LlmSettings, OssMetricsSettings, OssSource,
};
pub use plans::{BillingSettings, Plan, PlanSettings, PlansSettings};

/// Pool size and mailbox capacity of one actor.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ActorSettings {
    /// How many units of work the actor runs at once (CPU threads for the pools, concurrent tasks for the
    /// others).
    pub pool_size: usize,
    /// How many requests may wait for the actor; beyond it callers get "overloaded" (HTTP 503).
    pub mailbox_capacity: usize,
}

/// The largest pool an actor may be given.
const MAX_POOL_SIZE: usize = 1024;

/// The `[actors]` section.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ActorsSettings {
    pub heartbeat_interval_ms: u64,
    pub call_timeout_ms: u64,
    pub restart_backoff_initial_ms: u64,
    pub restart_backoff_max_ms: u64,
    pub job_router: ActorSettings,
    pub extractor_pool: ActorSettings,
    pub pii_masker: ActorSettings,
    pub dataset_exporter: ActorSettings,
    pub scheduler: ActorSettings,
    pub webhook_sender: ActorSettings,
    pub fine_tuner: ActorSettings,
    /// The removed `billing_clock` actor's section (the scheduler runs the billing cycle now): still
    /// accepted so that an older config starts, and ignored.
    #[serde(default, skip_serializing)]
    pub billing_clock: Option<serde::de::IgnoredAny>,
}

/// The CPU cores this process may use: its CPU affinity (`taskset`, a container's cpuset) and its
/// cgroup's CPU quota, as `std::thread::available_parallelism` reads them; 1 when they cannot be read.
pub fn available_cores() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
}

impl ActorsSettings {
    /// Gives the pools whose size is 0 their size for `cores` cores; explicit sizes are kept. One
    /// thread per core for the two CPU pools (`extractor_pool`, `pii_masker`), and two jobs per core
    /// for `job_router`, so that while one job waits on the database or the blob store another keeps
    /// the pools busy. Called once at load, so that `print-config`, `/metrics` and the actors all see
    /// the sizes in force.
    pub fn size_pools(&mut self, cores: usize) {
        let cores = cores.max(1);
        for (pool, per_core) in [
            (&mut self.job_router, 2),
            (&mut self.extractor_pool, 1),
            (&mut self.pii_masker, 1),
        ] {
            if pool.pool_size == 0 {
                pool.pool_size = (cores * per_core).min(MAX_POOL_SIZE);
            }
        }
    }

    /// Each actor's settings with the config key that holds them, in start order.
    pub fn named(&self) -> [(&'static str, &ActorSettings); 7] {
        [
            ("job_router", &self.job_router),
            ("extractor_pool", &self.extractor_pool),
            ("pii_masker", &self.pii_masker),
            ("dataset_exporter", &self.dataset_exporter),
            ("scheduler", &self.scheduler),
            ("webhook_sender", &self.webhook_sender),
            ("fine_tuner", &self.fine_tuner),
        ]
    }

    /// Checks every value; the error names the offending key.
    pub fn validate(&self) -> Result<(), String> {
        for (name, actor) in self.named() {
            if actor.pool_size == 0 || actor.pool_size > MAX_POOL_SIZE {
                return Err(format!(
                    "actors.{name}.pool_size must be between 1 and {MAX_POOL_SIZE} (0, one per core, \
                     only for job_router, extractor_pool and pii_masker), got {}",
                    actor.pool_size
                ));
            }
            if actor.mailbox_capacity == 0 || actor.mailbox_capacity > 1_000_000 {
                return Err(format!(
                    "actors.{name}.mailbox_capacity must be between 1 and 1000000, got {}",
                    actor.mailbox_capacity
                ));
            }
        }
        let positive = [
            ("heartbeat_interval_ms", self.heartbeat_interval_ms),
            ("call_timeout_ms", self.call_timeout_ms),
            (
                "restart_backoff_initial_ms",
                self.restart_backoff_initial_ms,
            ),
            ("restart_backoff_max_ms", self.restart_backoff_max_ms),
        ];
        for (key, value) in positive {
            if value == 0 {
                return Err(format!("actors.{key} must be greater than 0"));
            }
        }
        if self.restart_backoff_max_ms < self.restart_backoff_initial_ms {
            return Err(
                "actors.restart_backoff_max_ms must not be smaller than actors.restart_backoff_initial_ms"
                    .to_string(),
            );
        }
        Ok(())
    }
}

/// The `[jobs]` section: how the job router shares the queue between tenants and survives crashes.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct JobsSettings {
    /// Whether this process runs jobs. False: it accepts and queues work but claims none (an API-only
    /// process in front of others that share its database and run the jobs).
    #[serde(default = "runs_jobs")]
    pub run_jobs: bool,
    /// Most jobs of one tenant running at once in this process (the round-robin takes the next tenant
    /// when a tenant is at its cap).
    pub per_tenant_concurrency: usize,
    /// Most queued jobs one tenant may have; uploads beyond it get 429 with Retry-After.
    pub max_queued_per_tenant: u64,
    /// How long a claim is valid without renewal; a job whose lease expired is claimed again.
    pub lease_seconds: u64,
    /// How often a process renews the leases of the jobs it runs (one statement for all of them), in
    /// milliseconds (well under `lease_seconds`).
    pub lease_renew_interval_ms: u64,
    /// Claims per job before it fails with `exhausted_retries`.
    pub max_attempts: u32,
    /// How often the router looks for work and expired leases when nothing woke it, in milliseconds.
    pub poll_interval_ms: u64,
    /// Largest single uploaded file, in bytes (bigger ones are listed in `rejected`).
    pub max_file_bytes: u64,
    /// Most files in one async upload request.
    pub max_files_per_request: usize,
    /// Age after which a stored upload that no document refers to is an orphan (its request died
    /// between storing the file and queueing its job), in seconds: swept at start, once more this
    /// long after, then daily. Longer than any upload request takes.
    #[serde(default = "orphan_grace_seconds")]
    pub orphan_grace_seconds: u64,
    /// How often the destruction run looks for originals and results past their retention, in
    /// seconds (KVKK asks for a periodic destruction at most every six months; daily by default).
    #[serde(default = "retention_interval_seconds")]
    pub retention_interval_seconds: u64,
    /// Days between a tenant's closure (`DELETE /v1/tenant`) and its purge; the owner may restore it
    /// until then.
    #[serde(default = "closure_grace_days")]
    pub closure_grace_days: u64,
    /// Memory this process's running jobs may hold at once, in MiB, by their documents' estimates
    /// (size times a factor of their format): a job that would pass it stays queued until running
    /// ones end; one larger than the whole budget runs alone. 0: no budget.
    #[serde(default = "memory_budget_mb")]
    pub memory_budget_mb: u64,
    /// How long the oldest queued large job may wait for the memory budget before it holds it, in
    /// seconds: from then on this process claims nothing else (small jobs included) until the job
    /// fits, so that a stream of small jobs cannot keep it waiting forever. Its wait is then bounded
    /// by the running jobs' time limits, and its status says so (`waiting`).
    #[serde(default = "reserve_after_seconds")]
    pub reserve_after_seconds: u64,
    /// Documents up to this size, in bytes, go to the small lane (PDFs and images never do: their pages
    /// may need OCR): claimed up to `batch_max_jobs` at a
    /// time per tenant, one slot running the whole batch, their outcomes written in one group commit.
    /// Larger ones (and dataset builds) have a lane and slots of their own, one job per slot.
    #[serde(default = "small_max_bytes")]
    pub small_max_bytes: u64,
    /// Most small-lane jobs one claim takes (1: no batches).
    #[serde(default = "batch_max_jobs")]
    pub batch_max_jobs: usize,
}

fn memory_budget_mb() -> u64 {
    1024
}

fn reserve_after_seconds() -> u64 {
    10
}

fn small_max_bytes() -> u64 {
    64 * 1024
}

fn batch_max_jobs() -> usize {
    32
}

fn runs_jobs() -> bool {
    true
}

fn orphan_grace_seconds() -> u64 {
    600
}

fn retention_interval_seconds() -> u64 {
    86_400
}

fn closure_grace_days() -> u64 {
    30
}

impl JobsSettings {
    pub fn validate(&self) -> Result<(), String> {
        let checks: [(&str, u64, u64, u64); 14] = [
            (
                "per_tenant_concurrency",
                self.per_tenant_concurrency as u64,
                1,
                1024,
            ),
            (
                "max_queued_per_tenant",
                self.max_queued_per_tenant,
                1,
                100_000_000,
            ),
            ("lease_seconds", self.lease_seconds, 2, 86_400),
            ("max_attempts", u64::from(self.max_attempts), 1, 100),
            ("poll_interval_ms", self.poll_interval_ms, 10, 600_000),
            ("orphan_grace_seconds", self.orphan_grace_seconds, 0, 86_400),
            ("closure_grace_days", self.closure_grace_days, 0, 365),
            (
                "retention_interval_seconds",
                self.retention_interval_seconds,
                1,
                15_552_000,
            ),
            ("memory_budget_mb", self.memory_budget_mb, 0, 1 << 30),
            (
                "reserve_after_seconds",
                self.reserve_after_seconds,
                0,
                86_400,
            ),
            ("small_max_bytes", self.small_max_bytes, 0, 16 << 20),
            ("batch_max_jobs", self.batch_max_jobs as u64, 1, 1024),
            ("max_file_bytes", self.max_file_bytes, 1, 1 << 40),
            (
                "max_files_per_request",
                self.max_files_per_request as u64,
                1,
                10_000,
            ),
        ];
        for (key, value, min, max) in checks {
            if value < min || value > max {
                return Err(format!(
                    "jobs.{key} must be between {min} and {max}, got {value}"
                ));
            }
        }
        if self.lease_renew_interval_ms == 0
            || self.lease_renew_interval_ms >= self.lease_seconds * 1000
        {
            return Err(format!(
                "jobs.lease_renew_interval_ms must be greater than 0 and smaller than jobs.lease_seconds * 1000, got {}",
                self.lease_renew_interval_ms
            ));
        }
        Ok(())
    }
}

/// The `[datasets]` section: build limits and the export cleanup.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DatasetsSettings {
    /// Most executions in one dataset.
    pub max_executions: usize,
    /// Deprecated: `plans.<plan>.export_retention_days`. Still read (with a warning at start) and,
    /// when set, take the place of the plan's value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retention_days_trial: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retention_days_starter: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retention_days_pro: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retention_days_enterprise: Option<u32>,
    /// How often the scheduler runs the export cleanup, in seconds (default daily).
    pub cleanup_interval_seconds: u64,
}

impl DatasetsSettings {
    /// Moves the deprecated `retention_days_*` keys into the plans; one warning per key found.
    pub fn move_deprecated_keys(&mut self, plans: &mut PlansSettings) -> Vec<String> {
        let mut warnings = Vec::new();
        for (plan, old) in [
            (Plan::Trial, self.retention_days_trial.take()),
            (Plan::Starter, self.retention_days_starter.take()),
            (Plan::Pro, self.retention_days_pro.take()),
            (Plan::Enterprise, self.retention_days_enterprise.take()),
        ] {
            if let Some(days) = old {
                plans.get_mut(plan).export_retention_days = days;
                warnings.push(format!(
                    "datasets.retention_days_{plan} is deprecated; it was read as plans.{plan}.export_retention_days = {days}. Move it there."
                ));
            }
        }
        warnings
    }

    pub fn validate(&self) -> Result<(), String> {
        if self.max_executions == 0 || self.max_executions > 10_000_000 {
            return Err(format!(
                "datasets.max_executions must be between 1 and 10000000, got {}",
                self.max_executions
            ));
        }
        if self.cleanup_interval_seconds < 60 {
            return Err("datasets.cleanup_interval_seconds must be at least 60".to_string());
        }
        Ok(())
    }
}

/// The `[webhooks]` section: delivery of job and dataset events.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct WebhooksSettings {
    /// Allow webhook URLs that point at private, loopback or link-local addresses (off: SSRF guard).
    pub allow_private_targets: bool,
    /// How long a receiver has to answer, in milliseconds.
    pub timeout_ms: u64,
    /// Attempts per event (the first one plus retries).
    pub max_attempts: u32,
    /// Delay before the first retry, in milliseconds; doubles for each further retry.
    pub retry_backoff_ms: u64,
    /// How often the sender looks for due deliveries when nothing woke it, in milliseconds.
    pub poll_interval_ms: u64,
}

impl WebhooksSettings {
    pub fn validate(&self) -> Result<(), String> {
        let checks: [(&str, u64, u64, u64); 4] = [
            ("timeout_ms", self.timeout_ms, 100, 120_000),
            ("max_attempts", u64::from(self.max_attempts), 1, 20),
            ("retry_backoff_ms", self.retry_backoff_ms, 10, 86_400_000),
            ("poll_interval_ms", self.poll_interval_ms, 10, 600_000),
        ];
        for (key, value, min, max) in checks {
            if value < min || value > max {
                return Err(format!(
                    "webhooks.{key} must be between {min} and {max}, got {value}"
                ));
            }
        }
        Ok(())
    }
}
