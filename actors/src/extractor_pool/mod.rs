//! The extractor_pool actor: the CPU pool that turns uploaded bytes into the document model.
//!
//! This actor only schedules, bounds and reports; the engine it runs is plain synchronous code in this
//! folder, tested and benchmarked on its own. It must never block its arbiter thread.

pub mod engine;
pub mod error;
pub mod formats;
pub mod limits;
pub mod messages;
pub mod model;

use actix::Context;

use crate::runtime::{Cell, Logic, Outcome};
pub use messages::ExtractorPoolCommand;

/// State of the extractor_pool actor.
#[derive(Default)]
pub struct ExtractorPool;

impl Logic for ExtractorPool {
    const NAME: &'static str = "extractor_pool";
    type Command = ExtractorPoolCommand;
    type Reply = ();

    fn handle(
        &mut self,
        command: ExtractorPoolCommand,
        _ctx: &mut Context<Cell<Self>>,
    ) -> Outcome<()> {
        match command {}
    }
}
