//! The clock every time-based rule reads. Production uses the system clock; tests move an offset so that
//! expiry rules (tokens, blocks, retention) are proven without sleeping.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use chrono::{DateTime, Duration, SubsecRound, Utc};

/// The system clock plus an adjustable offset (zero unless the testing endpoints move it).
#[derive(Clone, Default)]
pub struct Clock {
    offset_ms: Arc<AtomicI64>,
}

impl Clock {
    /// Now, in whole seconds. Whole seconds keep SQLite's text timestamps one fixed width, so that
    /// comparing them in SQL orders them correctly.
    pub fn now(&self) -> DateTime<Utc> {
        (Utc::now() + Duration::milliseconds(self.offset_ms.load(Ordering::Relaxed)))
            .trunc_subsecs(0)
    }

    /// Moves this clock forward (or back, with a negative value) by `seconds`.
    pub fn advance(&self, seconds: i64) {
        self.offset_ms
            .fetch_add(seconds.saturating_mul(1000), Ordering::Relaxed);
    }

    pub fn offset_seconds(&self) -> i64 {
        self.offset_ms.load(Ordering::Relaxed) / 1000
    }
}

/// A time as the API and events show it: RFC 3339, UTC, whole seconds, `Z`.
pub fn rfc3339(time: DateTime<Utc>) -> String {
    time.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn advance_moves_now_forward() {
        let clock = Clock::default();
        let before = clock.now();
        clock.advance(3600);
        let moved = clock.now() - before;
        assert!(moved >= Duration::seconds(3600) && moved < Duration::seconds(3610));
        assert_eq!(clock.offset_seconds(), 3600);
    }
}
