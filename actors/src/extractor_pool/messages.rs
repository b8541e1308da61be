//! Commands of the extractor_pool actor.

/// What the extractor_pool accepts. Its commands arrive with the extraction issue; until then it only answers the runtime's pings
/// and takes part in supervision.
pub enum ExtractorPoolCommand {}
