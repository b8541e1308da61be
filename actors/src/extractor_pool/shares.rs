//! Fair shares of the extraction capacity: who reads next when every slot is taken.
//!
//! The pool has `job_slots + preview_slots` slots (worker processes, or threads). A preview may take any
//! free slot; a job only while fewer than `job_slots` jobs are reading, so that `preview_slots` stay for
//! previews however much async work is queued. When a slot frees and several callers wait, it goes to
//! a waiting preview before a waiting job, then to the tenant reading the fewest documents at that
//! moment, then to whoever came first: a tenant with a thousand queued documents alternates with a
//! newcomer, and never holds more than its share while others wait (it keeps what it already holds:
//! a document is never stopped to make room). Alone, a tenant may use every slot its lane may.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::Notify;

/// Who asks for a slot, and for what.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Claim {
    pub tenant: i64,
    /// A synchronous preview (a caller waits on the answer) rather than an async job.
    pub preview: bool,
}

struct Waiter {
    id: u64,
    claim: Claim,
}

#[derive(Default)]
struct State {
    job_slots: usize,
    slots: usize,
    reading: usize,
    jobs_reading: usize,
    by_tenant: HashMap<i64, usize>,
    waiting: Vec<Waiter>,
    next_id: u64,
}

impl State {
    fn fits(&self, claim: Claim) -> bool {
        self.reading < self.slots && (claim.preview || self.jobs_reading < self.job_slots)
    }

    /// The waiter the next free slot goes to, if any may take one now.
    fn next(&self) -> Option<u64> {
        self.waiting
            .iter()
            .filter(|waiter| self.fits(waiter.claim))
            .min_by_key(|waiter| {
                let held = self.by_tenant.get(&waiter.claim.tenant).copied();
                (!waiter.claim.preview, held.unwrap_or(0), waiter.id)
            })
            .map(|waiter| waiter.id)
    }

    fn take(&mut self, id: u64) -> Option<Claim> {
        let index = self.waiting.iter().position(|waiter| waiter.id == id)?;
        let claim = self.waiting.remove(index).claim;
        self.reading += 1;
        self.jobs_reading += usize::from(!claim.preview);
        *self.by_tenant.entry(claim.tenant).or_default() += 1;
        Some(claim)
    }

    fn give_back(&mut self, claim: Claim) {
        self.reading = self.reading.saturating_sub(1);
        if !claim.preview {
            self.jobs_reading = self.jobs_reading.saturating_sub(1);
        }
        if let Some(held) = self.by_tenant.get_mut(&claim.tenant) {
            *held -= 1;
            if *held == 0 {
                self.by_tenant.remove(&claim.tenant);
            }
        }
    }
}

/// The slots and their queue. Cheap to clone (shared).
#[derive(Clone)]
pub struct Shares {
    state: Arc<Mutex<State>>,
    changed: Arc<Notify>,
}

/// A slot held: given back when dropped.
pub struct Slot {
    shares: Shares,
    claim: Claim,
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.shares.lock().give_back(self.claim);
        self.shares.changed.notify_waiters();
    }
}

/// A place in the queue: left when the wait is abandoned (the caller went away).
struct Place {
    shares: Shares,
    id: u64,
    served: bool,
}

impl Drop for Place {
    fn drop(&mut self) {
        if !self.served {
            self.shares
                .lock()
                .waiting
                .retain(|waiter| waiter.id != self.id);
            // Someone behind may fit now that this one no longer goes first.
            self.shares.changed.notify_waiters();
        }
    }
}

impl Shares {
    /// `job_slots` slots that jobs and previews share, and `preview_slots` more for previews only.
    pub fn new(job_slots: usize, preview_slots: usize) -> Shares {
        let job_slots = job_slots.max(1);
        Shares {
            state: Arc::new(Mutex::new(State {
                job_slots,
                slots: job_slots + preview_slots,
                ..State::default()
            })),
            changed: Arc::new(Notify::new()),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while the lock was held cannot leave the counters half-written (every change is
        // one statement), so a poisoned lock is still good to use.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// All slots, previews' included.
    pub fn slots(&self) -> usize {
        self.lock().slots
    }

    /// Callers waiting for a slot now, and documents being read.
    pub fn load(&self) -> (usize, usize) {
        let state = self.lock();
        (state.waiting.len(), state.reading)
    }

    /// Waits for this claim's turn, then holds a slot until the [`Slot`] is dropped. Dropping the
    /// future while it waits leaves the queue.
    pub async fn slot(&self, claim: Claim) -> Slot {
        let mut place = {
            let mut state = self.lock();
            state.next_id += 1;
            let id = state.next_id;
            state.waiting.push(Waiter { id, claim });
            Place {
                shares: self.clone(),
                id,
                served: false,
            }
        };
        loop {
            let notified = self.changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            {
                let mut state = self.lock();
                if state.next() == Some(place.id) {
                    state.take(place.id);
                    place.served = true;
                    let more = state.next().is_some();
                    drop(state);
                    if more {
                        self.changed.notify_waiters();
                    }
                    return Slot {
                        shares: self.clone(),
                        claim,
                    };
                }
            }
            notified.await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn job(tenant: i64) -> Claim {
        Claim {
            tenant,
            preview: false,
        }
    }

    fn preview(tenant: i64) -> Claim {
        Claim {
            tenant,
            preview: true,
        }
    }

    async fn waits(shares: &Shares, claim: Claim) -> bool {
        tokio::time::timeout(Duration::from_millis(50), shares.slot(claim))
            .await
            .is_err()
    }

    #[tokio::test]
    async fn jobs_never_take_the_previews_slots() {
        let shares = Shares::new(2, 1);
        let _a = shares.slot(job(1)).await;
        let _b = shares.slot(job(1)).await;
        assert!(waits(&shares, job(2)).await, "a third job waits");
        let _p = shares.slot(preview(2)).await;
        assert!(waits(&shares, preview(3)).await, "every slot is taken now");
    }

    #[tokio::test]
    async fn a_freed_slot_goes_to_the_tenant_holding_the_fewest() {
        let shares = Shares::new(2, 0);
        let a1 = shares.slot(job(1)).await;
        let _a2 = shares.slot(job(1)).await;
        // Tenant 1 queues more, then tenant 2 arrives: the freed slot is tenant 2's.
        let later = {
            let shares = shares.clone();
            tokio::spawn(async move { shares.slot(job(1)).await })
        };
        tokio::time::sleep(Duration::from_millis(20)).await;
        let newcomer = {
            let shares = shares.clone();
            tokio::spawn(async move { shares.slot(job(2)).await })
        };
        tokio::time::sleep(Duration::from_millis(20)).await;
        drop(a1);
        let held = tokio::time::timeout(Duration::from_secs(1), newcomer)
            .await
            .expect("tenant 2 is served")
            .expect("joined");
        assert!(!later.is_finished(), "tenant 1's third waits");
        assert_eq!(shares.load(), (1, 2));
        drop(held);
        tokio::time::timeout(Duration::from_secs(1), later)
            .await
            .expect("then tenant 1's third")
            .expect("joined");
    }

    #[tokio::test]
    async fn a_waiting_preview_goes_before_waiting_jobs() {
        let shares = Shares::new(1, 0);
        let first = shares.slot(job(1)).await;
        let queued_job = {
            let shares = shares.clone();
            tokio::spawn(async move { shares.slot(job(2)).await })
        };
        tokio::time::sleep(Duration::from_millis(20)).await;
        let queued_preview = {
            let shares = shares.clone();
            tokio::spawn(async move { shares.slot(preview(1)).await })
        };
        tokio::time::sleep(Duration::from_millis(20)).await;
        drop(first);
        let _preview = tokio::time::timeout(Duration::from_secs(1), queued_preview)
            .await
            .expect("the preview is served")
            .expect("joined");
        assert!(!queued_job.is_finished());
    }

    #[tokio::test]
    async fn an_abandoned_wait_leaves_the_queue() {
        let shares = Shares::new(1, 0);
        let held = shares.slot(job(1)).await;
        assert!(waits(&shares, job(2)).await);
        assert_eq!(shares.load(), (0, 1));
        drop(held);
        let _again = shares.slot(job(3)).await;
        assert_eq!(shares.load(), (0, 1));
    }
}
