//! What the health endpoint and /metrics know about each actor: heartbeat, restarts, mailbox depth.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::metric_names;

#[derive(Debug)]
struct Entry {
    last_heartbeat: Instant,
    heartbeat_interval: Duration,
    restarts: u64,
    panics: u64,
    mailbox_depth: usize,
    mailbox_capacity: usize,
    pool_size: usize,
}

/// A snapshot of one actor, as reported by `/system/health`.
#[derive(Clone, Debug, Serialize)]
pub struct ActorStatus {
    pub status: &'static str,
    pub last_heartbeat_ms_ago: u64,
    pub restarts: u64,
    pub panics: u64,
    pub mailbox_depth: usize,
    pub mailbox_capacity: usize,
    pub pool_size: usize,
}

/// Shared by every cell and handle; cheap to clone.
#[derive(Clone, Default)]
pub struct ActorRegistry {
    entries: Arc<Mutex<BTreeMap<&'static str, Entry>>>,
}

impl ActorRegistry {
    fn lock(&self) -> MutexGuard<'_, BTreeMap<&'static str, Entry>> {
        // A poisoned lock only means a panic happened while a counter was updated; the counters are
        // still usable.
        self.entries
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub(crate) fn register(
        &self,
        name: &'static str,
        pool_size: usize,
        mailbox_capacity: usize,
        heartbeat_interval: Duration,
    ) {
        self.lock().insert(
            name,
            Entry {
                last_heartbeat: Instant::now(),
                heartbeat_interval,
                restarts: 0,
                panics: 0,
                mailbox_depth: 0,
                mailbox_capacity,
                pool_size,
            },
        );
        metrics::gauge!(metric_names::ACTOR_MAILBOX_CAPACITY, "actor" => name)
            .set(mailbox_capacity as f64);
        metrics::gauge!(metric_names::ACTOR_POOL_SIZE, "actor" => name).set(pool_size as f64);
        metrics::gauge!(metric_names::ACTOR_MAILBOX_DEPTH, "actor" => name).set(0.0);
        metrics::counter!(metric_names::ACTOR_RESTARTS_TOTAL, "actor" => name).absolute(0);
        metrics::counter!(metric_names::ACTOR_PANICS_TOTAL, "actor" => name).absolute(0);
    }

    pub(crate) fn heartbeat(&self, name: &'static str) {
        if let Some(entry) = self.lock().get_mut(name) {
            entry.last_heartbeat = Instant::now();
        }
    }

    pub(crate) fn record_panic(&self, name: &'static str) {
        if let Some(entry) = self.lock().get_mut(name) {
            entry.panics += 1;
        }
        metrics::counter!(metric_names::ACTOR_PANICS_TOTAL, "actor" => name).increment(1);
    }

    pub(crate) fn record_restart(&self, name: &'static str) {
        if let Some(entry) = self.lock().get_mut(name) {
            entry.restarts += 1;
        }
        metrics::counter!(metric_names::ACTOR_RESTARTS_TOTAL, "actor" => name).increment(1);
    }

    pub(crate) fn set_mailbox_depth(&self, name: &'static str, depth: usize) {
        if let Some(entry) = self.lock().get_mut(name) {
            entry.mailbox_depth = depth;
        }
        metrics::gauge!(metric_names::ACTOR_MAILBOX_DEPTH, "actor" => name).set(depth as f64);
    }

    /// Every actor's status. An actor is `stale` when it missed three heartbeats (its thread is blocked
    /// or it is stuck in a restart backoff).
    pub fn snapshot(&self) -> BTreeMap<&'static str, ActorStatus> {
        self.lock()
            .iter()
            .map(|(name, entry)| {
                let age = entry.last_heartbeat.elapsed();
                metrics::gauge!(metric_names::ACTOR_HEARTBEAT_AGE_SECONDS, "actor" => *name)
                    .set(age.as_secs_f64());
                let status = if age > entry.heartbeat_interval * 3 {
                    "stale"
                } else {
                    "ok"
                };
                (
                    *name,
                    ActorStatus {
                        status,
                        last_heartbeat_ms_ago: age.as_millis() as u64,
                        restarts: entry.restarts,
                        panics: entry.panics,
                        mailbox_depth: entry.mailbox_depth,
                        mailbox_capacity: entry.mailbox_capacity,
                        pool_size: entry.pool_size,
                    },
                )
            })
            .collect()
    }
}
