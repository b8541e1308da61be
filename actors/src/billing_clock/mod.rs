//! The billing_clock actor: opens and closes billing periods and runs the daily retention cleanup.
//!
//! This actor only schedules, bounds and reports; the engine it runs is plain synchronous code in this
//! folder, tested and benchmarked on its own. It must never block its arbiter thread.

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
