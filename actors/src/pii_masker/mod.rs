//! The pii_masker actor: the CPU pool that finds and masks personal data.
//!
//! This actor only schedules, bounds and reports; the engine it runs (`engine`, with the validators in
//! `detectors`) is plain synchronous code, tested and benchmarked on its own. Engine calls run on a
//! [`CpuPool`] of `actors.pii_masker.pool_size` threads; the actor's thread never does the work.

pub mod detectors;
pub mod document;
pub mod engine;
pub mod messages;

use actix::Context;

use crate::runtime::{Cell, CpuPool, Logic, Outcome};
pub use messages::{MaskError, PiiMaskerCommand, PiiMaskerReply};

/// State of the pii_masker actor.
pub struct PiiMasker {
    pool: CpuPool,
}

impl PiiMasker {
    pub fn new(pool_size: usize) -> PiiMasker {
        PiiMasker {
            pool: CpuPool::new(Self::NAME, pool_size),
        }
    }
}

impl Logic for PiiMasker {
    const NAME: &'static str = "pii_masker";
    type Command = PiiMaskerCommand;
    type Reply = PiiMaskerReply;

    fn handle(
        &mut self,
        command: PiiMaskerCommand,
        _ctx: &mut Context<Cell<Self>>,
    ) -> Outcome<PiiMaskerReply> {
        let pool = self.pool.clone();
        match command {
            PiiMaskerCommand::Mask { text, policy } => Outcome::Pending(Box::pin(async move {
                let result = pool.run(move || engine::mask(&text, &policy)).await;
                PiiMaskerReply::Masked(match result {
                    Ok(Ok(masked)) => Ok(masked),
                    Ok(Err(leak)) => Err(MaskError::Leak(leak)),
                    Err(error) => Err(MaskError::Engine(error)),
                })
            })),
            PiiMaskerCommand::MaskDocument {
                document,
                policy,
                mask,
            } => Outcome::Pending(Box::pin(async move {
                let result = pool
                    .run(move || {
                        if mask {
                            document::mask_document(&document, &policy).map(Box::new)
                        } else {
                            let (findings, summary) = document::detect_document(&document, &policy);
                            Ok(Box::new(document::MaskedDocument {
                                document: *document,
                                findings,
                                summary,
                            }))
                        }
                    })
                    .await;
                PiiMaskerReply::Document(match result {
                    Ok(Ok(masked)) => Ok(masked),
                    Ok(Err(leak)) => Err(MaskError::Leak(leak)),
                    Err(error) => Err(MaskError::Engine(error)),
                })
            })),
            PiiMaskerCommand::Detect { text, policy } => Outcome::Pending(Box::pin(async move {
                let result = pool.run(move || engine::detect(&text, &policy)).await;
                PiiMaskerReply::Findings(result.map_err(MaskError::Engine))
            })),
        }
    }
}
