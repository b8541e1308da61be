//! Schedules of storage connectors against a real S3 emulator (moto): schedules within the plan's
//! limits, syncs that queue each object version once, and a cron firing that runs its sync once across
//! two processes on one store.

use std::time::Duration;

use reqwest::Method;
use serde_json::{json, Value};

use crate::emulators;
use crate::jobs::{on_plan, tenant, Tenant};
use crate::storage::{call, connector, letter};
use crate::support::{ServerOptions, TestServer};

pub(crate) async fn schedule(
    server: &TestServer,
    who: &Tenant,
    connector_id: i64,
    body: Value,
) -> (u16, Value) {
    call(
        server,
        who,
        Method::POST,
        &format!("/v1/connectors/{connector_id}/schedules"),
        Some(body),
    )
    .await
}

pub(crate) async fn trigger(
    server: &TestServer,
    who: &Tenant,
    connector_id: i64,
    id: i64,
) -> Value {
    let (status, body) = call(
        server,
        who,
        Method::POST,
        &format!("/v1/connectors/{connector_id}/schedules/{id}/trigger"),
        None,
    )
    .await;
    assert_eq!(status, 202, "{body}");
    body["data"].clone()
}

#[tokio::test]
async fn schedules_follow_the_plan_and_syncs_queue_each_version_once() {
    let Some(s3) = emulators::s3() else {
        return;
    };
    s3.create_bucket("arsiv").await;
    for n in 0..3 {
        s3.put("arsiv", &format!("in/{n}.txt"), letter(n)).await;
    }
    s3.put("arsiv", "out/skip.txt", letter(9)).await;
    let server = TestServer::start().await;
    let alice = tenant(&server, "alice-schedules@example.com").await;
    let id = connector(
        &server,
        &alice,
        s3.connector("arsiv", "arsiv", Some("out/")),
    )
    .await;

    // Trial: no schedules.
    let (status, body) = schedule(&server, &alice, id, json!({"cron": "0 3 * * *"})).await;
    assert_eq!(status, 403, "{body}");
    assert_eq!(body["code"], "plan_required");

    on_plan(&server, &alice, "starter").await;
    // Validation: the cron's field named, unknown fields, and the plan's minimum interval (24 h).
    let (status, body) = schedule(&server, &alice, id, json!({"cron": "61 * * * *"})).await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["detail"][0]["loc"][1], "cron");
    assert!(
        body["detail"][0]["msg"]
            .as_str()
            .expect("present")
            .contains("minute"),
        "{body}"
    );
    let (status, body) = schedule(
        &server,
        &alice,
        id,
        json!({"cron": "0 3 * * *", "every": 1}),
    )
    .await;
    assert_eq!(status, 422, "{body}");
    let (status, body) = schedule(&server, &alice, id, json!({"cron": "*/30 * * * *"})).await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["code"], "schedule_too_frequent");
    assert_eq!(body["min_interval_minutes"], 1440);
    assert_eq!(body["interval_minutes"], 30);

    let (status, created) = schedule(
        &server,
        &alice,
        id,
        json!({"cron": "0 3 * * *", "prefix": "in/", "name": "gece"}),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    let schedule_id = created["data"]["id"].as_i64().expect("id");
    assert_eq!(created["data"]["prefix"], "in/");
    assert!(created["data"]["next_run_at"]
        .as_str()
        .expect("present")
        .contains("T03:00:00"));
    // Starter allows five per connector.
    for _ in 0..4 {
        let (status, body) = schedule(&server, &alice, id, json!({"cron": "0 4 * * 1"})).await;
        assert_eq!(status, 201, "{body}");
    }
    let (status, body) = schedule(&server, &alice, id, json!({"cron": "0 5 * * *"})).await;
    assert_eq!(status, 409, "{body}");
    assert_eq!(body["code"], "schedule_limit_reached");
    assert_eq!(body["limit"], 5);

    // The first sync queues the three objects under the schedule's prefix.
    let first = trigger(&server, &alice, id, schedule_id).await;
    assert_eq!(first["run"]["listed"], 3, "{first}");
    assert_eq!(first["run"]["queued"], 3, "{first}");
    assert_eq!(first["job_ids"].as_array().expect("present").len(), 3);
    assert_eq!(first["run"]["status"], "succeeded");
    // Unchanged: nothing queued.
    let second = trigger(&server, &alice, id, schedule_id).await;
    assert_eq!(second["run"]["queued"], 0, "{second}");
    assert_eq!(second["run"]["skipped"], 3, "{second}");
    // One object changed (a new ETag), one added: both queued, once.
    s3.put("arsiv", "in/1.txt", letter(11)).await;
    s3.put("arsiv", "in/3.txt", letter(3)).await;
    let third = trigger(&server, &alice, id, schedule_id).await;
    assert_eq!(third["run"]["queued"], 2, "{third}");
    assert_eq!(third["run"]["skipped"], 2, "{third}");
    let fourth = trigger(&server, &alice, id, schedule_id).await;
    assert_eq!(fourth["run"]["queued"], 0, "{fourth}");
    let metrics = server.get("/metrics").await.text().await.expect("metrics");
    for line in [
        "docsieve_connector_syncs_total{outcome=\"succeeded\"} 4",
        "docsieve_connector_objects_queued_total{type=\"s3\"} 5",
        "docsieve_connector_objects_skipped_total{type=\"s3\"} 9",
    ] {
        assert!(metrics.contains(line), "{line} not in /metrics");
    }
    assert!(metrics.contains("docsieve_connector_bytes_fetched_total{type=\"s3\"}"));

    let (status, runs) = alice
        .get(
            &server,
            &format!("/v1/connectors/{id}/schedules/{schedule_id}/runs"),
        )
        .await;
    assert_eq!(status, 200, "{runs}");
    assert_eq!(runs["data"]["total"], 4);
    let latest = &runs["data"]["items"][0];
    assert_eq!(latest["trigger"], "manual");
    assert!(latest["finished_at"].is_string());
    assert!(latest["error"].is_null());

    let (status, list) = alice
        .get(&server, &format!("/v1/connectors/{id}/schedules"))
        .await;
    assert_eq!(status, 200);
    assert_eq!(list["data"]["total"], 5);
    let deleted = server
        .bearer(
            Method::DELETE,
            &format!("/v1/connectors/{id}/schedules/{schedule_id}"),
            &alice.token,
        )
        .send()
        .await
        .expect("DELETE");
    assert_eq!(deleted.status(), 204);
    let (status, body) = alice
        .get(
            &server,
            &format!("/v1/connectors/{id}/schedules/{schedule_id}"),
        )
        .await;
    assert_eq!(status, 404, "{body}");
    assert_eq!(body["code"], "schedule_not_found");
    // Another tenant sees neither the connector's schedules nor can it trigger them.
    let bob = tenant(&server, "bob-schedules@example.com").await;
    let (status, _) = bob
        .get(&server, &format!("/v1/connectors/{id}/schedules"))
        .await;
    assert_eq!(status, 404);
}

/// Moves every server's clock to just past the next 03:00 UTC.
async fn past_three(servers: &[&TestServer]) {
    let now = chrono::Utc::now();
    let mut next = now
        .date_naive()
        .and_hms_opt(3, 0, 30)
        .expect("present")
        .and_utc();
    if next <= now {
        next += chrono::Duration::days(1);
    }
    for server in servers {
        server.advance_clock((next - now).num_seconds()).await;
    }
}

#[tokio::test]
async fn a_cron_firing_runs_its_sync_once_across_two_processes() {
    let Some(s3) = emulators::s3() else {
        return;
    };
    s3.create_bucket("iki").await;
    for n in 0..4 {
        s3.put("iki", &format!("{n}.txt"), letter(n)).await;
    }
    // Both processes share the signing secret (which also seals connector secrets), the master key
    // (which wraps the data keys the blobs are sealed under) and the blobs.
    let shared = tempfile::tempdir().expect("shared blobs");
    let blob_url = format!("file://{}", shared.path().display());
    let options = || {
        ServerOptions::default()
            .env(
                "DOCSIEVE__AUTH__JWT_SECRET",
                "two-processes-share-this-secret-0123456789abcdef",
            )
            .env("DOCSIEVE_MASTER_KEY", &"5a".repeat(32))
            .env("DOCSIEVE__STORAGE__BLOB_URL", &blob_url)
    };
    let first = TestServer::start_with(options()).await;
    let alice = tenant(&first, "alice-twoproc@example.com").await;
    on_plan(&first, &alice, "starter").await;
    let id = connector(&first, &alice, s3.connector("iki", "iki", None)).await;
    // An API key outlives the clock's move, which expires the access token.
    let key = crate::datasets::api_key(&first, &alice).await;
    let (status, created) = schedule(&first, &alice, id, json!({"cron": "0 3 * * *"})).await;
    assert_eq!(status, 201, "{created}");
    let schedule_id = created["data"]["id"].as_i64().expect("present");
    // A second process on the same database (PostgreSQL), or the same process again (SQLite).
    let second = match &first.database {
        Some(database) => Some(
            TestServer::start_with(options().env("DOCSIEVE__DATABASE__URL", &database.url)).await,
        ),
        None => None,
    };
    let servers: Vec<&TestServer> = std::iter::once(&first).chain(second.as_ref()).collect();
    past_three(&servers).await;
    // The access token has expired with the clock's move: the database tells.
    let runs_sql = format!(
        "SELECT trigger || ':' || status || ':' || CAST(queued AS TEXT) FROM sync_runs WHERE schedule_id = {schedule_id}"
    );
    let finished = first
        .eventually(Duration::from_secs(30), || async {
            first
                .query_strings(&runs_sql)
                .await
                .iter()
                .any(|r| !r.contains("running"))
        })
        .await;
    assert!(finished, "no cron run\n{}", first.stderr());
    // Give the other process its polls: it must find the firing taken.
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(
        first.query_strings(&runs_sql).await,
        vec!["cron:succeeded:4"]
    );
    // The keys are sealed in the database: the API opens them.
    let (status, listed) = crate::scopes::with_key(
        &first,
        &key,
        Method::GET,
        "/v1/documents?page_size=100",
        None,
    )
    .await;
    assert_eq!(status, 200, "{listed}");
    let mut documents: Vec<String> = listed["data"]["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter(|document| document["connector_id"] == id)
        .map(|document| document["source_key"].as_str().expect("a key").to_string())
        .collect();
    documents.sort();
    assert_eq!(documents, vec!["0.txt", "1.txt", "2.txt", "3.txt"]);
    assert!(
        crate::sealed_values::in_clear(&first, &["1.txt"]).is_empty(),
        "an object key in clear"
    );
}
