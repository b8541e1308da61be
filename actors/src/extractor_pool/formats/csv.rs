//! CSV: delimiter sniffing (`,` `;` tab `|`), quoted fields with newlines, ragged rows. Values are
//! kept as written (decimal commas included).

use super::super::error::ExtractError;
use super::super::limits::Limits;
use crate::model::{Builder, Rows};

pub fn extract(text: &str, limits: &Limits, builder: &mut Builder) -> Result<(), ExtractError> {
    let delimiter = super::detect::csv_delimiter(text).unwrap_or(b',');
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .has_headers(false)
        .flexible(true)
        .from_reader(text.as_bytes());
    // Straight into the compact rows: a large CSV is millions of cells.
    let mut rows = Rows::new();
    let (mut width, mut ruled) = (0, false);
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
        let cells: Vec<&str> = record.iter().map(str::trim).collect();
        ruled |= delimiter == b'|' && markdown_rule(&cells);
        width = width.max(cells.len());
        rows.push(cells);
    }
    if ruled {
        let mut table = rows.to_vec();
        unframe_markdown(&mut table);
        width = table.iter().map(Vec::len).max().unwrap_or(0);
        rows = table.into();
    }
    if rows.is_empty() {
        return Err(ExtractError::NoText);
    }
    builder.field("delimiter", (delimiter as char).to_string());
    // A first row of labels as wide as the table is the header.
    builder.push_rows(rows, width.max(1), None);
    Ok(())
}

/// Whether a row is a Markdown table's rule under its header (`|---|:---:|`).
fn markdown_rule<S: AsRef<str>>(row: &[S]) -> bool {
    let cells = row
        .iter()
        .map(AsRef::as_ref)
        .filter(|cell| !cell.is_empty());
    let mut any = false;
    for cell in cells {
        if !cell.contains('-') || !cell.chars().all(|c| matches!(c, '-' | ':' | ' ')) {
            return false;
        }
        any = true;
    }
    any
}

/// A Markdown table's rows without the empty cells its outer pipes make (`| a | b |` reads as "", "a",
/// "b", ""), and without its rule: the header's cells then stand over their columns' (a header that
/// lost its leading empty cell to the text's trim stood one column to the left of its rows).
fn unframe_markdown(rows: &mut Vec<Vec<String>>) {
    rows.retain(|row| !markdown_rule(row));
    for row in rows.iter_mut() {
        if row.len() > 1 && row.last().is_some_and(String::is_empty) {
            row.pop();
        }
        if row.len() > 1 && row.first().is_some_and(String::is_empty) {
            row.remove(0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows_of(text: &str) -> (Vec<String>, Vec<Vec<String>>) {
        let mut builder = Builder::default();
        extract(text, &Limits::default(), &mut builder).expect("a table");
        let document = builder.document;
        let table = document.tables.first().expect("one table");
        (
            table.header.clone().unwrap_or_default(),
            table.rows.to_vec(),
        )
    }

    /// A Markdown table's header stands over its columns, its rule is no row, and the outer pipes
    /// make no empty columns.
    #[test]
    fn a_markdown_table_keeps_its_columns() {
        let (header, rows) = rows_of(
            "| Ad Soyad | Doğum Tarihi | Şehir |\n|---|:---:|---|\n| Ayşe Kaya | 12.03.1985 | Ankara |\n| Ali Veli | | İzmir |\n",
        );
        assert_eq!(header, ["Ad Soyad", "Doğum Tarihi", "Şehir"]);
        assert_eq!(
            rows,
            [
                ["Ayşe Kaya", "12.03.1985", "Ankara"],
                ["Ali Veli", "", "İzmir"]
            ]
        );
        // Pipes as a plain delimiter, without a rule: the cells as they are.
        let (header, rows) = rows_of("Ad|Soyad|Şehir\nAyşe|Kaya|Ankara\nAli|Veli|İzmir\n");
        assert_eq!(header, ["Ad", "Soyad", "Şehir"]);
        assert_eq!(rows[0], ["Ayşe", "Kaya", "Ankara"]);
    }
}
