//! The scheduler actor: runs the service's periodic work. Today that is maintenance (expired export
//! files deleted at start and then every `datasets.cleanup_interval_seconds`); connector schedules
//! (cron, UTC, once across the fleet) join it with the connectors.
//!
//! Every task it runs is idempotent, so several processes may run the same one; the work itself is
//! spawned, never run on the arbiter thread.

use std::time::Duration;

use actix::{AsyncContext, Context};

use crate::dataset_exporter::{cleanup_expired_exports, ExportServices};
use crate::runtime::{Cell, Logic};

/// State of the scheduler actor: the services its tasks need (none in the crate's unit tests).
#[derive(Default)]
pub struct Scheduler {
    exports: Option<ExportServices>,
}

impl Scheduler {
    pub fn new(exports: Option<ExportServices>) -> Scheduler {
        Scheduler { exports }
    }
}

/// Deletes the export files past their plan's retention.
async fn cleanup_exports(services: ExportServices) {
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

impl Logic for Scheduler {
    const NAME: &'static str = "scheduler";

    fn started(&mut self, ctx: &mut Context<Cell<Self>>) {
        let Some(services) = self.exports.clone() else {
            return;
        };
        actix::spawn(cleanup_exports(services.clone()));
        let every = Duration::from_secs(services.settings.cleanup_interval_seconds);
        ctx.run_interval(every, move |_, _| {
            actix::spawn(cleanup_exports(services.clone()));
        });
    }
}
