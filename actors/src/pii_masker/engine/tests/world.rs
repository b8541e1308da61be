//! The forms of the world (#60): phone numbers of every configured region in their own layouts, names
//! behind person labels of many languages, mistyped IBANs, MAC addresses that name no device, plates
//! in lower case.

use super::*;
use crate::pii_masker::detectors::phone::{self, DEFAULT_REGIONS};
use crate::pii_masker::engine::synthetic::Rng;

/// Whether `text` masks to `before` + one phone placeholder + `after`.
fn one_phone(text: &str, before: &str, after: &str) -> bool {
    let out = masked(text);
    out.strip_prefix(before)
        .and_then(|rest| rest.strip_suffix(after))
        .is_some_and(|middle| middle == "[MASKED_PHONE_INTL]" || middle == "[MASKED_PHONE_TR]")
}

/// The example numbers of every default region (fixed line and mobile), with numbers near them that
/// libphonenumber's own parser finds valid: national significant numbers and their region.
fn generated_numbers(per_example: usize) -> Vec<(&'static str, &'static phone::Rules, String)> {
    let mut rng = Rng::new(60);
    let mut numbers = Vec::new();
    for code in DEFAULT_REGIONS {
        let rules = phone::rules(phone::region_id(code).expect("code")).expect("rules");
        for (_, example) in rules.examples() {
            numbers.push((*code, rules, example.clone()));
            let mut found = 0;
            for _ in 0..per_example * 10 {
                if found == per_example {
                    break;
                }
                // The example with its last three digits changed.
                let keep = example.len().saturating_sub(3);
                let candidate = format!("{}{}", &example[..keep], rng.digits(example.len() - keep));
                let id: phonenumber::country::Id = code.parse().expect("a region");
                let valid = phonenumber::parse(Some(id), &candidate)
                    .is_ok_and(|number| phonenumber::is_valid(&number));
                if valid {
                    numbers.push((*code, rules, candidate));
                    found += 1;
                }
            }
        }
    }
    numbers
}

/// Our compiled rules agree with libphonenumber's own validator on numbers it finds valid, and every
/// such number is masked behind a label in its region's layout (with spaces, hyphens or dots), bare
/// in international form (`+CC`, `00CC`), and bare in its national layout where that layout is
/// distinctive (three groups or more, or a bracketed area code).
#[test]
fn phones_of_every_default_region_in_their_layouts() {
    let numbers = generated_numbers(3);
    assert!(numbers.len() > 200, "{}", numbers.len());
    for (code, rules, nsn) in &numbers {
        assert!(
            rules.valid_nsn(nsn),
            "{code} {nsn}: valid for libphonenumber"
        );
        let cc = rules.country_code;
        let intl = format!("+{cc} {nsn}");
        assert!(
            one_phone(&format!("Call {intl} today."), "Call ", " today."),
            "{code} {intl}"
        );
        let zeros = format!("00{cc} {nsn}");
        assert!(
            one_phone(&format!("See {zeros} below."), "See ", " below."),
            "{code} {zeros}"
        );
        if *code == "TR" {
            continue;
        }
        let Some(national) = rules.format_national(nsn, " ") else {
            continue;
        };
        for separator in [" ", "-", "."] {
            let written = national.replace(' ', separator);
            for label in ["Tel.: ", "Mobile: ", "Telefon: "] {
                let text = format!("{label}{written}");
                assert!(
                    one_phone(&text, label, ""),
                    "{code} {text} -> {}",
                    masked(&text)
                );
            }
        }
    }
}

/// A national number written in its region's own layout is masked without a label when that layout
/// is distinctive; an amount in thousands, a date or a two-group number with no label is not.
#[test]
fn bare_national_numbers_only_in_their_own_layout() {
    for text in [
        "Contact (0316) 71081 582 today",
        "Office 01 23 45 67 89 Paris",
        "Office (415) 555-0132 SF",
    ] {
        assert_eq!(types_in(text), ["phone_intl"], "{text}");
    }
    for text in [
        "Total 612 345 678 EUR",
        "Fiyat: 030 123456",
        "Shipped on 12.02.2019",
        "Tracking code 180 (88046878 parcels)",
        "Telefon 1.250.000 TL",
        "Kod A1 415-555-0132 Bursa",
    ] {
        assert!(types_in(text).is_empty(), "{text}: {:?}", types_in(text));
    }
}

/// International forms: the country code in brackets, after a plus, the trunk 0 in brackets after
/// it, the extension written after the number; a `+90` number is `phone_tr` whole, even out of the
/// allocated ranges.
#[test]
fn international_forms_and_extensions() {
    masks_as(&[
        ("Phone: (+358) 168416491", "Phone: [MASKED_PHONE_INTL]"),
        ("Mobile: +(371) 90606560", "Mobile: [MASKED_PHONE_INTL]"),
        ("Tel +49 (0)30 1234567.", "Tel [MASKED_PHONE_INTL]."),
        (
            "Call +1 415-555-0132 ext. 12 now",
            "Call [MASKED_PHONE_INTL] now",
        ),
        (
            "Call +1 415-555-0132, ext 12 now",
            "Call [MASKED_PHONE_INTL] now",
        ),
        (
            "Call +1-415-555-0132x321 now",
            "Call [MASKED_PHONE_INTL] now",
        ),
        (
            "Ara: +90 212 000 00 00 lütfen",
            "Ara: [MASKED_PHONE_TR] lütfen",
        ),
        (
            "Bize 00420 773 602 266 yazın",
            "Bize [MASKED_PHONE_INTL] yazın",
        ),
    ]);
}

/// Names behind person and role labels of many languages, whether or not the gazetteer knows them,
/// with particles, diacritics and in Greek and Cyrillic script.
#[test]
fn names_behind_person_labels_of_many_languages() {
    for (label, name) in [
        ("Contact person", "Zorbek Kuntay"),
        ("Customer name", "Qarlo Vendt"),
        ("Ansprechpartner", "Frederique van der Heijden"),
        ("Kunde", "Aurelia Brönnimann"),
        ("Titular", "Jafet Mariño"),
        ("Imię i nazwisko", "Artur Barczuk"),
        ("Yhteyshenkilö", "Marja Perälä"),
        ("Kapcsolattartó", "Ilona Nagy"),
        ("Persoană de contact", "Despina Pușcașu"),
        ("Zákazník", "Kristína Hodžová"),
        ("Name", "Λύσανδρος Σκαφτούρου"),
        ("Клиент", "Иван Петров"),
    ] {
        let text = format!("{label}: {name}\n");
        assert_eq!(
            masked(&text),
            format!("{label}: [MASKED_PERSON_NAME]\n"),
            "{text}"
        );
    }
}

/// A run shaped as its country's IBAN whose mod 97 fails is still an IBAN, masked whole, not cut
/// into a card number or a phone.
#[test]
fn a_mistyped_iban_is_masked_whole() {
    masks_as(&[
        ("IBAN: DE88 3704 0044 0532 0130 00", "IBAN: [MASKED_IBAN]"),
        ("TR33 0006 1005 1978 6457 8413 26", "[MASKED_IBAN_TR]"),
        ("DE88370400440532013000 paid", "[MASKED_IBAN] paid"),
    ]);
    let findings = detect("IBAN: DE88 3704 0044 0532 0130 00", &Policy::default());
    assert!(findings[0].confidence < 0.8, "{findings:?}");
}

/// The all-zero and broadcast MAC addresses name no device.
#[test]
fn broadcast_and_zero_macs_are_no_personal_data() {
    for text in [
        "MAC FF:FF:FF:FF:FF:FF",
        "MAC 00:00:00:00:00:00",
        "MAC ff-ff-ff-ff-ff-ff",
        "MAC 0000.0000.0000",
    ] {
        assert!(types_in(text).is_empty(), "{text}");
    }
    assert_eq!(types_in("MAC 00:1A:2B:3C:4D:5E"), ["mac_address"]);
}

/// A Turkish plate in lower case is a plate behind a plate keyword, and a quantity without one is not.
#[test]
fn lower_case_plates_behind_their_keyword() {
    masks_as(&[
        ("Plaka: 34 abc 123", "Plaka: [MASKED_LICENSE_PLATE_TR]"),
        (
            "Araç plakası 06 ab 1234.",
            "Araç plakası [MASKED_LICENSE_PLATE_TR].",
        ),
        ("Ürün 12 kg 500 adet", "Ürün 12 kg 500 adet"),
    ]);
}

/// "Provider identifier" names an NPI.
#[test]
fn an_npi_behind_provider_identifier() {
    assert_eq!(types_in("Provider identifier: 1234567893"), ["npi_us"]);
}

#[test]
fn the_world_corpus_meets_the_bar() {
    use crate::pii_masker::engine::planted::{corpus, world};
    let documents = world::corpus(60, 600);
    let score = corpus::score(&documents, &Policy::default());
    let mut short = Vec::new();
    let mut names = corpus::Counts::default();
    for (line, group, layout, counts) in world::report(&score) {
        let recall = counts.masked as f64 / counts.planted.max(1) as f64;
        if line == world::Line::Name {
            names.planted += counts.planted;
            names.masked += counts.masked;
        } else if recall < 0.99 {
            short.push(format!(
                "{line:?} {group} {layout}: {recall:.3} of {}",
                counts.planted
            ));
        }
    }
    let missed: Vec<_> = score.missed.iter().take(20).collect();
    assert!(short.is_empty(), "{short:#?}\n{missed:#?}");
    let names_recall = names.masked as f64 / names.planted.max(1) as f64;
    assert!(names_recall >= 0.97, "names {names_recall:.3}: {missed:#?}");
    let false_ones: Vec<_> = score.false_ones.iter().take(20).collect();
    assert!(
        score.precision() >= 0.98,
        "precision {:.4}: {false_ones:#?}",
        score.precision()
    );
}
