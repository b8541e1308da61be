//! Starts and supervises the actors, each on its own arbiter thread, and stops them in order.

use std::sync::Arc;
use std::time::Duration;

use actix::Arbiter;

use crate::dataset_exporter::{DatasetExporter, ExportServices};
use crate::extractor_pool::ExtractorPool;
use crate::job_router::{Drain, JobRouter, JobServices};
use crate::pii_masker::PiiMasker;
use crate::runtime::{
    start_supervised, ActorError, ActorHandle, ActorRegistry, ActorStatus, Logic,
    SupervisionSettings, UntypedHandle,
};
use crate::scheduler::{Scheduler, SchedulerServices};
use crate::settings::{ActorSettings, ActorsSettings};
use crate::webhook_sender::{WebhookSender, WebhookServices};

/// Typed handles to every actor. This is what the HTTP front holds.
#[derive(Clone)]
pub struct ActorHandles {
    pub job_router: ActorHandle<JobRouter>,
    pub extractor_pool: ActorHandle<ExtractorPool>,
    pub pii_masker: ActorHandle<PiiMasker>,
    pub dataset_exporter: ActorHandle<DatasetExporter>,
    pub scheduler: ActorHandle<Scheduler>,
    pub webhook_sender: ActorHandle<WebhookSender>,
    pub fine_tuner: ActorHandle<crate::fine_tuner::FineTuner>,
    registry: ActorRegistry,
}

/// The result of pinging one actor, for the health report.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ActorHealth {
    #[serde(flatten)]
    pub status: ActorStatus,
    pub ping_ms: Option<f64>,
    pub error: Option<String>,
}

impl ActorHandles {
    /// The processing pipeline on these actors for a caller of `tenant`'s who waits on the answer:
    /// `bytes` read within `limits` in the preview lane, then personal data detected in every part by
    /// `policy`, and masked when `mask` is set ([`crate::pipeline::process`]).
    pub async fn process(
        &self,
        tenant: i64,
        bytes: bytes::Bytes,
        limits: crate::extractor_pool::Limits,
        policy: crate::pii_masker::Policy,
        mask: bool,
    ) -> Result<Box<crate::pii_masker::MaskedDocument>, crate::pipeline::ProcessError> {
        crate::pipeline::process(
            &self.extractor_pool,
            &self.pii_masker,
            bytes,
            limits,
            crate::extractor_pool::Lane::Preview { tenant },
            policy,
            mask,
        )
        .await
    }

    /// The document in `bytes` given back in its own format, masked by `policy`, for a caller of
    /// `tenant`'s who waits on the answer ([`crate::pipeline::redact`]).
    pub async fn redact(
        &self,
        tenant: i64,
        bytes: bytes::Bytes,
        limits: crate::extractor_pool::Limits,
        policy: crate::pii_masker::Policy,
    ) -> Result<Box<crate::pii_masker::RedactedDocument>, crate::pipeline::ProcessError> {
        crate::pipeline::redact(
            &self.extractor_pool,
            &self.pii_masker,
            bytes,
            limits,
            crate::extractor_pool::Lane::Preview { tenant },
            policy,
        )
        .await
    }

    /// The document in `bytes` as read, and masked ([`crate::pipeline::read_and_mask`]).
    pub async fn read_and_mask(
        &self,
        tenant: i64,
        bytes: bytes::Bytes,
        limits: crate::extractor_pool::Limits,
    ) -> Result<
        (
            crate::model::Document,
            Box<crate::pii_masker::MaskedDocument>,
        ),
        crate::pipeline::ProcessError,
    > {
        let lane = crate::extractor_pool::Lane::Preview { tenant };
        crate::pipeline::read_and_mask(&self.extractor_pool, &self.pii_masker, bytes, limits, lane)
            .await
    }

    /// Writes one export format of a built dataset (`Err`: why it could not be written).
    pub async fn export(
        &self,
        tenant_id: i64,
        dataset_id: &str,
        format: crate::dataset_exporter::ExportFormat,
    ) -> Result<Result<crate::dataset_exporter::Exported, String>, ActorError> {
        self.dataset_exporter
            .call(crate::dataset_exporter::Export {
                tenant_id,
                dataset_id: dataset_id.to_string(),
                format,
            })
            .await
    }

    /// Every actor, as the operations they all share, in start order.
    pub fn all(&self) -> Vec<Arc<dyn UntypedHandle>> {
        vec![
            Arc::new(self.job_router.clone()),
            Arc::new(self.extractor_pool.clone()),
            Arc::new(self.pii_masker.clone()),
            Arc::new(self.dataset_exporter.clone()),
            Arc::new(self.scheduler.clone()),
            Arc::new(self.webhook_sender.clone()),
            Arc::new(self.fine_tuner.clone()),
        ]
    }

    /// Every actor's bookkeeping (heartbeat age, restarts, mailbox depth) without pinging.
    pub fn snapshot(&self) -> std::collections::BTreeMap<&'static str, ActorStatus> {
        self.registry.snapshot()
    }

    pub fn find(&self, name: &str) -> Option<Arc<dyn UntypedHandle>> {
        self.all().into_iter().find(|handle| handle.name() == name)
    }

    /// Pings every actor concurrently and merges the answers with the registry's bookkeeping. An actor
    /// is healthy when it answered its ping and its heartbeat is fresh.
    pub async fn health(&self) -> Vec<(&'static str, ActorHealth)> {
        let handles = self.all();
        let pings =
            futures_util::future::join_all(handles.iter().map(|handle| handle.ping())).await;
        let mut snapshot = self.registry.snapshot();
        handles
            .iter()
            .zip(pings)
            .filter_map(|(handle, ping)| {
                let mut status = snapshot.remove(handle.name())?;
                let (ping_ms, error) = match ping {
                    Ok(elapsed) => (Some(elapsed.as_secs_f64() * 1000.0), None),
                    Err(error) => {
                        status.status = match error {
                            ActorError::Overloaded { .. } => "busy",
                            _ => "unresponsive",
                        };
                        (None, Some(error.to_string()))
                    }
                };
                Some((
                    handle.name(),
                    ActorHealth {
                        status,
                        ping_ms,
                        error,
                    },
                ))
            })
            .collect()
    }
}

/// What the actors need from the rest of the system when they run for real (not in unit tests).
pub struct Services {
    /// How extraction worker processes start; None: documents are read on threads of this process.
    pub extraction: Option<crate::extractor_pool::WorkerCommand>,
    pub jobs: JobServices,
    pub exports: ExportServices,
    pub webhooks: WebhookServices,
    pub billing: crate::scheduler::BillingServices,
    pub fine_tune: crate::fine_tuner::FineTuneServices,
    pub connectors: crate::connector::ConnectorServices,
    /// Signs the receipts of tenant closures (the destruction run purges them).
    pub receipts: std::sync::Arc<crate::receipts::ReceiptSigner>,
}

/// The running actors and the arbiters they live on.
pub struct ActorSystem {
    handles: ActorHandles,
    arbiters: Vec<(&'static str, Arbiter)>,
}

fn supervision(all: &ActorsSettings, actor: &ActorSettings) -> SupervisionSettings {
    SupervisionSettings {
        pool_size: actor.pool_size,
        mailbox_capacity: actor.mailbox_capacity,
        heartbeat_interval: Duration::from_millis(all.heartbeat_interval_ms),
        call_timeout: Duration::from_millis(all.call_timeout_ms),
        backoff_initial: Duration::from_millis(all.restart_backoff_initial_ms),
        backoff_max: Duration::from_millis(all.restart_backoff_max_ms),
    }
}

fn start_on_own_arbiter<L: Logic>(
    logic: L,
    all: &ActorsSettings,
    actor: &ActorSettings,
    registry: &ActorRegistry,
    arbiters: &mut Vec<(&'static str, Arbiter)>,
) -> ActorHandle<L> {
    let arbiter = Arbiter::new();
    let handle = start_supervised(logic, supervision(all, actor), registry, &arbiter.handle());
    arbiters.push((L::NAME, arbiter));
    handle
}

impl ActorSystem {
    /// Starts every actor without a job queue (the job router only answers pings). Must run inside an
    /// actix `System` (`#[actix_web::main]`).
    pub fn start(settings: &ActorsSettings) -> ActorSystem {
        ActorSystem::start_with(settings, None)
    }

    /// Starts every actor; with `jobs`, the job router claims and runs jobs from the store.
    pub fn start_with(settings: &ActorsSettings, services: Option<Services>) -> ActorSystem {
        let orphan_grace = services.as_ref().map_or(Duration::ZERO, |services| {
            Duration::from_secs(services.jobs.jobs.orphan_grace_seconds)
        });
        let retention_every = services.as_ref().map_or(Duration::ZERO, |services| {
            Duration::from_secs(services.jobs.jobs.retention_interval_seconds)
        });
        let (extraction, jobs, exports, webhooks, scheduled, fine_tune) = match services {
            Some(services) => (
                services.extraction,
                Some(services.jobs),
                Some(services.exports.clone()),
                Some(services.webhooks),
                Some(SchedulerServices {
                    billing: services.billing,
                    exports: services.exports,
                    connectors: services.connectors,
                    orphan_grace,
                    retention_every,
                    receipts: services.receipts,
                }),
                Some(services.fine_tune),
            ),
            None => (None, None, None, None, None, None),
        };
        let registry = ActorRegistry::default();
        let mut arbiters = Vec::new();
        let arbiters_ref = &mut arbiters;
        let extractor_pool = start_on_own_arbiter(
            match extraction {
                Some(command) => {
                    ExtractorPool::isolated(settings.extractor_pool.pool_size, command)
                }
                None => ExtractorPool::new(settings.extractor_pool.pool_size),
            },
            settings,
            &settings.extractor_pool,
            &registry,
            arbiters_ref,
        );
        let pii_masker = start_on_own_arbiter(
            PiiMasker::new(settings.pii_masker.pool_size),
            settings,
            &settings.pii_masker,
            &registry,
            arbiters_ref,
        );
        let dataset_exporter = start_on_own_arbiter(
            match &exports {
                Some(services) => DatasetExporter::new(services.clone()),
                None => DatasetExporter::default(),
            },
            settings,
            &settings.dataset_exporter,
            &registry,
            arbiters_ref,
        );
        let router = match jobs {
            Some(services) => JobRouter::new(
                services,
                extractor_pool.clone(),
                pii_masker.clone(),
                dataset_exporter.clone(),
                settings.job_router.pool_size,
            ),
            None => JobRouter::idle(),
        };
        let job_router = start_on_own_arbiter(
            router,
            settings,
            &settings.job_router,
            &registry,
            arbiters_ref,
        );
        // The job router stops first, so nothing new is claimed while the pools wind down.
        let router_arbiter = arbiters_ref.remove(arbiters_ref.len() - 1);
        arbiters_ref.insert(0, router_arbiter);
        let handles = ActorHandles {
            job_router,
            extractor_pool,
            pii_masker,
            dataset_exporter,
            scheduler: start_on_own_arbiter(
                Scheduler::new(scheduled),
                settings,
                &settings.scheduler,
                &registry,
                arbiters_ref,
            ),
            webhook_sender: start_on_own_arbiter(
                match webhooks {
                    Some(services) => {
                        WebhookSender::new(services, settings.webhook_sender.pool_size)
                    }
                    None => WebhookSender::default(),
                },
                settings,
                &settings.webhook_sender,
                &registry,
                arbiters_ref,
            ),
            fine_tuner: start_on_own_arbiter(
                crate::fine_tuner::FineTuner::new(fine_tune, settings.fine_tuner.pool_size),
                settings,
                &settings.fine_tuner,
                &registry,
                arbiters_ref,
            ),
            registry,
        };
        ActorSystem { handles, arbiters }
    }

    pub fn handles(&self) -> ActorHandles {
        self.handles.clone()
    }

    /// Stops the actors in start order (the job router first, so no new work is claimed) and waits for
    /// each arbiter thread to finish.
    pub async fn shutdown(self, grace: Duration) {
        self.shutdown_when(grace, async {}).await;
    }

    /// [`ActorSystem::shutdown`], stopping the actors' threads only once `quiet` has finished (after
    /// the jobs are drained): the server waits there for a moment without queries in flight.
    pub async fn shutdown_when(
        self,
        grace: Duration,
        quiet: impl std::future::Future<Output = ()>,
    ) {
        // Running jobs get `grace` to finish; the leases of the others are given back at once, so
        // another process (or the next start) picks them up without waiting for them to expire.
        match self
            .handles
            .job_router
            .call_within(Drain { grace }, grace + Duration::from_secs(5))
            .await
        {
            Ok(reply) if reply.running > 0 => {
                tracing::info!(unfinished = reply.running, "jobs handed back to the queue")
            }
            Ok(_) => {}
            Err(error) => tracing::warn!(%error, "the job router did not drain"),
        }
        if let Err(error) = self
            .handles
            .fine_tuner
            .call_within(crate::fine_tuner::Release, Duration::from_secs(3))
            .await
        {
            tracing::warn!(%error, "the fine-tuner did not give back its leases; they expire");
        }
        quiet.await;
        // Every thread is told to stop before any is waited for, so that none goes on issuing queries
        // while the others are joined.
        for (_, arbiter) in &self.arbiters {
            arbiter.stop();
        }
        for (name, arbiter) in self.arbiters {
            let joined = tokio::task::spawn_blocking(move || arbiter.join()).await;
            match joined {
                Ok(Ok(())) => tracing::debug!(actor = name, "actor stopped"),
                _ => tracing::warn!(actor = name, "actor thread ended abnormally"),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::ActorSettings;

    fn settings() -> ActorsSettings {
        let actor = ActorSettings {
            pool_size: 1,
            mailbox_capacity: 4,
        };
        ActorsSettings {
            heartbeat_interval_ms: 50,
            call_timeout_ms: 2_000,
            restart_backoff_initial_ms: 20,
            restart_backoff_max_ms: 200,
            job_router: actor.clone(),
            extractor_pool: actor.clone(),
            pii_masker: actor.clone(),
            dataset_exporter: actor.clone(),
            scheduler: actor.clone(),
            webhook_sender: actor.clone(),
            fine_tuner: actor,
            billing_clock: None,
        }
    }

    #[actix::test]
    async fn a_panicking_actor_is_restarted_and_answers_again() {
        let system = ActorSystem::start(&settings());
        let handles = system.handles();
        let masker = handles.find("pii_masker").expect("pii_masker exists");
        masker.ping().await.expect("alive before the fault");
        masker.inject_panic().expect("fault delivered");
        // The ping waits in the mailbox through the restart and its backoff, then is answered.
        masker.ping().await.expect("alive after the restart");
        let health = handles.health().await;
        let (_, masker_health) = health
            .iter()
            .find(|(name, _)| *name == "pii_masker")
            .expect("reported");
        assert_eq!(masker_health.status.restarts, 1);
        assert_eq!(masker_health.status.panics, 1);
        assert!(health.iter().all(|(_, h)| h.error.is_none()));
        system.shutdown(Duration::from_secs(1)).await;
    }

    #[actix::test]
    async fn the_extractor_extracts_on_its_pool_and_enforces_the_time_limit() {
        use crate::extractor_pool::Extract;
        use crate::extractor_pool::Limits;
        let system = ActorSystem::start(&settings());
        let extractor = system.handles().extractor_pool;
        let document = extractor
            .call(Extract {
                bytes: bytes::Bytes::from_static(b"Merhaba, bu bir deneme metnidir."),
                limits: Limits::default(),
                lane: crate::extractor_pool::Lane::Preview { tenant: 1 },
                caller: None,
            })
            .await
            .expect("answered")
            .expect("extracted");
        assert_eq!(document.metadata.format, "txt");
        let error = extractor
            .call(Extract {
                bytes: bytes::Bytes::new(),
                limits: Limits::default(),
                lane: crate::extractor_pool::Lane::Preview { tenant: 1 },
                caller: None,
            })
            .await
            .expect("answered")
            .expect_err("empty");
        assert_eq!(error.code(), "empty_document");
        system.shutdown(Duration::from_secs(1)).await;
    }

    #[actix::test]
    async fn the_masker_masks_on_its_pool() {
        use crate::pii_masker::Mask;
        let system = ActorSystem::start(&settings());
        let masked = system
            .handles()
            .pii_masker
            .call(Mask {
                text: "TCKN 10000000146".to_string(),
                policy: Default::default(),
            })
            .await
            .expect("answered")
            .expect("masked");
        assert_eq!(masked.text, "TCKN [MASKED_NATIONAL_ID_TR]");
        system.shutdown(Duration::from_secs(1)).await;
    }
}
