//! API keys over HTTP: created, authenticating, scoped to their tenant, revoked.

use reqwest::Method;
use serde_json::json;

use crate::support::{json_of, TestServer};

#[tokio::test]
async fn api_keys_authenticate_and_can_be_revoked() {
    let server = TestServer::start().await;
    let (login, _, tenant_id) = server
        .verified_account("keys@example.com", "password-1")
        .await;
    let access = login["access_token"].as_str().expect("access");

    let (status, body) = json_of(
        server
            .client
            .get(server.url("/v1/usage"))
            .send()
            .await
            .expect("GET"),
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (401, Some("not_authenticated"))
    );

    let (status, created) = json_of(
        server
            .bearer(Method::POST, "/v1/me/api-keys", access)
            .json(&json!({"name": "ci pipeline"}))
            .send()
            .await
            .expect("POST"),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    let key = created["data"]["api_key"]
        .as_str()
        .expect("key")
        .to_string();
    assert!(key.starts_with(&format!(
        "dsk_{}_",
        created["data"]["prefix"].as_str().expect("prefix")
    )));
    // A body-less create works too.
    let response = server
        .bearer(Method::POST, "/v1/me/api-keys", access)
        .send()
        .await
        .expect("POST");
    assert_eq!(response.status(), 201);

    let (status, usage) = json_of(
        server
            .with_key(Method::GET, "/v1/usage", &key)
            .send()
            .await
            .expect("GET"),
    )
    .await;
    assert_eq!(status, 200, "{usage}");
    assert_eq!(usage["data"]["tenant_id"], tenant_id);
    assert_eq!(usage["data"]["plan"], "trial");
    // Verification opened the first (trial) period with its credits.
    assert_eq!(usage["data"]["period"]["plan"], "trial");
    assert_eq!(
        usage["data"]["credits"],
        json!({"granted": 1000, "reserved": 0, "used": 0, "expired": 0, "remaining": 1000,
            "expires_at": usage["data"]["period"]["end"]})
    );
    assert_eq!(usage["data"]["documents_processed"], 0);

    let (status, listed) = json_of(
        server
            .with_key(Method::GET, "/v1/me/api-keys", &key)
            .send()
            .await
            .expect("GET"),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(listed["data"]["total"], 2);
    assert!(
        !listed.to_string().contains(&key),
        "listings never show the secret"
    );
    assert!(listed["data"]["items"][0].get("api_key").is_none());

    let id = created["data"]["id"].as_i64().expect("id");
    let (status, _) = json_of(
        server
            .bearer(Method::DELETE, &format!("/v1/me/api-keys/{id}"), access)
            .send()
            .await
            .expect("DELETE"),
    )
    .await;
    assert_eq!(status, 200);
    let (status, body) = json_of(
        server
            .with_key(Method::GET, "/v1/usage", &key)
            .send()
            .await
            .expect("GET"),
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (401, Some("invalid_api_key"))
    );
    let (status, _) = json_of(
        server
            .with_key(
                Method::GET,
                "/v1/usage",
                &format!("{}x", &key[..key.len() - 1]),
            )
            .send()
            .await
            .expect("GET"),
    )
    .await;
    assert_eq!(status, 401);
    let (status, _) = json_of(
        server
            .bearer(Method::DELETE, "/v1/me/api-keys/999999", access)
            .send()
            .await
            .expect("DELETE"),
    )
    .await;
    assert_eq!(status, 404);

    // Access tokens expire with the service clock.
    server.advance_clock(901).await;
    let (status, body) = json_of(
        server
            .bearer(Method::GET, "/v1/usage", access)
            .send()
            .await
            .expect("GET"),
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (401, Some("token_expired"))
    );
    let (status, body) = json_of(
        server
            .bearer(Method::GET, "/v1/usage", "not.a.jwt")
            .send()
            .await
            .expect("GET"),
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (401, Some("invalid_token"))
    );
}
