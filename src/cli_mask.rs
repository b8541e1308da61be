//! `docsieve mask`: the PII engine from the command line (offline; no server, no database).

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use docsieve_actors::extractor_pool::Limits;
use docsieve_actors::extractor_pool::{extract_document, sniff, Format};
use docsieve_actors::pii_masker::{
    mask_known, summarize_known, Finding, Known, Operator, Operators, PiiType, Policy,
    SurrogateKey, TypeSet,
};
use serde::Serialize;

#[derive(clap::Args)]
pub struct MaskArgs {
    /// Print `{text, findings, pii_type_summary}` as JSON (one object per file, one per line).
    #[arg(long)]
    pub json: bool,
    /// Only these types, comma-separated (e.g. national_id_tr,iban_tr,email). Default: all 46.
    #[arg(long, value_delimiter = ',')]
    pub types: Vec<String>,
    /// Detect and report, but leave the text unchanged.
    #[arg(long)]
    pub no_mask: bool,
    /// What a found value becomes: placeholder (`[MASKED_<TYPE>]`, the default), numbered
    /// (`[MASKED_<TYPE>_<n>]`, one number per value within a file), surrogate (a fake value of the type
    /// in the same layout, valid by its checksum; needs --key-file), hash (`[<TYPE>_<12 hex>]`; needs
    /// --key-file) or redact (removed).
    #[arg(long, default_value = "placeholder")]
    pub operator: String,
    /// The pseudonym key of `surrogate` and `hash`: the same key gives the same pseudonym for the same
    /// value in every file and run. The file's bytes are the key (keep it secret, 32 random bytes or
    /// more: `head -c 32 /dev/urandom > key`).
    #[arg(long)]
    pub key_file: Option<PathBuf>,
    /// Files to read; `-` reads standard input.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
}

#[derive(Serialize)]
struct Output<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<String>,
    text: &'a str,
    findings: &'a [Finding],
    pii_type_summary: &'a BTreeMap<String, u64>,
}

fn read(path: &PathBuf) -> std::io::Result<Vec<u8>> {
    if path.as_os_str() == "-" {
        let mut bytes = Vec::new();
        std::io::stdin().read_to_end(&mut bytes)?;
        Ok(bytes)
    } else {
        std::fs::read(path)
    }
}

fn policy(types: &[String]) -> Result<Policy, String> {
    if types.is_empty() {
        return Ok(Policy::default());
    }
    let mut enabled = TypeSet::default();
    for name in types.iter().map(|t| t.trim()).filter(|t| !t.is_empty()) {
        let ty = PiiType::from_name(name).ok_or_else(|| {
            let valid: Vec<&str> = PiiType::ALL.iter().map(|t| t.name()).collect();
            format!("unknown type '{name}'; valid types: {}", valid.join(", "))
        })?;
        enabled = enabled.with(ty);
    }
    Ok(Policy {
        enabled,
        ..Policy::default()
    })
}

/// The operator and its key, from the arguments.
fn operator(args: &MaskArgs) -> Result<(Operator, Option<SurrogateKey>), String> {
    let operator = Operator::from_name(&args.operator).ok_or_else(|| {
        let valid: Vec<&str> = Operator::ALL.iter().map(|op| op.name()).collect();
        format!(
            "unknown operator '{}'; valid operators: {}",
            args.operator,
            valid.join(", ")
        )
    })?;
    let key = match &args.key_file {
        Some(path) => {
            let bytes = std::fs::read(path)
                .map_err(|error| format!("--key-file {}: {error}", path.display()))?;
            if bytes.len() < 16 {
                return Err(format!(
                    "--key-file {}: a key needs at least 16 bytes (it has {})",
                    path.display(),
                    bytes.len()
                ));
            }
            Some(SurrogateKey::new(&bytes))
        }
        None if operator.keyed() => {
            return Err(format!(
                "--operator {} needs --key-file (the pseudonym key)",
                operator.name()
            ))
        }
        None => None,
    };
    Ok((operator, key))
}

pub fn run(args: MaskArgs) -> ExitCode {
    let (policy, (operator, key)) =
        match policy(&args.types).and_then(|p| Ok((p, operator(&args)?))) {
            Ok(chosen) => chosen,
            Err(message) => {
                eprintln!("docsieve mask: {message}");
                return ExitCode::from(2);
            }
        };
    let many = args.files.len() > 1;
    let mut stdout = std::io::stdout().lock();
    let mut status = ExitCode::SUCCESS;
    for path in &args.files {
        let name = path.display().to_string();
        let bytes = match read(path) {
            Ok(bytes) => bytes,
            Err(error) => {
                eprintln!("docsieve mask: {name}: {error}");
                status = ExitCode::from(2);
                continue;
            }
        };
        // Plain text is masked as it is; other formats through the extractor's text. Numbers start
        // again with each file.
        let mut policy = policy.clone();
        if operator != Operator::Placeholder {
            policy.replacer = Some(std::sync::Arc::new(Operators::new(
                |_| operator,
                key.clone(),
            )));
        }
        let mut known = Known::default();
        let text =
            match sniff(&bytes) {
                Ok((Format::Txt, Some(decoded))) => decoded.text,
                Ok(_) | Err(_) => match extract_document(&bytes, &Limits::default()) {
                    Ok(document) => {
                        known.extend(document.pii_hints().into_iter().filter_map(|(ty, value)| {
                            PiiType::from_name(ty).map(|ty| (ty, value))
                        }));
                        document.full_text().into_owned()
                    }
                    Err(error) => {
                        eprintln!("docsieve mask: {name}: {error} ({})", error.code());
                        status = ExitCode::from(1);
                        continue;
                    }
                },
            };
        let (out_text, findings, summary) = if args.no_mask {
            let (findings, summary) = summarize_known(&text, &policy, &known);
            (text.clone(), findings, summary)
        } else {
            match mask_known(&text, &policy, &known) {
                Ok(masked) => (masked.text, masked.findings, masked.summary),
                Err(error) => {
                    eprintln!("docsieve mask: {name}: {error}");
                    status = ExitCode::from(1);
                    continue;
                }
            }
        };
        let written = if args.json {
            let output = Output {
                file: many.then(|| name.clone()),
                text: &out_text,
                findings: &findings,
                pii_type_summary: &summary,
            };
            serde_json::to_string(&output)
                .map_err(std::io::Error::other)
                .and_then(|json| writeln!(stdout, "{json}"))
        } else if args.no_mask {
            let mut lines = String::new();
            for finding in &findings {
                lines.push_str(&format!(
                    "{name}\t{}..{}\t{}\t{:.2}\n",
                    finding.start,
                    finding.end,
                    finding.pii_type.name(),
                    finding.confidence
                ));
            }
            write!(stdout, "{lines}")
        } else {
            if many {
                let _ = writeln!(stdout, "==> {name} <==");
            }
            write!(stdout, "{out_text}")
        };
        if let Err(error) = written {
            eprintln!("docsieve mask: writing output: {error}");
            return ExitCode::from(1);
        }
    }
    status
}
