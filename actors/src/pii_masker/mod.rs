//! The pii_masker actor: the CPU pool that finds and masks personal data.
//!
//! This actor only schedules, bounds and reports; the engine it runs (`engine`, with the validators in
//! `detectors`) is plain synchronous code, tested and benchmarked on its own. It must never block its
//! arbiter thread.

pub mod detectors;
pub mod engine;
pub mod messages;

use actix::Context;

use crate::runtime::{Cell, Logic, Outcome};
pub use messages::PiiMaskerCommand;

/// State of the pii_masker actor.
#[derive(Default)]
pub struct PiiMasker;

impl Logic for PiiMasker {
    const NAME: &'static str = "pii_masker";
    type Command = PiiMaskerCommand;
    type Reply = ();

    fn handle(&mut self, command: PiiMaskerCommand, _ctx: &mut Context<Cell<Self>>) -> Outcome<()> {
        match command {}
    }
}
