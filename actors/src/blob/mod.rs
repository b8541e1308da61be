//! Blob storage through object_store: a local folder under the data dir by default, or any S3, GCS or
//! Azure URL from `storage.blob_url`. Owns the key layout; never interprets the bytes it stores.
//! With a key ring (the server always has one), every object under `tenants/<id>/` is sealed under
//! that tenant's data key as it is written and opened as it is read, streaming (see `seal`), so that
//! nothing sits in clear on the disk or in the bucket.

mod keyring;
mod layout;
mod seal;

pub use keyring::{
    generate_master_key, master_key_id, rewrap_all, write_key_file, KeyError, KeyRing, MasterKeys,
    MasterSource, Rotation, MASTER_KEY_ENV,
};
pub use layout::Keys;
pub use seal::{is_sealed, plain_size, DataKey};

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
    #[error("{0}")]
    Key(#[from] KeyError),
    #[error("{0}")]
    Seal(#[from] seal::SealError),
}

#[derive(Clone)]
pub struct Blobs {
    store: Arc<dyn ObjectStore>,
    /// The folder of the local store (none for cloud stores): batch reads go straight to the files.
    local_root: Option<Arc<PathBuf>>,
    /// Where the blobs live, for the health report (no credentials).
    location: String,
    /// The tenants' data keys: with it, blobs are sealed at rest.
    ring: Option<Arc<KeyRing>>,
}

/// The tenant whose data key seals `key` (`tenants/<id>/...`); 0, the service's own, for the rest.
fn tenant_of(key: &str) -> i64 {
    key.strip_prefix("tenants/")
        .and_then(|rest| rest.split('/').next())
        .and_then(|id| id.parse().ok())
        .unwrap_or(0)
}

/// A stream's failure to open as the object store's error type.
fn stream_error(error: impl std::error::Error + Send + Sync + 'static) -> object_store::Error {
    object_store::Error::Generic {
        store: "docsieve sealed blob",
        source: Box::new(error),
    }
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
                ring: None,
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
            ring: None,
        })
    }

    /// The same store, sealing what it writes and opening what it reads under the tenants' keys.
    pub fn sealed(mut self, ring: Arc<KeyRing>) -> Blobs {
        self.ring = Some(ring);
        self
    }

    /// The key ring, when blobs are sealed.
    pub fn key_ring(&self) -> Option<&Arc<KeyRing>> {
        self.ring.as_ref()
    }

    /// The tenant's data key, which also seals what the store keeps of its documents in rows
    /// (`store::Sealed`); None when blobs are not sealed (tools and unit tests: never the server).
    pub async fn tenant_key(&self, tenant_id: i64) -> Result<Option<Arc<DataKey>>, BlobError> {
        match &self.ring {
            Some(ring) => Ok(Some(ring.data_key(tenant_id).await?)),
            None => Ok(None),
        }
    }

    async fn data_key(&self, key: &str) -> Result<Option<Arc<seal::DataKey>>, BlobError> {
        match &self.ring {
            Some(ring) => Ok(Some(ring.data_key(tenant_of(key)).await?)),
            None => Ok(None),
        }
    }

    /// Opens what was read from the store (bytes written before sealing existed pass as they are).
    fn opened(data_key: Option<&Arc<seal::DataKey>>, bytes: Bytes) -> Result<Bytes, BlobError> {
        match data_key {
            Some(data_key) if seal::is_sealed(&bytes) => {
                Ok(Bytes::from(seal::open(data_key, &bytes)?))
            }
            _ => Ok(bytes),
        }
    }

    pub fn location(&self) -> &str {
        &self.location
    }

    pub async fn put(&self, key: &str, bytes: Bytes) -> Result<(), BlobError> {
        let bytes = match self.data_key(key).await? {
            Some(data_key) => Bytes::from(seal::seal(&data_key, &bytes)?),
            None => bytes,
        };
        self.store
            .put(&ObjectPath::from(key), PutPayload::from_bytes(bytes))
            .await?;
        Ok(())
    }

    pub async fn get(&self, key: &str) -> Result<Bytes, BlobError> {
        let data_key = self.data_key(key).await?;
        match self.store.get(&ObjectPath::from(key)).await {
            Ok(result) => Blobs::opened(data_key.as_ref(), result.bytes().await?),
            Err(object_store::Error::NotFound { .. }) => Err(BlobError::NotFound(key.to_string())),
            Err(error) => Err(error.into()),
        }
    }

    /// The file behind `key` when the store is a local folder and keeps it in clear (readers then
    /// skip the copy).
    pub fn local_file(&self, key: &str) -> Option<PathBuf> {
        if self.ring.is_some() {
            return None;
        }
        self.local_path(key)
    }

    fn local_path(&self, key: &str) -> Option<PathBuf> {
        let root = self.local_root.as_ref()?;
        plain_key(key).then(|| root.join(key))
    }

    /// Reads many objects, results in the order of `keys`. On the local store one blocking task reads
    /// the files directly (no task per object); on cloud stores up to 32 requests are in flight.
    pub async fn get_many(&self, keys: Vec<String>) -> Vec<Result<Bytes, BlobError>> {
        use futures_util::StreamExt;
        let files: Option<Vec<PathBuf>> = keys.iter().map(|key| self.local_path(key)).collect();
        let Some(files) = files else {
            return futures_util::stream::iter(keys)
                .map(|key| async move { self.get(&key).await })
                .buffered(32)
                .collect()
                .await;
        };
        let count = keys.len();
        // The data keys first (one per tenant), then one blocking task reads and opens the files.
        let mut data_keys = std::collections::HashMap::new();
        for key in &keys {
            let tenant_id = tenant_of(key);
            if let std::collections::hash_map::Entry::Vacant(slot) = data_keys.entry(tenant_id) {
                slot.insert(self.data_key(key).await.map_err(|e| e.to_string()));
            }
        }
        let read = tokio::task::spawn_blocking(move || {
            keys.into_iter()
                .zip(files)
                .map(|(key, file)| match std::fs::read(file) {
                    Ok(bytes) => match &data_keys[&tenant_of(&key)] {
                        Ok(data_key) => Blobs::opened(data_key.as_ref(), Bytes::from(bytes)),
                        Err(error) => Err(BlobError::Folder {
                            path: key,
                            source: std::io::Error::other(error.clone()),
                        }),
                    },
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
        let data_key = self.data_key(key).await?;
        match self.store.get(&ObjectPath::from(key)).await {
            Ok(result) => match data_key {
                Some(data_key) => Ok(opening(result.into_stream(), data_key)),
                None => Ok(result.into_stream()),
            },
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
        let mut sealer = match self.data_key(key).await? {
            Some(data_key) => Some(seal::Sealer::new(data_key)?),
            None => None,
        };
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
            match sealer.as_mut() {
                Some(sealer) => writer.write(&sealer.push(&buffer[..read])),
                None => writer.write(&buffer[..read]),
            }
        }
        if let Some(sealer) = sealer {
            writer.write(&sealer.finish());
        }
        writer.finish().await?;
        Ok(total)
    }

    /// Copies an object inside the store (a hard link on the local store, a server-side copy on
    /// cloud stores); returns the copy's plain size. Both keys must belong to one tenant: the sealed
    /// bytes are copied as they are.
    pub async fn copy(&self, from: &str, to: &str) -> Result<u64, BlobError> {
        debug_assert_eq!(tenant_of(from), tenant_of(to));
        let to = ObjectPath::from(to);
        match self.store.copy(&ObjectPath::from(from), &to).await {
            Ok(()) => {
                let size = self.store.head(&to).await?.size;
                Ok(if self.ring.is_some() {
                    seal::plain_size(size)
                } else {
                    size
                })
            }
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
        Ok(self
            .metas(prefix)
            .await?
            .into_iter()
            .filter(|meta| meta.last_modified < before)
            .map(|meta| (meta.location.to_string(), meta.size))
            .collect())
    }

    async fn metas(&self, prefix: &str) -> Result<Vec<object_store::ObjectMeta>, BlobError> {
        use futures_util::TryStreamExt;
        Ok(self
            .store
            .list(Some(&ObjectPath::from(prefix)))
            .try_collect()
            .await?)
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

    /// Every object under `prefix` (all of them below it), with its stored size.
    pub async fn list(&self, prefix: &str) -> Result<Vec<(String, u64)>, BlobError> {
        Ok(self
            .metas(prefix)
            .await?
            .into_iter()
            .map(|meta| (meta.location.to_string(), meta.size))
            .collect())
    }

    /// Whether the object as stored is sealed (its first bytes), without opening it.
    pub async fn sealed_at_rest(&self, key: &str) -> Result<bool, BlobError> {
        let path = ObjectPath::from(key);
        let size = self.store.head(&path).await?.size;
        if size < seal::HEADER as u64 {
            return Ok(false);
        }
        let head = self.store.get_range(&path, 0..seal::HEADER as u64).await?;
        Ok(seal::is_sealed(&head))
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

/// Opens a sealed object as it streams; an object written before sealing existed passes as it is.
fn opening(
    raw: futures_util::stream::BoxStream<'static, Result<Bytes, object_store::Error>>,
    data_key: Arc<seal::DataKey>,
) -> futures_util::stream::BoxStream<'static, Result<Bytes, object_store::Error>> {
    use futures_util::StreamExt;
    enum Mode {
        /// The first bytes, until there are enough to tell.
        Unknown(Vec<u8>),
        Sealed(seal::Opener),
        Clear,
        Done,
    }
    let state = (raw, Mode::Unknown(Vec::new()), data_key);
    futures_util::stream::unfold(state, |(mut raw, mut mode, data_key)| async move {
        loop {
            if matches!(mode, Mode::Done) {
                return None;
            }
            let next = raw.next().await;
            let (out, next_mode) = match (mode, next) {
                (_, Some(Err(error))) => (Err(error), Mode::Done),
                (Mode::Clear, Some(Ok(chunk))) => (Ok(chunk), Mode::Clear),
                (Mode::Clear, None) | (Mode::Done, _) => return None,
                (Mode::Unknown(mut head), Some(Ok(chunk))) => {
                    head.extend_from_slice(&chunk);
                    if head.len() < seal::HEADER {
                        mode = Mode::Unknown(head);
                        continue;
                    }
                    if !seal::is_sealed(&head) {
                        (Ok(Bytes::from(head)), Mode::Clear)
                    } else {
                        let mut opener = seal::Opener::new(data_key.clone());
                        match opener.push(&head) {
                            Ok(plain) => (Ok(Bytes::from(plain)), Mode::Sealed(opener)),
                            Err(error) => (Err(stream_error(error)), Mode::Done),
                        }
                    }
                }
                (Mode::Unknown(head), None) => (Ok(Bytes::from(head)), Mode::Done),
                (Mode::Sealed(mut opener), Some(Ok(chunk))) => match opener.push(&chunk) {
                    Ok(plain) => (Ok(Bytes::from(plain)), Mode::Sealed(opener)),
                    Err(error) => (Err(stream_error(error)), Mode::Done),
                },
                (Mode::Sealed(opener), None) => match opener.finish() {
                    Ok(plain) => (Ok(Bytes::from(plain)), Mode::Done),
                    Err(error) => (Err(stream_error(error)), Mode::Done),
                },
            };
            mode = next_mode;
            if matches!(&out, Ok(bytes) if bytes.is_empty()) {
                continue;
            }
            return Some((out, (raw, mode, data_key)));
        }
    })
    .boxed()
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
mod tests;
