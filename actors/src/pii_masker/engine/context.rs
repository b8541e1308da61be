//! Context keywords: stems that, found shortly before (or just after) a candidate, confirm a weak
//! type or anchor a label-only one. Matching is on folded text (Turkish-aware), at word starts, with
//! any suffix allowed (`kimliği`, `numarası`, `IBAN'ı`).

use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};

use super::text::fold_into;
use super::types::{PiiType, TypeSet};

/// (stem, types it supports). Stems are written folded: lower case ASCII, Turkish letters reduced.
const KEYWORDS: &[(&str, &[PiiType])] = {
    use PiiType::*;
    &[
        ("tc kimli", &[NationalIdTr]),
        ("t.c. kimli", &[NationalIdTr]),
        ("t.c kimli", &[NationalIdTr]),
        ("kimligi", &[NationalIdTr]),
        ("tckn", &[NationalIdTr]),
        ("kimlik no", &[NationalIdTr]),
        ("kimlik numara", &[NationalIdTr]),
        ("nufus", &[NationalIdTr]),
        ("vatandaslik", &[NationalIdTr]),
        ("vkn", &[TaxIdTr]),
        ("vergi", &[TaxIdTr]),
        ("v.k.n", &[TaxIdTr]),
        ("v.d.", &[TaxIdTr]),
        ("tax id", &[TaxIdTr, EinUs]),
        ("tax number", &[TaxIdTr]),
        ("tel", &[PhoneTr, PhoneIntl]),
        ("cep", &[PhoneTr]),
        ("gsm", &[PhoneTr, PhoneIntl]),
        ("mobil", &[PhoneTr, PhoneIntl]),
        ("iletisim", &[PhoneTr]),
        ("faks", &[PhoneTr]),
        ("fax", &[PhoneTr, PhoneIntl]),
        ("kart", &[CreditCard]),
        ("kredi karti", &[CreditCard]),
        ("card", &[CreditCard]),
        ("visa", &[CreditCard]),
        ("mastercard", &[CreditCard]),
        ("amex", &[CreditCard]),
        ("phone", &[PhoneTr, PhoneIntl]),
        ("arayin", &[PhoneTr]),
        ("isyeri sicil", &[IsyeriSicilNo]),
        ("sgk sicil", &[IsyeriSicilNo]),
        ("sgk isyeri", &[IsyeriSicilNo]),
        ("isyeri no", &[IsyeriSicilNo]),
        ("sgk no", &[IsyeriSicilNo]),
        ("emekli sicil", &[EmeklilikNo]),
        ("emeklilik sicil", &[EmeklilikNo]),
        ("emekli sandigi", &[EmeklilikNo]),
        ("tahsis no", &[EmeklilikNo]),
        ("tahsis numara", &[EmeklilikNo]),
        ("bag-kur", &[BagkurNo]),
        ("bagkur", &[BagkurNo]),
        ("bag kur", &[BagkurNo]),
        ("bk sicil", &[BagkurNo]),
        ("4/b", &[BagkurNo]),
        ("plaka", &[LicensePlateTr]),
        ("plate", &[LicensePlateTr]),
        ("pasaport", &[PassportTr]),
        ("passport", &[PassportTr, PassportUs]),
        ("seri no", &[IdCardSerialTr, Imei]),
        ("kimlik seri", &[IdCardSerialTr]),
        ("cuzdan no", &[IdCardSerialTr]),
        ("seri numara", &[IdCardSerialTr, Imei]),
        ("surucu belge", &[DriverLicenseTr]),
        ("ehliyet", &[DriverLicenseTr]),
        ("steuer", &[TaxIdDe]),
        ("idnr", &[TaxIdDe]),
        ("identifikationsnummer", &[TaxIdDe]),
        ("securite sociale", &[SocialSecurityFr]),
        ("insee", &[SocialSecurityFr]),
        ("nir", &[SocialSecurityFr]),
        ("dni", &[NationalIdEs]),
        ("nie", &[ForeignerIdEs]),
        ("codice fiscale", &[FiscalCodeIt]),
        ("bsn", &[CitizenIdNl]),
        ("burgerservicenummer", &[CitizenIdNl]),
        ("sofinummer", &[CitizenIdNl]),
        ("pesel", &[NationalIdPl]),
        ("national insurance", &[NationalInsuranceUk]),
        ("nino", &[NationalInsuranceUk]),
        ("nhs", &[NhsNumberUk]),
        ("rijksregister", &[NationalIdBe]),
        ("registre national", &[NationalIdBe]),
        ("niss", &[NationalIdBe]),
        ("personnummer", &[PersonalIdSe]),
        ("samordningsnummer", &[PersonalIdSe]),
        ("vat", &[VatEu]),
        ("kdv", &[VatEu]),
        ("ust-id", &[VatEu]),
        ("ssn", &[SsnUs]),
        ("social security", &[SsnUs]),
        ("itin", &[ItinUs]),
        ("taxpayer", &[ItinUs]),
        ("ein", &[EinUs]),
        ("employer identification", &[EinUs]),
        ("fein", &[EinUs]),
        ("medicare", &[MbiUs]),
        ("mbi", &[MbiUs]),
        ("npi", &[NpiUs]),
        ("national provider", &[NpiUs]),
        ("routing", &[AbaRoutingUs]),
        ("aba", &[AbaRoutingUs]),
        ("rtn", &[AbaRoutingUs]),
        ("driver license", &[DriverLicenseUs]),
        ("driver's license", &[DriverLicenseUs]),
        ("drivers license", &[DriverLicenseUs]),
        ("driving licen", &[DriverLicenseUs]),
        ("dl no", &[DriverLicenseUs]),
        ("dl#", &[DriverLicenseUs]),
        ("license no", &[DriverLicenseUs]),
        ("licence no", &[DriverLicenseUs]),
        ("imei", &[Imei]),
        ("vin", &[Vin]),
        ("sasi", &[Vin]),
        ("chassis", &[Vin]),
        ("vehicle identification", &[Vin]),
        ("bic", &[BicSwift]),
        ("swift", &[BicSwift]),
        ("wallet", &[CryptoWallet]),
        ("bitcoin", &[CryptoWallet]),
        ("btc", &[CryptoWallet]),
        ("ethereum", &[CryptoWallet]),
        ("eth", &[CryptoWallet]),
        ("dogum tarih", &[DateOfBirth]),
        ("dogum", &[DateOfBirth]),
        ("d.t.", &[DateOfBirth]),
        ("dog. tar", &[DateOfBirth]),
        ("dob", &[DateOfBirth]),
        ("date of birth", &[DateOfBirth]),
        ("birth", &[DateOfBirth]),
        ("born", &[DateOfBirth]),
        ("geburtsdatum", &[DateOfBirth]),
        ("geb.", &[DateOfBirth]),
        ("ne le", &[DateOfBirth]),
        ("nee le", &[DateOfBirth]),
        ("date de naissance", &[DateOfBirth]),
        ("fecha de nacimiento", &[DateOfBirth]),
        ("data di nascita", &[DateOfBirth]),
        ("geboortedatum", &[DateOfBirth]),
        ("data urodzenia", &[DateOfBirth]),
    ]
};

struct Table {
    automaton: AhoCorasick,
    types: Vec<TypeSet>,
}

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        let automaton = AhoCorasickBuilder::new()
            .match_kind(MatchKind::Standard)
            .build(KEYWORDS.iter().map(|(stem, _)| stem.as_bytes()))
            .expect("the constant keyword list builds an automaton");
        let types = KEYWORDS
            .iter()
            .map(|(_, types)| types.iter().fold(TypeSet::default(), |set, t| set.with(*t)))
            .collect();
        Table { automaton, types }
    })
}

/// Placeholders such as `[MASKED_PHONE_TR]` name a type; they must never act as context.
fn blank_mask_tokens(folded: &mut [u8]) {
    let mut i = 0;
    while let Some(offset) = folded[i..].windows(8).position(|w| w == b"[masked_") {
        let start = i + offset;
        let end = folded[start..].iter().position(|&c| c == b']').map_or(folded.len(), |p| start + p + 1);
        folded[start..end].fill(b' ');
        i = end;
        if i + 8 > folded.len() {
            break;
        }
    }
}

/// Types supported by keywords in `text[from..to]`. `scratch` is reused between calls.
pub fn types_near(text: &[u8], from: usize, to: usize, scratch: &mut Vec<u8>) -> TypeSet {
    scratch.clear();
    fold_into(&text[from..to], scratch);
    blank_mask_tokens(scratch);
    let table = table();
    let mut found = TypeSet::default();
    for hit in table.automaton.find_overlapping_iter(scratch.as_slice()) {
        let at = hit.start();
        // Stems start a word.
        if at > 0 && scratch[at - 1].is_ascii_alphanumeric() {
            continue;
        }
        // Short ASCII stems ("tel", "nir", "ein", "aba"...) must not be the start of another word
        // ("telif", "nirvana", "einer", "abartı"): allow only a suffix after an apostrophe, a
        // digit, or Turkish inflection for the long stems.
        let end = hit.end();
        let stem_len = end - at;
        if stem_len <= 4 {
            if let Some(&next) = scratch.get(end) {
                if next.is_ascii_alphabetic() && !matches!(&scratch[at..end], b"tel" | b"cep") {
                    continue;
                }
                if next.is_ascii_alphabetic() && matches!(&scratch[at..end], b"tel" | b"cep") {
                    // "telefon", "tel." and "cep telefonu" are fine; "telif", "teleskop" are not.
                    let rest = &scratch[end..scratch.len().min(end + 4)];
                    if !rest.starts_with(b"efon") {
                        continue;
                    }
                }
            }
        }
        found = TypeSet(found.0 | table.types[hit.pattern().as_usize()].0);
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn near(text: &str) -> TypeSet {
        let mut scratch = Vec::new();
        types_near(text.as_bytes(), 0, text.len(), &mut scratch)
    }

    #[test]
    fn stems_match_with_turkish_suffixes_and_case() {
        assert!(near("VERGİ NUMARASI:").contains(PiiType::TaxIdTr));
        assert!(near("T.C. Kimliği").contains(PiiType::NationalIdTr));
        assert!(near("Telefonu").contains(PiiType::PhoneTr));
        assert!(near("Cep tel.").contains(PiiType::PhoneTr));
        assert!(near("Doğum Tarihi").contains(PiiType::DateOfBirth));
        assert!(near("BAĞ-KUR sicil").contains(PiiType::BagkurNo));
        assert!(near("Emekli Sicil No").contains(PiiType::EmeklilikNo));
    }

    #[test]
    fn short_stems_need_a_word_boundary() {
        assert!(!near("telif hakkı").contains(PiiType::PhoneTr));
        assert!(!near("nirvana").contains(PiiType::SocialSecurityFr));
        assert!(!near("einer der").contains(PiiType::EinUs));
        assert!(!near("otel").contains(PiiType::PhoneTr));
        assert!(near("EIN: ").contains(PiiType::EinUs));
        assert!(!near("[MASKED_PHONE_INTL] x").contains(PiiType::PhoneTr));
    }
}
