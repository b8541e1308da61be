//! Commands of the dataset_exporter actor.

/// What the dataset_exporter accepts. Its commands arrive with the datasets issue; until then it only answers the runtime's pings
/// and takes part in supervision.
pub enum DatasetExporterCommand {}
