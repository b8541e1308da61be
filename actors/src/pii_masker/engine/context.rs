//! Context keywords: stems that, found shortly before (or just after) a candidate, confirm a weak
//! type or anchor a label-only one. Matching is on folded text (Turkish-aware), at word starts, with
//! any suffix allowed (`kimliği`, `numarası`, `IBAN'ı`).

use std::sync::OnceLock;

use super::automaton::Automaton;

use super::text::{fold, is_word_byte};
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
        ("tél", &[PhoneIntl]),
        ("téléphone", &[PhoneIntl]),
        ("móvil", &[PhoneIntl]),
        ("cell", &[PhoneIntl]),
        ("cellulare", &[PhoneIntl]),
        ("handy", &[PhoneIntl]),
        ("mobiel", &[PhoneIntl]),
        // Phone labels and phrases of the EU/EEA languages, Turkish and English ("Tfn", "Puh.",
        // "Τηλ.", "Call ... for details", "Ring ... för mer information").
        ("telephone", &[PhoneTr, PhoneIntl]),
        ("telefoon", &[PhoneTr, PhoneIntl]),
        ("teléfono", &[PhoneTr, PhoneIntl]),
        ("telefono", &[PhoneTr, PhoneIntl]),
        ("telefone", &[PhoneTr, PhoneIntl]),
        ("telefón", &[PhoneTr, PhoneIntl]),
        ("telemóvel", &[PhoneTr, PhoneIntl]),
        ("telemovel", &[PhoneTr, PhoneIntl]),
        ("tfn", &[PhoneTr, PhoneIntl]),
        ("tlf", &[PhoneTr, PhoneIntl]),
        ("puh", &[PhoneTr, PhoneIntl]),
        ("puhelin", &[PhoneTr, PhoneIntl]),
        ("matkapuhelin", &[PhoneTr, PhoneIntl]),
        ("tālrun", &[PhoneTr, PhoneIntl]),
        ("tālr", &[PhoneTr, PhoneIntl]),
        ("mobitel", &[PhoneTr, PhoneIntl]),
        ("mobiil", &[PhoneTr, PhoneIntl]),
        ("mob", &[PhoneTr, PhoneIntl]),
        ("movil", &[PhoneTr, PhoneIntl]),
        ("portable", &[PhoneTr, PhoneIntl]),
        ("cellular", &[PhoneTr, PhoneIntl]),
        ("rufnummer", &[PhoneTr, PhoneIntl]),
        ("durchwahl", &[PhoneTr, PhoneIntl]),
        ("erreichbar", &[PhoneTr, PhoneIntl]),
        ("komórk", &[PhoneTr, PhoneIntl]),
        ("tel. kom", &[PhoneTr, PhoneIntl]),
        ("call", &[PhoneTr, PhoneIntl]),
        ("dial", &[PhoneTr, PhoneIntl]),
        ("contact", &[PhoneTr, PhoneIntl]),
        ("kontakt", &[PhoneTr, PhoneIntl]),
        ("whatsapp", &[PhoneTr, PhoneIntl]),
        ("ring", &[PhoneTr, PhoneIntl]),
        ("bel", &[PhoneTr, PhoneIntl]),
        ("ligue", &[PhoneTr, PhoneIntl]),
        ("llame", &[PhoneTr, PhoneIntl]),
        ("llamar", &[PhoneTr, PhoneIntl]),
        ("chiama", &[PhoneTr, PhoneIntl]),
        ("appel", &[PhoneTr, PhoneIntl]),
        ("dzwoń", &[PhoneTr, PhoneIntl]),
        ("zadzwoń", &[PhoneTr, PhoneIntl]),
        ("volejte", &[PhoneTr, PhoneIntl]),
        ("volajte", &[PhoneTr, PhoneIntl]),
        ("soita", &[PhoneTr, PhoneIntl]),
        ("hívja", &[PhoneTr, PhoneIntl]),
        ("sunați", &[PhoneTr, PhoneIntl]),
        ("τηλ", &[PhoneTr, PhoneIntl]),
        ("τηλέφωνο", &[PhoneTr, PhoneIntl]),
        ("κινητό", &[PhoneTr, PhoneIntl]),
        ("тел", &[PhoneTr, PhoneIntl]),
        ("телефон", &[PhoneTr, PhoneIntl]),
        ("мобилен", &[PhoneTr, PhoneIntl]),
        ("sími", &[PhoneTr, PhoneIntl]),
        ("farsími", &[PhoneTr, PhoneIntl]),
        ("símanúmer", &[PhoneTr, PhoneIntl]),
        ("kart", &[CreditCard]),
        ("kredi kartı", &[CreditCard]),
        ("card", &[CreditCard]),
        ("visa", &[CreditCard]),
        ("mastercard", &[CreditCard]),
        ("amex", &[CreditCard]),
        ("maestro", &[CreditCard]),
        ("diners", &[CreditCard]),
        ("discover", &[CreditCard]),
        ("jcb", &[CreditCard]),
        ("unionpay", &[CreditCard]),
        ("troy", &[CreditCard]),
        ("karte", &[CreditCard]),
        ("carte", &[CreditCard]),
        ("carta", &[CreditCard]),
        ("tarjeta", &[CreditCard]),
        ("karta", &[CreditCard]),
        ("phone", &[PhoneTr, PhoneIntl]),
        ("arayın", &[PhoneTr]),
        ("işyeri sicil", &[IsyeriSicilNo]),
        // "SGK sicil no" and "SGK no" name a workplace's 26 digits or a person's legacy registry
        // number (6 to 13 digits): the value's length decides.
        ("sgk sicil", &[IsyeriSicilNo, EmeklilikNo]),
        ("sgk işyeri", &[IsyeriSicilNo]),
        ("işyeri no", &[IsyeriSicilNo]),
        ("sgk no", &[IsyeriSicilNo, EmeklilikNo]),
        // Legacy SSK insured-person numbers (before 2008) have no slot of their own: retirement registry.
        ("ssk sicil", &[EmeklilikNo]),
        ("ssk no", &[EmeklilikNo]),
        ("sigorta sicil", &[EmeklilikNo]),
        ("sigortalı sicil", &[EmeklilikNo]),
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
        ("provider identifier", &[NpiUs]),
        ("provider id", &[NpiUs]),
        ("provider number", &[NpiUs]),
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
    automaton: Automaton,
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

/// `word` with its first letter in Turkish upper case (i -> İ, ı -> I).
pub(super) fn title(word: &str) -> String {
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

/// Every spelling of every stem, with its types and whether it is a short stem.
fn spellings() -> (Vec<Vec<u8>>, Vec<(TypeSet, bool)>) {
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
    (spellings, patterns)
}

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        let (spellings, patterns) = spellings();
        let automaton =
            Automaton::new(&spellings).expect("the constant keyword list builds an automaton");
        Table {
            automaton,
            patterns,
        }
    })
}

/// The context keywords of a document, found on demand: only the stretches of text that some
/// candidate's window asks about are searched, each byte at most once while the windows move forward
/// (a document whose numbers are sparse pays for a few windows, not for a pass over every byte).
pub struct KeywordIndex<'t> {
    text: &'t [u8],
    /// (start, end, types) of the keywords starting inside `covered`, sorted by start.
    hits: Vec<(usize, usize, TypeSet)>,
    /// Disjoint ranges, in order, inside which every keyword start is in `hits`.
    covered: Vec<(usize, usize)>,
    /// Where the automaton resumes in the last covered range (after the last keyword it recorded, so
    /// that consecutive searches never split a keyword).
    resume: usize,
    /// The automaton's matches of one search, kept between searches for its allocation.
    found: Vec<(usize, usize, u32)>,
    /// How far the next extension of the newest range reads past its window.
    read_ahead: usize,
}

/// Windows that start this close after the covered text extend it instead of opening a new range.
const JOIN_GAP: usize = 256;
/// Bytes searched past a window that needs more text: `READ_AHEAD` when a range opens, twice as many
/// at each extension of it, up to `READ_AHEAD_MAX`. A document whose numbers are sparse pays for short
/// stretches around them; a stretch dense with numbers is searched in long strides, each search's
/// fixed cost spread over more text (4 KB instead of 512 bytes: 3-5 % of a scan of the benchmark).
const READ_AHEAD: usize = 512;
const READ_AHEAD_MAX: usize = 4096;

impl<'t> KeywordIndex<'t> {
    pub fn new(text: &'t [u8]) -> KeywordIndex<'t> {
        KeywordIndex {
            text,
            hits: Vec::new(),
            covered: Vec::new(),
            resume: 0,
            found: Vec::new(),
            read_ahead: READ_AHEAD,
        }
    }

    /// An index over the whole text at once (the reference the on-demand look-ups are tested against).
    #[cfg(test)]
    pub fn build(text: &'t [u8]) -> KeywordIndex<'t> {
        let mut index = KeywordIndex::new(text);
        index.cover(0, text.len());
        index
    }

    /// Keywords starting at word starts in `from..to` that pass the short-stem rule, in order; returns
    /// where a search for the keywords after `to` resumes.
    fn search(
        text: &[u8],
        from: usize,
        to: usize,
        hits: &mut Vec<(usize, usize, u32)>,
        mut found: impl FnMut(usize, usize, TypeSet),
    ) -> usize {
        let table = table();
        let mut resume = from;
        table.automaton.find_at_word_starts(text, from, to, hits);
        for &(start, end, pattern) in hits.iter() {
            resume = end;
            let (types, short) = table.patterns[pattern as usize];
            if short {
                if let Some(&next) = text.get(end) {
                    if is_word_byte(next) {
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
            found(start, end, types);
        }
        resume.max(to)
    }

    /// Makes `from..to` covered (or answers that it cannot be, for a window behind the covered text).
    fn cover(&mut self, from: usize, to: usize) -> bool {
        let to = to.min(self.text.len());
        let from = from.min(to);
        match self.covered.last().copied() {
            Some((start, end)) if from >= start && from <= end + JOIN_GAP => {
                if to > end {
                    // Read ahead: the next windows of a dense stretch are then already covered, and
                    // the automaton runs in long strides instead of one short search per window.
                    let target = to.max(end + self.read_ahead).min(self.text.len());
                    self.read_ahead = (self.read_ahead * 2).min(READ_AHEAD_MAX);
                    let hits = &mut self.hits;
                    self.resume = Self::search(
                        self.text,
                        self.resume.max(start),
                        target,
                        &mut self.found,
                        |s, e, t| {
                            hits.push((s, e, t));
                        },
                    );
                    if let Some(last) = self.covered.last_mut() {
                        last.1 = target;
                    }
                }
                true
            }
            Some((_, end)) if from < end => {
                // Behind the newest range: covered only if one earlier range holds the whole window.
                let at = self.covered.partition_point(|range| range.1 < to);
                self.covered
                    .get(at)
                    .is_some_and(|range| range.0 <= from && to <= range.1)
            }
            _ => {
                self.covered.push((from, from));
                self.resume = from;
                self.read_ahead = READ_AHEAD;
                self.cover(from, to)
            }
        }
    }

    /// Types of the keywords starting within `from..to`. `cursor` remembers where the last look-up
    /// started in the found keywords, so a window that moved right costs a few steps.
    pub fn types_in_moving(&mut self, cursor: &mut usize, from: usize, to: usize) -> TypeSet {
        if !self.cover(from, to) {
            // A window behind the searched text (rare): searched on its own.
            let mut types = TypeSet::default();
            Self::search(self.text, from, to, &mut self.found, |_, _, t| {
                types = TypeSet(types.0 | t.0)
            });
            return types;
        }
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

    /// Whether `from..to` lies inside one searched range (the scanner asked about its window already),
    /// so that the found keywords answer for it; otherwise the callers search that stretch themselves.
    /// A plain check rather than [`Self::cover`], which stays inlined in the hot look-up.
    fn covers(&self, from: usize, to: usize) -> bool {
        let to = to.min(self.text.len());
        let at = self.covered.partition_point(|range| range.1 < to);
        self.covered
            .get(at)
            .is_some_and(|range| range.0 <= from.min(to) && to <= range.1)
    }

    /// Whether a keyword starts at `at`.
    pub fn keyword_at(&self, at: usize) -> bool {
        if self.covers(at, at + 1) {
            let first = self.hits.partition_point(|hit| hit.0 < at);
            return self.hits.get(first).is_some_and(|hit| hit.0 == at);
        }
        let mut found = false;
        Self::search(self.text, at, at + 1, &mut Vec::new(), |start, _, _| {
            found |= start == at
        });
        found
    }

    /// How far from `start..end` the nearest keyword supporting `ty` lies, within `before` bytes before
    /// the value and `after` bytes after it: the gap to a keyword before it; a keyword after it counts
    /// as farther than any before it ("Pasaport No: U1234567, Ehliyet No: ..."): labels precede their
    /// values, and the label that follows a value is usually the next value's.
    pub fn distance(
        &self,
        ty: PiiType,
        start: usize,
        end: usize,
        before: usize,
        after: usize,
    ) -> Option<usize> {
        let (from, to) = (start.saturating_sub(before), end.saturating_add(after));
        let mut nearest: Option<usize> = None;
        let consider = |keyword_start: usize, keyword_end: usize, types: TypeSet| {
            if !types.contains(ty) || (start..end).contains(&keyword_start) {
                return;
            }
            let gap = if keyword_start < start {
                start.saturating_sub(keyword_end)
            } else {
                before + (keyword_start - end)
            };
            nearest = Some(nearest.map_or(gap, |best| best.min(gap)));
        };
        self.each_keyword(from, to, consider);
        nearest
    }

    /// `found(start, end, types)` for each keyword starting within `from..to`: from the found keywords
    /// when the scanner searched there already, otherwise by a search of that stretch.
    fn each_keyword(&self, from: usize, to: usize, mut found: impl FnMut(usize, usize, TypeSet)) {
        if self.covers(from, to) {
            let first = self.hits.partition_point(|hit| hit.0 < from);
            for &(start, end, types) in self.hits[first..].iter().take_while(|hit| hit.0 < to) {
                found(start, end, types);
            }
        } else {
            Self::search(self.text, from, to, &mut Vec::new(), found);
        }
    }

    /// The end of the nearest keyword supporting `ty` that starts in `from..to` and ends by `to`: the
    /// label nearest before a value at `to`.
    pub fn nearest_end_before(&self, ty: PiiType, from: usize, to: usize) -> Option<usize> {
        let mut nearest: Option<usize> = None;
        self.each_keyword(from, to, |_, keyword_end, types| {
            if types.contains(ty) && keyword_end <= to {
                nearest = Some(nearest.map_or(keyword_end, |best| best.max(keyword_end)));
            }
        });
        nearest
    }

    /// Types of the keywords that start within `from..to`, from an index built over the whole text.
    #[cfg(test)]
    pub fn types_in(&self, from: usize, to: usize) -> TypeSet {
        let first = self.hits.partition_point(|hit| hit.0 < from);
        self.types_from(first, to)
    }

    /// Types of the found keywords from index `first` that start before `to`.
    fn types_from(&self, first: usize, to: usize) -> TypeSet {
        self.hits[first..]
            .iter()
            .take_while(|hit| hit.0 < to)
            .fold(TypeSet::default(), |set, hit| TypeSet(set.0 | hit.2 .0))
    }
}

/// Types supported by the keywords at the word starts of a short `text` (a column's header as written:
/// "T.C. Kimlik No", "Doğ. Tar.").
pub fn text_types(text: &[u8], found: &mut Vec<(usize, usize, u32)>) -> TypeSet {
    let mut types = TypeSet::default();
    KeywordIndex::search(text, 0, text.len(), found, |_, _, t| {
        types = TypeSet(types.0 | t.0);
    });
    types
}

/// Types supported by the keywords in a field's key or a column's header, given as its words
/// ([`super::text::key_words`]: "date of birth", "musteri vkn").
pub fn key_types(words: &[u8], found: &mut Vec<(usize, usize, u32)>) -> TypeSet {
    let table = table();
    table.automaton.find_after_spaces(words, found);
    let mut types = TypeSet::default();
    for &(start, end, pattern) in found.iter() {
        let (pattern_types, short) = table.patterns[pattern as usize];
        // A short stem ("nir", "aba") must end its word, as in the text ("tel" may go on as "telefon").
        if short
            && words.get(end).is_some_and(|&next| is_word_byte(next))
            && !(&words[start..end] == b"tel" && words[end..].starts_with(b"efon"))
        {
            continue;
        }
        types = TypeSet(types.0 | pattern_types.0);
    }
    types
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
    fn on_demand_look_ups_agree_with_a_full_index_in_any_order() {
        let text =
            "TC kimlik no 1, vergi no 2, tel 3, IBAN 4, e-posta 5, doğum tarihi 6, pasaport 7, "
                .repeat(12);
        let full = KeywordIndex::build(text.as_bytes());
        // Forward windows of varying width, with jumps wider than JOIN_GAP, then windows behind.
        let mut windows: Vec<(usize, usize)> = Vec::new();
        let mut at = 0;
        let mut step = 1;
        while at < text.len() {
            windows.push((at, at + 5 + step % 40));
            at += step;
            step = (step * 7 + 3) % 97;
        }
        windows.extend([
            (5, 30),
            (0, 10),
            (200, 260),
            (3, 4),
            (text.len() / 2, text.len() / 2 + 90),
            (text.len(), text.len() + 5),
            (text.len() + 10, text.len() + 20),
        ]);
        let mut index = KeywordIndex::new(text.as_bytes());
        let mut cursor = 0;
        for (from, to) in windows {
            assert_eq!(
                index.types_in_moving(&mut cursor, from, to),
                full.types_in(from, to),
                "{from}..{to}"
            );
        }
    }

    #[test]
    fn the_keyword_trie_finds_what_the_aho_corasick_crate_finds_at_word_starts() {
        let (spellings, _) = spellings();
        let oracle = super::super::automaton::tests::oracle(&spellings);
        let root =
            std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/tr");
        let mut texts = vec![
            super::super::synthetic::text(100_000, true, 3),
            "TC KİMLİK NO, T.C. Kimliği, Vergi No, VKN, Tel., Telefonu, GSM, IBAN'ı, Doğum Tarihi, \
             BAĞ-KUR, 4/B, DL#, Sécurité Sociale, NÉ LE, driver's license, ust-id"
                .to_string(),
        ];
        for entry in std::fs::read_dir(&root).expect("corpus") {
            let path = entry.expect("entry").path();
            if path
                .extension()
                .is_some_and(|e| e == "txt" || e == "eml" || e == "xml")
            {
                texts.push(
                    String::from_utf8_lossy(&std::fs::read(&path).expect("read")).into_owned(),
                );
            }
        }
        let automaton = &table().automaton;
        let mut found = Vec::new();
        for text in &texts {
            let b = text.as_bytes();
            let n = b.len();
            for (from, to) in [(0, n), (n / 3, n), (7, n / 2), (n / 2, n / 2 + 300)] {
                let (from, to) = (from.min(n), to.min(n));
                automaton.find_at_word_starts(b, from, to, &mut found);
                let expected = super::super::automaton::tests::oracle_matches(&oracle, b, from, to);
                assert_eq!(found, expected, "{from}..{to}");
            }
        }
    }

    #[test]
    fn a_stem_inside_a_word_does_not_hide_one_at_the_next_word_start() {
        // "tc kimli" matches from the middle of "etc"; an Aho-Corasick pass over every byte took that
        // match and so skipped "kimlik no", which overlaps it.
        assert!(near("etc kimlik no").contains(PiiType::NationalIdTr));
        assert!(!near("etckimlik").contains(PiiType::NationalIdTr));
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
