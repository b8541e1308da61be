//! Settings: `config/default.toml` (built in), then `--config FILE`, then `DOCSIEVE__SECTION__KEY`.
//!
//! Owns loading and redaction (the rules a configuration must hold are in `validate.rs`). It must never
//! log or print a secret: `print-config` goes
//! through [`Settings::redacted`].

use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};

use docsieve_actors::settings::{
    ActorsSettings, BillingSettings, ConnectorsSettings, DatasetsSettings, FineTuneSettings,
    JobsSettings, LlmSettings, OssMetricsSettings, PlansSettings, WebhooksSettings,
};
use figment::providers::{Env, Format, Toml};
use figment::Figment;
use serde::{Deserialize, Serialize};

mod validate;
use validate::invalid;

/// The defaults, from the same file operators read.
pub const DEFAULT_TOML: &str = include_str!("../../config/default.toml");

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// A layer that could not be read into the settings; its message passes through
    /// [`redact_credentials`], since a wrongly typed value is quoted in it.
    #[error("{}", redact_credentials(&.0.to_string()))]
    Load(Box<figment::Error>),
    #[error("config file {0} does not exist")]
    MissingFile(String),
    #[error("{0}")]
    Invalid(String),
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ServerSettings {
    pub bind: String,
    pub workers: usize,
    pub shutdown_timeout_seconds: u64,
    pub max_request_bytes: usize,
    pub trusted_proxies: Vec<String>,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct StorageSettings {
    pub data_dir: PathBuf,
    pub blob_url: String,
    /// The master key file (64 hex digits per line, the first current); empty: the
    /// `DOCSIEVE_MASTER_KEY` variable, else `<data_dir>/master_key`, generated on first start.
    #[serde(default)]
    pub master_key_file: String,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DatabaseSettings {
    pub url: String,
    pub max_connections: u32,
    pub busy_timeout_ms: u64,
    pub connect_timeout_ms: u64,
    pub audit_linger_ms: u64,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RedisSettings {
    pub url: String,
    pub key_prefix: String,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct AuthSettings {
    pub internal_token: String,
    pub jwt_secret: String,
    pub access_token_ttl_seconds: u64,
    pub refresh_token_ttl_days: u64,
    pub verification_token_ttl_hours: u64,
    pub reset_token_ttl_minutes: u64,
    pub invitation_ttl_days: u64,
    pub login_max_failures: u64,
    pub login_block_seconds: u64,
    pub mail_interval_seconds: u64,
    /// Peers whose X-Forwarded-For is believed, parsed from `server.trusted_proxies`.
    #[serde(skip)]
    pub trusted_proxies: Vec<IpAddr>,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct MailSettings {
    pub smtp_url: String,
    pub from: String,
    pub public_base_url: String,
    pub max_attempts: u32,
    pub retry_backoff_ms: u64,
    pub queue_capacity: usize,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LogSettings {
    pub format: String,
    pub level: String,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct MetricsSettings {
    pub upkeep_interval_seconds: u64,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TestingSettings {
    pub enabled: bool,
}

/// The `[extraction]` section: where documents are read, and the bounds of one document.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ExtractionSettings {
    /// "process": in worker processes (`docsieve extract-worker`); "thread": in the server's own.
    pub isolation: String,
    /// Address space of one worker process in MiB; 0: no limit.
    pub worker_memory_mb: u64,
    /// Documents one worker reads before a fresh one replaces it.
    pub worker_max_documents: u64,
    /// Worker processes kept for previews beyond `actors.extractor_pool.pool_size`.
    pub preview_workers: usize,
    /// Largest answer of a synchronous preview or CSV export, in bytes.
    pub preview_max_bytes: u64,
    /// The bounds of one document (every reader, previews and jobs alike).
    pub limits: docsieve_actors::extractor_pool::Limits,
}

impl ExtractionSettings {
    /// The limits of a synchronous preview: the document's own, its text bounded by what the answer
    /// may hold (the text comes back about twice, whole and in its elements), and its time by what the
    /// caller waits for an actor, less the few seconds a reader that overruns it is given to say so.
    pub fn preview_limits(&self, call_timeout_ms: u64) -> docsieve_actors::extractor_pool::Limits {
        let mut limits = self.limits.clone();
        limits.max_text_bytes = Some(self.preview_max_bytes / 2);
        limits.max_seconds = limits.max_seconds.min((call_timeout_ms / 1000).max(4) - 3);
        limits
    }
}

/// The `[compliance]` section: what the record of processing says about where data goes.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ComplianceSettings {
    /// ISO country code of where this service runs.
    pub service_country: String,
    /// Host → ISO country code of recipients (webhook receivers, connector endpoints, the fine-tune
    /// provider, the LLM); a host not listed is shown as of unknown country.
    #[serde(default)]
    pub recipient_countries: std::collections::BTreeMap<String, String>,
}

/// The `[pii]` section: how the masker reads the forms of the world.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PiiSettings {
    /// Regions (ISO 3166-1 alpha-2) whose national phone numbers, written without a country code,
    /// are looked for: behind a phone label, a number valid in any of them is masked; bare, one
    /// written exactly in its region's own layout. Numbers with `+`, `00` or `011` are found for every
    /// region whatever this says.
    #[serde(default = "default_phone_regions")]
    pub phone_regions: Vec<String>,
}

fn default_phone_regions() -> Vec<String> {
    docsieve_actors::pii_masker::DEFAULT_PHONE_REGIONS
        .iter()
        .map(|code| (*code).to_owned())
        .collect()
}

impl Default for PiiSettings {
    fn default() -> Self {
        PiiSettings {
            phone_regions: default_phone_regions(),
        }
    }
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    pub server: ServerSettings,
    pub storage: StorageSettings,
    pub database: DatabaseSettings,
    pub redis: RedisSettings,
    pub auth: AuthSettings,
    pub mail: MailSettings,
    pub llm: LlmSettings,
    pub log: LogSettings,
    pub metrics: MetricsSettings,
    pub testing: TestingSettings,
    pub jobs: JobsSettings,
    pub datasets: DatasetsSettings,
    pub plans: PlansSettings,
    pub billing: BillingSettings,
    pub fine_tune: FineTuneSettings,
    pub webhooks: WebhooksSettings,
    pub connectors: ConnectorsSettings,
    pub compliance: ComplianceSettings,
    pub oss_metrics: OssMetricsSettings,
    pub extraction: ExtractionSettings,
    #[serde(default)]
    pub pii: PiiSettings,
    pub actors: ActorsSettings,
    /// Deprecated keys found while loading, each with what to write instead (logged at start).
    #[serde(skip)]
    pub deprecations: Vec<String>,
}

/// Replaces the password of a URL, if any, by `***`. A value that does not parse as a URL (where a
/// password with a `/` or a space may be what broke it) keeps its scheme and host only: everything
/// before its last `@` becomes `***` (fail closed).
pub fn redact_url(value: &str) -> String {
    match url::Url::parse(value) {
        Ok(mut parsed) if parsed.password().is_some() => {
            let _ = parsed.set_password(Some("***"));
            parsed.to_string()
        }
        Ok(_) => value.to_string(),
        Err(_) => redact_word(value),
    }
}

/// `text` (a URL, or a message that quotes one) with the credentials of every word that holds some
/// replaced by `***`: in `scheme://user:password@host`, all between `://` and the word's last `@`; in
/// `user:password@host`, all before it. (An e-mail address, with no `:` before its `@`, stays.)
pub fn redact_credentials(text: &str) -> String {
    let separator = |c: char| c.is_whitespace() || matches!(c, '\'' | '"' | '`' | '(' | ')' | ',');
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    for c in text.chars() {
        if separator(c) {
            out.push_str(&redact_word(&word));
            word.clear();
            out.push(c);
        } else {
            word.push(c);
        }
    }
    out.push_str(&redact_word(&word));
    out
}

fn redact_word(word: &str) -> String {
    let Some(at) = word.rfind('@') else {
        return word.to_string();
    };
    match word.find("://") {
        Some(scheme_end) if scheme_end + 3 <= at => {
            format!("{}***{}", &word[..scheme_end + 3], &word[at..])
        }
        None if word[..at].contains(':') => format!("***{}", &word[at..]),
        _ => word.to_string(),
    }
}

impl Settings {
    /// Moves the keys an older configuration may still use to their new places (or drops them) and
    /// says what it did, for warnings at start.
    fn deprecated_keys(&mut self) -> Vec<String> {
        let mut notes = self.datasets.move_deprecated_keys(&mut self.plans);
        if self.actors.billing_clock.take().is_some() {
            notes.push(
                "actors.billing_clock is ignored: the billing_clock actor is gone, the scheduler runs \
                 the billing cycle (size it with actors.scheduler)"
                    .to_string(),
            );
        }
        notes
    }

    /// Loads the layers and validates the result.
    pub fn load(file: Option<&Path>) -> Result<Settings, ConfigError> {
        let mut figment = Figment::new().merge(Toml::string(DEFAULT_TOML));
        if let Some(file) = file {
            if !file.exists() {
                return Err(ConfigError::MissingFile(file.display().to_string()));
            }
            figment = figment.merge(Toml::file(file));
        }
        figment = figment.merge(Env::prefixed("DOCSIEVE__").split("__"));
        let mut settings: Settings = figment
            .extract()
            .map_err(|error| ConfigError::Load(Box::new(error)))?;
        settings.deprecations = settings.deprecated_keys();
        settings.size_from_machine(docsieve_actors::settings::available_cores());
        settings.validate()?;
        settings.auth.trusted_proxies = settings
            .server
            .trusted_proxies
            .iter()
            .filter_map(|proxy| proxy.parse().ok())
            .collect();
        Ok(settings)
    }

    /// Turns the sizes left at 0 ("one per core": `server.workers`, and the pools that
    /// `ActorsSettings::size_pools` names) into numbers for `cores` cores.
    pub fn size_from_machine(&mut self, cores: usize) {
        if self.server.workers == 0 {
            self.server.workers = cores.max(1);
        }
        self.actors.size_pools(cores);
    }

    pub fn bind_address(&self) -> Result<SocketAddr, ConfigError> {
        self.server.bind.parse().map_err(|_| {
            invalid(format!(
                "server.bind: '{}' is not an address such as 127.0.0.1:8080",
                self.server.bind
            ))
        })
    }

    /// The database URL in effect (the SQLite file in the data dir when unset).
    pub fn database_url(&self) -> String {
        if self.database.url.is_empty() {
            docsieve_actors::store::default_sqlite_url(&self.storage.data_dir)
        } else {
            self.database.url.clone()
        }
    }

    /// A copy safe to print: secrets replaced by `***`, passwords removed from URLs.
    pub fn redacted(&self) -> Settings {
        let mut copy = self.clone();
        let hide = |value: &mut String| {
            if !value.is_empty() {
                *value = "***".to_string();
            }
        };
        hide(&mut copy.auth.internal_token);
        hide(&mut copy.auth.jwt_secret);
        hide(&mut copy.fine_tune.api_key);
        hide(&mut copy.llm.api_key);
        copy.database.url = redact_url(&self.database_url());
        copy.redis.url = redact_url(&copy.redis.url);
        copy.mail.smtp_url = redact_url(&copy.mail.smtp_url);
        copy.storage.blob_url = redact_url(&copy.storage.blob_url);
        copy
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The built-in defaults as `load` gives them on a two-core machine.
    fn defaults() -> Settings {
        defaults_for(2)
    }

    #[test]
    fn sizes_left_at_zero_follow_the_cores_and_numbers_win() {
        for cores in [1, 2, 16] {
            let settings = defaults_for(cores);
            settings.validate().expect("sized defaults validate");
            assert_eq!(settings.server.workers, cores);
            assert_eq!(settings.actors.extractor_pool.pool_size, cores);
            assert_eq!(settings.actors.pii_masker.pool_size, cores);
            assert_eq!(settings.actors.job_router.pool_size, 2 * cores);
            // The single-purpose actors keep their numbers.
            assert_eq!(settings.actors.scheduler.pool_size, 1);
            assert_eq!(settings.actors.webhook_sender.pool_size, 8);
        }
        let explicit = layered(
            "[server]\nworkers = 3\n[actors.pii_masker]\npool_size = 5\n",
            16,
        );
        assert_eq!(explicit.server.workers, 3);
        assert_eq!(explicit.actors.pii_masker.pool_size, 5);
        assert_eq!(explicit.actors.extractor_pool.pool_size, 16);

        // The removed billing_clock actor's section still loads, with a warning, and is dropped.
        let mut older = layered(
            "[actors.billing_clock]\npool_size = 1\nmailbox_capacity = 16\n",
            4,
        );
        let notes = older.deprecated_keys();
        assert!(
            notes
                .iter()
                .any(|note| note.contains("actors.billing_clock")),
            "{notes:?}"
        );
        assert!(older.actors.billing_clock.is_none());
        assert!(defaults().deprecated_keys().is_empty());

        let zero = layered("[actors.scheduler]\npool_size = 0\n", 4);
        let error = zero
            .validate()
            .expect_err("0 is not a size for the scheduler");
        assert!(
            error.to_string().contains("actors.scheduler.pool_size"),
            "{error}"
        );
    }

    /// The built-in defaults as `load` gives them on a machine with `cores` cores.
    fn defaults_for(cores: usize) -> Settings {
        layered("", cores)
    }

    /// The built-in defaults with `overlay` (TOML) on top, sized for `cores` cores as `load` does.
    fn layered(overlay: &str, cores: usize) -> Settings {
        let mut settings: Settings = Figment::new()
            .merge(Toml::string(DEFAULT_TOML))
            .merge(Toml::string(overlay))
            .extract()
            .expect("default.toml and the overlay deserialise");
        settings.size_from_machine(cores);
        settings
    }

    #[test]
    fn defaults_are_valid_and_documented_values_hold() {
        let settings = defaults();
        settings.validate().expect("defaults validate");
        assert_eq!(settings.server.bind, "127.0.0.1:8080");
        assert_eq!(settings.storage.data_dir, PathBuf::from("./data"));
        assert!(settings.database_url().ends_with("data/docsieve.sqlite3"));
        assert_eq!(settings.auth.access_token_ttl_seconds, 900);
    }

    #[test]
    fn phone_regions_default_to_turkey_the_eu_eea_uk_switzerland_and_the_us() {
        let settings = defaults();
        assert_eq!(settings.pii.phone_regions.len(), 34);
        assert_eq!(settings.pii.phone_regions, default_phone_regions());
        let settings = layered("[pii]\nphone_regions = [\"tr\", \"JP\"]", 2);
        settings.validate().expect("known regions in any case");
        let settings = layered("[pii]\nphone_regions = [\"TR\", \"XX\", \"Germany\"]", 2);
        let message = settings.validate().unwrap_err().to_string();
        assert!(
            message.contains("pii.phone_regions") && message.contains("XX, Germany"),
            "{message}"
        );
        let settings = layered("[pii]\nphone_regions = []", 2);
        assert!(settings
            .validate()
            .unwrap_err()
            .to_string()
            .contains("pii.phone_regions"));
    }

    #[test]
    fn bad_values_name_their_key() {
        let mut settings = defaults();
        settings.server.bind = "nowhere".to_string();
        assert!(settings
            .validate()
            .unwrap_err()
            .to_string()
            .contains("server.bind"));

        let mut settings = defaults();
        settings.actors.pii_masker.pool_size = 0;
        let message = settings.validate().unwrap_err().to_string();
        assert!(message.contains("actors.pii_masker.pool_size"), "{message}");

        let mut settings = defaults();
        settings.redis.url = "http://localhost".to_string();
        assert!(settings
            .validate()
            .unwrap_err()
            .to_string()
            .contains("redis.url"));

        let mut settings = defaults();
        settings.log.format = "xml".to_string();
        assert!(settings
            .validate()
            .unwrap_err()
            .to_string()
            .contains("log.format"));
    }

    #[test]
    fn plans_follow_the_spec_and_old_retention_keys_still_read_with_a_warning() {
        use docsieve_actors::settings::Plan;
        let settings = defaults();
        let trial = settings.plans.get(Plan::Trial);
        assert_eq!(
            (trial.min_schedule_interval_minutes, trial.fine_tune),
            (None, false),
            "trial: no schedules, no fine-tuning"
        );
        let starter = settings.plans.get(Plan::Starter);
        assert_eq!(
            (
                starter.min_schedule_interval_minutes,
                starter.max_schedules_per_connector,
                starter.fine_tune
            ),
            (Some(1440), 5, false)
        );
        let pro = settings.plans.get(Plan::Pro);
        assert_eq!(
            (
                pro.min_schedule_interval_minutes,
                pro.max_schedules_per_connector,
                pro.fine_tune
            ),
            (Some(0), 5, true)
        );
        assert_eq!(settings.plans.retention_days("pro"), 30);

        let mut old: Settings = Figment::new()
            .merge(Toml::string(DEFAULT_TOML))
            .merge(Toml::string("[datasets]\nretention_days_pro = 45\n"))
            .extract()
            .expect("old keys deserialise");
        let warnings = old.datasets.move_deprecated_keys(&mut old.plans);
        assert_eq!(old.plans.retention_days("pro"), 45);
        assert_eq!(warnings.len(), 1);
        assert!(
            warnings[0].contains("plans.pro.export_retention_days"),
            "{warnings:?}"
        );
        old.size_from_machine(2);
        old.validate().expect("valid");

        let mut settings = defaults();
        settings.billing.cycle_cron = "0 0 1 *".to_string();
        let message = settings.validate().unwrap_err().to_string();
        assert!(message.contains("billing.cycle_cron"), "{message}");
        let mut settings = defaults();
        settings.plans.trial.export_retention_days = 0;
        let message = settings.validate().unwrap_err().to_string();
        assert!(
            message.contains("plans.trial.export_retention_days"),
            "{message}"
        );
    }

    #[test]
    fn urls_that_do_not_parse_lose_their_credentials_all_the_same() {
        for (url, secret) in [
            ("redis://user:s3cr/et@cache host:6379", "s3cr/et"),
            ("smtp://mailer:pa ss@smtp.example.com:25", "pa"),
            ("https://key:t0ken@llm.local:99999/v1", "t0ken"),
            ("postgres://app:p@ss@db/docs", "p@ss"),
        ] {
            let redacted = redact_url(url);
            assert!(!redacted.contains(secret), "{url} -> {redacted}");
            assert!(redacted.contains("***"), "{url} -> {redacted}");
        }
        let message =
            "redis.url: 'redis://u:hunter2@bad host' is not a URL; mail to ops@example.com";
        let redacted = redact_credentials(message);
        assert!(!redacted.contains("hunter2"), "{redacted}");
        assert!(redacted.contains("ops@example.com"), "{redacted}");
        assert!(
            redacted.starts_with("redis.url: 'redis://***@bad host'"),
            "{redacted}"
        );
    }

    #[test]
    fn redaction_hides_secrets() {
        let mut settings = defaults();
        settings.auth.internal_token = "secret-token".to_string();
        settings.database.url = "postgres://user:pw@host/db".to_string();
        let redacted = settings.redacted();
        assert_eq!(redacted.auth.internal_token, "***");
        assert!(!redacted.database.url.contains("pw"));
        assert_eq!(redacted.auth.jwt_secret, "");
        let mut settings = defaults();
        settings.fine_tune.api_key = "sk-secret".to_string();
        assert_eq!(settings.redacted().fine_tune.api_key, "***");
    }
}
