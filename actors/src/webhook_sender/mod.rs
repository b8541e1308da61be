//! The webhook_sender actor: signs and delivers webhook events from the database outbox.
//!
//! This actor only schedules, bounds and reports; the engine it runs is plain synchronous code in this
//! folder, tested and benchmarked on its own. It must never block its arbiter thread.

pub mod messages;

use actix::Context;

use crate::runtime::{Cell, Logic, Outcome};
pub use messages::WebhookSenderCommand;

/// State of the webhook_sender actor.
#[derive(Default)]
pub struct WebhookSender;

impl Logic for WebhookSender {
    const NAME: &'static str = "webhook_sender";
    type Command = WebhookSenderCommand;
    type Reply = ();

    fn handle(
        &mut self,
        command: WebhookSenderCommand,
        _ctx: &mut Context<Cell<Self>>,
    ) -> Outcome<()> {
        match command {}
    }
}
