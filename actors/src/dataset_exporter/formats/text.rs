//! JSON Lines, CSV (RFC 4180, nested values as JSON text), Markdown and XML writers.

use std::io::Write;

use super::finish;
use crate::dataset_exporter::rows::{flat, write_line, DatasetRow, ExportError, COLUMNS};

pub fn jsonl<W: Write>(
    rows: impl Iterator<Item = Result<DatasetRow, ExportError>>,
    mut out: W,
) -> Result<u64, ExportError> {
    let mut count = 0;
    for row in rows {
        write_line(&mut out, &row?)?;
        count += 1;
    }
    finish(out)?;
    Ok(count)
}

pub fn csv<W: Write>(
    rows: impl Iterator<Item = Result<DatasetRow, ExportError>>,
    out: W,
) -> Result<u64, ExportError> {
    let error = |e: csv::Error| ExportError::Writer(e.to_string());
    let mut writer = csv::WriterBuilder::new()
        .terminator(csv::Terminator::CRLF)
        .from_writer(out);
    writer
        .write_record(COLUMNS.iter().map(|(name, _)| *name))
        .map_err(error)?;
    let mut count = 0;
    for row in rows {
        writer
            .write_record(flat(&row?).map(formula_safe))
            .map_err(error)?;
        count += 1;
    }
    writer.flush()?;
    Ok(count)
}

/// A cell that a spreadsheet would read as a formula (`=`, `+`, `-`, `@`, a tab or a carriage return
/// first: "CSV injection") with a single quote in front, as OWASP recommends; other cells as they
/// are. JSON Lines, Parquet and Arrow keep every value as it was; XLSX writes cells as strings, never
/// as formulas.
pub fn formula_safe(value: String) -> String {
    if value.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{value}")
    } else {
        value
    }
}

/// A Markdown table cell: one line, pipes escaped.
fn cell(value: &str) -> String {
    value.replace('|', "\\|").replace(['\n', '\r'], " ")
}

fn markdown_table(table: &serde_json::Value, out: &mut impl Write) -> std::io::Result<()> {
    let rows: Vec<Vec<String>> = table["rows"]
        .as_array()
        .map(|rows| {
            rows.iter()
                .map(|row| {
                    row.as_array()
                        .map(|cells| {
                            cells
                                .iter()
                                .map(|c| c.as_str().unwrap_or_default().to_string())
                                .collect()
                        })
                        .unwrap_or_default()
                })
                .collect()
        })
        .unwrap_or_default();
    let header: Vec<String> = table["header"]
        .as_array()
        .map(|cells| {
            cells
                .iter()
                .map(|c| c.as_str().unwrap_or_default().to_string())
                .collect()
        })
        .unwrap_or_default();
    let width = rows
        .iter()
        .map(Vec::len)
        .chain([header.len()])
        .max()
        .unwrap_or(0);
    if width == 0 {
        return Ok(());
    }
    if let Some(name) = table["name"].as_str() {
        writeln!(out, "**{}**\n", cell(name))?;
    }
    let line = |cells: &[String]| {
        let mut padded: Vec<String> = cells.iter().map(|c| cell(c)).collect();
        padded.resize(width, String::new());
        format!("| {} |", padded.join(" | "))
    };
    let header = if header.is_empty() {
        (1..=width).map(|n| format!("column {n}")).collect()
    } else {
        header
    };
    writeln!(out, "{}", line(&header))?;
    writeln!(out, "|{}", " --- |".repeat(width))?;
    for row in &rows {
        writeln!(out, "{}", line(row))?;
    }
    writeln!(out)
}

pub fn markdown<W: Write>(
    rows: impl Iterator<Item = Result<DatasetRow, ExportError>>,
    mut out: W,
    dataset_name: &str,
) -> Result<u64, ExportError> {
    writeln!(out, "# {}\n", cell(dataset_name))?;
    let mut count = 0;
    for row in rows {
        let row = row?;
        writeln!(
            out,
            "## {} (execution {})\n",
            cell(&row.filename),
            row.execution_id
        )?;
        let summary: Vec<String> = row
            .pii_type_summary
            .iter()
            .map(|(kind, n)| format!("{kind}: {n}"))
            .collect();
        writeln!(
            out,
            "- document: {}\n- format: {}\n- language: {}\n- quality: {}\n- personal data: {}{}\n- masked: {}\n- privacy policy version: {}\n- created: {}\n",
            row.document_id,
            row.format,
            row.language,
            row.quality_grade,
            row.pii_count,
            if summary.is_empty() { String::new() } else { format!(" ({})", summary.join(", ")) },
            row.masked,
            row.policy_version,
            row.created_at
        )?;
        if row.fields.as_object().is_some_and(|f| !f.is_empty()) {
            writeln!(out, "```json\n{}\n```\n", row.fields)?;
        }
        writeln!(out, "{}\n", row.text.trim_end())?;
        for table in row.tables.as_array().into_iter().flatten() {
            markdown_table(table, &mut out)?;
        }
        count += 1;
    }
    finish(out)?;
    Ok(count)
}

/// XML 1.0 text: escaped, and without the control characters XML cannot carry at all.
fn xml_text(value: &str) -> String {
    let clean: String = value
        .chars()
        .filter(|&c| {
            matches!(c, '\t' | '\n' | '\r') || (c >= ' ' && c != '\u{FFFE}' && c != '\u{FFFF}')
        })
        .collect();
    quick_xml::escape::escape(clean.as_str()).into_owned()
}

pub fn xml<W: Write>(
    rows: impl Iterator<Item = Result<DatasetRow, ExportError>>,
    mut out: W,
    dataset_name: &str,
) -> Result<u64, ExportError> {
    writeln!(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>")?;
    writeln!(out, "<dataset name=\"{}\">", xml_text(dataset_name))?;
    let mut count = 0;
    for row in rows {
        let row = row?;
        out.write_all(b"  <row>\n")?;
        for ((name, _), value) in COLUMNS.iter().zip(flat(&row)) {
            writeln!(out, "    <{name}>{}</{name}>", xml_text(&value))?;
        }
        out.write_all(b"  </row>\n")?;
        count += 1;
    }
    out.write_all(b"</dataset>\n")?;
    finish(out)?;
    Ok(count)
}
