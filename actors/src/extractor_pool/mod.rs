//! The extractor_pool actor: the CPU pool that turns uploaded bytes into the document model.
//!
//! This actor only schedules, bounds and reports; the engine (`engine`, `formats`) is plain synchronous
//! code, tested and benchmarked on its own. Extraction runs on a [`CpuPool`] of
//! `actors.extractor_pool.pool_size` threads, inside `catch_unwind`, with the per-document time limit.

pub mod engine;
pub mod error;
pub mod formats;
pub mod limits;
pub mod messages;
pub mod model;
pub mod quality;

use std::time::Duration;

use actix::Context;

use crate::runtime::{Cell, CpuPool, Logic, Outcome};
use error::ExtractError;
pub use messages::{ExtractorPoolCommand, ExtractorPoolReply};

/// State of the extractor_pool actor.
pub struct ExtractorPool {
    pool: CpuPool,
}

impl ExtractorPool {
    pub fn new(pool_size: usize) -> ExtractorPool {
        ExtractorPool {
            pool: CpuPool::new(Self::NAME, pool_size),
        }
    }
}

impl Logic for ExtractorPool {
    const NAME: &'static str = "extractor_pool";
    type Command = ExtractorPoolCommand;
    type Reply = ExtractorPoolReply;

    fn handle(
        &mut self,
        command: ExtractorPoolCommand,
        _ctx: &mut Context<Cell<Self>>,
    ) -> Outcome<ExtractorPoolReply> {
        let pool = self.pool.clone();
        match command {
            ExtractorPoolCommand::Extract { bytes, limits } => {
                Outcome::Pending(Box::pin(async move {
                    let seconds = limits.max_seconds;
                    let job = pool.run(move || engine::extract(&bytes, &limits));
                    match tokio::time::timeout(Duration::from_secs(seconds), job).await {
                        Ok(Ok(result)) => result,
                        Ok(Err(error)) => Err(ExtractError::EngineFailure(error.to_string())),
                        // The thread finishes in the background; its slot frees itself when it does.
                        Err(_) => Err(ExtractError::LimitExceeded(format!(
                            "took longer than {seconds} s"
                        ))),
                    }
                }))
            }
        }
    }
}
