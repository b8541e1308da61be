//! Storage connectors against real emulators (moto, Azurite, fake-gcs-server): the connection test and
//! its failure codes, source-mode uploads, and auto-export of a dataset to a bucket (schedules and
//! syncs: `schedules.rs`). No server log holds a secret the test used.

use std::time::Duration;

use reqwest::Method;
use serde_json::{json, Value};

use crate::emulators::{self, AZURITE_KEY, S3_SECRET};
use crate::jobs::{corpus, on_plan, planted, tenant, Tenant};
use crate::schedules::{schedule, trigger};
use crate::support::{json_of, ServerOptions, TestServer};

pub(crate) async fn call(
    server: &TestServer,
    who: &Tenant,
    method: Method,
    path: &str,
    body: Option<Value>,
) -> (u16, Value) {
    let mut request = server.bearer(method, path, &who.token);
    if let Some(body) = body {
        request = request.json(&body);
    }
    json_of(request.send().await.expect("request")).await
}

pub(crate) async fn connector(server: &TestServer, who: &Tenant, body: Value) -> i64 {
    let (status, created) = call(server, who, Method::POST, "/v1/connectors", Some(body)).await;
    assert_eq!(status, 201, "{created}");
    created["data"]["id"].as_i64().expect("id")
}

async fn test_connection(server: &TestServer, who: &Tenant, id: i64) -> Value {
    let (status, body) = call(
        server,
        who,
        Method::POST,
        &format!("/v1/connectors/{id}/test"),
        None,
    )
    .await;
    assert_eq!(status, 200, "{body}");
    body["data"].clone()
}

/// A small text document with planted personal data (a valid TCKN and IBAN).
pub(crate) fn letter(n: usize) -> Vec<u8> {
    format!(
        "Sayın yetkili, başvuru {n}.\nT.C. Kimlik No: 10000000146\nIBAN: TR33 0006 1005 1978 6457 8413 26\nSaygılarımla.\n"
    )
    .into_bytes()
}

pub(crate) const PLANTED: [&str; 2] = ["10000000146", "TR33 0006 1005 1978 6457 8413 26"];

#[tokio::test]
async fn the_connection_test_names_each_failure_and_logs_no_secret() {
    let (Some(s3), Some(azure), Some(gcs)) =
        (emulators::s3(), emulators::azurite(), emulators::gcs())
    else {
        return;
    };
    let server = TestServer::start().await;
    let alice = tenant(&server, "alice-conntest@example.com").await;
    for emulator in [&s3, &azure, &gcs] {
        emulator.create_bucket("gelen").await;
        emulator.put("gelen", "in/a.txt", letter(1)).await;
        emulator.put("gelen", "in/b.txt", letter(2)).await;
        emulator.put("gelen", "other/c.txt", letter(3)).await;
        let id = connector(
            &server,
            &alice,
            emulator.connector("ok", "gelen", Some("in/")),
        )
        .await;
        let outcome = test_connection(&server, &alice, id).await;
        assert_eq!(outcome["ok"], true, "{:?}: {outcome}", emulator.kind);
        assert_eq!(outcome["objects_seen"], 2, "{:?}: {outcome}", emulator.kind);
        assert!(outcome["latency_ms"].is_u64());

        // A bucket that does not exist (fake-gcs-server answers a bare 500 where GCS says 404
        // NoSuchBucket, so GCS is left out of this one).
        if emulator.kind == emulators::Kind::Gcs {
            continue;
        }
        let id = connector(&server, &alice, emulator.connector("nb", "yok", None)).await;
        let outcome = test_connection(&server, &alice, id).await;
        assert_eq!(outcome["ok"], false);
        assert_eq!(
            outcome["code"], "bucket_not_found",
            "{:?}: {outcome}",
            emulator.kind
        );
    }
    // Credentials Azurite refuses (a well-formed key that is not the account's).
    let wrong_key = "d3Jvbmcta2V5LW9mLWF6dXJpdGUtYWNjb3VudC0wMTIzNDU2Nzg5YWJjZGVm";
    let mut body = azure.connector("bad", "gelen", None);
    body["config"]["account_key"] = json!(wrong_key);
    let id = connector(&server, &alice, body).await;
    let outcome = test_connection(&server, &alice, id).await;
    assert_eq!(outcome["ok"], false);
    assert_eq!(outcome["code"], "bad_credentials", "{outcome}");
    // Nothing listens there.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .expect("port")
        .local_addr()
        .expect("address")
        .port();
    let mut body = s3.connector("down", "gelen", None);
    body["config"]["endpoint"] = json!(format!("http://127.0.0.1:{closed}"));
    let id = connector(&server, &alice, body).await;
    let outcome = test_connection(&server, &alice, id).await;
    assert_eq!(outcome["ok"], false);
    assert_eq!(outcome["code"], "unreachable", "{outcome}");
    assert!(outcome["message"].as_str().is_some_and(|m| !m.is_empty()));

    // It accepts the connection and never answers: `timeout` once connectors.request_timeout_ms passes.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let silent_port = silent.local_addr().expect("address").port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in silent.incoming().take(4) {
            held.push(stream);
        }
        std::thread::sleep(Duration::from_secs(60));
    });
    let mut body = s3.connector("silent", "gelen", None);
    body["config"]["endpoint"] = json!(format!("http://127.0.0.1:{silent_port}"));
    let id = connector(&server, &alice, body).await;
    let outcome = test_connection(&server, &alice, id).await;
    assert_eq!(outcome["ok"], false);
    assert_eq!(outcome["code"], "timeout", "{outcome}");

    // Another tenant cannot test Alice's connector.
    let bob = tenant(&server, "bob-conntest@example.com").await;
    let (status, body) = call(
        &server,
        &bob,
        Method::POST,
        &format!("/v1/connectors/{id}/test"),
        None,
    )
    .await;
    assert_eq!(status, 404, "{body}");
    assert_eq!(body["code"], "connector_not_found");

    let log = server.stderr();
    for secret in [S3_SECRET, AZURITE_KEY, wrong_key] {
        assert!(!log.contains(secret), "a secret is in the server log");
    }
    let stored = server
        .query_strings("SELECT config_public || config_secret_encrypted FROM connectors")
        .await;
    for row in stored {
        for secret in [S3_SECRET, AZURITE_KEY, wrong_key] {
            assert!(!row.contains(secret), "a secret is stored in clear");
        }
    }
}

#[tokio::test]
async fn source_mode_fetches_checks_and_queues_objects_of_each_provider() {
    let (Some(s3), Some(azure), Some(gcs)) =
        (emulators::s3(), emulators::azurite(), emulators::gcs())
    else {
        return;
    };
    let server = TestServer::start_with(
        ServerOptions::default().env("DOCSIEVE__JOBS__MAX_FILE_BYTES", "200000"),
    )
    .await;
    let alice = tenant(&server, "alice-source@example.com").await;
    for (n, emulator) in [&s3, &azure, &gcs].into_iter().enumerate() {
        emulator.create_bucket("kaynak").await;
        emulator.put("kaynak", "gelen/dilekce.txt", letter(n)).await;
        emulator
            .put("kaynak", "gelen/ik.docx", corpus("tr/tr_ik_yazisi.docx"))
            .await;
        emulator
            .put("kaynak", "gelen/setup.exe", b"MZ\x90\x00".to_vec())
            .await;
        emulator
            .put("kaynak", "gelen/big.txt", vec![b'a'; 300_000])
            .await;
        let id = connector(&server, &alice, emulator.connector("k", "kaynak", None)).await;
        let source = json!({"connector_id": id, "keys": [
            "gelen/dilekce.txt", "gelen/ik.docx", "gelen/yok.txt", "gelen/dilekce.txt",
            "gelen/setup.exe", "gelen/big.txt"]});
        // The JSON body for the first provider, the multipart `source` field for the others.
        let (status, body) = if n == 0 {
            call(
                &server,
                &alice,
                Method::POST,
                "/v1/data-process/async",
                Some(json!({ "source": source })),
            )
            .await
        } else {
            alice
                .upload(
                    &server,
                    "/v1/data-process/async",
                    reqwest::multipart::Form::new().text("source", source.to_string()),
                )
                .await
        };
        assert_eq!(status, 202, "{:?}: {body}", emulator.kind);
        let data = &body["data"];
        let codes: Vec<(&str, &str)> = data["rejected"]
            .as_array()
            .expect("rejected")
            .iter()
            .map(|r| {
                (
                    r["key"].as_str().expect("present"),
                    r["code"].as_str().expect("present"),
                )
            })
            .collect();
        assert_eq!(
            codes,
            vec![
                ("gelen/yok.txt", "object_not_found"),
                ("gelen/dilekce.txt", "duplicate_key"),
                ("gelen/setup.exe", "unsupported_format"),
                ("gelen/big.txt", "file_too_large"),
            ],
            "{:?}: {body}",
            emulator.kind
        );
        let job_ids: Vec<String> = data["job_ids"]
            .as_array()
            .expect("jobs")
            .iter()
            .map(|j| j.as_str().expect("present").to_string())
            .collect();
        assert_eq!(job_ids.len(), 2, "{body}");
        assert_eq!(data["accepted"][0]["key"], "gelen/dilekce.txt");
        let views = alice
            .wait_for(&server, &job_ids, Duration::from_secs(90))
            .await;
        let mut raw = planted("tr/tr_ik_yazisi.docx");
        raw.extend(PLANTED.iter().map(|s| s.to_string()));
        for view in &views {
            assert_eq!(view["status"], "completed", "{view}");
            let (_, execution) = alice
                .get(&server, &format!("/v1/executions/{}", view["execution_id"]))
                .await;
            let text = execution.to_string();
            assert!(text.contains("[MASKED_"), "{text}");
            for value in &raw {
                assert!(!text.contains(value.as_str()), "raw {value} in the output");
            }
        }
        let document_id = views[0]["document_id"].as_i64().expect("document");
        let (_, document) = alice
            .get(&server, &format!("/v1/documents/{document_id}"))
            .await;
        assert_eq!(document["data"]["source"], "connector", "{document}");
        assert_eq!(document["data"]["connector_id"], id);
        assert_eq!(document["data"]["source_key"], "gelen/dilekce.txt");
        assert!(document["data"]["source_etag"].is_string(), "{document}");
        // The key is sealed where it is kept and a keyed digest where syncs compare it.
        let in_clear = crate::sealed_values::in_clear(&server, &["gelen/dilekce"]);
        assert!(in_clear.is_empty(), "{in_clear:?}");
        let (status, body) = call(
            &server,
            &alice,
            Method::POST,
            &format!("/v1/documents/{document_id}/reprocess"),
            None,
        )
        .await;
        assert_eq!(status, 400, "{body}");
        assert_eq!(body["code"], "reprocess_not_local");
    }
    // The fetched copies went once their documents were processed.
    let copies = server
        .data_dir
        .path()
        .join(format!("blobs/tenants/{}/uploads", alice.tenant_id));
    let left = std::fs::read_dir(&copies).map_or(0, |entries| entries.count());
    assert_eq!(
        left,
        0,
        "copies of connector objects left in {}",
        copies.display()
    );

    // An unknown connector, and a source without keys.
    let (status, body) = call(
        &server,
        &alice,
        Method::POST,
        "/v1/data-process/async",
        Some(json!({"source": {"connector_id": 999999, "keys": ["a"]}})),
    )
    .await;
    assert_eq!(status, 404, "{body}");
    assert_eq!(body["code"], "connector_not_found");
    let (status, body) = call(
        &server,
        &alice,
        Method::POST,
        "/v1/data-process/async",
        Some(json!({"source": {"connector_id": 1, "keys": []}})),
    )
    .await;
    assert_eq!(status, 422, "{body}");
}

/// Reads a Parquet file with pyarrow: its row count and its rows as JSON text.
fn read_parquet(bytes: &[u8]) -> (u64, String) {
    let file = tempfile::NamedTempFile::new().expect("temp file");
    std::fs::write(file.path(), bytes).expect("write");
    let output = std::process::Command::new("python3")
        .args([
            "-c",
            "import json, sys, pyarrow.parquet as pq\n\
             t = pq.read_table(sys.argv[1])\n\
             print(t.num_rows)\n\
             print(json.dumps(t.to_pylist(), ensure_ascii=False, default=str))",
        ])
        .arg(file.path())
        .output()
        .expect("python3");
    assert!(
        output.status.success(),
        "pyarrow cannot read the export: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = String::from_utf8_lossy(&output.stdout).to_string();
    let (rows, json) = text.split_once('\n').expect("two lines");
    (rows.trim().parse().expect("rows"), json.to_string())
}

#[tokio::test]
async fn auto_export_writes_the_dataset_to_the_bucket_then_fires_the_webhook() {
    use crate::datasets::{api_key, post, processed, wait_ready};
    use crate::webhooks::{log_of, register, Receiver, SECRET};
    let Some(s3) = emulators::s3() else {
        return;
    };
    s3.create_bucket("veri").await;
    let server = TestServer::start().await;
    let alice = tenant(&server, "alice-autoexport@example.com").await;
    let good = connector(&server, &alice, s3.connector("veri", "veri", None)).await;
    let missing = connector(&server, &alice, s3.connector("yok", "yok", None)).await;
    let receiver = Receiver::start(Vec::new()).await;
    let mut hooks = Vec::new();
    for auto_export in [
        json!({"connector_id": good, "format": "parquet", "prefix": "exports"}),
        json!({"connector_id": good, "format": "jsonl"}),
        json!({"connector_id": missing, "format": "jsonl"}),
    ] {
        let (status, body) = register(
            &server,
            &alice,
            json!({"url": receiver.url, "events": ["dataset.ready"], "secret": SECRET,
                "auto_export": auto_export}),
        )
        .await;
        assert_eq!(status, 201, "{body}");
        hooks.push(body["data"]["id"].as_i64().expect("id"));
    }
    let executions = processed(&server, &alice).await;
    let (status, created) = post(
        &server,
        &alice,
        json!({"name": "egitim", "execution_ids": executions}),
    )
    .await;
    assert_eq!(status, 202, "{created}");
    let dataset_id = created["data"]["id"].as_str().expect("id").to_string();
    let key = api_key(&server, &alice).await;
    let ready = wait_ready(&server, &key, &dataset_id).await;
    let row_count = ready["row_count"].as_u64().expect("rows");
    assert!(row_count > 0, "{ready}");

    let requests = receiver.wait_for(3, Duration::from_secs(60)).await;
    let exports: Vec<Value> = requests
        .iter()
        .map(|r| serde_json::from_slice::<Value>(&r.body).expect("json")["export"].clone())
        .collect();
    let find = |format: &str, connector_id: i64| {
        exports
            .iter()
            .find(|e| e["format"] == format && e["connector_id"] == connector_id)
            .unwrap_or_else(|| panic!("no {format} export: {exports:?}"))
            .clone()
    };
    let mut raw = planted("tr/tr_musteri_listesi.csv");
    raw.extend(planted("tr/tr_ik_yazisi.docx"));

    let parquet = find("parquet", good);
    assert_eq!(
        parquet["key"],
        format!("exports/{dataset_id}.parquet"),
        "{parquet}"
    );
    let bytes = s3
        .get("veri", parquet["key"].as_str().expect("present"))
        .await;
    assert_eq!(parquet["bytes"], bytes.len() as u64);
    let (rows, text) = read_parquet(&bytes);
    assert_eq!(rows, row_count);
    assert!(text.contains("[MASKED_"), "{text}");
    for value in &raw {
        assert!(
            !text.contains(value.as_str()),
            "raw {value} in the Parquet export"
        );
    }

    let jsonl = find("jsonl", good);
    assert_eq!(jsonl["key"], format!("{dataset_id}.jsonl"), "{jsonl}");
    let bytes = s3
        .get("veri", jsonl["key"].as_str().expect("present"))
        .await;
    let text = String::from_utf8(bytes.to_vec()).expect("utf-8");
    let lines: Vec<Value> = text
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON line"))
        .collect();
    assert_eq!(lines.len() as u64, row_count);
    for value in &raw {
        assert!(
            !text.contains(value.as_str()),
            "raw {value} in the JSON Lines export"
        );
    }
    assert_eq!(
        s3.keys("veri", "").await,
        vec![
            format!("{dataset_id}.jsonl"),
            format!("exports/{dataset_id}.parquet")
        ]
    );

    // The export that failed still fired, with its error, and the delivery log keeps it.
    let failed = find("jsonl", missing);
    assert_eq!(failed["error"]["code"], "bucket_not_found", "{failed}");
    let log = log_of(&server, &alice, hooks[2]).await;
    assert_eq!(
        log[0]["payload"]["export"]["error"]["code"],
        "bucket_not_found"
    );
    assert_eq!(log[0]["status"], "delivered", "{:?}", log[0]);
}

#[tokio::test]
async fn connector_objects_cost_credits_like_uploads() {
    let Some(s3) = emulators::s3() else {
        return;
    };
    s3.create_bucket("kredi").await;
    for n in 0..3 {
        s3.put("kredi", &format!("{n}.txt"), letter(n)).await;
    }
    let server = TestServer::start_with(
        ServerOptions::default()
            .env("DOCSIEVE__PLANS__TRIAL__CREDITS_PER_PERIOD", "1")
            .env("DOCSIEVE__PLANS__STARTER__CREDITS_PER_PERIOD", "2"),
    )
    .await;
    let alice = tenant(&server, "alice-credits-connector@example.com").await;
    let id = connector(&server, &alice, s3.connector("kredi", "kredi", None)).await;
    // Two documents, one credit: nothing is queued (all or none, as for uploads).
    let (status, body) = call(
        &server,
        &alice,
        Method::POST,
        "/v1/data-process/async",
        Some(json!({"source": {"connector_id": id, "keys": ["0.txt", "1.txt"]}})),
    )
    .await;
    assert_eq!(status, 402, "{body}");
    assert_eq!(body["code"], "insufficient_credits");
    assert_eq!(body["required"], 2);

    // A sync queues what the credits pay for and stops; the next run takes the rest.
    on_plan(&server, &alice, "starter").await;
    let (status, created) = schedule(&server, &alice, id, json!({"cron": "0 3 * * *"})).await;
    assert_eq!(status, 201, "{created}");
    let schedule_id = created["data"]["id"].as_i64().expect("id");
    let run = trigger(&server, &alice, id, schedule_id).await;
    assert_eq!(run["run"]["queued"], 2, "{run}");
    assert_eq!(run["run"]["status"], "failed", "{run}");
    assert_eq!(run["run"]["error"]["code"], "insufficient_credits", "{run}");
    let (status, usage) = alice.get(&server, "/v1/usage").await;
    assert_eq!(status, 200);
    assert_eq!(usage["data"]["credits"]["remaining"], 0, "{usage}");
    // The versions taken are kept by keyed digest; their documents show the keys.
    let taken: Vec<String> = server
        .query_strings(&format!(
            "SELECT object_key FROM connector_objects WHERE connector_id = {id}"
        ))
        .await;
    assert_eq!(
        taken.len(),
        2,
        "the third waits for the next run: {taken:?}"
    );
    assert!(taken.iter().all(|key| key.starts_with("kd1:")), "{taken:?}");
    let (_, listed) = alice.get(&server, "/v1/documents").await;
    let mut keys: Vec<&str> = listed["data"]["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter_map(|document| document["source_key"].as_str())
        .collect();
    keys.sort_unstable();
    assert_eq!(keys, vec!["0.txt", "1.txt"], "{listed}");
}
