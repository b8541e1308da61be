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
mod layouts;
pub mod prose;
mod rules;
mod values;
pub mod world;

use super::synthetic::Rng;
use super::PiiType;
use crate::pii_masker::detectors::{eu, generic};

pub use layouts::layouts;
pub use values::compact;

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

pub use super::checksum::checksum_holds;

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
