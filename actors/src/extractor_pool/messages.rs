//! The request of the extractor_pool actor.

use super::error::ExtractError;
use super::limits::Limits;
use super::model::Document;

/// Extract the document model from `bytes`, within `limits` (time included). `alone`: in a worker
/// process of its own, started for this document (a job retried after its worker died).
pub struct Extract {
    pub bytes: Vec<u8>,
    pub limits: Limits,
    pub alone: bool,
}

/// What [`Extract`] answers.
pub type Extracted = Result<Document, ExtractError>;
