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

    fn reset(&mut self) {
        self.handled = 0;
    }
}

impl Request<Counter> for CounterCommand {
    type Reply = u32;

    fn handle(self, counter: &mut Counter, _ctx: &mut Context<Cell<Counter>>) -> Outcome<u32> {
        counter.handled += 1;
        match self {
            CounterCommand::Add => Outcome::Ready(counter.handled),
            CounterCommand::Slow(delay) => {
                let handled = counter.handled;
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

/// A second kind of request with a reply type of its own.
struct Handled;

impl Request<Counter> for Handled {
    type Reply = String;

    fn handle(self, counter: &mut Counter, _ctx: &mut Context<Cell<Counter>>) -> Outcome<String> {
        Outcome::Ready(format!("{} handled", counter.handled))
    }
}

/// A counter under supervision with `capacity`, on an arbiter of its own.
fn start(capacity: usize) -> (ActorRegistry, Arbiter, ActorHandle<Counter>) {
    let registry = ActorRegistry::default();
    let arbiter = Arbiter::new();
    let handle = start_supervised(
        Counter::default(),
        settings(capacity),
        &registry,
        &arbiter.handle(),
    );
    (registry, arbiter, handle)
}

#[actix::test]
async fn each_kind_of_request_gets_its_own_reply_type() {
    let (_registry, arbiter, handle) = start(8);
    let count: u32 = handle.call(CounterCommand::Add).await.expect("add");
    let said: String = handle.call(Handled).await.expect("handled");
    assert_eq!((count, said.as_str()), (1, "1 handled"));
    arbiter.stop();
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
    let (registry, arbiter, handle) = start(2);
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
    let (registry, arbiter, handle) = start(8);
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
    let (registry, arbiter, handle) = start(8);
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
    let (_registry, arbiter, handle) = start(8);
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

static RELEASES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

fn count_release() {
    RELEASES.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
}

#[test]
fn freed_memory_is_given_back_after_large_work_only() {
    set_memory_release(count_release);
    let before = RELEASES.load(std::sync::atomic::Ordering::SeqCst);
    release_memory_after(LARGE_WORK_BYTES - 1);
    assert_eq!(RELEASES.load(std::sync::atomic::Ordering::SeqCst), before);
    release_memory_after(LARGE_WORK_BYTES);
    assert_eq!(
        RELEASES.load(std::sync::atomic::Ordering::SeqCst),
        before + 1
    );
}
