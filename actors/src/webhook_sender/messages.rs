//! The request of the webhook_sender actor.

/// Events were queued in the outbox: deliver what is due now instead of at the next poll.
pub struct Wake;
