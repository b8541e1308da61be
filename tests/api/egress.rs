//! Outbound requests that cannot be steered, over HTTP: every connector field that becomes part of a
//! URL is checked against its provider's rules at the door (422 naming the field); endpoints at
//! loopback in any of its IPv6 disguises are refused; the storage client follows no redirect; a
//! stored connector is refused at use once private endpoints are turned off. A loopback listener
//! stands for the internal service an attacker would reach: it is never hit.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use reqwest::Method;
use serde_json::{json, Value};

use crate::connectors::{create, named};
use crate::jobs::{tenant, Tenant};
use crate::support::{json_of, ServerOptions, TestServer};

/// A loopback HTTP listener answering every request with `answer`; counts connections.
struct Listener {
    port: u16,
    hits: Arc<AtomicUsize>,
}

impl Listener {
    fn start(answer: String) -> Listener {
        let socket = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = socket.local_addr().expect("address").port();
        let hits = Arc::new(AtomicUsize::new(0));
        let counted = hits.clone();
        std::thread::spawn(move || {
            for stream in socket.incoming() {
                let Ok(mut stream) = stream else { continue };
                counted.fetch_add(1, Ordering::SeqCst);
                let mut buffer = [0u8; 8192];
                let _ = stream.read(&mut buffer);
                let _ = stream.write_all(answer.as_bytes());
            }
        });
        Listener { port, hits }
    }

    /// An internal service with a secret in its answer.
    fn internal() -> Listener {
        let body = "INTERNAL-SECRET-7f3a";
        Listener::start(format!(
            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        ))
    }

    /// A server that redirects every request to `target`.
    fn redirecting_to(target: &str) -> Listener {
        Listener::start(format!(
            "HTTP/1.1 302 Found\r\nLocation: {target}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        ))
    }

    fn hits(&self) -> usize {
        self.hits.load(Ordering::SeqCst)
    }
}

async fn test_connection(server: &TestServer, who: &Tenant, id: i64) -> Value {
    let (status, body) = json_of(
        server
            .bearer(
                Method::POST,
                &format!("/v1/connectors/{id}/test"),
                &who.token,
            )
            .send()
            .await
            .expect("POST"),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    body["data"].clone()
}

/// A valid configuration of each type, pointing at `endpoint`.
fn configs(endpoint: &str) -> Vec<Value> {
    vec![
        json!({"type": "s3", "name": "s3", "config": {"bucket": "faturalar", "region": "eu-central-1",
            "aws_access_key_id": "AKIATEST", "aws_secret_access_key": "secret", "endpoint": endpoint}}),
        json!({"type": "azure_blob", "name": "azure", "config": {"account_name": "devstoreaccount1",
            "container_name": "gelen", "account_key": "c2VjcmV0", "endpoint": endpoint}}),
        json!({"type": "gcs", "name": "gcs", "config": {"bucket": "gelen", "endpoint": endpoint}}),
    ]
}

#[tokio::test]
async fn every_url_bearing_field_is_checked_and_loopback_is_refused_in_every_disguise() {
    let internal = Listener::internal();
    let port = internal.port;
    let server = TestServer::start_with(
        ServerOptions::default().env("DOCSIEVE__CONNECTORS__ALLOW_PRIVATE_ENDPOINTS", "false"),
    )
    .await;
    let alice = tenant(&server, "alice-egress@example.com").await;
    let smuggled = [
        format!("x.127.0.0.1:{port}/"),
        "a:b".to_string(),
        "a@b".to_string(),
        "x#y".to_string(),
        "a%2fb".to_string(),
        "evil/..".to_string(),
    ];
    let fields: [(usize, &str); 5] = [
        (0, "bucket"),
        (0, "region"),
        (1, "account_name"),
        (1, "container_name"),
        (2, "bucket"),
    ];
    let mut refused = 0;
    for (index, field) in fields {
        for value in &smuggled {
            let mut body = configs("https://93.184.215.14")[index].clone();
            body["config"][field] = json!(value);
            let (status, answer) = create(&server, &alice, body).await;
            assert_eq!(status, 422, "{field} = {value}: {answer}");
            assert!(
                named(&answer).contains(&format!("config.{field}")),
                "{field} = {value}: {answer}"
            );
            refused += 1;
        }
    }
    let endpoints = [
        format!("http://127.0.0.1:{port}"),
        format!("http://[::127.0.0.1]:{port}"),
        format!("http://[::ffff:127.0.0.1]:{port}"),
        format!("http://[64:ff9b::7f00:1]:{port}"),
        format!("http://[fec0::1]:{port}"),
        format!("http://[::1]:{port}"),
        format!("http://localhost:{port}"),
        format!("http://2130706433:{port}"),
        format!("http://user@127.0.0.1:{port}"),
        format!("http://storage.example.com#@127.0.0.1:{port}"),
    ];
    for index in 0..3 {
        for endpoint in &endpoints {
            let body = configs(endpoint)[index].clone();
            let (status, answer) = create(&server, &alice, body).await;
            assert_eq!(status, 422, "{endpoint}: {answer}");
            assert_eq!(named(&answer), ["config.endpoint"], "{endpoint}: {answer}");
            refused += 1;
        }
    }
    // A GCS key that would say where requests go.
    let mut body = configs("https://93.184.215.14")[2].clone();
    body["config"]["service_account_key"] = json!({"client_email": "a@p.iam.gserviceaccount.com",
        "private_key": "k", "private_key_id": "1", "gcs_base_url": format!("http://127.0.0.1:{port}")});
    let (status, answer) = create(&server, &alice, body).await;
    assert_eq!(status, 422, "{answer}");
    assert_eq!(
        named(&answer),
        ["config.service_account_key.gcs_base_url"],
        "{answer}"
    );
    println!("{} hostile configurations refused", refused + 1);
    let (_, list) = alice.get(&server, "/v1/connectors").await;
    assert_eq!(list["data"]["total"], 0, "nothing refused was stored");
    assert_eq!(internal.hits(), 0, "the internal listener was reached");
}

#[tokio::test]
async fn redirects_are_not_followed_and_a_stored_connector_is_refused_once_private_endpoints_are_off(
) {
    let internal = Listener::internal();
    let redirector = Listener::redirecting_to(&format!(
        "http://127.0.0.1:{}/latest/meta-data",
        internal.port
    ));
    // Private endpoints allowed: the redirecting server is on loopback, as every test server is.
    let allowing = TestServer::start().await;
    let alice = tenant(&allowing, "alice-redirect@example.com").await;
    let mut ids = Vec::new();
    for body in configs(&format!("http://127.0.0.1:{}", redirector.port)) {
        let kind = body["type"].as_str().unwrap_or_default().to_string();
        let (status, created) = create(&allowing, &alice, body).await;
        assert_eq!(status, 201, "{created}");
        let id = created["data"]["id"].as_i64().expect("id");
        ids.push(id);
        let outcome = test_connection(&allowing, &alice, id).await;
        assert_eq!(outcome["ok"], false, "{kind}: {outcome}");
        assert!(
            !outcome.to_string().contains("INTERNAL-SECRET"),
            "{kind}: {outcome}"
        );
        // A source upload of a key from it fails with the connector's code, nothing is stored.
        let (status, upload) = json_of(
            allowing
                .bearer(Method::POST, "/v1/data-process/async", &alice.token)
                .json(&json!({"source": {"connector_id": id, "keys": ["a.txt"]}}))
                .send()
                .await
                .expect("POST"),
        )
        .await;
        assert!(status < 500, "{kind}: {status} {upload}");
        assert!(!upload.to_string().contains("INTERNAL-SECRET"), "{upload}");
    }
    assert!(redirector.hits() > 0, "the redirecting server was asked");
    assert_eq!(internal.hits(), 0, "a redirect was followed");

    // The same connectors, read by a process on the same database with private endpoints off.
    let refusing = TestServer::start_with(
        allowing
            .same_store()
            .env("DOCSIEVE__CONNECTORS__ALLOW_PRIVATE_ENDPOINTS", "false"),
    )
    .await;
    let before = redirector.hits();
    for id in ids {
        let outcome = test_connection(&refusing, &alice, id).await;
        assert_eq!(outcome["ok"], false, "{outcome}");
        assert_eq!(outcome["code"], "target_refused", "{outcome}");
        assert!(
            outcome["message"]
                .as_str()
                .unwrap_or_default()
                .contains("config.endpoint"),
            "{outcome}"
        );
    }
    assert_eq!(redirector.hits(), before, "a refused connector was used");
    assert_eq!(internal.hits(), 0);
}
