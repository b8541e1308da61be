//! What reaches outside services: `[connectors]`, `[fine_tune]`, `[oss_metrics]` and `[llm]`.

use serde::{Deserialize, Serialize};

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

/// One source of `[oss_metrics] sources`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct OssSource {
    /// `crates_io`, `pypi`, `npm` or `github`.
    pub kind: String,
    /// The crate, package, npm package or `owner/repo`.
    pub name: String,
}

/// The `[oss_metrics]` section: the sources `POST /system/admin/oss-metrics/fetch` reads, and the base
/// URL of each kind's public API.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct OssMetricsSettings {
    #[serde(default)]
    pub sources: Vec<OssSource>,
    pub crates_io_url: String,
    pub pypi_url: String,
    pub npm_url: String,
    pub npm_downloads_url: String,
    pub github_url: String,
    /// Time limit of each request, in milliseconds.
    pub timeout_ms: u64,
}

/// The `[llm]` section: the OpenAI-compatible model behind quality cross-validation.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LlmSettings {
    /// Base URL of an OpenAI-compatible API, `/v1` included. Empty: the LLM is off.
    pub url: String,
    /// The model asked (`model` of chat completions).
    pub model: String,
    /// Sent as `Authorization: Bearer`; empty: no header.
    pub api_key: String,
    /// Time limit of one call, in milliseconds.
    pub timeout_ms: u64,
    /// Retries of a call that failed with a 5xx, a timeout or a refused connection.
    pub max_retries: u32,
    /// Wait before the first retry, doubled for each next one, in milliseconds.
    pub retry_backoff_ms: u64,
    /// Characters of a document's masked text sent at most (the rest is left out of the comparison).
    pub max_input_chars: usize,
}
