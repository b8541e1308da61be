//! Dates written with a month's name ("12 Mart 1985", "March 12, 1985").

use super::*;

impl<'t> Scanner<'t> {
    /// A date of birth written with its month's name, behind a birth-date label: "12 Mart 1980",
    /// "12. März 1985", "12 mars 1985" from the day at `first..first_end`, or with `month_first`
    /// "March 12, 1985" from the month's word there. The end of the date when it is one.
    pub(super) fn month_date(
        &mut self,
        first: usize,
        first_end: usize,
        month_first: bool,
    ) -> Option<usize> {
        let b = self.b;
        let digits_end = |from: usize| {
            let mut i = from;
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            i
        };
        // After the first word or number: an optional '.', then spaces, then the second part.
        let mut i = first_end + usize::from(b.get(first_end) == Some(&b'.'));
        let second = text::after_spaces(b, i);
        if second == i {
            return None;
        }
        if !may_begin_month(b, if month_first { first } else { second }) {
            return None;
        }
        let (second_end, day_range, month_range) = if month_first {
            let end = digits_end(second);
            if !(1..=2).contains(&(end - second)) {
                return None;
            }
            (end, (second, end), (first, first_end))
        } else {
            // A month's name has 3 to 13 bytes of letters; most numbers are followed by other words,
            // turned away here by a plain byte loop.
            let mut end = second;
            while end - second <= 13
                && b.get(end)
                    .is_some_and(|&c| c.is_ascii_alphabetic() || c >= 0x80)
            {
                end += 1;
            }
            if !(3..=13).contains(&(end - second)) {
                return None;
            }
            (end, (first, first_end), (second, end))
        };
        // Then an optional '.' or ',', spaces and a four-digit year ending there.
        i = second_end;
        if matches!(b.get(i), Some(b'.' | b',')) {
            i += 1;
        }
        let year = text::after_spaces(b, i);
        let end = digits_end(year);
        if year == i || end - year != 4 || b.get(end).is_some_and(|&c| text::is_word_byte(c)) {
            return None;
        }
        let mut stack = [0u8; 40];
        let month = text::fold_short(
            &b[month_range.0..month_range.1],
            &mut stack,
            &mut self.scratch,
        );
        let month = month_number(month)?;
        let (day, year) = (
            decimal(&b[day_range.0..day_range.1]),
            decimal(&b[year..end]),
        );
        let valid = (1900..=2100).contains(&year)
            && crate::pii_masker::detectors::valid_date(year, month, day)
            && self.context(first, end).contains(PiiType::DateOfBirth);
        if !valid {
            return None;
        }
        self.hit(first, end, PiiType::DateOfBirth, C_LABEL, "date_of_birth");
        Some(end)
    }
}

/// The names of the months and their abbreviations, folded ([`text::fold_short`]), in the languages of
/// the birth-date labels (Turkish, English, German, French, Spanish, Italian, Dutch, Polish).
pub(super) const MONTHS: [&[&str]; 12] = [
    &[
        "ocak", "january", "jan", "januar", "janvier", "enero", "gennaio", "januari", "stycznia",
    ],
    &[
        "subat", "february", "feb", "februar", "fevrier", "febrero", "febbraio", "februari",
        "lutego",
    ],
    &[
        "mart", "march", "mar", "marz", "mars", "marzo", "maart", "marca",
    ],
    &[
        "nisan", "april", "apr", "avril", "abril", "aprile", "kwietnia",
    ],
    &["mayis", "may", "mai", "mayo", "maggio", "mei", "maja"],
    &[
        "haziran", "june", "jun", "juni", "juin", "junio", "giugno", "czerwca",
    ],
    &[
        "temmuz", "july", "jul", "juli", "juillet", "julio", "luglio", "lipca",
    ],
    &[
        "agustos",
        "august",
        "aug",
        "aout",
        "ao\u{fb}t",
        "agosto",
        "augustus",
        "sierpnia",
    ],
    &[
        "eylul",
        "september",
        "sep",
        "sept",
        "septembre",
        "septiembre",
        "settembre",
    ],
    &[
        "ekim", "october", "oct", "oktober", "octobre", "octubre", "ottobre",
    ],
    &[
        "kasim",
        "november",
        "nov",
        "novembre",
        "noviembre",
        "listopada",
    ],
    &[
        "aralik",
        "december",
        "dec",
        "dezember",
        "decembre",
        "diciembre",
        "dicembre",
        "grudnia",
    ],
];

/// Bit `second - 'a'` of entry `first - 'a'` set when a month's folded name begins with those two
/// letters (every name begins with two ASCII letters).
pub(super) const MONTH_PAIRS: [u32; 26] = {
    let mut pairs = [0u32; 26];
    let mut month = 0;
    while month < MONTHS.len() {
        let mut k = 0;
        while k < MONTHS[month].len() {
            let name = MONTHS[month][k].as_bytes();
            pairs[(name[0] - b'a') as usize] |= 1 << (name[1] - b'a');
            k += 1;
        }
        month += 1;
    }
    pairs
};

/// Whether the word at `at` may be a month's name, by its first two bytes: two ASCII letters that
/// begin some folded name (in either case); an ASCII letter that begins one, then a byte of a non-ASCII
/// letter, which folding could make its second ("Ağustos", "März", "Février"); or a non-ASCII first
/// letter ("Şubat"). Turns away most words after a small number ("39 adet", "9 iş günü") before their
/// letters are walked.
pub(super) fn may_begin_month(b: &[u8], at: usize) -> bool {
    let (Some(&first), Some(&second)) = (b.get(at), b.get(at + 1)) else {
        return false;
    };
    if first >= 0x80 {
        return true;
    }
    let first = first | 0x20;
    if !first.is_ascii_lowercase() {
        return false;
    }
    let seconds = MONTH_PAIRS[usize::from(first - b'a')];
    if second >= 0x80 {
        return seconds != 0;
    }
    let second = second | 0x20;
    second.is_ascii_lowercase() && seconds & (1 << (second - b'a')) != 0
}

/// The month (1-12) a folded month name or abbreviation stands for.
pub(super) fn month_number(folded: &[u8]) -> Option<u32> {
    MONTHS
        .iter()
        .position(|names| names.iter().any(|name| name.as_bytes() == folded))
        .map(|index| index as u32 + 1)
}

/// dd.mm.yyyy, dd/mm/yyyy, yyyy-mm-dd with a plausible birth year.
pub(super) fn is_date(s: &[u8], lens: &[usize]) -> bool {
    let valid = |year: u32, month: u32, day: u32| {
        (1900..=2100).contains(&year) && crate::pii_masker::detectors::valid_date(year, month, day)
    };
    match lens {
        [1 | 2, 1 | 2, 4] => {
            let (d, rest) = s.split_at(lens[0]);
            let (m, y) = rest.split_at(lens[1]);
            let (d, m, y) = (decimal(d), decimal(m), decimal(y));
            // Day first, or month first as the US writes it ("04/15/1985").
            valid(y, m, d) || valid(y, d, m)
        }
        [4, 1 | 2, 1 | 2] => {
            let (y, rest) = s.split_at(4);
            let (m, d) = rest.split_at(lens[1]);
            valid(decimal(y), decimal(m), decimal(d))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every month's name, as written in any case and with its own letters (Turkish capitals, accents),
    /// passes the two-byte filter in front of the month look-up; the words after the benchmark's small
    /// numbers do not.
    #[test]
    fn the_month_filter_lets_every_written_month_through() {
        let written = [
            "Ocak",
            "ŞUBAT",
            "Şubat",
            "şubat",
            "Mart",
            "Nisan",
            "Mayıs",
            "MAYIS",
            "Haziran",
            "Temmuz",
            "Ağustos",
            "AĞUSTOS",
            "Eylül",
            "EYLÜL",
            "Ekim",
            "Kasım",
            "KASIM",
            "Aralık",
            "ARALIK",
            "März",
            "MÄRZ",
            "Février",
            "FÉVRIER",
            "août",
            "Août",
            "décembre",
            "Décembre",
            "Juli",
            "Sept",
            "Dez",
        ];
        for name in MONTHS
            .iter()
            .flat_map(|names| names.iter())
            .copied()
            .chain(written)
        {
            let (upper, title) = (
                name.to_uppercase(),
                crate::pii_masker::engine::context::title(name),
            );
            for form in [name, upper.as_str(), title.as_str()] {
                assert!(may_begin_month(form.as_bytes(), 0), "{form}");
            }
        }
        for word in ["adet", "kutu", "sayfadır", "iş", "TL", "x", "", "12"] {
            assert!(!may_begin_month(word.as_bytes(), 0), "{word}");
        }
    }
}
