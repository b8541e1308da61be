//! `cargo bench -p docsieve-actors --bench redaction [-- FILE...]`: what giving a document back in its
//! own format costs beyond its preview, on one thread. Per file: the preview's engine half (extract,
//! mask every part), then the redaction's (extract, write the masked file, read it back, check it).
//! Prints milliseconds per stage (mean of RUNS runs, default 200) and the CPU the redaction adds.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use docsieve_actors::extractor_pool::extract_document as extract;
use docsieve_actors::extractor_pool::{Format, Limits};
use docsieve_actors::pii_masker::{check_redacted, mask_document, redact_document, Policy};

fn main() {
    let mut paths: Vec<PathBuf> = std::env::args()
        .skip(1)
        .filter(|arg| !arg.starts_with('-'))
        .map(PathBuf::from)
        .collect();
    if paths.is_empty() {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
        paths = [
            "tests/documents/redaction/planted.docx",
            "tests/documents/redaction/planted.xlsx",
            "tests/documents/redaction/planted.pptx",
            "../shared/corpus/tr/tr_ik_yazisi.docx",
            "../shared/corpus/tr/tr_musteri_listesi.csv",
        ]
        .iter()
        .map(|p| root.join(p))
        .collect();
    }
    let runs: u32 = std::env::var("RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(200);
    let limits = Limits::default();
    let policy = Policy::default();
    for path in paths {
        let bytes = std::fs::read(&path).expect("input file");
        let mut stages = [Duration::ZERO; 5];
        let mut out = 0;
        for _ in 0..runs {
            let t0 = Instant::now();
            let document = extract(&bytes, &limits).expect("extracts");
            let t1 = Instant::now();
            let _masked = mask_document(&document, &policy).expect("masks");
            let t2 = Instant::now();
            let format = Format::named(&document.metadata.format).expect("format");
            let redacted =
                redact_document(&bytes, format, &document, &policy, &limits).expect("redacts");
            let t3 = Instant::now();
            let output = extract(&redacted.redacted.bytes, &limits).expect("reads back");
            let t4 = Instant::now();
            check_redacted(&output, &policy, &redacted).expect("checks");
            let t5 = Instant::now();
            out = redacted.redacted.bytes.len();
            for (stage, (a, b)) in
                stages
                    .iter_mut()
                    .zip([(t0, t1), (t1, t2), (t2, t3), (t3, t4), (t4, t5)])
            {
                *stage += b - a;
            }
        }
        let ms = |d: Duration| d.as_secs_f64() * 1000.0 / runs as f64;
        let [read, mask, write, read_back, check] = stages.map(ms);
        println!(
            "{}: {} bytes in, {out} out; preview: extract {read:.3} + mask {mask:.3} = {:.3} ms; \
             redaction beyond its extraction: write {write:.3} + read back {read_back:.3} + check \
             {check:.3} = {:.3} ms ({:+.3} ms beyond the preview)",
            path.file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
            bytes.len(),
            read + mask,
            write + read_back + check,
            write + read_back + check - mask,
        );
    }
}
