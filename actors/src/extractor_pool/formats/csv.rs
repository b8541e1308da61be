//! CSV: delimiter sniffing (`,` `;` tab `|`), quoted fields with newlines, ragged rows. Values are
//! kept as written (decimal commas included).

use super::super::error::ExtractError;
use super::super::limits::Limits;
use super::super::model::{Builder, Table};

pub fn extract(text: &str, limits: &Limits, builder: &mut Builder) -> Result<(), ExtractError> {
    let delimiter = super::detect::csv_delimiter(text).unwrap_or(b',');
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .has_headers(false)
        .flexible(true)
        .from_reader(text.as_bytes());
    let mut rows: Vec<Vec<String>> = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|error| ExtractError::Malformed(format!("CSV: {error}")))?;
        if record.iter().all(|field| field.trim().is_empty()) {
            continue;
        }
        if rows.len() >= limits.max_rows {
            return Err(ExtractError::LimitExceeded(format!(
                "more than {} rows",
                limits.max_rows
            )));
        }
        rows.push(
            record
                .iter()
                .map(|field| field.trim().to_string())
                .collect(),
        );
    }
    if rows.is_empty() {
        return Err(ExtractError::NoText);
    }
    let width = rows.iter().map(Vec::len).max().unwrap_or(0);
    // A first row of labels as wide as the table is the header.
    let header = Table::take_header(&mut rows, width.max(1));
    builder.field("delimiter", (delimiter as char).to_string());
    builder.push_table(
        Table {
            name: None,
            header,
            rows,
            page: None,
        },
        None,
    );
    Ok(())
}
