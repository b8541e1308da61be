//! Nothing left behind by a crash, over HTTP: a process killed (SIGKILL) while it stores uploads leaves
//! originals no document refers to, which the restarted process sweeps; a sync killed mid-way is marked
//! interrupted once its heartbeat stops, its claims are released, and the next sync takes every object
//! it had not queued, each once.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use reqwest::multipart::{Form, Part};
use reqwest::Method;
use serde_json::json;

use crate::emulators;
use crate::jobs::{count, on_plan, tenant};
use crate::support::{json_of, ServerOptions, TestServer};

/// Every file under the blob store's `tenants/*/uploads/` folders, as blob keys.
fn stored_uploads(blobs: &Path) -> Vec<String> {
    let mut keys = Vec::new();
    let Ok(tenants) = std::fs::read_dir(blobs.join("tenants")) else {
        return keys;
    };
    for tenant in tenants.flatten() {
        let Ok(uploads) = std::fs::read_dir(tenant.path().join("uploads")) else {
            continue;
        };
        for upload in uploads.flatten() {
            let path: PathBuf = upload.path();
            if let Ok(key) = path.strip_prefix(blobs) {
                keys.push(key.display().to_string());
            }
        }
    }
    keys
}

#[tokio::test]
async fn uploads_cut_off_by_a_kill_leave_no_original_behind_after_the_restart() {
    // Orphans are swept at start whatever their age (in service: older than ten minutes).
    let mut server = TestServer::start_with(
        ServerOptions::default().env("DOCSIEVE__JOBS__ORPHAN_GRACE_SECONDS", "0"),
    )
    .await;
    let alice = tenant(&server, "alice-cut-off@example.com").await;
    let blobs = server.data_dir.path().join("blobs");
    // Twelve uploads of eight 300 KB files at once; the process is killed while it stores them.
    let body: Vec<u8> = "Sipariş notu: müşteri 0532 123 45 67 aradı.\n"
        .repeat(300_000 / 45)
        .into_bytes();
    let uploads: Vec<_> = (0..12)
        .map(|n| {
            let form = (0..8).fold(Form::new(), |form, i| {
                form.part(
                    "files",
                    Part::bytes(body.clone()).file_name(format!("{n}-{i}.txt")),
                )
            });
            let request = server
                .bearer(Method::POST, "/v1/data-process/async", &alice.token)
                .multipart(form);
            tokio::spawn(async move { request.send().await.map(|r| r.status().as_u16()) })
        })
        .collect();
    let started = Instant::now();
    while stored_uploads(&blobs).len() < 20 && started.elapsed() < Duration::from_secs(30) {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    server.kill();
    for upload in uploads {
        let _ = upload.await;
    }
    // And one a process stored just before it died, for certain.
    let planted = format!("tenants/{}/uploads/u_planted_by_the_test", alice.tenant_id);
    std::fs::write(blobs.join(&planted), b"an original whose row never came").expect("plant");
    let left = stored_uploads(&blobs);
    let known = server.query_strings("SELECT blob_key FROM documents").await;
    let orphans_before = left.iter().filter(|key| !known.contains(key)).count();
    // The service's clock counts whole seconds: let the planted file be a second old.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    server.spawn();
    // The sweep at start deletes one file after another: wait for it to be over.
    let orphans_left = || async {
        let known = server.query_strings("SELECT blob_key FROM documents").await;
        let after = stored_uploads(&blobs);
        let orphans: Vec<String> = after
            .iter()
            .filter(|key| !known.contains(key))
            .cloned()
            .collect();
        (after, known, orphans)
    };
    server
        .eventually(Duration::from_secs(20), || async {
            orphans_left().await.2.is_empty()
        })
        .await;
    let (after, known, orphans) = orphans_left().await;
    assert!(!after.contains(&planted));
    println!(
        "kill during uploads: {} originals stored, {orphans_before} without a document (one planted), {} after the restart's sweep",
        left.len(),
        orphans.len()
    );
    assert!(orphans.is_empty(), "{orphans:?}");
    // Every document the killed process committed still has its original: its job completes.
    assert_eq!(after.len(), known.len(), "{after:?} {known:?}");
    let (status, report) = json_of(
        server
            .internal(
                Method::POST,
                "/system/admin/storage/cleanup?orphans_older_than_seconds=0",
            )
            .send()
            .await
            .expect("POST"),
    )
    .await;
    assert_eq!(status, 200, "{report}");
    assert_eq!(report["data"]["orphans"]["deleted"], 0, "{report}");
    let (status, report) = json_of(
        server
            .internal(
                Method::POST,
                "/system/admin/storage/cleanup?orphans_older_than_seconds=-1",
            )
            .send()
            .await
            .expect("POST"),
    )
    .await;
    assert_eq!(status, 422, "{report}");
}

#[tokio::test]
async fn a_sync_killed_mid_way_is_interrupted_and_the_next_takes_its_objects_once() {
    let Some(s3) = emulators::s3() else {
        return;
    };
    s3.create_bucket("arsiv").await;
    let objects: i64 = 120;
    for n in 0..objects {
        s3.put(
            "arsiv",
            &format!("in/{n:03}.txt"),
            format!("Belge {n}: IBAN TR33 0006 1005 1978 6457 8413 26").into_bytes(),
        )
        .await;
    }
    let mut server = TestServer::start().await;
    let alice = tenant(&server, "alice-killed-sync@example.com").await;
    on_plan(&server, &alice, "starter").await;
    let call = |method: Method, path: String, body: Option<serde_json::Value>| {
        let mut request = server.bearer(method, &path, &alice.token);
        if let Some(body) = body {
            request = request.json(&body);
        }
        request
    };
    let (status, created) = json_of(
        call(
            Method::POST,
            "/v1/connectors".into(),
            Some(s3.connector("arsiv", "arsiv", Some("in/"))),
        )
        .send()
        .await
        .expect("POST"),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    let id = created["data"]["id"].as_i64().expect("id");
    let (status, schedule) = json_of(
        call(
            Method::POST,
            format!("/v1/connectors/{id}/schedules"),
            Some(json!({"cron": "0 3 * * *"})),
        )
        .send()
        .await
        .expect("POST"),
    )
    .await;
    assert_eq!(status, 201, "{schedule}");
    let schedule_id = schedule["data"]["id"].as_i64().expect("id");
    let token = alice.token.clone();
    let trigger = move |server: &TestServer| {
        server
            .bearer(
                Method::POST,
                &format!("/v1/connectors/{id}/schedules/{schedule_id}/trigger"),
                &token,
            )
            .send()
    };
    let first = tokio::spawn(trigger(&server));
    // Killed once the sync has taken some objects and not all.
    let started = Instant::now();
    let mut taken = 0;
    while started.elapsed() < Duration::from_secs(60) {
        taken = count(&server, "SELECT COUNT(*) FROM connector_objects").await;
        if taken >= 5 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    server.kill();
    let _ = first.await;
    assert!(
        (1..objects).contains(&taken),
        "the sync took {taken} of {objects} objects before the kill"
    );
    server.spawn();
    // The run whose heartbeat stopped is ended as interrupted, and its claims released, once no beat
    // came for the stale time (20 s): the restarted server's clock is moved past it rather than
    // waited for (the scheduler reads that clock). Still proven: the run is ended by a process other
    // than the one that started it, and only once its heartbeat is stale by the clock the server reads.
    server.advance_clock(25).await;
    let ended = server
        .eventually(Duration::from_secs(60), || async {
            count(
                &server,
                "SELECT COUNT(*) FROM sync_runs WHERE status = 'failed' AND error_code = 'interrupted'",
            )
            .await
                == 1
        })
        .await;
    assert!(
        ended,
        "the killed sync is still running: {}",
        server.stderr()
    );
    assert_eq!(
        count(
            &server,
            "SELECT COUNT(*) FROM connector_objects WHERE status = 'claimed'"
        )
        .await,
        0
    );
    let response = trigger(&server).await.expect("POST");
    assert_eq!(response.status(), 202);
    let queued = count(
        &server,
        "SELECT COUNT(*) FROM connector_objects WHERE status = 'queued'",
    )
    .await;
    let distinct = count(
        &server,
        "SELECT COUNT(DISTINCT source_digest) FROM documents WHERE source = 'connector'",
    )
    .await;
    let documents = count(
        &server,
        "SELECT COUNT(*) FROM documents WHERE source = 'connector'",
    )
    .await;
    println!(
        "killed sync: {taken} objects taken before the kill; after the restart {queued} queued, {documents} documents"
    );
    assert_eq!(queued, objects);
    assert_eq!(distinct, objects);
    assert_eq!(documents, objects, "an object was queued twice");
}
