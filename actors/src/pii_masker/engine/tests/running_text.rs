//! People in running text (`scan::person::prose`) and every later mention of them (`mentions`): one
//! test per kind of evidence, one per language, and properties of later mentions. The names here are
//! made up for these tests and are in none of the project's lists.

use super::*;
use proptest::prelude::*;

/// The person findings of `text`, as the text they cover.
fn people(text: &str) -> Vec<&str> {
    detect(text, &Policy::default())
        .into_iter()
        .filter(|f| f.pii_type == PiiType::PersonName)
        .map(|f| &text[f.start..f.end])
        .collect()
}

/// Each `(text, name)`: the name is found, whole.
fn finds(cases: &[(&str, &str)]) {
    for (text, name) in cases {
        let found = people(text);
        assert!(
            found.iter().any(|f| f.contains(name)),
            "{name} not found in {text:?}: {found:?}"
        );
    }
}

/// No person in any of `texts`.
fn finds_no_one(texts: &[&str]) {
    for text in texts {
        assert_eq!(people(text), Vec::<&str>::new(), "{text}");
    }
}

#[test]
fn a_known_given_name_before_a_word_no_language_has_is_a_person() {
    finds(&[
        (
            "The memo went out after Philippa Quarrendon approved it.",
            "Philippa Quarrendon",
        ),
        (
            "Auf Wunsch von Gunhild Tressenbach wurde der Termin verlegt.",
            "Gunhild Tressenbach",
        ),
    ]);
}

#[test]
fn two_unknown_capitalised_words_inside_a_sentence_are_a_person() {
    // Neither word is in a name list; inside a sentence, capitals mark a name.
    finds(&[
        (
            "Dün Ağahbey Kırçiçekoğlu şubeye uğradı.",
            "Ağahbey Kırçiçekoğlu",
        ),
        (
            "Ieri Zofrenio Quatrallini ha chiamato il servizio clienti.",
            "Zofrenio Quatrallini",
        ),
    ]);
}

#[test]
fn words_of_people_around_a_name_count_for_it() {
    finds(&[
        (
            "According to Marguerite Oakhollow, the parcel arrived.",
            "Marguerite Oakhollow",
        ),
        (
            "Selon Ghislaine Perrochet, la livraison est arrivée.",
            "Ghislaine Perrochet",
        ),
        (
            "Laut Wiebke Fahrenkamp ist alles geliefert.",
            "Wiebke Fahrenkamp",
        ),
        (
            "Raport przygotowała Bożenna Szczygielska w marcu.",
            "Bożenna Szczygielska",
        ),
    ]);
}

#[test]
fn an_ordinary_word_before_the_name_is_passed_over() {
    finds(&[
        (
            "Yesterday Thaddeus Wrenfield called the desk.",
            "Thaddeus Wrenfield",
        ),
        (
            "Gestern hat Ottilie Brandtner angerufen.",
            "Ottilie Brandtner",
        ),
    ]);
}

#[test]
fn organisations_places_headings_and_things_are_no_one() {
    finds_no_one(&[
        "The order was cancelled by Barclays Bank on Monday.",
        "Die Bestellung wurde von der Deutschen Bank storniert.",
        "Die Nordwind Handel GmbH erhöhte ihre Preise.",
        "Quarterly Review: Sales And Margins",
        "We walked through the Rose Garden in May.",
        "The shipment from Rotterdam reached Leeds on Tuesday.",
        "Fatura Garanti Bankası tarafından onaylandı.",
    ]);
}

#[test]
fn one_sentence_a_language() {
    finds(&[
        (
            "The contract was signed by Rosalind Featherby on Monday.",
            "Rosalind Featherby",
        ),
        (
            "Den Bericht hat Hartmut Zellweger im Mai geschrieben.",
            "Hartmut Zellweger",
        ),
        (
            "Hier, Léontine Vasselot a appelé le service client.",
            "Léontine Vasselot",
        ),
        (
            "Secondo Ermenegildo Pastorelli la consegna è arrivata.",
            "Ermenegildo Pastorelli",
        ),
        (
            "Según Remedios Escalonilla, el pedido llegó tarde.",
            "Remedios Escalonilla",
        ),
        (
            "Volgens Geertruida Spanjaard is de levering op tijd.",
            "Geertruida Spanjaard",
        ),
        (
            "Wczoraj Wiesława Grzybowiak zadzwoniła do biura.",
            "Wiesława Grzybowiak",
        ),
        (
            "Enligt Ingegerd Fjällström kom leveransen i tid.",
            "Ingegerd Fjällström",
        ),
        (
            "Ifølge Solvejg Kragelund kom leverancen til tiden.",
            "Solvejg Kragelund",
        ),
        (
            "Segundo Idalina Carrapatoso, a entrega chegou a tempo.",
            "Idalina Carrapatoso",
        ),
        (
            "Rapor Nurcihan Karakoçlu tarafından hazırlandı.",
            "Nurcihan Karakoçlu",
        ),
        (
            "Podle Bohumila Šťastného dodávka dorazila včas.",
            "Bohumila Šťastného",
        ),
    ]);
}

#[test]
fn every_later_mention_of_a_person_is_masked() {
    let cases = [
        (
            "Yesterday Thaddeus Wrenfield called. Later, Wrenfield said no. Thaddeus left. Mr. Wrenfield's plan won.",
            "Yesterday [MASKED_PERSON_NAME] called. Later, [MASKED_PERSON_NAME] said no. [MASKED_PERSON_NAME] left. Mr. [MASKED_PERSON_NAME]'s plan won.",
        ),
        (
            "Laut Ottilie Brandtner ist alles da. Brandtners Vorschlag wurde angenommen.",
            "Laut [MASKED_PERSON_NAME] ist alles da. [MASKED_PERSON_NAME] Vorschlag wurde angenommen.",
        ),
        (
            "Rapor Nurcihan Karakoçlu tarafından hazırlandı. Karakoçlu'nun önerisi kabul edildi.",
            "Rapor [MASKED_PERSON_NAME] tarafından hazırlandı. [MASKED_PERSON_NAME]'nun önerisi kabul edildi.",
        ),
        (
            "Raport przygotowała Bożenna Szczygielska w marcu. Pani Szczygielskiej nie było.",
            "Raport przygotowała [MASKED_PERSON_NAME] w marcu. Pani [MASKED_PERSON_NAME] nie było.",
        ),
    ];
    masks_as(&cases);
}

#[test]
fn numbered_gives_every_mention_of_one_person_one_number() {
    use crate::pii_masker::operators::{Operator, Operators};
    let policy = Policy {
        replacer: Some(std::sync::Arc::new(Operators::new(
            |_| Operator::Numbered,
            None,
        ))),
        ..Policy::default()
    };
    let text =
        "According to Marguerite Oakhollow, the parcel arrived. We also met Wiebke Fahrenkamp. \
                Later, Oakhollow said so, and Fahrenkamp agreed; Marguerite smiled.";
    let masked = mask(text, &policy).expect("mask").text;
    assert_eq!(
        masked,
        "According to [MASKED_PERSON_NAME_1], the parcel arrived. We also met [MASKED_PERSON_NAME_2]. \
         Later, [MASKED_PERSON_NAME_1] said so, and [MASKED_PERSON_NAME_2] agreed; [MASKED_PERSON_NAME_1] smiled."
    );
}

/// An inflection of `surname` a supported language writes, by `pick`.
fn inflect(surname: &str, pick: usize) -> String {
    let stem = surname.strip_suffix('a').unwrap_or(surname);
    match pick % 8 {
        0 => format!("{surname}'s"),
        1 => format!("{surname}s"),
        2 => format!("{surname}'ın"),
        3 => format!("{surname}'e"),
        4 => format!("{stem}iego"),
        5 => format!("{stem}ą"),
        6 => format!("{stem}ové"),
        _ => surname.to_uppercase(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Once the full name is found (behind a label here), any listed inflection of the surname, and
    /// the given name alone, are masked wherever they stand.
    #[test]
    fn any_inflection_of_a_found_surname_is_masked(
        given in "[A-Z][a-z]{3,8}",
        surname in "[A-Z][a-z]{4,10}",
        pick in 0usize..8,
    ) {
        let mention = inflect(&surname, pick);
        let text = format!("Name: {given} {surname}\n\nThe file says {mention} was late. Then {given} called.");
        let kept = mention.find('\'').map_or("", |at| &mention[at..]);
        prop_assert_eq!(
            masked(&text),
            format!("Name: [MASKED_PERSON_NAME]\n\nThe file says [MASKED_PERSON_NAME]{kept} was late. Then [MASKED_PERSON_NAME] called.")
        );
    }
}

/// The README's sample letters: every mention of every person masked, and with `numbered` one number
/// a person.
#[test]
fn the_sample_letters_mask_every_mention_of_each_person() {
    use crate::pii_masker::operators::{Operator, Operators};
    let letters = [
        (
            include_str!("../../../../../samples/customer-letter.txt"),
            &["Ayşe", "Yılmaz", "Mehmet", "Demir"][..],
        ),
        (
            include_str!("../../../../../samples/letter-en.txt"),
            &["Harriet", "Pemberton", "Thomas", "Aldridge"][..],
        ),
        (
            include_str!("../../../../../samples/letter-de.txt"),
            &["Wiebke", "Sommerfeldt", "Konrad", "Albrecht"][..],
        ),
    ];
    let numbered = Policy {
        replacer: Some(std::sync::Arc::new(Operators::new(
            |_| Operator::Numbered,
            None,
        ))),
        ..Policy::default()
    };
    for (letter, names) in letters {
        let plain = masked(letter);
        let with_numbers = mask(letter, &numbered).expect("mask").text;
        for name in names {
            assert!(!plain.contains(name), "{name} left in:\n{plain}");
            assert!(
                !with_numbers.contains(name),
                "{name} left in:\n{with_numbers}"
            );
        }
        // One number a person: as many numbers as people, each used for every mention.
        let tokens: std::collections::BTreeSet<&str> = with_numbers
            .match_indices("[MASKED_PERSON_NAME_")
            .map(|(at, _)| &with_numbers[at..at + with_numbers[at..].find(']').unwrap_or(0) + 1])
            .collect();
        assert_eq!(tokens.len(), names.len() / 2, "{with_numbers}");
    }
}

/// A national number with its trunk 0 after any phrase is a phone when a configured region says it is
/// valid; not when the words before make it a reference, an amount or a quantity.
#[test]
fn a_national_number_after_any_phrase_is_a_phone() {
    masks_as(&[
        (
            "Sommerfeldts Rückruf erbitten wir an 030 1234567.",
            "Sommerfeldts Rückruf erbitten wir an [MASKED_PHONE_INTL].",
        ),
        (
            "Chiamare lo 06 12345678 entro lunedì.",
            "Chiamare lo [MASKED_PHONE_INTL] entro lunedì.",
        ),
        (
            "Reachable on 0612 345678 most days.",
            "Reachable on [MASKED_PHONE_INTL] most days.",
        ),
    ]);
    keeps(&[
        "Bestellung 0301234567 ist da.",
        "Der Betrag 030 1234567 EUR.",
        "Order no 0612 345678 shipped.",
        "Fiyat: 030 123456",
    ]);
}

/// What a peer comparison found (issue #83, item 6), one class a case: e-mails under a reserved
/// domain, 14-digit cards behind their brand's name, North American numbers typed as such, an
/// address that ends with its sentence.
#[test]
fn the_classes_a_peer_comparison_found() {
    let found = |text: &str| -> Vec<(String, &'static str)> {
        detect(text, &Policy::default())
            .iter()
            .map(|f| (text[f.start..f.end].to_string(), f.pii_type.name()))
            .collect()
    };
    let one = |value: &str, ty: &'static str| vec![(value.to_string(), ty)];
    assert_eq!(
        found("Write to jan.devries@mail.example today."),
        one("jan.devries@mail.example", "email")
    );
    assert_eq!(
        found("Diners 30569309025904 was used."),
        one("30569309025904", "credit_card")
    );
    assert_eq!(
        found("Call (212) 555-0147 tomorrow."),
        one("(212) 555-0147", "phone_intl")
    );
    assert_eq!(
        found("Ich wohne in der Hauptstraße 5, 10115 Berlin. Danach gingen wir essen."),
        one("Hauptstraße 5, 10115 Berlin", "address")
    );
    assert_eq!(
        found("He lives at 42 Baker Street, London. The weather was nice."),
        one("42 Baker Street, London", "address")
    );
}

/// The surrogate of a known given name is another of its gender, from its country, in its letters.
#[test]
fn name_surrogates_keep_gender_and_letters() {
    use crate::pii_masker::engine::lexicon::{given_name_origin, given_names_of, Gender};
    use crate::pii_masker::operators::{Operator, Operators};
    use crate::pii_masker::surrogate::SurrogateKey;
    let policy = Policy {
        replacer: Some(std::sync::Arc::new(Operators::new(
            |_| Operator::Surrogate,
            Some(SurrogateKey::new(b"a test key")),
        ))),
        ..Policy::default()
    };
    for (text, given, gender) in [
        (
            "Sayın Ayşe Yılmaz, başvurunuz alındı.",
            "Ayşe",
            Gender::Female,
        ),
        (
            "Laut Wiebke Sommerfeldt ist alles da.",
            "Wiebke",
            Gender::Female,
        ),
        (
            "Raport przygotował Zbigniew Dzwonnik w marcu.",
            "Zbigniew",
            Gender::Male,
        ),
    ] {
        let out = mask(text, &policy).expect("mask").text;
        assert!(!out.contains(given), "{out}");
        let fold = crate::pii_masker::engine::text::fold;
        let (_, country) = given_name_origin(&fold(given)).expect("a known name");
        // The word in the given name's place is a name its country gives to the same gender.
        let at = text.find(given).expect("given");
        let drawn = out[at..].split([' ', ',']).next().expect("a word");
        assert!(
            given_names_of(country, gender).contains(&drawn),
            "{drawn} in {out}"
        );
        assert!(
            matches!(given_name_origin(&fold(drawn)), Some((g, _)) if g == gender || g == Gender::Either),
            "{drawn}"
        );
    }
}

/// A Turkish surname's surrogate is a Turkish surname written in Turkish letters ("Çelik", "Yıldız",
/// "IŞIK" in capitals), never its ASCII folding ("Celik").
#[test]
fn turkish_surname_surrogates_keep_their_letters() {
    use crate::pii_masker::engine::lexicon::surrogate_names;
    use crate::pii_masker::operators::{Operator, Operators};
    use crate::pii_masker::surrogate::SurrogateKey;
    let lower = |word: &str| -> String {
        word.chars()
            .map(|c| match c {
                'I' => 'ı',
                'İ' => 'i',
                c => c.to_lowercase().next().unwrap_or(c),
            })
            .collect()
    };
    let (mut drawn, mut native) = (0, 0);
    for key in 0..40u8 {
        let policy = Policy {
            replacer: Some(std::sync::Arc::new(Operators::new(
                |_| Operator::Surrogate,
                Some(SurrogateKey::new(&[b'k', key])),
            ))),
            ..Policy::default()
        };
        for (text, at) in [
            ("Sayın Ayşe Yılmaz, başvurunuz alındı.", 2),
            ("SAYIN AYŞE YILMAZ, BAŞVURUNUZ ALINDI.", 2),
        ] {
            let out = mask(text, &policy).expect("mask").text;
            let word = out
                .split([' ', ','])
                .nth(at)
                .expect("a surname")
                .to_string();
            assert!(
                surrogate_names(false, true).contains(&lower(&word).as_str()),
                "{word} in {out}"
            );
            drawn += 1;
            native += usize::from(word.contains([
                'Ç', 'Ğ', 'I', 'İ', 'Ö', 'Ş', 'Ü', 'ç', 'ğ', 'ı', 'ö', 'ş', 'ü',
            ]));
        }
    }
    // Most Turkish surnames of the list have a letter of Turkish's own.
    assert!(native * 3 >= drawn, "{native} of {drawn}");
}

/// The classes an independent check (`tests/interop/prose_recall.py`: Faker's names, companies and
/// cities in sentences of its own) found: a surname's particles in later mentions, a small place's name
/// as a surname, a rare inflected word opening the sentence, Turkish names that are words, and
/// companies whose legal form is an acronym or written with dots.
#[test]
fn the_classes_an_independent_check_found() {
    masks_as(&[
        (
            "Onze accountant sprak Wouterke van Braaksma op het kantoor. Daarna vroeg van Braaksma om een kopie. De heer Van Braaksma tekende niet.",
            "Onze accountant sprak [MASKED_PERSON_NAME] op het kantoor. Daarna vroeg [MASKED_PERSON_NAME] om een kopie. De heer [MASKED_PERSON_NAME] tekende niet.",
        ),
        (
            "Tijdens de hoorzitting beschreef Finn Oosterhout de vertraging.",
            "Tijdens de hoorzitting beschreef [MASKED_PERSON_NAME] de vertraging.",
        ),
        (
            "Duruşmada Ümmahan Bilir gecikmeyi ayrıntılı anlattı.",
            "Duruşmada [MASKED_PERSON_NAME] gecikmeyi ayrıntılı anlattı.",
        ),
        // A Turkish surname that is one of the language's most frequent words.
        (
            "Dün Nasuf Türk müşteri hizmetlerini aradı.",
            "Dün [MASKED_PERSON_NAME] müşteri hizmetlerini aradı.",
        ),
    ]);
    finds_no_one(&[
        "Zápis v úterý sepsal Dostálová Sedláčková v.o.s. a poslal ho dál.",
        "Protokół sporządził we wtorek PPUH Łyczak Sp. z o.o. i wysłał go dalej.",
        "Vi skickade klagomålet till Danielsson Rosengren HB förra veckan.",
        "Protokollet fördes i tisdags av Nilsson Omar AB.",
        "Wir haben die Beschwerde an Möchlichen Rosenow e.V. weitergeleitet.",
        "Müşteri kaydında Cihaz IMEI bilgisi güncellendi.",
        // A compound's head is another word with a possessive ending.
        "Dün Bahçe Kapısı boyandı ve Okul Bahçesi temizlendi.",
    ]);
}
