//! Context keywords: stems that, found shortly before (or just after) a candidate, confirm a weak
//! type or anchor a label-only one. Matching is on folded text (Turkish-aware), at word starts, with
//! any suffix allowed (`kimliği`, `numarası`, `IBAN'ı`).

use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, AhoCorasickKind, MatchKind};

use super::text::fold;
use super::types::{PiiType, TypeSet};

/// (stem, types it supports), in their own lower-case spelling. Each stem is searched as written, in
/// Turkish upper case (i -> İ, ı -> I), title case, and reduced to ASCII (ASCII case-insensitively),
/// so `KİMLİĞİ`, `Kimliği` and `kimligi` all match.
const KEYWORDS: &[(&str, &[PiiType])] = {
    use PiiType::*;
    &[
        ("tc kimli", &[NationalIdTr]),
        ("t.c. kimli", &[NationalIdTr]),
        ("t.c kimli", &[NationalIdTr]),
        ("kimliği", &[NationalIdTr]),
        ("tckn", &[NationalIdTr]),
        ("kimlik no", &[NationalIdTr]),
        ("kimlik numara", &[NationalIdTr]),
        ("nüfus", &[NationalIdTr]),
        ("vatandaşlık", &[NationalIdTr]),
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
        ("iletişim", &[PhoneTr]),
        ("faks", &[PhoneTr]),
        ("fax", &[PhoneTr, PhoneIntl]),
        ("kart", &[CreditCard]),
        ("kredi kartı", &[CreditCard]),
        ("card", &[CreditCard]),
        ("visa", &[CreditCard]),
        ("mastercard", &[CreditCard]),
        ("amex", &[CreditCard]),
        ("phone", &[PhoneTr, PhoneIntl]),
        ("arayın", &[PhoneTr]),
        ("işyeri sicil", &[IsyeriSicilNo]),
        ("sgk sicil", &[IsyeriSicilNo]),
        ("sgk işyeri", &[IsyeriSicilNo]),
        ("işyeri no", &[IsyeriSicilNo]),
        ("sgk no", &[IsyeriSicilNo]),
        ("emekli sicil", &[EmeklilikNo]),
        ("emeklilik sicil", &[EmeklilikNo]),
        ("emekli sandığı", &[EmeklilikNo]),
        ("tahsis no", &[EmeklilikNo]),
        ("tahsis numara", &[EmeklilikNo]),
        ("bağ-kur", &[BagkurNo]),
        ("bağkur", &[BagkurNo]),
        ("bağ kur", &[BagkurNo]),
        ("bk sicil", &[BagkurNo]),
        ("4/b", &[BagkurNo]),
        ("plaka", &[LicensePlateTr]),
        ("plate", &[LicensePlateTr]),
        ("pasaport", &[PassportTr]),
        ("passport", &[PassportTr, PassportUs]),
        ("seri no", &[IdCardSerialTr, Imei]),
        ("kimlik seri", &[IdCardSerialTr]),
        ("cüzdan no", &[IdCardSerialTr]),
        ("seri numara", &[IdCardSerialTr, Imei]),
        ("sürücü belge", &[DriverLicenseTr]),
        ("ehliyet", &[DriverLicenseTr]),
        ("steuer", &[TaxIdDe]),
        ("idnr", &[TaxIdDe]),
        ("identifikationsnummer", &[TaxIdDe]),
        ("sécurité sociale", &[SocialSecurityFr]),
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
        ("şasi", &[Vin]),
        ("chassis", &[Vin]),
        ("vehicle identification", &[Vin]),
        ("bic", &[BicSwift]),
        ("swift", &[BicSwift]),
        ("wallet", &[CryptoWallet]),
        ("bitcoin", &[CryptoWallet]),
        ("btc", &[CryptoWallet]),
        ("ethereum", &[CryptoWallet]),
        ("eth", &[CryptoWallet]),
        ("doğum tarih", &[DateOfBirth]),
        ("doğum", &[DateOfBirth]),
        ("d.t.", &[DateOfBirth]),
        ("doğ. tar", &[DateOfBirth]),
        ("dob", &[DateOfBirth]),
        ("date of birth", &[DateOfBirth]),
        ("birth", &[DateOfBirth]),
        ("born", &[DateOfBirth]),
        ("geburtsdatum", &[DateOfBirth]),
        ("geb.", &[DateOfBirth]),
        ("né le", &[DateOfBirth]),
        ("née le", &[DateOfBirth]),
        ("date de naissance", &[DateOfBirth]),
        ("fecha de nacimiento", &[DateOfBirth]),
        ("data di nascita", &[DateOfBirth]),
        ("geboortedatum", &[DateOfBirth]),
        ("data urodzenia", &[DateOfBirth]),
    ]
};

struct Table {
    automaton: AhoCorasick,
    /// Per pattern: the types it supports and whether it is a short stem (needs a clean word end).
    patterns: Vec<(TypeSet, bool)>,
}

fn turkish_upper(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            'i' => 'İ',
            'ı' => 'I',
            other => other.to_uppercase().next().unwrap_or(other),
        })
        .collect()
}

fn title(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) => turkish_upper(&first.to_string()) + chars.as_str(),
        None => String::new(),
    }
}

/// The spellings searched for one stem.
fn variants(stem: &str) -> Vec<Vec<u8>> {
    let every_word_title: Vec<String> = stem.split(' ').map(title).collect();
    let mut spellings = vec![
        stem.as_bytes().to_vec(),
        turkish_upper(stem).into_bytes(),
        every_word_title.join(" ").into_bytes(),
        title(stem).into_bytes(),
        fold(stem),
    ];
    spellings.sort();
    spellings.dedup();
    spellings
}

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut spellings = Vec::new();
        let mut patterns = Vec::new();
        for (stem, types) in KEYWORDS {
            let set = types.iter().fold(TypeSet::default(), |set, t| set.with(*t));
            let short = fold(stem).len() <= 4;
            for spelling in variants(stem) {
                spellings.push(spelling);
                patterns.push((set, short));
            }
        }
        let automaton = AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::LeftmostLongest)
            .kind(Some(AhoCorasickKind::DFA))
            .build(&spellings)
            .expect("the constant keyword list builds an automaton");
        Table {
            automaton,
            patterns,
        }
    })
}

fn is_letter_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte >= 0x80
}

/// Every context keyword of a document, found in one pass, for cheap look-ups by position.
pub struct KeywordIndex {
    /// (start, end, types), sorted by start.
    hits: Vec<(usize, usize, TypeSet)>,
}

impl KeywordIndex {
    pub fn build(text: &[u8]) -> KeywordIndex {
        let table = table();
        let mut hits = Vec::new();
        for hit in table.automaton.find_iter(text) {
            let (start, end) = (hit.start(), hit.end());
            // A stem starts a word; '_' before it means it is part of a placeholder.
            if start > 0 && (is_letter_byte(text[start - 1]) || text[start - 1] == b'_') {
                continue;
            }
            let (types, short) = table.patterns[hit.pattern().as_usize()];
            if short {
                if let Some(&next) = text.get(end) {
                    if is_letter_byte(next) {
                        // "tel" may go on as "telefon"/"telefonu"; other short stems ("nir", "ein",
                        // "aba", "cep") must end the word.
                        let is_tel = text[start..end].eq_ignore_ascii_case(b"tel");
                        let rest = &text[end..text.len().min(end + 4)];
                        if !(is_tel && rest.eq_ignore_ascii_case(b"efon")) {
                            continue;
                        }
                    }
                }
            }
            hits.push((start, end, types));
        }
        KeywordIndex { hits }
    }

    /// Types of the keywords that start within `from..to` (the reference the moving look-up is tested
    /// against).
    #[cfg(test)]
    pub fn types_in(&self, from: usize, to: usize) -> TypeSet {
        let first = self.hits.partition_point(|hit| hit.0 < from);
        self.types_from(first, to)
    }

    /// [`Self::types_in`] for a scan that moves forward: `cursor` remembers where the last look-up
    /// started, so a window that moved right costs a few steps instead of a binary search over every
    /// keyword of the text (a window that moved left falls back to the search).
    pub fn types_in_moving(&self, cursor: &mut usize, from: usize, to: usize) -> TypeSet {
        let mut first = (*cursor).min(self.hits.len());
        if first > 0 && self.hits[first - 1].0 >= from {
            first = self.hits[..first].partition_point(|hit| hit.0 < from);
        } else {
            while first < self.hits.len() && self.hits[first].0 < from {
                first += 1;
            }
        }
        *cursor = first;
        self.types_from(first, to)
    }

    fn types_from(&self, first: usize, to: usize) -> TypeSet {
        self.hits[first..]
            .iter()
            .take_while(|hit| hit.0 < to)
            .fold(TypeSet::default(), |set, hit| TypeSet(set.0 | hit.2 .0))
    }
}

/// Types supported by keywords in `text[from..to]` (a one-off look-up; the scanner uses the index).
#[cfg(test)]
pub fn types_near(text: &[u8], from: usize, to: usize) -> TypeSet {
    KeywordIndex::build(&text[from..to]).types_in(0, to - from)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn near(text: &str) -> TypeSet {
        types_near(text.as_bytes(), 0, text.len())
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
    fn moving_look_ups_agree_with_searches_in_any_order() {
        let text =
            "TC kimlik no 1, vergi no 2, tel 3, IBAN 4, e-posta 5, doğum tarihi 6, pasaport 7"
                .repeat(3);
        let index = KeywordIndex::build(text.as_bytes());
        let mut cursor = 0;
        let mut windows: Vec<(usize, usize)> =
            (0..text.len()).step_by(7).map(|at| (at, at + 20)).collect();
        windows.extend([
            (5, 30),
            (0, 10),
            (200, 260),
            (3, 4),
            (text.len(), text.len() + 5),
        ]);
        for (from, to) in windows {
            assert_eq!(
                index.types_in_moving(&mut cursor, from, to),
                index.types_in(from, to),
                "{from}..{to}"
            );
        }
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
