//! US validators.

use super::{all_digits, digits, luhn};

/// SSN `AAA-GG-SSSS` rules (area not 000/666/9xx, group not 00, serial not 0000, no advertising numbers).
pub fn ssn_us(value: &[u8]) -> bool {
    let Some(d) = digits::<9>(value) else {
        return false;
    };
    let area = u32::from(d[0]) * 100 + u32::from(d[1]) * 10 + u32::from(d[2]);
    let group = u32::from(d[3]) * 10 + u32::from(d[4]);
    let serial = &d[5..];
    if area == 0 || area == 666 || area >= 900 || group == 0 || serial.iter().all(|&x| x == 0) {
        return false;
    }
    !matches!(value, b"078051120" | b"219099999" | b"457555462")
}

/// ITIN: 9XX-GG-XXXX with group 50–65, 70–88, 90–92, 94–99.
pub fn itin_us(value: &[u8]) -> bool {
    let Some(d) = digits::<9>(value) else {
        return false;
    };
    let group = u32::from(d[3]) * 10 + u32::from(d[4]);
    d[0] == 9 && matches!(group, 50..=65 | 70..=88 | 90..=92 | 94..=99)
}

/// EIN `XX-XXXXXXX` with an IRS campus prefix.
pub fn ein_us(value: &[u8]) -> bool {
    let Some(d) = digits::<9>(value) else {
        return false;
    };
    let prefix = u32::from(d[0]) * 10 + u32::from(d[1]);
    matches!(prefix, 1..=6 | 10..=16 | 20..=27 | 30..=39 | 40..=48 | 50..=68 | 71..=77 | 80..=88 | 90..=95 | 98 | 99)
}

/// ABA routing number: weights 3,7,1 and an allowed prefix.
pub fn aba_routing_us(value: &[u8]) -> bool {
    let Some(d) = digits::<9>(value) else {
        return false;
    };
    let prefix = u32::from(d[0]) * 10 + u32::from(d[1]);
    if !matches!(prefix, 0..=12 | 21..=32 | 61..=72 | 80) {
        return false;
    }
    let weights = [3u32, 7, 1, 3, 7, 1, 3, 7, 1];
    d.iter()
        .zip(weights)
        .map(|(&x, w)| u32::from(x) * w)
        .sum::<u32>()
        % 10
        == 0
}

/// Medicare Beneficiary Identifier template (11 characters, no S L O I B Z).
pub fn mbi_us(value: &[u8]) -> bool {
    if value.len() != 11 {
        return false;
    }
    let letter = |b: u8| b.is_ascii_uppercase() && !b"SLOIBZ".contains(&b);
    let alnum = |b: u8| b.is_ascii_digit() || letter(b);
    let numeric = |b: u8| b.is_ascii_digit();
    matches!(value[0], b'1'..=b'9')
        && letter(value[1])
        && alnum(value[2])
        && numeric(value[3])
        && letter(value[4])
        && alnum(value[5])
        && numeric(value[6])
        && letter(value[7])
        && letter(value[8])
        && numeric(value[9])
        && numeric(value[10])
}

/// NPI: 10 digits starting 1 or 2, Luhn over "80840" + the number.
pub fn npi_us(value: &[u8]) -> bool {
    if value.len() != 10 || !all_digits(value) || !matches!(value[0], b'1' | b'2') {
        return false;
    }
    let mut full = [0u8; 15];
    full[..5].copy_from_slice(b"80840");
    full[5..].copy_from_slice(value);
    luhn(&full)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strip(value: &str) -> Vec<u8> {
        value.bytes().filter(u8::is_ascii_alphanumeric).collect()
    }

    #[test]
    fn vectors() {
        for v in ["536-90-4399", "123-45-6788", "772-12-3456"] {
            assert!(ssn_us(&strip(v)), "{v}");
        }
        for v in [
            "000-12-3456",
            "666-12-3456",
            "912-34-5678",
            "123-00-4567",
            "123-45-0000",
            "078-05-1120",
            "219-09-9999",
        ] {
            assert!(!ssn_us(&strip(v)), "{v}");
        }
        for v in ["912-70-1234", "912-90-3456", "900-55-1234", "999-99-9999"] {
            assert!(itin_us(&strip(v)), "{v}");
        }
        for v in ["912-93-4567", "812-70-1234", "912-66-1234", "912-89-1234"] {
            assert!(!itin_us(&strip(v)), "{v}");
        }
        for v in ["12-3456789", "04-2103594", "98-7654321"] {
            assert!(ein_us(&strip(v)), "{v}");
        }
        for v in ["07-1234567", "00-1234567", "89-1234567", "19-1234567"] {
            assert!(!ein_us(&strip(v)), "{v}");
        }
        for v in [
            "011000015",
            "021000021",
            "111000025",
            "026009593",
            "122105155",
        ] {
            assert!(aba_routing_us(v.as_bytes()), "{v}");
        }
        for v in ["021000022", "112000025", "131000025"] {
            assert!(!aba_routing_us(v.as_bytes()), "{v}");
        }
        for v in ["1EG4-TE5-MK73", "1EG4TE5MK73", "9AA0A00AA00"] {
            assert!(mbi_us(&strip(v)), "{v}");
        }
        for v in ["0EG4TE5MK73", "1SG4TE5MK73", "1EG4TE5MK7", "1EGATE5MK73"] {
            assert!(!mbi_us(&strip(v)), "{v}");
        }
        assert!(npi_us(b"1234567893") && npi_us(b"1245319599"));
        assert!(!npi_us(b"1234567890") && !npi_us(b"1245319598"));
    }
}
