//! The tenant data export over HTTP: a tenant with 200 MB of originals is exported as one ZIP that
//! Python's `zipfile` opens, holding every listed file and matching its manifest's hashes, with no
//! secret in it; the server's memory stays flat while it streams (peak RSS printed).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use reqwest::Method;
use serde_json::{json, Value};

use crate::compliance::{created as post_created, s3_connector};
use crate::datasets::{api_key, post, processed, wait_ready};
use crate::jobs::{files, tenant};
use crate::support::{json_of, ServerOptions, TestServer};

fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

/// Opens the ZIP with Python's zipfile: the names, and the files whose bytes or sha256 differ from
/// the manifest.
fn check_with_python(path: &std::path::Path) -> Value {
    let script = r#"
import hashlib, json, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
manifest = json.loads(z.read("manifest.json"))
listed = {f["path"]: f for f in manifest["files"]}
bad = []
for name in z.namelist():
    if name == "manifest.json":
        continue
    digest, size = hashlib.sha256(), 0
    with z.open(name) as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
            size += len(chunk)
    entry = listed.get(name)
    if entry is None or entry["sha256"] != digest.hexdigest() or entry["bytes"] != size:
        bad.append(name)
secrets = [n for n in ("account.json", "api_keys.json", "connectors.json", "webhooks.json")
           if any(s in z.read(n).decode() for s in ("password_hash", "key_hash", "secret_encrypted"))]
print(json.dumps({"names": z.namelist(), "bad": bad, "unlisted": sorted(set(listed) - set(z.namelist())),
                  "tenant_id": manifest["tenant_id"], "secrets": secrets}))
"#;
    let output = std::process::Command::new("python3")
        .args(["-c", script])
        .arg(path)
        .output()
        .expect("python3");
    assert!(
        output.status.success(),
        "zipfile: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("json")
}

/// `len` bytes of pseudo-random lowercase text (it compresses to about 60 %, as real text would not
/// compress to nothing).
fn random_text(len: usize, seed: u64) -> Vec<u8> {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|i| {
            if i % 80 == 79 {
                return b'\n';
            }
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            b"abcdefghijklmnopqrstuvwxyz      "[(state % 32) as usize]
        })
        .collect()
}

#[tokio::test]
async fn a_tenant_is_exported_whole_as_a_zip_its_manifest_vouches_for() {
    // Documents over 1 MB fail their job at once (limit_exceeded): their originals stay, unprocessed.
    let server = TestServer::start_with(
        ServerOptions::default().env("DOCSIEVE__EXTRACTION__LIMITS__MAX_BYTES", "1000000"),
    )
    .await;
    let alice = tenant(&server, "alice-export@example.com").await;
    let executions = processed(&server, &alice).await;
    let (status, created) = post(
        &server,
        &alice,
        json!({"name": "ihrac", "execution_ids": executions}),
    )
    .await;
    assert_eq!(status, 202, "{created}");
    let dataset_id = created["data"]["id"].as_str().expect("id").to_string();
    let key = api_key(&server, &alice).await;
    wait_ready(&server, &key, &dataset_id).await;
    post_created(
        &server,
        &alice,
        "/v1/webhooks",
        json!({"url": "https://hooks.example.com/in", "events": ["job.completed"],
            "secret": "whsec-export-secret-0123456789"}),
    )
    .await;
    post_created(
        &server,
        &alice,
        "/v1/connectors",
        s3_connector("export-s3-secret"),
    )
    .await;
    // 200 MB of originals, in four uploads.
    let mut jobs = Vec::new();
    for n in 0..4u8 {
        let big = random_text(50 * 1024 * 1024, u64::from(n) + 1);
        let (status, body) = alice
            .upload(
                &server,
                "/v1/data-process/async",
                files(vec![(&format!("big{n}.txt"), big)]),
            )
            .await;
        assert_eq!(status, 202, "{body}");
        jobs.push(
            body["data"]["job_ids"][0]
                .as_str()
                .expect("job")
                .to_string(),
        );
    }
    alice
        .wait_for(&server, &jobs, Duration::from_secs(120))
        .await;

    let pid = server.pid();
    let before = rss_kib(pid);
    let stop = Arc::new(AtomicBool::new(false));
    let sampler = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let mut peak = 0;
            while !stop.load(Ordering::Relaxed) {
                peak = peak.max(rss_kib(pid));
                std::thread::sleep(Duration::from_millis(20));
            }
            peak
        })
    };
    let path = format!("/system/admin/tenants/{}/data-export", alice.tenant_id);
    let mut response = server
        .internal(Method::GET, &path)
        .send()
        .await
        .expect("GET");
    assert_eq!(response.status(), 200, "{}", server.stderr());
    assert_eq!(response.headers()["content-type"], "application/zip");
    let zip_file = tempfile::NamedTempFile::new().expect("temp");
    {
        use std::io::Write;
        let mut out = std::fs::File::create(zip_file.path()).expect("file");
        while let Some(chunk) = response.chunk().await.expect("chunk") {
            out.write_all(&chunk).expect("write");
        }
    }
    stop.store(true, Ordering::Relaxed);
    let peak = sampler.join().expect("sampler");
    println!(
        "tenant export: {} MB ZIP; server RSS {} MB before, peak {} MB while exporting",
        std::fs::metadata(zip_file.path()).expect("size").len() / 1_000_000,
        before / 1024,
        peak / 1024
    );
    assert!(
        peak.saturating_sub(before) < 150 * 1024,
        "the export grew the server by {} MB: memory follows the tenant's size",
        peak.saturating_sub(before) / 1024
    );

    let checked = check_with_python(zip_file.path());
    assert_eq!(checked["bad"], json!([]), "{checked}");
    assert_eq!(checked["unlisted"], json!([]), "{checked}");
    assert_eq!(checked["secrets"], json!([]), "{checked}");
    assert_eq!(checked["tenant_id"], alice.tenant_id);
    let names: Vec<&str> = checked["names"]
        .as_array()
        .expect("names")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for expected in [
        "manifest.json",
        "account.json",
        "api_keys.json",
        "webhooks.json",
        "deliveries.jsonl",
        "connectors.json",
        "privacy.json",
        "billing.json",
        "audit.jsonl",
    ] {
        assert!(names.contains(&expected), "{expected} missing: {names:?}");
    }
    assert!(names.contains(&format!("datasets/{dataset_id}.jsonl").as_str()));
    for execution in &executions {
        assert!(names.contains(&format!("executions/{execution}.json").as_str()));
    }
    let originals = names.iter().filter(|n| n.contains("/original.")).count();
    assert_eq!(
        originals, 6,
        "two processed documents and four large ones: {names:?}"
    );
    assert_eq!(
        names
            .iter()
            .filter(|n| n.ends_with("/metadata.json"))
            .count(),
        6
    );

    let audited = server
        .query_strings("SELECT action FROM audit_entries WHERE action = 'tenant_data_export'")
        .await;
    assert_eq!(audited.len(), 1);

    // Unknown tenants, bad ids and callers without the internal token.
    let (status, body) = json_of(
        server
            .internal(Method::GET, "/system/admin/tenants/999999/data-export")
            .send()
            .await
            .expect("GET"),
    )
    .await;
    assert_eq!(status, 404, "{body}");
    assert_eq!(body["code"], "tenant_not_found");
    let (status, _) = json_of(
        server
            .internal(Method::GET, "/system/admin/tenants/abc/data-export")
            .send()
            .await
            .expect("GET"),
    )
    .await;
    assert_eq!(status, 422);
    assert_eq!(server.get(&path).await.status(), 401);
}
