//! Labels and addresses: where a labelled value ends, what labels nothing, companies and goods, titles.

use super::*;

/// An address behind its label ends where the next field's label begins on its line: the values
/// after it are found and masked as what they are (a phone number, an e-mail, a VKN, a date of
/// birth), the labels stay, and the labels of the address's own parts ("No:", "D:3", "Kat:", "Posta
/// Kodu:") do not end it.
#[test]
fn the_next_label_ends_an_address_behind_its_label() {
    for (text, expected) in [
        (
            "Adres: Caferağa Mah. Moda Cad. No: 12 D:3 Kadıköy/İstanbul, Tel: 0216 345 67 89, \
             E-posta: ayse@example.com",
            "Adres: [MASKED_ADDRESS], Tel: [MASKED_PHONE_TR], E-posta: [MASKED_EMAIL]",
        ),
        (
            "Adres: Atatürk Cad. No 5 Çankaya Ankara Telefon: 0532 123 45 67 Doğum Tarihi: 01.02.1980",
            "Adres: [MASKED_ADDRESS] Telefon: [MASKED_PHONE_TR] Doğum Tarihi: \
             [MASKED_DATE_OF_BIRTH]",
        ),
        (
            "Adres: Moda Cad. 12, Kadıköy, Vergi No: 4540536920, Sipariş: 12345",
            "Adres: [MASKED_ADDRESS], Vergi No: [MASKED_TAX_ID_TR], Sipariş: 12345",
        ),
        (
            "Adres: Bağdat Cad. No: 5, Kat: 3, Daire: 7, Posta Kodu: 34710 Kadıköy. Sipariş: 9",
            "Adres: [MASKED_ADDRESS]. Sipariş: 9",
        ),
        (
            "Adres: Atatürk Bulvarı No:10 Ankara, Türkiye. Ad Soyad: Ayşe Yılmaz",
            "Adres: [MASKED_ADDRESS]. Ad Soyad: [MASKED_PERSON_NAME]",
        ),
        // The document's own fields, with no comma before them: an order, an invoice's number, a
        // date, a note. The house number's "No:" stays the address's.
        (
            "Adres: Moda Cad. No: 3 Kadıköy Sipariş: 12345",
            "Adres: [MASKED_ADDRESS] Sipariş: 12345",
        ),
        (
            "Adres: Moda Cad. No: 3 Kadıköy Fatura No: 12345 Tarih: 01.02.2024",
            "Adres: [MASKED_ADDRESS] Fatura No: 12345 Tarih: 01.02.2024",
        ),
        (
            "Adres: Moda Cad. No: 3 Kadıköy, Sipariş No: 12345",
            "Adres: [MASKED_ADDRESS], Sipariş No: 12345",
        ),
        (
            "Adres: Moda Cad. No: 3 Kadıköy Not: kapıda ödeme",
            "Adres: [MASKED_ADDRESS] Not: kapıda ödeme",
        ),
        (
            "Address: 221B Baker Street London Order: 5521",
            "Address: [MASKED_ADDRESS] Order: 5521",
        ),
        // A street address ends at its line's break, whatever label the next line begins with.
        (
            "Atatürk Cad. No: 5 Çankaya Ankara\nCep Telefonu: 0532 123 45 67",
            "[MASKED_ADDRESS]\nCep Telefonu: [MASKED_PHONE_TR]",
        ),
        (
            "Atatürk Cad. No: 5 Çankaya Ankara\nDoğum Tarihi: 12.03.1985",
            "[MASKED_ADDRESS]\nDoğum Tarihi: [MASKED_DATE_OF_BIRTH]",
        ),
    ] {
        assert_eq!(masked(text), expected, "{text}");
    }
    // Not every colon is a label: a time, a tag, a word run into digits.
    for text in [
        "Adres: Moda Cad. No:5 Kadıköy, teslimat 10:30 sonrası",
        "Adres: Moda Cad. No:5 <cbc:StreetName>Moda</cbc:StreetName>",
    ] {
        assert_eq!(masked(text), "Adres: [MASKED_ADDRESS]", "{text}");
    }
}

/// "address" before a colon labels a field where it is the label's last word or a qualifier follows
/// it ("Address line", "Address of residence", "Address (home)"), not where it is a verb: a sentence
/// of a paper ("we address the question: Can we train...", found in the corpus's two-column PDF) or
/// an agenda ("Topics to address:") keeps the text after its colon.
#[test]
fn address_as_a_verb_labels_nothing() {
    keeps(&[
        "In this paper, we address the question: Can we train a better dense embedding model",
        "Topics to address: budget, hiring and the Q3 roadmap",
        "The readdressed question: how many",
        "Addressee list: Marketing Team",
    ]);
    masks_as(&[
        (
            "Address line: 12 Main Street, Leeds",
            "Address line: [MASKED_ADDRESS]",
        ),
        (
            "Address of residence: 12 Main Street, Leeds",
            "Address of residence: [MASKED_ADDRESS]",
        ),
        (
            "Address (home): 10 Downing Street",
            "Address (home): [MASKED_ADDRESS]",
        ),
        (
            "Postal address: 12 Main Street, Leeds",
            "Postal address: [MASKED_ADDRESS]",
        ),
        (
            "Name and address: 12 Main Street, Leeds",
            "Name and address: [MASKED_ADDRESS]",
        ),
    ]);
}

/// A name label or a title before a company's or an organisation's name or a salutation, and a bare
/// "name" column in a table of goods, announce no person: the corpus's invoice letter ("Alıcı: Yaman
/// Gıda Ltd. Şti.") and its e-invoice's line table ("id, name, quantity, unit_price, amount") had
/// their company and item names masked as person names, and every "Sayın Yetkili," of a business
/// letter was one. A person's name next to them still is one.
#[test]
fn companies_and_goods_are_no_persons() {
    keeps(&[
        "Alıcı: Yaman Gıda Ltd. Şti.\nAçıklama kısmına fatura numarasını yazınız.",
        "Sayın Akdeniz Yapı Sanayi A.Ş. yetkilisi,",
        "Alıcı: Akdeniz Yapı Malzemeleri Pazarlama Ltd. Şti.",
        "Müşteri Adı: Kaya Tekstil San. ve Tic. A.Ş.",
        "Customer: Northwind Traders Inc.",
        "id\tname\tquantity\tunit_price\tamount\n1\tElektrik Tüketim Bedeli\t200\t2.78\t556.00\n",
        "Ad\tMiktar\tBirim Fiyat\nKalem Seti\t2\t100,00\n",
        "Sayın Yetkili,\nSayın İlgili,\nSayın Müşterimiz, siparişiniz kargoya verildi.",
        "Alıcı: Türkiye İş Bankası\nHazırlayan: Muhasebe Departmanı\nGönderici: Yurtiçi Kargo",
        "Prepared by: Finance Team\nContact: Support Team\nDear Customer,",
    ]);
    masks_as(&[
        ("Ad Soyad: Ayşe Şan", "Ad Soyad: [MASKED_PERSON_NAME]"),
        // "Değerli" is a salutation only as the first word; as a surname it is a name's.
        ("Ad Soyad: Ayşe Değerli", "Ad Soyad: [MASKED_PERSON_NAME]"),
        (
            "Sayın Müşterimiz Ayşe Yılmaz, siparişiniz",
            "Sayın Müşterimiz [MASKED_PERSON_NAME], siparişiniz",
        ),
        (
            "Ad Soyad: Ayşe Yılmaz, Yaman Gıda Ltd. Şti. çalışanı",
            "Ad Soyad: [MASKED_PERSON_NAME], Yaman Gıda Ltd. Şti. çalışanı",
        ),
        (
            "Ad Soyad\tMiktar\tTutar\nAyşe Yılmaz\t2\t100\n",
            "Ad Soyad\tMiktar\tTutar\n[MASKED_PERSON_NAME]\t2\t100\n",
        ),
        (
            "name\temail\tcity\nJohn Smith\tj@example.com\tLeeds\n",
            "name\temail\tcity\n[MASKED_PERSON_NAME]\t[MASKED_EMAIL]\tLeeds\n",
        ),
    ]);
}

/// English addresses put the house number first ("10 Downing Street", "350 Fifth Avenue") and US dates
/// of birth the month first ("12/31/1990"); both are found. A street named without a number is not an
/// address, nor is a date that is none either way.
#[test]
fn english_house_numbers_and_month_first_dates() {
    masks_as(&[
        (
            "We moved to 10 Downing Street last year.",
            "We moved to [MASKED_ADDRESS] last year.",
        ),
        ("HQ: 221B Baker Street, London", "HQ: [MASKED_ADDRESS]"),
        (
            "Visit us at 350 Fifth Avenue, New York.",
            "Visit us at [MASKED_ADDRESS].",
        ),
        (
            "Ship to: 1600 Amphitheatre Parkway, Mountain View, CA 94043",
            "Ship to: [MASKED_ADDRESS]",
        ),
        (
            "He lives at 1600 Pennsylvania Ave NW, Washington, DC 20500.",
            "He lives at [MASKED_ADDRESS].",
        ),
        (
            "Send it to 742 Evergreen Terrace, Springfield.",
            "Send it to [MASKED_ADDRESS].",
        ),
        (
            "Meet at 12 Elm Rd. tomorrow",
            "Meet at [MASKED_ADDRESS]. tomorrow",
        ),
        ("DOB: 12/31/1990", "DOB: [MASKED_DATE_OF_BIRTH]"),
        (
            "Date of birth: 04/15/1985",
            "Date of birth: [MASKED_DATE_OF_BIRTH]",
        ),
        (
            "Doğum Tarihi: 31/12/1990",
            "Doğum Tarihi: [MASKED_DATE_OF_BIRTH]",
        ),
    ]);
    keeps(&[
        "Our office on Baker Street is closed.",
        "Doğum Tarihi: 13/13/1990",
        "We sold 12 place settings and 3 route maps.",
        "Ave Maria was sung 3 times.",
        "The Terrace Bar opens at 5.",
    ]);
}

/// Behind a name label, titles stay outside the name ("Sorumlu: Op. Dr. Ali Çelik" masked "Op" as a
/// name and the rest as another), and a middle initial is inside it ("Ad Soyad: Ayşe K. Yılmaz" left
/// the surname unmasked: the name ended at the initial).
#[test]
fn titles_and_initials_behind_a_name_label() {
    masks_as(&[
        (
            "Sorumlu: Dr. Ali Çelik",
            "Sorumlu: Dr. [MASKED_PERSON_NAME]",
        ),
        (
            "Hazırlayan: Op. Dr. Ali Çelik",
            "Hazırlayan: Op. Dr. [MASKED_PERSON_NAME]",
        ),
        (
            "Ad Soyad: Prof. Dr. Ayşe Kaya",
            "Ad Soyad: Prof. Dr. [MASKED_PERSON_NAME]",
        ),
        (
            "Sayın Op. Dr. Ali Çelik",
            "Sayın Op. Dr. [MASKED_PERSON_NAME]",
        ),
        ("Ad Soyad: Ayşe K. Yılmaz", "Ad Soyad: [MASKED_PERSON_NAME]"),
        ("Ad Soyad: Ayşe Ş. Yılmaz", "Ad Soyad: [MASKED_PERSON_NAME]"),
        ("Ad Soyad: M. Ali Yılmaz", "Ad Soyad: [MASKED_PERSON_NAME]"),
        ("Sayın Ayşe K. Yılmaz,", "Sayın [MASKED_PERSON_NAME],"),
    ]);
}

/// A known given name alone after a greeting is a name: the salutation of a letter or an e-mail.
#[test]
fn a_given_name_after_a_greeting_is_a_name() {
    masks_as(&[
        (
            "Merhaba Mehmet, dosyayı ekte gönderiyorum.",
            "Merhaba [MASKED_PERSON_NAME], dosyayı ekte gönderiyorum.",
        ),
        ("Dear Emma,\nthanks.", "Dear [MASKED_PERSON_NAME],\nthanks."),
        ("Sevgili Ayşe Zeynep,", "Sevgili [MASKED_PERSON_NAME],"),
    ]);
    // Not a given name after a word that merely ends like a greeting, nor after another word.
    keeps(&["Yarın Mehmet gelecek.", "Ohi Mehmet", "Dear Customer,"]);
}

/// A label-only value needs its own label: the nearest label before it that supports the type must
/// not be separated from it by another field's colon. In a form, a label in the line above (within
/// the 64-byte window) labels that line's value.
#[test]
fn a_label_only_value_needs_its_own_label() {
    masks_as(&[
        (
            "Ehliyet No: 123456\nHesap No: 12345678",
            "Ehliyet No: [MASKED_DRIVER_LICENSE_TR]\nHesap No: 12345678",
        ),
        (
            "Doğum Tarihi: 12.03.1985\nSipariş Tarihi: 15.03.2024",
            "Doğum Tarihi: [MASKED_DATE_OF_BIRTH]\nSipariş Tarihi: 15.03.2024",
        ),
        (
            "Sürücü Belgesi No: 123456  Bağ-Kur No: 7654321",
            "Sürücü Belgesi No: [MASKED_DRIVER_LICENSE_TR]  Bağ-Kur No: [MASKED_BAGKUR_NO]",
        ),
        // Its own label, with or without a colon, on the line before or in a table's cell.
        (
            "Ehliyet No:\n123456",
            "Ehliyet No:\n[MASKED_DRIVER_LICENSE_TR]",
        ),
        (
            "Doğum Tarihi\t21.03.1968",
            "Doğum Tarihi\t[MASKED_DATE_OF_BIRTH]",
        ),
        (
            "Doğum Yeri/Tarihi: İstanbul / 12.03.1985",
            "Doğum Yeri/Tarihi: İstanbul / [MASKED_DATE_OF_BIRTH]",
        ),
    ]);
}

/// The table scan skips the cells that cannot be a column label without folding them: a label begins
/// with a letter (of any script: "Ονοματεπώνυμο" is 26 bytes), holds no digit or '@', and is short. The lexicon's labels keep to that, and a tab-indented XML file and a
/// table with its labels still give what they gave.
#[test]
fn table_labels_begin_with_a_letter_and_fit_the_cell_bound() {
    for label in lexicon::NAME_LABELS
        .iter()
        .chain(lexicon::ADDRESS_LABELS.iter())
        .chain(lexicon::PHONE_LABELS.iter())
    {
        assert!(label.starts_with(char::is_alphabetic), "{label}");
        assert!(label.len() <= lexicon::TABLE_LABEL_BYTES_MAX, "{label}");
        assert!(
            !label.bytes().any(|c| c.is_ascii_digit() || c == b'@'),
            "{label}"
        );
    }
    assert_eq!(
        masked("Müşteri\tAd Soyad\tTelefon\n1\tAyşe Yılmaz\t0532 123 45 67\n"),
        "Müşteri\tAd Soyad\tTelefon\n1\t[MASKED_PERSON_NAME]\t[MASKED_PHONE_TR]\n"
    );
    // A column label marks its column down to the first line without a tab, wherever the table
    // stands and whether or not its last line ends in a line break.
    assert_eq!(
        masked("Giriş\n\nNo\tAd Soyad\tŞehir\n1\tZorbek Kuntay\tvan\r\n2\tQarlo Vendt\tvan"),
        "Giriş\n\nNo\tAd Soyad\tŞehir\n1\t[MASKED_PERSON_NAME]\tvan\r\n2\t[MASKED_PERSON_NAME]\tvan"
    );
    assert_eq!(
        masked("No\tAd Soyad\tŞehir\n\n1\tZorbek Kuntay\tvan\n"),
        "No\tAd Soyad\tŞehir\n\n1\tZorbek Kuntay\tvan\n"
    );
    assert_eq!(
        masked("\t\t<cbc:Name>Kayapınar Vergi Dairesi</cbc:Name>\nADI SOYADI :\tZeynep Kaya\n"),
        "\t\t<cbc:Name>Kayapınar Vergi Dairesi</cbc:Name>\nADI SOYADI :\t[MASKED_PERSON_NAME]\n"
    );
}

/// An XML tag's namespace prefix and name are skipped whole, neither a label nor a value; the text
/// between the tags is scanned as any other, and a MAC address in angle brackets is still one.
#[test]
fn xml_tag_names_are_skipped_and_their_contents_scanned() {
    for (text, expected) in [
        (
            "<cac:PartyIdentification><cbc:ID schemeID=\"TCKN\">10000000146</cbc:ID>",
            "<cac:PartyIdentification><cbc:ID schemeID=\"TCKN\">[MASKED_NATIONAL_ID_TR]</cbc:ID>",
        ),
        (
            "<cbc:Telephone>+90 412 743 91 50</cbc:Telephone><cbc:ElectronicMail>a@b.com.tr</cbc:ElectronicMail>",
            "<cbc:Telephone>[MASKED_PHONE_TR]</cbc:Telephone><cbc:ElectronicMail>[MASKED_EMAIL]</cbc:ElectronicMail>",
        ),
        (
            "<cbc:StreetName>Hürriyet Mah. Akasya Sok.</cbc:StreetName>",
            "<cbc:StreetName>[MASKED_ADDRESS].</cbc:StreetName>",
        ),
        ("cihaz <aa:bb:cc:dd:ee:ff>", "cihaz <[MASKED_MAC_ADDRESS]>"),
        ("cihaz <00:1a:2b:3c:4d:5e>", "cihaz <[MASKED_MAC_ADDRESS]>"),
    ] {
        assert_eq!(masked(text), expected, "{text}");
    }
    assert!(detect(
        "<cbc:CityName>x</cbc:CityName><cac:Country>",
        &Policy::default()
    )
    .is_empty());
}

/// A phone number, an IBAN or an id written inside an address, with no label before it, is masked and
/// counted as what it is; the address keeps its words on either side.
#[test]
fn a_validated_value_inside_an_address_is_its_own_finding() {
    let policy = Policy::default();
    for (text, expected, value) in [
        (
            "Adres: Hürriyet Mah. Akasya Sok. 0532 123 45 67 Kadıköy",
            // A part keeps the dot of the abbreviation it ends with, as the whole address would.
            "Adres: [MASKED_ADDRESS] [MASKED_PHONE_TR] [MASKED_ADDRESS]",
            "phone_tr",
        ),
        (
            "Adres: Moda Cad. No: 12 Kadıköy 0216 345 67 89",
            "Adres: [MASKED_ADDRESS] [MASKED_PHONE_TR]",
            "phone_tr",
        ),
        (
            "teslimat için Atatürk Cad. No: 5 TR33 0006 1005 1978 6457 8413 26 Kadıköy",
            "teslimat için [MASKED_ADDRESS] [MASKED_IBAN_TR] [MASKED_ADDRESS]",
            "iban_tr",
        ),
        (
            "Adres: Bağdat Cad. No: 5 10000000146 Kadıköy/İstanbul",
            "Adres: [MASKED_ADDRESS] [MASKED_NATIONAL_ID_TR] [MASKED_ADDRESS]",
            "national_id_tr",
        ),
    ] {
        let result = mask(text, &policy).expect(text);
        assert_eq!(result.text, expected, "{text}");
        assert_eq!(
            result.summary.get(value),
            Some(&1),
            "{text}: {:?}",
            result.summary
        );
        assert!(result.summary.contains_key("address"), "{text}");
    }
    // The address's own numbers are not values of their own.
    assert_eq!(
        masked("Adres: Caferağa Mah. Moda Cad. No: 12 D:3 34710 Kadıköy/İstanbul"),
        "Adres: [MASKED_ADDRESS]"
    );
}

/// A street address found by its street word ends where the next field's label begins, too.
#[test]
fn the_next_label_ends_a_street_address() {
    for (text, expected) in [
        (
            "adres değişikliği bildirdi: Bahçelievler Mah. Zambak Sok. No:135 D:6, 42017 \
             Selçuklu/Konya. E-posta: yelesen.firat@hotmail.com",
            "adres değişikliği bildirdi: [MASKED_ADDRESS]. E-posta: [MASKED_EMAIL]",
        ),
        (
            "Merkez: Hürriyet Mah. Akasya Sok. No:5 Kadıköy Tel: 0216 345 67 89",
            "Merkez: [MASKED_ADDRESS] Tel: [MASKED_PHONE_TR]",
        ),
        (
            "merkez ofis Moda Cad. No: 12 D: 3 Kadıköy, Doğum Tarihi: 01.02.1980",
            "merkez ofis [MASKED_ADDRESS], Doğum Tarihi: [MASKED_DATE_OF_BIRTH]",
        ),
    ] {
        assert_eq!(masked(text), expected, "{text}");
    }
}

/// A long run of multi-byte letters before a colon inside an address: the label's phrase is cut at 40
/// bytes, inside a character, and the address still ends on a character boundary.
#[test]
fn a_label_phrase_cut_inside_a_character_is_harmless() {
    for run in ["ş", "ğü", "€"] {
        for count in 15..30 {
            let text = format!(
                "Adres: Moda Cad. No: 5 Kadıköy {}: 0216 345 67 89",
                run.repeat(count)
            );
            let masked = mask(&text, &Policy::default()).expect("masked");
            assert!(!masked.text.contains("345 67 89"), "{text}");
        }
    }
}
