//! The writers over the masking engine: office files, text and the corpus.

use super::*;
use crate::extractor_pool::extract_document as extract;

fn fixture(name: &str) -> (Vec<u8>, Vec<String>, Vec<String>) {
    let root =
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/documents/redaction");
    let bytes = std::fs::read(root.join(name)).expect("fixture");
    let sidecar: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join(format!("{name}.pii.json"))).expect("sidecar"),
    )
    .expect("json");
    let list = |key: &str, field: Option<&str>| -> Vec<String> {
        sidecar[key]
            .as_array()
            .into_iter()
            .flatten()
            .map(|item| match field {
                Some(field) => item[field].as_str().expect("value").to_string(),
                None => item.as_str().expect("value").to_string(),
            })
            .collect()
    };
    (bytes, list("pii", Some("value")), list("metadata", None))
}

/// A file of the repository (`tests/documents/...`) or of the shared corpus (`../shared/...`).
pub(super) fn test_file(path: &str) -> Vec<u8> {
    std::fs::read(
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("..")
            .join(path),
    )
    .unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Every part of a package, its markup's character references decoded.
pub(crate) fn parts(bytes: &[u8]) -> Vec<(String, String)> {
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).expect("zip");
    (0..archive.len())
        .map(|i| {
            let mut file = archive.by_index(i).expect("part");
            let mut raw = Vec::new();
            std::io::Read::read_to_end(&mut file, &mut raw).expect("read");
            let text = String::from_utf8_lossy(&raw).into_owned();
            let decoded = quick_xml::escape::unescape(&text)
                .map(|t| t.into_owned())
                .unwrap_or(text);
            (file.name().to_string(), decoded)
        })
        .collect()
}

fn redacted(name: &str) -> (RedactedDocument, Vec<u8>) {
    let (bytes, ..) = fixture(name);
    let (_, redacted, _) = round_trip(&format!("redaction/{name}"));
    (redacted, bytes)
}

#[test]
fn no_planted_value_or_author_is_left_in_any_part_of_an_office_file() {
    for name in [
        "planted.docx",
        "planted.xlsx",
        "planted.pptx",
        "planted.odt",
        "planted.odp",
    ] {
        let (_, values, people) = fixture(name);
        let (redacted, original) = redacted(name);
        let before = parts(&original);
        let after = parts(&redacted.redacted.bytes);
        assert_eq!(
            before.iter().map(|(n, _)| n).collect::<Vec<_>>(),
            after.iter().map(|(n, _)| n).collect::<Vec<_>>(),
            "{name}: the same parts in the same order"
        );
        for (part, text) in &after {
            for value in values.iter().chain(&people) {
                assert!(
                    !text.contains(value.as_str()),
                    "{name}: {part} still holds a planted value ({} characters)",
                    value.chars().count()
                );
            }
        }
        // Some values were found where the planted ones are, and parts with none are unchanged.
        assert!(redacted.summary.values().sum::<u64>() >= values.len() as u64 / 2);
    }
}

#[test]
fn parts_without_personal_data_are_copied_byte_for_byte() {
    let (redacted, original) = redacted("planted.docx");
    let raw = |bytes: &[u8], name: &str| -> Vec<u8> {
        let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).expect("zip");
        let mut file = archive.by_name(name).expect("part");
        let mut out = Vec::new();
        std::io::Read::read_to_end(&mut file, &mut out).expect("read");
        out
    };
    for part in [
        "word/styles.xml",
        "word/media/image1.png",
        "word/numbering.xml",
    ] {
        assert_eq!(
            raw(&original, part),
            raw(&redacted.redacted.bytes, part),
            "{part}"
        );
    }
    assert!(redacted
        .redacted
        .notes
        .iter()
        .any(|note| note.contains("image")));
}

#[test]
fn a_value_split_over_runs_is_replaced_in_the_run_it_began_in_keeping_the_others_formatting() {
    let (redacted, _) = redacted("planted.docx");
    let document = parts(&redacted.redacted.bytes)
        .into_iter()
        .find(|(name, _)| name == "word/document.xml")
        .expect("body")
        .1;
    // "Sayın " | bold "Ay" | italic "şe Yıl" | "maz, kaydınız tamamlandı.": the bold run holds
    // the replacement, the italic run is emptied, the last run keeps its text after the name.
    let bold = document.find("<w:b/>").expect("a bold run");
    let after_bold = &document[bold..];
    assert!(after_bold.contains("[MASKED_") || after_bold.contains("<w:t>"));
    assert!(document.contains(", kaydınız tamamlandı."));
    assert!(document.contains("Bu satırda kişisel veri yok; biçimi aynen kalmalı."));
}

#[test]
fn an_e_invoice_keeps_every_element_and_loses_every_planted_value() {
    let name = "../../../../shared/corpus/tr/tr_efatura.xml";
    let (redacted, bytes) = redacted(name);
    let out = String::from_utf8(redacted.redacted.bytes.clone()).expect("utf-8");
    let sidecar: serde_json::Value = serde_json::from_slice(&test_file(&format!(
        "tests/documents/redaction/{name}.pii.json"
    )))
    .expect("json");
    // Every planted value is gone; of an address's parts, those the masked text removes too (a
    // district or a city alone is kept there).
    let document = extract(&bytes, &Limits::default()).expect("reads");
    let preview = super::super::document::mask_document(&document, &Policy::default())
        .expect("masked")
        .document
        .text;
    for item in sidecar["pii"].as_array().expect("pii") {
        assert!(!out.contains(item["value"].as_str().expect("value")));
        for part in item["parts"].as_array().into_iter().flatten() {
            let part = part.as_str().expect("part");
            assert!(preview.contains(part) || !out.contains(part), "{part} left");
        }
    }
    let tags = |text: &str| -> Vec<String> {
        let mut reader = quick_xml::Reader::from_str(text);
        let mut names = Vec::new();
        loop {
            match reader.read_event().expect("well-formed") {
                quick_xml::events::Event::Start(e) | quick_xml::events::Event::Empty(e) => {
                    names.push(String::from_utf8_lossy(e.name().as_ref()).into_owned())
                }
                quick_xml::events::Event::Eof => break,
                _ => {}
            }
        }
        names
    };
    let original = String::from_utf8_lossy(&bytes).into_owned();
    assert_eq!(tags(&out), tags(&original));
}

#[test]
fn corpus_office_files_redact_without_any_sidecar_value_left() {
    let root =
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/documents/office");
    for name in [
        "tr_personel_formu.docx",
        "tr_musteri_sunumu.pptx",
        "tr_musteri_tablosu.xlsx",
        "tr_personel_formu.odt",
        "tr_musteri_sunumu.odp",
        "tr_musteri_tablosu.ods",
    ] {
        let (_, redacted, _) = round_trip(&format!("office/{name}"));
        // Its own sidecar, or that of the legacy file converted from it (the same values).
        let own = root.join(format!("{name}.pii.json"));
        let sidecar = match own.exists() {
            true => own,
            false => root.join(format!("{}.pii.json", &name[..name.len() - 1])),
        };
        let Ok(sidecar) = std::fs::read_to_string(&sidecar) else {
            continue;
        };
        let sidecar: serde_json::Value = serde_json::from_str(&sidecar).expect("json");
        for (part, text) in parts(&redacted.redacted.bytes) {
            for item in sidecar["pii"].as_array().into_iter().flatten() {
                let value = item["value"].as_str().unwrap_or_default();
                assert!(
                    value.is_empty() || !text.contains(value),
                    "{name}: {part} holds a {} value",
                    item["type"]
                );
            }
        }
    }
}

/// A test document (`tests/documents/{path}`) read, redacted by the default policy, read back and
/// checked: the original's reading, the redaction, the output's reading.
fn round_trip(
    path: &str,
) -> (
    crate::model::Document,
    RedactedDocument,
    crate::model::Document,
) {
    let bytes = test_file(&format!("tests/documents/{path}"));
    let limits = Limits::default();
    let document = extract(&bytes, &limits).expect("extract");
    let format = Format::named(&document.metadata.format).expect("format");
    let policy = Policy::default();
    let redacted = redact_document(&bytes, format, &document, &policy, &limits)
        .unwrap_or_else(|e| panic!("{path}: {e}"));
    let output = extract(&redacted.redacted.bytes, &limits)
        .unwrap_or_else(|e| panic!("{path} does not read back: {e}"));
    check(&output, &policy, &redacted).unwrap_or_else(|e| panic!("{path}: {e}"));
    (document, redacted, output)
}

/// Everything a MIME message carries, decoded: its header blocks and every part's content, nested
/// messages included.
fn everything_in_mail(bytes: &[u8]) -> String {
    use mail_parser::{MessageParser, PartType};
    let message = MessageParser::default()
        .parse(bytes)
        .expect("a MIME message");
    let mut out = String::from_utf8_lossy(bytes).into_owned();
    for part in &message.parts {
        match &part.body {
            PartType::Message(inner) => out.push_str(&everything_in_mail(inner.raw_message())),
            _ => out.push_str(&String::from_utf8_lossy(part.contents())),
        }
        out.push('\n');
    }
    out
}

#[test]
fn outlook_items_come_back_as_e_mail_with_their_parts_and_without_a_value() {
    for (name, planted) in [
        ("office/tr_odeme_talimati.msg", true),
        ("office/tr_personel_eposta.msg", true),
        ("msoffice/msg_parser_outer.msg", false),
        ("msoffice/msg_parser_other.msg", false),
    ] {
        let (document, redacted, output) = round_trip(name);
        assert_eq!(output.metadata.format, "eml", "{name}");
        // The same attachments (an embedded message as one), the same headers, the body's text.
        assert_eq!(
            output.attachments.len(),
            document.attachments.len(),
            "{name}: {:?}",
            redacted.redacted.notes
        );
        for key in ["email.from", "email.to", "email.subject", "email.date"] {
            assert_eq!(
                output.fields.contains_key(key),
                document.fields.contains_key(key),
                "{name}: {key}"
            );
        }
        assert!(output.text.len() * 2 > document.text.len(), "{name}");
        let all = everything_in_mail(&redacted.redacted.bytes);
        // Every value the original's scan found, and the planted ones.
        let full = document.full_text();
        let mut values: Vec<String> = redacted
            .findings
            .iter()
            .map(|f| full[f.start..f.end].to_string())
            .filter(|v| v.chars().count() >= 4)
            .collect();
        if planted {
            let sidecar: serde_json::Value =
                serde_json::from_slice(&test_file(&format!("tests/documents/{name}.pii.json")))
                    .expect("sidecar");
            values.extend(
                sidecar["pii"]
                    .as_array()
                    .expect("pii")
                    .iter()
                    .map(|item| item["value"].as_str().expect("value").to_string()),
            );
        }
        assert!(!values.is_empty() || !planted, "{name}");
        for value in values {
            assert!(!all.contains(&value), "{name}: {value} is still there");
        }
    }
}

/// Every stream of a compound file read as text both ways it may hold text: UTF-16 and 8-bit.
fn compound_texts(bytes: &[u8]) -> String {
    let mut file =
        cfb::CompoundFile::open(std::io::Cursor::new(bytes.to_vec())).expect("a compound file");
    let paths: Vec<std::path::PathBuf> = file
        .walk()
        .filter(|entry| entry.is_stream())
        .map(|entry| entry.path().to_path_buf())
        .collect();
    let mut out = String::new();
    for path in paths {
        let mut raw = Vec::new();
        std::io::Read::read_to_end(&mut file.open_stream(&path).expect("stream"), &mut raw)
            .expect("read");
        for shift in [0, 1] {
            let units: Vec<u16> = raw
                .get(shift..)
                .unwrap_or_default()
                .chunks_exact(2)
                .map(|p| u16::from_le_bytes([p[0], p[1]]))
                .collect();
            out.push_str(&String::from_utf16_lossy(&units));
        }
        out.push_str(&encoding_rs::WINDOWS_1252.decode(&raw).0);
    }
    out
}

#[test]
fn legacy_word_and_powerpoint_files_come_back_as_themselves_without_a_value() {
    for (name, planted) in [
        ("office/tr_personel_formu.doc", true),
        ("office/tr_musteri_sunumu.ppt", true),
        ("msoffice/olefile_test-ole-file.doc", false),
        ("msoffice/oletools_harmless-clean.doc", false),
        ("msoffice/oletools_embedded-simple-2007.doc", false),
        ("msoffice/oletools_embedded-unicode.doc", false),
        ("msoffice/oletools_embedded-simple-2007.ppt", false),
    ] {
        let (document, redacted, output) = round_trip(name);
        assert_eq!(output.metadata.format, document.metadata.format, "{name}");
        // The same paragraphs, tables and slides; no document properties.
        let kinds = |d: &crate::model::Document| -> Vec<String> {
            d.elements.iter().map(|e| format!("{:?}", e.kind)).collect()
        };
        assert_eq!(kinds(&output), kinds(&document), "{name}");
        assert_eq!(output.tables.len(), document.tables.len(), "{name}");
        assert_eq!(output.metadata.pages, document.metadata.pages, "{name}");
        assert_eq!(output.metadata.author, None, "{name}");
        if planted {
            let all = compound_texts(&redacted.redacted.bytes);
            let before = compound_texts(&test_file(&format!("tests/documents/{name}")));
            assert!(
                before.contains("Personel") || before.contains("Müşteri"),
                "{name}"
            );
            let sidecar: serde_json::Value =
                serde_json::from_slice(&test_file(&format!("tests/documents/{name}.pii.json")))
                    .expect("sidecar");
            for item in sidecar["pii"].as_array().expect("pii") {
                let value = item["value"].as_str().expect("value");
                assert!(!all.contains(value), "{name}: a {} is left", item["type"]);
            }
        }
    }
}
