//! The memory budget of async jobs over HTTP: with `jobs.memory_budget_mb` smaller than two documents'
//! estimates, the second waits queued until the first has ended, whoever's it is; with no budget they
//! run side by side. (Peak RSS itself is measured by scripts/bench_job_memory.py, which prints it.)

use std::time::Duration;

use serde_json::Value;

use crate::jobs::{tenant, Tenant};
use crate::support::{ServerOptions, TestServer};

/// A text of about `bytes` of lines with personal data (16 times that is its estimate).
fn text(n: usize, bytes: usize) -> Vec<u8> {
    let line = format!("Belge {n}: Ayşe Yılmaz 0532 123 45 67 numarasını verdi.\n");
    line.repeat(bytes / line.len()).into_bytes()
}

/// A 5 MB text: seconds of detection in a debug build, an estimate of 80 MB.
fn document(n: usize) -> Vec<u8> {
    text(n, 5_000_000)
}

fn times(view: &Value) -> (chrono::DateTime<chrono::Utc>, chrono::DateTime<chrono::Utc>) {
    let at = |field: &str| {
        chrono::DateTime::parse_from_rfc3339(view[field].as_str().expect(field))
            .expect("a time")
            .with_timezone(&chrono::Utc)
    };
    (at("started_at"), at("finished_at"))
}

/// The views of `who`'s `jobs` once they have ended, each completed.
async fn completed(server: &TestServer, who: &Tenant, jobs: &[String]) -> Vec<Value> {
    let views = who.wait_for(server, jobs, Duration::from_secs(600)).await;
    for view in &views {
        assert_eq!(view["status"], "completed", "{view}");
    }
    views
}

/// Runs two tenants' documents at once on a server with `budget_mb`; whether they overlapped.
async fn overlapped(budget_mb: &str) -> bool {
    let server = TestServer::start_with(
        ServerOptions::default().env("DOCSIEVE__JOBS__MEMORY_BUDGET_MB", budget_mb),
    )
    .await;
    let alice = tenant(&server, "alice-memory@example.com").await;
    let bob = tenant(&server, "bob-memory@example.com").await;
    let first = alice.queue(&server, vec![("a.txt", document(1))]).await;
    let second = bob.queue(&server, vec![("b.txt", document(2))]).await;
    let a = completed(&server, &alice, &first).await;
    let b = completed(&server, &bob, &second).await;
    let (a_start, a_end) = times(&a[0]);
    let (b_start, b_end) = times(&b[0]);
    println!("budget {budget_mb} MB: a {a_start}..{a_end}, b {b_start}..{b_end}");
    b_start < a_end && a_start < b_end
}

#[tokio::test]
async fn a_job_past_the_memory_budget_waits_queued_until_running_ones_end() {
    // 100 MB holds one 80 MB estimate, not two.
    assert!(
        !overlapped("100").await,
        "the second job ran beside the first"
    );
    assert!(
        overlapped("0").await,
        "without a budget the two jobs did not overlap: the check proves nothing"
    );
}

/// Bob's stream of small documents is running when Alice queues one large document whose estimate is
/// past the whole budget (it runs only when nothing else does); whether Alice's job started before
/// the last of Bob's, and what its status showed while it waited.
async fn large_behind_small(reserve_after: &str) -> (bool, Option<Value>) {
    let server = TestServer::start_with(
        ServerOptions::default()
            .env("DOCSIEVE__JOBS__MEMORY_BUDGET_MB", "100")
            .env("DOCSIEVE__JOBS__RESERVE_AFTER_SECONDS", reserve_after),
    )
    .await;
    let alice = tenant(&server, "alice-reserve@example.com").await;
    let bob = tenant(&server, "bob-reserve@example.com").await;
    let mut smalls = Vec::new();
    for request in 0..3 {
        let files: Vec<(String, Vec<u8>)> = (0..100)
            // Under `jobs.small_max_bytes`: the small lane.
            .map(|n| (format!("s{request}-{n}.txt"), text(n, 60_000)))
            .collect();
        let files = files
            .iter()
            .map(|(name, bytes)| (name.as_str(), bytes.clone()));
        smalls.extend(bob.queue(&server, files.collect()).await);
    }
    // 7 MB of text: an estimate of 112 MB, more than the 100 MB budget.
    let large = alice
        .queue(&server, vec![("large.txt", text(0, 7_000_000))])
        .await;
    let mut waiting = None;
    let started = std::time::Instant::now();
    loop {
        let (status, body) = alice.get(&server, &format!("/v1/jobs/{}", large[0])).await;
        assert_eq!(status, 200, "{body}");
        let view = &body["data"];
        if view["status"] != "queued" || started.elapsed() > Duration::from_secs(600) {
            break;
        }
        if !view["waiting"].is_null() {
            waiting = Some(view["waiting"].clone());
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let a = completed(&server, &alice, &large).await;
    let b = completed(&server, &bob, &smalls).await;
    let (large_start, _) = times(&a[0]);
    let last_small = b.iter().map(|view| times(view).0).max().expect("smalls");
    println!("reserve after {reserve_after} s: large started {large_start}, last small {last_small}, waiting {waiting:?}");
    (large_start < last_small, waiting)
}

#[tokio::test]
async fn the_oldest_large_job_holds_the_budget_so_small_ones_cannot_starve_it() {
    let (before_the_last_small, waiting) = large_behind_small("1").await;
    assert!(
        before_the_last_small,
        "the large job waited for every small one"
    );
    let waiting = waiting.expect("the status showed the reservation while it waited");
    assert_eq!(waiting["reason"], "memory_budget", "{waiting}");
    let estimate = waiting["memory_estimate_mb"].as_i64().expect("an estimate");
    assert!((100..=107).contains(&estimate), "{waiting}");
    assert_eq!(waiting["memory_budget_mb"], 100, "{waiting}");
    let at = |field: &str| {
        chrono::DateTime::parse_from_rfc3339(waiting[field].as_str().expect(field)).expect("a time")
    };
    assert!(at("starts_by") > at("reserved_at"), "{waiting}");
    // Without the reservation (a wait longer than the run) the small stream starves it: the check
    // above proves something.
    let (before_the_last_small, waiting) = large_behind_small("86400").await;
    assert!(
        !before_the_last_small && waiting.is_none(),
        "without a reservation the large job still started before the small ones ended"
    );
}
