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

/// A text's telling words read once ([`Tellings`]) tell the same language as a guess that reads the
/// words around each place again ([`guess_language`]), at every place of a text of several
/// languages, short and long lines, and read forward with places asked about again behind.
#[test]
fn tellings_guess_as_each_window_does() {
    let lines = [
        "Laut Torben Römer ist die Lieferung pünktlich angekommen, sagte er am Montag.",
        "Raport przygotował Aniela Dzwonnik w marcu i nikt nie odmówił komentarza.",
        "",
        "12.03.2024\t4.500,00 TRY\tFatura",
        "The report was written by someone in March, and later the team said it was late.",
        "Toplantıya katılan herkes raporu okudu ve öneriler için teşekkür etti; ama bazıları \
         itiraz etti, çünkü bu rapor geçen yılın rakamlarını kullanıyordu ve şirketin yeni \
         planlarını hiç anlatmıyordu, bu yüzden bir sonraki toplantıda yeniden ele alınacak \
         ve karar o zaman verilecek, dedi müdür.",
        "max@example.com www.example.org/path ordre de la société",
    ];
    let mut text = String::new();
    for round in 0..120 {
        text.push_str(lines[round % lines.len()]);
        text.push('\n');
        if round % 3 == 0 {
            text.push_str(lines[(round * 5 + 1) % lines.len()]);
            text.push(' ');
        }
    }
    let b = text.as_bytes();
    let mut tellings = Tellings::default();
    let code = |l: Option<&'static Language>| l.map(|l| l.code);
    for at in (0..b.len()).step_by(7) {
        assert_eq!(
            code(tellings.guess(b, at)),
            code(guess_language(b, at)),
            "at {at}"
        );
        // A place asked about again, a little behind.
        let back = at.saturating_sub(300);
        assert_eq!(
            code(tellings.guess(b, back)),
            code(guess_language(b, back)),
            "at {back}"
        );
    }
    // Far behind: read again.
    assert_eq!(code(tellings.guess(b, 0)), code(guess_language(b, 0)));
}
