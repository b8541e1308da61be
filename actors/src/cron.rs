//! Five-field cron expressions (minute, hour, day of month, month, day of week), in UTC: parsing
//! with errors that name the field, and the next and latest firing times.
//!
//! Each field takes `*`, a number, a range `a-b`, a step `*/n` or `a-b/n` and comma lists of those;
//! months and weekdays also take their English three-letter names, and weekday 7 is Sunday like 0.
//! As in Vixie cron, when both the day of month and the day of week are restricted a day matching
//! either fires.

use chrono::{DateTime, Datelike, Duration, DurationRound, TimeZone, Timelike, Utc};

/// A parsed expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schedule {
    minutes: u64,
    hours: u64,
    days: u64,
    months: u64,
    weekdays: u64,
    days_restricted: bool,
    weekdays_restricted: bool,
}

/// Why an expression was refused: the field (`minute`, `hour`, `day_of_month`, `month`,
/// `day_of_week`, or `expression` for the count) and the reason.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {reason}")]
pub struct CronError {
    pub field: &'static str,
    pub reason: String,
}

const FIELDS: [(&str, u32, u32, &[&str]); 5] = [
    ("minute", 0, 59, &[]),
    ("hour", 0, 23, &[]),
    ("day_of_month", 1, 31, &[]),
    (
        "month",
        1,
        12,
        &[
            "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
        ],
    ),
    (
        "day_of_week",
        0,
        7,
        &["sun", "mon", "tue", "wed", "thu", "fri", "sat"],
    ),
];

fn parse_field(
    text: &str,
    (field, min, max, names): (&'static str, u32, u32, &[&str]),
) -> Result<u64, CronError> {
    let fail = |reason: String| CronError { field, reason };
    let value = |part: &str| -> Result<u32, CronError> {
        let lower = part.to_ascii_lowercase();
        if let Some(index) = names.iter().position(|name| *name == lower) {
            // Month names count from 1, weekday names from 0 (Sunday).
            return Ok(index as u32 + min.min(1));
        }
        let number: u32 = part
            .parse()
            .map_err(|_| fail(format!("'{part}' is not a number between {min} and {max}")))?;
        if number < min || number > max {
            return Err(fail(format!("{number} is outside {min}-{max}")));
        }
        Ok(number)
    };
    let mut bits = 0u64;
    for item in text.split(',') {
        if item.is_empty() {
            return Err(fail(format!("'{text}' has an empty list item")));
        }
        let (range, step) = match item.split_once('/') {
            Some((range, step)) => {
                let step: u32 = step
                    .parse()
                    .ok()
                    .filter(|step| *step > 0)
                    .ok_or_else(|| fail(format!("step '{step}' is not a positive number")))?;
                (range, step)
            }
            None => (item, 1),
        };
        let (from, to) = if range == "*" {
            (min, max)
        } else if let Some((from, to)) = range.split_once('-') {
            let (from, to) = (value(from)?, value(to)?);
            if from > to {
                return Err(fail(format!("range {from}-{to} runs backwards")));
            }
            (from, to)
        } else {
            let single = value(range)?;
            // `5/15` means from 5 to the end in steps of 15.
            (single, if item.contains('/') { max } else { single })
        };
        let mut at = from;
        while at <= to {
            bits |= 1 << at;
            at += step;
        }
    }
    Ok(bits)
}

impl Schedule {
    pub fn parse(expression: &str) -> Result<Schedule, CronError> {
        let parts: Vec<&str> = expression.split_whitespace().collect();
        if parts.len() != 5 {
            return Err(CronError {
                field: "expression",
                reason: format!(
                    "a cron expression has 5 fields (minute hour day-of-month month day-of-week), this one has {}",
                    parts.len()
                ),
            });
        }
        let mut weekdays = parse_field(parts[4], FIELDS[4])?;
        if weekdays & (1 << 7) != 0 {
            weekdays = (weekdays | 1) & !(1 << 7);
        }
        Ok(Schedule {
            minutes: parse_field(parts[0], FIELDS[0])?,
            hours: parse_field(parts[1], FIELDS[1])?,
            days: parse_field(parts[2], FIELDS[2])?,
            months: parse_field(parts[3], FIELDS[3])?,
            weekdays,
            days_restricted: parts[2] != "*",
            weekdays_restricted: parts[4] != "*",
        })
    }

    fn day_matches(&self, time: DateTime<Utc>) -> bool {
        let day = self.days & (1 << time.day()) != 0;
        let weekday = self.weekdays & (1 << time.weekday().num_days_from_sunday()) != 0;
        match (self.days_restricted, self.weekdays_restricted) {
            (true, true) => day || weekday,
            (true, false) => day,
            (false, true) => weekday,
            (false, false) => true,
        }
    }

    /// The first firing time strictly after `after`; None when the expression never fires (the 31st of
    /// February) within the next eight years.
    pub fn next_after(&self, after: DateTime<Utc>) -> Option<DateTime<Utc>> {
        let mut time = after.duration_trunc(Duration::minutes(1)).ok()? + Duration::minutes(1);
        let limit = after + Duration::days(8 * 366);
        while time <= limit {
            if self.months & (1 << time.month()) == 0 {
                // The first minute of the next month.
                let (year, month) = if time.month() == 12 {
                    (time.year() + 1, 1)
                } else {
                    (time.year(), time.month() + 1)
                };
                time = Utc.with_ymd_and_hms(year, month, 1, 0, 0, 0).single()?;
                continue;
            }
            if !self.day_matches(time) {
                time = time.date_naive().and_hms_opt(0, 0, 0)?.and_utc() + Duration::days(1);
                continue;
            }
            if self.hours & (1 << time.hour()) == 0 {
                time = time.duration_trunc(Duration::hours(1)).ok()? + Duration::hours(1);
                continue;
            }
            if self.minutes & (1 << time.minute()) == 0 {
                time += Duration::minutes(1);
                continue;
            }
            return Some(time);
        }
        None
    }

    /// The latest firing time at or before `at`, looked for up to `horizon` back.
    pub fn latest_at_or_before(
        &self,
        at: DateTime<Utc>,
        horizon: Duration,
    ) -> Option<DateTime<Utc>> {
        let mut found = None;
        let mut cursor = at - horizon;
        while let Some(next) = self.next_after(cursor) {
            if next > at {
                break;
            }
            found = Some(next);
            cursor = next;
        }
        found
    }

    /// The shortest gap between two consecutive firings over the year after `from` (what a plan's
    /// minimum schedule interval is checked against); None when it fires at most once in that year.
    pub fn shortest_interval(&self, from: DateTime<Utc>) -> Option<Duration> {
        let end = from + Duration::days(366);
        let mut previous = self.next_after(from)?;
        let mut shortest: Option<Duration> = None;
        while let Some(next) = self.next_after(previous) {
            if next > end {
                break;
            }
            let gap = next - previous;
            shortest = Some(shortest.map_or(gap, |s| s.min(gap)));
            if gap == Duration::minutes(1) {
                break;
            }
            previous = next;
        }
        shortest
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

    #[test]
    fn the_monthly_default_fires_on_the_first_at_midnight() {
        let schedule = Schedule::parse("0 0 1 * *").expect("parse");
        assert_eq!(
            schedule.next_after(at("2026-11-27T12:00:00Z")),
            Some(at("2026-12-01T00:00:00Z"))
        );
        assert_eq!(
            schedule.next_after(at("2026-12-01T00:00:00Z")),
            Some(at("2027-01-01T00:00:00Z"))
        );
        assert_eq!(
            schedule.latest_at_or_before(at("2026-11-27T12:00:00Z"), Duration::days(40)),
            Some(at("2026-11-01T00:00:00Z"))
        );
    }

    #[test]
    fn steps_lists_names_and_weekdays() {
        let schedule = Schedule::parse("*/15 9-17 * * mon-fri").expect("parse");
        // 2026-11-28 is a Saturday: the next firing is Monday 09:00.
        assert_eq!(
            schedule.next_after(at("2026-11-27T17:50:00Z")),
            Some(at("2026-11-30T09:00:00Z"))
        );
        assert_eq!(
            schedule.shortest_interval(at("2026-11-27T00:00:00Z")),
            Some(Duration::minutes(15))
        );
        let sunday = Schedule::parse("0 3 * * 7").expect("parse");
        assert_eq!(
            sunday.next_after(at("2026-11-27T00:00:00Z")),
            Some(at("2026-11-29T03:00:00Z"))
        );
        let daily = Schedule::parse("30 2 * * *").expect("parse");
        assert_eq!(
            daily.shortest_interval(at("2026-11-27T00:00:00Z")),
            Some(Duration::hours(24))
        );
        // Day of month and day of week both restricted: either fires.
        let either = Schedule::parse("0 0 13 * fri").expect("parse");
        assert_eq!(
            either.next_after(at("2026-11-01T00:00:00Z")),
            Some(at("2026-11-06T00:00:00Z"))
        );
    }

    #[test]
    fn errors_name_the_field() {
        for (expression, field) in [
            ("* * * *", "expression"),
            ("60 * * * *", "minute"),
            ("* 24 * * *", "hour"),
            ("* * 0 * *", "day_of_month"),
            ("* * * 13 *", "month"),
            ("* * * * 8", "day_of_week"),
            ("*/0 * * * *", "minute"),
            ("5-1 * * * *", "minute"),
            ("x * * * *", "minute"),
            ("1,,2 * * * *", "minute"),
        ] {
            let error = Schedule::parse(expression).expect_err(expression);
            assert_eq!(error.field, field, "{expression}: {error}");
        }
        let never = Schedule::parse("0 0 31 2 *").expect("parse");
        assert_eq!(never.next_after(at("2026-01-01T00:00:00Z")), None);
    }
}
