//! Clock ticks: a cron task that many processes share runs once per firing. Each task has a row with
//! the latest firing it ran; a process claims a firing by moving that row forward with a
//! compare-and-set, and only the process whose update matched runs the task.

use chrono::{DateTime, Duration, Utc};
use sea_orm::ConnectionTrait;

use super::{Store, StoreError};
use crate::cron::Schedule;

/// How far back a missed firing is looked for (beyond it, only the latest counts anyway).
const HORIZON_DAYS: i64 = 400;

impl Store {
    /// Whether this process should run `task` now: true once per firing of `schedule` across every
    /// process sharing the database, including once at start for firings missed while none ran
    /// (however many were missed). The first call for a task records the latest firing as done
    /// without running it: a new deployment has missed nothing.
    pub async fn claim_tick(
        &self,
        task: &str,
        schedule: &Schedule,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let latest = schedule.latest_at_or_before(now, Duration::days(HORIZON_DAYS));
        let row = self
            .connection()
            .query_one(self.statement(
                "SELECT last_due_at FROM clock_ticks WHERE id = ?",
                vec![task.into()],
            ))
            .await?;
        let Some(row) = row else {
            let recorded = latest.unwrap_or(now);
            self.connection()
                .execute(self.statement(
                    "INSERT INTO clock_ticks (id, last_due_at, updated_at) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING",
                    vec![task.into(), recorded.into(), now.into()],
                ))
                .await?;
            return Ok(false);
        };
        let last: DateTime<Utc> = row.try_get("", "last_due_at")?;
        let Some(latest) = latest.filter(|latest| *latest > last) else {
            return Ok(false);
        };
        let claimed = self
            .connection()
            .execute(self.statement(
                "UPDATE clock_ticks SET last_due_at = ?, updated_at = ? WHERE id = ? AND last_due_at = ?",
                vec![latest.into(), now.into(), task.into(), last.into()],
            ))
            .await?;
        Ok(claimed.rows_affected() == 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn a_firing_is_claimed_once_and_a_missed_one_at_the_next_look() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = Store::sqlite_for_tests(dir.path()).await;
        let schedule = Schedule::parse("0 0 1 * *").expect("cron");
        let at = |text: &str| {
            DateTime::parse_from_rfc3339(text)
                .expect("time")
                .with_timezone(&Utc)
        };
        // First look: recorded, not run.
        assert!(!store
            .claim_tick("t", &schedule, at("2026-11-27T12:00:00Z"))
            .await
            .expect("claim"));
        assert!(!store
            .claim_tick("t", &schedule, at("2026-11-30T12:00:00Z"))
            .await
            .expect("claim"));
        // The 1st of December passed: one claim wins, the next finds nothing.
        assert!(store
            .claim_tick("t", &schedule, at("2026-12-01T00:00:30Z"))
            .await
            .expect("claim"));
        assert!(!store
            .claim_tick("t", &schedule, at("2026-12-01T00:01:00Z"))
            .await
            .expect("claim"));
        // Three firings missed while nothing ran: caught up once.
        assert!(store
            .claim_tick("t", &schedule, at("2027-03-15T00:00:00Z"))
            .await
            .expect("claim"));
        assert!(!store
            .claim_tick("t", &schedule, at("2027-03-16T00:00:00Z"))
            .await
            .expect("claim"));
        // Eight processes look at once after the next firing: one runs it.
        let claims = (0..8).map(|_| {
            let store = store.clone();
            let schedule = schedule.clone();
            tokio::spawn(async move {
                store
                    .claim_tick("t", &schedule, at("2027-04-01T00:00:10Z"))
                    .await
                    .expect("claim")
            })
        });
        let won = futures_util::future::join_all(claims)
            .await
            .into_iter()
            .filter(|claimed| *claimed.as_ref().expect("task"))
            .count();
        assert_eq!(won, 1);
    }
}
