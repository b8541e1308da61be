//! Readings of `/proc` about a process: its CPU time, its memory, its children. The extraction workers
//! use them for their CPU limit; the tests, benchmarks and the load example use them to report and to
//! bound what a process used. Every reading is 0 (or empty) where `/proc` cannot tell.

/// CPU seconds in the `/proc/<pid>/stat` fields numbered from the one after the command name (which
/// may hold spaces and parentheses): 11 and 12 are the process's own user and system time, 13 and 14
/// those of the children it has waited for.
pub fn stat_seconds(pid: u32, fields: &[usize]) -> f64 {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return 0.0;
    };
    let Some((_, rest)) = stat.rsplit_once(')') else {
        return 0.0;
    };
    let all: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = fields
        .iter()
        .filter_map(|&i| all.get(i).and_then(|f| f.parse::<u64>().ok()))
        .sum();
    ticks as f64 / rustix::param::clock_ticks_per_second().max(1) as f64
}

/// A `/proc/<pid>/status` line in KiB (`VmRSS`, `VmHWM`, ...).
pub fn status_kib(pid: u32, key: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|status| {
            status.lines().find_map(|line| {
                line.strip_prefix(key)?
                    .strip_prefix(':')?
                    .trim()
                    .trim_end_matches("kB")
                    .trim()
                    .parse()
                    .ok()
            })
        })
        .unwrap_or(0)
}

/// Peak resident memory of process `pid` (`VmHWM`), in bytes.
pub fn peak_rss_bytes(pid: u32) -> u64 {
    status_kib(pid, "VmHWM") * 1024
}

/// The live child processes of `pid` (a server's extraction workers), from every thread's list.
pub fn children(pid: u32) -> Vec<u32> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    let mut found: Vec<u32> = tasks
        .flatten()
        .filter_map(|task| std::fs::read_to_string(task.path().join("children")).ok())
        .flat_map(|list| {
            list.split_whitespace()
                .filter_map(|child| child.parse().ok())
                .collect::<Vec<u32>>()
        })
        .collect();
    found.sort_unstable();
    found
}

#[cfg(test)]
mod tests {
    #[test]
    fn this_process_has_a_cpu_time_and_a_peak() {
        let me = std::process::id();
        let spin = (0..2_000_000u64).fold(0u64, |a, b| a.wrapping_add(b * b));
        assert!(spin > 0);
        assert!(super::stat_seconds(me, &[11, 12]) >= 0.0);
        assert!(super::peak_rss_bytes(me) > 1 << 20);
        assert!(super::status_kib(me, "VmRSS") > 0);
        // Other tests of this binary start processes too: a child of ours is listed, whatever else is.
        let mut child = std::process::Command::new("sleep")
            .arg("5")
            .spawn()
            .expect("sleep");
        assert!(super::children(me).contains(&child.id()));
        child.kill().expect("kill");
        child.wait().expect("wait");
        assert!(!super::children(me).contains(&child.id()));
    }
}
