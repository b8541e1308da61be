//! The connector schedules' pass: the syncs that stopped processes left running are ended, and every
//! enabled schedule whose cron fired since the firing it last ran for runs its sync once across
//! processes (its firing claimed on the schedule's own mark, [`Mark::Schedule`]).

use super::duty::Cadence;
use crate::connector::{run_sync, ConnectorServices, Trigger};
use crate::store::{Mark, RequestedBy};

/// Runs the sync of every schedule whose firing is due and that this process claims first.
pub(super) async fn run_due_schedules(services: &ConnectorServices) -> usize {
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
        let Ok(cron) = crate::cron::Schedule::parse(&schedule.cron) else {
            continue;
        };
        // A new schedule's first firing is the first one after its creation.
        let since = schedule.last_due_at.unwrap_or(schedule.created_at);
        let Some(due) = Cadence::Cron(cron).due(Some(since), now) else {
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
        match services
            .store
            .claim_firing(Mark::Schedule(schedule.id), due, now)
            .await
        {
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
pub(super) async fn end_interrupted_syncs(services: &ConnectorServices) {
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
