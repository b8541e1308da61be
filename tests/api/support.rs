//! Starting and stopping real servers for the tests (an SMTP sink and the tokens of mails: `mail.rs`).

#![allow(dead_code)]

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use sea_orm::{ConnectionTrait, Database, Statement};

use crate::mail::token_in_mail;

pub const INTERNAL_TOKEN: &str = "test-internal-token";

pub fn binary() -> &'static str {
    time_this_test();
    env!("CARGO_BIN_EXE_docsieve")
}

/// The running test's clock: started by the first server or command a test starts, and written when
/// the test's thread ends (libtest runs each test on a thread named after it), pass or fail, as
/// `seconds<TAB>test<TAB>backend` to the file `DOCSIEVE_TEST_TIMES` names, if any. `.ci/run` prints
/// the slowest of each run from it.
struct TestClock {
    started: Instant,
    file: PathBuf,
    backend: &'static str,
}

impl Drop for TestClock {
    fn drop(&mut self) {
        use std::io::Write;
        let thread = std::thread::current();
        let name = thread.name().unwrap_or("unnamed");
        let line = format!(
            "{:.2}\t{name}\t{}\n",
            self.started.elapsed().as_secs_f64(),
            self.backend
        );
        // One write of a short line to a file opened for appending: tests on other threads cannot
        // interleave with it.
        if let Ok(mut file) = File::options().create(true).append(true).open(&self.file) {
            let _ = file.write_all(line.as_bytes());
        }
    }
}

thread_local! {
    static TEST_CLOCK: std::cell::RefCell<Option<TestClock>> = const { std::cell::RefCell::new(None) };
}

fn time_this_test() {
    let Some(file) = std::env::var_os("DOCSIEVE_TEST_TIMES") else {
        return;
    };
    TEST_CLOCK.with(|clock| {
        clock.borrow_mut().get_or_insert_with(|| TestClock {
            started: Instant::now(),
            file: PathBuf::from(file),
            backend: match env_value("DOCSIEVE_TEST_DATABASE_URL") {
                Some(_) => "postgres",
                None => "sqlite",
            },
        });
    });
}

pub fn test_config() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("config/test.toml")
}

fn unique_name(kind: &str) -> String {
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    format!(
        "docsieve_{kind}_{}_{}_{nanos}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}

/// A PostgreSQL database created for one server and dropped with it.
pub struct PgDatabase {
    admin_url: String,
    name: String,
    pub url: String,
}

impl PgDatabase {
    async fn create(admin_url: &str) -> PgDatabase {
        let name = unique_name("t");
        let admin = Database::connect(admin_url).await.unwrap_or_else(|error| {
            panic!("DOCSIEVE_TEST_DATABASE_URL is set but PostgreSQL is unreachable: {error}")
        });
        admin
            .execute(Statement::from_string(
                admin.get_database_backend(),
                format!("CREATE DATABASE \"{name}\""),
            ))
            .await
            .expect("create test database");
        let _ = admin.close().await;
        let mut url = url::Url::parse(admin_url).expect("DOCSIEVE_TEST_DATABASE_URL is a URL");
        url.set_path(&format!("/{name}"));
        PgDatabase {
            admin_url: admin_url.to_string(),
            name,
            url: url.to_string(),
        }
    }
}

impl Drop for PgDatabase {
    fn drop(&mut self) {
        let admin_url = self.admin_url.clone();
        let name = self.name.clone();
        // Drop runs outside any runtime guarantee: use a private one on a plain thread.
        let _ = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("runtime");
            runtime.block_on(async move {
                if let Ok(admin) = Database::connect(&admin_url).await {
                    let _ = admin
                        .execute(Statement::from_string(
                            admin.get_database_backend(),
                            format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"),
                        ))
                        .await;
                    let _ = admin.close().await;
                }
            });
        })
        .join();
    }
}

/// Which services the suite runs against.
pub struct Backends {
    pub database_url: Option<String>,
    pub redis_url: Option<String>,
}

/// The value of the environment variable `name`, unless unset or blank.
fn env_value(name: &str) -> Option<String> {
    std::env::var(name)
        .ok()
        .filter(|value| !value.trim().is_empty())
}

pub fn backends() -> Backends {
    let backends = Backends {
        database_url: env_value("DOCSIEVE_TEST_DATABASE_URL"),
        redis_url: env_value("DOCSIEVE_TEST_REDIS_URL"),
    };
    if std::env::var("CI").is_ok_and(|value| value == "true") {
        if let Some(url) = &backends.redis_url {
            check_redis_reachable(url);
        }
    }
    backends
}

fn check_redis_reachable(url: &str) {
    let parsed = url::Url::parse(url).expect("DOCSIEVE_TEST_REDIS_URL is a URL");
    let host = parsed.host_str().unwrap_or("127.0.0.1").to_string();
    let port = parsed.port().unwrap_or(6379);
    std::net::TcpStream::connect((host.as_str(), port)).unwrap_or_else(|error| {
        panic!("DOCSIEVE_TEST_REDIS_URL is set but Redis is unreachable: {error}")
    });
}

/// A running `docsieve serve`, killed when dropped.
pub struct TestServer {
    child: Option<Child>,
    pub base_url: String,
    pub client: reqwest::Client,
    pub data_dir: tempfile::TempDir,
    pub database: Option<PgDatabase>,
    env: Vec<(String, String)>,
}

/// Options for [`TestServer::start_with`].
#[derive(Default)]
pub struct ServerOptions {
    pub env: Vec<(String, String)>,
}

impl ServerOptions {
    pub fn env(mut self, key: &str, value: &str) -> Self {
        self.env.push((key.to_string(), value.to_string()));
        self
    }
}

impl TestServer {
    pub async fn start() -> TestServer {
        TestServer::start_with(ServerOptions::default()).await
    }

    pub async fn start_with(options: ServerOptions) -> TestServer {
        time_this_test();
        let backends = backends();
        let data_dir = tempfile::tempdir().expect("temporary data dir");
        // A second process on another's store (`same_store`) is given its database: none of its own.
        let given = options
            .env
            .iter()
            .any(|(k, _)| k == "DOCSIEVE__DATABASE__URL");
        let database = match &backends.database_url {
            Some(url) if !given => Some(PgDatabase::create(url).await),
            _ => None,
        };
        let mut env = vec![(
            "DOCSIEVE__STORAGE__DATA_DIR".to_string(),
            data_dir.path().display().to_string(),
        )];
        if let Some(database) = &database {
            env.push(("DOCSIEVE__DATABASE__URL".to_string(), database.url.clone()));
        }
        if let Some(redis) = &backends.redis_url {
            env.push(("DOCSIEVE__REDIS__URL".to_string(), redis.clone()));
            env.push((
                "DOCSIEVE__REDIS__KEY_PREFIX".to_string(),
                format!("{}:", unique_name("r")),
            ));
        }
        env.extend(options.env);
        let mut server = TestServer {
            child: None,
            base_url: String::new(),
            client: reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .timeout(Duration::from_secs(60))
                // The server closes a connection idle for 5 s (actix's keep-alive): one pooled for
                // longer may be closed already, and a POST that writes its body into it fails with a
                // broken pipe, not retried (a test that spent seconds between two calls saw it).
                .pool_idle_timeout(Duration::from_secs(2))
                .build()
                .expect("http client"),
            data_dir,
            database,
            env,
        };
        server.spawn();
        server
    }

    fn stderr_path(&self) -> PathBuf {
        self.data_dir.path().join("server.stderr.log")
    }

    /// Starts the process (again, after [`TestServer::stop`]) on the same data dir and database.
    pub fn spawn(&mut self) {
        let stderr = File::options()
            .create(true)
            .append(true)
            .open(self.stderr_path())
            .expect("stderr log");
        let mut child = Command::new(binary())
            .arg("--config")
            .arg(test_config())
            .arg("serve")
            .envs(self.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(stderr))
            .spawn()
            .expect("start docsieve");
        let stdout = child.stdout.take().expect("stdout");
        let (sender, receiver) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut sent = false;
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if !sent {
                    if let Some(address) = line.strip_prefix("docsieve listening on ") {
                        let _ = sender.send(address.trim().to_string());
                        sent = true;
                    }
                }
            }
        });
        match receiver.recv_timeout(Duration::from_secs(60)) {
            Ok(address) => self.base_url = address,
            Err(_) => {
                let _ = child.kill();
                panic!(
                    "server did not start; its stderr:\n{}",
                    std::fs::read_to_string(self.stderr_path()).unwrap_or_default()
                );
            }
        }
        self.child = Some(child);
    }

    /// Options of a second process on this server's store: the same database, blob folder (and server
    /// secret) and Redis prefix.
    pub fn same_store(&self) -> ServerOptions {
        let mut options = ServerOptions::default().env(
            "DOCSIEVE__STORAGE__DATA_DIR",
            &self.data_dir.path().display().to_string(),
        );
        if let Some(url) = self.env_value("DOCSIEVE__DATABASE__URL") {
            options = options.env("DOCSIEVE__DATABASE__URL", &url);
        }
        if let Some(prefix) = self.env_value("DOCSIEVE__REDIS__KEY_PREFIX") {
            options = options.env("DOCSIEVE__REDIS__KEY_PREFIX", &prefix);
        }
        options
    }

    /// A `docsieve` command (`keys rotate`, say) with this server's configuration and environment.
    pub fn command(&self, args: &[&str]) -> std::process::Output {
        Command::new(binary())
            .arg("--config")
            .arg(test_config())
            .args(args)
            .envs(self.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .stdin(Stdio::null())
            .output()
            .expect("run docsieve")
    }

    /// The value this server was started with for an environment variable (the last one set).
    pub fn env_value(&self, key: &str) -> Option<String> {
        self.env
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base_url)
    }

    pub fn stderr(&self) -> String {
        std::fs::read_to_string(self.stderr_path()).unwrap_or_default()
    }

    pub fn pid(&self) -> u32 {
        self.child.as_ref().map(|c| c.id()).expect("server running")
    }

    /// Sends SIGTERM and waits (at most `limit`) for the exit status.
    pub fn terminate(&mut self, limit: Duration) -> Option<ExitStatus> {
        let mut child = self.child.take()?;
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(child.id().to_string())
            .status();
        let started = Instant::now();
        while started.elapsed() < limit {
            if let Ok(Some(status)) = child.try_wait() {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = child.kill();
        let _ = child.wait();
        None
    }

    /// Kills the process at once (SIGKILL), like a crash.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    pub async fn get(&self, path: &str) -> reqwest::Response {
        self.client.get(self.url(path)).send().await.expect("GET")
    }

    pub async fn get_json(&self, path: &str) -> (u16, serde_json::Value) {
        json_of(self.get(path).await).await
    }

    /// A request with the internal token set.
    pub fn internal(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        self.client
            .request(method, self.url(path))
            .header("X-Internal-Token", INTERNAL_TOKEN)
    }

    /// Polls `check` until it returns true or `limit` passes.
    pub async fn eventually<F, Fut>(&self, limit: Duration, mut check: F) -> bool
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = bool>,
    {
        let started = Instant::now();
        while started.elapsed() < limit {
            if check().await {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        false
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.kill();
    }
}

pub async fn json_of(response: reqwest::Response) -> (u16, serde_json::Value) {
    let status = response.status().as_u16();
    let body = response.text().await.expect("body");
    let json = serde_json::from_str(&body)
        .unwrap_or_else(|_| panic!("status {status}: body is not JSON: {body}"));
    (status, json)
}

impl TestServer {
    /// Every mail of `kind` (`verify_email`, `reset_password`, `invitation`) in the outbox, oldest first.
    pub fn outbox(&self, kind: &str) -> Vec<String> {
        let folder = self.data_dir.path().join("outbox");
        let mut names: Vec<_> = std::fs::read_dir(&folder)
            .map(|entries| {
                entries
                    .filter_map(Result::ok)
                    .map(|entry| entry.file_name().to_string_lossy().to_string())
                    .filter(|name| name.ends_with(".eml") && name.contains(&format!("-{kind}-")))
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
            .into_iter()
            .filter_map(|name| std::fs::read_to_string(folder.join(name)).ok())
            .collect()
    }

    /// Waits for the `n`-th mail of `kind` (1-based) and returns its token.
    pub async fn mailed_token(&self, kind: &str, n: usize) -> String {
        for _ in 0..200 {
            if let Some(mail) = self.outbox(kind).get(n - 1) {
                return token_in_mail(mail).expect("mail carries a token");
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        panic!("no mail number {n} of kind {kind} in the outbox");
    }

    pub async fn post_json(&self, path: &str, body: serde_json::Value) -> (u16, serde_json::Value) {
        json_of(
            self.client
                .post(self.url(path))
                .json(&body)
                .send()
                .await
                .expect("POST"),
        )
        .await
    }

    /// Signs up, verifies through the mailed token and logs in; returns (login data, user id, tenant id).
    pub async fn verified_account(
        &self,
        email: &str,
        password: &str,
    ) -> (serde_json::Value, i64, i64) {
        let before = self.outbox("verify_email").len();
        let (status, body) = self
            .post_json(
                "/v1/auth/signup",
                serde_json::json!({"email": email, "password": password}),
            )
            .await;
        assert_eq!(status, 201, "{body}");
        let token = self.mailed_token("verify_email", before + 1).await;
        let (status, verified) = self
            .post_json("/v1/auth/verify-email", serde_json::json!({"token": token}))
            .await;
        assert_eq!(status, 200, "{verified}");
        let (status, login) = self
            .post_json(
                "/v1/auth/login",
                serde_json::json!({"email": email, "password": password}),
            )
            .await;
        assert_eq!(status, 200, "{login}");
        (
            login["data"].clone(),
            body["data"]["user_id"].as_i64().expect("user id"),
            body["data"]["tenant_id"].as_i64().expect("tenant id"),
        )
    }

    /// A request carrying `Authorization: Bearer <token>`.
    pub fn bearer(
        &self,
        method: reqwest::Method,
        path: &str,
        token: &str,
    ) -> reqwest::RequestBuilder {
        self.client
            .request(method, self.url(path))
            .bearer_auth(token)
    }

    /// A request carrying `X-API-KEY`.
    pub fn with_key(
        &self,
        method: reqwest::Method,
        path: &str,
        key: &str,
    ) -> reqwest::RequestBuilder {
        self.client
            .request(method, self.url(path))
            .header("X-API-KEY", key)
    }

    /// Moves the server's clock forward (testing endpoint), once the scheduler has looked at the
    /// billing cycle. That duty's first look records the current firing without running it (a new
    /// deployment has missed nothing): a clock moved before it would make the 1st of next month the
    /// deployment's start, not a firing it must run. A server that has been running has looked;
    /// this one is waited for until it has (within a tick or two of its start).
    pub async fn advance_clock(&self, seconds: i64) {
        let looked = self
            .eventually(Duration::from_secs(20), || async {
                self.query_strings(
                    "SELECT CAST(COUNT(*) AS TEXT) FROM clock_ticks WHERE id = 'billing_cycle'",
                )
                .await
                .first()
                .is_some_and(|count| count == "1")
            })
            .await;
        assert!(
            looked,
            "the scheduler never looked at the billing cycle\n{}",
            self.stderr()
        );
        let response = self
            .internal(
                reqwest::Method::POST,
                &format!("/system/testing/clock/advance?seconds={seconds}"),
            )
            .send()
            .await
            .expect("advance clock");
        assert_eq!(response.status(), 200);
    }

    /// Runs `sql` against the server's database and returns the first column of each row as text.
    pub async fn query_strings(&self, sql: &str) -> Vec<String> {
        let db = self.database_connection("ro").await;
        let rows = db
            .query_all(Statement::from_string(
                db.get_database_backend(),
                sql.to_string(),
            ))
            .await
            .expect("query");
        let values = rows
            .iter()
            .map(|row| row.try_get_by_index::<String>(0).unwrap_or_default())
            .collect();
        let _ = db.close().await;
        values
    }

    /// Runs a statement that writes (`sql`) against the server's database, as a crash would have
    /// left it; how many rows it touched.
    pub async fn execute_sql(&self, sql: &str) -> u64 {
        let db = self.database_connection("rw").await;
        let done = db
            .execute(Statement::from_string(
                db.get_database_backend(),
                sql.to_string(),
            ))
            .await
            .expect("statement");
        let _ = db.close().await;
        done.rows_affected()
    }

    /// Whether the server runs on PostgreSQL.
    pub fn on_postgres(&self) -> bool {
        self.env_value("DOCSIEVE__DATABASE__URL")
            .is_some_and(|url| url.starts_with("postgres"))
    }

    async fn database_connection(&self, sqlite_mode: &str) -> sea_orm::DatabaseConnection {
        // The database the process runs on: its own, or the first one's for a second process on the
        // same store (`same_store`, whose own database and data dir go unused).
        let url = match self.env_value("DOCSIEVE__DATABASE__URL") {
            Some(url) => url,
            None => format!(
                "sqlite://{}?mode={sqlite_mode}",
                Path::new(
                    &self
                        .env_value("DOCSIEVE__STORAGE__DATA_DIR")
                        .unwrap_or_else(|| self.data_dir.path().display().to_string())
                )
                .join("docsieve.sqlite3")
                .display()
            ),
        };
        Database::connect(&url)
            .await
            .expect("connect to the test database")
    }
}

/// Whether the command-line tool `program` answers `--version`: when it does not, false outside CI
/// (the caller skips its test), and a failure in CI, which must run every test (`install` says how
/// to get it).
pub fn tool_present(program: &str, install: &str) -> bool {
    let present = std::process::Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|output| output.status.success());
    if !present {
        assert!(
            !std::env::var("CI").is_ok_and(|value| value == "true"),
            "{program} is not installed ({install}); CI must run this test"
        );
        eprintln!("skipping: {program} is not installed ({install})");
    }
    present
}

/// The `Content-Security-Policy` of `response`, which holds each of `directives`.
pub fn policy_holding(response: &reqwest::Response, directives: &[&str]) -> String {
    let policy = response.headers()["content-security-policy"]
        .to_str()
        .expect("ascii")
        .to_string();
    for directive in directives {
        assert!(policy.contains(directive), "{directive}: {policy}");
    }
    policy
}
