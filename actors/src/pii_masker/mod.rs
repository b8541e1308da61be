//! The pii_masker actor: the CPU pool that finds and masks personal data.
//!
//! This actor only schedules, bounds and reports; the engine it runs (`engine`, with the validators in
//! `detectors`) is plain synchronous code, tested and benchmarked on its own. Engine calls run on a
//! [`CpuPool`] of `actors.pii_masker.pool_size` threads; the actor's thread never does the work.

mod detectors;
mod document;
mod engine;
mod messages;
mod operators;
mod redact;
mod surrogate;

use actix::Context;

use crate::runtime::{Cell, CpuPool, Logic, Outcome, Request};
pub use detectors::phone::{
    check_regions as check_phone_regions, configure_regions as configure_phone_regions,
    DEFAULT_REGIONS as DEFAULT_PHONE_REGIONS,
};
pub use document::{mask_document, MaskedDocument};
pub use engine::checksum::{checksum_holds, compact_written, has_checksum};
pub use engine::{
    detect, mask as mask_text, mask_file_name, mask_known, summarize, summarize_known, Finding,
    Known, LeakError, Masked, PiiType, Policy, Replacer, TypeSet,
};
pub use messages::{
    CheckRedacted, Detect, Mask, MaskDocument, MaskError, MaskedDocumentReply, Redact, RedactReply,
};
pub use operators::{fold, normal_form, Journal, Operator, Operators, Pseudonym};
pub use redact::{check as check_redacted, redact_document, RedactedDocument};
pub use surrogate::{has_surrogate, surrogate, SurrogateKey};
// Test support (generators and planted corpora, and the byte classes a bench counts words with):
// for tests and benches only, through the crate's `test-support` feature.
#[cfg(feature = "test-support")]
pub use engine::text::CLASS;
#[cfg(feature = "test-support")]
pub use engine::{planted, synthetic};
#[cfg(feature = "test-support")]
pub use surrogate::stdnum;

/// State of the pii_masker actor.
pub struct PiiMasker {
    pool: CpuPool,
}

impl PiiMasker {
    pub fn new(pool_size: usize) -> PiiMasker {
        // The word lists and automata load on a thread of their own, not in the first request.
        let _ = std::thread::Builder::new()
            .name("pii-warm".to_string())
            .spawn(engine::warm);
        PiiMasker {
            pool: CpuPool::new(Self::NAME, pool_size),
        }
    }
}

impl Logic for PiiMasker {
    const NAME: &'static str = "pii_masker";
}

impl PiiMasker {
    /// Runs `work` on the masker's pool; the leak it reports, or the pool's failure, becomes a
    /// [`MaskError`].
    fn on_pool<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> Result<T, LeakError> + Send + 'static,
    ) -> Outcome<Result<T, MaskError>> {
        let pool = self.pool.clone();
        Outcome::Pending(Box::pin(async move {
            match pool.run(work).await {
                Ok(Ok(value)) => Ok(value),
                Ok(Err(leak)) => Err(MaskError::Leak(leak)),
                Err(error) => Err(MaskError::Engine(error)),
            }
        }))
    }
}

impl Request<PiiMasker> for Mask {
    type Reply = Result<Masked, MaskError>;

    fn handle(
        self,
        masker: &mut PiiMasker,
        _: &mut Context<Cell<PiiMasker>>,
    ) -> Outcome<Self::Reply> {
        masker.on_pool(move || engine::mask(&self.text, &self.policy))
    }
}

impl Request<PiiMasker> for Detect {
    type Reply = Result<Vec<Finding>, MaskError>;

    fn handle(
        self,
        masker: &mut PiiMasker,
        _: &mut Context<Cell<PiiMasker>>,
    ) -> Outcome<Self::Reply> {
        masker.on_pool(move || Ok(engine::detect(&self.text, &self.policy)))
    }
}

impl Request<PiiMasker> for MaskDocument {
    type Reply = MaskedDocumentReply;

    fn handle(
        self,
        masker: &mut PiiMasker,
        _: &mut Context<Cell<PiiMasker>>,
    ) -> Outcome<Self::Reply> {
        let MaskDocument {
            document,
            policy,
            mask,
        } = self;
        masker.on_pool(move || {
            let size = document.text.len();
            let result = mask_or_detect(document, &policy, mask);
            // What the masking of a large document freed is given back before its result is written.
            crate::runtime::release_memory_after(size);
            result
        })
    }
}

impl Request<PiiMasker> for Redact {
    type Reply = RedactReply;

    fn handle(
        self,
        masker: &mut PiiMasker,
        _: &mut Context<Cell<PiiMasker>>,
    ) -> Outcome<Self::Reply> {
        masker.on_pool(move || {
            Ok(redact::redact_document(
                &self.bytes,
                self.format,
                &self.document,
                &self.policy,
                &self.limits,
            )
            .map(Box::new))
        })
    }
}

impl Request<PiiMasker> for CheckRedacted {
    type Reply = RedactReply;

    fn handle(
        self,
        masker: &mut PiiMasker,
        _: &mut Context<Cell<PiiMasker>>,
    ) -> Outcome<Self::Reply> {
        masker.on_pool(move || {
            Ok(redact::check(&self.output, &self.policy, &self.redacted).map(|()| self.redacted))
        })
    }
}

/// The document masked, or with its findings only.
fn mask_or_detect(
    document: Box<crate::model::Document>,
    policy: &engine::Policy,
    mask: bool,
) -> Result<Box<document::MaskedDocument>, LeakError> {
    if mask {
        return document::mask_document(&document, policy).map(Box::new);
    }
    let (findings, summary) = document::detect_document(&document, policy);
    let normal_forms = document::normal_forms(&document.full_text(), &findings);
    Ok(Box::new(document::MaskedDocument {
        document: *document,
        findings,
        summary,
        normal_forms,
    }))
}
