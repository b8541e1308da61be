//! `cargo bench -p docsieve-actors --bench preview_path [-- FILE]`: the engine half of one preview
//! request, on one thread: extraction (with quality and language), then detection and masking of every
//! part, then the JSON body. Prints milliseconds per stage (mean of 500 runs) so that changes to the
//! request path can be weighed without HTTP noise.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use docsieve_actors::extractor_pool::extract_document as extract;
use docsieve_actors::extractor_pool::Limits;
use docsieve_actors::pii_masker::mask_document;
use docsieve_actors::pii_masker::Policy;

fn main() {
    let path = std::env::args()
        .skip(1)
        .find(|arg| !arg.starts_with('-'))
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../../shared/corpus/tr/tr_ik_yazisi.docx")
        });
    let bytes = std::fs::read(&path).expect("input file");
    let limits = Limits::default();
    let policy = Policy::default();
    let runs: u32 = std::env::var("RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(500);
    let (mut extracting, mut masking, mut json) = (Duration::ZERO, Duration::ZERO, Duration::ZERO);
    let mut size = 0;
    for _ in 0..runs {
        let started = Instant::now();
        let document = extract(&bytes, &limits).expect("extracts");
        let extracted = Instant::now();
        let masked = mask_document(&document, &policy).expect("masks");
        let masked_at = Instant::now();
        let body = serde_json::to_vec(&masked.document).expect("json");
        size = body.len();
        extracting += extracted - started;
        masking += masked_at - extracted;
        json += masked_at.elapsed();
    }
    let ms = |d: Duration| d.as_secs_f64() * 1000.0 / runs as f64;
    println!(
        "{}: {} bytes in, {size} bytes of JSON out; per request: extract {:.3} ms, mask {:.3} ms, json {:.3} ms",
        path.display(),
        bytes.len(),
        ms(extracting),
        ms(masking),
        ms(json)
    );
}
