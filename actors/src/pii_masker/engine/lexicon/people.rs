//! The company of a person's name: titles and salutations, greetings and closings, nouns and verbs
//! of people, particles, and the words that tell that capitalised words name no one (companies,
//! organisations, compounds that name places).

use rustc_hash::FxHashMap;
use std::sync::OnceLock;

use super::*;

/// Legal forms of companies, folded ("A.Ş." folds to "a.s"): a name label or a title followed by
/// words that run into one announces a company, not a person ("Alıcı: Yaman Gıda Ltd. Şti.").
pub(super) static COMPANY_WORDS: Words = Words::new(include_str!("company_words.txt"));

/// Abbreviations that are a legal form's part only with their dot ("San. ve Tic."): without it,
/// "Şan" is a surname.
pub(super) const COMPANY_ABBREVIATIONS: &[&str] = &["san", "tic"];

/// Words of organisations, folded: behind a name label or a title, a run of capitalised words holding
/// one names no person ("Alıcı: Türkiye İş Bankası", "Hazırlayan: Muhasebe Departmanı", "Prepared
/// by: Finance Team"). None of them is a Turkish or English surname.
pub(super) static ORGANISATION_WORDS: Words = Words::new(include_str!("organisation_words.txt"));

/// Words that, first after a title or a name label, address nobody in particular: "Sayın Yetkili",
/// "Sayın İlgili", "Sayın Müşterimiz", "Değerli Üyemiz" ("Değerli" is a surname too: only first).
/// Answers a form's field holds instead of a name, folded: as the first word behind a name label they
/// name no one ("Veli: Yok", "Sorumlu: Evet", "Contact: None").
static ANSWER_WORDS: Words = Words::new(include_str!("answer_words.txt"));

pub(super) static SALUTATION_WORDS: Words = Words::new(include_str!("salutation_words.txt"));

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
pub(super) static GREETINGS: Words = Words::new(include_str!("greetings.txt"));

/// Whether an ASCII word, in any case, is a greeting ([`GREETINGS`]).
pub fn greeting(word: &[u8]) -> bool {
    // All greetings have at most 8 letters: a longer word is none, unread.
    word.len() <= 8
        && GREETINGS
            .iter()
            .any(|g| g.as_bytes().eq_ignore_ascii_case(word))
}

/// Titles written after a given name in Turkish ("Ahmet Bey", "Elif Hanım'a", "Ayşe Hoca"), folded:
/// the name before one is a person's, even alone.
pub(super) static POST_TITLES: Words = Words::new(include_str!("post_titles.txt"));

/// Whether a folded word is a title written after a given name ([`POST_TITLES`]).
pub fn post_title(folded: &[u8]) -> bool {
    POST_TITLES.iter().any(|t| t.as_bytes() == folded)
}

/// Given names that are also common words, places or months ("Ege Üniversitesi", "Kuzey Kıbrıs",
/// "Deniz Kuvvetleri", "Umut Verici", "Can You", "Mark As Paid", "Jan Feb"), folded: followed by a
/// capitalised word that no gazetteer knows, they are not taken for a person's given name (with a
/// known surname, a greeting or a title they still are).
pub(super) static WORD_LIKE_GIVEN_NAMES: Words =
    Words::new(include_str!("word_like_given_names.txt"));

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
pub(super) static DISTINCTIVE_SURNAMES: Words =
    Words::new(include_str!("distinctive_surnames.txt"));

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
pub(super) static CLOSINGS: Words = Words::new(include_str!("closings.txt"));

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
pub(super) const CLOSING_BYTES_MAX: usize = 24;

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
static PERSON_NOUNS: Words = Words::new(include_str!("person_nouns.txt"));

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
    OURS_ENDINGS.iter().any(|ending| folded.ends_with(ending)) && person_noun(folded)
}

/// The endings of "our" and "my" on a noun for a person, folded ("-ımız", "-imiz", "-ümüz", "-ım").
const OURS_ENDINGS: &[&[u8]] = &[b"imiz", b"umuz", b"miz", b"muz", b"im", b"um"];

/// The words that introduce a person's name right after them in running text, lower case: "by"
/// after a participle ([`BY_VERBS`]), "named" and "called" after a noun for a person.
pub const INTRODUCING_WORDS: &[&[u8]] = &[b"by", b"named", b"called"];

/// How the word right before a capitalised word may end for that word to start a name after a word
/// of the company of names: a lower-case honorific ([`LOWER_CASE_HONORIFICS`]), an introducing word
/// ([`INTRODUCING_WORDS`]) or a noun for a person in "our" or "my" ([`OURS_ENDINGS`]), as written
/// (every spelling that folds to the lists' words: "ımız", "ümüz"). Built from those lists, so that
/// a word added to one is never turned away by the scanner's quick test.
pub struct BeforeName {
    /// Bit `a * 256 + b` set where such a word may end in the bytes `a`, `b`.
    pairs: Box<[u64; 1024]>,
    /// Whether such a word other than an honorific may end in the byte.
    introducing_last: [bool; 256],
}

impl BeforeName {
    /// Whether a word ending in the bytes `a`, `b` may be one of the words.
    #[inline(always)]
    pub fn may_end(&self, a: u8, b: u8) -> bool {
        let pair = usize::from(a) << 8 | usize::from(b);
        self.pairs[pair >> 6] & (1 << (pair & 63)) != 0
    }

    /// Whether a word ending in `last` may be an introducing word or a noun in "our" or "my".
    #[inline(always)]
    pub fn may_introduce(&self, last: u8) -> bool {
        self.introducing_last[usize::from(last)]
    }
}

/// The [`BeforeName`] table, built once from the lists.
pub fn before_name() -> &'static BeforeName {
    static TABLE: OnceLock<BeforeName> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table = BeforeName {
            pairs: Box::new([0; 1024]),
            introducing_last: [false; 256],
        };
        let words = LOWER_CASE_HONORIFICS.iter().map(|word| (*word, false));
        let introducing = INTRODUCING_WORDS
            .iter()
            .chain(OURS_ENDINGS)
            .map(|word| (*word, true));
        for (word, introduces) in words.chain(introducing) {
            for written in spellings(word) {
                let [.., a, b] = written[..] else { continue };
                let pair = usize::from(a) << 8 | usize::from(b);
                table.pairs[pair >> 6] |= 1 << (pair & 63);
                table.introducing_last[usize::from(b)] |= introduces;
            }
        }
        table
    })
}

/// Every way of writing the last two letters of a folded word: each letter as itself or as a
/// lower-case letter of Latin-1 or Latin Extended-A that folds to it ("iz": "iz", "ız"; "uz": "uz",
/// "üz"), as UTF-8 bytes.
fn spellings(folded: &[u8]) -> Vec<Vec<u8>> {
    let tail = &folded[folded.len().saturating_sub(2)..];
    let mut written: Vec<Vec<u8>> = vec![Vec::new()];
    for &letter in tail {
        let mut forms = vec![vec![letter]];
        for c in '\u{C0}'..='\u{17F}' {
            let mut utf8 = [0u8; 4];
            let encoded = c.encode_utf8(&mut utf8);
            if c.is_lowercase() && fold(encoded) == [letter] {
                forms.push(encoded.as_bytes().to_vec());
            }
        }
        written = written
            .iter()
            .flat_map(|start| {
                forms
                    .iter()
                    .map(move |form| [start.as_slice(), form].concat())
            })
            .collect();
    }
    written
}

/// The words after a person's name that introduce what the person is, folded: "adlı", "isimli",
/// "adındaki" ("Lezize Korutürk adlı müşteri").
static NAME_MARKERS: Words = Words::new(include_str!("name_markers.txt"));

/// Whether a folded word is one of [`NAME_MARKERS`].
pub fn name_marker(folded: &[u8]) -> bool {
    NAME_MARKERS
        .iter()
        .any(|marker| marker.as_bytes() == folded)
}

/// English nouns for a person, folded, that stand before "named" or "called" ("a customer named
/// Weining Li", "the patient called Oluwaseun Adeyemi"); "a company named Bright Widgets" is no one.
static PERSON_NOUNS_EN: Words = Words::new(include_str!("person_nouns_en.txt"));

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

/// Lower-case particles of family names ("Jan de Vries", "Ursula von der Leyen", "Luca di Marco").
pub const NAME_PARTICLES: &[&[u8]] = &[
    b"de", b"van", b"von", b"der", b"den", b"da", b"di", b"del", b"della", b"du", b"le", b"la",
    b"dos", b"das", b"ter", b"ten", b"zu",
];

/// Words of a colon label that names a field other than a person, folded ("subject", "date",
/// "betrag", "konu"): the capitalised words behind such a label are no person.
static FIELD_WORDS: Words = Words::new(include_str!("field_words.txt"));

/// Whether the folded words of a colon label (without the colon) name a field other than a person.
pub fn other_field(label: &[u8]) -> bool {
    label
        .split(|c| !c.is_ascii_alphanumeric())
        .any(|word| FIELD_WORDS.iter().any(|w| w.as_bytes() == word))
}

/// Legal forms written in capitals ("Nordvind Handel AB", "Nordwind AG"): a run of capitalised
/// words with one names a company. Only in capitals: "As", "Sa", "Ab" are words of some language.
pub fn legal_form_in_capitals(word: &[u8]) -> bool {
    const FORMS: &[&[u8]] = &[
        b"AB", b"AG", b"APS", b"AS", b"ASA", b"BV", b"GMBH", b"HB", b"INC", b"IVS", b"KB", b"KG",
        b"KFT", b"LLC", b"LTD", b"NV", b"OHG", b"OY", b"PLC", b"SA", b"SAS", b"SE", b"SL", b"SPA",
        b"SRL", b"SRO",
    ];
    FORMS.contains(&word)
}

/// [`organisation_in_text`] for a word written with a dot after it ("Sp." of "Sp. z o.o.", "v.o.s."):
/// `folded` is the word without its last dot.
pub fn organisation_with_dot(folded: &[u8], written: &[u8]) -> bool {
    let mut with_dot = Vec::with_capacity(folded.len() + 1);
    with_dot.extend_from_slice(folded);
    with_dot.push(b'.');
    organisation_in_text(&with_dot, written)
}

/// Whether a folded capitalised word in running text (`written` as it stands) names an organisation
/// or a company's legal form: an organisation's word ("Bank", "Holding"), a legal form of four
/// letters or more ("GmbH", "Limited"), or a short one written in capitals, with its dots, or one that
/// is no surname ("AB", "S.A.", "Ltd"; not "Sas", "As").
pub fn organisation_in_text(folded: &[u8], written: &[u8]) -> bool {
    let word = folded.strip_suffix(b".").unwrap_or(folded);
    match not_person_words().get(word) {
        Some(NotPerson::Organisation) => true,
        Some(NotPerson::Company) => {
            word.len() >= 4
                || word.contains(&b'.')
                || folded.ends_with(b".")
                || matches!(word, b"ltd" | b"inc" | b"llc" | b"plc" | b"sti")
                || written.iter().all(|c| !c.is_ascii_lowercase())
        }
        _ => legal_form_in_capitals(written),
    }
}
