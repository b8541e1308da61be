//! Nothing personal outside the seal (issue 84): what a run reads of its document beyond counts (an
//! e-mail's headers, extracted fields, the file name) is kept sealed under the tenant's data key,
//! answered opened to the tenant, gone with the result when retention destroys it; and what erasure
//! deletes leaves no readable bytes in the database files, the write-ahead log included.

use std::time::Duration;

use reqwest::multipart::{Form, Part};
use reqwest::Method;
use serde_json::{json, Value};

use crate::data_protection::files_with;
use crate::datasets::api_key;
use crate::fine_tune::{dataset_of, processed};
use crate::jobs::{tenant, Tenant};
use crate::scopes::with_key as call;
use crate::support::{json_of, ServerOptions, TestServer};

/// The planted values: the sender's name and address, and a TCKN in the subject line.
const SURNAME: &str = "Karaosmanoglu";
const ADDRESS: &str = "zeynep.karaosmanoglu@ornek.com.tr";
const TCKN: &str = "10000000146";

fn mail() -> Vec<u8> {
    format!(
        "From: Zeynep {SURNAME} <{ADDRESS}>\r\nTo: kvkk@firma.com.tr\r\n\
         Subject: KVKK talebi {TCKN}\r\nDate: Mon, 7 Dec 2026 09:00:00 +0300\r\n\
         Message-ID: <kvkk-1@ornek.com.tr>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n\
         Merhaba, kayitlarim hakkinda bilgi rica ederim.\r\n"
    )
    .into_bytes()
}

/// Queues `bytes` as `name`, unmasked, and answers the completed job's view.
async fn unmasked(server: &TestServer, who: &Tenant, name: &str, bytes: Vec<u8>) -> Value {
    let view = processed(server, who, false, vec![(name.to_string(), bytes)]).await[0].clone();
    assert_eq!(view["status"], "completed", "{view}");
    view
}

/// Results and originals kept one day, then a day and an hour later: waits until `execution`'s result
/// is destroyed.
async fn kept_one_day(server: &TestServer, key: &str, execution: i64) {
    let (status, body) = call(
        server,
        key,
        Method::PUT,
        "/v1/compliance/retention",
        Some(json!({"originals_retention_days": 1, "results_retention_days": 1})),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    server.advance_clock(25 * 3600).await;
    let destroyed = server
        .eventually(Duration::from_secs(30), || async {
            execution_view(server, key, execution).await["result_destroyed_at"].is_string()
        })
        .await;
    assert!(
        destroyed,
        "the result was not destroyed\n{}",
        server.stderr()
    );
}

/// The executions of `views` (completed jobs).
fn executions_of(views: &[Value]) -> Vec<i64> {
    views
        .iter()
        .map(|view| view["execution_id"].as_i64().expect("completed"))
        .collect()
}

/// Where a needle is found in clear: files of the data folder (database, WAL and journal included)
/// and, on PostgreSQL, any live column of any table (pg_dump).
pub(crate) fn in_clear(server: &TestServer, needles: &[&str]) -> Vec<String> {
    let mut found = files_with(server.data_dir.path(), needles);
    if let Some(database) = &server.database {
        let dump = std::process::Command::new("pg_dump")
            .arg(&database.url)
            .output()
            .expect("pg_dump (postgresql-client)");
        assert!(dump.status.success(), "pg_dump failed");
        let text = String::from_utf8_lossy(&dump.stdout);
        for needle in needles {
            for line in text.lines().filter(|line| line.contains(needle)) {
                found.push(format!("PostgreSQL holds {needle}: {line}"));
            }
        }
    }
    found
}

async fn execution_view(server: &TestServer, key: &str, id: i64) -> Value {
    let (status, body) = call(
        server,
        key,
        Method::GET,
        &format!("/v1/executions/{id}"),
        None,
    )
    .await;
    assert_eq!(status, 200, "{body}");
    body["data"].clone()
}

#[tokio::test]
async fn an_unmasked_runs_fields_sit_sealed_and_go_with_its_result() {
    let server = TestServer::start_with(
        ServerOptions::default().env("DOCSIEVE__JOBS__RETENTION_INTERVAL_SECONDS", "1"),
    )
    .await;
    let who = tenant(&server, "sealed-fields@example.com").await;
    let key = api_key(&server, &who).await;
    let view = unmasked(&server, &who, "talep.eml", mail()).await;
    let id = view["execution_id"].as_i64().expect("execution");

    // The tenant reads them as they were (an unmasked run) ...
    let shown = execution_view(&server, &key, id).await;
    let fields = &shown["result_meta"]["fields"];
    assert!(
        fields.to_string().contains(TCKN) && fields.to_string().contains(SURNAME),
        "{shown}"
    );
    assert_eq!(shown["result_meta"]["filename"], "talep.eml", "{shown}");
    assert!(view["fields"].to_string().contains(TCKN), "{view}");
    // ... and no file of the data folder, nor any column, holds them in clear.
    assert_eq!(
        in_clear(&server, &[SURNAME, ADDRESS, TCKN]),
        Vec::<String>::new()
    );

    // Results kept one day: once destroyed, nothing derived from the result is answered.
    kept_one_day(&server, &key, id).await;
    let shown = execution_view(&server, &key, id).await;
    assert!(shown["result"].is_null(), "{shown}");
    for gone in ["fields", "filename"] {
        assert!(shown["result_meta"].get(gone).is_none(), "{gone}: {shown}");
    }
    assert!(
        shown["result_meta"]["pii_count"].as_u64().is_some(),
        "{shown}"
    );
    let stored = server
        .query_strings(&format!(
            "SELECT COALESCE(sealed_meta, 'none') FROM executions WHERE id = {id}"
        ))
        .await;
    assert_eq!(stored, vec!["none".to_string()]);
}

#[tokio::test]
async fn what_erasure_deletes_leaves_no_readable_bytes_in_the_database_files() {
    let server = TestServer::start().await;
    let who = tenant(&server, "sealed-erasure@example.com").await;
    let key = api_key(&server, &who).await;
    // A file name that names the person.
    let name = format!("Zeynep_{SURNAME}_basvuru.eml");
    unmasked(&server, &who, &name, mail()).await;
    unmasked(&server, &who, "rapor.txt", b"Aylik rapor.\n".to_vec()).await;
    // Sealed while it is kept: no file or column holds the name, which the tenant still reads and
    // finds by any part of it, in any letter case.
    assert_eq!(
        in_clear(&server, &[SURNAME, ADDRESS, TCKN, &name]),
        Vec::<String>::new()
    );
    let (status, found) = call(
        &server,
        &key,
        Method::GET,
        "/v1/documents?filename=KARAOSMAN",
        None,
    )
    .await;
    assert_eq!(status, 200, "{found}");
    assert_eq!(found["data"]["total"], 1, "{found}");
    assert_eq!(
        found["data"]["items"][0]["filename"],
        name.as_str(),
        "{found}"
    );
    let (_, all) = call(
        &server,
        &key,
        Method::GET,
        "/v1/documents?page_size=1",
        None,
    )
    .await;
    assert_eq!(all["data"]["total"], 2, "{all}");
    assert_eq!(all["data"]["items"][0]["filename"], "rapor.txt", "{all}");
    let (status, body) = call(
        &server,
        &key,
        Method::POST,
        "/v1/subjects/erase",
        Some(json!({"identifiers": [{"type": "national_id_tr", "value": TCKN}]})),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["documents_erased"], 1, "{body}");
    let (_, left) = call(
        &server,
        &key,
        Method::GET,
        "/v1/documents?filename=basvuru",
        None,
    )
    .await;
    assert_eq!(left["data"]["total"], 0, "{left}");
    // What was sealed is gone with its rows, and what erasure deleted left nothing readable: SQLite
    // zeroes the rows' bytes in their pages (secure_delete), checkpoints and truncates its log.
    assert_eq!(
        in_clear(&server, &[SURNAME, ADDRESS, TCKN, &name]),
        Vec::<String>::new()
    );
    let (status, _) = json_of(
        server
            .with_key(Method::GET, "/v1/documents", &key)
            .send()
            .await
            .expect("GET"),
    )
    .await;
    assert_eq!(status, 200);
}

/// Every string an export holds, in lower case: text as it is, ZIP members (XLSX, the HuggingFace
/// bundle's Arrow files) inflated, Parquet read back column by column.
fn export_text(format: &str, body: &[u8]) -> String {
    use std::io::Read;
    let text = match format {
        "xlsx" | "hf" => {
            let mut archive =
                zip::ZipArchive::new(std::io::Cursor::new(body.to_vec())).expect("a ZIP");
            let mut all = Vec::new();
            for index in 0..archive.len() {
                let mut member = archive.by_index(index).expect("member");
                member.read_to_end(&mut all).expect("inflate");
            }
            String::from_utf8_lossy(&all).into_owned()
        }
        "parquet" => {
            use arrow_array::Array;
            let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(
                bytes::Bytes::from(body.to_vec()),
            )
            .expect("parquet")
            .build()
            .expect("reader");
            let mut all = String::new();
            for batch in reader {
                let batch = batch.expect("batch");
                for column in batch.columns() {
                    if let Some(strings) =
                        column.as_any().downcast_ref::<arrow_array::StringArray>()
                    {
                        for index in 0..strings.len() {
                            all.push_str(strings.value(index));
                            all.push('\n');
                        }
                    }
                }
            }
            assert!(!all.is_empty(), "no strings read from the Parquet file");
            all
        }
        _ => String::from_utf8_lossy(body).into_owned(),
    };
    text.to_lowercase()
}

#[tokio::test]
async fn a_masked_dataset_of_files_named_after_people_names_none_of_them() {
    let server = TestServer::start().await;
    let who = tenant(&server, "named-files@example.com").await;
    let key = api_key(&server, &who).await;
    // File names as people write them (separators, letter case, order), each with what must not
    // survive; the contents name nobody.
    let files = [
        ("Huseyin_Altiparmak_basvuru.txt", "altiparmak"),
        ("zeynep-karaosmanoglu-cv.txt", "karaosmanoglu"),
        ("Özge Demirtaş özgeçmiş.txt", "demirtaş"),
        ("maas.bordrosu.mehmet.kocabiyik.txt", "kocabiyik"),
        ("cv_JOHN_WHITFIELD.txt", "whitfield"),
        ("kimlik_10000000146.txt", "10000000146"),
    ];
    let items: Vec<(String, Vec<u8>)> = files
        .iter()
        .map(|(name, _)| {
            let content = b"Basvuru formu ektedir. Tarih: 2026-12-07.\n".to_vec();
            (name.to_string(), content)
        })
        .collect();
    let executions = executions_of(&processed(&server, &who, true, items).await);
    let dataset = dataset_of(&server, &who, json!(executions), "ready").await;
    for format in ["jsonl", "csv", "parquet", "markdown", "xml", "xlsx", "hf"] {
        let (status, _, body) = crate::datasets::download(&server, &key, &dataset, format).await;
        assert_eq!(status, 200, "{format}");
        let text = export_text(format, &body);
        assert!(text.contains("[masked_person_name]"), "{format}: {text}");
        for (name, needle) in &files {
            assert!(!text.contains(needle), "{format} names {needle} ({name})");
        }
    }
    // The masked names are what the rows show, separators and extensions kept.
    let (status, _, body) = crate::datasets::download(&server, &key, &dataset, "jsonl").await;
    assert_eq!(status, 200);
    let names: Vec<String> = String::from_utf8_lossy(&body)
        .lines()
        .map(|line| {
            let row: Value = serde_json::from_str(line).expect("a row");
            row["filename"].as_str().expect("filename").to_string()
        })
        .collect();
    assert!(
        names.contains(&"[MASKED_PERSON_NAME]_basvuru.txt".to_string()),
        "{names:?}"
    );
    assert!(names.iter().all(|name| name.ends_with(".txt")), "{names:?}");
    // The tenant still reads its own documents' names, and each masked run's masked one.
    let shown = execution_view(&server, &key, executions[0]).await;
    assert_eq!(shown["result_meta"]["filename"], files[0].0, "{shown}");
    assert_eq!(
        shown["result_meta"]["masked_filename"], "[MASKED_PERSON_NAME]_basvuru.txt",
        "{shown}"
    );
}

#[tokio::test]
async fn values_kept_in_clear_before_sealing_are_sealed_at_the_next_start() {
    let mut server = TestServer::start().await;
    let who = tenant(&server, "sealed-later@example.com").await;
    let key = api_key(&server, &who).await;
    let view = unmasked(&server, &who, "talep.eml", mail()).await;
    let id = view["execution_id"].as_i64().expect("execution");
    let document = view["document_id"].as_i64().expect("document");
    // The rows as a server from before sealing wrote them.
    let name = format!("Zeynep_{SURNAME}.eml");
    let meta = json!({"pii_count": 2, "filename": name, "fields": {"email.subject": TCKN}});
    let quoted = |text: &str| text.replace('\'', "''");
    // A connector object's key, as a bucket path naming the person.
    let source_key = format!("arsiv/{SURNAME}/talep.eml");
    server
        .execute_sql(&format!(
            "UPDATE documents SET filename = '{}', source_key = '{}', source_digest = NULL \
             WHERE id = {document}",
            quoted(&name),
            quoted(&source_key)
        ))
        .await;
    server
        .execute_sql(&format!(
            "UPDATE executions SET result_meta = '{}', sealed_meta = NULL WHERE id = {id}",
            quoted(&meta.to_string())
        ))
        .await;
    server.terminate(Duration::from_secs(20));
    server.spawn();
    let shown = execution_view(&server, &key, id).await;
    assert_eq!(shown["result_meta"]["filename"], name.as_str(), "{shown}");
    assert_eq!(
        shown["result_meta"]["fields"]["email.subject"], TCKN,
        "{shown}"
    );
    let (_, listed) = call(&server, &key, Method::GET, "/v1/documents", None).await;
    assert_eq!(
        listed["data"]["items"][0]["filename"],
        name.as_str(),
        "{listed}"
    );
    let stored = server
        .query_strings(&format!(
            "SELECT result_meta FROM executions WHERE id = {id}"
        ))
        .await;
    assert!(!stored[0].contains("filename"), "{stored:?}");
    let (_, shown) = call(
        &server,
        &key,
        Method::GET,
        &format!("/v1/documents/{document}"),
        None,
    )
    .await;
    assert_eq!(shown["data"]["source_key"], source_key.as_str(), "{shown}");
    let digest = server
        .query_strings(&format!(
            "SELECT source_digest FROM documents WHERE id = {document}"
        ))
        .await;
    assert!(digest[0].starts_with("kd1:"), "{digest:?}");
    assert_eq!(in_clear(&server, &[SURNAME, TCKN]), Vec::<String>::new());
}

/// The Turkish corpus: one document of each format with planted values (its sidecar lists them).
const PLANTED: [&str; 10] = [
    "tr/tr_dilekce_cp1254.txt",
    "tr/tr_efatura.xml",
    "tr/tr_eposta.eml",
    "tr/tr_fatura_yazisi.pdf",
    "tr/tr_ik_yazisi.docx",
    "tr/tr_kimlik_notu.png",
    "tr/tr_kvkk_basvuru.html",
    "tr/tr_musteri_listesi.csv",
    "tr/tr_musteri_listesi.xlsx",
    "tr/tr_sunum.pptx",
];

#[tokio::test]
async fn every_format_with_planted_values_leaves_nothing_in_clear_through_its_whole_life() {
    use crate::jobs::{corpus, planted};
    let server = TestServer::start_with(
        ServerOptions::default()
            .env("DOCSIEVE__JOBS__RETENTION_INTERVAL_SECONDS", "1")
            .env("DOCSIEVE__JOBS__CLOSURE_GRACE_DAYS", "2"),
    )
    .await;
    let who = tenant(&server, "every-format@example.com").await;
    let key = api_key(&server, &who).await;
    // Each file named after a person too, once unmasked and once masked.
    let named: Vec<(String, Vec<u8>)> = PLANTED
        .iter()
        .map(|path| {
            let base = path.rsplit('/').next().expect("name");
            (format!("Zeynep_{SURNAME}_{base}"), corpus(path))
        })
        .collect();
    let mut needles: Vec<String> = PLANTED.iter().flat_map(|path| planted(path)).collect();
    needles.push(SURNAME.to_string());
    needles.sort();
    needles.dedup();
    let needles: Vec<&str> = needles.iter().map(String::as_str).collect();
    let mut executions = Vec::new();
    for masked in [false, true] {
        let views = processed(&server, &who, masked, named.clone()).await;
        assert!(
            views.iter().all(|view| view["status"] == "completed"),
            "{views:?}"
        );
        executions.extend(executions_of(&views));
    }
    // Previews, masked and not, keep nothing.
    for query in ["", "?masked=true"] {
        let (name, bytes) = &named[2];
        let form = Form::new().part("file", Part::bytes(bytes.clone()).file_name(name.clone()));
        let (status, body) = json_of(
            server
                .with_key(
                    Method::POST,
                    &format!("/v1/data-process/preview{query}"),
                    &key,
                )
                .multipart(form)
                .send()
                .await
                .expect("preview"),
        )
        .await;
        assert_eq!(status, 200, "{body}");
    }
    // A dataset of every run, in every export format.
    let dataset = dataset_of(&server, &who, json!(executions), "ready").await;
    for format in ["jsonl", "csv", "parquet", "markdown", "xml", "xlsx", "hf"] {
        let (status, _, _) = crate::datasets::download(&server, &key, &dataset, format).await;
        assert_eq!(status, 200, "{format}");
    }
    assert_eq!(
        in_clear(&server, &needles),
        Vec::<String>::new(),
        "after processing"
    );

    // An erasure of the e-mail's person.
    let (status, body) = call(
        &server,
        &key,
        Method::POST,
        "/v1/subjects/erase",
        Some(json!({"identifiers": [{"type": "national_id_tr", "value": "22036001868"}]})),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert!(
        body["data"]["documents_erased"].as_u64() >= Some(1),
        "{body}"
    );
    assert_eq!(
        in_clear(&server, &needles),
        Vec::<String>::new(),
        "after the erasure"
    );

    // A retention run: originals and results kept one day.
    kept_one_day(&server, &key, executions[0]).await;
    assert_eq!(
        in_clear(&server, &needles),
        Vec::<String>::new(),
        "after retention"
    );

    // The tenant's closure, after its grace period.
    let (status, closing) = call(
        &server,
        &key,
        Method::DELETE,
        "/v1/tenant",
        Some(json!({"confirm": who.tenant_id})),
    )
    .await;
    assert_eq!(status, 202, "{closing}");
    let url = closing["data"]["receipt_url"]
        .as_str()
        .expect("url")
        .to_string();
    server.advance_clock(3 * 86_400).await;
    let closed = server
        .eventually(Duration::from_secs(30), || async {
            server.get(&url).await.status() == 200
        })
        .await;
    assert!(closed, "the closure never ran\n{}", server.stderr());
    assert_eq!(
        in_clear(&server, &needles),
        Vec::<String>::new(),
        "after the closure"
    );
}
