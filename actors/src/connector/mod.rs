//! Storage connectors at work: an `object_store` client built from a stored connector (S3, Azure Blob,
//! GCS), the connection test, bounded reads of objects, streamed writes of exports, and every provider
//! failure turned into one of a few codes a user can act on (`bad_credentials`, `bucket_not_found`,
//! `permission_denied`, `object_not_found`, `unreachable`, `timeout`, `provider_error`), and
//! `target_refused` when the egress guard refuses where a connector would send its requests
//! ([`guard`]).
//!
//! Secrets are opened here, handed to the client builder and dropped; no message built here holds one.

mod failure;
mod guard;
mod ingest;
mod sync;

use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use futures_util::StreamExt;
use object_store::aws::AmazonS3Builder;
use object_store::azure::MicrosoftAzureBuilder;
use object_store::gcp::GoogleCloudStorageBuilder;
use object_store::path::Path;
use object_store::{
    BackoffConfig, ClientOptions, GetOptions, GetRange, ObjectMeta, ObjectStore, RetryConfig,
    WriteMultipart,
};
use serde_json::{Map, Value};

use crate::metric_names as names;
use crate::secrets::SecretBox;
use crate::settings::ConnectorsSettings;
use crate::store::ConnectorRecord;
use failure::{classify, first_line, Operation};
pub use failure::{ConnectorError, FailureCode};
pub use guard::{check_field, STEERING_KEY_FIELDS};
pub use ingest::{fetch_document, object_name, process_job, Fetched};
pub use sync::{run_sync, Trigger};

/// What connector work needs: the stores, the secrets' key and the settings that bound it.
#[derive(Clone)]
pub struct ConnectorServices {
    pub store: crate::store::Store,
    pub blobs: crate::blob::Blobs,
    pub cache: Arc<dyn crate::cache::Cache>,
    pub clock: crate::clock::Clock,
    pub secrets: SecretBox,
    pub settings: ConnectorsSettings,
    pub jobs: crate::settings::JobsSettings,
    pub plans: crate::settings::PlansSettings,
}

/// The outcome of `POST /v1/connectors/{id}/test`.
#[derive(Clone, Debug, serde::Serialize, utoipa::ToSchema)]
#[serde(untagged)]
#[schema(as = ConnectionTest)]
pub enum TestOutcome {
    /// The bucket answered: `ok` is true.
    Ok {
        ok: bool,
        objects_seen: usize,
        latency_ms: u64,
    },
    /// The provider refused or could not be reached: `ok` is false, `code` says why
    /// (`bad_credentials`, `bucket_not_found`, `permission_denied`, `unreachable`, `timeout`,
    /// `provider_error`, `target_refused`).
    Failed {
        ok: bool,
        #[schema(value_type = crate::error_code::RecordCode)]
        code: &'static str,
        message: String,
    },
}

/// A connector ready to talk to its provider.
#[derive(Clone)]
pub struct Connector {
    pub id: i64,
    pub tenant_id: i64,
    pub kind: String,
    store: Arc<dyn ObjectStore>,
    /// The connector's default prefix (scheduled syncs use it when theirs is not set).
    pub prefix: Option<String>,
    /// The bucket or container, for messages.
    pub bucket: String,
}

fn text(config: &Map<String, Value>, key: &str) -> Option<String> {
    config
        .get(key)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

impl Connector {
    /// The client of a stored connector: its secrets opened with `secrets`, its requests bounded by
    /// `settings`. `bad_credentials` when the secrets cannot be opened or do not parse (a GCS key).
    pub fn open(
        record: &ConnectorRecord,
        secrets: &SecretBox,
        settings: &ConnectorsSettings,
    ) -> Result<Connector, ConnectorError> {
        let public = record
            .config_public
            .as_object()
            .cloned()
            .unwrap_or_default();
        let sealed: Map<String, Value> = secrets
            .open(&record.config_secret_encrypted)
            .and_then(|plain| serde_json::from_str(&plain).ok())
            .ok_or_else(|| {
                ConnectorError::new(
                    FailureCode::BadCredentials,
                    "the connector's stored secrets cannot be opened (was the server secret changed?); create the connector again",
                )
            })?;
        let endpoint = text(&public, "endpoint");
        // Checked again at use, with the settings in force now: a connector stored before a rule
        // existed, or before private endpoints were turned off, is refused here.
        for (field, value) in &public {
            let value = value.as_str().unwrap_or_default();
            guard::check_field(&record.connector_type, field, value).map_err(|reason| {
                ConnectorError::new(FailureCode::Refused, format!("config.{field} {reason}"))
            })?;
        }
        if let Some(endpoint) = &endpoint {
            crate::egress::check_url(endpoint)
                .and_then(|url| {
                    crate::egress::check_literal(&url, settings.allow_private_endpoints)
                })
                .map_err(|reason| {
                    ConnectorError::new(FailureCode::Refused, format!("config.endpoint: {reason}"))
                })?;
        }
        let http = || guard::GuardedConnector {
            allow_private: settings.allow_private_endpoints,
            allow_http: endpoint
                .as_deref()
                .is_some_and(|e| e.starts_with("http://")),
            timeout: Duration::from_millis(settings.request_timeout_ms),
            connect_timeout: Duration::from_millis(settings.connect_timeout_ms),
        };
        let options = ClientOptions::new()
            .with_timeout(Duration::from_millis(settings.request_timeout_ms))
            .with_connect_timeout(Duration::from_millis(settings.connect_timeout_ms))
            .with_allow_http(
                endpoint
                    .as_deref()
                    .is_some_and(|e| e.starts_with("http://")),
            );
        let retry = RetryConfig {
            backoff: BackoffConfig {
                init_backoff: Duration::from_millis(100),
                max_backoff: Duration::from_secs(2),
                base: 2.0,
            },
            max_retries: settings.max_retries,
            retry_timeout: Duration::from_millis(
                settings.request_timeout_ms * (settings.max_retries as u64 + 1),
            ),
        };
        let build_error = |error: object_store::Error| {
            ConnectorError::new(
                FailureCode::BadCredentials,
                format!(
                    "the connector's configuration is not usable: {}",
                    first_line(&error.to_string())
                ),
            )
        };
        let (store, bucket): (Arc<dyn ObjectStore>, String) = match record.connector_type.as_str() {
            "s3" => {
                let bucket = text(&public, "bucket").unwrap_or_default();
                let mut builder = AmazonS3Builder::new()
                    .with_bucket_name(&bucket)
                    .with_region(text(&public, "region").unwrap_or_default())
                    .with_access_key_id(text(&public, "aws_access_key_id").unwrap_or_default())
                    .with_secret_access_key(
                        text(&sealed, "aws_secret_access_key").unwrap_or_default(),
                    )
                    .with_client_options(options)
                    .with_http_connector(http())
                    .with_retry(retry);
                if let Some(endpoint) = &endpoint {
                    builder = builder
                        .with_endpoint(endpoint)
                        .with_virtual_hosted_style_request(false);
                }
                (
                    Arc::new(built(|| builder.build()).map_err(build_error)?),
                    bucket,
                )
            }
            "azure_blob" => {
                let container = text(&public, "container_name").unwrap_or_default();
                let mut builder = MicrosoftAzureBuilder::new()
                    .with_account(text(&public, "account_name").unwrap_or_default())
                    .with_container_name(&container)
                    .with_access_key(text(&sealed, "account_key").unwrap_or_default())
                    .with_client_options(options)
                    .with_http_connector(http())
                    .with_retry(retry);
                if let Some(endpoint) = &endpoint {
                    builder = builder.with_endpoint(endpoint.trim_end_matches('/').to_string());
                }
                (
                    Arc::new(built(|| builder.build()).map_err(build_error)?),
                    container,
                )
            }
            "gcs" => {
                let bucket = text(&public, "bucket").unwrap_or_default();
                let key = match sealed.get("service_account_key") {
                    Some(Value::String(key)) => serde_json::from_str::<Value>(key).ok(),
                    Some(Value::Object(key)) => Some(Value::Object(key.clone())),
                    _ => None,
                };
                // Whatever a stored key says, only the `endpoint` field steers requests.
                let key = key.map(|mut key| {
                    if let Some(key) = key.as_object_mut() {
                        for field in guard::STEERING_KEY_FIELDS {
                            key.remove(field);
                        }
                    }
                    key.to_string()
                });
                // The endpoint goes in the key (`gcs_base_url`); an emulator without a key is asked
                // without OAuth.
                let key = match (key, &endpoint) {
                    (Some(key), Some(endpoint)) => {
                        let mut parsed: Map<String, Value> =
                            serde_json::from_str(&key).map_err(|_| {
                                ConnectorError::new(
                                    FailureCode::BadCredentials,
                                    "service_account_key is not a JSON object",
                                )
                            })?;
                        parsed.insert("gcs_base_url".into(), endpoint.trim_end_matches('/').into());
                        Value::Object(parsed).to_string()
                    }
                    (Some(key), None) => key,
                    (None, Some(endpoint)) => serde_json::json!({
                        "gcs_base_url": endpoint.trim_end_matches('/'),
                        "disable_oauth": true,
                        "client_email": "",
                        "private_key": "",
                        "private_key_id": "",
                    })
                    .to_string(),
                    (None, None) => String::new(),
                };
                let builder = GoogleCloudStorageBuilder::new()
                    .with_bucket_name(&bucket)
                    .with_service_account_key(key)
                    .with_client_options(options)
                    .with_http_connector(http())
                    .with_retry(retry);
                (
                    Arc::new(built(|| builder.build()).map_err(build_error)?),
                    bucket,
                )
            }
            other => {
                return Err(ConnectorError::new(
                    FailureCode::ProviderError,
                    format!("connectors of type {other} are not supported"),
                ))
            }
        };
        Ok(Connector {
            id: record.id,
            tenant_id: record.tenant_id,
            kind: record.connector_type.clone(),
            store,
            prefix: text(&public, "prefix"),
            bucket,
        })
    }

    /// Lists one page of objects under the prefix and reads the first bytes of the first object.
    pub async fn test(&self) -> TestOutcome {
        let started = Instant::now();
        let outcome = unpanicked(async {
            let objects = self.list(self.prefix.as_deref(), 1000).await?;
            if let Some(first) = objects.first() {
                self.read_head(first.location.as_ref(), 1024).await?;
            }
            Ok::<usize, ConnectorError>(objects.len())
        })
        .await;
        match outcome {
            Ok(objects_seen) => TestOutcome::Ok {
                ok: true,
                objects_seen,
                latency_ms: started.elapsed().as_millis() as u64,
            },
            Err(error) => TestOutcome::Failed {
                ok: false,
                code: error.code.as_str(),
                message: error.message,
            },
        }
    }

    /// The objects under `prefix` (the whole bucket without one), in the provider's order, page by
    /// page as they are read.
    pub fn listing(
        &self,
        prefix: Option<&str>,
    ) -> futures_util::stream::BoxStream<'static, Result<ObjectMeta, ConnectorError>> {
        let prefix = prefix.map(|p| Path::from(p.trim_matches('/')));
        let kind = self.kind.clone();
        std::panic::AssertUnwindSafe(self.store.list(prefix.as_ref()))
            .catch_unwind()
            .map(move |item| {
                let item = item.map_err(|_| {
                    ConnectorError::new(
                        FailureCode::ProviderError,
                        "listing objects: the storage library failed on this connector's request",
                    )
                })?;
                let meta = item.map_err(|error| classify(&error, Operation::List))?;
                metrics::counter!(names::CONNECTOR_OBJECTS_LISTED_TOTAL, "type" => kind.clone())
                    .increment(1);
                Ok(meta)
            })
            .boxed()
    }

    /// Up to `max` objects under `prefix`.
    pub async fn list(
        &self,
        prefix: Option<&str>,
        max: usize,
    ) -> Result<Vec<ObjectMeta>, ConnectorError> {
        let mut listing = self.listing(prefix);
        let mut objects = Vec::new();
        while objects.len() < max {
            match listing.next().await {
                Some(meta) => objects.push(meta?),
                None => break,
            }
        }
        Ok(objects)
    }

    /// The first `max` bytes of an object.
    async fn read_head(&self, key: &str, max: u64) -> Result<Bytes, ConnectorError> {
        let options = GetOptions {
            range: Some(GetRange::Bounded(0..max)),
            ..GetOptions::default()
        };
        let result = self
            .store
            .get_opts(&object_path(key)?, options)
            .await
            .map_err(|error| classify(&error, Operation::Read(key)));
        match result {
            Ok(result) => result
                .bytes()
                .await
                .map_err(|error| classify(&error, Operation::Read(key))),
            // An empty object has no byte 0: read it whole.
            Err(_) => self
                .store
                .get(&object_path(key)?)
                .await
                .map_err(|error| classify(&error, Operation::Read(key)))?
                .bytes()
                .await
                .map_err(|error| classify(&error, Operation::Read(key))),
        }
    }

    /// The whole object, streamed and given up past `max_bytes` (`Ok(None)`), with its metadata as
    /// read (its ETag is the one of the bytes returned).
    pub async fn fetch(
        &self,
        key: &str,
        max_bytes: u64,
    ) -> Result<Option<(Vec<u8>, ObjectMeta)>, ConnectorError> {
        unpanicked(self.fetch_unguarded(key, max_bytes)).await
    }

    async fn fetch_unguarded(
        &self,
        key: &str,
        max_bytes: u64,
    ) -> Result<Option<(Vec<u8>, ObjectMeta)>, ConnectorError> {
        let result = self
            .store
            .get(&object_path(key)?)
            .await
            .map_err(|error| classify(&error, Operation::Read(key)))?;
        if result.meta.size > max_bytes {
            return Ok(None);
        }
        let meta = result.meta.clone();
        let mut bytes = Vec::with_capacity(meta.size as usize);
        let mut stream = result.into_stream();
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.map_err(|error| classify(&error, Operation::Read(key)))?;
            if (bytes.len() + chunk.len()) as u64 > max_bytes {
                return Ok(None);
            }
            bytes.extend_from_slice(&chunk);
        }
        metrics::counter!(names::CONNECTOR_BYTES_FETCHED_TOTAL, "type" => self.kind.clone())
            .increment(bytes.len() as u64);
        Ok(Some((bytes, meta)))
    }

    /// Writes `parts` to `key` as one object, in a multipart upload (parts of 5 MiB and more go up
    /// while the rest is still being read). Returns the bytes written.
    pub async fn upload<S, E>(&self, key: &str, parts: S) -> Result<u64, ConnectorError>
    where
        S: futures_util::Stream<Item = Result<Bytes, E>> + Unpin,
        E: std::fmt::Display,
    {
        unpanicked(self.upload_unguarded(key, parts)).await
    }

    async fn upload_unguarded<S, E>(&self, key: &str, mut parts: S) -> Result<u64, ConnectorError>
    where
        S: futures_util::Stream<Item = Result<Bytes, E>> + Unpin,
        E: std::fmt::Display,
    {
        let path = object_path(key)?;
        let upload = self
            .store
            .put_multipart(&path)
            .await
            .map_err(|error| classify(&error, Operation::Write(key)))?;
        let mut writer = WriteMultipart::new(upload);
        let mut written = 0u64;
        while let Some(part) = parts.next().await {
            let part = match part {
                Ok(part) => part,
                Err(error) => {
                    let _ = writer.abort().await;
                    return Err(ConnectorError::new(
                        FailureCode::ProviderError,
                        format!("writing {key}: the export could not be read: {error}"),
                    ));
                }
            };
            if let Err(error) = writer.wait_for_capacity(4).await {
                return Err(classify(&error, Operation::Write(key)));
            }
            written += part.len() as u64;
            writer.put(part);
        }
        writer
            .finish()
            .await
            .map_err(|error| classify(&error, Operation::Write(key)))?;
        Ok(written)
    }
}

/// A client built with `build`, a panic in the storage library turned into an error of its own.
fn built<S>(build: impl FnOnce() -> object_store::Result<S>) -> object_store::Result<S> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(build)).unwrap_or_else(|_| {
        Err(object_store::Error::Generic {
            store: "connector",
            source: "the storage library failed on this configuration".into(),
        })
    })
}

/// Runs a provider call; a panic inside the storage library fails that call with `provider_error`
/// instead of ending the request (or the sync) without an answer.
async fn unpanicked<T>(
    call: impl std::future::Future<Output = Result<T, ConnectorError>>,
) -> Result<T, ConnectorError> {
    use futures_util::FutureExt;
    std::panic::AssertUnwindSafe(call)
        .catch_unwind()
        .await
        .unwrap_or_else(|_| {
            Err(ConnectorError::new(
                FailureCode::ProviderError,
                "the storage library failed on this connector's request",
            ))
        })
}

/// An object key as a path: refused when it is not one a provider would have listed.
fn object_path(key: &str) -> Result<Path, ConnectorError> {
    Path::parse(key).map_err(|_| {
        ConnectorError::new(
            FailureCode::ObjectNotFound,
            format!("{key} is not a valid object key"),
        )
    })
}
