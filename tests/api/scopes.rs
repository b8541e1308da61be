//! API key scopes over HTTP: a `read_only` key reads and gets 403 `insufficient_scope` on any write, a
//! `processing` key processes documents but cannot administer the tenant, an `admin` key (the default)
//! does everything its user's role allows; the OpenAPI document names the scope of every operation.

use reqwest::multipart::{Form, Part};
use reqwest::Method;
use serde_json::{json, Value};

use crate::jobs::{tenant, Tenant};
use crate::support::{json_of, TestServer};

async fn key(server: &TestServer, who: &Tenant, body: Value) -> (u16, Value) {
    json_of(
        server
            .bearer(Method::POST, "/v1/me/api-keys", &who.token)
            .json(&body)
            .send()
            .await
            .expect("POST"),
    )
    .await
}

pub(crate) async fn with_key(
    server: &TestServer,
    key: &str,
    method: Method,
    path: &str,
    body: Option<Value>,
) -> (u16, Value) {
    let mut request = server.with_key(method, path, key);
    if let Some(body) = body {
        request = request.json(&body);
    }
    json_of(request.send().await.expect("request")).await
}

async fn preview(server: &TestServer, key: &str) -> (u16, Value) {
    let form = Form::new().part(
        "file",
        Part::bytes(b"Ayse Yilmaz, TCKN 10000000146".to_vec()).file_name("a.txt"),
    );
    json_of(
        server
            .with_key(Method::POST, "/v1/data-process/preview", key)
            .multipart(form)
            .send()
            .await
            .expect("POST"),
    )
    .await
}

#[tokio::test]
async fn each_scope_allows_its_routes_and_answers_403_beyond_them() {
    let server = TestServer::start().await;
    let alice = tenant(&server, "alice-scopes@example.com").await;
    let mut keys = std::collections::HashMap::new();
    for scope in ["read_only", "processing", "admin"] {
        let (status, created) = key(&server, &alice, json!({"name": scope, "scope": scope})).await;
        assert_eq!(status, 201, "{created}");
        assert_eq!(created["data"]["scope"], scope);
        keys.insert(
            scope,
            created["data"]["api_key"]
                .as_str()
                .expect("key")
                .to_string(),
        );
    }
    let (status, default) = key(&server, &alice, json!({"name": "old-style"})).await;
    assert_eq!(status, 201, "{default}");
    assert_eq!(
        default["data"]["scope"], "admin",
        "a key without a scope can do everything"
    );
    let (status, refused) = key(&server, &alice, json!({"scope": "everything"})).await;
    assert_eq!(status, 422, "{refused}");
    assert_eq!(refused["detail"][0]["loc"][1], "scope", "{refused}");

    // Reads: every scope.
    for scope in ["read_only", "processing", "admin"] {
        let (status, body) =
            with_key(&server, &keys[scope], Method::GET, "/v1/documents", None).await;
        assert_eq!(status, 200, "{scope}: {body}");
    }
    // Processing: not read_only.
    let (status, body) = preview(&server, &keys["read_only"]).await;
    assert_eq!(status, 403, "{body}");
    assert_eq!(body["code"], "insufficient_scope", "{body}");
    assert!(
        body["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("needs processing"),
        "{body}"
    );
    for scope in ["processing", "admin"] {
        let (status, body) = preview(&server, &keys[scope]).await;
        assert_eq!(status, 200, "{scope}: {body}");
    }
    // Administration: admin only.
    let webhook = json!({"url": "http://127.0.0.1:9/hook", "events": ["job.completed"]});
    for scope in ["read_only", "processing"] {
        let (status, body) = with_key(
            &server,
            &keys[scope],
            Method::POST,
            "/v1/webhooks",
            Some(webhook.clone()),
        )
        .await;
        assert_eq!(status, 403, "{scope}: {body}");
        assert_eq!(body["code"], "insufficient_scope", "{scope}: {body}");
        let (status, body) = with_key(
            &server,
            &keys[scope],
            Method::POST,
            "/v1/me/api-keys",
            Some(json!({"scope": "admin"})),
        )
        .await;
        assert_eq!(status, 403, "a {scope} key made a key: {body}");
    }
    let (status, body) = with_key(
        &server,
        &keys["admin"],
        Method::POST,
        "/v1/webhooks",
        Some(webhook),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    // The listing shows each key's scope.
    let (status, list) = alice.get(&server, "/v1/me/api-keys").await;
    assert_eq!(status, 200, "{list}");
    let scopes: Vec<&str> = list["data"]["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|k| k["scope"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(scopes, ["admin", "admin", "processing", "read_only"]);
}

#[tokio::test]
async fn the_openapi_document_names_the_scope_of_every_operation() {
    let server = TestServer::start().await;
    let (status, document) = server.get_json("/openapi.json").await;
    assert_eq!(status, 200);
    let scope_of = |path: &str, method: &str| -> Vec<Value> {
        let security = document["paths"][path][method]["security"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        security
            .iter()
            .filter_map(|requirement| requirement.get("api_key").cloned())
            .collect()
    };
    assert_eq!(scope_of("/v1/documents", "get"), [json!(["read_only"])]);
    assert_eq!(
        scope_of("/v1/data-process/preview", "post"),
        [json!(["processing"])]
    );
    assert_eq!(scope_of("/v1/webhooks", "post"), [json!(["admin"])]);
    // Every operation an API key may call names its scope and its 403.
    let mut operations = 0;
    for (path, item) in document["paths"].as_object().expect("paths") {
        for (method, operation) in item.as_object().expect("item") {
            let Some(security) = operation["security"].as_array() else {
                continue;
            };
            for requirement in security.iter().filter_map(|r| r.get("api_key")) {
                operations += 1;
                let scope = requirement[0].as_str().unwrap_or_default();
                assert!(
                    ["read_only", "processing", "admin"].contains(&scope),
                    "{method} {path}: {requirement}"
                );
                assert!(operation["responses"]["403"].is_object(), "{method} {path}");
            }
        }
    }
    assert!(operations > 40, "{operations} operations");
}
