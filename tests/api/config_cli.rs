//! The command line: print-config, migrate, and start-up failures on bad configuration.

use std::process::Command;

use crate::support::binary;

#[test]
fn a_bad_value_stops_start_up_naming_the_key() {
    let output = Command::new(binary())
        .arg("serve")
        .env("DOCSIEVE__SERVER__BIND", "not-an-address")
        .output()
        .expect("run");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("server.bind"), "{stderr}");

    let output = Command::new(binary())
        .arg("print-config")
        .env("DOCSIEVE__ACTORS__PII_MASKER__POOL_SIZE", "zero")
        .output()
        .expect("run");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.to_lowercase().contains("pii_masker.pool_size"),
        "{stderr}"
    );

    let output = Command::new(binary())
        .args(["--config", "/nonexistent/docsieve.toml", "print-config"])
        .output()
        .expect("run");
    assert_eq!(output.status.code(), Some(2));
}

/// A URL that does not parse is named in the error without its password (#61): a password holding a
/// `/` or a space is often what broke it.
#[test]
fn a_url_that_does_not_parse_is_named_without_its_password() {
    for (key, variable, url, secret) in [
        (
            "redis.url",
            "DOCSIEVE__REDIS__URL",
            "redis://cache:s3cr/et@cache host:6379",
            "s3cr",
        ),
        (
            "mail.smtp_url",
            "DOCSIEVE__MAIL__SMTP_URL",
            "smtp://mailer:pa/ss@mail:25",
            "pa/ss",
        ),
        (
            "llm.url",
            "DOCSIEVE__LLM__URL",
            "https://key:t0ken@llm.local:99999/v1",
            "t0ken",
        ),
    ] {
        let output = Command::new(binary())
            .arg("print-config")
            .env(variable, url)
            .output()
            .expect("run");
        assert_eq!(output.status.code(), Some(2), "{key}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(key), "{stderr}");
        assert!(!stderr.contains(secret), "{stderr}");
        assert!(stderr.contains("***"), "{stderr}");
    }
}

#[test]
fn print_config_layers_env_over_defaults_and_redacts_secrets() {
    let output = Command::new(binary())
        .arg("print-config")
        .env("DOCSIEVE__AUTH__INTERNAL_TOKEN", "very-secret-token")
        .env(
            "DOCSIEVE__DATABASE__URL",
            "postgres://user:hunter2@db.example/docsieve",
        )
        .env("DOCSIEVE__ACTORS__PII_MASKER__POOL_SIZE", "7")
        .output()
        .expect("run");
    assert!(output.status.success());
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(!text.contains("very-secret-token"), "{text}");
    assert!(!text.contains("hunter2"), "{text}");
    assert!(text.contains("internal_token = \"***\""), "{text}");
    let parsed: toml::Value = toml::from_str(&text).expect("print-config prints TOML");
    assert_eq!(
        parsed["actors"]["pii_masker"]["pool_size"].as_integer(),
        Some(7)
    );
    assert_eq!(parsed["server"]["bind"].as_str(), Some("127.0.0.1:8080"));
}

/// `print-config` shows the sizes in force: run on one core (`taskset`, as a container's cpuset would),
/// the pools left at 0 get one thread (the router two jobs) and the HTTP front one worker.
#[test]
fn print_config_shows_pools_sized_from_the_cores_the_process_may_use() {
    // One of the CPUs this process may use (a container's cpuset need not start at 0).
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let allowed = status
        .lines()
        .find_map(|line| line.strip_prefix("Cpus_allowed_list:"))
        .expect("Cpus_allowed_list");
    let first: String = allowed
        .trim()
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    let output = Command::new("taskset")
        .args(["--cpu-list", &first, binary(), "print-config"])
        .env("DOCSIEVE__ACTORS__DATASET_EXPORTER__POOL_SIZE", "3")
        .output()
        .expect("taskset (util-linux) runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let parsed: toml::Value =
        toml::from_str(&String::from_utf8_lossy(&output.stdout)).expect("TOML");
    let size = |actor: &str| parsed["actors"][actor]["pool_size"].as_integer();
    assert_eq!(parsed["server"]["workers"].as_integer(), Some(1));
    assert_eq!(size("extractor_pool"), Some(1));
    assert_eq!(size("pii_masker"), Some(1));
    assert_eq!(size("job_router"), Some(2));
    assert_eq!(size("dataset_exporter"), Some(3));
}

#[test]
fn an_old_retention_key_is_read_into_its_plan_with_a_warning() {
    let output = Command::new(binary())
        .arg("print-config")
        .env("DOCSIEVE__DATASETS__RETENTION_DAYS_STARTER", "12")
        .env("DOCSIEVE__FINE_TUNE__API_KEY", "sk-very-secret")
        .output()
        .expect("run");
    assert!(output.status.success());
    let text = String::from_utf8_lossy(&output.stdout);
    let parsed: toml::Value = toml::from_str(&text).expect("print-config prints TOML");
    assert_eq!(
        parsed["plans"]["starter"]["export_retention_days"].as_integer(),
        Some(12)
    );
    assert!(
        parsed["datasets"].get("retention_days_starter").is_none(),
        "{text}"
    );
    assert!(!text.contains("sk-very-secret"), "{text}");
    let warnings = String::from_utf8_lossy(&output.stderr);
    assert!(
        warnings.contains("datasets.retention_days_starter is deprecated")
            && warnings.contains("plans.starter.export_retention_days"),
        "{warnings}"
    );
}

#[test]
fn migrate_creates_the_schema_and_is_idempotent() {
    let dir = tempfile::tempdir().expect("tempdir");
    for _ in 0..2 {
        let output = Command::new(binary())
            .arg("migrate")
            .env("DOCSIEVE__STORAGE__DATA_DIR", dir.path())
            .output()
            .expect("run");
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    assert!(dir.path().join("docsieve.sqlite3").exists());
}
