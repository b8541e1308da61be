//! The extraction worker process (`docsieve extract-worker`): reads documents from stdin and answers
//! with their model on stdout, one at a time, under its own memory and CPU limits.
//!
//! Whatever a document does to this process (a stack overflow, an abort, an allocation the memory
//! limit refuses, a loop the CPU limit or the server's clock stops) ends this process only: the
//! server sees the pipe close, fails that one document with `extraction_crashed` and starts another
//! worker.

use std::io::Write;
use std::os::fd::AsFd;

use super::engine;
use super::error::ExtractError;
use super::protocol::{decode, encode_frame, read_frame, Reply, Request};

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

/// CPU time (user and system) this process has used, in whole seconds. (Not rustix's CPU clock: it
/// goes through the vDSO, which valgrind does not provide, and callgrind is how this loop is measured.)
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
) -> Result<crate::model::Document, ExtractError> {
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

/// Serves requests from stdin until it closes. Errors are the pipe's own (the server went away).
///
/// The whole loop runs on one thread with [`STACK_BYTES`] of stack, for the worker's life: reading a
/// document on a thread of its own cost 2 ms of CPU each (a cold allocator cache every time), and
/// handing each document to a long-lived reading thread two context switches more. Input and output are
/// the raw pipes: the standard library's stdout scans every reply for line ends to flush at.
pub fn serve(options: &WorkerOptions) -> std::io::Result<()> {
    if options.memory_mb > 0 {
        set_limit(rustix::process::Resource::As, options.memory_mb << 20)?;
    }
    let input = std::fs::File::from(std::io::stdin().as_fd().try_clone_to_owned()?);
    let output = std::fs::File::from(std::io::stdout().as_fd().try_clone_to_owned()?);
    std::thread::Builder::new()
        .name("extract".to_string())
        .stack_size(STACK_BYTES)
        .spawn(move || serve_on(input, output))?
        .join()
        .map_err(|_| std::io::Error::other("the reading thread panicked"))?
}

fn serve_on(input: std::fs::File, mut output: std::fs::File) -> std::io::Result<()> {
    let mut input = std::io::BufReader::with_capacity(64 << 10, input);
    let mut used = cpu_seconds();
    while let Some(header) = read_frame(&mut input)? {
        let request: Request = decode(&header)?;
        let bytes = read_frame(&mut input)?.ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "the request ended before its document",
            )
        })?;
        let reply = Reply {
            result: read_one(&request, &bytes, used),
        };
        drop(bytes);
        used = cpu_seconds();
        let frame = encode_frame(&reply)?;
        drop(reply);
        output.write_all(&frame)?;
    }
    Ok(())
}
