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
