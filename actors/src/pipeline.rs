//! The processing pipeline: a document's bytes read on the extractor pool, then its personal data
//! detected (and masked when asked) on the masker pool. The preview, the CSV export and the job worker
//! all go through [`process`], so that the two calls, their replies and the refusal message exist once.

use crate::error_code::{ErrorCode, RecordCode};
use crate::extractor_pool::ExtractError;
use crate::extractor_pool::Limits;
use crate::extractor_pool::{Extract, ExtractorPool, Lane};
use crate::model::Document;
use crate::pii_masker::MaskedDocument;
use crate::pii_masker::Policy;
use crate::pii_masker::{
    CheckRedacted, MaskDocument, MaskError, PiiMasker, Redact, RedactedDocument,
};
use crate::runtime::{ActorError, ActorHandle};

/// What is refused when masking would leave personal data in the output.
pub const MASKING_REFUSED: &str =
    "masking was refused: the masked output would still contain personal data";

/// Why a document did not come through the pipeline.
#[derive(Debug, thiserror::Error)]
pub enum ProcessError {
    /// The extractor pool did not take or answer the call (overloaded, restarting, timed out):
    /// worth retrying.
    #[error("the extractor pool is unavailable: {0}")]
    ExtractorUnavailable(ActorError),
    /// The same of the masker.
    #[error("the masker is unavailable: {0}")]
    MaskerUnavailable(ActorError),
    /// The document could not be read.
    #[error(transparent)]
    Extract(ExtractError),
    /// Masking would leave personal data in the output ([`MASKING_REFUSED`]).
    #[error("{MASKING_REFUSED}")]
    Refused,
    /// The masking engine failed.
    #[error("{0}")]
    Masking(String),
    /// The document could not be given back in its own format, masked.
    #[error(transparent)]
    Redaction(crate::redaction::RedactError),
}

impl ProcessError {
    /// The stable code a client or a job's record shows.
    pub fn code(&self) -> &'static str {
        match self {
            ProcessError::ExtractorUnavailable(_) => RecordCode::ExtractorUnavailable.as_str(),
            ProcessError::MaskerUnavailable(_) => RecordCode::MaskerUnavailable.as_str(),
            ProcessError::Extract(error) => error.code(),
            ProcessError::Refused => ErrorCode::MaskingRefused.as_str(),
            ProcessError::Masking(_) => RecordCode::MaskingFailed.as_str(),
            ProcessError::Redaction(error) => redaction_code(error).as_str(),
        }
    }
}

/// The code of a redaction that did not come through.
pub fn redaction_code(error: &crate::redaction::RedactError) -> ErrorCode {
    use crate::redaction::RedactError;
    match error {
        RedactError::Unsupported(_) => ErrorCode::RedactionUnsupported,
        RedactError::Malformed(_) => ErrorCode::MalformedDocument,
        RedactError::Limit(_) => ErrorCode::LimitExceeded,
        RedactError::Refused(_) => ErrorCode::MaskingRefused,
    }
}

/// Reads `bytes` within `limits` in `lane`, masks them by `policy` and writes them back in their own
/// format ([`crate::redaction`]); then reads that file again and scans it: a value found there refuses
/// it. Formats without a writer are refused before anything is masked.
pub async fn redact(
    extractor: &ActorHandle<ExtractorPool>,
    masker: &ActorHandle<PiiMasker>,
    bytes: bytes::Bytes,
    limits: Limits,
    lane: Lane,
    policy: Policy,
) -> Result<Box<RedactedDocument>, ProcessError> {
    use crate::redaction::{RedactError, WRITERS};
    let document = extract(extractor, bytes.clone(), limits.clone(), lane).await?;
    let format = crate::extractor_pool::Format::named(&document.metadata.format)
        .ok_or_else(|| ProcessError::Masking("an unknown format was read".to_string()))?;
    if !WRITERS.iter().any(|(f, ..)| *f == format) {
        return Err(ProcessError::Redaction(
            crate::redaction::unsupported_format(format),
        ));
    }
    let request = Redact {
        bytes,
        format,
        document: Box::new(document),
        policy: policy.clone(),
        limits: limits.clone(),
    };
    let redacted = on_masker(masker, request).await?;
    let output = extract(
        extractor,
        redacted.redacted.bytes.clone().into(),
        limits,
        lane,
    )
    .await
    .map_err(|error| {
        ProcessError::Redaction(RedactError::Refused(format!(
            "the masked file does not read back ({error})"
        )))
    })?;
    let request = CheckRedacted {
        output: Box::new(output),
        policy,
        redacted,
    };
    on_masker(masker, request).await
}

/// A redaction request on the masker, its refusals as [`ProcessError::Redaction`].
async fn on_masker<R>(
    masker: &ActorHandle<PiiMasker>,
    request: R,
) -> Result<Box<RedactedDocument>, ProcessError>
where
    R: crate::runtime::Request<PiiMasker, Reply = crate::pii_masker::RedactReply>,
{
    masker
        .call(request)
        .await
        .map_err(ProcessError::MaskerUnavailable)?
        .map_err(|error| match error {
            MaskError::Leak(_) => ProcessError::Refused,
            MaskError::Engine(error) => ProcessError::Masking(error.to_string()),
        })?
        .map_err(ProcessError::Redaction)
}

/// Reads `bytes` within `limits` in `lane`, then detects personal data in every part by `policy` (the
/// tenant's, [`crate::privacy::TenantPolicy::for_document`]) and masks it when `mask` is set.
pub async fn process(
    extractor: &ActorHandle<ExtractorPool>,
    masker: &ActorHandle<PiiMasker>,
    bytes: bytes::Bytes,
    limits: Limits,
    lane: Lane,
    policy: Policy,
    mask: bool,
) -> Result<Box<MaskedDocument>, ProcessError> {
    let wait = masking_wait(lane, &limits);
    let document = extract(extractor, bytes, limits, lane).await?;
    detect(masker, Box::new(document), policy, mask, wait).await
}

/// The document as read and the same document masked (with its findings, whose offsets are into the
/// full text of the first): for an audit that checks what was masked against the values themselves.
pub async fn read_and_mask(
    extractor: &ActorHandle<ExtractorPool>,
    masker: &ActorHandle<PiiMasker>,
    bytes: bytes::Bytes,
    limits: Limits,
    lane: Lane,
) -> Result<(Document, Box<MaskedDocument>), ProcessError> {
    let wait = masking_wait(lane, &limits);
    let document = extract(extractor, bytes, limits, lane).await?;
    let masked = detect(
        masker,
        Box::new(document.clone()),
        Policy::default(),
        true,
        wait,
    )
    .await?;
    Ok((document, masked))
}

/// How long a job waits for the extractor beyond its document's time limit: for its turn in the pool
/// (as long as one more document may take) and a minute of margin.
fn job_wait(limits: &Limits) -> std::time::Duration {
    std::time::Duration::from_secs(limits.max_seconds.saturating_mul(2).saturating_add(60))
}

/// The longest a job's run can take before it ends, one way or the other: its read and its masking,
/// each waited for at most [`job_wait`]. A job that holds the memory budget starts within this of the
/// time it began to hold it, since nothing else is claimed meanwhile.
pub fn longest_run(limits: &Limits) -> std::time::Duration {
    job_wait(limits).saturating_mul(2)
}

/// How long masking may take: a job waits for it as for its reading ([`job_wait`]), since a large
/// document takes longer than the actors' call timeout, which a job would otherwise spend attempt
/// after attempt; a preview waits that timeout (None).
fn masking_wait(lane: Lane, limits: &Limits) -> Option<std::time::Duration> {
    matches!(lane, Lane::Job { .. }).then(|| job_wait(limits))
}

/// The read itself. A preview waits the actors' call timeout, a job [`job_wait`]; when this future
/// ends or is dropped before the answer (its timeout, a client that went away), the read is stopped.
async fn extract(
    extractor: &ActorHandle<ExtractorPool>,
    bytes: bytes::Bytes,
    limits: Limits,
    lane: Lane,
) -> Result<Document, ProcessError> {
    let (_waiting, caller) = tokio::sync::oneshot::channel::<()>();
    let wait = job_wait(&limits);
    let request = Extract {
        bytes,
        limits,
        lane,
        caller: Some(caller),
    };
    match lane {
        Lane::Preview { .. } => extractor.call(request).await,
        Lane::Job { .. } => extractor.call_within(request, wait).await,
    }
    .map_err(ProcessError::ExtractorUnavailable)?
    .map_err(ProcessError::Extract)
}

async fn detect(
    masker: &ActorHandle<PiiMasker>,
    document: Box<Document>,
    policy: Policy,
    mask: bool,
    wait: Option<std::time::Duration>,
) -> Result<Box<MaskedDocument>, ProcessError> {
    let request = MaskDocument {
        document,
        policy,
        mask,
    };
    match wait {
        Some(wait) => masker.call_within(request, wait).await,
        None => masker.call(request).await,
    }
    .map_err(ProcessError::MaskerUnavailable)?
    .map_err(|error| match error {
        MaskError::Leak(_) => ProcessError::Refused,
        MaskError::Engine(error) => ProcessError::Masking(error.to_string()),
    })
}
