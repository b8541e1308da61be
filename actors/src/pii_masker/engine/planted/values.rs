//! A valid value of each generated type, compact: check digits computed from the type's rule.

use super::rules::*;
use super::*;

/// A valid value of `ty`, compact (no separators, capitals): `None` for the types not generated here.
pub fn compact(ty: PiiType, rng: &mut Rng) -> Option<String> {
    Some(match ty {
        PiiType::NationalIdTr => super::super::synthetic::tckn(rng),
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
