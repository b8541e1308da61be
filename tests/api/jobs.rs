//! The async path over HTTP: uploads with partial accept, the job router, documents, executions, jobs,
//! reprocess, CSV export, audit export, tenant isolation, fairness, crash recovery, two processes.

use std::time::Duration;

use reqwest::multipart::{Form, Part};
use reqwest::Method;
use serde_json::{json, Value};

use crate::support::{json_of, ServerOptions, TestServer};

pub fn corpus(name: &str) -> Vec<u8> {
    std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/corpus")
            .join(name),
    )
    .expect("corpus file")
}

/// The planted personal values of a Turkish corpus document.
pub fn planted(name: &str) -> Vec<String> {
    let sidecar: Value =
        serde_json::from_slice(&corpus(&format!("{name}.pii.json"))).expect("sidecar");
    sidecar["pii"]
        .as_array()
        .expect("pii")
        .iter()
        .map(|p| p["value"].as_str().expect("value").to_string())
        .collect()
}

pub fn files(items: Vec<(&str, Vec<u8>)>) -> Form {
    items.into_iter().fold(Form::new(), |form, (name, bytes)| {
        form.part("files", Part::bytes(bytes).file_name(name.to_string()))
    })
}

/// A Windows executable header: what an `.exe` upload looks like.
fn exe_bytes() -> Vec<u8> {
    let mut bytes = b"MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff\x00\x00".to_vec();
    bytes.extend(std::iter::repeat_n(0u8, 512));
    bytes
}

pub struct Tenant {
    pub token: String,
    pub tenant_id: i64,
}

/// Puts the tenant on `plan` now: the plan is set, then its period closed and a new one opened.
pub async fn on_plan(server: &TestServer, who: &Tenant, plan: &str) {
    let response = server
        .internal(
            Method::PUT,
            &format!("/system/admin/tenants/{}/plan", who.tenant_id),
        )
        .json(&serde_json::json!({ "plan": plan }))
        .send()
        .await
        .expect("PUT");
    assert_eq!(response.status(), 200);
    for action in ["close-period", "open-period"] {
        let response = server
            .internal(
                Method::POST,
                &format!("/system/billing/{action}/{}", who.tenant_id),
            )
            .send()
            .await
            .expect("POST");
        assert_eq!(response.status(), 200, "{action}");
    }
}

pub async fn tenant(server: &TestServer, email: &str) -> Tenant {
    let (login, _, tenant_id) = server.verified_account(email, "password-1").await;
    Tenant {
        token: login["access_token"].as_str().expect("token").to_string(),
        tenant_id,
    }
}

impl Tenant {
    pub async fn get(&self, server: &TestServer, path: &str) -> (u16, Value) {
        json_of(
            server
                .bearer(Method::GET, path, &self.token)
                .send()
                .await
                .expect("GET"),
        )
        .await
    }

    pub async fn upload(&self, server: &TestServer, path: &str, form: Form) -> (u16, Value) {
        json_of(
            server
                .bearer(Method::POST, path, &self.token)
                .multipart(form)
                .send()
                .await
                .expect("POST"),
        )
        .await
    }

    /// Uploads and returns the job ids (asserting 202).
    pub async fn queue(&self, server: &TestServer, items: Vec<(&str, Vec<u8>)>) -> Vec<String> {
        let (status, body) = self
            .upload(server, "/v1/data-process/async", files(items))
            .await;
        assert_eq!(status, 202, "{body}");
        body["data"]["job_ids"]
            .as_array()
            .expect("job ids")
            .iter()
            .map(|id| id.as_str().expect("string id").to_string())
            .collect()
    }

    /// Waits until every job is completed or failed; returns the final job views.
    pub async fn wait_for(
        &self,
        server: &TestServer,
        jobs: &[String],
        limit: Duration,
    ) -> Vec<Value> {
        let started = std::time::Instant::now();
        loop {
            let mut views = Vec::new();
            for id in jobs {
                let (status, body) = self.get(server, &format!("/v1/jobs/{id}")).await;
                assert_eq!(status, 200, "{body}");
                views.push(body["data"].clone());
            }
            if views
                .iter()
                .all(|v| v["status"] == "completed" || v["status"] == "failed")
            {
                return views;
            }
            assert!(
                started.elapsed() < limit,
                "jobs did not finish in {limit:?}: {views:?}\n{}",
                server.stderr()
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

#[tokio::test]
async fn async_upload_accepts_part_processes_and_reports() {
    let server = TestServer::start().await;
    let alice = tenant(&server, "alice-async@example.com").await;
    let (status, body) = alice
        .upload(
            &server,
            "/v1/data-process/async",
            files(vec![
                ("musteriler.csv", corpus("tr/tr_musteri_listesi.csv")),
                ("ik.docx", corpus("tr/tr_ik_yazisi.docx")),
                ("setup.exe", exe_bytes()),
            ]),
        )
        .await;
    assert_eq!(status, 202, "{body}");
    let data = &body["data"];
    assert_eq!(data["status"], "queued");
    let job_ids: Vec<String> = data["job_ids"]
        .as_array()
        .expect("ids")
        .iter()
        .map(|v| v.as_str().expect("string").to_string())
        .collect();
    assert_eq!(job_ids.len(), 2, "{body}");
    assert_eq!(data["rejected"].as_array().expect("rejected").len(), 1);
    assert_eq!(data["rejected"][0]["filename"], "setup.exe");
    assert_eq!(data["rejected"][0]["code"], "unsupported_format");
    assert!(data["rejected"][0]["reason"]
        .as_str()
        .is_some_and(|r| !r.is_empty()));

    let views = alice
        .wait_for(&server, &job_ids, Duration::from_secs(60))
        .await;
    let mut raw_values = planted("tr/tr_musteri_listesi.csv");
    raw_values.extend(planted("tr/tr_ik_yazisi.docx"));
    for view in &views {
        assert_eq!(view["status"], "completed", "{view}");
        assert_eq!(view["job_type"], "data_process");
        assert_eq!(view["attempts"], 1);
        assert!(view["quality_grade"].is_string(), "{view}");
        assert_eq!(view["quality"]["grade"], view["quality_grade"]);
        assert!(view["pii_count"].as_u64().expect("pii_count") > 0, "{view}");
        assert!(view["pii_findings_count"].as_u64().is_some());
        assert_eq!(view["detected_language"], "tr");
        assert!(view["fields"].is_object(), "{view}");
        assert!(view["document_id"].is_i64());
        assert!(view["execution_id"].is_i64());
        assert!(view["finished_at"].is_string());

        let execution_id = view["execution_id"].as_i64().expect("id");
        let (status, execution) = alice
            .get(&server, &format!("/v1/executions/{execution_id}"))
            .await;
        assert_eq!(status, 200, "{execution}");
        let execution = &execution["data"];
        assert_eq!(execution["masked"], true);
        assert_eq!(execution["job_id"], view["job_id"]);
        let meta = &execution["result_meta"];
        assert!(meta["pii_type_summary"].is_object());
        assert_eq!(meta["pii_count"], view["pii_count"]);
        assert_eq!(meta["detected_language"], "tr");
        assert!(meta["quality"]["grade"].is_string());
        assert!(meta["engine"]["docsieve"].is_string());
        assert!(execution["result"]["document"]["text"]
            .as_str()
            .is_some_and(|t| t.contains("[MASKED_")));
        let text = execution.to_string();
        for value in &raw_values {
            assert!(
                !text.contains(value.as_str()),
                "raw value {value} in a masked execution"
            );
        }
    }

    // Documents: both, with their latest job and execution.
    let (status, documents) = alice.get(&server, "/v1/documents").await;
    assert_eq!(status, 200, "{documents}");
    assert_eq!(documents["data"]["total"], 2);
    assert_eq!(documents["data"]["page"], 1);
    assert_eq!(documents["data"]["page_size"], 20);
    let document = &documents["data"]["items"][0];
    for field in [
        "id",
        "filename",
        "mime",
        "format",
        "size",
        "sha256",
        "created_at",
    ] {
        assert!(!document[field].is_null(), "{field} in {document}");
    }
    assert_eq!(document["source"], "upload");
    assert_eq!(document["latest_job"]["status"], "completed");
    assert!(document["latest_execution"]["execution_id"].is_i64());
    let docx = documents["data"]["items"]
        .as_array()
        .expect("items")
        .iter()
        .find(|d| d["filename"] == "ik.docx")
        .expect("the docx")
        .clone();
    assert_eq!(docx["format"], "docx");
    assert_eq!(docx["sha256"].as_str().map(str::len), Some(64));
    let document_id = docx["id"].as_i64().expect("id");
    let (status, one) = alice
        .get(&server, &format!("/v1/documents/{document_id}"))
        .await;
    assert_eq!(status, 200);
    assert_eq!(one["data"]["filename"], "ik.docx");
    let (status, page) = alice.get(&server, "/v1/documents?page=2&page_size=1").await;
    assert_eq!(status, 200);
    assert_eq!(page["data"]["items"].as_array().map(Vec::len), Some(1));

    // Executions and jobs lists.
    let (status, executions) = alice.get(&server, "/v1/executions").await;
    assert_eq!(status, 200);
    assert_eq!(executions["data"]["total"], 2);
    let (status, jobs) = alice.get(&server, "/v1/jobs?job_type=data_process").await;
    assert_eq!(status, 200);
    assert_eq!(jobs["data"]["total"], 2);
    let (_, none) = alice.get(&server, "/v1/jobs?job_type=dataset_build").await;
    assert_eq!(none["data"]["total"], 0);
    let (status, stuck) = alice.get(&server, "/v1/jobs/stuck").await;
    assert_eq!(status, 200, "{stuck}");
    assert_eq!(stuck["data"]["items"].as_array().map(Vec::len), Some(0));
    assert_eq!(stuck["data"]["running_threshold_minutes"], 15);
    assert_eq!(stuck["data"]["queued_threshold_minutes"], 30);

    // Reprocess: a new job on the same document, unmasked this time.
    let (status, reprocessed) = json_of(
        server
            .bearer(
                Method::POST,
                &format!("/v1/documents/{document_id}/reprocess"),
                &alice.token,
            )
            .json(&serde_json::json!({"masked": false}))
            .send()
            .await
            .expect("POST"),
    )
    .await;
    assert_eq!(status, 202, "{reprocessed}");
    let job_id = reprocessed["data"]["job_id"]
        .as_str()
        .expect("job id")
        .to_string();
    let (status, empty_body) = json_of(
        server
            .bearer(
                Method::POST,
                &format!("/v1/documents/{document_id}/reprocess"),
                &alice.token,
            )
            .send()
            .await
            .expect("POST"),
    )
    .await;
    assert_eq!(status, 202, "an empty body is allowed: {empty_body}");
    let second = empty_body["data"]["job_id"]
        .as_str()
        .expect("id")
        .to_string();
    let done = alice
        .wait_for(&server, &[job_id.clone(), second], Duration::from_secs(60))
        .await;
    assert_eq!(done[0]["status"], "completed");
    assert_eq!(done[0]["masked"], false);
    assert_eq!(done[1]["masked"], true);
    let (_, unmasked) = alice
        .get(
            &server,
            &format!("/v1/executions/{}", done[0]["execution_id"]),
        )
        .await;
    assert_eq!(unmasked["data"]["masked"], false);
    let (_, executions) = alice.get(&server, "/v1/executions").await;
    assert_eq!(executions["data"]["total"], 4);

    // Usage counts the four processed documents.
    let (status, usage) = alice.get(&server, "/v1/usage").await;
    assert_eq!(status, 200, "{usage}");
    assert_eq!(usage["data"]["documents_processed"], 4, "{usage}");

    // The audit log has the uploads and every processing run, without content.
    let response = server
        .bearer(Method::GET, "/v1/audit/export?format=jsonl", &alice.token)
        .send()
        .await
        .expect("GET");
    assert_eq!(response.status(), 200);
    assert!(response
        .headers()
        .get("content-disposition")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("attachment")));
    let jsonl = response.text().await.expect("body");
    let entries: Vec<Value> = jsonl
        .lines()
        .map(|line| serde_json::from_str(line).expect("one JSON object per line"))
        .collect();
    let processed = entries.iter().filter(|e| e["action"] == "process").count();
    assert_eq!(processed, 4, "{jsonl}");
    assert!(entries.iter().any(|e| e["action"] == "upload"));
    assert!(entries.iter().any(|e| e["action"] == "reprocess"));
    let process = entries
        .iter()
        .find(|e| e["action"] == "process")
        .expect("one");
    assert_eq!(process["outcome"], "success");
    assert!(process["details"]["execution_id"].is_i64());
    assert!(process["details"]["pii_count"].is_u64());
    for value in &raw_values {
        assert!(
            !jsonl.contains(value.as_str()),
            "raw value in the audit log"
        );
    }
    let response = server
        .bearer(
            Method::GET,
            "/v1/audit/export?format=csv&from=2000-01-01",
            &alice.token,
        )
        .send()
        .await
        .expect("GET");
    assert_eq!(response.status(), 200);
    let csv_text = response.text().await.expect("body");
    let mut reader = csv::Reader::from_reader(csv_text.as_bytes());
    assert_eq!(
        reader.headers().expect("header").get(0),
        Some("id"),
        "{csv_text}"
    );
    assert_eq!(
        reader.records().count(),
        entries.len() + 1,
        "the export itself is audited too"
    );
    let response = server
        .bearer(
            Method::GET,
            "/v1/audit/export?from=2999-01-01",
            &alice.token,
        )
        .send()
        .await
        .expect("GET");
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.text().await.expect("body"),
        "",
        "nothing in that range"
    );
}

#[tokio::test]
async fn processing_routes_validate_their_input() {
    let server = TestServer::start().await;
    let alice = tenant(&server, "alice-422@example.com").await;
    for path in [
        "/v1/documents?page=0",
        "/v1/documents?page_size=101",
        "/v1/documents?page_size=abc",
        "/v1/executions?page=0",
        "/v1/jobs?page_size=0",
        "/v1/jobs?job_type=other",
        "/v1/jobs/stuck?running_threshold_minutes=0",
        "/v1/jobs/stuck?queued_threshold_minutes=1441",
        "/v1/documents/abc",
        "/v1/executions/1.5",
        "/v1/audit/export?format=xml",
        "/v1/audit/export?from=yesterday",
    ] {
        let (status, body) = alice.get(&server, path).await;
        assert_eq!(status, 422, "{path}: {body}");
        assert!(body["detail"].is_array(), "{path}: {body}");
    }
    for path in [
        "/v1/documents/999",
        "/v1/executions/999",
        "/v1/jobs/job_nope",
    ] {
        let (status, body) = alice.get(&server, path).await;
        assert_eq!(status, 404, "{path}: {body}");
    }
    let (status, _) = json_of(
        server
            .client
            .get(server.url("/v1/jobs"))
            .send()
            .await
            .expect("GET"),
    )
    .await;
    assert_eq!(status, 401);

    // Exactly one mode: both, or neither, is 422.
    let both = files(vec![("a.txt", b"hello".to_vec())])
        .text("source", r#"{"connector_id": 1, "keys": ["a.pdf"]}"#);
    let (status, body) = alice.upload(&server, "/v1/data-process/async", both).await;
    assert_eq!(status, 422, "{body}");
    let neither = Form::new().text("note", "nothing here");
    let (status, body) = alice
        .upload(&server, "/v1/data-process/async", neither)
        .await;
    assert_eq!(status, 422, "{body}");
    // Source mode: malformed → 422, another tenant's or unknown connector → 404.
    let (status, body) = json_of(
        server
            .bearer(Method::POST, "/v1/data-process/async", &alice.token)
            .json(&serde_json::json!({"source": {"connector_id": "x", "keys": []}}))
            .send()
            .await
            .expect("POST"),
    )
    .await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["detail"].as_array().map(Vec::len), Some(2), "{body}");
    let (status, body) = json_of(
        server
            .bearer(Method::POST, "/v1/data-process/async", &alice.token)
            .json(&serde_json::json!({"source": {"connector_id": 12345, "keys": ["a.pdf"]}}))
            .send()
            .await
            .expect("POST"),
    )
    .await;
    assert_eq!(status, 404, "{body}");
    assert_eq!(body["code"], "connector_not_found");
    let form = Form::new().text("source", r#"{"connector_id": 12345, "keys": ["a.pdf"]}"#);
    let (status, _) = alice.upload(&server, "/v1/data-process/async", form).await;
    assert_eq!(status, 404);
    // Every file rejected: still 202, no jobs.
    let (status, body) = alice
        .upload(
            &server,
            "/v1/data-process/async?masked=true",
            files(vec![("empty.txt", Vec::new()), ("x.exe", exe_bytes())]),
        )
        .await;
    assert_eq!(status, 202, "{body}");
    assert_eq!(body["data"]["job_ids"].as_array().map(Vec::len), Some(0));
    let codes: Vec<&str> = body["data"]["rejected"]
        .as_array()
        .expect("rejected")
        .iter()
        .map(|r| r["code"].as_str().expect("code"))
        .collect();
    assert_eq!(codes, ["empty_document", "unsupported_format"]);
    let (status, body) = alice
        .upload(
            &server,
            "/v1/data-process/async?masked=perhaps",
            files(vec![("a.txt", b"hello".to_vec())]),
        )
        .await;
    assert_eq!(status, 422, "{body}");
}

#[tokio::test]
async fn a_malformed_file_fails_its_own_job_and_other_tenants_see_nothing() {
    let server = TestServer::start().await;
    let alice = tenant(&server, "alice-iso@example.com").await;
    let bob = tenant(&server, "bob-iso@example.com").await;
    // A ZIP without its central directory is refused at the door; XML that only breaks half-way
    // is accepted and fails its own job.
    let (status, body) = alice
        .upload(
            &server,
            "/v1/data-process/async",
            files(vec![
                ("broken.docx", corpus("broken/testWORD_truncated.docx")),
                ("bad.xml", corpus("broken/bad_xml.xml")),
                ("ok.txt", corpus("tr/tr_dilekce_cp1254.txt")),
            ]),
        )
        .await;
    assert_eq!(status, 202, "{body}");
    assert_eq!(
        body["data"]["rejected"][0]["filename"], "broken.docx",
        "{body}"
    );
    let jobs: Vec<String> = body["data"]["job_ids"]
        .as_array()
        .expect("ids")
        .iter()
        .map(|v| v.as_str().expect("id").to_string())
        .collect();
    assert_eq!(jobs.len(), 2, "{body}");
    let views = alice
        .wait_for(&server, &jobs, Duration::from_secs(60))
        .await;
    assert_eq!(views[0]["status"], "failed", "{}", views[0]);
    assert!(views[0]["error"]["code"]
        .as_str()
        .is_some_and(|c| !c.is_empty()));
    assert!(views[0]["error"]["message"]
        .as_str()
        .is_some_and(|m| !m.is_empty()));
    assert!(views[0]["execution_id"].is_null());
    assert_eq!(views[1]["status"], "completed", "{}", views[1]);

    // Tenant isolation: every id-bearing route answers 404 to another tenant.
    let document_id = views[1]["document_id"].as_i64().expect("id");
    let execution_id = views[1]["execution_id"].as_i64().expect("id");
    for path in [
        format!("/v1/documents/{document_id}"),
        format!("/v1/executions/{execution_id}"),
        format!("/v1/jobs/{}", jobs[1]),
    ] {
        let (status, body) = bob.get(&server, &path).await;
        assert_eq!(status, 404, "{path}: {body}");
    }
    let (status, _) = json_of(
        server
            .bearer(
                Method::POST,
                &format!("/v1/documents/{document_id}/reprocess"),
                &bob.token,
            )
            .json(&serde_json::json!({}))
            .send()
            .await
            .expect("POST"),
    )
    .await;
    assert_eq!(status, 404);
    for path in ["/v1/documents", "/v1/executions", "/v1/jobs"] {
        let (_, body) = bob.get(&server, path).await;
        assert_eq!(body["data"]["total"], 0, "{path}: {body}");
    }
    let (status, body) = json_of(
        server
            .bearer(
                Method::POST,
                &format!("/v1/documents/{document_id}/reprocess"),
                &alice.token,
            )
            .json(&serde_json::json!({"masked": "yes"}))
            .send()
            .await
            .expect("POST"),
    )
    .await;
    assert_eq!(status, 422, "{body}");
    // The server still serves.
    let (status, _) = server.get_json("/system/health").await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn csv_export_returns_rows_or_elements_and_masks_on_request() {
    let server = TestServer::start().await;
    let alice = tenant(&server, "alice-csv@example.com").await;
    let export = |name: &'static str, bytes: Vec<u8>, masked: bool| {
        let request = server
            .bearer(
                Method::POST,
                &format!("/v1/data-process/export/csv?masked={masked}"),
                &alice.token,
            )
            .multipart(Form::new().part("file", Part::bytes(bytes).file_name(name)));
        async move {
            let response = request.send().await.expect("POST");
            let status = response.status().as_u16();
            let headers = response.headers().clone();
            (status, headers, response.text().await.expect("body"))
        }
    };
    let raw = planted("tr/tr_musteri_listesi.csv");
    let (status, headers, text) =
        export("musteri.csv", corpus("tr/tr_musteri_listesi.csv"), true).await;
    assert_eq!(status, 200, "{text}");
    assert!(headers["content-type"]
        .to_str()
        .expect("ascii")
        .starts_with("text/csv"));
    assert_eq!(
        headers["content-disposition"].to_str().expect("ascii"),
        "attachment; filename=\"musteri.csv\""
    );
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let width = reader.headers().expect("header").len();
    let rows: Vec<csv::StringRecord> = reader.records().map(|r| r.expect("RFC 4180 row")).collect();
    assert!(rows.len() >= 10, "{text}");
    assert!(rows.iter().all(|row| row.len() == width));
    assert!(text.contains("[MASKED_"), "{text}");
    for value in &raw {
        assert!(
            !text.contains(value.as_str()),
            "raw {value} in a masked export"
        );
    }
    let (status, _, unmasked) =
        export("musteri.csv", corpus("tr/tr_musteri_listesi.csv"), false).await;
    assert_eq!(status, 200);
    assert!(raw.iter().any(|value| unmasked.contains(value.as_str())));

    // Several sheets: a leading `sheet` column.
    let (status, _, sheets) =
        export("liste.xlsx", corpus("tr/tr_musteri_listesi.xlsx"), true).await;
    assert_eq!(status, 200, "{sheets}");
    let mut reader = csv::Reader::from_reader(sheets.as_bytes());
    let header = reader.headers().expect("header").clone();
    assert_eq!(header.get(0), Some("sheet"), "{sheets}");
    let rows: Vec<csv::StringRecord> = reader.records().map(|r| r.expect("row")).collect();
    let sheet_names: std::collections::BTreeSet<&str> = rows.iter().map(|r| &r[0]).collect();
    assert_eq!(
        sheet_names.into_iter().collect::<Vec<_>>(),
        ["Müşteriler", "Notlar"],
        "{sheets}"
    );

    // Not tabular: one row per element.
    let (status, _, elements) = export("ik.docx", corpus("tr/tr_ik_yazisi.docx"), true).await;
    assert_eq!(status, 200, "{elements}");
    let mut reader = csv::Reader::from_reader(elements.as_bytes());
    assert_eq!(
        reader.headers().expect("header").iter().collect::<Vec<_>>(),
        ["index", "page", "type", "text"]
    );
    assert!(reader.records().all(|r| r.is_ok()));
    let (status, _, body) = export("x.exe", exe_bytes(), false).await;
    assert_eq!(status, 415, "{body}");
}

/// Small distinct text documents.
fn small_docs(prefix: &str, n: usize) -> Vec<(String, Vec<u8>)> {
    (0..n)
        .map(|i| {
            (
                format!("{prefix}-{i}.txt"),
                format!("Sipariş {prefix}-{i}: müşteri temsilcisi ile görüşüldü, teslimat {i} gün içinde yapılacak.\n")
                    .into_bytes(),
            )
        })
        .collect()
}

async fn queue_many(server: &TestServer, who: &Tenant, docs: &[(String, Vec<u8>)]) -> Vec<String> {
    let mut ids = Vec::new();
    for chunk in docs.chunks(100) {
        let items = chunk
            .iter()
            .map(|(name, bytes)| (name.as_str(), bytes.clone()))
            .collect();
        ids.extend(who.queue(server, items).await);
    }
    ids
}

pub async fn count(server: &TestServer, sql: &str) -> i64 {
    server
        .query_strings(&format!("SELECT CAST(({sql}) AS TEXT)"))
        .await
        .first()
        .and_then(|v| v.parse().ok())
        .unwrap_or(-1)
}

#[tokio::test]
async fn a_tenant_with_a_backlog_does_not_starve_a_newcomer() {
    let server = TestServer::start().await;
    let alice = tenant(&server, "alice-fair@example.com").await;
    let bob = tenant(&server, "bob-fair@example.com").await;
    // ~50 KB each: slower to process than to upload, so a real backlog stands when bob arrives.
    let docs: Vec<(String, Vec<u8>)> = (0..200)
        .map(|i| (format!("a-{i}.txt"), heavy_doc(i)[..50_000].to_vec()))
        .collect();
    let backlog = queue_many(&server, &alice, &docs).await;
    assert_eq!(backlog.len(), 200);
    let completed_sql = format!(
        "SELECT COUNT(*) FROM jobs WHERE tenant_id = {} AND status = 'completed'",
        alice.tenant_id
    );
    let bobs = bob
        .queue(
            &server,
            small_docs("b", 3)
                .iter()
                .map(|(n, b)| (n.as_str(), b.clone()))
                .collect(),
        )
        .await;
    let before = count(&server, &completed_sql).await;
    let waiting = 200 - before;
    assert!(
        waiting >= 40,
        "alice's backlog was nearly done before bob arrived ({before} of 200): the test proves nothing"
    );
    let started = std::time::Instant::now();
    loop {
        let mut done = 0;
        for id in &bobs {
            let (_, body) = bob.get(&server, &format!("/v1/jobs/{id}")).await;
            if body["data"]["status"] == "completed" {
                done += 1;
            }
        }
        if done == bobs.len() {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "bob's jobs never finished"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let during = count(&server, &completed_sql).await - before;
    assert!(
        during < waiting / 2,
        "bob's 3 jobs finished only after {during} of alice's {waiting} waiting jobs"
    );
    alice
        .wait_for(&server, &backlog, Duration::from_secs(300))
        .await;
}

/// ~400 KB of Turkish business text with personal data: enough work per job that a kill lands mid-way.
fn heavy_doc(i: usize) -> Vec<u8> {
    let line = format!(
        "Belge {i}: Müşteri Ayşe Yılmaz, T.C. kimlik no 10000000146, IBAN TR33 0006 1005 1978 6457 8413 26, telefon 0532 123 45 67 ile görüşüldü; sipariş tutarı 1.250,00 TL.\n"
    );
    line.repeat(2500).into_bytes()
}

#[tokio::test]
async fn killed_mid_way_every_job_still_runs_exactly_once() {
    let mut server = TestServer::start().await;
    let alice = tenant(&server, "alice-crash@example.com").await;
    let docs: Vec<(String, Vec<u8>)> = (0..50)
        .map(|i| (format!("d{i}.txt"), heavy_doc(i)))
        .collect();
    let jobs = queue_many(&server, &alice, &docs).await;
    assert_eq!(jobs.len(), 50);
    // Wait for the first completion, then kill -9.
    let first = server
        .eventually(Duration::from_secs(120), || async {
            count(&server, "SELECT COUNT(*) FROM executions").await > 0
        })
        .await;
    assert!(first, "nothing completed: {}", server.stderr());
    server.kill();
    let at_kill = count(&server, "SELECT COUNT(*) FROM executions").await;
    assert!(
        at_kill < 50,
        "everything finished before the kill ({at_kill})"
    );

    server.spawn();
    let alice = logged_in_again(&server, "alice-crash@example.com", alice.tenant_id).await;
    let views = alice
        .wait_for(&server, &jobs, Duration::from_secs(300))
        .await;
    assert!(
        views.iter().all(|v| v["status"] == "completed"),
        "{views:?}"
    );
    assert_eq!(count(&server, "SELECT COUNT(*) FROM executions").await, 50);
    assert_eq!(
        count(&server, "SELECT COUNT(DISTINCT job_id) FROM executions").await,
        50
    );
    assert_eq!(count(&server, "SELECT COUNT(*) FROM documents").await, 50);
    // The usage counters are written with the executions they count: the kill lost none of them
    // and counted none twice.
    let (status, usage) = alice.get(&server, "/v1/usage").await;
    assert_eq!(status, 200, "{usage}");
    assert_eq!(usage["data"]["documents_processed"], 50, "{usage}");
}

/// The pages of an RGBA TIFF, `times` over, as one TIFF.
fn repeated_pages(tif: &[u8], times: usize) -> Vec<u8> {
    use tiff::decoder::{Decoder, DecodingResult};
    use tiff::encoder::{colortype::RGBA8, TiffEncoder};
    let mut decoder = Decoder::new(std::io::Cursor::new(tif)).expect("a TIFF");
    let mut pages = Vec::new();
    loop {
        let (width, height) = decoder.dimensions().expect("dimensions");
        match decoder.read_image().expect("a page") {
            DecodingResult::U8(pixels) => pages.push((width, height, pixels)),
            _ => panic!("the scan is 8-bit RGBA"),
        }
        if !decoder.more_images() {
            break;
        }
        decoder.next_image().expect("the next page");
    }
    let mut out = std::io::Cursor::new(Vec::new());
    let mut encoder = TiffEncoder::new(&mut out).expect("an encoder");
    for _ in 0..times {
        for (width, height, pixels) in &pages {
            encoder
                .write_image::<RGBA8>(*width, *height, pixels)
                .expect("a page written");
        }
    }
    out.into_inner()
}

/// A job that runs for several times its lease keeps it: the process renews the leases of the jobs
/// it runs, so the job is neither given back to the queue nor read again, and completes on its first
/// attempt. This server's lease is the shortest the configuration takes, 2 s, renewed every 0.4 s
/// (the suite's is 3 s, every 0.5 s): the job needs to run only a few seconds to outlast it several
/// times, so four pages of OCR prove what twelve did against 3 s, with a third of the CPU. (The
/// corpus's two-page scan alone took 2.99 s on a fast day: too close to either lease to prove
/// anything.)
#[tokio::test]
async fn a_job_running_longer_than_its_lease_keeps_it_and_runs_once() {
    let server = TestServer::start_with(
        ServerOptions::default()
            .env("DOCSIEVE__JOBS__LEASE_SECONDS", "2")
            .env("DOCSIEVE__JOBS__LEASE_RENEW_INTERVAL_MS", "400"),
    )
    .await;
    let alice = tenant(&server, "alice-long@example.com").await;
    // A scanned paper of four pages (the corpus's two, twice): about three times the lease on a fast
    // day.
    let scan = repeated_pages(&corpus("image/2206.01062.tif"), 2);
    let docs = vec![("scan.tif".to_string(), scan)];
    let jobs = queue_many(&server, &alice, &docs).await;
    let views = alice
        .wait_for(&server, &jobs, Duration::from_secs(300))
        .await;
    assert_eq!(views[0]["status"], "completed", "{views:?}");
    let took = count(&server, "SELECT MAX(duration_ms) FROM executions").await;
    println!("the job took {took} ms against a 2 s lease");
    assert!(
        took > 2000,
        "the job took {took} ms, not longer than its 2 s lease"
    );
    assert_eq!(count(&server, "SELECT MAX(attempts) FROM jobs").await, 1);
    assert_eq!(count(&server, "SELECT COUNT(*) FROM executions").await, 1);
    let metrics = server.get("/metrics").await.text().await.expect("metrics");
    assert!(
        !metrics.contains("docsieve_job_leases_reaped_total"),
        "no lease was reaped: {metrics}"
    );
}

#[tokio::test]
async fn two_processes_share_the_queue_and_run_each_job_once() {
    let first = TestServer::start().await;
    let alice = tenant(&first, "alice-two@example.com").await;
    // The second process: same database, same blob folder, same Redis prefix.
    let second = TestServer::start_with(first.same_store()).await;
    let docs: Vec<(String, Vec<u8>)> = (0..40)
        .map(|i| (format!("t{i}.txt"), heavy_doc(i)))
        .collect();
    let jobs = queue_many(&first, &alice, &docs).await;
    let views = alice
        .wait_for(&second, &jobs, Duration::from_secs(300))
        .await;
    assert!(
        views.iter().all(|v| v["status"] == "completed"),
        "{views:?}"
    );
    assert_eq!(count(&first, "SELECT COUNT(*) FROM executions").await, 40);
    assert_eq!(
        count(&first, "SELECT COUNT(DISTINCT job_id) FROM executions").await,
        40
    );
    let metas = first
        .query_strings("SELECT result_meta FROM executions")
        .await;
    let workers: std::collections::BTreeSet<String> = metas
        .iter()
        .map(|m| {
            let meta: Value = serde_json::from_str(m).expect("meta");
            meta["worker"].as_str().expect("worker").to_string()
        })
        .collect();
    assert_eq!(
        workers.len(),
        2,
        "both processes should have worked: {workers:?}"
    );
}

/// `n` one-file uploads sent at once; each answer's status and body.
pub async fn concurrent_uploads(server: &TestServer, who: &Tenant, n: usize) -> Vec<(u16, Value)> {
    let names: Vec<String> = (0..n).map(|i| format!("belge-{i}.txt")).collect();
    let uploads = names.iter().enumerate().map(|(i, name)| {
        server
            .bearer(Method::POST, "/v1/data-process/async", &who.token)
            .multipart(files(vec![(
                name.as_str(),
                format!("{i}. belge: teslimat notu").into_bytes(),
            )]))
            .send()
    });
    let mut answers = Vec::with_capacity(n);
    for response in futures_util::future::join_all(uploads).await {
        answers.push(json_of(response.expect("POST")).await);
    }
    answers
}

/// The queue limit holds when uploads race: 50 one-file uploads sent at once against a limit of 10,
/// with the jobs held in the queue (`jobs.run_jobs = false`), queue exactly 10 documents; the other
/// 40 get 429 `queue_full` and leave no document behind.
#[tokio::test]
async fn fifty_concurrent_uploads_against_a_limit_of_ten_queue_exactly_ten() {
    let server = TestServer::start_with(
        ServerOptions::default()
            .env("DOCSIEVE__JOBS__MAX_QUEUED_PER_TENANT", "10")
            .env("DOCSIEVE__JOBS__RUN_JOBS", "false"),
    )
    .await;
    let alice = tenant(&server, "alice-race@example.com").await;
    let mut statuses = std::collections::BTreeMap::<u16, usize>::new();
    for (status, body) in concurrent_uploads(&server, &alice, 50).await {
        if status == 429 {
            assert_eq!(body["code"], "queue_full", "{body}");
        }
        *statuses.entry(status).or_default() += 1;
    }
    assert_eq!(
        statuses,
        [(202, 10), (429, 40)].into_iter().collect(),
        "statuses of 50 concurrent uploads against a limit of 10"
    );
    let (_, documents) = alice.get(&server, "/v1/documents").await;
    assert_eq!(documents["data"]["total"], 10, "{documents}");
    let (_, jobs) = alice.get(&server, "/v1/jobs").await;
    assert_eq!(jobs["data"]["total"], 10, "{jobs}");
}

#[tokio::test]
async fn a_tenant_over_its_queue_limit_gets_429_with_retry_after() {
    let server = TestServer::start_with(
        ServerOptions::default().env("DOCSIEVE__JOBS__MAX_QUEUED_PER_TENANT", "2"),
    )
    .await;
    let alice = tenant(&server, "alice-full@example.com").await;
    let response = server
        .bearer(Method::POST, "/v1/data-process/async", &alice.token)
        .multipart(files(vec![
            ("a.txt", b"birinci belge".to_vec()),
            ("b.txt", b"ikinci belge".to_vec()),
            ("c.txt", b"ucuncu belge".to_vec()),
        ]))
        .send()
        .await
        .expect("POST");
    assert_eq!(response.status(), 429);
    let retry_after = response
        .headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    assert!(retry_after.is_some_and(|s| s > 0), "Retry-After is set");
    let (_, body) = json_of(response).await;
    assert_eq!(body["code"], "queue_full", "{body}");
    // Nothing of the refused request was stored.
    let (_, documents) = alice.get(&server, "/v1/documents").await;
    assert_eq!(documents["data"]["total"], 0);
    // Within the limit it is accepted.
    let jobs = alice
        .queue(&server, vec![("a.txt", b"birinci belge".to_vec())])
        .await;
    assert_eq!(jobs.len(), 1);
}

/// The tenant of `email` (made by [`tenant`]), logged in again after its server restarted.
async fn logged_in_again(server: &TestServer, email: &str, tenant_id: i64) -> Tenant {
    let login = server
        .post_json(
            "/v1/auth/login",
            serde_json::json!({"email": email, "password": "password-1"}),
        )
        .await;
    Tenant {
        token: login.1["data"]["access_token"]
            .as_str()
            .expect("token")
            .to_string(),
        tenant_id,
    }
}

/// One value of a metric series in the server's `/metrics` (0 when absent).
async fn metric(server: &TestServer, series: &str) -> f64 {
    let text = server
        .get("/metrics")
        .await
        .text()
        .await
        .expect("metrics text");
    text.lines()
        .find_map(|line| {
            line.strip_prefix(series)?
                .strip_prefix(' ')?
                .trim()
                .parse()
                .ok()
        })
        .unwrap_or(0.0)
}

/// Small documents are claimed in batches and their outcomes committed in groups; a kill -9 in the
/// middle loses nothing and doubles nothing: afterwards every document has exactly one execution,
/// one audit entry of its processing, one credit debit, and the usage counts each once.
#[tokio::test]
async fn small_documents_run_in_batches_and_a_kill_loses_and_doubles_nothing() {
    let mut server = TestServer::start().await;
    let alice = tenant(&server, "alice-batch@example.com").await;
    let docs = small_docs("s", 600);
    let jobs = queue_many(&server, &alice, &docs).await;
    assert_eq!(jobs.len(), 600);
    let first = server
        .eventually(Duration::from_secs(120), || async {
            count(&server, "SELECT COUNT(*) FROM executions").await > 0
        })
        .await;
    assert!(first, "nothing completed: {}", server.stderr());
    let batched = metric(&server, "docsieve_job_batch_size_sum").await
        / metric(&server, "docsieve_job_batch_size_count").await;
    server.kill();
    let at_kill = count(&server, "SELECT COUNT(*) FROM executions").await;
    println!("{at_kill} of 600 completed at the kill; {batched:.1} jobs per claim before it");
    assert!(batched > 1.0, "small documents were claimed one by one");

    server.spawn();
    let alice = logged_in_again(&server, "alice-batch@example.com", alice.tenant_id).await;
    let views = alice
        .wait_for(&server, &jobs, Duration::from_secs(300))
        .await;
    assert!(
        views.iter().all(|v| v["status"] == "completed"),
        "{views:?}"
    );
    for (what, sql) in [
        ("executions", "SELECT COUNT(*) FROM executions"),
        (
            "jobs with an execution",
            "SELECT COUNT(DISTINCT job_id) FROM executions",
        ),
        (
            "audit entries of processing",
            "SELECT COUNT(*) FROM audit_entries WHERE action = 'process' AND outcome = 'success'",
        ),
        (
            "audited jobs",
            "SELECT COUNT(DISTINCT target_id) FROM audit_entries WHERE action = 'process'",
        ),
        (
            "debits",
            "SELECT COUNT(*) FROM credit_ledger WHERE entry_type = 'debit'",
        ),
    ] {
        assert_eq!(count(&server, sql).await, 600, "{what}");
    }
    let (status, usage) = alice.get(&server, "/v1/usage").await;
    assert_eq!(status, 200, "{usage}");
    assert_eq!(usage["data"]["documents_processed"], 600, "{usage}");
}

#[tokio::test]
async fn documents_and_executions_are_listed_through_their_filters() {
    let server = TestServer::start().await;
    let alice = tenant(&server, "alice-filters@example.com").await;
    let bob = tenant(&server, "bob-filters@example.com").await;
    let text = b"Toplanti notlari: teslimat haftaya kaldi.\n".to_vec();
    let jobs = alice
        .queue(
            &server,
            vec![
                ("Rapor_2026.txt", text.clone()),
                ("Rapor-2026.csv", b"ad,not\nAyse,tamam\n".to_vec()),
                ("notlar.txt", text.clone()),
            ],
        )
        .await;
    let done = alice
        .wait_for(&server, &jobs, Duration::from_secs(60))
        .await;
    assert!(
        done.iter().all(|job| job["status"] == "completed"),
        "{done:?}"
    );
    let bobs = bob.queue(&server, vec![("Rapor_bob.txt", text)]).await;
    bob.wait_for(&server, &bobs, Duration::from_secs(60)).await;

    let names = |page: &Value| -> Vec<String> {
        let mut names: Vec<String> = page["data"]["items"]
            .as_array()
            .expect("items")
            .iter()
            .map(|d| d["filename"].as_str().expect("name").to_string())
            .collect();
        names.sort();
        names
    };
    // A name's part in any letter case; LIKE's wildcards in it are plain characters.
    let (status, page) = alice.get(&server, "/v1/documents?filename=RAPOR").await;
    assert_eq!(status, 200, "{page}");
    assert_eq!(names(&page), ["Rapor-2026.csv", "Rapor_2026.txt"]);
    assert_eq!(page["data"]["total"], 2);
    let (_, page) = alice.get(&server, "/v1/documents?filename=r_2026").await;
    assert_eq!(names(&page), ["Rapor_2026.txt"]);
    let (_, page) = alice.get(&server, "/v1/documents?filename=%25").await;
    assert_eq!(page["data"]["total"], 0, "{page}");
    let (_, page) = alice
        .get(&server, "/v1/documents?format=CSV&source=upload")
        .await;
    assert_eq!(names(&page), ["Rapor-2026.csv"]);
    let (_, page) = alice.get(&server, "/v1/documents?source=connector").await;
    assert_eq!(page["data"]["total"], 0);
    let (_, page) = alice
        .get(&server, "/v1/documents?filename=rapor&page=2&page_size=1")
        .await;
    assert_eq!(
        (
            page["data"]["total"].clone(),
            page["data"]["items"].as_array().map(Vec::len)
        ),
        (json!(2), Some(1))
    );

    let (_, page) = alice.get(&server, "/v1/documents?filename=notlar").await;
    let notes = page["data"]["items"][0]["document_id"]
        .as_i64()
        .expect("document id");
    let (status, body) = json_of(
        server
            .bearer(
                Method::POST,
                &format!("/v1/documents/{notes}/reprocess"),
                &alice.token,
            )
            .json(&json!({"masked": false}))
            .send()
            .await
            .expect("reprocess"),
    )
    .await;
    assert_eq!(status, 202, "{body}");
    let again = vec![body["data"]["job_id"].as_str().expect("job").to_string()];
    alice
        .wait_for(&server, &again, Duration::from_secs(60))
        .await;

    let total = |page: &Value| page["data"]["total"].as_i64().expect("total");
    let (_, page) = alice.get(&server, "/v1/executions?status=completed").await;
    assert_eq!(total(&page), 4, "{page}");
    let (_, page) = alice.get(&server, "/v1/executions?status=failed").await;
    assert_eq!(total(&page), 0);
    let (_, page) = alice.get(&server, "/v1/executions?masked=false").await;
    assert_eq!(total(&page), 1);
    assert_eq!(page["data"]["items"][0]["document_id"], notes);
    let (_, page) = alice
        .get(
            &server,
            &format!("/v1/executions?document_id={notes}&masked=true"),
        )
        .await;
    assert_eq!(total(&page), 1);
    let (_, page) = alice
        .get(&server, &format!("/v1/executions?document_id={notes}"))
        .await;
    assert_eq!(total(&page), 2);
    // Another tenant's document is simply not there.
    let (_, page) = bob
        .get(&server, &format!("/v1/executions?document_id={notes}"))
        .await;
    assert_eq!(total(&page), 0);

    // A bad filter is a 422 that names it.
    for (path, field) in [
        ("/v1/documents?source=email", "source"),
        ("/v1/documents?connector_id=x", "connector_id"),
        ("/v1/executions?status=done", "status"),
        ("/v1/executions?masked=maybe", "masked"),
        ("/v1/executions?document_id=0", "document_id"),
    ] {
        let (status, body) = alice.get(&server, path).await;
        assert_eq!(status, 422, "{path}: {body}");
        assert_eq!(body["detail"][0]["loc"], json!(["query", field]), "{body}");
    }
    let long = "a".repeat(201);
    let (status, body) = alice
        .get(&server, &format!("/v1/documents?filename={long}"))
        .await;
    assert_eq!(
        (status, body["detail"][0]["loc"].clone()),
        (422, json!(["query", "filename"]))
    );
}
