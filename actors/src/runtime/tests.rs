//! Supervision and admission, on a small actor written for the purpose.

use std::time::Duration;

use actix::{Arbiter, Context};

use super::*;

/// Counts commands; `Slow` holds its admission for a while, `Explode` panics in the handler and
/// `ExplodeLater` panics inside the pending future.
#[derive(Default)]
struct Counter {
    handled: u32,
}

enum CounterCommand {
    Add,
    Slow(Duration),
    Explode,
    ExplodeLater,
}

impl Logic for Counter {
    const NAME: &'static str = "counter";
    type Command = CounterCommand;
    type Reply = u32;

    fn reset(&mut self) {
        self.handled = 0;
    }

    fn handle(&mut self, command: CounterCommand, _ctx: &mut Context<Cell<Self>>) -> Outcome<u32> {
        self.handled += 1;
        match command {
            CounterCommand::Add => Outcome::Ready(self.handled),
            CounterCommand::Slow(delay) => {
                let handled = self.handled;
                Outcome::Pending(Box::pin(async move {
                    tokio::time::sleep(delay).await;
                    handled
                }))
            }
            CounterCommand::Explode => panic!("boom"),
            CounterCommand::ExplodeLater => Outcome::Pending(Box::pin(async { panic!("later") })),
        }
    }
}

fn settings(capacity: usize) -> SupervisionSettings {
    SupervisionSettings {
        pool_size: 1,
        mailbox_capacity: capacity,
        heartbeat_interval: Duration::from_millis(50),
        call_timeout: Duration::from_secs(5),
        backoff_initial: Duration::from_millis(10),
        backoff_max: Duration::from_millis(100),
    }
}

#[actix::test]
async fn calls_beyond_capacity_are_refused_not_queued() {
    let registry = ActorRegistry::default();
    let arbiter = Arbiter::new();
    let handle = start_supervised(
        Counter::default(),
        settings(2),
        &registry,
        &arbiter.handle(),
    );
    let slow = Duration::from_millis(300);
    let first = tokio::spawn({
        let handle = handle.clone();
        async move { handle.call(CounterCommand::Slow(slow)).await }
    });
    let second = tokio::spawn({
        let handle = handle.clone();
        async move { handle.call(CounterCommand::Slow(slow)).await }
    });
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(registry.snapshot()["counter"].mailbox_depth, 2);
    let refused = handle.call(CounterCommand::Add).await;
    assert!(
        matches!(refused, Err(ActorError::Overloaded { capacity: 2, .. })),
        "{refused:?}"
    );
    assert!(first.await.expect("join").is_ok());
    assert!(second.await.expect("join").is_ok());
    // Capacity is released as calls finish.
    assert!(handle.call(CounterCommand::Add).await.is_ok());
    assert_eq!(registry.snapshot()["counter"].mailbox_depth, 0);
    arbiter.stop();
}

#[actix::test]
async fn a_panic_in_a_handler_restarts_the_actor_with_fresh_state() {
    let registry = ActorRegistry::default();
    let arbiter = Arbiter::new();
    let handle = start_supervised(
        Counter::default(),
        settings(8),
        &registry,
        &arbiter.handle(),
    );
    assert_eq!(handle.call(CounterCommand::Add).await.ok(), Some(1));
    assert_eq!(handle.call(CounterCommand::Add).await.ok(), Some(2));
    let crashed = handle.call(CounterCommand::Explode).await;
    assert!(
        matches!(crashed, Err(ActorError::Panicked { .. })),
        "{crashed:?}"
    );
    // Same handle, new incarnation: state was reset by `reset`.
    assert_eq!(handle.call(CounterCommand::Add).await.ok(), Some(1));
    let status = &registry.snapshot()["counter"];
    assert_eq!((status.restarts, status.panics), (1, 1));
    arbiter.stop();
}

#[actix::test]
async fn a_panic_in_a_pending_future_fails_only_that_call() {
    let registry = ActorRegistry::default();
    let arbiter = Arbiter::new();
    let handle = start_supervised(
        Counter::default(),
        settings(8),
        &registry,
        &arbiter.handle(),
    );
    let crashed = handle.call(CounterCommand::ExplodeLater).await;
    assert!(
        matches!(crashed, Err(ActorError::Panicked { .. })),
        "{crashed:?}"
    );
    assert_eq!(handle.call(CounterCommand::Add).await.ok(), Some(2));
    let status = &registry.snapshot()["counter"];
    assert_eq!((status.restarts, status.panics), (0, 1));
    arbiter.stop();
}

#[actix::test]
async fn a_slow_answer_times_out() {
    let registry = ActorRegistry::default();
    let arbiter = Arbiter::new();
    let handle = start_supervised(
        Counter::default(),
        settings(8),
        &registry,
        &arbiter.handle(),
    );
    let result = handle
        .call_within(
            CounterCommand::Slow(Duration::from_secs(2)),
            Duration::from_millis(50),
        )
        .await;
    assert!(
        matches!(result, Err(ActorError::Timeout { .. })),
        "{result:?}"
    );
    arbiter.stop();
}
