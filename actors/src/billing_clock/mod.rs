//! The billing_clock actor: runs the billing cycle (every open period past its end closed, the next
//! one opened with the plan's credits) at each firing of `billing.cycle_cron`, once across all
//! processes sharing the database ([`Store::claim_tick`]), and at start when a firing was missed while
//! no process ran. The cycle itself is idempotent, so `POST /system/billing/cycle` may run beside it.

use std::time::Duration;

use actix::{AsyncContext, Context};

use crate::clock::Clock;
use crate::cron::Schedule;
use crate::metric_names as names;
use crate::runtime::{Cell, Logic};
use crate::settings::PlansSettings;
use crate::store::Store;

/// The clock task's name in `clock_ticks`.
pub const CYCLE_TASK: &str = "billing_cycle";

/// What the clock needs when it runs for real.
#[derive(Clone)]
pub struct BillingServices {
    pub store: Store,
    pub clock: Clock,
    pub plans: PlansSettings,
    pub cycle: Schedule,
    /// How often it looks whether a firing is due.
    pub poll_interval: Duration,
}

/// State of the billing_clock actor (no services in the crate's unit tests).
#[derive(Default)]
pub struct BillingClock {
    services: Option<BillingServices>,
}

impl BillingClock {
    pub fn new(services: Option<BillingServices>) -> BillingClock {
        BillingClock { services }
    }
}

/// Runs the cycle when this process claims a due firing.
async fn tick(services: BillingServices) {
    let now = services.clock.now();
    match services
        .store
        .claim_tick(CYCLE_TASK, &services.cycle, now)
        .await
    {
        Ok(false) => {}
        Ok(true) => match services.store.run_billing_cycle(&services.plans, now).await {
            Ok(report) => {
                metrics::counter!(names::BILLING_CYCLE_RUNS_TOTAL, "trigger" => "clock")
                    .increment(1);
                tracing::info!(
                    closed = report.closed.len(),
                    opened = report.opened.len(),
                    "billing cycle"
                );
            }
            // The firing is claimed; the next one (or POST /system/billing/cycle) finishes the work.
            Err(error) => tracing::error!(%error, "the billing cycle failed"),
        },
        Err(error) => tracing::warn!(%error, "cannot read the billing clock; looking again later"),
    }
}

impl Logic for BillingClock {
    const NAME: &'static str = "billing_clock";

    fn started(&mut self, ctx: &mut Context<Cell<Self>>) {
        let Some(services) = self.services.clone() else {
            return;
        };
        actix::spawn(tick(services.clone()));
        ctx.run_interval(services.poll_interval, move |_, _| {
            actix::spawn(tick(services.clone()));
        });
    }
}
