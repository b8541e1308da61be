//! Requests of the pii_masker actor, each with its reply.

use super::document::MaskedDocument;
use super::engine::{LeakError, Policy};
use crate::model::Document;
use crate::runtime::PoolError;

/// Detect and mask personal data in `text` (the leak re-scan included). Replies
/// `Result<Masked, MaskError>`.
pub struct Mask {
    pub text: String,
    pub policy: Policy,
}

/// Detect without masking. Replies `Result<Vec<Finding>, MaskError>`.
pub struct Detect {
    pub text: String,
    pub policy: Policy,
}

/// Mask every part of an extracted document (`mask = false`: only report the findings). Replies
/// `Result<Box<MaskedDocument>, MaskError>`.
pub struct MaskDocument {
    pub document: Box<Document>,
    pub policy: Policy,
    pub mask: bool,
}

/// Rewrite a document's bytes in their own format, masked (see [`crate::redaction`]). Replies
/// `Result<Result<Box<RedactedDocument>, RedactError>, MaskError>`.
pub struct Redact {
    pub bytes: bytes::Bytes,
    pub format: crate::extractor_pool::Format,
    /// The document as its reader read it.
    pub document: Box<Document>,
    pub policy: Policy,
    pub limits: crate::extractor_pool::Limits,
}

/// Check a redacted file as its reader read it back. Replies the redaction when it holds.
pub struct CheckRedacted {
    pub output: Box<Document>,
    pub policy: Policy,
    pub redacted: Box<super::redact::RedactedDocument>,
}

/// What [`Redact`] and [`CheckRedacted`] answer.
pub type RedactReply =
    Result<Result<Box<super::redact::RedactedDocument>, crate::redaction::RedactError>, MaskError>;

/// Why masking did not produce a result.
#[derive(Clone, Debug, thiserror::Error)]
pub enum MaskError {
    #[error(transparent)]
    Leak(#[from] LeakError),
    #[error(transparent)]
    Engine(#[from] PoolError),
}

/// What [`MaskDocument`] answers.
pub type MaskedDocumentReply = Result<Box<MaskedDocument>, MaskError>;
