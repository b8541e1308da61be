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
        // Each language's titles, where the word is no name ("Don" stays a given name).
        for word in languages::LANGUAGES.iter().flat_map(|l| l.titles) {
            table.entry(fold(word)).or_insert(Word::Honorific);
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
/// sections (`turkish`) or of its others; in lower case and their language's letters ("gökçe",
/// "yılmaz"), letters only, three or more.
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
                if line.chars().count() >= 3 && line.chars().all(char::is_lowercase) {
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

/// Loads every table the engine reads words against (each language's ordinary words and proper nouns,
/// given names, surnames, places), so that the first document does not wait for them.
pub fn warm() {
    let _ = (
        words::facts(b""),
        lookup(b""),
        given_name(b""),
        known_surname(b""),
        place(b""),
        ordinary_in(b""),
        guess_language(b"warm", 0),
    );
}

mod addresses;
mod labels;
mod languages;
mod names;
mod people;
mod words;

pub use addresses::*;
pub use labels::*;
pub use languages::{
    guess as guess_language, ordinary_in, Language, Tellings, ORDINARY as ORDINARY_UNDER,
};
#[cfg(test)]
pub use names::Gender;
pub use names::{given_name, given_name_origin, given_names_of, known_surname, place};
pub use people::*;
pub use words::facts;

#[cfg(test)]
mod tests;
