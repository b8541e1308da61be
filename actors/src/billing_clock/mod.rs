//! The billing_clock actor: opens and closes billing periods and runs the daily retention cleanup.
//!
//! This actor only schedules, bounds and reports; the engine it runs is plain synchronous code in this
//! folder, tested and benchmarked on its own. It must never block its arbiter thread.

pub mod messages;

use std::time::Duration;

use actix::{AsyncContext, Context};

use crate::dataset_exporter::{cleanup_expired_exports, ExportServices};
use crate::runtime::{Cell, Logic, Outcome};
pub use messages::BillingClockCommand;

/// State of the billing_clock actor. With storage it deletes expired export files at start and then
/// every `datasets.cleanup_interval_seconds` (the cleanup is idempotent, so several processes may run
/// it).
#[derive(Default)]
pub struct BillingClock {
    exports: Option<ExportServices>,
}

impl BillingClock {
    pub fn new(exports: Option<ExportServices>) -> BillingClock {
        BillingClock { exports }
    }
}

async fn cleanup(services: ExportServices) {
    match cleanup_expired_exports(&services.store, &services.blobs, services.clock.now()).await {
        Ok(report) if report.deleted > 0 => tracing::info!(
            deleted = report.deleted,
            bytes = report.bytes,
            "expired export files deleted"
        ),
        Ok(_) => {}
        Err(error) => tracing::warn!(%error, "export cleanup failed; retrying at the next run"),
    }
}

impl Logic for BillingClock {
    const NAME: &'static str = "billing_clock";
    type Command = BillingClockCommand;
    type Reply = ();

    fn started(&mut self, ctx: &mut Context<Cell<Self>>) {
        let Some(services) = self.exports.clone() else {
            return;
        };
        actix::spawn(cleanup(services.clone()));
        let every = Duration::from_secs(services.settings.cleanup_interval_seconds);
        ctx.run_interval(every, move |_, _| {
            actix::spawn(cleanup(services.clone()));
        });
    }

    fn handle(
        &mut self,
        command: BillingClockCommand,
        _ctx: &mut Context<Cell<Self>>,
    ) -> Outcome<()> {
        match command {}
    }
}
