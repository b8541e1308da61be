//! Validators of the 46 personal-data types: pure functions over normalised values (separators removed,
//! letters upper-cased). No allocation on the hot paths, no panics on any input.

pub(crate) mod eu;
pub(crate) mod generic;
pub(crate) mod phone;
pub(crate) mod tr;
pub(crate) mod us;
pub(crate) mod vat;

/// What a validator found of a value: its checksum fails, or it holds and so does the rest of what the
/// catalogue says of the type (its country's length, an issuer's range, a reserved digit, a date), or
/// the checksum holds and some of the rest does not. The scanner masks a value of the last kind too,
/// with less confidence: privacy fails closed (see `engine::scan::failing_closed`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    Fails,
    ChecksumOnly,
    Valid,
}

impl Check {
    /// `Valid` when `layout` holds as well, `ChecksumOnly` otherwise.
    pub fn layout(layout: bool) -> Check {
        if layout {
            Check::Valid
        } else {
            Check::ChecksumOnly
        }
    }
}

/// Digit values of an ASCII string; `None` if any byte is not a digit.
pub(crate) fn digits<const N: usize>(value: &[u8]) -> Option<[u8; N]> {
    if value.len() != N {
        return None;
    }
    let mut out = [0u8; N];
    for (slot, byte) in out.iter_mut().zip(value) {
        if !byte.is_ascii_digit() {
            return None;
        }
        *slot = byte - b'0';
    }
    Some(out)
}

pub(crate) fn all_digits(value: &[u8]) -> bool {
    !value.is_empty() && value.iter().all(u8::is_ascii_digit)
}

/// Luhn over ASCII digits.
pub(crate) fn luhn(value: &[u8]) -> bool {
    value.len() >= 2 && all_digits(value) && luhn_sum(value, false) % 10 == 0
}

/// The Luhn digit that completes `body` (ASCII digits).
pub(crate) fn luhn_check_digit(body: &[u8]) -> u8 {
    ((10 - luhn_sum(body, true) % 10) % 10) as u8
}

/// The Luhn sum of ASCII digits, every second one from the right doubled (from the rightmost one
/// when `body` is the number without its check digit).
fn luhn_sum(digits: &[u8], body: bool) -> u32 {
    let mut sum = 0u32;
    for (index, byte) in digits.iter().rev().enumerate() {
        let mut digit = u32::from(byte - b'0');
        if (index % 2 == 1) != body {
            digit *= 2;
            if digit > 9 {
                digit -= 9;
            }
        }
        sum += digit;
    }
    sum
}

/// ISO 7064 MOD 11,10 (German tax id, Croatian OIB, German VAT).
pub(crate) fn iso7064_mod11_10(value: &[u8]) -> bool {
    if value.len() < 2 || !all_digits(value) {
        return false;
    }
    let mut product = 10u32;
    for byte in &value[..value.len() - 1] {
        let mut sum = (u32::from(byte - b'0') + product) % 10;
        if sum == 0 {
            sum = 10;
        }
        product = (sum * 2) % 11;
    }
    let check = (11 - product) % 10;
    check == u32::from(value[value.len() - 1] - b'0')
}

/// `value mod m` for a long ASCII digit string, without big numbers.
pub(crate) fn mod_digits(value: &[u8], m: u64) -> u64 {
    value.iter().fold(0u64, |acc, byte| {
        (acc * 10 + u64::from(byte.wrapping_sub(b'0') % 10)) % m
    })
}

/// Is `yy`/`mm`/`dd` a real calendar date (year given in full)?
pub(crate) fn valid_date(year: u32, month: u32, day: u32) -> bool {
    if !(1..=12).contains(&month) || day == 0 {
        return false;
    }
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let days = match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    };
    day <= days
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_checks() {
        assert!(luhn(b"4111111111111111"));
        assert!(!luhn(b"4111111111111112"));
        assert!(iso7064_mod11_10(b"36574261809"));
        assert_eq!(
            mod_digits(b"1234567890123456789012345", 97),
            (1234567890123456789012345u128 % 97) as u64
        );
        assert!(valid_date(2000, 2, 29) && !valid_date(1900, 2, 29) && !valid_date(2023, 13, 1));
    }
}
