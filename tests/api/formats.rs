//! Previews of the formats read by content: encodings and containers whatever their name, the Office
//! formats offices still send (legacy and password-protected ones included), and scanned PDF pages
//! drawn and read by OCR; each masked over HTTP.

use crate::jobs::corpus;
use crate::process::{masked_preview, preview};
use crate::support::TestServer;

fn compound(streams: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let streams: Vec<(&str, &[u8])> = streams.iter().map(|(n, b)| (*n, b.as_slice())).collect();
    docsieve_actors::extractor_pool::compound_file(&streams).expect("compound file")
}

/// Documents of the kinds the first reader got wrong (Extraction II): text in UTF-32 and BOM-less
/// UTF-16 BE, an e-mail whose plain part is undeclared windows-1254, right-to-left PDF text, and
/// containers told by their streams whatever their name.
#[tokio::test]
async fn encodings_containers_and_right_to_left_text_are_read_by_content() {
    let server = TestServer::start().await;
    let (login, _, _) = server
        .verified_account("alice-extraction@example.com", "password-1")
        .await;
    let token = login["access_token"].as_str().expect("token");
    let text = "Sayın Müşteri Ayşe Yılmaz, İzmir şubesi ödeme günü çarşamba";
    let utf32be: Vec<u8> = [0u8, 0, 0xFE, 0xFF]
        .into_iter()
        .chain(text.chars().flat_map(|c| (c as u32).to_be_bytes()))
        .collect();
    let utf16be: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
    for (name, bytes, encoding) in [
        ("utf32.txt", utf32be, "UTF-32BE"),
        ("utf16.txt", utf16be, "UTF-16BE"),
    ] {
        let body = masked_preview(&server, token, name, bytes).await;
        let data = &body["data"];
        assert_eq!(data["metadata"]["encoding"], encoding, "{body}");
        assert!(
            data["text"]
                .as_str()
                .expect("text")
                .contains("İzmir şubesi"),
            "{body}"
        );
    }

    // Arabic drawn glyph by glyph left to right comes back in logical order, as pdftotext reads it.
    let (status, body) = preview(
        &server,
        token,
        "",
        "rtl.pdf",
        corpus("pdf/right_to_left_01.pdf"),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let arabic = body["data"]["text"].as_str().expect("text");
    for word in ["تحسين", "البرمجة", "بلغة", "Python"] {
        assert!(arabic.contains(word), "{word} in {arabic}");
    }

    // A password-protected Word package named .docx, a Word 6.0/95 file, and an unknown compound
    // file.
    let (status, body) = preview(
        &server,
        token,
        "",
        "report.docx",
        corpus("docx/testWORD_protected_passtika.docx"),
    )
    .await;
    assert_eq!(
        (status, body["detail"][0]["type"].as_str()),
        (422, Some("encrypted_document")),
        "{body}"
    );
    // A Word 6.0/95 file (the file information block of an older layout) is a format older than
    // docsieve reads.
    let mut fib = vec![0xEC, 0xA5, 0x65, 0x00];
    fib.resize(512, 0);
    let (status, body) = preview(
        &server,
        token,
        "",
        "old.doc",
        compound(&[("WordDocument", fib), ("0Table", vec![0; 64])]),
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (415, Some("legacy_format")),
        "{body}"
    );
    assert!(
        body["detail"]
            .as_str()
            .expect("detail")
            .contains("Word 6.0/95"),
        "{body}"
    );
    let (status, body) = preview(
        &server,
        token,
        "",
        "x.bin",
        compound(&[("Other", vec![1; 8])]),
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (415, Some("unsupported_format")),
        "{body}"
    );
}

/// A test document of `tests/documents` (made by its script; see SOURCES.md there).
fn made_here(name: &str) -> Vec<u8> {
    std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/documents")
            .join(name),
    )
    .expect("test document")
}

/// The formats offices still send, made by tests/documents/make_office.py: each previewed masked
/// with its planted national id and IBAN gone (an Outlook item's attachment too); the
/// password-protected ones (by LibreOffice, and by Microsoft Office) answer `encrypted_document`.
#[tokio::test]
async fn office_formats_are_previewed_masked() {
    let server = TestServer::start().await;
    let (login, _, _) = server
        .verified_account("office@example.com", "password-1")
        .await;
    let token = login["access_token"].as_str().expect("token");
    for name in [
        "tr_personel_formu.doc",
        "tr_musteri_sunumu.ppt",
        "tr_personel_eposta.msg",
        "tr_odeme_talimati.msg",
        "tr_personel_formu.odt",
        "tr_musteri_tablosu.ods",
        "tr_musteri_sunumu.odp",
        "tr_personel_formu.rtf",
        "tr_personel_formu.epub",
        "tr_yazisma.mbox",
    ] {
        let path = format!("office/{name}");
        let sidecar: serde_json::Value =
            serde_json::from_slice(&made_here(&format!("{path}.pii.json"))).expect("sidecar");
        let body = masked_preview(&server, token, name, made_here(&path)).await;
        let answer = body.to_string();
        let text = body["data"]["text"].as_str().expect("text");
        assert!(text.contains("[MASKED_NATIONAL_ID_TR]"), "{name}: {text}");
        assert!(text.contains("[MASKED_IBAN_TR]"), "{name}: {text}");
        for item in sidecar["pii"].as_array().expect("planted") {
            let value = item["value"].as_str().expect("value");
            let digits: String = value.chars().filter(char::is_ascii_digit).collect();
            assert!(
                !answer.contains(value) && !answer.contains(&digits),
                "{name}: {} left in the answer",
                item["type"]
            );
        }
    }
    // Password-protected by LibreOffice, and by Word, PowerPoint and Excel themselves.
    for path in [
        "office/tr_personel_formu_sifreli.doc",
        "office/tr_personel_formu_sifreli.odt",
        "office/tr_musteri_tablosu_sifreli.ods",
        "msoffice/oletools_encrypted.doc",
        "msoffice/oletools_encrypted.ppt",
        "msoffice/oletools_encrypted.xls",
    ] {
        let name = path.rsplit('/').next().expect("name");
        let (status, body) = preview(&server, token, "?masked=true", name, made_here(path)).await;
        assert_eq!(
            (status, body["detail"][0]["type"].as_str()),
            (422, Some("encrypted_document")),
            "{name}: {body}"
        );
    }
    // Each format cut short or with a stretch overwritten fails alone, with a named error or what
    // could be read; the server answers the next request.
    for name in [
        "tr_personel_formu.doc",
        "tr_musteri_sunumu.ppt",
        "tr_personel_eposta.msg",
        "tr_personel_formu.odt",
        "tr_musteri_sunumu.odp",
        "tr_personel_formu.rtf",
        "tr_personel_formu.epub",
    ] {
        let whole = made_here(&format!("office/{name}"));
        let mut overwritten = whole.clone();
        let middle = overwritten.len() / 2;
        overwritten[middle..(middle + 4096).min(whole.len())].fill(0xA5);
        for damaged in [whole[..whole.len() / 2].to_vec(), overwritten] {
            let (status, body) = preview(&server, token, "?masked=true", name, damaged).await;
            assert!(
                status == 200 || (400..500).contains(&status),
                "{name}: {status} {body}"
            );
            assert!(
                status != 200 || body["data"]["text"].is_string(),
                "{name}: {body}"
            );
        }
    }
    let (status, _) = server.get_json("/system/health").await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn scanned_pdf_pages_are_drawn_read_by_ocr_and_masked() {
    let server = TestServer::start().await;
    let (login, _, _) = server
        .verified_account("scanned@example.com", "password-1")
        .await;
    let token = login["access_token"].as_str().expect("token");
    // The page as a JPEG 2000 image, as a CCITT Group 4 image, and drawn as vector outlines after a
    // page with a text layer: none has a text layer for its Turkish words.
    for name in [
        "scanned_jpx_tr.pdf",
        "scanned_ccitt_tr.pdf",
        "drawn_text_tr.pdf",
    ] {
        let body = masked_preview(&server, token, name, made_here(name)).await;
        let data = &body["data"];
        let text = data["text"].as_str().expect("text");
        for word in ["Müşterimiz", "çarşamba", "öğleden"] {
            assert!(text.contains(word), "{name}: {word} in {text}");
        }
        // The national id read from the pixels is masked like one typed in a text file.
        assert!(text.contains("[MASKED_NATIONAL_ID_TR]"), "{name}: {text}");
        assert!(!body.to_string().contains("31827364532"), "{name}: {body}");
        assert!(
            data["quality"]["signals"]["ocr_confidence"].as_f64() > Some(0.7),
            "{name}: {body}"
        );
    }
    let body = masked_preview(&server, token, "mixed.pdf", made_here("drawn_text_tr.pdf")).await;
    let text = body["data"]["text"].as_str().expect("text");
    let (typed, drawn) = (
        text.find("Ek 1: musteri dilekcesi").expect("the text page"),
        text.find("çarşamba").expect("the drawn page"),
    );
    assert!(typed < drawn, "{text}");
}
