//! The masking engine behind the redaction writers ([`crate::redaction`]): a document's bytes are
//! rewritten with each text masked by the tenant's policy and everything the whole document revealed
//! (its declared values and every value its full text's scan found), then every text the writer left
//! in the file is scanned again; and the file read back by the readers is scanned by [`check`].

use std::collections::BTreeMap;

use super::document::{declared, learn, normal_forms};
use super::engine::{self, Finding, Known, Policy};
use crate::extractor_pool::{Format, Limits};
use crate::model::Document;
use crate::redaction::{self, Masker, RedactError, Redacted, Replace};

impl From<super::LeakError> for RedactError {
    fn from(leak: super::LeakError) -> Self {
        RedactError::Refused(
            leak.remaining
                .keys()
                .cloned()
                .collect::<Vec<_>>()
                .join(", "),
        )
    }
}

/// What a scan of a redacted file's text found that is not the engine's own writing: None when
/// nothing, else the types left. `findings` are over `text`; `written` are the replacements written.
fn leftover(text: &str, findings: &[Finding], written: &[String]) -> Option<String> {
    // The places of the replacements in the text: a finding wholly inside one is a surrogate.
    let mut own: Vec<(usize, usize)> = Vec::new();
    for replacement in written.iter().filter(|w| !w.is_empty()) {
        own.extend(
            text.match_indices(replacement.as_str())
                .map(|(at, w)| (at, at + w.len())),
        );
    }
    let mut left: Vec<&'static str> = findings
        .iter()
        .filter(|f| !own.iter().any(|&(s, e)| s <= f.start && f.end <= e))
        .map(|f| f.pii_type.name())
        .collect();
    left.sort_unstable();
    left.dedup();
    (!left.is_empty()).then(|| left.join(", "))
}

/// Whether a value the output declares is made of the engine's replacements only (a first and a
/// family name declared apart, each replaced, read back joined), or empty.
fn own_writing(value: &str, written: &[String]) -> bool {
    let mut longest_first: Vec<&String> = written.iter().filter(|w| !w.is_empty()).collect();
    longest_first.sort_by_key(|w| std::cmp::Reverse(w.len()));
    let mut rest = value.to_string();
    for replacement in longest_first {
        rest = rest.replace(replacement.as_str(), " ");
    }
    !rest.chars().any(char::is_alphanumeric)
}

/// A redacted document with what the original's scan found, and what its check needs.
pub struct RedactedDocument {
    pub redacted: Redacted,
    pub format: Format,
    pub findings: Vec<Finding>,
    pub summary: BTreeMap<String, u64>,
    /// Each finding's normal form (see [`super::MaskedDocument::normal_forms`]).
    pub normal_forms: Vec<String>,
    /// The values the document revealed: a value found again in the output is a leak.
    pub known: Known,
    /// The original's pages, when it has pages (what a preview of it would cost).
    pub pages: Option<u32>,
}

/// The engine as the writers ask for it, keeping every replacement it wrote.
struct EngineMasker<'a> {
    policy: &'a Policy,
    known: &'a Known,
    written: rustc_hash::FxHashSet<String>,
}

impl Masker for EngineMasker<'_> {
    fn replacements(&mut self, text: &str) -> Result<Vec<Replace>, RedactError> {
        let masked = engine::mask_known(text, self.policy, self.known)?;
        let written = masked.written.as_deref();
        Ok(masked
            .findings
            .iter()
            .enumerate()
            .map(|(index, finding)| {
                let with = written
                    .and_then(|w| w.get(index))
                    .and_then(|w| w.clone())
                    .unwrap_or_else(|| finding.pii_type.placeholder().to_string());
                if !with.is_empty() {
                    self.written.insert(with.clone());
                }
                Replace {
                    start: finding.start,
                    end: finding.end,
                    with,
                }
            })
            .collect())
    }
}

/// What the whole document reveals: what it declares, and each value (of four characters or more)
/// that its full text's scan found; with those findings and their summary.
fn revealed(document: &Document, policy: &Policy) -> (Known, Vec<Finding>, BTreeMap<String, u64>) {
    let mut known = declared(document);
    let full_text = document.full_text();
    let (findings, summary) = engine::summarize_known(&full_text, policy, &known);
    learn(&mut known, &full_text, &findings);
    (known, findings, summary)
}

/// `bytes` (read as `document`, of `format`) rewritten in their own format by `policy`; refused when
/// a text the writer left in the file still holds personal data.
pub fn redact_document(
    bytes: &[u8],
    format: Format,
    document: &Document,
    policy: &Policy,
    limits: &Limits,
) -> Result<RedactedDocument, RedactError> {
    if redaction::writer_of(format).is_none() {
        return Err(redaction::unsupported_format(format));
    }
    let (known, findings, summary) = revealed(document, policy);
    let mut masker = EngineMasker {
        policy,
        known: &known,
        written: Default::default(),
    };
    let mut redacted = redaction::redact(bytes, format, limits, &mut masker)?;
    redacted.written = masker.written.into_iter().collect();
    let left = std::mem::take(&mut redacted.left);
    let found = engine::detect_known(&left, policy, &known);
    if let Some(types) = leftover(&left, &found, &redacted.written) {
        return Err(RedactError::Refused(types));
    }
    let normal_forms = normal_forms(&document.full_text(), &findings);
    Ok(RedactedDocument {
        redacted,
        format,
        findings,
        summary,
        normal_forms,
        known,
        pages: document.metadata.pages,
    })
}

/// The redacted file as its reader read it (`output`) scanned by `policy` with the values the original
/// revealed: anything found that is not the engine's own writing refuses the file, as does a value the
/// output declares about itself (an author a writer missed).
pub fn check(
    output: &Document,
    policy: &Policy,
    redacted: &RedactedDocument,
) -> Result<(), RedactError> {
    let text = output.full_text();
    let found = engine::detect_known(&text, policy, &redacted.known);
    let written = &redacted.redacted.written;
    let mut left: Vec<String> = declared(output)
        .values()
        .iter()
        .filter(|(_, value)| !own_writing(value, written))
        .map(|(ty, _)| ty.name().to_string())
        .collect();
    left.extend(leftover(&text, &found, written));
    match left.is_empty() {
        true => Ok(()),
        false => Err(RedactError::Refused(left.join(", "))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extractor_pool::extract_document as extract;

    fn fixture(name: &str) -> (Vec<u8>, Vec<String>, Vec<String>) {
        let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/documents/redaction");
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
        let limits = Limits::default();
        let document = extract(&bytes, &limits).expect("extract");
        let format = Format::named(&document.metadata.format).expect("format");
        let policy = Policy::default();
        let redacted =
            redact_document(&bytes, format, &document, &policy, &limits).expect("redacted");
        let output = extract(&redacted.redacted.bytes, &limits).expect("reads back");
        check(&output, &policy, &redacted)
            .unwrap_or_else(|e| panic!("{name}: {e}; read back: {}", output.text));
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
            let bytes = std::fs::read(root.join(name)).expect("file");
            let limits = Limits::default();
            let document = extract(&bytes, &limits).expect("extract");
            let format = Format::named(&document.metadata.format).expect("format");
            let policy = Policy::default();
            let redacted = redact_document(&bytes, format, &document, &policy, &limits)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            let output = extract(&redacted.redacted.bytes, &limits).expect("reads back");
            check(&output, &policy, &redacted).unwrap_or_else(|e| panic!("{name}: {e}"));
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
}

#[cfg(test)]
mod pdf_tests {
    use super::*;
    use crate::extractor_pool::extract_document as extract;

    fn corpus(name: &str) -> Vec<u8> {
        super::tests::test_file(&format!("../shared/corpus/{name}"))
    }

    /// Every stream of a PDF, decompressed, and every string and name of its objects, as text.
    fn everything_in(bytes: &[u8]) -> String {
        let doc = lopdf::Document::load_mem(bytes).expect("a PDF");
        let mut out = String::new();
        for object in doc.objects.values() {
            match object {
                lopdf::Object::Stream(stream) => {
                    let content = stream
                        .decompressed_content()
                        .unwrap_or_else(|_| stream.content.clone());
                    out.push_str(&String::from_utf8_lossy(&content));
                }
                other => out.push_str(&format!("{other:?}")),
            }
            out.push('\n');
        }
        out
    }

    fn planted(name: &str) -> Vec<String> {
        let sidecar: serde_json::Value =
            serde_json::from_slice(&corpus(&format!("{name}.pii.json"))).expect("sidecar");
        sidecar["pii"]
            .as_array()
            .expect("pii")
            .iter()
            .map(|item| item["value"].as_str().expect("value").to_string())
            .collect()
    }

    /// `bytes` redacted as a PDF, and the file read back, which must pass the check.
    fn redacted_pdf(bytes: &[u8]) -> (Redacted, Document) {
        let limits = Limits::default();
        let document = extract(bytes, &limits).expect("extract");
        let policy = Policy::default();
        let redacted = redact_document(bytes, Format::Pdf, &document, &policy, &limits)
            .unwrap_or_else(|e| panic!("{e}"));
        let output = extract(&redacted.redacted.bytes, &limits).expect("reads back");
        check(&output, &policy, &redacted).expect("checks");
        (redacted.redacted, output)
    }

    #[test]
    fn a_text_pdf_loses_its_values_from_the_text_layer_and_every_stream_and_keeps_the_rest() {
        let original = corpus("tr/tr_fatura_yazisi.pdf");
        let out = redacted_pdf(&original).0.bytes;
        let text = extract(&out, &Limits::default()).expect("reads").text;
        let before = extract(&original, &Limits::default()).expect("reads").text;
        let everything = everything_in(&out);
        for value in planted("tr/tr_fatura_yazisi.pdf") {
            assert!(
                !text.contains(&value),
                "a value of {} characters is in the text",
                value.len()
            );
            assert!(
                !everything.contains(&value),
                "a value of {} characters is in a stream or object",
                value.len()
            );
        }
        // The words around the values are still there, in the text layer.
        let words = |t: &str| -> usize {
            t.split_whitespace()
                .filter(|w| w.chars().all(char::is_alphabetic) && w.chars().count() > 3)
                .count()
        };
        assert!(words(&text) * 10 >= words(&before) * 7, "{text}");
        let doc = lopdf::Document::load_mem(&out).expect("PDF");
        assert_eq!(
            doc.get_pages().len(),
            lopdf::Document::load_mem(&original)
                .expect("PDF")
                .get_pages()
                .len()
        );
        assert!(
            doc.trailer.get(b"Info").is_err(),
            "the document information is removed"
        );
    }

    #[test]
    fn a_naive_redaction_a_box_over_text_still_there_is_redacted_for_real() {
        let original = corpus("tr/tr_fatura_yazisi.pdf");
        // A box drawn over the whole first page, the text left under it: what a naive redactor does.
        let mut doc = lopdf::Document::load_mem(&original).expect("PDF");
        let first = *doc.get_pages().get(&1).expect("page 1");
        let mut content = doc.get_page_content(first).expect("content");
        content.extend_from_slice(b"\nq 0 g 0 0 1000 1000 re f Q\n");
        doc.change_page_content(first, content).expect("change");
        let mut naive = Vec::new();
        doc.save_to(&mut naive).expect("save");
        let values = planted("tr/tr_fatura_yazisi.pdf");
        let under_the_box = extract(&naive, &Limits::default()).expect("reads").text;
        assert!(
            values.iter().any(|v| under_the_box.contains(v.as_str())),
            "the naive redaction leaves the values in the text layer"
        );
        let out = redacted_pdf(&naive).0.bytes;
        let text = extract(&out, &Limits::default()).expect("reads").text;
        for value in &values {
            assert!(!text.contains(value.as_str()));
        }
    }

    #[test]
    fn a_scanned_image_is_painted_over_where_ocr_read_its_values() {
        let original = corpus("tr/tr_kimlik_notu.png");
        let limits = Limits::default();
        let document = extract(&original, &limits).expect("extract");
        let policy = Policy::default();
        let redacted = redact_document(&original, Format::Png, &document, &policy, &limits)
            .unwrap_or_else(|e| panic!("{e}"));
        let output = extract(&redacted.redacted.bytes, &limits).expect("reads back");
        check(&output, &policy, &redacted).expect("checks");
        for value in planted("tr/tr_kimlik_notu.png") {
            assert!(!output.text.contains(&value), "{} characters", value.len());
        }
        assert!(redacted.redacted.notes[0].contains("painted over"));
        // The same page as a TIFF: written back as a TIFF, painted over the same way.
        let mut tiff = std::io::Cursor::new(Vec::new());
        image::load_from_memory(&original)
            .expect("png")
            .write_to(&mut tiff, image::ImageFormat::Tiff)
            .expect("tiff");
        let tiff = tiff.into_inner();
        let document = extract(&tiff, &limits).expect("extract");
        let redacted = redact_document(&tiff, Format::Tiff, &document, &policy, &limits)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(
            redacted.redacted.bytes.starts_with(b"II*\0")
                || redacted.redacted.bytes.starts_with(b"MM\0*")
        );
        let output = extract(&redacted.redacted.bytes, &limits).expect("reads back");
        check(&output, &policy, &redacted).expect("checks");
        for value in planted("tr/tr_kimlik_notu.png") {
            assert!(!output.text.contains(&value), "{} characters", value.len());
        }
    }

    #[test]
    fn scanned_and_drawn_pages_get_their_values_burned_into_the_page_image() {
        // The national id the three files show (tests/documents/make_scanned.py).
        let id = "318273645";
        for name in [
            "scanned_jpx_tr.pdf",
            "scanned_ccitt_tr.pdf",
            "drawn_text_tr.pdf",
        ] {
            let bytes = super::tests::test_file(&format!("tests/documents/{name}"));
            let before = extract(&bytes, &Limits::default()).expect("reads");
            assert!(before.text.contains(id), "{name}: OCR reads the id");
            let (Redacted { notes, .. }, output) = redacted_pdf(&bytes);
            assert!(!output.text.contains(id), "{name}: {}", output.text);
            assert!(
                notes
                    .iter()
                    .any(|n| n.contains("burned into the page's image")),
                "{name}: {notes:?}"
            );
            assert_eq!(output.metadata.pages, before.metadata.pages, "{name}");
            // The words around the value are still read.
            assert!(output.text.contains("Kimlik"), "{name}: {}", output.text);
        }
        // The text page of drawn_text_tr.pdf keeps its text layer.
        let (_, output) = redacted_pdf(&super::tests::test_file(
            "tests/documents/drawn_text_tr.pdf",
        ));
        assert!(output.text.contains("musteri dilekcesi"), "{}", output.text);
    }

    #[test]
    fn a_value_drawn_by_a_form_xobject_is_burned_into_a_drawing_of_its_page() {
        let original = corpus("tr/tr_fatura_yazisi.pdf");
        let mut doc = lopdf::Document::load_mem(&original).expect("PDF");
        let first = *doc.get_pages().get(&1).expect("page 1");
        // The first page's content moved into a form XObject that the page draws.
        let content = doc.get_page_content(first).expect("content");
        let resources = match doc.get_dictionary(first).expect("page").get(b"Resources") {
            Ok(lopdf::Object::Reference(id)) => doc.get_dictionary(*id).expect("resources").clone(),
            Ok(lopdf::Object::Dictionary(resources)) => resources.clone(),
            _ => panic!("the page names its resources"),
        };
        let mut form = lopdf::Dictionary::new();
        form.set("Type", lopdf::Object::Name(b"XObject".to_vec()));
        form.set("Subtype", lopdf::Object::Name(b"Form".to_vec()));
        form.set("BBox", vec![0.into(), 0.into(), 2000.into(), 2000.into()]);
        form.set("Resources", lopdf::Object::Dictionary(resources.clone()));
        let form = doc.add_object(lopdf::Stream::new(form, content));
        let mut xobjects = lopdf::Dictionary::new();
        xobjects.set("Fm0", lopdf::Object::Reference(form));
        let mut page_resources = resources;
        page_resources.set("XObject", lopdf::Object::Dictionary(xobjects));
        let page = doc.get_dictionary_mut(first).expect("page");
        page.set("Resources", lopdf::Object::Dictionary(page_resources));
        doc.change_page_content(first, b"q /Fm0 Do Q".to_vec())
            .expect("change");
        let mut wrapped = Vec::new();
        doc.save_to(&mut wrapped).expect("save");
        let values = planted("tr/tr_fatura_yazisi.pdf");
        let (Redacted { notes, .. }, output) = redacted_pdf(&wrapped);
        assert!(
            notes
                .iter()
                .any(|n| n.starts_with("page 1: drawn as an image") && n.contains("form XObject")),
            "{notes:?}"
        );
        for value in &values {
            assert!(!output.text.contains(value.as_str()), "{}", output.text);
        }
        let everything = everything_in(&redacted_pdf(&wrapped).0.bytes);
        assert!(values.iter().all(|v| !everything.contains(v.as_str())));
    }

    #[test]
    fn corpus_pdfs_are_redacted_or_refused_never_passed_through_with_a_value() {
        for name in [
            "pdf/testPDF.pdf",
            "pdf/multi-column-2p.pdf",
            "pdf/loremipsum-flat.pdf",
            "pdf/korean-text-with-tables.pdf",
            "pdf/right_to_left_01.pdf",
            "pdf/testOCR.pdf",
        ] {
            let bytes = corpus(name);
            let limits = Limits::default();
            let Ok(document) = extract(&bytes, &limits) else {
                continue;
            };
            let policy = Policy::default();
            match redact_document(&bytes, Format::Pdf, &document, &policy, &limits) {
                Ok(redacted) => {
                    // Read back: clean, or refused (a value its text shows that the page's text did
                    // not); never an error of another kind.
                    let output = extract(&redacted.redacted.bytes, &limits).expect("reads back");
                    match check(&output, &policy, &redacted) {
                        Ok(()) | Err(RedactError::Refused(_)) => {}
                        Err(other) => panic!("{name}: {other}"),
                    }
                }
                Err(RedactError::Unsupported(_) | RedactError::Refused(_)) => {}
                Err(other) => panic!("{name}: {other}"),
            }
        }
    }
}
