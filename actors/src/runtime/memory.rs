//! Giving back at once the memory that large work freed. The server's allocator (jemalloc) keeps freed
//! pages for about ten seconds in the arena of the thread that freed them, for that thread to reuse; a
//! large job frees hundreds of megabytes on one thread (its masking) while its next stage allocates on
//! another (its result), so the process held both. Given back after those two stages, a 64 MB CSV's
//! job peaks at 1,440 MB of server RSS instead of 1,678 (measured with
//! `scripts/bench_job_memory.py`); giving pages back on every free (jemalloc's `dirty_decay_ms:0`)
//! reached 1,126 MB but cost previews a quarter of their throughput (458 -> 351 a second at 32
//! clients), so it is done here, after large work only.

use std::sync::OnceLock;

/// What gives the freed pages back, set once by the binary that chose the allocator.
static RELEASE: OnceLock<fn()> = OnceLock::new();

/// The work, in bytes of text or result, from which [`release_memory_after`] gives memory back.
pub const LARGE_WORK_BYTES: usize = 8 << 20;

/// Sets what gives freed pages back to the system (the first call wins).
pub fn set_memory_release(release: fn()) {
    let _ = RELEASE.set(release);
}

/// Gives the memory freed so far back to the system when `bytes` of work were large enough for it
/// to matter (nothing without an allocator that was set).
pub fn release_memory_after(bytes: usize) {
    if bytes >= LARGE_WORK_BYTES {
        if let Some(release) = RELEASE.get() {
            release();
        }
    }
}
