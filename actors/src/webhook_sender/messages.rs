//! Commands of the webhook_sender actor.

/// What the webhook_sender accepts. Its commands arrive with the webhooks issue; until then it only answers the runtime's pings
/// and takes part in supervision.
pub enum WebhookSenderCommand {}
