//! The dataset row: one per execution, with a stable schema that every export format follows.
//!
//! Rows are kept as JSON Lines (the canonical form, written once at build time); each export format is
//! produced by streaming over those lines, so memory never grows with the dataset.

use std::collections::BTreeMap;
use std::io::BufRead;

use serde::{Deserialize, Serialize};

/// One execution as a dataset row.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DatasetRow {
    pub execution_id: i64,
    pub document_id: i64,
    pub filename: String,
    pub format: String,
    pub language: String,
    pub quality_grade: String,
    pub pii_count: i64,
    pub pii_type_summary: BTreeMap<String, u64>,
    /// The extracted text; masked when the execution was masked.
    pub text: String,
    pub fields: serde_json::Value,
    /// `[{name?, header?, rows}]`, masked like the text.
    pub tables: serde_json::Value,
    pub masked: bool,
    /// The version of the tenant's privacy policy the execution was processed under (0: the default
    /// policy; also for executions older than policies).
    #[serde(default)]
    pub policy_version: i64,
    /// RFC 3339 UTC.
    pub created_at: String,
}

/// Column names and types, in order: what `GET /v1/datasets/{id}` reports as the schema.
pub const COLUMNS: &[(&str, &str)] = &[
    ("execution_id", "int64"),
    ("document_id", "int64"),
    ("filename", "string"),
    ("format", "string"),
    ("language", "string"),
    ("quality_grade", "string"),
    ("pii_count", "int64"),
    ("pii_type_summary", "json object (type -> count)"),
    ("text", "string"),
    ("fields", "json object"),
    ("tables", "json array"),
    ("masked", "bool"),
    ("policy_version", "int64"),
    ("created_at", "timestamp (UTC, RFC 3339)"),
];

pub fn schema_json() -> serde_json::Value {
    serde_json::Value::Array(
        COLUMNS
            .iter()
            .map(|(name, kind)| serde_json::json!({"name": name, "type": kind}))
            .collect(),
    )
}

#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("reading the dataset rows failed: {0}")]
    Io(#[from] std::io::Error),
    #[error("a dataset row is not valid: {0}")]
    Row(#[from] serde_json::Error),
    #[error("{0}")]
    Writer(String),
}

/// Appends one row to a canonical JSON Lines file. The JSON Lines export is this file as it is, so
/// this is also the JSONL writer's line format.
pub fn write_line<W: std::io::Write>(out: &mut W, row: &DatasetRow) -> Result<(), ExportError> {
    serde_json::to_writer(&mut *out, row)?;
    out.write_all(b"\n")?;
    Ok(())
}

/// Streams the rows of a canonical JSON Lines file.
pub fn read_rows<R: BufRead>(reader: R) -> impl Iterator<Item = Result<DatasetRow, ExportError>> {
    reader.lines().filter_map(|line| match line {
        Ok(line) if line.trim().is_empty() => None,
        Ok(line) => Some(serde_json::from_str(&line).map_err(ExportError::from)),
        Err(error) => Some(Err(ExportError::from(error))),
    })
}

/// A row as it appears in flat formats: nested values as JSON text.
pub fn flat(row: &DatasetRow) -> [String; 14] {
    [
        row.execution_id.to_string(),
        row.document_id.to_string(),
        row.filename.clone(),
        row.format.clone(),
        row.language.clone(),
        row.quality_grade.clone(),
        row.pii_count.to_string(),
        serde_json::to_string(&row.pii_type_summary).unwrap_or_default(),
        row.text.clone(),
        row.fields.to_string(),
        row.tables.to_string(),
        row.masked.to_string(),
        row.policy_version.to_string(),
        row.created_at.clone(),
    ]
}

#[cfg(test)]
pub fn sample(n: usize) -> DatasetRow {
    DatasetRow {
        execution_id: n as i64 + 1,
        document_id: n as i64 + 100,
        filename: format!("belge-{n}.docx"),
        format: "docx".to_string(),
        language: "tr".to_string(),
        quality_grade: "A".to_string(),
        pii_count: 2,
        pii_type_summary: BTreeMap::from([
            ("email".to_string(), 1),
            ("national_id_tr".to_string(), 1),
        ]),
        text: format!(
            "Sayın [MASKED_PERSON_NAME], başvurunuz {n} alındı. <ok> & \"tırnak\", virgül\nikinci satır"
        ),
        fields: serde_json::json!({"invoice_number": format!("INV-{n}")}),
        tables: serde_json::json!([{"header": ["Ad", "Tutar"], "rows": [["[MASKED_PERSON_NAME]", "10|5"]]}]),
        masked: true,
        policy_version: 3,
        created_at: "2026-11-22T10:00:00Z".to_string(),
    }
}
