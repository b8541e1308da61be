//! The rules a loaded configuration must hold, each broken one named by its key.

use std::net::IpAddr;

use super::{redact_url, ConfigError, Settings};

impl Settings {
    /// Fails on the first bad value, naming its key.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.bind_address()?;
        if self.pii.phone_regions.is_empty() {
            return Err(invalid(
                "pii.phone_regions must name at least one region (e.g. [\"TR\"])".to_string(),
            ));
        }
        docsieve_actors::pii_masker::check_phone_regions(&self.pii.phone_regions)
            .map_err(invalid)?;
        if self.server.shutdown_timeout_seconds > 3600 {
            return Err(invalid(
                "server.shutdown_timeout_seconds must be at most 3600".to_string(),
            ));
        }
        if self.server.max_request_bytes < 1024 {
            return Err(invalid(
                "server.max_request_bytes must be at least 1024".to_string(),
            ));
        }
        for proxy in &self.server.trusted_proxies {
            proxy.parse::<IpAddr>().map_err(|_| {
                invalid(format!(
                    "server.trusted_proxies: '{proxy}' is not an IP address"
                ))
            })?;
        }
        if self.storage.data_dir.as_os_str().is_empty() {
            return Err(invalid("storage.data_dir must not be empty".to_string()));
        }
        check_url(
            "storage.blob_url",
            &self.storage.blob_url,
            &[
                "s3", "s3a", "gs", "az", "azure", "abfs", "abfss", "file", "memory", "http",
                "https",
            ],
        )?;
        if !self.database.url.is_empty()
            && !["sqlite:", "postgres://", "postgresql://"]
                .iter()
                .any(|prefix| self.database.url.starts_with(prefix))
        {
            return Err(invalid(format!(
                "database.url: '{}' must start with sqlite:// or postgres://",
                redact_url(&self.database.url)
            )));
        }
        if self.database.max_connections == 0 {
            return Err(invalid(
                "database.max_connections must be at least 1".to_string(),
            ));
        }
        if self.database.audit_linger_ms > 100 {
            return Err(invalid(
                "database.audit_linger_ms must be at most 100 (every audited request waits for it)"
                    .to_string(),
            ));
        }
        check_url("redis.url", &self.redis.url, &["redis", "rediss"])?;
        if self.auth.access_token_ttl_seconds == 0 {
            return Err(invalid(
                "auth.access_token_ttl_seconds must be greater than 0".to_string(),
            ));
        }
        for (key, value) in [
            (
                "auth.verification_token_ttl_hours",
                self.auth.verification_token_ttl_hours,
            ),
            (
                "auth.reset_token_ttl_minutes",
                self.auth.reset_token_ttl_minutes,
            ),
            ("auth.invitation_ttl_days", self.auth.invitation_ttl_days),
            ("auth.login_max_failures", self.auth.login_max_failures),
            ("auth.login_block_seconds", self.auth.login_block_seconds),
            ("mail.max_attempts", u64::from(self.mail.max_attempts)),
            ("mail.queue_capacity", self.mail.queue_capacity as u64),
        ] {
            if value == 0 {
                return Err(invalid(format!("{key} must be greater than 0")));
            }
        }
        if self.mail.from.parse::<lettre::message::Mailbox>().is_err() {
            return Err(invalid(format!(
                "mail.from: '{}' is not a mailbox such as \"docsieve <no-reply@example.com>\"",
                self.mail.from
            )));
        }
        if self.auth.refresh_token_ttl_days == 0 {
            return Err(invalid(
                "auth.refresh_token_ttl_days must be greater than 0".to_string(),
            ));
        }
        if !self.auth.jwt_secret.is_empty() && self.auth.jwt_secret.len() < 32 {
            return Err(invalid(
                "auth.jwt_secret must be at least 32 characters (or empty to generate one)"
                    .to_string(),
            ));
        }
        check_url("mail.smtp_url", &self.mail.smtp_url, &["smtp", "smtps"])?;
        check_url(
            "mail.public_base_url",
            &self.mail.public_base_url,
            &["http", "https"],
        )?;
        check_url("llm.url", &self.llm.url, &["http", "https"])?;
        if !self.llm.url.is_empty() && self.llm.model.trim().is_empty() {
            return Err(invalid(
                "llm.model: a model is required when llm.url is set".into(),
            ));
        }
        if self.llm.timeout_ms == 0 || self.llm.max_retries > 10 || self.llm.max_input_chars < 1000
        {
            return Err(invalid(format!(
                "llm: timeout_ms must be above 0, max_retries at most 10 and max_input_chars at least 1000 (got {}, {}, {})",
                self.llm.timeout_ms, self.llm.max_retries, self.llm.max_input_chars
            )));
        }
        if !["text", "json"].contains(&self.log.format.as_str()) {
            return Err(invalid(format!(
                "log.format must be \"text\" or \"json\", got \"{}\"",
                self.log.format
            )));
        }
        tracing_subscriber::EnvFilter::try_new(&self.log.level)
            .map_err(|error| invalid(format!("log.level: {error}")))?;
        if self.metrics.upkeep_interval_seconds == 0 {
            return Err(invalid(
                "metrics.upkeep_interval_seconds must be greater than 0".to_string(),
            ));
        }
        if !["process", "thread"].contains(&self.extraction.isolation.as_str()) {
            return Err(invalid(format!(
                "extraction.isolation must be \"process\" or \"thread\", got \"{}\"",
                self.extraction.isolation
            )));
        }
        if self.extraction.worker_max_documents == 0 {
            return Err(invalid(
                "extraction.worker_max_documents must be greater than 0".to_string(),
            ));
        }
        if self.extraction.preview_workers > 64 {
            return Err(invalid(format!(
                "extraction.preview_workers must be between 0 and 64, got {}",
                self.extraction.preview_workers
            )));
        }
        if self.extraction.worker_memory_mb != 0 && self.extraction.worker_memory_mb < 256 {
            return Err(invalid(format!(
                "extraction.worker_memory_mb must be 0 (no limit) or at least 256, got {}",
                self.extraction.worker_memory_mb
            )));
        }
        if self.extraction.preview_max_bytes < 1024 {
            return Err(invalid(
                "extraction.preview_max_bytes must be at least 1024".to_string(),
            ));
        }
        let limits = &self.extraction.limits;
        for (key, value) in [
            ("max_bytes", limits.max_bytes),
            ("max_pages", u64::from(limits.max_pages)),
            ("max_decompressed_bytes", limits.max_decompressed_bytes),
            ("max_xml_depth", limits.max_xml_depth as u64),
            ("max_rows", limits.max_rows as u64),
            ("max_seconds", limits.max_seconds),
        ] {
            if value == 0 {
                return Err(invalid(format!(
                    "extraction.limits.{key} must be greater than 0"
                )));
            }
        }
        self.actors.validate().map_err(invalid)?;
        self.jobs.validate().map_err(invalid)?;
        self.datasets.validate().map_err(invalid)?;
        self.plans.validate().map_err(invalid)?;
        self.billing.validate().map_err(invalid)?;
        self.fine_tune.validate().map_err(invalid)?;
        self.connectors.validate().map_err(invalid)?;
        for source in &self.oss_metrics.sources {
            if !["crates_io", "pypi", "npm", "github"].contains(&source.kind.as_str()) {
                return Err(invalid(format!(
                    "oss_metrics.sources: kind '{}' is not one of crates_io, pypi, npm, github",
                    source.kind
                )));
            }
            if source.name.trim().is_empty() {
                return Err(invalid(
                    "oss_metrics.sources: a source without a name".into(),
                ));
            }
        }
        for (key, value) in [
            ("oss_metrics.crates_io_url", &self.oss_metrics.crates_io_url),
            ("oss_metrics.pypi_url", &self.oss_metrics.pypi_url),
            ("oss_metrics.npm_url", &self.oss_metrics.npm_url),
            (
                "oss_metrics.npm_downloads_url",
                &self.oss_metrics.npm_downloads_url,
            ),
            ("oss_metrics.github_url", &self.oss_metrics.github_url),
        ] {
            check_url(key, value, &["http", "https"])?;
        }
        check_url(
            "fine_tune.provider_url",
            &self.fine_tune.provider_url,
            &["http", "https"],
        )?;
        self.webhooks.validate().map_err(invalid)?;
        Ok(())
    }
}

pub(super) fn invalid(message: String) -> ConfigError {
    ConfigError::Invalid(message)
}

fn check_url(key: &str, value: &str, schemes: &[&str]) -> Result<(), ConfigError> {
    if value.is_empty() {
        return Ok(());
    }
    let parsed = url::Url::parse(value).map_err(|error| {
        invalid(format!(
            "{key}: '{}' is not a URL ({error})",
            redact_url(value)
        ))
    })?;
    if !schemes.contains(&parsed.scheme()) {
        return Err(invalid(format!(
            "{key}: scheme '{}' is not supported (use one of: {})",
            parsed.scheme(),
            schemes.join(", ")
        )));
    }
    Ok(())
}
