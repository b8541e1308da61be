//! The fine_tuner actor: takes fine-tune jobs from the database one step at a time and sees them
//! through the provider.
//!
//! A job goes `queued` -> `uploading` (the dataset's rows become the chat training file, re-scanned
//! for personal data, then uploaded) -> `validating` / `running` (the provider's job, polled every
//! `fine_tune.poll_interval_seconds`) -> `succeeded`, `failed` or `cancelled`. Each step holds a lease
//! on the job and records what it learnt before the next starts: the training file's id as soon as
//! the upload answered, the provider's job id as soon as the create answered. A step that died before
//! recording looks first (a file by its name, a job by its training file) and adopts what it finds, so
//! a restart never makes the provider train twice. A provider that is down, times out or answers 5xx
//! is tried again with a doubling delay; a 4xx fails the job with the provider's message.

mod provider;
mod training;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use actix::{AsyncContext, Context};
use chrono::{DateTime, Utc};

use crate::blob::Blobs;
use crate::cache::Cache;
use crate::clock::Clock;
use crate::error_code::RecordCode;
use crate::metric_names as names;
use crate::runtime::{Cell, Logic, Outcome, Request};
use crate::settings::FineTuneSettings;
use crate::store::{FineTuneRecord, FineTuneStep, Store, ALL_STATES};
use provider::{our_status, Provider, ProviderError};
pub use training::{row_use, templates, RowUse, Template, TrainingError};

/// What the fine_tuner needs when it runs for real.
#[derive(Clone)]
pub struct FineTuneServices {
    pub store: Store,
    pub blobs: Blobs,
    pub cache: Arc<dyn Cache>,
    pub clock: Clock,
    pub settings: FineTuneSettings,
    /// Where training files are written (under the data dir).
    pub scratch_dir: PathBuf,
    /// This process's lease owner name.
    pub owner: String,
    /// How often it looks for due jobs when nothing woke it.
    pub tick: Duration,
}

struct Worker {
    services: FineTuneServices,
    provider: Provider,
    slots: usize,
    pumping: AtomicBool,
    again: AtomicBool,
}

/// State of the fine_tuner actor (no services in the crate's unit tests, or with no provider).
#[derive(Default)]
pub struct FineTuner {
    worker: Option<Arc<Worker>>,
    tick: Duration,
}

impl FineTuner {
    pub fn new(services: Option<FineTuneServices>, slots: usize) -> FineTuner {
        let Some(services) = services.filter(|services| services.settings.enabled()) else {
            return FineTuner::default();
        };
        let provider = match Provider::new(
            &services.settings.provider_url,
            &services.settings.api_key,
            Duration::from_millis(services.settings.request_timeout_ms),
        ) {
            Ok(provider) => provider,
            // Only a TLS back end that cannot start; no unguarded client is made instead.
            Err(error) => {
                tracing::error!(%error, "cannot build the fine-tune provider's client; fine-tuning is off");
                return FineTuner::default();
            }
        };
        FineTuner {
            tick: services.tick,
            worker: Some(Arc::new(Worker {
                services,
                provider,
                slots: slots.max(1),
                pumping: AtomicBool::new(false),
                again: AtomicBool::new(false),
            })),
        }
    }
}

/// A job was created: look for due work now instead of at the next tick.
pub struct Wake;

impl Request<FineTuner> for Wake {
    type Reply = ();

    fn handle(self, tuner: &mut FineTuner, _ctx: &mut Context<Cell<FineTuner>>) -> Outcome<()> {
        if let Some(worker) = &tuner.worker {
            worker.kick();
        }
        Outcome::Ready(())
    }
}

/// The process is stopping: give back the leases this process holds, so that another process (or the
/// next start) takes the jobs up at once instead of after the lease.
pub struct Release;

impl Request<FineTuner> for Release {
    type Reply = ();

    fn handle(self, tuner: &mut FineTuner, _ctx: &mut Context<Cell<FineTuner>>) -> Outcome<()> {
        match &tuner.worker {
            Some(worker) => {
                let services = worker.services.clone();
                Outcome::Pending(Box::pin(async move {
                    release_leases(&services.store, &services.owner).await;
                }))
            }
            None => Outcome::Ready(()),
        }
    }
}

impl Logic for FineTuner {
    const NAME: &'static str = "fine_tuner";

    fn started(&mut self, ctx: &mut Context<Cell<Self>>) {
        let Some(worker) = self.worker.clone() else {
            return;
        };
        let ticking = worker.clone();
        ctx.run_interval(self.tick, move |_, _| ticking.kick());
        let listener = worker.clone();
        ctx.spawn(actix::fut::wrap_future::<_, Cell<Self>>(
            crate::cache::on_wake(
                worker.services.cache.wakeups(),
                crate::cache::FINE_TUNE_WAKE,
                move || listener.kick(),
            ),
        ));
        worker.kick();
    }
}

/// How a step ended, before it is written.
enum Next {
    /// The provider runs the job: look again after the poll interval.
    Poll(FineTuneStep),
    /// Done, one way or the other.
    Finished(FineTuneStep),
}

fn failed(code: &str, message: String, now: DateTime<Utc>) -> FineTuneStep {
    FineTuneStep {
        status: Some("failed".to_string()),
        error: Some((code.to_string(), message)),
        next_action_at: now,
        release: true,
        ..FineTuneStep::default()
    }
}

impl Worker {
    /// Runs due steps until none is left; a kick while it runs makes it look once more.
    fn kick(self: &Arc<Self>) {
        self.again.store(true, Ordering::SeqCst);
        if self.pumping.swap(true, Ordering::SeqCst) {
            return;
        }
        let worker = self.clone();
        actix::spawn(async move {
            while worker.again.swap(false, Ordering::SeqCst) {
                worker.pump().await;
            }
            worker.pumping.store(false, Ordering::SeqCst);
            // A kick that came between the last look and the flag's reset.
            if worker.again.load(Ordering::SeqCst) {
                worker.kick();
            }
        });
    }

    async fn pump(self: &Arc<Self>) {
        let services = &self.services;
        let now = services.clock.now();
        let lease = chrono::Duration::milliseconds(
            (services.settings.request_timeout_ms * 3).max(30_000) as i64,
        );
        let claimed = match services
            .store
            .claim_fine_tune_jobs(&services.owner, now, now + lease, self.slots as u64)
            .await
        {
            Ok(claimed) => claimed,
            Err(error) => {
                tracing::warn!(%error, "cannot claim fine-tune jobs; trying at the next tick");
                return;
            }
        };
        if claimed.is_empty() {
            return;
        }
        let steps = claimed.into_iter().map(|job| {
            let worker = self.clone();
            async move { worker.step(job).await }
        });
        futures_util::future::join_all(steps).await;
        self.gauges().await;
    }

    async fn gauges(&self) {
        if let Ok(counts) = self.services.store.fine_tune_counts().await {
            for state in ALL_STATES {
                let n = counts
                    .iter()
                    .find(|(status, _)| status == state)
                    .map_or(0, |(_, n)| *n);
                metrics::gauge!(names::FINE_TUNE_JOBS, "status" => state).set(n as f64);
            }
        }
    }

    async fn record(&self, job: &FineTuneRecord, step: FineTuneStep) -> bool {
        let status = step.status.clone();
        match self
            .services
            .store
            .record_fine_tune_step(
                &job.id,
                &self.services.owner,
                step,
                self.services.clock.now(),
            )
            .await
        {
            Ok(true) => {
                if let Some(status) = status.filter(|status| *status != job.status) {
                    metrics::counter!(names::FINE_TUNE_JOBS_TOTAL, "status" => status.clone())
                        .increment(1);
                    tracing::info!(job_id = %job.id, from = %job.status, to = %status, "fine-tune job");
                }
                true
            }
            Ok(false) => {
                tracing::warn!(job_id = %job.id, "the fine-tune job's lease was lost; another process has it");
                false
            }
            Err(error) => {
                tracing::error!(job_id = %job.id, %error, "cannot record a fine-tune step; it runs again after the lease");
                false
            }
        }
    }

    /// One step of one job.
    async fn step(&self, mut job: FineTuneRecord) {
        let now = self.services.clock.now();
        let outcome = if job.provider_job_id.is_none() {
            if job.status == "queued" {
                let step = FineTuneStep {
                    status: Some("uploading".to_string()),
                    attempts: job.attempts,
                    next_action_at: now,
                    release: false,
                    ..FineTuneStep::default()
                };
                if !self.record(&job, step).await {
                    return;
                }
                job.status = "uploading".to_string();
            }
            self.start(&mut job).await
        } else {
            self.poll(&job).await
        };
        let step = match outcome {
            Ok(Next::Poll(step)) | Ok(Next::Finished(step)) => step,
            Err(ProviderError::Rejected { status, message }) => failed(
                RecordCode::ProviderRejected.as_str(),
                format!("the provider answered {status}: {message}"),
                now,
            ),
            Err(ProviderError::Transient(reason)) => {
                let attempts = job.attempts + 1;
                if job.provider_job_id.is_none()
                    && attempts >= self.services.settings.max_attempts as i32
                {
                    failed(
                        RecordCode::ProviderUnavailable.as_str(),
                        format!(
                            "the provider could not be reached after {attempts} attempts: {reason}"
                        ),
                        now,
                    )
                } else {
                    let delay = self
                        .services
                        .settings
                        .retry_backoff_ms
                        .saturating_mul(1 << (attempts - 1).clamp(0, 20))
                        .min(self.services.settings.retry_max_ms);
                    tracing::warn!(job_id = %job.id, attempts, delay_ms = delay, %reason, "fine-tune provider unavailable; retrying");
                    FineTuneStep {
                        attempts,
                        next_action_at: now + chrono::Duration::milliseconds(delay as i64),
                        release: true,
                        ..FineTuneStep::default()
                    }
                }
            }
        };
        self.record(&job, step).await;
    }

    /// Up to the provider's job: the training file (built and uploaded, or found), then the job
    /// (created, or found).
    async fn start(&self, job: &mut FineTuneRecord) -> Result<Next, ProviderError> {
        let now = self.services.clock.now();
        let filename = format!("docsieve-{}.jsonl", job.id);
        if job.training_file_id.is_none() {
            let found = self.provider.find_file(&filename).await?;
            let (file_id, rows) = match found {
                Some(file) => (file.id, None),
                None => {
                    let (bytes, rows) = match self.training_file(job).await {
                        Ok(built) => built,
                        Err((code, message)) => {
                            return Ok(Next::Finished(failed(&code, message, now)));
                        }
                    };
                    let file = self.provider.upload_file(&filename, bytes).await?;
                    (file.id, Some(rows))
                }
            };
            let step = FineTuneStep {
                training_file_id: Some(file_id.clone()),
                training_rows: rows,
                attempts: 0,
                next_action_at: now,
                release: false,
                ..FineTuneStep::default()
            };
            if !self.record(job, step).await {
                // Lost the job: whoever has it now finds the file by its name.
                return Ok(Next::Poll(FineTuneStep {
                    attempts: job.attempts,
                    next_action_at: now,
                    release: true,
                    ..FineTuneStep::default()
                }));
            }
            job.training_file_id = Some(file_id);
        }
        let file_id = job.training_file_id.clone().unwrap_or_default();
        let created = match self.provider.find_job(&file_id).await? {
            Some(existing) => existing,
            None => {
                self.provider
                    .create_job(&file_id, &job.model, job.suffix.as_deref())
                    .await?
            }
        };
        Ok(self.provider_state(created, now))
    }

    async fn poll(&self, job: &FineTuneRecord) -> Result<Next, ProviderError> {
        let id = job.provider_job_id.clone().unwrap_or_default();
        let found = self.provider.job(&id).await?;
        Ok(self.provider_state(found, self.services.clock.now()))
    }

    fn provider_state(&self, found: provider::ProviderJob, now: DateTime<Utc>) -> Next {
        let status = our_status(&found.status);
        let mut step = FineTuneStep {
            status: Some(status.to_string()),
            provider_job_id: Some(found.id),
            fine_tuned_model: found.fine_tuned_model,
            attempts: 0,
            next_action_at: now
                + chrono::Duration::seconds(self.services.settings.poll_interval_seconds as i64),
            release: true,
            ..FineTuneStep::default()
        };
        match status {
            "validating" | "running" => Next::Poll(step),
            _ => {
                if status == "failed" {
                    let error = found.error.unwrap_or_default();
                    step.error = Some((
                        RecordCode::ProviderJobFailed.as_str().to_string(),
                        error
                            .message
                            .or(error.code)
                            .unwrap_or_else(|| "the provider reports the job failed".to_string()),
                    ));
                }
                Next::Finished(step)
            }
        }
    }

    /// The dataset's rows as the training file: its bytes and row count, or the failure's code and
    /// message.
    async fn training_file(
        &self,
        job: &FineTuneRecord,
    ) -> Result<(Vec<u8>, i64), (String, String)> {
        let services = &self.services;
        let dataset = services
            .store
            .dataset(job.tenant_id, &job.dataset_id)
            .await
            .map_err(|error| {
                (
                    RecordCode::StorageError.as_str().to_string(),
                    error.to_string(),
                )
            })?
            .ok_or_else(|| {
                (
                    RecordCode::DatasetUnavailable.as_str().to_string(),
                    "the dataset was deleted".to_string(),
                )
            })?;
        let schema: serde_json::Value = dataset
            .schema_json
            .as_deref()
            .and_then(|s| serde_json::from_str(s).ok())
            .unwrap_or_default();
        let Some(rows_key) = schema["rows_blob_key"].as_str() else {
            return Err((
                RecordCode::DatasetUnavailable.as_str().to_string(),
                "the dataset has no built rows".to_string(),
            ));
        };
        let surrogates = crate::privacy::surrogate_types_by_version(&services.store, job.tenant_id)
            .await
            .map_err(|error| {
                (
                    RecordCode::StorageError.as_str().to_string(),
                    error.to_string(),
                )
            })?;
        std::fs::create_dir_all(&services.scratch_dir).map_err(|error| {
            (
                RecordCode::TrainingFileFailed.as_str().to_string(),
                error.to_string(),
            )
        })?;
        let rows_path = services.scratch_dir.join(format!("{}-rows.jsonl", job.id));
        let out_path = services.scratch_dir.join(format!("{}-train.jsonl", job.id));
        let cleanup = |paths: [&PathBuf; 2]| {
            for path in paths {
                let _ = std::fs::remove_file(path);
            }
        };
        if let Err(error) = services.blobs.download_to(rows_key, &rows_path).await {
            cleanup([&rows_path, &out_path]);
            return Err((
                RecordCode::DatasetUnavailable.as_str().to_string(),
                error.to_string(),
            ));
        }
        let template = training::templates(&services.settings, job.templates.as_deref())
            .map_err(|message| (RecordCode::TrainingFileFailed.as_str().to_string(), message))?;
        let (rows_in, out_in) = (rows_path.clone(), out_path.clone());
        let written = tokio::task::spawn_blocking(move || {
            training::write_training_file(&rows_in, &out_in, &template, &surrogates)
        })
        .await
        .unwrap_or_else(|error| Err(TrainingError::Io(error.to_string())));
        let result = match written {
            Ok(written) => std::fs::read(&out_path)
                .map(|bytes| (bytes, written.rows))
                .map_err(|error| {
                    (
                        RecordCode::TrainingFileFailed.as_str().to_string(),
                        error.to_string(),
                    )
                }),
            Err(error) => Err((error.code().to_string(), error.to_string())),
        };
        cleanup([&rows_path, &out_path]);
        result
    }
}

/// Gives back this process's leases (a clean shutdown).
pub async fn release_leases(store: &Store, owner: &str) {
    match store.release_fine_tune_leases(owner).await {
        Ok(0) => {}
        Ok(n) => tracing::info!(released = n, "fine-tune job leases given back"),
        Err(error) => tracing::warn!(%error, "fine-tune leases not given back; they expire"),
    }
}
