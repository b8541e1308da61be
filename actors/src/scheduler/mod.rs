//! The scheduler actor: runs the service's periodic work. Maintenance (expired export files deleted
//! at start and then every `datasets.cleanup_interval_seconds`), and connector schedules: a
//! `tokio-cron-scheduler` job looks every `connectors.schedule_poll_seconds` for schedules whose cron
//! (5 fields, UTC) has fired since the firing they last ran for, claims that firing in the database
//! (so with several processes on one database each firing runs once) and runs its sync. A firing
//! missed while no process ran is found by the first look after start and run once.
//!
//! Every task it runs is idempotent, so several processes may run the same one; the work itself is
//! spawned, never run on the arbiter thread.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use actix::{AsyncContext, Context};
use tokio_cron_scheduler::{Job, JobScheduler};

use crate::connector::{run_sync, ConnectorServices, Trigger};
use crate::dataset_exporter::{cleanup_expired_exports, ExportServices};
use crate::runtime::{Cell, Logic};
use crate::store::{RequestedBy, ScheduleRecord};

/// State of the scheduler actor: the services its tasks need (none in the crate's unit tests).
#[derive(Default)]
pub struct Scheduler {
    exports: Option<ExportServices>,
    connectors: Option<ConnectorServices>,
    /// The running cron scheduler, shut down when the actor restarts.
    cron: Arc<Mutex<Option<JobScheduler>>>,
}

impl Scheduler {
    pub fn new(
        exports: Option<ExportServices>,
        connectors: Option<ConnectorServices>,
    ) -> Scheduler {
        Scheduler {
            exports,
            connectors,
            cron: Arc::default(),
        }
    }
}

/// The firing of `schedule` that is due and not yet run, if any.
fn due_firing(
    schedule: &ScheduleRecord,
    now: chrono::DateTime<chrono::Utc>,
) -> Option<chrono::DateTime<chrono::Utc>> {
    let cron = crate::cron::Schedule::parse(&schedule.cron).ok()?;
    let since = schedule.last_due_at.unwrap_or(schedule.created_at);
    // Not due: one step of the cron (the common case, every pass, for every schedule).
    if cron.next_after(since).is_none_or(|next| next > now) {
        return None;
    }
    // Only the latest missed firing runs: a process down for a week runs a schedule once, not 168 times.
    // It is looked for in growing windows, so a schedule paused for months that fires every minute is
    // not walked minute by minute.
    let windows = [
        chrono::Duration::hours(1),
        chrono::Duration::days(1),
        chrono::Duration::days(32),
        now - since,
    ];
    windows
        .into_iter()
        .find_map(|window| cron.latest_at_or_before(now, window.min(now - since)))
        .filter(|due| *due > since)
}

/// Runs the sync of every schedule whose firing is due and that this process claims first.
pub async fn run_due_schedules(services: &ConnectorServices) -> usize {
    let schedules = match services.store.enabled_schedules().await {
        Ok(schedules) => schedules,
        Err(error) => {
            tracing::warn!(%error, "cannot read the schedules; looking again at the next pass");
            return 0;
        }
    };
    let mut ran = 0;
    for schedule in schedules {
        let now = services.clock.now();
        let Some(due) = due_firing(&schedule, now) else {
            continue;
        };
        // A plan without schedules (a downgrade to trial) pauses them.
        match services.store.plan_in_force(schedule.tenant_id).await {
            Ok(plan)
                if services
                    .plans
                    .get(plan)
                    .min_schedule_interval_minutes
                    .is_none() =>
            {
                tracing::debug!(schedule_id = schedule.id, plan = %plan, "schedule paused: the plan has no schedules");
                continue;
            }
            Ok(_) => {}
            Err(error) => {
                tracing::warn!(%error, schedule_id = schedule.id, "cannot read the tenant's plan");
                continue;
            }
        }
        match services.store.claim_firing(schedule.id, due, now).await {
            Ok(true) => {}
            Ok(false) => continue,
            Err(error) => {
                tracing::warn!(%error, schedule_id = schedule.id, "cannot claim a schedule's firing");
                continue;
            }
        }
        let connector = match services
            .store
            .connector(schedule.tenant_id, schedule.connector_id)
            .await
        {
            Ok(Some(connector)) => connector,
            Ok(None) => continue,
            Err(error) => {
                tracing::warn!(%error, schedule_id = schedule.id, "cannot read a schedule's connector");
                continue;
            }
        };
        let requested_by = RequestedBy {
            actor_type: "schedule".to_string(),
            id: Some(schedule.id.to_string()),
        };
        match run_sync(
            services,
            &connector,
            Some(&schedule),
            Trigger::Cron,
            requested_by,
        )
        .await
        {
            Ok(_) => ran += 1,
            Err(error) => {
                tracing::warn!(%error, schedule_id = schedule.id, "a scheduled sync failed to record")
            }
        }
    }
    ran
}

/// Marks interrupted the syncs whose process stopped (no heartbeat for `SYNC_STALE_SECONDS`) and
/// releases the object versions they claimed. Only reads when there is none.
async fn end_interrupted_syncs(services: &ConnectorServices) {
    let now = services.clock.now();
    let stale = now - chrono::Duration::seconds(crate::store::SYNC_STALE_SECONDS);
    match services.store.interrupt_stale_runs(stale, now).await {
        Ok(0) => {}
        Ok(ended) => tracing::warn!(
            ended,
            "syncs left running by a stopped process marked interrupted; their claims released"
        ),
        Err(error) => tracing::warn!(%error, "cannot end the syncs left running"),
    }
}

/// Starts the cron scheduler whose job runs the due schedules; passes never overlap.
async fn start_cron(
    services: ConnectorServices,
    slot: Arc<Mutex<Option<JobScheduler>>>,
) -> Result<(), tokio_cron_scheduler::JobSchedulerError> {
    let scheduler = JobScheduler::new().await?;
    let every = Duration::from_secs(services.settings.schedule_poll_seconds);
    let busy = Arc::new(AtomicBool::new(false));
    let job = Job::new_repeated_async(every, move |_, _| {
        let services = services.clone();
        let busy = busy.clone();
        Box::pin(async move {
            if busy.swap(true, Ordering::AcqRel) {
                return;
            }
            end_interrupted_syncs(&services).await;
            run_due_schedules(&services).await;
            busy.store(false, Ordering::Release);
        })
    })?;
    scheduler.add(job).await?;
    scheduler.start().await?;
    let previous = slot
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .replace(scheduler);
    if let Some(mut previous) = previous {
        let _ = previous.shutdown().await;
    }
    Ok(())
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

    fn reset(&mut self) {
        if let Some(mut cron) = self.cron.lock().unwrap_or_else(|p| p.into_inner()).take() {
            actix::spawn(async move {
                let _ = cron.shutdown().await;
            });
        }
    }

    fn started(&mut self, ctx: &mut Context<Cell<Self>>) {
        if let Some(services) = self.connectors.clone() {
            // The first look right away: it ends the syncs a stopped process left running and runs the
            // firings missed while no process ran.
            let first = services.clone();
            actix::spawn(async move {
                end_interrupted_syncs(&first).await;
                run_due_schedules(&first).await;
            });
            let slot = self.cron.clone();
            actix::spawn(async move {
                if let Err(error) = start_cron(services, slot).await {
                    tracing::error!(%error, "the connector schedules' cron scheduler did not start");
                }
            });
        }
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

#[cfg(test)]
mod tests {
    use chrono::{Duration, TimeZone, Utc};

    use super::*;

    fn schedule(cron: &str, since: chrono::DateTime<Utc>) -> ScheduleRecord {
        ScheduleRecord {
            id: 1,
            tenant_id: 1,
            connector_id: 1,
            name: None,
            cron: cron.to_string(),
            prefix: None,
            enabled: true,
            last_run_at: None,
            last_due_at: Some(since),
            created_at: since,
        }
    }

    #[test]
    fn only_the_latest_missed_firing_is_due_and_a_taken_one_is_not() {
        let now = Utc
            .with_ymd_and_hms(2026, 11, 27, 17, 12, 30)
            .single()
            .expect("time");
        // Paused for three months, firing every minute: the latest minute.
        let due = due_firing(&schedule("* * * * *", now - Duration::days(90)), now);
        assert_eq!(due, Utc.with_ymd_and_hms(2026, 11, 27, 17, 12, 0).single());
        // Daily at 03:00, last run two days ago: today's 03:00.
        let daily = schedule("0 3 * * *", now - Duration::days(2));
        let due = due_firing(&daily, now).expect("due");
        assert_eq!(
            due,
            Utc.with_ymd_and_hms(2026, 11, 27, 3, 0, 0)
                .single()
                .expect("time")
        );
        // Once that firing is taken, nothing more is due.
        assert_eq!(due_firing(&schedule("0 3 * * *", due), now), None);
        // A yearly cron missed for a year and a half.
        let yearly = schedule("0 0 1 1 *", now - Duration::days(550));
        assert_eq!(
            due_firing(&yearly, now),
            Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).single()
        );
    }
}
