//! Export benchmark: 100,000 dataset rows (about 1.5 KB of masked text each, like processed business
//! letters) written to Parquet and to JSON Lines, then, as a build would, canonical JSON Lines read back
//! and written to each of the other formats. Prints seconds, MB/s and the process's peak RSS.
//!
//! `cargo bench -p docsieve-actors --bench export [-- ROWS]`

use std::collections::BTreeMap;
use std::time::Instant;

use docsieve_actors::dataset_exporter::DatasetRow;
use docsieve_actors::dataset_exporter::{write_export, write_rows, ExportFormat};

#[path = "common/mod.rs"]
mod common;
use common::peak_rss_mib;

fn row(n: usize) -> DatasetRow {
    let text = format!(
        "Sayın [MASKED_PERSON_NAME],\n\n{n} numaralı başvurunuz {} tarihinde alınmıştır. \
         Fatura tutarı {},{:02} TL olup [MASKED_IBAN_TR] hesabına ödenecektir. İletişim: \
         [MASKED_EMAIL], [MASKED_PHONE_TR]. Sipariş no SP-{n:08}. ",
        "2026-11-22",
        1000 + n % 9000,
        n % 100
    )
    .repeat(5);
    DatasetRow {
        execution_id: n as i64 + 1,
        document_id: n as i64 + 1,
        filename: format!("basvuru-{n}.docx"),
        format: "docx".to_string(),
        language: "tr".to_string(),
        quality_grade: ["A", "B", "C"][n % 3].to_string(),
        pii_count: 4,
        pii_type_summary: BTreeMap::from([
            ("email".to_string(), 1),
            ("iban_tr".to_string(), 1),
            ("person_name".to_string(), 1),
            ("phone_tr".to_string(), 1),
        ]),
        text,
        fields: serde_json::json!({"invoice_number": format!("SP-{n:08}"), "total": format!("{}.00", 1000 + n % 9000)}),
        tables: serde_json::json!([]),
        masked: true,
        policy_version: 1,
        created_at: "2026-11-22T10:00:00Z".to_string(),
    }
}

fn main() {
    let rows: usize = std::env::args()
        .skip(1)
        .find_map(|arg| arg.parse().ok())
        .unwrap_or(100_000);
    let dir = tempfile::tempdir().expect("temp dir");
    println!("{rows} rows");
    let mut canonical = None;
    for format in [ExportFormat::Parquet, ExportFormat::Jsonl] {
        let out = dir.path().join(format!("direct.{}", format.extension()));
        let started = Instant::now();
        let count = write_rows(
            format,
            (0..rows).map(|n| Ok(row(n))),
            &out,
            "bench",
            dir.path(),
        )
        .expect("export");
        let seconds = started.elapsed().as_secs_f64();
        let size = std::fs::metadata(&out).map(|m| m.len()).unwrap_or(0) as f64 / 1e6;
        println!(
            "{:<9} from generated rows: {count} rows in {seconds:.2} s ({:.0} rows/s), {size:.1} MB, peak RSS so far {:.0} MiB",
            format.name(),
            count as f64 / seconds,
            peak_rss_mib()
        );
        if format == ExportFormat::Jsonl {
            canonical = Some(out);
        }
    }
    let canonical = canonical.expect("jsonl written");
    for format in ExportFormat::ALL {
        if format == ExportFormat::Xlsx && rows > 200_000 {
            continue;
        }
        let out = dir
            .path()
            .join(format!("from-canonical.{}", format.extension()));
        let started = Instant::now();
        let count = write_export(format, &canonical, &out, "bench", dir.path()).expect("export");
        let seconds = started.elapsed().as_secs_f64();
        let size = std::fs::metadata(&out).map(|m| m.len()).unwrap_or(0) as f64 / 1e6;
        println!(
            "{:<9} from canonical JSON Lines: {count} rows in {seconds:.2} s, {size:.1} MB, peak RSS so far {:.0} MiB",
            format.name(),
            peak_rss_mib()
        );
    }
}
