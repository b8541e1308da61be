//! The formats offices still send, read from the documents made in `tests/documents/office` (by
//! `tests/documents/make_office.py`: LibreOffice's conversions of a Turkish letter, presentation and
//! workbook, Outlook items written by msgforge, an mbox): every planted value comes out, the structure
//! (headings, tables, headers and footers, slides and notes, e-mail headers, attachments) is kept, and
//! the password-protected variants are `encrypted_document`.

use std::path::PathBuf;

use docsieve_actors::extractor_pool::extract_document as extract;
use docsieve_actors::extractor_pool::Limits;
use docsieve_actors::model::{Document, ElementKind};

fn folder() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/documents/office")
}

fn read(name: &str) -> Document {
    let bytes = std::fs::read(folder().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    extract(&bytes, &Limits::default()).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The planted values of `name`'s sidecar, each found in the text (or an attachment's).
fn planted_values_come_out(name: &str, document: &Document) {
    let sidecar: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(folder().join(format!("{name}.pii.json"))).expect("sidecar"),
    )
    .expect("json");
    let mut text = document.full_text().into_owned();
    for attachment in &document.attachments {
        if let Some(inner) = &attachment.document {
            text.push_str(&inner.full_text());
        }
    }
    for item in sidecar["pii"].as_array().expect("pii") {
        let value = item["value"].as_str().expect("value");
        assert!(
            text.contains(value),
            "{name}: {} ({value}) not extracted:\n{text}",
            item["type"]
        );
    }
}

#[test]
fn every_made_document_gives_its_planted_values_with_its_format() {
    for (name, format) in [
        ("tr_personel_formu.doc", "doc"),
        ("tr_personel_formu.odt", "odt"),
        ("tr_personel_formu.rtf", "rtf"),
        ("tr_personel_formu.epub", "epub"),
        ("tr_musteri_sunumu.ppt", "ppt"),
        ("tr_musteri_sunumu.odp", "odp"),
        ("tr_musteri_tablosu.ods", "ods"),
        ("tr_musteri_tablosu.xls", "xls"),
        ("tr_personel_eposta.msg", "msg"),
        ("tr_odeme_talimati.msg", "msg"),
        ("tr_yazisma.mbox", "eml"),
    ] {
        let document = read(name);
        assert_eq!(document.metadata.format, format, "{name}");
        assert!(
            !document.text.contains('\u{fffd}'),
            "{name}: decoding errors"
        );
        planted_values_come_out(name, &document);
    }
}

#[test]
fn letters_keep_headings_tables_headers_and_properties() {
    for name in [
        "tr_personel_formu.doc",
        "tr_personel_formu.odt",
        "tr_personel_formu.rtf",
    ] {
        let document = read(name);
        let kinds = |kind: ElementKind| document.elements.iter().filter(move |e| e.kind == kind);
        assert!(
            kinds(ElementKind::Heading).any(|e| e.text == "Ödeme bilgileri"),
            "{name}: headings {:?}",
            document.elements
        );
        assert_eq!(document.tables.len(), 1, "{name}: {:?}", document.tables);
        let table = &document.tables[0];
        assert_eq!(
            table.header.as_deref(),
            Some(
                &[
                    "Ad Soyad".to_string(),
                    "T.C. Kimlik No".to_string(),
                    "IBAN".to_string()
                ][..]
            ),
            "{name}"
        );
        assert_eq!(table.rows.len(), 2, "{name}: {:?}", table.rows);
        assert!(
            table.rows.iter().all(|row| row.len() == 3),
            "{name}: {:?}",
            table.rows
        );
        assert!(
            document.text.contains("Örnek Gıda Sanayi A.Ş."),
            "{name}: the header"
        );
        // The bulleted paragraphs are list items.
        let items: Vec<&str> = kinds(ElementKind::ListItem)
            .map(|e| e.text.as_str())
            .collect();
        assert_eq!(
            items,
            [
                "Ödeme günü her ayın on beşi, çarşamba ise bir gün sonrasıdır.",
                "Bordro örneği ekte sunulmuştur."
            ],
            "{name}: {:?}",
            document.elements
        );
        if name.ends_with(".doc") || name.ends_with(".odt") {
            assert!(
                kinds(ElementKind::Header).any(|e| e.text.contains("Örnek Gıda")),
                "{name}: {:?}",
                document.elements
            );
            assert!(
                kinds(ElementKind::Footer).any(|e| e.text.contains("KVKK")),
                "{name}"
            );
            assert_eq!(
                document.metadata.author.as_deref(),
                Some("Deniz Yıldırım"),
                "{name}"
            );
        }
    }
}

#[test]
fn presentations_keep_slides_titles_and_notes() {
    for name in ["tr_musteri_sunumu.ppt", "tr_musteri_sunumu.odp"] {
        let document = read(name);
        assert_eq!(document.metadata.pages, Some(2), "{name}");
        let on = |page: u32| {
            document
                .elements
                .iter()
                .filter(|e| e.page == Some(page))
                .map(|e| e.text.as_str())
                .collect::<Vec<_>>()
                .join("\n")
        };
        assert!(
            on(1).contains("Müşteri Sunumu: Ödeme Planı"),
            "{name}: {}",
            on(1)
        );
        assert!(
            on(1).contains("Konuşmacı notu"),
            "{name}: the notes: {}",
            on(1)
        );
        assert!(on(2).contains("Hesap Özeti"), "{name}: {}", on(2));
        // The slide's table is a table: its header row and its row of values, on its slide.
        assert_eq!(document.tables.len(), 1, "{name}: {:?}", document.elements);
        let table = &document.tables[0];
        assert_eq!(
            table.header.as_deref(),
            Some(&["Ad Soyad", "T.C. Kimlik No", "IBAN"].map(String::from)[..]),
            "{name}: {table:?}"
        );
        assert_eq!(table.rows.len(), 1, "{name}: {table:?}");
        assert_eq!(
            table.rows.get(0).and_then(|row| row.get(1)),
            Some("49753128616"),
            "{name}: {table:?}"
        );
        assert_eq!(table.page, Some(2), "{name}");
        assert!(
            document
                .elements
                .iter()
                .any(|e| e.kind == ElementKind::Title && e.text.contains("Hesap Özeti")),
            "{name}: {:?}",
            document.elements
        );
    }
}

#[test]
fn outlook_items_and_mailboxes_read_as_mail() {
    let item = read("tr_personel_eposta.msg");
    let field = |name: &str| {
        item.fields
            .get(name)
            .and_then(|v| v.as_str())
            .unwrap_or_default()
            .to_string()
    };
    assert_eq!(field("email.subject"), "Personel bilgileri (gizli)");
    assert!(
        field("email.from").contains("deniz.yildirim@ornekgida.com.tr"),
        "{:?}",
        item.fields
    );
    assert!(
        field("email.to").contains("ik@ornekgida.com.tr"),
        "{:?}",
        item.fields
    );
    assert!(
        field("email.cc").contains("muhasebe@ornekgida.com.tr"),
        "{:?}",
        item.fields
    );
    assert!(
        field("email.date").starts_with("2026-03-04"),
        "{:?}",
        item.fields
    );
    assert_eq!(item.attachments.len(), 1);
    let attached = item.attachments[0]
        .document
        .as_ref()
        .expect("the letter is read");
    assert_eq!(item.attachments[0].filename, "tr_personel_formu.docx");
    assert_eq!(attached.metadata.format, "docx");
    assert!(attached.text.contains("Personel Bilgi Formu"));

    let html = read("tr_odeme_talimati.msg");
    assert!(html
        .elements
        .iter()
        .any(|e| e.kind == ElementKind::Heading && e.text == "Ödeme talimatı"));

    let mailbox = read("tr_yazisma.mbox");
    assert_eq!(
        mailbox
            .fields
            .get("email.messages")
            .and_then(|v| v.as_u64()),
        Some(2)
    );
    assert_eq!(
        mailbox.fields.get("email.subject").and_then(|v| v.as_str()),
        Some("Kimlik bilgisi")
    );
    let headers: Vec<&str> = mailbox
        .elements
        .iter()
        .filter(|e| e.kind == ElementKind::EmailHeader && e.text.starts_with("subject:"))
        .map(|e| e.text.as_str())
        .collect();
    assert_eq!(
        headers,
        ["subject: Kimlik bilgisi", "subject: Hesap bilgisi"]
    );
    // The mbox's quoted ">From " line reads as written.
    assert!(
        mailbox.text.contains("From now on the IBAN"),
        "{}",
        mailbox.text
    );
    assert!(!mailbox.text.contains(">From"), "{}", mailbox.text);
}

fn refused_as_encrypted(what: &str, bytes: &[u8]) {
    assert_eq!(
        extract(bytes, &Limits::default()).err().map(|e| e.code()),
        Some("encrypted_document"),
        "{what}"
    );
}

#[test]
fn password_protected_variants_are_encrypted_documents() {
    for name in [
        "tr_personel_formu_sifreli.doc",
        "tr_personel_formu_sifreli.odt",
    ] {
        refused_as_encrypted(name, &std::fs::read(folder().join(name)).expect("file"));
    }
}

/// An Outlook item of `class` with a subject, written as Outlook writes its properties (UTF-16
/// string streams, a properties stream with its 32-byte header).
fn outlook_item(class: &str) -> Vec<u8> {
    let utf16 =
        |text: &str| -> Vec<u8> { text.encode_utf16().flat_map(u16::to_le_bytes).collect() };
    let (class, subject) = (utf16(class), utf16("Bordro"));
    docsieve_actors::extractor_pool::compound_file(&[
        ("__substg1.0_001A001F", &class),
        ("__substg1.0_0037001F", &subject),
        ("__properties_version1.0", &[0u8; 32]),
    ])
    .expect("compound file")
}

#[test]
fn sealed_outlook_items_are_encrypted_documents_and_clear_signed_ones_are_read() {
    for class in [
        "IPM.Note.SMIME",
        "IPM.Note.Secure",
        "IPM.Note.Microsoft.Rpmsg",
    ] {
        refused_as_encrypted(class, &outlook_item(class));
    }
    for class in ["IPM.Note", "IPM.Note.SMIME.MultipartSigned"] {
        let item = extract(&outlook_item(class), &Limits::default()).expect(class);
        assert_eq!(item.metadata.format, "msg");
        assert_eq!(
            item.fields.get("email.subject").and_then(|v| v.as_str()),
            Some("Bordro"),
            "{class}"
        );
    }
}

/// Files Microsoft Office wrote (oletools' and olefile's test documents, tests/documents/msoffice).
fn by_office(name: &str) -> Vec<u8> {
    let path = folder().join("../msoffice").join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn documents_microsoft_office_and_outlook_wrote_are_read_and_its_encryption_refused() {
    for name in [
        "oletools_encrypted.doc",
        "oletools_encrypted.ppt",
        "oletools_encrypted.xls",
    ] {
        refused_as_encrypted(name, &by_office(name));
    }
    let read = |name: &str| extract(&by_office(name), &Limits::default()).expect(name);
    let clean = read("oletools_harmless-clean.doc");
    assert_eq!(clean.metadata.format, "doc");
    assert!(clean.text.contains("ünicöde-ßtringß"), "{}", clean.text);
    assert!(clean.text.starts_with("Test\n"), "{}", clean.text);
    // An embedded object's anchor and a symbol font's glyph are not text; the object, an embedded
    // file, is an attachment read through the pipeline.
    let embedding = read("oletools_embedded-simple-2007.doc");
    assert!(
        embedding.text.trim_end().ends_with("Have fun parsing it"),
        "{:?}",
        embedding.text
    );
    assert_eq!(
        embedding.attachments.len(),
        1,
        "{:?}",
        embedding.attachments
    );
    assert_eq!(embedding.attachments[0].filename, "simple-text-file.txt");
    let embedded = embedding.attachments[0].document.as_ref().expect("read");
    assert!(
        embedded
            .text
            .contains("This is the contents of a simple ascii text file."),
        "{}",
        embedded.text
    );
    let slides = read("oletools_embedded-simple-2007.ppt");
    assert_eq!(slides.metadata.format, "ppt");
    assert_eq!(slides.metadata.pages, Some(1));
    assert!(
        slides
            .elements
            .iter()
            .any(|e| e.kind == ElementKind::Title && e.text == "Embedded Objects"),
        "{:?}",
        slides.elements
    );
    assert!(slides
        .text
        .contains("It is a simple harmless ASCII text file"));
    // Outlook's: a message with another embedded in it, a bounce carrying the returned message.
    let field = |document: &Document, name: &str| {
        document
            .fields
            .get(name)
            .and_then(|v| v.as_str())
            .map(String::from)
    };
    let outer = read("msg_parser_outer.msg");
    assert_eq!(
        field(&outer, "email.subject").as_deref(),
        Some("outer subject")
    );
    assert!(outer.text.contains("Outer body"), "{}", outer.text);
    let inner = outer.attachments[0]
        .document
        .as_ref()
        .expect("the embedded message");
    assert_eq!(inner.metadata.format, "msg");
    assert_eq!(field(inner, "email.subject").as_deref(), Some("test"));
    assert_eq!(field(inner, "email.to").as_deref(), Some("test@foobar.com"));
    let bounce = read("msg_parser_other.msg");
    assert_eq!(
        field(&bounce, "email.subject").as_deref(),
        Some("投递状态通知 (Failure Notice)")
    );
    assert!(
        field(&bounce, "email.from").is_some_and(|f| f.contains("mailer-daemon@tjdpf.org.cn")),
        "{:?}",
        bounce.fields
    );
    assert!(bounce.text.contains("permanent error"), "{}", bounce.text);
    assert_eq!(bounce.attachments.len(), 1);
    assert!(
        bounce.attachments[0].document.is_some(),
        "{:?}",
        bounce.attachments[0].error
    );
}

#[test]
fn objects_embedded_in_an_outlook_item_are_read_by_what_they_hold() {
    use std::io::Read;
    // The Word letter's own streams, as Outlook keeps a document placed in an RTF body.
    let letter = std::fs::read(folder().join("tr_personel_formu.doc")).expect("letter");
    let mut word = cfb::CompoundFile::open(std::io::Cursor::new(letter)).expect("compound file");
    let mut stream = |name: &str| {
        let mut bytes = Vec::new();
        word.open_stream(name)
            .expect(name)
            .read_to_end(&mut bytes)
            .expect(name);
        bytes
    };
    let (document, table) = (stream("/WordDocument"), stream("/1Table"));
    // An embedded file: an OLE package (label, source path, temporary path, then the file).
    let note = "Not: IBAN TR330006100519786457841326 kimde?".as_bytes();
    let mut package = Vec::new();
    package.extend(2u16.to_le_bytes());
    package.extend(b"not.txt\0C:\\not.txt\0");
    package.extend(0x0003_0000u32.to_le_bytes());
    let temporary = b"C:\\Temp\\not.txt\0";
    package.extend((temporary.len() as u32).to_le_bytes());
    package.extend(temporary);
    package.extend((note.len() as u32).to_le_bytes());
    package.extend(note);
    let mut native = (package.len() as u32).to_le_bytes().to_vec();
    native.extend(package);
    let utf16 =
        |text: &str| -> Vec<u8> { text.encode_utf16().flat_map(u16::to_le_bytes).collect() };
    let (subject, name) = (utf16("Ekler"), utf16("not.txt"));
    let item = docsieve_actors::extractor_pool::compound_file(&[
        ("__substg1.0_0037001F", &subject),
        ("__properties_version1.0", &[0u8; 32]),
        ("__attach_version1.0_#00000000/__substg1.0_3707001F", &name),
        (
            "__attach_version1.0_#00000000/__substg1.0_3701000D/\u{1}Ole10Native",
            &native,
        ),
        (
            "__attach_version1.0_#00000001/__substg1.0_3701000D/WordDocument",
            &document,
        ),
        (
            "__attach_version1.0_#00000001/__substg1.0_3701000D/1Table",
            &table,
        ),
    ])
    .expect("compound file");
    let item = extract(&item, &Limits::default()).expect("the item");
    // A Word document's streams inside do not make the item a Word document.
    assert_eq!(item.metadata.format, "msg");
    assert_eq!(item.attachments.len(), 2, "{:?}", item.attachments);
    let read: Vec<&Document> = item
        .attachments
        .iter()
        .map(|a| {
            &**a.document
                .as_ref()
                .unwrap_or_else(|| panic!("{:?}", a.error))
        })
        .collect();
    assert_eq!(item.attachments[0].filename, "not.txt");
    assert!(
        read[0].text.contains("TR330006100519786457841326"),
        "{}",
        read[0].text
    );
    assert_eq!(read[1].metadata.format, "doc");
    assert!(
        read[1].text.contains("Personel Bilgi Formu"),
        "{}",
        read[1].text
    );
    planted_values_come_out("tr_personel_formu.doc", read[1]);
}
