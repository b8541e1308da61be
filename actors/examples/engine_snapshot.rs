//! `cargo run -p docsieve-actors --example engine_snapshot -- OUT`: every output of the PII engine over
//! the planted corpora (1,500 documents each of `planted::corpus` and `planted::world`) and the files
//! of `shared/corpus/`, one line each (source, operator, JSON), written to OUT. Run before and after a
//! change that must not change what the engine finds or writes (a refactoring) and compare the two
//! files: `cmp` says whether they are byte-identical, `diff` where they are not. Every operator is
//! covered (placeholder, numbered, surrogate, hash), as are whole documents (`mask_document`: elements,
//! tables, fields, attachments) and detection alone.

use std::io::Write;
use std::path::{Path, PathBuf};

use docsieve_actors::extractor_pool::{extract_document, Limits};
use docsieve_actors::pii_masker::{
    mask_document, mask_text,
    planted::{corpus, world},
    summarize, Operator, Operators, Policy, SurrogateKey,
};

fn policies() -> Vec<(&'static str, Policy)> {
    let mut out = vec![("placeholder", Policy::default())];
    for name in ["numbered", "surrogate", "hash"] {
        let Some(operator) = Operator::from_name(name) else {
            continue;
        };
        let key = SurrogateKey::new(b"engine-snapshot-key-0123456789ab");
        let policy = Policy {
            replacer: Some(std::sync::Arc::new(Operators::new(
                move |_| operator,
                Some(key),
            ))),
            ..Policy::default()
        };
        out.push((name, policy));
    }
    out
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            files(&path, out)?;
        } else {
            out.push(path);
        }
    }
    Ok(())
}

fn main() -> std::io::Result<()> {
    let Some(target) = std::env::args().nth(1) else {
        eprintln!("usage: engine_snapshot OUT");
        std::process::exit(2);
    };
    let mut out = std::io::BufWriter::new(std::fs::File::create(target)?);
    let policies = policies();
    let mut texts: Vec<(String, String)> = Vec::new();
    for (i, document) in corpus::corpus(2026, 1500).into_iter().enumerate() {
        texts.push((format!("corpus {i}"), document.text));
    }
    for (i, document) in world::corpus(2026, 1500).into_iter().enumerate() {
        texts.push((format!("world {i}"), document.text));
    }
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus");
    let mut paths = Vec::new();
    files(&shared, &mut paths)?;
    paths.sort();
    for path in &paths {
        let name = path
            .strip_prefix(&shared)
            .unwrap_or(path)
            .display()
            .to_string();
        let document = match extract_document(&std::fs::read(path)?, &Limits::default()) {
            Ok(document) => document,
            Err(error) => {
                writeln!(out, "{name}\textract\t{error}")?;
                continue;
            }
        };
        for (operator, policy) in &policies {
            let line = match mask_document(&document, policy) {
                Ok(masked) => serde_json::json!({
                    "document": masked.document,
                    "findings": masked.findings,
                    "summary": masked.summary,
                    "normal_forms": masked.normal_forms,
                })
                .to_string(),
                Err(error) => error.to_string(),
            };
            writeln!(out, "{name}\t{operator}\t{line}")?;
        }
        texts.push((name, document.full_text().into_owned()));
    }
    for (name, text) in &texts {
        for (operator, policy) in &policies {
            let line = match mask_text(text, policy) {
                Ok(masked) => serde_json::json!({"text": masked.text, "findings": masked.findings})
                    .to_string(),
                Err(error) => error.to_string(),
            };
            writeln!(out, "{name}\t{operator}\t{line}")?;
        }
        let (findings, _) = summarize(text, &Policy::default());
        writeln!(out, "{name}\tdetect\t{}", serde_json::to_string(&findings)?)?;
    }
    out.flush()
}
