//! Requests of the dataset_exporter actor, each with its reply.

use super::formats::ExportFormat;

/// Turn the dataset's executions into canonical rows (JSON Lines in blob storage). Replies
/// `Result<Built, String>`.
pub struct Build {
    pub tenant_id: i64,
    pub dataset_id: String,
}

/// Write one export format from the canonical rows to blob storage and record it. Replies
/// `Result<Exported, String>`.
pub struct Export {
    pub tenant_id: i64,
    pub dataset_id: String,
    pub format: ExportFormat,
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
