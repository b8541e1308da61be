//! The extractor_pool actor: the CPU pool that turns uploaded bytes into the document model.
//!
//! This actor only schedules, bounds and reports; the engine (`engine`, `formats`) is plain synchronous
//! code, tested and benchmarked on its own. Extraction runs, `actors.extractor_pool.pool_size` at a
//! time, either in worker processes ([`isolation`], the server's default: a document that crashes its
//! reader fails alone with `extraction_crashed`, one that overruns its time is killed) or on a
//! [`CpuPool`] of threads inside `catch_unwind` (the offline commands and the crate's own tests).

pub mod admission;
pub mod engine;
pub mod error;
pub mod formats;
pub mod isolation;
pub mod limits;
pub mod messages;
pub mod model;
pub mod protocol;
pub mod quality;
pub mod worker;

use std::time::Duration;

use actix::Context;

use crate::runtime::{Cell, CpuPool, Logic, Outcome, Request};
pub use engine::{extract as extract_document, sniff};
pub use error::ExtractError;
pub use formats::detect::Format;
pub use messages::{Extract, Extracted};

/// Where documents are read.
#[derive(Clone)]
enum Readers {
    Threads(CpuPool),
    Processes(isolation::WorkerPool),
}

/// State of the extractor_pool actor.
pub struct ExtractorPool {
    readers: Readers,
}

impl ExtractorPool {
    /// Reads on `pool_size` threads of the server's own process, each with the worker processes'
    /// reading stack.
    pub fn new(pool_size: usize) -> ExtractorPool {
        ExtractorPool {
            readers: Readers::Threads(CpuPool::with_stack(
                Self::NAME,
                pool_size,
                worker::STACK_BYTES,
            )),
        }
    }

    /// Reads in up to `pool_size` worker processes started with `command`.
    pub fn isolated(pool_size: usize, command: isolation::WorkerCommand) -> ExtractorPool {
        ExtractorPool {
            readers: Readers::Processes(isolation::WorkerPool::new(pool_size, command)),
        }
    }
}

impl Logic for ExtractorPool {
    const NAME: &'static str = "extractor_pool";

    fn started(&mut self, _ctx: &mut Context<Cell<Self>>) {
        if let Readers::Processes(workers) = &self.readers {
            workers.warm();
        }
    }
}

impl Request<ExtractorPool> for Extract {
    type Reply = Extracted;

    fn handle(
        self,
        extractor: &mut ExtractorPool,
        _ctx: &mut Context<Cell<ExtractorPool>>,
    ) -> Outcome<Extracted> {
        let readers = extractor.readers.clone();
        let Extract {
            bytes,
            limits,
            alone,
        } = self;
        Outcome::Pending(Box::pin(async move {
            let seconds = limits.max_seconds;
            let pool = match readers {
                Readers::Processes(workers) => return workers.extract(bytes, limits, alone).await,
                Readers::Threads(pool) => pool,
            };
            let job = pool.run(move || engine::extract(&bytes, &limits));
            match tokio::time::timeout(Duration::from_secs(seconds), job).await {
                Ok(Ok(result)) => result,
                Ok(Err(error)) => Err(ExtractError::EngineFailure(error.to_string())),
                // A thread cannot be stopped: it finishes in the background and its slot frees
                // itself when it does (worker processes are killed instead).
                Err(_) => Err(ExtractError::LimitExceeded(format!(
                    "took longer than {seconds} s"
                ))),
            }
        }))
    }
}
