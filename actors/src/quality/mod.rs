//! Cross-validation of an execution: the deterministic extractors (key-value fields and table columns)
//! against the LLM's reading of the same masked text.
//!
//! The document is read again (extracted and masked) from its original when it is kept; otherwise the
//! stored result is used when it is masked. Only masked text is sent to the model.
//!
//! Comparison: every field is named (lower case, spaces collapsed, `_` as space, a trailing `:` dropped);
//! key-value fields carry their value (lower case, spaces collapsed), table columns are fields
//! `column:<name>` that are present or not. `delta` = fields that disagree (found by one side only, or
//! with different values) / fields found by either side; 0 when neither found any. Above 0.20 the
//! execution is flagged (`cross_validation_flag`).

mod precision;

use std::collections::BTreeMap;

use serde_json::{json, Value};

use crate::blob::{BlobError, Blobs};
use crate::clock::Clock;
use crate::extractor_pool::Limits;
use crate::llm::{Llm, LlmError};
use crate::model::Document;
use crate::pipeline::ProcessError;
use crate::store::{ExecutionRecord, Store, StoreError};
use crate::system::ActorHandles;
pub use precision::{pii_precision, report as precision_report};

/// What an audit reads and writes: the execution and its document, the actors that read the
/// original again, and the LLM that gives the second opinion.
pub struct Audits<'a> {
    pub store: &'a Store,
    pub blobs: &'a Blobs,
    pub clock: &'a Clock,
    pub actors: &'a ActorHandles,
    pub limits: &'a Limits,
    pub llm: &'a Llm,
    /// Characters of a document's masked text sent at most (`llm.max_input_chars`).
    pub max_input_chars: usize,
}

/// Why an audit gave no outcome; the execution is unchanged.
#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    /// No execution has this id (`execution_not_found`).
    #[error("execution {0} does not exist")]
    ExecutionNotFound(i64),
    /// Neither the original nor a masked result is left to read (`execution_not_masked`).
    #[error("{0}")]
    NotMasked(String),
    /// The execution did not complete: no summary to audit (`execution_not_completed`).
    #[error("{0}")]
    NotCompleted(String),
    /// The LLM is off, unreachable or answered unusably (`llm_unavailable`, `llm_bad_response`).
    #[error("{0}; the execution is unchanged")]
    Llm(LlmError),
    /// Reading the original again failed.
    #[error(transparent)]
    Process(ProcessError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Blob(#[from] BlobError),
}

/// Above this share of disagreeing fields an execution is flagged.
pub const FLAG_ABOVE: f64 = 0.20;

fn normalize_name(name: &str) -> String {
    name.trim()
        .trim_end_matches(':')
        .replace('_', " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

fn normalize_value(value: &Value) -> String {
    let text = match value {
        Value::String(text) => text.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    };
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// The fields a reading found: name → value (`None` for a table column, which is present or not).
type Fields = BTreeMap<String, Option<String>>;

fn deterministic_fields(document: &Document) -> (Fields, usize, usize) {
    let mut fields = Fields::new();
    for (name, value) in &document.fields {
        fields.insert(normalize_name(name), Some(normalize_value(value)));
    }
    let key_values = fields.len();
    let mut columns = 0;
    for header in document.tables.iter().filter_map(|t| t.header.as_ref()) {
        for column in header {
            let name = format!("column:{}", normalize_name(column));
            if fields.insert(name, None).is_none() {
                columns += 1;
            }
        }
    }
    (fields, key_values, columns)
}

fn llm_fields(answer: &Value) -> Result<Fields, String> {
    let mut fields = Fields::new();
    let listed = answer["fields"]
        .as_array()
        .ok_or("no `fields` list in the answer")?;
    for field in listed {
        let name = field["name"].as_str().ok_or("a field without a name")?;
        fields.insert(normalize_name(name), Some(normalize_value(&field["value"])));
    }
    for column in answer["columns"]
        .as_array()
        .ok_or("no `columns` list in the answer")?
    {
        let column = column.as_str().ok_or("a column that is not text")?;
        fields.insert(format!("column:{}", normalize_name(column)), None);
    }
    Ok(fields)
}

/// `delta` and the disagreements of two readings.
pub fn compare(deterministic: &Fields, llm: &Fields) -> (f64, Vec<Value>) {
    let names: std::collections::BTreeSet<&String> =
        deterministic.keys().chain(llm.keys()).collect();
    let mut disagreements = Vec::new();
    for name in &names {
        let (ours, theirs) = (deterministic.get(*name), llm.get(*name));
        if ours != theirs {
            disagreements.push(json!({
                "field": name,
                "deterministic": ours.map(|v| v.clone().unwrap_or_else(|| "(column)".into())),
                "llm": theirs.map(|v| v.clone().unwrap_or_else(|| "(column)".into())),
            }));
        }
    }
    let delta = if names.is_empty() {
        0.0
    } else {
        disagreements.len() as f64 / names.len() as f64
    };
    (delta, disagreements)
}

fn answer_schema() -> Value {
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["fields", "columns"],
        "properties": {
            "fields": {"type": "array", "items": {
                "type": "object", "additionalProperties": false, "required": ["name", "value"],
                "properties": {"name": {"type": "string"}, "value": {"type": "string"}}}},
            "columns": {"type": "array", "items": {"type": "string"}},
        },
    })
}

const SYSTEM: &str = "You extract structured data from a document. Personal data in it is already masked as \
[MASKED_<TYPE>]: copy such placeholders as they are, never guess what they hide. Return every labelled \
key-value field (the label as name, the text after it as value) and the column headers of every table.";

/// The original of an execution's document, when it is still kept.
async fn original_bytes(
    audits: &Audits<'_>,
    execution: &ExecutionRecord,
) -> Result<Option<bytes::Bytes>, AuditError> {
    let Some(document) = audits
        .store
        .document_for_job(execution.tenant_id, execution.document_id)
        .await?
    else {
        return Ok(None);
    };
    match audits.blobs.get(&document.blob_key).await {
        Ok(bytes) => Ok(Some(bytes)),
        Err(BlobError::NotFound(_)) => Ok(None),
        Err(error) => Err(error.into()),
    }
}

/// The execution's stored result, when it is masked; else 409 `execution_not_masked`.
async fn stored_masked_document(
    audits: &Audits<'_>,
    execution: &ExecutionRecord,
) -> Result<Document, AuditError> {
    let stored = match &execution.result_blob_key {
        Some(key) if execution.masked => audits.blobs.get(key).await.ok(),
        _ => None,
    };
    stored
        .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok())
        .and_then(|result| serde_json::from_value::<Document>(result["document"].clone()).ok())
        .ok_or_else(|| {
            AuditError::NotMasked(format!(
                "execution {} has no original left and no masked result to read",
                execution.id
            ))
        })
}

/// The masked document of an execution: read again from its original when kept, else its stored
/// result when that is masked.
async fn masked_document(
    audits: &Audits<'_>,
    execution: &ExecutionRecord,
) -> Result<Document, AuditError> {
    if let Some(bytes) = original_bytes(audits, execution).await? {
        let masked = audits
            .actors
            .process(
                execution.tenant_id,
                bytes.clone(),
                audits.limits.clone(),
                crate::pii_masker::Policy::default(),
                true,
            )
            .await
            .map_err(AuditError::Process)?;
        return Ok(masked.document);
    }
    stored_masked_document(audits, execution).await
}

/// The execution `execution_id`, whichever tenant's; else 404.
async fn execution(audits: &Audits<'_>, execution_id: i64) -> Result<ExecutionRecord, AuditError> {
    audits
        .store
        .execution_any(execution_id)
        .await?
        .ok_or(AuditError::ExecutionNotFound(execution_id))
}

/// Runs the cross-validation of `execution_id` and keeps its outcome with the execution.
pub async fn cross_validate(audits: &Audits<'_>, execution_id: i64) -> Result<Value, AuditError> {
    let execution = execution(audits, execution_id).await?;
    if !audits.llm.is_configured() {
        return Err(AuditError::Llm(LlmError::Disabled));
    }
    let document = masked_document(audits, &execution).await?;
    let (ours, key_values, columns) = deterministic_fields(&document);
    let text: String = document.text.chars().take(audits.max_input_chars).collect();
    let answer = audits
        .llm
        .chat_json("document_fields", SYSTEM, &text, &answer_schema())
        .await
        .map_err(AuditError::Llm)?;
    let theirs =
        llm_fields(&answer).map_err(|reason| AuditError::Llm(LlmError::BadResponse(reason)))?;
    let (delta, disagreements) = compare(&ours, &theirs);
    let flag = delta > FLAG_ABOVE;
    let outcome = json!({
        "delta": (delta * 10_000.0).round() / 10_000.0,
        "flag": flag,
        "threshold": FLAG_ABOVE,
        "counts": {"key_value": key_values, "tabular": columns, "llm": theirs.len()},
        "disagreements": disagreements,
        "model": audits.llm.model(),
        "at": crate::clock::rfc3339(audits.clock.now()),
    });
    audits
        .store
        .record_quality(execution.id, "cross_validation", &outcome, Some(flag))
        .await?;
    Ok(
        json!({"execution_id": execution.id, "tenant_id": execution.tenant_id, "cross_validation": outcome}),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(items: &[(&str, Option<&str>)]) -> Fields {
        items
            .iter()
            .map(|(k, v)| (normalize_name(k), v.map(|v| normalize_value(&json!(v)))))
            .collect()
    }

    #[test]
    fn delta_is_the_share_of_fields_either_side_found_that_disagree() {
        let ours = fields(&[
            ("Fatura No:", Some("A-1")),
            ("Tarih", Some("01.01.2026")),
            ("column:ad", None),
        ]);
        let same = fields(&[
            ("fatura  no", Some("a-1")),
            ("TARIH", Some("01.01.2026")),
            ("column:Ad", None),
        ]);
        assert_eq!(compare(&ours, &same).0, 0.0);
        // One value differs, one field only the LLM found: 2 of 4.
        let other = fields(&[
            ("fatura no", Some("A-2")),
            ("tarih", Some("01.01.2026")),
            ("column:ad", None),
            ("toplam", Some("10")),
        ]);
        let (delta, disagreements) = compare(&ours, &other);
        assert!((delta - 0.5).abs() < 1e-9, "{delta}");
        assert_eq!(disagreements.len(), 2);
        assert_eq!(compare(&Fields::new(), &Fields::new()).0, 0.0);
    }
}
