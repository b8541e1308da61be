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
use crate::error::{ApiError, ValidationDetail};
use crate::llm::LlmProbe;
use crate::state::AppState;

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
    }
}

/// How extraction workers start: this executable in its `extract-worker` mode. None with
/// `extraction.isolation = "thread"`.
fn worker_command(
    settings: &Settings,
) -> anyhow::Result<Option<docsieve_actors::extractor_pool::isolation::WorkerCommand>> {
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
    Ok(Some(
        docsieve_actors::extractor_pool::isolation::WorkerCommand {
            program,
            args,
            max_documents: settings.extraction.worker_max_documents,
        },
    ))
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
            "unsupported_media_type",
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

        let store_settings = store_settings(&settings);
        Store::migrate(&store_settings)
            .await
            .context("migrating the database (database.url)")?;
        let store = Store::connect(&store_settings)
            .await
            .context("connecting to the database (database.url)")?;
        let blobs = Blobs::open(&settings.storage.blob_url, &settings.storage.data_dir)
            .context("opening blob storage (storage.blob_url)")?;
        let clock = Clock::default();
        let cache = docsieve_actors::cache::open(
            &settings.redis.url,
            &settings.redis.key_prefix,
            clock.clone(),
        )
        .context("configuring redis (redis.url)")?;
        let llm = LlmProbe::new(
            &settings.llm.url,
            Duration::from_millis(settings.llm.timeout_ms),
        )
        .context("configuring the LLM client (llm.url)")?;
        let mailer = crate::mail::Mailer::start(&settings.mail, &settings.storage.data_dir)
            .context("configuring mail delivery (mail.smtp_url, mail.from)")?;
        let job_services = docsieve_actors::job_router::JobServices {
            store: store.clone(),
            blobs: blobs.clone(),
            cache: cache.clone(),
            clock: clock.clone(),
            jobs: settings.jobs.clone(),
            limits: settings.extraction.limits.clone(),
        };
        let export_services = docsieve_actors::dataset_exporter::ExportServices {
            store: store.clone(),
            blobs: blobs.clone(),
            clock: clock.clone(),
            settings: settings.datasets.clone(),
            scratch_dir: settings.storage.data_dir.join("tmp"),
        };
        let secrets = docsieve_actors::webhook_sender::signing::SecretBox::from_server_secret(
            &settings.auth.jwt_secret,
        );
        let webhook_services = docsieve_actors::webhook_sender::WebhookServices {
            store: store.clone(),
            cache: cache.clone(),
            clock: clock.clone(),
            settings: settings.webhooks.clone(),
            secrets: secrets.clone(),
        };
        let actors = ActorSystem::start_with(
            &settings.actors,
            Some(docsieve_actors::system::Services {
                extraction: worker_command(&settings)?,
                jobs: job_services,
                exports: export_services,
                webhooks: webhook_services,
            }),
        );
        metrics::gauge!(
            metric_names::BUILD_INFO,
            "version" => env!("CARGO_PKG_VERSION"),
            "database" => store.backend().as_str(),
            "cache" => cache.kind()
        )
        .set(1.0);
        let upkeep = crate::telemetry::spawn_upkeep(
            metrics.clone(),
            Duration::from_secs(settings.metrics.upkeep_interval_seconds),
        );

        let listener = TcpListener::bind(settings.bind_address()?)
            .with_context(|| format!("binding server.bind {}", settings.server.bind))?;
        let address = listener.local_addr()?;
        let workers = match settings.server.workers {
            0 => std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(2),
            n => n,
        };
        let shutdown_timeout = settings.server.shutdown_timeout_seconds;
        let state = AppState {
            settings: Arc::new(settings),
            store: store.clone(),
            blobs,
            cache,
            clock,
            actors: actors.handles(),
            metrics,
            llm,
            mailer,
            secrets,
            started_at: Instant::now(),
        };
        let server = HttpServer::new(move || {
            let limit = state.settings.server.max_request_bytes;
            let mut documented = App::new()
                .into_utoipa_app()
                .openapi(ApiDoc::openapi())
                .service(api::system::health)
                .service(api::system::metrics_endpoint)
                .service(api::auth::signup)
                .service(api::auth::verify_email)
                .service(api::auth::resend_verification)
                .service(api::auth::login)
                .service(api::auth::refresh)
                .service(api::auth::logout)
                .service(api::auth::forgot_password)
                .service(api::auth::reset_password)
                .service(api::me::me)
                .service(api::me::create_api_key)
                .service(api::me::list_api_keys)
                .service(api::me::revoke_api_key)
                .service(api::usage::usage)
                .service(api::process::preview)
                .service(api::process::export_csv)
                .service(api::uploads::submit)
                .service(api::documents::list)
                .service(api::documents::detail)
                .service(api::documents::reprocess)
                .service(api::executions::list)
                .service(api::executions::detail)
                .service(api::jobs::list)
                // Before /v1/jobs/{job_id}, which would otherwise take "stuck" as an id.
                .service(api::jobs::stuck)
                .service(api::jobs::detail)
                .service(api::audit::export)
                .service(api::datasets::create)
                .service(api::datasets::list)
                .service(api::datasets::export)
                .service(api::datasets::detail)
                .service(api::datasets::remove)
                .service(api::webhooks::create)
                .service(api::webhooks::list)
                .service(api::webhooks::detail)
                .service(api::webhooks::remove)
                .service(api::webhooks::deliveries)
                .service(api::webhooks::redeliver)
                .service(api::team::invite)
                .service(api::team::accept)
                .service(api::team::members)
                .service(api::team::remove_member)
                .service(api::admin::quality_flagged)
                .service(api::admin::billing_open_period)
                .service(api::admin::billing_close_period)
                .service(api::admin::billing_cycle)
                .service(api::admin::storage_cleanup)
                .service(api::admin::tenant_data_export)
                .service(api::admin::oss_metrics_fetch)
                .service(api::admin::oss_metrics)
                .service(api::admin::quality_cross_validate)
                .service(api::admin::quality_pii_precision)
                .service(api::admin::quality_pii_precision_report);
            if state.settings.testing.enabled {
                documented = documented
                    .service(api::testing::inject_panic)
                    .service(api::testing::advance_clock);
            }
            let (app, openapi) = documented.split_for_parts();
            let openapi = api::openapi::complete(openapi);
            let routes = RouteTable::from_openapi(
                &openapi,
                &[("/openapi.json", &["GET"]), ("/docs/{file}", &["GET"])],
            );
            app.app_data(web::Data::new(state.clone()))
                .app_data(web::Data::new(routes))
                .app_data(
                    web::QueryConfig::default().error_handler(|error, _| query_error(error).into()),
                )
                .app_data(
                    web::PathConfig::default().error_handler(|error, _| path_error(error).into()),
                )
                .app_data(
                    web::JsonConfig::default()
                        .limit(limit)
                        .error_handler(move |error, _| json_error(error, limit).into()),
                )
                .app_data(web::PayloadConfig::new(limit))
                .service(SwaggerUi::new("/docs/{_:.*}").url("/openapi.json", openapi))
                .route("/docs", web::get().to(docs_redirect))
                .default_service(web::to(api::fallback))
                .wrap(from_fn(crate::http::observe))
        })
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
