//! Object keys, so that every part of the service agrees on where things live.

/// The key layout: every tenant's objects under `tenants/<id>/`.
pub struct Keys;

impl Keys {
    pub fn document_original(tenant_id: i64, document_id: i64) -> String {
        format!("tenants/{tenant_id}/documents/{document_id}/original")
    }

    pub fn execution_result(tenant_id: i64, execution_id: i64) -> String {
        format!("tenants/{tenant_id}/executions/{execution_id}/result.json")
    }

    /// The result of a processing job (the same key on every attempt, so a retry overwrites it).
    pub fn job_result(tenant_id: i64, job_id: &str) -> String {
        format!("tenants/{tenant_id}/results/{job_id}.json")
    }

    /// An uploaded original, under a fresh random name (the document row is written after it).
    pub fn upload(tenant_id: i64, name: &str) -> String {
        format!("tenants/{tenant_id}/uploads/{name}")
    }

    /// A built dataset's canonical rows, which every export format is written from.
    pub fn dataset_rows(tenant_id: i64, dataset_id: &str) -> String {
        format!("tenants/{tenant_id}/datasets/{dataset_id}/rows.jsonl")
    }

    pub fn dataset_export(tenant_id: i64, dataset_id: &str, format: &str) -> String {
        format!("tenants/{tenant_id}/datasets/{dataset_id}/export.{format}")
    }
}
