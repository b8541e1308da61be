//! The seven export formats. Each writer streams the canonical rows (JSON Lines) into a file, so memory
//! stays flat however large the dataset is.

mod columnar;
mod text;
mod xlsx;

use std::fs::File;
use std::io::{BufReader, BufWriter, Write};
use std::path::Path;

use super::rows::{read_rows, DatasetRow, ExportError};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportFormat {
    Jsonl,
    Csv,
    Parquet,
    Markdown,
    Xml,
    Xlsx,
    Arrow,
}

/// The accepted values of `format=`, as listed in a 422.
pub const FORMAT_NAMES: &[&str] = &[
    "jsonl", "csv", "parquet", "markdown", "xml", "xlsx", "arrow", "hf",
];

impl ExportFormat {
    pub const ALL: [ExportFormat; 7] = [
        ExportFormat::Jsonl,
        ExportFormat::Csv,
        ExportFormat::Parquet,
        ExportFormat::Markdown,
        ExportFormat::Xml,
        ExportFormat::Xlsx,
        ExportFormat::Arrow,
    ];

    pub fn parse(raw: &str) -> Option<ExportFormat> {
        Some(match raw.trim().to_ascii_lowercase().as_str() {
            "jsonl" => ExportFormat::Jsonl,
            "csv" => ExportFormat::Csv,
            "parquet" => ExportFormat::Parquet,
            "markdown" | "md" => ExportFormat::Markdown,
            "xml" => ExportFormat::Xml,
            "xlsx" => ExportFormat::Xlsx,
            "arrow" | "hf" | "huggingface" => ExportFormat::Arrow,
            _ => return None,
        })
    }

    /// The canonical name (stored with the export, used in metrics).
    pub fn name(self) -> &'static str {
        match self {
            ExportFormat::Jsonl => "jsonl",
            ExportFormat::Csv => "csv",
            ExportFormat::Parquet => "parquet",
            ExportFormat::Markdown => "markdown",
            ExportFormat::Xml => "xml",
            ExportFormat::Xlsx => "xlsx",
            ExportFormat::Arrow => "arrow",
        }
    }

    /// The downloaded file's extension.
    pub fn extension(self) -> &'static str {
        match self {
            ExportFormat::Markdown => "md",
            ExportFormat::Arrow => "hf.zip",
            other => other.name(),
        }
    }

    pub fn content_type(self) -> &'static str {
        match self {
            ExportFormat::Jsonl => "application/x-ndjson",
            ExportFormat::Csv => "text/csv; charset=utf-8",
            ExportFormat::Parquet => "application/vnd.apache.parquet",
            ExportFormat::Markdown => "text/markdown; charset=utf-8",
            ExportFormat::Xml => "application/xml; charset=utf-8",
            ExportFormat::Xlsx => {
                "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
            }
            ExportFormat::Arrow => "application/zip",
        }
    }
}

/// Writes `format` from the canonical rows file to `out`; returns the number of rows.
pub fn write_export(
    format: ExportFormat,
    canonical: &Path,
    out: &Path,
    dataset_name: &str,
    scratch: &Path,
) -> Result<u64, ExportError> {
    let rows = read_rows(BufReader::new(File::open(canonical)?));
    write_rows(format, rows, out, dataset_name, scratch)
}

/// Writes `format` from any row stream (the benchmark feeds generated rows).
pub fn write_rows(
    format: ExportFormat,
    rows: impl Iterator<Item = Result<DatasetRow, ExportError>>,
    out: &Path,
    dataset_name: &str,
    scratch: &Path,
) -> Result<u64, ExportError> {
    let file = BufWriter::with_capacity(256 * 1024, File::create(out)?);
    let count = match format {
        ExportFormat::Jsonl => text::jsonl(rows, file)?,
        ExportFormat::Csv => text::csv(rows, file)?,
        ExportFormat::Markdown => text::markdown(rows, file, dataset_name)?,
        ExportFormat::Xml => text::xml(rows, file, dataset_name)?,
        ExportFormat::Parquet => columnar::parquet(rows, file)?,
        ExportFormat::Arrow => columnar::huggingface_zip(rows, file, scratch)?,
        ExportFormat::Xlsx => {
            drop(file);
            xlsx::xlsx(rows, out)?
        }
    };
    Ok(count)
}

fn finish<W: Write>(mut writer: W) -> Result<(), ExportError> {
    writer.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests;
