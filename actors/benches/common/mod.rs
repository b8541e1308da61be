//! Helpers shared by the bench binaries (each includes this file with `#[path]`).

/// The process's peak resident set size (`VmHWM`) in MiB; 0 where `/proc` is not available.
pub fn peak_rss_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find(|line| line.starts_with("VmHWM:"))
                .and_then(|line| line.split_whitespace().nth(1))
                .and_then(|kib| kib.parse::<f64>().ok())
        })
        .unwrap_or(0.0)
        / 1024.0
}
