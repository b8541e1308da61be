//! `cargo bench -p docsieve-actors --bench corpus`: mask recall, typed recall and precision of the PII
//! engine on its generated multilingual corpus (Turkish, English, German, Spanish, Polish, Italian,
//! Dutch, French business sentences with planted values of 37 types in every layout the catalogue
//! claims, among look-alike order numbers, amounts, dates and product codes). `CORPUS_DOCUMENTS` sets
//! the size (default 2,000 documents), `CORPUS_SEED` the seed; `CORPUS_SHOW=1` lists what was missed.
//! Then the same for the world corpus (`planted::world`: phones of 33 regions, names of 17 locales
//! behind 49 labels, every id layout), by region, locale and layout; `WORLD_DOCUMENTS` sets its size.
//! Then the prose check (`planted::prose`: people named in running text in 12 languages and mentioned
//! again, with held-out names; and name-free prose): recall per language and kind of mention, and the
//! share of name-free documents with a false person; `PROSE_DOCUMENTS` sets the documents per
//! language (default 200), `PROSE_SHOW=1` lists what was missed and found falsely.

use docsieve_actors::pii_masker::{
    planted::{corpus, prose, world},
    Policy,
};

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
        show(&score);
    }
    world_report(seed);
    prose_report(seed);
}

fn prose_report(seed: u64) {
    let documents: usize = std::env::var("PROSE_DOCUMENTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let with_people = prose::corpus(seed, documents);
    let name_free = prose::name_free(seed, documents);
    let report = prose::report(&with_people, &name_free, &Policy::default());
    println!(
        "\nprose: {documents} documents per language with a person (one full mention, two later ones), as many without"
    );
    print!("{}", report.table(std::env::var("PROSE_SHOW").is_ok()));
}

fn world_report(seed: u64) {
    let documents: usize = std::env::var("WORLD_DOCUMENTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2_000);
    let docs = world::corpus(seed, documents);
    let score = corpus::score(&docs, &Policy::default());
    println!(
        "\nworld corpus: {documents} documents, {} planted values, {} findings",
        score.all.planted, score.findings
    );
    println!(
        "  mask recall {:.4}  typed recall {:.4}  precision {:.4}",
        score.mask_recall(),
        score.typed_recall(),
        score.precision()
    );
    let mut totals: std::collections::BTreeMap<world::Line, corpus::Counts> = Default::default();
    for (line, group, layout, counts) in world::report(&score) {
        let total = totals.entry(line).or_default();
        total.planted += counts.planted;
        total.masked += counts.masked;
        total.typed += counts.typed;
        let recall = counts.masked as f64 / counts.planted.max(1) as f64;
        println!(
            "  {:<14} {group:<22} {layout:<30} {:>6} {recall:>7.3}",
            format!("{line:?}"),
            counts.planted
        );
    }
    for (line, counts) in totals {
        println!(
            "  all {:<14} {:>6} planted, mask recall {:.4}",
            format!("{line:?}"),
            counts.planted,
            counts.masked as f64 / counts.planted.max(1) as f64
        );
    }
    let never: Vec<_> = world::id_layouts()
        .into_iter()
        .filter(|key| !score.by_group.contains_key(key))
        .collect();
    println!("  id layouts never drawn: {never:?}");
    if std::env::var("CORPUS_SHOW").is_ok() {
        show(&score);
    }
}

/// Every miss, mistyped value and false finding of a score.
fn show(score: &corpus::Score) {
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
