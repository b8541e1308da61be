//! Checksum-valid surrogates: a realistic fake value of a finding's type that keeps its written layout
//! and passes the type's own check, derived from the real value under a per-tenant key, so that the
//! same value gives the same surrogate in every document of a tenant (co-reference survives) and
//! another key gives another one. The `surrogate` masking operator's values: the Turkish national and
//! tax ids, IBANs (Turkish, and ten countries' more), payment cards, Turkish phones, e-mail addresses,
//! names, eight more checksummed identifiers (German, Spanish, Dutch, British, US), dates of birth
//! (`dates.rs`) and postal addresses (`address.rs`).
//!
//! A surrogate is drawn from HMAC-SHA256(key, type, compact value, attempt): the digits come from the
//! MAC and the check digits are computed, so it validates by construction; it is never the value
//! itself (a draw that equals it is drawn again). The written form keeps the original's separators,
//! grouping and letter case: only its letters and digits are replaced, one for one.

use ring::hmac;

mod address;
mod dates;
#[cfg(any(test, feature = "test-support"))]
pub mod stdnum;

use super::engine::checksum::{checksum_holds, compact_written};
use super::engine::{PiiType, Trait};

/// Real Turkish bank codes (EFT codes of Ziraat, Halkbank, Vakıfbank, Akbank, Garanti BBVA, İş Bankası,
/// Yapı Kredi, QNB, Denizbank, TEB), so that a surrogate IBAN names a bank that exists.
const TR_BANK_CODES: [&str; 10] = [
    "00010", "00012", "00015", "00046", "00062", "00064", "00067", "00111", "00134", "00032",
];

/// The issuer prefix of a surrogate card number of `length` digits: Visa's range that payment
/// processors keep for tests (`4000 00…`) at Visa's lengths, and the other networks' test-looking
/// prefixes at theirs (American Express 15, Diners 14, Maestro otherwise), so that the number still
/// reads as a card of an issuer.
fn test_card_prefix(length: usize) -> &'static str {
    match length {
        13 | 16 | 19 => "400000",
        15 => "370000",
        14 => "360000",
        _ => "500000",
    }
}

/// A tenant's pseudonym key.
#[derive(Clone)]
pub struct SurrogateKey(hmac::Key);

impl std::fmt::Debug for SurrogateKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SurrogateKey(..)")
    }
}

impl SurrogateKey {
    pub fn new(secret: &[u8]) -> SurrogateKey {
        SurrogateKey(hmac::Key::new(hmac::HMAC_SHA256, secret))
    }

    /// The MAC of `parts` (each followed by a zero byte) and `round`.
    pub(crate) fn mac(&self, parts: &[&[u8]], round: u32) -> [u8; 32] {
        let mut context = hmac::Context::with_key(&self.0);
        for part in parts {
            context.update(part);
            context.update(&[0]);
        }
        context.update(&round.to_be_bytes());
        let mut bytes = [0u8; 32];
        bytes.copy_from_slice(context.sign().as_ref());
        bytes
    }

    /// The MAC bytes of one draw for `value` of `ty`.
    fn draw(&self, ty: PiiType, value: &str, attempt: u32) -> [u8; 32] {
        let mut context = hmac::Context::with_key(&self.0);
        context.update(ty.name().as_bytes());
        context.update(&[0]);
        context.update(value.as_bytes());
        context.update(&attempt.to_be_bytes());
        let mut bytes = [0u8; 32];
        bytes.copy_from_slice(context.sign().as_ref());
        bytes
    }
}

/// The domains RFC 2606 reserves for examples: a surrogate address never reaches anyone.
const RESERVED_DOMAINS: [&str; 3] = ["example.com", "example.org", "example.net"];

/// The types [`surrogate`] writes ([`Trait::Surrogate`] in the type table).
pub fn has_surrogate(ty: PiiType) -> bool {
    ty.is(Trait::Surrogate)
}

/// The surrogate of `written`, a value of `ty` as it stands in a text; None for a type without
/// surrogates here, or a value whose compact form is not of the type's length.
pub fn surrogate(key: &SurrogateKey, ty: PiiType, written: &str) -> Option<String> {
    surrogate_drawn(key, ty, written, 0)
}

/// [`surrogate`] from its `round`-th series of draws: another surrogate of the same value, for when
/// the first one is itself a value of the text being masked.
pub fn surrogate_drawn(
    key: &SurrogateKey,
    ty: PiiType,
    written: &str,
    round: u32,
) -> Option<String> {
    if !has_surrogate(ty) {
        return None;
    }
    let attempts = round.saturating_mul(64)..round.saturating_mul(64).saturating_add(64);
    if ty == PiiType::Email {
        return email(key, written, attempts);
    }
    if ty == PiiType::PersonName {
        return person_name(key, written, attempts);
    }
    if ty == PiiType::DateOfBirth {
        return dates::date_of_birth(key, written, attempts.start);
    }
    if ty == PiiType::Address {
        return address::address(key, written, attempts.start);
    }
    let compact = compact_written(ty, written);
    // A phone is drawn from its national significant number: `+90 532 …`, `0532 …` and `(0532) …`
    // are one number, and get one subscriber part.
    let identity = national_number(ty, &compact);
    attempts.into_iter().find_map(|attempt| {
        let digits = Digits(key.draw(ty, identity, attempt));
        let fake = compact_surrogate(ty, &compact, &digits)?;
        (fake != compact && checksum_holds(ty, &fake) && layout_holds(ty, &fake))
            .then(|| with_layout(written, &fake))
    })
}

/// The rules of a type's layout that its check lets pass with a lowered confidence, and a surrogate
/// must keep: a German tax id's first ten digits have one digit twice or three times, the others once.
fn layout_holds(ty: PiiType, compact: &str) -> bool {
    if ty != PiiType::TaxIdDe {
        return true;
    }
    let mut counts = [0u8; 10];
    for b in compact.bytes().take(10) {
        counts[usize::from(b.wrapping_sub(b'0') % 10)] += 1;
    }
    let repeated: Vec<u8> = counts.into_iter().filter(|&n| n > 1).collect();
    matches!(repeated.as_slice(), [2] | [3])
}

/// What names one value of `ty` whatever its prefix: a Turkish phone's last ten digits (its national
/// significant number), any other value's compact form.
pub(crate) fn national_number(ty: PiiType, compact: &str) -> &str {
    if ty == PiiType::PhoneTr && compact.len() >= 10 && compact.is_ascii() {
        &compact[compact.len() - 10..]
    } else {
        compact
    }
}

/// An address at a reserved domain whose local part keeps the original's length, separators and
/// case, its letters and digits drawn anew.
fn email(key: &SurrogateKey, written: &str, attempts: std::ops::Range<u32>) -> Option<String> {
    let (local, domain) = written.rsplit_once('@')?;
    if local.is_empty() || domain.is_empty() {
        return None;
    }
    let compact = written.to_ascii_lowercase();
    attempts.into_iter().find_map(|attempt| {
        let drawn = key.draw(PiiType::Email, &compact, attempt);
        let letters: String = (0..local.len())
            .map(|i| char::from(b'A' + drawn[i % 31] % 26))
            .collect();
        let domain = RESERVED_DOMAINS[usize::from(drawn[31]) % RESERVED_DOMAINS.len()];
        let fake = format!("{}@{domain}", with_layout(local, &letters));
        (fake.to_ascii_lowercase() != compact).then_some(fake)
    })
}

/// A name of as many words, each drawn from the gazetteer by the word alone (so that "Ayşe" alone and
/// "Ayşe Yılmaz" keep one given name): a given name for a word the gazetteer knows as one (or the first
/// of several unknown words), a surname otherwise, Turkish when the name is; an initial gets another
/// letter, an honorific stays. A given name the large list knows is replaced by one of the same gender
/// from the same country, in that language's letters. Separators and each word's case are kept.
fn person_name(
    key: &SurrogateKey,
    written: &str,
    attempts: std::ops::Range<u32>,
) -> Option<String> {
    use super::engine::lexicon::{
        given_name_origin, given_names_of, lookup, surrogate_names, Word,
    };
    use super::engine::text::fold;
    let mut words = Vec::new();
    let mut start = None;
    for (at, c) in written.char_indices().chain([(written.len(), ' ')]) {
        match (c.is_alphabetic(), start) {
            (true, None) => start = Some(at),
            (false, Some(from)) => {
                words.push((from, at));
                start = None;
            }
            _ => {}
        }
    }
    if words.is_empty() {
        return None;
    }
    let turkish = has_turkish_letters(written)
        || words.iter().any(|&(from, to)| {
            let folded = fold(&written[from..to]);
            [true, false].into_iter().any(|given| {
                surrogate_names(given, true)
                    .iter()
                    .any(|name| fold(name) == folded)
            })
        });
    let original = fold(written);
    attempts.into_iter().find_map(|attempt| {
        let mut out = String::with_capacity(written.len() + 8);
        let mut cursor = 0;
        for (index, &(from, to)) in words.iter().enumerate() {
            out.push_str(&written[cursor..from]);
            cursor = to;
            let word = &written[from..to];
            let folded = fold(word);
            let mac = key.mac(&[b"person_name", &folded], attempt);
            if word.chars().count() == 1 {
                out.push(char::from(b'A' + mac[0] % 26));
                continue;
            }
            let given = match lookup(&folded) {
                Some(Word::Honorific) => {
                    out.push_str(word);
                    continue;
                }
                Some(Word::FirstName | Word::Either) => true,
                Some(Word::Surname) => false,
                _ => index == 0 && words.len() > 1,
            };
            let drawn = u64::from_be_bytes(mac[..8].try_into().ok()?);
            // A known given name: another of its gender, from its country, in its letters
            // ("Ayşe" -> "Gökçe", "Wiebke" -> "Annegret").
            if let Some((gender, country)) = given.then(|| given_name_origin(&folded)).flatten() {
                let like = given_names_of(country, gender);
                let pick = |n: u64| like.get(n as usize % like.len().max(1)).copied();
                let drawn_name = match pick(drawn) {
                    Some(name) if fold(name) == folded => pick(drawn + 1),
                    other => other,
                };
                if let Some(name) = drawn_name {
                    out.push_str(&cased_in(word, name, country == "tr"));
                    continue;
                }
            }
            let names = surrogate_names(given, turkish);
            let mut name = names.get(drawn as usize % names.len().max(1))?;
            if fold(name) == folded {
                name = names.get((drawn as usize + 1) % names.len())?;
            }
            out.push_str(&cased_in(word, name, turkish));
        }
        out.push_str(&written[cursor..]);
        (fold(&out) != original).then_some(out)
    })
}

/// Whether a text has a letter of Turkish's own (`ç ğ ı ö ş ü` and their capitals, `İ`).
fn has_turkish_letters(text: &str) -> bool {
    text.contains(['ç', 'ğ', 'ı', 'ö', 'ş', 'ü', 'Ç', 'Ğ', 'İ', 'Ö', 'Ş', 'Ü'])
}

/// `name` (lower case) in the case of `word`: upper case, capitalised or lower case.
fn cased_like(word: &str, name: &str) -> String {
    cased_in(word, name, false)
}

/// [`cased_like`], with Turkish's dotted and dotless i where `turkish` ("ibrahim" -> "İbrahim",
/// "IŞIK" from "ışık").
fn cased_in(word: &str, name: &str, turkish: bool) -> String {
    if turkish {
        let upper = |c: char| match c {
            'i' => "İ".to_string(),
            'ı' => "I".to_string(),
            c => c.to_uppercase().collect(),
        };
        let letters = || word.chars().filter(|c| c.is_alphabetic());
        if letters().count() > 1 && letters().all(char::is_uppercase) {
            return name.chars().map(upper).collect();
        }
        let mut chars = name.chars();
        return match (
            word.chars().next().is_some_and(char::is_uppercase),
            chars.next(),
        ) {
            (true, Some(first)) => upper(first) + chars.as_str(),
            _ => name.to_string(),
        };
    }
    let letters = || word.chars().filter(|c| c.is_alphabetic());
    if letters().count() > 1 && letters().all(char::is_uppercase) {
        return name.to_uppercase();
    }
    let mut chars = name.chars();
    match (
        word.chars().next().is_some_and(char::is_uppercase),
        chars.next(),
    ) {
        (true, Some(first)) => first.to_uppercase().chain(chars).collect(),
        _ => name.to_string(),
    }
}

/// Decimal digits drawn from a MAC.
struct Digits([u8; 32]);

impl Digits {
    fn digit(&self, index: usize) -> u8 {
        self.0[index % 32] % 10
    }

    /// `count` digits from `from` on, as text.
    fn text(&self, from: usize, count: usize) -> String {
        (from..from + count)
            .map(|i| char::from(b'0' + self.digit(i)))
            .collect()
    }
}

/// A compact surrogate of the compact `value`'s length, its check digits computed.
fn compact_surrogate(ty: PiiType, value: &str, digits: &Digits) -> Option<String> {
    match ty {
        // The TCKN's two check digits and a card's Luhn digit are computed outright (they are the
        // most frequent; trying a hundred tails would cost the TCKN fifty checks on average).
        PiiType::NationalIdTr if value.len() == 11 => {
            let mut first = [0u8; 9];
            first[0] = 1 + digits.digit(0) % 9;
            (1..9).for_each(|i| first[i] = digits.digit(i));
            let (d10, d11) = crate::pii_masker::detectors::tr::tckn_check_digits(&first);
            let all = first.into_iter().chain([d10, d11]);
            Some(all.map(|d| char::from(b'0' + d)).collect())
        }
        PiiType::TaxIdTr if value.len() == 10 => with_check_digits(ty, digits.text(0, 9), 1),
        PiiType::IbanTr if value.len() == 26 && value.starts_with("TR") => {
            let bank = TR_BANK_CODES[usize::from(digits.0[31]) % TR_BANK_CODES.len()];
            let account = format!("{bank}0{}", digits.text(0, 16));
            // ISO 13616: the check digits make the rearranged number 1 modulo 97.
            let check = 98 - iban_mod97(&format!("{account}TR00"));
            Some(format!("TR{check:02}{account}"))
        }
        // A Turkish phone keeps its prefix (country, trunk, area or operator code: what places it in
        // an allocated range); the subscriber's seven digits (four of a 444 number) are drawn.
        PiiType::PhoneTr if value.len() >= 7 && value.bytes().all(|b| b.is_ascii_digit()) => {
            let drawn = if value.len() == 7 { 4 } else { 7 };
            let keep = value.len() - drawn;
            let first = char::from(b'1' + digits.digit(0) % 9);
            Some(format!(
                "{}{first}{}",
                &value[..keep],
                digits.text(1, drawn - 1)
            ))
        }
        PiiType::CreditCard if (13..=19).contains(&value.len()) => {
            let prefix = test_card_prefix(value.len());
            let body = digits.text(0, value.len() - prefix.len() - 1);
            let mut card = format!("{prefix}{body}");
            let check = crate::pii_masker::detectors::luhn_check_digit(card.as_bytes());
            card.push(char::from(b'0' + check));
            Some(card)
        }
        // Another country's IBAN keeps its country and length, and each character of its account
        // part after the bank code its class (the country's layout: letters where it has letters), drawn anew; the
        // national check digits inside a Belgian or Spanish account are computed too. A country
        // whose accounts carry other national checks is left to the hash token.
        PiiType::Iban if (15..=34).contains(&value.len()) => {
            let country = value.get(..2)?;
            let &(_, length, bank) = IBAN_SURROGATE_COUNTRIES
                .iter()
                .find(|(code, _, _)| *code == country)?;
            if value.len() != length {
                return None;
            }
            let mut account = drawn_like(&value[4..], bank, digits);
            national_iban_check(country, &mut account)?;
            let check = 98 - iban_mod97(&format!("{account}{country}00"));
            Some(format!("{country}{check:02}{account}"))
        }
        // The others end in one check character; what comes first is drawn, but for the leading
        // characters that name an issuer or range (an IMEI's reporting body, an NPI's first digit, a
        // routing number's Federal Reserve district, a NIE's letter).
        PiiType::Imei if value.len() == 15 => {
            with_check_digits(ty, drawn_like(&value[..14], 2, digits), 1)
        }
        PiiType::NpiUs if value.len() == 10 => {
            with_check_digits(ty, drawn_like(&value[..9], 1, digits), 1)
        }
        PiiType::AbaRoutingUs if value.len() == 9 => {
            with_check_digits(ty, drawn_like(&value[..8], 2, digits), 1)
        }
        // A German tax id's first ten digits: nine different ones in a drawn order, one of them
        // twice, not starting with 0.
        PiiType::TaxIdDe if value.len() == 11 => {
            let mut pool: Vec<u8> = (b'0'..=b'9').collect();
            let mut head: Vec<u8> = (0..9)
                .map(|at| pool.remove(usize::from(digits.0[at]) % pool.len()))
                .collect();
            let twice = head[usize::from(digits.0[9]) % 9];
            head.insert(usize::from(digits.0[10]) % 10, twice);
            let first = head.iter().position(|&d| d != b'0')?;
            head.swap(0, first);
            with_check_digits(ty, String::from_utf8(head).ok()?, 1)
        }
        PiiType::NhsNumberUk | PiiType::CitizenIdNl if (8..=10).contains(&value.len()) => {
            with_check_digits(ty, drawn_like(&value[..value.len() - 1], 0, digits), 1)
        }
        PiiType::NationalIdEs | PiiType::ForeignerIdEs if value.len() == 9 => {
            let keep = usize::from(ty == PiiType::ForeignerIdEs);
            with_check(ty, drawn_like(&value[..8], keep, digits), 1, LETTERS)
        }
        _ => None,
    }
}

/// The countries whose IBANs get surrogates, with their length and the length of the bank code that
/// starts their account part (kept: a surrogate names a bank that exists): those whose account numbers
/// carry no national check digit, and Belgium and Spain, whose checks are computed.
const IBAN_SURROGATE_COUNTRIES: [(&str, usize, usize); 10] = [
    ("AT", 20, 5),
    ("BE", 16, 3),
    ("CH", 21, 5),
    ("DE", 22, 8),
    ("DK", 18, 4),
    ("ES", 24, 4),
    ("GB", 22, 4),
    ("IE", 22, 4),
    ("LU", 20, 3),
    ("NL", 18, 4),
];

/// Sets the national check digits inside a drawn account number (`account` is the IBAN after its
/// check digits): Belgium's last two (the first ten modulo 97, 97 for 0), Spain's two control digits
/// (bank and branch, then account, weighted modulo 11). None when the account is not all digits.
fn national_iban_check(country: &str, account: &mut String) -> Option<()> {
    let weighted = |digits: &str| -> Option<u32> {
        const WEIGHTS: [u32; 10] = [1, 2, 4, 8, 5, 10, 9, 7, 3, 6];
        let sum: u32 = digits
            .chars()
            .zip(WEIGHTS)
            .map(|(c, w)| c.to_digit(10).map(|d| d * w))
            .sum::<Option<u32>>()?;
        Some(match 11 - sum % 11 {
            11 => 0,
            10 => 1,
            other => other,
        })
    };
    match country {
        "BE" => {
            let first: u64 = account.get(..10)?.parse().ok()?;
            let check = match first % 97 {
                0 => 97,
                other => other,
            };
            account.replace_range(10..12, &format!("{check:02}"));
        }
        "ES" => {
            let first = weighted(&format!("00{}", account.get(..8)?))?;
            let second = weighted(account.get(10..20)?)?;
            account.replace_range(8..10, &format!("{first}{second}"));
        }
        _ => {}
    }
    Some(())
}

const DIGITS: &[u8] = b"0123456789";
const LETTERS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ";

/// `value` with its characters from `keep` on drawn anew, each of its class: a digit for a digit, a
/// capital for a letter.
fn drawn_like(value: &str, keep: usize, digits: &Digits) -> String {
    value
        .bytes()
        .enumerate()
        .map(|(at, b)| match b {
            _ if at < keep => char::from(b),
            b'0'..=b'9' => char::from(b'0' + digits.digit(at)),
            b'A'..=b'Z' | b'a'..=b'z' => char::from(LETTERS[usize::from(digits.0[at % 32]) % 26]),
            other => char::from(other),
        })
        .collect()
}

/// `head` completed with the `count` trailing check digits that make `ty`'s check hold.
fn with_check_digits(ty: PiiType, head: String, count: u32) -> Option<String> {
    with_check(ty, head, count, DIGITS)
}

/// `head` completed with the `count` trailing characters of `alphabet` that make `ty`'s check hold
/// (tried in one buffer: a surrogate is made for every finding of a document); None when none does.
fn with_check(ty: PiiType, head: String, count: u32, alphabet: &[u8]) -> Option<String> {
    let width = count as usize;
    let base = alphabet.len();
    let mut candidate = head.into_bytes();
    candidate.extend(std::iter::repeat_n(alphabet[0], width));
    let from = candidate.len() - width;
    for tail in 0..base.pow(count) {
        let mut rest = tail;
        for at in (from..candidate.len()).rev() {
            candidate[at] = alphabet[rest % base];
            rest /= base;
        }
        if checksum_holds(ty, std::str::from_utf8(&candidate).ok()?) {
            return String::from_utf8(candidate).ok();
        }
    }
    None
}

/// The remainder modulo 97 of an IBAN's rearranged text, letters counted as 10 to 35.
fn iban_mod97(rearranged: &str) -> u32 {
    rearranged.chars().fold(0u32, |remainder, c| {
        let value = c.to_digit(36).unwrap_or(0);
        let shifted = if value >= 10 {
            remainder * 100 + value
        } else {
            remainder * 10 + value
        };
        shifted % 97
    })
}

/// `fake` (compact) written in the layout of `written`: each letter or digit of `written` replaced in
/// turn by the next character of `fake`, in the original's case; separators stay.
fn with_layout(written: &str, fake: &str) -> String {
    let mut replacements = fake.chars();
    written
        .chars()
        .map(|c| {
            if !c.is_ascii_alphanumeric() {
                return c;
            }
            let next = replacements.next().unwrap_or(c);
            if c.is_ascii_lowercase() {
                next.to_ascii_lowercase()
            } else {
                next
            }
        })
        .collect()
}

#[cfg(test)]
mod tests;
