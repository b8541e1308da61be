//! Commands of the scheduler actor.

/// What the scheduler accepts. Its commands arrive with the connectors issue; until then it only answers the runtime's pings
/// and takes part in supervision.
pub enum SchedulerCommand {}
