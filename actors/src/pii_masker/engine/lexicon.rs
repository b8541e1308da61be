//! Gazetteers and label words for the tier-D types (person names, addresses): Turkish first, then
//! common EU/US names. All entries are folded (see `text::fold`).

use std::sync::OnceLock;

use rustc_hash::FxHashMap;

use super::text::fold;
use super::types::PiiType;

/// A word list kept in a data file beside this one (`lexicon/*.txt`): one entry a line, as written
/// (folded, see `text::fold`); blank lines and lines starting with `#` are left out. Read once, on
/// first use.
pub struct Words {
    data: &'static str,
    entries: OnceLock<Box<[&'static str]>>,
}

impl Words {
    const fn new(data: &'static str) -> Words {
        Words {
            data,
            entries: OnceLock::new(),
        }
    }

    /// The entries, in the file's order.
    pub fn entries(&self) -> &[&'static str] {
        self.entries.get_or_init(|| {
            self.data
                .lines()
                .map(|line| line.strip_suffix('\r').unwrap_or(line))
                .filter(|line| !line.is_empty() && !line.starts_with('#'))
                .collect()
        })
    }
}

impl std::ops::Deref for Words {
    type Target = [&'static str];

    fn deref(&self) -> &[&'static str] {
        self.entries()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Word {
    /// Precedes a name directly: "Sayın", "Dr.", "Herr".
    Honorific,
    FirstName,
    Surname,
    /// Both a common first name and a surname.
    Either,
    /// Street-type word of an address: "Mahallesi", "Cad.", "Sokak", "Street".
    Street,
    /// The first word of a letter's closing ([`CLOSINGS`]): "Best", "Saygılarımla", "Mit".
    Closing,
}

static HONORIFICS: Words = Words::new(include_str!("lexicon/honorifics.txt"));

static STREETS: Words = Words::new(include_str!("lexicon/streets.txt"));

static FIRST_NAMES: Words = Words::new(include_str!("lexicon/first_names.txt"));

static SURNAMES: Words = Words::new(include_str!("lexicon/surnames.txt"));

struct Gazetteer {
    words: FxHashMap<Vec<u8>, Word>,
    /// Per first letter (a-z): bit n set when some word of n bytes starts with it. Most capitalised
    /// words of business text ("Fatura", "Toplam") are turned away here without hashing.
    lengths: [u32; 26],
}

fn table() -> &'static Gazetteer {
    static TABLE: OnceLock<Gazetteer> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table = FxHashMap::default();
        for name in FIRST_NAMES.iter() {
            table.insert(fold(name), Word::FirstName);
        }
        for name in SURNAMES.iter().chain(DISTINCTIVE_SURNAMES.iter()) {
            let key = fold(name);
            let kind = match table.get(&key) {
                Some(Word::FirstName) => Word::Either,
                _ => Word::Surname,
            };
            table.insert(key, kind);
        }
        for word in STREETS.iter() {
            table.insert(fold(word), Word::Street);
        }
        for word in HONORIFICS.iter() {
            table.insert(fold(word), Word::Honorific);
        }
        for closing_line in CLOSINGS.iter() {
            let first = closing_line.split(' ').next().unwrap_or(closing_line);
            table.entry(fold(first)).or_insert(Word::Closing);
        }
        let mut lengths = [0u32; 26];
        for key in table.keys() {
            match (key.first(), key.len()) {
                (Some(first @ b'a'..=b'z'), len @ 0..=31) => {
                    lengths[usize::from(first - b'a')] |= 1 << len;
                }
                // Keys outside the quick table are never turned away by it.
                (Some(first @ b'a'..=b'z'), _) => lengths[usize::from(first - b'a')] |= 1 << 31,
                _ => {}
            }
        }
        Gazetteer {
            words: table,
            lengths,
        }
    })
}

/// Whether a folded word is a German or Dutch street name written as one word, by its ending:
/// "Hauptstraße", "Bahnhofstr", "Lindenallee", "Damstraat", "Keizersgracht" (at least three letters
/// before the ending).
pub fn street_compound(folded: &[u8]) -> bool {
    let endings: &[&[u8]] = match folded.last() {
        // "strase": "straße" folded (ß folds to one s).
        Some(b'e') => &[b"strasse", b"strase", b"gasse", b"allee", b"kade"],
        Some(b'r') => &[b"str", b"ufer"],
        Some(b'g') => &[b"weg"],
        Some(b't') => &[b"straat", b"gracht"],
        Some(b'n') => &[b"laan", b"plein"],
        Some(b'm') => &[b"damm"],
        _ => return false,
    };
    endings
        .iter()
        .any(|ending| folded.len() >= ending.len() + 3 && folded.ends_with(ending))
}

/// What a folded word is, if it is in a gazetteer.
pub fn lookup(folded: &[u8]) -> Option<Word> {
    let table = table();
    if let Some(first @ b'a'..=b'z') = folded.first() {
        if table.lengths[usize::from(first - b'a')] & (1 << folded.len().min(31)) == 0 {
            return None;
        }
    }
    table.words.get(folded).copied()
}

/// Names to draw a surrogate name from: the given names (`given`) or surnames of the gazetteer's Turkish
/// sections (`turkish`) or of its others; folded (ASCII lower case), letters only, three or more.
pub fn surrogate_names(given: bool, turkish: bool) -> &'static [&'static str] {
    static LISTS: OnceLock<[Box<[&'static str]>; 4]> = OnceLock::new();
    let lists = LISTS.get_or_init(|| {
        // A section starts at the first line of a block of comment lines, which names its language.
        let split = |data: &'static str| {
            let (mut turkish, mut other) = (Vec::new(), Vec::new());
            let (mut in_turkish, mut after_comment) = (false, false);
            for line in data
                .lines()
                .map(|line| line.strip_suffix('\r').unwrap_or(line))
            {
                if line.starts_with('#') {
                    if !after_comment {
                        in_turkish = line.starts_with("# Turkish");
                    }
                    after_comment = true;
                    continue;
                }
                after_comment = false;
                if line.len() >= 3 && line.bytes().all(|b| b.is_ascii_lowercase()) {
                    if in_turkish {
                        turkish.push(line);
                    } else {
                        other.push(line);
                    }
                }
            }
            (turkish.into_boxed_slice(), other.into_boxed_slice())
        };
        let (given_tr, given_other) = split(FIRST_NAMES.data);
        let (surnames_tr, surnames_other) = split(SURNAMES.data);
        [given_tr, given_other, surnames_tr, surnames_other]
    });
    &lists[usize::from(!given) * 2 + usize::from(!turkish)]
}

/// Labels that a name follows after a colon ("Ad Soyad:", "Name:").
pub static NAME_LABELS: Words = Words::new(include_str!("lexicon/name_labels.txt"));

/// The name labels that say only "name": after another word they name a person only when that word
/// is not a thing ("Baba Adı", "Müşteri Adı", but not "Ürün Adı", "Banka Adı", "Product name").
const BARE_NAME_LABELS: &[&str] = &[
    "ad", "adi", "isim", "name", "nom", "nombre", "nome", "naam", "namn", "navn", "nimi", "nume",
    "ime", "meno", "jmeno", "nev", "vardas", "vards", "imie",
];

/// Things whose name is not a person's, folded; a Turkish genitive ending ("ürünün", "firmanın") is
/// allowed after the longer ones.
static THINGS: Words = Words::new(include_str!("lexicon/things.txt"));

fn is_thing(word: &[u8]) -> bool {
    THINGS.iter().any(|thing| {
        let thing = thing.as_bytes();
        word == thing
            || (thing.len() >= 4 && word.starts_with(thing) && word.len() <= thing.len() + 4)
    })
}

/// Labels that an address follows after a colon ("Adres:").
/// Table headers (case- and accent-folded) of a column of phone numbers, whose cells need no label of
/// their own: a US number in a "Phone" column has no country code to tell it by.
pub static PHONE_LABELS: Words = Words::new(include_str!("lexicon/phone_labels.txt"));

pub static ADDRESS_LABELS: Words = Words::new(include_str!("lexicon/address_labels.txt"));

/// What a label before a colon announces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Label {
    Name,
    Address,
}

fn labels() -> &'static FxHashMap<&'static [u8], Label> {
    static LABELS: OnceLock<FxHashMap<&'static [u8], Label>> = OnceLock::new();
    LABELS.get_or_init(|| {
        let names = NAME_LABELS.iter().map(|l| (l.as_bytes(), Label::Name));
        let addresses = ADDRESS_LABELS
            .iter()
            .map(|l| (l.as_bytes(), Label::Address));
        names.chain(addresses).collect()
    })
}

/// The most bytes a table's column label has (a test holds the name, address and phone labels to it).
pub const TABLE_LABEL_BYTES_MAX: usize = 26;

/// The type a table's column label (folded, without its colon) marks, in one hash look-up: the name and
/// address labels of [`labels`] (the lists share no label), and the phone labels.
pub fn table_label(folded: &[u8]) -> Option<PiiType> {
    static TABLE_LABELS: OnceLock<FxHashMap<&'static [u8], PiiType>> = OnceLock::new();
    let table = TABLE_LABELS.get_or_init(|| {
        let colon_labels = labels().iter().map(|(&label, kind)| {
            let ty = match kind {
                Label::Name => PiiType::PersonName,
                Label::Address => PiiType::Address,
            };
            (label, ty)
        });
        let phones = PHONE_LABELS
            .iter()
            .map(|label| (label.as_bytes(), PiiType::PhoneIntl));
        colon_labels.chain(phones).collect()
    });
    table.get(folded).copied()
}

/// The type a column's header written as a key marks ([`super::text::key_words`]: "customer first
/// name", "home address"): [`table_label`] of its words, or of its last words ("first name").
pub fn key_table_label(words: &[u8]) -> Option<PiiType> {
    let mut from = 0;
    loop {
        if let Some(ty) = table_label(&words[from..]) {
            return Some(ty);
        }
        from += words[from..].iter().position(|&c| c == b' ')? + 1;
    }
}

/// The last words of the labels (`"soyadi"` of "adi soyadi", `"adresi"`), with a quick table: per
/// first byte, bit n set when some last word has n bytes.
struct LastWords {
    words: rustc_hash::FxHashSet<&'static [u8]>,
    lengths: [u32; 256],
}

fn last_words() -> &'static LastWords {
    static LAST_WORDS: OnceLock<LastWords> = OnceLock::new();
    LAST_WORDS.get_or_init(|| {
        let words: rustc_hash::FxHashSet<&'static [u8]> = NAME_LABELS
            .iter()
            .chain(ADDRESS_LABELS.iter())
            .map(|label| label.rsplit(' ').next().unwrap_or(label).as_bytes())
            .collect();
        let mut lengths = [0u32; 256];
        for word in &words {
            assert!(word.len() < 31, "a label's last word fits the length table");
            if let Some(&first) = word.first() {
                lengths[usize::from(first)] |= 1 << word.len();
            }
        }
        LastWords { words, lengths }
    })
}

/// Whether a folded word is the last word of some label: a label is some last words of the text
/// before a colon, so the text's last word must be one of these; the colons of business text
/// ("Tarih:", "Tutar:", "Fatura No:") are turned away on it before the text before them is folded and
/// looked up.
pub fn ends_some_label(folded_word: &[u8]) -> bool {
    last_words().words.contains(folded_word)
}

/// [`ends_some_label`] for a word written in ASCII (which folds to its lower case), mostly without
/// folding or hashing it: the first byte and the length turn most words away.
pub fn ascii_ends_some_label(word: &[u8]) -> bool {
    let table = last_words();
    let Some(first) = word.first() else {
        return false;
    };
    if table.lengths[usize::from(first.to_ascii_lowercase())] & (1 << word.len().min(31)) == 0 {
        return false;
    }
    // Past the length table, the word is shorter than 31 bytes.
    let mut lower = [0u8; 31];
    let lower = &mut lower[..word.len()];
    for (to, from) in lower.iter_mut().zip(word) {
        *to = from.to_ascii_lowercase();
    }
    table.words.contains(&*lower)
}

/// The kind of a folded label ("ad soyad", "teslimat adresi"): the whole label or its last one, two...
/// words may be a known label, so that a qualifier before it ("sorumlu personel") is allowed.
pub fn label(folded: &[u8]) -> Option<Label> {
    let table = labels();
    let mut from = 0;
    loop {
        if let Some(kind) = table.get(&folded[from..]) {
            if from > 0
                && BARE_NAME_LABELS
                    .iter()
                    .any(|l| l.as_bytes() == &folded[from..])
            {
                let before = folded[..from].trim_ascii_end();
                let word = before
                    .iter()
                    .rposition(|&c| c == b' ')
                    .map_or(before, |space| &before[space + 1..]);
                if is_thing(word) {
                    return None;
                }
            }
            return Some(*kind);
        }
        from += folded[from..].iter().position(|&c| c == b' ')? + 1;
    }
}

/// Name labels that name a part of a person's name and nothing else, folded: behind one of these a
/// value written in lower case is a name too (`"first_name": "mehmet"`, `soyad=yılmaz`), which behind
/// "name", "contact" or "owner" it need not be (`"name": "admin"`).
static PERSON_NAME_LABELS: Words = Words::new(include_str!("lexicon/person_name_labels.txt"));

/// Keys that hold a value without saying what it is: the record around them does (`{"system":
/// "phone", "value": "..."}` in FHIR, `{"type": "dob", "value": ...}`, `{"label": "Telefon", "text":
/// ...}`), so such a key does not end its value's context window.
static GENERIC_VALUE_KEYS: Words = Words::new(include_str!("lexicon/generic_value_keys.txt"));

/// Whether the folded key's words are one of [`GENERIC_VALUE_KEYS`].
pub fn generic_value_key(folded: &[u8]) -> bool {
    one_of(&GENERIC_VALUE_KEYS, folded)
}

/// Whether `folded` is one of `words`.
fn one_of(words: &[&str], folded: &[u8]) -> bool {
    words.iter().any(|w| w.as_bytes() == folded)
}

/// Keys that name a part of a person's name only inside an object that is a name (`"name": [{"family":
/// "Chalmers", "given": ["Peter"]}]` in FHIR, `"name": {"first": ..., "last": ...}`).
static NAME_PART_KEYS: Words = Words::new(include_str!("lexicon/name_part_keys.txt"));

/// Whether the folded key's words are one of [`NAME_PART_KEYS`].
pub fn name_part_key(folded: &[u8]) -> bool {
    one_of(&NAME_PART_KEYS, folded)
}

/// Whether the folded label ends in a label of [`PERSON_NAME_LABELS`] (a whole word or more).
pub fn person_name_label(folded: &[u8]) -> bool {
    let mut from = 0;
    loop {
        if PERSON_NAME_LABELS
            .iter()
            .any(|l| l.as_bytes() == &folded[from..])
        {
            return true;
        }
        match folded[from..].iter().position(|&c| c == b' ') {
            Some(space) => from += space + 1,
            None => return false,
        }
    }
}

/// Lower-case values that fill a name field without naming anyone, folded.
static NO_NAME_VALUES: Words = Words::new(include_str!("lexicon/no_name_values.txt"));

/// Whether a lower-case value, folded, fills a name field without naming anyone.
pub fn no_name_value(folded: &[u8]) -> bool {
    one_of(&NO_NAME_VALUES, folded)
}

/// Legal forms of companies, folded ("A.Ş." folds to "a.s"): a name label or a title followed by
/// words that run into one announces a company, not a person ("Alıcı: Yaman Gıda Ltd. Şti.").
static COMPANY_WORDS: Words = Words::new(include_str!("lexicon/company_words.txt"));

/// Abbreviations that are a legal form's part only with their dot ("San. ve Tic."): without it,
/// "Şan" is a surname.
const COMPANY_ABBREVIATIONS: &[&str] = &["san", "tic"];

/// Words of organisations, folded: behind a name label or a title, a run of capitalised words holding
/// one names no person ("Alıcı: Türkiye İş Bankası", "Hazırlayan: Muhasebe Departmanı", "Prepared
/// by: Finance Team"). None of them is a Turkish or English surname.
static ORGANISATION_WORDS: Words = Words::new(include_str!("lexicon/organisation_words.txt"));

/// Words that, first after a title or a name label, address nobody in particular: "Sayın Yetkili",
/// "Sayın İlgili", "Sayın Müşterimiz", "Değerli Üyemiz" ("Değerli" is a surname too: only first).
/// Answers a form's field holds instead of a name, folded: as the first word behind a name label they
/// name no one ("Veli: Yok", "Sorumlu: Evet", "Contact: None").
static ANSWER_WORDS: Words = Words::new(include_str!("lexicon/answer_words.txt"));

static SALUTATION_WORDS: Words = Words::new(include_str!("lexicon/salutation_words.txt"));

/// Verbs in the past participle before "by" and a person's name ("signed by Hiroshi Tanaka",
/// "prepared by Chidi Nwosu"), lower case.
const BY_VERBS: &[&[u8]] = &[
    b"signed",
    b"prepared",
    b"approved",
    b"written",
    b"reviewed",
    b"submitted",
    b"sent",
    b"authored",
    b"reported",
    b"issued",
    b"requested",
    b"created",
    b"edited",
    b"verified",
    b"checked",
    b"confirmed",
    b"received",
    b"interviewed",
    b"witnessed",
    b"countersigned",
    b"represented",
];

/// Whether a word in lower case is a participle that names its agent after "by" ([`BY_VERBS`]).
pub fn by_verb(word: &[u8]) -> bool {
    BY_VERBS.contains(&word)
}

/// What a capitalised word behind a title or a name label says of the words: see [`not_a_person`].
#[derive(Clone, Copy, PartialEq, Eq)]
enum NotPerson {
    Company,
    Abbreviation,
    Organisation,
    Salutation,
}

fn not_person_words() -> &'static FxHashMap<&'static [u8], NotPerson> {
    static WORDS: OnceLock<FxHashMap<&'static [u8], NotPerson>> = OnceLock::new();
    WORDS.get_or_init(|| {
        let kinds = [
            (COMPANY_WORDS.entries(), NotPerson::Company),
            (COMPANY_ABBREVIATIONS, NotPerson::Abbreviation),
            (ORGANISATION_WORDS.entries(), NotPerson::Organisation),
            (SALUTATION_WORDS.entries(), NotPerson::Salutation),
            (ANSWER_WORDS.entries(), NotPerson::Salutation),
        ];
        kinds
            .iter()
            .flat_map(|(words, kind)| words.iter().map(move |w| (w.as_bytes(), *kind)))
            .collect()
    })
}

/// What a capitalised word is among the words behind a title or a name label.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Behind {
    /// A title ("Dr.", "Op.") before the name's first word: passed over.
    Title,
    /// The words name no person ([`not_a_person`]).
    NoPerson,
    /// A word of the name, as far as the lexicon knows.
    Word,
}

/// What a folded capitalised word behind a title or a name label (dotted letters kept together, with
/// the dot after it if any) is: a title (as the `first` word, before the name), a word that tells no
/// person is named, or a name's word.
pub fn behind_label(folded: &[u8], first: bool) -> Behind {
    if not_a_person(folded, first) {
        Behind::NoPerson
    } else if first && lookup(folded.strip_suffix(b".").unwrap_or(folded)) == Some(Word::Honorific)
    {
        Behind::Title
    } else {
        Behind::Word
    }
}

/// Whether a folded capitalised word behind a title or a name label (dotted letters kept together,
/// "a.s", "s.p.a", with the dot after it if any) tells that the words name no person: a company's
/// legal form ("Ltd", "A.Ş.", "San." with its dot: "Şan" is a surname) or an organisation's word
/// anywhere, a salutation's as the `first` word.
pub fn not_a_person(folded: &[u8], first: bool) -> bool {
    let dotted = folded.last() == Some(&b'.');
    let word = folded.strip_suffix(b".").unwrap_or(folded);
    match not_person_words().get(word) {
        Some(NotPerson::Company | NotPerson::Organisation) => true,
        Some(NotPerson::Abbreviation) => dotted,
        Some(NotPerson::Salutation) => first,
        None => false,
    }
}

/// Greetings, folded, after which a known given name alone is a person's name ("Merhaba Mehmet,",
/// "Dear Emma,", "Liebe Anna,"); all ASCII, at most 8 letters.
static GREETINGS: Words = Words::new(include_str!("lexicon/greetings.txt"));

/// Whether an ASCII word, in any case, is a greeting ([`GREETINGS`]).
pub fn greeting(word: &[u8]) -> bool {
    GREETINGS
        .iter()
        .any(|g| g.as_bytes().eq_ignore_ascii_case(word))
}

/// Titles written after a given name in Turkish ("Ahmet Bey", "Elif Hanım'a", "Ayşe Hoca"), folded:
/// the name before one is a person's, even alone.
static POST_TITLES: Words = Words::new(include_str!("lexicon/post_titles.txt"));

/// Whether a folded word is a title written after a given name ([`POST_TITLES`]).
pub fn post_title(folded: &[u8]) -> bool {
    POST_TITLES.iter().any(|t| t.as_bytes() == folded)
}

/// Given names that are also common words, places or months ("Ege Üniversitesi", "Kuzey Kıbrıs",
/// "Deniz Kuvvetleri", "Umut Verici", "Can You", "Mark As Paid", "Jan Feb"), folded: followed by a
/// capitalised word that no gazetteer knows, they are not taken for a person's given name (with a
/// known surname, a greeting or a title they still are).
static WORD_LIKE_GIVEN_NAMES: Words = Words::new(include_str!("lexicon/word_like_given_names.txt"));

/// Whether a folded given name is also a common word ([`WORD_LIKE_GIVEN_NAMES`]).
pub fn word_like_given_name(folded: &[u8]) -> bool {
    WORD_LIKE_GIVEN_NAMES.iter().any(|w| w.as_bytes() == folded)
}

/// Whether a folded capitalised word, unknown to the gazetteers, may be the surname after a known
/// given name ("Mehmet Karadağlı", "John Whitfield"): not a company's, an organisation's or a place's
/// word, and not a Turkish compound's head by its possessive ending ("Fatih Sultan Mehmet Köprüsü",
/// "Ahmet Haşim Lisesi", "Elif Yayınları", "Murat Müdürlüğü": -(s)I after a vowel, -lArI, -lIğI).
pub fn may_be_surname(folded: &[u8]) -> bool {
    folded.len() >= 2
        && folded.iter().all(u8::is_ascii_alphabetic)
        && !compound_head(folded)
        && !not_a_person(folded, false)
        && lookup(folded).is_none()
}

/// Whether a folded word ends as the head of a Turkish compound, by its possessive ending ("Köprüsü",
/// "Lisesi", "Yayınları", "Müdürlüğü", "Şubesi": -(s)I after a vowel, -lArI, -lIğI), which names a
/// place or an institution, not a person; also with a case ending after it ("Şubesinde",
/// "Müdürlüğüne", "Lisesinin").
pub fn compound_head(folded: &[u8]) -> bool {
    const HEADS: &[&[u8]] = &[
        b"esi", b"asi", b"isi", b"usu", b"lari", b"leri", b"ligi", b"lugu",
    ];
    const CASES: &[&[u8]] = &[
        b"nde", b"nda", b"nden", b"ndan", b"ne", b"na", b"ni", b"nin", b"nun", b"yle", b"yla",
    ];
    let head = |word: &[u8]| {
        HEADS
            .iter()
            .any(|head| word.len() >= head.len() + 2 && word.ends_with(head))
    };
    head(folded)
        || CASES
            .iter()
            .any(|case| folded.strip_suffix(*case).is_some_and(&head))
}

/// Whether a folded distinctive surname comes first in its culture's names (Chinese, Vietnamese:
/// "Zhang Wei", "Nguyen Van An").
pub fn surname_first(folded: &[u8]) -> bool {
    matches!(
        folded,
        b"zhang" | b"wang" | b"chen" | b"liu" | b"huang" | b"zhao" | b"nguyen" | b"tran"
    )
}

/// Surnames that are no common word in any language the engine reads (Chinese, Vietnamese, Slavic,
/// German, Romance, English patronymics), folded: after one capitalised word no list knows, they make
/// a name with it ("Danqi Chen", "Weronika Kowalski"). Turkish surnames are left out: most are words too
/// ("Kaya", "Demir", "Çelik", "Yıldız").
static DISTINCTIVE_SURNAMES: Words = Words::new(include_str!("lexicon/distinctive_surnames.txt"));

/// Whether a folded surname is distinctive ([`DISTINCTIVE_SURNAMES`]).
pub fn distinctive_surname(folded: &[u8]) -> bool {
    // Hashed: a form repeats its surnames (a table's column), each asked here.
    static DISTINCTIVE: OnceLock<rustc_hash::FxHashSet<&'static [u8]>> = OnceLock::new();
    DISTINCTIVE
        .get_or_init(|| DISTINCTIVE_SURNAMES.iter().map(|s| s.as_bytes()).collect())
        .contains(folded)
}

/// Closing lines of letters and e-mails ("Best regards,", "Saygılarımla,", "Mit freundlichen Grüßen"):
/// the line after one, or the rest of its own line after its comma, signs with a name.
static CLOSINGS: Words = Words::new(include_str!("lexicon/closings.txt"));

/// The closings, folded, and per last letter (a-z) the lengths they have (bit n: n bytes): most
/// short lines (a heading, a bullet) are turned away by their length and last letter without hashing.
struct Closings {
    lines: rustc_hash::FxHashSet<Vec<u8>>,
    lengths: [u32; 26],
}

fn closings() -> &'static Closings {
    static CLOSING_LINES: OnceLock<Closings> = OnceLock::new();
    CLOSING_LINES.get_or_init(|| {
        let lines: rustc_hash::FxHashSet<Vec<u8>> = CLOSINGS.iter().map(|c| fold(c)).collect();
        let mut lengths = [0u32; 26];
        for line in &lines {
            if let Some(last @ b'a'..=b'z') = line.last() {
                lengths[usize::from(last - b'a')] |= 1 << line.len().min(31);
            }
        }
        Closings { lines, lengths }
    })
}

/// The longest closing line, folded, in bytes: longer lines are not looked up.
const CLOSING_BYTES_MAX: usize = 24;

/// Whether a folded line (without its trailing comma) is a letter's closing ([`CLOSINGS`]).
pub fn closing(folded: &[u8]) -> bool {
    let closings = closings();
    match folded.last() {
        Some(last @ b'a'..=b'z') if folded.len() <= CLOSING_BYTES_MAX => {
            closings.lengths[usize::from(last - b'a')] & (1 << folded.len()) != 0
                && closings.lines.contains(folded)
        }
        _ => false,
    }
}

/// Nouns for a person, folded stems (any suffix): the capitalised words right before "adlı",
/// "isimli", "adındaki" are a person's name when one of them follows ("Lezize Korutürk adlı müşteri",
/// "Sevim Tekinalp isimli hastanın"); "Kuzey Yıldızı adlı gemi" and "Sessiz Gemi adlı kitap" are no
/// one. With a possessive ending, before the name: "Müvekkilimiz Lezize Korutürk".
static PERSON_NOUNS: Words = Words::new(include_str!("lexicon/person_nouns.txt"));

/// Whether a folded word is a noun for a person with any suffix ([`PERSON_NOUNS`]: "müşteri",
/// "müşteriye", "çalışanımız", "hastanın").
pub fn person_noun(folded: &[u8]) -> bool {
    PERSON_NOUNS
        .iter()
        .any(|noun| folded.starts_with(noun.as_bytes()))
}

/// Whether a folded word is a noun for a person in the possessive of "our" or "my", which may stand
/// before a name ("Müvekkilimiz Lezize Korutürk", "çalışanımız Hüsnü Karakaş"; "Müşterimiz" alone is a
/// salutation).
pub fn person_noun_ours(folded: &[u8]) -> bool {
    [&b"imiz"[..], b"umuz", b"miz", b"muz", b"im", b"um"]
        .iter()
        .any(|ending| folded.ends_with(ending))
        && person_noun(folded)
}

/// The words after a person's name that introduce what the person is, folded: "adlı", "isimli",
/// "adındaki" ("Lezize Korutürk adlı müşteri").
static NAME_MARKERS: Words = Words::new(include_str!("lexicon/name_markers.txt"));

/// Whether a folded word is one of [`NAME_MARKERS`].
pub fn name_marker(folded: &[u8]) -> bool {
    NAME_MARKERS
        .iter()
        .any(|marker| marker.as_bytes() == folded)
}

/// English nouns for a person, folded, that stand before "named" or "called" ("a customer named
/// Weining Li", "the patient called Oluwaseun Adeyemi"); "a company named Bright Widgets" is no one.
static PERSON_NOUNS_EN: Words = Words::new(include_str!("lexicon/person_nouns_en.txt"));

/// Whether a folded English word is a noun for a person ([`PERSON_NOUNS_EN`]), in the singular.
pub fn person_noun_en(folded: &[u8]) -> bool {
    PERSON_NOUNS_EN.iter().any(|noun| noun.as_bytes() == folded)
}

/// Honorifics written in lower case inside a sentence, before a surname: Dutch "de heer Jansen",
/// "mevrouw De Vries", French "monsieur Dupont", Italian and Spanish "signora Rossi", "señor García"
/// (folded, ASCII).
const LOWER_CASE_HONORIFICS: &[&[u8]] = &[
    b"heer",
    b"mevrouw",
    b"mevr",
    b"dhr",
    b"monsieur",
    b"madame",
    b"mademoiselle",
    b"signor",
    b"signora",
    b"signorina",
    b"senor",
    b"senora",
];

/// Whether a word in lower case (ASCII, or "señor" folded) is an honorific ([`LOWER_CASE_HONORIFICS`]).
pub fn lower_case_honorific(folded: &[u8]) -> bool {
    LOWER_CASE_HONORIFICS.contains(&folded)
}

/// Words of a table's header cell that mark a column of goods: quantities, prices, amounts, stock
/// codes (split at spaces and underscores: "unit_price", "Birim Fiyat").
static GOODS_HEADER_WORDS: Words = Words::new(include_str!("lexicon/goods_header_words.txt"));

/// `check` on the fold of a short header cell without its colon and spaces (on the stack for the
/// usual cell of at most 40 bytes); false for a cell too long to be a header or that does not begin
/// with a letter (a number, an amount, an e-mail address: a data row's cells).
fn header_is(cell: &str, check: impl Fn(&[u8]) -> bool) -> bool {
    let cell = cell.trim();
    if cell.len() > 3 * TABLE_LABEL_BYTES_MAX || !cell.starts_with(char::is_alphabetic) {
        return false;
    }
    let (mut stack, mut spill) = ([0u8; 40], Vec::new());
    let folded = super::text::fold_short(cell.as_bytes(), &mut stack, &mut spill);
    check(
        folded
            .trim_ascii_end()
            .strip_suffix(b":")
            .unwrap_or(folded)
            .trim_ascii_end(),
    )
}

/// Whether a table's header cell marks a column of goods ([`GOODS_HEADER_WORDS`]).
pub fn goods_header(cell: &str) -> bool {
    header_is(cell, |folded| {
        folded.split(|&c| c == b' ' || c == b'_').any(|word| {
            GOODS_HEADER_WORDS
                .iter()
                .any(|goods| goods.as_bytes() == word)
        })
    })
}

/// Whether a table's header cell says only "name" ([`BARE_NAME_LABELS`]).
pub fn bare_name_header(cell: &str) -> bool {
    header_is(cell, |folded| {
        BARE_NAME_LABELS.iter().any(|l| l.as_bytes() == folded)
    })
}

/// Words that may follow "address" inside a label ("Address line:", "Address of residence:",
/// "Address (home):"); any other word after it makes the phrase prose ("we address the question:").
const AFTER_ADDRESS: &[&[u8]] = &[
    b"line",
    b"lines",
    b"of",
    b"details",
    b"information",
    b"info",
];

/// Words that make the "address" after them a verb: "we address the question:", "Issues to
/// address:", "You must address:".
const BEFORE_ADDRESS_VERB: &[&[u8]] = &[
    b"to", b"we", b"i", b"you", b"they", b"will", b"must", b"should", b"shall", b"can", b"could",
    b"would", b"may", b"might", b"not", b"also", b"please",
];

/// What the folded text before a colon announces: a known label ([`label`]), or an English phrase
/// around the word "address" that labels a field ("Address line:", "E-mail Address:", "Address
/// (home):"), but not the verb ("In this paper, we address the question:", "Topics to address:").
pub fn colon_label(folded: &[u8]) -> Option<Label> {
    let found = label(folded).or_else(|| address_phrase(folded).then_some(Label::Address));
    if found == Some(Label::Address) && address_as_verb(folded) {
        return None;
    }
    found
}

/// The whole word "address" in `folded`, followed by nothing, by a word of [`AFTER_ADDRESS`] or by a
/// parenthesis.
fn address_phrase(folded: &[u8]) -> bool {
    address_words(folded).any(|(_, after)| {
        let rest = folded[after..].trim_ascii_start();
        if rest.is_empty() || rest[0] == b'(' {
            return true;
        }
        let next = rest.split(|&c| c == b' ').next().unwrap_or(rest);
        AFTER_ADDRESS.contains(&next)
    })
}

/// Whether a word of [`BEFORE_ADDRESS_VERB`] stands right before the last "address" of `folded`.
fn address_as_verb(folded: &[u8]) -> bool {
    address_words(folded).last().is_some_and(|(start, _)| {
        let before = folded[..start].trim_ascii_end();
        let word = before
            .iter()
            .rposition(|&c| !c.is_ascii_alphabetic())
            .map_or(before, |at| &before[at + 1..]);
        BEFORE_ADDRESS_VERB.contains(&word)
    })
}

/// (start, end) of each whole word "address" in `folded` (not "addressee", not "readdress").
fn address_words(folded: &[u8]) -> impl Iterator<Item = (usize, usize)> + '_ {
    // From each 'a' (a substring searcher costs more to set up than these few bytes do to read).
    memchr::memchr_iter(b'a', folded).filter_map(|at| {
        if !folded[at..].starts_with(b"address") {
            return None;
        }
        let end = at + b"address".len();
        let starts = at == 0 || !folded[at - 1].is_ascii_alphanumeric();
        let ends = folded.get(end).is_none_or(|c| !c.is_ascii_alphanumeric());
        (starts && ends).then_some((at, end))
    })
}

/// Street words written in lower case after the house number ("12 rue de la Paix", "10 via Roma").
const LOWER_CASE_STREETS: &[&[u8]] = &[
    b"rue",
    b"avenue",
    b"boulevard",
    b"bd",
    b"chemin",
    b"impasse",
    b"place",
    b"quai",
    b"cours",
    b"route",
    b"via",
    b"viale",
    b"piazza",
    b"corso",
    b"calle",
    b"avenida",
    b"paseo",
    b"rua",
];

/// Whether `word` is one of [`LOWER_CASE_STREETS`].
pub fn lower_case_street(word: &[u8]) -> bool {
    LOWER_CASE_STREETS.contains(&word)
}

/// The first bytes of [`LOWER_CASE_STREETS`], derived from it: most words after a number are turned
/// away by their first byte.
pub static LOWER_CASE_STREET_INITIAL: [bool; 256] = {
    let mut table = [false; 256];
    let mut i = 0;
    while i < LOWER_CASE_STREETS.len() {
        table[LOWER_CASE_STREETS[i][0] as usize] = true;
        i += 1;
    }
    table
};

/// Lower-case words allowed inside an address after the street word ("No: 5 Kat: 2 Daire: 4").
pub const ADDRESS_WORDS: &[&[u8]] = &[
    b"no", b"kat", b"daire", b"d", b"k", b"apt", b"blok", b"ic", b"kapi", b"posta", b"kodu", b"pk",
    b"floor", b"suite", b"unit", b"apt.", b"nr", b"numara",
];

/// Whether a folded word, before a colon inside an address, labels a part of that address ("No:",
/// "D:3", "Kat:", "Posta Kodu:", "Mahalle:", "City:") rather than another field: one of the
/// [`ADDRESS_WORDS`], a street word, or one of the address's other fields.
pub fn address_part_word(folded: &[u8]) -> bool {
    const FIELDS: &[&[u8]] = &[
        b"il",
        b"ilce",
        b"sehir",
        b"semt",
        b"koy",
        b"bina",
        b"city",
        b"town",
        b"zip",
        b"code",
        b"postcode",
        b"postal",
        b"post",
        b"state",
        b"country",
        b"ulke",
        b"plz",
        b"ort",
        b"building",
        b"house",
        b"flat",
        b"dis",
        b"apartman",
        b"apartmani",
        b"bl",
    ];
    let word = folded.strip_suffix(b".").unwrap_or(folded);
    ADDRESS_WORDS.contains(&word)
        || FIELDS.contains(&word)
        || lookup(word) == Some(Word::Street)
        || street_compound(word)
}

/// Folded words that label a business document's own fields and never a part of an address: one of
/// them right before a colon ("Kadıköy Sipariş:", "Kadıköy Tarih:"), or before a "No:" ("Kadıköy
/// Fatura No:"), ends an address behind its label there.
pub const FIELD_LABEL_WORDS: &[&[u8]] = &[
    b"siparis",
    b"fatura",
    b"tarih",
    b"tarihi",
    b"tutar",
    b"tutari",
    b"toplam",
    b"vade",
    b"konu",
    b"aciklama",
    b"not",
    b"dosya",
    b"musteri",
    b"sozlesme",
    b"police",
    b"order",
    b"invoice",
    b"date",
    b"total",
    b"amount",
    b"subject",
    b"description",
    b"note",
    b"customer",
    b"contract",
    b"reference",
    b"referans",
];

/// Whether a folded word is one of the [`FIELD_LABEL_WORDS`].
pub fn field_label_word(folded: &[u8]) -> bool {
    FIELD_LABEL_WORDS.contains(&folded)
}

/// Whether a folded word is a number's abbreviation or word ("No", "Nr.", "Numarası"), which labels
/// an address's house number and other fields' numbers alike.
pub fn number_word(folded: &[u8]) -> bool {
    let word = folded.strip_suffix(b".").unwrap_or(folded);
    matches!(word, b"no" | b"nr" | b"numara" | b"numarasi")
}

/// Lower-case particles of family names ("Jan de Vries", "Ursula von der Leyen", "Luca di Marco").
pub const NAME_PARTICLES: &[&[u8]] = &[
    b"de", b"van", b"von", b"der", b"den", b"da", b"di", b"del", b"della", b"du", b"le", b"la",
    b"dos", b"das", b"ter", b"ten", b"zu",
];

/// Particles inside a street's name ("rue de la Paix", "via della Spiga"): part of the address only
/// when a name follows them.
pub const ADDRESS_PARTICLES: &[&[u8]] = &[
    b"de", b"la", b"des", b"du", b"le", b"les", b"del", b"di", b"della", b"do", b"dos",
];

#[cfg(test)]
mod tests;
