//! POST /v1/data-process/redact over HTTP: documents given back in their own format, masked. The
//! planted office documents (tests/documents/redaction, made by make_redaction.py) hold values in
//! every place the writers rewrite; none may be in any part of the answer, and the structure must be
//! the original's. What cannot be written safely is refused with its code.

use std::io::Read;

use docsieve_actors::redaction::unescape;
use reqwest::Method;
use serde_json::Value;

use crate::jobs::{tenant, Tenant};
use crate::process::upload;
use crate::support::{json_of, TestServer};

fn fixture(name: &str) -> (Vec<u8>, Vec<String>) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/documents/redaction");
    let bytes = std::fs::read(root.join(name)).expect("fixture");
    let sidecar: Value = serde_json::from_slice(
        &std::fs::read(root.join(format!("{name}.pii.json"))).expect("sidecar"),
    )
    .expect("json");
    let mut secrets: Vec<String> = sidecar["pii"]
        .as_array()
        .expect("pii")
        .iter()
        .map(|item| item["value"].as_str().expect("value").to_string())
        .collect();
    secrets.extend(
        sidecar["metadata"]
            .as_array()
            .expect("metadata")
            .iter()
            .map(|name| name.as_str().expect("name").to_string()),
    );
    (bytes, secrets)
}

/// `POST /v1/data-process/redact{query}`: status, headers, body.
async fn redact(
    server: &TestServer,
    who: &Tenant,
    query: &str,
    name: &str,
    bytes: Vec<u8>,
) -> (u16, reqwest::header::HeaderMap, Vec<u8>) {
    let response = server
        .bearer(
            Method::POST,
            &format!("/v1/data-process/redact{query}"),
            &who.token,
        )
        .multipart(upload(name, bytes))
        .send()
        .await
        .expect("POST");
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    (
        status,
        headers,
        response.bytes().await.expect("body").to_vec(),
    )
}

/// Every part of a ZIP package: its name and its text, references decoded.
fn parts(bytes: &[u8]) -> Vec<(String, String)> {
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).expect("a ZIP package");
    (0..archive.len())
        .map(|i| {
            let mut file = archive.by_index(i).expect("part");
            let mut raw = Vec::new();
            file.read_to_end(&mut raw).expect("read");
            (
                file.name().to_string(),
                unescape(&String::from_utf8_lossy(&raw)),
            )
        })
        .collect()
}

/// `body` (a redacted file) previewed by the reader: 200, nothing found, none of `values` in the
/// answer; the answer.
async fn read_back_clean(
    server: &TestServer,
    who: &Tenant,
    name: &str,
    body: Vec<u8>,
    values: &[String],
) -> Value {
    let (status, after) = crate::process::preview(server, &who.token, "", name, body).await;
    assert_eq!(status, 200, "{after}");
    assert_eq!(after["data"]["pii"]["pii_count"], 0, "{after}");
    let text = after.to_string();
    for value in values {
        assert!(
            !text.contains(value.as_str()),
            "{name}: a value of {} characters",
            value.len()
        );
    }
    after
}

/// The planted values a sidecar (`*.pii.json`) lists.
fn planted(sidecar: &[u8]) -> Vec<String> {
    let sidecar: Value = serde_json::from_slice(sidecar).expect("json");
    sidecar["pii"]
        .as_array()
        .expect("pii")
        .iter()
        .map(|item| item["value"].as_str().expect("value").to_string())
        .collect()
}

/// A preview's element kinds and tables: the structure a redaction must keep.
async fn structure(server: &TestServer, who: &Tenant, name: &str, bytes: Vec<u8>) -> Value {
    let (status, body) = crate::process::preview(server, &who.token, "", name, bytes).await;
    assert_eq!(status, 200, "{body}");
    let data = &body["data"];
    let kinds: Vec<&str> = data["elements"]
        .as_array()
        .expect("elements")
        .iter()
        .map(|e| e["type"].as_str().unwrap_or(""))
        .collect();
    let tables: Vec<usize> = data["tables"]
        .as_array()
        .expect("tables")
        .iter()
        .map(|t| t["rows"].as_array().map_or(0, Vec::len))
        .collect();
    serde_json::json!({ "kinds": kinds, "tables": tables, "pages": data["metadata"]["pages"] })
}

#[tokio::test]
async fn office_files_come_back_as_themselves_with_no_planted_value_in_any_part() {
    let server = TestServer::start().await;
    let who = tenant(&server, "redact-office@example.com").await;
    for (name, media) in [
        (
            "planted.docx",
            "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        ),
        (
            "planted.xlsx",
            "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        ),
        (
            "planted.pptx",
            "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        ),
        ("planted.odt", "application/vnd.oasis.opendocument.text"),
        (
            "planted.odp",
            "application/vnd.oasis.opendocument.presentation",
        ),
    ] {
        let (bytes, secrets) = fixture(name);
        let extension = name.rsplit('.').next().expect("extension");
        let upload_name = format!("Ayşe Yılmaz 10000000146.{extension}");
        let (status, headers, body) = redact(&server, &who, "", &upload_name, bytes.clone()).await;
        assert_eq!(status, 200, "{name}: {}", String::from_utf8_lossy(&body));
        assert_eq!(headers["content-type"], media, "{name}");
        let disposition = headers["content-disposition"].to_str().expect("ascii");
        assert!(
            disposition.starts_with("attachment; filename=")
                && disposition.ends_with(&format!(".{extension}\""))
                && !disposition.contains("10000000146")
                && !disposition.contains("lmaz"),
            "{name}: the file name is masked and keeps its extension: {disposition}"
        );
        let count: u64 = headers["x-docsieve-pii-count"]
            .to_str()
            .expect("count")
            .parse()
            .expect("number");
        assert!(count >= 5, "{name}: {count} findings");
        assert!(headers.contains_key("x-docsieve-policy-version"));
        // The same parts, in the same order; no planted value or author in any of them.
        let (before, after) = (parts(&bytes), parts(&body));
        assert_eq!(
            before.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(),
            after.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(),
            "{name}"
        );
        for (part, text) in &after {
            for secret in &secrets {
                assert!(
                    !text.contains(secret.as_str()),
                    "{name}: {part} still holds a planted value of {} characters",
                    secret.chars().count()
                );
            }
        }
        // Read back by docsieve's own reader: the same paragraphs, tables and pages, and no finding
        // but the engine's own placeholders.
        assert_eq!(
            structure(&server, &who, name, bytes).await,
            structure(&server, &who, name, body.clone()).await,
            "{name}: the structure is the original's"
        );
        let (status, preview) = crate::process::preview(&server, &who.token, "", name, body).await;
        assert_eq!(status, 200);
        assert_eq!(preview["data"]["pii"]["pii_count"], 0, "{name}: {preview}");
    }
}

#[tokio::test]
async fn text_and_csv_keep_their_lines_and_columns_and_a_narrowed_type_stays() {
    let server = TestServer::start().await;
    let who = tenant(&server, "redact-text@example.com").await;
    let csv = "ad_soyad;tckn;eposta\nAyşe Yılmaz;10000000146;ayse@ornek.com.tr\nMehmet Demir;17291716060;mehmet@ornek.com.tr\n";
    let (status, headers, body) = redact(&server, &who, "", "liste.csv", csv.into()).await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    assert_eq!(headers["content-type"], "text/csv; charset=utf-8");
    let out = String::from_utf8(body).expect("utf-8");
    assert_eq!(out.lines().count(), 3, "{out}");
    assert!(
        out.lines().all(|line| line.matches(';').count() == 2),
        "{out}"
    );
    for value in [
        "Ayşe Yılmaz",
        "10000000146",
        "ayse@ornek.com.tr",
        "17291716060",
    ] {
        assert!(!out.contains(value), "{out}");
    }
    assert!(out.starts_with("ad_soyad;tckn;eposta\n"), "{out}");
    // HTML keeps its tags and attributes; text, alt text and link targets are masked.
    let page = "<html><body><h1>Başvuru</h1><p>Başvuran: <b>Ayşe</b> Yılmaz, TC Kimlik No: 10000000146</p><a href=\"mailto:ayse@ornek.com.tr\" title=\"yazın\">e-posta</a></body></html>";
    let (status, headers, body) = redact(&server, &who, "", "basvuru.html", page.into()).await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    assert_eq!(headers["content-type"], "text/html; charset=utf-8");
    let out = String::from_utf8(body).expect("utf-8");
    for value in ["Yılmaz", "10000000146", "ayse@ornek.com.tr"] {
        assert!(!out.contains(value), "{out}");
    }
    assert!(
        out.starts_with("<html><body><h1>Başvuru</h1><p>Başvuran: <b>")
            && out.contains("<a href=\"mailto:")
            && out.ends_with("</a></body></html>"),
        "{out}"
    );
    // `types_off` narrows the policy for this request only.
    let text = "Müşteri e-postası: ayse@ornek.com.tr, TC Kimlik No 10000000146.\n";
    let (status, _, body) = redact(&server, &who, "?types_off=email", "not.txt", text.into()).await;
    assert_eq!(status, 200);
    let out = String::from_utf8(body).expect("utf-8");
    assert!(
        out.contains("ayse@ornek.com.tr") && !out.contains("10000000146"),
        "{out}"
    );
    let (status, _, body) = redact(&server, &who, "?policy=redact", "not.txt", text.into()).await;
    assert_eq!(status, 200);
    let out = String::from_utf8(body).expect("utf-8");
    assert!(
        !out.contains("ayse@ornek.com.tr") && !out.contains("[MASKED_"),
        "{out}"
    );
}

fn code(body: &Value) -> &str {
    body["detail"][0]["type"]
        .as_str()
        .or_else(|| body["code"].as_str())
        .unwrap_or("")
}

#[tokio::test]
async fn what_cannot_be_written_safely_is_refused_with_its_code() {
    let server = TestServer::start().await;
    let who = tenant(&server, "redact-refused@example.com").await;
    let json = |body: Vec<u8>| -> Value { serde_json::from_slice(&body).expect("a JSON error") };
    // A format without a writer: 415, naming the formats that have one.
    let letter = std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/documents/office/tr_personel_formu.rtf"),
    )
    .expect("document");
    let (status, _, body) = redact(&server, &who, "", "a.rtf", letter).await;
    let body = json(body);
    assert_eq!(status, 415, "{body}");
    assert_eq!(code(&body), "redaction_unsupported", "{body}");
    assert!(
        body["detail"].as_str().expect("detail").contains("docx"),
        "{body}"
    );
    // An embedded object it cannot read.
    let (docx, _) = fixture("planted.docx");
    let with_object = {
        let mut archive = zip::ZipArchive::new(std::io::Cursor::new(docx)).expect("zip");
        let mut out = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        for i in 0..archive.len() {
            out.raw_copy_file(archive.by_index_raw(i).expect("part"))
                .expect("copy");
        }
        out.start_file(
            "word/embeddings/oleObject1.bin",
            zip::write::SimpleFileOptions::default(),
        )
        .expect("start");
        std::io::Write::write_all(&mut out, b"\xd0\xcf\x11\xe0 not really").expect("write");
        out.finish().expect("zip").into_inner()
    };
    let (status, _, body) = redact(&server, &who, "", "object.docx", with_object).await;
    let body = json(body);
    assert_eq!(status, 415, "{body}");
    assert!(
        body["detail"]
            .as_str()
            .expect("detail")
            .contains("embeds an object"),
        "{body}"
    );
    // Bad requests.
    let (status, _, body) = redact(&server, &who, "", "empty.txt", Vec::new()).await;
    assert_eq!((status, code(&json(body))), (422, "empty_document"));
    let (status, _, body) =
        redact(&server, &who, "?types_off=nothing", "a.txt", b"x".to_vec()).await;
    let body = json(body);
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["detail"][0]["loc"][1], "types_off");
    let (status, body) = json_of(
        server
            .bearer(Method::POST, "/v1/data-process/redact", &who.token)
            .multipart(reqwest::multipart::Form::new().text("other", "x"))
            .send()
            .await
            .expect("POST"),
    )
    .await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["detail"][0]["loc"][1], "file");
    let (status, _) = json_of(
        reqwest::Client::new()
            .post(server.url("/v1/data-process/redact"))
            .multipart(upload("a.txt", b"x".to_vec()))
            .send()
            .await
            .expect("POST"),
    )
    .await;
    assert_eq!(status, 401);
    // Hostile packages: a broken container, markup nested past the bound; the server stays up.
    let (status, _, body) = redact(
        &server,
        &who,
        "",
        "broken.docx",
        b"PK\x03\x04broken".to_vec(),
    )
    .await;
    assert_eq!(status, 422, "{}", String::from_utf8_lossy(&body));
    let mut broken_item = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1".to_vec();
    broken_item.resize(2048, 0x5A);
    let (status, _, body) = redact(&server, &who, "", "broken.msg", broken_item).await;
    assert_eq!(status, 422, "{}", String::from_utf8_lossy(&body));
    let (status, body) = server.get_json("/system/health").await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test]
async fn a_masked_execution_gives_its_file_back_and_an_unmasked_one_says_why_not() {
    let server = TestServer::start().await;
    let who = tenant(&server, "redact-execution@example.com").await;
    let (docx, secrets) = fixture("planted.docx");
    let ids = who
        .queue(&server, vec![("Ayşe Yılmaz.docx", docx.clone())])
        .await;
    let views = who
        .wait_for(&server, &ids, std::time::Duration::from_secs(120))
        .await;
    assert_eq!(views[0]["status"], "completed", "{}", views[0]);
    let execution = views[0]["execution_id"].as_i64().expect("execution id");
    let response = server
        .bearer(
            Method::GET,
            &format!("/v1/executions/{execution}/file"),
            &who.token,
        )
        .header("Accept", "application/octet-stream")
        .send()
        .await
        .expect("GET");
    assert_eq!(response.status().as_u16(), 200);
    assert_eq!(
        response.headers()["content-type"],
        "application/octet-stream"
    );
    let disposition = response.headers()["content-disposition"]
        .to_str()
        .expect("ascii")
        .to_string();
    assert!(
        disposition.ends_with(".docx\"") && !disposition.contains("lmaz"),
        "{disposition}"
    );
    let body = response.bytes().await.expect("body").to_vec();
    for (part, text) in parts(&body) {
        for secret in &secrets {
            assert!(!text.contains(secret.as_str()), "{part}");
        }
    }
    // An unmasked run has no masked file; an unknown execution is 404.
    let (status, body) = who
        .upload(
            &server,
            "/v1/data-process/async?masked=false",
            crate::jobs::files(vec![("plain.txt", b"TC 10000000146".to_vec())]),
        )
        .await;
    assert_eq!(status, 202, "{body}");
    let ids: Vec<String> = vec![body["data"]["job_ids"][0].as_str().expect("id").to_string()];
    let views = who
        .wait_for(&server, &ids, std::time::Duration::from_secs(60))
        .await;
    let unmasked = views[0]["execution_id"].as_i64().expect("execution id");
    let (status, body) = who
        .get(&server, &format!("/v1/executions/{unmasked}/file"))
        .await;
    assert_eq!(status, 409, "{body}");
    assert_eq!(body["code"], "execution_not_masked");
    let (status, body) = who.get(&server, "/v1/executions/999999/file").await;
    assert_eq!(status, 404, "{body}");
}

#[tokio::test]
async fn a_pdf_is_redacted_for_real_even_under_a_naive_box() {
    let server = TestServer::start().await;
    let who = tenant(&server, "redact-pdf@example.com").await;
    let original = crate::jobs::corpus("tr/tr_fatura_yazisi.pdf");
    let sidecar: Value =
        serde_json::from_slice(&crate::jobs::corpus("tr/tr_fatura_yazisi.pdf.pii.json"))
            .expect("sidecar");
    let values: Vec<String> = sidecar["pii"]
        .as_array()
        .expect("pii")
        .iter()
        .map(|item| item["value"].as_str().expect("value").to_string())
        .collect();
    let (status, headers, body) = redact(&server, &who, "", "fatura.pdf", original.clone()).await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    assert_eq!(headers["content-type"], "application/pdf");
    assert!(body.starts_with(b"%PDF-"));
    // Read back by docsieve's reader: the pages are there, no value is.
    let (status, preview) =
        crate::process::preview(&server, &who.token, "", "out.pdf", body.clone()).await;
    assert_eq!(status, 200, "{preview}");
    let text = preview["data"]["text"].as_str().expect("text");
    for value in &values {
        assert!(
            !text.contains(value.as_str()),
            "a value of {} characters",
            value.len()
        );
    }
    assert!(!text.trim().is_empty(), "the rest of the text layer stays");
    // No value in the file's bytes either (compressed streams are checked by the engine's tests).
    let raw = String::from_utf8_lossy(&body);
    for value in values.iter().filter(|v| v.len() >= 6) {
        assert!(!raw.contains(value.as_str()));
    }
}

#[tokio::test]
async fn a_scanned_image_comes_back_painted_over_where_its_values_were() {
    let server = TestServer::start().await;
    let who = tenant(&server, "redact-image@example.com").await;
    let original = crate::jobs::corpus("tr/tr_kimlik_notu.png");
    let (status, headers, body) = redact(&server, &who, "", "kimlik.png", original.clone()).await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    assert_eq!(headers["content-type"], "image/png");
    assert!(body.starts_with(b"\x89PNG"));
    // Read back (OCR): what the original's reading found is not found again.
    let (_, before) = crate::process::preview(&server, &who.token, "", "a.png", original).await;
    let (status, after) = crate::process::preview(&server, &who.token, "", "b.png", body).await;
    assert_eq!(status, 200, "{after}");
    assert!(
        before["data"]["pii"]["pii_count"].as_u64().unwrap_or(0) > 0,
        "{before}"
    );
    assert_eq!(after["data"]["pii"]["pii_count"], 0, "{after}");
}

#[tokio::test]
async fn a_scanned_pdf_comes_back_with_its_values_burned_into_the_page() {
    let server = TestServer::start().await;
    let who = tenant(&server, "redact-scan@example.com").await;
    let original = std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/documents/scanned_ccitt_tr.pdf"),
    )
    .expect("document");
    let (status, headers, body) = redact(&server, &who, "", "tarama.pdf", original.clone()).await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    assert_eq!(headers["content-type"], "application/pdf");
    let notes = headers["x-docsieve-redaction-notes"]
        .to_str()
        .expect("notes");
    assert!(notes.contains("burned into the page"), "{notes}");
    let (_, before) = crate::process::preview(&server, &who.token, "", "a.pdf", original).await;
    let (status, after) = crate::process::preview(&server, &who.token, "", "b.pdf", body).await;
    assert_eq!(status, 200, "{after}");
    assert!(
        before["data"]["pii"]["pii_count"].as_u64().unwrap_or(0) > 0,
        "{before}"
    );
    assert_eq!(after["data"]["pii"]["pii_count"], 0, "{after}");
    assert!(
        after["data"]["text"]
            .as_str()
            .expect("text")
            .contains("Kimlik"),
        "the words around the values are still read: {after}"
    );
}

#[tokio::test]
async fn an_e_invoice_comes_back_as_the_same_xml_without_its_values() {
    let server = TestServer::start().await;
    let who = tenant(&server, "redact-xml@example.com").await;
    let original = crate::jobs::corpus("tr/tr_efatura.xml");
    let sidecar: Value =
        serde_json::from_slice(&crate::jobs::corpus("tr/tr_efatura.xml.pii.json")).expect("json");
    let (status, headers, body) = redact(&server, &who, "", "fatura.xml", original.clone()).await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    assert_eq!(headers["content-type"], "application/xml; charset=utf-8");
    let out = String::from_utf8(body.clone()).expect("UTF-8");
    for item in sidecar["pii"].as_array().expect("pii") {
        let value = item["value"].as_str().expect("value");
        assert!(
            !out.contains(value),
            "a value of {} characters",
            value.len()
        );
    }
    // Every tag of the original is there, in order: only texts changed.
    let tags = |text: &str| -> Vec<String> {
        text.split('<')
            .skip(1)
            .map(|rest| {
                rest.split(['>', ' '])
                    .next()
                    .unwrap_or_default()
                    .to_string()
            })
            .collect()
    };
    assert_eq!(tags(&out), tags(&String::from_utf8_lossy(&original)));
    read_back_clean(&server, &who, "b.xml", body, &[]).await;
}

#[tokio::test]
async fn a_message_comes_back_as_a_message_with_its_parts_and_attachment_masked() {
    let server = TestServer::start().await;
    let who = tenant(&server, "redact-mail@example.com").await;
    let original = crate::jobs::corpus("tr/tr_eposta.eml");
    let values = planted(&crate::jobs::corpus("tr/tr_eposta.eml.pii.json"));
    let (status, headers, body) = redact(&server, &who, "", "posta.eml", original.clone()).await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    assert_eq!(headers["content-type"], "message/rfc822");
    let raw = String::from_utf8_lossy(&body).into_owned();
    assert!(raw.contains("multipart/mixed") && raw.contains("multipart/alternative"));
    // Read back by the reader: the body, the headers and the attached letter, without a value.
    let after = read_back_clean(&server, &who, "b.eml", body, &values).await;
    let attachments = after["data"]["attachments"]
        .as_array()
        .expect("attachments");
    assert!(
        !attachments.is_empty() && attachments.iter().all(|a| a["error"].is_null()),
        "{after}"
    );
}

#[tokio::test]
async fn an_outlook_item_comes_back_as_e_mail_with_its_embedded_message() {
    let server = TestServer::start().await;
    let who = tenant(&server, "redact-outlook@example.com").await;
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/documents");
    // The planted item (office/) and one Outlook wrote with a message inside it (msoffice/).
    for (name, values) in [
        (
            "office/tr_odeme_talimati.msg",
            planted(
                &std::fs::read(root.join("office/tr_odeme_talimati.msg.pii.json"))
                    .expect("sidecar"),
            ),
        ),
        ("msoffice/msg_parser_outer.msg", Vec::new()),
    ] {
        let original = std::fs::read(root.join(name)).expect("item");
        let (status, headers, body) = redact(&server, &who, "", "talimat.msg", original).await;
        assert_eq!(status, 200, "{name}: {}", String::from_utf8_lossy(&body));
        assert_eq!(headers["content-type"], "message/rfc822", "{name}");
        let disposition = headers["content-disposition"].to_str().expect("ascii");
        assert!(disposition.contains(".eml\""), "{disposition}");
        let notes = headers["x-docsieve-redaction-notes"]
            .to_str()
            .expect("ascii");
        assert!(notes.contains("answered as e-mail"), "{notes}");
        let after = read_back_clean(&server, &who, "b.eml", body, &values).await;
        assert_eq!(after["data"]["metadata"]["format"], "eml", "{after}");
        if name.contains("outer") {
            // The embedded message is an attachment of its own, read as e-mail.
            let attachments = after["data"]["attachments"].as_array().expect("list");
            assert_eq!(attachments.len(), 1, "{after}");
            assert!(attachments[0]["error"].is_null(), "{after}");
        }
    }
}

#[tokio::test]
async fn legacy_word_and_powerpoint_files_come_back_as_themselves() {
    let server = TestServer::start().await;
    let who = tenant(&server, "redact-legacy@example.com").await;
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/documents/office");
    for (name, media) in [
        ("tr_personel_formu.doc", "application/msword"),
        ("tr_musteri_sunumu.ppt", "application/vnd.ms-powerpoint"),
    ] {
        let original = std::fs::read(root.join(name)).expect("document");
        let values =
            planted(&std::fs::read(root.join(format!("{name}.pii.json"))).expect("sidecar"));
        let before = structure(&server, &who, name, original.clone()).await;
        let (status, headers, body) = redact(&server, &who, "", name, original).await;
        assert_eq!(status, 200, "{name}: {}", String::from_utf8_lossy(&body));
        assert_eq!(headers["content-type"], media, "{name}");
        let extension = name.rsplit('.').next().expect("extension");
        let disposition = headers["content-disposition"].to_str().expect("ascii");
        assert!(
            disposition.contains(&format!(".{extension}\"")),
            "{disposition}"
        );
        let notes = headers["x-docsieve-redaction-notes"]
            .to_str()
            .expect("ascii");
        assert!(notes.contains("document properties"), "{notes}");
        // Read back: the same structure, nothing found, no planted value.
        assert_eq!(
            structure(&server, &who, name, body.clone()).await,
            before,
            "{name}"
        );
        read_back_clean(&server, &who, name, body, &values).await;
    }
}
