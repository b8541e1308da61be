//! What every handler can reach: settings, store, blobs, cache, clock and the actor handles.

use std::sync::Arc;
use std::time::Instant;

use docsieve_actors::blob::Blobs;
use docsieve_actors::cache::Cache;
use docsieve_actors::clock::Clock;
use docsieve_actors::store::Store;
use docsieve_actors::system::ActorHandles;
use metrics_exporter_prometheus::PrometheusHandle;

use crate::config::Settings;
use crate::mail::Mailer;
use docsieve_actors::llm::Llm;

#[derive(Clone)]
pub struct AppState {
    pub settings: Arc<Settings>,
    pub store: Store,
    pub blobs: Blobs,
    pub cache: Arc<dyn Cache>,
    pub clock: Clock,
    pub actors: ActorHandles,
    pub metrics: PrometheusHandle,
    pub llm: Llm,
    pub mailer: Mailer,
    /// What connector work needs (source-mode uploads, triggered syncs, connection tests).
    pub connectors: docsieve_actors::connector::ConnectorServices,
    /// Encrypts webhook secrets at rest.
    pub secrets: docsieve_actors::secrets::SecretBox,
    /// Tenants' privacy policies and pseudonym keys (shared with the job worker, one cache).
    pub privacy: docsieve_actors::privacy::Privacy,
    /// Signs erasure and closure receipts (the server's Ed25519 key).
    pub receipts: Arc<docsieve_actors::receipts::ReceiptSigner>,
    pub started_at: Instant,
}
