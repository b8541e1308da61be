//! Fine-tuning over HTTP against a stand-in provider started by the test (`provider.rs`): jobs that
//! succeed, fail, meet a 5xx or a refusal, and a create whose answer is lost. The stand-in checks
//! every request for the documents' planted personal values; a restart between upload and success
//! loses no job and creates no second one.

use std::time::Duration;

use reqwest::Method;
use serde_json::{json, Value};

use crate::jobs::{corpus, planted, tenant, Tenant};
use crate::support::{json_of, TestServer};

use crate::provider::{server_options, Provider};

const DOCUMENTS: [(&str, &str); 2] = [
    ("ik.docx", "tr/tr_ik_yazisi.docx"),
    ("musteriler.csv", "tr/tr_musteri_listesi.csv"),
];

fn planted_values() -> Vec<String> {
    DOCUMENTS
        .iter()
        .flat_map(|(_, path)| planted(path))
        .filter(|value| value.chars().count() >= 6)
        .collect()
}

/// A ready dataset of the corpus documents, processed masked (or not).
async fn dataset(server: &TestServer, who: &Tenant, masked: bool) -> String {
    let files = DOCUMENTS
        .iter()
        .map(|(name, path)| (name.to_string(), corpus(path)))
        .collect();
    dataset_of_files(server, who, masked, files).await
}

/// Uploads `files`, waits for their executions, and makes a ready dataset of them.
async fn dataset_of_files(
    server: &TestServer,
    who: &Tenant,
    masked: bool,
    files: Vec<(String, Vec<u8>)>,
) -> String {
    let executions: Vec<i64> = processed(server, who, masked, files)
        .await
        .iter()
        .map(|v| v["execution_id"].as_i64().expect("completed"))
        .collect();
    dataset_of(server, who, json!(executions), "ready").await
}

/// Uploads `files` in one asynchronous request (`masked` or not) and waits for their jobs: the final
/// job views, in the order sent.
pub(crate) async fn processed(
    server: &TestServer,
    who: &Tenant,
    masked: bool,
    files: Vec<(String, Vec<u8>)>,
) -> Vec<Value> {
    let form = files
        .into_iter()
        .fold(reqwest::multipart::Form::new(), |form, (name, bytes)| {
            form.part(
                "files",
                reqwest::multipart::Part::bytes(bytes).file_name(name),
            )
        });
    let (status, body) = who
        .upload(
            server,
            &format!("/v1/data-process/async?masked={masked}"),
            form,
        )
        .await;
    assert_eq!(status, 202, "{body}");
    let jobs: Vec<String> = body["data"]["job_ids"]
        .as_array()
        .expect("ids")
        .iter()
        .map(|id| id.as_str().expect("id").to_string())
        .collect();
    // Room for a batch of every format, OCR included, on a loaded machine.
    who.wait_for(server, &jobs, Duration::from_secs(180)).await
}

/// Creates a dataset of `executions` and waits until it is `until` (ready or failed).
pub(crate) async fn dataset_of(
    server: &TestServer,
    who: &Tenant,
    executions: Value,
    until: &str,
) -> String {
    let (status, created) = json_of(
        server
            .bearer(Method::POST, "/v1/datasets", &who.token)
            .json(&json!({"name": "faturalar", "execution_ids": executions}))
            .send()
            .await
            .expect("POST"),
    )
    .await;
    assert_eq!(status, 202, "{created}");
    let id = created["data"]["id"].as_str().expect("id").to_string();
    for _ in 0..600 {
        let (_, body) = who.get(server, &format!("/v1/datasets/{id}")).await;
        if body["data"]["status"] == until {
            return id;
        }
        assert!(
            body["data"]["status"] != "failed" && body["data"]["status"] != "ready",
            "{body}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the dataset never became {until}");
}

/// A dataset whose build failed: its execution's stored result was removed from the blob folder.
async fn failed_dataset(server: &TestServer, who: &Tenant) -> String {
    let jobs = who
        .queue(server, vec![("kayip.txt", b"kaybolacak sonuc".to_vec())])
        .await;
    let views = who.wait_for(server, &jobs, Duration::from_secs(60)).await;
    let result = server.data_dir.path().join(format!(
        "blobs/tenants/{}/results/{}.json",
        who.tenant_id, jobs[0]
    ));
    std::fs::remove_file(&result).expect("the job's stored result");
    dataset_of(server, who, json!([views[0]["execution_id"]]), "failed").await
}

/// Moves the tenant to the pro plan now (the change applies from the next period).
pub(crate) async fn pro(server: &TestServer, who: &Tenant) {
    crate::jobs::on_plan(server, who, "pro").await;
}

pub(crate) async fn fine_tune(server: &TestServer, who: &Tenant, body: Value) -> (u16, Value) {
    json_of(
        server
            .bearer(Method::POST, "/v1/fine-tune", &who.token)
            .json(&body)
            .send()
            .await
            .expect("POST"),
    )
    .await
}

/// Waits until the job reaches one of `states`; returns its view.
pub(crate) async fn wait_status(
    server: &TestServer,
    who: &Tenant,
    job: &str,
    states: &[&str],
) -> Value {
    let started = std::time::Instant::now();
    loop {
        let (status, body) = who.get(server, &format!("/v1/fine-tune/{job}")).await;
        assert_eq!(status, 200, "{body}");
        if states.iter().any(|s| body["data"]["status"] == *s) {
            return body["data"].clone();
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "fine-tune job stuck at {body}\n{}",
            server.stderr()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn a_fine_tune_job_runs_through_the_provider_on_masked_data_only() {
    let provider = Provider::start(planted_values()).await;
    let server = TestServer::start_with(server_options(&provider)).await;
    let alice = tenant(&server, "alice-ft@example.com").await;
    let ready = dataset(&server, &alice, true).await;

    let (status, body) = fine_tune(
        &server,
        &alice,
        json!({"dataset_id": ready, "model": "gpt-4o-mini"}),
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (403, Some("plan_required")),
        "{body}"
    );
    pro(&server, &alice).await;

    for (bad, field) in [
        (json!({"model": "m"}), "dataset_id"),
        (json!({"dataset_id": ready}), "model"),
        (
            json!({"dataset_id": ready, "model": "m", "suffix": 5}),
            "suffix",
        ),
        (json!({"dataset_id": ready, "model": ""}), "model"),
    ] {
        let (status, body) = fine_tune(&server, &alice, bad).await;
        assert_eq!(status, 422, "{body}");
        assert_eq!(body["detail"][0]["loc"][1], field, "{body}");
    }
    let (status, body) = fine_tune(
        &server,
        &alice,
        json!({"dataset_id": "ds_missing", "model": "m"}),
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (404, Some("dataset_not_found")),
        "{body}"
    );
    let (status, body) = fine_tune(
        &server,
        &alice,
        json!({"dataset_id": failed_dataset(&server, &alice).await, "model": "m"}),
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (409, Some("dataset_not_ready")),
        "{body}"
    );

    let (status, created) = fine_tune(
        &server,
        &alice,
        json!({"dataset_id": ready, "model": "gpt-4o-mini-2024-07-18", "suffix": "faturalar"}),
    )
    .await;
    assert_eq!(status, 202, "{created}");
    assert_eq!(created["data"]["status"], "queued");
    let job = created["data"]["job_id"]
        .as_str()
        .expect("job id")
        .to_string();
    let done = wait_status(&server, &alice, &job, &["succeeded", "failed"]).await;
    assert_eq!(done["status"], "succeeded", "{done}");
    assert_eq!(done["provider_job_id"], "ftjob-1");
    assert_eq!(
        done["fine_tuned_model"],
        "ft:gpt-4o-mini-2024-07-18:docsieve:faturalar:ftjob-1"
    );
    assert!(done["training_rows"].as_i64().unwrap_or(0) >= 2, "{done}");
    assert!(done["finished_at"].is_string(), "{done}");
    assert_eq!(done["error"], Value::Null);

    provider.with(|state| {
        assert!(
            state.leaks.is_empty(),
            "planted values reached the provider: {:?}",
            state.leaks
        );
        assert_eq!(state.unauthorized, 0);
        assert_eq!((state.files.len(), state.creates), (1, 1));
        let (_, filename, content) = &state.files[0];
        assert_eq!(filename, &format!("docsieve-{job}.jsonl"));
        let lines: Vec<Value> = String::from_utf8_lossy(content)
            .lines()
            .map(|line| serde_json::from_str(line).expect("a JSONL line"))
            .collect();
        assert_eq!(
            lines.len() as i64,
            done["training_rows"].as_i64().expect("rows")
        );
        for line in &lines {
            let roles: Vec<&str> = line["messages"]
                .as_array()
                .expect("messages")
                .iter()
                .map(|m| m["role"].as_str().expect("role"))
                .collect();
            assert_eq!(roles, ["system", "user", "assistant"], "{line}");
        }
        assert!(
            String::from_utf8_lossy(content).contains("[MASKED_"),
            "the training text is the masked text"
        );
    });

    let (status, list) = alice.get(&server, "/v1/fine-tune?page_size=5").await;
    assert_eq!(status, 200, "{list}");
    assert_eq!(list["data"]["total"], 1);
    assert_eq!(list["data"]["items"][0]["job_id"], job);
    let (status, body) = alice.get(&server, "/v1/fine-tune/ft_000000000000").await;
    assert_eq!(
        (status, body["code"].as_str()),
        (404, Some("fine_tune_job_not_found")),
        "{body}"
    );
    let bob = tenant(&server, "bob-ft@example.com").await;
    let (status, _) = bob.get(&server, &format!("/v1/fine-tune/{job}")).await;
    assert_eq!(status, 404, "another tenant's job is not found");

    // An unmasked dataset never leaves: refused at once, no job.
    let raw = dataset(&server, &alice, false).await;
    let (status, refused) = fine_tune(
        &server,
        &alice,
        json!({"dataset_id": raw, "model": "gpt-4o-mini"}),
    )
    .await;
    assert_eq!(status, 422, "{refused}");
    assert_eq!(refused["detail"][0]["loc"][1], "dataset_id", "{refused}");
    assert_eq!(
        refused["detail"][0]["type"], "value_error.dataset_not_masked",
        "{refused}"
    );
    let (_, list) = alice.get(&server, "/v1/fine-tune").await;
    assert_eq!(list["data"]["total"], 1, "no job for it: {list}");
    provider.with(|state| {
        assert_eq!(state.files.len(), 1, "nothing more was uploaded");
        assert!(state.leaks.is_empty(), "{:?}", state.leaks);
    });
    let metrics = server.get("/metrics").await.text().await.expect("metrics");
    assert!(
        metrics.contains("docsieve_fine_tune_jobs_total{status=\"succeeded\"} 1"),
        "{metrics}"
    );
}

#[tokio::test]
async fn plain_documents_train_by_default_and_a_dataset_that_cannot_is_refused_at_once() {
    let provider = Provider::start(planted_values()).await;
    let server = TestServer::start_with(server_options(&provider)).await;
    let alice = tenant(&server, "alice-ft-plain@example.com").await;
    pro(&server, &alice).await;
    let letter = std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/customer-letter.txt"),
    )
    .expect("the sample letter");
    let letters = dataset_of_files(
        &server,
        &alice,
        true,
        vec![("letter.txt".to_string(), letter)],
    )
    .await;

    // Templates that make nothing of a plain letter (it has no extracted fields): 422 at once.
    let (status, body) = fine_tune(
        &server,
        &alice,
        json!({"dataset_id": letters, "model": "m", "templates": {"assistant": "{fields}"}}),
    )
    .await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["detail"][0]["loc"][1], "dataset_id", "{body}");
    assert_eq!(
        body["detail"][0]["type"], "value_error.empty_training_file",
        "{body}"
    );
    assert!(
        body["detail"][0]["msg"]
            .as_str()
            .unwrap_or("")
            .contains("templates"),
        "{body}"
    );
    for bad in [
        json!({"nope": "x"}),
        json!({"user": ""}),
        json!({"user": 3}),
        json!("{text}"),
    ] {
        let (status, body) = fine_tune(
            &server,
            &alice,
            json!({"dataset_id": letters, "model": "m", "templates": bad}),
        )
        .await;
        assert_eq!(status, 422, "{bad}: {body}");
        assert!(
            body["detail"][0]["loc"][1]
                .as_str()
                .unwrap_or("")
                .starts_with("templates"),
            "{body}"
        );
    }

    // The documented default for plain documents: the model learns to write the letter.
    let (status, created) = fine_tune(
        &server,
        &alice,
        json!({"dataset_id": letters, "model": "m"}),
    )
    .await;
    assert_eq!(status, 202, "{created}");
    let job = created["data"]["job_id"].as_str().expect("id").to_string();
    let done = wait_status(&server, &alice, &job, &["succeeded", "failed"]).await;
    assert_eq!(
        (done["status"].as_str(), done["training_rows"].as_i64()),
        (Some("succeeded"), Some(1)),
        "{done}"
    );

    // Templates of the request's own are used as given.
    let (status, created) = fine_tune(
        &server,
        &alice,
        json!({"dataset_id": letters, "model": "m2", "templates": {"system": "", "user": "Summarise {filename}.", "assistant": "{text}"}}),
    )
    .await;
    assert_eq!(status, 202, "{created}");
    let job2 = created["data"]["job_id"].as_str().expect("id").to_string();
    let done = wait_status(&server, &alice, &job2, &["succeeded", "failed"]).await;
    assert_eq!(done["status"], "succeeded", "{done}");
    provider.with(|state| {
        assert!(state.leaks.is_empty(), "{:?}", state.leaks);
        let users: Vec<String> = state
            .files
            .iter()
            .map(|(_, _, content)| {
                let line: Value = serde_json::from_slice(
                    content.split(|b| *b == b'\n').next().unwrap_or_default(),
                )
                .expect("a JSONL line");
                let roles: Vec<&str> = line["messages"]
                    .as_array()
                    .expect("messages")
                    .iter()
                    .map(|m| m["role"].as_str().unwrap_or(""))
                    .collect();
                assert_eq!(roles, ["user", "assistant"], "{line}");
                assert!(
                    line["messages"][1]["content"]
                        .as_str()
                        .unwrap_or("")
                        .contains("[MASKED_NATIONAL_ID_TR]"),
                    "{line}"
                );
                line["messages"][0]["content"]
                    .as_str()
                    .unwrap_or("")
                    .to_string()
            })
            .collect();
        assert_eq!(
            users,
            [
                "Write the txt document letter.txt.",
                "Summarise letter.txt."
            ]
        );
    });
}

#[tokio::test]
async fn provider_failures_retries_and_refusals_end_as_documented() {
    let provider = Provider::start(planted_values()).await;
    let server = TestServer::start_with(server_options(&provider)).await;
    let alice = tenant(&server, "alice-ft-modes@example.com").await;
    pro(&server, &alice).await;
    let ready = dataset(&server, &alice, true).await;
    let start = |model: &str| json!({"dataset_id": ready, "model": model});

    // 5xx: retried with backoff, then it goes through.
    provider.with(|state| state.script.unavailable = 3);
    let (_, created) = fine_tune(&server, &alice, start("m-flaky")).await;
    let flaky = wait_status(
        &server,
        &alice,
        created["data"]["job_id"].as_str().expect("id"),
        &["succeeded", "failed"],
    )
    .await;
    assert_eq!(flaky["status"], "succeeded", "{flaky}");
    assert_eq!(provider.with(|state| state.unavailable_answers), 3);

    // The provider's job fails: so does ours, with its message.
    provider.with(|state| state.script.fail_jobs = true);
    let (_, created) = fine_tune(&server, &alice, start("m-fails")).await;
    let failed = wait_status(
        &server,
        &alice,
        created["data"]["job_id"].as_str().expect("id"),
        &["succeeded", "failed"],
    )
    .await;
    assert_eq!(failed["status"], "failed", "{failed}");
    assert_eq!(failed["error"]["code"], "provider_job_failed");
    assert_eq!(failed["error"]["message"], "training loss diverged");

    // A 4xx ends the job at once with the provider's message.
    provider.with(|state| {
        state.script.fail_jobs = false;
        state.script.reject_create = Some("model m-unknown does not exist".to_string());
    });
    let (_, created) = fine_tune(&server, &alice, start("m-unknown")).await;
    let rejected = wait_status(
        &server,
        &alice,
        created["data"]["job_id"].as_str().expect("id"),
        &["succeeded", "failed"],
    )
    .await;
    assert_eq!(rejected["error"]["code"], "provider_rejected", "{rejected}");
    assert!(rejected["error"]["message"]
        .as_str()
        .expect("message")
        .contains("model m-unknown does not exist"));

    // A provider that stays down: the job gives up after fine_tune.max_attempts.
    provider.with(|state| {
        state.script.reject_create = None;
        state.script.unavailable = 1000;
    });
    let (_, created) = fine_tune(&server, &alice, start("m-down")).await;
    let down = wait_status(
        &server,
        &alice,
        created["data"]["job_id"].as_str().expect("id"),
        &["succeeded", "failed"],
    )
    .await;
    assert_eq!(down["error"]["code"], "provider_unavailable", "{down}");
    provider.with(|state| assert!(state.leaks.is_empty(), "{:?}", state.leaks));
}

/// The create's answer is lost (the provider made the job and answered 500), then the server restarts
/// while the job trains: the job is adopted, not created again, and followed to success.
#[tokio::test]
async fn a_lost_answer_and_a_restart_create_no_second_provider_job() {
    let provider = Provider::start(planted_values()).await;
    let mut server = TestServer::start_with(server_options(&provider)).await;
    let alice = tenant(&server, "alice-ft-restart@example.com").await;
    pro(&server, &alice).await;
    let ready = dataset(&server, &alice, true).await;
    provider.with(|state| {
        state.script.lose_create = true;
        state.script.hold = true;
    });
    let (status, created) = fine_tune(
        &server,
        &alice,
        json!({"dataset_id": ready, "model": "m-restart"}),
    )
    .await;
    assert_eq!(status, 202, "{created}");
    let job = created["data"]["job_id"].as_str().expect("id").to_string();
    let running = wait_status(&server, &alice, &job, &["running"]).await;
    assert_eq!(
        running["provider_job_id"], "ftjob-1",
        "the lost job was adopted: {running}"
    );

    server.terminate(Duration::from_secs(20));
    server.spawn();
    let (status, view) = alice.get(&server, &format!("/v1/fine-tune/{job}")).await;
    assert_eq!(status, 200, "{view}");
    assert_eq!(view["data"]["status"], "running", "{view}");
    provider.with(|state| state.script.hold = false);
    let done = wait_status(&server, &alice, &job, &["succeeded", "failed"]).await;
    assert_eq!(done["status"], "succeeded", "{done}");
    provider.with(|state| {
        assert_eq!(state.creates, 1, "one provider job");
        assert_eq!(state.files.len(), 1, "one training file");
        assert!(state.leaks.is_empty(), "{:?}", state.leaks);
    });
}
