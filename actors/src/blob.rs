//! Blob storage through object_store: a local folder under the data dir by default, or any S3, GCS or
//! Azure URL from `storage.blob_url`. Owns the key layout; never interprets the bytes it stores.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use object_store::local::LocalFileSystem;
use object_store::path::Path as ObjectPath;
use object_store::prefix::PrefixStore;
use object_store::{ObjectStore, PutPayload};

#[derive(Debug, thiserror::Error)]
pub enum BlobError {
    #[error("storage.blob_url is not a valid URL: {0}")]
    InvalidUrl(String),
    #[error("cannot create the blob folder {path}: {source}")]
    Folder {
        path: String,
        source: std::io::Error,
    },
    #[error("object not found: {0}")]
    NotFound(String),
    #[error("object storage error: {0}")]
    Store(#[from] object_store::Error),
}

/// Object keys, so that every part of the service agrees on where things live.
pub mod keys {
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

    pub fn dataset_export(tenant_id: i64, dataset_id: &str, format: &str) -> String {
        format!("tenants/{tenant_id}/datasets/{dataset_id}/export.{format}")
    }
}

#[derive(Clone)]
pub struct Blobs {
    store: Arc<dyn ObjectStore>,
    /// The folder of the local store (none for cloud stores): batch reads go straight to the files.
    local_root: Option<Arc<PathBuf>>,
    /// Where the blobs live, for the health report (no credentials).
    location: String,
}

/// Credentials and options for cloud stores come from the usual environment variables
/// (`AWS_*`, `GOOGLE_*`, `AZURE_*`), exactly as the providers' own tools read them.
fn cloud_options_from_env() -> Vec<(String, String)> {
    std::env::vars()
        .filter(|(key, _)| {
            key.starts_with("AWS_") || key.starts_with("GOOGLE_") || key.starts_with("AZURE_")
        })
        .map(|(key, value)| (key.to_ascii_lowercase(), value))
        .collect()
}

impl Blobs {
    /// Opens the configured store: `blob_url` empty means `<data_dir>/blobs`.
    pub fn open(blob_url: &str, data_dir: &Path) -> Result<Blobs, BlobError> {
        if blob_url.trim().is_empty() {
            let folder = data_dir.join("blobs");
            std::fs::create_dir_all(&folder).map_err(|source| BlobError::Folder {
                path: folder.display().to_string(),
                source,
            })?;
            let store = LocalFileSystem::new_with_prefix(&folder)?;
            return Ok(Blobs {
                store: Arc::new(store),
                local_root: Some(Arc::new(folder.clone())),
                location: format!("file://{}", folder.display()),
            });
        }
        let url =
            url::Url::parse(blob_url).map_err(|error| BlobError::InvalidUrl(error.to_string()))?;
        let (store, prefix) = object_store::parse_url_opts(&url, cloud_options_from_env())?;
        let mut location = url.clone();
        let _ = location.set_password(None);
        let _ = location.set_username("");
        Ok(Blobs {
            store: Arc::new(PrefixStore::new(store, prefix)),
            local_root: None,
            location: location.to_string(),
        })
    }

    pub fn location(&self) -> &str {
        &self.location
    }

    pub async fn put(&self, key: &str, bytes: Bytes) -> Result<(), BlobError> {
        self.store
            .put(&ObjectPath::from(key), PutPayload::from_bytes(bytes))
            .await?;
        Ok(())
    }

    pub async fn get(&self, key: &str) -> Result<Bytes, BlobError> {
        match self.store.get(&ObjectPath::from(key)).await {
            Ok(result) => Ok(result.bytes().await?),
            Err(object_store::Error::NotFound { .. }) => Err(BlobError::NotFound(key.to_string())),
            Err(error) => Err(error.into()),
        }
    }

    /// The file behind `key` when the store is a local folder (readers then skip the copy).
    pub fn local_file(&self, key: &str) -> Option<PathBuf> {
        let root = self.local_root.as_ref()?;
        plain_key(key).then(|| root.join(key))
    }

    /// Reads many objects, results in the order of `keys`. On the local store one blocking task reads
    /// the files directly (no task per object); on cloud stores up to 32 requests are in flight.
    pub async fn get_many(&self, keys: Vec<String>) -> Vec<Result<Bytes, BlobError>> {
        use futures_util::StreamExt;
        let files: Option<Vec<PathBuf>> = keys.iter().map(|key| self.local_file(key)).collect();
        let Some(files) = files else {
            return futures_util::stream::iter(keys)
                .map(|key| async move { self.get(&key).await })
                .buffered(32)
                .collect()
                .await;
        };
        let count = keys.len();
        let read = tokio::task::spawn_blocking(move || {
            keys.into_iter()
                .zip(files)
                .map(|(key, file)| match std::fs::read(file) {
                    Ok(bytes) => Ok(Bytes::from(bytes)),
                    Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                        Err(BlobError::NotFound(key))
                    }
                    Err(source) => Err(BlobError::Folder { path: key, source }),
                })
                .collect::<Vec<_>>()
        });
        // One answer per key, whatever happens: callers pair the answers with their keys.
        read.await.unwrap_or_else(|error| {
            (0..count)
                .map(|_| {
                    Err(BlobError::Folder {
                        path: "batch read".to_string(),
                        source: std::io::Error::other(error.to_string()),
                    })
                })
                .collect()
        })
    }

    /// The object as a stream of chunks (downloads of large exports never sit in memory whole).
    pub async fn stream(
        &self,
        key: &str,
    ) -> Result<
        futures_util::stream::BoxStream<'static, Result<Bytes, object_store::Error>>,
        BlobError,
    > {
        match self.store.get(&ObjectPath::from(key)).await {
            Ok(result) => Ok(result.into_stream()),
            Err(object_store::Error::NotFound { .. }) => Err(BlobError::NotFound(key.to_string())),
            Err(error) => Err(error.into()),
        }
    }

    /// Copies the object into a local file, chunk by chunk.
    pub async fn download_to(&self, key: &str, path: &Path) -> Result<u64, BlobError> {
        use futures_util::StreamExt;
        use tokio::io::AsyncWriteExt;
        let mut stream = self.stream(key).await?;
        let io = |error: std::io::Error| BlobError::Folder {
            path: path.display().to_string(),
            source: error,
        };
        let mut file = tokio::fs::File::create(path).await.map_err(io)?;
        let mut written = 0;
        while let Some(chunk) = stream.next().await {
            let chunk = chunk?;
            written += chunk.len() as u64;
            file.write_all(&chunk).await.map_err(io)?;
        }
        file.flush().await.map_err(io)?;
        Ok(written)
    }

    /// Uploads a local file in parts of 8 MiB; returns its size.
    pub async fn upload_from(&self, key: &str, path: &Path) -> Result<u64, BlobError> {
        use object_store::WriteMultipart;
        use tokio::io::AsyncReadExt;
        let io = |error: std::io::Error| BlobError::Folder {
            path: path.display().to_string(),
            source: error,
        };
        let mut file = tokio::fs::File::open(path).await.map_err(io)?;
        let upload = self.store.put_multipart(&ObjectPath::from(key)).await?;
        let mut writer = WriteMultipart::new_with_chunk_size(upload, 8 * 1024 * 1024);
        let mut buffer = vec![0u8; 1024 * 1024];
        let mut total = 0;
        loop {
            let read = file.read(&mut buffer).await.map_err(io)?;
            if read == 0 {
                break;
            }
            total += read as u64;
            writer.wait_for_capacity(4).await?;
            writer.write(&buffer[..read]);
        }
        writer.finish().await?;
        Ok(total)
    }

    /// Copies an object inside the store (a hard link on the local store, a server-side copy on
    /// cloud stores); returns the copy's size.
    pub async fn copy(&self, from: &str, to: &str) -> Result<u64, BlobError> {
        let to = ObjectPath::from(to);
        match self.store.copy(&ObjectPath::from(from), &to).await {
            Ok(()) => Ok(self.store.head(&to).await?.size),
            Err(object_store::Error::NotFound { .. }) => Err(BlobError::NotFound(from.to_string())),
            Err(error) => Err(error.into()),
        }
    }

    /// Deletes `key`; deleting a missing object is not an error.
    /// The objects under `prefix` last written before `before`: their keys and sizes. On the local
    /// store the folder is read directly, so that the staging files of a write cut off by a crash
    /// (`name#n`, which the store's own listing skips) are found too.
    pub async fn written_before(
        &self,
        prefix: &str,
        before: chrono::DateTime<chrono::Utc>,
    ) -> Result<Vec<(String, u64)>, BlobError> {
        use futures_util::TryStreamExt;
        if let Some(root) = self.local_root.clone() {
            let prefix = prefix.trim_matches('/').to_string();
            let folder = root.join(&prefix);
            let before = std::time::SystemTime::from(before);
            let listed = tokio::task::spawn_blocking(move || {
                let mut found = Vec::new();
                let Ok(entries) = std::fs::read_dir(&folder) else {
                    return found;
                };
                for entry in entries.flatten() {
                    let Ok(meta) = entry.metadata() else { continue };
                    let old = meta.modified().is_ok_and(|modified| modified < before);
                    if meta.is_file() && old {
                        let name = entry.file_name().to_string_lossy().into_owned();
                        found.push((format!("{prefix}/{name}"), meta.len()));
                    }
                }
                found
            })
            .await
            .unwrap_or_default();
            return Ok(listed);
        }
        let listed: Vec<object_store::ObjectMeta> = self
            .store
            .list(Some(&ObjectPath::from(prefix)))
            .try_collect()
            .await?;
        Ok(listed
            .into_iter()
            .filter(|meta| meta.last_modified < before)
            .map(|meta| (meta.location.to_string(), meta.size))
            .collect())
    }

    /// Deletes what [`Blobs::written_before`] listed: on the local store the file itself (a staging
    /// file's name is no object key), elsewhere the object.
    pub async fn delete_written(&self, key: &str) -> Result<(), BlobError> {
        let Some(root) = self.local_root.as_ref() else {
            return self.delete(key).await;
        };
        match std::fs::remove_file(root.join(key)) {
            Ok(()) => Ok(()),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(error) => Err(BlobError::Folder {
                path: key.to_string(),
                source: error,
            }),
        }
    }

    pub async fn delete(&self, key: &str) -> Result<(), BlobError> {
        match self.store.delete(&ObjectPath::from(key)).await {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(error) => Err(error.into()),
        }
    }

    /// One metadata request against the store; a missing probe object counts as reachable.
    pub async fn ping(&self) -> Result<Duration, BlobError> {
        let started = Instant::now();
        match self.store.head(&ObjectPath::from("_health/probe")).await {
            Ok(_) | Err(object_store::Error::NotFound { .. }) => Ok(started.elapsed()),
            Err(error) => Err(error.into()),
        }
    }
}

/// A key that maps to the same relative path in a local folder as object_store's LocalFileSystem
/// gives it (segments of ASCII letters, digits, `-`, `_` and `.`, none of them `.` or `..`).
fn plain_key(key: &str) -> bool {
    !key.is_empty()
        && key.split('/').all(|segment| {
            !segment.is_empty()
                && segment != "."
                && segment != ".."
                && segment
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        })
}

/// A scratch file, removed when dropped: a file name that is fresh in `folder` (created if missing).
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn in_folder(folder: &Path, name: &str) -> std::io::Result<Scratch> {
        std::fs::create_dir_all(folder)?;
        Ok(Scratch(
            folder.join(format!("{}-{name}", crate::store::new_id("tmp"))),
        ))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// What a sweep of orphaned originals removed.
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct SweepReport {
    pub deleted: u64,
    pub bytes: u64,
}

/// Deletes the originals of uploads that never committed: objects under a tenant's `uploads/` folder
/// written before `before` that no document refers to (the process died, or the client went away,
/// between storing a file and queueing its job). `before` leaves uploads in flight alone.
pub async fn sweep_orphan_uploads(
    store: &crate::store::Store,
    blobs: &Blobs,
    before: chrono::DateTime<chrono::Utc>,
) -> Result<SweepReport, String> {
    let mut report = SweepReport::default();
    let tenants = store.tenant_ids().await.map_err(|e| e.to_string())?;
    for tenant_id in tenants {
        let prefix = format!("tenants/{tenant_id}/uploads");
        let written = blobs
            .written_before(&prefix, before)
            .await
            .map_err(|e| e.to_string())?;
        tracing::debug!(tenant_id, uploads = written.len(), %before, "sweeping orphaned originals");
        for batch in written.chunks(500) {
            let keys: Vec<String> = batch.iter().map(|(key, _)| key.clone()).collect();
            let known = store
                .known_blob_keys(&keys)
                .await
                .map_err(|e| e.to_string())?;
            for (key, size) in batch.iter().filter(|(key, _)| !known.contains(key)) {
                match blobs.delete_written(key).await {
                    Ok(()) => {
                        report.deleted += 1;
                        report.bytes += size;
                    }
                    Err(error) => tracing::warn!(%error, key, "cannot delete an orphaned original"),
                }
            }
        }
    }
    if report.deleted > 0 {
        tracing::warn!(
            deleted = report.deleted,
            bytes = report.bytes,
            "originals of uploads that never committed deleted"
        );
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn local_store_round_trips_and_deletes() {
        let dir = tempfile::tempdir().expect("tempdir");
        let blobs = Blobs::open("", dir.path()).expect("open");
        let key = keys::document_original(7, 42);
        blobs
            .put(&key, Bytes::from_static(b"hello"))
            .await
            .expect("put");
        assert_eq!(
            blobs.get(&key).await.expect("get"),
            Bytes::from_static(b"hello")
        );
        assert!(dir
            .path()
            .join("blobs/tenants/7/documents/42/original")
            .exists());
        blobs.delete(&key).await.expect("delete");
        blobs.delete(&key).await.expect("deleting twice is fine");
        assert!(matches!(blobs.get(&key).await, Err(BlobError::NotFound(_))));
        assert!(blobs.ping().await.is_ok());
    }

    #[tokio::test]
    async fn objects_written_before_a_time_are_listed_under_their_prefix() {
        let dir = tempfile::tempdir().expect("tempdir");
        let blobs = Blobs::open("", dir.path()).expect("open");
        let old = keys::upload(7, "u_old");
        blobs
            .put(&old, Bytes::from_static(b"old"))
            .await
            .expect("put");
        // A file written by another process (a killed one) is listed too.
        std::fs::write(dir.path().join("blobs/tenants/7/uploads/u_planted"), b"x").expect("plant");
        // The staging file of a write cut off by a kill, which the store's listing skips.
        std::fs::write(dir.path().join("blobs/tenants/7/uploads/u_cut#1"), b"xy").expect("plant");
        let cut = chrono::Utc::now() + chrono::Duration::seconds(1);
        blobs
            .put(&keys::document_original(7, 1), Bytes::from_static(b"other"))
            .await
            .expect("put");
        let mut listed = blobs
            .written_before("tenants/7/uploads", cut)
            .await
            .expect("list");
        listed.sort();
        assert_eq!(
            listed,
            vec![
                ("tenants/7/uploads/u_cut#1".to_string(), 2),
                (old, 3),
                ("tenants/7/uploads/u_planted".to_string(), 1)
            ]
        );
        blobs
            .delete_written("tenants/7/uploads/u_cut#1")
            .await
            .expect("delete");
        assert!(!dir.path().join("blobs/tenants/7/uploads/u_cut#1").exists());
        let past = chrono::Utc::now() - chrono::Duration::hours(1);
        assert!(blobs
            .written_before("tenants/7/uploads", past)
            .await
            .expect("list")
            .is_empty());
    }

    #[tokio::test]
    async fn batch_reads_keep_the_order_and_report_missing_objects() {
        let dir = tempfile::tempdir().expect("tempdir");
        let blobs = Blobs::open("", dir.path()).expect("open");
        for (key, body) in [("a/1.json", "one"), ("a/2.json", "two"), ("b c/3", "three")] {
            blobs
                .put(key, Bytes::from(body.to_string()))
                .await
                .expect("put");
        }
        let keys = |list: &[&str]| list.iter().map(|k| k.to_string()).collect::<Vec<_>>();
        let read = blobs
            .get_many(keys(&["a/2.json", "a/missing", "a/1.json"]))
            .await;
        assert_eq!(read[0].as_ref().expect("two"), &Bytes::from_static(b"two"));
        assert!(matches!(read[1], Err(BlobError::NotFound(_))));
        assert_eq!(read[2].as_ref().expect("one"), &Bytes::from_static(b"one"));
        // A key the fast path cannot map goes through the object store, with the same answers.
        let read = blobs.get_many(keys(&["b c/3", "a/1.json"])).await;
        assert_eq!(
            read[0].as_ref().expect("three"),
            &Bytes::from_static(b"three")
        );
        assert_eq!(read[1].as_ref().expect("one"), &Bytes::from_static(b"one"));
        let size = blobs.copy("a/1.json", "c/copy.json").await.expect("copy");
        assert_eq!(size, 3);
        blobs.delete("a/1.json").await.expect("delete the original");
        assert_eq!(
            blobs.get("c/copy.json").await.expect("copy stays"),
            Bytes::from_static(b"one")
        );
        assert!(matches!(
            blobs.copy("a/1.json", "c/x").await,
            Err(BlobError::NotFound(_))
        ));
        assert!(
            !plain_key("a/../b") && !plain_key("") && !plain_key("a//b") && plain_key("t/1/r.json")
        );
    }

    #[test]
    fn rejects_a_malformed_url() {
        let dir = tempfile::tempdir().expect("tempdir");
        assert!(matches!(
            Blobs::open("not a url", dir.path()),
            Err(BlobError::InvalidUrl(_))
        ));
    }
}
