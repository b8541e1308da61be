//! auto_export: before a `dataset.ready` webhook is first sent, the dataset is exported in the
//! webhook's format and streamed to its connector (a multipart upload), and the payload gains
//! `export: {connector_id, key, format, bytes}`, or `export: {connector_id, format, error}` when that
//! failed. The webhook fires either way; the payload, in the delivery log, tells which.

use serde_json::{json, Value};

use super::{export_format, ExportFormat, ExportServices};
use crate::connector::{Connector, ConnectorServices};
use crate::error_code::{ErrorCode, RecordCode};
use crate::metric_names as names;

/// The object key an export goes to: `{prefix}{dataset_id}.{extension}`, the prefix (the
/// auto_export's, else the connector's) taken as a folder.
fn export_key(prefix: Option<&str>, dataset_id: &str, format: ExportFormat) -> String {
    let folder = match prefix.map(|p| p.trim_start_matches('/')) {
        Some(p) if !p.is_empty() && !p.ends_with('/') => format!("{p}/"),
        Some(p) => p.to_string(),
        None => String::new(),
    };
    format!("{folder}{dataset_id}.{}", format.extension())
}

/// Exports the dataset named in `payload` as `auto_export` asks, and returns the payload with its
/// `export` member.
pub async fn auto_export(
    connectors: &ConnectorServices,
    exports: &ExportServices,
    tenant_id: i64,
    auto_export: &Value,
    payload: &Value,
) -> Value {
    let connector_id = auto_export["connector_id"].as_i64().unwrap_or_default();
    let format_name = auto_export["format"].as_str().unwrap_or_default();
    let outcome = export_to_connector(connectors, exports, tenant_id, auto_export, payload).await;
    let export = match outcome {
        Ok((key, bytes)) => {
            metrics::counter!(names::CONNECTOR_EXPORTS_TOTAL, "outcome" => "succeeded")
                .increment(1);
            json!({"connector_id": connector_id, "key": key, "format": format_name, "bytes": bytes})
        }
        Err((code, message)) => {
            metrics::counter!(names::CONNECTOR_EXPORTS_TOTAL, "outcome" => "failed").increment(1);
            tracing::warn!(tenant_id, connector_id, code = %code, %message, "auto_export failed; the webhook fires with export.error");
            json!({"connector_id": connector_id, "format": format_name,
                "error": {"code": code, "message": message}})
        }
    };
    let mut payload = payload.clone();
    payload["export"] = export;
    payload
}

async fn export_to_connector(
    connectors: &ConnectorServices,
    exports: &ExportServices,
    tenant_id: i64,
    auto_export: &Value,
    payload: &Value,
) -> Result<(String, u64), (String, String)> {
    let failed = |code: &str, message: String| (code.to_string(), message);
    let connector_id = auto_export["connector_id"].as_i64().ok_or_else(|| {
        failed(
            ErrorCode::ConnectorNotFound.as_str(),
            "auto_export names no connector".into(),
        )
    })?;
    let format = auto_export["format"]
        .as_str()
        .and_then(ExportFormat::parse)
        .ok_or_else(|| {
            failed(
                ErrorCode::ExportFailed.as_str(),
                "auto_export names no known format".into(),
            )
        })?;
    let dataset_id = payload["dataset_id"].as_str().ok_or_else(|| {
        failed(
            ErrorCode::DatasetNotFound.as_str(),
            "the event names no dataset".into(),
        )
    })?;
    let record = connectors
        .store
        .connector(tenant_id, connector_id)
        .await
        .map_err(|e| failed(RecordCode::StorageError.as_str(), e.to_string()))?
        .ok_or_else(|| {
            failed(
                ErrorCode::ConnectorNotFound.as_str(),
                format!("connector {connector_id} no longer exists"),
            )
        })?;
    let connector = Connector::open(&record, &connectors.secrets, &connectors.settings)
        .map_err(|e| failed(e.code.as_str(), e.message))?;
    let exported = export_format(exports, tenant_id, dataset_id, format)
        .await
        .map_err(|message| failed(ErrorCode::ExportFailed.as_str(), message))?;
    let prefix = auto_export["prefix"]
        .as_str()
        .map(str::to_string)
        .or_else(|| connector.prefix.clone());
    let key = export_key(prefix.as_deref(), dataset_id, format);
    let stream = exports
        .blobs
        .stream(&exported.blob_key)
        .await
        .map_err(|e| failed(ErrorCode::ExportFailed.as_str(), e.to_string()))?;
    let bytes = connector
        .upload(&key, stream)
        .await
        .map_err(|e| failed(e.code.as_str(), e.message))?;
    Ok((key, bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prefix_is_a_folder() {
        let parquet = ExportFormat::parse("parquet").expect("parquet");
        assert_eq!(export_key(None, "ds_1", parquet), "ds_1.parquet");
        assert_eq!(export_key(Some("out"), "ds_1", parquet), "out/ds_1.parquet");
        assert_eq!(
            export_key(Some("/out/"), "ds_1", parquet),
            "out/ds_1.parquet"
        );
    }
}
