//! Firings claimed once across processes: the one scheme of every timed duty. Each owner of firings
//! keeps a mark, `last_due_at`, the latest firing claimed for it. A process claims a firing by moving
//! the mark forward to it with a conditional UPDATE; only the process whose update matched runs the
//! firing, and a firing at or before the mark is never claimed again. A service-wide duty's mark is
//! its row of `clock_ticks` (the row is named after the duty; its first claim inserts it); a connector
//! schedule's mark is its own row's `last_due_at`, so that it goes with the schedule.

use chrono::{DateTime, Utc};
use sea_orm::ConnectionTrait;

use super::{Store, StoreError};

/// Whose mark a firing moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark<'a> {
    /// A service-wide duty (`billing_cycle`, `export_cleanup`...): its row of `clock_ticks`.
    Duty(&'a str),
    /// A connector schedule (only while it is enabled).
    Schedule(i64),
}

impl Store {
    /// The latest firing claimed for a service-wide duty; None before its first claim.
    pub async fn duty_mark(&self, duty: &str) -> Result<Option<DateTime<Utc>>, StoreError> {
        let row = self
            .connection()
            .query_one(self.statement(
                "SELECT last_due_at FROM clock_ticks WHERE id = ?",
                vec![duty.into()],
            ))
            .await?;
        Ok(row.map(|row| row.try_get("", "last_due_at")).transpose()?)
    }

    /// Claims the firing `due` of `mark`'s owner: true for the one caller, across every process
    /// sharing the database, that moves the mark up to it.
    pub async fn claim_firing(
        &self,
        mark: Mark<'_>,
        due: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let statement = match mark {
            Mark::Duty(duty) => self.statement(
                "UPDATE clock_ticks SET last_due_at = ?, updated_at = ? WHERE id = ? AND last_due_at < ?",
                vec![due.into(), now.into(), duty.into(), due.into()],
            ),
            Mark::Schedule(schedule_id) => self.statement(
                "UPDATE schedules SET last_due_at = ?, last_run_at = ?, updated_at = ? \
                 WHERE id = ? AND enabled = ? AND (last_due_at IS NULL OR last_due_at < ?)",
                vec![
                    due.into(),
                    now.into(),
                    now.into(),
                    schedule_id.into(),
                    true.into(),
                    due.into(),
                ],
            ),
        };
        if self.connection().execute(statement).await?.rows_affected() == 1 {
            return Ok(true);
        }
        let Mark::Duty(duty) = mark else {
            return Ok(false);
        };
        // A duty's first claim: its row is not there yet, and one inserter wins.
        let inserted = self
            .connection()
            .execute(self.statement(
                "INSERT INTO clock_ticks (id, last_due_at, updated_at) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING",
                vec![duty.into(), due.into(), now.into()],
            ))
            .await?;
        Ok(inserted.rows_affected() == 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(text)
            .expect("time")
            .with_timezone(&Utc)
    }

    /// How many of eight concurrent claims of `due` for `duty` won.
    async fn claims_won_of_eight(store: &Store, duty: &'static str, due: DateTime<Utc>) -> usize {
        let claims = (0..8).map(|_| {
            let store = store.clone();
            tokio::spawn(async move {
                store
                    .claim_firing(Mark::Duty(duty), due, due)
                    .await
                    .expect("claim")
            })
        });
        futures_util::future::join_all(claims)
            .await
            .into_iter()
            .filter(|claimed| *claimed.as_ref().expect("task"))
            .count()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn a_duty_firing_is_claimed_once_and_never_one_at_or_before_the_mark() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = Store::sqlite_for_tests(dir.path()).await;
        let now = at("2026-12-01T00:00:30Z");
        assert_eq!(store.duty_mark("t").await.expect("mark"), None);
        // The first claim inserts the mark; the same firing again, or an earlier one, is not claimed.
        let first = at("2026-12-01T00:00:00Z");
        assert!(store
            .claim_firing(Mark::Duty("t"), first, now)
            .await
            .expect("claim"));
        assert_eq!(store.duty_mark("t").await.expect("mark"), Some(first));
        for due in [first, at("2026-11-01T00:00:00Z")] {
            assert!(!store
                .claim_firing(Mark::Duty("t"), due, now)
                .await
                .expect("claim"));
        }
        // Eight processes claim the next firing at once, and a new duty's first: one wins each.
        let next = at("2027-01-01T00:00:00Z");
        assert_eq!(claims_won_of_eight(&store, "t", next).await, 1);
        assert_eq!(store.duty_mark("t").await.expect("mark"), Some(next));
        assert_eq!(claims_won_of_eight(&store, "fresh", next).await, 1);
        // A schedule that does not exist has nothing to claim.
        assert!(!store
            .claim_firing(Mark::Schedule(999), next, next)
            .await
            .expect("claim"));
    }
}
