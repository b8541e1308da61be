//! The job_router actor: per-tenant fair claims over the jobs table, leases and retries.
//!
//! The database is the queue. The router claims jobs tenant by tenant in round-robin order (see
//! [`fair`]), at most `jobs.per_tenant_concurrency` per tenant and `actors.job_router.pool_size` in
//! all, and runs each on its own task; one statement per process renews the leases of all its jobs.
//! Claims happen when something wakes the router (an upload in any process, through the cache's
//! wake-ups), when a job ends, and at every poll tick, which also gives expired leases back to the
//! queue. The processing itself happens on the extractor and masker pools, and a result is serialised
//! on the blocking pool: nothing here blocks the arbiter thread, which also runs the renewals.

mod fair;
mod messages;
mod records;
mod subjects;
mod worker;

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use actix::{AsyncContext, Context};

use crate::blob::Blobs;
use crate::cache::Cache;
use crate::clock::Clock;
use crate::dataset_exporter::DatasetExporter;
use crate::error_code::RecordCode;
use crate::extractor_pool::ExtractorPool;
use crate::extractor_pool::Limits;
use crate::metric_names as names;
use crate::pii_masker::PiiMasker;
use crate::runtime::{ActorHandle, Cell, Logic, Outcome, Request};
use crate::settings::JobsSettings;
use crate::store::{lease_until, ClaimedJob, Store};
pub use messages::{Drain, JobRouterReply, Wake};
use worker::Finish;

/// What the router needs from the rest of the system.
#[derive(Clone)]
pub struct JobServices {
    pub store: Store,
    pub blobs: Blobs,
    pub cache: Arc<dyn Cache>,
    pub clock: Clock,
    pub jobs: JobsSettings,
    pub limits: Limits,
    /// Tenants' privacy policies: each document is masked by its tenant's.
    pub privacy: crate::privacy::Privacy,
}

/// The two lanes of the queue, each with its own slots: small documents are claimed in batches (one
/// slot runs a whole batch), large ones and dataset builds one per slot, so neither waits behind the
/// other.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Lane {
    Small = 0,
    Large = 1,
}

impl Lane {
    const BOTH: [Lane; 2] = [Lane::Small, Lane::Large];
}

/// What the oldest queued large job asks of a claim round ([`Dispatcher::oldest_large`]), by tenant.
enum Head {
    /// Nothing yet: the usual round.
    Waits,
    /// It fits in the budget: claimed first.
    Fits(i64),
    /// It does not: only it may be claimed, when it fits.
    Holds(i64),
}

#[derive(Default)]
struct DispatchState {
    /// Slots in use per tenant, per lane.
    running: [HashMap<i64, usize>; 2],
    /// Slots in use per lane.
    slots: [usize; 2],
    /// Slots in use in both lanes.
    total: usize,
    /// The tenant served last, per lane (the round-robin starts after it).
    last_served: [Option<i64>; 2],
    /// The jobs this process runs, whose leases it renews, with how many of its tasks run each (two,
    /// briefly, when a job whose lease lapsed is claimed again by the same process before its first
    /// task has noticed).
    held: BTreeMap<String, usize>,
    /// The memory estimates of the running jobs, in bytes ([`crate::store::JOB_COST_SQL`]).
    memory: i64,
}

/// The claim loop and the jobs it runs. Lives outside the actor's restartable state, so a restart of
/// the actor never forgets jobs that are still running.
pub struct Dispatcher {
    services: JobServices,
    extractor: ActorHandle<ExtractorPool>,
    masker: ActorHandle<PiiMasker>,
    exporter: ActorHandle<DatasetExporter>,
    /// This process's name in `jobs.lease_owner`.
    worker_id: String,
    /// Slots per lane.
    workers: usize,
    state: Mutex<DispatchState>,
    pumping: AtomicBool,
    again: AtomicBool,
    renewing: AtomicBool,
    closing: AtomicBool,
    idle: tokio::sync::Notify,
}

impl Dispatcher {
    fn state(&self) -> MutexGuard<'_, DispatchState> {
        // A panic while holding this lock cannot leave the counters half-written (plain integer
        // updates), so a poisoned lock is still usable.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub fn worker_id(&self) -> &str {
        &self.worker_id
    }

    pub fn running(&self) -> usize {
        self.state().total
    }

    /// Claims work until the workers are busy or nothing is claimable. Concurrent calls coalesce.
    pub async fn pump(self: Arc<Self>) {
        loop {
            if self.pumping.swap(true, Ordering::AcqRel) {
                self.again.store(true, Ordering::Release);
                return;
            }
            self.again.store(false, Ordering::Release);
            if let Err(error) = self.claim_round().await {
                tracing::warn!(%error, "claiming jobs failed; retrying at the next poll");
            }
            self.pumping.store(false, Ordering::Release);
            if !self.again.swap(false, Ordering::AcqRel) {
                return;
            }
        }
    }

    fn kick(self: &Arc<Self>) {
        let dispatcher = self.clone();
        actix::spawn(async move { dispatcher.pump().await });
    }

    async fn claim_round(self: &Arc<Self>) -> Result<(), crate::store::StoreError> {
        if !self.services.jobs.run_jobs
            || self.closing.load(Ordering::Acquire)
            || self.state().total >= 2 * self.workers
        {
            return Ok(());
        }
        let queued = self.services.store.tenants_with_queued_jobs().await?;
        match self.oldest_large().await? {
            // The budget is held for the oldest large job: nothing else is claimed until it fits,
            // and then it is (its tenant's oldest large job: none of that tenant's is older).
            Head::Holds(tenant) => return self.claim_lane(Lane::Large, &[tenant]).await,
            // It fits now: it goes first, before the small lane can take the room again.
            Head::Fits(tenant) => self.claim_lane(Lane::Large, &[tenant]).await?,
            Head::Waits => {}
        }
        for lane in Lane::BOTH {
            self.claim_lane(lane, &queued).await?;
        }
        Ok(())
    }

    /// What the oldest queued large job asks of this round, once it has waited
    /// `jobs.reserve_after_seconds` for the memory budget: to be claimed first when it fits, and when
    /// it does not, that the budget be held for it (recorded on the job the first time: its status
    /// shows it). Nothing when there is no budget or no such job.
    async fn oldest_large(&self) -> Result<Head, crate::store::StoreError> {
        let settings = &self.services.jobs;
        if settings.memory_budget_mb == 0 {
            return Ok(Head::Waits);
        }
        let store = &self.services.store;
        let Some(head) = store.oldest_waiting_large().await? else {
            metrics::gauge!(names::JOBS_MEMORY_RESERVED_BYTES).set(0.0);
            return Ok(Head::Waits);
        };
        let now = self.services.clock.now();
        let waited = (now - head.created_at).num_seconds().max(0) as u64;
        if waited < settings.reserve_after_seconds {
            return Ok(Head::Waits);
        }
        if head.cost <= self.memory_headroom() {
            metrics::gauge!(names::JOBS_MEMORY_RESERVED_BYTES).set(0.0);
            return Ok(Head::Fits(head.tenant_id));
        }
        if head.reserved_at.is_none() {
            tracing::info!(
                job_id = %head.id,
                estimate_mb = head.cost >> 20,
                waited_seconds = waited,
                "the memory budget is held for the oldest large job: nothing else is claimed until it fits"
            );
            store.mark_reserved(&head.id, now).await?;
        }
        metrics::gauge!(names::JOBS_MEMORY_RESERVED_BYTES).set(head.cost as f64);
        Ok(Head::Holds(head.tenant_id))
    }

    /// Claims for the free slots of `lane`, tenant by tenant in turn.
    async fn claim_lane(
        self: &Arc<Self>,
        lane: Lane,
        queued: &[i64],
    ) -> Result<(), crate::store::StoreError> {
        let cap = self.services.jobs.per_tenant_concurrency;
        let mut candidates = {
            let state = self.state();
            fair::eligible(
                &fair::rotation(queued, state.last_served[lane as usize]),
                &state.running[lane as usize],
                cap,
            )
        };
        while !candidates.is_empty() {
            let mut still_claimable = Vec::with_capacity(candidates.len());
            for tenant_id in candidates {
                if self.closing.load(Ordering::Acquire)
                    || self.state().slots[lane as usize] >= self.workers
                {
                    return Ok(());
                }
                let now = self.services.clock.now();
                let until = lease_until(now, self.services.jobs.lease_seconds);
                let store = &self.services.store;
                let claimed = match lane {
                    Lane::Small => {
                        store
                            .claim_batch(
                                tenant_id,
                                &self.worker_id,
                                (now, until),
                                self.services.jobs.batch_max_jobs,
                            )
                            .await?
                    }
                    Lane::Large => store
                        .claim_within(
                            tenant_id,
                            &self.worker_id,
                            (now, until),
                            self.memory_headroom(),
                        )
                        .await?
                        .into_iter()
                        .collect(),
                };
                if claimed.is_empty() {
                    continue;
                }
                metrics::histogram!(names::JOB_BATCH_SIZE).record(claimed.len() as f64);
                let cost: i64 = claimed.iter().map(|(_, cost)| cost).sum();
                let jobs: Vec<ClaimedJob> = claimed.into_iter().map(|(job, _)| job).collect();
                let at_cap = {
                    let mut state = self.state();
                    let running = state.running[lane as usize].entry(tenant_id).or_insert(0);
                    *running += 1;
                    let at_cap = *running >= cap;
                    state.slots[lane as usize] += 1;
                    state.total += 1;
                    state.memory += cost;
                    state.last_served[lane as usize] = Some(tenant_id);
                    for job in &jobs {
                        *state.held.entry(job.id.clone()).or_insert(0) += 1;
                    }
                    metrics::gauge!(names::JOB_WORKERS_BUSY).set(state.total as f64);
                    at_cap
                };
                self.spawn_batch(lane, tenant_id, jobs, cost);
                if !at_cap {
                    still_claimable.push(tenant_id);
                }
            }
            candidates = still_claimable;
        }
        Ok(())
    }

    /// How many bytes of memory estimate a job may bring now: what the budget has left, or anything
    /// when no job runs (a document larger than the whole budget then runs alone).
    fn memory_headroom(&self) -> i64 {
        let budget = self.services.jobs.memory_budget_mb as i64 * (1 << 20);
        let in_use = self.state().memory;
        match (budget, in_use) {
            (0, _) | (_, 0) => i64::MAX,
            _ => (budget - in_use).max(0),
        }
    }

    fn spawn_batch(self: &Arc<Self>, lane: Lane, tenant_id: i64, jobs: Vec<ClaimedJob>, cost: i64) {
        let running = Running {
            dispatcher: self.clone(),
            lane,
            tenant_id,
            job_ids: jobs.iter().map(|job| job.id.clone()).collect(),
            cost,
        };
        actix::spawn(async move {
            // Every line logged while a job runs carries its id (see `run_batch`).
            let dispatcher = running.dispatcher.clone();
            let _finished: Vec<Finish> = dispatcher.run_batch(&jobs).await;
            // `running` is dropped here, or while unwinding if a job panicked: either way the slot
            // frees and the batch's leases stop being renewed (after a panic the next poll tick
            // looks for more work).
            drop(running);
            dispatcher.kick();
        });
    }

    /// Renews, in one statement, the leases of every job this process runs; a lease another process
    /// took meanwhile is left alone (its job's final write will find out). Runs every
    /// `jobs.lease_renew_interval_ms`; a renewal still running when the next is due is not doubled.
    pub async fn renew_leases(&self) {
        if self.renewing.swap(true, Ordering::AcqRel) {
            return;
        }
        let held: Vec<String> = self.state().held.keys().cloned().collect();
        if !held.is_empty() {
            let until = lease_until(self.services.clock.now(), self.services.jobs.lease_seconds);
            match self
                .services
                .store
                .renew_leases(&self.worker_id, &held, until)
                .await
            {
                // Fewer rows than jobs: some have just written their outcome, or lost their lease.
                Ok(renewed) => tracing::trace!(held = held.len(), renewed, "leases renewed"),
                Err(error) => {
                    tracing::warn!(%error, "lease renewal failed; retrying at the next interval")
                }
            }
        }
        self.renewing.store(false, Ordering::Release);
    }

    /// Expired leases back to the queue (or failed), and the queue gauges.
    pub async fn maintain(&self) {
        let now = self.services.clock.now();
        let event = |job: &crate::store::ExhaustedJob| {
            Some(worker::failed_event(
                &job.id,
                &job.job_type,
                job.document_id,
                job.code,
                job.message,
                now,
            ))
        };
        match self.services.store.reap_expired_leases(now, event).await {
            Ok(reaped) => {
                if reaped.requeued > 0 {
                    tracing::warn!(
                        count = reaped.requeued,
                        "jobs whose lease expired were queued again"
                    );
                    metrics::counter!(names::JOB_LEASES_REAPED_TOTAL, "outcome" => "requeued")
                        .increment(reaped.requeued);
                }
                for job in &reaped.exhausted {
                    tracing::warn!(job_id = %job.id, code = job.code, "job failed");
                    let outcome = if job.code == RecordCode::ExhaustedRetries.as_str() {
                        "exhausted"
                    } else {
                        "poisoned"
                    };
                    metrics::counter!(names::JOB_LEASES_REAPED_TOTAL, "outcome" => outcome)
                        .increment(1);
                    metrics::counter!(names::JOBS_FINISHED_TOTAL,
                        "job_type" => job.job_type.clone(), "outcome" => "failed")
                    .increment(1);
                }
            }
            Err(error) => tracing::warn!(%error, "reaping expired leases failed"),
        }
        match self.services.store.queue_depth().await {
            Ok(depth) => {
                for status in ["queued", "running"] {
                    let count = depth
                        .by_status
                        .iter()
                        .find(|(name, _)| name == status)
                        .map_or(0, |(_, count)| *count);
                    metrics::gauge!(names::JOBS_QUEUE_DEPTH, "status" => status).set(count as f64);
                }
                let age = depth.oldest_queued.map_or(0.0, |oldest| {
                    (now - oldest).num_milliseconds().max(0) as f64 / 1000.0
                });
                metrics::gauge!(names::JOBS_OLDEST_QUEUED_AGE_SECONDS).set(age);
            }
            Err(error) => tracing::warn!(%error, "reading the queue depth failed"),
        }
    }

    /// Stops claiming, waits up to `grace` for running jobs, then gives back the leases still held.
    pub async fn drain(&self, grace: Duration) -> usize {
        self.closing.store(true, Ordering::Release);
        let deadline = tokio::time::Instant::now() + grace;
        while self.running() > 0 {
            let notified = self.idle.notified();
            if self.running() == 0 {
                break;
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                break;
            }
        }
        let left = self.running();
        if left > 0 {
            match self
                .services
                .store
                .release_leases(&self.worker_id, self.services.clock.now())
                .await
            {
                Ok(released) => tracing::info!(released, "gave back the leases of unfinished jobs"),
                Err(error) => tracing::warn!(%error, "cannot give back leases; they will expire"),
            }
        }
        left
    }
}

/// The jobs of one slot (a batch, or one job), from their claim to the end of their task (or the
/// task's panic): dropping it frees the slot and stops their lease renewals.
struct Running {
    dispatcher: Arc<Dispatcher>,
    lane: Lane,
    tenant_id: i64,
    job_ids: Vec<String>,
    /// Its memory estimate, held from the budget until it ends.
    cost: i64,
}

impl Drop for Running {
    fn drop(&mut self) {
        {
            let mut state = self.dispatcher.state();
            let lane = self.lane as usize;
            if let Some(running) = state.running[lane].get_mut(&self.tenant_id) {
                *running = running.saturating_sub(1);
                if *running == 0 {
                    state.running[lane].remove(&self.tenant_id);
                }
            }
            state.slots[lane] = state.slots[lane].saturating_sub(1);
            state.total = state.total.saturating_sub(1);
            state.memory = (state.memory - self.cost).max(0);
            for job_id in &self.job_ids {
                if let Some(tasks) = state.held.get_mut(job_id) {
                    *tasks = tasks.saturating_sub(1);
                    if *tasks == 0 {
                        state.held.remove(job_id);
                    }
                }
            }
            metrics::gauge!(names::JOB_WORKERS_BUSY).set(state.total as f64);
        }
        self.dispatcher.idle.notify_waiters();
    }
}

/// A process-unique worker name: host, pid and a random suffix.
fn new_worker_id() -> String {
    let host = std::env::var("HOSTNAME").unwrap_or_else(|_| "host".to_string());
    format!(
        "{host}:{}:{}",
        std::process::id(),
        crate::store::new_id("w")
    )
}

/// State of the job_router actor.
pub struct JobRouter {
    dispatcher: Option<Arc<Dispatcher>>,
    poll_interval: Duration,
}

impl JobRouter {
    /// A router without a queue (unit tests of the actor system): it answers pings and nothing else.
    pub fn idle() -> JobRouter {
        JobRouter {
            dispatcher: None,
            poll_interval: Duration::from_secs(3600),
        }
    }

    pub fn new(
        services: JobServices,
        extractor: ActorHandle<ExtractorPool>,
        masker: ActorHandle<PiiMasker>,
        exporter: ActorHandle<DatasetExporter>,
        workers: usize,
    ) -> JobRouter {
        let poll_interval = Duration::from_millis(services.jobs.poll_interval_ms);
        metrics::gauge!(names::JOB_WORKERS).set(2.0 * workers.max(1) as f64);
        metrics::gauge!(names::JOB_WORKERS_BUSY).set(0.0);
        JobRouter {
            dispatcher: Some(Arc::new(Dispatcher {
                services,
                extractor,
                masker,
                exporter,
                worker_id: new_worker_id(),
                workers: workers.max(1),
                state: Mutex::new(DispatchState::default()),
                pumping: AtomicBool::new(false),
                again: AtomicBool::new(false),
                renewing: AtomicBool::new(false),
                closing: AtomicBool::new(false),
                idle: tokio::sync::Notify::new(),
            })),
            poll_interval,
        }
    }

    pub fn dispatcher(&self) -> Option<Arc<Dispatcher>> {
        self.dispatcher.clone()
    }
}

impl Logic for JobRouter {
    const NAME: &'static str = "job_router";

    fn started(&mut self, ctx: &mut Context<Cell<Self>>) {
        let Some(dispatcher) = self.dispatcher.clone() else {
            return;
        };
        let ticking = dispatcher.clone();
        ctx.run_interval(self.poll_interval, move |_, _| {
            let dispatcher = ticking.clone();
            actix::spawn(async move {
                dispatcher.maintain().await;
                dispatcher.pump().await;
            });
        });
        let renewing = dispatcher.clone();
        let renew_every = Duration::from_millis(dispatcher.services.jobs.lease_renew_interval_ms);
        ctx.run_interval(renew_every, move |_, _| {
            let dispatcher = renewing.clone();
            actix::spawn(async move { dispatcher.renew_leases().await });
        });
        let wakeups = dispatcher.services.cache.wakeups();
        let listener = dispatcher.clone();
        ctx.spawn(actix::fut::wrap_future::<_, Cell<Self>>(
            crate::cache::on_wake(wakeups, crate::cache::JOBS_WAKE, move || listener.kick()),
        ));
        // Work queued before this process started (or while the actor was restarting).
        let startup = dispatcher.clone();
        actix::spawn(async move {
            startup.maintain().await;
            startup.pump().await;
        });
    }
}

impl Request<JobRouter> for Wake {
    type Reply = JobRouterReply;

    fn handle(
        self,
        router: &mut JobRouter,
        _ctx: &mut Context<Cell<JobRouter>>,
    ) -> Outcome<JobRouterReply> {
        let running = router.dispatcher.as_ref().map_or(0, |dispatcher| {
            dispatcher.kick();
            dispatcher.running()
        });
        Outcome::Ready(JobRouterReply { running })
    }
}

impl Request<JobRouter> for Drain {
    type Reply = JobRouterReply;

    fn handle(
        self,
        router: &mut JobRouter,
        _ctx: &mut Context<Cell<JobRouter>>,
    ) -> Outcome<JobRouterReply> {
        let Some(dispatcher) = router.dispatcher.clone() else {
            return Outcome::Ready(JobRouterReply::default());
        };
        Outcome::Pending(Box::pin(async move {
            let running = dispatcher.drain(self.grace).await;
            JobRouterReply { running }
        }))
    }
}
