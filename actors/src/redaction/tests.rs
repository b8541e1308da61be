//! The writers' mechanics with a masker that replaces fixed words (the engine's own tests are in
//! `pii_masker::redact`).

use std::io::Write;

use super::*;

/// Replaces each of its words wherever it stands.
struct Words(Vec<&'static str>);

impl Masker for Words {
    fn replacements(&mut self, text: &str) -> Result<Vec<Replace>, RedactError> {
        let mut out: Vec<Replace> = self
            .0
            .iter()
            .flat_map(|word| {
                text.match_indices(word).map(|(at, w)| Replace {
                    start: at,
                    end: at + w.len(),
                    with: "[X]".to_string(),
                })
            })
            .collect();
        out.sort_by_key(|r| r.start);
        Ok(out)
    }
}

fn package(parts: &[(&str, &str)]) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, text) in parts {
        zip.start_file(*name, zip::write::SimpleFileOptions::default())
            .expect("start");
        zip.write_all(text.as_bytes()).expect("write");
    }
    zip.finish().expect("finish").into_inner()
}

fn part(bytes: &[u8], name: &str) -> String {
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).expect("zip");
    let mut file = archive.by_name(name).expect("part");
    let mut out = String::new();
    std::io::Read::read_to_string(&mut file, &mut out).expect("read");
    out
}

const W: &str = r#"xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main""#;

#[test]
fn runs_keep_their_formatting_and_a_split_value_lands_in_its_first_run() {
    let body = format!(
        r#"<w:document {W}><w:body><w:p><w:r><w:rPr><w:b/></w:rPr><w:t>Sayın Ay</w:t></w:r><w:r><w:rPr><w:i/></w:rPr><w:t>şe Yıl</w:t></w:r><w:r><w:t xml:space="preserve">maz &amp; co</w:t></w:r></w:p><w:p><w:r><w:t>temiz</w:t></w:r></w:p></w:body></w:document>"#
    );
    let bytes = package(&[("word/document.xml", &body)]);
    let out = redact(
        &bytes,
        Format::Docx,
        &Limits::default(),
        &mut Words(vec!["Ayşe Yılmaz"]),
    )
    .expect("redacted");
    let written = part(&out.bytes, "word/document.xml");
    assert_eq!(
        written,
        format!(
            r#"<w:document {W}><w:body><w:p><w:r><w:rPr><w:b/></w:rPr><w:t>Sayın [X]</w:t></w:r><w:r><w:rPr><w:i/></w:rPr><w:t></w:t></w:r><w:r><w:t xml:space="preserve"> &amp; co</w:t></w:r></w:p><w:p><w:r><w:t>temiz</w:t></w:r></w:p></w:body></w:document>"#
        )
    );
}

#[test]
fn authors_are_removed_alt_text_and_link_targets_masked() {
    let body = format!(
        r#"<w:document {W}><w:body><w:p><w:del w:id="1" w:author="Ali Veli"><w:r><w:delText>eski Ali Veli</w:delText></w:r></w:del></w:p><wp:docPr xmlns:wp="x" id="1" descr="Foto Ali Veli"/></w:body></w:document>"#
    );
    let rels = r#"<Relationships><Relationship Id="r1" Target="mailto:ali@veli.com" TargetMode="External"/></Relationships>"#;
    let core = r#"<cp:coreProperties xmlns:cp="c" xmlns:dc="d"><dc:creator>Ali Veli</dc:creator><dc:title>Ali Veli dosyası</dc:title></cp:coreProperties>"#;
    let bytes = package(&[
        ("word/document.xml", &body),
        ("word/_rels/document.xml.rels", rels),
        ("docProps/core.xml", core),
    ]);
    let out = redact(
        &bytes,
        Format::Docx,
        &Limits::default(),
        &mut Words(vec!["Ali Veli", "ali@veli.com"]),
    )
    .expect("redacted");
    let body = part(&out.bytes, "word/document.xml");
    assert!(body.contains(r#"w:author="""#), "{body}");
    assert!(body.contains("<w:delText>eski [X]</w:delText>"), "{body}");
    assert!(body.contains(r#"descr="Foto [X]""#), "{body}");
    assert!(part(&out.bytes, "word/_rels/document.xml.rels").contains(r#"Target="mailto:[X]""#));
    let core = part(&out.bytes, "docProps/core.xml");
    assert!(core.contains("<dc:creator></dc:creator>"), "{core}");
    assert!(core.contains("<dc:title>[X] dosyası</dc:title>"), "{core}");
    assert!(!out.left.contains("Ali Veli"));
}

#[test]
fn a_numeric_cell_that_changes_becomes_a_string_and_shared_indexes_are_never_touched() {
    let sheet = r#"<worksheet><sheetData><row r="1"><c r="A1" t="s"><v>10000000146</v></c><c r="B1"><v>10000000146</v></c><c r="C1" t="n"><v>10000000146</v></c><c r="D1" t="inlineStr"><is><t>10000000146</t></is></c><c r="E1"><v>42</v></c></row></sheetData></worksheet>"#;
    let bytes = package(&[("xl/worksheets/sheet1.xml", sheet)]);
    let out = redact(
        &bytes,
        Format::Xlsx,
        &Limits::default(),
        &mut Words(vec!["10000000146"]),
    )
    .expect("redacted");
    let written = part(&out.bytes, "xl/worksheets/sheet1.xml");
    assert!(
        written.contains(r#"<c r="A1" t="s"><v>10000000146</v></c>"#),
        "{written}"
    );
    assert!(
        written.contains(r#"<c r="B1" t="str"><v>[X]</v></c>"#),
        "{written}"
    );
    assert!(
        written.contains(r#"<c r="C1" t="str"><v>[X]</v></c>"#),
        "{written}"
    );
    assert!(
        written.contains(r#"<c r="D1" t="inlineStr"><is><t>[X]</t></is></c>"#),
        "{written}"
    );
    assert!(written.contains(r#"<c r="E1"><v>42</v></c>"#), "{written}");
}

#[test]
fn an_unchanged_part_is_stored_as_it_was_and_an_embedded_object_is_refused() {
    let parts = [
        ("word/styles.xml", "<w:styles/>"),
        ("word/document.xml", "<w:document/>"),
    ];
    let bytes = package(&parts);
    let out = redact(&bytes, Format::Docx, &Limits::default(), &mut Words(vec![])).expect("ok");
    assert_eq!(
        out.bytes, bytes,
        "nothing to mask: the package is the original's, byte for byte"
    );
    let bytes = package(&[
        ("word/document.xml", "<w:document/>"),
        ("word/embeddings/oleObject1.bin", "x"),
    ]);
    let refused = redact(&bytes, Format::Docx, &Limits::default(), &mut Words(vec![]));
    assert!(matches!(refused, Err(RedactError::Unsupported(m)) if m.contains("embeds an object")));
}

#[test]
fn broken_markup_and_a_broken_container_are_malformed_never_a_panic() {
    let bytes = package(&[("word/document.xml", "<w:document><w:p></w:document>")]);
    let out = redact(&bytes, Format::Docx, &Limits::default(), &mut Words(vec![]));
    assert!(matches!(out, Err(RedactError::Malformed(_))), "{out:?}");
    let out = redact(
        b"PK\x03\x04broken",
        Format::Docx,
        &Limits::default(),
        &mut Words(vec![]),
    );
    assert!(matches!(out, Err(RedactError::Malformed(_))), "{out:?}");
    let deep = format!("<a>{}</a>", "<b>".repeat(400) + &"</b>".repeat(400));
    let bytes = package(&[("word/document.xml", &deep)]);
    let out = redact(&bytes, Format::Docx, &Limits::default(), &mut Words(vec![]));
    assert!(matches!(out, Err(RedactError::Limit(_))), "{out:?}");
}

#[test]
fn a_csv_keeps_its_shape_or_is_refused() {
    let csv = "ad,tc\nAli Veli,10000000146\n";
    let out = redact(
        csv.as_bytes(),
        Format::Csv,
        &Limits::default(),
        &mut Words(vec!["Ali Veli"]),
    )
    .expect("redacted");
    assert_eq!(
        String::from_utf8(out.bytes).unwrap(),
        "ad,tc\n[X],10000000146\n"
    );
    struct Comma;
    impl Masker for Comma {
        fn replacements(&mut self, text: &str) -> Result<Vec<Replace>, RedactError> {
            let at = text.find("Ali").unwrap_or(0);
            Ok(vec![Replace {
                start: at,
                end: at + 3,
                with: "a,b".to_string(),
            }])
        }
    }
    let refused = redact(csv.as_bytes(), Format::Csv, &Limits::default(), &mut Comma);
    assert!(matches!(refused, Err(RedactError::Refused(_))));
}

#[test]
fn formats_without_a_writer_are_refused_naming_those_with_one() {
    let out = redact(
        b"{\\rtf1 x}",
        Format::Rtf,
        &Limits::default(),
        &mut Words(vec![]),
    );
    match out {
        Err(RedactError::Unsupported(message)) => {
            assert!(
                message.contains("rtf files") && message.contains("docx"),
                "{message}"
            )
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn html_keeps_its_tags_and_masks_text_across_inline_tags_attributes_and_titles() {
    let page = concat!(
        "<!DOCTYPE html><html><head><title>Ali Veli</title>",
        "<script>var x = 1;</script></head><body>",
        "<!-- yazan: Ali Veli -->",
        "<p class=\"k\">Sayın <b>Ali</b> Veli &amp; ekibi<br>tel</p>",
        "<img alt=\"Foto Ali Veli\" src=\"a.png\"><a href=\"mailto:ali@veli.com\">yaz</a>",
        "<p>d&uuml;z metin</p></body></html>"
    );
    let out = redact(
        page.as_bytes(),
        Format::Html,
        &Limits::default(),
        &mut Words(vec!["Ali Veli", "ali@veli.com"]),
    )
    .expect("redacted");
    let written = String::from_utf8(out.bytes).expect("utf-8");
    assert_eq!(
        written,
        concat!(
            "<!DOCTYPE html><html><head><title>[X]</title>",
            "<script>var x = 1;</script></head><body>",
            "",
            "<p class=\"k\">Sayın <b>[X]</b> &amp; ekibi<br>tel</p>",
            "<img alt=\"Foto [X]\" src=\"a.png\"><a href=\"mailto:[X]\">yaz</a>",
            "<p>d&uuml;z metin</p></body></html>"
        )
    );
    assert!(out.notes.iter().any(|n| n.contains("comment")));
    assert!(out.left.contains("var x = 1;"), "scripts are scanned");
}

#[test]
fn xml_texts_and_attributes_are_masked_with_their_keys_and_tags_stay_byte_for_byte() {
    /// Records what it is asked, and replaces one word.
    struct Seen(Vec<String>);
    impl Masker for Seen {
        fn replacements(&mut self, text: &str) -> Result<Vec<Replace>, RedactError> {
            self.0.push(text.to_string());
            Ok(text
                .match_indices("Ayşe")
                .map(|(at, w)| Replace {
                    start: at,
                    end: at + w.len(),
                    with: "[X]".to_string(),
                })
                .collect())
        }
    }
    let xslt = base64::Engine::encode(
        &base64::engine::general_purpose::STANDARD,
        "<xsl:stylesheet><xsl:template>Ayşe &amp; co</xsl:template></xsl:stylesheet>",
    );
    let pdf = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, "%PDF-1.4 Ayşe");
    let source = format!(
        "<?xml version=\"1.0\"?>\n<!-- kept --><Records xmlns=\"urn:x\"><cac:Party a=\"1\"><cbc:Name>Ayşe &lt;Y&gt;</cbc:Name>\
         <cbc:ID schemeID=\"TCKN\" note=\"Ayşe\">1</cbc:ID></cac:Party>\
         <Attachment><EmbeddedDocumentBinaryObject mimeCode=\"application/xml\">{xslt}</EmbeddedDocumentBinaryObject></Attachment>\
         <Attachment><EmbeddedDocumentBinaryObject>{pdf}</EmbeddedDocumentBinaryObject></Attachment>\
         <ds:X509Certificate>MIIB</ds:X509Certificate><n><![CDATA[Ayşe]]></n></Records>"
    );
    let mut seen = Seen(Vec::new());
    let out = redact(
        source.as_bytes(),
        Format::Xml,
        &Limits::default(),
        &mut seen,
    )
    .expect("xml");
    let text = String::from_utf8(out.bytes).expect("utf-8");
    assert!(
        seen.0.contains(&"Party.Name: Ayşe <Y>".to_string()),
        "{:?}",
        seen.0
    );
    assert!(seen.0.contains(&"note: Ayşe".to_string()), "{:?}", seen.0);
    assert!(text.starts_with(
        "<?xml version=\"1.0\"?>\n<!-- kept --><Records xmlns=\"urn:x\"><cac:Party a=\"1\"><cbc:Name>[X] &lt;Y&gt;</cbc:Name>"
    ), "{text}");
    assert!(
        text.contains("<cbc:ID schemeID=\"TCKN\" note=\"[X]\">1</cbc:ID>"),
        "{text}"
    );
    assert!(
        text.contains("<ds:X509Certificate></ds:X509Certificate>"),
        "{text}"
    );
    assert!(text.contains("<n>[X]</n>"), "{text}");
    // The XSLT written back in base64, masked; the PDF removed.
    let embedded: Vec<&str> = text
        .split("<EmbeddedDocumentBinaryObject")
        .skip(1)
        .map(|rest| &rest[rest.find('>').expect("tag") + 1..rest.find("</").expect("end")])
        .collect();
    let inner = base64::Engine::decode(&base64::engine::general_purpose::STANDARD, embedded[0])
        .expect("base64");
    assert_eq!(
        String::from_utf8(inner).expect("utf-8"),
        "<xsl:stylesheet><xsl:template>[X] &amp; co</xsl:template></xsl:stylesheet>"
    );
    assert_eq!(embedded[1], "");
    assert!(
        out.notes.iter().any(|n| n.contains("not XML removed")),
        "{:?}",
        out.notes
    );
    assert!(out.left.contains("[X] & co"), "{}", out.left);
    // Turkish in ISO-8859-9, answered in UTF-8 with the declaration saying so.
    let latin5 = b"<?xml version=\"1.0\" encoding=\"ISO-8859-9\"?><a><b>Ay\xfee</b></a>";
    let out = redact(
        latin5,
        Format::Xml,
        &Limits::default(),
        &mut Seen(Vec::new()),
    )
    .expect("xml");
    assert_eq!(
        String::from_utf8(out.bytes).expect("utf-8"),
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><a><b>[X]</b></a>"
    );
}

#[test]
fn a_message_keeps_its_tree_and_every_header_body_and_attachment_is_masked() {
    use mail_parser::MimeHeaders;
    let engine = base64::engine::general_purpose::STANDARD;
    let from = base64::Engine::encode(&engine, "Ayşe Yılmaz");
    let note = base64::Engine::encode(&engine, "Not: Ayşe arayacak\n");
    let source = format!(
        "From: =?UTF-8?B?{from}?= <a@example.com>\r\nTo: b@example.com\r\nSubject: Merhaba Ayşe\r\n\
         MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"b1\"\r\n\r\npreamble\r\n\
         --b1\r\nContent-Type: multipart/alternative; boundary=\"b2\"\r\n\r\n\
         --b2\r\nContent-Type: text/plain; charset=iso-8859-9\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n\
         Say=FDn Ay=FEe Han=FDm,\r\n--b2\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<p>Sayın <b>Ayşe</b></p>\r\n--b2--\r\n\
         --b1\r\nContent-Type: text/plain; name=\"Ayşe notu.txt\"\r\nContent-Disposition: attachment; filename=\"Ayşe notu.txt\"\r\n\
         Content-Transfer-Encoding: base64\r\n\r\n{note}\r\n\
         --b1\r\nContent-Type: application/octet-stream\r\nContent-Disposition: attachment; filename=\"blob.bin\"\r\n\
         Content-Transfer-Encoding: base64\r\n\r\nAAECAwQFBgcICQ==\r\n--b1--\r\nepilogue\r\n"
    );
    let out = redact(
        source.as_bytes(),
        Format::Eml,
        &Limits::default(),
        &mut Words(vec!["Ayşe"]),
    )
    .expect("eml");
    let message = mail_parser::MessageParser::default()
        .parse(&out.bytes)
        .expect("a message");
    assert_eq!(message.subject(), Some("Merhaba [X]"));
    let sender = message.from().and_then(|a| a.first()).expect("from");
    assert_eq!(sender.name(), Some("[X] Yılmaz"));
    assert_eq!(sender.address(), Some("a@example.com"));
    assert_eq!(message.body_text(0).as_deref(), Some("Sayın [X] Hanım,"));
    assert!(
        message.body_html(0).expect("html").contains("<b>[X]</b>"),
        "{:?}",
        message.body_html(0)
    );
    // The text attachment masked with its name; the unknown one removed and said so.
    let attachments: Vec<_> = message.attachments().collect();
    assert_eq!(
        attachments.len(),
        1,
        "{}",
        String::from_utf8_lossy(&out.bytes)
    );
    assert_eq!(attachments[0].attachment_name(), Some("[X] notu.txt"));
    assert_eq!(attachments[0].contents(), b"Not: [X] arayacak\n");
    assert!(
        out.notes.iter().any(|n| n.contains("blob.bin removed")),
        "{:?}",
        out.notes
    );
    let raw = String::from_utf8_lossy(&out.bytes);
    assert!(!raw.contains("Ayşe") && !raw.contains("preamble") && !raw.contains("epilogue"));
    assert!(out.left.contains("Merhaba [X]") && out.left.contains("Sayın [X] Hanım"));
}

#[test]
fn an_ods_cell_that_changes_becomes_a_string_cell_with_its_typed_value_masked() {
    let content = r#"<office:document-content xmlns:office="o" xmlns:table="t" xmlns:text="x" xmlns:calcext="c"><office:body><office:spreadsheet><table:table table:name="S"><table:table-row><table:table-cell office:value-type="float" office:value="12345" calcext:value-type="float"><text:p>12345</text:p></table:table-cell><table:table-cell office:value-type="float" office:value="7"><text:p>7</text:p></table:table-cell><table:table-cell office:value-type="string"><text:p>Ay<text:span>şe</text:span></text:p></table:table-cell></table:table-row></table:table></office:spreadsheet></office:body></office:document-content>"#;
    let bytes = package(&[
        ("mimetype", "application/vnd.oasis.opendocument.spreadsheet"),
        ("content.xml", content),
    ]);
    let out = redact(
        &bytes,
        Format::Ods,
        &Limits::default(),
        &mut Words(vec!["12345", "Ayşe"]),
    )
    .expect("ods");
    let written = part(&out.bytes, "content.xml");
    assert!(
        written.contains(r#"<table:table-cell office:value-type="string" office:value="[X]" calcext:value-type="float"><text:p>[X]</text:p></table:table-cell>"#),
        "{written}"
    );
    assert!(
        written.contains(
            r#"<table:table-cell office:value-type="float" office:value="7"><text:p>7</text:p>"#
        ),
        "{written}"
    );
    assert!(
        written.contains("<text:p>[X]<text:span></text:span></text:p>"),
        "{written}"
    );
}

/// A file of the repository's test documents.
fn document(path: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/../tests/documents/{path}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .expect("document")
}

#[test]
fn legacy_office_text_is_overwritten_in_place_at_the_same_length() {
    for (path, format, word) in [
        ("office/tr_personel_formu.doc", Format::Doc, "Personel"),
        ("office/tr_musteri_sunumu.ppt", Format::Ppt, "Müşteri"),
    ] {
        let bytes = document(path);
        let out = redact(&bytes, format, &Limits::default(), &mut Words(vec![word]))
            .unwrap_or_else(|e| panic!("{path}: {e}"));
        let before =
            crate::extractor_pool::extract_document(&bytes, &Limits::default()).expect("reads");
        let after = crate::extractor_pool::extract_document(&out.bytes, &Limits::default())
            .expect("reads back");
        assert!(before.text.contains(word), "{path}");
        assert!(!after.text.contains(word), "{path}: {}", after.text);
        // "[X]" where the word stood, padded with spaces to its length; everything else as it was.
        let padded = format!("[X]{}", " ".repeat(word.chars().count() - 3));
        assert_eq!(
            after.text.matches("[X]").count(),
            before.text.matches(word).count(),
            "{path}"
        );
        assert!(out.left.contains(&padded), "{path}");
        assert_eq!(after.elements.len(), before.elements.len(), "{path}");
        assert!(
            out.notes.iter().any(|n| n.contains("document properties")),
            "{path}: {:?}",
            out.notes
        );
    }
}

#[test]
fn mangled_legacy_files_and_outlook_items_are_errors_never_a_panic() {
    for (path, format) in [
        ("office/tr_personel_formu.doc", Format::Doc),
        ("office/tr_musteri_sunumu.ppt", Format::Ppt),
        ("office/tr_odeme_talimati.msg", Format::Msg),
    ] {
        let bytes = document(path);
        let step = (bytes.len() / 97).max(1);
        let mut mangled: Vec<Vec<u8>> = (0..bytes.len())
            .step_by(step)
            .map(|at| {
                let mut copy = bytes.clone();
                copy[at] ^= 0xA5;
                copy
            })
            .collect();
        mangled.extend([600, bytes.len() / 2].map(|cut| bytes[..cut].to_vec()));
        for copy in mangled {
            if let Err(RedactError::Malformed(why)) =
                redact(&copy, format, &Limits::default(), &mut Words(vec!["a"]))
            {
                assert!(!why.contains("failed on this document"), "{path}: {why}");
            }
        }
    }
}
