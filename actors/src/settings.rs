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
}

impl ActorsSettings {
    /// Each actor's settings with the config key that holds them, in start order.
    pub fn named(&self) -> [(&'static str, &ActorSettings); 7] {
        [
            ("job_router", &self.job_router),
            ("extractor_pool", &self.extractor_pool),
            ("pii_masker", &self.pii_masker),
            ("dataset_exporter", &self.dataset_exporter),
            ("scheduler", &self.scheduler),
            ("webhook_sender", &self.webhook_sender),
            ("billing_clock", &self.billing_clock),
        ]
    }

    /// Checks every value; the error names the offending key.
    pub fn validate(&self) -> Result<(), String> {
        for (name, actor) in self.named() {
            if actor.pool_size == 0 || actor.pool_size > 1024 {
                return Err(format!(
                    "actors.{name}.pool_size must be between 1 and 1024, got {}",
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
