//! The dataset_exporter actor: builds datasets from executions and writes the export formats.
//!
//! This actor only schedules, bounds and reports; the engine it runs is plain synchronous code in this
//! folder, tested and benchmarked on its own. It must never block its arbiter thread.

pub mod document_csv;
pub mod messages;

use actix::Context;

use crate::runtime::{Cell, Logic, Outcome};
pub use messages::DatasetExporterCommand;

/// State of the dataset_exporter actor.
#[derive(Default)]
pub struct DatasetExporter;

impl Logic for DatasetExporter {
    const NAME: &'static str = "dataset_exporter";
    type Command = DatasetExporterCommand;
    type Reply = ();

    fn handle(
        &mut self,
        command: DatasetExporterCommand,
        _ctx: &mut Context<Cell<Self>>,
    ) -> Outcome<()> {
        match command {}
    }
}
