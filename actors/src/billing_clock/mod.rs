//! The billing_clock actor: opens and closes billing periods. Its duties arrive with plans and
//! billing periods; until then it only answers the runtime's pings and takes part in supervision.
//! (Periodic maintenance is the scheduler's.)

use crate::runtime::Logic;

/// State of the billing_clock actor.
#[derive(Default)]
pub struct BillingClock;

impl Logic for BillingClock {
    const NAME: &'static str = "billing_clock";
}
