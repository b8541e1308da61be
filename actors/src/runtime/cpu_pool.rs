//! A bounded pool for CPU-bound engine calls (parsing, OCR, detection): `size` threads of its own, each
//! call inside `catch_unwind`, so a panic fails that call and never shrinks the pool.
//!
//! The threads are the pool's own, named `<pool>-<n>` (visible in `top -H` and in profiles), rather than
//! tokio's blocking threads, of which a server under preview load had fifteen for four slots: a new one
//! whenever none was idle at that instant.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use tokio::sync::{oneshot, Semaphore};

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PoolError {
    #[error("the engine failed on this input: {0}")]
    Panicked(String),
    #[error("the pool is shutting down")]
    Closed,
}

type Job = Box<dyn FnOnce() + Send>;

#[derive(Clone)]
pub struct CpuPool {
    permits: Arc<Semaphore>,
    size: usize,
    /// Label of the `docsieve_pool_busy` gauge and prefix of the threads' names.
    name: &'static str,
    /// The threads end when the last clone of the pool is dropped.
    jobs: flume::Sender<Job>,
}

impl CpuPool {
    /// `size` threads named `<name>-<n>`, reporting their busy slots as `docsieve_pool_busy{pool=name}`.
    pub fn new(name: &'static str, size: usize) -> CpuPool {
        CpuPool::with_stack(name, size, 2 << 20)
    }

    /// [`CpuPool::new`] with threads of `stack_bytes` of stack (the extractor's readers recurse as deep
    /// as their bounds allow).
    pub fn with_stack(name: &'static str, size: usize, stack_bytes: usize) -> CpuPool {
        let size = size.max(1);
        let (jobs, queue) = flume::unbounded::<Job>();
        for n in 0..size {
            let queue = queue.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("{name}-{n}"))
                .stack_size(stack_bytes)
                .spawn(move || {
                    while let Ok(job) = queue.recv() {
                        job();
                    }
                });
            if let Err(error) = spawned {
                tracing::error!(pool = name, %error, "could not start a pool thread");
            }
        }
        metrics::gauge!(crate::metric_names::POOL_SIZE, "pool" => name).set(size as f64);
        CpuPool {
            permits: Arc::new(Semaphore::new(size)),
            size,
            name,
            jobs,
        }
    }

    pub fn size(&self) -> usize {
        self.size
    }

    /// Runs `job` when a slot is free.
    pub async fn run<T, F>(&self, job: F) -> Result<T, PoolError>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        let permit = self
            .permits
            .clone()
            .acquire_owned()
            .await
            .map_err(|_| PoolError::Closed)?;
        let busy = metrics::gauge!(crate::metric_names::POOL_BUSY, "pool" => self.name);
        let (done, outcome) = oneshot::channel();
        // The slot counts as busy on the pool thread, from the job's start to its end; a job that could
        // not be queued (no thread left) drops its permit with it.
        self.jobs
            .send(Box::new(move || {
                busy.increment(1.0);
                let result = catch_unwind(AssertUnwindSafe(job));
                busy.decrement(1.0);
                drop(permit);
                let _ = done.send(result);
            }))
            .map_err(|_| PoolError::Closed)?;
        let outcome = outcome.await.map_err(|_| PoolError::Closed)?;
        outcome.map_err(|payload| PoolError::Panicked(super::panic_message(payload.as_ref())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_panicking_job_fails_alone_and_the_pool_keeps_its_size() {
        let pool = CpuPool::new("test", 1);
        let failed = pool.run(|| -> u32 { panic!("bad input") }).await;
        assert_eq!(failed, Err(PoolError::Panicked("bad input".to_string())));
        for n in 0..3 {
            assert_eq!(pool.run(move || n * 2).await, Ok(n * 2));
        }
    }

    #[tokio::test]
    async fn at_most_size_jobs_run_at_once() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let pool = CpuPool::new("test", 2);
        let running = Arc::new(AtomicUsize::new(0));
        let peak = Arc::new(AtomicUsize::new(0));
        let jobs = (0..8).map(|_| {
            let (pool, running, peak) = (pool.clone(), running.clone(), peak.clone());
            tokio::spawn(async move {
                pool.run(move || {
                    let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                    peak.fetch_max(now, Ordering::SeqCst);
                    std::thread::sleep(std::time::Duration::from_millis(20));
                    running.fetch_sub(1, Ordering::SeqCst);
                })
                .await
            })
        });
        for job in jobs.collect::<Vec<_>>() {
            assert!(job.await.expect("join").is_ok());
        }
        assert_eq!(peak.load(Ordering::SeqCst), 2);
    }
}
