//! The record of processing over HTTP: the categories of personal data the tenant's documents held,
//! its recipients marked by country, JSON and Markdown, and nothing of another tenant.

use std::time::Duration;

use reqwest::Method;
use serde_json::{json, Value};

use crate::jobs::{corpus, tenant, Tenant};
use crate::support::{json_of, ServerOptions, TestServer};

/// POSTs `body` as the tenant and checks it was created.
pub(crate) async fn created(server: &TestServer, who: &Tenant, path: &str, body: Value) -> Value {
    let (status, answer) = json_of(
        server
            .bearer(Method::POST, path, &who.token)
            .json(&body)
            .send()
            .await
            .expect("POST"),
    )
    .await;
    assert_eq!(status, 201, "{path}: {answer}");
    answer
}

/// An S3 connector in Frankfurt with `secret` as its key.
pub(crate) fn s3_connector(secret: &str) -> Value {
    json!({"type": "s3", "name": "arsiv", "config": {"bucket": "arsiv", "region": "eu-central-1",
        "aws_access_key_id": "AKIA", "aws_secret_access_key": secret}})
}

#[tokio::test]
async fn the_record_of_processing_lists_what_was_found_and_where_data_goes() {
    let server = TestServer::start_with(ServerOptions::default().env(
        "DOCSIEVE__COMPLIANCE__RECIPIENT_COUNTRIES",
        r#"{"hooks.example.com"="US"}"#,
    ))
    .await;
    let alice = tenant(&server, "alice-record@example.com").await;
    let bob = tenant(&server, "bob-record@example.com").await;
    let jobs = alice
        .queue(
            &server,
            vec![
                ("musteriler.csv", corpus("tr/tr_musteri_listesi.csv")),
                ("dilekce.txt", b"T.C. Kimlik No: 10000000146\n".to_vec()),
            ],
        )
        .await;
    alice
        .wait_for(&server, &jobs, Duration::from_secs(60))
        .await;
    for url in ["https://hooks.example.com/in", "https://b.example.org/x"] {
        created(
            &server,
            &alice,
            "/v1/webhooks",
            json!({"url": url, "events": ["job.completed"]}),
        )
        .await;
    }
    created(&server, &alice, "/v1/connectors", s3_connector("s")).await;

    let (status, record) = alice.get(&server, "/v1/compliance/processing-record").await;
    assert_eq!(status, 200, "{record}");
    let record = &record["data"];
    let categories = record["categories"].as_array().expect("categories");
    let tckn = categories
        .iter()
        .find(|c| c["type"] == "national_id_tr")
        .expect("national ids were found");
    assert!(tckn["count"].as_u64().expect("count") >= 2, "{tckn}");
    assert_eq!(tckn["executions"], 2);
    assert_eq!(tckn["kind"], "official identifier");
    assert!(tckn["first_seen"].is_string() && tckn["last_seen"].is_string());
    assert!(
        categories.iter().any(|c| c["kind"] == "financial"),
        "{categories:?}"
    );
    let recipients = record["recipients"].as_array().expect("recipients");
    let by_host = |host: &str| {
        recipients
            .iter()
            .find(|r| r["host"] == host)
            .unwrap_or_else(|| panic!("{host} not among {recipients:?}"))
            .clone()
    };
    assert_eq!(by_host("hooks.example.com")["outside_tr_eu"], true);
    assert!(by_host("b.example.org")["outside_tr_eu"]
        .as_str()
        .is_some_and(|s| s.starts_with("unknown")));
    let bucket = by_host("s3.amazonaws.com");
    assert_eq!(bucket["country"], "DE");
    assert_eq!(bucket["outside_tr_eu"], false);
    assert!(record["security_measures"]
        .as_array()
        .is_some_and(|m| !m.is_empty()));
    assert!(record["retention"].as_array().is_some_and(|m| m.len() >= 3));

    let markdown = server
        .bearer(
            Method::GET,
            "/v1/compliance/processing-record?format=markdown",
            &alice.token,
        )
        .send()
        .await
        .expect("GET");
    assert_eq!(markdown.status(), 200);
    assert!(markdown.headers()["content-type"]
        .to_str()
        .expect("type")
        .starts_with("text/markdown"));
    let text = markdown.text().await.expect("text");
    assert!(
        text.starts_with("# Record of processing activities"),
        "{text}"
    );
    assert!(text.contains("| national_id_tr |"), "{text}");
    assert!(text.contains("hooks.example.com"));

    let (status, body) = alice
        .get(&server, "/v1/compliance/processing-record?format=xml")
        .await;
    assert_eq!(status, 422, "{body}");
    // Bob's record holds nothing of Alice's.
    let (status, theirs) = bob.get(&server, "/v1/compliance/processing-record").await;
    assert_eq!(status, 200);
    assert_eq!(theirs["data"]["categories"], json!([]));
    assert_eq!(theirs["data"]["recipients"], json!([]));
    let unauthenticated = server
        .get("/v1/compliance/processing-record")
        .await
        .status();
    assert_eq!(unauthenticated, 401);
}
