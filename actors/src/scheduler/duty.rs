//! A timed duty: when it fires, how often the scheduler looks, what it runs, and the one way a firing is
//! claimed across processes ([`Store::claim_firing`] on the duty's mark in `clock_ticks`).

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};

use crate::clock::Clock;
use crate::cron::Schedule;
use crate::metric_names as names;
use crate::store::{Mark, Store};

/// How far back a cron firing is looked for when nothing was claimed yet.
const HORIZON_DAYS: i64 = 400;

/// When a duty (or a connector schedule) fires.
#[derive(Clone, Debug)]
pub enum Cadence {
    /// At each firing of a five-field cron expression (UTC).
    Cron(Schedule),
    /// Every period, at whole multiples of it since the Unix epoch (one firing a day at midnight UTC
    /// for a day), so that every process computes the same firings.
    Every(Duration),
}

impl Cadence {
    /// The latest firing at or before `now` that comes after `since` (after nothing: the latest within
    /// reach); None when none is due. Only the latest counts: a process down for a week runs an hourly
    /// duty once, not 168 times.
    pub fn due(&self, since: Option<DateTime<Utc>>, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
        let latest = match self {
            Cadence::Every(period) => {
                let period = i64::try_from(period.as_secs()).unwrap_or(i64::MAX).max(1);
                let start = now.timestamp() - now.timestamp().rem_euclid(period);
                DateTime::from_timestamp(start, 0)
            }
            Cadence::Cron(cron) => {
                let reach = chrono::Duration::days(HORIZON_DAYS);
                let Some(since) = since else {
                    return cron.latest_at_or_before(now, reach);
                };
                // Not due: one step of the cron (the common case, every look).
                if cron.next_after(since).is_none_or(|next| next > now) {
                    return None;
                }
                // Looked for in growing windows, so that a schedule paused for months that fires
                // every minute is not walked minute by minute.
                let windows = [
                    chrono::Duration::hours(1),
                    chrono::Duration::days(1),
                    chrono::Duration::days(32),
                    now - since,
                ];
                windows
                    .into_iter()
                    .find_map(|window| cron.latest_at_or_before(now, window.min(now - since)))
            }
        };
        latest.filter(|due| since.is_none_or(|since| *due > since))
    }
}

/// What a duty runs, given the time of the run.
pub type Work =
    Arc<dyn Fn(DateTime<Utc>) -> Pin<Box<dyn Future<Output = ()> + Send>> + Send + Sync>;

/// The work of a duty from an async function of its run's time.
pub fn work<F, Fut>(run: F) -> Work
where
    F: Fn(DateTime<Utc>) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    Arc::new(move |now| Box::pin(run(now)))
}

/// What a deployment's first look at a duty does (no process ever claimed a firing of it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FirstLook {
    /// Runs the latest firing.
    Run,
    /// Records the latest firing as done without running it: a new deployment has missed nothing
    /// (the billing cycle).
    Record,
}

/// One timed duty of the service.
#[derive(Clone)]
pub struct Duty {
    /// Its name: its row of `clock_ticks`, and the `duty` label of its metrics.
    pub name: &'static str,
    pub cadence: Cadence,
    /// How often (wall time) the scheduler looks whether a firing is due.
    pub look_every: Duration,
    /// Runs in this process at start, after each of these delays, without a claim: for what a
    /// stopped process left behind, which another process's firing may be long away from.
    pub at_start: Vec<Duration>,
    pub first_look: FirstLook,
    pub work: Work,
}

/// Why a duty runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trigger {
    /// A firing this process claimed.
    Firing,
    /// This process's start, when another process had the due firing (or none was due).
    Start,
}

impl Trigger {
    fn label(self) -> &'static str {
        match self {
            Trigger::Firing => "firing",
            Trigger::Start => "start",
        }
    }
}

/// A duty as the scheduler keeps it: whether a look or run of it is under way (they never overlap).
pub struct Running {
    pub duty: Duty,
    busy: Arc<AtomicBool>,
    next_look: std::sync::Mutex<Instant>,
}

impl Running {
    pub fn new(duty: Duty) -> Running {
        Running {
            duty,
            busy: Arc::default(),
            next_look: std::sync::Mutex::new(Instant::now()),
        }
    }

    /// The next look at the duty when its time has come (and none is under way); the one after it is
    /// `look_every` later.
    pub fn look_if_due(
        &self,
        now: Instant,
        store: &Store,
        clock: &Clock,
    ) -> Option<impl Future<Output = ()> + Send + 'static> {
        let mut next_look = self.next_look.lock().unwrap_or_else(|p| p.into_inner());
        if *next_look > now {
            return None;
        }
        let look = self.begin(Trigger::Firing, store, clock)?;
        *next_look = now + self.duty.look_every;
        Some(look)
    }

    /// The future of one look at the duty: it runs when this process claims a due firing, and at
    /// start (`Trigger::Start`) it runs either way. None when a look is under way.
    pub fn begin(
        &self,
        trigger: Trigger,
        store: &Store,
        clock: &Clock,
    ) -> Option<impl Future<Output = ()> + Send + 'static> {
        if self.busy.swap(true, Ordering::AcqRel) {
            return None;
        }
        let (duty, busy, store, clock) = (
            self.duty.clone(),
            Busy(self.busy.clone()),
            store.clone(),
            clock.clone(),
        );
        Some(async move {
            let _busy = busy;
            let claimed = claim(&duty, &store, clock.now()).await;
            match (trigger, claimed) {
                (_, true) => run(&duty, Trigger::Firing, clock.now()).await,
                // At start the duty runs even when another process has had the firing.
                (Trigger::Start, false) => run(&duty, Trigger::Start, clock.now()).await,
                (Trigger::Firing, false) => {}
            }
        })
    }
}

/// Clears a duty's busy flag when its look ends (also when the look's future is dropped).
struct Busy(Arc<AtomicBool>);

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}

/// Whether this process claimed a due firing of `duty` and should run it.
async fn claim(duty: &Duty, store: &Store, now: DateTime<Utc>) -> bool {
    let mark = match store.duty_mark(duty.name).await {
        Ok(mark) => mark,
        Err(error) => {
            tracing::warn!(%error, duty = duty.name, "cannot read a duty's mark; looking again later");
            return false;
        }
    };
    let (due, runs) = match (mark, duty.cadence.due(mark, now)) {
        (_, Some(due)) => (due, mark.is_some() || duty.first_look == FirstLook::Run),
        // Nothing was ever claimed and no firing is within reach: the mark starts now.
        (None, None) if duty.first_look == FirstLook::Record => (now, false),
        _ => return false,
    };
    match store.claim_firing(Mark::Duty(duty.name), due, now).await {
        Ok(claimed) => claimed && runs,
        Err(error) => {
            tracing::warn!(%error, duty = duty.name, "cannot claim a duty's firing; looking again later");
            false
        }
    }
}

async fn run(duty: &Duty, trigger: Trigger, now: DateTime<Utc>) {
    metrics::counter!(names::SCHEDULED_RUNS_TOTAL, "duty" => duty.name, "trigger" => trigger.label())
        .increment(1);
    tracing::debug!(
        duty = duty.name,
        trigger = trigger.label(),
        "running a timed duty"
    );
    (duty.work)(now).await;
}

#[cfg(test)]
mod tests {
    use chrono::{Duration as Span, TimeZone};

    use super::*;

    fn at(y: i32, mo: u32, d: u32, h: u32, mi: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(y, mo, d, h, mi, 0)
            .single()
            .expect("time")
    }

    fn cron(expression: &str) -> Cadence {
        Cadence::Cron(Schedule::parse(expression).expect("cron"))
    }

    #[test]
    fn only_the_latest_missed_firing_is_due_and_a_taken_one_is_not() {
        let now = at(2026, 11, 27, 17, 12) + Span::seconds(30);
        // Paused for three months, firing every minute: the latest minute.
        let every_minute = cron("* * * * *");
        let due = every_minute.due(Some(now - Span::days(90)), now);
        assert_eq!(due, Some(at(2026, 11, 27, 17, 12)));
        // Daily at 03:00, last run two days ago: today's 03:00; once taken, nothing more is due.
        let daily = cron("0 3 * * *");
        let due = daily.due(Some(now - Span::days(2)), now).expect("due");
        assert_eq!(due, at(2026, 11, 27, 3, 0));
        assert_eq!(daily.due(Some(due), now), None);
        // A yearly cron missed for a year and a half; never claimed: the latest within reach.
        let yearly = cron("0 0 1 1 *");
        assert_eq!(
            yearly.due(Some(now - Span::days(550)), now),
            Some(at(2026, 1, 1, 0, 0))
        );
        assert_eq!(yearly.due(None, now), Some(at(2026, 1, 1, 0, 0)));
    }

    #[test]
    fn every_period_fires_at_the_same_multiples_in_every_process() {
        let daily = Cadence::Every(Duration::from_secs(86_400));
        let now = at(2026, 12, 4, 17, 30);
        assert_eq!(daily.due(None, now), Some(at(2026, 12, 4, 0, 0)));
        assert_eq!(
            daily.due(Some(at(2026, 12, 3, 0, 0)), now),
            Some(at(2026, 12, 4, 0, 0))
        );
        assert_eq!(daily.due(Some(at(2026, 12, 4, 0, 0)), now), None);
        let thirty = Cadence::Every(Duration::from_secs(30));
        let now = at(2026, 12, 4, 17, 30) + Span::seconds(47);
        assert_eq!(thirty.due(None, now), Some(now - Span::seconds(17)));
    }

    #[tokio::test]
    async fn a_firing_runs_once_across_processes_and_the_first_look_follows_the_duty() {
        use std::sync::atomic::AtomicUsize;
        let dir = tempfile::tempdir().expect("temp dir");
        let store = Store::sqlite_for_tests(dir.path()).await;
        let clock = Clock::default();
        let runs = Arc::new(AtomicUsize::new(0));
        let duty = |name: &'static str, first_look: FirstLook| {
            let runs = runs.clone();
            Duty {
                name,
                cadence: Cadence::Every(Duration::from_secs(86_400)),
                look_every: Duration::from_secs(1),
                at_start: Vec::new(),
                first_look,
                work: work(move |_| {
                    let runs = runs.clone();
                    async move {
                        runs.fetch_add(1, Ordering::SeqCst);
                    }
                }),
            }
        };
        // Two processes look at a duty that runs on its first look: one runs it.
        let (one, two) = (
            Running::new(duty("a", FirstLook::Run)),
            Running::new(duty("a", FirstLook::Run)),
        );
        let first = one.begin(Trigger::Firing, &store, &clock).expect("idle");
        assert!(
            one.begin(Trigger::Firing, &store, &clock).is_none(),
            "a look is under way"
        );
        first.await;
        two.begin(Trigger::Firing, &store, &clock)
            .expect("idle")
            .await;
        assert_eq!(runs.load(Ordering::SeqCst), 1);
        // The next day's firing runs once more.
        clock.advance(86_400);
        one.begin(Trigger::Firing, &store, &clock)
            .expect("idle")
            .await;
        two.begin(Trigger::Firing, &store, &clock)
            .expect("idle")
            .await;
        assert_eq!(runs.load(Ordering::SeqCst), 2);
        // A duty that records its first look runs only from the next firing on.
        let recorded = Running::new(duty("b", FirstLook::Record));
        recorded
            .begin(Trigger::Firing, &store, &clock)
            .expect("idle")
            .await;
        assert_eq!(runs.load(Ordering::SeqCst), 2);
        clock.advance(86_400);
        recorded
            .begin(Trigger::Firing, &store, &clock)
            .expect("idle")
            .await;
        assert_eq!(runs.load(Ordering::SeqCst), 3);
        // At start it runs even with its firing taken; and when a firing is due, that one is claimed.
        let start =
            |running: &Running| running.begin(Trigger::Start, &store, &clock).expect("idle");
        start(&recorded).await;
        assert_eq!(runs.load(Ordering::SeqCst), 4);
        clock.advance(86_400);
        start(&recorded).await;
        recorded
            .begin(Trigger::Firing, &store, &clock)
            .expect("idle")
            .await;
        assert_eq!(runs.load(Ordering::SeqCst), 5);
    }
}
