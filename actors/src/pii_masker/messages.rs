//! Commands of the pii_masker actor.

/// What the pii_masker accepts. Its commands arrive with the PII engine issue; until then it only answers the runtime's pings
/// and takes part in supervision.
pub enum PiiMaskerCommand {}
