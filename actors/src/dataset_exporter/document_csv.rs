//! One document as CSV (RFC 4180, UTF-8, CRLF line ends, every field quoted when it needs to be).
//!
//! Tabular input (CSV, spreadsheets) becomes its table rows: the header row when the tables share one,
//! `column_1..column_N` otherwise (each sheet's own header then comes first among its rows), and a
//! leading `sheet` column when there are several sheets. Anything else becomes one row per element:
//! `index, page, type, text`.

use crate::model::Document;

/// Formats whose content is its tables.
pub const TABULAR_FORMATS: &[&str] = &["csv", "xlsx", "xls", "ods"];

fn is_tabular(document: &Document) -> bool {
    TABULAR_FORMATS.contains(&document.metadata.format.as_str()) && !document.tables.is_empty()
}

pub fn document_csv(document: &Document) -> Result<Vec<u8>, csv::Error> {
    let mut writer = csv::WriterBuilder::new()
        .terminator(csv::Terminator::CRLF)
        .flexible(false)
        .from_writer(Vec::new());
    if is_tabular(document) {
        write_tables(document, &mut writer)?;
    } else {
        writer.write_record(["index", "page", "type", "text"])?;
        for (index, element) in document.elements.iter().enumerate() {
            let kind = serde_json::to_value(element.kind)
                .ok()
                .and_then(|value| value.as_str().map(str::to_string))
                .unwrap_or_default();
            let page = element
                .page
                .map(|page| page.to_string())
                .unwrap_or_default();
            writer.write_record([index.to_string(), page, kind, element.text.clone()])?;
        }
    }
    writer
        .into_inner()
        .map_err(|error| csv::Error::from(error.into_error()))
}

fn write_tables(document: &Document, writer: &mut csv::Writer<Vec<u8>>) -> Result<(), csv::Error> {
    let tables = &document.tables;
    let several = tables.len() > 1;
    let width = tables
        .iter()
        .flat_map(|table| {
            let header = table.header.as_ref().map(Vec::len);
            header
                .into_iter()
                .chain(table.rows.iter().map(|row| row.len()))
        })
        .max()
        .unwrap_or(0)
        .max(1);
    let shared_header = tables
        .first()
        .and_then(|first| first.header.clone())
        .filter(|header| {
            tables
                .iter()
                .all(|table| table.header.as_ref() == Some(header))
        });
    let mut header: Vec<String> = match &shared_header {
        Some(header) => header.clone(),
        None => (1..=width).map(|n| format!("column_{n}")).collect(),
    };
    header.resize(width, String::new());
    for (n, cell) in header.iter_mut().enumerate() {
        if cell.is_empty() {
            *cell = format!("column_{}", n + 1);
        }
    }
    if several {
        header.insert(0, "sheet".to_string());
    }
    writer.write_record(&header)?;
    for (index, table) in tables.iter().enumerate() {
        let sheet = table
            .name
            .clone()
            .unwrap_or_else(|| format!("table_{}", index + 1));
        let own_header = if shared_header.is_none() {
            table.header.as_ref()
        } else {
            None
        };
        let own_header = own_header.map(|header| header.iter().map(String::as_str).collect());
        for row in own_header.into_iter().chain(
            table
                .rows
                .iter()
                .map(|row| row.iter().collect::<Vec<&str>>()),
        ) {
            let mut record = row;
            record.resize(width, "");
            if several {
                record.insert(0, &sheet);
            }
            writer.write_record(&record)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extractor_pool::extract_document as extract;
    use crate::extractor_pool::Limits;

    fn csv_of(bytes: &[u8]) -> String {
        let document = extract(bytes, &Limits::default()).expect("extracts");
        String::from_utf8(document_csv(&document).expect("writes")).expect("utf-8")
    }

    #[test]
    fn a_csv_comes_back_as_its_rows_with_quoting() {
        let out = csv_of(b"name,comment\nAli,\"hello, world\"\nVeli,\"say \"\"hi\"\"\"\n");
        assert_eq!(
            out,
            "name,comment\r\nAli,\"hello, world\"\r\nVeli,\"say \"\"hi\"\"\"\r\n"
        );
    }

    #[test]
    fn text_becomes_one_row_per_element() {
        let out = csv_of("Başlık\n\nBirinci paragraf, virgüllü.\n\nİkinci paragraf.\n".as_bytes());
        let mut reader = csv::Reader::from_reader(out.as_bytes());
        let header = reader.headers().expect("header").clone();
        assert_eq!(
            header.iter().collect::<Vec<_>>(),
            ["index", "page", "type", "text"]
        );
        let rows: Vec<csv::StringRecord> = reader.records().map(|r| r.expect("row")).collect();
        assert!(rows.len() >= 2, "{out}");
        assert!(
            rows.iter()
                .any(|row| &row[3] == "Birinci paragraf, virgüllü."),
            "{out}"
        );
        assert_eq!(&rows[0][0], "0");
    }
}
