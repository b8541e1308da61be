//! `docsieve mask` on the Turkish sample documents: every planted value is replaced, the summary
//! counts what was planted.

use std::path::Path;
use std::process::Command;

use crate::support::binary;

fn corpus(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus/tr")
        .join(name)
}

#[test]
fn mask_json_on_the_turkish_petition_masks_every_planted_value() {
    let file = corpus("tr_dilekce_cp1254.txt");
    let planted: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(corpus("tr_dilekce_cp1254.txt.pii.json")).expect("sidecar"),
    )
    .expect("sidecar json");
    let output = Command::new(binary())
        .args(["mask", "--json"])
        .arg(&file)
        .output()
        .expect("run");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let result: serde_json::Value = serde_json::from_slice(&output.stdout).expect("json output");
    let text = result["text"].as_str().expect("text");
    let summary = result["pii_type_summary"].as_object().expect("summary");
    for item in planted["pii"].as_array().expect("pii list") {
        let value = item["value"].as_str().expect("value");
        let ty = item["type"].as_str().expect("type");
        assert!(!text.contains(value), "{ty} value still present");
        assert!(
            text.contains(&format!("[MASKED_{}]", ty.to_uppercase())),
            "{ty} placeholder missing:\n{text}"
        );
        assert!(
            summary.get(ty).and_then(|v| v.as_u64()).unwrap_or(0) >= 1,
            "{ty} missing from {summary:?}"
        );
    }
    // The cp1254 bytes were decoded: Turkish letters survive around the placeholders.
    assert!(text.contains("Adı Soyadı"));
    let findings = result["findings"].as_array().expect("findings");
    assert_eq!(
        findings.len() as u64,
        summary.values().filter_map(|v| v.as_u64()).sum::<u64>()
    );
    assert!(findings
        .iter()
        .all(|f| f["start"].is_u64() && f["char_end"].is_u64() && f["confidence"].is_f64()));
}

#[test]
fn mask_options_types_no_mask_stdin_and_errors() {
    let file = corpus("tr_dilekce_cp1254.txt");
    let output = Command::new(binary())
        .args(["mask", "--types", "email,iban_tr"])
        .arg(&file)
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("[MASKED_EMAIL]") && text.contains("[MASKED_IBAN_TR]"));
    assert!(text.contains("68371463008"), "types not asked for stay");

    let output = Command::new(binary())
        .args(["mask", "--no-mask", "--json"])
        .arg(&file)
        .output()
        .expect("run");
    let result: serde_json::Value = serde_json::from_slice(&output.stdout).expect("json");
    assert!(result["text"]
        .as_str()
        .expect("text")
        .contains("68371463008"));
    assert_eq!(result["pii_type_summary"]["national_id_tr"], 1);

    let mut child = Command::new(binary())
        .args(["mask", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().expect("stdin");
        stdin
            .write_all("TCKN: 10000000146\n".as_bytes())
            .expect("write");
    }
    let output = child.wait_with_output().expect("wait");
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "TCKN: [MASKED_NATIONAL_ID_TR]\n"
    );

    let output = Command::new(binary())
        .args(["mask", "--types", "shoe_size", "-"])
        .output()
        .expect("run");
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("national_id_tr"));
    let output = Command::new(binary())
        .args(["mask", "/nonexistent/file.txt"])
        .output()
        .expect("run");
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn mask_leaves_no_planted_value_in_any_turkish_document() {
    for name in [
        "tr_ik_yazisi.docx",
        "tr_sunum.pptx",
        "tr_musteri_listesi.xlsx",
        "tr_musteri_listesi.csv",
        "tr_efatura.xml",
        "tr_kvkk_basvuru.html",
        "tr_eposta.eml",
        "tr_fatura_yazisi.pdf",
        "tr_kimlik_notu.png",
    ] {
        let output = Command::new(binary())
            .args(["mask", "--json"])
            .arg(corpus(name))
            .output()
            .expect("run");
        assert!(
            output.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let result: serde_json::Value = serde_json::from_slice(&output.stdout).expect("json");
        let text = result["text"].as_str().expect("text");
        let sidecar: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(corpus(&format!("{name}.pii.json"))).expect("sidecar"),
        )
        .expect("json");
        for item in sidecar["pii"].as_array().expect("pii") {
            let value = item["value"].as_str().expect("value");
            for part in item["parts"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|p| p.as_str())
            {
                // Street, building and district parts of addresses must go; a city alone may stay.
                if part.chars().any(|c| c.is_ascii_digit()) || part.contains(' ') {
                    assert!(
                        !text.contains(part),
                        "{name}: a part of a {} is left",
                        item["type"]
                    );
                }
            }
            assert!(
                !text.contains(value),
                "{name}: a {} value is left",
                item["type"]
            );
        }
    }
}

/// `docsieve mask` on standard input with `args`: its exit code, standard output and error.
fn mask_stdin(args: &[&str], input: &str) -> (Option<i32>, String, String) {
    let mut child = Command::new(binary())
        .arg("mask")
        .args(args)
        .arg("-")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().expect("stdin");
        stdin.write_all(input.as_bytes()).expect("write");
    }
    let output = child.wait_with_output().expect("wait");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).to_string(),
        String::from_utf8_lossy(&output.stderr).to_string(),
    )
}

#[test]
fn mask_operators_surrogate_with_a_key_file_numbered_and_their_errors() {
    let dir = tempfile::tempdir().expect("temp dir");
    let key = dir.path().join("key");
    std::fs::write(&key, b"0123456789abcdef0123456789abcdef").expect("key");
    let other = dir.path().join("other");
    std::fs::write(&other, b"fedcba9876543210fedcba9876543210").expect("key");
    let input = "TC Kimlik No: 10000000146\nIBAN: TR33 0006 1005 1978 6457 8413 26\n";
    let key_arg = key.to_str().expect("path");
    let (code, first, _) = mask_stdin(&["--operator", "surrogate", "--key-file", key_arg], input);
    assert_eq!(code, Some(0));
    assert!(
        !first.contains("10000000146") && !first.contains("[MASKED"),
        "{first}"
    );
    // The same key, the same surrogates; the layout kept.
    let (_, again, _) = mask_stdin(&["--operator", "surrogate", "--key-file", key_arg], input);
    assert_eq!(first, again);
    let iban = first
        .lines()
        .find_map(|line| line.strip_prefix("IBAN: "))
        .expect("iban line");
    assert_eq!(iban.len(), "TR33 0006 1005 1978 6457 8413 26".len());
    assert!(
        iban.starts_with("TR") && iban.matches(' ').count() == 6,
        "{iban}"
    );
    let other_arg = other.to_str().expect("path");
    let (_, another, _) = mask_stdin(&["--operator", "surrogate", "--key-file", other_arg], input);
    assert_ne!(first, another);

    let (code, numbered, _) = mask_stdin(
        &["--operator", "numbered"],
        "10000000146 ve 10000000146, ayrıca 10000000078",
    );
    assert_eq!(code, Some(0));
    assert_eq!(
        numbered,
        "[MASKED_NATIONAL_ID_TR_1] ve [MASKED_NATIONAL_ID_TR_1], ayrıca [MASKED_NATIONAL_ID_TR_2]"
    );

    let (code, _, error) = mask_stdin(&["--operator", "surrogate"], input);
    assert_eq!(code, Some(2));
    assert!(error.contains("--key-file"), "{error}");
    let (code, _, error) = mask_stdin(&["--operator", "scramble"], input);
    assert_eq!(code, Some(2));
    assert!(error.contains("surrogate"), "{error}");
}
