//! XLSX: a header row and one row per execution, written in rust_xlsxwriter's constant-memory mode.
//! Excel holds at most 32,767 characters in a cell: longer values are cut and end with
//! [`TRUNCATION_MARKER`]; more rows than a sheet holds is an error.

use std::path::Path;

use rust_xlsxwriter::{Format, Workbook};

use crate::dataset_exporter::rows::{flat, DatasetRow, ExportError, COLUMNS};

pub const CELL_LIMIT: usize = 32_767;
pub const TRUNCATION_MARKER: &str = " …[truncated]";
const ROW_LIMIT: u32 = 1_048_576;

fn writer_error(error: impl std::fmt::Display) -> ExportError {
    ExportError::Writer(error.to_string())
}

/// The value cut to Excel's cell limit (counted in UTF-16 units, as Excel does), marked when cut.
pub fn fit_cell(value: &str) -> std::borrow::Cow<'_, str> {
    if value.encode_utf16().count() <= CELL_LIMIT {
        return value.into();
    }
    let budget = CELL_LIMIT - TRUNCATION_MARKER.encode_utf16().count();
    let mut used = 0;
    let mut cut = String::new();
    for c in value.chars() {
        used += c.len_utf16();
        if used > budget {
            break;
        }
        cut.push(c);
    }
    cut.push_str(TRUNCATION_MARKER);
    cut.into()
}

pub fn xlsx(
    rows: impl Iterator<Item = Result<DatasetRow, ExportError>>,
    out: &Path,
) -> Result<u64, ExportError> {
    let mut workbook = Workbook::new();
    let bold = Format::new().set_bold();
    let sheet = workbook.add_worksheet_with_constant_memory();
    sheet.set_name("dataset").map_err(writer_error)?;
    for (col, (name, _)) in COLUMNS.iter().enumerate() {
        sheet
            .write_string_with_format(0, col as u16, *name, &bold)
            .map_err(writer_error)?;
    }
    let numeric = [0usize, 1, 6, 12];
    let mut count: u64 = 0;
    for row in rows {
        let row = row?;
        let index = u32::try_from(count + 1).map_err(writer_error)?;
        if index >= ROW_LIMIT {
            return Err(ExportError::Writer(format!(
                "XLSX holds at most {} rows; this dataset has more: use parquet, csv or jsonl",
                ROW_LIMIT - 1
            )));
        }
        for (col, value) in flat(&row).iter().enumerate() {
            let col16 = col as u16;
            if numeric.contains(&col) {
                let number = value.parse::<f64>().unwrap_or(0.0);
                sheet
                    .write_number(index, col16, number)
                    .map_err(writer_error)?;
            } else {
                sheet
                    .write_string(index, col16, fit_cell(value).as_ref())
                    .map_err(writer_error)?;
            }
        }
        count += 1;
    }
    workbook.save(out).map_err(writer_error)?;
    Ok(count)
}
