//! The webhook_sender actor: signs and delivers webhook events from the database outbox.
//!
//! Events are written to `webhook_deliveries` in the same transaction as the state change they report
//! (a job's completion, a dataset's build). The sender claims due rows, POSTs them with their
//! signatures, logs every attempt, and schedules a retry after `webhooks.retry_backoff_ms` (doubling)
//! until `webhooks.max_attempts`. At most one delivery per webhook runs at once in a process and every
//! request has a timeout, so a slow receiver only delays its own events. Wake-ups come through the
//! cache (any process's outbox write wakes every sender); a poll catches the rest.

mod messages;
mod signing;

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use actix::{AsyncContext, Context};

use crate::cache::Cache;
use crate::clock::Clock;
use crate::metric_names as names;
use crate::runtime::{Cell, Logic, Outcome, Request};
use crate::secrets::SecretBox;
use crate::settings::WebhooksSettings;
use crate::store::{AttemptNext, AttemptRecord, ClaimedDelivery, Store};
pub use messages::Wake;
pub use signing::new_secret;
use signing::{service_signature, standard_signature};

#[derive(Clone)]
pub struct WebhookServices {
    pub store: Store,
    pub cache: Arc<dyn Cache>,
    pub clock: Clock,
    pub settings: WebhooksSettings,
    pub secrets: SecretBox,
    /// For `auto_export` of `dataset.ready`: the export writer and the connectors.
    pub exports: crate::dataset_exporter::ExportServices,
    pub connectors: crate::connector::ConnectorServices,
}

struct Sender {
    services: WebhookServices,
    client: reqwest::Client,
    slots: usize,
    busy: Mutex<HashSet<i64>>,
    pumping: AtomicBool,
    again: AtomicBool,
}

impl Sender {
    fn busy(&self) -> MutexGuard<'_, HashSet<i64>> {
        self.busy
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn kick(self: &Arc<Self>) {
        let sender = self.clone();
        actix::spawn(async move { sender.pump().await });
    }

    async fn pump(self: Arc<Self>) {
        loop {
            if self.pumping.swap(true, Ordering::AcqRel) {
                self.again.store(true, Ordering::Release);
                return;
            }
            self.again.store(false, Ordering::Release);
            loop {
                let busy: Vec<i64> = self.busy().iter().copied().collect();
                if busy.len() >= self.slots {
                    break;
                }
                let now = self.services.clock.now();
                let hold = now
                    + chrono::Duration::milliseconds(
                        self.services.settings.timeout_ms as i64 + 30_000,
                    );
                match self.services.store.claim_delivery(now, hold, &busy).await {
                    Ok(Some(delivery)) => {
                        self.busy().insert(delivery.webhook_id);
                        let sender = self.clone();
                        actix::spawn(async move {
                            sender.deliver(&delivery).await;
                            sender.busy().remove(&delivery.webhook_id);
                            sender.kick();
                        });
                    }
                    Ok(None) => break,
                    Err(error) => {
                        tracing::warn!(%error, "claiming webhook deliveries failed");
                        break;
                    }
                }
            }
            self.pumping.store(false, Ordering::Release);
            if !self.again.swap(false, Ordering::AcqRel) {
                return;
            }
        }
    }

    /// Performs the webhook's `auto_export` before its first send (the payload then holds the
    /// outcome, kept for every later attempt).
    /// Returns the delivery with its new payload when an export ran, None otherwise.
    async fn export_first(&self, delivery: &ClaimedDelivery) -> Option<ClaimedDelivery> {
        if delivery.event != "dataset.ready" {
            return None;
        }
        let auto_export = delivery
            .auto_export
            .as_deref()
            .and_then(|raw| serde_json::from_str::<serde_json::Value>(raw).ok())?;
        let payload = serde_json::from_str::<serde_json::Value>(&delivery.payload).ok()?;
        if payload.get("export").is_some() {
            return None;
        }
        let services = &self.services;
        let payload = crate::dataset_exporter::auto_export(
            &services.connectors,
            &services.exports,
            delivery.tenant_id,
            &auto_export,
            &payload,
        )
        .await;
        let mut updated = delivery.clone();
        updated.payload = payload.to_string();
        if let Err(error) = services
            .store
            .set_delivery_payload(updated.id, &updated.payload)
            .await
        {
            tracing::warn!(delivery_id = updated.id, %error, "cannot keep the export's outcome in the delivery");
        }
        Some(updated)
    }

    async fn deliver(&self, delivery: &ClaimedDelivery) {
        let exported = self.export_first(delivery).await;
        let delivery = exported.as_ref().unwrap_or(delivery);
        let settings = &self.services.settings;
        let started = Instant::now();
        let (status_code, error) = match self.send(delivery).await {
            Ok(code) => (Some(i32::from(code)), None),
            Err((code, message)) => (code.map(i32::from), Some(message)),
        };
        let elapsed = started.elapsed();
        let succeeded = error.is_none() && status_code.is_some_and(|c| (200..300).contains(&c));
        let now = self.services.clock.now();
        let next = if succeeded {
            AttemptNext::Delivered
        } else if delivery.attempt >= settings.max_attempts as i32 {
            AttemptNext::Failed
        } else {
            let factor = 1u64 << (delivery.attempt.clamp(1, 16) - 1);
            AttemptNext::RetryAt(
                now + chrono::Duration::milliseconds((settings.retry_backoff_ms * factor) as i64),
            )
        };
        let outcome = match next {
            AttemptNext::Delivered => "delivered",
            AttemptNext::Failed => "failed",
            AttemptNext::RetryAt(_) => "retry",
        };
        metrics::counter!(names::WEBHOOK_DELIVERIES_TOTAL, "outcome" => outcome).increment(1);
        metrics::histogram!(names::WEBHOOK_DELIVERY_DURATION_SECONDS).record(elapsed.as_secs_f64());
        let error = error.or_else(|| {
            (!succeeded).then(|| format!("the receiver answered {}", status_code.unwrap_or(0)))
        });
        let record = AttemptRecord {
            status_code,
            error,
            duration_ms: elapsed.as_millis().min(i64::MAX as u128) as i64,
            next,
        };
        if let Err(error) = self
            .services
            .store
            .record_attempt(delivery, record, now)
            .await
        {
            // The claim lapses and the delivery is attempted again: at least once, never lost.
            tracing::warn!(delivery_id = delivery.id, %error, "cannot record a webhook attempt");
        }
    }

    /// One POST. Ok: the status code; Err: the status code if any and why it failed.
    async fn send(&self, delivery: &ClaimedDelivery) -> Result<u16, (Option<u16>, String)> {
        let url = crate::egress::check_target(
            &delivery.url,
            self.services.settings.allow_private_targets,
        )
        .await
        .map_err(|reason| (None, format!("target refused: {reason}")))?;
        let secret = self
            .services
            .secrets
            .open(&delivery.secret_encrypted)
            .ok_or((None, "the webhook secret cannot be decrypted".to_string()))?;
        let body = delivery.payload.as_bytes().to_vec();
        let id = format!("msg_{}", delivery.id);
        let timestamp = self.services.clock.now().timestamp();
        let response = self
            .client
            .post(url)
            .header("Content-Type", "application/json")
            .header(
                "User-Agent",
                concat!("docsieve-webhooks/", env!("CARGO_PKG_VERSION")),
            )
            .header("X-Service-Signature", service_signature(&secret, &body))
            .header("X-Service-Event", delivery.event.as_str())
            .header("webhook-id", id.as_str())
            .header("webhook-timestamp", timestamp.to_string())
            .header(
                "webhook-signature",
                standard_signature(&secret, &id, timestamp, &body),
            )
            .body(body)
            .send()
            .await
            .map_err(|error| {
                let kind = if error.is_timeout() {
                    "timed out"
                } else {
                    "connection failed"
                };
                (None, format!("{kind}: {}", error.without_url()))
            })?;
        Ok(response.status().as_u16())
    }
}

/// State of the webhook_sender actor.
#[derive(Default)]
pub struct WebhookSender {
    sender: Option<Arc<Sender>>,
    poll_interval: Duration,
}

impl WebhookSender {
    pub fn new(services: WebhookServices, slots: usize) -> WebhookSender {
        // The guard's client: no redirects, and the address checked again when it connects.
        let client = crate::egress::client_builder(services.settings.allow_private_targets)
            .timeout(Duration::from_millis(services.settings.timeout_ms))
            .build()
            .unwrap_or_default();
        let poll_interval = Duration::from_millis(services.settings.poll_interval_ms);
        WebhookSender {
            sender: Some(Arc::new(Sender {
                services,
                client,
                slots: slots.max(1),
                busy: Mutex::new(HashSet::new()),
                pumping: AtomicBool::new(false),
                again: AtomicBool::new(false),
            })),
            poll_interval,
        }
    }
}

impl Logic for WebhookSender {
    const NAME: &'static str = "webhook_sender";

    fn started(&mut self, ctx: &mut Context<Cell<Self>>) {
        let Some(sender) = self.sender.clone() else {
            return;
        };
        let ticking = sender.clone();
        ctx.run_interval(self.poll_interval, move |_, _| ticking.kick());
        let wakeups = sender.services.cache.wakeups();
        let listener = sender.clone();
        ctx.spawn(actix::fut::wrap_future::<_, Cell<Self>>(
            crate::cache::on_wake(wakeups, crate::cache::WEBHOOKS_WAKE, move || {
                listener.kick()
            }),
        ));
        sender.kick();
    }
}

impl Request<WebhookSender> for Wake {
    type Reply = ();

    fn handle(
        self,
        sender: &mut WebhookSender,
        _ctx: &mut Context<Cell<WebhookSender>>,
    ) -> Outcome<()> {
        if let Some(sender) = &sender.sender {
            sender.kick();
        }
        Outcome::Ready(())
    }
}
