//! Spreadsheets (XLSX, XLS, ODS) through calamine: each sheet a table, dates as ISO dates.

use std::io::Cursor;

use calamine::{Data, Reader};

use super::super::error::ExtractError;
use super::super::limits::Limits;
use crate::model::{Builder, Table};

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

/// Columns a sheet may have (Excel's own bound, `XFD`).
const MAX_COLUMNS: u32 = 16_384;
/// Cells (rows with text times the width) one sheet may expand to once its rows are padded.
const MAX_CELLS: usize = 20_000_000;

fn too_large(name: &str, what: String) -> ExtractError {
    ExtractError::LimitExceeded(format!("sheet {name}: {what}"))
}

/// An XLSX sheet read cell by cell, each position checked before anything is allocated for it. A
/// sheet's dense range (what `worksheet_range` builds) spans its first to its last cell: one cell
/// written at `XFD1048576`, or a reference whose digits overflow, made it billions of cells.
fn xlsx_rows<RS: std::io::Read + std::io::Seek>(
    workbook: &mut calamine::Xlsx<RS>,
    name: &str,
    limits: &Limits,
) -> Result<Vec<Vec<String>>, ExtractError> {
    let mut reader = workbook
        .worksheet_cells_reader(name)
        .map_err(|error| ExtractError::Malformed(format!("sheet {name}: {error}")))?;
    let mut cells: Vec<(u32, u32, String)> = Vec::new();
    let mut first_column = u32::MAX;
    while let Some(cell) = reader
        .next_cell()
        .map_err(|error| ExtractError::Malformed(format!("sheet {name}: {error}")))?
    {
        let (row, column) = cell.get_position();
        if row as usize >= limits.max_rows {
            return Err(too_large(
                name,
                format!("more than {} rows", limits.max_rows),
            ));
        }
        if column >= MAX_COLUMNS {
            return Err(too_large(name, format!("more than {MAX_COLUMNS} columns")));
        }
        first_column = first_column.min(column);
        let text = cell_text(&Data::from(cell.get_value().clone()));
        if !text.is_empty() {
            cells.push((row, column, text));
        }
    }
    cells.sort_by_key(|&(row, column, _)| (row, column));
    let width = cells
        .iter()
        .map(|&(_, column, _)| (column - first_column) as usize + 1)
        .max()
        .unwrap_or(0);
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut current: Option<u32> = None;
    for (row, column, text) in cells {
        if current != Some(row) {
            if (rows.len() + 1).saturating_mul(width) > MAX_CELLS {
                return Err(too_large(name, format!("more than {MAX_CELLS} cells")));
            }
            rows.push(vec![String::new(); width]);
            current = Some(row);
        }
        if let Some(last) = rows.last_mut() {
            last[(column - first_column) as usize] = text;
        }
    }
    Ok(rows)
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
        let mut rows: Vec<Vec<String>> = if let calamine::Sheets::Xlsx(xlsx) = &mut workbook {
            xlsx_rows(xlsx, name, limits)?
        } else {
            let range = match workbook.worksheet_range(name) {
                Ok(range) => range,
                Err(error) => {
                    return Err(ExtractError::Malformed(format!("sheet {name}: {error}")))
                }
            };
            if range.height() > limits.max_rows {
                return Err(too_large(
                    name,
                    format!("more than {} rows", limits.max_rows),
                ));
            }
            range
                .rows()
                .map(|row| row.iter().map(cell_text).collect::<Vec<_>>())
                .filter(|row| row.iter().any(|c| !c.is_empty()))
                .collect()
        };
        // Trailing empty columns carry nothing.
        let width = rows
            .iter()
            .map(|r| r.iter().rposition(|c| !c.is_empty()).map_or(0, |p| p + 1))
            .max()
            .unwrap_or(0);
        for row in &mut rows {
            row.truncate(width);
        }
        let mut rows = crate::model::Rows::from(rows);
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
