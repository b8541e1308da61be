//! Commands of the pii_masker actor.

use super::document::MaskedDocument;
use super::engine::{Finding, LeakError, Masked, Policy};
use crate::extractor_pool::model::Document;
use crate::runtime::PoolError;

/// What the pii_masker does.
pub enum PiiMaskerCommand {
    /// Detect and mask personal data in `text` (the leak re-scan included).
    Mask { text: String, policy: Policy },
    /// Detect without masking.
    Detect { text: String, policy: Policy },
    /// Mask every part of an extracted document (`mask = false`: only report the findings).
    MaskDocument {
        document: Box<Document>,
        policy: Policy,
        mask: bool,
    },
}

/// Why masking did not produce a result.
#[derive(Clone, Debug, thiserror::Error)]
pub enum MaskError {
    #[error(transparent)]
    Leak(#[from] LeakError),
    #[error(transparent)]
    Engine(#[from] PoolError),
}

pub enum PiiMaskerReply {
    Masked(Result<Masked, MaskError>),
    Findings(Result<Vec<Finding>, MaskError>),
    Document(Result<Box<MaskedDocument>, MaskError>),
}
