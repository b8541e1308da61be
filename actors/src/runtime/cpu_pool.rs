//! A bounded pool for CPU-bound engine calls (parsing, OCR, detection): at most `size` run at once on
//! tokio's blocking threads, each inside `catch_unwind`, so a panic fails that call and never shrinks
//! the pool.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use tokio::sync::Semaphore;

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PoolError {
    #[error("the engine failed on this input: {0}")]
    Panicked(String),
    #[error("the pool is shutting down")]
    Closed,
}

#[derive(Clone)]
pub struct CpuPool {
    permits: Arc<Semaphore>,
    size: usize,
    /// Label of the `docsieve_pool_busy` gauge.
    name: &'static str,
}

impl CpuPool {
    pub fn new(size: usize) -> CpuPool {
        let size = size.max(1);
        CpuPool {
            permits: Arc::new(Semaphore::new(size)),
            size,
            name: "unnamed",
        }
    }

    /// The same pool, reporting its busy slots as `docsieve_pool_busy{pool=name}`.
    pub fn named(mut self, name: &'static str) -> CpuPool {
        self.name = name;
        metrics::gauge!(crate::metric_names::POOL_SIZE, "pool" => name).set(self.size as f64);
        self
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
        busy.increment(1.0);
        let outcome = tokio::task::spawn_blocking(move || {
            let result = catch_unwind(AssertUnwindSafe(job));
            drop(permit);
            busy.decrement(1.0);
            result
        })
        .await
        .map_err(|_| PoolError::Closed)?;
        outcome.map_err(|payload| PoolError::Panicked(super::panic_message(payload.as_ref())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_panicking_job_fails_alone_and_the_pool_keeps_its_size() {
        let pool = CpuPool::new(1);
        let failed = pool.run(|| -> u32 { panic!("bad input") }).await;
        assert_eq!(failed, Err(PoolError::Panicked("bad input".to_string())));
        for n in 0..3 {
            assert_eq!(pool.run(move || n * 2).await, Ok(n * 2));
        }
    }

    #[tokio::test]
    async fn at_most_size_jobs_run_at_once() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let pool = CpuPool::new(2);
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
