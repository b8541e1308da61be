//! The extraction worker process (`docsieve extract-worker`): reads documents from stdin and answers
//! with their model on stdout, one at a time, under its own memory and CPU limits.
//!
//! Whatever a document does to this process (a stack overflow, an abort, an allocation the memory
//! limit refuses, a loop the CPU limit or the server's clock stops) ends this process only: the
//! server sees the pipe close, fails that one document with `extraction_crashed` and starts another
//! worker.

use std::io::Write;

use super::engine;
use super::error::ExtractError;
use super::protocol::{read_frame, write_frame, Reply, Request};

/// The stack of the thread that reads a document. The readers' recursion is bounded by
/// `Limits::max_xml_depth` (256 levels of a few hundred bytes each); this leaves room for the
/// libraries underneath (Tesseract, the PDF parser) with a wide margin.
pub const STACK_BYTES: usize = 16 << 20;

/// How the worker limits itself.
#[derive(Clone, Debug, Default)]
pub struct WorkerOptions {
    /// Address space of the worker in MiB (`RLIMIT_AS`); 0: no limit.
    pub memory_mb: u64,
}

/// CPU time (user and system) this process has used, in whole seconds.
fn cpu_seconds() -> u64 {
    crate::procfs::stat_seconds(std::process::id(), &[11, 12]) as u64
}

fn set_limit(resource: rustix::process::Resource, value: u64) -> std::io::Result<()> {
    let hard = rustix::process::getrlimit(resource).maximum;
    let value = hard.map_or(value, |hard| value.min(hard));
    rustix::process::setrlimit(
        resource,
        rustix::process::Rlimit {
            current: Some(value),
            maximum: hard,
        },
    )
    .map_err(std::io::Error::from)
}

/// Reads one document, the CPU limit first set to what the document may use from now on
/// (`seconds_used`: the worker's CPU time when the previous document ended).
fn read_one(
    request: &Request,
    bytes: &[u8],
    seconds_used: u64,
) -> Result<super::model::Document, ExtractError> {
    // The server stops the worker at `max_seconds` of wall time; the kernel stops it a little later
    // if the server could not (SIGXCPU), counting CPU time only.
    if let Err(error) = set_limit(
        rustix::process::Resource::Cpu,
        seconds_used + request.limits.max_seconds + 5,
    ) {
        tracing::warn!(%error, "cannot set the worker's CPU limit");
    }
    engine::extract(bytes, &request.limits)
}

type Work = (Request, Vec<u8>, u64);
type Done = Result<super::model::Document, ExtractError>;

/// The reading thread: one for the worker's life, with [`STACK_BYTES`] of stack (a thread per
/// document cost 2 ms of CPU each: a cold allocator cache every time).
fn reader() -> std::io::Result<(
    std::sync::mpsc::Sender<Work>,
    std::sync::mpsc::Receiver<Done>,
)> {
    let (work, jobs) = std::sync::mpsc::channel::<Work>();
    let (done, answers) = std::sync::mpsc::channel::<Done>();
    std::thread::Builder::new()
        .name("extract".to_string())
        .stack_size(STACK_BYTES)
        .spawn(move || {
            while let Ok((request, bytes, seconds_used)) = jobs.recv() {
                if done.send(read_one(&request, &bytes, seconds_used)).is_err() {
                    return;
                }
            }
        })?;
    Ok((work, answers))
}

/// Serves requests from stdin until it closes. Errors are the pipe's own (the server went away).
pub fn serve(options: &WorkerOptions) -> std::io::Result<()> {
    if options.memory_mb > 0 {
        set_limit(rustix::process::Resource::As, options.memory_mb << 20)?;
    }
    let mut input = std::io::stdin().lock();
    let mut output = std::io::stdout().lock();
    let (work, answers) = reader()?;
    let gone = || std::io::Error::other("the reading thread stopped");
    let mut used = cpu_seconds();
    while let Some(header) = read_frame(&mut input)? {
        let request: Request = serde_json::from_slice(&header)
            .map_err(|error| std::io::Error::new(std::io::ErrorKind::InvalidData, error))?;
        let bytes = read_frame(&mut input)?.ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "the request ended before its document",
            )
        })?;
        work.send((request, bytes, used)).map_err(|_| gone())?;
        let reply = Reply {
            result: answers.recv().map_err(|_| gone())?,
        };
        used = cpu_seconds();
        let payload = serde_json::to_vec(&reply)
            .map_err(|error| std::io::Error::new(std::io::ErrorKind::InvalidData, error))?;
        drop(reply);
        write_frame(&mut output, &payload)?;
        output.flush()?;
    }
    Ok(())
}
