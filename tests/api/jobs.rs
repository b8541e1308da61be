//! The async path over HTTP: uploads with partial accept, the job router, documents, jobs, reprocess,
//! audit export, a malformed file failing its own job; and the helpers the other modules share (a
//! tenant, its plan, corpus files). The queue is in `queue.rs`, listings and CSV export in
//! `executions.rs`.

use std::time::Duration;

use reqwest::multipart::{Form, Part};
use reqwest::Method;
use serde_json::Value;

use crate::support::{json_of, TestServer};

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
pub fn exe_bytes() -> Vec<u8> {
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

pub async fn count(server: &TestServer, sql: &str) -> i64 {
    server
        .query_strings(&format!("SELECT CAST(({sql}) AS TEXT)"))
        .await
        .first()
        .and_then(|v| v.parse().ok())
        .unwrap_or(-1)
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
