//! Surface forms: tier-A values without context, grouped and dodged forms, phones, weak and label-anchored types, EU/US/TR ids, networks, names and addresses.

use super::*;

#[test]
fn tier_a_values_are_masked_without_context() {
    assert_eq!(
        masked("Müşteri 10000000146 ile görüşüldü."),
        "Müşteri [MASKED_NATIONAL_ID_TR] ile görüşüldü."
    );
    assert_eq!(
        masked("kart 4111 1111 1111 1111 ile"),
        "kart [MASKED_CREDIT_CARD] ile"
    );
    assert_eq!(
        masked("mail: ayse.yilmaz@example.com.tr."),
        "mail: [MASKED_EMAIL]."
    );
    assert_eq!(masked("DE89370400440532013000"), "[MASKED_IBAN]");
    assert_eq!(masked("RSSMRA85T10A562S"), "[MASKED_FISCAL_CODE_IT]");
    assert_eq!(
        masked("NIE X1234567L y DNI 12345678Z"),
        "NIE [MASKED_FOREIGNER_ID_ES] y DNI [MASKED_NATIONAL_ID_ES]"
    );
}

#[test]
fn addresses_written_to_dodge_harvesters() {
    for (text, expected) in [
        ("mail: ayse(at)firma.com.tr.", "mail: [MASKED_EMAIL]."),
        (
            "E-posta: ahmet.yilmaz [at] ornek [dot] com, ya da",
            "E-posta: [MASKED_EMAIL], ya da",
        ),
        ("mehmet[@]ornek.com", "[MASKED_EMAIL]"),
        ("J.Smith (AT) uni-bonn (DOT) de", "[MASKED_EMAIL]"),
        ("info[at]ornek[.]org adresine", "[MASKED_EMAIL] adresine"),
    ] {
        assert_eq!(masked(text), expected, "{text}");
    }
    // Not without an address on both sides and a real top-level domain.
    for text in [
        "fiyat (at) indirim",
        "Toplantı (at) saat 10.00",
        "[at] ornek.com",
        "ahmet [at] ornek [dot] zzzz",
        "see [1] and (a) below",
    ] {
        assert!(types_in(text).is_empty(), "{text}: {:?}", types_in(text));
    }
}

/// Several addresses at one domain written as a group, as papers and staff lists do (the corpus's
/// two PDF papers hold two such lines): the whole group is one finding.
#[test]
fn a_group_of_local_parts_at_one_domain_is_masked_whole() {
    masks_as(&[
        (
            "{vladk, barlaso, plewis, ledell, edunov, scottyih}@fb.com\nAbstract",
            "[MASKED_EMAIL]\nAbstract",
        ),
        (
            "3 Harvard University\n{melissadell,jacob carlson}@fas.harvard.edu\n4",
            "3 Harvard University\n[MASKED_EMAIL]\n4",
        ),
        (
            "Yazarlar: {ayse.yilmaz; m.kaya}@ornek.com.tr.",
            "Yazarlar: [MASKED_EMAIL].",
        ),
    ]);
    // Not a code block, a group across a line break, or one with no valid address in it.
    keeps(&[
        "if (x) { return y; }@Override",
        "{ayse,\nmehmet}@ornek.com",
        "{a b}@ornek.zzzz",
        "{}@ornek.com",
    ]);
}

#[test]
fn grouped_iban_becomes_one_placeholder() {
    assert_eq!(
        masked("IBAN: TR33 0006 1005 1978 6457 8413 26 (Ziraat)"),
        "IBAN: [MASKED_IBAN_TR] (Ziraat)"
    );
    assert_eq!(
        masked("IBAN'ı TR330006100519786457841326 olan"),
        "IBAN'ı [MASKED_IBAN_TR] olan"
    );
    assert_eq!(masked("GB82 WEST 1234 5698 7654 32"), "[MASKED_IBAN]");
}

#[test]
fn separators_nbsp_dashes_and_full_width_digits() {
    assert_eq!(
        masked("TCKN 100\u{a0}000\u{a0}001\u{a0}46"),
        "TCKN [MASKED_NATIONAL_ID_TR]"
    );
    assert_eq!(
        masked("kart 4111\u{2013}1111\u{2013}1111\u{2013}1111"),
        "kart [MASKED_CREDIT_CARD]"
    );
    assert_eq!(
        masked("no: １０００００００１４６"),
        "no: [MASKED_NATIONAL_ID_TR]"
    );
}

#[test]
fn never_matches_inside_a_longer_run() {
    assert!(types_in("sipariş 910000000146 ve 100000001467").is_empty());
    assert!(types_in("ABC10000000146").is_empty());
    assert!(types_in("ref10000000146x").is_empty());
}

#[test]
fn phones_in_their_surface_forms() {
    for phone in [
        "+90 532 123 45 67",
        "+90 (532) 123 45 67",
        "+90-532-123-45-67",
        "+905321234567",
        "0090 555 123 45 67",
        "0532 123 45 67",
        "0 (532) 123-45-67",
        "05321234567",
        "(0212) 345 67 89",
        "0850 123 45 67",
        "444 1 444",
    ] {
        let out = masked(&format!("Bize ulaşın: {phone} hafta içi"));
        assert_eq!(out, "Bize ulaşın: [MASKED_PHONE_TR] hafta içi", "{phone}");
    }
    assert_eq!(
        masked("Cep tel: 532 123 45 67"),
        "Cep tel: [MASKED_PHONE_TR]"
    );
    assert!(types_in("0522 123 45 67").is_empty());
    assert_eq!(
        masked("call +44 20 7946 0958 now"),
        "call [MASKED_PHONE_INTL] now"
    );
    // National numbers without a country code, right behind their phone label.
    for (label, phone) in [
        ("Tel.", "030 123456"),
        ("tél.", "01 23 45 67 89"),
        ("móvil", "612 345 678"),
        ("cell.", "333 123 4567"),
        ("Handy:", "0171 2345678"),
        ("Phone:", "020-7946-0958"),
    ] {
        assert_eq!(
            masked(&format!("{label} {phone}.")),
            format!("{label} [MASKED_PHONE_INTL]."),
            "{label} {phone}"
        );
    }
    // Not without the label, not a label further away, not a date, an amount or an order number.
    assert!(types_in("Fiyat: 030 123456").is_empty());
    assert!(types_in("Tel: yok, sipariş numaranız 2024 1234 5678").is_empty());
    assert!(types_in("Tel.: 12.03.2024").is_empty());
    assert!(types_in("Telefon 1.250.000 TL").is_empty());
}

#[test]
fn weak_types_need_context_or_a_distinctive_form() {
    // A valid VKN alone is just a number; behind a label it is masked.
    assert!(types_in("Sipariş no 4540536920 teslim edildi").is_empty());
    assert_eq!(
        masked("Vergi No: 4540536920"),
        "Vergi No: [MASKED_TAX_ID_TR]"
    );
    assert_eq!(
        masked("VERGİ NUMARASI 4540536920"),
        "VERGİ NUMARASI [MASKED_TAX_ID_TR]"
    );
    assert_eq!(
        masked("VKN'si 4540536920 olan firma"),
        "VKN'si [MASKED_TAX_ID_TR] olan firma"
    );
    assert!(types_in("tutar 123456782").is_empty());
    assert_eq!(masked("BSN 123456782"), "BSN [MASKED_CITIZEN_ID_NL]");
    assert_eq!(masked("SSN 536-90-4399"), "SSN [MASKED_SSN_US]");
    assert_eq!(masked("IMEI: 490154203237518"), "IMEI: [MASKED_IMEI]");
    assert!(types_in("490154203237518").is_empty());
    assert_eq!(
        masked("NHS number 943 476 5870"),
        "NHS number [MASKED_NHS_NUMBER_UK]"
    );
    assert_eq!(
        masked("routing 021000021"),
        "routing [MASKED_ABA_ROUTING_US]"
    );
    assert_eq!(masked("NPI 1234567893"), "NPI [MASKED_NPI_US]");
    assert_eq!(masked("SWIFT: TCZBTR2A"), "SWIFT: [MASKED_BIC_SWIFT]");
    assert!(types_in("ABSOLUTE DEUTDEFF").is_empty());
}

#[test]
fn label_anchored_types() {
    assert_eq!(
        masked("Emekli Sicil No: 1234567"),
        "Emekli Sicil No: [MASKED_EMEKLILIK_NO]"
    );
    assert_eq!(
        masked("Bağ-Kur No: 98765432"),
        "Bağ-Kur No: [MASKED_BAGKUR_NO]"
    );
    // Legacy SGK/SSK registry numbers of a person (6 to 13 digits, pii-types.md 6.1); the workplace's
    // 26 digits behind the same "SGK sicil" label stay a workplace number.
    for (text, expected) in [
        (
            "SGK Sicil No: 1234567890123",
            "SGK Sicil No: [MASKED_EMEKLILIK_NO]",
        ),
        (
            "SSK Sicil No: 12345678",
            "SSK Sicil No: [MASKED_EMEKLILIK_NO]",
        ),
        (
            "Sigortalı sicil numarası 4567891",
            "Sigortalı sicil numarası [MASKED_EMEKLILIK_NO]",
        ),
        (
            "Sigorta Sicil No: 4567891",
            "Sigorta Sicil No: [MASKED_EMEKLILIK_NO]",
        ),
        ("SGK no: 987654321", "SGK no: [MASKED_EMEKLILIK_NO]"),
        (
            "SGK Sicil No: 2 4100 01 01 1070846 034 01 64 000",
            "SGK Sicil No: [MASKED_ISYERI_SICIL_NO]",
        ),
    ] {
        assert_eq!(masked(text), expected);
    }
    assert_eq!(
        masked("Doğum Tarihi: 12.03.1985"),
        "Doğum Tarihi: [MASKED_DATE_OF_BIRTH]"
    );
    assert_eq!(masked("DOB 1985-03-12"), "DOB [MASKED_DATE_OF_BIRTH]");
    assert!(types_in("Fatura tarihi: 12.03.2024").is_empty());
    // With the month's name, in the label languages (pii-types.md: "12 Mart 1985", "March 12, 1985").
    for (text, expected) in [
        (
            "Doğum Tarihi: 12 Mart 1980",
            "Doğum Tarihi: [MASKED_DATE_OF_BIRTH]",
        ),
        (
            "Doğum tarihi 3 Ağustos 1975.",
            "Doğum tarihi [MASKED_DATE_OF_BIRTH].",
        ),
        ("DOB: March 12, 1985", "DOB: [MASKED_DATE_OF_BIRTH]"),
        (
            "Date of birth: 12 March 1985",
            "Date of birth: [MASKED_DATE_OF_BIRTH]",
        ),
        (
            "Geburtsdatum: 12. März 1985",
            "Geburtsdatum: [MASKED_DATE_OF_BIRTH]",
        ),
        (
            "date de naissance : 1 août 1990",
            "date de naissance : [MASKED_DATE_OF_BIRTH]",
        ),
    ] {
        assert_eq!(masked(text), expected);
    }
    // Not without the label, and not an impossible day.
    assert!(types_in("Sözleşme 12 Mart 2024 tarihinde imzalandı.").is_empty());
    assert!(types_in("Doğum Tarihi: 31 Şubat 1980").is_empty());
    assert_eq!(
        masked("Kimlik Seri No: A12B34567"),
        "Kimlik Seri No: [MASKED_ID_CARD_SERIAL_TR]"
    );
    assert_eq!(
        masked("Ehliyet No: 123456"),
        "Ehliyet No: [MASKED_DRIVER_LICENSE_TR]"
    );
    assert_eq!(
        masked("Passport: C12345678"),
        "Passport: [MASKED_PASSPORT_US]"
    );
}

#[test]
fn structured_eu_us_tr_ids() {
    assert_eq!(
        masked("Steuer-IdNr 36 574 261 809"),
        "Steuer-IdNr [MASKED_TAX_ID_DE]"
    );
    assert_eq!(
        masked("NIR 2 95 10 99 126 111 93"),
        "NIR [MASKED_SOCIAL_SECURITY_FR]"
    );
    assert_eq!(
        masked("NINO AB 12 34 56 C"),
        "NINO [MASKED_NATIONAL_INSURANCE_UK]"
    );
    assert_eq!(masked("MBI 1EG4-TE5-MK73"), "MBI [MASKED_MBI_US]");
    assert_eq!(
        masked("pasaport U12345678"),
        "pasaport [MASKED_PASSPORT_TR]"
    );
    assert_eq!(
        masked("plaka 34 ABC 123 olan araç"),
        "plaka [MASKED_LICENSE_PLATE_TR] olan araç"
    );
    assert_eq!(
        masked("SGK 2 4100 01 01 1070846 034 01 64 000"),
        "SGK [MASKED_ISYERI_SICIL_NO]"
    );
    assert_eq!(masked("USt-IdNr. DE136695976"), "USt-IdNr. [MASKED_VAT_EU]");
    assert_eq!(
        masked("personnummer 811228-9874"),
        "personnummer [MASKED_PERSONAL_ID_SE]"
    );
    assert_eq!(masked("PESEL 44051401359"), "PESEL [MASKED_NATIONAL_ID_PL]");
    assert_eq!(masked("VIN 1HGCM82633A004352"), "VIN [MASKED_VIN]");
}

#[test]
fn network_and_wallets() {
    assert_eq!(
        masked("sunucu 192.168.1.10 üzerinde"),
        "sunucu [MASKED_IPV4] üzerinde"
    );
    assert!(types_in("version 1.2.3.4").is_empty());
    // A product token's version (a generator, a User-Agent) is no address; a path's last step is.
    assert!(
        types_in("<meta:generator>LibreOffice/7.4.7.2$Linux_X86_64</meta:generator>").is_empty()
    );
    assert!(types_in("Mozilla/5.0 (X11) Gecko/20.1.10.1").is_empty());
    assert_eq!(
        masked("GET /servers/10.1.2.3 ok"),
        "GET /servers/[MASKED_IPV4] ok"
    );
    assert_eq!(masked("via http://10.1.2.3/"), "via http://[MASKED_IPV4]/");
    assert_eq!(masked("ip/10.1.2.3"), "ip/[MASKED_IPV4]");
    assert_eq!(masked("addr 2001:db8::1 up"), "addr [MASKED_IPV6] up");
    assert_eq!(masked("MAC 00:1A:2B:3C:4D:5E"), "MAC [MASKED_MAC_ADDRESS]");
    assert_eq!(
        masked("btc 1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa"),
        "btc [MASKED_CRYPTO_WALLET]"
    );
    assert_eq!(
        masked("to bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq"),
        "to [MASKED_CRYPTO_WALLET]"
    );
    assert!(types_in("saat 12:30 ile 13:45 arası").is_empty());
    // Behind a short capitalised word, which would otherwise start a chain of groups and swallow them.
    assert_eq!(
        masked("BTC 1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa"),
        "BTC [MASKED_CRYPTO_WALLET]"
    );
    assert_eq!(masked("MAC 001a.2b3c.4d5e"), "MAC [MASKED_MAC_ADDRESS]");
    assert_eq!(masked("mac 001a.2b3c.4d5e"), "mac [MASKED_MAC_ADDRESS]");
}

#[test]
fn mrz_block_is_masked_whole() {
    let text = "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<\nL898902C36UTO7408122F1204159ZE184226B<<<<<10\n";
    assert_eq!(masked(text), "[MASKED_MRZ]\n");
}

#[test]
fn first_names_and_surnames_behind_their_own_labels_but_not_the_names_of_things() {
    assert_eq!(
        masked("Ad: Elif\nSoyad: Arslan\nLast name: Smith\nBaba Adı: Mustafa\n"),
        "Ad: [MASKED_PERSON_NAME]\nSoyad: [MASKED_PERSON_NAME]\nLast name: [MASKED_PERSON_NAME]\nBaba Adı: [MASKED_PERSON_NAME]\n"
    );
    let things = "Ürün Adı: Kablosuz Mouse\nFirmanın adı: Deniz Lojistik\nBanka Adı: Ziraat Bankası\nProduct name: Blue Widget\n";
    assert!(types_in(things).is_empty(), "{:?}", types_in(things));
}

#[test]
fn more_given_names_and_surnames_but_not_the_words_they_also_are() {
    assert_eq!(
        masked("Mert Aydın geldi; Seda Sayan'a, Kemal Sunal'ın oğlu.\n"),
        "[MASKED_PERSON_NAME] geldi; [MASKED_PERSON_NAME]'a, [MASKED_PERSON_NAME]'ın oğlu.\n"
    );
    // Given names that are also words need a known surname after them.
    let words = "Kuzey Kore, Ege Bölgesi, Bahar Kampanyası, Damla Sulama ve Tuna Nehri.";
    assert!(types_in(words).is_empty(), "{:?}", types_in(words));
}

/// Given names of the younger generations and common ones the first lists missed: a given name with
/// a surname, known or not; those that are also words ("Özgür", "Çağrı", "Derin") only with a known
/// surname.
#[test]
fn younger_given_names_and_the_words_some_of_them_are() {
    masks_as(&[
        (
            "Çağla Aydın geldi; Gökçe Şahin ve Oğuzhan Yazıcı aradı.",
            "[MASKED_PERSON_NAME] geldi; [MASKED_PERSON_NAME] ve [MASKED_PERSON_NAME] aradı.",
        ),
        (
            "Beyza Korkmaz,4540536920\nMuhammed Kaya|Serhat Demirel",
            "[MASKED_PERSON_NAME],4540536920\n[MASKED_PERSON_NAME]|[MASKED_PERSON_NAME]",
        ),
        (
            "Özgür Yılmaz ile Çağrı Kaya görüştü.",
            "[MASKED_PERSON_NAME] ile [MASKED_PERSON_NAME] görüştü.",
        ),
    ]);
    keeps(&[
        "Özgür Yazılım Derneği, Çağrı Merkezi, Derin Öğrenme, Hayat Sigorta, Buket Çiçekçilik.",
        "Simge Tasarım ve Nehir Kenarı projeleri; Veli Toplantısı yarın.",
    ]);
}

#[test]
fn european_names_and_addresses() {
    assert_eq!(
        masked("Herr Thomas Schmidt, Hauptstraße 5, 10115 Berlin"),
        "Herr [MASKED_PERSON_NAME], [MASKED_ADDRESS]"
    );
    assert_eq!(masked("Bahnhofstr. 12"), "[MASKED_ADDRESS]");
    assert_eq!(
        masked("Dhr. Jan de Vries, Keizersgracht 123\n"),
        "Dhr. [MASKED_PERSON_NAME], [MASKED_ADDRESS]\n"
    );
    assert_eq!(
        masked("Sayın Ursula von der Leyen geldi."),
        "Sayın [MASKED_PERSON_NAME] geldi."
    );
    assert_eq!(
        masked("siège 12 rue de la Paix, 75002 Paris\n"),
        "siège [MASKED_ADDRESS]\n"
    );
    assert_eq!(
        masked("He lives at 3 rue des Lilas."),
        "He lives at [MASKED_ADDRESS]."
    );
    assert_eq!(masked("Sede: 10 via Roma\n"), "Sede: [MASKED_ADDRESS]\n");
    // A lower-case street word needs a name after it; a particle needs one too.
    assert!(types_in("We sold 12 place settings and 3 route maps.").is_empty());
    assert_eq!(
        masked("Atatürk Cad. No 5 de oturuyor"),
        "[MASKED_ADDRESS] de oturuyor"
    );
    assert!(types_in("Die Straße ist gesperrt, der Weg auch.").is_empty());
    // "M." is Monsieur before a name, and nothing without one (or without a space after it).
    assert_eq!(
        masked("M. Jean Dupont habite à Lyon."),
        "M. [MASKED_PERSON_NAME] habite à Lyon."
    );
    assert!(types_in("M.Ö. 300 yılında, M. 1923 yılında").is_empty());
    // A middle initial between a given name and a surname is part of the name.
    assert_eq!(
        masked("John M. Smith signed."),
        "[MASKED_PERSON_NAME] signed."
    );
    assert_eq!(
        masked("Ayşe K. Yılmaz geldi."),
        "[MASKED_PERSON_NAME] geldi."
    );
}

#[test]
fn names_and_addresses() {
    assert_eq!(masked("Sayın Ayşe Yılmaz,"), "Sayın [MASKED_PERSON_NAME],");
    assert_eq!(
        masked("Ad Soyad: Mehmet Kaya\n"),
        "Ad Soyad: [MASKED_PERSON_NAME]\n"
    );
    assert_eq!(
        masked("Toplantıya Ahmet Demir katıldı."),
        "Toplantıya [MASKED_PERSON_NAME] katıldı."
    );
    // Common words that are also names stay unless a surname follows.
    assert!(types_in("Deniz kenarında Umut verici gelişmeler").is_empty());
    assert_eq!(
        masked("Adres: Atatürk Mah. Cumhuriyet Cad. No: 12 Kat: 3 Kadıköy/İstanbul\nTeşekkürler"),
        "Adres: [MASKED_ADDRESS]\nTeşekkürler"
    );
    assert_eq!(
        masked("Paket bugün Bağlarbaşı Mahallesi Gül Sokak No:5 Üsküdar adresine gidecek"),
        "Paket bugün [MASKED_ADDRESS] adresine gidecek"
    );
}

/// The forms and rules of the second wave (issue #42): values whose checksum holds but whose layout
/// does not are masked; the label decides the type; every form the catalogue claims.
#[test]
fn checksummed_values_fail_closed_and_every_catalogued_form_is_found() {
    masks_as(&[
        // A Turkish IBAN whose reserve digit is not 0; cards of issuers the table lacks.
        (
            "Hesap: TR520006170519786457841326",
            "Hesap: [MASKED_IBAN_TR]",
        ),
        ("Kart: 213100000000001", "Kart: [MASKED_CREDIT_CARD]"),
        (
            "3500 0000 0000 0009 ile ödendi",
            "[MASKED_CREDIT_CARD] ile ödendi",
        ),
        // The label decides the type.
        ("PESEL: 02122401358", "PESEL: [MASKED_NATIONAL_ID_PL]"),
        // VAT numbers of the prefixes added, and one written apart in lower case behind its keyword.
        (
            "VAT: CY10259033P, LV40003521600, XIGD001",
            "VAT: [MASKED_VAT_EU], [MASKED_VAT_EU], [MASKED_VAT_EU]",
        ),
        ("VAT: de 136 695 976", "VAT: [MASKED_VAT_EU]"),
        // MAC addresses in every form, also behind an address-like label.
        (
            "Hardware address: 00-1A-2B-3C-4D-5E",
            "Hardware address: [MASKED_MAC_ADDRESS]",
        ),
        ("MAC: aabb.ccdd.eeff", "MAC: [MASKED_MAC_ADDRESS]"),
        ("x cf-ea-a5-98-3d-33 y", "x [MASKED_MAC_ADDRESS] y"),
        // IMEI in its own groups, Swedish personnummer with '+' and in 12 digits, a phone's trunk 0
        // apart from its area code in parentheses.
        ("IMEI: 35-209900-176148-1", "IMEI: [MASKED_IMEI]"),
        (
            "personnummer: 811228+9874",
            "personnummer: [MASKED_PERSONAL_ID_SE]",
        ),
        (
            "personnummer: 198112289874",
            "personnummer: [MASKED_PERSONAL_ID_SE]",
        ),
        ("Tel: 0 (532) 1234567", "Tel: [MASKED_PHONE_TR]"),
        // Network addresses with their prefix length and zone, and 0.0.0.0.
        ("IP: 192.168.1.0/24.", "IP: [MASKED_IPV4]."),
        ("IP: fe80::1%eth0", "IP: [MASKED_IPV6]"),
        ("IP: 2001:db8::/32", "IP: [MASKED_IPV6]"),
        ("IP: 0.0.0.0", "IP: [MASKED_IPV4]"),
        // Lower-case letter-bearing ids.
        ("MBI: 1eg4-te5-mk73", "MBI: [MASKED_MBI_US]"),
        ("NINO: ab123456c", "NINO: [MASKED_NATIONAL_INSURANCE_UK]"),
        // A plate whose letters spell a keyword.
        ("Plaka: 54-GSM-65", "Plaka: [MASKED_LICENSE_PLATE_TR]"),
    ]);
    keeps(&[
        // A product code of a NINO's characters in groups of its own; a Spanish "de" before a number,
        // without a VAT keyword.
        "Ürün AB48-7989-A stokta.",
        "pedido de 136 695 976 unidades",
    ]);
    // Six pairs inside a longer run of them are no MAC address (its digits are a TCKN here).
    assert_eq!(
        types_in("Seri 96-96-42-60-71-91-91-0 bitti."),
        ["national_id_tr"]
    );
}
