//! [`ActorHandle`]: the bounded, typed way into an actor.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use actix::prelude::*;
use futures_util::future::BoxFuture;
use tokio::sync::oneshot;

use super::cell::{Cell, Envelope, Fail, Job, Logic, Outcome, Request, SupervisionSettings};
use super::registry::ActorRegistry;
use crate::metric_names;

/// Why a call into an actor did not produce an answer. None of these is the caller's fault.
#[derive(Clone, Debug, thiserror::Error)]
pub enum ActorError {
    #[error("the {actor} is at capacity ({capacity} requests in progress); retry shortly")]
    Overloaded {
        actor: &'static str,
        capacity: usize,
    },
    #[error("the {actor} is not running")]
    Stopped { actor: &'static str },
    #[error("the {actor} did not answer within {timeout_ms} ms")]
    Timeout {
        actor: &'static str,
        timeout_ms: u64,
    },
    #[error("the {actor} failed while handling the request")]
    Panicked { actor: &'static str },
}

impl ActorError {
    /// How long a client should wait before retrying, for the `Retry-After` header.
    pub fn retry_after_seconds(&self) -> u64 {
        match self {
            ActorError::Overloaded { .. } => 1,
            ActorError::Timeout { .. } | ActorError::Panicked { .. } => 2,
            ActorError::Stopped { .. } => 5,
        }
    }
}

/// Counts a request as in progress for as long as it lives.
struct Admission {
    inflight: Arc<AtomicUsize>,
    registry: ActorRegistry,
    actor: &'static str,
}

impl Drop for Admission {
    fn drop(&mut self) {
        let now = self
            .inflight
            .fetch_sub(1, Ordering::AcqRel)
            .saturating_sub(1);
        self.registry.set_mailbox_depth(self.actor, now);
    }
}

/// A typed handle to one supervised actor. Cloning is cheap; all clones share one admission counter,
/// so the mailbox capacity bounds the requests waiting *and* running, across every caller.
pub struct ActorHandle<L: Logic> {
    addr: Addr<Cell<L>>,
    inflight: Arc<AtomicUsize>,
    capacity: usize,
    call_timeout: Duration,
    registry: ActorRegistry,
}

impl<L: Logic> Clone for ActorHandle<L> {
    fn clone(&self) -> Self {
        Self {
            addr: self.addr.clone(),
            inflight: self.inflight.clone(),
            capacity: self.capacity,
            call_timeout: self.call_timeout,
            registry: self.registry.clone(),
        }
    }
}

impl<L: Logic> ActorHandle<L> {
    pub(crate) fn new(
        addr: Addr<Cell<L>>,
        settings: &SupervisionSettings,
        registry: ActorRegistry,
    ) -> Self {
        Self {
            addr,
            inflight: Arc::new(AtomicUsize::new(0)),
            capacity: settings.mailbox_capacity,
            call_timeout: settings.call_timeout,
            registry,
        }
    }

    fn admit(&self) -> Result<Admission, ActorError> {
        let before = self.inflight.fetch_add(1, Ordering::AcqRel);
        let admission = Admission {
            inflight: self.inflight.clone(),
            registry: self.registry.clone(),
            actor: L::NAME,
        };
        if before >= self.capacity {
            drop(admission);
            metrics::counter!(metric_names::ACTOR_REJECTED_TOTAL, "actor" => L::NAME).increment(1);
            return Err(ActorError::Overloaded {
                actor: L::NAME,
                capacity: self.capacity,
            });
        }
        self.registry.set_mailbox_depth(L::NAME, before + 1);
        Ok(admission)
    }

    /// Sends `request` and waits for its answer, at most the configured call timeout.
    pub async fn call<R: Request<L>>(&self, request: R) -> Result<R::Reply, ActorError> {
        self.call_within(request, self.call_timeout).await
    }

    /// Like [`call`](Self::call) with an explicit time limit (long-running work such as OCR).
    pub async fn call_within<R: Request<L>>(
        &self,
        request: R,
        timeout: Duration,
    ) -> Result<R::Reply, ActorError> {
        let _admission = self.admit()?;
        let (reply, answer) = oneshot::channel::<Result<R::Reply, ActorError>>();
        // The job answers with the reply, or `fail` with an error when the job panicked: whichever
        // comes first takes the channel.
        let slot = Arc::new(std::sync::Mutex::new(Some(reply)));
        let answer_slot = slot.clone();
        let job: Job<L> = Box::new(move |logic, ctx| {
            let deliver = move |value: R::Reply| {
                if let Some(reply) = answer_slot.lock().ok().and_then(|mut slot| slot.take()) {
                    let _ = reply.send(Ok(value));
                }
            };
            match request.handle(logic, ctx) {
                Outcome::Ready(value) => {
                    deliver(value);
                    Outcome::Ready(())
                }
                Outcome::Pending(future) => {
                    Outcome::Pending(Box::pin(async move { deliver(future.await) }))
                }
            }
        });
        let fail: Fail = Box::new(move |error| {
            if let Some(reply) = slot.lock().ok().and_then(|mut slot| slot.take()) {
                let _ = reply.send(Err(error));
            }
        });
        self.addr
            .try_send(Envelope::Call { job, fail })
            .map_err(|error| self.send_error(error))?;
        match tokio::time::timeout(timeout, answer).await {
            Err(_) => Err(ActorError::Timeout {
                actor: L::NAME,
                timeout_ms: timeout.as_millis() as u64,
            }),
            // The reply channel was dropped: the actor restarted while the request was in flight.
            Ok(Err(_)) => Err(ActorError::Stopped { actor: L::NAME }),
            Ok(Ok(result)) => result,
        }
    }

    fn send_error<M>(&self, error: SendError<M>) -> ActorError {
        match error {
            SendError::Full(_) => {
                metrics::counter!(metric_names::ACTOR_REJECTED_TOTAL, "actor" => L::NAME)
                    .increment(1);
                ActorError::Overloaded {
                    actor: L::NAME,
                    capacity: self.capacity,
                }
            }
            SendError::Closed(_) => ActorError::Stopped { actor: L::NAME },
        }
    }

    /// Round-trips a no-op through the mailbox; proves the actor is alive and processing messages.
    pub async fn ping(&self) -> Result<Duration, ActorError> {
        let started = Instant::now();
        let (reply, answer) = oneshot::channel();
        self.addr
            .try_send(Envelope::Ping { reply })
            .map_err(|error| self.send_error(error))?;
        match tokio::time::timeout(self.call_timeout, answer).await {
            Err(_) => Err(ActorError::Timeout {
                actor: L::NAME,
                timeout_ms: self.call_timeout.as_millis() as u64,
            }),
            Ok(Err(_)) => Err(ActorError::Stopped { actor: L::NAME }),
            Ok(Ok(())) => Ok(started.elapsed()),
        }
    }

    /// Makes the actor panic inside its message handler (fault injection for tests and drills).
    pub fn inject_panic(&self) -> Result<(), ActorError> {
        self.addr
            .try_send(Envelope::InjectPanic)
            .map_err(|error| self.send_error(error))
    }
}

/// The operations every actor supports, whatever its commands: used by health and fault injection.
pub trait UntypedHandle: Send + Sync {
    fn name(&self) -> &'static str;
    fn ping(&self) -> BoxFuture<'static, Result<Duration, ActorError>>;
    fn inject_panic(&self) -> Result<(), ActorError>;
}

impl<L: Logic> UntypedHandle for ActorHandle<L> {
    fn name(&self) -> &'static str {
        L::NAME
    }

    fn ping(&self) -> BoxFuture<'static, Result<Duration, ActorError>> {
        let handle = self.clone();
        Box::pin(async move { ActorHandle::ping(&handle).await })
    }

    fn inject_panic(&self) -> Result<(), ActorError> {
        ActorHandle::inject_panic(self)
    }
}
