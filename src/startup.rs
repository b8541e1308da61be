//! Application::build: settings in, a bound server and running actors out; and the ordered shutdown.

use std::io::Write;
use std::net::{SocketAddr, TcpListener};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use actix_web::middleware::from_fn;
use actix_web::{web, App, HttpServer};
use anyhow::Context;
use docsieve_actors::blob::Blobs;
use docsieve_actors::clock::Clock;
use docsieve_actors::metric_names;
use docsieve_actors::store::{Store, StoreSettings};
use docsieve_actors::system::ActorSystem;
use metrics_exporter_prometheus::PrometheusHandle;
use utoipa::OpenApi;
use utoipa_actix_web::AppExt;
use utoipa_swagger_ui::SwaggerUi;

use crate::api::{self, ApiDoc, RouteTable};
use crate::config::Settings;
use crate::error::{ApiError, ErrorCode, ValidationDetail};
use crate::state::AppState;
use docsieve_actors::llm::Llm;

pub struct Application {
    server: actix_web::dev::Server,
    address: SocketAddr,
    actors: ActorSystem,
    store: Store,
    upkeep: tokio::task::JoinHandle<()>,
    shutdown_timeout_seconds: u64,
}

/// The store settings derived from the config.
pub fn store_settings(settings: &Settings) -> StoreSettings {
    StoreSettings {
        url: settings.database_url(),
        max_connections: settings.database.max_connections,
        busy_timeout: Duration::from_millis(settings.database.busy_timeout_ms),
        connect_timeout: Duration::from_millis(settings.database.connect_timeout_ms),
        audit_linger: Duration::from_millis(settings.database.audit_linger_ms),
        small_max_bytes: settings.jobs.small_max_bytes as i64,
    }
}

/// How extraction workers start: this executable in its `extract-worker` mode. None with
/// `extraction.isolation = "thread"`.
fn worker_command(
    settings: &Settings,
) -> anyhow::Result<Option<docsieve_actors::extractor_pool::WorkerCommand>> {
    if settings.extraction.isolation != "process" {
        return Ok(None);
    }
    let program = std::env::current_exe().context("finding the docsieve executable")?;
    let args = vec![
        "extract-worker".to_string(),
        "--memory-mb".to_string(),
        settings.extraction.worker_memory_mb.to_string(),
        "--log-format".to_string(),
        settings.log.format.clone(),
    ];
    Ok(Some(docsieve_actors::extractor_pool::WorkerCommand {
        program,
        args,
        max_documents: settings.extraction.worker_max_documents,
        preview_workers: settings.extraction.preview_workers,
    }))
}

/// Reads the JWT secret kept in the data dir, creating it (owner-only) on first start.
fn ensure_jwt_secret(settings: &mut Settings) -> anyhow::Result<()> {
    if !settings.auth.jwt_secret.is_empty() {
        return Ok(());
    }
    let path = settings.storage.data_dir.join("jwt_secret");
    if let Ok(existing) = std::fs::read_to_string(&path) {
        let existing = existing.trim();
        if existing.len() >= 32 {
            settings.auth.jwt_secret = existing.to_string();
            return Ok(());
        }
    }
    use rand::RngCore;
    let mut bytes = [0u8; 48];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    let secret = hex::encode(bytes);
    write_private(&path, secret.as_bytes())
        .with_context(|| format!("writing the generated JWT secret to {}", path.display()))?;
    settings.auth.jwt_secret = secret;
    Ok(())
}

fn write_private(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(path)?.write_all(contents)
}

fn query_error(error: actix_web::error::QueryPayloadError) -> ApiError {
    ApiError::validation(vec![ValidationDetail::new(
        "query",
        "",
        error.to_string(),
        "value_error",
    )])
}

fn path_error(error: actix_web::error::PathError) -> ApiError {
    ApiError::validation(vec![ValidationDetail::new(
        "path",
        "",
        error.to_string(),
        "value_error",
    )])
}

fn json_error(error: actix_web::error::JsonPayloadError, limit: usize) -> ApiError {
    use actix_web::error::JsonPayloadError;
    match error {
        JsonPayloadError::OverflowKnownLength { .. } | JsonPayloadError::Overflow { .. } => {
            ApiError::payload_too_large(limit)
        }
        JsonPayloadError::ContentType => ApiError::new(
            crate::error::ErrorKind::UnsupportedMediaType,
            ErrorCode::UnsupportedMediaType,
            "expected Content-Type: application/json",
        ),
        other => ApiError::validation(vec![ValidationDetail::new(
            "body",
            "",
            other.to_string(),
            "value_error.jsondecode",
        )]),
    }
}

/// `/docs` without the trailing slash: Swagger UI's relative asset paths need the slash.
async fn docs_redirect() -> actix_web::HttpResponse {
    actix_web::HttpResponse::PermanentRedirect()
        .insert_header((actix_web::http::header::LOCATION, "/docs/"))
        .finish()
}

/// The actors' services, from the settings and the shared stores (which connector work holds too).
fn actor_services(
    settings: &Settings,
    connectors: &docsieve_actors::connector::ConnectorServices,
    privacy: &docsieve_actors::privacy::Privacy,
    receipts: &Arc<docsieve_actors::receipts::ReceiptSigner>,
) -> anyhow::Result<docsieve_actors::system::Services> {
    let docsieve_actors::connector::ConnectorServices {
        store,
        blobs,
        cache,
        clock,
        secrets,
        ..
    } = connectors;
    let exports = docsieve_actors::dataset_exporter::ExportServices {
        store: store.clone(),
        blobs: blobs.clone(),
        clock: clock.clone(),
        settings: settings.datasets.clone(),
        plans: settings.plans.clone(),
        scratch_dir: settings.storage.data_dir.join("tmp"),
    };
    Ok(docsieve_actors::system::Services {
        extraction: worker_command(settings)?,
        jobs: docsieve_actors::job_router::JobServices {
            store: store.clone(),
            blobs: blobs.clone(),
            cache: cache.clone(),
            clock: clock.clone(),
            jobs: settings.jobs.clone(),
            limits: settings.extraction.limits.clone(),
            privacy: privacy.clone(),
        },
        exports: exports.clone(),
        billing: docsieve_actors::scheduler::BillingServices {
            store: store.clone(),
            clock: clock.clone(),
            plans: settings.plans.clone(),
            cycle: settings.billing.schedule().map_err(anyhow::Error::msg)?,
            poll_interval: std::time::Duration::from_secs(settings.billing.poll_interval_seconds),
        },
        fine_tune: docsieve_actors::fine_tuner::FineTuneServices {
            store: store.clone(),
            blobs: blobs.clone(),
            cache: cache.clone(),
            clock: clock.clone(),
            settings: settings.fine_tune.clone(),
            scratch_dir: settings.storage.data_dir.join("tmp"),
            owner: docsieve_actors::store::new_id("process"),
            tick: std::time::Duration::from_secs(1),
        },
        connectors: connectors.clone(),
        webhooks: docsieve_actors::webhook_sender::WebhookServices {
            store: store.clone(),
            cache: cache.clone(),
            clock: clock.clone(),
            settings: settings.webhooks.clone(),
            secrets: secrets.clone(),
            exports: exports.clone(),
            connectors: connectors.clone(),
        },
        receipts: receipts.clone(),
    })
}

/// What connector work (source-mode uploads, syncs, auto-exports) needs.
fn connector_services(
    settings: &Settings,
    store: &Store,
    blobs: &Blobs,
    cache: &Arc<dyn docsieve_actors::cache::Cache>,
    clock: &Clock,
    secrets: &docsieve_actors::secrets::SecretBox,
) -> docsieve_actors::connector::ConnectorServices {
    docsieve_actors::connector::ConnectorServices {
        store: store.clone(),
        blobs: blobs.clone(),
        cache: cache.clone(),
        clock: clock.clone(),
        secrets: secrets.clone(),
        settings: settings.connectors.clone(),
        jobs: settings.jobs.clone(),
        plans: settings.plans.clone(),
    }
}

/// The master keys in force (`DOCSIEVE_MASTER_KEY`, `storage.master_key_file`, or the generated
/// `<data_dir>/master_key`).
pub fn master_keys(settings: &Settings) -> anyhow::Result<docsieve_actors::blob::MasterKeys> {
    let file = &settings.storage.master_key_file;
    let file = (!file.trim().is_empty()).then(|| Path::new(file.trim()));
    docsieve_actors::blob::MasterKeys::load(file, &settings.storage.data_dir)
        .context("reading the master key (storage.master_key_file, DOCSIEVE_MASTER_KEY)")
}

/// The blob store, sealing under the tenants' data keys.
pub fn open_blobs(settings: &Settings, store: &Store) -> anyhow::Result<Blobs> {
    let ring = docsieve_actors::blob::KeyRing::new(store.clone(), master_keys(settings)?);
    Ok(
        Blobs::open(&settings.storage.blob_url, &settings.storage.data_dir)
            .context("opening blob storage (storage.blob_url)")?
            .sealed(Arc::new(ring)),
    )
}

/// Opens what the server holds (database, blobs, cache, LLM probe, mail) and starts the actors.
async fn open_state(
    settings: Settings,
    metrics: PrometheusHandle,
) -> anyhow::Result<(AppState, ActorSystem)> {
    let store_settings = store_settings(&settings);
    Store::migrate(&store_settings)
        .await
        .context("migrating the database (database.url)")?;
    let store = Store::connect(&store_settings)
        .await
        .context("connecting to the database (database.url)")?;
    // What completed jobs queued for the subject index before the last stop: indexed now.
    store.nudge_subject_indexer();
    let blobs = open_blobs(&settings, &store)?;
    // Rows from before document-derived values were sealed: sealed now (docs/operations.md).
    let sealed = store
        .seal_clear_meta(|tenant_id| {
            let blobs = &blobs;
            async move { blobs.tenant_key(tenant_id).await.ok().flatten() }
        })
        .await
        .map_err(anyhow::Error::msg)?;
    if sealed > 0 {
        // The rows' earlier versions out of the write-ahead log too (SQLite).
        store
            .scrub_freed()
            .await
            .context("emptying the write-ahead log")?;
        tracing::info!(
            rows = sealed,
            "sealed what older versions kept of documents in clear"
        );
    }
    let clock = Clock::default();
    let cache = docsieve_actors::cache::open(
        &settings.redis.url,
        &settings.redis.key_prefix,
        clock.clone(),
    )
    .context("configuring redis (redis.url)")?;
    let llm = Llm::new(&settings.llm).context("configuring the LLM client (llm.url)")?;
    let mailer = crate::mail::Mailer::start(&settings.mail, &settings.storage.data_dir)
        .context("configuring mail delivery (mail.smtp_url, mail.from)")?;
    let secrets =
        docsieve_actors::secrets::SecretBox::from_server_secret(&settings.auth.jwt_secret);
    let connectors = connector_services(&settings, &store, &blobs, &cache, &clock, &secrets);
    let privacy = docsieve_actors::privacy::Privacy::new(store.clone(), secrets.clone());
    let receipts = docsieve_actors::receipts::ReceiptSigner::load(&settings.storage.data_dir)
        .map_err(anyhow::Error::msg)
        .context(
            "reading the receipt signing key (DOCSIEVE_RECEIPT_KEY, <data_dir>/receipt_key)",
        )?;
    let receipts = Arc::new(receipts);
    let services = actor_services(&settings, &connectors, &privacy, &receipts)?;
    let actors = ActorSystem::start_with(&settings.actors, Some(services));
    metrics::gauge!(
        metric_names::BUILD_INFO,
        "version" => env!("CARGO_PKG_VERSION"),
        "database" => store.backend().as_str(),
        "cache" => cache.kind()
    )
    .set(1.0);
    let state = AppState {
        settings: Arc::new(settings),
        store,
        blobs,
        cache,
        clock,
        actors: actors.handles(),
        metrics,
        llm,
        mailer,
        connectors,
        secrets,
        privacy,
        receipts,
        started_at: Instant::now(),
    };
    Ok((state, actors))
}

/// One HTTP worker's app: the documented routes, the OpenAPI document and its UI, the JSON error
/// handlers and the fallback.
fn app(
    state: &AppState,
) -> App<
    impl actix_web::dev::ServiceFactory<
        actix_web::dev::ServiceRequest,
        Config = (),
        Response = actix_web::dev::ServiceResponse<impl actix_web::body::MessageBody>,
        Error = actix_web::Error,
        InitError = (),
    >,
> {
    let limit = state.settings.server.max_request_bytes;
    let mut documented = App::new()
        .into_utoipa_app()
        .openapi(ApiDoc::openapi())
        .configure(api::configure);
    if state.settings.testing.enabled {
        documented = documented.configure(api::testing::configure);
    }
    let (app, openapi) = documented.split_for_parts();
    let openapi = api::openapi::complete(openapi, &state.settings.mail.public_base_url);
    let routes = RouteTable::from_openapi(
        &openapi,
        &[
            ("/openapi.json", &["GET"]),
            ("/docs/{file}", &["GET"]),
            (crate::pages::PATHS[0], &["GET"]),
            (crate::pages::PATHS[1], &["GET"]),
            (crate::pages::PATHS[2], &["GET"]),
            (crate::console::PATHS[0], &["GET"]),
            (crate::console::PATHS[1], &["GET"]),
            (crate::console::PATHS[2], &["GET"]),
        ],
    );
    app.app_data(web::Data::new(state.clone()))
        .app_data(web::Data::new(routes))
        .app_data(web::QueryConfig::default().error_handler(|error, _| query_error(error).into()))
        .app_data(web::PathConfig::default().error_handler(|error, _| path_error(error).into()))
        .app_data(
            web::JsonConfig::default()
                .limit(limit)
                .error_handler(move |error, _| json_error(error, limit).into()),
        )
        .app_data(web::PayloadConfig::new(limit))
        .service(
            SwaggerUi::new("/docs/{_:.*}")
                .url("/openapi.json", openapi)
                // Nothing is sent elsewhere: no badge that posts the document to an outside validator.
                .config(utoipa_swagger_ui::Config::default().validator_url("none")),
        )
        .route("/docs", web::get().to(docs_redirect))
        .configure(crate::pages::configure)
        .configure(crate::console::configure)
        .default_service(web::to(api::fallback))
        .wrap(from_fn(crate::http::observe))
}

/// The base URL of the address the server listens on, for `mail.public_base_url` left empty: an
/// unspecified address (`0.0.0.0`, `::`) is reached on this machine as the loopback one.
fn listening_base_url(address: SocketAddr) -> String {
    let ip = match address.ip() {
        ip if ip.is_unspecified() && ip.is_ipv4() => std::net::Ipv4Addr::LOCALHOST.into(),
        ip if ip.is_unspecified() => std::net::Ipv6Addr::LOCALHOST.into(),
        ip => ip,
    };
    format!("http://{}", SocketAddr::new(ip, address.port()))
}

impl Application {
    pub async fn build(
        mut settings: Settings,
        metrics: PrometheusHandle,
    ) -> anyhow::Result<Application> {
        std::fs::create_dir_all(&settings.storage.data_dir).with_context(|| {
            format!(
                "creating storage.data_dir {}",
                settings.storage.data_dir.display()
            )
        })?;
        ensure_jwt_secret(&mut settings)?;
        docsieve_actors::pii_masker::configure_phone_regions(&settings.pii.phone_regions)
            .map_err(anyhow::Error::msg)?;
        let listener = TcpListener::bind(settings.bind_address()?)
            .with_context(|| format!("binding server.bind {}", settings.server.bind))?;
        let address = listener.local_addr()?;
        if settings.mail.public_base_url.is_empty() {
            settings.mail.public_base_url = listening_base_url(address);
        }
        // Sized from the machine at load when it was 0.
        let workers = settings.server.workers.max(1);
        metrics::gauge!(metric_names::HTTP_WORKERS).set(workers as f64);
        metrics::gauge!(metric_names::AVAILABLE_CORES)
            .set(docsieve_actors::settings::available_cores() as f64);
        let shutdown_timeout = settings.server.shutdown_timeout_seconds;
        let upkeep_interval = Duration::from_secs(settings.metrics.upkeep_interval_seconds);
        let (state, actors) = open_state(settings, metrics.clone()).await?;
        let upkeep = crate::telemetry::spawn_upkeep(metrics, upkeep_interval);
        let store = state.store.clone();
        let server = HttpServer::new(move || app(&state))
            .workers(workers)
            .disable_signals()
            .shutdown_timeout(shutdown_timeout)
            .listen(listener)?
            .run();
        Ok(Application {
            server,
            address,
            actors,
            store,
            upkeep,
            shutdown_timeout_seconds: shutdown_timeout,
        })
    }

    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// Serves until SIGTERM or SIGINT, then: stop accepting, let in-flight requests finish (up to
    /// `server.shutdown_timeout_seconds`), stop the actors in order, close the database.
    pub async fn run_until_stopped(self) -> anyhow::Result<()> {
        let handle = self.server.handle();
        let signals = actix_web::rt::spawn(async move {
            let signal = wait_for_signal().await;
            tracing::info!(signal, "shutting down: finishing in-flight requests");
            handle.stop(true).await;
        });
        self.server.await.context("HTTP server failed")?;
        signals.abort();
        let store = &self.store;
        self.actors
            .shutdown_when(Duration::from_secs(self.shutdown_timeout_seconds), async {
                if !store.wait_idle(Duration::from_secs(2)).await {
                    tracing::warn!("queries still under way while the actors stop");
                }
            })
            .await;
        self.upkeep.abort();
        self.store.close().await.context("closing the database")?;
        tracing::info!("stopped");
        Ok(())
    }
}

async fn wait_for_signal() -> &'static str {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match (
            signal(SignalKind::terminate()),
            signal(SignalKind::interrupt()),
        ) {
            (Ok(mut terminate), Ok(mut interrupt)) => {
                tokio::select! {
                    _ = terminate.recv() => "SIGTERM",
                    _ = interrupt.recv() => "SIGINT",
                }
            }
            _ => {
                let _ = tokio::signal::ctrl_c().await;
                "SIGINT"
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
        "SIGINT"
    }
}

#[cfg(test)]
mod tests {
    use super::listening_base_url;

    #[test]
    fn an_empty_public_base_url_is_the_listening_address() {
        let cases = [
            ("127.0.0.1:8080", "http://127.0.0.1:8080"),
            ("0.0.0.0:9000", "http://127.0.0.1:9000"),
            ("[::]:9000", "http://[::1]:9000"),
            ("10.1.2.3:80", "http://10.1.2.3:80"),
        ];
        for (address, base) in cases {
            assert_eq!(listening_base_url(address.parse().unwrap()), base);
        }
    }
}
