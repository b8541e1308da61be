//! Prepared policies, the scanner's shortcuts against the exhaustive scan, the corpus, crossing spans.

use super::*;

#[test]
fn prepared_known_values_mask_exactly_like_unprepared_ones() {
    let policy = Policy::default();
    let mut known = Known::default();
    known.extend([
        (PiiType::PersonName, "Ayşe Yılmaz".to_string()),
        (PiiType::TaxIdTr, " 4540536920 ".to_string()),
        (PiiType::Email, "a@b".to_string()), // too short to propagate
        (PiiType::PhoneIntl, "+44 20 7946 0958".to_string()), // starts with no letter or digit
        (PiiType::PersonName, "Ayşe Yılmaz Demir".to_string()), // longer, same first word
    ]);
    let texts = [
        "Ayşe Yılmaz imzaladı; vergi 4540536920. Ayşe Yılmazlar değil, Mehmet Kaya ve Mehmet Kaya.",
        "Başka bir parça: Ayşe Yılmaz",
        "",
        "a@b",
        "Arayan: +44 20 7946 0958, xAyşe Yılmaz, Ayşe Yılmaz Demir'in dosyası; 4540536920x",
    ];
    let mut prepared = known.clone();
    prepared.prepare();
    for text in texts {
        let plain = mask_known(text, &policy, &known).expect("mask");
        let fast = mask_known(text, &policy, &prepared).expect("mask");
        assert_eq!(plain.text, fast.text, "{text}");
        assert_eq!(plain.findings, fast.findings, "{text}");
    }
    assert!(mask_known(texts[1], &policy, &prepared)
        .expect("mask")
        .text
        .contains("[MASKED_PERSON_NAME]"));
    // A value added after `prepare` is still masked: the stale matcher is not used.
    prepared.push(PiiType::PersonName, "Zeynep Demir".to_string());
    assert!(mask_known("Zeynep Demir geldi", &policy, &prepared)
        .expect("mask")
        .text
        .starts_with("[MASKED_PERSON_NAME]"));
}

#[test]
fn a_scanned_text_masks_like_a_fresh_scan() {
    let text = synthetic::text(30_000, true, 7);
    let policy = Policy::default();
    let none = Known::default();
    let (findings, summary, scanned) = summarize_scanned(&text, &policy, &none);
    assert_eq!((findings.clone(), summary), summarize(&text, &policy));
    // As a document does: what the text revealed becomes known values.
    let mut more = Known::default();
    more.extend(
        findings
            .iter()
            .map(|f| (f.pii_type, text[f.start..f.end].to_string())),
    );
    more.prepare();
    let fresh = mask_known(&text, &policy, &more).expect("mask");
    let reused = mask_scanned(&text, &policy, &more, scanned).expect("mask");
    assert_eq!(fresh.text, reused.text);
    assert_eq!(fresh.findings, reused.findings);
    // Candidates of another text are not used.
    let (_, _, scanned) = summarize_scanned(&text, &policy, &none);
    let other = "TC kimlik no 10000000146 olan başvuru";
    assert_eq!(
        mask_scanned(other, &policy, &none, scanned)
            .expect("mask")
            .text,
        "TC kimlik no [MASKED_NATIONAL_ID_TR] olan başvuru"
    );
}

#[test]
fn many_found_names_are_masked_everywhere_in_a_long_text() {
    // Enough names over enough text that propagation looks them up by first word at word starts
    // (80 KB) or with an automaton (200 KB) instead of searching for each.
    let firsts = [
        "Halenur", "Umutcan", "Lezize", "Şenkal", "Gülizar", "Nurettin",
    ];
    let lasts = [
        "Bilir",
        "Çetin",
        "Korutürk",
        "Karadeniz",
        "Öztoprak",
        "Ilgaz",
    ];
    let names: Vec<String> = firsts
        .iter()
        .flat_map(|f| lasts.iter().map(move |l| format!("{f} {l}")))
        .collect();
    for filler in [80_000, 200_000] {
        let mut text = String::new();
        for name in &names {
            text.push_str(&format!("Ad Soyad: {name}\n"));
        }
        while text.len() < filler {
            text.push_str("Rapor satırı hazırlandı ve arşive kaldırıldı.\n");
        }
        for name in &names {
            text.push_str(&format!(
                "Görüşmeye {name} katıldı; x{} bir ürün kodudur.\n",
                name.replace(' ', "")
            ));
        }
        let result = mask(&text, &Policy::default()).expect("mask");
        let placeholders = result.text.matches("[MASKED_PERSON_NAME]").count();
        assert_eq!(
            placeholders,
            2 * names.len(),
            "labelled and mentioned ({filler})"
        );
        for name in &names {
            assert!(
                result
                    .text
                    .contains(&format!("x{} bir", name.replace(' ', ""))),
                "{name}: kept inside a word"
            );
            assert!(
                !result.text.contains(&format!("Görüşmeye {name}")),
                "{name}"
            );
        }
    }
}

/// A number behind an SGK label, in a phone number's form, that an address behind its label runs into
/// (the label takes the rest of its line, up to 200 bytes, and the cut falls inside the number's first
/// group): the number wins whole over the address it crosses, which rests on its label alone and keeps
/// its words before the number. (The address used to win by its length, leaving the number's tail.)
/// Of the number's two readings the one with the nearer keyword wins (see
/// `Scanner::rank_by_nearest_keyword`): the SGK label, not the phone number's form.
#[test]
fn a_number_crossed_by_a_longer_address_wins_over_it() {
    let text = format!("Adres: {}SGK sicil no 0532 123 45 67", "x ".repeat(92));
    let policy = Policy::default();
    let found: Vec<(&str, &str)> = detect(&text, &policy)
        .iter()
        .map(|f| (f.pii_type.name(), &text[f.start..f.end]))
        .collect();
    assert_eq!(found.len(), 2, "{found:?}");
    assert_eq!(found[0].0, "address");
    assert!(found[0].1.ends_with("x SGK sicil no"), "{found:?}");
    assert_eq!(found[1], ("emeklilik_no", "0532 123 45 67"));
    let masked = mask(&text, &policy).expect("mask").text;
    assert_eq!(masked, "Adres: [MASKED_ADDRESS] [MASKED_EMEKLILIK_NO]");
}

/// The text files of the corpus (by extension, in every folder that holds some), each read as raw text
/// (invalid UTF-8 replaced), with its path.
fn corpus_texts() -> Vec<(String, String)> {
    let corpus = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus");
    let mut texts = Vec::new();
    for folder in ["tr", "txt", "csv", "html", "eml", "xml", "broken"] {
        let Ok(entries) = std::fs::read_dir(corpus.join(folder)) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let textual = path.extension().is_some_and(|e| {
                ["txt", "csv", "html", "eml", "xml", "md"].contains(&e.to_string_lossy().as_ref())
            });
            if textual {
                if let Ok(bytes) = std::fs::read(&path) {
                    let name = path.to_string_lossy().into_owned();
                    texts.push((name, String::from_utf8_lossy(&bytes).into_owned()));
                }
            }
        }
    }
    texts
}

/// The spans inside a chain that validated whole are skipped, and the colons whose last word ends no
/// label passed, only when that could not change the result: the same findings as a scanner that
/// takes no shortcut, over synthetic text, the text files of the corpus and labelled lines, for the
/// default policy and for tenants who switch the validated types off or ask for more confidence than
/// they carry.
#[test]
fn the_scanners_shortcuts_change_no_finding() {
    let mut texts = vec![synthetic::text(60_000, true, 21)];
    texts.extend(corpus_texts().into_iter().map(|(_, text)| text));
    assert!(texts.len() > 5, "the corpus is read");
    texts.extend(
        [
            "IBAN TR59 1787 4021 8990 5947 2221 71 ve kart 4111 1111 1111 1111, tel 0532 123 45 67",
            "Kart 5500 0000 0000 0004 / 4111-1111-1111-1111; FR 1 84 12 76 451 089 46; 100 000 001 46",
            "GB82 WEST 1234 5698 7654 32, DE89 3704 0044 0532 0130 00, TR33 0006 1005 1978 6457 8413 26",
            // Colons whose label is looked up only when its last word ends some label.
            "Ad Soyad: Ayşe Yılmaz\nAd Soyad\u{a0}: Mehmet Kaya\nAd Soyad \u{a0}: Emre Demir\n\
             Adı\u{a0}Soyadı: Elif Şahin; Müşteri Adı : Zeynep Kaya; Ürün Adı: Kalem Seti\n\
             E-mail Address: Atatürk Cad. No: 5; Ad\u{307}dress line: 12 Main Street, Leeds\n\
             Address (home): 10 Downing Street; Teslimat Adresi: Bağdat Cad. No: 12 Kadıköy\n\
             Fatura No: FTR2024000123 Tarih: 26.07.2024 Tutar: 76.860,75 TL; 12:30; ISO 9001:2015\n\
             Hazırlayan:\tAhmet Çelik | İmza: Fatma Öztürk > Yetkili: Mustafa Arslan",
            // A card number inside an IBAN: the card shows only where IBANs are switched off.
            "Hesap TR64 4111 1011 1111 1112 1234 56 kapatıldı.",
        ]
        .map(String::from),
    );
    let policies = [
        Policy::default(),
        Policy {
            enabled: TypeSet::all().without(PiiType::IbanTr),
            ..Policy::default()
        },
        Policy {
            enabled: TypeSet::all()
                .without(PiiType::CreditCard)
                .without(PiiType::Iban),
            ..Policy::default()
        },
        Policy {
            enabled: TypeSet::all()
                .without(PiiType::PhoneTr)
                .without(PiiType::PhoneIntl),
            ..Policy::default()
        },
        Policy {
            min_confidence: 0.9,
            ..Policy::default()
        },
        Policy {
            min_confidence: 0.96,
            ..Policy::default()
        },
    ];
    let card_inside = texts.last().expect("a text").clone();
    assert_eq!(types_in(&card_inside), ["iban_tr"]);
    assert_eq!(types_with(&card_inside, &policies[1]), ["credit_card"]);
    for policy in &policies {
        for text in &texts {
            assert_eq!(
                detect(text, policy),
                detect_skipping_nothing(text, policy),
                "{:?}",
                &text[..text.len().min(80)]
            );
        }
    }
}

/// Every text file of the corpus, read as raw text (an e-invoice's XML, an e-mail with its headers and
/// attachments, HTML, CSV), and twice in a row: masking it is never refused. A refusal there is a value
/// the first scan missed and the re-scan of the masked text found (or a placeholder read as context).
#[test]
fn raw_corpus_texts_mask_without_a_refusal() {
    let raw_texts = corpus_texts();
    for (name, raw) in &raw_texts {
        for text in [raw.clone(), raw.repeat(2)] {
            if let Err(error) = mask(&text, &Policy::default()) {
                panic!("{name}: {error}");
            }
        }
    }
    let texts = raw_texts.len();
    assert!(texts > 10, "the corpus is read: {texts} files");
}

/// Lines where the first scan used to miss a value that the re-scan of the masked text then found, so
/// that masking them was refused: each is masked now, its values all found at once.
#[test]
fn values_next_to_grouped_numbers_and_placeholders_are_found_in_the_first_scan() {
    let cases: &[(&str, &[&str])] = &[
        // The phone's chain took the "H" of the name into its groups, and the scan went on inside it.
        (
            "Tel: 0532 123 45 67 Hüseyin Yılmaz",
            &["phone_tr", "person_name"],
        ),
        // The address took the IBAN's last group as its house number, overlapped it and lost whole.
        (
            "IBAN TR64 4111 1011 1111 1112 1234 56 Hürriyet Mah. Akasya Sok. No:5",
            &["iban_tr", "address"],
        ),
        // The name behind the title took the IBAN's "TR" as its last word, overlapped it and lost whole.
        (
            "Sayın Ayşe Yılmaz TR59 1787 4021 8990 5947 2221 71",
            &["person_name", "iban_tr"],
        ),
        // Two IBANs in a row: the first one's chain stopped at twelve groups, inside the second, and
        // the scan went on after it.
        (
            "IBAN: TR64 4111 1011 1111 1112 1234 56 TR59 1787 4021 8990 5947 2221 71",
            &["iban_tr"],
        ),
        // A titled name running into the address after it: the two overlapped, and the loser was lost
        // whole; it keeps its words outside the winner now.
        (
            "Sayın Ayşe Yılmaz Hürriyet Mah. Akasya Sok. No:5",
            &["person_name", "address"],
        ),
        // An e-invoice's XML as text: the placeholder before "</cbc:StreetName>" read as an address label.
        (
            "<cbc:ID schemeID=\"VKN\">4540536920</cbc:ID>\n<cbc:StreetName>Hürriyet Mah. Akasya Sok.</cbc:StreetName>",
            &["tax_id_tr", "address"],
        ),
    ];
    for (text, types) in cases {
        let masked =
            mask(text, &Policy::default()).unwrap_or_else(|error| panic!("{text}: {error}"));
        let mut found: Vec<&str> = masked.summary.keys().map(String::as_str).collect();
        found.sort_unstable();
        let mut expected = types.to_vec();
        expected.sort_unstable();
        assert_eq!(found, expected, "{text} -> {}", masked.text);
        // Two values in each line.
        assert_eq!(masked.findings.len(), 2, "{text} -> {}", masked.text);
        for word in [
            "Hüseyin",
            "Hürriyet",
            "Akasya",
            "4540536920",
            "Ayşe",
            "TR59",
            "TR64",
        ] {
            assert!(!masked.text.contains(word), "{text} -> {}", masked.text);
        }
    }
    // A placeholder is no label, nor part of one, also when the label's window starts inside it.
    for text in [
        "[MASKED_ADDRESS].</cbc:StreetName>",
        "[MASKED_ADDRESS]. tarafından  No:111 D:20",
    ] {
        assert_eq!(detect(text, &Policy::default()), vec![], "{text}");
    }
    // A word "address" of the text itself still makes a label.
    assert_eq!(
        types_in("E-mail address: Hürriyet Mah. Akasya Sok. No:5"),
        vec!["address"]
    );
}

/// The three kinds of false refusal left by the last round, each masked now.
#[test]
fn crossing_spans_and_shrunken_distances_are_no_refusals() {
    let policy = Policy::default();
    // Two grouped phone numbers, one space apart, make one chain: the label made a phone number of
    // "45 67 0212 345 67", which beat the two numbers it cuts through by its length.
    for text in [
        "Tel: 0532 123 45 67 0212 345 67 89",
        "Tel: 0532 123 45 67 0532 123 45 67",
    ] {
        let masked = mask(text, &policy).unwrap_or_else(|error| panic!("{text}: {error}"));
        assert_eq!(
            masked.text, "Tel: [MASKED_PHONE_TR] [MASKED_PHONE_TR]",
            "{text}"
        );
    }
    // A value passing a check across two others (a TCKN, an SGK workplace number) or across a slash
    // (a card number), and a PESEL across a date and a phone number: each value is masked whole.
    for (text, expected) in [
        (
            "İletişim: 0540 395 80 59 0212 345 67 89",
            "İletişim: [MASKED_PHONE_TR] [MASKED_PHONE_TR]",
        ),
        (
            "DE89 3704 0044 0532 0130 00 1000 0212 345 67 89",
            "[MASKED_IBAN] 1000 [MASKED_PHONE_TR]",
        ),
        (
            "0212 345 67 89/3741/0212 345 67 89",
            "[MASKED_PHONE_TR]/3741/[MASKED_PHONE_TR]",
        ),
        (
            "Doğum Tarihi: 12.03.1985 0212 345 67 89",
            "Doğum Tarihi: [MASKED_DATE_OF_BIRTH] [MASKED_PHONE_TR]",
        ),
        // An address behind its label ends with its field, not its line: the label after it stays.
        (
            "Adres: Hürriyet Mah. Akasya Sok. No:5 Kadıköy İstanbul; Doğum Tarihi: 12.03.1985",
            "Adres: [MASKED_ADDRESS]; Doğum Tarihi: [MASKED_DATE_OF_BIRTH]",
        ),
        (
            "Adres: Hürriyet Mah. Akasya Sok. No:5 | Tel: 0212 345 67 89",
            "Adres: [MASKED_ADDRESS] | Tel: [MASKED_PHONE_TR]",
        ),
    ] {
        let masked = mask(text, &policy).unwrap_or_else(|error| panic!("{text}: {error}"));
        assert_eq!(masked.text, expected, "{text}");
    }
    // An address behind its label runs to 200 bytes and ends inside the IBAN after it: the IBAN is
    // found whole (the scan goes on inside the address) and wins over the address it crosses.
    let text = "Adres: Hürriyet Mahallesi Akasya Sokak No:5 Daire 3 Kadıköy İstanbul, teslimat kapıya, \
                zil çalışmıyor, kargo firması aranmalı, yan bina, kapıcıya bırakılabilir, IBAN TR59 \
                1787 4021 8990 5947 2221 71";
    let masked = mask(text, &policy).unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(masked.text, "Adres: [MASKED_ADDRESS] [MASKED_IBAN_TR]");
    // The e-mail's placeholder is shorter than the address: "Vergi" comes within 24 bytes of the order
    // number (whose digits pass the VKN check) in the masked text only. The re-scan finds it there, in
    // the text between placeholders, and it is masked in a second round.
    for email in ["ayse.yilmaz@example.com", "ayse.yilmaz12@example.com"] {
        let text = format!("Sipariş SIP-1234567890 {email} Vergi No: 4540536920");
        let masked = mask(&text, &policy).unwrap_or_else(|error| panic!("{text}: {error}"));
        assert_eq!(
            masked.text,
            "Sipariş SIP-[MASKED_TAX_ID_TR] [MASKED_EMAIL] Vergi No: [MASKED_TAX_ID_TR]"
        );
        assert_eq!(masked.summary.get("tax_id_tr"), Some(&2));
        assert_eq!(
            &text[masked.findings[0].start..masked.findings[0].end],
            "1234567890"
        );
        assert!(detect(&masked.text, &policy).is_empty());
    }
}

/// A text's own bracketed "[MASKED_...]" that is no placeholder hides nothing.
#[test]
fn only_placeholders_are_mask_tokens() {
    assert_eq!(types_in("[MASKED_10000000146]"), vec!["national_id_tr"]);
    assert_eq!(types_in("[MASKED_FOO 10000000146]"), vec!["national_id_tr"]);
    // The numbered and hash operators' tokens are mask tokens; a number dressed as one is not.
    for token in [
        "[MASKED_PHONE_TR_12]",
        "[MASKED_NATIONAL_INSURANCE_UK_999999]",
        "[PHONE_TR_90532a234567]",
        "[CREDIT_CARD_41111111111f]",
    ] {
        assert!(types_in(&format!("Tel: {token}")).is_empty(), "{token}");
    }
    for disguised in [
        "[PHONE_TR_905321234567]",
        "[MASKED_NATIONAL_ID_TR_10000000146]",
        "[SHOE_SIZE_10000000146]",
    ] {
        assert!(
            !types_in(&format!("Kimlik no, tel: {disguised}")).is_empty(),
            "{disguised}"
        );
    }
}
