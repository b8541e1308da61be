//! The queue over HTTP: fairness between tenants with backlogs, crash recovery (a kill mid-way loses
//! and doubles nothing), leases, two processes on one queue, queue limits and batched small jobs.

use std::time::Duration;

use reqwest::Method;
use serde_json::Value;

use crate::jobs::{concurrent_uploads, corpus, count, files, tenant, Tenant};
use crate::support::{json_of, ServerOptions, TestServer};

/// Waits for `jobs` (all of the store's) and checks that each completed and ran exactly once: one
/// execution each.
async fn each_ran_once(server: &TestServer, who: &Tenant, jobs: &[String]) {
    let views = who.wait_for(server, jobs, Duration::from_secs(300)).await;
    assert!(
        views.iter().all(|v| v["status"] == "completed"),
        "{views:?}"
    );
    let n = jobs.len() as i64;
    assert_eq!(count(server, "SELECT COUNT(*) FROM executions").await, n);
    assert_eq!(
        count(server, "SELECT COUNT(DISTINCT job_id) FROM executions").await,
        n
    );
}

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
    each_ran_once(&server, &alice, &jobs).await;
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
    each_ran_once(&second, &alice, &jobs).await;
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
