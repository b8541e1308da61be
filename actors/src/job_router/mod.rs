//! The job_router actor: per-tenant fair queues over the jobs table, leases and retries.
//!
//! This actor only schedules, bounds and reports; the engine it runs is plain synchronous code in this
//! folder, tested and benchmarked on its own. It must never block its arbiter thread.

pub mod messages;

use actix::Context;

use crate::runtime::{Cell, Logic, Outcome};
pub use messages::JobRouterCommand;

/// State of the job_router actor.
#[derive(Default)]
pub struct JobRouter;

impl Logic for JobRouter {
    const NAME: &'static str = "job_router";
    type Command = JobRouterCommand;
    type Reply = ();

    fn handle(&mut self, command: JobRouterCommand, _ctx: &mut Context<Cell<Self>>) -> Outcome<()> {
        match command {}
    }
}
