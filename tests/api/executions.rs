//! Executions over HTTP: the listings of documents and executions through their filters, and the
//! CSV export of results (rows or elements, masked on request).

use std::time::Duration;

use reqwest::multipart::{Form, Part};
use reqwest::Method;
use serde_json::{json, Value};

use crate::jobs::{corpus, exe_bytes, planted, tenant};
use crate::support::{json_of, TestServer};

#[tokio::test]
async fn csv_export_returns_rows_or_elements_and_masks_on_request() {
    let server = TestServer::start().await;
    let alice = tenant(&server, "alice-csv@example.com").await;
    let export = |name: &'static str, bytes: Vec<u8>, masked: bool| {
        let request = server
            .bearer(
                Method::POST,
                &format!("/v1/data-process/export/csv?masked={masked}"),
                &alice.token,
            )
            .multipart(Form::new().part("file", Part::bytes(bytes).file_name(name)));
        async move {
            let response = request.send().await.expect("POST");
            let status = response.status().as_u16();
            let headers = response.headers().clone();
            (status, headers, response.text().await.expect("body"))
        }
    };
    let raw = planted("tr/tr_musteri_listesi.csv");
    let (status, headers, text) =
        export("musteri.csv", corpus("tr/tr_musteri_listesi.csv"), true).await;
    assert_eq!(status, 200, "{text}");
    assert!(headers["content-type"]
        .to_str()
        .expect("ascii")
        .starts_with("text/csv"));
    assert_eq!(
        headers["content-disposition"].to_str().expect("ascii"),
        "attachment; filename=\"musteri.csv\""
    );
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let width = reader.headers().expect("header").len();
    let rows: Vec<csv::StringRecord> = reader.records().map(|r| r.expect("RFC 4180 row")).collect();
    assert!(rows.len() >= 10, "{text}");
    assert!(rows.iter().all(|row| row.len() == width));
    assert!(text.contains("[MASKED_"), "{text}");
    for value in &raw {
        assert!(
            !text.contains(value.as_str()),
            "raw {value} in a masked export"
        );
    }
    let (status, _, unmasked) =
        export("musteri.csv", corpus("tr/tr_musteri_listesi.csv"), false).await;
    assert_eq!(status, 200);
    assert!(raw.iter().any(|value| unmasked.contains(value.as_str())));
    // A file named after a person: a masked export's name is masked too, an unmasked one's is not.
    let named = "Huseyin_Altiparmak_musteri.csv";
    let disposition = |headers: &reqwest::header::HeaderMap| {
        headers["content-disposition"]
            .to_str()
            .expect("ascii")
            .to_string()
    };
    let (status, headers, _) = export(named, corpus("tr/tr_musteri_listesi.csv"), true).await;
    assert_eq!(status, 200);
    assert_eq!(
        disposition(&headers),
        "attachment; filename=\"MASKED_PERSON_NAME_musteri.csv\""
    );
    let (_, headers, _) = export(named, corpus("tr/tr_musteri_listesi.csv"), false).await;
    assert_eq!(
        disposition(&headers),
        format!("attachment; filename=\"{named}\"")
    );

    // Several sheets: a leading `sheet` column.
    let (status, _, sheets) =
        export("liste.xlsx", corpus("tr/tr_musteri_listesi.xlsx"), true).await;
    assert_eq!(status, 200, "{sheets}");
    let mut reader = csv::Reader::from_reader(sheets.as_bytes());
    let header = reader.headers().expect("header").clone();
    assert_eq!(header.get(0), Some("sheet"), "{sheets}");
    let rows: Vec<csv::StringRecord> = reader.records().map(|r| r.expect("row")).collect();
    let sheet_names: std::collections::BTreeSet<&str> = rows.iter().map(|r| &r[0]).collect();
    assert_eq!(
        sheet_names.into_iter().collect::<Vec<_>>(),
        ["Müşteriler", "Notlar"],
        "{sheets}"
    );

    // Not tabular: one row per element.
    let (status, _, elements) = export("ik.docx", corpus("tr/tr_ik_yazisi.docx"), true).await;
    assert_eq!(status, 200, "{elements}");
    let mut reader = csv::Reader::from_reader(elements.as_bytes());
    assert_eq!(
        reader.headers().expect("header").iter().collect::<Vec<_>>(),
        ["index", "page", "type", "text"]
    );
    assert!(reader.records().all(|r| r.is_ok()));
    let (status, _, body) = export("x.exe", exe_bytes(), false).await;
    assert_eq!(status, 415, "{body}");
}

/// Small distinct text documents.
#[tokio::test]
async fn documents_and_executions_are_listed_through_their_filters() {
    let server = TestServer::start().await;
    let alice = tenant(&server, "alice-filters@example.com").await;
    let bob = tenant(&server, "bob-filters@example.com").await;
    let text = b"Toplanti notlari: teslimat haftaya kaldi.\n".to_vec();
    let jobs = alice
        .queue(
            &server,
            vec![
                ("Rapor_2026.txt", text.clone()),
                ("Rapor-2026.csv", b"ad,not\nAyse,tamam\n".to_vec()),
                ("notlar.txt", text.clone()),
            ],
        )
        .await;
    let done = alice
        .wait_for(&server, &jobs, Duration::from_secs(60))
        .await;
    assert!(
        done.iter().all(|job| job["status"] == "completed"),
        "{done:?}"
    );
    let bobs = bob.queue(&server, vec![("Rapor_bob.txt", text)]).await;
    bob.wait_for(&server, &bobs, Duration::from_secs(60)).await;

    let names = |page: &Value| -> Vec<String> {
        let mut names: Vec<String> = page["data"]["items"]
            .as_array()
            .expect("items")
            .iter()
            .map(|d| d["filename"].as_str().expect("name").to_string())
            .collect();
        names.sort();
        names
    };
    // A name's part in any letter case; LIKE's wildcards in it are plain characters.
    let (status, page) = alice.get(&server, "/v1/documents?filename=RAPOR").await;
    assert_eq!(status, 200, "{page}");
    assert_eq!(names(&page), ["Rapor-2026.csv", "Rapor_2026.txt"]);
    assert_eq!(page["data"]["total"], 2);
    let (_, page) = alice.get(&server, "/v1/documents?filename=r_2026").await;
    assert_eq!(names(&page), ["Rapor_2026.txt"]);
    let (_, page) = alice.get(&server, "/v1/documents?filename=%25").await;
    assert_eq!(page["data"]["total"], 0, "{page}");
    let (_, page) = alice
        .get(&server, "/v1/documents?format=CSV&source=upload")
        .await;
    assert_eq!(names(&page), ["Rapor-2026.csv"]);
    let (_, page) = alice.get(&server, "/v1/documents?source=connector").await;
    assert_eq!(page["data"]["total"], 0);
    let (_, page) = alice
        .get(&server, "/v1/documents?filename=rapor&page=2&page_size=1")
        .await;
    assert_eq!(
        (
            page["data"]["total"].clone(),
            page["data"]["items"].as_array().map(Vec::len)
        ),
        (json!(2), Some(1))
    );

    let (_, page) = alice.get(&server, "/v1/documents?filename=notlar").await;
    let notes = page["data"]["items"][0]["document_id"]
        .as_i64()
        .expect("document id");
    let (status, body) = json_of(
        server
            .bearer(
                Method::POST,
                &format!("/v1/documents/{notes}/reprocess"),
                &alice.token,
            )
            .json(&json!({"masked": false}))
            .send()
            .await
            .expect("reprocess"),
    )
    .await;
    assert_eq!(status, 202, "{body}");
    let again = vec![body["data"]["job_id"].as_str().expect("job").to_string()];
    alice
        .wait_for(&server, &again, Duration::from_secs(60))
        .await;

    let total = |page: &Value| page["data"]["total"].as_i64().expect("total");
    let (_, page) = alice.get(&server, "/v1/executions?status=completed").await;
    assert_eq!(total(&page), 4, "{page}");
    let (_, page) = alice.get(&server, "/v1/executions?status=failed").await;
    assert_eq!(total(&page), 0);
    let (_, page) = alice.get(&server, "/v1/executions?masked=false").await;
    assert_eq!(total(&page), 1);
    assert_eq!(page["data"]["items"][0]["document_id"], notes);
    let (_, page) = alice
        .get(
            &server,
            &format!("/v1/executions?document_id={notes}&masked=true"),
        )
        .await;
    assert_eq!(total(&page), 1);
    let (_, page) = alice
        .get(&server, &format!("/v1/executions?document_id={notes}"))
        .await;
    assert_eq!(total(&page), 2);
    // Another tenant's document is simply not there.
    let (_, page) = bob
        .get(&server, &format!("/v1/executions?document_id={notes}"))
        .await;
    assert_eq!(total(&page), 0);

    // A bad filter is a 422 that names it.
    for (path, field) in [
        ("/v1/documents?source=email", "source"),
        ("/v1/documents?connector_id=x", "connector_id"),
        ("/v1/executions?status=done", "status"),
        ("/v1/executions?masked=maybe", "masked"),
        ("/v1/executions?document_id=0", "document_id"),
    ] {
        let (status, body) = alice.get(&server, path).await;
        assert_eq!(status, 422, "{path}: {body}");
        assert_eq!(body["detail"][0]["loc"], json!(["query", field]), "{body}");
    }
    let long = "a".repeat(201);
    let (status, body) = alice
        .get(&server, &format!("/v1/documents?filename={long}"))
        .await;
    assert_eq!(
        (status, body["detail"][0]["loc"].clone()),
        (422, json!(["query", "filename"]))
    );
}
