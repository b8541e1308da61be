//! `cargo bench --workspace --bench document_memory [-- FILE]`: the memory a large document's
//! processing holds, stage by stage, as an async job runs it: the document read (what the extraction
//! worker sends back), the masking of every part, and the stored result written to a file: each
//! stage's peak resident memory (`VmHWM`, reset between stages) over what the process held before,
//! and as multiples of the document's size. (Memory freed by one stage may stay resident into the
//! next: the figures are upper bounds, as an operator's RSS graph would show them.)
//! Without FILE it makes a 64 MB CSV of distinct people (valid TCKNs and IBANs, names, phones,
//! e-mails), the case a job's memory estimate must hold. Prints the figures; asserts nothing.

use std::time::Instant;

use docsieve_actors::extractor_pool::extract_document as extract;
use docsieve_actors::extractor_pool::Limits;
use docsieve_actors::pii_masker::{mask_document, Policy};

/// This process's resident memory (`VmRSS`) and its peak (`VmHWM`) since the last reset, in bytes.
fn memory() -> (usize, usize) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|line| line.strip_prefix(name))
            .and_then(|rest| rest.split_whitespace().next()?.parse::<usize>().ok())
            .unwrap_or(0)
            * 1024
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// Starts a new peak (Linux: writing 5 to `clear_refs` resets `VmHWM` to the current RSS).
fn reset_peak() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// A CSV of `megabytes` of distinct customers, from a fixed seed.
fn customers(megabytes: usize) -> Vec<u8> {
    let mut seed = 7u64;
    let mut next = move |below: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % below
    };
    let given = [
        "Ayşe", "Mehmet", "Zeynep", "Ali", "Elif", "Mustafa", "Fatma", "Emre", "Hüseyin", "Derya",
    ];
    let family = [
        "Yılmaz", "Kaya", "Demir", "Şahin", "Çelik", "Yıldız", "Aydın", "Öztürk", "Arslan", "Doğan",
    ];
    let mut out = String::from("musteri_id;tckn;ad;soyad;telefon;eposta;iban;tutar\n");
    let mut row = 0u64;
    while out.len() < megabytes * 1_000_000 {
        let mut digits: Vec<u64> = vec![1 + next(9)];
        digits.extend((0..8).map(|_| next(10)));
        let odd: u64 = digits.iter().step_by(2).sum();
        let even: u64 = digits[1..8].iter().step_by(2).sum();
        digits.push((odd * 7 + 100 - even) % 10);
        digits.push(digits.iter().sum::<u64>() % 10);
        let tckn: String = digits.iter().map(|d| d.to_string()).collect();
        let bban = format!("{:05}0{:016}", next(100_000), next(10u64.pow(16)));
        let numeric: String = format!("{bban}TR00")
            .chars()
            .map(|c| c.to_digit(36).unwrap_or(0).to_string())
            .collect();
        let remainder = numeric
            .bytes()
            .fold(0u64, |r, d| (r * 10 + u64::from(d - b'0')) % 97);
        out.push_str(&format!(
            "{row};{tckn};{};{};0532 {} {} {};musteri{row}@ornek.com.tr;TR{:02}{bban};{},{:02}\n",
            given[next(10) as usize],
            family[next(10) as usize],
            100 + next(900),
            10 + next(90),
            10 + next(90),
            98 - remainder,
            1 + next(99_999),
            next(100),
        ));
        row += 1;
    }
    out.into_bytes()
}

/// Prints the stage's peak and what stays resident after it, over the resident memory before the
/// document was read (`base`), in MB and as multiples of the document's size; starts the next peak.
fn stage(name: &str, size: usize, base: usize, started: Instant) {
    let (live, peak) = memory();
    let over = |bytes: usize| bytes.saturating_sub(base) as f64;
    println!(
        "{name:<20} peak {:>6.0} MB ({:>5.1}x)  after {:>6.0} MB ({:>5.1}x)  {:>6.1} s",
        over(peak) / 1e6,
        over(peak) / size as f64,
        over(live) / 1e6,
        over(live) / size as f64,
        started.elapsed().as_secs_f64()
    );
    reset_peak();
}

fn main() {
    let bytes = match std::env::args().nth(1).filter(|a| !a.starts_with('-')) {
        Some(path) => std::fs::read(path).expect("the file"),
        None => customers(64),
    };
    let size = bytes.len();
    println!("document: {:.1} MB", size as f64 / 1e6);
    let base = memory().0 - size;
    reset_peak();
    let started = Instant::now();
    let document = extract(&bytes, &Limits::default()).expect("a document");
    stage("read", size, base, started);
    drop(bytes);
    // What the worker sends and the server reads back (MessagePack, as the worker protocol frames it).
    let frame = rmp_serde::to_vec_named(&document).expect("a frame");
    drop(document);
    let document: docsieve_actors::model::Document =
        rmp_serde::from_slice(&frame).expect("the frame");
    drop(frame);
    stage("sent to the server", size, base, started);
    let masked = mask_document(&document, &Policy::default()).expect("masked");
    stage("masked", size, base, started);
    drop(document);
    let scratch = std::env::temp_dir().join("docsieve-document-memory.json");
    let file = std::io::BufWriter::new(std::fs::File::create(&scratch).expect("scratch"));
    serde_json::to_writer(file, &(&masked.document, &masked.findings)).expect("written");
    stage("result written", size, base, started);
    println!(
        "{} findings, {} normal forms",
        masked.findings.len(),
        masked.normal_forms.len()
    );
    let _ = std::fs::remove_file(scratch);
}
