//! Turkish validators: TCKN, VKN, phone ranges, plates, passport, SGK workplace numbers.

use super::digits;

/// T.C. Kimlik No: 11 digits, first not 0, two check digits (d10 with a Euclidean modulo).
pub fn tckn(value: &[u8]) -> bool {
    let Some(d) = digits::<11>(value) else {
        return false;
    };
    if d[0] == 0 {
        return false;
    }
    let first: &[u8; 9] = d[..9].try_into().expect("nine digits");
    tckn_check_digits(first) == (d[9], d[10])
}

/// A TCKN's two check digits after its first nine (digit values, not bytes): d10 with a Euclidean
/// modulo, then d11 over the first ten.
pub(crate) fn tckn_check_digits(d: &[u8; 9]) -> (u8, u8) {
    let odd = i32::from(d[0] + d[2] + d[4] + d[6] + d[8]);
    let even = i32::from(d[1] + d[3] + d[5] + d[7]);
    let d10 = (7 * odd - even).rem_euclid(10) as u8;
    let d11 = ((d.iter().map(|&x| u32::from(x)).sum::<u32>() + u32::from(d10)) % 10) as u8;
    (d10, d11)
}

/// Vergi Kimlik No: 10 digits, GİB's check digit.
pub fn vkn(value: &[u8]) -> bool {
    let Some(d) = digits::<10>(value) else {
        return false;
    };
    let mut total = 0u32;
    for (p, &digit) in d[..9].iter().enumerate() {
        let i = 9 - p as u32;
        let t = (u32::from(digit) + i) % 10;
        if t != 0 {
            let mut c = (t * (1u32 << i)) % 9;
            if c == 0 {
                c = 9;
            }
            total += c;
        }
    }
    (10 - total % 10) % 10 == u32::from(d[9])
}

/// Geographic area codes of Turkey (libphonenumber TR metadata).
const AREA_CODES: &[u16] = &[
    212, 216, 222, 224, 226, 228, 232, 236, 238, 242, 246, 248, 252, 256, 258, 262, 264, 266, 272,
    274, 276, 282, 284, 286, 288, 312, 318, 322, 324, 326, 328, 332, 338, 342, 344, 346, 348, 352,
    354, 356, 358, 362, 364, 366, 368, 370, 372, 374, 376, 378, 380, 382, 384, 386, 388, 392, 412,
    414, 416, 422, 424, 426, 428, 432, 434, 436, 438, 442, 446, 452, 454, 456, 458, 462, 464, 466,
    472, 474, 476, 478, 482, 484, 486, 488,
];

/// A Turkish national significant number (10 digits, no prefix): mobile, geographic or
/// non-geographic.
pub fn phone_nsn(nsn: &[u8]) -> bool {
    if nsn.len() != 10 || !super::all_digits(nsn) {
        return false;
    }
    let code =
        u16::from(nsn[0] - b'0') * 100 + u16::from(nsn[1] - b'0') * 10 + u16::from(nsn[2] - b'0');
    match nsn[0] {
        b'5' => {
            let two = code % 100;
            matches!(two / 10, 0 | 3 | 4 | 5)
                || matches!(
                    two,
                    10 | 16 | 24 | 61 | 62 | 64 | 72 | 74 | 75 | 82 | 92 | 94 | 96 | 12
                )
        }
        b'2' | b'3' | b'4' => AREA_CODES.binary_search(&code).is_ok(),
        b'8' => matches!(code, 850 | 800 | 811 | 888 | 898),
        b'9' => code == 900,
        _ => false,
    }
}

/// A Turkish phone number written with a prefix: `0` + NSN, `90` + NSN, `0090` + NSN, or a 444 UAN.
/// Returns true for the digit string (separators already removed).
pub fn phone_with_prefix(value: &[u8]) -> bool {
    match value.len() {
        7 => value.starts_with(b"444") && super::all_digits(value),
        11 => value[0] == b'0' && phone_nsn(&value[1..]),
        12 => value.starts_with(b"90") && phone_nsn(&value[2..]),
        14 => value.starts_with(b"0090") && phone_nsn(&value[4..]),
        _ => false,
    }
}

/// Plate letters: Latin capitals without Q, W, X.
fn plate_letter(byte: u8) -> bool {
    byte.is_ascii_uppercase() && !matches!(byte, b'Q' | b'W' | b'X')
}

/// Vehicle plate `PP L+ D+` (province 01–81; 1 letter + 4–5 digits, 2 letters + 3–4 digits, 3 letters +
/// 2–3 digits), given as its three groups.
pub fn plate(province: &[u8], letters: &[u8], numbers: &[u8]) -> bool {
    let Some(p) = digits::<2>(province) else {
        return false;
    };
    let province = u32::from(p[0]) * 10 + u32::from(p[1]);
    if !(1..=81).contains(&province) || !super::all_digits(numbers) {
        return false;
    }
    if letters.is_empty() || !letters.iter().all(|&b| plate_letter(b)) {
        return false;
    }
    match letters.len() {
        1 => (4..=5).contains(&numbers.len()),
        2 => (3..=4).contains(&numbers.len()),
        3 => (2..=3).contains(&numbers.len()),
        _ => false,
    }
}

/// Ordinary e-passport number `U` + 8 digits.
pub fn passport(value: &[u8]) -> bool {
    value.len() == 9 && value[0] == b'U' && super::all_digits(&value[1..])
}

/// SGK işyeri sicil numarası: 26 digits with province code 001–081 at positions 17–19.
pub fn isyeri_sicil(value: &[u8]) -> bool {
    if value.len() != 26 || !super::all_digits(value) {
        return false;
    }
    let province = u32::from(value[16] - b'0') * 100
        + u32::from(value[17] - b'0') * 10
        + u32::from(value[18] - b'0');
    (1..=81).contains(&province)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tckn_vectors() {
        for valid in [
            "10000000146",
            "17291716060",
            "62601815964",
            "19090909018",
            "12345678950",
            "98765432150",
            "55555555550",
            "76543210794",
            "36493665440",
        ] {
            assert!(tckn(valid.as_bytes()), "{valid}");
        }
        for invalid in [
            "10000000147",
            "17291716050",
            "07291716092",
            "11111111111",
            "12345678901",
            "1000000014",
        ] {
            assert!(!tckn(invalid.as_bytes()), "{invalid}");
        }
    }

    #[test]
    fn vkn_vectors() {
        for valid in [
            "4540536920",
            "1234567890",
            "1111111114",
            "0000000019",
            "9876543217",
        ] {
            assert!(vkn(valid.as_bytes()), "{valid}");
        }
        for invalid in ["4540536921", "2222222222", "1234567891", "454053692"] {
            assert!(!vkn(invalid.as_bytes()), "{invalid}");
        }
    }

    #[test]
    fn phone_ranges() {
        for valid in [
            "905321234567",
            "05321234567",
            "02123456789",
            "903124445566",
            "08501234567",
            "4441444",
            "00905551234567",
        ] {
            assert!(phone_with_prefix(valid.as_bytes()), "{valid}");
        }
        for invalid in [
            "05221234567",
            "01991234567",
            "90532123456",
            "02131234567",
            "906001234567",
        ] {
            assert!(!phone_with_prefix(invalid.as_bytes()), "{invalid}");
        }
    }

    #[test]
    fn plate_vectors() {
        for (p, l, n) in [
            ("34", "ABC", "123"),
            ("06", "A", "1234"),
            ("35", "JK", "123"),
            ("01", "AB", "1234"),
            ("81", "ABC", "12"),
            ("06", "A", "12345"),
        ] {
            assert!(
                plate(p.as_bytes(), l.as_bytes(), n.as_bytes()),
                "{p} {l} {n}"
            );
        }
        for (p, l, n) in [
            ("82", "ABC", "123"),
            ("00", "A", "1234"),
            ("34", "QWX", "123"),
            ("34", "ABC", "1234"),
            ("35", "JK", "12"),
            ("06", "A", "123"),
        ] {
            assert!(
                !plate(p.as_bytes(), l.as_bytes(), n.as_bytes()),
                "{p} {l} {n}"
            );
        }
    }

    #[test]
    fn sgk_structure() {
        assert!(isyeri_sicil(b"24100010110708460340164000"));
        assert!(isyeri_sicil(b"14100010110708460340164000"));
        assert!(!isyeri_sicil(b"14100010110708460990164000"));
        assert!(!isyeri_sicil(b"1410001011070846034016400"));
        assert!(passport(b"U12345678") && !passport(b"U1234567"));
    }
}
