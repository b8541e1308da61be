//! Commands of the billing_clock actor.

/// What the billing_clock accepts. Its commands arrive with the billing issue; until then it only answers the runtime's pings
/// and takes part in supervision.
pub enum BillingClockCommand {}
