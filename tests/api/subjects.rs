//! Data-subject requests over HTTP: one person's TCKN, e-mail and phone planted across documents,
//! two datasets, an export, a connector auto-export and a fine-tune job; search finds them all and
//! nothing else, access returns a ZIP whose manifest verifies, erase removes every trace, rebuilds the
//! datasets, tells the webhooks and answers a receipt that verifies offline.

use std::time::Duration;

use serde_json::{json, Value};

use crate::data_protection::refused;
use crate::datasets::{api_key, wait_ready};
use crate::emulators;
use crate::fine_tune::{dataset_of, fine_tune, pro, processed, wait_status};
use crate::jobs::tenant;
use crate::provider::{server_options, Provider};
use crate::scopes::with_key as call;
use crate::storage::connector;
use crate::support::TestServer;
use crate::webhooks::{register, Receiver, SECRET};
use reqwest::Method;

/// The person: a TCKN, an e-mail and a phone, and a name nobody else has.
const TCKN: &str = "31415926562";
const EMAIL: &str = "zumrut.kervan@firma.com.tr";
const PHONE: &str = "0532 614 27 93";
/// Someone else, in the same documents.
const OTHER_TCKN: &str = "27182818254";

fn letter() -> Vec<u8> {
    format!(
        "Sayın Zümrüt Kervan,\nT.C. kimlik no: {TCKN}\nE-posta: {EMAIL}\nTelefon: {PHONE}\n\
         Başvurunuz, T.C. kimlik no {OTHER_TCKN} olan Ahmet Yalın tarafından incelendi.\n"
    )
    .into_bytes()
}

fn table() -> Vec<u8> {
    format!(
        "ad,telefon,tckn\nZümrüt Kervan,+90 532 614 2793,{TCKN}\nAhmet Yalın,0533 111 22 33,{OTHER_TCKN}\n"
    )
    .into_bytes()
}

fn unrelated() -> Vec<u8> {
    format!("Tutanak: T.C. kimlik no {OTHER_TCKN} olan Ahmet Yalın toplantıya katıldı.\n")
        .into_bytes()
}

fn identifiers() -> Value {
    json!({"identifiers": [
        {"type": "national_id_tr", "value": TCKN},
        {"value": "ZUMRUT.KERVAN@FIRMA.COM.TR"},
        {"type": "phone_tr", "value": "+90 (532) 614-27-93"},
    ]})
}

/// A data-subject request about the person (`search` or `erase`).
async fn subject(server: &TestServer, key: &str, what: &str) -> (u16, Value) {
    let path = format!("/v1/subjects/{what}");
    call(server, key, Method::POST, &path, Some(identifiers())).await
}

#[tokio::test]
async fn a_persons_data_is_found_given_and_erased_downstream_with_a_signed_receipt() {
    let Some(s3) = emulators::s3() else {
        return;
    };
    s3.create_bucket("kopya").await;
    let provider = Provider::start(Vec::new()).await;
    let server = TestServer::start_with(server_options(&provider)).await;
    let alice = tenant(&server, "alice-subjects@example.com").await;
    pro(&server, &alice).await;
    let key = api_key(&server, &alice).await;
    let bucket = connector(&server, &alice, s3.connector("kopya", "kopya", None)).await;
    let receiver = Receiver::start(Vec::new()).await;
    let (status, hook) = register(
        &server,
        &alice,
        json!({"url": receiver.url, "events": ["dataset.ready", "subject.erased"], "secret": SECRET,
            "auto_export": {"connector_id": bucket, "format": "jsonl"}}),
    )
    .await;
    assert_eq!(status, 201, "{hook}");

    // E-mails become keyed tokens kept in the re-identification vault, which the erasure must empty.
    let (status, policy) = crate::privacy::put_policy(
        &server,
        &alice.token,
        json!({"operators": {"email": "hash"}, "reidentification": true}),
    )
    .await;
    assert_eq!(status, 200, "{policy}");
    let views = processed(
        &server,
        &alice,
        true,
        vec![
            ("mektup.txt".to_string(), letter()),
            ("liste.csv".to_string(), table()),
            ("tutanak.txt".to_string(), unrelated()),
        ],
    )
    .await;
    let execution = |i: usize| views[i]["execution_id"].as_i64().expect("completed");
    let document = |i: usize| views[i]["document_id"].as_i64().expect("document");
    let first = dataset_of(
        &server,
        &alice,
        json!([execution(0), execution(2)]),
        "ready",
    )
    .await;
    let second = dataset_of(&server, &alice, json!([execution(1)]), "ready").await;
    let response = server
        .with_key(
            Method::GET,
            &format!("/v1/datasets/{first}/export?format=csv"),
            &key,
        )
        .send()
        .await
        .expect("export");
    assert_eq!(response.status(), 200);
    receiver.wait_for(2, Duration::from_secs(60)).await;
    let (status, created) = fine_tune(
        &server,
        &alice,
        json!({"dataset_id": first, "model": "gpt-4o-mini"}),
    )
    .await;
    assert_eq!(status, 202, "{created}");
    let tuned = created["data"]["job_id"].as_str().expect("id").to_string();
    let trained = wait_status(&server, &alice, &tuned, &["succeeded"]).await;

    // Search: both of the person's documents, every place their rows went, and nothing else.
    let (status, found) = subject(&server, &key, "search").await;
    assert_eq!(status, 200, "{found}");
    let found = &found["data"];
    let sorted = |mut ids: Vec<i64>| {
        ids.sort();
        json!(ids)
    };
    assert_eq!(
        found["documents"],
        sorted(vec![document(0), document(1)]),
        "{found}"
    );
    assert_eq!(
        found["executions"],
        sorted(vec![execution(0), execution(1)]),
        "{found}"
    );
    assert_eq!(found["identifiers_found"], 3, "{found}");
    for ty in ["national_id_tr", "email", "phone_tr"] {
        assert!(
            found["counts_by_type"][ty].as_i64().unwrap_or(0) >= 1,
            "{ty}: {found}"
        );
    }
    let datasets: Vec<&str> = found["datasets"]
        .as_array()
        .expect("list")
        .iter()
        .map(|d| d["id"].as_str().expect("id"))
        .collect();
    assert_eq!(datasets.len(), 2, "{found}");
    assert!(datasets.contains(&first.as_str()) && datasets.contains(&second.as_str()));
    assert!(
        found["exports"]
            .as_array()
            .expect("list")
            .iter()
            .any(|e| e["dataset_id"] == first.as_str() && e["format"] == "csv"),
        "{found}"
    );
    let copies = found["connector_copies"].as_array().expect("list");
    assert!(
        copies
            .iter()
            .any(|c| c["connector_id"] == bucket && c["key"] == format!("{first}.jsonl")),
        "{found}"
    );
    assert_eq!(found["fine_tune_jobs"][0]["id"], tuned.as_str(), "{found}");
    assert_eq!(
        found["fine_tune_jobs"][0]["fine_tuned_model"], trained["fine_tuned_model"],
        "{found}"
    );
    // Somebody who is nowhere, and bad requests.
    let (_, nobody) = call(
        &server,
        &key,
        Method::POST,
        "/v1/subjects/search",
        Some(json!({"identifiers": [{"type": "national_id_tr", "value": "10000000146"}]})),
    )
    .await;
    assert_eq!(nobody["data"]["documents"], json!([]), "{nobody}");
    let bad = [
        json!({"identifiers": []}),
        json!({"identifiers": [{"type": "shoe_size", "value": "42"}]}),
        json!({"identifiers": [{"value": ""}]}),
        json!({"who": 1}),
    ];
    refused(&server, &key, Method::POST, "/v1/subjects/search", bad).await;

    // Access: a ZIP Python reads, whose manifest verifies; the person's values in clear, nobody else's.
    let response = server
        .with_key(Method::POST, "/v1/subjects/access", &key)
        .json(&identifiers())
        .send()
        .await
        .expect("access");
    assert_eq!(response.status(), 200);
    let zip = response.bytes().await.expect("zip");
    let file = tempfile::NamedTempFile::new().expect("temp");
    std::fs::write(file.path(), &zip).expect("write");
    let output = std::process::Command::new("python3")
        .args([
            "-c",
            "import hashlib, json, sys, zipfile\n\
            z = zipfile.ZipFile(sys.argv[1])\n\
            m = json.loads(z.read('manifest.json'))\n\
            for f in m['files']:\n\
            \x20   data = z.read(f['path'])\n\
            \x20   assert hashlib.sha256(data).hexdigest() == f['sha256'], f['path']\n\
            \x20   assert len(data) == f['bytes'], f['path']\n\
            print(json.dumps({n: z.read(n).decode('utf-8') for n in z.namelist()}))",
        ])
        .arg(file.path())
        .output()
        .expect("python3");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let files: Value = serde_json::from_slice(&output.stdout).expect("files");
    let text = files[format!("documents/{}.txt", document(0))]
        .as_str()
        .expect("the letter");
    assert!(text.contains(TCKN) && text.contains(EMAIL), "{text}");
    assert!(
        !text.contains(OTHER_TCKN) && text.contains("[MASKED_NATIONAL_ID_TR]"),
        "{text}"
    );
    assert!(files["where.json"]
        .as_str()
        .expect("where")
        .contains(&tuned));

    // Erase: the documents go, the datasets are built again without them, a signed receipt.
    let (status, erased) = subject(&server, &key, "erase").await;
    assert_eq!(status, 200, "{erased}");
    let erased = &erased["data"];
    assert_eq!(erased["documents_erased"], 2, "{erased}");
    assert_eq!(erased["vault_entries_deleted"], 1, "{erased}");
    let (_, policy) = call(&server, &key, Method::GET, "/v1/settings/privacy", None).await;
    assert_eq!(policy["data"]["vault_entries"], 0, "{policy}");
    // The CSV export and both auto_export JSON Lines files.
    assert_eq!(erased["exports_deleted"], 3, "{erased}");
    let payload: Value =
        serde_json::from_str(erased["receipt"]["payload"].as_str().expect("payload"))
            .expect("json");
    assert_eq!(
        payload["fine_tune_jobs"][0]["id"],
        tuned.as_str(),
        "{payload}"
    );
    assert!(payload["models_note"]
        .as_str()
        .expect("note")
        .contains("cannot be untrained"));
    let (_, public) = call(
        &server,
        &key,
        Method::GET,
        "/v1/compliance/receipt-key",
        None,
    )
    .await;
    let public = public["data"]["public_key"]
        .as_str()
        .expect("key")
        .to_string();
    let receipt = tempfile::NamedTempFile::new().expect("temp");
    std::fs::write(receipt.path(), erased.to_string()).expect("write");
    let verify = |path: &std::path::Path, public: &str| {
        std::process::Command::new(crate::support::binary())
            .args(["receipts", "verify"])
            .arg(path)
            .args(["--public-key", public])
            .output()
            .expect("verify")
    };
    assert!(verify(receipt.path(), &public).status.success());
    let mut forged = erased["receipt"].clone();
    forged["payload"] = forged["payload"]
        .as_str()
        .expect("text")
        .replace("subject_erasure", "nothing")
        .into();
    std::fs::write(receipt.path(), forged.to_string()).expect("write");
    assert!(
        !verify(receipt.path(), &public).status.success(),
        "a forged receipt verified"
    );
    let python = format!(
        "import base64, json, sys\nfrom cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey\n\
         r = json.loads({:?})['receipt']\n\
         Ed25519PublicKey.from_public_bytes(bytes.fromhex('{public}')).verify(base64.b64decode(r['signature']), r['payload'].encode())\n",
        erased.to_string()
    );
    let output = std::process::Command::new("python3")
        .args(["-c", &python])
        .output()
        .expect("python3");
    if !String::from_utf8_lossy(&output.stderr).contains("No module named 'cryptography'") {
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }

    // The first dataset is its next version without the letter; the second had only the person.
    let rebuilt = wait_ready(&server, &key, &first).await;
    assert_eq!(rebuilt["version"], 2, "{rebuilt}");
    assert_eq!(rebuilt["status"], "ready", "{rebuilt}");
    let (_, emptied) = call(
        &server,
        &key,
        Method::GET,
        &format!("/v1/datasets/{second}"),
        None,
    )
    .await;
    assert_eq!(emptied["data"]["version"], 2, "{emptied}");
    assert_eq!(emptied["data"]["row_count"], 0, "{emptied}");
    for (i, gone) in [(0, true), (1, true), (2, false)] {
        let (status, _) = call(
            &server,
            &key,
            Method::GET,
            &format!("/v1/documents/{}", document(i)),
            None,
        )
        .await;
        assert_eq!(status == 404, gone, "document {i}");
    }
    let (_, again) = subject(&server, &key, "search").await;
    assert_eq!(again["data"]["documents"], json!([]), "{again}");
    let told = receiver.wait_for(4, Duration::from_secs(60)).await;
    assert!(
        told.iter().any(|r| String::from_utf8_lossy(&r.body)
            .contains(erased["receipt_id"].as_str().expect("id"))),
        "subject.erased not delivered"
    );

    // No trace anywhere: the data dir (database, blobs, outbox, the server's log) and PostgreSQL.
    assert_eq!(
        crate::sealed_values::in_clear(&server, &[TCKN, EMAIL, "614 27 93", "6142793"]),
        Vec::<String>::new()
    );
}

/// Copies a folder, files and all.
fn copy_folder(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).expect("folder");
    for entry in std::fs::read_dir(from).expect("read").flatten() {
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_folder(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

#[tokio::test]
async fn a_closed_tenant_is_purged_after_its_grace_and_its_backed_up_blobs_no_longer_open() {
    let server = TestServer::start_with(
        crate::support::ServerOptions::default()
            .env("DOCSIEVE__JOBS__RETENTION_INTERVAL_SECONDS", "1")
            .env("DOCSIEVE__JOBS__CLOSURE_GRACE_DAYS", "2"),
    )
    .await;
    let bob = tenant(&server, "bob-closes@example.com").await;
    let bobs_key = api_key(&server, &bob).await;
    let carol = tenant(&server, "carol-stays@example.com").await;
    let carols_key = api_key(&server, &carol).await;
    for who in [&bob, &carol] {
        let jobs = who.queue(&server, vec![("mektup.txt", letter())]).await;
        who.wait_for(&server, &jobs, Duration::from_secs(60)).await;
    }
    // A backup of Bob's blobs, taken before the closure.
    let folder = server
        .data_dir
        .path()
        .join(format!("blobs/tenants/{}", bob.tenant_id));
    let backup = tempfile::tempdir().expect("backup");
    copy_folder(&folder, backup.path());

    let close = |key: String, confirm: i64| {
        let server = &server;
        async move {
            call(
                server,
                &key,
                Method::DELETE,
                "/v1/tenant",
                Some(json!({"confirm": confirm})),
            )
            .await
        }
    };
    let (status, body) = close(bobs_key.clone(), carol.tenant_id).await;
    assert_eq!(status, 422, "{body}");
    let (status, closing) = close(bobs_key.clone(), bob.tenant_id).await;
    assert_eq!(status, 202, "{closing}");
    let (status, body) = call(&server, &bobs_key, Method::POST, "/v1/tenant/restore", None).await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = call(&server, &bobs_key, Method::POST, "/v1/tenant/restore", None).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (409, Some("no_closure_pending")),
        "{body}"
    );
    let (status, closing) = close(bobs_key.clone(), bob.tenant_id).await;
    assert_eq!(status, 202, "{closing}");
    let url = closing["data"]["receipt_url"]
        .as_str()
        .expect("url")
        .to_string();
    let (status, pending) = crate::support::json_of(server.get(&url).await).await;
    assert_eq!(
        (status, pending["data"]["status"].as_str()),
        (202, Some("pending")),
        "{pending}"
    );
    let wrong = url.replace("token=", "token=0");
    assert_eq!(server.get(&wrong).await.status(), 404);

    // Within the grace period nothing goes; after it, Bob's tenant does, and Carol's stays.
    server.advance_clock(86_400).await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    let (status, _) = call(&server, &bobs_key, Method::GET, "/v1/documents", None).await;
    assert_eq!(status, 200);
    server.advance_clock(2 * 86_400).await;
    let issued = server
        .eventually(Duration::from_secs(20), || async {
            server.get(&url).await.status() == 200
        })
        .await;
    assert!(issued, "the closure never ran\n{}", server.stderr());
    let (_, issued) = crate::support::json_of(server.get(&url).await).await;
    let receipt = &issued["data"]["receipt"];
    let payload: Value =
        serde_json::from_str(receipt["payload"].as_str().expect("payload")).expect("json");
    assert_eq!(payload["kind"], "tenant_closure");
    assert_eq!(payload["erased"]["documents"], 1, "{payload}");
    let (_, public) = call(
        &server,
        &carols_key,
        Method::GET,
        "/v1/compliance/receipt-key",
        None,
    )
    .await;
    let file = tempfile::NamedTempFile::new().expect("temp");
    std::fs::write(file.path(), receipt.to_string()).expect("write");
    let verified = std::process::Command::new(crate::support::binary())
        .args(["receipts", "verify"])
        .arg(file.path())
        .args([
            "--public-key",
            public["data"]["public_key"].as_str().expect("key"),
        ])
        .output()
        .expect("verify");
    assert!(
        verified.status.success(),
        "{}",
        String::from_utf8_lossy(&verified.stderr)
    );
    let (status, _) = call(&server, &bobs_key, Method::GET, "/v1/documents", None).await;
    assert_eq!(status, 401);
    fn files_below(folder: &std::path::Path) -> usize {
        std::fs::read_dir(folder)
            .into_iter()
            .flatten()
            .flatten()
            .map(|entry| {
                if entry.path().is_dir() {
                    files_below(&entry.path())
                } else {
                    1
                }
            })
            .sum()
    }
    assert_eq!(files_below(&folder), 0, "Bob's blobs are still there");
    let left = server
        .query_strings(&format!(
            "SELECT CAST(COUNT(*) AS TEXT) FROM documents WHERE tenant_id = {}",
            bob.tenant_id
        ))
        .await;
    assert_eq!(left, vec!["0"]);
    let (status, carols) = call(&server, &carols_key, Method::GET, "/v1/documents", None).await;
    assert_eq!(
        (status, carols["data"]["total"].as_i64()),
        (200, Some(1)),
        "{carols}"
    );

    // Bob's backed-up blobs, put back, open no more: his data key was destroyed first.
    copy_folder(backup.path(), &folder);
    let output = server.command(&["keys", "verify"]);
    let report: Value = serde_json::from_slice(&output.stdout).expect("report");
    let bobs = &report["tenants"][bob.tenant_id.to_string()];
    assert!(bobs["objects"].as_u64().expect("count") >= 2, "{report}");
    assert_eq!(bobs["opened"], 0, "{report}");
    assert!(
        bobs["failed"][0]
            .as_str()
            .expect("why")
            .contains("destroyed"),
        "{report}"
    );
    assert_eq!(
        report["tenants"][carol.tenant_id.to_string()]["failed"],
        json!([]),
        "{report}"
    );
}

/// A crash between a job's commit and the subject index's writer leaves the job's values queued: the
/// next start indexes them, and a search finds the person.
#[tokio::test]
async fn values_queued_for_the_index_when_the_process_died_are_found_after_a_restart() {
    let mut server = TestServer::start().await;
    let alice = tenant(&server, "alice-queued@example.com").await;
    let key = api_key(&server, &alice).await;
    let views = processed(
        &server,
        &alice,
        true,
        vec![("mektup.txt".to_string(), letter())],
    )
    .await;
    let document = views[0]["document_id"].as_i64().expect("completed");
    let indexed = "SELECT CAST(COUNT(*) AS TEXT) FROM subject_index";
    let count = |rows: Vec<String>| rows[0].parse::<usize>().expect("count");
    assert!(
        server
            .eventually(Duration::from_secs(10), || async {
                count(server.query_strings(indexed).await) > 0
            })
            .await,
        "the writer indexes a completed job's values: {}",
        server.stderr()
    );
    let rows = count(server.query_strings(indexed).await);
    assert_eq!(
        count(
            server
                .query_strings("SELECT CAST(COUNT(*) AS TEXT) FROM subject_queue")
                .await
        ),
        0
    );

    // The state a kill between the commit and the writer leaves: the values queued, none indexed.
    server.kill();
    let entries = if server.on_postgres() {
        "json_agg(json_build_array(pii_type, digest, occurrences, first_position))::text"
    } else {
        "json_group_array(json_array(pii_type, digest, occurrences, first_position))"
    };
    let queued = server
        .execute_sql(&format!(
            "INSERT INTO subject_queue (tenant_id, document_id, job_id, entries, created_at) \
             SELECT tenant_id, document_id, job_id, {entries}, MIN(created_at) FROM subject_index \
             GROUP BY tenant_id, document_id, job_id"
        ))
        .await;
    assert_eq!(queued, 1);
    assert_eq!(
        server.execute_sql("DELETE FROM subject_index").await as usize,
        rows
    );
    server.spawn();

    let (status, found) = subject(&server, &key, "search").await;
    assert_eq!(status, 200, "{found}");
    assert_eq!(found["data"]["documents"], json!([document]), "{found}");
    assert_eq!(count(server.query_strings(indexed).await), rows);
    assert_eq!(
        count(
            server
                .query_strings("SELECT CAST(COUNT(*) AS TEXT) FROM subject_queue")
                .await
        ),
        0
    );
}
