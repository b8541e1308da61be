//! The billing_clock actor: opens and closes billing periods. Its duties arrive with plans and
//! billing periods; until then it only answers the runtime's pings and takes part in supervision.
//! (Periodic maintenance is the scheduler's.)

pub mod messages;

use actix::Context;

use crate::runtime::{Cell, Logic, Outcome};
pub use messages::BillingClockCommand;

/// State of the billing_clock actor.
#[derive(Default)]
pub struct BillingClock;

impl Logic for BillingClock {
    const NAME: &'static str = "billing_clock";
    type Command = BillingClockCommand;
    type Reply = ();

    fn handle(
        &mut self,
        command: BillingClockCommand,
        _ctx: &mut Context<Cell<Self>>,
    ) -> Outcome<()> {
        match command {}
    }
}
