//! Commands of the job_router actor.

/// What the job_router accepts. Its commands arrive with the processing issue; until then it only answers the runtime's pings
/// and takes part in supervision.
pub enum JobRouterCommand {}
