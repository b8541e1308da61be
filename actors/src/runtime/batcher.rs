//! The one mechanism behind the store's batching writers (the completer, the audit writer, the credit
//! writer): a bounded queue, a loop that takes whatever has queued while the previous batch was being
//! written (up to a cap, after an optional linger) and hands it to the writer's own function, and
//! supervision of that function.
//!
//! Supervision: a batch whose write panics is dropped with its items, so their callers (who wait on a
//! reply channel inside each item) are answered with "writer stopped"; the panic is logged and counted
//! in `docsieve_writer_panics_total{writer}`, and the loop goes on with the next batch. One bad batch
//! fails only its own callers, never the writer. When the writer is gone altogether (its runtime
//! ended), [`Batcher::send`] gives the item back so that the caller can write it itself.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::time::Duration;

use futures_util::FutureExt;
use tokio::sync::mpsc;

use crate::metric_names as names;

/// An item a [`Batcher`] gathers.
pub trait Batched: Send + 'static {
    /// How much of the batch's cap the item takes (the completer counts job outcomes, not
    /// submissions).
    fn weight(&self) -> usize {
        1
    }

    /// Whether a batch holding this item waits the writer's linger for more before it is written.
    fn lingers(&self) -> bool {
        false
    }
}

/// Where a writer's loop runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Home {
    /// A task on the runtime current at start.
    Runtime,
    /// A thread of its own with a single-threaded runtime: nothing else waits on that thread, so a
    /// database write lock taken there is not held across another task's turn.
    Thread,
}

/// How a writer gathers its batches.
#[derive(Clone, Copy, Debug)]
pub struct BatcherSettings {
    /// The writer's name, in logs and metrics (and its thread's name).
    pub name: &'static str,
    /// Items waiting for the writer before senders wait for room (backpressure).
    pub queue: usize,
    /// The cap of one batch, in [`Batched::weight`].
    pub max: usize,
    /// How long a batch holding a lingering item waits for more (zero: never).
    pub linger: Duration,
    pub home: Home,
}

/// The sending side of a writer's queue.
pub struct Batcher<T> {
    sender: mpsc::Sender<T>,
}

impl<T> Clone for Batcher<T> {
    fn clone(&self) -> Batcher<T> {
        Batcher {
            sender: self.sender.clone(),
        }
    }
}

impl<T: Batched> Batcher<T> {
    /// Starts the writer whose batches `write` writes (`None` outside a tokio runtime: callers then
    /// write themselves). The loop ends when the last clone of the batcher is dropped.
    pub fn start<W, F>(settings: BatcherSettings, write: W) -> Option<Batcher<T>>
    where
        W: FnMut(Vec<T>) -> F + Send + 'static,
        F: Future<Output = ()> + Send + 'static,
    {
        let runtime = tokio::runtime::Handle::try_current().ok()?;
        let (sender, queue) = mpsc::channel::<T>(settings.queue.max(1));
        let looping = run(settings, queue, write);
        match settings.home {
            Home::Runtime => {
                runtime.spawn(looping);
            }
            Home::Thread => {
                let own = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .ok()?;
                std::thread::Builder::new()
                    .name(format!("docsieve-{}", settings.name))
                    .spawn(move || own.block_on(looping))
                    .ok()?;
            }
        }
        Some(Batcher { sender })
    }

    /// A batcher whose writer is gone (for tests of the callers' fallback).
    #[cfg(test)]
    pub(crate) fn gone() -> Batcher<T> {
        let (sender, _) = mpsc::channel(1);
        Batcher { sender }
    }

    /// Queues `item` if there is room, without waiting; whether it was queued (a wake-up that finds the
    /// queue full is already on its way).
    pub fn offer(&self, item: T) -> bool {
        self.sender.try_send(item).is_ok()
    }

    /// Queues `item` for the next batch (waiting for room when the queue is full); gives it back when
    /// the writer is gone.
    pub async fn send(&self, item: T) -> Result<(), T> {
        self.sender
            .send(item)
            .await
            .map_err(|mpsc::error::SendError(item)| item)
    }
}

/// A batch being gathered.
struct Gathered<T> {
    items: Vec<T>,
    weight: usize,
    lingers: bool,
}

impl<T: Batched> Gathered<T> {
    /// Adds what is queued until the batch's weight reaches `max`.
    fn take_queued(&mut self, queue: &mut mpsc::Receiver<T>, max: usize) {
        while self.weight < max {
            let Ok(more) = queue.try_recv() else {
                return;
            };
            self.weight += more.weight();
            self.lingers |= more.lingers();
            self.items.push(more);
        }
    }
}

/// The writer's loop: gather, write under supervision, again.
async fn run<T, W, F>(settings: BatcherSettings, mut queue: mpsc::Receiver<T>, mut write: W)
where
    T: Batched,
    W: FnMut(Vec<T>) -> F,
    F: Future<Output = ()>,
{
    let max = settings.max.max(1);
    while let Some(first) = queue.recv().await {
        let mut batch = Gathered {
            weight: first.weight(),
            lingers: first.lingers(),
            items: vec![first],
        };
        // Whatever else has queued, up to the cap; once more after the linger when an item asks.
        batch.take_queued(&mut queue, max);
        if batch.lingers && !settings.linger.is_zero() && batch.weight < max {
            tokio::time::sleep(settings.linger).await;
            batch.take_queued(&mut queue, max);
        }
        let items = batch.items;
        if let Err(panic) = AssertUnwindSafe(write(items)).catch_unwind().await {
            metrics::counter!(names::WRITER_PANICS_TOTAL, "writer" => settings.name).increment(1);
            tracing::error!(
                writer = settings.name,
                panic = %super::panic_message(&*panic),
                "a batch writer panicked: the batch's callers were answered with an error; the writer goes on"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    use tokio::sync::oneshot;

    use super::*;

    struct Item {
        n: usize,
        weight: usize,
        linger: bool,
        done: oneshot::Sender<usize>,
    }

    impl Batched for Item {
        fn weight(&self) -> usize {
            self.weight
        }
        fn lingers(&self) -> bool {
            self.linger
        }
    }

    fn settings(home: Home, linger: Duration) -> BatcherSettings {
        BatcherSettings {
            name: "test",
            queue: 64,
            max: 8,
            linger,
            home,
        }
    }

    /// Sends `count` items at once; each answer is the size (in weight) of the batch that held it.
    async fn send_all(batcher: &Batcher<Item>, count: usize, weight: usize) -> Vec<usize> {
        let sends = (0..count).map(|n| {
            let batcher = batcher.clone();
            async move {
                let (done, answer) = oneshot::channel();
                let item = Item {
                    n,
                    weight,
                    linger: true,
                    done,
                };
                if batcher.send(item).await.is_err() {
                    return 0;
                }
                answer.await.unwrap_or(0)
            }
        });
        futures_util::future::join_all(sends).await
    }

    fn answering() -> impl FnMut(Vec<Item>) -> std::future::Ready<()> {
        |items: Vec<Item>| {
            let weight = items.iter().map(|item| item.weight).sum();
            for item in items {
                let _ = item.done.send(weight);
            }
            std::future::ready(())
        }
    }

    #[tokio::test]
    async fn items_sent_together_share_batches_up_to_the_cap_in_both_homes() {
        for home in [Home::Runtime, Home::Thread] {
            let batcher = Batcher::start(settings(home, Duration::from_millis(20)), answering())
                .expect("inside a runtime");
            let sizes = send_all(&batcher, 40, 1).await;
            assert!(sizes.iter().all(|size| (1..=8).contains(size)), "{sizes:?}");
            // The linger gathered them: far fewer batches than items.
            assert!(
                sizes.iter().filter(|size| **size == 8).count() >= 24,
                "{sizes:?}"
            );
            // Weighted items: a batch stops once its weight reaches the cap.
            let sizes = send_all(&batcher, 10, 3).await;
            assert!(sizes.iter().all(|size| (3..=9).contains(size)), "{sizes:?}");
        }
    }

    #[tokio::test]
    async fn a_panicking_batch_fails_its_callers_and_the_writer_goes_on() {
        let written = Arc::new(AtomicUsize::new(0));
        let counter = written.clone();
        let batcher = Batcher::start(
            settings(Home::Runtime, Duration::ZERO),
            move |items: Vec<Item>| {
                let counter = counter.clone();
                async move {
                    if items.iter().any(|item| item.n == 13) {
                        panic!("a poisoned batch");
                    }
                    for item in items {
                        counter.fetch_add(1, Ordering::SeqCst);
                        let _ = item.done.send(1);
                    }
                }
            },
        )
        .expect("inside a runtime");
        let (done, poisoned) = oneshot::channel();
        let item = Item {
            n: 13,
            weight: 1,
            linger: false,
            done,
        };
        assert!(batcher.send(item).await.is_ok());
        assert!(
            poisoned.await.is_err(),
            "the poisoned batch's caller hears the writer stopped"
        );
        let sizes = send_all(&batcher, 5, 1).await;
        assert!(sizes.iter().all(|size| *size == 1), "{sizes:?}");
        assert_eq!(written.load(Ordering::SeqCst), 5);
    }

    #[tokio::test]
    async fn outside_a_runtime_there_is_no_writer_and_a_gone_writer_gives_items_back() {
        let none = std::thread::spawn(|| {
            Batcher::<Item>::start(settings(Home::Runtime, Duration::ZERO), answering()).is_none()
        })
        .join()
        .expect("thread");
        assert!(none);
        let gone = Batcher::<Item>::gone();
        let (done, _answer) = oneshot::channel();
        let item = Item {
            n: 1,
            weight: 1,
            linger: false,
            done,
        };
        assert_eq!(gone.send(item).await.map_err(|item| item.n).err(), Some(1));
    }
}
