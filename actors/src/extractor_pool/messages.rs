//! Commands of the extractor_pool actor.

use super::error::ExtractError;
use super::limits::Limits;
use super::model::Document;

/// What the extractor pool does.
pub enum ExtractorPoolCommand {
    /// Extract the document model from `bytes`, within `limits` (time included).
    Extract { bytes: Vec<u8>, limits: Limits },
}

pub type ExtractorPoolReply = Result<Document, ExtractError>;
