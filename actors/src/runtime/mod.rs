//! Our thin layer over actix: supervision with backoff, heartbeats, and bounded admission.
//!
//! Each actor is written as a plain [`Logic`] (its state and lifecycle) and one [`Request`] type per
//! kind of request, each with its own reply type. [`Cell`] wraps it in an
//! actix actor that catches panics, restarts through actix's `Supervisor` after a backoff, and stamps a
//! heartbeat; [`ActorHandle`] is the only way in, and it refuses work past the mailbox capacity instead
//! of queueing without bound. [`Batcher`] is the one mechanism of the store's batching writers.
//! Nothing in here knows what any particular actor does.

mod batcher;
mod cell;
mod cpu_pool;
mod handle;
mod memory;
mod registry;

pub use batcher::{Batched, Batcher, BatcherSettings, Home};
pub use cell::{start_supervised, Cell, Logic, Outcome, Request, SupervisionSettings};
pub use cpu_pool::{CpuPool, PoolError};
pub use handle::{ActorError, ActorHandle, UntypedHandle};
pub use memory::{release_memory_after, set_memory_release, LARGE_WORK_BYTES};
pub use registry::{ActorRegistry, ActorStatus};

/// Turns a panic payload into a message for logs (never into a client response).
pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_string()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "non-string panic payload".to_string()
    }
}

#[cfg(test)]
mod tests;
