//! The scheduler actor: fires connector schedules (cron, UTC) once across the fleet.
//!
//! This actor only schedules, bounds and reports; the engine it runs is plain synchronous code in this
//! folder, tested and benchmarked on its own. It must never block its arbiter thread.

pub mod messages;

use actix::Context;

use crate::runtime::{Cell, Logic, Outcome};
pub use messages::SchedulerCommand;

/// State of the scheduler actor.
#[derive(Default)]
pub struct Scheduler;

impl Logic for Scheduler {
    const NAME: &'static str = "scheduler";
    type Command = SchedulerCommand;
    type Reply = ();

    fn handle(&mut self, command: SchedulerCommand, _ctx: &mut Context<Cell<Self>>) -> Outcome<()> {
        match command {}
    }
}
