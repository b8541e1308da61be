//! Commands of the webhook_sender actor.

/// What the webhook_sender accepts.
pub enum WebhookSenderCommand {
    /// Events were queued in the outbox: deliver what is due now instead of at the next poll.
    Wake,
}
