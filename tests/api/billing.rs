//! Plans, billing periods and credits over HTTP: the first period at verification, open/close with
//! their conflicts, plan changes from the next period, the cycle and its idempotence, the scheduler
//! running it on its cron (once across processes, like every timed duty), credits reserved at admission and debited per page, 402 once they run out, and 50
//! concurrent uploads against a small balance.

use std::time::Duration;

use reqwest::Method;
use serde_json::{json, Value};

use crate::jobs::{concurrent_uploads, count, files, tenant, Tenant};
use crate::support::{json_of, ServerOptions, TestServer};

/// A cron that never fires (the 31st of February): the scheduler never runs the cycle.
const NEVER: &str = "0 0 31 2 *";

/// Logs in again (after the server's clock moved past the access token's lifetime).
async fn relogin(server: &TestServer, who: &mut Tenant, email: &str) {
    let (status, login) = server
        .post_json(
            "/v1/auth/login",
            json!({"email": email, "password": "password-1"}),
        )
        .await;
    assert_eq!(status, 200, "{login}");
    who.token = login["data"]["access_token"]
        .as_str()
        .expect("token")
        .to_string();
}

async fn usage(server: &TestServer, who: &Tenant) -> Value {
    let (status, body) = who.get(server, "/v1/usage").await;
    assert_eq!(status, 200, "{body}");
    body["data"].clone()
}

async fn system(
    server: &TestServer,
    method: Method,
    path: &str,
    body: Option<Value>,
) -> (u16, Value) {
    let mut request = server.internal(method, path);
    if let Some(body) = body {
        request = request.json(&body);
    }
    json_of(request.send().await.expect("request")).await
}

/// The ledger of the tenant's open period sums to what /v1/usage calls remaining, and no prefix of it
/// (in entry order) goes below zero.
async fn ledger_holds(server: &TestServer, who: &Tenant, remaining: i64) {
    let amounts: Vec<i64> = server
        .query_strings(&format!(
            "SELECT CAST(amount AS TEXT) FROM credit_ledger WHERE billing_period_id = \
             (SELECT MAX(id) FROM billing_periods WHERE tenant_id = {} AND status = 'open') ORDER BY id",
            who.tenant_id
        ))
        .await
        .iter()
        .map(|value| value.parse().expect("amount"))
        .collect();
    let mut balance = 0;
    for amount in &amounts {
        balance += amount;
        assert!(balance >= 0, "the balance went below zero: {amounts:?}");
    }
    assert_eq!(balance, remaining, "ledger {amounts:?}");
    let kept = server
        .query_strings(&format!(
            "SELECT CAST(balance AS TEXT) FROM billing_periods WHERE tenant_id = {} AND status = 'open'",
            who.tenant_id
        ))
        .await;
    assert_eq!(
        kept,
        vec![remaining.to_string()],
        "the period's running balance is the ledger's sum"
    );
}

#[tokio::test]
async fn a_verified_tenant_gets_a_trial_period_and_periods_open_and_close_by_the_rules() {
    let server = TestServer::start_with(
        ServerOptions::default().env("DOCSIEVE__BILLING__CYCLE_CRON", NEVER),
    )
    .await;
    let alice = tenant(&server, "alice-billing@example.com").await;
    let first = usage(&server, &alice).await;
    assert_eq!(first["plan"], "trial", "{first}");
    assert_eq!(first["credits"]["granted"], 1000, "{first}");
    assert_eq!(first["credits"]["remaining"], 1000, "{first}");
    assert_eq!(
        first["credits"]["expires_at"], first["period"]["end"],
        "{first}"
    );
    let path = |action: &str| format!("/system/billing/{action}/{}", alice.tenant_id);

    let (status, body) = system(&server, Method::POST, &path("open-period"), None).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (409, Some("period_already_open")),
        "{body}"
    );

    let (status, closed) = system(&server, Method::POST, &path("close-period"), None).await;
    assert_eq!(status, 200, "{closed}");
    assert_eq!(closed["data"]["status"], "closed");
    assert_eq!(closed["data"]["credits_expired"], 1000);
    let (status, body) = system(&server, Method::POST, &path("close-period"), None).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (409, Some("no_open_period")),
        "{body}"
    );
    let between = usage(&server, &alice).await;
    assert_eq!(between["period"], Value::Null);
    assert_eq!(between["credits"]["remaining"], 0);

    let (status, opened) = system(&server, Method::POST, &path("open-period"), None).await;
    assert_eq!(status, 200, "{opened}");
    assert_eq!(opened["data"]["status"], "open");
    assert_eq!(opened["data"]["credits_granted"], 1000);
    // One calendar month, UTC.
    let start =
        chrono::DateTime::parse_from_rfc3339(opened["data"]["starts_at"].as_str().expect("start"))
            .expect("time");
    let end =
        chrono::DateTime::parse_from_rfc3339(opened["data"]["ends_at"].as_str().expect("end"))
            .expect("time");
    assert_eq!(
        end,
        start
            .checked_add_months(chrono::Months::new(1))
            .expect("month")
    );

    for action in ["open-period", "close-period"] {
        let (status, body) = system(
            &server,
            Method::POST,
            &format!("/system/billing/{action}/999999"),
            None,
        )
        .await;
        assert_eq!(
            (status, body["code"].as_str()),
            (404, Some("tenant_not_found")),
            "{body}"
        );
        let (status, _) = system(
            &server,
            Method::POST,
            &format!("/system/billing/{action}/abc"),
            None,
        )
        .await;
        assert_eq!(status, 422);
        let response = server
            .client
            .post(server.url(&path(action)))
            .send()
            .await
            .expect("POST");
        assert_eq!(
            response.status(),
            401,
            "{action} without the internal token"
        );
    }
    let audited = count(
        &server,
        &format!(
            "SELECT COUNT(*) FROM audit_entries WHERE tenant_id = {} AND action IN ('billing_period_opened', 'billing_period_closed')",
            alice.tenant_id
        ),
    )
    .await;
    assert_eq!(audited, 2);
}

#[tokio::test]
async fn a_plan_change_applies_from_the_next_period_and_is_audited() {
    let server = TestServer::start_with(
        ServerOptions::default().env("DOCSIEVE__BILLING__CYCLE_CRON", NEVER),
    )
    .await;
    let mut alice = tenant(&server, "alice-plan@example.com").await;
    let plan_path = format!("/system/admin/tenants/{}/plan", alice.tenant_id);
    let (status, body) = system(
        &server,
        Method::PUT,
        &plan_path,
        Some(json!({"plan": "platinum"})),
    )
    .await;
    assert_eq!(status, 422, "{body}");
    assert!(
        body["detail"][0]["msg"]
            .as_str()
            .expect("msg")
            .contains("enterprise"),
        "{body}"
    );
    let (status, body) = system(&server, Method::PUT, &plan_path, Some(json!({}))).await;
    assert_eq!(status, 422, "{body}");
    let (status, body) = system(
        &server,
        Method::PUT,
        "/system/admin/tenants/999999/plan",
        Some(json!({"plan": "pro"})),
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (404, Some("tenant_not_found")),
        "{body}"
    );

    let (status, changed) = system(
        &server,
        Method::PUT,
        &plan_path,
        Some(json!({"plan": "pro"})),
    )
    .await;
    assert_eq!(status, 200, "{changed}");
    assert_eq!(changed["data"]["previous_plan"], "trial");
    let now = usage(&server, &alice).await;
    assert_eq!(
        now["plan"], "trial",
        "the period under way keeps its plan: {now}"
    );
    assert_eq!(now["next_plan"], "pro", "{now}");
    assert_eq!(changed["data"]["effective_from"], now["period"]["end"]);
    assert_eq!(
        count(&server, &format!("SELECT COUNT(*) FROM audit_entries WHERE tenant_id = {} AND action = 'plan_changed'", alice.tenant_id)).await,
        1
    );

    // The next period is on the new plan, with its credits.
    server.advance_clock(32 * 86_400).await;
    relogin(&server, &mut alice, "alice-plan@example.com").await;
    let (status, cycle) = system(&server, Method::POST, "/system/billing/cycle", None).await;
    assert_eq!(status, 200, "{cycle}");
    let next = usage(&server, &alice).await;
    assert_eq!(next["plan"], "pro", "{next}");
    assert_eq!(next["credits"]["granted"], 100_000, "{next}");
    assert!(next.get("next_plan").is_none(), "{next}");
}

#[tokio::test]
async fn the_cycle_closes_periods_past_their_end_once_and_opens_the_next() {
    let server = TestServer::start_with(
        ServerOptions::default().env("DOCSIEVE__BILLING__CYCLE_CRON", NEVER),
    )
    .await;
    let mut alice = tenant(&server, "alice-cycle@example.com").await;
    let bob = tenant(&server, "bob-cycle@example.com").await;
    let before = usage(&server, &alice).await;
    // Nothing is past its end yet.
    let (status, idle) = system(&server, Method::POST, "/system/billing/cycle", None).await;
    assert_eq!(status, 200, "{idle}");
    assert_eq!(idle["data"], json!({"closed": [], "opened": []}));

    server.advance_clock(31 * 86_400 + 3600).await;
    relogin(&server, &mut alice, "alice-cycle@example.com").await;
    let (status, first) = system(&server, Method::POST, "/system/billing/cycle", None).await;
    assert_eq!(status, 200, "{first}");
    let closed = first["data"]["closed"].as_array().expect("closed");
    let opened = first["data"]["opened"].as_array().expect("opened");
    assert_eq!((closed.len(), opened.len()), (2, 2), "{first}");
    let tenants: Vec<i64> = closed
        .iter()
        .map(|p| p["tenant_id"].as_i64().expect("id"))
        .collect();
    assert!(tenants.contains(&alice.tenant_id) && tenants.contains(&bob.tenant_id));
    assert!(
        closed.iter().all(|p| p["credits_expired"] == 1000),
        "{first}"
    );
    // The next period starts where the old one ended.
    let after = usage(&server, &alice).await;
    assert_eq!(after["period"]["start"], before["period"]["end"], "{after}");
    assert_ne!(after["period"]["id"], before["period"]["id"]);
    assert_eq!(after["credits"]["remaining"], 1000);

    let (status, second) = system(&server, Method::POST, "/system/billing/cycle", None).await;
    assert_eq!(status, 200, "{second}");
    assert_eq!(
        second["data"],
        json!({"closed": [], "opened": []}),
        "the second run changes nothing"
    );
    assert_eq!(usage(&server, &alice).await, after);
    assert_eq!(
        count(
            &server,
            &format!(
                "SELECT COUNT(*) FROM billing_periods WHERE tenant_id = {}",
                alice.tenant_id
            )
        )
        .await,
        2
    );
}

#[tokio::test]
async fn the_billing_clock_runs_the_cycle_when_its_cron_fires() {
    let server = TestServer::start().await;
    let mut alice = tenant(&server, "alice-clock@example.com").await;
    let before = usage(&server, &alice).await;
    // Past the period's end and past the 1st of a month: the clock's next look runs the cycle.
    server.advance_clock(40 * 86_400).await;
    relogin(&server, &mut alice, "alice-clock@example.com").await;
    let moved = server
        .eventually(Duration::from_secs(20), || async {
            usage(&server, &alice).await["period"]["id"] != before["period"]["id"]
        })
        .await;
    assert!(
        moved,
        "the billing clock did not run the cycle\n{}",
        server.stderr()
    );
    // The run is counted once its transaction has committed, a moment after the period moved.
    let counted = server
        .eventually(Duration::from_secs(10), || async {
            counter(
                &server,
                "docsieve_billing_cycle_runs_total",
                &["trigger=\"clock\""],
            )
            .await
                >= 1.0
        })
        .await;
    assert!(
        counted,
        "{}",
        server.get("/metrics").await.text().await.expect("metrics")
    );
    // Already done: the API's run finds nothing more.
    let (_, again) = system(&server, Method::POST, "/system/billing/cycle", None).await;
    assert_eq!(again["data"], json!({"closed": [], "opened": []}));
}

/// The value of a counter of `/metrics` whose labels include every one of `labels` (0 when absent).
async fn counter(server: &TestServer, name: &str, labels: &[&str]) -> f64 {
    let text = server.get("/metrics").await.text().await.expect("metrics");
    text.lines()
        .filter(|line| line.starts_with(&format!("{name}{{")))
        .filter(|line| labels.iter().all(|label| line.contains(label)))
        .filter_map(|line| line.rsplit(' ').next()?.parse::<f64>().ok())
        .sum()
}

/// The sum of a counter over both processes.
async fn across(servers: [&TestServer; 2], name: &str, labels: &[&str]) -> f64 {
    counter(servers[0], name, labels).await + counter(servers[1], name, labels).await
}

#[tokio::test]
async fn every_timed_duty_runs_once_per_firing_across_processes() {
    let first = TestServer::start().await;
    let second = TestServer::start_with(first.same_store()).await;
    let servers = [&first, &second];
    // Each process runs its start duties on its own; the first looks claim each duty's mark.
    let marked = first
        .eventually(Duration::from_secs(20), || async {
            first
                .query_strings("SELECT id FROM clock_ticks ORDER BY id")
                .await
                == [
                    "billing_cycle",
                    "connector_schedules",
                    "export_cleanup",
                    "orphan_sweep",
                    "retention",
                ]
        })
        .await;
    assert!(marked, "the duties' marks\n{}", first.stderr());
    // Each process cleans up at its start: one of them as today's firing (it won the claim), the other
    // as its own start run. Their later looks find the firing taken. A new deployment's first look at
    // the billing cycle records the latest firing without running it.
    let cleanup = |trigger: &'static str| ["duty=\"export_cleanup\"", trigger];
    let started = first
        .eventually(Duration::from_secs(20), || async {
            across(
                servers,
                "docsieve_scheduled_runs_total",
                &cleanup("trigger=\"start\""),
            )
            .await
                == 1.0
        })
        .await;
    assert!(
        started,
        "each process cleans up at its start\n{}",
        second.stderr()
    );
    tokio::time::sleep(Duration::from_secs(2)).await;
    for (trigger, runs) in [("trigger=\"firing\"", 1.0), ("trigger=\"start\"", 1.0)] {
        assert_eq!(
            across(servers, "docsieve_scheduled_runs_total", &cleanup(trigger)).await,
            runs,
            "{trigger}"
        );
    }
    let cycle = ["trigger=\"clock\""];
    assert_eq!(
        across(servers, "docsieve_billing_cycle_runs_total", &cycle).await,
        0.0
    );
    // Past the 1st of a month in both processes: one of them runs the cycle, once.
    for server in servers {
        server.advance_clock(40 * 86_400).await;
    }
    let ran = first
        .eventually(Duration::from_secs(20), || async {
            across(servers, "docsieve_billing_cycle_runs_total", &cycle).await >= 1.0
        })
        .await;
    assert!(ran, "the billing cycle did not run\n{}", first.stderr());
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(
        across(servers, "docsieve_billing_cycle_runs_total", &cycle).await,
        1.0
    );
}

#[tokio::test]
async fn credits_are_reserved_debited_per_page_and_run_out_with_402() {
    let server = TestServer::start_with(
        ServerOptions::default().env("DOCSIEVE__PLANS__TRIAL__CREDITS_PER_PERIOD", "4"),
    )
    .await;
    let alice = tenant(&server, "alice-credits@example.com").await;
    // A file that fails its job costs nothing.
    let broken = alice
        .queue(
            &server,
            vec![("bad.xml", crate::jobs::corpus("broken/bad_xml.xml"))],
        )
        .await;
    let views = alice
        .wait_for(&server, &broken, Duration::from_secs(60))
        .await;
    assert_eq!(views[0]["status"], "failed", "{views:?}");
    let after_failure = usage(&server, &alice).await;
    assert_eq!(after_failure["credits"]["used"], 0, "{after_failure}");
    assert_eq!(after_failure["credits"]["reserved"], 0, "{after_failure}");
    assert_eq!(after_failure["credits"]["remaining"], 4, "{after_failure}");

    let jobs = alice
        .queue(
            &server,
            vec![
                ("a.txt", b"birinci belge".to_vec()),
                ("b.txt", b"ikinci belge".to_vec()),
            ],
        )
        .await;
    alice
        .wait_for(&server, &jobs, Duration::from_secs(60))
        .await;
    // A preview costs its pages too.
    let response = server
        .bearer(Method::POST, "/v1/data-process/preview", &alice.token)
        .multipart(reqwest::multipart::Form::new().part(
            "file",
            reqwest::multipart::Part::bytes(b"ucuncu belge".to_vec()).file_name("c.txt"),
        ))
        .send()
        .await
        .expect("POST");
    assert_eq!(response.status(), 200);
    // A preview's pages are settled just after its answer.
    let settled = server
        .eventually(Duration::from_secs(10), || async {
            usage(&server, &alice).await["credits"]["used"] == 3
        })
        .await;
    assert!(settled, "{}", usage(&server, &alice).await);
    let spent = usage(&server, &alice).await;
    assert_eq!(spent["credits"]["used"], 3, "{spent}");
    assert_eq!(spent["credits"]["remaining"], 1, "{spent}");
    ledger_holds(&server, &alice, 1).await;

    // Two files need two credits: none is queued.
    let (status, body) = alice
        .upload(
            &server,
            "/v1/data-process/async",
            files(vec![
                ("d.txt", b"dorduncu".to_vec()),
                ("e.txt", b"besinci".to_vec()),
            ]),
        )
        .await;
    assert_eq!(status, 402, "{body}");
    assert_eq!(body["code"], "insufficient_credits");
    assert_eq!(
        (body["balance"].as_i64(), body["required"].as_i64()),
        (Some(1), Some(2)),
        "{body}"
    );
    let last = alice
        .queue(&server, vec![("d.txt", b"dorduncu".to_vec())])
        .await;
    alice
        .wait_for(&server, &last, Duration::from_secs(60))
        .await;
    for path in ["/v1/data-process/async", "/v1/data-process/preview"] {
        let field = if path.ends_with("async") {
            "files"
        } else {
            "file"
        };
        let form = reqwest::multipart::Form::new().part(
            field,
            reqwest::multipart::Part::bytes(b"altinci".to_vec()).file_name("f.txt"),
        );
        let (status, body) = alice.upload(&server, path, form).await;
        assert_eq!(status, 402, "{path}: {body}");
        assert_eq!(body["balance"], 0, "{body}");
    }
    let (_, documents) = alice.get(&server, "/v1/documents").await;
    assert_eq!(
        documents["data"]["total"], 4,
        "refused uploads leave no document"
    );
    let empty = usage(&server, &alice).await;
    assert_eq!(empty["credits"]["remaining"], 0, "{empty}");
    ledger_holds(&server, &alice, 0).await;
    let metrics = server.get("/metrics").await.text().await.expect("metrics");
    assert!(
        metrics.contains("docsieve_credits_debited_total 4"),
        "{metrics}"
    );
}

/// 50 one-file uploads at once against a balance of 10: exactly 10 are accepted, 40 get 402, every
/// accepted one finishes, and the balance never goes below zero.
#[tokio::test]
async fn fifty_concurrent_uploads_against_ten_credits_accept_exactly_ten() {
    let server = TestServer::start_with(
        ServerOptions::default().env("DOCSIEVE__PLANS__TRIAL__CREDITS_PER_PERIOD", "10"),
    )
    .await;
    let alice = tenant(&server, "alice-credit-race@example.com").await;
    let mut statuses = std::collections::BTreeMap::<u16, usize>::new();
    let mut jobs = Vec::new();
    for (status, body) in concurrent_uploads(&server, &alice, 50).await {
        match status {
            402 => assert_eq!(body["code"], "insufficient_credits", "{body}"),
            202 => jobs.extend(
                body["data"]["job_ids"]
                    .as_array()
                    .expect("ids")
                    .iter()
                    .map(|id| id.as_str().expect("id").to_string()),
            ),
            _ => panic!("unexpected {status}: {body}"),
        }
        *statuses.entry(status).or_default() += 1;
    }
    assert_eq!(statuses, [(202, 10), (402, 40)].into_iter().collect());
    let views = alice
        .wait_for(&server, &jobs, Duration::from_secs(120))
        .await;
    assert!(
        views.iter().all(|v| v["status"] == "completed"),
        "{views:?}"
    );
    let spent = usage(&server, &alice).await;
    assert_eq!(
        (
            spent["credits"]["used"].as_i64(),
            spent["credits"]["reserved"].as_i64(),
            spent["credits"]["remaining"].as_i64()
        ),
        (Some(10), Some(0), Some(0)),
        "{spent}"
    );
    ledger_holds(&server, &alice, 0).await;
}
