//! GET/HEAD /system/health and GET /metrics.

use std::collections::BTreeMap;

use actix_web::{get, head, web, HttpResponse};
use docsieve_actors::metric_names;
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use super::{envelope, Envelope};
use crate::state::AppState;
use docsieve_actors::llm::LlmStatus;

/// The state of one dependency.
#[derive(Serialize, ToSchema)]
pub struct ComponentHealth {
    /// `ok`, `error`, or `disabled` (Redis when `redis.url` is empty).
    #[schema(value_type = crate::api::vocab::ComponentStatus)]
    pub status: &'static str,
    /// `sqlite`/`postgres`, `redis`/`in-process`, or the blob location.
    pub kind: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latency_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl ComponentHealth {
    fn from_result<E: std::fmt::Display>(
        kind: impl Into<String>,
        result: Result<std::time::Duration, E>,
    ) -> ComponentHealth {
        match result {
            Ok(elapsed) => ComponentHealth {
                status: "ok",
                kind: kind.into(),
                latency_ms: Some(elapsed.as_secs_f64() * 1000.0),
                error: None,
            },
            Err(error) => ComponentHealth {
                status: "error",
                kind: kind.into(),
                latency_ms: None,
                error: Some(error.to_string()),
            },
        }
    }
}

// The schema of `docsieve_actors::llm::LlmStatus`, whose states the vocabulary lists.
/// The LLM's reachability (`GET {llm.url}/models`, cached for 10 s).
#[derive(ToSchema)]
#[schema(as = LlmStatus)]
#[allow(dead_code)]
struct LlmHealth {
    /// `disabled` (no `llm.url`), `ok` or `unreachable`.
    #[schema(value_type = crate::api::vocab::LlmState)]
    status: String,
    error: Option<String>,
}

#[derive(Serialize, ToSchema)]
pub struct HealthReport {
    /// `ok` when every component is ok (or disabled), `degraded` otherwise.
    #[schema(value_type = crate::api::vocab::HealthStatus)]
    pub status: &'static str,
    pub version: &'static str,
    pub uptime_seconds: u64,
    pub database: ComponentHealth,
    pub redis: ComponentHealth,
    pub blob_storage: ComponentHealth,
    #[schema(value_type = LlmHealth)]
    pub llm: LlmStatus,
    /// Per actor: status (`ok`, `stale`, `busy`, `unresponsive`), ping_ms, last_heartbeat_ms_ago,
    /// restarts, panics, mailbox_depth, mailbox_capacity, pool_size.
    #[schema(value_type = Object)]
    pub actors: BTreeMap<&'static str, serde_json::Value>,
}

/// Liveness and dependency report. Always 200 while the process serves; read `status`.
#[utoipa::path(
    get,
    path = "/system/health", operation_id = "get_health",
    tag = "system",
    responses((status = 200, description = "Health report", body = Envelope<HealthReport>))
)]
#[get("/system/health")]
pub async fn health(state: web::Data<AppState>) -> web::Json<Envelope<HealthReport>> {
    envelope(report(&state).await)
}

/// The same check as `GET /system/health`, answered with its status and headers only (for load
/// balancers that probe with HEAD).
#[utoipa::path(
    head,
    path = "/system/health", operation_id = "head_health",
    tag = "system",
    responses((status = 200, description = "The process serves (the report's headers, no body)"))
)]
#[head("/system/health")]
pub async fn health_head(state: web::Data<AppState>) -> HttpResponse {
    let _ = report(&state).await;
    HttpResponse::Ok().content_type("application/json").finish()
}

async fn report(state: &AppState) -> HealthReport {
    let (database, cache, blobs, llm, actors) = futures_util::join!(
        state.store.ping(),
        state.cache.ping(),
        state.blobs.ping(),
        state.llm.status(),
        state.actors.health()
    );
    let database = ComponentHealth::from_result(state.store.backend().as_str(), database);
    metrics::gauge!(metric_names::DATABASE_UP).set(if database.status == "ok" { 1.0 } else { 0.0 });
    if let Some(latency) = database.latency_ms {
        metrics::histogram!(metric_names::DATABASE_PING_SECONDS).record(latency / 1000.0);
    }
    let redis = if state.settings.redis.url.is_empty() {
        ComponentHealth {
            status: "disabled",
            kind: state.cache.kind().to_string(),
            latency_ms: None,
            error: None,
        }
    } else {
        let component = ComponentHealth::from_result(state.cache.kind(), cache);
        metrics::gauge!(metric_names::REDIS_UP).set(if component.status == "ok" {
            1.0
        } else {
            0.0
        });
        component
    };
    let blob_storage = ComponentHealth::from_result(state.blobs.location(), blobs);
    let actors_ok = actors.iter().all(|(_, actor)| actor.status.status == "ok");
    let healthy = database.status == "ok"
        && redis.status != "error"
        && blob_storage.status == "ok"
        && llm.status != "unreachable"
        && actors_ok;
    let actors = actors
        .into_iter()
        .map(|(name, actor)| {
            (
                name,
                serde_json::to_value(actor).unwrap_or(serde_json::Value::Null),
            )
        })
        .collect();
    HealthReport {
        status: if healthy { "ok" } else { "degraded" },
        version: env!("CARGO_PKG_VERSION"),
        uptime_seconds: state.started_at.elapsed().as_secs(),
        database,
        redis,
        blob_storage,
        llm,
        actors,
    }
}

/// Prometheus text exposition of every `docsieve_*` metric.
#[utoipa::path(
    get,
    path = "/metrics", operation_id = "get_metrics",
    tag = "system",
    responses((status = 200, description = "Prometheus text format", content_type = "text/plain; version=0.0.4"))
)]
#[get("/metrics")]
pub async fn metrics_endpoint(state: web::Data<AppState>) -> HttpResponse {
    // Refreshes the heartbeat-age gauges so a scrape sees current values.
    let _ = state.actors.snapshot();
    HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4; charset=utf-8")
        .body(state.metrics.render())
}

/// This resource's routes.
pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(health)
        .service(health_head)
        .service(metrics_endpoint);
}
