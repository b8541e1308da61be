//! Commands of the dataset_exporter actor.

use super::formats::ExportFormat;

/// What the dataset_exporter does.
pub enum DatasetExporterCommand {
    /// Turn the dataset's executions into canonical rows (JSON Lines in blob storage).
    Build { tenant_id: i64, dataset_id: String },
    /// Write one export format from the canonical rows to blob storage and record it.
    Export {
        tenant_id: i64,
        dataset_id: String,
        format: ExportFormat,
    },
}

/// A finished build.
#[derive(Clone, Debug)]
pub struct Built {
    pub row_count: i64,
    /// `{"columns": [...], "rows_blob_key": "..."}`.
    pub schema: serde_json::Value,
}

/// A written export file.
#[derive(Clone, Debug)]
pub struct Exported {
    pub blob_key: String,
    pub size_bytes: i64,
}

pub enum DatasetExporterReply {
    Built(Result<Built, String>),
    Exported(Result<Exported, String>),
}
