//! Storage connectors over HTTP: each type's fields checked and named, secrets sealed at rest and shown
//! as `***`, the private-endpoint guard, list, detail, delete and tenant isolation.

use reqwest::Method;
use serde_json::{json, Value};

use crate::jobs::{tenant, Tenant};
use crate::support::{json_of, ServerOptions, TestServer};

const S3_SECRET: &str = "s3-secret-key-0123456789abcdef";
const AZURE_KEY: &str = "YXp1cml0ZS1hY2NvdW50LWtleS1zZWNyZXQ=";
const GCS_PRIVATE_KEY: &str = "-----BEGIN PRIVATE KEY-----gcs-secret-----END PRIVATE KEY-----";

pub(crate) async fn create(server: &TestServer, who: &Tenant, body: Value) -> (u16, Value) {
    json_of(
        server
            .bearer(Method::POST, "/v1/connectors", &who.token)
            .json(&body)
            .send()
            .await
            .expect("POST"),
    )
    .await
}

fn s3() -> Value {
    json!({"type": "s3", "name": "faturalar", "config": {
        "bucket": "faturalar", "region": "eu-central-1", "aws_access_key_id": "AKIATEST",
        "aws_secret_access_key": S3_SECRET, "prefix": "gelen/", "endpoint": "http://127.0.0.1:9000"}})
}

fn gcs_key() -> Value {
    json!({"type": "service_account", "project_id": "p", "private_key": GCS_PRIVATE_KEY,
        "client_email": "docsieve@p.iam.gserviceaccount.com"})
}

/// The fields a 422 names, as `config.<field>` (or the top-level name).
pub(crate) fn named(body: &Value) -> Vec<String> {
    body["detail"]
        .as_array()
        .expect("detail list")
        .iter()
        .map(|d| d["loc"][1].as_str().expect("field").to_string())
        .collect()
}

#[tokio::test]
async fn connectors_are_checked_sealed_listed_and_deleted() {
    let server = TestServer::start().await;
    let alice = tenant(&server, "alice-connectors@example.com").await;

    let (status, created) = create(&server, &alice, s3()).await;
    assert_eq!(status, 201, "{created}");
    let s3_id = created["data"]["id"].as_i64().expect("id");
    assert_eq!(created["data"]["type"], "s3");
    assert_eq!(created["data"]["config"]["aws_secret_access_key"], "***");
    assert_eq!(created["data"]["config"]["bucket"], "faturalar");
    assert_eq!(created["data"]["config"]["prefix"], "gelen/");

    let (status, azure) = create(
        &server,
        &alice,
        json!({"type": "azure_blob", "name": "arsiv", "config": {"account_name": "devstoreaccount1",
            "container_name": "arsiv", "account_key": AZURE_KEY, "endpoint": "http://127.0.0.1:10000/devstoreaccount1"}}),
    )
    .await;
    assert_eq!(status, 201, "{azure}");
    assert_eq!(azure["data"]["config"]["account_key"], "***");
    // The GCS key as an object, as a string, or no key with an emulator endpoint.
    for config in [
        json!({"bucket": "belgeler", "service_account_key": gcs_key()}),
        json!({"bucket": "belgeler", "service_account_key": gcs_key().to_string()}),
        json!({"bucket": "belgeler", "endpoint": "http://127.0.0.1:4443"}),
    ] {
        let (status, gcs) = create(
            &server,
            &alice,
            json!({"type": "gcs", "name": "g", "config": config}),
        )
        .await;
        assert_eq!(status, 201, "{gcs}");
        assert_eq!(gcs["data"]["config"]["service_account_key"], "***");
    }

    // Nothing secret is stored or logged in clear.
    let stored = server
        .query_strings("SELECT config_public || ' ' || config_secret_encrypted FROM connectors")
        .await
        .join("\n");
    for secret in [S3_SECRET, AZURE_KEY, GCS_PRIVATE_KEY] {
        assert!(!stored.contains(secret), "a secret is stored in clear");
        assert!(
            !server.stderr().contains(secret),
            "a secret reached the log"
        );
    }

    let (status, list) = alice.get(&server, "/v1/connectors?page_size=2").await;
    assert_eq!(status, 200, "{list}");
    assert_eq!(list["data"]["total"], 5);
    assert_eq!(list["data"]["items"].as_array().map(Vec::len), Some(2));
    assert!(!list.to_string().contains(S3_SECRET));
    let (status, one) = alice.get(&server, &format!("/v1/connectors/{s3_id}")).await;
    assert_eq!(status, 200, "{one}");
    assert_eq!(one["data"]["config"]["aws_secret_access_key"], "***");

    let bob = tenant(&server, "bob-connectors@example.com").await;
    let (status, body) = bob.get(&server, &format!("/v1/connectors/{s3_id}")).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (404, Some("connector_not_found")),
        "{body}"
    );
    let (status, _) = bob.get(&server, "/v1/connectors/abc").await;
    assert_eq!(status, 422);

    let deleted = server
        .bearer(
            Method::DELETE,
            &format!("/v1/connectors/{s3_id}"),
            &alice.token,
        )
        .send()
        .await
        .expect("DELETE");
    assert_eq!(deleted.status(), 204);
    let (status, _) = alice.get(&server, &format!("/v1/connectors/{s3_id}")).await;
    assert_eq!(status, 404);
    let again = server
        .bearer(
            Method::DELETE,
            &format!("/v1/connectors/{s3_id}"),
            &alice.token,
        )
        .send()
        .await
        .expect("DELETE");
    assert_eq!(again.status(), 404);
    let audited = server
        .query_strings(&format!(
            "SELECT action FROM audit_entries WHERE tenant_id = {} AND action LIKE 'connector_%' ORDER BY id",
            alice.tenant_id
        ))
        .await;
    assert_eq!(
        audited.first().map(String::as_str),
        Some("connector_create")
    );
    assert_eq!(audited.last().map(String::as_str), Some("connector_delete"));
}

#[tokio::test]
async fn bad_connectors_get_422_naming_each_field() {
    let server = TestServer::start().await;
    let alice = tenant(&server, "alice-bad-connectors@example.com").await;
    let (status, body) = create(
        &server,
        &alice,
        json!({"type": "ftp", "name": "x", "config": {}}),
    )
    .await;
    assert_eq!(status, 422, "{body}");
    let message = body["detail"][0]["msg"].as_str().expect("msg");
    assert!(
        message.contains("s3") && message.contains("azure_blob") && message.contains("gcs"),
        "{body}"
    );

    let (status, body) = create(
        &server,
        &alice,
        json!({"type": "s3", "config": {"bucket": "", "region": 5, "aws_access_key_id": "AKIA", "colour": "red"}}),
    )
    .await;
    assert_eq!(status, 422, "{body}");
    let mut fields = named(&body);
    fields.sort();
    assert_eq!(
        fields,
        [
            "config.aws_secret_access_key",
            "config.bucket",
            "config.colour",
            "config.region",
            "name"
        ],
        "{body}"
    );

    let (status, body) = create(
        &server,
        &alice,
        json!({"type": "gcs", "name": "g", "config": {"bucket": "belgeler", "service_account_key": "not json"}}),
    )
    .await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(named(&body), ["config.service_account_key"]);
    let (status, body) = create(
        &server,
        &alice,
        json!({"type": "gcs", "name": "g", "config": {"bucket": "belgeler"}}),
    )
    .await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(
        named(&body),
        ["config.service_account_key"],
        "a key is needed without an emulator endpoint"
    );
    let (status, body) = create(&server, &alice, json!({"type": "azure_blob", "name": "a"})).await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(named(&body), ["config"]);
    let (_, list) = alice.get(&server, "/v1/connectors").await;
    assert_eq!(list["data"]["total"], 0, "nothing refused was stored");
}

#[tokio::test]
async fn a_private_endpoint_is_refused_unless_allowed() {
    let server = TestServer::start_with(
        ServerOptions::default().env("DOCSIEVE__CONNECTORS__ALLOW_PRIVATE_ENDPOINTS", "false"),
    )
    .await;
    let alice = tenant(&server, "alice-private-endpoint@example.com").await;
    for endpoint in [
        "http://127.0.0.1:9000",
        "http://10.1.2.3",
        "http://169.254.169.254/latest",
    ] {
        let mut body = s3();
        body["config"]["endpoint"] = json!(endpoint);
        let (status, answer) = create(&server, &alice, body).await;
        assert_eq!(status, 422, "{endpoint}: {answer}");
        assert_eq!(named(&answer), ["config.endpoint"], "{answer}");
    }
}
