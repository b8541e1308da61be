//! Spreadsheets (XLSX, XLS, ODS) through calamine: each sheet a table, dates as ISO dates.

use std::io::Cursor;

use calamine::{Data, Reader};

use super::super::error::ExtractError;
use super::super::limits::Limits;
use super::super::model::{Builder, Table};

fn cell_text(cell: &Data) -> String {
    match cell {
        Data::Empty => String::new(),
        Data::String(text) => text.trim().to_string(),
        Data::Float(value) => {
            if value.fract() == 0.0 && value.abs() < 1e15 {
                format!("{}", *value as i64)
            } else {
                value.to_string()
            }
        }
        Data::Int(value) => value.to_string(),
        Data::Bool(value) => value.to_string(),
        Data::DateTime(value) => match value.as_datetime() {
            Some(datetime) if datetime.time() == chrono::NaiveTime::MIN => {
                datetime.date().to_string()
            }
            Some(datetime) => datetime.format("%Y-%m-%dT%H:%M:%S").to_string(),
            None => value.to_string(),
        },
        Data::DateTimeIso(text) | Data::DurationIso(text) => text.clone(),
        Data::Error(error) => format!("#{error:?}"),
    }
}

pub fn extract(bytes: &[u8], limits: &Limits, builder: &mut Builder) -> Result<(), ExtractError> {
    let mut workbook =
        calamine::open_workbook_auto_from_rs(Cursor::new(bytes.to_vec())).map_err(|error| {
            let message = error.to_string();
            if message.contains("ncrypt") || message.contains("assword") {
                ExtractError::EncryptedDocument
            } else {
                ExtractError::Malformed(format!("spreadsheet: {message}"))
            }
        })?;
    let names = workbook.sheet_names().to_vec();
    if names.len() > limits.max_pages as usize {
        return Err(ExtractError::LimitExceeded(format!(
            "more than {} sheets",
            limits.max_pages
        )));
    }
    for (index, name) in names.iter().enumerate() {
        let range = match workbook.worksheet_range(name) {
            Ok(range) => range,
            Err(error) => return Err(ExtractError::Malformed(format!("sheet {name}: {error}"))),
        };
        if range.height() > limits.max_rows {
            return Err(ExtractError::LimitExceeded(format!(
                "sheet {name} has more than {} rows",
                limits.max_rows
            )));
        }
        let mut rows: Vec<Vec<String>> = range
            .rows()
            .map(|row| row.iter().map(cell_text).collect::<Vec<_>>())
            .filter(|row| row.iter().any(|c| !c.is_empty()))
            .collect();
        // Trailing empty columns carry nothing.
        let width = rows
            .iter()
            .map(|r| r.iter().rposition(|c| !c.is_empty()).map_or(0, |p| p + 1))
            .max()
            .unwrap_or(0);
        for row in &mut rows {
            row.truncate(width);
        }
        let header = Table::take_header(&mut rows, 2);
        builder.push_table(
            Table {
                name: Some(name.clone()),
                header,
                rows,
                page: Some(index as u32 + 1),
            },
            Some(index as u32 + 1),
        );
    }
    builder.document.metadata.pages = Some(names.len() as u32);
    Ok(())
}
