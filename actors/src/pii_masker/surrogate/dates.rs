//! Surrogate dates of birth: the date shifted by 1 to 365 days, forwards or back, by an offset drawn
//! from the tenant's key and the date itself. A date of birth stands for its subject, so every
//! writing of one subject's date (`15.03.1985`, `1985-03-15`, `15 Mart 1985`) moves by the same
//! offset to the same day, each in its own layout: the order of its parts, its separators, the width
//! of its numbers, a month's name in its language and case.

use chrono::{Datelike, Duration, NaiveDate};

use super::{cased_like, SurrogateKey};
use crate::pii_masker::engine::text::fold;

/// The months' names in the languages of the birth-date labels, aligned by month; then English's
/// three-letter abbreviations. A written month is looked up folded (diacritics off, lower case).
const MONTH_NAMES: [[&str; 12]; 9] = [
    [
        "ocak", "şubat", "mart", "nisan", "mayıs", "haziran", "temmuz", "ağustos", "eylül", "ekim",
        "kasım", "aralık",
    ],
    [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ],
    [
        "januar",
        "februar",
        "märz",
        "april",
        "mai",
        "juni",
        "juli",
        "august",
        "september",
        "oktober",
        "november",
        "dezember",
    ],
    [
        "janvier",
        "février",
        "mars",
        "avril",
        "mai",
        "juin",
        "juillet",
        "août",
        "septembre",
        "octobre",
        "novembre",
        "décembre",
    ],
    [
        "enero",
        "febrero",
        "marzo",
        "abril",
        "mayo",
        "junio",
        "julio",
        "agosto",
        "septiembre",
        "octubre",
        "noviembre",
        "diciembre",
    ],
    [
        "gennaio",
        "febbraio",
        "marzo",
        "aprile",
        "maggio",
        "giugno",
        "luglio",
        "agosto",
        "settembre",
        "ottobre",
        "novembre",
        "dicembre",
    ],
    [
        "januari",
        "februari",
        "maart",
        "april",
        "mei",
        "juni",
        "juli",
        "augustus",
        "september",
        "oktober",
        "november",
        "december",
    ],
    [
        "stycznia",
        "lutego",
        "marca",
        "kwietnia",
        "maja",
        "czerwca",
        "lipca",
        "sierpnia",
        "września",
        "października",
        "listopada",
        "grudnia",
    ],
    [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ],
];

/// The language (row of [`MONTH_NAMES`]) and month (1 to 12) of a written month's name.
fn month_of(word: &str) -> Option<(usize, u32)> {
    let folded = fold(word);
    MONTH_NAMES
        .iter()
        .enumerate()
        .find_map(|(language, names)| {
            names
                .iter()
                .position(|name| fold(name) == folded)
                .map(|month| (language, month as u32 + 1))
        })
}

/// A run of the written date: its place, and whether it is digits.
#[derive(Clone, Copy)]
struct Run {
    from: usize,
    to: usize,
    digits: bool,
}

/// Which run holds the year, the month and the day.
struct Parts {
    year: usize,
    month: usize,
    day: usize,
    /// The language of a month written by name.
    language: Option<usize>,
}

/// The surrogate of a written date of birth, from the `attempt`-th draw; None for a text that does
/// not read as one date.
pub(super) fn date_of_birth(key: &SurrogateKey, written: &str, attempt: u32) -> Option<String> {
    let mut runs = Vec::new();
    let mut current: Option<Run> = None;
    for (at, c) in written.char_indices() {
        let kind = if c.is_ascii_digit() {
            Some(true)
        } else if c.is_alphabetic() {
            Some(false)
        } else {
            None
        };
        match (current, kind) {
            (Some(run), Some(digits)) if run.digits == digits => {
                current = Some(Run {
                    to: at + c.len_utf8(),
                    ..run
                })
            }
            (_, kind) => {
                runs.extend(current.take());
                current = kind.map(|digits| Run {
                    from: at,
                    to: at + c.len_utf8(),
                    digits,
                });
            }
        }
    }
    runs.extend(current);
    if runs.len() != 3 {
        return None;
    }
    let text = |i: usize| &written[runs[i].from..runs[i].to];
    let number = |i: usize| text(i).parse::<u32>().ok();
    let width = |i: usize| runs[i].to - runs[i].from;
    let parts = match runs.iter().position(|run| !run.digits) {
        Some(month) => {
            let (language, _) = month_of(text(month))?;
            let others: Vec<usize> = (0..3).filter(|&i| i != month).collect();
            let (year, day) = if width(others[0]) == 4 {
                (others[0], others[1])
            } else {
                (others[1], others[0])
            };
            Parts {
                year,
                month,
                day,
                language: Some(language),
            }
        }
        None if width(0) == 4 => Parts {
            year: 0,
            month: 1,
            day: 2,
            language: None,
        },
        // Day first, as Turkey and Europe write it; month first when the first number cannot be a
        // month's day-of-month order otherwise (`03/25/1985`).
        None if number(1)? > 12 && number(0)? <= 12 => Parts {
            year: 2,
            month: 0,
            day: 1,
            language: None,
        },
        None => Parts {
            year: 2,
            month: 1,
            day: 0,
            language: None,
        },
    };
    if width(parts.year) != 4 {
        return None;
    }
    let month = match parts.language {
        Some(_) => month_of(text(parts.month))?.1,
        None => number(parts.month)?,
    };
    let date = NaiveDate::from_ymd_opt(number(parts.year)? as i32, month, number(parts.day)?)?;
    let mac = key.mac(
        &[
            b"date_of_birth",
            date.format("%Y-%m-%d").to_string().as_bytes(),
        ],
        attempt,
    );
    let days = 1 + i64::from(u16::from_be_bytes([mac[0], mac[1]]) % 365);
    let shifted = if mac[2] % 2 == 0 {
        date + Duration::days(days)
    } else {
        date - Duration::days(days)
    };
    let mut out = String::with_capacity(written.len() + 4);
    let mut cursor = 0;
    for (index, run) in runs.iter().enumerate() {
        out.push_str(&written[cursor..run.from]);
        cursor = run.to;
        let value = if index == parts.year {
            shifted.year() as u32
        } else if index == parts.day {
            shifted.day()
        } else if let Some(language) = parts.language {
            let name = MONTH_NAMES[language][shifted.month0() as usize];
            out.push_str(&cased_like(&written[run.from..run.to], name));
            continue;
        } else {
            shifted.month()
        };
        // Numbers keep their width (`03`, `1985`); beside a month's name, a day is padded only
        // where the original was (`05 Mart`, `5 Mart`).
        let padded = parts.language.is_none() || written[run.from..].starts_with('0');
        let width = if padded { width(index) } else { 1 };
        out.push_str(&format!("{value:0width$}"));
    }
    out.push_str(&written[cursor..]);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::super::tests::punctuation;
    use super::*;

    #[test]
    fn every_writing_of_a_date_moves_to_one_day_in_its_own_layout() {
        let key = SurrogateKey::new(b"dates");
        let writings = [
            "15.03.1985",
            "15/03/1985",
            "1985-03-15",
            "15 Mart 1985",
            "15 MART 1985",
            "March 15, 1985",
            "15. März 1985",
            "Mar 15 1985",
            "03/15/1985",
        ];
        let mut days = Vec::new();
        for written in writings {
            let fake = date_of_birth(&key, written, 0).unwrap_or_else(|| panic!("{written}"));
            assert_ne!(fake, written);
            assert_eq!(
                punctuation(&fake),
                punctuation(written),
                "{written} -> {fake}"
            );
            days.push(fake);
        }
        // The same day in each layout: read back by the layouts' own orders.
        let iso = &days[2];
        let (y, rest) = iso.split_once('-').expect("ISO");
        let (m, d) = rest.split_once('-').expect("ISO");
        assert_eq!(days[0], format!("{d}.{m}.{y}"));
        assert_eq!(days[1], format!("{d}/{m}/{y}"));
        assert_eq!(days[8], format!("{m}/{d}/{y}"));
        let month = m.parse::<usize>().expect("month") - 1;
        assert_eq!(
            days[3],
            format!("{d} {} {y}", cased_like("Mart", MONTH_NAMES[0][month]))
        );
        assert_eq!(days[4], days[3].to_uppercase());
        let day = d.trim_start_matches('0');
        let english = cased_like("March", MONTH_NAMES[1][month]);
        assert_eq!(days[5], format!("{english} {day}, {y}"));
        assert_eq!(
            days[6],
            format!("{day}. {} {y}", cased_like("März", MONTH_NAMES[2][month]))
        );
        assert_eq!(
            days[7],
            format!("{} {day} {y}", cased_like("Mar", MONTH_NAMES[8][month]))
        );
        // Another key, another day; not a date: nothing.
        assert_ne!(
            date_of_birth(&SurrogateKey::new(b"other"), "15.03.1985", 0),
            Some(days[0].clone())
        );
        assert_eq!(date_of_birth(&key, "31.02.1985", 0), None);
        assert_eq!(date_of_birth(&key, "15 Foo 1985", 0), None);
        assert_eq!(date_of_birth(&key, "15.03.85", 0), None);
    }
}
