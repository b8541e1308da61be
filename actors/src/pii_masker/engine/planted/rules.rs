//! The arithmetic of the generators: check digits (Luhn, mod 97, ICAO 9303, bech32, double SHA-256
//! for base58), and the values whose rules take more than a few lines (EU VAT numbers, Bitcoin
//! addresses, a passport's machine-readable zone).

use super::super::synthetic::Rng;
use crate::pii_masker::detectors::{generic, vat};

pub(super) fn digit(c: u8) -> u32 {
    u32::from(c - b'0')
}

pub(super) fn digits(text: &str) -> Vec<u32> {
    text.bytes().map(digit).collect()
}

pub(super) fn push_digit(text: &mut String, d: u32) {
    text.push(char::from(b'0' + (d % 10) as u8));
}

/// The digit that makes `body` followed by it pass Luhn.
pub(super) fn luhn_digit(body: &str) -> u32 {
    let sum: u32 = body
        .bytes()
        .rev()
        .enumerate()
        .map(|(i, c)| {
            let d = digit(c);
            if i % 2 == 0 {
                let x = d * 2;
                if x > 9 {
                    x - 9
                } else {
                    x
                }
            } else {
                d
            }
        })
        .sum();
    (10 - sum % 10) % 10
}

/// The number written in the ASCII digits of `text`, modulo `m`.
pub(super) fn residue(text: &str, m: u64) -> u64 {
    text.bytes()
        .fold(0u64, |acc, c| (acc * 10 + u64::from(c - b'0')) % m)
}

pub(super) fn mod97(text: &str) -> u64 {
    residue(text, 97)
}

/// A date of birth as YYMMDD (a day every month has).
pub(super) fn yymmdd(rng: &mut Rng) -> String {
    format!(
        "{:02}{:02}{:02}",
        rng.below(100),
        1 + rng.below(12),
        1 + rng.below(28)
    )
}

/// An IBAN of `country` with a BBAN of `bban` (digits), its check digits computed.
pub(super) fn iban_of(country: &str, bban: &str) -> String {
    let letters: String = country
        .bytes()
        .map(|c| (u32::from(c - b'A') + 10).to_string())
        .collect();
    let check = 98 - mod97(&format!("{bban}{letters}00"));
    format!("{country}{check:02}{bban}")
}

pub(super) fn letter(rng: &mut Rng, from: &[u8]) -> char {
    char::from(from[rng.below(from.len() as u64) as usize])
}

pub(super) const CAPITALS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ";

/// The ICAO 9303 check digit of an MRZ field (weights 7, 3, 1; `<` is 0, A is 10 ... Z is 35).
pub(super) fn mrz_digit(field: &str) -> char {
    let sum: u32 = field
        .bytes()
        .zip([7, 3, 1].into_iter().cycle())
        .map(|(c, w)| {
            w * match c {
                b'0'..=b'9' => u32::from(c - b'0'),
                b'A'..=b'Z' => u32::from(c - b'A') + 10,
                _ => 0,
            }
        })
        .sum();
    char::from(b'0' + (sum % 10) as u8)
}

/// The second line of a passport's machine-readable zone (TD3, 44 characters): document number,
/// nationality, birth date, sex, expiry, a personal number (a TCKN-like 11 digits) and their check
/// digits, then the composite check.
pub(super) fn mrz_td3_line2(rng: &mut Rng) -> String {
    let document: String = (0..9)
        .map(|_| letter(rng, b"ABCDEFGHJKLMNPRSTUVWXYZ0123456789"))
        .collect();
    let nationality = rng.pick(&["TUR", "DEU", "FRA", "NLD", "GBR", "UTO", "ITA", "POL"]);
    let birth = yymmdd(rng);
    let sex = rng.pick(&["M", "F"]);
    let expiry = format!(
        "{:02}{:02}{:02}",
        26 + rng.below(10),
        1 + rng.below(12),
        1 + rng.below(28)
    );
    let personal = format!("{}<<<", rng.digits(11));
    let mut line = format!(
        "{document}{}{nationality}{birth}{}{sex}{expiry}{}{personal}{}",
        mrz_digit(&document),
        mrz_digit(&birth),
        mrz_digit(&expiry),
        mrz_digit(&personal)
    );
    let composite = format!("{}{}{}", &line[0..10], &line[13..20], &line[21..43]);
    line.push(mrz_digit(&composite));
    line
}

/// A Bitcoin address in base58 (P2PKH `1...` or P2SH `3...`): a version byte, 20 random bytes and the
/// first four bytes of their double SHA-256.
pub(super) fn base58_address(rng: &mut Rng) -> String {
    const BASE58: &[u8] = b"123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
    let mut bytes = vec![if rng.below(2) == 0 { 0u8 } else { 5u8 }];
    bytes.extend((0..20).map(|_| rng.below(256) as u8));
    let first = ring::digest::digest(&ring::digest::SHA256, &bytes);
    let second = ring::digest::digest(&ring::digest::SHA256, first.as_ref());
    bytes.extend_from_slice(&second.as_ref()[..4]);
    // Base 58 by repeated division of the big-endian number.
    let mut number = bytes.clone();
    let mut out = Vec::new();
    while number.iter().any(|&b| b != 0) {
        let mut remainder = 0u32;
        for byte in number.iter_mut() {
            let value = remainder * 256 + u32::from(*byte);
            *byte = (value / 58) as u8;
            remainder = value % 58;
        }
        out.push(BASE58[remainder as usize]);
    }
    out.extend(bytes.iter().take_while(|&&b| b == 0).map(|_| b'1'));
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

/// A native SegWit address (bech32, witness version 0, a 20-byte program): `bc1q...`.
pub(super) fn bech32_address(rng: &mut Rng) -> String {
    const CHARSET: &[u8] = b"qpzry9x8gf2tvdw0s3jn54khce6mua7l";
    let program: Vec<u8> = (0..20).map(|_| rng.below(256) as u8).collect();
    let mut data = vec![0u32];
    let (mut acc, mut bits) = (0u32, 0u32);
    for byte in program {
        acc = (acc << 8) | u32::from(byte);
        bits += 8;
        while bits >= 5 {
            bits -= 5;
            data.push((acc >> bits) & 31);
        }
    }
    if bits > 0 {
        data.push((acc << (5 - bits)) & 31);
    }
    let mut values = vec![3, 3, 0, 2, 3];
    values.extend(&data);
    values.extend([0; 6]);
    let checksum = generic::bech32_polymod(&values) ^ 1;
    data.extend((0..6).map(|k| (checksum >> (5 * (5 - k))) & 31));
    let mut out = String::from("bc1");
    out.extend(data.iter().map(|&d| char::from(CHARSET[d as usize])));
    out
}

pub(super) fn rng_pick<'a, T>(rng: &mut Rng, items: &'a [T]) -> &'a T {
    &items[rng.below(items.len() as u64) as usize]
}

/// IBAN countries and lengths (a sample of the registry across its regions; the registry itself is
/// tested in `detectors::generic`).
pub(super) const IBAN_COUNTRIES: &[(&str, usize)] = &[
    ("DE", 22),
    ("GB", 22),
    ("FR", 27),
    ("IT", 27),
    ("ES", 24),
    ("NL", 18),
    ("BE", 16),
    ("AT", 20),
    ("CH", 21),
    ("PL", 28),
    ("PT", 25),
    ("SE", 24),
    ("NO", 15),
    ("MT", 31),
    ("SA", 24),
    ("AE", 23),
    ("GR", 27),
    ("RO", 24),
    ("IE", 22),
    ("DK", 18),
    ("FI", 18),
    ("CZ", 24),
    ("HU", 28),
    ("BG", 22),
];

/// An EU VAT number of a random prefix: the country's shape with random digits, drawn until its check
/// holds.
pub(super) fn vat_number(rng: &mut Rng) -> String {
    let prefix = vat::VAT_PREFIXES[rng.below(28) as usize];
    let country = std::str::from_utf8(prefix).unwrap_or("DE");
    // '9' a digit, 'L' a capital, 'N' a digit above 3, any other character itself.
    let shape = match country {
        "AT" => "U99999999",
        "BE" => "0999999999",
        "CY" => "99999999L",
        "EL" | "DE" | "EE" | "BG" | "PT" => "999999999",
        "ES" => "L99999999",
        "FR" | "HR" | "IT" => "99999999999",
        "IE" => "9999999L",
        "LT" => "999999919",
        "LV" => "N9999999999",
        "NL" => "999999999B99",
        "PL" | "SK" => "9999999999",
        "SE" => "999999999901",
        "XI" => "999999999",
        _ => "99999999",
    };
    loop {
        let mut out = String::from(country);
        for c in shape.bytes() {
            match c {
                b'9' => push_digit(&mut out, rng.below(10) as u32),
                b'N' => push_digit(&mut out, 4 + rng.below(6) as u32),
                b'L' => out.push(letter(rng, CAPITALS)),
                other => out.push(char::from(other)),
            }
        }
        if vat::vat_eu(out.as_bytes()) {
            return out;
        }
    }
}
