//! Masking a whole extracted document: text, elements, table cells, fields, metadata and attachments,
//! with the values the document itself declares (author, e-mail parties, e-invoice parties) as known
//! personal data. Findings and the summary come from the document's text.

use std::collections::BTreeMap;

use super::engine::{self, Finding, LeakError, PiiType, Policy};
use crate::extractor_pool::model::{Document, Table};

#[derive(Clone, Debug)]
pub struct MaskedDocument {
    pub document: Document,
    pub findings: Vec<Finding>,
    pub summary: BTreeMap<String, u64>,
}

fn mask_text(text: &str, policy: &Policy) -> Result<String, LeakError> {
    if text.trim().is_empty() {
        return Ok(text.to_string());
    }
    Ok(engine::mask(text, policy)?.text)
}

/// Masks a table through its tab-separated rendering, so that headers give context to their column;
/// placeholders hold no tabs or newlines, so the cells split back exactly.
fn mask_table(table: &Table, policy: &Policy) -> Result<Table, LeakError> {
    let masked = mask_text(&table.to_text(), policy)?;
    let mut lines: Vec<Vec<String>> = masked
        .split('\n')
        .map(|line| line.split('\t').map(str::to_string).collect())
        .collect();
    let expected = usize::from(table.header.is_some()) + table.rows.len();
    let same_shape = lines.len() == expected
        && table
            .header
            .iter()
            .chain(&table.rows)
            .zip(&lines)
            .all(|(original, masked)| original.len() == masked.len());
    if same_shape {
        let header = table.header.as_ref().map(|_| lines.remove(0));
        return Ok(Table {
            header,
            rows: lines,
            ..table.clone()
        });
    }
    // Cells with line breaks change the shape: mask cell by cell instead.
    let mask_row = |row: &Vec<String>| {
        row.iter()
            .map(|cell| mask_text(cell, policy))
            .collect::<Result<Vec<_>, _>>()
    };
    Ok(Table {
        header: table.header.as_ref().map(mask_row).transpose()?,
        rows: table.rows.iter().map(mask_row).collect::<Result<_, _>>()?,
        ..table.clone()
    })
}

/// A field value with its key as context ("supplier.vkn: 1234567890").
fn mask_value(
    key: &str,
    value: &serde_json::Value,
    policy: &Policy,
) -> Result<serde_json::Value, LeakError> {
    Ok(match value {
        serde_json::Value::String(text) => {
            let prefix = format!("{key}: ");
            let masked = mask_text(&format!("{prefix}{text}"), policy)?;
            serde_json::Value::String(
                masked
                    .strip_prefix(&prefix)
                    .map(str::to_string)
                    .unwrap_or(masked),
            )
        }
        serde_json::Value::Array(items) => serde_json::Value::Array(
            items
                .iter()
                .map(|item| mask_value(key, item, policy))
                .collect::<Result<_, _>>()?,
        ),
        serde_json::Value::Object(map) => serde_json::Value::Object(
            map.iter()
                .map(|(k, v)| mask_value(k, v, policy).map(|masked| (k.clone(), masked)))
                .collect::<Result<_, _>>()?,
        ),
        other => other.clone(),
    })
}

fn mask_parts(document: &Document, policy: &Policy) -> Result<Document, LeakError> {
    let mut masked = document.clone();
    masked.text = mask_text(&document.text, policy)?;
    for element in &mut masked.elements {
        element.text = mask_text(&element.text, policy)?;
    }
    masked.tables = document
        .tables
        .iter()
        .map(|t| mask_table(t, policy))
        .collect::<Result<_, _>>()?;
    masked.fields = document
        .fields
        .iter()
        .map(|(k, v)| mask_value(k, v, policy).map(|masked| (k.clone(), masked)))
        .collect::<Result<_, _>>()?;
    for value in [&mut masked.metadata.title, &mut masked.metadata.author] {
        if let Some(text) = value.as_mut() {
            *text = mask_text(text, policy)?;
        }
    }
    for attachment in &mut masked.attachments {
        attachment.filename = mask_text(&attachment.filename, policy)?;
        if let Some(child) = attachment.document.as_mut() {
            **child = mask_parts(child, policy)?;
        }
    }
    Ok(masked)
}

/// The policy plus everything the document declares about itself.
pub fn policy_for(document: &Document, policy: &Policy) -> Policy {
    let mut policy = policy.clone();
    policy.known_values.extend(
        document
            .pii_hints()
            .into_iter()
            .filter_map(|(ty, value)| PiiType::from_name(ty).map(|ty| (ty, value))),
    );
    policy
}

/// Findings over the document's full text (attachments included), without changing anything.
pub fn detect_document(
    document: &Document,
    policy: &Policy,
) -> (Vec<Finding>, BTreeMap<String, u64>) {
    engine::summarize(&document.full_text(), &policy_for(document, policy))
}

pub fn mask_document(document: &Document, policy: &Policy) -> Result<MaskedDocument, LeakError> {
    let mut policy = policy_for(document, policy);
    let full_text = document.full_text();
    let (findings, summary) = engine::summarize(&full_text, &policy);
    // What the whole text revealed (a name from a table header, a VKN behind its label) is personal
    // data in every part, even where that part alone gives no context.
    policy.known_values.extend(
        findings
            .iter()
            .map(|f| (f.pii_type, full_text[f.start..f.end].to_string()))
            .filter(|(_, value)| value.chars().count() >= 4),
    );
    policy.prepare();
    let masked = mask_parts(document, &policy)?;
    Ok(MaskedDocument {
        document: masked,
        findings,
        summary,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extractor_pool::engine::extract;
    use crate::extractor_pool::limits::Limits;

    #[test]
    fn no_planted_value_survives_anywhere_in_the_masked_model() {
        let root =
            std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/tr");
        for name in [
            "tr_musteri_listesi.xlsx",
            "tr_efatura.xml",
            "tr_eposta.eml",
            "tr_ik_yazisi.docx",
        ] {
            let document = extract(
                &std::fs::read(root.join(name)).expect("file"),
                &Limits::default(),
            )
            .expect("extract");
            let masked = mask_document(&document, &Policy::default()).expect("masked");
            let json = serde_json::to_string(&masked.document).expect("json");
            let sidecar: serde_json::Value = serde_json::from_str(
                &std::fs::read_to_string(root.join(format!("{name}.pii.json"))).expect("sidecar"),
            )
            .expect("json");
            for item in sidecar["pii"].as_array().expect("pii") {
                let value = item["value"].as_str().expect("value");
                assert!(
                    !json.contains(value),
                    "{name}: a {} value is left in the model",
                    item["type"]
                );
            }
            assert!(!masked.findings.is_empty());
        }
    }
}
