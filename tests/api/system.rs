//! Health, errors, admin authentication, metrics, OpenAPI, supervision and shutdown, over HTTP.

use std::time::Duration;

use reqwest::Method;
use serde_json::json;

use crate::support::{backends, json_of, ServerOptions, TestServer};

#[tokio::test]
async fn health_reports_every_component_ok_on_the_configured_backends() {
    let server = TestServer::start().await;
    let (status, body) = server.get_json("/system/health").await;
    assert_eq!(status, 200, "{body}");
    let data = &body["data"];
    assert_eq!(data["status"], "ok", "{body}");
    assert_eq!(data["database"]["status"], "ok");
    let backends = backends();
    let expected_database = if backends.database_url.is_some() {
        "postgres"
    } else {
        "sqlite"
    };
    assert_eq!(data["database"]["kind"], expected_database);
    if backends.redis_url.is_some() {
        assert_eq!(data["redis"]["status"], "ok", "{body}");
        assert_eq!(data["redis"]["kind"], "redis");
    } else {
        assert_eq!(data["redis"]["status"], "disabled");
        assert_eq!(data["redis"]["kind"], "in-process");
    }
    assert_eq!(data["blob_storage"]["status"], "ok");
    assert_eq!(data["llm"]["status"], "disabled");
    let actors = data["actors"].as_object().expect("actors object");
    for name in [
        "job_router",
        "extractor_pool",
        "pii_masker",
        "dataset_exporter",
        "scheduler",
        "webhook_sender",
        "fine_tuner",
    ] {
        assert_eq!(actors[name]["status"], "ok", "{name}: {body}");
        assert!(actors[name]["mailbox_capacity"].as_u64().unwrap_or(0) > 0);
    }

    let head = server
        .client
        .head(server.url("/system/health"))
        .send()
        .await
        .expect("HEAD");
    assert_eq!(head.status(), 200);
    assert!(head.bytes().await.expect("body").is_empty());
}

#[tokio::test]
async fn health_reports_an_unreachable_llm_as_degraded() {
    // Nothing listens on port 9 of loopback: the probe fails fast.
    let server = TestServer::start_with(
        ServerOptions::default().env("DOCSIEVE__LLM__URL", "http://127.0.0.1:9/"),
    )
    .await;
    let (status, body) = server.get_json("/system/health").await;
    assert_eq!(status, 200);
    assert_eq!(body["data"]["llm"]["status"], "unreachable", "{body}");
    assert_eq!(body["data"]["status"], "degraded");
}

#[tokio::test]
async fn unknown_routes_and_wrong_methods_answer_json() {
    let server = TestServer::start().await;
    let (status, body) = server.get_json("/v1/nothing").await;
    assert_eq!(status, 404);
    assert_eq!(body["code"], "route_not_found");
    assert!(body["detail"]
        .as_str()
        .unwrap_or("")
        .contains("/v1/nothing"));

    let response = server
        .client
        .delete(server.url("/system/health"))
        .send()
        .await
        .expect("DELETE");
    assert_eq!(
        response
            .headers()
            .get("allow")
            .and_then(|v| v.to_str().ok()),
        Some("GET, HEAD")
    );
    let (status, body) = json_of(response).await;
    assert_eq!(status, 405);
    assert_eq!(body["code"], "method_not_allowed");
}

#[tokio::test]
async fn admin_routes_check_the_internal_token() {
    let server = TestServer::start().await;
    let (status, body) = json_of(
        server
            .client
            .post(server.url("/system/billing/cycle"))
            .send()
            .await
            .expect("POST"),
    )
    .await;
    assert_eq!(status, 401, "{body}");
    assert_eq!(body["code"], "internal_token_missing");

    let (status, body) = json_of(
        server
            .client
            .post(server.url("/system/billing/cycle"))
            .header("X-Internal-Token", "wrong")
            .send()
            .await
            .expect("POST"),
    )
    .await;
    assert_eq!(status, 403);
    assert_eq!(body["code"], "internal_token_invalid");

    // With the right token the route is reached (a fresh server has no period to close).
    let (status, body) = json_of(
        server
            .internal(Method::POST, "/system/billing/cycle")
            .send()
            .await
            .expect("POST"),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["data"],
        serde_json::json!({"closed": [], "opened": []})
    );
}

#[tokio::test]
async fn admin_routes_are_closed_when_no_token_is_configured() {
    let server =
        TestServer::start_with(ServerOptions::default().env("DOCSIEVE__AUTH__INTERNAL_TOKEN", ""))
            .await;
    let (status, body) = json_of(
        server
            .client
            .get(server.url("/system/admin/quality/flagged"))
            .header("X-Internal-Token", "anything")
            .send()
            .await
            .expect("GET"),
    )
    .await;
    assert_eq!(status, 403);
    assert_eq!(body["code"], "internal_token_not_configured");
    assert!(body["detail"]
        .as_str()
        .unwrap_or("")
        .contains("auth.internal_token"));
}

#[tokio::test]
async fn validation_failures_are_422_with_a_detail_list() {
    let server = TestServer::start().await;
    let (status, body) = json_of(
        server
            .internal(
                Method::GET,
                "/system/admin/quality/flagged?limit=0&tenant_id=abc",
            )
            .send()
            .await
            .expect("GET"),
    )
    .await;
    assert_eq!(status, 422);
    let detail = body["detail"].as_array().expect("detail list");
    assert_eq!(detail.len(), 2, "{body}");
    assert_eq!(detail[0]["loc"], json!(["query", "tenant_id"]));
    assert_eq!(detail[1]["loc"], json!(["query", "limit"]));
    assert!(detail
        .iter()
        .all(|entry| entry["msg"].is_string() && entry["type"].is_string()));

    let (status, body) = json_of(
        server
            .internal(Method::GET, "/system/admin/quality/flagged?limit=501")
            .send()
            .await
            .expect("GET"),
    )
    .await;
    assert_eq!(status, 422, "{body}");

    let (status, body) = json_of(
        server
            .internal(Method::POST, "/system/billing/open-period/abc")
            .send()
            .await
            .expect("POST"),
    )
    .await;
    assert_eq!(status, 422);
    assert_eq!(body["detail"][0]["loc"], json!(["path", "tenant_id"]));

    let (status, body) = json_of(
        server
            .internal(Method::GET, "/system/admin/oss-metrics?period=1y")
            .send()
            .await
            .expect("GET"),
    )
    .await;
    assert_eq!(status, 422);
    assert_eq!(body["detail"][0]["loc"], json!(["query", "period"]));

    // Valid input reaches the real query: no execution has been flagged yet.
    let (status, body) = json_of(
        server
            .internal(
                Method::GET,
                "/system/admin/quality/flagged?limit=5&tenant_id=1",
            )
            .send()
            .await
            .expect("GET"),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["items"], json!([]));
    assert_eq!(body["data"]["limit"], 5);
}

#[tokio::test]
async fn oversized_requests_are_refused_with_413() {
    let server = TestServer::start_with(
        ServerOptions::default().env("DOCSIEVE__SERVER__MAX_REQUEST_BYTES", "2048"),
    )
    .await;
    let (status, body) = json_of(
        server
            .internal(Method::POST, "/system/admin/quality/cross-validate")
            .header("content-type", "application/json")
            .body(vec![b' '; 4096])
            .send()
            .await
            .expect("POST"),
    )
    .await;
    assert_eq!(status, 413);
    assert_eq!(body["code"], "payload_too_large");
}

#[tokio::test]
async fn metrics_use_route_templates_and_explicit_buckets() {
    let server = TestServer::start().await;
    server.get("/system/health").await;
    server.get("/v1/nothing").await;
    let response = server.get("/metrics").await;
    assert_eq!(response.status(), 200);
    assert!(response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .starts_with("text/plain"));
    let text = response.text().await.expect("text");
    for name in [
        "docsieve_build_info",
        "docsieve_http_requests_total",
        "docsieve_actor_mailbox_depth",
        "docsieve_actor_restarts_total",
        "docsieve_actor_heartbeat_age_seconds",
    ] {
        assert!(text.contains(name), "{name} missing from /metrics");
    }
    assert!(
        text.contains(r#"route="/system/health",status="200""#),
        "{text}"
    );
    assert!(
        text.contains("docsieve_http_request_duration_seconds_bucket{"),
        "{text}"
    );
    // Raw paths never become labels.
    assert!(!text.contains("/v1/nothing"));
}

/// A sample's value in a Prometheus text page: `name` with exactly `labels` (`""` for none).
fn sample(metrics: &str, name: &str, labels: &str) -> Option<f64> {
    let series = format!("{name}{labels} ");
    metrics
        .lines()
        .find_map(|line| line.strip_prefix(&series))
        .and_then(|value| value.trim().parse().ok())
}

/// Sizes left at 0 follow the cores the server may use; a number wins; /metrics shows what is in force.
#[tokio::test]
async fn pools_left_at_zero_are_sized_from_the_cores_and_metrics_show_them() {
    // The server inherits this process's CPU affinity and cgroup.
    let cores = docsieve_actors::settings::available_cores() as f64;
    let server = TestServer::start_with(
        ServerOptions::default()
            .env("DOCSIEVE__SERVER__WORKERS", "0")
            .env("DOCSIEVE__ACTORS__EXTRACTOR_POOL__POOL_SIZE", "3"),
    )
    .await;
    let metrics = server.get("/metrics").await.text().await.expect("metrics");
    let pool = |actor: &str| {
        sample(
            &metrics,
            "docsieve_actor_pool_size",
            &format!("{{actor=\"{actor}\"}}"),
        )
    };
    assert_eq!(
        sample(&metrics, "docsieve_available_cores", ""),
        Some(cores),
        "{metrics}"
    );
    assert_eq!(
        sample(&metrics, "docsieve_http_workers", ""),
        Some(cores),
        "{metrics}"
    );
    assert_eq!(pool("pii_masker"), Some(cores), "{metrics}");
    assert_eq!(pool("job_router"), Some(2.0 * cores), "{metrics}");
    assert_eq!(pool("extractor_pool"), Some(3.0), "{metrics}");
    assert_eq!(pool("scheduler"), Some(1.0), "{metrics}");
    assert_eq!(
        sample(&metrics, "docsieve_pool_size", "{pool=\"pii_masker\"}"),
        Some(cores),
        "{metrics}"
    );
}

#[tokio::test]
async fn openapi_document_and_swagger_ui_are_served_offline() {
    let server = TestServer::start().await;
    let (status, openapi) = server.get_json("/openapi.json").await;
    assert_eq!(status, 200);
    assert!(openapi["openapi"].as_str().unwrap_or("").starts_with("3.1"));
    let paths = openapi["paths"].as_object().expect("paths");
    assert!(paths.contains_key("/system/health"));
    assert!(paths["/system/health"].get("head").is_some());
    assert!(paths.contains_key("/system/billing/cycle"));
    let schemes = openapi["components"]["securitySchemes"]
        .as_object()
        .expect("security schemes");
    for scheme in ["internal_token", "api_key", "bearer"] {
        assert!(schemes.contains_key(scheme), "{scheme}");
    }
    // Every error body's `code` refers to the codes' schema: a string (an open set, so that a
    // client generated today reads a code added later), each code listed with its statuses.
    let schemas = &openapi["components"]["schemas"];
    assert_eq!(
        schemas["ErrorBody"]["properties"]["code"]["$ref"], "#/components/schemas/ErrorCode",
        "{}",
        schemas["ErrorBody"]
    );
    assert_eq!(schemas["ErrorCode"]["type"], "string");
    assert!(schemas["ErrorCode"].get("enum").is_none());
    let described = schemas["ErrorCode"]["description"]
        .as_str()
        .unwrap_or_default();
    for code in [
        "queue_full",
        "invalid_api_key",
        "masking_refused",
        "result_too_large",
    ] {
        assert!(described.contains(&format!("- `{code}` (")), "{described}");
    }
    assert!(described.contains("- `queue_full` (429): "), "{described}");
    assert!(
        described.contains("treat a code you do not know by"),
        "{described}"
    );
    says_enough_for_generated_clients(&openapi);

    let redirect = server.get("/docs").await;
    assert_eq!(redirect.status(), 308);
    let page = server.get("/docs/").await;
    assert_eq!(page.status(), 200);
    // The reference under a policy: scripts from this server only, in no frame (the console's
    // browser test sees it render under it).
    let policy = crate::support::policy_holding(
        &page,
        &[
            "script-src 'self'",
            "frame-ancestors 'none'",
            "default-src 'none'",
        ],
    );
    assert!(!policy.contains("script-src 'self' 'unsafe"), "{policy}");
    assert_eq!(page.headers()["x-frame-options"], "DENY");
    assert!(page.text().await.expect("html").contains("swagger-ui"));
    let initializer = server.get("/docs/swagger-initializer.js").await;
    assert!(initializer
        .headers()
        .contains_key("content-security-policy"));
    assert!(initializer
        .text()
        .await
        .expect("js")
        .contains("\"validatorUrl\": \"none\""));
    let bundle = server.get("/docs/swagger-ui-bundle.js").await;
    assert_eq!(bundle.status(), 200);
    assert!(bundle.bytes().await.expect("js").len() > 100_000);
}

/// What client generators need of the document: one operationId per operation, a schema for every
/// JSON body either way, files as `format: binary`, public routes marked `security: []`, a server,
/// and error examples whose code fits their status.
fn says_enough_for_generated_clients(openapi: &serde_json::Value) {
    let mut ids = std::collections::HashSet::new();
    let mut problems = Vec::new();
    let paths = openapi["paths"].as_object().expect("paths");
    for (path, item) in paths {
        for (method, operation) in item.as_object().expect("path item") {
            let at = format!("{} {path}", method.to_uppercase());
            match operation["operationId"].as_str() {
                Some(id) if ids.insert(id.to_string()) => {}
                other => problems.push(format!("{at}: operationId {other:?} missing or repeated")),
            }
            if operation.get("security").is_none() {
                problems.push(format!("{at}: no security (public routes say `[]`)"));
            }
            if let Some(body) = operation.get("requestBody") {
                for (media, content) in body["content"].as_object().expect("content") {
                    if content.get("schema").is_none() {
                        problems.push(format!("{at}: {media} body without a schema"));
                    }
                }
            }
            for (status, response) in operation["responses"].as_object().expect("responses") {
                let Some(content) = response["content"].as_object() else {
                    continue;
                };
                for (media, content) in content {
                    let schema = &content["schema"];
                    if schema.is_null() {
                        problems.push(format!("{at} {status}: {media} without a schema"));
                    }
                    let file = !media.contains("json") || media.contains("ndjson");
                    let binary = schema["format"] == "binary";
                    if status.starts_with('2')
                        && file
                        && !media.starts_with("text/plain")
                        && !binary
                    {
                        problems.push(format!("{at} {status}: {media} is not format: binary"));
                    }
                    if let Some(code) = content["example"]["code"].as_str() {
                        let fits = openapi["components"]["schemas"]["ErrorCode"]["description"]
                            .as_str()
                            .unwrap_or_default()
                            .lines()
                            .any(|line| {
                                line.starts_with(&format!("- `{code}` ("))
                                    && line
                                        .split(':')
                                        .next()
                                        .unwrap_or("")
                                        .contains(status.as_str())
                            });
                        if !fits {
                            problems.push(format!("{at} {status}: example code {code}"));
                        }
                    }
                }
            }
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
    assert!(ids.len() >= 70, "{}", ids.len());
    assert!(
        openapi["servers"][0]["url"].is_string(),
        "{}",
        openapi["servers"]
    );
    // The envelopes refer to the named resources.
    let page = &openapi["components"]["schemas"]["Envelope_Page_DocumentView"];
    assert_eq!(
        page["properties"]["data"]["properties"]["items"]["items"]["$ref"],
        "#/components/schemas/DocumentView",
        "{page}"
    );
}

#[tokio::test]
async fn a_panicking_actor_is_restarted_and_answers_again() {
    let server = TestServer::start().await;
    let (status, body) = json_of(
        server
            .internal(Method::POST, "/system/testing/actors/pii_masker/panic")
            .send()
            .await
            .expect("POST"),
    )
    .await;
    assert_eq!(status, 202, "{body}");

    let restarted = server
        .eventually(Duration::from_secs(10), || async {
            let (_, body) = server.get_json("/system/health").await;
            let masker = &body["data"]["actors"]["pii_masker"];
            masker["restarts"] == 1 && masker["status"] == "ok" && masker["ping_ms"].is_number()
        })
        .await;
    assert!(
        restarted,
        "pii_masker was not restarted: {}",
        server.get_json("/system/health").await.1
    );

    let metrics = server.get("/metrics").await.text().await.expect("metrics");
    assert!(
        metrics.contains(r#"docsieve_actor_restarts_total{actor="pii_masker"} 1"#),
        "{metrics}"
    );
    // The other actors were not touched.
    let (_, body) = server.get_json("/system/health").await;
    assert_eq!(body["data"]["actors"]["job_router"]["restarts"], 0);
    assert_eq!(body["data"]["status"], "ok");

    let (status, body) = json_of(
        server
            .internal(Method::POST, "/system/testing/actors/nobody/panic")
            .send()
            .await
            .expect("POST"),
    )
    .await;
    assert_eq!(status, 404);
    assert_eq!(body["code"], "actor_not_found");
}

#[tokio::test]
async fn testing_routes_do_not_exist_unless_enabled() {
    let server =
        TestServer::start_with(ServerOptions::default().env("DOCSIEVE__TESTING__ENABLED", "false"))
            .await;
    let response = server
        .internal(Method::POST, "/system/testing/actors/pii_masker/panic")
        .send()
        .await
        .expect("POST");
    assert_eq!(response.status(), 404);
}

#[tokio::test]
async fn sigterm_stops_cleanly_within_ten_seconds_and_a_restart_keeps_state() {
    let mut server = TestServer::start().await;
    assert_eq!(server.get("/system/health").await.status(), 200);
    let secret_path = server.data_dir.path().join("jwt_secret");
    let secret = std::fs::read_to_string(&secret_path).expect("generated JWT secret is kept");
    let status = server
        .terminate(Duration::from_secs(10))
        .expect("exited within 10 s");
    assert!(status.success(), "exit status {status:?}");
    let log = server.stderr();
    assert!(
        !log.contains("ERROR"),
        "errors logged during shutdown:\n{log}"
    );

    server.spawn();
    assert_eq!(server.get("/system/health").await.status(), 200);
    assert_eq!(
        std::fs::read_to_string(&secret_path).expect("secret"),
        secret
    );
}
