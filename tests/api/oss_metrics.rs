//! Open-source metrics over HTTP against a local stand-in of crates.io, PyPI, npm and GitHub: a
//! snapshot per source and fetch, a failing source kept with its error, and the trend over a period.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use reqwest::Method;
use serde_json::{json, Value};

use crate::stand_in::stand_in;
use crate::support::{json_of, ServerOptions, TestServer};

/// Answers the four registries' paths; every fetch grows downloads by 100 and stars by 2.
async fn registries() -> String {
    let (round, stars_round) = (Arc::new(AtomicI64::new(0)), Arc::new(AtomicI64::new(0)));
    stand_in(move |request| {
        let (status, body) = match request.path.as_str() {
            "/api/v1/crates/serde" => {
                let n = round.fetch_add(1, Ordering::Relaxed);
                (200, json!({"crate": {"downloads": 1000 + 100 * n, "max_stable_version": "1.0.200"}}))
            }
            "/pypi/requests/json" => (200, json!({"info": {"version": "2.32.3"}})),
            "/left-pad" => (200, json!({"dist-tags": {"latest": "1.3.0"}})),
            "/downloads/point/last-month/left-pad" => (200, json!({"downloads": 5000})),
            "/repos/owner/repo" => {
                let s = stars_round.fetch_add(1, Ordering::Relaxed);
                (200, json!({"stargazers_count": 40 + 2 * s, "forks_count": 7, "open_issues_count": 3}))
            }
            "/repos/owner/repo/releases/latest" => (200, json!({"tag_name": "v1.2.0"})),
            "/repos/owner/broken" => (500, json!({"message": "scripted failure"})),
            _ => (404, json!({"message": "Not Found"})),
        };
        Some((status, body.to_string()))
    })
    .await
}

async fn fetch(server: &TestServer) -> Value {
    let (status, body) = json_of(
        server
            .internal(Method::POST, "/system/admin/oss-metrics/fetch")
            .send()
            .await
            .expect("POST"),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    body["data"].clone()
}

#[tokio::test]
async fn sources_are_snapshotted_failures_kept_and_trends_computed() {
    let url = registries().await;
    let mut options = ServerOptions::default().env(
        "DOCSIEVE__OSS_METRICS__SOURCES",
        r#"[{kind="crates_io",name="serde"},{kind="pypi",name="requests"},{kind="npm",name="left-pad"},{kind="github",name="owner/repo"},{kind="github",name="owner/broken"}]"#,
    );
    for kind in ["CRATES_IO", "PYPI", "NPM", "NPM_DOWNLOADS", "GITHUB"] {
        options = options.env(&format!("DOCSIEVE__OSS_METRICS__{kind}_URL"), &url);
    }
    let server = TestServer::start_with(options).await;

    let first = fetch(&server).await;
    let snapshots = first["snapshots"].as_array().expect("snapshots");
    assert_eq!(snapshots.len(), 5, "{first}");
    let find = |list: &[Value], name: &str| {
        list.iter()
            .find(|s| s["name"] == name)
            .unwrap_or_else(|| panic!("{name} missing"))
            .clone()
    };
    let serde = find(snapshots, "serde");
    assert_eq!(serde["downloads"], 1000);
    assert_eq!(serde["latest_version"], "1.0.200");
    assert_eq!(find(snapshots, "requests")["latest_version"], "2.32.3");
    let pad = find(snapshots, "left-pad");
    assert_eq!(
        (pad["downloads"].clone(), pad["latest_version"].clone()),
        (json!(5000), json!("1.3.0"))
    );
    let repo = find(snapshots, "owner/repo");
    assert_eq!(repo["stars"], 40);
    assert_eq!(repo["forks"], 7);
    assert_eq!(repo["latest_version"], "v1.2.0");
    let broken = find(snapshots, "owner/broken");
    assert!(
        broken["error"].as_str().is_some_and(|e| e.contains("500")),
        "{broken}"
    );

    server.advance_clock(2 * 86_400).await;
    fetch(&server).await;

    let (status, body) = server_get(&server, "/system/admin/oss-metrics?period=7d").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["period"], "7d");
    let sources = body["data"]["sources"].as_array().expect("sources");
    assert_eq!(sources.len(), 5, "{body}");
    let serde = find(sources, "serde");
    assert_eq!(serde["change"]["downloads"], 100, "{serde}");
    assert_eq!(serde["daily"].as_array().map(Vec::len), Some(2), "{serde}");
    assert_eq!(serde["latest"]["downloads"], 1100);
    assert_eq!(find(sources, "owner/repo")["change"]["stars"], 2);
    let broken = find(sources, "owner/broken");
    assert!(broken["latest"]["error"].is_string());
    assert!(broken["change"]["stars"].is_null());

    let (status, _) = server_get(&server, "/system/admin/oss-metrics").await;
    assert_eq!(status, 200, "30d is the default");
    let (status, body) = server_get(&server, "/system/admin/oss-metrics?period=1y").await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(server.get("/system/admin/oss-metrics").await.status(), 401);
}

async fn server_get(server: &TestServer, path: &str) -> (u16, Value) {
    json_of(
        server
            .internal(Method::GET, path)
            .send()
            .await
            .expect("GET"),
    )
    .await
}
