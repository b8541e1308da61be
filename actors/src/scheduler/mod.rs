//! The scheduler actor: the one owner of the service's timed duties, on one timer.
//!
//! | duty | fires | looks every | at start |
//! |---|---|---|---|
//! | `billing_cycle` | `billing.cycle_cron` | `billing.poll_interval_seconds` | (its first look) |
//! | `connector_schedules` | every `connectors.schedule_poll_seconds` | the same | yes |
//! | `export_cleanup` | every `datasets.cleanup_interval_seconds` | the same | yes |
//! | `orphan_sweep` | daily | daily | yes, and once more a grace later |
//! | `retention` (closed tenants purged, then originals and results past their retention) | every `jobs.retention_interval_seconds` | the same | (its first look) |
//!
//! Every firing is claimed once across the processes sharing the database, in one way
//! ([`Store::claim_firing`](crate::store::Store::claim_firing): a duty's mark in `clock_ticks`, a
//! connector schedule's on its row), and only the latest missed firing runs. A process looks at a
//! duty once per period from its start, so the first process to look within a period runs it. At its
//! start a process runs a duty that has runs at start whether or not it wins the claim: it cleans what
//! a stopped process left behind. A duty's looks and runs
//! never overlap, and they are spawned, never run on the actor's thread. Every duty's work is
//! idempotent, so the API routes that run the same work (`POST /system/billing/cycle`,
//! `POST /admin/storage/cleanup`) may run beside it.
//!
//! Any new periodic work becomes a [`Duty`] in [`duties`].

mod duty;
mod schedules;

use std::sync::Arc;
use std::time::{Duration, Instant};

use actix::{AsyncContext, Context};

use duty::{work, Cadence, Duty, FirstLook, Running, Trigger};

use crate::clock::Clock;
use crate::connector::ConnectorServices;
use crate::cron::Schedule;
use crate::dataset_exporter::{cleanup_expired_exports, ExportServices};
use crate::metric_names as names;
use crate::runtime::{Cell, Logic};
use crate::settings::PlansSettings;
use crate::store::Store;

/// How often the scheduler's one timer wakes to see which duty is due for a look (no I/O unless one
/// is).
const TICK: Duration = Duration::from_millis(250);

/// What the billing cycle needs.
#[derive(Clone)]
pub struct BillingServices {
    pub store: Store,
    pub clock: Clock,
    pub plans: PlansSettings,
    pub cycle: Schedule,
    /// How often the scheduler looks whether a firing is due.
    pub poll_interval: Duration,
}

/// Everything the duties need when the service runs for real.
#[derive(Clone)]
pub struct SchedulerServices {
    pub billing: BillingServices,
    pub exports: ExportServices,
    pub connectors: ConnectorServices,
    /// Age from which an upload original no document refers to is swept (`jobs.orphan_grace_seconds`).
    pub orphan_grace: Duration,
    /// How often the destruction run looks for originals and results past their retention
    /// (`jobs.retention_interval_seconds`).
    pub retention_every: Duration,
    /// Signs the receipts of tenant closures.
    pub receipts: Arc<crate::receipts::ReceiptSigner>,
}

/// State of the scheduler actor: its duties (none in the crate's unit tests).
#[derive(Default)]
pub struct Scheduler {
    services: Option<SchedulerServices>,
    duties: Arc<Vec<Running>>,
}

impl Scheduler {
    pub fn new(services: Option<SchedulerServices>) -> Scheduler {
        let duties = services
            .as_ref()
            .map(|services| duties(services).into_iter().map(Running::new).collect())
            .unwrap_or_default();
        let duties = Arc::new(duties);
        Scheduler { services, duties }
    }
}

/// The service's timed duties.
fn duties(services: &SchedulerServices) -> Vec<Duty> {
    let billing = services.billing.clone();
    let exports = services.exports.clone();
    let connectors = services.connectors.clone();
    let sweeping = services.exports.clone();
    let retaining = (services.exports.clone(), services.receipts.clone());
    let retention_every = services.retention_every.max(Duration::from_secs(1));
    let grace = services.orphan_grace;
    let cleanup_every = Duration::from_secs(services.exports.settings.cleanup_interval_seconds);
    let poll = Duration::from_secs(services.connectors.settings.schedule_poll_seconds);
    let daily = Duration::from_secs(86_400);
    vec![
        Duty {
            name: "billing_cycle",
            cadence: Cadence::Cron(services.billing.cycle.clone()),
            look_every: services.billing.poll_interval,
            at_start: Vec::new(),
            first_look: FirstLook::Record,
            work: work(move |now| run_billing_cycle(billing.clone(), now)),
        },
        Duty {
            name: "connector_schedules",
            cadence: Cadence::Every(poll),
            look_every: poll,
            // A stopped process's syncs are ended, and the firings missed while none ran are run.
            at_start: vec![Duration::ZERO],
            first_look: FirstLook::Run,
            work: work(move |_| {
                let connectors = connectors.clone();
                async move {
                    schedules::end_interrupted_syncs(&connectors).await;
                    schedules::run_due_schedules(&connectors).await;
                }
            }),
        },
        Duty {
            name: "export_cleanup",
            cadence: Cadence::Every(cleanup_every),
            look_every: cleanup_every,
            at_start: vec![Duration::ZERO],
            first_look: FirstLook::Run,
            work: work(move |now| cleanup_exports(exports.clone(), now)),
        },
        Duty {
            name: "orphan_sweep",
            cadence: Cadence::Every(daily),
            look_every: daily,
            // What a killed process left, and once more when the uploads in flight at start are past
            // their grace.
            at_start: vec![Duration::ZERO, grace],
            first_look: FirstLook::Run,
            work: work(move |now| sweep_orphans(sweeping.clone(), grace, now)),
        },
        Duty {
            name: "retention",
            cadence: Cadence::Every(retention_every),
            look_every: retention_every,
            at_start: Vec::new(),
            first_look: FirstLook::Run,
            work: work(move |now| destroy_due(retaining.clone(), now)),
        },
    ]
}

/// Purges the tenants whose closure is due, then destroys the originals and results past their
/// tenants' retention, and logs it.
async fn destroy_due(
    (services, receipts): (ExportServices, Arc<crate::receipts::ReceiptSigner>),
    now: chrono::DateTime<chrono::Utc>,
) {
    let closures = crate::subjects::purge_due(&services.store, &services.blobs, &receipts, now);
    if let Err(error) = closures.await {
        tracing::warn!(%error, "purging closed tenants failed; retrying at the next run");
    }
    let run =
        crate::retention::run_destruction(&services.store, &services.blobs, &services.plans, now);
    if let Err(error) = run.await {
        tracing::warn!(%error, "the destruction run failed; retrying at the next run");
    }
}

/// Closes every open period past its end and opens the next.
async fn run_billing_cycle(services: BillingServices, now: chrono::DateTime<chrono::Utc>) {
    match services.store.run_billing_cycle(&services.plans, now).await {
        Ok(report) => {
            metrics::counter!(names::BILLING_CYCLE_RUNS_TOTAL, "trigger" => "clock").increment(1);
            tracing::info!(
                closed = report.closed.len(),
                opened = report.opened.len(),
                "billing cycle"
            );
        }
        // The firing is claimed; the next one (or POST /system/billing/cycle) finishes the work.
        Err(error) => tracing::error!(%error, "the billing cycle failed"),
    }
}

/// Deletes the export files past their plan's retention.
async fn cleanup_exports(services: ExportServices, now: chrono::DateTime<chrono::Utc>) {
    match cleanup_expired_exports(&services.store, &services.blobs, now).await {
        Ok(report) if report.deleted > 0 => tracing::info!(
            deleted = report.deleted,
            bytes = report.bytes,
            "expired export files deleted"
        ),
        Ok(_) => {}
        Err(error) => tracing::warn!(%error, "export cleanup failed; retrying at the next run"),
    }
}

/// Deletes the upload originals older than the grace that no document refers to.
async fn sweep_orphans(
    services: ExportServices,
    grace: Duration,
    now: chrono::DateTime<chrono::Utc>,
) {
    let before =
        now - chrono::Duration::seconds(i64::try_from(grace.as_secs()).unwrap_or(i64::MAX));
    if let Err(error) =
        crate::blob::sweep_orphan_uploads(&services.store, &services.blobs, before).await
    {
        tracing::warn!(%error, "sweeping orphaned originals failed; retrying at the next sweep");
    }
}

impl Logic for Scheduler {
    const NAME: &'static str = "scheduler";

    fn started(&mut self, ctx: &mut Context<Cell<Self>>) {
        let Some(services) = self.services.clone() else {
            return;
        };
        let (store, clock) = (services.billing.store, services.billing.clock);
        for (index, running) in self.duties.iter().enumerate() {
            for delay in running.duty.at_start.clone() {
                let (duties, store, clock) = (self.duties.clone(), store.clone(), clock.clone());
                ctx.run_later(delay, move |_, _| {
                    if let Some(run) = duties[index].begin(Trigger::Start, &store, &clock) {
                        actix::spawn(run);
                    }
                });
            }
        }
        // The one timer: a look at every duty whose time has come and that is not still busy.
        let duties = self.duties.clone();
        ctx.run_interval(TICK, move |_, _| {
            let now = Instant::now();
            for running in duties.iter() {
                if let Some(look) = running.look_if_due(now, &store, &clock) {
                    actix::spawn(look);
                }
            }
        });
    }
}
