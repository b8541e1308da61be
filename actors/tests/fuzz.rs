//! Time-boxed, structure-aware fuzzing of every reader and of the PII engine, seeded from
//! `../shared/corpus`: no input may crash the process (a stack overflow or an abort ends this test
//! binary), hang (a case over its deadline fails the test and leaves its input behind), or grow memory
//! without bound (peak RSS is checked at the end).
//!
//! Mutations know the containers: an OOXML package is opened, one of its XML parts mutated (bytes
//! flipped, tags cut, an element nested thousands deep, huge attributes) and zipped again, so the
//! readers see well-formed ZIPs with hostile XML inside, not only ZIPs that fail their CRC; a compound
//! file (Word and PowerPoint 97-2003, Outlook) likewise has one of its streams mutated, cut or dropped
//! and is written again. Text formats
//! get deep nesting, NUL bytes, broken UTF-8, stray BOMs and endless lines. Every document read is then
//! masked, and the masked text must not hold a value the engine found; a document of a format with a
//! writer is also written back masked in its own format, read again and checked.
//!
//! The input of the case running is kept in `$TMPDIR/docsieve-fuzz-failures/last-case.<ext>`, so a crash
//! leaves its reproducer behind. `DOCSIEVE_FUZZ_SECONDS` (default 20) bounds the run; `DOCSIEVE_FUZZ_SEED` picks the sequence (default
//! fixed, so CI is repeatable). Figures are printed: executions, rate, outcomes by code, peak RSS.
//! Scanned images are left out (Tesseract on noise takes seconds per case).

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use docsieve_actors::extractor_pool::extract_document as extract;
use docsieve_actors::extractor_pool::Format;
use docsieve_actors::extractor_pool::Limits;
use docsieve_actors::pii_masker::Policy;
use docsieve_actors::pii_masker::{check_redacted, mask_document, redact_document};
use docsieve_actors::redaction::RedactError;

/// splitmix64: a small, fast, reproducible sequence.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus")
}

/// Every corpus document but the scanned images and the sidecars, the office documents made here
/// (Word and PowerPoint 97-2003, Outlook items, OpenDocument, RTF, EPUB, mbox) and those Microsoft
/// Office made (tests/documents/msoffice).
fn seeds() -> Vec<(String, Vec<u8>)> {
    let mut found = Vec::new();
    let mut stack = vec![
        corpus_dir(),
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/documents/office"),
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/documents/msoffice"),
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/documents/redaction"),
    ];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let name = path.display().to_string();
            let skip = [
                ".png",
                ".jpg",
                ".tif",
                ".pii.json",
                ".tsv",
                "SOURCES.md",
                ".reference.txt",
            ];
            if skip.iter().any(|s| name.ends_with(s)) || name.contains("/LICENSE") {
                continue;
            }
            if let Ok(bytes) = std::fs::read(&path) {
                found.push((name, bytes));
            }
        }
    }
    found.sort();
    found
}

const TEXTY: &[&[u8]] = &[
    b"<div>",
    b"</div>",
    b"<table><tr><td>",
    b"<![CDATA[",
    b"]]>",
    b"<!--",
    b"&#x0;",
    b"&amp;",
    b"\x00",
    b"\xff\xfe",
    b"\xef\xbb\xbf",
    b"\xc3",
    b"\r\n",
    b"\"",
    b";",
    b",",
    b"=?utf-8?b?",
    b"Content-Type: multipart/mixed; boundary=x\r\n",
    b"--x\r\n",
    b"TR33 0006 1005 1978 6457 8413 26",
    b"10000000146",
];

/// One byte-level mutation of `bytes`, splicing from `other` sometimes.
fn mutate_bytes(bytes: &mut Vec<u8>, other: &[u8], rng: &mut Rng) {
    if bytes.is_empty() {
        bytes.extend_from_slice(b"x");
    }
    let at = rng.below(bytes.len());
    match rng.below(9) {
        0 => bytes[at] ^= 1 << rng.below(8),
        1 => bytes[at] = rng.next() as u8,
        2 => bytes.truncate(at.max(1)),
        3 => {
            let end = (at + 1 + rng.below(64)).min(bytes.len());
            bytes.drain(at..end);
        }
        4 => {
            let token = TEXTY[rng.below(TEXTY.len())];
            let times = 1 + rng.below(4);
            for _ in 0..times {
                bytes.splice(at..at, token.iter().copied());
            }
        }
        5 => {
            // A chunk repeated: runs of one construct (and, for tags, nesting).
            let end = (at + 1 + rng.below(32)).min(bytes.len());
            let chunk = bytes[at..end].to_vec();
            let times = 1 + rng.below(200);
            let repeated: Vec<u8> = chunk
                .iter()
                .copied()
                .cycle()
                .take(chunk.len() * times)
                .collect();
            bytes.splice(at..at, repeated);
        }
        6 if !other.is_empty() => {
            let from = rng.below(other.len());
            let end = (from + 1 + rng.below(256)).min(other.len());
            bytes.splice(at..at, other[from..end].iter().copied());
        }
        7 => {
            // Deep nesting of a tag at a random place.
            let levels = [100, 1_000, 10_000][rng.below(3)];
            let tag: &[u8] = [b"div".as_slice(), b"w:p", b"a", b"span"][rng.below(4)];
            let mut deep = Vec::new();
            for _ in 0..levels {
                deep.extend_from_slice(b"<");
                deep.extend_from_slice(tag);
                deep.extend_from_slice(b">");
            }
            bytes.splice(at..at, deep);
        }
        _ => {
            // An endless line.
            let filler = vec![b'a' + rng.below(26) as u8; 1 + rng.below(200_000)];
            bytes.splice(at..at, filler);
        }
    }
}

/// A ZIP with one XML part mutated (and sometimes a part dropped); None when `bytes` is no ZIP.
fn mutate_package(bytes: &[u8], other: &[u8], rng: &mut Rng) -> Option<Vec<u8>> {
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).ok()?;
    let mut parts = Vec::new();
    for index in 0..archive.len() {
        let mut file = archive.by_index(index).ok()?;
        let mut data = Vec::new();
        file.read_to_end(&mut data).ok()?;
        parts.push((file.name().to_string(), data));
    }
    let xml: Vec<usize> = (0..parts.len())
        .filter(|&i| parts[i].0.ends_with(".xml") || parts[i].0.ends_with(".rels"))
        .collect();
    if xml.is_empty() {
        return None;
    }
    let target = xml[rng.below(xml.len())];
    for _ in 0..1 + rng.below(3) {
        mutate_bytes(&mut parts[target].1, other, rng);
    }
    if rng.below(10) == 0 {
        parts.remove(xml[rng.below(xml.len())]);
    }
    let mut out = std::io::Cursor::new(Vec::new());
    {
        let mut writer = zip::ZipWriter::new(&mut out);
        let options = zip::write::SimpleFileOptions::default();
        for (name, data) in &parts {
            writer.start_file(name.as_str(), options).ok()?;
            writer.write_all(data).ok()?;
        }
        writer.finish().ok()?;
    }
    Some(out.into_inner())
}

/// A compound file (Word, PowerPoint, Outlook) with one stream mutated (and sometimes cut short or
/// dropped), written again as a well-formed container; None when `bytes` is no compound file.
fn mutate_compound(bytes: &[u8], other: &[u8], rng: &mut Rng) -> Option<Vec<u8>> {
    let mut file = cfb::CompoundFile::open(std::io::Cursor::new(bytes)).ok()?;
    let entries: Vec<(String, bool)> = file
        .walk()
        .filter(|e| !e.is_root())
        .map(|e| (e.path().to_string_lossy().into_owned(), e.is_stream()))
        .collect();
    let mut streams = Vec::new();
    for (path, stream) in &entries {
        if *stream {
            let mut data = Vec::new();
            file.open_stream(path).ok()?.read_to_end(&mut data).ok()?;
            streams.push((path.clone(), data));
        }
    }
    if streams.is_empty() {
        return None;
    }
    let target = rng.below(streams.len());
    match rng.below(8) {
        0 => {
            let cut = rng.below(streams[target].1.len() + 1);
            streams[target].1.truncate(cut);
        }
        1 => {
            streams.remove(target);
        }
        _ => {
            for _ in 0..1 + rng.below(4) {
                mutate_bytes(&mut streams[target].1, other, rng);
            }
        }
    }
    let mut out = cfb::CompoundFile::create(std::io::Cursor::new(Vec::new())).ok()?;
    for (path, stream) in &entries {
        if !*stream {
            out.create_storage_all(path).ok()?;
        }
    }
    for (path, data) in &streams {
        out.create_stream(path).ok()?.write_all(data).ok()?;
    }
    out.flush().ok()?;
    Some(out.into_inner().into_inner())
}

/// Keeps an input that failed, for the message and for replaying it.
fn keep(input: &[u8], name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join("docsieve-fuzz-failures");
    let _ = std::fs::create_dir_all(&dir);
    let path = dir.join(name);
    let _ = std::fs::write(&path, input);
    path
}

/// Extraction, then masking of what was read, then (for a format with a writer) the document written
/// back masked, read again and checked; the code of the outcome.
fn one_case(input: Vec<u8>) -> String {
    match extract(&input, &Limits::default()) {
        Ok(document) => match mask_document(&document, &Policy::default()) {
            Ok(_) => redaction(&input, &document),
            Err(_) => "masking_refused".to_string(),
        },
        Err(error) => error.code().to_string(),
    }
}

/// The masked file in its own format: written, read back and checked.
fn redaction(input: &[u8], document: &docsieve_actors::model::Document) -> String {
    let Some(format) = Format::named(&document.metadata.format)
        .filter(|format| docsieve_actors::redaction::writer_of(*format).is_some())
    else {
        return "ok".to_string();
    };
    let (policy, limits) = (Policy::default(), Limits::default());
    match redact_document(input, format, document, &policy, &limits) {
        Ok(redacted) => match extract(&redacted.redacted.bytes, &limits) {
            Ok(output) => match check_redacted(&output, &policy, &redacted) {
                Ok(()) => "redacted".to_string(),
                Err(_) => "redaction_refused_after_reading_back".to_string(),
            },
            Err(error) => format!("redacted_file_unreadable_{}", error.code()),
        },
        Err(error) => format!(
            "redaction_{}",
            match error {
                RedactError::Unsupported(_) => "unsupported",
                RedactError::Malformed(_) => "malformed",
                RedactError::Limit(_) => "limit",
                RedactError::Refused(_) => "refused",
            }
        ),
    }
}

#[test]
fn readers_and_the_engine_survive_structure_aware_mutations() {
    let seconds: u64 = std::env::var("DOCSIEVE_FUZZ_SECONDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);
    let seed: u64 = std::env::var("DOCSIEVE_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2026);
    let seeds = seeds();
    assert!(seeds.len() > 40, "the corpus is missing: {}", seeds.len());
    let mut rng = Rng(seed);
    let started = Instant::now();
    let mut outcomes: BTreeMap<String, u64> = BTreeMap::new();
    let mut by_kind: BTreeMap<String, u64> = BTreeMap::new();
    let mut slowest = (Duration::ZERO, String::new());
    let mut executions = 0u64;
    // One reader thread for all cases, with the worker processes' stack: a hang is a case whose answer
    // does not come within the deadline; the test then fails (the thread cannot be stopped).
    let (to_reader, cases) = mpsc::channel::<Vec<u8>>();
    let (to_test, answers) = mpsc::channel::<String>();
    std::thread::Builder::new()
        .name("fuzz-reader".to_string())
        .stack_size(docsieve_actors::extractor_pool::STACK_BYTES)
        .spawn(move || {
            while let Ok(input) = cases.recv() {
                if to_test.send(one_case(input)).is_err() {
                    return;
                }
            }
        })
        .expect("reader thread");
    let deadline = Duration::from_secs(60);
    while started.elapsed() < Duration::from_secs(seconds) {
        let (name, bytes) = &seeds[rng.below(seeds.len())];
        let other = &seeds[rng.below(seeds.len())].1;
        let kind = name.rsplit('.').next().unwrap_or("").to_string();
        let structured = mutate_package(bytes, other, &mut rng)
            .or_else(|| mutate_compound(bytes, other, &mut rng));
        let input = match structured {
            Some(package) if rng.below(4) != 0 => package,
            _ => {
                let mut input = bytes.clone();
                for _ in 0..1 + rng.below(4) {
                    mutate_bytes(&mut input, other, &mut rng);
                }
                input
            }
        };
        // Written before the case runs: an abort (which ends this binary) leaves its input behind.
        keep(&input, &format!("last-case.{kind}"));
        let case = Instant::now();
        to_reader.send(input.clone()).expect("reader alive");
        let outcome = match answers.recv_timeout(deadline) {
            Ok(outcome) => outcome,
            Err(_) => {
                let kept = keep(&input, &format!("hang-{executions}.{kind}"));
                panic!(
                    "a case from {name} took more than {deadline:?}: kept at {}",
                    kept.display()
                );
            }
        };
        let took = case.elapsed();
        if took > slowest.0 {
            slowest = (took, format!("{kind} ({outcome})"));
        }
        if outcome == "extractor_failed" {
            // A reader panicked and catch_unwind contained it: fine for the process, but kept.
            keep(&input, &format!("panic-{executions}.{kind}"));
        }
        *outcomes.entry(outcome).or_default() += 1;
        *by_kind.entry(kind).or_default() += 1;
        executions += 1;
    }
    let elapsed = started.elapsed().as_secs_f64();
    let peak = docsieve_actors::procfs::peak_rss_bytes(std::process::id());
    println!(
        "fuzz: {executions} executions in {elapsed:.1} s ({:.0}/s), seed {seed}, slowest {:.2} s ({}), peak RSS {:.0} MB",
        executions as f64 / elapsed,
        slowest.0.as_secs_f64(),
        slowest.1,
        peak as f64 / 1e6
    );
    println!("fuzz: by seed format {by_kind:?}");
    println!("fuzz: outcomes {outcomes:?}");
    assert!(executions > 0);
    assert!(
        peak < 3 << 30,
        "peak RSS {peak} bytes: memory is not bounded"
    );
}
