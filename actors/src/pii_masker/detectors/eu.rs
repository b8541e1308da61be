//! EU and UK validators.

#[cfg(test)]
use super::vat::vat_eu;
use super::{all_digits, digits, iso7064_mod11_10, luhn, mod_digits, valid_date, Check};

/// German Steuer-IdNr: 11 digits, first not 0; in the first 10 exactly one digit occurs 2 or 3 times;
/// ISO 7064 MOD 11,10 check digit. The layout first: it turns most numbers away for less than the
/// checksum costs.
pub fn tax_id_de(value: &[u8]) -> bool {
    let Some(d) = digits::<11>(value) else {
        return false;
    };
    d[0] != 0 && repeats_once(&d) && iso7064_mod11_10(value)
}

/// The Steuer-IdNr's repetition rule: in the first 10 digits exactly one occurs 2 or 3 times.
fn repeats_once(d: &[u8; 11]) -> bool {
    let mut counts = [0u8; 10];
    for &digit in &d[..10] {
        counts[usize::from(digit)] += 1;
    }
    counts.iter().filter(|&&c| c >= 2).count() == 1 && !counts.iter().any(|&c| c > 3)
}

/// The Steuer-IdNr's checks: 11 digits whose ISO 7064 MOD 11,10 check digit holds (the checksum); a
/// first digit other than 0 and the repetition rule (the layout).
pub fn tax_id_de_check(value: &[u8]) -> Check {
    let Some(d) = digits::<11>(value) else {
        return Check::Fails;
    };
    if !iso7064_mod11_10(value) {
        return Check::Fails;
    }
    Check::layout(d[0] != 0 && repeats_once(&d))
}

/// French NIR (15 chars; Corsica departments 2A/2B).
pub fn social_security_fr(value: &[u8]) -> bool {
    if value.len() != 15 || !matches!(value[0], b'1' | b'2' | b'3' | b'7' | b'8') {
        return false;
    }
    let mut number = [0u8; 13];
    number.copy_from_slice(&value[..13]);
    let adjust: u64 = match &number[5..7] {
        b"2A" => {
            number[5] = b'1';
            number[6] = b'9';
            1_000_000
        }
        b"2B" => {
            number[5] = b'1';
            number[6] = b'8';
            2_000_000
        }
        _ => 0,
    };
    if !all_digits(&number) || !all_digits(&value[13..]) {
        return false;
    }
    let month = u32::from(number[3] - b'0') * 10 + u32::from(number[4] - b'0');
    if month == 0 || (month > 12 && month < 20) {
        return false;
    }
    // Corsica: 2A -> 19 and 2B -> 18 were substituted above; the official rule subtracts
    // 1,000,000 / 2,000,000 from the number, which is the same as using those digits.
    let _ = adjust;
    let rest = mod_digits(&number, 97);
    let key = u64::from(value[13] - b'0') * 10 + u64::from(value[14] - b'0');
    97 - rest == key
}

/// The control letters of Spanish DNIs, NIEs and NIFs, by the number mod 23.
pub const DNI_LETTERS: &[u8; 23] = b"TRWAGMYFPDXBNJZSQVHLCKE";

/// Spanish DNI: 8 digits + control letter.
pub fn national_id_es(value: &[u8]) -> bool {
    value.len() == 9
        && all_digits(&value[..8])
        && DNI_LETTERS[(mod_digits(&value[..8], 23)) as usize] == value[8]
}

/// Spanish NIE: X/Y/Z + 7 digits + control letter.
pub fn foreigner_id_es(value: &[u8]) -> bool {
    if value.len() != 9 || !all_digits(&value[1..8]) {
        return false;
    }
    let lead = match value[0] {
        b'X' => 0u64,
        b'Y' => 1,
        b'Z' => 2,
        _ => return false,
    };
    let number = lead * 10_000_000 + mod_digits(&value[1..8], 10_000_000);
    DNI_LETTERS[(number % 23) as usize] == value[8]
}

/// Italian codice fiscale (persons), with omocodia.
pub fn fiscal_code_it(value: &[u8]) -> bool {
    if value.len() != 16 {
        return false;
    }
    const OMOCODIA: &[u8] = b"LMNPQRSTUV";
    let is_digitish = |b: u8| b.is_ascii_digit() || OMOCODIA.contains(&b);
    let letters_ok = value[..6].iter().all(u8::is_ascii_uppercase)
        && value[8].is_ascii_uppercase()
        && b"ABCDEHLMPRST".contains(&value[8])
        && value[11].is_ascii_uppercase()
        && value[15].is_ascii_uppercase();
    let digits_ok = [6, 7, 9, 10, 12, 13, 14]
        .iter()
        .all(|&i| is_digitish(value[i]));
    if !letters_ok || !digits_ok {
        return false;
    }
    const ODD: [u32; 26] = [
        1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20, 11, 3, 6, 8, 12, 14, 16, 10, 22, 25, 24,
        23,
    ];
    let mut sum = 0u32;
    for (index, &byte) in value[..15].iter().enumerate() {
        let position = if byte.is_ascii_digit() {
            u32::from(byte - b'0')
        } else {
            u32::from(byte - b'A')
        };
        sum += if index % 2 == 0 {
            ODD[position as usize]
        } else {
            position
        };
    }
    value[15] == b'A' + (sum % 26) as u8
}

/// Dutch BSN: 9 digits, 11-proof.
pub fn citizen_id_nl(value: &[u8]) -> bool {
    let Some(d) = digits::<9>(value) else {
        return false;
    };
    if d.iter().all(|&x| x == 0) {
        return false;
    }
    let mut sum = 0i32;
    for (index, &digit) in d[..8].iter().enumerate() {
        sum += (9 - index as i32) * i32::from(digit);
    }
    sum -= i32::from(d[8]);
    sum.rem_euclid(11) == 0
}

/// Polish PESEL with its date.
#[cfg(any(test, feature = "test-support"))]
pub fn national_id_pl(value: &[u8]) -> bool {
    national_id_pl_check(value) == Check::Valid
}

/// PESEL's checks: 11 digits whose weighted check digit holds (the checksum), and a real date of
/// birth in them, the century in the month (the layout).
pub fn national_id_pl_check(value: &[u8]) -> Check {
    let Some(d) = digits::<11>(value) else {
        return Check::Fails;
    };
    const WEIGHTS: [u32; 10] = [1, 3, 7, 9, 1, 3, 7, 9, 1, 3];
    let sum: u32 = d[..10]
        .iter()
        .zip(WEIGHTS)
        .map(|(&x, w)| u32::from(x) * w)
        .sum();
    if (10 - sum % 10) % 10 != u32::from(d[10]) {
        return Check::Fails;
    }
    let yy = u32::from(d[0]) * 10 + u32::from(d[1]);
    let month = u32::from(d[2]) * 10 + u32::from(d[3]);
    let day = u32::from(d[4]) * 10 + u32::from(d[5]);
    let century = match month {
        1..=12 => 1900,
        21..=32 => 2000,
        41..=52 => 2100,
        61..=72 => 2200,
        81..=92 => 1800,
        _ => return Check::ChecksumOnly,
    };
    Check::layout(valid_date(century + yy, month % 20, day))
}

/// UK National Insurance number: 2 letters + 6 digits + A–D.
pub fn national_insurance_uk(value: &[u8]) -> bool {
    if value.len() != 9 || !all_digits(&value[2..8]) || !matches!(value[8], b'A'..=b'D') {
        return false;
    }
    let (first, second) = (value[0], value[1]);
    if !first.is_ascii_uppercase() || !second.is_ascii_uppercase() {
        return false;
    }
    if b"DFIQUV".contains(&first) || b"DFIOQUV".contains(&second) {
        return false;
    }
    !matches!(
        &value[..2],
        b"BG" | b"GB" | b"KN" | b"NK" | b"NT" | b"TN" | b"ZZ"
    )
}

/// UK NHS number: 10 digits, mod 11 check.
pub fn nhs_number_uk(value: &[u8]) -> bool {
    let Some(d) = digits::<10>(value) else {
        return false;
    };
    let sum: u32 = d[..9]
        .iter()
        .enumerate()
        .map(|(i, &x)| u32::from(x) * (10 - i as u32))
        .sum();
    let check = 11 - sum % 11;
    let check = if check == 11 { 0 } else { check };
    check != 10 && check == u32::from(d[9])
}

/// Belgian national register number (born before or from 2000).
pub fn national_id_be(value: &[u8]) -> bool {
    if value.len() != 11 || !all_digits(value) {
        return false;
    }
    let check = mod_digits(&value[9..], 100);
    let base = mod_digits(&value[..9], 1_000_000_000);
    97 - base % 97 == check || 97 - (2_000_000_000 + base) % 97 == check
}

/// Swedish personnummer in its 10-digit form (YYMMDDNNNC), with date sanity (samordningsnummer day+60).
pub fn personal_id_se(ten: &[u8]) -> bool {
    personal_id_se_check(ten) == Check::Valid
}

/// The personnummer's checks: Luhn over the 10-digit form (the checksum), and a real month and day
/// (a samordningsnummer's day plus 60) in it (the layout).
pub fn personal_id_se_check(ten: &[u8]) -> Check {
    let Some(d) = digits::<10>(ten) else {
        return Check::Fails;
    };
    if !luhn(ten) {
        return Check::Fails;
    }
    let month = u32::from(d[2]) * 10 + u32::from(d[3]);
    let mut day = u32::from(d[4]) * 10 + u32::from(d[5]);
    if day > 60 {
        day -= 60;
    }
    Check::layout(valid_date(2000, month, day))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(f: fn(&[u8]) -> bool, valid: &[&str], invalid: &[&str]) {
        for v in valid {
            assert!(f(v.as_bytes()), "should be valid: {v}");
        }
        for v in invalid {
            assert!(!f(v.as_bytes()), "should be invalid: {v}");
        }
    }

    #[test]
    fn vectors() {
        all(
            tax_id_de,
            &["36574261809", "86095742719", "65929970489", "12345678995"],
            &[
                "36574261890",
                "36554266806",
                "12345678903",
                "01234567890",
                "11111111116",
            ],
        );
        all(
            social_security_fr,
            &[
                "295109912611193",
                "253072B07300470",
                "253072A07300443",
                "185057800608491",
            ],
            &["295109912611199", "253072C07300443", "185057800608436"],
        );
        all(
            national_id_es,
            &["12345678Z", "54362315K", "00000000T"],
            &["12345678A", "54362315Z"],
        );
        all(
            foreigner_id_es,
            &["X2482300W", "X1234567L", "Y1234567X", "Z1234567R"],
            &["X2482300A", "X1234567T", "W1234567L"],
        );
        all(
            fiscal_code_it,
            &["RCCMNL83S18D969H", "RSSMRA85T10A562S", "MRNLCU80A41H501F"],
            &["RCCMNL83S18D969A", "RSSMRA85T10A562T", "MRNLCU80A41H501G"],
        );
        all(
            citizen_id_nl,
            &["111222333", "123456782", "999999990"],
            &["111252333", "123456789", "000000000"],
        );
        all(
            national_id_pl,
            &["44051401359", "02070803628", "02270803624"],
            &["44051401358", "02381307589", "02070803629"],
        );
        all(
            national_insurance_uk,
            &["AB123456C", "JG103759A", "CE123456D"],
            &[
                "BG123456A",
                "GB123456A",
                "DA123456A",
                "AO123456A",
                "QQ123456C",
                "AB123456E",
            ],
        );
        all(
            nhs_number_uk,
            &["9434765870", "9434765919", "4010232137"],
            &["9434765871", "9434765918", "1000000010"],
        );
        all(
            national_id_be,
            &["85073003328", "17073003384"],
            &["85073003329", "17073003383"],
        );
        all(
            personal_id_se,
            &["8803200016", "8112289874"],
            &["8803200018", "8112289873"],
        );
        all(
            vat_eu,
            &[
                "DE136695976",
                "FR40303265045",
                "IT00743110157",
                "NL004495445B01",
                "ESB58378431",
                "ATU13585627",
                "BE0428759497",
                "PL8567346215",
                "SE556188840401",
            ],
            &[
                "DE136695978",
                "FR84323140391",
                "IT00743110158",
                "ATU13585626",
                "PL8567346216",
                "XX123456789",
            ],
        );
    }
}
