//! The tenant data export (data-subject access, GDPR Art. 15 and 20, KVKK Art. 11): one ZIP of all a
//! tenant holds, written to a scratch file by a thread of its own while the tables are read page by
//! page and the stored files streamed chunk by chunk, so memory does not grow with the tenant's size.
//!
//! Files: `account.json` (tenant, users, memberships, workspaces, invitations), `api_keys.json`,
//! `documents/<id>/metadata.json` and `documents/<id>/original.<ext>`, `executions/<id>.json` (the row
//! and its result), `datasets/<id>.jsonl` (its rows) and `datasets/<id>.json`, `webhooks.json`,
//! `deliveries.jsonl`, `connectors.json` (with schedules), `billing.json`, `audit.jsonl`, and
//! `manifest.json` last: every other file with its sha256 and size, the tenant and the export time.
//! Secrets and their digests (password hashes, key and token hashes, sealed secrets) are left out.

use std::io::Write;
use std::path::PathBuf;

use bytes::Bytes;
use futures_util::StreamExt;
use serde_json::{json, Value};
use tokio::sync::mpsc;

use crate::state::AppState;

/// Columns never exported: secrets and their digests.
const HIDDEN: &[&str] = &[
    "password_hash",
    "key_hash",
    "token_hash",
    "secret_encrypted",
    "config_secret_encrypted",
];

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

fn clean(mut row: Value) -> Value {
    if let Some(object) = row.as_object_mut() {
        for column in HIDDEN {
            object.remove(*column);
        }
    }
    row
}

/// Every row of `table` meeting `condition`, page by page, handed to `each`.
async fn each_row<F, Fut>(
    state: &AppState,
    table: &str,
    condition: &str,
    params: Vec<sea_orm::Value>,
    mut each: F,
) -> Result<(), String>
where
    F: FnMut(Value) -> Fut,
    Fut: std::future::Future<Output = Result<(), String>>,
{
    let mut offset = 0;
    loop {
        let rows = state
            .store
            .rows_json(table, condition, params.clone(), PAGE, offset)
            .await
            .map_err(|e| format!("reading {table}: {e}"))?;
        let count = rows.len() as u64;
        for row in rows {
            each(clean(row)).await?;
        }
        if count < PAGE {
            return Ok(());
        }
        offset += PAGE;
    }
}

/// All rows of a small table of the tenant.
async fn all_rows(state: &AppState, table: &str, tenant_id: i64) -> Result<Vec<Value>, String> {
    let mut rows = Vec::new();
    each_row(
        state,
        table,
        "tenant_id = ?",
        vec![tenant_id.into()],
        |row| {
            rows.push(row);
            async { Ok(()) }
        },
    )
    .await?;
    Ok(rows)
}

/// Streams a stored file into the ZIP as `name`; a missing file is noted, not fatal.
async fn blob(state: &AppState, writer: &Writer, name: &str, key: &str) -> Result<(), String> {
    match state.blobs.stream(key).await {
        Ok(mut stream) => {
            writer.send(Part::Start(name.to_string())).await?;
            while let Some(chunk) = stream.next().await {
                let chunk = chunk.map_err(|e| format!("reading {key}: {e}"))?;
                writer.send(Part::Chunk(chunk)).await?;
            }
            Ok(())
        }
        Err(docsieve_actors::blob::BlobError::NotFound(_)) => Ok(()),
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

async fn write_all(state: &AppState, writer: &Writer, tenant_id: i64) -> Result<(), String> {
    let t = || vec![sea_orm::Value::from(tenant_id)];
    let tenant = state
        .store
        .rows_json("tenants", "id = ?", t(), 1, 0)
        .await
        .map_err(|e| e.to_string())?;
    let mut users = Vec::new();
    each_row(
        state,
        "users",
        "tenant_id = ? OR id IN (SELECT user_id FROM memberships WHERE tenant_id = ?)",
        vec![tenant_id.into(), tenant_id.into()],
        |row| {
            users.push(row);
            async { Ok(()) }
        },
    )
    .await?;
    writer
        .json(
            "account.json",
            &json!({
                "tenant": tenant.into_iter().next().map(clean),
                "users": users,
                "memberships": all_rows(state, "memberships", tenant_id).await?,
                "workspaces": all_rows(state, "workspaces", tenant_id).await?,
                "invitations": all_rows(state, "invitations", tenant_id).await?,
            }),
        )
        .await?;
    writer
        .json(
            "api_keys.json",
            &Value::Array(all_rows(state, "api_keys", tenant_id).await?),
        )
        .await?;
    // Documents with their originals, and executions with their results, one page of rows at a time.
    each_row(state, "documents", "tenant_id = ?", t(), |row| async move {
        let id = row["id"].as_i64().unwrap_or_default();
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
                    state,
                    writer,
                    &format!("documents/{id}/original.{ext}"),
                    key,
                )
                .await
            }
            None => Ok(()),
        }
    })
    .await?;
    each_row(
        state,
        "executions",
        "tenant_id = ?",
        t(),
        |row| async move {
            let id = row["id"].as_i64().unwrap_or_default();
            let result = match row["result_blob_key"].as_str() {
                Some(key) => match state.blobs.get(key).await {
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
    for row in all_rows(state, "datasets", tenant_id).await? {
        let id = row["id"].as_str().unwrap_or_default().to_string();
        let schema: Value = row["schema_json"]
            .as_str()
            .and_then(|s| serde_json::from_str(s).ok())
            .unwrap_or_default();
        writer.json(&format!("datasets/{id}.json"), &row).await?;
        if let Some(key) = schema["rows_blob_key"].as_str() {
            blob(state, writer, &format!("datasets/{id}.jsonl"), key).await?;
        }
    }
    writer
        .json(
            "webhooks.json",
            &Value::Array(all_rows(state, "webhooks", tenant_id).await?),
        )
        .await?;
    writer.send(Part::Start("deliveries.jsonl".into())).await?;
    each_row(state, "webhook_deliveries", "tenant_id = ?", t(), |row| {
        let line = format!("{row}\n");
        async move { writer.send(Part::Chunk(Bytes::from(line))).await }
    })
    .await?;
    writer
        .json(
            "connectors.json",
            &json!({
                "connectors": all_rows(state, "connectors", tenant_id).await?,
                "schedules": all_rows(state, "schedules", tenant_id).await?,
            }),
        )
        .await?;
    writer
        .json(
            "billing.json",
            &json!({
                "periods": all_rows(state, "billing_periods", tenant_id).await?,
                "ledger": all_rows(state, "credit_ledger", tenant_id).await?,
                "usage": all_rows(state, "tenant_usage", tenant_id).await?,
            }),
        )
        .await?;
    writer.send(Part::Start("audit.jsonl".into())).await?;
    each_row(state, "audit_entries", "tenant_id = ?", t(), |row| {
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

/// A scratch file deleted when dropped (after the response has streamed it).
pub struct Scratch(pub PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Writes the tenant's ZIP to a scratch file and returns it with its size.
pub async fn export_tenant(state: &AppState, tenant_id: i64) -> Result<(Scratch, u64), String> {
    let dir = state.settings.storage.data_dir.join("tmp");
    std::fs::create_dir_all(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    let scratch = Scratch(dir.join(format!("{}.zip", docsieve_actors::store::new_id("export"))));
    let (sender, receiver) = mpsc::channel(16);
    let head = json!({
        "tenant_id": tenant_id,
        "exported_at": docsieve_actors::clock::rfc3339(state.clock.now()),
        "service": format!("docsieve {}", env!("CARGO_PKG_VERSION")),
    });
    let path = scratch.0.clone();
    let thread = std::thread::Builder::new()
        .name("tenant-export".into())
        .spawn(move || write_zip(path, receiver, head))
        .map_err(|e| format!("starting the ZIP writer: {e}"))?;
    let writer = Writer { parts: sender };
    let read = write_all(state, &writer, tenant_id).await;
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
