//! The extractor_pool actor: the CPU pool that turns uploaded bytes into the document model.
//!
//! This actor only schedules, bounds and reports; the engine (`engine`, `formats`) is plain synchronous
//! code, tested and benchmarked on its own. Extraction runs, `actors.extractor_pool.pool_size` at a
//! time, either in worker processes ([`isolation`], the server's default: a document that crashes its
//! reader fails alone with `extraction_crashed`, one that overruns its time is killed) or on a
//! [`CpuPool`] of threads inside `catch_unwind` (the offline commands and the crate's own tests).
//! Who reads next is decided by [`shares`]: previews keep slots of their own, and a tenant never
//! holds more than its share while others wait.

mod admission;
mod engine;
mod error;
mod formats;
mod isolation;
mod limits;
mod messages;
mod protocol;
mod quality;
mod shares;
mod worker;

use std::time::Duration;

use actix::Context;

use crate::runtime::{Cell, CpuPool, Logic, Outcome, Request};
pub use admission::{admit, Refusal};
pub use engine::{extract as extract_document, sniff};
pub use error::ExtractError;
pub(crate) use formats::compound::{u16_at, Compound};
#[cfg(feature = "test-support")]
pub use formats::detect::compound_file;
pub use formats::detect::Format;
pub(crate) use formats::detect::{csv_delimiter, starts_as_sql};
pub(crate) use formats::doc_text::stored as word_text;
pub(crate) use formats::eml::{mbox_messages, part_text as mail_part_text};
pub(crate) use formats::encoding::{
    decode as decode_text, decode_declared as decode_declared_text,
};
pub(crate) use formats::html::declared_charset as declared_html_charset;
pub(crate) use formats::msg as outlook;
pub(crate) use formats::ocr::{pnm, tiff_pixel_pages, LANGUAGES as OCR_LANGUAGES};
pub(crate) use formats::pdf::{built_in_type1_encodings, usable_text};
pub(crate) use formats::ppt as slides;
pub(crate) use formats::raster::{GreyPage, Rasteriser, RenderCache};
pub(crate) use formats::rtf::extract as read_rtf;
pub(crate) use formats::xml::{
    declared_encoding as xml_declared_encoding, invoice_field, key_of as xml_key_of,
};
pub use isolation::WorkerCommand;
pub use limits::Limits;
pub use messages::{Extract, Extracted, Lane};
pub use shares::Shares;
pub use worker::{serve as serve_worker, WorkerOptions, STACK_BYTES};

/// Where documents are read.
#[derive(Clone)]
enum Readers {
    Threads(CpuPool),
    Processes(isolation::WorkerPool),
}

/// State of the extractor_pool actor.
pub struct ExtractorPool {
    readers: Readers,
    shares: Shares,
}

impl ExtractorPool {
    /// Reads on `pool_size` threads of the server's own process, each with the worker processes'
    /// reading stack; every thread serves jobs and previews alike.
    pub fn new(pool_size: usize) -> ExtractorPool {
        let shares = Shares::new(pool_size, 0);
        ExtractorPool {
            readers: Readers::Threads(CpuPool::with_stack(
                Self::NAME,
                shares.slots(),
                worker::STACK_BYTES,
            )),
            shares,
        }
    }

    /// Reads in worker processes started with `command`: up to `pool_size` for jobs and previews,
    /// and `command.preview_workers` more that only previews use.
    pub fn isolated(pool_size: usize, command: isolation::WorkerCommand) -> ExtractorPool {
        let shares = Shares::new(pool_size, command.preview_workers);
        ExtractorPool {
            readers: Readers::Processes(isolation::WorkerPool::new(shares.slots(), command)),
            shares,
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
        let shares = extractor.shares.clone();
        let Extract {
            bytes,
            limits,
            lane,
            mut caller,
        } = self;
        Outcome::Pending(Box::pin(async move {
            let seconds = limits.max_seconds;
            let _slot = tokio::select! {
                slot = shares.slot(lane.claim()) => slot,
                () = messages::caller_gone(&mut caller) => return Err(ExtractError::EngineFailure(
                    "the caller stopped waiting before a reader was free".to_string(),
                )),
            };
            let pool = match readers {
                Readers::Processes(workers) => {
                    return workers.extract(bytes, limits, lane.alone(), caller).await
                }
                Readers::Threads(pool) => pool,
            };
            let job = pool.run(move || engine::extract(&bytes, &limits));
            match tokio::time::timeout(Duration::from_secs(seconds), job).await {
                Ok(Ok(result)) => result,
                Ok(Err(error)) => Err(ExtractError::EngineFailure(error.to_string())),
                // A thread cannot be stopped: it finishes in the background and its slot frees
                // itself when it does (worker processes are killed instead).
                Err(_) => Err(ExtractError::TimedOut(format!(
                    "took longer than {seconds} s"
                ))),
            }
        }))
    }
}
