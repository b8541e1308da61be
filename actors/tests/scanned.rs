//! Scanned PDF pages: pages without a usable text layer are drawn at 300 dpi and read by OCR, whatever
//! holds their words (a JPEG 2000 image, a CCITT Group 4 image, vector outlines), and pages with a text
//! layer in the same document stay text. The documents and the script that makes them are in
//! `tests/documents` (see its SOURCES.md).

use std::path::PathBuf;

use docsieve_actors::extractor_pool::extract_document as extract;
use docsieve_actors::extractor_pool::Limits;
use docsieve_actors::model::ElementKind;

fn document(name: &str) -> Vec<u8> {
    std::fs::read(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/documents")
            .join(name),
    )
    .expect("test document")
}

/// The words of the scanned page the script draws, with its Turkish letters, and its national id.
const WORDS: &[&str] = &[
    "Müşterimiz",
    "Gülşen",
    "Çakıroğlu",
    "başvurunuz",
    "öğleden",
    "alınmıştır",
    "Ödeme",
    "çarşamba",
    "Çiğdem",
    "Sokağı",
    "31827364532",
];

fn recall(text: &str) -> f64 {
    let found = WORDS.iter().filter(|word| text.contains(*word)).count();
    found as f64 / WORDS.len() as f64
}

#[test]
fn scanned_pages_in_every_image_filter_are_drawn_and_read_by_ocr() {
    for name in ["scanned_jpx_tr.pdf", "scanned_ccitt_tr.pdf"] {
        let read =
            extract(&document(name), &Limits::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            read.elements
                .iter()
                .all(|e| e.kind == ElementKind::ImageText),
            "{name}: {:?}",
            read.elements
        );
        // The national id must come through digit for digit: masking depends on it.
        assert!(read.text.contains("31827364532"), "{name}: {}", read.text);
        assert!(recall(&read.text) >= 0.9, "{name}: {}", read.text);
        assert_eq!(read.metadata.pages, Some(1));
        assert!(
            read.quality.signals.ocr_confidence.is_some_and(|c| c > 0.7),
            "{name}"
        );
        assert!(read.quality.signals.damaged_parts.is_empty(), "{name}");
    }
}

#[test]
fn drawn_words_are_read_by_ocr_and_a_text_page_beside_them_stays_text() {
    let read = extract(&document("drawn_text_tr.pdf"), &Limits::default()).expect("read");
    let first: Vec<_> = read.elements.iter().filter(|e| e.page == Some(1)).collect();
    let second: Vec<_> = read.elements.iter().filter(|e| e.page == Some(2)).collect();
    assert!(
        first.iter().any(|e| e.kind == ElementKind::Paragraph
            && e.text.contains("Ek 1: musteri dilekcesi")),
        "{first:?}"
    );
    assert!(
        first.iter().all(|e| e.kind != ElementKind::ImageText),
        "{first:?}"
    );
    let ocr: String = second
        .iter()
        .filter(|e| e.kind == ElementKind::ImageText)
        .map(|e| e.text.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    assert!(recall(&ocr) >= 0.9, "{ocr}");
    assert!(ocr.contains("31827364532"), "{ocr}");
    // The pages come in their order: the text page's paragraph before the drawn page's words.
    let text_at = read.text.find("Ek 1").expect("page 1");
    let ocr_at = read.text.find("çarşamba").expect("page 2");
    assert!(text_at < ocr_at, "{}", read.text);
}
