//! Helpers shared by the bench binaries (each includes this file with `#[path]`).

/// The process's peak resident set size (`VmHWM`) in MiB; 0 where `/proc` is not available.
pub fn peak_rss_mib() -> f64 {
    docsieve_actors::procfs::peak_rss_bytes(std::process::id()) as f64 / 1048576.0
}
