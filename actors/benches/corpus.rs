//! `cargo bench -p docsieve-actors --bench corpus`: mask recall, typed recall and precision of the PII
//! engine on its generated multilingual corpus (Turkish, English, German, Spanish, Polish, Italian,
//! Dutch, French business sentences with planted values of 37 types in every layout the catalogue
//! claims, among look-alike order numbers, amounts, dates and product codes). `CORPUS_DOCUMENTS` sets
//! the size (default 2,000 documents), `CORPUS_SEED` the seed; `CORPUS_SHOW=1` lists what was missed.

use docsieve_actors::pii_masker::engine::{planted::corpus, Policy};

fn main() {
    let documents: usize = std::env::var("CORPUS_DOCUMENTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2_000);
    let seed: u64 = std::env::var("CORPUS_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2026);
    let docs = corpus::corpus(seed, documents);
    let bytes: usize = docs.iter().map(|d| d.text.len()).sum();
    let started = std::time::Instant::now();
    let score = corpus::score(&docs, &Policy::default());
    let elapsed = started.elapsed();
    println!(
        "corpus: {documents} documents in 8 languages, {bytes} bytes, {} planted values, {} findings ({:.1} ms)",
        score.all.planted,
        score.findings,
        elapsed.as_secs_f64() * 1000.0
    );
    println!(
        "  mask recall {:.4}  typed recall {:.4}  precision {:.4}",
        score.mask_recall(),
        score.typed_recall(),
        score.precision()
    );
    println!(
        "  {:<22} {:>8} {:>8} {:>8}",
        "type", "planted", "masked", "typed"
    );
    for (ty, c) in &score.by_type {
        println!("  {ty:<22} {:>8} {:>8} {:>8}", c.planted, c.masked, c.typed);
    }
    if std::env::var("CORPUS_SHOW").is_ok() {
        for (ty, layout, value) in &score.missed {
            println!("  missed   {:<22} {layout:<28} {value}", ty.name());
        }
        for (ty, found, layout, value) in &score.mistyped {
            println!(
                "  mistyped {:<22} as {found:<20} {layout:<28} {value}",
                ty.name()
            );
        }
        for (text, ty) in &score.false_ones {
            println!("  false    {ty:<22} {text}");
        }
    }
}
