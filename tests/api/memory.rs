//! The memory budget of async jobs over HTTP: with `jobs.memory_budget_mb` smaller than two documents'
//! estimates, the second waits queued until the first has ended, whoever's it is; with no budget they
//! run side by side. (Peak RSS itself is measured by scripts/bench_job_memory.py, which prints it.)

use std::time::Duration;

use serde_json::Value;

use crate::jobs::tenant;
use crate::support::{ServerOptions, TestServer};

/// A 5 MB text: seconds of detection in a debug build, an estimate of 80 MB.
fn document(n: usize) -> Vec<u8> {
    format!("Belge {n}: Ayşe Yılmaz 0532 123 45 67 numarasını verdi.\n")
        .repeat(5_000_000 / 60)
        .into_bytes()
}

fn times(view: &Value) -> (chrono::DateTime<chrono::Utc>, chrono::DateTime<chrono::Utc>) {
    let at = |field: &str| {
        chrono::DateTime::parse_from_rfc3339(view[field].as_str().expect(field))
            .expect("a time")
            .with_timezone(&chrono::Utc)
    };
    (at("started_at"), at("finished_at"))
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
    let a = alice
        .wait_for(&server, &first, Duration::from_secs(300))
        .await;
    let b = bob
        .wait_for(&server, &second, Duration::from_secs(300))
        .await;
    assert_eq!(a[0]["status"], "completed", "{a:?}");
    assert_eq!(b[0]["status"], "completed", "{b:?}");
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
