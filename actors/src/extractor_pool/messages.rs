//! Commands of the extractor_pool actor.

use super::error::ExtractError;
use super::limits::Limits;
use super::model::Document;

/// What the extractor pool does.
pub enum ExtractorPoolCommand {
    /// Extract the document model from `bytes`, within `limits` (time included). `alone`: in a worker
    /// process of its own, started for this document (a job retried after its worker died).
    Extract {
        bytes: Vec<u8>,
        limits: Limits,
        alone: bool,
    },
}

pub type ExtractorPoolReply = Result<Document, ExtractError>;
