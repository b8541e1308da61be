//! Values read from a document and kept in a database row, outside the sealed blobs (extracted
//! fields, e-mail headers, the file name): the store takes them only as [`Sealed`], sealed under the
//! tenant's data key, so that a new column cannot hold one in clear by accident. A copied database
//! file, the SQLite write-ahead log, PostgreSQL's dead tuples and backups hold ciphertext that a
//! closure's crypto-shredding makes unreadable; retention and erasure delete it.

use base64::Engine as _;

/// What seals and opens row values: the tenant's data key (`blob::DataKey`, which implements it; the
/// store stays below the blob room).
pub trait RowKey {
    /// `plain` sealed, bound to the tenant and to `purpose`.
    fn seal_value(&self, purpose: &str, plain: &[u8]) -> Result<Vec<u8>, SealError>;
    /// What [`RowKey::seal_value`] sealed for the same `purpose`.
    fn open_value(&self, purpose: &str, sealed: &[u8]) -> Result<Vec<u8>, SealError>;
    /// A keyed digest of `plain` for `purpose`: equal for equal values, unreadable without the key.
    fn digest_value(&self, purpose: &str, plain: &[u8]) -> Vec<u8>;
}

/// Why a value was not sealed or did not open.
#[derive(Debug, thiserror::Error)]
pub enum SealError {
    #[error(
        "the value does not open under the tenant's data key (altered, moved, or another key)"
    )]
    Corrupt,
    #[error("no random numbers")]
    Random,
}

/// What marks a sealed value in its column (a value without it was written by a store without a key
/// ring: tools and unit tests; the server always seals).
const MARK: &str = "dsv1:";

/// Which kind of value: bound into the seal, so that a value moved to another column fails to open.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SealedField {
    /// `executions.sealed_meta`: what a run read beyond counts (`filename`, `fields`), as JSON.
    ExecutionMeta,
    /// `documents.filename`: the name the file came with.
    DocumentName,
    /// `documents.source_key`: a connector document's key in its bucket (a path, often a name).
    SourceKey,
}

impl SealedField {
    fn purpose(self) -> &'static str {
        match self {
            SealedField::ExecutionMeta => "executions.sealed_meta",
            SealedField::DocumentName => "documents.filename",
            SealedField::SourceKey => "documents.source_key",
        }
    }
}

/// A value from a document as its column holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sealed(String);

impl Sealed {
    /// Seals `plain` under the tenant's data key (`None`: a store without a key ring, which keeps the
    /// value as it is; the server never runs so).
    pub fn seal<K: RowKey + ?Sized>(
        key: Option<&K>,
        field: SealedField,
        plain: &str,
    ) -> Result<Sealed, SealError> {
        let Some(key) = key else {
            return Ok(Sealed(plain.to_string()));
        };
        let sealed = key.seal_value(field.purpose(), plain.as_bytes())?;
        Ok(Sealed(format!(
            "{MARK}{}",
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(sealed)
        )))
    }

    /// The value again; a value that does not open (another tenant's, another column's, altered, or
    /// its key shredded) is an error, never shown.
    pub fn open<K: RowKey + ?Sized>(
        &self,
        key: Option<&K>,
        field: SealedField,
    ) -> Result<String, SealError> {
        let Some(body) = self.0.strip_prefix(MARK) else {
            return Ok(self.0.clone());
        };
        let key = key.ok_or(SealError::Corrupt)?;
        let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(body)
            .map_err(|_| SealError::Corrupt)?;
        let plain = key.open_value(field.purpose(), &bytes)?;
        String::from_utf8(plain).map_err(|_| SealError::Corrupt)
    }

    /// [`Sealed::open`], or a stand-in naming why the value is not shown (a shredded key, an altered
    /// row): for lists, where one bad row must not hide the others.
    pub fn open_or_withheld<K: RowKey + ?Sized>(
        &self,
        key: Option<&K>,
        field: SealedField,
    ) -> String {
        self.open(key, field)
            .unwrap_or_else(|_| "(withheld: does not open under the tenant's key)".to_string())
    }

    /// A sealed JSON value (`executions.sealed_meta`) opened and parsed; None when it does not open
    /// or is not JSON, so that nothing of it is shown.
    pub fn open_json<K: RowKey + ?Sized>(
        stored: &str,
        key: Option<&K>,
        field: SealedField,
    ) -> Option<serde_json::Value> {
        let text = Sealed(stored.to_string()).open(key, field).ok()?;
        serde_json::from_str(&text).ok()
    }

    /// Whether the column's text is a sealed value (not one kept in clear before sealing existed).
    pub fn is_sealed(stored: &str) -> bool {
        stored.starts_with(MARK)
    }

    /// The text the column holds.
    pub fn stored(&self) -> &str {
        &self.0
    }

    /// A value as read from its column.
    pub fn from_stored(stored: String) -> Sealed {
        Sealed(stored)
    }
}

/// What marks a keyed digest ([`ObjectKey::digest`]).
const DIGEST_MARK: &str = "kd1:";

/// A connector object's key as the store keeps it: sealed where it is shown (`documents.source_key`)
/// and as a keyed digest where syncs compare it (`documents.source_digest`,
/// `connector_objects.object_key`), so that a bucket's paths, which name people as file names do,
/// stay out of the database in clear.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObjectKey {
    pub sealed: Sealed,
    pub digest: String,
}

impl ObjectKey {
    /// `key` of an object of connector `connector_id`, under the tenant's data key (`None`: a store
    /// without a key ring, which keeps it as it is).
    pub fn of<K: RowKey + ?Sized>(
        tenant_key: Option<&K>,
        connector_id: i64,
        key: &str,
    ) -> Result<ObjectKey, SealError> {
        Ok(ObjectKey {
            sealed: Sealed::seal(tenant_key, SealedField::SourceKey, key)?,
            digest: ObjectKey::digest_of(tenant_key, connector_id, key),
        })
    }

    /// The keyed digest alone (what a sync compares): `key`'s, with its connector, under the tenant's
    /// data key (without one, the key as it is).
    pub fn digest_of<K: RowKey + ?Sized>(
        tenant_key: Option<&K>,
        connector_id: i64,
        key: &str,
    ) -> String {
        let Some(tenant_key) = tenant_key else {
            return key.to_string();
        };
        let mut plain = connector_id.to_be_bytes().to_vec();
        plain.extend_from_slice(key.as_bytes());
        let digest = tenant_key.digest_value("connector object key", &plain);
        format!(
            "{DIGEST_MARK}{}",
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(digest)
        )
    }
}

/// Keys of `result_meta` that came from the document: kept sealed in `sealed_meta` instead.
const SEALED_META_KEYS: [&str; 2] = ["filename", "fields"];

/// Rows written before sealing existed, of one kind.
#[derive(Clone, Copy)]
enum ClearRows {
    /// `documents.filename` without the mark.
    Names,
    /// `executions.result_meta` holding `filename` or `fields`, and nothing in `sealed_meta`.
    Meta,
    /// `documents.source_key` without the mark (and no `source_digest`).
    SourceKeys,
    /// `connector_objects.object_key` that is not a digest.
    ObjectKeys,
}

impl ClearRows {
    /// The batch after an id: `id`, `tenant_id`, `value` (the text in clear), `destroyed` and
    /// `connector` (a connector object's connector, else 0).
    fn select(self) -> (&'static str, Vec<sea_orm::Value>) {
        match self {
            ClearRows::Names => (
                "SELECT id, tenant_id, filename AS value, FALSE AS destroyed, CAST(0 AS BIGINT) AS connector \
                 FROM documents WHERE filename NOT LIKE ? AND id > ? ORDER BY id LIMIT 200",
                vec![format!("{MARK}%").into()],
            ),
            ClearRows::Meta => (
                "SELECT id, tenant_id, result_meta AS value, result_destroyed_at IS NOT NULL AS \
                 destroyed, CAST(0 AS BIGINT) AS connector FROM executions WHERE sealed_meta IS NULL AND \
                 (result_meta LIKE ? OR result_meta LIKE ?) AND id > ? ORDER BY id LIMIT 200",
                vec![r#"%"filename":%"#.into(), r#"%"fields":%"#.into()],
            ),
            ClearRows::SourceKeys => (
                "SELECT id, tenant_id, source_key AS value, FALSE AS destroyed, \
                 COALESCE(connector_id, 0) AS connector FROM documents WHERE source_key IS NOT NULL \
                 AND source_key NOT LIKE ? AND id > ? ORDER BY id LIMIT 200",
                vec![format!("{MARK}%").into()],
            ),
            ClearRows::ObjectKeys => (
                "SELECT id, tenant_id, object_key AS value, FALSE AS destroyed, connector_id AS \
                 connector FROM connector_objects WHERE object_key NOT LIKE ? AND id > ? \
                 ORDER BY id LIMIT 200",
                vec![format!("{DIGEST_MARK}%").into()],
            ),
        }
    }

    /// The row's update (its values after the statement's placeholders but the id), or None to
    /// leave it.
    fn sealed(
        self,
        (value, destroyed, connector): (String, bool, i64),
        key: &dyn RowKey,
    ) -> Result<(&'static str, Vec<sea_orm::Value>), SealError> {
        match self {
            ClearRows::SourceKeys => {
                let object = ObjectKey::of(Some(key), connector, &value)?;
                Ok((
                    "UPDATE documents SET source_key = ?, source_digest = ? WHERE id = ?",
                    vec![object.sealed.0.into(), object.digest.into()],
                ))
            }
            ClearRows::ObjectKeys => Ok((
                "UPDATE connector_objects SET object_key = ? WHERE id = ?",
                vec![ObjectKey::digest_of(Some(key), connector, &value).into()],
            )),
            ClearRows::Names => {
                let sealed = Sealed::seal(Some(key), SealedField::DocumentName, &value)?;
                Ok((
                    "UPDATE documents SET filename = ? WHERE id = ?",
                    vec![sealed.0.into()],
                ))
            }
            ClearRows::Meta => {
                let mut meta: serde_json::Value = serde_json::from_str(&value).unwrap_or_default();
                let mut moved = serde_json::Map::new();
                if let Some(object) = meta.as_object_mut() {
                    for name in SEALED_META_KEYS {
                        if let Some(value) = object.remove(name) {
                            moved.insert(name.to_string(), value);
                        }
                    }
                }
                // A destroyed result keeps nothing: an empty mark, so that it is not read again.
                let sealed = if destroyed {
                    String::new()
                } else {
                    let text = serde_json::Value::Object(moved).to_string();
                    Sealed::seal(Some(key), SealedField::ExecutionMeta, &text)?.0
                };
                Ok((
                    "UPDATE executions SET result_meta = ?, sealed_meta = ? WHERE id = ?",
                    vec![meta.to_string().into(), sealed.into()],
                ))
            }
        }
    }
}

impl super::Store {
    /// Seals what rows written before sealing existed hold of their documents in clear (file names;
    /// `filename` and `fields` in `result_meta`, moved to `sealed_meta`, or dropped when the result
    /// was destroyed; connector object keys, sealed in `documents` and made keyed digests where syncs
    /// compare them); run at every start (four statements when nothing is left). A tenant whose key
    /// is gone (a closure under way) is left to the closure, which deletes its rows. Answers how many
    /// rows it changed.
    pub async fn seal_clear_meta<K, F, Fut>(&self, key_of: F) -> Result<u64, String>
    where
        K: RowKey,
        F: Fn(i64) -> Fut,
        Fut: std::future::Future<Output = Option<std::sync::Arc<K>>>,
    {
        use sea_orm::ConnectionTrait as _;
        let failed =
            |error: &dyn std::fmt::Display| format!("sealing values kept in clear: {error}");
        let mut changed = 0;
        for kind in [
            ClearRows::Names,
            ClearRows::Meta,
            ClearRows::SourceKeys,
            ClearRows::ObjectKeys,
        ] {
            let mut after = 0_i64;
            loop {
                let (select, mut values) = kind.select();
                values.push(after.into());
                let rows = self
                    .connection()
                    .query_all(self.statement(select, values))
                    .await
                    .map_err(|e| failed(&e))?;
                if rows.is_empty() {
                    break;
                }
                for row in rows {
                    let id: i64 = row.try_get("", "id").map_err(|e| failed(&e))?;
                    let tenant_id: i64 = row.try_get("", "tenant_id").map_err(|e| failed(&e))?;
                    let value: String = row.try_get("", "value").map_err(|e| failed(&e))?;
                    let destroyed: bool = row.try_get("", "destroyed").map_err(|e| failed(&e))?;
                    let connector: i64 = row.try_get("", "connector").map_err(|e| failed(&e))?;
                    after = id;
                    let Some(key) = key_of(tenant_id).await else {
                        continue;
                    };
                    let (update, mut values) = kind
                        .sealed((value, destroyed, connector), &*key)
                        .map_err(|e| failed(&e))?;
                    values.push(id.into());
                    self.connection()
                        .execute(self.statement(update, values))
                        .await
                        .map_err(|e| failed(&e))?;
                    changed += 1;
                }
            }
        }
        Ok(changed)
    }
}
