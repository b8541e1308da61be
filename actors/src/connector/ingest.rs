//! Taking one object from a connector: read (streamed, given up past `jobs.max_file_bytes`), checked
//! like an upload (name and first bytes), kept as the document's original, and described as a new
//! document that remembers its connector, key and ETag.

use bytes::Bytes;

use super::{Connector, ConnectorError, FailureCode};
use crate::blob::Keys;
use crate::error_code::RecordCode;
use crate::extractor_pool::{admit, Refusal};
use crate::store::{
    new_id, JobPayload, JobTarget, NewDocument, NewJob, ObjectKey, Origin, ProcessPayload,
    RequestedBy, Sealed, SealedField,
};

use super::ConnectorServices;

/// What became of one object.
#[derive(Debug)]
pub enum Fetched {
    /// Read, admitted and stored: the document to queue.
    Document(NewDocument),
    /// Not a document this service takes (missing, too large, unsupported, empty...).
    Refused(Refusal),
}

/// The object's name for format checks: its last path segment.
pub fn object_name(key: &str) -> &str {
    key.rsplit('/').find(|part| !part.is_empty()).unwrap_or(key)
}

/// Reads `key` from the connector and stores it as a document's original. A failure of the object
/// alone (missing, refused for this object) is a refusal; a failure of the connector (credentials,
/// bucket, network) is an error, which the caller stops at.
pub async fn fetch_document(
    services: &ConnectorServices,
    connector: &Connector,
    key: &str,
) -> Result<Fetched, ConnectorError> {
    let max_bytes = services.jobs.max_file_bytes;
    let (bytes, meta) = match connector.fetch(key, max_bytes).await {
        Ok(Some(fetched)) => fetched,
        Ok(None) => {
            return Ok(Fetched::Refused(Refusal::new(
                RecordCode::FileTooLarge.as_str(),
                format!("the object is larger than the limit of {max_bytes} bytes"),
            )))
        }
        Err(error) if error.code == FailureCode::ObjectNotFound => {
            return Ok(Fetched::Refused(Refusal::new(
                RecordCode::ObjectNotFound.as_str(),
                format!("no object {key} in {}", connector.bucket),
            )))
        }
        Err(error) if error.code == FailureCode::PermissionDenied => {
            return Ok(Fetched::Refused(Refusal::new(
                RecordCode::PermissionDenied.as_str(),
                error.message,
            )))
        }
        Err(error) => return Err(error),
    };
    let name = object_name(key).to_string();
    let (bytes, verdict) = tokio::task::spawn_blocking(move || {
        let verdict = admit(&name, &bytes).map(|(format, mime)| (format, mime, hex_sha256(&bytes)));
        (bytes, verdict)
    })
    .await
    .map_err(|error| ConnectorError::new(FailureCode::ProviderError, error.to_string()))?;
    let (format, mime, sha256) = match verdict {
        Ok(admitted) => admitted,
        Err(refusal) => return Ok(Fetched::Refused(refusal)),
    };
    let size = bytes.len() as i64;
    let blob_key = Keys::upload(connector.tenant_id, &new_id("c"));
    services
        .blobs
        .put(&blob_key, Bytes::from(bytes))
        .await
        .map_err(|error| {
            ConnectorError::new(
                FailureCode::ProviderError,
                format!("the object was read but cannot be kept: {error}"),
            )
        })?;
    let name: String = object_name(key).chars().take(255).collect();
    let kept = |error: &dyn std::fmt::Display| {
        ConnectorError::new(
            FailureCode::ProviderError,
            format!("the object was read but its name cannot be sealed: {error}"),
        )
    };
    let tenant_key = services
        .blobs
        .tenant_key(connector.tenant_id)
        .await
        .map_err(|error| kept(&error))?;
    let filename = Sealed::seal(tenant_key.as_deref(), SealedField::DocumentName, &name)
        .map_err(|error| kept(&error))?;
    let object_key =
        ObjectKey::of(tenant_key.as_deref(), connector.id, key).map_err(|error| kept(&error))?;
    Ok(Fetched::Document(NewDocument {
        filename,
        mime: mime.to_string(),
        format: format.to_string(),
        size_bytes: size,
        sha256,
        blob_key,
        origin: Origin::Connector {
            connector_id: connector.id,
            key: object_key,
            etag: meta.e_tag,
        },
    }))
}

fn hex_sha256(bytes: &[u8]) -> String {
    hex::encode(ring::digest::digest(&ring::digest::SHA256, bytes))
}

/// The processing job of a fetched document.
pub fn process_job(
    document: NewDocument,
    masked: bool,
    requested_by: RequestedBy,
    max_attempts: u32,
) -> NewJob {
    NewJob {
        id: new_id("job"),
        target: JobTarget::Upload(document),
        payload: JobPayload::DataProcess(ProcessPayload {
            masked,
            reprocess: false,
            requested_by,
        }),
        max_attempts: max_attempts as i32,
    }
}

#[cfg(test)]
mod tests {
    use super::object_name;

    #[test]
    fn an_object_is_named_by_its_last_segment() {
        assert_eq!(object_name("in/2026/a.pdf"), "a.pdf");
        assert_eq!(object_name("a.pdf"), "a.pdf");
        assert_eq!(object_name("dir/"), "dir");
    }
}
