//! The lexicon's lists and look-ups.

use super::*;

#[test]
fn gazetteer_lookups_are_folded() {
    assert_eq!(lookup(&fold("YILMAZ")), Some(Word::Surname));
    assert_eq!(lookup(&fold("Ayşe")), Some(Word::FirstName));
    assert_eq!(lookup(&fold("Mahallesi")), Some(Word::Street));
    assert_eq!(lookup(&fold("Sayın")), Some(Word::Honorific));
    assert_eq!(lookup(&fold("Can")), Some(Word::Either));
    assert_eq!(lookup(&fold("fatura")), None);
    assert!(street_compound(&fold("Hauptstraße")));
    assert!(street_compound(&fold("Bahnhofstr")));
    assert!(street_compound(&fold("Damstraat")));
    assert!(street_compound(&fold("Keizersgracht")));
    assert!(!street_compound(&fold("Straße")));
    assert!(!street_compound(&fold("Weg")));
    assert!(!street_compound(&fold("Spring")));
}

/// The words that tell a company, an organisation or a salutation are no given name or surname
/// of the gazetteer (which would then be kept from being masked behind a label or a title), and
/// they are folded.
#[test]
fn words_of_no_person_are_no_names() {
    for word in COMPANY_WORDS
        .iter()
        .chain(COMPANY_ABBREVIATIONS)
        .chain(ORGANISATION_WORDS.iter())
        .chain(SALUTATION_WORDS.iter())
    {
        assert_eq!(fold(word), word.as_bytes(), "{word}");
        assert!(
            !matches!(
                lookup(word.as_bytes()),
                Some(Word::FirstName | Word::Surname | Word::Either)
            ),
            "{word}"
        );
    }
    assert!(not_a_person(b"ltd.", false));
    assert!(not_a_person(b"a.s.", false));
    assert!(not_a_person(b"san.", false));
    assert!(!not_a_person(b"san", false));
    assert!(not_a_person(b"yetkili", true));
    assert!(!not_a_person(b"degerli", false));
    assert!(!not_a_person(b"ayse", true));
}

/// The lists that qualify a given name are consistent with the gazetteer: a common-word given name
/// is a given name there, a title written after a name is no gazetteer word (it would end the
/// walk as one), a closing folds within the length looked up, and the surname test turns away
/// the heads of Turkish compounds but not surnames that merely end in a vowel.
#[test]
fn name_qualifiers_agree_with_the_gazetteer() {
    for name in WORD_LIKE_GIVEN_NAMES.iter() {
        assert!(
            matches!(
                lookup(name.as_bytes()),
                Some(Word::FirstName | Word::Either)
            ),
            "{name}"
        );
    }
    for surname in DISTINCTIVE_SURNAMES.iter() {
        assert_eq!(lookup(surname.as_bytes()), Some(Word::Surname), "{surname}");
    }
    for title in POST_TITLES.iter() {
        assert_eq!(lookup(title.as_bytes()), None, "{title}");
    }
    for closing_line in CLOSINGS.iter() {
        let folded = fold(closing_line);
        assert!(folded.len() <= CLOSING_BYTES_MAX, "{closing_line}");
        assert!(closing(&folded), "{closing_line}");
        let first = closing_line.split(' ').next().unwrap_or_default();
        assert_eq!(lookup(&fold(first)), Some(Word::Closing), "{closing_line}");
    }
    for word in [
        "karadagli",
        "whitfield",
        "tekinalp",
        "gumussu",
        "bilgili",
        "kocabiyik",
    ] {
        assert!(may_be_surname(word.as_bytes()), "{word}");
    }
    for word in [
        "koprusu",
        "hastanesi",
        "yayinlari",
        "mudurlugu",
        "yapi",
        "yilmaz",
        "ltd",
    ] {
        assert!(!may_be_surname(word.as_bytes()), "{word}");
    }
}

#[test]
fn greetings_are_short_ascii_words() {
    for greeting in GREETINGS.iter() {
        assert!(greeting.len() <= 8 && greeting.bytes().all(|c| c.is_ascii_lowercase()));
    }
}

#[test]
fn labels_with_and_without_qualifiers() {
    assert_eq!(label(b"ad soyad"), Some(Label::Name));
    assert_eq!(label(b"sorumlu personel"), Some(Label::Name));
    assert_eq!(label(b"teslimat adresi"), Some(Label::Address));
    assert_eq!(label(b"yeni teslimat adresi"), Some(Label::Address));
    assert_eq!(label(b"xadres"), None);
    // "adı" after a person is a name label, after a thing it is not.
    assert_eq!(label(b"baba adi"), Some(Label::Name));
    assert_eq!(label(b"musteri adi"), Some(Label::Name));
    assert_eq!(label(b"esinin adi"), Some(Label::Name));
    assert_eq!(label(b"urun adi"), None);
    assert_eq!(label(b"urunun adi"), None);
    assert_eq!(label(b"firmanin adi"), None);
    assert_eq!(label(b"vergi dairesi adi"), None);
    assert_eq!(label(b"product name"), None);
    assert_eq!(label(b"ad"), Some(Label::Name));
    assert_eq!(label(b"soyad"), Some(Label::Name));
    assert_eq!(label(b"last name"), Some(Label::Name));
    assert_eq!(label(b"tutar"), None);
    assert_eq!(label(b""), None);
}
