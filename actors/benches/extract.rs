//! `cargo bench -p docsieve-actors --bench extract`: extraction speed over `shared/corpus`, the
//! office documents made in `tests/documents/office` (Word and PowerPoint 97-2003, Outlook, OpenDocument,
//! RTF, EPUB, mbox) and those Microsoft Office wrote (`tests/documents/msoffice`), one thread. Prints documents per second per format, pages per second for PDFs with
//! a text layer, and seconds per OCR page.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use docsieve_actors::extractor_pool::extract_document as extract;
use docsieve_actors::extractor_pool::Limits;
use docsieve_actors::model::ElementKind;

fn main() {
    if std::env::var_os("OMP_THREAD_LIMIT").is_none() {
        std::env::set_var("OMP_THREAD_LIMIT", "1");
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus");
    let table = std::fs::read_to_string(root.join("expectations.tsv")).expect("expectations.tsv");
    let limits = Limits::default();
    // format -> (documents, total time, pages)
    let mut by_format: BTreeMap<String, (u32, Duration, u32)> = BTreeMap::new();
    let mut ocr_pages = 0u32;
    let mut ocr_time = Duration::ZERO;
    let documents = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/documents");
    let mut files: Vec<(PathBuf, String, &str)> = table
        .lines()
        .skip(1)
        .filter_map(|line| {
            let mut columns = line.split('\t');
            let (path, expect) = (columns.next()?, columns.next()?);
            let expect = match expect {
                "text" => "text",
                "scanned" => "scanned",
                _ => return None,
            };
            Some((root.join(path), path.to_string(), expect))
        })
        .collect();
    // Made here (office/) and written by Microsoft Office (msoffice/), password-protected ones left out.
    for folder in ["office", "msoffice"] {
        let mut office: Vec<_> = std::fs::read_dir(documents.join(folder))
            .map(|entries| entries.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        office.sort();
        for path in office {
            let name = path
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            let new = [
                ".doc", ".ppt", ".msg", ".odt", ".odp", ".ods", ".rtf", ".epub", ".mbox",
            ];
            let locked = name.contains("_sifreli") || name.contains("encrypted");
            if !locked && new.iter().any(|x| name.ends_with(x)) {
                files.push((path, format!("{folder}/{name}"), "text"));
            }
        }
    }
    for (file, path, expect) in &files {
        let (path, expect) = (path.as_str(), *expect);
        let bytes = std::fs::read(file).expect("file");
        // Small files take microseconds: more runs, for a steady median.
        let runs = if expect == "scanned" {
            1
        } else if bytes.len() < 100_000 {
            51
        } else {
            5
        };
        let mut samples = Vec::new();
        let mut last = None;
        for _ in 0..runs {
            let started = Instant::now();
            last = Some(extract(&bytes, &limits));
            samples.push(started.elapsed());
        }
        samples.sort();
        let elapsed = samples[samples.len() / 2];
        let Some(Ok(document)) = last else {
            println!("  {path}: failed");
            continue;
        };
        let pages = document.metadata.pages.unwrap_or(1);
        if document
            .elements
            .iter()
            .any(|e| e.kind == ElementKind::ImageText)
        {
            let ocr = document
                .elements
                .iter()
                .filter_map(|e| e.page)
                .max()
                .unwrap_or(1);
            ocr_pages += ocr;
            ocr_time += elapsed;
            println!(
                "  {path}: {:.2} s, OCR of {ocr} page(s), grade {}",
                elapsed.as_secs_f64(),
                document.quality.grade
            );
            continue;
        }
        if elapsed > Duration::from_millis(2) {
            println!(
                "  {path}: {:.1} ms ({} KB)",
                elapsed.as_secs_f64() * 1000.0,
                bytes.len() / 1024
            );
        }
        let entry = by_format
            .entry(document.metadata.format.clone())
            .or_default();
        entry.0 += 1;
        entry.1 += elapsed;
        entry.2 += pages;
    }
    println!("extraction benchmark (median of 5 runs per file, 51 under 100 KB, one thread):");
    for (format, (documents, time, pages)) in &by_format {
        let seconds = time.as_secs_f64();
        let extra = if format == "pdf" {
            format!(", {:.0} pages/s", f64::from(*pages) / seconds)
        } else {
            String::new()
        };
        println!("  {format:<5} {documents:>2} files  {:>8.1} documents/s  ({:.2} ms per document{extra})", f64::from(*documents) / seconds, seconds * 1000.0 / f64::from(*documents));
    }
    if ocr_pages > 0 {
        println!(
            "  OCR   {ocr_pages} pages  {:.2} s per page",
            ocr_time.as_secs_f64() / f64::from(ocr_pages)
        );
    }
}
