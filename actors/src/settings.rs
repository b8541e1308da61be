//! The configuration this crate reads. The binary embeds these structs in its `Settings`, so every key
//! here appears (documented, with its default) in `config/default.toml` under `[actors]`.

use serde::{Deserialize, Serialize};

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
    pub billing_clock: ActorSettings,
    pub fine_tuner: ActorSettings,
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
    pub fn named(&self) -> [(&'static str, &ActorSettings); 8] {
        [
            ("job_router", &self.job_router),
            ("extractor_pool", &self.extractor_pool),
            ("pii_masker", &self.pii_masker),
            ("dataset_exporter", &self.dataset_exporter),
            ("scheduler", &self.scheduler),
            ("webhook_sender", &self.webhook_sender),
            ("billing_clock", &self.billing_clock),
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
    /// Memory this process's running jobs may hold at once, in MiB, by their documents' estimates
    /// (size times a factor of their format): a job that would pass it stays queued until running
    /// ones end; one larger than the whole budget runs alone. 0: no budget.
    #[serde(default = "memory_budget_mb")]
    pub memory_budget_mb: u64,
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

impl JobsSettings {
    pub fn validate(&self) -> Result<(), String> {
        let checks: [(&str, u64, u64, u64); 11] = [
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
            ("memory_budget_mb", self.memory_budget_mb, 0, 1 << 30),
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

/// A plan a tenant is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Plan {
    Trial,
    Starter,
    Pro,
    Enterprise,
}

impl Plan {
    /// In order, lowest first.
    pub const ALL: [Plan; 4] = [Plan::Trial, Plan::Starter, Plan::Pro, Plan::Enterprise];

    pub const fn as_str(self) -> &'static str {
        match self {
            Plan::Trial => "trial",
            Plan::Starter => "starter",
            Plan::Pro => "pro",
            Plan::Enterprise => "enterprise",
        }
    }

    pub fn parse(name: &str) -> Option<Plan> {
        Plan::ALL.into_iter().find(|plan| plan.as_str() == name)
    }

    /// A stored plan name; an unknown one (a row written by hand) reads as the trial, the plan that
    /// allows least.
    pub fn from_stored(name: &str) -> Plan {
        Plan::parse(name).unwrap_or(Plan::Trial)
    }
}

impl std::fmt::Display for Plan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One `[plans.<plan>]` table.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PlanSettings {
    /// Credits granted when a billing period opens (one credit per processed page).
    pub credits_per_period: i64,
    /// Days an export file is kept; the cleanup deletes it afterwards (a new export request writes
    /// it again).
    pub export_retention_days: u32,
    /// Most schedules one connector may have.
    pub max_schedules_per_connector: u32,
    /// Shortest interval between two runs of a schedule, in minutes; absent: no schedules on the plan.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_schedule_interval_minutes: Option<u32>,
    /// Whether the plan may fine-tune models (`POST /v1/fine-tune`).
    pub fine_tune: bool,
}

/// The `[plans]` section: one table per plan.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PlansSettings {
    pub trial: PlanSettings,
    pub starter: PlanSettings,
    pub pro: PlanSettings,
    pub enterprise: PlanSettings,
}

impl PlansSettings {
    /// Every plan alike, granting `credits` per period and allowing nothing else (tests and
    /// benchmarks).
    pub fn uniform(credits: i64) -> PlansSettings {
        let plan = || PlanSettings {
            credits_per_period: credits,
            export_retention_days: 1,
            max_schedules_per_connector: 0,
            min_schedule_interval_minutes: None,
            fine_tune: false,
        };
        PlansSettings {
            trial: plan(),
            starter: plan(),
            pro: plan(),
            enterprise: plan(),
        }
    }

    pub fn get(&self, plan: Plan) -> &PlanSettings {
        match plan {
            Plan::Trial => &self.trial,
            Plan::Starter => &self.starter,
            Plan::Pro => &self.pro,
            Plan::Enterprise => &self.enterprise,
        }
    }

    fn get_mut(&mut self, plan: Plan) -> &mut PlanSettings {
        match plan {
            Plan::Trial => &mut self.trial,
            Plan::Starter => &mut self.starter,
            Plan::Pro => &mut self.pro,
            Plan::Enterprise => &mut self.enterprise,
        }
    }

    /// Days an export file of a tenant on `plan` (a stored name) is kept.
    pub fn retention_days(&self, plan: &str) -> u32 {
        self.get(Plan::from_stored(plan)).export_retention_days
    }

    pub fn validate(&self) -> Result<(), String> {
        for plan in Plan::ALL {
            let settings = self.get(plan);
            if settings.credits_per_period < 0 || settings.credits_per_period > 1_000_000_000_000 {
                return Err(format!(
                    "plans.{plan}.credits_per_period must be between 0 and 1000000000000, got {}",
                    settings.credits_per_period
                ));
            }
            if settings.export_retention_days == 0 || settings.export_retention_days > 3650 {
                return Err(format!(
                    "plans.{plan}.export_retention_days must be between 1 and 3650, got {}",
                    settings.export_retention_days
                ));
            }
            if settings.max_schedules_per_connector > 10_000 {
                return Err(format!(
                    "plans.{plan}.max_schedules_per_connector must be at most 10000, got {}",
                    settings.max_schedules_per_connector
                ));
            }
            if settings
                .min_schedule_interval_minutes
                .is_some_and(|minutes| minutes > 525_600)
            {
                return Err(format!(
                    "plans.{plan}.min_schedule_interval_minutes must be at most 525600 (a year)"
                ));
            }
        }
        Ok(())
    }
}

/// The `[billing]` section.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct BillingSettings {
    /// When the billing clock runs the cycle (5 fields, UTC).
    pub cycle_cron: String,
    /// How often the clock looks whether a firing is due, in seconds.
    pub poll_interval_seconds: u64,
}

impl BillingSettings {
    pub fn schedule(&self) -> Result<crate::cron::Schedule, String> {
        crate::cron::Schedule::parse(&self.cycle_cron)
            .map_err(|error| format!("billing.cycle_cron: {error}"))
    }

    pub fn validate(&self) -> Result<(), String> {
        self.schedule()?;
        if self.poll_interval_seconds == 0 || self.poll_interval_seconds > 3600 {
            return Err(format!(
                "billing.poll_interval_seconds must be between 1 and 3600, got {}",
                self.poll_interval_seconds
            ));
        }
        Ok(())
    }
}

/// The `[connectors]` section: storage connectors (S3, Azure Blob, GCS), their syncs and schedules.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ConnectorsSettings {
    /// Allow connector endpoints at private, loopback or link-local addresses (emulators, an
    /// in-house object store); off: the same guard as webhook URLs.
    pub allow_private_endpoints: bool,
    /// How long one request to a provider may take, in milliseconds (then `timeout`).
    pub request_timeout_ms: u64,
    /// How long connecting to a provider may take, in milliseconds (then `unreachable`).
    pub connect_timeout_ms: u64,
    /// Retries of a failed provider request (connection errors, 5xx) before giving up.
    pub max_retries: usize,
    /// How often the scheduler looks for schedules whose cron has fired, in seconds.
    pub schedule_poll_seconds: u64,
    /// New object versions one sync takes at most; the rest wait for the next run.
    pub max_objects_per_sync: usize,
}

impl ConnectorsSettings {
    pub fn validate(&self) -> Result<(), String> {
        let checks: [(&str, u64, u64, u64); 5] = [
            ("request_timeout_ms", self.request_timeout_ms, 100, 600_000),
            ("connect_timeout_ms", self.connect_timeout_ms, 100, 600_000),
            ("max_retries", self.max_retries as u64, 0, 10),
            ("schedule_poll_seconds", self.schedule_poll_seconds, 1, 3600),
            (
                "max_objects_per_sync",
                self.max_objects_per_sync as u64,
                1,
                1_000_000,
            ),
        ];
        for (key, value, min, max) in checks {
            if value < min || value > max {
                return Err(format!(
                    "connectors.{key} must be between {min} and {max}, got {value}"
                ));
            }
        }
        Ok(())
    }
}

/// The `[fine_tune]` section: the OpenAI-compatible provider fine-tuning jobs go to.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FineTuneSettings {
    /// Base URL of the provider, `/v1` included (`https://api.openai.com/v1`). Empty: fine-tuning is
    /// off (`POST /v1/fine-tune` answers 503 `fine_tune_unavailable`).
    pub provider_url: String,
    /// Sent as `Authorization: Bearer <api_key>` when not empty.
    pub api_key: String,
    /// How often a job's state is read from the provider while it trains.
    pub poll_interval_seconds: u64,
    /// Time limit of one call to the provider (the training file upload included).
    pub request_timeout_ms: u64,
    /// First delay after a provider that is down or answers 5xx; doubles up to `retry_max_ms`.
    pub retry_backoff_ms: u64,
    pub retry_max_ms: u64,
    /// Failed attempts in a row before a job that never reached the provider fails with
    /// `provider_unavailable` (a job the provider already runs is polled until it ends).
    pub max_attempts: u32,
    /// How a dataset row without `messages` becomes a chat example: three templates in which
    /// `{column}` is replaced by the row's column (`text`, `filename`, `format`, `language`,
    /// `quality_grade`, `fields` and `tables` as JSON). An empty system template sends no system
    /// message; a row whose user or assistant message comes out empty (or `{}`/`[]`) is left out.
    pub system_template: String,
    pub user_template: String,
    pub assistant_template: String,
    /// A row the three templates above make nothing of (a plain document: no extracted fields) is
    /// mapped by these instead, so that a dataset of letters or reports trains too: by default the
    /// model learns to write such a document, placeholders included. Not used when the request
    /// gives templates of its own. Both empty: such rows are left out.
    #[serde(default = "default_plain_system_template")]
    pub plain_system_template: String,
    #[serde(default = "default_plain_user_template")]
    pub plain_user_template: String,
    #[serde(default = "default_plain_assistant_template")]
    pub plain_assistant_template: String,
}

fn default_plain_system_template() -> String {
    String::new()
}

fn default_plain_user_template() -> String {
    "Write the {format} document {filename}.".to_string()
}

fn default_plain_assistant_template() -> String {
    "{text}".to_string()
}

impl FineTuneSettings {
    /// The templates a job uses: its own (`templates`, JSON with any of `system`, `user`, `assistant`;
    /// the configured ones fill the rest, and plain documents get no fallback), or the configured
    /// ones with the plain-document fallback.
    pub fn templates(
        &self,
        own: Option<&str>,
    ) -> Result<crate::fine_tuner::training::Template, String> {
        use crate::fine_tuner::training::Template;
        let configured = Template {
            system: self.system_template.clone(),
            user: self.user_template.clone(),
            assistant: self.assistant_template.clone(),
            plain: None,
        };
        let Some(own) = own else {
            let plain = Template {
                system: self.plain_system_template.clone(),
                user: self.plain_user_template.clone(),
                assistant: self.plain_assistant_template.clone(),
                plain: None,
            };
            let usable = !plain.user.trim().is_empty() && !plain.assistant.trim().is_empty();
            return Ok(Template {
                plain: usable.then(|| Box::new(plain)),
                ..configured
            });
        };
        let given: serde_json::Value =
            serde_json::from_str(own).map_err(|error| format!("templates: {error}"))?;
        let pick = |key: &str, default: &String| -> Result<String, String> {
            match &given[key] {
                serde_json::Value::Null => Ok(default.clone()),
                serde_json::Value::String(text) => Ok(text.clone()),
                _ => Err(format!("templates.{key} must be a string")),
            }
        };
        Ok(Template {
            system: pick("system", &configured.system)?,
            user: pick("user", &configured.user)?,
            assistant: pick("assistant", &configured.assistant)?,
            plain: None,
        })
    }

    pub fn enabled(&self) -> bool {
        !self.provider_url.is_empty()
    }

    pub fn validate(&self) -> Result<(), String> {
        let checks: [(&str, u64, u64, u64); 5] = [
            (
                "poll_interval_seconds",
                self.poll_interval_seconds,
                1,
                86_400,
            ),
            (
                "request_timeout_ms",
                self.request_timeout_ms,
                100,
                3_600_000,
            ),
            ("retry_backoff_ms", self.retry_backoff_ms, 10, 3_600_000),
            ("retry_max_ms", self.retry_max_ms, 10, 86_400_000),
            ("max_attempts", u64::from(self.max_attempts), 1, 1000),
        ];
        for (key, value, min, max) in checks {
            if value < min || value > max {
                return Err(format!(
                    "fine_tune.{key} must be between {min} and {max}, got {value}"
                ));
            }
        }
        if self.user_template.trim().is_empty() || self.assistant_template.trim().is_empty() {
            return Err(
                "fine_tune.user_template and fine_tune.assistant_template must not be empty"
                    .to_string(),
            );
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
