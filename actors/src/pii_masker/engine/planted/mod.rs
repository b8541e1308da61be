//! Generated personal values of the catalogue's checksummed and structured types, in every layout the
//! catalogue claims for them, with their labels in Turkish, English and the type's own language; and a
//! multilingual corpus of business sentences (Turkish, English, German, Spanish, Polish, Italian,
//! Dutch, French) with such values planted among look-alike numbers (order numbers, amounts, dates,
//! product codes). The engine's property tests draw their values here, and `cargo bench --bench
//! corpus` prints mask recall, typed recall and precision on the corpus.
//!
//! Every value is built from its type's rule (check digits computed, not searched for), except the
//! EU VAT numbers of the 28 prefixes, drawn in each country's shape until its check holds; a test holds
//! every generated value to the engine's own validators and the vectors of python-stdnum.

pub mod corpus;
mod rules;
pub mod world;

use super::synthetic::Rng;
use super::PiiType;
use crate::pii_masker::detectors::{eu, generic};
use rules::*;

/// One generated value: as written in the text, and its layout's name.
#[derive(Clone, Debug)]
pub struct Generated {
    pub written: String,
    pub layout: &'static str,
}

/// The types generated here.
pub const GENERATED: [PiiType; 37] = [
    PiiType::NationalIdTr,
    PiiType::TaxIdTr,
    PiiType::PhoneTr,
    PiiType::IbanTr,
    PiiType::Iban,
    PiiType::CreditCard,
    PiiType::Imei,
    PiiType::NpiUs,
    PiiType::AbaRoutingUs,
    PiiType::TaxIdDe,
    PiiType::SocialSecurityFr,
    PiiType::NationalIdEs,
    PiiType::ForeignerIdEs,
    PiiType::FiscalCodeIt,
    PiiType::CitizenIdNl,
    PiiType::NationalIdPl,
    PiiType::NationalInsuranceUk,
    PiiType::NhsNumberUk,
    PiiType::NationalIdBe,
    PiiType::PersonalIdSe,
    PiiType::VatEu,
    PiiType::MbiUs,
    PiiType::Vin,
    PiiType::Ipv4,
    PiiType::Ipv6,
    PiiType::MacAddress,
    PiiType::Email,
    PiiType::SsnUs,
    PiiType::LicensePlateTr,
    PiiType::CryptoWallet,
    PiiType::PhoneIntl,
    PiiType::ItinUs,
    PiiType::EinUs,
    PiiType::IsyeriSicilNo,
    PiiType::PassportTr,
    PiiType::BicSwift,
    PiiType::Mrz,
];

/// Whether the catalogue says the type, written in `layout`, is found only near a keyword or a label
/// of its own (tier B by a checksum of one digit, or tier C; a Belgian number or a plate written
/// without its separators).
pub fn needs_label(ty: PiiType, layout: &str) -> bool {
    matches!(
        ty,
        PiiType::TaxIdTr
            | PiiType::Imei
            | PiiType::NpiUs
            | PiiType::AbaRoutingUs
            | PiiType::CitizenIdNl
            | PiiType::NhsNumberUk
            | PiiType::EinUs
            | PiiType::BicSwift
    ) || (layout == "plain" && matches!(ty, PiiType::NationalIdBe | PiiType::LicensePlateTr))
}

/// Labels of the type: Turkish, English and the type's own language.
pub fn labels(ty: PiiType) -> [&'static str; 3] {
    match ty {
        PiiType::NationalIdTr => ["T.C. Kimlik No:", "Turkish ID (TCKN):", "TCKN:"],
        PiiType::TaxIdTr => ["Vergi Kimlik No:", "Tax number:", "VKN:"],
        PiiType::PhoneTr => ["Cep telefonu:", "Phone:", "Tel:"],
        PiiType::IbanTr => ["Hesap (IBAN):", "Account IBAN:", "IBAN:"],
        PiiType::Iban => ["Yurt dışı IBAN:", "Bank account (IBAN):", "IBAN:"],
        PiiType::CreditCard => ["Kredi kartı no:", "Card number:", "Kart:"],
        PiiType::Imei => ["Cihaz IMEI numarası:", "Device IMEI:", "IMEI:"],
        PiiType::NpiUs => ["NPI numarası:", "National Provider Identifier:", "NPI:"],
        PiiType::AbaRoutingUs => ["ABA yönlendirme no:", "Routing number:", "ABA:"],
        PiiType::TaxIdDe => ["Alman Steuer-ID:", "German tax ID (IdNr):", "Steuer-IdNr.:"],
        PiiType::SocialSecurityFr => [
            "Fransız NIR:",
            "French social security number (INSEE):",
            "Numéro de sécurité sociale :",
        ],
        PiiType::NationalIdEs => ["DNI numarası:", "Spanish ID (DNI):", "DNI:"],
        PiiType::ForeignerIdEs => ["NIE numarası:", "Spanish foreigner ID (NIE):", "NIE:"],
        PiiType::FiscalCodeIt => [
            "İtalyan codice fiscale:",
            "Italian fiscal code (codice fiscale):",
            "Codice fiscale:",
        ],
        PiiType::CitizenIdNl => [
            "BSN numarası:",
            "Dutch citizen number (BSN):",
            "Burgerservicenummer:",
        ],
        PiiType::NationalIdPl => ["PESEL numarası:", "Polish PESEL:", "Numer PESEL:"],
        PiiType::NationalInsuranceUk => [
            "NINO numarası:",
            "National Insurance number:",
            "NI number (NINO):",
        ],
        PiiType::NhsNumberUk => ["NHS numarası:", "NHS number:", "NHS No:"],
        PiiType::NationalIdBe => [
            "Belçika NISS:",
            "Belgian national register (NISS):",
            "Rijksregisternummer:",
        ],
        PiiType::PersonalIdSe => [
            "İsveç personnummer:",
            "Swedish personnummer:",
            "Personnummer:",
        ],
        PiiType::VatEu => ["KDV (VAT) no:", "VAT number:", "USt-IdNr.:"],
        PiiType::MbiUs => [
            "Medicare MBI numarası:",
            "Medicare Beneficiary Identifier (MBI):",
            "MBI:",
        ],
        PiiType::Vin => ["Şasi No:", "VIN:", "Vehicle identification number:"],
        PiiType::Ipv4 | PiiType::Ipv6 => ["IP adresi:", "IP address:", "IP:"],
        PiiType::MacAddress => ["MAC adresi:", "Hardware address:", "MAC:"],
        PiiType::Email => ["E-posta:", "Email:", "Mail:"],
        PiiType::SsnUs => ["SSN numarası:", "Social Security Number:", "SSN:"],
        PiiType::LicensePlateTr => ["Plaka:", "Plate:", "Araç plakası:"],
        PiiType::CryptoWallet => ["Bitcoin cüzdanı:", "BTC wallet:", "Wallet:"],
        PiiType::PhoneIntl => ["Yurt dışı tel:", "Phone:", "Tel:"],
        PiiType::ItinUs => ["ITIN numarası:", "ITIN:", "Taxpayer ID (ITIN):"],
        PiiType::EinUs => ["EIN numarası:", "Employer Identification Number:", "EIN:"],
        PiiType::IsyeriSicilNo => [
            "SGK İşyeri Sicil No:",
            "SGK workplace number (işyeri sicil):",
            "İşyeri sicil numarası:",
        ],
        PiiType::PassportTr => ["Pasaport No:", "Passport number:", "Pasaport numarası:"],
        PiiType::BicSwift => ["Banka BIC kodu:", "SWIFT code:", "BIC:"],
        PiiType::Mrz => ["Pasaport MRZ:", "Machine-readable zone:", "MRZ:"],
        _ => ["", "", ""],
    }
}

/// A valid value of `ty`, compact (no separators, capitals): `None` for the types not generated here.
pub fn compact(ty: PiiType, rng: &mut Rng) -> Option<String> {
    Some(match ty {
        PiiType::NationalIdTr => super::synthetic::tckn(rng),
        PiiType::TaxIdTr => {
            let body = rng.digits(9);
            let mut sum = 0;
            for (p, d) in digits(&body).into_iter().enumerate() {
                let i = 9 - p as u32;
                let t = (d + i) % 10;
                if t != 0 {
                    let c = (t * (1 << i)) % 9;
                    sum += if c == 0 { 9 } else { c };
                }
            }
            let mut out = body;
            push_digit(&mut out, (10 - sum % 10) % 10);
            out
        }
        PiiType::PhoneTr => {
            let prefix = rng.pick(&[
                "530", "532", "533", "535", "538", "541", "542", "544", "505", "555", "507",
            ]);
            format!("{prefix}{}{}", 1 + rng.below(9), rng.digits(6))
        }
        PiiType::IbanTr => iban_of("TR", &format!("{}0{}", rng.digits(5), rng.digits(16))),
        PiiType::Iban => {
            let (country, length) = *rng_pick(rng, IBAN_COUNTRIES);
            iban_of(country, &rng.digits(length - 4))
        }
        PiiType::CreditCard => {
            let (prefix, length) = *rng_pick(
                rng,
                &[
                    ("4", 16),
                    ("51", 16),
                    ("55", 16),
                    ("2221", 16),
                    ("2720", 16),
                    ("34", 15),
                    ("37", 15),
                    ("6011", 16),
                    ("65", 16),
                    ("3528", 16),
                    ("3589", 16),
                    ("9792", 16),
                    ("62", 16),
                ],
            );
            let mut body = format!("{prefix}{}", rng.digits(length - 1 - prefix.len()));
            let check = luhn_digit(&body);
            push_digit(&mut body, check);
            body
        }
        PiiType::Imei => {
            let mut body = format!("35{}", rng.digits(12));
            let check = luhn_digit(&body);
            push_digit(&mut body, check);
            body
        }
        PiiType::NpiUs => {
            let body = format!("{}{}", 1 + rng.below(2), rng.digits(8));
            let check = luhn_digit(&format!("80840{body}"));
            let mut out = body;
            push_digit(&mut out, check);
            out
        }
        PiiType::AbaRoutingUs => {
            let prefix = rng.pick(&[
                "01", "02", "05", "11", "12", "21", "26", "32", "61", "67", "72", "80",
            ]);
            let body = format!("{prefix}{}", rng.digits(6));
            let d = digits(&body);
            let sum: u32 = d
                .iter()
                .zip([3, 7, 1, 3, 7, 1, 3, 7])
                .map(|(a, w)| a * w)
                .sum();
            let mut out = body;
            push_digit(&mut out, (10 - sum % 10) % 10);
            out
        }
        PiiType::TaxIdDe => loop {
            // Ten digits, the first not 0, one of them twice and the others at most once; then the
            // ISO 7064 MOD 11,10 check digit.
            let mut pool: Vec<u32> = (0..10).collect();
            let mut first = Vec::new();
            while first.len() < 9 {
                let k = rng.below(pool.len() as u64) as usize;
                first.push(pool.remove(k));
            }
            let twice = first[rng.below(9) as usize];
            first.insert(rng.below(10) as usize, twice);
            if first[0] == 0 {
                continue;
            }
            let mut product = 10;
            for &d in &first {
                let mut sum = (d + product) % 10;
                if sum == 0 {
                    sum = 10;
                }
                product = (sum * 2) % 11;
            }
            let mut out: String = first.iter().map(|&d| char::from(b'0' + d as u8)).collect();
            push_digit(&mut out, (11 - product) % 10);
            break out;
        },
        PiiType::SocialSecurityFr => {
            let department = format!("{:02}", 1 + rng.below(95));
            let body = format!(
                "{}{:02}{:02}{department}{:03}{:03}",
                1 + rng.below(2),
                rng.below(100),
                1 + rng.below(12),
                1 + rng.below(990),
                1 + rng.below(999)
            );
            let key = 97 - mod97(&body);
            format!("{body}{key:02}")
        }
        PiiType::NationalIdEs => {
            let number = rng.digits(8);
            let index = residue(&number, 23) as usize;
            format!("{number}{}", char::from(eu::DNI_LETTERS[index]))
        }
        PiiType::ForeignerIdEs => {
            let first = rng.below(3);
            let number = rng.digits(7);
            let index = residue(&format!("{first}{number}"), 23) as usize;
            format!(
                "{}{number}{}",
                char::from(b"XYZ"[first as usize]),
                char::from(eu::DNI_LETTERS[index])
            )
        }
        PiiType::FiscalCodeIt => {
            let mut code = String::new();
            for _ in 0..6 {
                code.push(letter(rng, CAPITALS));
            }
            code.push_str(&format!("{:02}", rng.below(100)));
            code.push(letter(rng, b"ABCDEHLMPRST"));
            code.push_str(&format!("{:02}", 1 + rng.below(28) + 40 * rng.below(2)));
            code.push(letter(rng, CAPITALS));
            code.push_str(&format!("{:03}", 1 + rng.below(999)));
            const ODD: [u32; 36] = [
                1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20,
                11, 3, 6, 8, 12, 14, 16, 10, 22, 25, 24, 23,
            ];
            let value = |c: u8| {
                if c.is_ascii_digit() {
                    u32::from(c - b'0')
                } else {
                    u32::from(c - b'A') + 10
                }
            };
            let sum: u32 = code
                .bytes()
                .enumerate()
                .map(|(i, c)| {
                    if i % 2 == 0 {
                        ODD[value(c) as usize]
                    } else if c.is_ascii_digit() {
                        value(c)
                    } else {
                        value(c) - 10
                    }
                })
                .sum();
            code.push(char::from(b'A' + (sum % 26) as u8));
            code
        }
        PiiType::CitizenIdNl => loop {
            let body = rng.digits(8);
            let sum: u32 = digits(&body)
                .iter()
                .zip((2..=9).rev())
                .map(|(d, w)| d * w)
                .sum();
            let check = sum % 11;
            if check < 10 && !body.bytes().all(|c| c == b'0') {
                let mut out = body;
                push_digit(&mut out, check);
                break out;
            }
        },
        PiiType::NationalIdPl => {
            let year = rng.below(100);
            let (month, offset) = (1 + rng.below(12), if rng.below(2) == 0 { 0 } else { 20 });
            let body = format!(
                "{year:02}{:02}{:02}{}",
                month + offset,
                1 + rng.below(28),
                rng.digits(4)
            );
            let sum: u32 = digits(&body)
                .iter()
                .zip([1, 3, 7, 9, 1, 3, 7, 9, 1, 3])
                .map(|(d, w)| d * w)
                .sum();
            let mut out = body;
            push_digit(&mut out, (10 - sum % 10) % 10);
            out
        }
        PiiType::NationalInsuranceUk => loop {
            let a = letter(rng, b"ABCEGHJKLMNOPRSTWXYZ");
            let b = letter(rng, b"ABCEGHJKLMNPRSTWXYZ");
            let prefix = format!("{a}{b}");
            if !["BG", "GB", "KN", "NK", "NT", "TN", "ZZ"].contains(&prefix.as_str()) {
                break format!("{prefix}{}{}", rng.digits(6), letter(rng, b"ABCD"));
            }
        },
        PiiType::NhsNumberUk => loop {
            let body = rng.digits(9);
            let sum: u32 = digits(&body)
                .iter()
                .zip((2..=10).rev())
                .map(|(d, w)| d * w)
                .sum();
            let check = (11 - sum % 11) % 11;
            if check != 10 {
                let mut out = body;
                push_digit(&mut out, check);
                break out;
            }
        },
        PiiType::NationalIdBe => {
            let body = format!("{}{:03}", yymmdd(rng), 1 + rng.below(997));
            let check = 97 - mod97(&body);
            format!("{body}{check:02}")
        }
        PiiType::PersonalIdSe => {
            let mut body = format!("{}{}", yymmdd(rng), rng.digits(3));
            let check = luhn_digit(&body);
            push_digit(&mut body, check);
            body
        }
        PiiType::VatEu => vat_number(rng),
        PiiType::MbiUs => {
            const L: &[u8] = b"ACDEFGHJKMNPQRTUVWXY";
            const AN: &[u8] = b"0123456789ACDEFGHJKMNPQRTUVWXY";
            let mut out = String::new();
            push_digit(&mut out, 1 + rng.below(9) as u32);
            for class in [
                L,
                AN,
                b"0123456789",
                L,
                AN,
                b"0123456789",
                L,
                L,
                b"0123456789",
                b"0123456789",
            ] {
                out.push(letter(rng, class));
            }
            out
        }
        PiiType::Vin => loop {
            const CHARS: &[u8] = b"0123456789ABCDEFGHJKLMNPRSTUVWXYZ";
            // The last four characters are digits (ISO 3779, for any maker of more than 500
            // vehicles a year).
            let mut vin: Vec<u8> = (0..17)
                .map(|k| CHARS[rng.below(if k >= 13 { 10 } else { CHARS.len() as u64 }) as usize])
                .collect();
            let value = |c: u8| match c {
                b'0'..=b'9' => u32::from(c - b'0'),
                b'A'..=b'H' => u32::from(c - b'A') + 1,
                b'J'..=b'N' => u32::from(c - b'J') + 1,
                b'P' => 7,
                b'R'..=b'Z' => u32::from(c - b'R') + 9,
                _ => 0,
            };
            const W: [u32; 17] = [8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2];
            let sum: u32 = vin.iter().zip(W).map(|(&c, w)| value(c) * w).sum();
            vin[8] = if sum % 11 == 10 {
                b'X'
            } else {
                b'0' + (sum % 11) as u8
            };
            let vin = String::from_utf8(vin).unwrap_or_default();
            if generic::vin(vin.as_bytes()) == Some(true) {
                break vin;
            }
        },
        PiiType::Ipv4 => format!(
            "{}.{}.{}.{}",
            1 + rng.below(223),
            rng.below(256),
            rng.below(256),
            1 + rng.below(254)
        ),
        PiiType::Ipv6 => format!(
            "2001:db8:{:x}:{:x}::{:x}",
            rng.below(65536),
            rng.below(65536),
            1 + rng.below(65535)
        ),
        PiiType::MacAddress => (0..6)
            .map(|_| format!("{:02X}", rng.below(256)))
            .collect::<Vec<_>>()
            .join(":"),
        PiiType::Email => format!(
            "{}.{}{}@{}",
            rng.pick(&["ayse", "mehmet", "anna", "jan", "marie", "luca", "sofia", "pieter"]),
            rng.pick(&["yilmaz", "kaya", "nowak", "rossi", "dupont", "jansen", "garcia", "smith"]),
            rng.below(100),
            rng.pick(&[
                "ornek.com.tr",
                "example.de",
                "firma.pl",
                "azienda.it",
                "bedrijf.nl",
                "societe.fr",
                "empresa.es",
                "company.co.uk"
            ])
        ),
        PiiType::SsnUs => format!(
            "{:03}{:02}{:04}",
            1 + rng.below(665),
            1 + rng.below(99),
            1 + rng.below(9999)
        ),
        PiiType::LicensePlateTr => {
            let province = format!("{:02}", 1 + rng.below(81));
            const PLATE: &[u8] = b"ABCDEFGHIJKLMNOPRSTUVYZ";
            match rng.below(3) {
                0 => format!("{province}{}{}", letter(rng, PLATE), 1000 + rng.below(9000)),
                1 => format!(
                    "{province}{}{}{}",
                    letter(rng, PLATE),
                    letter(rng, PLATE),
                    100 + rng.below(900)
                ),
                _ => format!(
                    "{province}{}{}{}{}",
                    letter(rng, PLATE),
                    letter(rng, PLATE),
                    letter(rng, PLATE),
                    10 + rng.below(90)
                ),
            }
        }
        PiiType::CryptoWallet => {
            if rng.below(2) == 0 {
                base58_address(rng)
            } else {
                bech32_address(rng)
            }
        }
        PiiType::PhoneIntl => {
            let (code, national) = *rng_pick(
                rng,
                &[
                    ("44", "20"),
                    ("49", "30"),
                    ("33", "1"),
                    ("1", "212"),
                    ("39", "06"),
                    ("31", "20"),
                    ("34", "91"),
                ],
            );
            format!("+{code}{national}{}", rng.digits(8))
        }
        PiiType::ItinUs => {
            let group = *rng_pick(rng, &[50, 57, 65, 70, 78, 88, 90, 92, 94, 99]);
            format!("9{:02}{group:02}{:04}", rng.below(100), rng.below(10_000))
        }
        PiiType::EinUs => {
            let prefix = rng.pick(&[
                "01", "04", "12", "20", "35", "46", "54", "61", "72", "83", "91", "98",
            ]);
            format!("{prefix}{}", rng.digits(7))
        }
        PiiType::IsyeriSicilNo => format!(
            "{}{}{}{}{:03}{}{}{:03}",
            1 + rng.below(2),
            rng.digits(4),
            rng.digits(4),
            rng.digits(7),
            1 + rng.below(81),
            rng.digits(2),
            rng.digits(2),
            rng.below(1000)
        ),
        PiiType::PassportTr => format!("U{}", rng.digits(8)),
        PiiType::BicSwift => {
            let mut code = String::new();
            for _ in 0..4 {
                code.push(letter(rng, CAPITALS));
            }
            code.push_str(rng.pick(&[
                "TR", "DE", "FR", "GB", "NL", "IT", "ES", "PL", "AT", "RO", "BG", "US",
            ]));
            code.push(letter(rng, CAPITALS));
            code.push(letter(rng, b"ABCDEFGHJKLMNPQRSTUVWXYZ23456789"));
            if rng.below(2) == 0 {
                code.push_str("XXX");
            }
            code
        }
        PiiType::Mrz => mrz_td3_line2(rng),
        _ => return None,
    })
}

pub use super::checksum::checksum_holds;

/// The layouts of `ty` the catalogue claims, applied to its compact value: each layout's name and the
/// value as written.
pub fn layouts(ty: PiiType, value: &str) -> Vec<(&'static str, String)> {
    let groups = |sizes: &[usize], sep: &str| {
        let mut out = Vec::new();
        let mut at = 0;
        for &size in sizes {
            if at >= value.len() {
                break;
            }
            let end = (at + size).min(value.len());
            out.push(&value[at..end]);
            at = end;
        }
        if at < value.len() {
            out.push(&value[at..]);
        }
        out.join(sep)
    };
    let fours = |sep: &str| groups(&[4; 9], sep);
    let mut out = vec![("plain", value.to_string())];
    match ty {
        PiiType::NationalIdTr => out.push(("3-3-3-2 spaced", groups(&[3, 3, 3, 2], " "))),
        PiiType::TaxIdTr => out.push(("3-3-4 spaced", groups(&[3, 3, 4], " "))),
        PiiType::PhoneTr => {
            out.clear();
            let (a, b, c, d) = (&value[..3], &value[3..6], &value[6..8], &value[8..]);
            out.push(("+90 spaced", format!("+90 {a} {b} {c} {d}")));
            out.push(("+90 parentheses", format!("+90 ({a}) {b} {c} {d}")));
            out.push(("+90 dashed", format!("+90-{a}-{b}-{c}-{d}")));
            out.push(("+90 plain", format!("+90{value}")));
            out.push(("0090", format!("0090 {a} {b} {c} {d}")));
            out.push(("trunk 0 spaced", format!("0{a} {b} {c} {d}")));
            out.push(("trunk 0 plain", format!("0{value}")));
            out.push(("trunk 0 parentheses", format!("0 ({a}) {b}-{c}-{d}")));
            out.push((
                "trunk 0, area in parentheses",
                format!("(0{a}) {b} {c} {d}"),
            ));
            out.push(("trunk 0, one run", format!("0 ({a}) {b}{c}{d}")));
        }
        PiiType::IbanTr | PiiType::Iban => {
            out.push(("groups of 4", fours(" ")));
            out.push(("lower case", value.to_ascii_lowercase()));
        }
        PiiType::CreditCard => {
            if value.len() == 15 {
                out.push(("4-6-5 spaced", groups(&[4, 6, 5], " ")));
            } else {
                out.push(("4-4-4-4 spaced", fours(" ")));
                out.push(("4-4-4-4 dashed", fours("-")));
            }
        }
        PiiType::Imei => {
            out.push(("2-6-6-1 dashed", groups(&[2, 6, 6, 1], "-")));
            out.push(("8-6-1 spaced", groups(&[8, 6, 1], " ")));
        }
        PiiType::TaxIdDe => out.push(("2-3-3-3 spaced", groups(&[2, 3, 3, 3], " "))),
        PiiType::SocialSecurityFr => {
            out.push(("1-2-2-2-3-3-2 spaced", groups(&[1, 2, 2, 2, 3, 3, 2], " ")))
        }
        PiiType::NationalIdEs | PiiType::ForeignerIdEs => {
            out.push((
                "hyphen before the letter",
                format!("{}-{}", &value[..8], &value[8..]),
            ));
        }
        PiiType::NationalInsuranceUk => {
            out.push(("2-2-2-2-1 spaced", groups(&[2, 2, 2, 2, 1], " ")));
            out.push(("lower case", value.to_ascii_lowercase()));
        }
        PiiType::NhsNumberUk => out.push(("3-3-4 spaced", groups(&[3, 3, 4], " "))),
        PiiType::NationalIdBe => {
            let v = value;
            out.push((
                "dotted",
                format!(
                    "{}.{}.{}-{}.{}",
                    &v[..2],
                    &v[2..4],
                    &v[4..6],
                    &v[6..9],
                    &v[9..]
                ),
            ));
        }
        PiiType::PersonalIdSe => {
            out.clear();
            out.push(("YYMMDD-NNNC", format!("{}-{}", &value[..6], &value[6..])));
            out.push((
                "YYYYMMDD-NNNC",
                format!("19{}-{}", &value[..6], &value[6..]),
            ));
            out.push(("YYMMDD+NNNC", format!("{}+{}", &value[..6], &value[6..])));
        }
        PiiType::VatEu => out.push(("lower case", value.to_ascii_lowercase())),
        PiiType::MbiUs => {
            out.push(("4-3-4 dashed", groups(&[4, 3, 4], "-")));
            out.push(("lower case", groups(&[4, 3, 4], "-").to_ascii_lowercase()));
        }
        PiiType::MacAddress => {
            out.push(("hyphens", value.replace(':', "-")));
            out.push(("lower case", value.to_ascii_lowercase()));
            let hex: String = value.replace(':', "").to_ascii_lowercase();
            out.push((
                "Cisco dots",
                format!("{}.{}.{}", &hex[..4], &hex[4..8], &hex[8..]),
            ));
        }
        PiiType::Ipv4 => out.push(("with a prefix length", format!("{value}/24"))),
        PiiType::Ipv6 => out.push(("with a prefix length", format!("{value}/64"))),
        PiiType::SsnUs | PiiType::ItinUs => {
            out.clear();
            out.push(("3-2-4 dashed", groups(&[3, 2, 4], "-")));
        }
        PiiType::Mrz => {
            out.clear();
            let surname = format!("P<{}YILMAZ<<AYSE<NUR", &value[10..13]);
            out.push(("TD3 line 2", value.to_string()));
            out.push(("TD3 two lines", format!("{surname:<<44}\n{value}")));
        }
        PiiType::EinUs => {
            out.clear();
            out.push(("2-7 dashed", groups(&[2, 7], "-")));
        }
        PiiType::IsyeriSicilNo => {
            out.push(("grouped", groups(&[1, 4, 2, 2, 7, 3, 2, 2, 3], " ")));
        }
        PiiType::PhoneIntl => {
            out.clear();
            let (number, rest) = value.split_at(value.len() - 8);
            out.push((
                "+ spaced",
                format!("{number} {} {}", &rest[..4], &rest[4..]),
            ));
            out.push(("+ one run", value.to_string()));
        }
        PiiType::LicensePlateTr => {
            let letters_at = 2;
            let digits_at = value[letters_at..]
                .find(|c: char| c.is_ascii_digit())
                .map_or(value.len(), |p| p + letters_at);
            let (p, l, n) = (&value[..2], &value[2..digits_at], &value[digits_at..]);
            out.push(("spaced", format!("{p} {l} {n}")));
            out.push(("dashed", format!("{p}-{l}-{n}")));
        }
        _ => {}
    }
    // Plain forms of the types that need a distinctive form are not theirs.
    if matches!(
        ty,
        PiiType::SsnUs | PiiType::PersonalIdSe | PiiType::PhoneTr
    ) {
        out.retain(|(name, _)| *name != "plain");
    }
    out
}

/// `value` with one digit changed (`None` when it has none).
pub fn with_one_digit_changed(value: &str, rng: &mut Rng) -> Option<String> {
    let positions: Vec<usize> = value
        .bytes()
        .enumerate()
        .filter(|(_, c)| c.is_ascii_digit())
        .map(|(i, _)| i)
        .collect();
    if positions.is_empty() {
        return None;
    }
    let at = positions[rng.below(positions.len() as u64) as usize];
    let mut bytes = value.as_bytes().to_vec();
    bytes[at] = b'0' + ((bytes[at] - b'0') + 1 + rng.below(9) as u8) % 10;
    String::from_utf8(bytes).ok()
}

/// A generated value of `ty` in one of its layouts (`None` for the types not generated here).
pub fn generate(ty: PiiType, rng: &mut Rng) -> Option<Generated> {
    let value = compact(ty, rng)?;
    let forms = layouts(ty, &value);
    let (layout, written) = forms[rng.below(forms.len() as u64) as usize].clone();
    Some(Generated { written, layout })
}
