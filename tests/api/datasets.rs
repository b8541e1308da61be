//! Datasets over HTTP: build from executions, validation, isolation, not-ready exports, every format's
//! headers, retention cleanup with the injected clock. (Reading every format back with its native
//! library is the Python interop check that CI runs: tests/interop/check_exports.py.)

use std::time::Duration;

use reqwest::Method;
use serde_json::{json, Value};

use crate::jobs::{corpus, planted, tenant, Tenant};
use crate::support::{json_of, TestServer};

pub(crate) async fn processed(server: &TestServer, who: &Tenant) -> Vec<i64> {
    let jobs = who
        .queue(
            server,
            vec![
                ("musteriler.csv", corpus("tr/tr_musteri_listesi.csv")),
                ("ik.docx", corpus("tr/tr_ik_yazisi.docx")),
            ],
        )
        .await;
    who.wait_for(server, &jobs, Duration::from_secs(60))
        .await
        .iter()
        .map(|v| v["execution_id"].as_i64().expect("completed"))
        .collect()
}

pub(crate) async fn post(server: &TestServer, who: &Tenant, body: Value) -> (u16, Value) {
    json_of(
        server
            .bearer(Method::POST, "/v1/datasets", &who.token)
            .json(&body)
            .send()
            .await
            .expect("POST"),
    )
    .await
}

async fn get_with_key(server: &TestServer, key: &str, path: &str) -> Value {
    let (status, body) = json_of(
        server
            .with_key(Method::GET, path, key)
            .send()
            .await
            .expect("GET"),
    )
    .await;
    assert_eq!(status, 200, "{path}: {body}");
    body
}

pub(crate) async fn wait_ready(server: &TestServer, key: &str, dataset_id: &str) -> Value {
    for _ in 0..600 {
        let body = get_with_key(server, key, &format!("/v1/datasets/{dataset_id}")).await;
        if body["data"]["status"] == "ready" || body["data"]["status"] == "failed" {
            return body["data"].clone();
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("dataset {dataset_id} never finished: {}", server.stderr());
}

pub(crate) async fn api_key(server: &TestServer, who: &Tenant) -> String {
    let (status, body) = json_of(
        server
            .bearer(Method::POST, "/v1/me/api-keys", &who.token)
            .json(&json!({"name": "datasets"}))
            .send()
            .await
            .expect("POST"),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    body["data"]["api_key"].as_str().expect("key").to_string()
}

pub(crate) async fn download(
    server: &TestServer,
    key: &str,
    dataset_id: &str,
    format: &str,
) -> (u16, reqwest::header::HeaderMap, Vec<u8>) {
    let response = server
        .with_key(
            Method::GET,
            &format!("/v1/datasets/{dataset_id}/export?format={format}"),
            key,
        )
        .send()
        .await
        .expect("GET");
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    (
        status,
        headers,
        response.bytes().await.expect("body").to_vec(),
    )
}

#[tokio::test]
async fn datasets_build_export_and_refuse_what_they_cannot_use() {
    let server = TestServer::start().await;
    let alice = tenant(&server, "alice-ds@example.com").await;
    let bob = tenant(&server, "bob-ds@example.com").await;
    let executions = processed(&server, &alice).await;
    let bobs = processed(&server, &bob).await;
    let key = api_key(&server, &alice).await;

    // Validation: each problem named.
    for (body, field) in [
        (json!({"execution_ids": executions}), "name"),
        (json!({"name": "x", "execution_ids": []}), "execution_ids"),
        (json!({"name": "x"}), "execution_ids"),
        (
            json!({"name": "x", "execution_ids": ["abc"]}),
            "execution_ids.0",
        ),
    ] {
        let (status, response) = post(&server, &alice, body.clone()).await;
        assert_eq!(status, 422, "{body}: {response}");
        assert!(
            response["detail"]
                .as_array()
                .expect("detail")
                .iter()
                .any(|d| d["loc"][1] == field),
            "{body}: {response}"
        );
    }
    let (status, response) = post(
        &server,
        &alice,
        json!({"name": "x", "execution_ids": [executions[0], 99999, bobs[0]]}),
    )
    .await;
    assert_eq!(status, 422, "{response}");
    let message = response["detail"][0]["msg"].as_str().expect("msg");
    assert!(
        message.contains("99999") && message.contains(&bobs[0].to_string()),
        "{message}"
    );
    assert!(
        !message.contains(&format!("{}, ", executions[0])),
        "{message}"
    );

    // Exports of a dataset whose build is still queued: 409. The tenant's two slots are busy with
    // slow documents, so the build waits behind them.
    let heavy: Vec<u8> =
        "Müşteri Ayşe Yılmaz, T.C. kimlik no 10000000146, IBAN TR33 0006 1005 1978 6457 8413 26.\n"
            .repeat(5000)
            .into_bytes();
    let slow = alice
        .queue(
            &server,
            vec![
                ("a.txt", heavy.clone()),
                ("b.txt", heavy.clone()),
                ("c.txt", heavy),
            ],
        )
        .await;
    let ids: Vec<Value> = vec![json!(executions[0]), json!(executions[1].to_string())];
    let (status, created) = post(
        &server,
        &alice,
        json!({"name": "Müşteri seti", "execution_ids": ids}),
    )
    .await;
    assert_eq!(status, 202, "{created}");
    assert_eq!(created["data"]["status"], "queued");
    let dataset_id = created["data"]["id"]
        .as_str()
        .expect("string id")
        .to_string();
    assert!(created["data"]["job_id"].is_string());
    let (status, _, body) = download(&server, &key, &dataset_id, "jsonl").await;
    assert_eq!(status, 409, "{}", String::from_utf8_lossy(&body));
    assert!(String::from_utf8_lossy(&body).contains("dataset_not_ready"));
    alice
        .wait_for(&server, &slow, Duration::from_secs(120))
        .await;

    let dataset = wait_ready(&server, &key, &dataset_id).await;
    assert_eq!(dataset["status"], "ready", "{dataset}");
    assert_eq!(dataset["row_count"], 2);
    assert_eq!(dataset["name"], "Müşteri seti");
    let columns: Vec<&str> = dataset["schema"]
        .as_array()
        .expect("schema")
        .iter()
        .map(|c| c["name"].as_str().expect("name"))
        .collect();
    for column in [
        "execution_id",
        "document_id",
        "filename",
        "format",
        "language",
        "quality_grade",
        "pii_count",
        "pii_type_summary",
        "text",
        "fields",
        "tables",
        "created_at",
    ] {
        assert!(columns.contains(&column), "{column} in {columns:?}");
    }

    // Every format: attachment with its content type; the text ones carry no raw value.
    let raw: Vec<String> = planted("tr/tr_musteri_listesi.csv")
        .into_iter()
        .chain(planted("tr/tr_ik_yazisi.docx"))
        .collect();
    for (format, content_type, extension) in [
        ("jsonl", "application/x-ndjson", ".jsonl"),
        ("csv", "text/csv", ".csv"),
        ("parquet", "application/vnd.apache.parquet", ".parquet"),
        ("markdown", "text/markdown", ".md"),
        ("xml", "application/xml", ".xml"),
        ("xlsx", "application/vnd.openxmlformats", ".xlsx"),
        ("hf", "application/zip", ".hf.zip"),
    ] {
        let (status, headers, body) = download(&server, &key, &dataset_id, format).await;
        assert_eq!(status, 200, "{format}: {}", String::from_utf8_lossy(&body));
        let kind = headers["content-type"].to_str().expect("ascii");
        assert!(kind.starts_with(content_type), "{format}: {kind}");
        let disposition = headers["content-disposition"].to_str().expect("ascii");
        assert!(
            disposition.starts_with("attachment; filename=") && disposition.contains(extension),
            "{format}: {disposition}"
        );
        assert!(!body.is_empty());
        if ["jsonl", "csv", "markdown", "xml"].contains(&format) {
            let text = String::from_utf8(body).expect("utf-8");
            for value in &raw {
                assert!(!text.contains(value.as_str()), "{format} carries {value}");
            }
        }
    }
    let (status, _, body) = download(&server, &key, &dataset_id, "pdf").await;
    assert_eq!(status, 422);
    assert!(
        String::from_utf8_lossy(&body).contains("parquet"),
        "the valid formats are listed"
    );
    let detail = get_with_key(&server, &key, &format!("/v1/datasets/{dataset_id}")).await;
    assert_eq!(
        detail["data"]["exports"].as_array().map(Vec::len),
        Some(7),
        "{detail}"
    );

    // Isolation, listing, deletion.
    let (status, _) = bob
        .get(&server, &format!("/v1/datasets/{dataset_id}"))
        .await;
    assert_eq!(status, 404);
    let (status, _) = bob
        .get(
            &server,
            &format!("/v1/datasets/{dataset_id}/export?format=csv"),
        )
        .await;
    assert_eq!(status, 404);
    let (status, list) = alice.get(&server, "/v1/datasets").await;
    assert_eq!(status, 200);
    assert_eq!(list["data"]["total"], 1);
    let (status, jobs) = alice.get(&server, "/v1/jobs?job_type=dataset_build").await;
    assert_eq!(status, 200);
    assert_eq!(jobs["data"]["total"], 1);
    assert_eq!(jobs["data"]["items"][0]["status"], "completed");
    let response = server
        .bearer(
            Method::DELETE,
            &format!("/v1/datasets/{dataset_id}"),
            &bob.token,
        )
        .send()
        .await
        .expect("DELETE");
    assert_eq!(response.status(), 404);
    let response = server
        .bearer(
            Method::DELETE,
            &format!("/v1/datasets/{dataset_id}"),
            &alice.token,
        )
        .send()
        .await
        .expect("DELETE");
    assert_eq!(response.status(), 204);
    let (status, _) = alice
        .get(&server, &format!("/v1/datasets/{dataset_id}"))
        .await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn expired_exports_are_cleaned_up_and_written_again_on_request() {
    let server = TestServer::start().await;
    let alice = tenant(&server, "alice-retention@example.com").await;
    let executions = processed(&server, &alice).await;
    let key = api_key(&server, &alice).await;
    let (status, created) = post(
        &server,
        &alice,
        json!({"name": "retention", "execution_ids": executions}),
    )
    .await;
    assert_eq!(status, 202, "{created}");
    let dataset_id = created["data"]["id"].as_str().expect("id").to_string();
    wait_ready(&server, &key, &dataset_id).await;

    // Trial plan: one day. jsonl written now, csv twelve hours later.
    let (status, _, jsonl) = download(&server, &key, &dataset_id, "jsonl").await;
    assert_eq!(status, 200);
    server.advance_clock(12 * 3600).await;
    let (status, _, _) = download(&server, &key, &dataset_id, "csv").await;
    assert_eq!(status, 200);
    server.advance_clock(13 * 3600).await;

    let (status, report) = json_of(
        server
            .internal(Method::POST, "/system/admin/storage/cleanup")
            .send()
            .await
            .expect("POST"),
    )
    .await;
    assert_eq!(status, 200, "{report}");
    assert_eq!(report["data"]["deleted"], 1, "{report}");
    assert_eq!(report["data"]["bytes"], jsonl.len() as u64);
    let detail = get_with_key(&server, &key, &format!("/v1/datasets/{dataset_id}")).await;
    let formats: Vec<&str> = detail["data"]["exports"]
        .as_array()
        .expect("exports")
        .iter()
        .map(|e| e["format"].as_str().expect("format"))
        .collect();
    assert_eq!(formats, ["csv"], "the fresh export stays: {detail}");
    assert_eq!(detail["data"]["status"], "ready", "the dataset stays");

    // Asking again writes the file again, with the same content.
    let (status, _, again) = download(&server, &key, &dataset_id, "jsonl").await;
    assert_eq!(status, 200);
    assert_eq!(again, jsonl);
    let (status, report) = json_of(
        server
            .internal(Method::POST, "/system/admin/storage/cleanup")
            .send()
            .await
            .expect("POST"),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(report["data"]["deleted"], 0, "{report}");
    let response = server
        .client
        .post(server.url("/system/admin/storage/cleanup"))
        .send()
        .await
        .expect("POST");
    assert_eq!(response.status(), 401);
}
