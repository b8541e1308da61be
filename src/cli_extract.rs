//! `docsieve extract`: the extraction engine from the command line (offline).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use docsieve_actors::extractor_pool::extract_document;
use docsieve_actors::extractor_pool::Limits;

#[derive(clap::Args)]
pub struct ExtractArgs {
    /// Print the whole document model as JSON (otherwise the text).
    #[arg(long)]
    pub json: bool,
    /// The file to read.
    pub file: PathBuf,
}

pub fn run(args: ExtractArgs) -> ExitCode {
    let bytes = match std::fs::read(&args.file) {
        Ok(bytes) => bytes,
        Err(error) => {
            eprintln!("docsieve extract: {}: {error}", args.file.display());
            return ExitCode::from(2);
        }
    };
    match extract_document(&bytes, &Limits::default()) {
        Ok(document) => {
            let out = if args.json {
                match serde_json::to_string_pretty(&document) {
                    Ok(json) => json,
                    Err(error) => {
                        eprintln!("docsieve extract: {error}");
                        return ExitCode::FAILURE;
                    }
                }
            } else {
                document.text
            };
            // As `docsieve mask` does: a closed pipe (`| head`) is an error message, not a panic.
            if let Err(error) = writeln!(std::io::stdout().lock(), "{out}") {
                eprintln!("docsieve extract: writing output: {error}");
                return ExitCode::from(1);
            }
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!(
                "docsieve extract: {}: {} ({})",
                args.file.display(),
                error,
                error.code()
            );
            ExitCode::FAILURE
        }
    }
}
