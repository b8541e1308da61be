//! The tenant data export (data-subject access, GDPR Art. 15 and 20, KVKK Art. 11): one ZIP of all a
//! tenant holds, written to a scratch file by a thread of its own while the tables are read page by
//! page and the stored files streamed chunk by chunk, so memory does not grow with the tenant's size.
//!
//! Files: `account.json` (tenant, users, memberships, workspaces, invitations), `api_keys.json`,
//! `documents/<id>/metadata.json` and `documents/<id>/original.<ext>`, `executions/<id>.json` (the row
//! and its result), `datasets/<id>.jsonl` (its rows) and `datasets/<id>.json`, `webhooks.json`,
//! `deliveries.jsonl`, `connectors.json` (with schedules), `billing.json`, `audit.jsonl`, and
//! `manifest.json` last: every other file with its sha256 and size, the tenant and the export time.
//! Secrets and their digests (password hashes, key and token hashes, sealed secrets) are left out
//! (the store's [`Store::tenant_rows`] never hands them out).

use std::io::Write;
use std::path::{Path, PathBuf};

use bytes::Bytes;
use futures_util::StreamExt;
use serde_json::{json, Value};
use tokio::sync::mpsc;

use crate::blob::{BlobError, Blobs, Scratch};
use crate::clock::Clock;
use crate::store::{Store, TenantTable};

/// What the export reads: the tables, the stored files, the clock, and where its scratch file goes.
pub struct Sources<'a> {
    pub store: &'a Store,
    pub blobs: &'a Blobs,
    pub clock: &'a Clock,
    pub scratch_dir: &'a Path,
}

const PAGE: u64 = 500;

enum Part {
    Start(String),
    Chunk(Bytes),
}

/// What the ZIP writer thread is sent.
struct Writer {
    parts: mpsc::Sender<Part>,
}

impl Writer {
    async fn send(&self, part: Part) -> Result<(), String> {
        self.parts
            .send(part)
            .await
            .map_err(|_| "the ZIP writer stopped".to_string())
    }

    async fn file(&self, name: &str, bytes: Vec<u8>) -> Result<(), String> {
        self.send(Part::Start(name.to_string())).await?;
        self.send(Part::Chunk(Bytes::from(bytes))).await
    }

    async fn json(&self, name: &str, value: &Value) -> Result<(), String> {
        let bytes = serde_json::to_vec_pretty(value).map_err(|e| e.to_string())?;
        self.file(name, bytes).await
    }
}

/// Every row of the tenant's `table`, page by page, handed to `each`.
async fn each_row<F, Fut>(
    sources: &Sources<'_>,
    table: TenantTable,
    tenant_id: i64,
    mut each: F,
) -> Result<(), String>
where
    F: FnMut(Value) -> Fut,
    Fut: std::future::Future<Output = Result<(), String>>,
{
    let mut offset = 0;
    loop {
        let rows = sources
            .store
            .tenant_rows(table, tenant_id, PAGE, offset)
            .await
            .map_err(|e| format!("reading {}: {e}", table.name()))?;
        let count = rows.len() as u64;
        for row in rows {
            each(row).await?;
        }
        if count < PAGE {
            return Ok(());
        }
        offset += PAGE;
    }
}

/// All rows of a small table of the tenant.
async fn all_rows(
    sources: &Sources<'_>,
    table: TenantTable,
    tenant_id: i64,
) -> Result<Vec<Value>, String> {
    let mut rows = Vec::new();
    each_row(sources, table, tenant_id, |row| {
        rows.push(row);
        async { Ok(()) }
    })
    .await?;
    Ok(rows)
}

/// Streams a stored file into the ZIP as `name`; a missing file is noted, not fatal.
async fn blob(sources: &Sources<'_>, writer: &Writer, name: &str, key: &str) -> Result<(), String> {
    match sources.blobs.stream(key).await {
        Ok(mut stream) => {
            writer.send(Part::Start(name.to_string())).await?;
            while let Some(chunk) = stream.next().await {
                let chunk = chunk.map_err(|e| format!("reading {key}: {e}"))?;
                writer.send(Part::Chunk(chunk)).await?;
            }
            Ok(())
        }
        Err(BlobError::NotFound(_)) => Ok(()),
        Err(error) => Err(format!("reading {key}: {error}")),
    }
}

fn extension(filename: &str, format: &str) -> String {
    filename
        .rsplit_once('.')
        .map(|(_, ext)| ext)
        .filter(|ext| {
            !ext.is_empty() && ext.len() <= 8 && ext.chars().all(|c| c.is_ascii_alphanumeric())
        })
        .unwrap_or(format)
        .to_ascii_lowercase()
}

async fn write_all(sources: &Sources<'_>, writer: &Writer, tenant_id: i64) -> Result<(), String> {
    let tenant = all_rows(sources, TenantTable::Tenant, tenant_id).await?;
    let users = all_rows(sources, TenantTable::Users, tenant_id).await?;
    writer
        .json(
            "account.json",
            &json!({
                "tenant": tenant.into_iter().next(),
                "users": users,
                "memberships": all_rows(sources, TenantTable::Memberships, tenant_id).await?,
                "workspaces": all_rows(sources, TenantTable::Workspaces, tenant_id).await?,
                "invitations": all_rows(sources, TenantTable::Invitations, tenant_id).await?,
            }),
        )
        .await?;
    writer
        .json(
            "api_keys.json",
            &Value::Array(all_rows(sources, TenantTable::ApiKeys, tenant_id).await?),
        )
        .await?;
    // Documents with their originals, and executions with their results, one page of rows at a time;
    // what the rows keep sealed (file names, what a run read of its document) shown opened.
    let key = sources
        .blobs
        .tenant_key(tenant_id)
        .await
        .map_err(|e| e.to_string())?;
    let key = key.as_deref();
    each_row(
        sources,
        TenantTable::Documents,
        tenant_id,
        |mut row| async move {
            let id = row["id"].as_i64().unwrap_or_default();
            if let Some(stored) = row["filename"].as_str() {
                row["filename"] = Value::String(
                    crate::store::Sealed::from_stored(stored.to_string())
                        .open_or_withheld(key, crate::store::SealedField::DocumentName),
                );
            }
            writer
                .json(&format!("documents/{id}/metadata.json"), &row)
                .await?;
            let ext = extension(
                row["filename"].as_str().unwrap_or_default(),
                row["format"].as_str().unwrap_or("bin"),
            );
            match row["blob_key"].as_str() {
                Some(key) => {
                    blob(
                        sources,
                        writer,
                        &format!("documents/{id}/original.{ext}"),
                        key,
                    )
                    .await
                }
                None => Ok(()),
            }
        },
    )
    .await?;
    each_row(
        sources,
        TenantTable::Executions,
        tenant_id,
        |mut row| async move {
            let id = row["id"].as_i64().unwrap_or_default();
            if let Some(stored) = row["sealed_meta"].as_str() {
                let field = crate::store::SealedField::ExecutionMeta;
                let opened = crate::store::Sealed::open_json(stored, key, field);
                row["sealed_meta"] = opened.unwrap_or(Value::Null);
            }
            let result = match row["result_blob_key"].as_str() {
                Some(key) => match sources.blobs.get(key).await {
                    Ok(bytes) => serde_json::from_slice::<Value>(&bytes).unwrap_or(Value::Null),
                    Err(_) => Value::Null,
                },
                None => Value::Null,
            };
            writer
                .json(
                    &format!("executions/{id}.json"),
                    &json!({"execution": row, "result": result}),
                )
                .await
        },
    )
    .await?;
    for row in all_rows(sources, TenantTable::Datasets, tenant_id).await? {
        let id = row["id"].as_str().unwrap_or_default().to_string();
        let schema: Value = row["schema_json"]
            .as_str()
            .and_then(|s| serde_json::from_str(s).ok())
            .unwrap_or_default();
        writer.json(&format!("datasets/{id}.json"), &row).await?;
        if let Some(key) = schema["rows_blob_key"].as_str() {
            blob(sources, writer, &format!("datasets/{id}.jsonl"), key).await?;
        }
    }
    writer
        .json(
            "webhooks.json",
            &Value::Array(all_rows(sources, TenantTable::Webhooks, tenant_id).await?),
        )
        .await?;
    writer.send(Part::Start("deliveries.jsonl".into())).await?;
    each_row(sources, TenantTable::WebhookDeliveries, tenant_id, |row| {
        let line = format!("{row}\n");
        async move { writer.send(Part::Chunk(Bytes::from(line))).await }
    })
    .await?;
    writer
        .json(
            "connectors.json",
            &json!({
                "connectors": all_rows(sources, TenantTable::Connectors, tenant_id).await?,
                "schedules": all_rows(sources, TenantTable::Schedules, tenant_id).await?,
            }),
        )
        .await?;
    writer
        .json(
            "privacy.json",
            &json!({
                "policies": all_rows(sources, TenantTable::PrivacyPolicies, tenant_id).await?,
            }),
        )
        .await?;
    writer
        .json(
            "billing.json",
            &json!({
                "periods": all_rows(sources, TenantTable::BillingPeriods, tenant_id).await?,
                "ledger": all_rows(sources, TenantTable::CreditLedger, tenant_id).await?,
                "usage": all_rows(sources, TenantTable::TenantUsage, tenant_id).await?,
            }),
        )
        .await?;
    writer.send(Part::Start("audit.jsonl".into())).await?;
    each_row(sources, TenantTable::AuditEntries, tenant_id, |row| {
        let line = format!("{row}\n");
        async move { writer.send(Part::Chunk(Bytes::from(line))).await }
    })
    .await
}

/// The ZIP writer: entries as they come, each hashed; `manifest.json` last.
fn write_zip(path: PathBuf, mut parts: mpsc::Receiver<Part>, head: Value) -> Result<(), String> {
    let file = std::fs::File::create(&path).map_err(|e| format!("creating the ZIP: {e}"))?;
    let mut zip = zip::ZipWriter::new(std::io::BufWriter::new(file));
    // Records are deflated; originals and dataset rows are stored as they are (documents are mostly
    // compressed already, and deflating hundreds of megabytes would keep the caller waiting).
    let deflated = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .large_file(true);
    let stored = deflated.compression_method(zip::CompressionMethod::Stored);
    let options_for = |name: &str| {
        if name.contains("/original.") || name.ends_with(".jsonl") && name.starts_with("datasets/")
        {
            stored
        } else {
            deflated
        }
    };
    let mut manifest = Vec::new();
    let mut current: Option<(String, ring::digest::Context, u64)> = None;
    let finish_entry = |current: &mut Option<(String, ring::digest::Context, u64)>,
                        manifest: &mut Vec<Value>| {
        if let Some((name, digest, size)) = current.take() {
            manifest
                .push(json!({"path": name, "sha256": hex::encode(digest.finish()), "bytes": size}));
        }
    };
    while let Some(part) = parts.blocking_recv() {
        match part {
            Part::Start(name) => {
                finish_entry(&mut current, &mut manifest);
                zip.start_file(name.as_str(), options_for(&name))
                    .map_err(|e| format!("writing {name}: {e}"))?;
                current = Some((name, ring::digest::Context::new(&ring::digest::SHA256), 0));
            }
            Part::Chunk(bytes) => {
                let Some((name, digest, size)) = current.as_mut() else {
                    continue;
                };
                zip.write_all(&bytes)
                    .map_err(|e| format!("writing {name}: {e}"))?;
                digest.update(&bytes);
                *size += bytes.len() as u64;
            }
        }
    }
    finish_entry(&mut current, &mut manifest);
    let mut head = head;
    head["files"] = Value::Array(manifest);
    zip.start_file("manifest.json", deflated)
        .map_err(|e| format!("writing the manifest: {e}"))?;
    zip.write_all(&serde_json::to_vec_pretty(&head).map_err(|e| e.to_string())?)
        .map_err(|e| format!("writing the manifest: {e}"))?;
    zip.finish()
        .map_err(|e| format!("finishing the ZIP: {e}"))?
        .flush()
        .map_err(|e| format!("finishing the ZIP: {e}"))
}

/// Writes the tenant's ZIP to a scratch file and returns it with its size.
pub async fn export_tenant(
    sources: &Sources<'_>,
    tenant_id: i64,
) -> Result<(Scratch, u64), String> {
    let dir = sources.scratch_dir;
    let scratch = Scratch::in_folder(dir, "export.zip")
        .map_err(|e| format!("creating {}: {e}", dir.display()))?;
    let (sender, receiver) = mpsc::channel(16);
    let head = json!({
        "tenant_id": tenant_id,
        "exported_at": crate::clock::rfc3339(sources.clock.now()),
        "service": format!("docsieve {}", env!("CARGO_PKG_VERSION")),
    });
    let path = scratch.0.clone();
    let thread = std::thread::Builder::new()
        .name("tenant-export".into())
        .spawn(move || write_zip(path, receiver, head))
        .map_err(|e| format!("starting the ZIP writer: {e}"))?;
    let writer = Writer { parts: sender };
    let read = write_all(sources, &writer, tenant_id).await;
    drop(writer);
    let written = tokio::task::spawn_blocking(move || thread.join())
        .await
        .map_err(|e| e.to_string())?
        .map_err(|_| "the ZIP writer panicked".to_string())?;
    read?;
    written?;
    let size = std::fs::metadata(&scratch.0)
        .map_err(|e| e.to_string())?
        .len();
    Ok((scratch, size))
}
