//! Data protection over HTTP: blobs sealed at rest (local folder and S3), the master key's rotation
//! and the check that every blob opens, and retention with its destruction log.

use std::path::Path;
use std::time::Duration;

use reqwest::Method;
use serde_json::{json, Value};

use crate::datasets::{api_key, post, wait_ready};
use crate::emulators;
use crate::jobs::{tenant, Tenant};
use crate::scopes::with_key as call;
use crate::support::{json_of, ServerOptions, TestServer};

/// A letter with planted personal data and words found nowhere else.
const LETTER: &str = "Sayın Zümrüt Kervansaraylıoğlu,\nT.C. kimlik numaranız 10000000146 olarak \
    kayıtlıdır. Telefon: 0532 614 27 93. Sipariş notu: mandalina-kervan-ışığı.\n";
/// What must never be found at rest: the planted values and the document's own words.
const NEEDLES: [&str; 4] = [
    "10000000146",
    "Kervansaray",
    "mandalina-kervan",
    "614 27 93",
];

/// Uploads the letter, waits for it, and builds a dataset with a JSONL and a CSV export; answers the
/// execution id and the dataset id.
async fn letter_everywhere(server: &TestServer, who: &Tenant, key: &str) -> (i64, String) {
    let jobs = who
        .queue(server, vec![("mektup.txt", LETTER.as_bytes().to_vec())])
        .await;
    let views = who.wait_for(server, &jobs, Duration::from_secs(60)).await;
    let execution = views[0]["execution_id"].as_i64().expect("completed");
    let (status, body) = post(
        server,
        who,
        json!({"name": "mektuplar", "execution_ids": [execution]}),
    )
    .await;
    assert_eq!(status, 202, "{body}");
    let dataset = body["data"]["id"].as_str().expect("id").to_string();
    assert_eq!(wait_ready(server, key, &dataset).await["status"], "ready");
    for format in ["jsonl", "csv"] {
        let response = server
            .with_key(
                Method::GET,
                &format!("/v1/datasets/{dataset}/export?format={format}"),
                key,
            )
            .send()
            .await
            .expect("download");
        assert_eq!(response.status(), 200, "{format}");
        let text = response.text().await.expect("body");
        assert!(text.contains("[MASKED_"), "{format}: {text}");
        assert!(!text.contains("10000000146"), "{format}: {text}");
    }
    (execution, dataset)
}

/// Every file under `folder` whose bytes contain a needle.
pub(crate) fn files_with(folder: &Path, needles: &[&str]) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![folder.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let bytes = std::fs::read(&path).unwrap_or_default();
            let text = String::from_utf8_lossy(&bytes);
            for needle in needles {
                if text.contains(needle) {
                    found.push(format!("{} holds {needle}", path.display()));
                }
            }
        }
    }
    found
}

/// The execution's stored result still opens and shows the masked letter.
async fn result_opens(server: &TestServer, key: &str, execution: i64) {
    let (status, body) = call(
        server,
        key,
        Method::GET,
        &format!("/v1/executions/{execution}"),
        None,
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let text = body["data"]["result"].to_string();
    assert!(
        text.contains("mandalina") || text.contains("MASKED"),
        "{body}"
    );
    assert!(!text.contains("10000000146"), "{body}");
}

/// Asserts that each of `bodies` sent to `path` is refused with 422.
pub(crate) async fn refused(
    server: &TestServer,
    key: &str,
    method: Method,
    path: &str,
    bodies: impl IntoIterator<Item = Value>,
) {
    for bad in bodies {
        let (status, body) = call(server, key, method.clone(), path, Some(bad.clone())).await;
        assert_eq!(status, 422, "{bad}: {body}");
    }
}

fn keys_command(server: &TestServer, args: &[&str]) -> Value {
    let output = server.command(args);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "docsieve {args:?}: {stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_str(&stdout)
        .unwrap_or_else(|_| panic!("JSON from docsieve {args:?}: {stdout}"))
}

#[tokio::test]
async fn blobs_sit_sealed_on_disk_and_open_after_the_master_key_is_rotated() {
    let mut server = TestServer::start().await;
    let alice = tenant(&server, "alice-sealed@example.com").await;
    let key = api_key(&server, &alice).await;
    let (execution, dataset) = letter_everywhere(&server, &alice, &key).await;
    let blobs = server.data_dir.path().join("blobs");
    assert_eq!(files_with(&blobs, &NEEDLES), Vec::<String>::new());
    let verified = keys_command(&server, &["keys", "verify"]);
    assert_eq!(verified["failed"], 0, "{verified}");
    assert!(
        verified["objects"].as_u64().expect("count") >= 4,
        "{verified}"
    );
    assert_eq!(verified["sealed"], verified["objects"], "{verified}");
    // The generated master key sits in the data dir, owner-only.
    let key_file = server.data_dir.path().join("master_key");
    let before = std::fs::read_to_string(&key_file).expect("master key");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&key_file)
            .expect("meta")
            .permissions()
            .mode();
        assert_eq!(mode & 0o077, 0, "the master key is readable by others");
    }

    // Rotated while the server runs: the running server and a restarted one open everything.
    let rotation = keys_command(&server, &["keys", "rotate"]);
    assert!(
        rotation["rewrapped"].as_u64().expect("count") >= 1,
        "{rotation}"
    );
    let after = std::fs::read_to_string(&key_file).expect("master key");
    assert_ne!(before.trim(), after.trim());
    assert_eq!(
        after.trim().lines().count(),
        1,
        "the old key is dropped once every data key moved"
    );
    result_opens(&server, &key, execution).await;
    server.terminate(Duration::from_secs(20));
    server.spawn();
    result_opens(&server, &key, execution).await;
    let response = server
        .with_key(
            Method::GET,
            &format!("/v1/datasets/{dataset}/export?format=jsonl"),
            &key,
        )
        .send()
        .await
        .expect("download");
    assert_eq!(response.status(), 200);
    assert!(response.text().await.expect("body").contains("mandalina"));
    let verified = keys_command(&server, &["keys", "verify"]);
    assert_eq!(verified["failed"], 0, "{verified}");

    // The old key alone opens nothing: a data key wrapped by an unknown master key fails closed.
    let old_key_dir = tempfile::tempdir().expect("dir");
    let old_key = old_key_dir.path().join("old_key");
    std::fs::write(&old_key, &before).expect("write");
    let output = std::process::Command::new(crate::support::binary())
        .arg("--config")
        .arg(crate::support::test_config())
        .args(["keys", "verify"])
        .env("DOCSIEVE__STORAGE__DATA_DIR", server.data_dir.path())
        .envs(
            server
                .env_value("DOCSIEVE__DATABASE__URL")
                .map(|url| ("DOCSIEVE__DATABASE__URL", url)),
        )
        .env("DOCSIEVE__STORAGE__MASTER_KEY_FILE", &old_key)
        .output()
        .expect("verify");
    assert!(!output.status.success(), "the old key opened the blobs");
    let report: Value = serde_json::from_slice(&output.stdout).expect("report");
    assert_eq!(report["opened"], 0, "{report}");
}

/// A server whose blob store is `bucket` on the emulator (under `docsieve/`), configured by the
/// providers' own environment variables: what it stores there is sealed and holds nothing readable.
async fn sealed_in(emulator: emulators::Emulator, bucket: &str) {
    emulator.create_bucket(bucket).await;
    let endpoint = emulator.endpoint();
    let options = ServerOptions::default();
    let options = match emulator.kind {
        emulators::Kind::S3 => options
            .env(
                "DOCSIEVE__STORAGE__BLOB_URL",
                &format!("s3://{bucket}/docsieve"),
            )
            .env("AWS_ACCESS_KEY_ID", "AKIAMOTOTEST")
            .env("AWS_SECRET_ACCESS_KEY", emulators::S3_SECRET)
            .env("AWS_REGION", "us-east-1")
            .env("AWS_ENDPOINT", &endpoint)
            .env("AWS_ALLOW_HTTP", "true")
            .env("AWS_VIRTUAL_HOSTED_STYLE_REQUEST", "false"),
        emulators::Kind::Gcs => options
            .env(
                "DOCSIEVE__STORAGE__BLOB_URL",
                &format!("gs://{bucket}/docsieve"),
            )
            .env(
                "GOOGLE_SERVICE_ACCOUNT_KEY",
                &json!({"gcs_base_url": endpoint, "disable_oauth": true, "client_email": "",
                    "private_key": "", "private_key_id": ""})
                .to_string(),
            )
            .env("GOOGLE_ALLOW_HTTP", "true"),
        emulators::Kind::Azure => options
            .env(
                "DOCSIEVE__STORAGE__BLOB_URL",
                &format!("az://{bucket}/docsieve"),
            )
            .env("AZURE_STORAGE_ACCOUNT_NAME", emulators::AZURITE_ACCOUNT)
            .env("AZURE_STORAGE_ACCOUNT_KEY", emulators::AZURITE_KEY)
            .env("AZURE_STORAGE_ENDPOINT", &endpoint)
            .env("AZURE_ALLOW_HTTP", "true"),
    };
    let server = TestServer::start_with(options).await;
    let bob = tenant(&server, "bob-sealed@example.com").await;
    let key = api_key(&server, &bob).await;
    let (execution, _) = letter_everywhere(&server, &bob, &key).await;
    result_opens(&server, &key, execution).await;
    // Everything the server stored (Azure's `az://` URL names the container; S3's keeps the prefix).
    let stored: Vec<String> = emulator
        .keys(bucket, "")
        .await
        .into_iter()
        .filter(|key| key.contains("tenants/"))
        .collect();
    assert!(stored.len() >= 4, "{:?}: {stored:?}", emulator.kind);
    for object in &stored {
        let bytes = emulator.get(bucket, object).await;
        assert!(bytes.starts_with(b"DSB1"), "{object} is not sealed");
        let text = String::from_utf8_lossy(&bytes);
        for needle in NEEDLES {
            assert!(!text.contains(needle), "{object} holds {needle}");
        }
    }
}

#[tokio::test]
async fn blobs_in_an_s3_bucket_are_sealed_too() {
    if let Some(s3) = emulators::s3() {
        sealed_in(s3, "kasa").await;
    }
}

// No GCS variant: fake-gcs-server takes writes through its JSON API only (object_store writes with
// the XML API, which it answers 400 "invalid uploadType"), so it cannot hold the server's own blobs.
// Sealing happens above object_store, the same for every store.

#[tokio::test]
async fn blobs_in_an_azure_container_are_sealed_too() {
    if let Some(azure) = emulators::azurite() {
        sealed_in(azure, "kasa").await;
    }
}

#[tokio::test]
async fn retention_destroys_what_is_due_once_and_logs_it() {
    let server = TestServer::start_with(
        ServerOptions::default().env("DOCSIEVE__JOBS__RETENTION_INTERVAL_SECONDS", "1"),
    )
    .await;
    let carol = tenant(&server, "carol-retention@example.com").await;
    let key = api_key(&server, &carol).await;
    let jobs = carol
        .queue(&server, vec![("mektup.txt", LETTER.as_bytes().to_vec())])
        .await;
    let views = carol
        .wait_for(&server, &jobs, Duration::from_secs(60))
        .await;
    let execution = views[0]["execution_id"].as_i64().expect("completed");
    let document = views[0]["document_id"].as_i64().expect("document");

    // The trial plan keeps originals 30 days and results 90; the tenant may choose fewer, not more.
    let (status, body) = call(&server, &key, Method::GET, "/v1/compliance/retention", None).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["plan_originals_retention_days"], 30, "{body}");
    assert_eq!(body["data"]["originals_in_force_days"], 30, "{body}");
    let bad = [
        json!({"originals_retention_days": 0}),
        json!({"results_retention_days": 91}),
        json!({"originals": 3}),
    ];
    refused(&server, &key, Method::PUT, "/v1/compliance/retention", bad).await;
    let (status, body) = call(
        &server,
        &key,
        Method::PUT,
        "/v1/compliance/retention",
        Some(json!({"originals_retention_days": 1, "results_retention_days": 2})),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["originals_in_force_days"], 1);
    assert_eq!(body["data"]["results_in_force_days"], 2);
    let (_, record) = call(
        &server,
        &key,
        Method::GET,
        "/v1/compliance/processing-record",
        None,
    )
    .await;
    assert!(
        record["data"]["retention"]
            .to_string()
            .contains("1 days after"),
        "{record}"
    );

    let log = |server: &TestServer| {
        let key = key.clone();
        let server_url = server.url("/v1/compliance/destruction-log");
        let client = server.client.clone();
        async move {
            let response = client
                .get(server_url)
                .header("X-API-KEY", key)
                .send()
                .await
                .expect("GET");
            json_of(response).await.1["data"].clone()
        }
    };
    assert_eq!(log(&server).await["total"], 0);

    // A day and an hour later: the original goes, the result stays.
    server.advance_clock(25 * 3600).await;
    let destroyed = server
        .eventually(Duration::from_secs(20), || async {
            log(&server).await["total"] == 1
        })
        .await;
    assert!(destroyed, "no destruction logged\n{}", server.stderr());
    let entry = log(&server).await["items"][0].clone();
    assert_eq!(entry["category"], "originals", "{entry}");
    assert_eq!(entry["items"], 1, "{entry}");
    assert_eq!(entry["detail"]["ids"], json!([document]), "{entry}");
    let (_, shown) = call(
        &server,
        &key,
        Method::GET,
        &format!("/v1/documents/{document}"),
        None,
    )
    .await;
    assert!(
        shown["data"]["original_destroyed_at"].is_string(),
        "{shown}"
    );
    let (status, body) = call(
        &server,
        &key,
        Method::POST,
        &format!("/v1/documents/{document}/reprocess"),
        Some(json!({})),
    )
    .await;
    assert_eq!(status, 410, "{body}");
    assert_eq!(body["code"], "original_expired");
    result_opens(&server, &key, execution).await;
    let originals = server
        .data_dir
        .path()
        .join(format!("blobs/tenants/{}/uploads", carol.tenant_id));
    let left = std::fs::read_dir(&originals).map_or(0, |entries| entries.count());
    assert_eq!(left, 0, "the original is still in {}", originals.display());

    // Another day: the result goes too; each destruction is logged once.
    server.advance_clock(24 * 3600).await;
    let destroyed = server
        .eventually(Duration::from_secs(20), || async {
            log(&server).await["total"] == 2
        })
        .await;
    assert!(
        destroyed,
        "the result was not destroyed\n{}",
        server.stderr()
    );
    tokio::time::sleep(Duration::from_secs(3)).await;
    let entries = log(&server).await;
    assert_eq!(entries["total"], 2, "{entries}");
    assert_eq!(entries["items"][0]["category"], "results");
    assert_eq!(entries["items"][0]["detail"]["ids"], json!([execution]));
    let (_, shown) = call(
        &server,
        &key,
        Method::GET,
        &format!("/v1/executions/{execution}"),
        None,
    )
    .await;
    assert!(shown["data"]["result_destroyed_at"].is_string(), "{shown}");
    assert!(shown["data"]["result"].is_null(), "{shown}");
}
