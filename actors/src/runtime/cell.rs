//! [`Cell`]: the actix actor that runs one [`Logic`] under supervision.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

use actix::prelude::*;
use futures_util::future::BoxFuture;
use futures_util::FutureExt;

use super::handle::{ActorError, ActorHandle};
use super::registry::ActorRegistry;

/// What a [`Logic`] returns for a command: an answer now, or a future that produces it (I/O, or CPU
/// work handed to a pool). A pending future runs inside the actor's context, so a restart cancels it.
pub enum Outcome<R> {
    Ready(R),
    Pending(BoxFuture<'static, R>),
}

/// One actor's state and lifecycle, free of supervision concerns. What it answers is a
/// [`Request`] each.
pub trait Logic: Sized + Unpin + Send + 'static {
    /// The actor's name in logs, metrics and the health report (its config key under `[actors]`).
    const NAME: &'static str;

    /// Runs on first start and after every restart (timers, reloading pending work from the store).
    fn started(&mut self, _ctx: &mut Context<Cell<Self>>) {}

    /// Runs before a restart: drop in-memory state that a panic may have left half-updated.
    fn reset(&mut self) {}
}

/// One kind of request an actor `L` answers, with its own reply type: callers get that type back
/// from [`ActorHandle::call`], so none of them matches on replies.
pub trait Request<L: Logic>: Send + 'static {
    type Reply: Send + 'static;

    fn handle(self, logic: &mut L, ctx: &mut Context<Cell<L>>) -> Outcome<Self::Reply>;
}

/// The numbers supervision needs for one actor.
#[derive(Clone, Debug)]
pub struct SupervisionSettings {
    pub pool_size: usize,
    pub mailbox_capacity: usize,
    pub heartbeat_interval: Duration,
    pub call_timeout: Duration,
    pub backoff_initial: Duration,
    pub backoff_max: Duration,
}

impl SupervisionSettings {
    /// The delay before the `attempt`-th consecutive restart (0-based): doubling, capped.
    pub fn backoff(&self, attempt: u32) -> Duration {
        let factor = 1u32.checked_shl(attempt.min(16)).unwrap_or(u32::MAX);
        self.backoff_initial
            .saturating_mul(factor)
            .min(self.backoff_max)
    }
}

/// A request with its reply channel, its type erased so that one mailbox takes every kind: `job`
/// handles it and delivers the answer; `fail` answers the caller with an error instead when the job
/// panics.
pub(crate) type Job<L> = Box<dyn FnOnce(&mut L, &mut Context<Cell<L>>) -> Outcome<()> + Send>;
pub(crate) type Fail = Box<dyn FnOnce(ActorError) + Send>;

/// The messages a cell understands. Requests carry their reply channel so that callers can use
/// `try_send` (bounded, fails fast) and still get an answer.
pub(crate) enum Envelope<L: Logic> {
    Call {
        job: Job<L>,
        fail: Fail,
    },
    Ping {
        reply: tokio::sync::oneshot::Sender<()>,
    },
    InjectPanic,
}

impl<L: Logic> Message for Envelope<L> {
    type Result = ();
}

pub struct Cell<L: Logic> {
    logic: L,
    registry: ActorRegistry,
    settings: SupervisionSettings,
    consecutive_restarts: u32,
    last_restart: Option<Instant>,
    pending_backoff: Option<Duration>,
}

impl<L: Logic> Cell<L> {
    fn crashed(&mut self, ctx: &mut Context<Self>, payload: Box<dyn std::any::Any + Send>) {
        self.registry.record_panic(L::NAME);
        tracing::error!(
            actor = L::NAME,
            panic = %super::panic_message(payload.as_ref()),
            "actor panicked; it will be restarted"
        );
        ctx.stop();
    }
}

impl<L: Logic> Actor for Cell<L> {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        self.registry.heartbeat(L::NAME);
        ctx.run_interval(self.settings.heartbeat_interval, |cell, _| {
            cell.registry.heartbeat(L::NAME)
        });
        if let Some(delay) = self.pending_backoff.take() {
            // `wait` holds back every message until the delay has passed: that is the backoff.
            ctx.wait(actix::clock::sleep(delay).into_actor(self));
        }
        let logic = &mut self.logic;
        if let Err(payload) = catch_unwind(AssertUnwindSafe(|| logic.started(ctx))) {
            self.crashed(ctx, payload);
        }
    }
}

impl<L: Logic> Supervised for Cell<L> {
    fn restarting(&mut self, _ctx: &mut Context<Self>) {
        let now = Instant::now();
        // A restart long after the previous one starts the backoff from the beginning again.
        let calm = self
            .last_restart
            .is_none_or(|last| now.duration_since(last) > self.settings.backoff_max * 4);
        if calm {
            self.consecutive_restarts = 0;
        }
        let delay = self.settings.backoff(self.consecutive_restarts);
        self.consecutive_restarts = self.consecutive_restarts.saturating_add(1);
        self.last_restart = Some(now);
        self.pending_backoff = Some(delay);
        self.registry.record_restart(L::NAME);
        let logic = &mut self.logic;
        if catch_unwind(AssertUnwindSafe(|| logic.reset())).is_err() {
            self.registry.record_panic(L::NAME);
        }
        tracing::warn!(
            actor = L::NAME,
            delay_ms = delay.as_millis() as u64,
            "restarting actor"
        );
    }
}

impl<L: Logic> Handler<Envelope<L>> for Cell<L> {
    type Result = ();

    fn handle(&mut self, envelope: Envelope<L>, ctx: &mut Context<Self>) {
        match envelope {
            Envelope::Ping { reply } => {
                let _ = reply.send(());
            }
            Envelope::InjectPanic => {
                let injected = catch_unwind(|| -> () {
                    panic!("fault injected into actor {}", L::NAME);
                });
                if let Err(payload) = injected {
                    self.crashed(ctx, payload);
                }
            }
            Envelope::Call { job, fail } => {
                let logic = &mut self.logic;
                match catch_unwind(AssertUnwindSafe(|| job(logic, ctx))) {
                    Ok(Outcome::Ready(())) => {}
                    Ok(Outcome::Pending(future)) => {
                        let registry = self.registry.clone();
                        let task = async move {
                            match AssertUnwindSafe(future).catch_unwind().await {
                                Ok(()) => {}
                                Err(payload) => {
                                    // The future owns no actor state, so the actor itself stays up.
                                    registry.record_panic(L::NAME);
                                    tracing::error!(
                                        actor = L::NAME,
                                        panic = %super::panic_message(payload.as_ref()),
                                        "actor task panicked"
                                    );
                                    fail(ActorError::Panicked { actor: L::NAME });
                                }
                            }
                        };
                        ctx.spawn(task.into_actor(self));
                    }
                    Err(payload) => {
                        fail(ActorError::Panicked { actor: L::NAME });
                        self.crashed(ctx, payload);
                    }
                }
            }
        }
    }
}

/// Starts `logic` under an actix `Supervisor` on `arbiter` and returns its bounded handle.
pub fn start_supervised<L: Logic>(
    logic: L,
    settings: SupervisionSettings,
    registry: &ActorRegistry,
    arbiter: &ArbiterHandle,
) -> ActorHandle<L> {
    registry.register(
        L::NAME,
        settings.pool_size,
        settings.mailbox_capacity,
        settings.heartbeat_interval,
    );
    let capacity = settings.mailbox_capacity;
    let cell_settings = settings.clone();
    let cell_registry = registry.clone();
    let addr = Supervisor::start_in_arbiter(arbiter, move |ctx: &mut Context<Cell<L>>| {
        ctx.set_mailbox_capacity(capacity);
        Cell {
            logic,
            registry: cell_registry,
            settings: cell_settings,
            consecutive_restarts: 0,
            last_restart: None,
            pending_backoff: None,
        }
    });
    ActorHandle::new(addr, &settings, registry.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_and_caps() {
        let settings = SupervisionSettings {
            pool_size: 1,
            mailbox_capacity: 1,
            heartbeat_interval: Duration::from_secs(1),
            call_timeout: Duration::from_secs(1),
            backoff_initial: Duration::from_millis(100),
            backoff_max: Duration::from_millis(1000),
        };
        assert_eq!(settings.backoff(0), Duration::from_millis(100));
        assert_eq!(settings.backoff(1), Duration::from_millis(200));
        assert_eq!(settings.backoff(3), Duration::from_millis(800));
        assert_eq!(settings.backoff(4), Duration::from_millis(1000));
        assert_eq!(settings.backoff(40), Duration::from_millis(1000));
    }
}
