//! Labels: the words before a colon, a table's header or a field's key that announce a name, an
//! address or a phone number, and the words that tell such a label from prose or from a thing's name.

use rustc_hash::FxHashMap;
use std::sync::OnceLock;

use super::*;
use crate::pii_masker::engine::text;

/// Labels that a name follows after a colon ("Ad Soyad:", "Name:").
pub static NAME_LABELS: Words = Words::new(include_str!("name_labels.txt"));

/// The name labels that say only "name": after another word they name a person only when that word
/// is not a thing ("Baba Adı", "Müşteri Adı", but not "Ürün Adı", "Banka Adı", "Product name").
const BARE_NAME_LABELS: &[&str] = &[
    "ad", "adi", "isim", "name", "nom", "nombre", "nome", "naam", "namn", "navn", "nimi", "nume",
    "ime", "meno", "jmeno", "nev", "vardas", "vards", "imie",
];

/// Things whose name is not a person's, folded; a Turkish genitive ending ("ürünün", "firmanın") is
/// allowed after the longer ones.
static THINGS: Words = Words::new(include_str!("things.txt"));

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
pub static PHONE_LABELS: Words = Words::new(include_str!("phone_labels.txt"));

pub static ADDRESS_LABELS: Words = Words::new(include_str!("address_labels.txt"));

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
static PERSON_NAME_LABELS: Words = Words::new(include_str!("person_name_labels.txt"));

/// Keys that hold a value without saying what it is: the record around them does (`{"system":
/// "phone", "value": "..."}` in FHIR, `{"type": "dob", "value": ...}`, `{"label": "Telefon", "text":
/// ...}`), so such a key does not end its value's context window.
static GENERIC_VALUE_KEYS: Words = Words::new(include_str!("generic_value_keys.txt"));

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
static NAME_PART_KEYS: Words = Words::new(include_str!("name_part_keys.txt"));

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
static NO_NAME_VALUES: Words = Words::new(include_str!("no_name_values.txt"));

/// Whether a lower-case value, folded, fills a name field without naming anyone.
pub fn no_name_value(folded: &[u8]) -> bool {
    one_of(&NO_NAME_VALUES, folded)
}

/// Words of a table's header cell that mark a column of goods: quantities, prices, amounts, stock
/// codes (split at spaces and underscores: "unit_price", "Birim Fiyat").
static GOODS_HEADER_WORDS: Words = Words::new(include_str!("goods_header_words.txt"));

/// `check` on the fold of a short header cell without its colon and spaces (on the stack for the
/// usual cell of at most 40 bytes); false for a cell too long to be a header or that does not begin
/// with a letter (a number, an amount, an e-mail address: a data row's cells).
fn header_is(cell: &str, check: impl Fn(&[u8]) -> bool) -> bool {
    let cell = cell.trim();
    if cell.len() > 3 * TABLE_LABEL_BYTES_MAX || !cell.starts_with(char::is_alphabetic) {
        return false;
    }
    let (mut stack, mut spill) = ([0u8; 40], Vec::new());
    let folded = text::fold_short(cell.as_bytes(), &mut stack, &mut spill);
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
