//! Cross-border validators: IBAN, cards, BIC, e-mail, IP, MAC, IMEI, MRZ, wallets, VIN.

use super::{all_digits, luhn, mod_digits, Check};

/// The IBAN registry's length per country (`data/iban_lengths.txt`: the SWIFT registry as
/// python-stdnum carries it, one "CC LENGTH" a line).
const IBAN_REGISTRY: &[u8] = include_bytes!("data/iban_lengths.txt");

/// The ISO 3166-1 alpha-2 codes (`data/iso3166_alpha2.txt`, one a line).
const ISO_3166: &[u8] = include_bytes!("data/iso3166_alpha2.txt");

/// The lines of a data file that begin with a country code, read at compile time: the table indexed
/// by the code's two capitals holds the number after the code (`1` where there is none), 0 elsewhere.
const fn code_table(data: &[u8]) -> [u8; 26 * 26] {
    let mut table = [0u8; 26 * 26];
    let mut i = 0;
    while i < data.len() {
        let line = i;
        while i < data.len() && data[i] != b'\n' {
            i += 1;
        }
        // `line..i` is one line; `i` its line break.
        if i - line >= 2 && data[line].is_ascii_uppercase() && data[line + 1].is_ascii_uppercase() {
            let mut value = 0u32;
            let mut k = line + 2;
            while k < i {
                if data[k].is_ascii_digit() {
                    value = value * 10 + (data[k] - b'0') as u32;
                }
                k += 1;
            }
            let index = (data[line] - b'A') as usize * 26 + (data[line + 1] - b'A') as usize;
            table[index] = if value == 0 { 1 } else { value as u8 };
        }
        i += 1;
    }
    table
}

pub fn iban_length(country: &[u8]) -> Option<usize> {
    match country {
        [a @ b'A'..=b'Z', b @ b'A'..=b'Z'] => {
            let length = IBAN_LENGTH_BY_CODE[usize::from(a - b'A') * 26 + usize::from(b - b'A')];
            (length != 0).then_some(usize::from(length))
        }
        _ => None,
    }
}

/// [`IBAN_REGISTRY`] indexed by the two capitals of a country code (0: no IBAN): one look-up.
static IBAN_LENGTH_BY_CODE: [u8; 26 * 26] = code_table(IBAN_REGISTRY);

/// [`ISO_3166`] indexed by the two capitals of a code (1: a country).
static COUNTRY_BY_CODE: [u8; 26 * 26] = code_table(ISO_3166);

/// IBAN: country length + mod 97 == 1 (TR also needs the reserve digit 0).
#[cfg(test)]
pub fn iban(value: &[u8]) -> bool {
    iban_check(value) == Check::Valid
}

/// An IBAN's checks: two letters, two check digits and 11 to 30 letters or digits whose mod 97 is 1
/// (the checksum); the country's length in the registry and, for `TR`, the reserve digit 0 (the
/// layout).
pub fn iban_check(value: &[u8]) -> Check {
    if value.len() < 15
        || value.len() > 34
        || !value[..2].iter().all(u8::is_ascii_uppercase)
        || !all_digits(&value[2..4])
        || !value[4..]
            .iter()
            .all(|b| b.is_ascii_digit() || b.is_ascii_uppercase())
        || iban_mod97(value) != 1
    {
        return Check::Fails;
    }
    Check::layout(
        iban_length(&value[..2]) == Some(value.len())
            && !(&value[..2] == b"TR" && value[9] != b'0'),
    )
}

/// The IBAN's number (its country and check digits moved to the end, letters as 10 to 35) modulo 97.
/// The digits are taken into one 64-bit number, reduced only when it could overflow at the next step
/// (below 2^56, times 100 plus 35 stays below 2^63): two or three divisions instead of one per
/// character (an IBAN checked per row of a customer list cost ~1,500 instructions).
fn iban_mod97(value: &[u8]) -> u64 {
    let mut number = 0u64;
    for &byte in value[4..].iter().chain(&value[..4]) {
        number = if byte.is_ascii_digit() {
            number * 10 + u64::from(byte - b'0')
        } else {
            number * 100 + u64::from(byte - b'A' + 10)
        };
        if number >= 1 << 56 {
            number %= 97;
        }
    }
    number % 97
}

/// Payment card: Luhn + issuer prefix and length.
#[cfg(test)]
pub fn credit_card(value: &[u8]) -> bool {
    let length = value.len();
    if !(12..=19).contains(&length) || !all_digits(value) {
        return false;
    }
    // The issuer's prefix and length first, then the checksum: most numbers of a card's length
    // (an EAN, an order number) have no card issuer's prefix.
    issuer(value, length) && luhn(value)
}

/// A card number's checks: 12 to 19 digits whose Luhn sum holds (the checksum), and an issuer's
/// prefix at a length it uses (the layout).
pub fn credit_card_check(value: &[u8]) -> Check {
    if !(12..=19).contains(&value.len()) || !luhn(value) {
        return Check::Fails;
    }
    Check::layout(issuer(value, value.len()))
}

/// Whether a card number's digits start with an issuer's prefix at a length it uses.
pub fn card_issuer(value: &[u8]) -> bool {
    (12..=19).contains(&value.len()) && all_digits(value) && issuer(value, value.len())
}

/// Whether a number of digits of `length` starts with a card issuer's prefix at a length it uses.
fn issuer(value: &[u8], length: usize) -> bool {
    let prefix = |n: usize| -> u32 {
        value[..n]
            .iter()
            .fold(0, |acc, &b| acc * 10 + u32::from(b - b'0'))
    };
    let (p1, p2, p3, p4) = (prefix(1), prefix(2), prefix(3), prefix(4));
    match p1 {
        4 => matches!(length, 13 | 16 | 19),
        5 => {
            ((51..=55).contains(&p2) && length == 16)
                || (matches!(p2, 50 | 56..=59) && (12..=19).contains(&length))
        }
        2 => (2221..=2720).contains(&p4) && length == 16,
        3 => {
            (matches!(p2, 34 | 37) && length == 15)
                || ((3528..=3589).contains(&p4) && (16..=19).contains(&length))
                || ((matches!(p2, 36 | 38) || (300..=305).contains(&p3))
                    && (14..=19).contains(&length))
        }
        6 => {
            (12..=19).contains(&length)
                && (p4 == 6011
                    || (644..=649).contains(&p3)
                    || p2 == 65
                    || p2 == 62
                    || (60..=69).contains(&p2))
        }
        9 => p4 == 9792 && length == 16,
        _ => false,
    }
}

/// An ISO 3166-1 country, or a code the IBAN registry uses (Kosovo's `XK`).
fn is_country(code: &[u8]) -> bool {
    match code {
        [a @ b'A'..=b'Z', b @ b'A'..=b'Z'] => {
            COUNTRY_BY_CODE[usize::from(a - b'A') * 26 + usize::from(b - b'A')] != 0
                || iban_length(code).is_some()
        }
        _ => false,
    }
}

/// BIC / SWIFT: 4 letters institution, country, 2 location, optional 3 branch.
pub fn bic(value: &[u8]) -> bool {
    if value.len() != 8 && value.len() != 11 {
        return false;
    }
    value[..4].iter().all(u8::is_ascii_uppercase)
        && is_country(&value[4..6])
        && value[6..8]
            .iter()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
        && value[8..]
            .iter()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
}

/// Top-level domains accepted in e-mail addresses: every two-letter country code plus the common
/// generic ones and the reserved ones (`.example`, `.test`).
const GENERIC_TLDS: &[&str] = &[
    "com",
    "org",
    "net",
    "edu",
    "gov",
    "mil",
    "int",
    "info",
    "biz",
    "name",
    "pro",
    "aero",
    "coop",
    "museum",
    "mobi",
    "app",
    "dev",
    "io",
    "ai",
    "tech",
    "online",
    "site",
    "store",
    "shop",
    "cloud",
    "email",
    "xyz",
    "art",
    "blog",
    "company",
    "digital",
    "global",
    "group",
    "live",
    "media",
    "network",
    "news",
    "services",
    "solutions",
    "systems",
    "world",
    "academy",
    "agency",
    "center",
    "consulting",
    "design",
    "education",
    "finance",
    "health",
    "law",
    "legal",
    "local",
    "mail",
    "money",
    "page",
    "software",
    "space",
    "team",
    "today",
    "travel",
    "website",
    "work",
    "istanbul",
    "ist",
    "bank",
    "insurance",
    "eu",
    "asia",
    "tel",
    "jobs",
    "cat",
    // The reserved names of RFC 2606 and RFC 6761: test data and documentation, but the mailbox
    // before them is someone's as often as not (privacy fails closed).
    "example",
    "test",
    "invalid",
    "localhost",
    "local",
];

pub fn tld_ok(tld: &str) -> bool {
    // Compared without a lower-cased copy (an allocation per e-mail address).
    (tld.len() == 2 && tld.bytes().all(|b| b.is_ascii_alphabetic()))
        || GENERIC_TLDS
            .iter()
            .any(|generic| generic.eq_ignore_ascii_case(tld))
}

/// Local-part characters of an e-mail address as addresses are written: letters, digits and `._%+-`.
/// RFC 5322 allows `!#$&'*/=?^`{|}~` too, which no mail provider hands out and which a text uses
/// around an address: "E-posta=ayse@example.com", "0532 123 45 67/ayse@example.com", "a|b@...".
pub fn email_local_char(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'.' | b'_' | b'%' | b'+' | b'-')
}

/// Domain characters (ASCII; IDN labels are accepted through their UTF-8 bytes).
pub fn email_domain_char(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'-' || byte == b'.' || byte >= 0x80
}

/// `local` and `domain` form a valid address.
pub fn email(local: &[u8], domain: &[u8]) -> bool {
    if local.is_empty() || local.len() > 64 || domain.len() < 4 || domain.len() > 253 {
        return false;
    }
    if local[0] == b'.' || local[local.len() - 1] == b'.' || local.windows(2).any(|w| w == b"..") {
        return false;
    }
    let Ok(domain) = std::str::from_utf8(domain) else {
        return false;
    };
    let labels: Vec<&str> = domain.split('.').collect();
    if labels.len() < 2
        || labels
            .iter()
            .any(|l| l.is_empty() || l.len() > 63 || l.starts_with('-') || l.ends_with('-'))
    {
        return false;
    }
    labels.last().is_some_and(|tld| tld_ok(tld))
}

/// Dotted-quad IPv4 without leading zeros.
pub fn ipv4(text: &[u8]) -> bool {
    let mut parts = 0;
    for part in text.split(|&b| b == b'.') {
        parts += 1;
        if part.is_empty()
            || part.len() > 3
            || !all_digits(part)
            || (part.len() > 1 && part[0] == b'0')
        {
            return false;
        }
        if mod_digits(part, 10_000) > 255 {
            return false;
        }
    }
    parts == 4
}

pub fn ipv6(text: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(text) else {
        return false;
    };
    let address = text.split('%').next().unwrap_or(text);
    // Written in full, an address has eight groups (seven colons), or six and a dotted IPv4 tail (six);
    // only a compressed one ("::") has fewer. A time ("14:42:00") is turned away before the parser.
    let colons = address.bytes().filter(|&c| c == b':').count();
    if !address.contains("::") && colons != 7 && !(colons == 6 && address.contains('.')) {
        return false;
    }
    address.len() >= 3 && address.parse::<std::net::Ipv6Addr>().is_ok()
}

/// MAC address: six hex octets with one consistent `:` or `-` separator, or Cisco dotted form. No
/// allocation: the scan asks it of every dashed pair of digits.
pub fn mac(text: &[u8]) -> bool {
    let hex = |at: usize, n: usize| text[at..at + n].iter().all(u8::is_ascii_hexdigit);
    match text.len() {
        17 => {
            let separator = text[2];
            (separator == b':' || separator == b'-')
                && (0..6).all(|k| hex(3 * k, 2) && (k == 5 || text[3 * k + 2] == separator))
        }
        14 => (0..3).all(|k| hex(5 * k, 4) && (k == 2 || text[5 * k + 4] == b'.')),
        _ => false,
    }
}

/// Whether a MAC address (of [`mac`]'s shape) names no device: the all-zero address and the broadcast
/// address (all ones), which every network carries and which say nothing of anyone.
pub fn mac_names_no_device(text: &[u8]) -> bool {
    let mut digits = text.iter().filter(|c| c.is_ascii_hexdigit());
    let Some(first) = digits.next().map(u8::to_ascii_lowercase) else {
        return false;
    };
    matches!(first, b'0' | b'f') && digits.all(|c| c.to_ascii_lowercase() == first)
}

/// IMEI: 15 digits, Luhn (the 16-digit IMEISV has no check digit).
pub fn imei(value: &[u8]) -> bool {
    value.len() == 15 && luhn(value)
}

fn mrz_value(byte: u8) -> Option<u32> {
    match byte {
        b'0'..=b'9' => Some(u32::from(byte - b'0')),
        b'A'..=b'Z' => Some(u32::from(byte - b'A') + 10),
        b'<' => Some(0),
        _ => None,
    }
}

/// ICAO 9303 check digit of `field` against `check`.
pub fn mrz_check(field: &[u8], check: u8) -> bool {
    const WEIGHTS: [u32; 3] = [7, 3, 1];
    let mut sum = 0;
    for (i, &b) in field.iter().enumerate() {
        let Some(v) = mrz_value(b) else {
            return false;
        };
        sum += v * WEIGHTS[i % 3];
    }
    let expected = if check == b'<' {
        0
    } else {
        match mrz_value(check) {
            Some(v) => v,
            None => return false,
        }
    };
    sum % 10 == expected
}

/// A TD3 (passport) second line: 44 chars with document, birth, expiry and composite checks.
pub fn mrz_td3_line2(line: &[u8]) -> bool {
    if line.len() != 44 || !line.iter().all(|&b| mrz_value(b).is_some()) {
        return false;
    }
    let composite: Vec<u8> = line[0..10]
        .iter()
        .chain(&line[13..20])
        .chain(&line[21..43])
        .copied()
        .collect();
    mrz_check(&line[0..9], line[9])
        && mrz_check(&line[13..19], line[19])
        && mrz_check(&line[21..27], line[27])
        && mrz_check(&line[28..42], line[42])
        && mrz_check(&composite, line[43])
}

/// A TD1 (ID card) first line: 30 chars, document number check at position 15.
pub fn mrz_td1_line1(line: &[u8]) -> bool {
    line.len() == 30
        && line.iter().all(|&b| mrz_value(b).is_some())
        && line[0].is_ascii_uppercase()
        && mrz_check(&line[5..14], line[14])
}

/// Any MRZ-shaped line (30, 36 or 44 chars of A–Z, 0–9, `<`, with fillers) whose check digits hold.
pub fn mrz_line(line: &[u8]) -> bool {
    if !matches!(line.len(), 30 | 36 | 44)
        || !line.contains(&b'<')
        || !line.iter().all(|&b| mrz_value(b).is_some())
    {
        return false;
    }
    match line.len() {
        44 => {
            mrz_td3_line2(line)
                || (line[0] == b'P' && line[1] == b'<'
                    || line[0] == b'P'
                        && line[2..5].iter().all(u8::is_ascii_uppercase)
                        && line.ends_with(b"<<"))
        }
        30 => {
            mrz_td1_line1(line)
                || (mrz_check(&line[0..6], line[6]) && mrz_check(&line[8..14], line[14]))
        }
        _ => mrz_check(&line[13..19], line[19]) && mrz_check(&line[21..27], line[27]),
    }
}

const BASE58: &[u8] = b"123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

/// Bitcoin base58check address (P2PKH `1…`, P2SH `3…`).
pub fn btc_base58(value: &[u8]) -> bool {
    if !(26..=35).contains(&value.len()) || !matches!(value[0], b'1' | b'3') {
        return false;
    }
    let mut bytes = [0u8; 25];
    for &c in value {
        let Some(mut carry) = BASE58.iter().position(|&b| b == c).map(|p| p as u32) else {
            return false;
        };
        for byte in bytes.iter_mut().rev() {
            carry += u32::from(*byte) * 58;
            *byte = (carry & 0xff) as u8;
            carry >>= 8;
        }
        if carry != 0 {
            return false;
        }
    }
    let first = ring::digest::digest(&ring::digest::SHA256, &bytes[..21]);
    let second = ring::digest::digest(&ring::digest::SHA256, first.as_ref());
    second.as_ref()[..4] == bytes[21..]
}

/// Bitcoin bech32 / bech32m address (`bc1…`), case-insensitive but not mixed.
pub fn btc_bech32(value: &[u8]) -> bool {
    const CHARSET: &[u8] = b"qpzry9x8gf2tvdw0s3jn54khce6mua7l";
    if !(14..=90).contains(&value.len()) {
        return false;
    }
    let lower = value.iter().any(u8::is_ascii_lowercase);
    let upper = value.iter().any(u8::is_ascii_uppercase);
    if lower && upper {
        return false;
    }
    let value: Vec<u8> = value.iter().map(u8::to_ascii_lowercase).collect();
    let Some(separator) = value.iter().rposition(|&b| b == b'1') else {
        return false;
    };
    if &value[..separator] != b"bc" || value.len() - separator < 7 {
        return false;
    }
    let mut data = Vec::with_capacity(value.len());
    for &c in &value[separator + 1..] {
        match CHARSET.iter().position(|&x| x == c) {
            Some(p) => data.push(p as u32),
            None => return false,
        }
    }
    let mut values: Vec<u32> = value[..separator]
        .iter()
        .map(|&b| u32::from(b) >> 5)
        .collect();
    values.push(0);
    values.extend(value[..separator].iter().map(|&b| u32::from(b) & 31));
    values.extend(&data);
    let checksum = bech32_polymod(&values);
    checksum == 1 || checksum == 0x2bc8_30a3
}

/// Ethereum address shape: `0x` + 40 hex digits.
/// BIP 173's checksum over 5-bit values (the human-readable part expanded, then the data): 1 for a
/// valid bech32 string, 0x2bc830a3 for bech32m.
pub fn bech32_polymod(values: &[u32]) -> u32 {
    const GEN: [u32; 5] = [
        0x3b6a_57b2,
        0x2650_8e6d,
        0x1ea1_19fa,
        0x3d42_33dd,
        0x2a14_62b3,
    ];
    let mut checksum = 1u32;
    for &v in values {
        let top = checksum >> 25;
        checksum = ((checksum & 0x1ff_ffff) << 5) ^ v;
        for (i, g) in GEN.iter().enumerate() {
            if (top >> i) & 1 == 1 {
                checksum ^= g;
            }
        }
    }
    checksum
}

pub fn eth_address(value: &[u8]) -> bool {
    value.len() == 42 && value.starts_with(b"0x") && value[2..].iter().all(u8::is_ascii_hexdigit)
}

/// VIN: 17 chars without I, O, Q; `Some(true)` when the North-American check digit holds.
pub fn vin(value: &[u8]) -> Option<bool> {
    if value.len() != 17
        || !value
            .iter()
            .all(|b| b.is_ascii_digit() || (b.is_ascii_uppercase() && !b"IOQ".contains(b)))
    {
        return None;
    }
    const WEIGHTS: [u32; 17] = [8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2];
    let transliterate = |b: u8| -> u32 {
        match b {
            b'0'..=b'9' => u32::from(b - b'0'),
            b'A'..=b'H' => u32::from(b - b'A') + 1,
            b'J'..=b'N' => u32::from(b - b'J') + 1,
            b'P' => 7,
            b'R' => 9,
            b'S'..=b'Z' => u32::from(b - b'S') + 2,
            _ => 0,
        }
    };
    let sum: u32 = value
        .iter()
        .zip(WEIGHTS)
        .map(|(&b, w)| transliterate(b) * w)
        .sum();
    let check = sum % 11;
    let expected = if check == 10 {
        b'X'
    } else {
        b'0' + check as u8
    };
    Some(value[8] == expected)
}

#[cfg(test)]
mod tests;
