//! Hostile input for the container formats: mutated real files (flipped bytes, truncation, inserted
//! junk) never panic and never hang; zip bombs and deep XML stop at their limits. Bounded: a fixed
//! number of cases per format, so CI time stays small.

use std::io::Write;
use std::path::PathBuf;

use docsieve_actors::extractor_pool::extract_document as extract;
use docsieve_actors::extractor_pool::Limits;
use proptest::prelude::*;

/// A corpus file, or (`office/...`) one of the office documents made here.
fn corpus(path: &str) -> Vec<u8> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    // Documents of tests/documents (made here, or by Microsoft Office), else of the shared corpus.
    let full = if path.starts_with("office/") || path.starts_with("msoffice/") {
        root.join("../tests/documents").join(path)
    } else {
        root.join("../../shared/corpus").join(path)
    };
    std::fs::read(&full).unwrap_or_else(|e| panic!("{}: {e}", full.display()))
}

fn mutate(mut bytes: Vec<u8>, edits: &[(usize, u8, u8)]) -> Vec<u8> {
    for &(position, value, kind) in edits {
        if bytes.is_empty() {
            break;
        }
        let at = position % bytes.len();
        match kind % 4 {
            0 => bytes[at] = value,
            1 => bytes.truncate(at.max(1)),
            2 => bytes.insert(at, value),
            _ => {
                bytes.remove(at);
            }
        }
    }
    bytes
}

const SAMPLES: &[&str] = &[
    "docx/docx-tables.docx",
    "pptx/fake-power-point-table.pptx",
    "xlsx/testEXCEL_dateFormats.xlsx",
    "pdf/testPDF.pdf",
    "eml/fake-email-attachment.eml",
    "html/kvp_data_example.html",
    "xml/invoice-valid.xml",
    "csv/testCSV.csv",
    "office/tr_personel_formu.doc",
    "office/tr_musteri_sunumu.ppt",
    "office/tr_personel_eposta.msg",
    "office/tr_personel_formu.odt",
    "office/tr_musteri_sunumu.odp",
    "office/tr_personel_formu.rtf",
    "office/tr_personel_formu.epub",
    "office/tr_yazisma.mbox",
    "msoffice/oletools_harmless-clean.doc",
    "msoffice/oletools_embedded-simple-2007.ppt",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 192, ..ProptestConfig::default() })]

    #[test]
    fn mutated_containers_fail_cleanly(
        sample in 0..SAMPLES.len(),
        edits in proptest::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 1..6),
    ) {
        let bytes = mutate(corpus(SAMPLES[sample]), &edits);
        // Ok or a named error; a panic fails the test.
        if let Err(error) = extract(&bytes, &Limits::default()) {
            prop_assert!(!error.code().is_empty());
        }
    }
}

#[test]
fn a_zip_bomb_stops_at_the_decompressed_budget() {
    let mut buffer = std::io::Cursor::new(Vec::new());
    {
        let mut archive = zip::ZipWriter::new(&mut buffer);
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        archive
            .start_file("[Content_Types].xml", options)
            .expect("entry");
        archive.write_all(b"<Types/>").expect("write");
        archive
            .start_file("word/document.xml", options)
            .expect("entry");
        let zeros = vec![b' '; 1 << 20];
        for _ in 0..64 {
            archive.write_all(&zeros).expect("write");
        }
        archive.finish().expect("finish");
    }
    let bytes = buffer.into_inner();
    assert!(
        bytes.len() < 1 << 20,
        "the bomb is small: {} bytes",
        bytes.len()
    );
    let limits = Limits {
        max_decompressed_bytes: 16 << 20,
        ..Limits::default()
    };
    let error = extract(&bytes, &limits).expect_err("bomb refused");
    assert_eq!(error.code(), "limit_exceeded");
}

#[test]
fn deep_xml_and_entities_stay_harmless() {
    let deep = format!(
        "<?xml version=\"1.0\"?>{}x{}",
        "<a>".repeat(5000),
        "</a>".repeat(5000)
    );
    assert_eq!(
        extract(deep.as_bytes(), &Limits::default())
            .expect_err("too deep")
            .code(),
        "limit_exceeded"
    );
    let laughs = r#"<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]><lolz>&lol2;</lolz>"#;
    // Entities are never expanded: the reference stays text (or fails), nothing explodes.
    if let Ok(document) = extract(laughs.as_bytes(), &Limits::default()) {
        assert!(document.text.len() < 100);
    }
}

/// `levels` nested elements of `tag` around a word: the shape that overflowed the reader's stack.
fn nested(tag: &str, levels: usize) -> String {
    format!(
        "<html><body>{}deep{}</body></html>",
        format!("<{tag}>").repeat(levels),
        format!("</{tag}>").repeat(levels)
    )
}

#[test]
fn deep_html_is_refused_at_its_limit_on_a_small_stack() {
    // On a 2 MB stack (what the pool threads had when 5,000 levels overflowed), so that a walk that recursed past
    // the limit would overflow here; ends in well under a second even at 200,000 levels.
    let outcome = std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(|| {
            let limits = Limits::default();
            for levels in [2_000, 5_000, 20_000, 200_000] {
                for tag in ["div", "span", "b", "ul"] {
                    let error =
                        extract(nested(tag, levels).as_bytes(), &limits).expect_err("too deep");
                    assert_eq!(error.code(), "limit_exceeded", "{tag} x {levels}: {error}");
                }
            }
            // Unclosed, and closed early and opened again (a saw-tooth within one slice).
            let unclosed = "<div>".repeat(50_000);
            assert_eq!(
                extract(unclosed.as_bytes(), &limits)
                    .expect_err("deep")
                    .code(),
                "limit_exceeded"
            );
            let teeth = format!("{}x{}", "<i>".repeat(900), "</i>".repeat(900)).repeat(20);
            assert_eq!(
                extract(teeth.as_bytes(), &limits).expect_err("deep").code(),
                "limit_exceeded"
            );
            // Within the limit: read as usual.
            let shallow = extract(nested("div", 200).as_bytes(), &limits).expect("shallow");
            assert!(shallow.text.contains("deep"));
        })
        .expect("thread")
        .join();
    assert!(outcome.is_ok(), "the deep HTML checks failed or overflowed");
}

#[test]
fn a_preview_bound_refuses_a_large_text_before_reading_it() {
    let text = "Merhaba dünya, bu bir deneme satırıdır.\n".repeat(50_000);
    let limits = Limits {
        max_text_bytes: Some(1 << 20),
        ..Limits::default()
    };
    let error = extract(text.as_bytes(), &limits).expect_err("too large");
    assert_eq!(error.code(), "result_too_large");
    assert!(extract(text.as_bytes(), &Limits::default()).is_ok());
}

/// An XLSX whose only sheet holds `cells` (reference, inline text).
fn workbook(cells: &[(&str, &str)]) -> Vec<u8> {
    let sheet_cells: String = cells
        .iter()
        .map(|(at, text)| format!(r#"<c r="{at}" t="inlineStr"><is><t>{text}</t></is></c>"#))
        .collect();
    let parts = [
        ("[Content_Types].xml", r#"<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>"#.to_string()),
        ("_rels/.rels", r#"<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>"#.to_string()),
        ("xl/workbook.xml", r#"<?xml version="1.0"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Liste" sheetId="1" r:id="rId1"/></sheets></workbook>"#.to_string()),
        ("xl/_rels/workbook.xml.rels", r#"<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>"#.to_string()),
        ("xl/worksheets/sheet1.xml", format!(r#"<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData><row>{sheet_cells}</row></sheetData></worksheet>"#)),
    ];
    let mut buffer = std::io::Cursor::new(Vec::new());
    {
        let mut archive = zip::ZipWriter::new(&mut buffer);
        for (name, text) in parts {
            archive
                .start_file(name, zip::write::SimpleFileOptions::default())
                .expect("part");
            archive.write_all(text.as_bytes()).expect("write");
        }
        archive.finish().expect("zip");
    }
    buffer.into_inner()
}

#[test]
fn a_sheet_with_a_far_away_cell_is_refused_before_it_is_allocated() {
    // Read as usual: a small sheet starting at C2.
    let small = workbook(&[("C2", "Ad"), ("D2", "Ayşe")]);
    let document = extract(&small, &Limits::default()).expect("small sheet");
    assert!(document.text.contains("Ayşe"), "{}", document.text);
    // One cell at Excel's last address made a dense range of 17 billion cells; a reference whose
    // digits overflow made one of 632 GB (found by tests/fuzz.rs). Both are refused at once.
    for far in ["XFD1048576", "A99999999999", "ZZZZZZZZ1"] {
        let hostile = workbook(&[("A1", "x"), (far, "y")]);
        match extract(&hostile, &Limits::default()) {
            Err(error) => assert!(
                ["limit_exceeded", "malformed_document", "extractor_failed"]
                    .contains(&error.code()),
                "{far}: {error}"
            ),
            Ok(document) => panic!("{far}: read as {} bytes of text", document.text.len()),
        }
    }
}

/// A one-page PDF without a text layer whose page is `width` x `height` points and whose content
/// stream is `content`.
fn pdf_page(width: u64, height: u64, content: &str) -> Vec<u8> {
    let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_string(),
        format!(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {width} {height}] /Resources << >> \
             /Contents 4 0 R >>"
        ),
        format!(
            "<< /Length {} >>\nstream\n{content}\nendstream",
            content.len()
        ),
    ];
    let mut out = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (number, body) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n{body}\nendobj\n", number + 1).as_bytes());
    }
    let xref = out.len();
    out.extend_from_slice(
        format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes(),
    );
    for offset in offsets {
        out.extend_from_slice(format!("{offset:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .as_bytes(),
    );
    out
}

#[test]
fn pages_drawn_for_ocr_stay_within_their_pixel_budget() {
    // A page 141 m a side (1.67 million pixels a side at 300 dpi) and one of no area: each is drawn
    // within the pixel budget or skipped, and ends as a named outcome.
    for (width, height, content) in [
        (400_000, 400_000, "0 0 m 400000 400000 l S"),
        (0, 0, "0 0 m 10 10 l S"),
    ] {
        let started = std::time::Instant::now();
        let result = extract(&pdf_page(width, height, content), &Limits::default());
        if let Err(error) = &result {
            assert!(!error.code().is_empty());
        }
        eprintln!(
            "{width}x{height}: {:?} in {:.1} s",
            result.as_ref().map(|d| d.text.len()).map_err(|e| e.code()),
            started.elapsed().as_secs_f64()
        );
    }
    // The 400,000-point page drawn unbounded would need 640 GB of pixels; within the budget it is
    // 40 million pixels (160 MB of RGBA). The process's peak stays far below a gigabyte more.
    let status = std::fs::read_to_string("/proc/self/status").expect("status");
    let peak_kb: u64 = status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM");
    assert!(peak_kb < 3 << 20, "peak RSS {peak_kb} kB");
}
