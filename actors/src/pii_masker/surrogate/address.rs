//! Surrogate postal addresses that keep the city: the street's and neighbourhood's names become
//! surnames from the gazetteer (Turkish for a Turkish address), house, door and floor numbers are
//! drawn anew with as many digits, a postal code keeps its first two digits (a Turkish province, a
//! German region) and draws the rest; what names the place at large stays: the words after the postal
//! code, and the trailing words after the last street word or number (`London`, `Kadıköy/İstanbul`,
//! `, Leeds`). Street-type words (`Mah.`, `Cad.`, `Street`, `Straße`), short words (`No`, `D`) and
//! labels before a colon (`Kat:`, `Daire:`) stay too, with every separator.

use super::{cased_in, has_turkish_letters, SurrogateKey};
use crate::pii_masker::engine::lexicon::{lookup, street_compound, surrogate_names, Word};
use crate::pii_masker::engine::text::fold;

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Word,
    Number,
}

/// The most trailing words read as the place (district, city, country).
const PLACE_WORDS: usize = 3;

/// The endings of a street name written as one word, as `street_compound` knows them.
const COMPOUND_ENDINGS: [&str; 15] = [
    "strasse", "straße", "strase", "gasse", "allee", "kade", "str", "ufer", "weg", "straat",
    "gracht", "laan", "plein", "damm", "platz",
];

/// The surrogate of a written address, from the `attempt`-th draw; None when nothing in it would
/// change (no name and no number to replace).
pub(super) fn address(key: &SurrogateKey, written: &str, attempt: u32) -> Option<String> {
    // Runs of letters and of digits, by byte range.
    let mut runs: Vec<(usize, usize, Kind)> = Vec::new();
    for (at, c) in written.char_indices() {
        let kind = if c.is_ascii_digit() {
            Kind::Number
        } else if c.is_alphabetic() {
            Kind::Word
        } else {
            continue;
        };
        match runs.last_mut() {
            Some((_, to, last)) if *to == at && *last == kind => *to = at + c.len_utf8(),
            _ => runs.push((at, at + c.len_utf8(), kind)),
        }
    }
    let is_street = |word: &str| {
        let folded = fold(word);
        lookup(&folded) == Some(Word::Street) || street_compound(&folded)
    };
    // The place: the words after a postal code, and the trailing words after the last number or
    // street word.
    let mut place = vec![false; runs.len()];
    let postal = runs
        .iter()
        .rposition(|&(from, to, kind)| kind == Kind::Number && (4..=5).contains(&(to - from)));
    if let Some(code) = postal {
        for (index, &(_, _, kind)) in runs.iter().enumerate().skip(code + 1) {
            if kind == Kind::Word {
                place[index] = true;
            }
        }
    }
    for (index, &(from, to, kind)) in runs.iter().enumerate().rev().take(PLACE_WORDS) {
        if kind == Kind::Number || is_street(&written[from..to]) {
            break;
        }
        place[index] = true;
    }
    let turkish = has_turkish_letters(written)
        || runs.iter().any(|&(from, to, _)| {
            matches!(
                fold(&written[from..to]).as_slice(),
                b"mahallesi" | b"mah" | b"caddesi" | b"cad" | b"sokak" | b"sok" | b"sk"
            )
        });
    let surnames = surrogate_names(false, turkish);
    let whole = fold(written);
    let mut out = String::with_capacity(written.len() + 16);
    let mut cursor = 0;
    let mut changed = false;
    for (index, &(from, to, kind)) in runs.iter().enumerate() {
        out.push_str(&written[cursor..from]);
        cursor = to;
        let run = &written[from..to];
        let mac = key.mac(
            &[b"address".as_slice(), &whole, &index.to_be_bytes()],
            attempt,
        );
        match kind {
            Kind::Number => {
                let keep = if Some(index) == postal { 2 } else { 0 };
                for (at, c) in run.char_indices() {
                    if at < keep {
                        out.push(c);
                        continue;
                    }
                    let low = u8::from(at == 0 && c != '0');
                    let digit = low + mac[at % 32] % (10 - low);
                    out.push(char::from(b'0' + digit));
                }
                changed = true;
            }
            Kind::Word => {
                let label = written[to..].starts_with(':');
                if place[index] || label || run.chars().count() <= 3 || is_street(run) {
                    // A street name written as one word keeps its ending ("…straße", "…weg").
                    let folded = fold(run);
                    let compound = street_compound(&folded) && lookup(&folded).is_none();
                    if !compound || place[index] {
                        out.push_str(run);
                        continue;
                    }
                    let ending = COMPOUND_ENDINGS
                        .iter()
                        .find(|ending| folded.ends_with(fold(ending).as_slice()))
                        .map_or(0, |ending| ending.chars().count());
                    let stem = surnames.get(usize::from(mac[0]) % surnames.len().max(1))?;
                    let tail: String = {
                        let chars: Vec<char> = run.chars().collect();
                        chars[chars.len().saturating_sub(ending)..].iter().collect()
                    };
                    out.push_str(&cased_in(run, stem, turkish));
                    out.push_str(&tail);
                    changed = true;
                    continue;
                }
                let drawn = u64::from_be_bytes(mac[..8].try_into().ok()?);
                let mut name = *surnames.get(drawn as usize % surnames.len().max(1))?;
                if fold(name) == fold(run) {
                    name = surnames.get((drawn as usize + 1) % surnames.len())?;
                }
                out.push_str(&cased_in(run, name, turkish));
                changed = true;
            }
        }
    }
    out.push_str(&written[cursor..]);
    (changed && fold(&out) != whole).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::super::tests::punctuation;
    use super::*;

    #[test]
    fn an_address_keeps_its_city_its_street_words_and_its_layout() {
        let key = SurrogateKey::new(b"addresses");
        for (written, kept) in [
            (
                "Caferağa Mah. Moda Cad. No: 12 D: 3 34710 Kadıköy/İstanbul",
                &["Mah.", "Cad.", "No: ", " D: ", " 34", "Kadıköy/İstanbul"][..],
            ),
            ("221B Baker Street London", &["B ", " Street London"][..]),
            ("12 Main Street, Leeds", &[" Street, Leeds"][..]),
            (
                "Hauptstraße 5, 10115 Berlin",
                &["straße ", ", 10", " Berlin"][..],
            ),
            (
                "Atatürk Bulvarı No:45 Kat:3 Çankaya",
                &[" Bulvarı No:", " Kat:", " Çankaya"][..],
            ),
        ] {
            let fake = address(&key, written, 0).unwrap_or_else(|| panic!("{written}"));
            assert_ne!(fake, written);
            for part in kept {
                assert!(fake.contains(part), "{written} -> {fake}: {part:?} lost");
            }
            assert_eq!(
                punctuation(&fake),
                punctuation(written),
                "{written} -> {fake}"
            );
            // Deterministic per key, another under another key.
            assert_eq!(address(&key, written, 0), Some(fake.clone()));
            assert_ne!(
                address(&SurrogateKey::new(b"other"), written, 0),
                Some(fake)
            );
        }
        // The names are gone.
        let fake = address(&key, "Caferağa Mah. Moda Cad. No: 12", 0).expect("an address");
        assert!(
            !fake.contains("Caferağa") && !fake.contains("Moda"),
            "{fake}"
        );
        // Nothing to replace: none.
        assert_eq!(address(&key, "Cad. Sok.", 0), None);
    }
}
