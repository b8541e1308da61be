//! The PDF and image writers over the masking engine.

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
    // Two pages, one grey and one in colour: both painted over, both written back.
    let picture = image::load_from_memory(&original).expect("png");
    let (grey, colour) = (picture.to_luma8(), picture.to_rgb8());
    let mut pages = std::io::Cursor::new(Vec::new());
    {
        use tiff::encoder::{colortype, TiffEncoder};
        let mut encoder = TiffEncoder::new(&mut pages).expect("encoder");
        encoder
            .write_image::<colortype::Gray8>(grey.width(), grey.height(), grey.as_raw())
            .expect("page 1");
        encoder
            .write_image::<colortype::RGB8>(colour.width(), colour.height(), colour.as_raw())
            .expect("page 2");
    }
    let pages = pages.into_inner();
    let document = extract(&pages, &limits).expect("extract");
    let redacted = redact_document(&pages, Format::Tiff, &document, &policy, &limits)
        .unwrap_or_else(|e| panic!("{e}"));
    let mut decoder =
        tiff::decoder::Decoder::new(std::io::Cursor::new(&redacted.redacted.bytes)).expect("tiff");
    assert!(decoder.more_images() && decoder.next_image().is_ok() && !decoder.more_images());
    let output = extract(&redacted.redacted.bytes, &limits).expect("reads back");
    check(&output, &policy, &redacted).expect("checks");
    for value in planted("tr/tr_kimlik_notu.png") {
        assert!(
            document.text.matches(value.as_str()).count() >= 2,
            "both pages hold it"
        );
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
