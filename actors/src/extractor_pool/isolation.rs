//! Extraction in worker processes: a pool of `docsieve extract-worker` children, each reading one
//! document at a time, so that no document can take the server down with it.
//!
//! A worker that dies (a crash, an abort, its memory or CPU limit) fails the document it was reading
//! with `extraction_crashed`; one that overruns the document's time limit is killed, which also stops
//! the work (a thread could only be abandoned, burning a core). Either way the pool starts another
//! worker in its place. Workers are also retired after `max_documents`, so that no allocator state
//! outlives a few hundred documents.

use std::os::fd::AsFd;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::sync::Semaphore;

use super::error::ExtractError;
use super::limits::Limits;
use super::protocol::{decode, receive_frame, request_frames, Reply, Request};
use crate::metric_names;
use crate::model::Document;

/// The size asked for each worker's pipes.
const PIPE_BYTES: usize = 1 << 20;

/// How workers are started.
#[derive(Clone, Debug)]
pub struct WorkerCommand {
    /// The `docsieve` executable (the server's own, normally).
    pub program: PathBuf,
    /// Its arguments (`extract-worker` and the limits).
    pub args: Vec<String>,
    /// Documents one worker reads before it is replaced.
    pub max_documents: u64,
    /// Workers kept for previews beyond the pool's size: async jobs never use them.
    pub preview_workers: usize,
}

/// How long past a document's time limit of `seconds` its worker may still answer before it is
/// killed: the reader checks the limit between pages and stops with a message naming them, which is
/// worth waiting for. A tenth of the limit, at most two seconds.
fn grace(seconds: u64) -> Duration {
    Duration::from_millis(seconds.saturating_mul(100).min(2000))
}

/// One live worker process.
struct Worker {
    child: Child,
    stdin: ChildStdin,
    stdout: ChildStdout,
    documents: u64,
}

/// A pool of at most `size` busy worker processes.
#[derive(Clone)]
pub struct WorkerPool {
    permits: Arc<Semaphore>,
    idle: Arc<Mutex<Vec<Worker>>>,
    command: Arc<WorkerCommand>,
    size: usize,
}

/// Tesseract's threads in each worker (its `OMP_THREAD_LIMIT`): what the operator asked for (the
/// variable in the server's environment; 1 when unset, since the pool already reads pages side by
/// side), never more than the cores shared out between the workers that may run at once, so that
/// the workers together never ask for more threads than the machine has.
fn ocr_threads(requested: Option<&str>, cores: usize, workers: usize) -> usize {
    let requested = requested
        .and_then(|value| value.trim().parse().ok())
        .unwrap_or(1);
    let share = cores / workers.max(1);
    requested.min(share).max(1)
}

/// Why a worker stopped, in words, from its exit status.
fn describe(status: Option<std::process::ExitStatus>) -> String {
    use std::os::unix::process::ExitStatusExt;
    let Some(status) = status else {
        return "the worker stopped answering".to_string();
    };
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("the worker exited with status {code}"),
        (None, Some(6)) => {
            "the worker aborted (SIGABRT: a stack overflow, or an allocation beyond its memory limit)"
                .to_string()
        }
        (None, Some(9)) => "the worker was killed (SIGKILL: out of memory, or by an operator)".into(),
        (None, Some(11)) => "the worker crashed (SIGSEGV)".to_string(),
        (None, Some(24)) => "the worker used up its CPU time limit (SIGXCPU)".to_string(),
        (None, Some(signal)) => format!("the worker was stopped by signal {signal}"),
        (None, None) => "the worker stopped".to_string(),
    }
}

impl WorkerPool {
    pub fn new(size: usize, command: WorkerCommand) -> WorkerPool {
        let size = size.max(1);
        metrics::gauge!(metric_names::POOL_SIZE, "pool" => "extractor_pool").set(size as f64);
        WorkerPool {
            permits: Arc::new(Semaphore::new(size)),
            idle: Arc::new(Mutex::new(Vec::with_capacity(size))),
            command: Arc::new(command),
            size,
        }
    }

    fn spawn(&self) -> std::io::Result<Worker> {
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        let threads = ocr_threads(
            std::env::var("OMP_THREAD_LIMIT").ok().as_deref(),
            cores,
            self.size + self.command.preview_workers,
        );
        let mut child = Command::new(&self.command.program)
            .args(&self.command.args)
            .env("OMP_THREAD_LIMIT", threads.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(std::io::Error::other("the worker's pipes are missing"));
        };
        // Pipes of 1 MiB (Linux's default ceiling for unprivileged processes) instead of 64 KiB: a
        // 50 KB document and its 100 KB answer each cross in one write and one wake-up. Smaller
        // pipes only cost more of those, so a refusal is not an error.
        for pipe in [stdin.as_fd(), stdout.as_fd()] {
            let _ = rustix::pipe::fcntl_setpipe_size(pipe, PIPE_BYTES);
        }
        metrics::counter!(metric_names::EXTRACTION_WORKERS_STARTED_TOTAL).increment(1);
        Ok(Worker {
            child,
            stdin,
            stdout,
            documents: 0,
        })
    }

    fn take_idle(&self) -> Option<Worker> {
        self.idle.lock().ok()?.pop()
    }

    fn give_back(&self, worker: Worker) {
        if worker.documents >= self.command.max_documents {
            return; // Dropped: killed and reaped.
        }
        if let Ok(mut idle) = self.idle.lock() {
            idle.push(worker);
        }
    }

    /// Starts workers until `size` are idle, so that the first documents do not wait for a start.
    pub fn warm(&self) {
        let Ok(mut idle) = self.idle.lock() else {
            return;
        };
        while idle.len() < self.size {
            match self.spawn() {
                Ok(worker) => idle.push(worker),
                Err(error) => {
                    tracing::error!(program = %self.command.program.display(), %error,
                        "cannot start an extraction worker");
                    return;
                }
            }
        }
    }

    /// Reads `bytes` in a worker within `limits` (time included). `alone`: in a worker started for
    /// this document and ended after it (a job retried after a crash), never one that read others.
    /// When `caller` closes first, the worker is killed and the read given up.
    pub async fn extract(
        &self,
        bytes: bytes::Bytes,
        limits: Limits,
        alone: bool,
        caller: Option<tokio::sync::oneshot::Receiver<()>>,
    ) -> Result<Document, ExtractError> {
        let _permit =
            self.permits.acquire().await.map_err(|_| {
                ExtractError::EngineFailure("the pool is shutting down".to_string())
            })?;
        let busy = metrics::gauge!(metric_names::POOL_BUSY, "pool" => "extractor_pool");
        busy.increment(1.0);
        let pooled = if alone { None } else { self.take_idle() };
        let result = match pooled.map_or_else(|| self.spawn(), Ok) {
            Ok(worker) => self.run(worker, &bytes, limits, alone, caller).await,
            Err(error) => Err(ExtractError::EngineFailure(format!(
                "cannot start an extraction worker: {error}"
            ))),
        };
        busy.decrement(1.0);
        result
    }

    async fn run(
        &self,
        mut worker: Worker,
        bytes: &[u8],
        limits: Limits,
        alone: bool,
        mut caller: Option<tokio::sync::oneshot::Receiver<()>>,
    ) -> Result<Document, ExtractError> {
        let seconds = limits.max_seconds;
        // A small document leaves in one write with its header; a large one is written from where it
        // lies, never copied into a frame buffer.
        let large = bytes.len() > PIPE_BYTES;
        let frames = request_frames(&Request { limits }, if large { &[] } else { bytes })
            .map_err(|error| ExtractError::EngineFailure(error.to_string()))?;
        let answer = {
            let exchange = async {
                use tokio::io::AsyncWriteExt;
                if large {
                    let header_end = frames.len() - 8;
                    worker.stdin.write_all(&frames[..header_end]).await?;
                    worker
                        .stdin
                        .write_all(&(bytes.len() as u64).to_le_bytes())
                        .await?;
                    worker.stdin.write_all(bytes).await?;
                } else {
                    worker.stdin.write_all(&frames).await?;
                }
                worker.stdin.flush().await?;
                receive_frame(&mut worker.stdout).await
            };
            let wall = Duration::from_secs(seconds) + grace(seconds);
            tokio::select! {
                answer = tokio::time::timeout(wall, exchange) => Some(answer),
                () = super::messages::caller_gone(&mut caller) => None,
            }
        };
        let Some(answer) = answer else {
            // Nobody waits for this document any more: stop its worker now, so that it frees its
            // core and its slot instead of reading on for nobody.
            let _ = worker.child.kill().await;
            metrics::counter!(metric_names::EXTRACTION_WORKER_TIMEOUTS_TOTAL).increment(1);
            return Err(ExtractError::EngineFailure(
                "the caller stopped waiting; the read was stopped".to_string(),
            ));
        };
        let frame = match answer {
            Ok(Ok(frame)) => frame,
            Ok(Err(_)) => {
                // The pipe closed: the worker died reading this document.
                let status = tokio::time::timeout(Duration::from_secs(5), worker.child.wait())
                    .await
                    .ok()
                    .and_then(Result::ok);
                let reason = describe(status);
                metrics::counter!(metric_names::EXTRACTION_WORKER_CRASHES_TOTAL).increment(1);
                tracing::warn!(reason, "an extraction worker died on a document");
                return Err(ExtractError::Crashed(reason));
            }
            Err(_) => {
                // Killed now (and reaped), so that the document stops using a core.
                let _ = worker.child.kill().await;
                metrics::counter!(metric_names::EXTRACTION_WORKER_TIMEOUTS_TOTAL).increment(1);
                return Err(ExtractError::TimedOut(format!(
                    "took longer than {seconds} s"
                )));
            }
        };
        let reply: Reply = decode(&frame).map_err(|error| {
            ExtractError::EngineFailure(format!("the worker's answer is unreadable: {error}"))
        })?;
        worker.documents += 1;
        if !alone {
            self.give_back(worker);
        }
        reply.result
    }
}

#[cfg(test)]
mod tests {
    use super::ocr_threads;

    #[test]
    fn the_workers_together_never_ask_tesseract_for_more_threads_than_cores() {
        // Unset: one thread each (the pool reads pages side by side).
        assert_eq!(ocr_threads(None, 8, 2), 1);
        // Asked for more: a fair share of the cores at most, and at least one.
        assert_eq!(ocr_threads(Some("4"), 8, 2), 4);
        assert_eq!(ocr_threads(Some("8"), 8, 3), 2);
        assert_eq!(ocr_threads(Some("16"), 2, 4), 1);
        assert_eq!(ocr_threads(Some("not a number"), 8, 2), 1);
        for cores in 1..=16 {
            for workers in 1..=8 {
                let each = ocr_threads(Some("64"), cores, workers);
                assert!(each >= 1);
                assert!(
                    each * workers <= cores.max(workers),
                    "{cores} cores, {workers} workers"
                );
            }
        }
    }
}
