//! Checksum-valid surrogates: a realistic fake value of a finding's type that keeps its written layout
//! and passes the type's own check, derived from the real value under a per-tenant key, so that the
//! same value gives the same surrogate in every document of a tenant (co-reference survives) and
//! another key gives another one. The first step of the `surrogate` masking operator; the types here
//! are the Turkish national and tax ids, Turkish IBANs, payment cards, Turkish phones and e-mail
//! addresses.
//!
//! A surrogate is drawn from HMAC-SHA256(key, type, compact value, attempt): the digits come from the
//! MAC and the check digits are computed, so it validates by construction; it is never the value
//! itself (a draw that equals it is drawn again). The written form keeps the original's separators,
//! grouping and letter case: only its letters and digits are replaced, one for one.

use ring::hmac;

use super::engine::checksum::{checksum_holds, compact_written};
use super::engine::PiiType;

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

/// The types [`surrogate`] writes.
pub fn has_surrogate(ty: PiiType) -> bool {
    matches!(
        ty,
        PiiType::NationalIdTr
            | PiiType::TaxIdTr
            | PiiType::IbanTr
            | PiiType::CreditCard
            | PiiType::PhoneTr
            | PiiType::Email
            | PiiType::PersonName
    )
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
    let compact = compact_written(ty, written);
    // A phone is drawn from its national significant number: `+90 532 …`, `0532 …` and `(0532) …`
    // are one number, and get one subscriber part.
    let identity = national_number(ty, &compact);
    attempts.into_iter().find_map(|attempt| {
        let digits = Digits(key.draw(ty, identity, attempt));
        let fake = compact_surrogate(ty, &compact, &digits)?;
        (fake != compact && checksum_holds(ty, &fake)).then(|| with_layout(written, &fake))
    })
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
/// letter, an honorific stays. Separators and each word's case are kept.
fn person_name(
    key: &SurrogateKey,
    written: &str,
    attempts: std::ops::Range<u32>,
) -> Option<String> {
    use super::engine::lexicon::{lookup, surrogate_names, Word};
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
    let turkish = written.contains(['ç', 'ğ', 'ı', 'ö', 'ş', 'ü', 'Ç', 'Ğ', 'İ', 'Ö', 'Ş', 'Ü'])
        || words.iter().any(|&(from, to)| {
            let folded = fold(&written[from..to]);
            [true, false].into_iter().any(|given| {
                surrogate_names(given, true)
                    .iter()
                    .any(|name| name.as_bytes() == folded.as_slice())
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
            let names = surrogate_names(given, turkish);
            let drawn = u64::from_be_bytes(mac[..8].try_into().ok()?);
            let mut name = names.get(drawn as usize % names.len().max(1))?;
            if name.as_bytes() == folded.as_slice() {
                name = names.get((drawn as usize + 1) % names.len())?;
            }
            out.push_str(&cased_like(word, name));
        }
        out.push_str(&written[cursor..]);
        (fold(&out) != original).then_some(out)
    })
}

/// `name` (lower case) in the case of `word`: upper case, capitalised or lower case.
fn cased_like(word: &str, name: &str) -> String {
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
        PiiType::NationalIdTr if value.len() == 11 => {
            let first = char::from(b'1' + digits.digit(0) % 9);
            with_check_digits(ty, format!("{first}{}", digits.text(1, 8)), 2)
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
            with_check_digits(ty, format!("{prefix}{body}"), 1)
        }
        _ => None,
    }
}

/// `head` completed with the `count` trailing check digits that make `ty`'s check hold (tried in one
/// buffer: a surrogate is made for every finding of a document).
fn with_check_digits(ty: PiiType, head: String, count: u32) -> Option<String> {
    let width = count as usize;
    let mut candidate = head.into_bytes();
    candidate.extend(std::iter::repeat_n(b'0', width));
    let from = candidate.len() - width;
    for tail in 0..10u32.pow(count) {
        let mut rest = tail;
        for at in (from..candidate.len()).rev() {
            candidate[at] = b'0' + (rest % 10) as u8;
            rest /= 10;
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
mod tests {
    use super::*;
    use crate::pii_masker::engine::planted;
    use crate::pii_masker::engine::synthetic::Rng;

    const CHECKSUMMED: [PiiType; 4] = [
        PiiType::NationalIdTr,
        PiiType::TaxIdTr,
        PiiType::IbanTr,
        PiiType::CreditCard,
    ];

    /// Whether a compact value is of `ty` by its own rule: the check digits, or for a phone its
    /// national significant number in an allocated range.
    fn valid(ty: PiiType, compact: &str) -> bool {
        match ty {
            PiiType::PhoneTr if compact.len() >= 10 => crate::pii_masker::detectors::tr::phone_nsn(
                &compact.as_bytes()[compact.len() - 10..],
            ),
            _ => checksum_holds(ty, compact),
        }
    }

    /// The separators of a written value, by position.
    fn separators(written: &str) -> Vec<(usize, char)> {
        written
            .char_indices()
            .filter(|(_, c)| !c.is_ascii_alphanumeric())
            .collect()
    }

    /// Over generated values in every layout the catalogue writes: a surrogate passes its type's check,
    /// is not the value, keeps the layout, is the same under the same key and differs under another.
    #[test]
    fn surrogates_validate_keep_the_layout_and_follow_the_key() {
        let (key, same, other) = (
            SurrogateKey::new(b"tenant-1"),
            SurrogateKey::new(b"tenant-1"),
            SurrogateKey::new(b"tenant-2"),
        );
        let mut rng = Rng::new(65);
        for ty in CHECKSUMMED.into_iter().chain([PiiType::PhoneTr]) {
            let (mut checked, mut differ) = (0, 0);
            for _ in 0..200 {
                let Some(value) = planted::compact(ty, &mut rng) else {
                    continue;
                };
                for (layout, written) in planted::layouts(ty, &value) {
                    let fake = surrogate(&key, ty, &written)
                        .unwrap_or_else(|| panic!("{} {layout}: {written:?}", ty.name()));
                    let compact = compact_written(ty, &fake);
                    assert!(valid(ty, &compact), "{} {layout}: {fake:?}", ty.name());
                    assert_ne!(compact, compact_written(ty, &written), "{fake:?}");
                    assert_eq!(
                        separators(&fake),
                        separators(&written),
                        "{written:?} -> {fake:?}"
                    );
                    assert_eq!(fake.len(), written.len());
                    assert_eq!(surrogate(&same, ty, &written), Some(fake.clone()));
                    differ += usize::from(surrogate(&other, ty, &written) != Some(fake));
                    checked += 1;
                }
            }
            assert!(checked >= 200, "{}: {checked}", ty.name());
            // Another key gives another surrogate (a draw may agree by chance, never most of them).
            assert!(
                differ * 10 >= checked * 9,
                "{}: {differ} of {checked}",
                ty.name()
            );
        }
    }

    /// An independent reading: python-stdnum validates every surrogate (tckimlik, vkn, iban, luhn).
    /// Skipped where Python or stdnum is missing, except in CI, which must run it.
    #[test]
    fn python_stdnum_validates_the_surrogates() {
        let script = include_str!("../../../tests/interop/stdnum_check.py");
        let importable = std::process::Command::new("python3")
            .args(["-c", "import stdnum"])
            .output()
            .is_ok_and(|output| output.status.success());
        if !importable {
            assert!(
                !std::env::var("CI").is_ok_and(|value| value == "true"),
                "python3 with python-stdnum is not installed; CI must run this test"
            );
            eprintln!("skipping: python3 with python-stdnum is not installed");
            return;
        }
        let key = SurrogateKey::new(b"stdnum");
        let mut rng = Rng::new(66);
        let mut lines = String::new();
        for (ty, kind) in CHECKSUMMED.into_iter().zip(["tckn", "vkn", "iban", "card"]) {
            for _ in 0..100 {
                let Some(value) = planted::compact(ty, &mut rng) else {
                    continue;
                };
                let fake = surrogate(&key, ty, &value).expect("a surrogate");
                lines.push_str(&format!("{kind} {}\n", compact_written(ty, &fake)));
            }
        }
        let mut child = std::process::Command::new("python3")
            .args(["-c", script])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("python3");
        use std::io::Write;
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(lines.as_bytes())
            .expect("write");
        let output = child.wait_with_output().expect("python3 ran");
        assert!(
            output.status.success() && output.stdout.starts_with(b"ok"),
            "stdnum refused a surrogate: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(lines.lines().count() >= 300, "{lines}");
    }

    #[test]
    fn surrogates_look_like_their_type() {
        let key = SurrogateKey::new(b"k");
        let iban =
            surrogate(&key, PiiType::IbanTr, "tr33 0006 1005 1978 6457 8413 26").expect("iban");
        assert!(iban.starts_with("tr"), "{iban}");
        let bank = &compact_written(PiiType::IbanTr, &iban)[4..9];
        assert!(TR_BANK_CODES.contains(&bank), "{iban}");
        let card = surrogate(&key, PiiType::CreditCard, "4111-1111-1111-1111").expect("card");
        assert!(card.starts_with("4000-00"), "{card}");
        let amex = surrogate(&key, PiiType::CreditCard, "3782 822463 10005").expect("amex");
        assert!(amex.starts_with("3700 00"), "{amex}");
        let tckn = surrogate(&key, PiiType::NationalIdTr, "10000000146").expect("tckn");
        assert_ne!(&tckn[..1], "0");
        let phone = surrogate(&key, PiiType::PhoneTr, "+90 (532) 123 45 67").expect("phone");
        assert!(phone.starts_with("+90 (532) "), "{phone}");
        assert_ne!(phone, "+90 (532) 123 45 67");
        let address = surrogate(&key, PiiType::Email, "Ayse.Yilmaz@firma.com.tr").expect("email");
        let (local, domain) = address.split_once('@').expect("an address");
        assert!(RESERVED_DOMAINS.contains(&domain), "{address}");
        assert_eq!(local.len(), "Ayse.Yilmaz".len());
        assert_eq!(local.find('.'), Some(4), "{address}");
        assert!(
            local.starts_with(|c: char| c.is_ascii_uppercase()),
            "{address}"
        );
        assert_eq!(
            surrogate(&key, PiiType::Email, "Ayse.Yilmaz@firma.com.tr"),
            Some(address)
        );
        assert_eq!(surrogate(&key, PiiType::Email, "no-at-sign"), None);
        assert_eq!(
            surrogate(&key, PiiType::Address, "Atatürk Cad. No: 5"),
            None
        );
        // A name: as many words, each in its case, drawn by the word (one given name for "Ayşe"
        // alone and in the whole name), never the name itself.
        let whole = surrogate(&key, PiiType::PersonName, "Ayşe Yılmaz").expect("a name");
        let alone = surrogate(&key, PiiType::PersonName, "Ayşe").expect("a name");
        let (given, surname) = whole.split_once(' ').expect("two words");
        assert_eq!(given, alone);
        assert!(given.starts_with(char::is_uppercase) && surname.starts_with(char::is_uppercase));
        assert_ne!(whole, "Ayşe Yılmaz");
        let upper = surrogate(&key, PiiType::PersonName, "AYŞE YILMAZ").expect("a name");
        assert_eq!(upper, whole.to_uppercase());
        let initial = surrogate(&key, PiiType::PersonName, "M. Demir").expect("a name");
        assert!(
            initial.chars().nth(1) == Some('.') && initial.len() > 4,
            "{initial}"
        );
        assert_eq!(surrogate(&key, PiiType::NationalIdTr, "1234"), None);
    }
}
