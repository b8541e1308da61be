//! Concurrent writes over HTTP: no race answers 5xx. Each write either waits its turn or becomes the
//! 404 or 409 the client would have got a moment later, and the final state is consistent.

use futures_util::future::join_all;
use reqwest::Method;
use serde_json::{json, Value};

use crate::datasets::{api_key, post, processed, wait_ready};
use crate::jobs::{count, on_plan, tenant};
use crate::support::{json_of, TestServer};

/// Twenty plan changes of one tenant at once (SQLite answered 500 "database is locked" six to nine
/// times): every one answers 200, each is audited, and the plan standing is one of those asked for.
#[tokio::test]
async fn twenty_concurrent_plan_changes_all_land() {
    let server = TestServer::start().await;
    let alice = tenant(&server, "alice-plans@example.com").await;
    let path = format!("/system/admin/tenants/{}/plan", alice.tenant_id);
    let plans = ["starter", "pro", "enterprise", "trial"];
    let answers = join_all((0..20).map(|i| {
        let request = server
            .internal(Method::PUT, &path)
            .json(&json!({"plan": plans[i % plans.len()]}));
        async move { json_of(request.send().await.expect("PUT")).await }
    }))
    .await;
    for (status, body) in &answers {
        assert_eq!(*status, 200, "{body}");
    }
    let audited = count(
        &server,
        &format!(
            "SELECT COUNT(*) FROM audit_entries WHERE tenant_id = {} AND action = 'plan_changed'",
            alice.tenant_id
        ),
    )
    .await;
    assert_eq!(audited, 20);
    let stored = server
        .query_strings(&format!(
            "SELECT plan FROM tenants WHERE id = {}",
            alice.tenant_id
        ))
        .await;
    assert!(plans.contains(&stored[0].as_str()), "{stored:?}");
}

/// A schedule created while its connector is deleted (a foreign-key violation answered 500 on both
/// backends): the schedule is created and then deleted with its connector, or answered 404; the
/// delete answers as it would alone; no schedule outlives its connector.
#[tokio::test]
async fn a_schedule_created_while_its_connector_is_deleted_is_a_404_or_goes_with_it() {
    let server = TestServer::start().await;
    let alice = tenant(&server, "alice-races@example.com").await;
    on_plan(&server, &alice, "pro").await;
    let call = |method: Method, path: String, body: Option<Value>| {
        let mut request = server.bearer(method, &path, &alice.token);
        if let Some(body) = body {
            request = request.json(&body);
        }
        async move { json_of(request.send().await.expect("request")).await }
    };
    let mut outcomes = std::collections::BTreeMap::<(u16, u16), usize>::new();
    for i in 0..12 {
        let (status, created) = call(
            Method::POST,
            "/v1/connectors".to_string(),
            Some(
                json!({"type": "s3", "name": format!("yarış-{i}"), "config": {
                "bucket": "faturalar", "region": "eu-central-1", "aws_access_key_id": "AKIATEST",
                "aws_secret_access_key": "s3-secret", "endpoint": "http://127.0.0.1:9000"}}),
            ),
        )
        .await;
        assert_eq!(status, 201, "{created}");
        let id = created["data"]["id"].as_i64().expect("id");
        // The delete goes first on even rounds, the schedule on odd ones.
        let schedule = call(
            Method::POST,
            format!("/v1/connectors/{id}/schedules"),
            Some(json!({"cron": "0 3 * * *"})),
        );
        let delete = async {
            server
                .bearer(
                    Method::DELETE,
                    &format!("/v1/connectors/{id}"),
                    &alice.token,
                )
                .send()
                .await
                .expect("DELETE")
                .status()
                .as_u16()
        };
        let ((scheduled, body), deleted) = if i % 2 == 0 {
            let (d, s) = tokio::join!(delete, schedule);
            (s, d)
        } else {
            tokio::join!(schedule, delete)
        };
        assert!(
            scheduled == 201 || (scheduled == 404 && body["code"] == "connector_not_found"),
            "{scheduled}: {body}"
        );
        assert!(deleted == 204 || deleted == 200, "{deleted}");
        *outcomes.entry((scheduled, deleted)).or_default() += 1;
    }
    println!("schedule/delete outcomes: {outcomes:?}");
    let orphans = count(
        &server,
        "SELECT COUNT(*) FROM schedules WHERE connector_id NOT IN (SELECT id FROM connectors)",
    )
    .await;
    assert_eq!(orphans, 0);
}

/// Exports downloaded while their dataset is deleted: each download is the file or 404, the delete
/// answers as it would alone, and no export row or file outlives the dataset.
#[tokio::test]
async fn an_export_downloaded_while_its_dataset_is_deleted_is_the_file_or_a_404() {
    let server = TestServer::start().await;
    let alice = tenant(&server, "alice-export-race@example.com").await;
    let executions = processed(&server, &alice).await;
    let key = api_key(&server, &alice).await;
    let mut outcomes = std::collections::BTreeMap::<Vec<u16>, usize>::new();
    for round in 0..4 {
        let (status, created) = post(
            &server,
            &alice,
            json!({"name": format!("yarış {round}"), "execution_ids": executions}),
        )
        .await;
        assert_eq!(status, 202, "{created}");
        let id = created["data"]["id"].as_str().expect("id").to_string();
        wait_ready(&server, &key, &id).await;
        let downloads = ["jsonl", "csv", "parquet", "xlsx"].map(|format| {
            let request = server.with_key(
                Method::GET,
                &format!("/v1/datasets/{id}/export?format={format}"),
                &key,
            );
            async move {
                let response = request.send().await.expect("GET");
                let status = response.status().as_u16();
                let body = response.bytes().await.expect("body");
                (status, body)
            }
        });
        let delete = async {
            tokio::time::sleep(std::time::Duration::from_millis(5 * round)).await;
            server
                .with_key(Method::DELETE, &format!("/v1/datasets/{id}"), &key)
                .send()
                .await
                .expect("DELETE")
                .status()
                .as_u16()
        };
        let (answers, deleted) = tokio::join!(join_all(downloads), delete);
        assert!(deleted == 204 || deleted == 200, "{deleted}");
        let mut statuses = Vec::new();
        for (status, body) in answers {
            assert!(
                status == 200 || status == 404,
                "{status}: {}",
                String::from_utf8_lossy(&body)
            );
            statuses.push(status);
        }
        *outcomes.entry(statuses).or_default() += 1;
        let (status, _) = json_of(
            server
                .with_key(Method::GET, &format!("/v1/datasets/{id}"), &key)
                .send()
                .await
                .expect("GET"),
        )
        .await;
        assert_eq!(status, 404);
    }
    println!("download statuses per round: {outcomes:?}");
    let rows = count(
        &server,
        "SELECT COUNT(*) FROM dataset_exports WHERE dataset_id NOT IN (SELECT id FROM datasets)",
    )
    .await;
    assert_eq!(rows, 0);
}
