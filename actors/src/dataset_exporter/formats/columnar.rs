//! Parquet (typed columns, zstd) and the HuggingFace `datasets` folder (`save_to_disk` layout, zipped):
//! both from Arrow record batches of [`BATCH_ROWS`] rows, so memory stays flat.
//!
//! Strings are plain `utf8` (never `string_view`) so that older pyarrow and `datasets` releases read
//! them; nested values are JSON text; `created_at` is a UTC millisecond timestamp.

use std::fs::File;
use std::io::{BufReader, Seek, Write};
use std::path::Path;
use std::sync::Arc;

use arrow_array::builder::{
    BooleanBuilder, Int64Builder, StringBuilder, TimestampMillisecondBuilder,
};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};

use crate::dataset_exporter::rows::{DatasetRow, ExportError};

pub const BATCH_ROWS: usize = 4096;

fn writer_error(error: impl std::fmt::Display) -> ExportError {
    ExportError::Writer(error.to_string())
}

pub fn schema() -> SchemaRef {
    let string = |name: &str| Field::new(name, DataType::Utf8, false);
    Arc::new(Schema::new(vec![
        Field::new("execution_id", DataType::Int64, false),
        Field::new("document_id", DataType::Int64, false),
        string("filename"),
        string("format"),
        string("language"),
        string("quality_grade"),
        Field::new("pii_count", DataType::Int64, false),
        string("pii_type_summary"),
        string("text"),
        string("fields"),
        string("tables"),
        Field::new("masked", DataType::Boolean, false),
        Field::new("policy_version", DataType::Int64, false),
        Field::new(
            "created_at",
            DataType::Timestamp(TimeUnit::Millisecond, Some("UTC".into())),
            false,
        ),
    ]))
}

fn batch(rows: &[DatasetRow], schema: &SchemaRef) -> Result<RecordBatch, ExportError> {
    let mut ints: [Int64Builder; 4] = Default::default();
    let mut strings: Vec<StringBuilder> = (0..8).map(|_| StringBuilder::new()).collect();
    let mut masked = BooleanBuilder::new();
    let mut created = TimestampMillisecondBuilder::new().with_timezone("UTC");
    for row in rows {
        ints[0].append_value(row.execution_id);
        ints[1].append_value(row.document_id);
        ints[2].append_value(row.pii_count);
        ints[3].append_value(row.policy_version);
        let values = [
            row.filename.as_str(),
            row.format.as_str(),
            row.language.as_str(),
            row.quality_grade.as_str(),
        ];
        for (builder, value) in strings.iter_mut().zip(values) {
            builder.append_value(value);
        }
        strings[4].append_value(serde_json::to_string(&row.pii_type_summary)?);
        strings[5].append_value(&row.text);
        strings[6].append_value(row.fields.to_string());
        strings[7].append_value(row.tables.to_string());
        masked.append_value(row.masked);
        let millis = chrono::DateTime::parse_from_rfc3339(&row.created_at)
            .map(|t| t.timestamp_millis())
            .unwrap_or(0);
        created.append_value(millis);
    }
    let [mut execution, mut document, mut pii, mut policy] = ints;
    let mut string = strings
        .into_iter()
        .map(|mut b| Arc::new(b.finish()) as ArrayRef);
    let mut next = || string.next().ok_or_else(|| writer_error("column count"));
    let columns: Vec<ArrayRef> = vec![
        Arc::new(execution.finish()),
        Arc::new(document.finish()),
        next()?,
        next()?,
        next()?,
        next()?,
        Arc::new(pii.finish()),
        next()?,
        next()?,
        next()?,
        next()?,
        Arc::new(masked.finish()),
        Arc::new(policy.finish()),
        Arc::new(created.finish()),
    ];
    RecordBatch::try_new(schema.clone(), columns).map_err(writer_error)
}

/// Feeds the rows to `write` in batches; returns the row count.
fn batches(
    rows: impl Iterator<Item = Result<DatasetRow, ExportError>>,
    mut write: impl FnMut(&RecordBatch) -> Result<(), ExportError>,
) -> Result<u64, ExportError> {
    let schema = schema();
    let mut buffer = Vec::with_capacity(BATCH_ROWS);
    let mut count = 0;
    for row in rows {
        buffer.push(row?);
        if buffer.len() == BATCH_ROWS {
            write(&batch(&buffer, &schema)?)?;
            count += buffer.len() as u64;
            buffer.clear();
        }
    }
    if !buffer.is_empty() || count == 0 {
        write(&batch(&buffer, &schema)?)?;
        count += buffer.len() as u64;
    }
    Ok(count)
}

pub fn parquet<W: Write + Send>(
    rows: impl Iterator<Item = Result<DatasetRow, ExportError>>,
    out: W,
) -> Result<u64, ExportError> {
    use parquet::arrow::ArrowWriter;
    use parquet::basic::{Compression, ZstdLevel};
    use parquet::file::properties::WriterProperties;
    let properties = WriterProperties::builder()
        .set_compression(Compression::ZSTD(
            ZstdLevel::try_new(3).map_err(writer_error)?,
        ))
        .set_max_row_group_size(64 * 1024)
        .build();
    let mut writer = ArrowWriter::try_new(out, schema(), Some(properties)).map_err(writer_error)?;
    let count = batches(rows, |batch| writer.write(batch).map_err(writer_error))?;
    writer.close().map_err(writer_error)?;
    Ok(count)
}

/// `data-00000-of-00001.arrow` (Arrow IPC stream), `dataset_info.json` and `state.json`, zipped.
pub fn huggingface_zip<W: Write + Seek>(
    rows: impl Iterator<Item = Result<DatasetRow, ExportError>>,
    out: W,
    scratch: &Path,
) -> Result<u64, ExportError> {
    use zip::write::SimpleFileOptions;
    const SHARD: &str = "data-00000-of-00001.arrow";
    let shard_path = scratch.join(SHARD);
    let count = {
        let file = std::io::BufWriter::new(File::create(&shard_path)?);
        let mut writer =
            arrow_ipc::writer::StreamWriter::try_new(file, &schema()).map_err(writer_error)?;
        let count = batches(rows, |batch| writer.write(batch).map_err(writer_error))?;
        writer.finish().map_err(writer_error)?;
        count
    };
    let fingerprint = {
        let digest = ring::digest::digest(
            &ring::digest::SHA256,
            format!("{}:{count}", shard_path.display()).as_bytes(),
        );
        digest.as_ref()[..8]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    };
    let state = serde_json::json!({
        "_data_files": [{"filename": SHARD}],
        "_fingerprint": fingerprint,
        "_format_columns": null,
        "_format_kwargs": {},
        "_format_type": null,
        "_output_all_columns": false,
        "_split": null,
    });
    let info = serde_json::json!({
        "description": "docsieve dataset export: one row per execution",
        "citation": "",
        "homepage": "",
        "license": "",
    });
    let mut zip = zip::ZipWriter::new(out);
    let stored = SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .large_file(true);
    zip.start_file(SHARD, stored).map_err(writer_error)?;
    std::io::copy(&mut BufReader::new(File::open(&shard_path)?), &mut zip)?;
    zip.start_file("dataset_info.json", stored)
        .map_err(writer_error)?;
    zip.write_all(serde_json::to_string_pretty(&info)?.as_bytes())?;
    zip.start_file("state.json", stored).map_err(writer_error)?;
    zip.write_all(serde_json::to_string_pretty(&state)?.as_bytes())?;
    let mut inner = zip.finish().map_err(writer_error)?;
    inner.flush()?;
    let _ = std::fs::remove_file(&shard_path);
    Ok(count)
}
